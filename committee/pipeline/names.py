"""The run directory's names: the one place that spells its file names.

A finished ``committee run`` leaves these files in ``output.dir``; the
pipeline writes them, and the report and the scorer read them through
:func:`paths`, so no other module spells a file name of the run directory.
:mod:`committee.pipeline.layout` re-exports every name here, and decides
what may be done with the directory.

>>> p = paths("runs/default")
>>> p.weight.name, p.test.name, p.train_words.name
('test.weight', 'test.txt', 'train-words.txt')
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from committee.system.files import owner_tag

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
#: The training words (entities' strings for ``task: ner``) with the times
#: each occurs in the training corpus: ``word<TAB>count`` lines under a header.
TRAIN_COUNTS_FILE = "train-words.tsv"
#: The training corpus's text, each training sentence's characters on a
#: line: where label consistency counts the places of a word (``--buckets``).
TRAIN_TEXT_FILE = "train-text.txt"
MANIFEST_FILE = "manifest.json"
#: Written when every member recorded its segmentation of the test set.
PREDICTIONS_FILE = "predictions.npz"
LOG_FILE = "run.log"
#: ``committee irt``: item table, fit summary, flagged words, exports.
IRT_ITEMS_FILE = "items.tsv"
IRT_FIT_FILE = "irt.json"
IRT_CHECK_FILE = "irt-flags.tsv"
IRT_PYIRT_FILE = "irt-responses.jsonlines"
IRT_NPZ_FILE = "irt-responses.npz"
#: ``committee irt --subset N``: the N most informative words.
IRT_SUBSET_FILE = "irt-subset.tsv"
#: What ``committee irt`` writes; ``irt.json`` (written last) records the
#: checksums of the others under ``"files"``.
IRT_FILES = (IRT_ITEMS_FILE, IRT_CHECK_FILE, IRT_SUBSET_FILE, IRT_PYIRT_FILE, IRT_NPZ_FILE,
             IRT_FIT_FILE)
#: ``committee check-gold``: the ranked suspicious spans, and its summary
#: (which records the list's checksum under ``"files"``).
CHECK_GOLD_FILE = "check-gold.tsv"
CHECK_GOLD_JSON = "check-gold.json"
CHECK_GOLD_FILES = (CHECK_GOLD_FILE, CHECK_GOLD_JSON)
#: The dataset a run publishes, in the order it is written.
OUTPUT_FILES = (TEST_FILE, WEIGHT_FILE, WEIGHT_C_FILE, WORDS_FILE, MARKS_FILE,
                TRAIN_WORDS_FILE, TRAIN_COUNTS_FILE, TRAIN_TEXT_FILE, MANIFEST_FILE)
#: Models of the members, with ``output.keep_models``.
MODELS_DIR = "models"
#: What ``committee report`` adds: the page, Table 2's scores, figures and data.
REPORT_FILE = "report.md"
#: The same report as one self-contained page, with the item explorer.
REPORT_HTML_FILE = "report.html"
TABLE2_FILE = "table2.csv"
REPORT_DIR = "report"
REPORT_ENTRIES = {REPORT_FILE, REPORT_HTML_FILE, TABLE2_FILE, REPORT_DIR}
#: Every entry a run, its report or ``committee irt`` may write (all else in a
#: run directory is foreign: a rerun refuses it).
OWN_ENTRIES = (set(OUTPUT_FILES) | {STATE_FILE, MEMBER_DIR, TMP_DIR, LOG_FILE, MODELS_DIR,
                                    PREDICTIONS_FILE} | REPORT_ENTRIES | set(IRT_FILES)
               | set(CHECK_GOLD_FILES))

#: What a run resized to another committee size keeps: its members and its
#: log (everything else was made from the members of the old size).
RESIZE_KEEPS = frozenset({STATE_FILE, MEMBER_DIR, LOG_FILE, MODELS_DIR})


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
    def train_counts(self) -> Path:
        return self.root / TRAIN_COUNTS_FILE

    @property
    def train_text(self) -> Path:
        return self.root / TRAIN_TEXT_FILE

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
    def check_gold(self) -> Path:
        return self.root / CHECK_GOLD_FILE

    @property
    def check_gold_json(self) -> Path:
        return self.root / CHECK_GOLD_JSON

    @property
    def irt_pyirt(self) -> Path:
        return self.root / IRT_PYIRT_FILE

    @property
    def irt_npz(self) -> Path:
        return self.root / IRT_NPZ_FILE

    @property
    def irt_subset(self) -> Path:
        return self.root / IRT_SUBSET_FILE

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


def member_path(out: Path, k: int) -> Path:
    """The record of member ``k`` (see :func:`committee.pipeline.marks.save_member`).

    >>> member_path(Path("run"), 7).as_posix()
    'run/members/member-0007.json'
    """
    return Path(out) / MEMBER_DIR / f"member-{k:04d}.json"


def model_path(directory: str | os.PathLike, k: int, suffix: str = ".crfsuite") -> Path:
    """Where member ``k``'s model is kept (``output.keep_models``) below
    ``directory`` (the run directory, or the work directory its worker
    writes to first); ``suffix`` is the trainer's
    (:attr:`committee.learners.trainers.Trainer.model_suffix`).

    >>> model_path(Path("run"), 7).as_posix()
    'run/models/member-0007.crfsuite'
    """
    return Path(directory) / MODELS_DIR / f"member-{k:04d}{suffix}"


def model_temp_prefix(k: int) -> str:
    """The start of the name of member ``k``'s temporary model file in the
    work directory: the member and its owner (:func:`committee.system.files.owner_tag`),
    so that a resumed run removes only dead owners' leftovers.

    >>> model_temp_prefix(7).startswith(".member-0007-")
    True
    """
    return f".member-{k:04d}-{owner_tag()}-"
