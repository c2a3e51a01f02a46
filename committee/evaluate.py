"""Score segmenters' outputs against a gold corpus: the engine behind
``committee score`` and the run reports.

Reads every file once, checks alignment, reduces each output to sufficient
statistics (:mod:`committee.metrics`) and returns plain dictionaries that the
CLI prints as a table or as JSON.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from committee import corpus as corpus_mod
from committee import difficulty as difficulty_mod
from committee import metrics
from committee.errors import InputError

METRIC_KEYS = (
    "p", "r", "f1", "pb", "rb", "fb",
    "p_reward", "p_punishment", "r_reward", "r_punishment",
    "oov_rate", "oov_recall", "iv_recall", "er", "tnr",
    "boundary_p", "boundary_r", "boundary_f1",
)


@dataclass(frozen=True)
class ScoringInputs:
    """Gold corpus, difficulties and training vocabulary, loaded once."""

    gold: corpus_mod.Corpus
    difficulty: np.ndarray | None
    difficulty_sha256: str | None
    train_words: set[str] | None
    train_words_sha256: str | None


def load_inputs(gold_path, difficulty_path=None, train_words_path=None, train_path=None,
                fmt="sighan", encoding="utf-8", normalization=None,
                train_format="sighan") -> ScoringInputs:
    """Read the gold file, its difficulty file and the training vocabulary."""
    gold = corpus_mod.read_corpus(gold_path, format=fmt, encoding=encoding,
                                  normalization=normalization)
    d = d_sha = None
    if difficulty_path is not None:
        d = difficulty_mod.read_weight(difficulty_path, gold)
        from committee.fileio import sha256_file
        d_sha = sha256_file(difficulty_path)
    words = w_sha = None
    if train_words_path is not None and train_path is not None:
        raise ValueError("give either a training word list or a training corpus, not both")
    if train_words_path is not None:
        words = corpus_mod.read_word_list(train_words_path, encoding=encoding)
        from committee.fileio import sha256_file
        w_sha = sha256_file(train_words_path)
        if normalization:
            words = {corpus_mod.normalize(w, normalization) for w in words}
    elif train_path is not None:
        train = corpus_mod.read_corpus(train_path, format=train_format, encoding=encoding,
                                       normalization=normalization)
        words = corpus_mod.training_words(train)
        w_sha = train.sha256
    return ScoringInputs(gold, d, d_sha, words, w_sha)


def system_name(path: str, taken: set[str]) -> str:
    """A short unique name for an output file (its stem, made unique)."""
    name = Path(path).name
    for suffix in (".utf8", ".txt", ".dat", ".seg", ".out"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    base, i = name, 2
    while name in taken:
        name, i = f"{base}-{i}", i + 1
    taken.add(name)
    return name


def rank(values: list[float | None]) -> list[int | None]:
    """Competition ranks, 1 = best (highest); undefined values get no rank.

    >>> rank([0.9, 0.95, None, 0.9])
    [2, 1, None, 2]
    """
    defined = sorted((v for v in values if v is not None), reverse=True)
    return [None if v is None else defined.index(v) + 1 for v in values]


def score_outputs(inputs: ScoringInputs, output_paths, fmt="sighan", encoding="utf-8",
                  normalization=None, n_bootstrap=0, seed=12345) -> dict:
    """Score each output file; return ``{"signature": ..., "systems": [...]}``.

    Each system carries every metric of :data:`METRIC_KEYS` (fractions in
    [0, 1], ``None`` when undefined), ``recall_by_bin``, its ranks by f1 and
    by fb and, with ``n_bootstrap > 0``, 95% intervals (``ci``) and paired
    comparisons against the system ranked first by fb (``paired``).
    """
    taken: set[str] = set()
    systems, all_stats = [], []
    scorer = metrics.Scorer(inputs.gold, difficulty=inputs.difficulty,
                            train_words=inputs.train_words)
    for path in output_paths:
        pred = corpus_mod.read_corpus(path, format=fmt, encoding=encoding,
                                      normalization=normalization)
        stats = scorer.collect(pred)
        values = metrics.compute(stats)
        row = {"name": system_name(path, taken), "path": os.fspath(path)}
        row.update({k: values[k] for k in METRIC_KEYS})
        row["recall_by_bin"] = values.get("recall_by_bin")
        row["counts"] = values.get("counts")
        if n_bootstrap:
            row["ci"] = {k: list(v) for k, v in metrics.bootstrap(stats, n=n_bootstrap,
                                                                  seed=seed).items()}
        systems.append(row)
        all_stats.append(stats)
    for key in ("f1", "fb"):
        for row, r in zip(systems, rank([s[key] for s in systems])):
            row[f"rank_{key}"] = r
    if n_bootstrap and len(systems) > 1:
        best = min(range(len(systems)),
                   key=lambda i: (systems[i]["rank_fb"] or systems[i]["rank_f1"] or 10**9, i))
        for i, row in enumerate(systems):
            if i == best:
                continue
            row["paired"] = {
                key: metrics.paired_bootstrap(all_stats[best], all_stats[i], metric=key,
                                              n=n_bootstrap, seed=seed)
                | {"against": systems[best]["name"]}
                for key in ("f1", "fb")
            }
    sig = metrics.signature(normalization=normalization, gold_sha256=inputs.gold.sha256,
                            difficulty_sha256=inputs.difficulty_sha256,
                            train_words_sha256=inputs.train_words_sha256,
                            n_bootstrap=n_bootstrap, seed=seed)
    return {"signature": sig, "systems": systems}


def require_files(paths) -> None:
    """Fail early, with one line, on a missing or empty file."""
    for p in paths:
        if p is None:
            continue
        if not os.path.exists(p):
            raise InputError(p, None, "no such file")
        if os.path.isdir(p):
            raise InputError(p, None, "is a directory, expected a file")
