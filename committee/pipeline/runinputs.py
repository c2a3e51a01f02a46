"""A run's corpora read from its config: the training and test sets, or
the two parts of one split file (:func:`load_corpora`), those of a finished
run read again only if they are the ones it used (:func:`load_recorded`),
and the checked :class:`RunInputs` a run trains and scores on
(:func:`load_inputs`)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from committee.corpus import plausibility, tables
from committee import corpus as corpus_mod
from committee import tasks as tasks_mod
from committee.errors import ConfigError, InputError


@dataclass(frozen=True)
class RunInputs:
    """The corpora of a run, read once.

    ``train_sentences`` are those a member may train on, in the task's form
    (:meth:`committee.tasks.Task.train_sentences`); ``test_units``
    the test set's gold units (words; entities), per sentence.  The
    vocabulary is the training words (the training entities' strings for
    ``task: ner``) that OOV flags are taken against.
    """

    train: corpus_mod.Corpus
    test: corpus_mod.Corpus
    train_sentences: list
    vocabulary: set[str]
    vocabulary_source: dict
    task: str = tasks_mod.DEFAULT_TASK
    test_units: list | None = None

    @property
    def units(self) -> list:
        """The test set's gold units, per sentence (its words unless given)."""
        return self.test.words if self.test_units is None else self.test_units

    def n_units(self) -> int:
        """Gold units of the test set."""
        return sum(map(len, self.units))


def load_source(source, cfg, key: str = "corpus.train") -> corpus_mod.Corpus:
    """Read one corpus source of the config (a file, or the built-in corpus);
    ``key`` names it in messages (``corpus.train`` or ``corpus.test``): a
    file that looks like another format or encoding is refused with the
    fix spelled as the config key to set (``set corpus.train.format: conllu``)."""
    if getattr(source, "builtin", None):
        return corpus_mod.read_embedded(source.split, normalization=source.normalization,
                                        entities=tasks_mod.get(_task(cfg)).tagged)
    return corpus_mod.read_corpus(cfg.resolve(source), format=source.format,
                                  encoding=source.encoding, normalization=source.normalization,
                                  fix=f"{key}.{{key}}: {{value}}",
                                  table=tables.source_options(source, key))


def load_corpora(cfg, where: str = "<config>") -> tuple[corpus_mod.Corpus, corpus_mod.Corpus]:
    """The training and test corpora of ``cfg``: two sources, or the two
    parts of one file that ``corpus.split`` divides (read once; a split the
    file cannot take is a :class:`~committee.errors.ConfigError` of
    ``where``, naming the key)."""
    split = cfg.corpus.split
    if split is None:
        return (load_source(cfg.corpus.train, cfg, "corpus.train"),
                load_source(cfg.corpus.test, cfg, "corpus.test"))
    whole = load_source(cfg.corpus.train, cfg, "corpus.train")
    try:
        parts = dict(zip(("train", "test"), corpus_mod.split_by(whole, split.test, split.seed)))
    except ValueError as exc:
        raise ConfigError(where, [f"corpus.split.test: {cfg.corpus.train.path}: {exc}"]) from None
    return parts[cfg.corpus.train.split], parts[cfg.corpus.test.split]


