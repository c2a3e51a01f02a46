"""Score segmenters' outputs against a gold corpus: the Python API and the
engine behind ``committee score``.

:func:`score` scores one output in one call; :class:`Scorer` reads the gold
side once (gold, difficulties, training vocabulary) and scores any number of
outputs; :func:`compare` runs a paired bootstrap on two :class:`Scores`.
``committee score`` is a thin layer over :meth:`Scorer.score_all`, so a score
computed in Python equals the command's, signature included.

Every input can be a file or in memory:

* a segmentation (gold or output): a path, a :class:`~committee.corpus.Corpus`,
  a list of word lists, or a list of space-separated sentences;
* difficulties: a ``.weight``/``.weight_c`` path, a run directory, one list
  of values per sentence, or a flat vector (:func:`committee.difficulty.load_difficulty`);
* a training vocabulary: a word-list path, a training ``Corpus`` (or a
  corpus path with ``train_format``), or any iterable of words.

Each output is reduced to sufficient statistics (:mod:`committee.metrics`);
intervals and paired comparisons come from :mod:`committee.significance`.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from committee import corpus as corpus_mod
from committee import difficulty as difficulty_mod
from committee import checks, metrics, significance
from committee.metrics import records
from committee.metrics.records import pct
from committee.checkargs import (count, got, require, require_choice, require_int,
                                 require_many, require_real)
from committee.corpus import Corpus
from committee.errors import InputError, PlausibilityWarning
from committee.spans import match
from committee.spans import spans as spans_of

__all__ = ["Scorer", "Scores", "compare", "read_corpus", "read_segmentation", "score"]

#: An OOV rate above this (share of gold tokens) draws a PlausibilityWarning.
OOV_WARN_RATE = 0.5

#: Default seed of the bootstrap (the ``--seed`` of ``committee score``).
SEED = 12345


# --------------------------------------------------------------------------
# Inputs from files or memory
# --------------------------------------------------------------------------

def read_segmentation(source, *, label: str = "<gold>", format: str = "sighan",
                      encoding: str = "utf-8", normalization: str | None = None,
                      fix=None, argument: tuple[str, str] = ("read_segmentation", "source")) -> Corpus:
    """A segmentation as a :class:`~committee.corpus.Corpus`, from a file or memory.

    Parameters
    ----------
    source : path, Corpus, list of word lists, or list of str
        A file (read with :func:`committee.corpus.read_corpus`), a corpus
        (returned as is), or sentences: each a list of words or a string of
        words separated by spaces.
    label : str
        How in-memory sentences are named in messages (``<gold>:2: ...``).
    format, encoding, normalization, fix
        As in :func:`committee.corpus.read_corpus`; in-memory words are
        normalised the same way.  A path ``"-"`` is standard input.
    argument : (str, str)
        The function and argument that a :class:`TypeError` names for a
        ``source`` of another type (``("score", "gold")``).

    Examples
    --------
    >>> c = read_segmentation(["我 爱 北京", ["你好"]], label="<output>")
    >>> c.path, c.words, c.lines
    ('<output>', [['我', '爱', '北京'], ['你好']], [1, 2])
    >>> read_segmentation([["我", ""]])
    Traceback (most recent call last):
    ...
    committee.errors.InputError: <gold>:1: word '' is empty or contains whitespace
    """
    if isinstance(source, Corpus):
        return source
    if isinstance(source, (str, os.PathLike)):
        return corpus_mod.read_corpus(source, format=format, encoding=encoding,
                                      normalization=normalization, fix=fix)
    if normalization not in corpus_mod.NORMALIZATIONS:
        raise ValueError(f"unknown normalization {normalization!r}")
    sentences = require_many(*argument, source, SEGMENTATION)
    words = []
    for i, sentence in enumerate(sentences):
        if isinstance(sentence, str):
            ws = sentence.split()
        elif isinstance(sentence, (list, tuple)) and all(isinstance(w, str) for w in sentence):
            ws = list(sentence)
        else:
            raise InputError(label, i + 1, "expected a list of words or a string of words "
                                           f"separated by spaces, got {sentence!r}")
        if normalization is not None:
            ws = [corpus_mod.normalize(w, normalization) for w in ws]
        bad = next((w for w in ws if not w or w.split() != [w]), None)
        if bad is not None:
            raise InputError(label, i + 1, f"word {bad!r} is empty or contains whitespace")
        words.append(ws)
    # the checksum of the same words written as a SIGHAN UTF-8 file
    sha = corpus_mod.content_sha256(words)
    return Corpus(label, words, list(range(1, len(words) + 1)), sha256=sha,
                  normalization=normalization, content_sha256=sha)


#: What a gold or an output may be, as messages say it.
SEGMENTATION = "a path, a Corpus or a list of sentences"


def read_corpus(path, format: str = "sighan", encoding: str = "utf-8",
                normalization: str | None = None, **options) -> Corpus:
    """:func:`committee.corpus.read_corpus` (``committee.read_corpus``) with
    its arguments checked: a path that is not a ``str`` or path-like is a
    :class:`TypeError` naming it.

    >>> read_corpus(None)
    Traceback (most recent call last):
    ...
    TypeError: read_corpus: path must be a path (str or os.PathLike), got NoneType
    """
    require("read_corpus", "path", path, (str, os.PathLike), "a path (str or os.PathLike)")
    _check_file_options("read_corpus", {"format": format, "encoding": encoding,
                                        "normalization": normalization})
    return corpus_mod.read_corpus(path, format=format, encoding=encoding,
                                  normalization=normalization, **options)


#: The keyword arguments of :class:`Scorer` that :func:`score` passes on.
SCORER_OPTIONS = ("gold_format", "gold_encoding", "train_encoding", "allow_overlap", "spelling")


def _check_file_options(api: str, options: dict) -> None:
    """Raise :class:`TypeError` or :class:`ValueError` naming ``api`` and the
    keyword for a format, encoding, normalization or flag it cannot use."""
    for key, value in options.items():
        if key.endswith("format"):
            require_choice(api, key, value, corpus_mod.FORMATS, none=key != "format")
        elif key.endswith("encoding"):
            require(api, key, value, str, "a codec name such as 'utf-8' or 'gb18030'",
                    none=key != "encoding")
            try:
                value is None or codecs.lookup(value)
            except LookupError:
                raise ValueError(f"{api}: {key} must be a codec name such as 'utf-8' or "
                                 f"'gb18030', got {value!r}") from None
        elif key == "normalization":
            require_choice(api, key, value, corpus_mod.NORMALIZATIONS[1:], none=True)
        elif key == "allow_overlap":
            require(api, key, value, bool, "True or False")
        elif key == "spelling" and value is not None and not callable(value):
            raise TypeError(f"{api}: spelling must be a function or None, got {got(value)}")
        elif key == "irt":
            require(api, key, value, (str, os.PathLike), "a run directory or its items.tsv",
                    none=True)


def _check_segmentation(api: str, name: str, value) -> None:
    """A gold or an output: a path, a Corpus or a collection of sentences."""
    if not isinstance(value, (str, os.PathLike, Corpus)):
        require_many(api, name, value, SEGMENTATION)


def _check_difficulty(api: str, value) -> None:
    """The container of difficulties (its values are checked where they are read)."""
    require(api, "difficulty", value, (str, os.PathLike, np.ndarray, list, tuple),
            "a .weight file, a run directory, one list of values per gold sentence or one "
            "value per gold word", none=True)


def _check_vocabulary(api: str, value) -> None:
    """A training vocabulary: a path, a Corpus or a collection of words."""
    if value is not None and not isinstance(value, (str, os.PathLike, Corpus)):
        require_many(api, "train_words", value, "a word-list file, a training Corpus or a "
                                                "collection of words")


def _check_resampling(api: str, bootstrap, seed) -> None:
    require_int(api, "bootstrap", bootstrap, 0)
    require_int(api, "seed", seed, 0)


def python_spelling(source: str):
    """How :class:`Scorer` messages spell setting ``key`` of ``source``
    (``"gold"``, ``"train"`` or ``"output"``): its keyword argument.

    >>> python_spelling("gold")("format", "conllu"), python_spelling("output")("encoding", "gb18030")
    ("gold_format='conllu'", "encoding='gb18030'")
    """
    prefix = "" if source == "output" else f"{source}_"
    return lambda key, value: (f"{key}={value!r}" if key == "allow_overlap"
                               else f"{prefix}{key}={value!r}")


def _vocabulary(source, *, encoding, normalization, train_format, fix=None, api="Scorer"):
    """``(words, sha256, corpus)`` of a training vocabulary, or ``(None, None, None)``.

    The checksum is of the words (:func:`committee.corpus.word_list_sha256`),
    whatever file, format or encoding they came from; ``corpus`` is the
    training corpus when the vocabulary came from one.
    """
    if source is None:
        return None, None, None
    train = None
    if isinstance(source, Corpus):
        train = source
    elif isinstance(source, (str, os.PathLike)) and train_format is not None:
        train = corpus_mod.read_corpus(source, format=train_format, encoding=encoding,
                                       normalization=normalization, fix=fix)
    if train is not None:
        words = corpus_mod.training_words(train)
    elif isinstance(source, (str, os.PathLike)):
        words = corpus_mod.read_word_list(source, encoding=encoding,
                                          normalization=normalization, fix=fix)
    else:
        items = list(source)
        bad = [w for w in items if not isinstance(w, str)][:1]
        if bad:
            raise TypeError(f"{api}: train_words must hold words (str), got {got(bad[0])} "
                            "among them")
        words = set(items)
        if normalization:
            words = {corpus_mod.normalize(w, normalization) for w in words}
    return words, corpus_mod.word_list_sha256(words), train


def _run_test_sha256(difficulty_path) -> str | None:
    """The checksum of ``test.txt`` that the manifest beside a difficulty
    file records (None without a readable run manifest)."""
    manifest_path = Path(difficulty_path).parent / "manifest.json"
    try:
        files = json.loads(manifest_path.read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError):
        return None
    sha = files.get("test.txt") if isinstance(files, dict) else None
    return sha if isinstance(sha, str) else None


def _not_this_gold(exc: InputError, difficulty, gold: Corpus) -> InputError:
    """``exc`` (difficulties that do not fit ``gold``), with what is known
    when the difficulties come from a run whose test set is not ``gold``:
    the gold and an output given the wrong way round when the gold holds the
    text of the run's test set with other words (it looks like an output of
    it, :func:`committee.checks.looks_like_output`), another test set
    otherwise."""
    path = difficulty_mod.difficulty_file(difficulty)
    sha = None if path is None else _run_test_sha256(path)
    if sha is None or sha == corpus_mod.content_sha256(gold.words):
        return exc
    test_path = Path(path).parent / "test.txt"
    try:
        test = corpus_mod.read_corpus(test_path, normalization=gold.normalization)
    except (InputError, OSError):
        return exc
    if checks.looks_like_output(gold, test):
        return InputError(exc.path, exc.line, f"{exc.message}; the gold {gold.path} is not the "
                          f"test set of this run ({test_path}): were the gold and an output "
                          "given the wrong way round?")
    return InputError(exc.path, exc.line, f"{exc.message}; these difficulties belong to the "
                      f"test set of a run ({test_path}), whose text differs from the gold "
                      f"{gold.path}: give the difficulties made for this gold")


def _check_overlap(train: Corpus, gold: Corpus, allow: bool, fix) -> None:
    """:func:`committee.checks.check_train_test` with the way out spelled by ``fix``."""
    try:
        checks.check_train_test(train, gold, allow_identical=allow)
    except InputError as exc:
        raise InputError(exc.path, exc.line,
                         f"{exc.message}, or accept it with {fix('allow_overlap', True)}") from None


def check_oov_rate(gold: Corpus, oov: np.ndarray, source) -> float | None:
    """Warn when more than half of the gold tokens are out of vocabulary.

    ``oov`` holds :func:`committee.metrics.oov_flags` of ``gold``.  Real test
    sets have OOV rates of 2-20%; above :data:`OOV_WARN_RATE` the vocabulary
    most likely belongs to another corpus, or was read with another encoding
    or normalization.  Returns the rate (None for a gold without words).
    """
    if len(oov) == 0:
        return None
    rate = float(oov.mean())
    if rate > OOV_WARN_RATE:
        where = (os.fspath(source) if isinstance(source, (str, os.PathLike))
                 else getattr(source, "path", None))
        vocabulary = "the training vocabulary" + (f" {where}" if where else "")
        warnings.warn(PlausibilityWarning(
            f"{gold.path}: {100 * rate:.1f}% of the gold words are not in {vocabulary} "
            f"(OOV rate above {OOV_WARN_RATE:.0%}): is it the "
            "word list of this corpus, in the same encoding and normalization?"), stacklevel=3)
    return rate


# --------------------------------------------------------------------------
# Scores of one output
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Scores:
    """Every metric of one output, with the signature that makes it comparable.

    The metrics are fractions in [0, 1] (``er`` can exceed 1), ``None`` when
    undefined or when their input (difficulties, vocabulary) was not given;
    their names are the keys of ``committee score --json``
    (``docs/metrics.md``).  ``str()`` shows them as percentages.

    Every metric of the registry (:mod:`committee.metrics.records`) is an
    attribute (``scores.fb``): ``p, r, f1, pb, rb, fb, p_reward, ...``.

    Attributes
    ----------
    values : dict
        Metric key -> float or None: every statistics metric, and ``theta``,
        ``theta_se`` when scored with ``irt``.
    recall_by_bin : list of 10 float-or-None, or None
        Recall per difficulty bin ``[0, .1) ... [.9, 1]``.
    counts : dict
        ``n_gold``, ``n_pred``, ``n_correct``.
    signature : Signature
        What the numbers depend on (:class:`committee.metrics.Signature`;
        ``str()`` gives the text of ``--json``).
    name, path : str or None
        The output's short name and its file (None in memory).
    ci : dict or None
        With ``bootstrap > 0``: ``(low, high)`` 95% interval of every metric.
    error_types : dict or None
        How many gold words the output gets ``correct``, ``split``, ``merged``
        or ``crossed`` (:func:`committee.metrics.error_types`).
    stats : SufficientStats
        The per-sentence counts behind the scores (for :func:`compare`).
    theta, theta_se : float or None (in ``values``)
        With ``irt``: the output's IRT ability (EAP from its right/wrong
        outcome on every gold word, the run's items fixed) and its
        posterior standard deviation (docs/irt.md).
    """

    values: dict
    recall_by_bin: list | None
    counts: dict
    signature: metrics.Signature
    name: str | None = None
    path: str | None = None
    ci: dict | None = None
    error_types: dict | None = None
    stats: metrics.SufficientStats | None = field(default=None, repr=False, compare=False)

    def __getattr__(self, key: str):
        """A metric of the registry by its key (``scores.fb``); None when not computed."""
        if key.startswith("_") or key == "values":
            raise AttributeError(key)
        try:
            records.get(key)
        except KeyError:
            raise AttributeError(f"Scores has no metric or attribute {key!r}") from None
        return self.values.get(key)

    def to_dict(self) -> dict:
        """The scores as plain data: a system of ``committee score --json``
        (``name``, ``path``, the metrics, ``recall_by_bin``, ``counts``,
        ``ci`` with a bootstrap) plus ``signature``."""
        out = {"name": self.name, "path": self.path}
        out.update({k: self.values.get(k) for k in records.keys("stats")})
        out["recall_by_bin"] = self.recall_by_bin
        out["counts"] = dict(self.counts)
        if self.error_types is not None:
            out["error_types"] = dict(self.error_types)
        if self.ci is not None:
            out["ci"] = {k: list(v) for k, v in self.ci.items()}
        for m in records.registry():  # metrics not from the statistics: when given
            if m.source != "stats" and self.values.get(m.key) is not None:
                out[m.key] = self.values[m.key]
        out["signature"] = self.signature.format()
        return out

    def to_frame(self):
        """A one-row :class:`pandas.DataFrame` indexed by the output's name:
        the metrics, then ``<metric>_low``/``<metric>_high`` with a bootstrap.
        ``pandas.concat`` of several gives a table of systems."""
        import pandas as pd

        row = {k: self.values.get(k) for k in records.keys("stats")}
        for k, (lo, hi) in (self.ci or {}).items():
            row[f"{k}_low"], row[f"{k}_high"] = lo, hi
        index = pd.Index([self.name or "output"], name="system")
        return pd.DataFrame([row], index=index, dtype="float64")

    def __str__(self) -> str:
        lines = [] if self.name is None else [self.name]
        groups: dict[str, list[str]] = {}
        for m in records.registry():
            value = self.values.get(m.key)
            if not m.shown or (m.source != "stats" and value is None):
                continue
            pair = None if m.pair is None else self.values.get(m.pair)
            cell = (m.format(value) if m.scale == "percent" or pair is None
                    else f"{m.format(value)} ± {pair:.3f}")
            groups.setdefault(m.group, []).append(f"{m.label} {cell}")
        lines += [f"{title:<10}  {'  '.join(cells)}" for title, cells in groups.items()]
        if self.ci is not None:
            lines.append("95% ci      " + "  ".join(
                f"{k} [{pct(self.ci[k][0])}, {pct(self.ci[k][1])}]" for k in ("f1", "fb")))
        lines.append(self.signature.format())
        return "\n".join(lines)


# --------------------------------------------------------------------------
# The scorer: gold side once, any number of outputs
# --------------------------------------------------------------------------

class Scorer:
    """Scores any number of outputs against one gold standard.

    Reads the gold, its difficulties and the training vocabulary once, and
    prepares their side of the matching (:class:`committee.metrics.Collector`),
    like a sacrebleu metric built with its references.

    Parameters
    ----------
    gold : path, Corpus, list of word lists, or list of str
        The gold segmentation (see :func:`read_segmentation`).
    difficulty : optional
        A ``.weight``/``.weight_c`` file, a ``committee run`` directory, one
        list of values per gold sentence, or a flat vector with one value
        per gold word (:func:`committee.difficulty.load_difficulty`).
        Without it the balanced metrics are ``None``.
    train_words : optional
        A word-list file, a training ``Corpus`` (or, with ``train_format``,
        a training-corpus file), or an iterable of words.  Without it the
        OOV metrics are ``None``.
    format, encoding : str, optional
        Format and encoding of the outputs (:func:`committee.corpus.read_corpus`);
        also of the gold and the training corpus unless given apart.
    normalization : str, optional
        Character normalisation, the same for every file.
    gold_format, gold_encoding : str, optional
        Format and encoding of the gold (default: ``format``, ``encoding``).
    train_format : str, optional
        Read a ``train_words`` path as a training corpus in this format.
    irt : path, optional
        A run directory where ``committee irt`` wrote ``items.tsv`` (or that
        file): every score then has ``theta`` and ``theta_se``.
    train_encoding : str, optional
        Encoding of a ``train_words`` path (default: ``encoding``).
    allow_overlap : bool
        Accept a training corpus with the very words of the gold (with a
        warning) instead of refusing it (:func:`committee.checks.check_train_test`).
    spelling : callable, optional
        ``spelling(source)`` returns how messages spell setting an option of
        ``source`` (``"gold"``, ``"train"``, ``"output"``) as
        ``fix(key, value)``; default :func:`python_spelling`.

    Raises
    ------
    InputError
        A file is missing or malformed (:class:`~committee.errors.FormatMismatchError`
        when it looks like another format), the difficulties do not fit the
        gold, or the training corpus is the gold.

    Examples
    --------
    >>> scorer = Scorer([["约翰", "喜欢", "玛丽"]], difficulty=[[0.0, 0.5, 1.0]])
    >>> scorer.score([["约翰喜欢", "玛丽"]]).r
    0.3333333333333333
    >>> scorer.score([["约翰", "喜欢", "玛丽"]]).fb
    1.0
    """

    def __init__(self, gold, difficulty=None, train_words=None, *, format: str = "sighan",
                 encoding: str = "utf-8", normalization: str | None = None,
                 train_format: str | None = None, gold_format: str | None = None,
                 gold_encoding: str | None = None, train_encoding: str | None = None,
                 allow_overlap: bool = False, spelling=None, irt=None, _api: str = "Scorer"):
        _check_scorer_args(_api, gold, difficulty, train_words, {
            "format": format, "encoding": encoding, "normalization": normalization,
            "train_format": train_format, "gold_format": gold_format,
            "gold_encoding": gold_encoding, "train_encoding": train_encoding,
            "allow_overlap": allow_overlap, "spelling": spelling, "irt": irt})
        self.format, self.encoding, self.normalization = format, encoding, normalization
        self.spelling = spelling or python_spelling
        self.gold = read_segmentation(gold, label="<gold>", format=gold_format or format,
                                      encoding=gold_encoding or encoding,
                                      normalization=normalization, fix=self.spelling("gold"),
                                      argument=(_api, "gold"))
        #: content checksums known to be the gold of this test set (a run's test.txt)
        self.known_golds: set[str] = set()
        self.difficulty = None
        if difficulty is not None:
            try:
                self.difficulty = difficulty_mod.load_difficulty(
                    difficulty, self.gold, argument=(_api, "difficulty"))
            except InputError as exc:
                raise _not_this_gold(exc, difficulty, self.gold) from None
            path = difficulty_mod.difficulty_file(difficulty)
            if path is not None:
                self.known_golds |= check_provenance(path, self.gold)
        self.train_words, self.train_words_sha256, train = _vocabulary(
            train_words, encoding=train_encoding or encoding, normalization=normalization,
            train_format=train_format, fix=self.spelling("train"), api=_api)
        if train is not None:
            _check_overlap(train, self.gold, allow_overlap, self.spelling("train"))
        oov = None
        if self.train_words is not None:
            oov = metrics.oov_flags(self.gold, self.train_words)
            check_oov_rate(self.gold, oov, train_words)
        self._scorer = metrics.Collector(self.gold, difficulty=self.difficulty, oov=oov)
        self.irt_items = None if irt is None else read_irt_items(irt, self.gold)

    def signature(self, bootstrap: int = 0, seed: int = SEED) -> metrics.Signature:
        """The signature of every score of this scorer (:func:`committee.metrics.make_signature`)."""
        _check_resampling("Scorer.signature", bootstrap, seed)
        return metrics.make_signature(self.gold.words, difficulty=self.difficulty,
                                      vocabulary_sha256=self.train_words_sha256,
                                      normalization=self.normalization, bootstrap=bootstrap,
                                      seed=seed)

    def read(self, output, label: str = "<output>") -> Corpus:
        """An output as a Corpus, read like the gold (:func:`read_segmentation`)."""
        pred = read_segmentation(output, label=label, format=self.format,
                                 encoding=self.encoding, normalization=self.normalization,
                                 fix=self.spelling("output"), argument=("Scorer.read", "output"))
        checks.check_gold_output(self.gold, pred, self.known_golds)
        return pred

    def collect(self, output) -> metrics.SufficientStats:
        """Per-sentence sufficient statistics of ``output``; raises
        :class:`InputError` unless it has the gold's sentences and characters."""
        return self._scorer.collect(self.read(output))

    def score(self, output, *, bootstrap: int = 0, seed: int = SEED,
              name: str | None = None, progress: bool = False) -> Scores:
        """Every metric of ``output`` (a path, Corpus or sentences).

        With ``bootstrap > 0``, ``ci`` holds 95% percentile intervals from
        that many resamples of the sentences (seeded: ``seed``); ``progress``
        shows the progress of a long bootstrap on standard error.  ``name``
        defaults to the file's stem (``None`` in memory).

        Raises
        ------
        TypeError, ValueError
            An argument of another type, or out of range: ``bootstrap`` and
            ``seed`` are integers >= 0, and the resamples must fit in memory
            (:func:`committee.significance.check_resamples`).
        """
        _check_segmentation("Scorer.score", "output", output)
        self._check_bootstrap("Scorer.score", bootstrap, seed)
        require("Scorer.score", "name", name, str, "a str", none=True)
        if bootstrap:
            significance.warn_few(len(self.gold.words))
        return self._score(output, bootstrap, seed, name, progress)

    def _check_bootstrap(self, api: str, bootstrap, seed) -> None:
        """``bootstrap`` and ``seed`` checked, and the resamples' memory."""
        _check_resampling(api, bootstrap, seed)
        if bootstrap:
            try:
                significance.check_resamples(bootstrap, n_sentences=len(self.gold.words))
            except ValueError as exc:
                raise ValueError(f"{api}: bootstrap: {exc}") from None

    def _score(self, output, bootstrap: int, seed: int, name, progress: bool) -> Scores:
        """:meth:`score` without the argument checks and the warning of too few sentences."""
        pred = self.read(output)
        pred_spans = spans_of(pred.words)  # once, for the stats, error types and θ
        stats = self._scorer.collect(pred, pred_spans=pred_spans)
        values = computed = metrics.compute(stats, where=pred.path)
        path = os.fspath(output) if isinstance(output, (str, os.PathLike)) else None
        if name is None and path is not None:
            name = system_name(path, set())
        ci = theta = None
        if bootstrap:
            ci = significance.bootstrap(stats, n=bootstrap, seed=seed, progress=progress,
                                        warn=False, where=pred.path)
        if self.irt_items is not None:
            from committee import irt

            theta = irt.ability(match(self._scorer.spans, pred_spans)[0], *self.irt_items)
        values = {k: values[k] for k in records.keys("stats")}
        if theta is not None:
            values["theta"], values["theta_se"] = float(theta[0]), float(theta[1])
        return Scores(values, recall_by_bin=computed["recall_by_bin"], counts=computed["counts"],
                      signature=self.signature(bootstrap, seed), name=name, path=path,
                      ci=ci, error_types=self._scorer.error_types(pred_spans),
                      stats=stats)

    def score_all(self, outputs, *, bootstrap: int = 0, seed: int = SEED,
                  progress: bool = False) -> dict:
        """Score and rank several outputs: what ``committee score --json`` prints.

        ``outputs`` is a list of outputs (paths, Corpora or sentence lists);
        a single path is a :class:`TypeError` (use :meth:`score`).
        Returns ``{"signature": ..., "systems": [...]}``: each system is
        :meth:`Scores.to_dict` without the signature, plus its ranks by f1
        and by fb (``rank_f1``, ``rank_fb``, 1 = best) and, with
        ``bootstrap > 0`` and several outputs, ``paired``: :func:`compare`
        against the system ranked first by fb, for f1 and fb.
        """
        api = "Scorer.score_all"
        outputs = require_many(api, "outputs", outputs,
                               "a list of outputs (paths, Corpora or sentence lists)")
        for i, output in enumerate(outputs):
            _check_segmentation(api, f"outputs[{i}]", output)
        self._check_bootstrap(api, bootstrap, seed)
        if bootstrap:  # once for all the intervals and comparisons on this test set
            significance.warn_few(len(self.gold.words))
        taken: set[str] = set()
        scores = []
        for i, output in enumerate(outputs):
            name = (system_name(os.fspath(output), taken)
                    if isinstance(output, (str, os.PathLike)) else f"output-{i + 1}")
            scores.append(self._score(output, bootstrap, seed, name, progress))
        systems = []
        for s in scores:
            row = s.to_dict()
            del row["signature"]
            systems.append(row)
        for key in ("f1", "fb"):
            for row, r in zip(systems, rank([s[key] for s in systems])):
                row[f"rank_{key}"] = r
        if bootstrap and len(systems) > 1:
            best = min(range(len(systems)),
                       key=lambda i: (systems[i]["rank_fb"] or systems[i]["rank_f1"] or 10**9, i))
            for i, row in enumerate(systems):
                if i != best:
                    row["paired"] = {key: _paired(scores[best], scores[i], key, bootstrap, seed,
                                                  progress) | {"against": systems[best]["name"]}
                                     for key in ("f1", "fb")}
        return {"signature": self.signature(bootstrap, seed).format(), "systems": systems}


