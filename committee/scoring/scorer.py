"""The one scoring path: :class:`Scorer` reads the gold side once and
produces a :class:`~committee.scoring.scores.Scores` for each output;
:func:`score` is its one-call form and :func:`compare` a paired bootstrap
of two :class:`Scores`."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, fields, replace
from typing import Callable

import numpy as np

from committee import metrics
from committee.corpus import plausibility
from committee.pipeline import layout
from committee.metrics import significance
from committee import tasks as tasks_mod
from committee.system.arguments import require, require_choice, require_int, require_many, require_real
from committee.corpus import Corpus
from committee.errors import caller_level, InputError, Note, PlausibilityWarning
from committee.metrics import records
from committee.tasks.spans import match
from committee.tasks.spans import spans as spans_of
from committee.scoring import goldside
from committee.scoring.inputs import (SCORER_OPTIONS, check_difficulty, check_file_options,
                                      check_resampling, check_segmentation,
                                      check_vocabulary, python_spelling, rank,
                                      read_segmentation, system_name,
                                      check_output_size)
from committee.scoring.results import ScoredSystems
from committee.scoring.scores import Scores

#: Default seed of the bootstrap (the ``--seed`` of ``committee score``).
SEED = 12345

# --------------------------------------------------------------------------
# The scorer: gold side once, any number of outputs
# --------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class ScorerOptions:
    """How a :class:`Scorer` reads its inputs and what it adds to the metrics:
    every field is a keyword of :class:`Scorer` (documented there), which
    takes either this record (``Scorer(gold, d, words, options)``) or the
    keywords themselves, or both (the keywords win).

    >>> ScorerOptions(task="ner").format, ScorerOptions().task
    ('sighan', 'segmentation')
    """

    format: str = "sighan"
    encoding: str = "utf-8"
    normalization: str | None = None
    train_format: str | None = None
    gold_format: str | None = None
    gold_encoding: str | None = None
    train_encoding: str | None = None
    allow_overlap: bool = False
    spelling: Callable[[str], Callable[[str, object], str]] | None = None
    irt: object = None
    buckets: object = None
    task: str = tasks_mod.DEFAULT_TASK
    mode: str = "default"
    scheme: str | None = None


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
        per gold word (:func:`committee.pipeline.difficulty.load_difficulty`).
        Without it the balanced metrics are ``None``.
    options : ScorerOptions, optional
        The keywords below as one record; keywords given as well win.
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
        warning) instead of refusing it (:func:`committee.corpus.plausibility.check_train_test`).
    spelling : callable, optional
        ``spelling(source)`` returns how messages spell setting an option of
        ``source`` (``"gold"``, ``"train"``, ``"output"``) as
        ``fix(key, value)``; default :func:`python_spelling`.
    buckets : True, str or list of str, optional
        Results by word attribute (``Scores.buckets``): ``True`` for every
        attribute of :data:`committee.metrics.buckets.KEYS` whose input was
        given (a :class:`~committee.errors.Note` names the others), or the
        attributes named (one without its input is a :class:`ValueError`):
        ``oov`` needs ``train_words``, ``frequency`` and ``consistency`` a
        training corpus, ``difficulty`` the difficulties.  Entities have
        :data:`committee.metrics.labelled.ENTITY_ATTRIBUTES` (``type``:
        per-type results).
    task : str
        A task of :data:`committee.tasks.TASKS` (default ``segmentation``):
        ``ner`` scores named entities (docs/method.md §13): gold and outputs
        carry entity tags (format ``bio``), a unit is an entity (span and
        type), and ``difficulty`` is a run directory or its ``.weight_c``;
        ``pos`` scores words with their part-of-speech tags (docs/method.md
        §14): gold and outputs carry a tag on every word (format ``pku`` by
        default, ``underscore``, ``conllu``, ``conllu-xpos``), a unit is a
        word's span and tag (tag accuracy on the gold segmentation), and
        ``difficulty`` has one value per gold word; ``buckets`` are
        :data:`committee.metrics.tagged.TAG_ATTRIBUTES` (``tag``: per-tag
        results).
    mode, scheme : str, optional
        For ``task="ner"``: how entities are read from tags, ``default``
        (the conlleval rules, as seqeval's default) or ``strict`` (only
        entities well formed under ``scheme``, IOB1, IOB2, IOBES or BMES;
        detected from the gold when None), as seqeval's ``mode="strict"``.

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

    def __init__(self, gold, difficulty=None, train_words=None,
                 options: ScorerOptions | None = None, *, _api: str = "Scorer", **keywords):
        unknown = sorted(set(keywords) - {f.name for f in fields(ScorerOptions)})
        if unknown:
            raise TypeError(f"{_api}: unexpected keyword argument {unknown[0]!r}; it takes "
                            f"{', '.join(f.name for f in fields(ScorerOptions))}")
        if options is not None and not isinstance(options, ScorerOptions):
            raise TypeError(f"{_api}: options must be a ScorerOptions, got "
                            f"{type(options).__name__}")
        self.options = o = replace(options or ScorerOptions(), **keywords)
        format, encoding, normalization = o.format, o.encoding, o.normalization
        train_format, gold_format, gold_encoding = o.train_format, o.gold_format, o.gold_encoding
        train_encoding, allow_overlap, spelling = o.train_encoding, o.allow_overlap, o.spelling
        irt, buckets, task, mode, scheme = o.irt, o.buckets, o.task, o.mode, o.scheme
        _check_scorer_args(_api, gold, difficulty, train_words, {
            "format": format, "encoding": encoding, "normalization": normalization,
            "train_format": train_format, "gold_format": gold_format,
            "gold_encoding": gold_encoding, "train_encoding": train_encoding,
            "allow_overlap": allow_overlap, "spelling": spelling, "irt": irt})
        self.task, self.mode, self.scheme = _check_task(_api, task, mode, scheme)
        self._task = tasks_mod.get(self.task)
        if format == "sighan":  # the default: the task's own (bio for entities)
            format = self._task.format
        self.format, self.encoding, self.normalization = format, encoding, normalization
        self.spelling = spelling or python_spelling
        # a run's files belong to its task: a segmentation's words are no entities
        layout.check_task([gold, difficulty, train_words, irt], self.task,
                          self.spelling("output"))
        self.gold = self._read_as_task(gold, "<gold>", gold_format or format,
                                       gold_encoding or encoding, "gold", (_api, "gold"))
        #: content checksums known to be the gold of this test set (a run's test.txt)
        self.known_golds: set[str] = set()
        self.difficulty = self.char_difficulty = None
        self._task.unit_kind.gold_side(self, goldside.GoldSide(self, goldside.GoldInputs(
            difficulty, train_words, train_format, train_encoding or encoding, buckets, _api,
            irt, allow_overlap)))

    def _read_as_task(self, source, label: str, format: str, encoding: str, side: str,
                      argument: tuple[str, str]) -> Corpus:
        """A gold (``side`` ``"gold"``) or an output (``"output"``) read and
        prepared for the task (:meth:`committee.tasks.Task.prepare`); a file
        that looks like another format is refused with the task's hint
        (:meth:`committee.tasks.Task.format_hint`) when it has one."""
        from committee.errors import FormatMismatchError

        if side == "output":
            check_output_size(source, self.gold)
        try:
            corpus = read_segmentation(source, label=label, format=format, encoding=encoding,
                                       normalization=self.normalization,
                                       fix=self.spelling(side), argument=argument)
        except FormatMismatchError as exc:
            spell = self.spelling(side)
            fix = self._task.format_hint(exc.detected, lambda value: spell("format", value),
                                         lambda value: self.spelling("output")("task", value),
                                         tasks_mod.TASKS.values())
            if fix is None:
                raise
            raise InputError(exc.path, exc.line, f"looks like {exc.evidence}, read as "
                                                 f"{exc.given}: {fix}") from None
        return self._task.prepare(corpus, self.spelling("output"))

    def signature(self, bootstrap: int = 0, seed: int = SEED) -> metrics.Signature:
        """The signature of every score of this scorer (:func:`committee.metrics.make_signature`)."""
        check_resampling("Scorer.signature", bootstrap, seed)
        d = self.difficulty
        if d is not None and self.char_difficulty is not None:  # the per-character weights too
            d = np.concatenate([d, self.char_difficulty])
        match = self._task.match + ("" if self.mode == "default" else
                                    f":strict-{self._collector.scheme_used}")
        return metrics.make_signature(self.gold.words, tags=self._task.labels_of(self.gold),
                                      difficulty=d, vocabulary_sha256=self.train_words_sha256,
                                      normalization=self.normalization, match=match,
                                      bootstrap=bootstrap, seed=seed)

    def read(self, output, label: str = "<output>") -> Corpus:
        """An output as a Corpus, read like the gold (:func:`read_segmentation`)."""
        pred = self._read_as_task(output, label, self.format, self.encoding, "output",
                                  ("Scorer.read", "output"))
        plausibility.check_gold_output(self.gold, pred, self.known_golds)
        if not self._task.tagged:
            goldside.no_entity_tags(pred)
        for kind, message in self._task.output_notes(self.gold, pred):
            warnings.warn(Note(message) if kind == "note" else PlausibilityWarning(message),
                          stacklevel=caller_level())
        return pred

    def collect(self, output) -> metrics.SufficientStats:
        """Per-sentence sufficient statistics of ``output``; raises
        :class:`InputError` unless it has the gold's sentences and characters."""
        return self._collector.collect(self.read(output))

    def collect_leaving_out(self, output, excluded) -> metrics.SufficientStats:
        """:meth:`collect` with every gold and predicted word that overlaps an
        ``excluded`` character (one boolean per test character) left out
        (:meth:`committee.metrics.Collector.leaving_out`; of entities,
        :meth:`committee.metrics.labelled.EntityCollector.leaving_out`)."""
        return self._collector.leaving_out(excluded).collect(self.read(output))

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
            (:func:`committee.metrics.significance.check_resamples`).
        """
        check_segmentation("Scorer.score", "output", output)
        self._check_bootstrap("Scorer.score", bootstrap, seed)
        require("Scorer.score", "name", name, str, "a str", none=True)
        if bootstrap:
            significance.warn_few(len(self.gold.words))
        return self._score(output, bootstrap, seed, name, progress)

    def _check_bootstrap(self, api: str, bootstrap, seed) -> None:
        """``bootstrap`` and ``seed`` checked, and the resamples' memory."""
        check_resampling(api, bootstrap, seed)
        if bootstrap:
            try:
                significance.check_resamples(bootstrap, n_sentences=len(self.gold.words))
            except ValueError as exc:
                raise ValueError(f"{api}: bootstrap: {exc}") from None

    def _score(self, output, bootstrap: int, seed: int, name, progress: bool) -> Scores:
        """:meth:`score` without the argument checks and the warning of too few sentences."""
        pred = self.read(output)
        if self._task.unit_kind.labelled:  # labelled spans: entities, tagged words
            return self._score_entities(pred, output, bootstrap, seed, name, progress)
        pred_spans = spans_of(pred.words)  # once, for the stats, error types and θ
        stats = self._collector.collect(pred, pred_spans=pred_spans)
        path = os.fspath(output) if isinstance(output, (str, os.PathLike)) else None
        if name is None and path is not None:
            name = system_name(path, set())
        theta = None
        if self.irt_items is not None:
            from committee.metrics import itemresponse

            theta = itemresponse.ability(match(self._collector.spans, pred_spans)[0], *self.irt_items)
        return self._scores(stats, pred.path, bootstrap, seed, progress, theta=theta, name=name,
                            path=path, error_types=self._collector.error_types(pred_spans))

    def _scores(self, stats, where: str, bootstrap: int, seed: int, progress: bool,
                **fields) -> Scores:
        """The :class:`Scores` of one output's statistics, with the intervals
        of a bootstrap of ``bootstrap`` resamples (of its buckets too)."""
        bucket_ci = None
        if bootstrap and stats.buckets:
            bucket_ci = significance.bucket_bootstrap(stats.buckets, n=bootstrap, seed=seed)
        scores = Scores.from_stats(stats, self.signature(bootstrap, seed), where=where,
                                   bucket_ci=bucket_ci, units=self._task.units, **fields)
        if not bootstrap:
            return scores
        ci = significance.bootstrap(stats, n=bootstrap, seed=seed, progress=progress,
                                    warn=False, where=where)
        return replace(scores, ci=ci)

    def _score_entities(self, pred: Corpus, output, bootstrap: int, seed: int, name,
                        progress: bool) -> Scores:
        """:meth:`_score` of labelled spans (entities, ``task="ner"``; tagged words,
        ``task="pos"``): the output's units matched once, for the statistics
        and the error types."""
        self._task.unit_kind.check_output(pred)
        metrics.check_aligned(self.gold, pred)
        matched = self._collector.match(pred)
        stats = self._collector.collect(pred, check=False, matched=matched)
        path = os.fspath(output) if isinstance(output, (str, os.PathLike)) else None
        if name is None and path is not None:
            name = system_name(path, set())
        theta = None
        if self.irt_items is not None:
            from committee.metrics import itemresponse

            theta = itemresponse.ability(matched[2], *self.irt_items)
        return self._scores(stats, pred.path, bootstrap, seed, progress, theta=theta, name=name,
                            path=path, error_types=self._collector.error_types(pred, matched))

    def score_all(self, outputs, *, bootstrap: int = 0, seed: int = SEED,
                  progress: bool = False) -> ScoredSystems:
        """Score and rank several outputs: what ``committee score`` prints.

        ``outputs`` is a list of outputs (paths, Corpora or sentence lists);
        a single path is a :class:`TypeError` (use :meth:`score`).
        Returns a :class:`~committee.scoring.results.ScoredSystems`, the dict
        ``{"signature": ..., "systems": [...]}``: each system is
        :meth:`Scores.to_dict` without the signature, plus its ranks by f1
        and by fb (``rank_f1``, ``rank_fb``, 1 = best) and, with
        ``bootstrap > 0`` and several outputs, ``paired``: :func:`compare`
        against the system ranked first by fb, for f1 and fb.
        """
        api = "Scorer.score_all"
        outputs = require_many(api, "outputs", outputs,
                               "a list of outputs (paths, Corpora or sentence lists)")
        for i, output in enumerate(outputs):
            check_segmentation(api, f"outputs[{i}]", output)
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
        return ScoredSystems(self.signature(bootstrap, seed).format(), systems)


def _check_task(api: str, task, mode, scheme) -> tuple[str, str, str | None]:
    """``task``, ``mode`` and ``scheme`` of a scorer, checked."""
    from committee.corpus.entities import MODES, SCHEMES

    require_choice(api, "task", task, tuple(tasks_mod.TASKS))
    require_choice(api, "mode", mode, MODES)
    require_choice(api, "scheme", scheme, SCHEMES, none=True)
    if not tasks_mod.get(task).tagged and (mode != "default" or scheme is not None):
        raise ValueError(f"{api}: mode and scheme are for task='ner' (entity tags)")
    return task, mode, scheme


def _check_scorer_args(api: str, gold, difficulty, train_words, options: dict) -> None:
    """The arguments of :class:`Scorer` (and :func:`score`), checked."""
    check_segmentation(api, "gold", gold)
    check_difficulty(api, difficulty)
    check_vocabulary(api, train_words)
    check_file_options(api, options)


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
        ``allow_overlap``, ``spelling``, ``buckets``: as for :class:`Scorer`.
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
    check_segmentation("score", "output", output)
    check_resampling("score", bootstrap, seed)
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
    (:func:`committee.metrics.significance.paired_bootstrap`).  Returns ``metric``,
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