def load_recorded(cfg, manifest: dict, where: str, fix: str) -> tuple[corpus_mod.Corpus,
                                                                     corpus_mod.Corpus]:
    """The corpora of a finished run read again (:func:`load_corpora`), only
    if they are the ones it used: a file source must be a regular file
    (never a FIFO or a device) with the SHA-256 its ``manifest`` (read from
    ``where``) records, checked before the file is parsed; every corpus must
    then hold the words it recorded (a part of a split file, the built-in
    corpus).  Otherwise an :class:`InputError` names the file, both
    checksums and ``fix``: how to go on for the command that reads them."""
    from committee.pipeline import runfiles
    from committee.system.files import sha256_file

    def recorded(part: str, key: str) -> str | None:
        value = manifest.get("corpus", {}).get(part, {})
        value = value.get(key) if isinstance(value, dict) else None
        return value if isinstance(value, str) else None

    def refuse(path, part: str, actual: str, expected: str):
        return InputError(os.fspath(path), None, f"is not the {part} corpus the run used "
                          f"(sha256 {actual[:12]}, {where} records {expected[:12]}): edited "
                          f"since the run? {fix}")

    if cfg.corpus.split is None:
        for part, source in (("train", cfg.corpus.train), ("test", cfg.corpus.test)):
            expected = recorded(part, "sha256")
            if getattr(source, "builtin", None) or expected is None:
                continue
            path = cfg.resolve(source)
            if os.path.isdir(path):  # a saved dataset: its content is checked below
                continue
            runfiles.check_regular(path, fix)
            actual = sha256_file(path)
            if actual != expected:
                raise refuse(path, "training" if part == "train" else "test", actual, expected)
    train, test = load_corpora(cfg, where)
    task = tasks_mod.get(_task(cfg))
    for part, c in (("train", train), ("test", test)):
        expected = recorded(part, "content_sha256")
        c = task.prepare(c, _setting)  # as the run read it (pos: its ids dropped)
        if expected is not None and c.content_sha256 != expected:
            raise refuse(c.path, "training" if part == "train" else "test", c.content_sha256,
                         expected)
    return train, test


def load_inputs(cfg, where: str = "<config>", recorded: dict | None = None,
                fix: str = "") -> RunInputs:
    """The corpora of ``cfg`` (:func:`load_corpora`), read and checked: a
    test set that is the training set is refused unless
    ``corpus.allow_overlap`` (and a large overlap draws a warning,
    :func:`committee.corpus.plausibility.check_train_test`).  ``recorded``:
    the manifest of the finished run whose corpora they must be
    (:func:`load_recorded`, ``fix`` its way on)."""
    train, test = (load_corpora(cfg, where) if recorded is None
                   else load_recorded(cfg, recorded, where, fix))
    task = tasks_mod.get(_task(cfg))
    # as the task reads them (pos: every word tagged, People's Daily's ids dropped)
    train, test = task.prepare(train, _setting), task.prepare(test, _setting)
    train_units = task.gold(train)
    train_sentences = task.train_sentences(train, train_units)
    if not train_sentences:
        raise InputError(train.path, None, "the training corpus has no words")
    if sum(map(len, train_units)) == 0:  # entities: every tag O
        raise InputError(train.path, None, f"the training corpus has no {task.units} (every "
                                           f"tag is O): members trained on it would find none; "
                                           f"give corpus.train a corpus with its {task.units} "
                                           "tagged")
    units = task.gold(test)
    if sum(map(len, units)) == 0:
        raise InputError(test.path, None, f"the test corpus has no {task.units}")
    allow = cfg.corpus.allow_overlap
    try:
        plausibility.check_train_test(train, test, allow_identical=allow)
    except InputError as exc:
        raise InputError(exc.path, exc.line,
                         f"{exc.message}, or accept it with corpus.allow_overlap: true") from None
    if cfg.corpus.train_words:
        path = cfg.resolve(cfg.corpus.train_words)
        vocabulary = corpus_mod.read_word_list(path, fix="corpus.train_words: a UTF-8 file (it reads as {value})")
        norm = cfg.corpus.train.normalization
        if norm:
            vocabulary = {corpus_mod.normalize(w, norm) for w in vocabulary}
        vsource = {"word_list": str(cfg.corpus.train_words)}
    else:  # the training words, or the training entities' strings
        vocabulary = set(task.texts(train.words, train_units))
        vsource = {"training_corpus": True}
    # the words, not the file: the same vocabulary in any encoding or file
    vsource["sha256"] = corpus_mod.word_list_sha256(vocabulary)
    return RunInputs(train, test, train_sentences, vocabulary, vsource, task.name, units)


def _setting(key: str, value) -> str:
    """A config setting as a message spells it: ``task: segmentation``."""
    return f"{key}: {value}"


def _task(cfg) -> str:
    """The config's ``task``."""
    return cfg.task