def _check_scorer_args(api: str, gold, difficulty, train_words, options: dict) -> None:
    """The arguments of :class:`Scorer` (and :func:`score`), checked."""
    _check_segmentation(api, "gold", gold)
    _check_difficulty(api, difficulty)
    _check_vocabulary(api, train_words)
    _check_file_options(api, options)


def score(gold, output, difficulty=None, train_words=None, *, bootstrap: int = 0,
          seed: int = SEED, format: str = "sighan", encoding: str = "utf-8",
          normalization: str | None = None, train_format: str | None = None,
          irt=None, **options) -> Scores:
    """Score one segmentation against gold: standard, balanced, OOV, error,
    boundary metrics, the signature and, with ``irt``, the IRT ability.

    Parameters
    ----------
    gold, output : path, Corpus, list of word lists, or list of str
        Same sentences, same characters; otherwise :class:`InputError`.
    difficulty, train_words, format, encoding, normalization, train_format, irt
        As for :class:`Scorer`.
    **options
        ``gold_format``, ``gold_encoding``, ``train_encoding``,
        ``allow_overlap``, ``spelling``: as for :class:`Scorer`.
    bootstrap : int
        Resamples for 95% intervals (``Scores.ci``); 0 for none.
    seed : int
        Seed of the resamples.

    Returns
    -------
    Scores

    Raises
    ------
    InputError
        A file, or data in memory, cannot be scored (:class:`Scorer`).
    TypeError, ValueError
        An argument of another type or out of range, named:
        ``score: bootstrap must be an integer >= 0, got str '10'``.

    Examples
    --------
    >>> s = score([["我", "爱", "北京"]], [["我爱", "北京"]], difficulty=[[0.1, 0.2, 0.9]])
    >>> s.r, round(s.fb, 4)
    (0.3333333333333333, 0.1353)
    >>> score(["我 爱 北京"], ["我 爱 北"])
    Traceback (most recent call last):
    ...
    committee.errors.InputError: <output>:1: characters differ from <gold>:1 at character 4: the output's line ends where the gold has '京'
    """
    unknown = sorted(set(options) - set(SCORER_OPTIONS))
    if unknown:
        raise TypeError(f"score: unexpected keyword argument {unknown[0]!r}; besides its "
                        f"named parameters it takes {', '.join(SCORER_OPTIONS)}")
    _check_segmentation("score", "output", output)
    _check_resampling("score", bootstrap, seed)
    scorer = Scorer(gold, difficulty, train_words, format=format, encoding=encoding,
                    normalization=normalization, train_format=train_format, irt=irt,
                    _api="score", **options)
    scorer._check_bootstrap("score", bootstrap, seed)
    if bootstrap:
        significance.warn_few(len(scorer.gold.words))
    return scorer._score(output, bootstrap, seed, None, False)


