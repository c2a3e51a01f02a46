"""The protocol every kind of unit fills (:class:`UnitKind`); the kinds are
the other modules of :mod:`committee.tasks.units`.

A task says what its units are in a corpus (:class:`committee.tasks.Task`);
its unit kind (:attr:`committee.tasks.Task.unit_kind`) says how such units
are counted and read back wherever that differs between kinds: the
collector that scores them, the attributes ``--buckets`` groups them by,
their outcomes in ``report.html``, how the report tells a reader to read
their difficulties.  Tasks whose units are words, labelled spans or tagged
words reuse one of the three kinds; code outside these modules asks the
kind and never compares one.

This package sits on the tasks' floor (docs/architecture.md): what a kind
computes it computes with ``metrics`` and ``corpus``, imported where used so
that ``import committee.tasks`` (and reading a config) stays cheap, and what
it writes and reads of a run directory it does through the
:class:`committee.pipeline.unitfiles.UnitFiles` its caller hands it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from committee.corpus import Corpus


class UnitKind:
    """A kind of unit: one subclass per kind, one instance of each
    (:data:`committee.tasks.units.UNIT_KINDS`).  The class attributes are
    declarations; the methods do what differs between kinds."""

    #: its name (``words``, ``entities``, ``tags``), in messages
    name: str = ""
    #: the paragraph "How to read" that opens ``report.md`` for its runs
    how_to_read: str = ""
    #: its units are labelled spans matched span and label together (an
    #: output's units are read from its labels); False: plain words
    labelled: bool = False

    def __repr__(self) -> str:
        return f"<unit kind {self.name}>"

    def among(self, kinds) -> bool:
        """Whether this kind is one of ``kinds`` (as an analysis declares the
        kinds whose runs it reads)."""
        return self in kinds

    def attributes(self) -> tuple:
        """The attributes its units can be grouped by (``--buckets``), as
        :class:`committee.metrics.buckets.Attribute` records."""
        raise NotImplementedError

    def collector(self, task, gold: Corpus, difficulty=None, char_difficulty=None, *,
                  oov=None, **options):
        """The collector of ``gold``'s units (of ``task``) with their
        difficulties (``char_difficulty``: per character, for kinds whose
        difficulty files weigh characters outside units), OOV flags and
        ``options`` (``bucketer``; ``mode``, ``scheme``, ``buckets``)."""
        raise NotImplementedError

    def outcomes(self) -> tuple[tuple[str, ...], object]:
        """The names of a gold unit's outcomes in ``report.html`` and the
        function that counts them from matched spans ``(gold, pred)``."""
        raise NotImplementedError

    def gold_side(self, scorer, side) -> None:
        """A scorer's gold side for units of this kind: its difficulties,
        vocabulary, OOV flags, buckets, collector and IRT items, set on
        ``scorer`` (a :class:`committee.scoring.Scorer` whose gold is read)
        by composing the steps of ``side``
        (:class:`committee.scoring.goldside.GoldSide`)."""
        raise NotImplementedError

    def check_output(self, corpus: Corpus) -> None:
        """Refuse an output that cannot hold such units (an
        :class:`committee.errors.InputError`); nothing by default."""

    def by_label(self, units: list) -> str:
        """What ``report.md``'s first line says of the gold units' labels,
        after their count (`` (LOC 3,244, ORG 376)``); empty for plain words."""
        return ""

    # -- a run's files (through a committee.pipeline.unitfiles.UnitFiles) --

    def write_files(self, files, test: Corpus, units: list, committee, records: dict, d,
                    n_correct, oov) -> None:
        """Write a run's ``test.txt``, ``test.weight``, ``test.weight_c`` and
        ``words.tsv`` (``files``: a :class:`committee.pipeline.unitfiles.UnitFiles`)
        from the gold ``test`` and its ``units``, the members (``committee``,
        their ``records``), the difficulties ``d``, members right
        ``n_correct`` and OOV flags ``oov``."""
        raise NotImplementedError

    def load_run(self, files, task) -> dict:
        """A finished run read back: the fields of
        :class:`committee.report.rundata.RunData` but its directory, manifest
        and task (``test``, ``d``, ``n_correct``, ``oov``, ``marks``,
        ``pred_ends``; for labelled units ``units`` and what the kind keeps)."""
        raise NotImplementedError

    def members_readings(self, files, test: Corpus, marks):
        """Every member's reading of the test set (``predictions.npz``): the
        characters it put in words or entities (the default), or None when
        the run recorded none."""
        return files.read_predictions(test.n_chars(), marks.shape[0])

    def irt_responses(self, files, test: Corpus, rows, read_marks) -> tuple:
        """``committee irt``'s response matrix of a run (``read_marks(path,
        n_items)``) over the rows of its ``words.tsv``, and the per-character
        weights a kind's systems are scored with (None by default)."""
        from committee.errors import InputError

        marks = read_marks(files.paths.marks, test.n_words())
        if len(rows) != test.n_words():
            raise InputError(str(files.paths.words), None,
                             f"has {len(rows)} words, {files.paths.test.name} has "
                             f"{test.n_words()}")
        return marks, None

    #: why ``committee irt --subset`` (which perturbs the gold) and systems
    #: given as dicts cannot measure a run of this kind; empty: they can
    no_subset: str = ""

    def perturbed(self, task, name: str, test: Corpus, rate: float, seed: int) -> Corpus:
        """The gold ``test`` with errors at ``rate`` (seeded), as an output
        named ``name``: what ``committee irt --subset`` measures."""
        raise NotImplementedError

    def suspicious(self, data, systems, reasons, irt_flags) -> tuple:
        """``committee check-gold``'s candidates of a run (``data``: a
        :class:`committee.scoring.checkgold.RunInputs`): the check
        (:class:`committee.metrics.checkgold.Check`), its rows ``(candidate,
        gold, proposed, unit index, reasons)`` and the characters of each
        sentence.  ``systems`` are outputs whose readings the reasons name,
        ``reasons(c, i, names, sys_ends, irt, word_ids)`` words the evidence
        and ``irt_flags()`` gives the IRT flags of the gold units."""
        raise NotImplementedError

    # -- adaptive testing: the drawn sentences alone (docs/method.md §16) --

    def sentences_collector(self, task, collector, sentences):
        """``collector``'s gold side restricted to ``sentences`` (indices
        from 0, increasing): the collector of those gold sentences alone,
        with their units' difficulties, whose statistics of an output of them
        are the rows of those sentences in ``collector``'s."""
        raise NotImplementedError

    def scored(self, collector, pred) -> tuple:
        """The sufficient statistics of ``pred`` (an output of
        ``collector``'s gold sentences, aligned: not checked) and whether
        each gold unit is matched, as the scorer matches them (labelled
        spans: span and label together)."""
        matched = collector.match(pred)
        return collector.collect(pred, check=False, matched=matched), matched[2]

    def labelled_rows(self, files, task, test: Corpus) -> tuple:
        """A run's gold units of ``test``, the rows of its ``words.tsv`` and
        its marks, each file checked to cover every unit."""
        from committee.errors import InputError

        units = task.gold(test)
        n = sum(map(len, units))
        rows = files.read_words_tsv()
        if len(rows) != n:
            raise InputError(str(files.paths.words), None,
                             f"covers {len(rows)} {task.units}, test.txt has {n}")
        return units, rows, files.read_marks(n)


def gold_sentences(task, collector, sentences) -> tuple:
    """The gold sentences ``sentences`` (indices from 0, increasing) of
    ``collector`` as a corpus of their own, with which of its units (corpus
    order) and of its characters are theirs (boolean mask, indices)."""
    import numpy as np

    gold, idx = collector.gold, [int(i) for i in sentences]
    labels = task.labels_of(gold)
    sub = task.as_corpus(gold.path, [gold.words[i] for i in idx], [gold.lines[i] for i in idx],
                         None if labels is None else [labels[i] for i in idx])
    g = collector.spans
    off = g.sentence_offsets
    chars = np.concatenate([np.arange(off[i], off[i + 1]) for i in idx]
                           + [np.zeros(0, np.int64)])
    return sub, np.isin(g.sentence, idx), chars


def oov_flags(column, blank_is_none: bool = True):
    """``words.tsv``' ``oov`` column as booleans; None when a row leaves it
    blank (the run had no vocabulary) and ``blank_is_none``."""
    col = column.astype(str)
    if blank_is_none and (col == "").any():
        return None
    return col.isin(["1", "True", "true"]).to_numpy()
