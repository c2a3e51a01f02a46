"""The gold side of a :class:`~committee.scoring.scorer.Scorer`: its
difficulties, training vocabulary, OOV flags, buckets and IRT items read
against the gold and its collector made, one function per unit kind
(:func:`init_words`, :func:`init_entities`, :func:`init_tags`; the scorer
chooses by its task's unit kind)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from committee import metrics
from committee import corpus as corpus_mod
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


def init_words(scorer, inputs: GoldInputs) -> None:
    """The gold side of a task whose units are words (``segmentation``;
    :class:`committee.metrics.Collector`)."""
    (difficulty, train_words, train_format, train_encoding, buckets, _api, irt,
     allow_overlap) = inputs
    normalization = scorer.normalization
    no_entity_tags(scorer.gold)
    if difficulty is not None:
        try:
            scorer.difficulty = difficulty_mod.load_difficulty(
                difficulty, scorer.gold, argument=(_api, "difficulty"))
        except InputError as exc:
            raise not_this_gold(exc, difficulty, scorer.gold) from None
        path = difficulty_mod.difficulty_file(difficulty)
        if path is not None:
            scorer.known_golds |= check_provenance(path, scorer.gold)
    scorer.train_words, scorer.train_words_sha256, train = vocabulary_of(
        train_words, encoding=train_encoding, normalization=normalization,
        train_format=train_format, fix=scorer.spelling("train"), api=_api)
    if train is not None:
        check_overlap(train, scorer.gold, allow_overlap, scorer.spelling("train"))
    oov = None
    if scorer.train_words is not None:
        oov = metrics.oov_flags(scorer.gold, scorer.train_words)
        check_oov_rate(scorer.gold, oov, train_words)
    bucketer = None
    if buckets is not None and buckets is not False:
        from committee.metrics.buckets import Bucketer

        attrs = _bucket_attrs(_api, buckets, {
            "difficulty": scorer.difficulty is not None,
            "vocabulary": scorer.train_words is not None, "training corpus": train is not None})
        bucketer = Bucketer(scorer.gold.words, attrs, difficulty=scorer.difficulty,
                            vocabulary=scorer.train_words,
                            train_words=None if train is None else train.words)
    scorer._collector = metrics.collector_for(scorer._task.unit_kind, scorer.gold,
                                              scorer.difficulty, task=scorer._task, oov=oov,
                                              bucketer=bucketer)
    scorer.irt_items = None if irt is None else read_irt_items(
        irt, [w for s in scorer.gold.words for w in s])


def init_entities(scorer, inputs: GoldInputs) -> None:
    """The gold side of a task whose units are entities (``ner``;
    :class:`committee.metrics.labelled.EntityCollector`)."""
    (difficulty, train_words, train_format, train_encoding, buckets, api, irt,
     allow_overlap) = inputs
    from committee.metrics.labelled import ENTITY_ATTRIBUTES

    task, gold = scorer._task, scorer.gold
    task.unit_kind.check_output(gold)
    units = task.gold(gold, scorer.mode, scorer.scheme)
    if scorer.mode == "strict" and not any(units):
        _check_strict_gold(task, gold, scorer.scheme, scorer.spelling("output"))
    char_d = None
    if difficulty is not None:
        try:
            scorer.difficulty, char_d = difficulty_mod.load_entity_difficulty(
                difficulty, gold, units)
        except InputError as exc:
            raise not_this_gold(exc, difficulty, gold) from None
        scorer.known_golds |= check_provenance(difficulty_mod.difficulty_file(difficulty), gold)
    scorer.char_difficulty = char_d
    words, scorer.train_words_sha256, train = vocabulary_of(
        train_words, encoding=train_encoding, normalization=scorer.normalization,
        train_format=train_format, fix=scorer.spelling("train"), api=api)
    if train is not None:  # a training corpus that is the gold: every entity seen
        check_overlap(train, gold, allow_overlap, scorer.spelling("train"))
    if train is not None and train.tags is not None:  # a tagged corpus: its entities
        words = set(task.texts(train.words, task.gold(train)))
        scorer.train_words_sha256 = corpus_mod.word_list_sha256(words)
    scorer.train_words = words
    oov = None if words is None else np.fromiter(
        (t not in words for t in task.texts(gold.words, units)), dtype=bool,
        count=sum(map(len, units)))
    attrs = _unit_attrs(api, buckets, ENTITY_ATTRIBUTES, char_d is not None)
    scorer._collector = metrics.collector_for(task.unit_kind, gold, scorer.difficulty, char_d,
                                              task=task, oov=oov, mode=scorer.mode,
                                              scheme=scorer.scheme, buckets=attrs)
    scorer.irt_items = None if irt is None else read_irt_items(irt, task.texts(gold.words,
                                                                               units))


def init_tags(scorer, inputs: GoldInputs) -> None:
    """The gold side of a task whose units are tagged words (``pos``;
    :class:`committee.metrics.tagged.TagCollector`): one difficulty per
    gold word, as for words."""
    (difficulty, train_words, train_format, train_encoding, buckets, api, irt,
     allow_overlap) = inputs
    from committee.metrics.tagged import TAG_ATTRIBUTES

    gold = scorer.gold
    if difficulty is not None:
        try:
            scorer.difficulty = difficulty_mod.load_difficulty(
                difficulty, gold, argument=(api, "difficulty"))
        except InputError as exc:
            raise not_this_gold(exc, difficulty, gold) from None
        path = difficulty_mod.difficulty_file(difficulty)
        if path is not None:
            scorer.known_golds |= check_provenance(path, gold)
    scorer.train_words, scorer.train_words_sha256, train = vocabulary_of(
        train_words, encoding=train_encoding, normalization=scorer.normalization,
        train_format=train_format, fix=scorer.spelling("train"), api=api)
    if train is not None:
        check_overlap(train, gold, allow_overlap, scorer.spelling("train"))
    oov = None if scorer.train_words is None else metrics.oov_flags(gold, scorer.train_words)
    attrs = _unit_attrs(api, buckets, TAG_ATTRIBUTES, scorer.difficulty is not None)
    scorer._collector = metrics.collector_for(scorer._task.unit_kind, gold, scorer.difficulty,
                                              task=scorer._task, oov=oov, buckets=attrs)
    scorer.irt_items = None if irt is None else read_irt_items(
        irt, scorer._task.texts(gold.words, scorer._collector.units))


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
                  "training corpus": "a training corpus (train_words as a Corpus or a file "
                                     "with train_format)"}


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