def compare(a: Scores, b: Scores, metric: str = "fb", *, n: int = 1000, seed: int = SEED,
            level: float = 0.95) -> dict:
    """Paired bootstrap of two outputs scored against the same gold.

    Both are scored on the same ``n`` resamples of the test sentences
    (:func:`committee.significance.paired_bootstrap`).  Returns ``metric``,
    ``n``, ``share_a_better``, ``share_b_better``, ``ties``, ``delta``
    (A - B on the full corpus) and ``ci`` (interval of the resampled deltas).

    Raises
    ------
    TypeError
        ``a`` or ``b`` is not a :class:`Scores`, or another argument is of
        another type.
    ValueError
        When ``a`` and ``b`` have different signatures (another gold,
        difficulty, vocabulary or normalisation), ``metric`` is unknown,
        ``n`` < 1, ``seed`` < 0, ``level`` outside (0, 1), or the
        resamples would not fit in memory.

    Examples
    --------
    >>> scorer = Scorer(["我 爱 北京", "约翰 喜欢 玛丽"], difficulty=[[0, 0, .5], [.5, 1, 0]])
    >>> a, b = scorer.score(["我 爱 北京", "约翰 喜欢 玛丽"]), scorer.score(["我爱 北京", "约翰 喜欢 玛丽"])
    >>> result = compare(a, b, metric="f1", n=200, seed=1)
    >>> result["share_a_better"] + result["share_b_better"] + result["ties"]
    1.0
    >>> round(result["delta"], 4)  # f1 of b: p = 4/5, r = 4/6, f1 = 8/11
    0.2727
    """
    api = "compare"
    for name, value in (("a", a), ("b", b)):
        require(api, name, value, Scores, "a Scores (from committee.score)")
    require_choice(api, "metric", metric, records.keys("stats"))
    require_int(api, "n", n, 1)
    require_int(api, "seed", seed, 0)
    require_real(api, "level", level, 0, 1, open_ends=True)
    try:
        significance.check_resamples(n, 2, 0 if a.stats is None else a.stats.n_sentences)
    except ValueError as exc:
        raise ValueError(f"{api}: n: {exc}") from None
    if a.stats is not None:
        significance.warn_few(a.stats.n_sentences)
    return _paired(a, b, metric, n, seed, level=level)


