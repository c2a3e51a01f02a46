"""A run directory's difficulty files and members' records, bound to one
run, as the unit kinds (:mod:`committee.tasks.units`) write and read them.

A kind sits on the tasks' floor, below this package: what it writes and
reads of a run it does through a :class:`UnitFiles` its caller hands it
(:mod:`committee.pipeline.dataset` writing a run, the report, ``committee
irt`` and ``committee check-gold`` reading one back).  Each method is one
file, in the format :mod:`committee.pipeline.difficulty` and
:mod:`committee.pipeline.marks` define.
"""

from __future__ import annotations

from committee import corpus as corpus_mod
from committee.pipeline import difficulty as difficulty_mod
from committee.pipeline import layout
from committee.pipeline import marks as marks_mod


class UnitFiles:
    """The files of the run whose paths are ``paths``
    (:func:`committee.pipeline.layout.paths`); ``manifest``: its manifest,
    for reading its marks back."""

    def __init__(self, paths, manifest: dict | None = None):
        self.paths = paths
        self.manifest = manifest

    # -- written by committee run ---------------------------------------

    def write_weight(self, test, d) -> None:
        """``test.weight``: one value per gold word."""
        difficulty_mod.write_weight(self.paths.weight, test, d)

    def write_weight_c(self, test, d) -> None:
        """``test.weight_c``: each character its gold word's value."""
        difficulty_mod.write_weight_c(self.paths.weight_c, test, d)

    def write_words_tsv(self, test, d, n_correct, oov) -> None:
        """``words.tsv``: one row per gold word."""
        difficulty_mod.write_words_tsv(self.paths.words, test, d, n_correct, oov=oov)

    def write_unit_weight(self, units: list, d) -> None:
        """``test.weight``: one value per gold unit."""
        difficulty_mod.write_unit_weight(self.paths.weight, units, d)

    def write_char_values(self, test, values) -> None:
        """``test.weight_c``: one value per character, given."""
        difficulty_mod.write_char_values(self.paths.weight_c, test, values)

    @staticmethod
    def char_weights(test, units: list, d, spurious_count, n_members: int):
        """The per-character values of entities' ``test.weight_c``
        (:func:`committee.pipeline.difficulty.char_weights`)."""
        return difficulty_mod.char_weights(test, units, d, spurious_count, n_members)

    def write_entities_tsv(self, test, units: list, d, n_correct, oov) -> None:
        """``words.tsv``: one row per gold entity."""
        difficulty_mod.write_entities_tsv(self.paths.words, test, units, d, n_correct, oov)

    # -- read back ----------------------------------------------------------

    def read_test(self, task) -> corpus_mod.Corpus:
        """``test.txt`` in ``task``'s format, as read."""
        return corpus_mod.read_corpus(layout.need(self.paths.test), format=task.format)

    def read_words_tsv(self):
        """``words.tsv`` (:func:`committee.pipeline.difficulty.read_words_tsv`)."""
        return difficulty_mod.read_words_tsv(layout.need(self.paths.words))

    def read_marks(self, n_units: int):
        """``marks.npz``: members × ``n_units``."""
        return marks_mod.read_marks(self.paths, self.manifest, n_units)

    def read_predictions(self, n_chars: int, n_members: int):
        """``predictions.npz``' characters of every member, or None."""
        return marks_mod.read_predictions(self.paths.predictions, n_chars, n_members)

    def read_labels(self, n_units: int, n_members: int):
        """``predictions.npz``' label of every gold unit by every member, or None."""
        return marks_mod.read_labels(self.paths.predictions, n_units, n_members)

    def read_weight_c(self, test, needed: bool = True):
        """``test.weight_c``: one value per character."""
        path = layout.need(self.paths.weight_c) if needed else self.paths.weight_c
        return difficulty_mod.read_weight_c(path, test)

    def entity_values(self, per_char, test, units: list):
        """Each gold entity's value, from the per-character values (checked
        to agree within each entity)."""
        return difficulty_mod.entity_values(self.paths.weight_c, per_char, test, units)
