"""The gold side of a :class:`~committee.scoring.scorer.Scorer`: its
difficulties, training vocabulary, OOV flags, buckets and IRT items read
against the gold and its collector made: the steps of :class:`GoldSide`,
which each unit kind composes in its
:meth:`~committee.tasks.units.base.UnitKind.gold_side`."""

from __future__ import annotations

from typing import NamedTuple

from committee import metrics
from committee.pipeline import difficulty as difficulty_mod
from committee.system.arguments import require_choice, require_many
from committee.corpus import Corpus
from committee.errors import InputError
from committee.scoring.inputs import (check_oov_rate, check_overlap, check_provenance,
                                      not_this_gold, read_irt_items, vocabulary_of)


class GoldInputs(NamedTuple):
    """What a scorer reads on its gold's side besides the gold: the
    arguments of :class:`~committee.scoring.scorer.Scorer` its gold side
    takes (``train_encoding`` resolved, ``api`` the name in messages)."""

    difficulty: object
    train_words: object
    train_format: str | None
    train_encoding: str
    buckets: object
    api: str
    irt: object
    allow_overlap: bool


class GoldSide:
    """The steps of a scorer's gold side that the unit kinds compose
    (:meth:`committee.tasks.units.base.UnitKind.gold_side`): each reads one
    of ``inputs`` against the scorer's gold and sets what it gives on the
    scorer.  The kinds receive this object, so that they reach the
    difficulty files, vocabularies and IRT items of the floors above them
    without importing them."""

    def __init__(self, scorer, inputs: GoldInputs):
        self.scorer, self.inputs = scorer, inputs

    def no_entity_tags(self) -> None:
        """Refuse a gold of entity tags where words are scored (:func:`no_entity_tags`)."""
        no_entity_tags(self.scorer.gold)

    def word_difficulty(self) -> None:
        """``scorer.difficulty``: one per gold word (words, tagged words)."""
        s, difficulty = self.scorer, self.inputs.difficulty
        if difficulty is None:
            return
        try:
            s.difficulty = difficulty_mod.load_difficulty(
                difficulty, s.gold, argument=(self.inputs.api, "difficulty"))
        except InputError as exc:
            raise not_this_gold(exc, difficulty, s.gold) from None
        path = difficulty_mod.difficulty_file(difficulty)
        if path is not None:
            s.known_golds |= check_provenance(path, s.gold)

    def span_difficulty(self, units) -> None:
        """``scorer.difficulty`` (one per gold span of ``units``) and
        ``scorer.char_difficulty`` (one per character, for the characters
        outside spans)."""
        s, difficulty = self.scorer, self.inputs.difficulty
        if difficulty is None:
            return
        try:
            s.difficulty, s.char_difficulty = difficulty_mod.load_entity_difficulty(
                difficulty, s.gold, units)
        except InputError as exc:
            raise not_this_gold(exc, difficulty, s.gold) from None
        s.known_golds |= check_provenance(difficulty_mod.difficulty_file(difficulty), s.gold)

    def vocabulary(self):
        """``scorer.train_words`` and its checksum read (a word list or a
        training corpus, checked not to hold the gold); the training corpus
        when one was given, else None."""
        s, i = self.scorer, self.inputs
        s.train_words, s.train_words_sha256, train = vocabulary_of(
            i.train_words, encoding=i.train_encoding, normalization=s.normalization,
            train_format=i.train_format, fix=s.spelling("train"), api=i.api)
        if train is not None:
            check_overlap(train, s.gold, i.allow_overlap, s.spelling("train"))
        return train

    def word_oov(self, check_rate: bool = False):
        """The gold words' OOV flags against ``scorer.train_words`` (None
        without one); ``check_rate``: warn of a rate no real split has."""
        s = self.scorer
        if s.train_words is None:
            return None
        oov = metrics.oov_flags(s.gold, s.train_words)
        if check_rate:
            check_oov_rate(s.gold, oov, self.inputs.train_words)
        return oov

    def word_buckets(self, train):
        """The :class:`~committee.metrics.buckets.Bucketer` of the gold
        words ``inputs.buckets`` asks for (None: no buckets)."""
        s, buckets = self.scorer, self.inputs.buckets
        if buckets is None or buckets is False:
            return None
        from committee.metrics.buckets import Bucketer

        counts = text = None
        if train is None:
            counts = self.run_file("train_counts")
            text = None if counts is None else self.run_file("train_text")
        attrs = _bucket_attrs(self.inputs.api, buckets, {
            "difficulty": s.difficulty is not None, "vocabulary": s.train_words is not None,
            "word counts": train is not None or counts is not None,
            "training corpus": train is not None or text is not None})
        return Bucketer(s.gold.words, attrs, difficulty=s.difficulty, vocabulary=s.train_words,
                        train_words=None if train is None else train.words, counts=counts,
                        text=text)

    def run_file(self, which: str):
        """What the run the difficulties come from keeps of its training
        corpus, checked against the run's manifest: ``train_counts``, its
        words with their counts (``train-words.tsv``), or ``train_text``, its
        text (``train-text.txt``); None: no run, or one made before runs
        kept that file."""
        from committee.pipeline import layout, runfiles

        path = difficulty_mod.difficulty_file(self.inputs.difficulty)
        if path is None:
            return None
        kept = getattr(layout.paths(path.parent), which)
        if not kept.is_file():
            return None
        layout.verify(path.parent, [kept.name])
        read = {"train_counts": runfiles.read_word_counts,
                "train_text": runfiles.read_train_text}[which]
        return read(kept)

    def unit_buckets(self, keys: tuple[str, ...], difficulty: bool) -> tuple[str, ...]:
        """The attributes of labelled units ``inputs.buckets`` asks for among ``keys``."""
        return _unit_attrs(self.inputs.api, self.inputs.buckets, keys, difficulty)

    def check_strict_gold(self) -> None:
        """Refuse a gold in which the strict mode finds no entity (see
        :func:`_check_strict_gold`)."""
        s = self.scorer
        _check_strict_gold(s._task, s.gold, s.scheme, s.spelling("output"))

    def collector(self, **options) -> None:
        """``scorer._collector``: the collector of the gold's units with the
        scorer's difficulties and ``options`` (:func:`committee.metrics.collector_for`)."""
        s = self.scorer
        s._collector = metrics.collector_for(s._task.unit_kind, s.gold, s.difficulty,
                                             s.char_difficulty, task=s._task, **options)

    def irt_items(self, texts) -> None:
        """``scorer.irt_items``: the IRT items of ``inputs.irt`` read against
        the gold units' ``texts`` (None without items)."""
        irt = self.inputs.irt
        self.scorer.irt_items = None if irt is None else read_irt_items(irt, texts)