def _paired(a: Scores, b: Scores, metric: str, n: int, seed: int, progress: bool = False,
            level: float = 0.95) -> dict:
    """:func:`compare` without the argument checks."""
    if a.stats is None or b.stats is None:
        raise ValueError("compare needs Scores from committee.score or Scorer.score")
    if a.signature.base() != b.signature.base():
        raise ValueError(f"the scores are not comparable: signatures differ "
                         f"({a.signature.base()} vs {b.signature.base()})")
    return significance.paired_bootstrap(a.stats, b.stats, metric=metric, n=n, seed=seed,
                                         level=level, progress=progress, warn=False)


# --------------------------------------------------------------------------
# Checks and names
# --------------------------------------------------------------------------

def check_provenance(difficulty_path, gold: corpus_mod.Corpus) -> set[str]:
    """Warn when a difficulty file from ``committee run`` does not fit ``gold``.

    The rule: when a ``manifest.json`` sits beside the difficulty file, it is
    the record of the run that wrote it, and the gold must be that run's
    test set: its file bytes must have the checksum of the run's
    ``test.txt`` or of the original test corpus file
    (``corpus.test.sha256``), or its words, written as SIGHAN UTF-8 (one
    sentence per line, words joined by one space), must be byte-identical to
    ``test.txt``.  A mismatch gives one :class:`PlausibilityWarning`; without
    a manifest nothing is checked.  (A difficulty file changed since the run,
    and an unreadable manifest, were refused before, by
    :func:`committee.rundir.verify`.)

    Returns the content checksums known to be the run's gold (that of its
    ``test.txt``, written as SIGHAN UTF-8), for
    :func:`committee.checks.check_gold_output`; empty without a manifest.
    """
    path = Path(difficulty_path)
    manifest_path = path.parent / "manifest.json"
    if not manifest_path.is_file():
        return set()
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()  # refused by rundir.verify when it holds the run's checksums
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict):
        return set()  # not a committee run manifest
    test_sha = files.get("test.txt")
    test = manifest.get("corpus", {}).get("test", {}) if isinstance(manifest.get("corpus"), dict) else {}
    known = {s for s in (test_sha, test.get("sha256") if isinstance(test, dict) else None)
             if isinstance(s, str)}
    golds = {test_sha} if isinstance(test_sha, str) else set()
    if not known or gold.sha256 in known:
        return golds
    if corpus_mod.content_sha256(gold.words) == test_sha:
        return golds
    warnings.warn(PlausibilityWarning(
        f"{path}: made by committee run for another test set ({manifest_path.name}: test.txt "
        f"sha256 {str(test_sha)[:12]}; gold {gold.path}: {gold.sha256[:12]}): its difficulties "
        f"may belong to other words; score against {path.parent / 'test.txt'}"), stacklevel=3)
    return golds


