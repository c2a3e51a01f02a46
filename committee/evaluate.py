"""Score segmenters' outputs against a gold corpus: the engine behind
``committee score`` and the run reports.

Reads every file once, checks alignment, reduces each output to sufficient
statistics (:mod:`committee.metrics`) and returns plain dictionaries that the
CLI prints as a table or as JSON.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from committee import corpus as corpus_mod
from committee import difficulty as difficulty_mod
from committee import metrics
from committee import runlock
from committee.errors import InputError, PlausibilityWarning
from committee.fileio import sha256_bytes, sha256_file

#: An OOV rate above this (share of gold tokens) draws a PlausibilityWarning.
OOV_WARN_RATE = 0.5

#: Every scalar metric of a scored system (one home: :data:`metrics.METRICS`).
METRIC_KEYS = metrics.METRICS


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
        runlock.check_final(Path(difficulty_path).parent)  # not a run still being written
        d = difficulty_mod.read_weight(difficulty_path, gold)
        d_sha = sha256_file(difficulty_path)
        check_provenance(difficulty_path, d_sha, gold)
    words = w_sha = None
    if train_words_path is not None and train_path is not None:
        raise ValueError("give either a training word list or a training corpus, not both")
    if train_words_path is not None:
        words = corpus_mod.read_word_list(train_words_path, encoding=encoding)
        w_sha = sha256_file(train_words_path)
        if normalization:
            words = {corpus_mod.normalize(w, normalization) for w in words}
    elif train_path is not None:
        train = corpus_mod.read_corpus(train_path, format=train_format, encoding=encoding,
                                       normalization=normalization)
        words = corpus_mod.training_words(train)
        w_sha = train.sha256
    if words is not None:
        check_oov_rate(gold, words, train_words_path or train_path)
    return ScoringInputs(gold, d, d_sha, words, w_sha)


def check_oov_rate(gold: corpus_mod.Corpus, words: set[str], source) -> float | None:
    """Warn when more than half of the gold tokens are out of vocabulary.

    Real test sets have OOV rates of 2-20%; above :data:`OOV_WARN_RATE` the
    vocabulary most likely belongs to another corpus, or was read with another
    encoding or normalization.  Returns the rate (None for a gold without words).
    """
    n = gold.n_words()
    if n == 0:
        return None
    rate = float(metrics.oov_flags(gold, words).mean())
    if rate > OOV_WARN_RATE:
        warnings.warn(PlausibilityWarning(
            f"{gold.path}: {100 * rate:.1f}% of the gold words are not in the training "
            f"vocabulary {os.fspath(source)} (OOV rate above {OOV_WARN_RATE:.0%}): is it the "
            "word list of this corpus, in the same encoding and normalization?"), stacklevel=2)
    return rate


def check_provenance(difficulty_path, difficulty_sha256: str, gold: corpus_mod.Corpus) -> None:
    """Warn when a difficulty file from ``committee run`` does not fit ``gold``.

    The rule: when a ``manifest.json`` sits beside the difficulty file, it is
    the record of the run that wrote it.  Then (1) if its ``files`` entry for
    the difficulty file's name holds another checksum, the file was changed
    after the run; (2) the gold must be that run's test set: its file bytes
    must have the checksum of the run's ``test.txt`` or of the original test
    corpus file (``corpus.test.sha256``), or its words, written as SIGHAN
    UTF-8 (one sentence per line, words joined by one space), must be
    byte-identical to ``test.txt``.  Either mismatch gives one
    :class:`PlausibilityWarning`; without a manifest nothing is checked.
    """
    path = Path(difficulty_path)
    manifest_path = path.parent / "manifest.json"
    if not manifest_path.is_file():
        return
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        warnings.warn(PlausibilityWarning(
            f"{manifest_path}: unreadable ({' '.join(str(exc).split())}); cannot check that "
            f"{path.name} belongs to gold {gold.path}"), stacklevel=3)
        return
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict):
        return  # not a committee run manifest
    recorded = files.get(path.name)
    if isinstance(recorded, str) and recorded != difficulty_sha256:
        warnings.warn(PlausibilityWarning(
            f"{path}: changed since committee run wrote it (sha256 {difficulty_sha256[:12]}, "
            f"{manifest_path.name} records {recorded[:12]}); rerun committee run to get the "
            "original"), stacklevel=3)
    test_sha = files.get("test.txt")
    test = manifest.get("corpus", {}).get("test", {}) if isinstance(manifest.get("corpus"), dict) else {}
    known = {s for s in (test_sha, test.get("sha256") if isinstance(test, dict) else None)
             if isinstance(s, str)}
    if not known or gold.sha256 in known:
        return
    canonical = sha256_bytes(corpus_mod.format_sighan(gold.words).encode("utf-8"))
    if canonical == test_sha:
        return
    warnings.warn(PlausibilityWarning(
        f"{path}: made by committee run for another test set ({manifest_path.name}: test.txt "
        f"sha256 {str(test_sha)[:12]}; gold {gold.path}: {gold.sha256[:12]}): its difficulties "
        f"may belong to other words; score against {path.parent / 'test.txt'}"), stacklevel=3)


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
