"""What ``manifest.json`` says of a run: its difficulty signature
(:func:`difficulty_signature`), config, seeds, corpora, committee,
difficulties and versions (:func:`manifest`; the checksums of its files are
added by :func:`committee.pipeline.layout.write_manifest`)."""

from __future__ import annotations

import os
import platform

from committee import __version__
from committee.metrics import difficulty_stats
from committee import corpus as corpus_mod
from committee.learners import trainers
from committee import tasks as tasks_mod


def difficulty_signature(cfg, inputs, stability: dict | None = None) -> str:
    """A citable string naming everything the difficulties depend on; a run
    of ``size: auto`` names the size it reached and its ``stability``
    (``K:60|stable:reliability=0.9903>=0.99``; ``<`` when it stopped at
    ``max_size`` short of the target); members of another trainer than the
    default name it (``trainer:NAME``)."""
    c = cfg.committee
    params = ",".join(f"{k}={v}" for k, v in sorted(cfg.crf.trainer_params().items()))
    stable = [] if stability is None else [
        f"stable:reliability={stability['value']}{'>=' if stability['reached'] else '<'}"
        f"{stability['target']}"]
    return "|".join([
        "committee-difficulty",
        *([] if inputs.task == tasks_mod.DEFAULT_TASK else [f"task:{inputs.task}"]),
        f"test:sha256={inputs.test.content_sha256[:12]}",
        f"train:sha256={inputs.train.content_sha256[:12]}",
        *_split_field(cfg),
        f"K:{c.size if stability is None else stability['size']}",
        *stable,
        f"templates:{','.join(c.templates)}",
        f"ratios:{','.join(str(r) for r in c.ratios)}",
        f"draw:{c.draw}",
        f"seed:{c.seed}",
        *([] if cfg.crf.trainer == trainers.DEFAULT_TRAINER else [f"trainer:{cfg.crf.trainer}"]),
        f"crf:{cfg.crf.algorithm}({params})",
        f"norm:{cfg.corpus.train.normalization or 'none'}",
        f"version:{__version__}",
    ])


def _split_field(cfg) -> list[str]:
    """The signature's ``split:`` field when ``corpus.split`` divides one
    file (``split:test=0.2``, ``split:test=0.2,seed=7``, ``split:test=8001-9000``);
    none otherwise."""
    split = cfg.corpus.split
    if split is None:
        return []
    return [f"split:test={split.test}" + ("" if split.seed is None else f",seed={split.seed}")]


def _versions() -> dict:
    import importlib.metadata as md

    out = {"committee": __version__, "python": platform.python_version()}
    for dist in ("numpy", "python-crfsuite", "joblib", "pandas", "pyyaml"):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            out[dist] = None
    return out


def manifest(cfg, inputs, committee, records, fingerprint, d, oov,
             stability: dict | None = None) -> dict:
    """What ``manifest.json`` says of a run (its files' checksums are added
    by :func:`committee.pipeline.layout.write_manifest`)."""
    config = cfg.to_dict(resolved=False)
    # how and where it ran does not change what it made: keep the outputs
    # byte-identical across backends, worker counts and output directories
    config.pop("parallel", None)
    config.pop("output", None)
    return {
        "name": cfg.name,
        "signature": difficulty_signature(cfg, inputs, stability),
        "fingerprint": fingerprint,
        "config": config,
        "seeds": {"seed": cfg.committee.seed,
                  "member_rng": "numpy.random.default_rng(SeedSequence(seed, spawn_key=(k,)))"},
        "corpus": {
            "train": _corpus_summary(inputs.train, len(inputs.train_sentences)),
            "test": _corpus_summary(inputs.test, len(inputs.test.words)),
            "vocabulary": inputs.vocabulary_source | {"words": len(inputs.vocabulary)},
            "test_oov_rate": float(oov.mean()),
        },
        "committee": {"size": len(committee), "members": [
            {k: records[m.index][k] for k in ("index", "template", "ratio", "n_sentences",
                                              "p", "r", "f1")}
            for m in committee]} | ({} if stability is None else {"stability": stability}),
        "difficulty": {tasks_mod.get(inputs.task).count_key: int(d.size), "mean": float(d.mean()),
                       "histogram": difficulty_stats.bin_counts(d).tolist(),
                       "bins": "[0,0.1), [0.1,0.2), ..., [0.9,1.0]"},
        "versions": _versions(),
    }


def _corpus_summary(c: corpus_mod.Corpus, n_sentences: int) -> dict:
    return {"path": c.path if not c.path.startswith("/") else os.path.basename(c.path),
            "sha256": c.sha256, "content_sha256": c.content_sha256,
            "sentences": n_sentences, "words": c.n_words(),
            "characters": sum(len(w) for s in c.words for w in s)}