def _check_strict_gold(task, gold: Corpus, scheme: str | None, fix) -> None:
    """Refuse a gold in which the strict mode finds no entity while the
    default reading (the conlleval rules) finds some: its tags do not fit
    the scheme, and every score would be undefined.  Names the scheme the
    tags look like (:func:`~committee.corpus.entities.detect_scheme`) when
    it is another."""
    from committee.corpus.entities import detect_scheme
    found = sum(map(len, task.gold(gold)))
    if not found:
        return
    detected = detect_scheme(gold.tags)
    used = scheme or detected
    hint = (f"its tags look like {detected} ({fix('scheme', detected)})" if detected != used
            else f"read it by the conlleval rules ({fix('mode', 'default')})")
    raise InputError(gold.path, None, f"no entity is well formed in {used} (the default "
                                      f"reading finds {found:,}): the strict mode would score "
                                      f"none; {hint}")


def no_entity_tags(corpus: Corpus) -> None:
    """Refuse entity tags where words are scored: a ``bio`` file's tokens are no words."""
    if corpus.tags is not None:
        raise InputError(corpus.path, None, "holds entity tags (bio): score its entities with "
                                            "--task ner (task='ner')")


def _unit_attrs(api: str, buckets, keys: tuple[str, ...], difficulty: bool) -> tuple[str, ...]:
    """The attributes of labelled units (entities, tagged words) ``buckets``
    asks for: every one of ``keys`` for True (``difficulty`` only with
    difficulties), the keys named (a comma-separated str or a list), or none."""
    if buckets is True:
        return tuple(k for k in keys if k != "difficulty" or difficulty)
    if not buckets:
        return ()
    names = buckets.split(",") if isinstance(buckets, str) else buckets
    return tuple(require_choice(api, "buckets", str(k).strip(), keys) for k in names)


#: What each input of an attribute is called in messages of the API.
_BUCKET_INPUTS = {"difficulty": "difficulty", "vocabulary": "train_words",
                  "word counts": "the training words' counts: a training corpus (train_words "
                                 "as a Corpus or a file with train_format), or the "
                                 "difficulties of a run that keeps them (train-words.tsv; a run "
                                 "made before runs kept it gets it when committee run is run on "
                                 "it again)",
                  "training corpus": "a training corpus (train_words as a Corpus or a file "
                                     "with train_format), or the difficulties of a run "
                                     "that keeps its training text (train-text.txt; a "
                                     "run made before runs kept it gets it when committee run "
                                     "is run on it again)"}


def _bucket_attrs(api: str, buckets, available: dict) -> tuple[str, ...]:
    """The attributes of ``buckets`` (True, a comma-separated str or a list
    of keys): every available one for True, with a :class:`Note` naming
    those left out; a named attribute without its input is a ValueError."""
    import warnings

    from committee.errors import Note
    from committee.metrics.buckets import KEYS, attribute

    def usable(key):
        return attribute(key).needs is None or available[attribute(key).needs]

    if buckets is True:
        left = [k for k in KEYS if not usable(k)]
        if left:
            warnings.warn(Note("buckets: " + "; ".join(
                f"{k} left out (no {attribute(k).needs} given)" for k in left)), stacklevel=4)
        return tuple(k for k in KEYS if usable(k))
    names = buckets.split(",") if isinstance(buckets, str) else buckets
    names = require_many(api, "buckets", names, "True or a list of attributes")
    keys = tuple(dict.fromkeys(str(n).strip() for n in names))
    for k in keys:
        require_choice(api, "buckets", k, KEYS)
        if not usable(k):
            raise ValueError(f"{api}: buckets: {k} needs "
                             f"{_BUCKET_INPUTS[attribute(k).needs]}")
    return keys