def read_irt_items(source, gold: Corpus) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of every gold word from ``items.tsv`` of ``committee irt``
    (``source``: the run directory or the file); :class:`InputError` naming
    file and line when it is missing, malformed or made for other words."""
    import csv

    from committee import rundir

    path = Path(source)
    if path.is_dir():
        path = rundir.paths(path).irt_items
    if not path.is_file():
        raise InputError(str(path), None, "no such file (run `committee irt RUN_DIR` first)")
    rundir.verify(path.parent, [path.name])  # as committee irt wrote it
    gold_words = [w for s in gold.words for w in s]
    a, b = [], []
    with open(path, encoding="utf-8", newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        head = next(rows, [])
        if not {"word", "irt_a", "irt_b"} <= set(head):
            raise InputError(str(path), 1, "not an items.tsv: no columns word, irt_a, irt_b")
        cw, ca, cb = head.index("word"), head.index("irt_a"), head.index("irt_b")
        for line, row in enumerate(rows, start=2):
            i = line - 2
            if i >= len(gold_words) or row[cw] != gold_words[i]:
                found = "nothing" if i >= len(gold_words) else repr(gold_words[i])
                raise InputError(str(path), line, f"word {row[cw]!r} but gold word {i + 1} is "
                                 f"{found}: the items belong to another test set")
            try:
                a.append(float(row[ca]))
                b.append(float(row[cb]))
            except (ValueError, IndexError):
                raise InputError(str(path), line, "irt_a / irt_b is not a number") from None
    if len(a) != len(gold_words):
        raise InputError(str(path), None, f"has {count(len(a), 'word')}, gold has "
                         f"{len(gold_words)}: "
                         "the items belong to another test set")
    return np.array(a), np.array(b)


def system_name(path: str, taken: set[str]) -> str:
    """A short unique name for an output file (its stem, made unique;
    ``stdin`` for ``-``)."""
    name = "stdin" if path == "-" else Path(path).name
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


def require_files(paths) -> None:
    """Fail early, with one line, on a file that is missing, a directory or
    a symbolic link that leads nowhere (a loop, or to a missing file)."""
    for p in paths:
        if p is None:
            continue
        problem = _missing(p)
        if problem is not None:
            raise InputError(p, None, problem)
        if os.path.isdir(p):
            raise InputError(p, None, "is a directory, expected a file")


def _missing(path) -> str | None:
    """Why ``path`` cannot be opened as an existing file, or None."""
    try:
        os.stat(path)
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symbolic link loop: following it never reaches a file"
        if exc.errno != errno.ENOENT:
            return None  # read by the reader, which says why it cannot
    if os.path.islink(path):
        return f"is a symbolic link to {os.readlink(path)}, which does not exist"
    return "no such file"
