"""The run directory: the one place that knows its file names.

A finished ``committee run`` leaves these files in ``output.dir``; the
pipeline writes them, and the report and the scorer read them through
:func:`paths`, so no other module spells a file name of the run directory.

>>> p = paths("runs/default")
>>> p.weight.name, p.test.name, p.train_words.name
('test.weight', 'test.txt', 'train-words.txt')
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: Run state: the run's name and fingerprint (what decides its outputs).
STATE_FILE = "run.json"
#: One JSON record per finished member.
MEMBER_DIR = "members"
#: Temporary models of members in training.
TMP_DIR = ".tmp"
TEST_FILE = "test.txt"
WEIGHT_FILE = "test.weight"
WEIGHT_C_FILE = "test.weight_c"
WORDS_FILE = "words.tsv"
MARKS_FILE = "marks.npz"
TRAIN_WORDS_FILE = "train-words.txt"
MANIFEST_FILE = "manifest.json"
#: Written when every member recorded its segmentation of the test set.
PREDICTIONS_FILE = "predictions.npz"
LOG_FILE = "run.log"
#: ``committee irt``: item table, fit summary, words to check, exports.
IRT_ITEMS_FILE = "items.tsv"
IRT_FIT_FILE = "irt.json"
IRT_CHECK_FILE = "check-gold.tsv"
IRT_PYIRT_FILE = "irt-responses.jsonlines"
IRT_NPZ_FILE = "irt-responses.npz"
#: The dataset a run publishes, in the order it is written.
OUTPUT_FILES = (TEST_FILE, WEIGHT_FILE, WEIGHT_C_FILE, WORDS_FILE, MARKS_FILE,
                TRAIN_WORDS_FILE, MANIFEST_FILE)


@dataclass(frozen=True)
class RunPaths:
    """Where each file of a run directory is."""

    root: Path

    @property
    def test(self) -> Path:
        return self.root / TEST_FILE

    @property
    def weight(self) -> Path:
        return self.root / WEIGHT_FILE

    @property
    def weight_c(self) -> Path:
        return self.root / WEIGHT_C_FILE

    @property
    def words(self) -> Path:
        return self.root / WORDS_FILE

    @property
    def marks(self) -> Path:
        return self.root / MARKS_FILE

    @property
    def predictions(self) -> Path:
        return self.root / PREDICTIONS_FILE

    @property
    def train_words(self) -> Path:
        return self.root / TRAIN_WORDS_FILE

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST_FILE

    @property
    def state(self) -> Path:
        return self.root / STATE_FILE

    @property
    def members(self) -> Path:
        return self.root / MEMBER_DIR

    @property
    def tmp(self) -> Path:
        return self.root / TMP_DIR

    @property
    def irt_items(self) -> Path:
        return self.root / IRT_ITEMS_FILE

    @property
    def irt_fit(self) -> Path:
        return self.root / IRT_FIT_FILE

    @property
    def irt_check(self) -> Path:
        return self.root / IRT_CHECK_FILE

    @property
    def irt_pyirt(self) -> Path:
        return self.root / IRT_PYIRT_FILE

    @property
    def irt_npz(self) -> Path:
        return self.root / IRT_NPZ_FILE

    @property
    def log(self) -> Path:
        return self.root / LOG_FILE


def paths(run_dir: str | os.PathLike) -> RunPaths:
    """The file paths of the run directory ``run_dir`` (nothing is read)."""
    return RunPaths(Path(run_dir))


def is_run_dir(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a directory holding a finished run's manifest.

    >>> is_run_dir("no/such/dir")
    False
    """
    p = Path(path)
    return p.is_dir() and (p / MANIFEST_FILE).is_file()
