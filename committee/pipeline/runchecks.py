"""A finished run's files checked before use: the checksums their
records keep (:func:`verify`), the task a run is of (:func:`check_task`),
and inputs a command would overwrite (:func:`check_inputs`).
:mod:`committee.pipeline.layout` re-exports every name here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from committee.errors import InputError
from committee.pipeline import lock
from committee.pipeline import runfiles
from committee.pipeline.names import (CHECK_GOLD_FILES, CHECK_GOLD_JSON, IRT_FILES, IRT_FIT_FILE,
                                      LOG_FILE, MANIFEST_FILE, MARKS_FILE, MEMBER_DIR,
                                      MODELS_DIR, OUTPUT_FILES, PREDICTIONS_FILE, REPORT_DIR,
                                      REPORT_FILE, REPORT_HTML_FILE, STATE_FILE, TABLE2_FILE,
                                      TEST_FILE, TMP_DIR, TRAIN_WORDS_FILE, WEIGHT_C_FILE,
                                      WEIGHT_FILE, WORDS_FILE)
from committee.system.files import refuse_overwrite, sha256_file
from committee.tasks import DEFAULT_TASK

#: What to do about a run's file that is damaged or edited.
REWRITE = "rerun the same committee run to rewrite it (saved members are not trained again)"


def need(path: Path) -> Path:
    """``path``, or an :class:`InputError` saying a finished run's file is
    missing, or is no regular file (a FIFO, a device, a directory: never
    opened, :func:`committee.pipeline.runfiles.check_regular`)."""
    if not os.path.lexists(path):
        raise InputError(str(path), None, "no such file: is this the output.dir of a finished "
                                          "`committee run`?")
    runfiles.check_regular(path, REWRITE)
    return path


#: The files each reader of a run reads, checked by :func:`verify`.
READ_BY = {
    lock.REPORT: (TEST_FILE, WORDS_FILE, MARKS_FILE, PREDICTIONS_FILE, WEIGHT_FILE,
                     WEIGHT_C_FILE, TRAIN_WORDS_FILE),
    "committee irt": (TEST_FILE, WORDS_FILE, MARKS_FILE, WEIGHT_C_FILE),  # scoring.irt.COMMAND
    # scoring.checkgold.COMMAND
    "committee check-gold": (TEST_FILE, MARKS_FILE, PREDICTIONS_FILE, TRAIN_WORDS_FILE),
}


def _recorded(record: Path, fix: str) -> dict[str, str]:
    """The checksums ``record`` (``manifest.json`` or ``irt.json``) holds
    under ``"files"``; empty when there is no such file or it records none."""
    if not os.path.lexists(record):
        return {}
    kind = "manifest" if record.name == MANIFEST_FILE else "record"
    try:
        data = runfiles.read_json(record, kind, runfiles.Checksums, fix)
    except InputError as exc:
        raise InputError(exc.path, None, f"{exc.message.rsplit('; ', 1)[0]}, so the files it "
                         f"records cannot be checked; {fix}") from None
    return dict(data.get("files", {}))


def verify(run_dir: str | os.PathLike, names: Sequence[str]) -> None:
    """Refuse a file of a run that changed since the command that wrote it.

    Each of ``names`` (files of ``run_dir``) that its record lists must
    still have the SHA-256 recorded there: ``manifest.json`` records the
    dataset of ``committee run`` (:data:`OUTPUT_FILES`, ``predictions.npz``),
    ``irt.json`` the files of ``committee irt`` (:data:`IRT_FILES`).  A file
    that its record does not list, a missing file (its reader says so) and
    a directory without the record are not checked; an unreadable record
    is refused.  Raises :class:`InputError` naming the file, exit code 3.

    Every reader of a run calls it first (:data:`READ_BY`): the report
    (:func:`committee.report.rundata.load_run`), ``committee irt``
    (:func:`committee.scoring.irt.load`), the difficulties of ``committee score
    --difficulty`` (:func:`committee.pipeline.difficulty.check_from_final_run`), the items of
    ``committee score --irt``, and every file given to ``committee score``
    (:func:`verify_files`).  It reads each file once.

    >>> verify("no/such/dir", [TEST_FILE])
    """
    root = Path(run_dir)
    records: dict[str, dict[str, str]] = {}
    for name in names:
        if name in IRT_FILES:
            record, writer, fix = IRT_FIT_FILE, "committee irt", f"rerun committee irt {root}"
        elif name in CHECK_GOLD_FILES:
            record, writer, fix = (CHECK_GOLD_JSON, "committee check-gold",
                                   f"rerun committee check-gold {root}")
        else:
            record, writer, fix = MANIFEST_FILE, lock.RUN, REWRITE
        if record not in records:
            records[record] = _recorded(root / record, fix)
        expected = records[record].get(name)
        path = root / name
        if expected is None or not os.path.lexists(path):
            continue
        runfiles.check_regular(path, fix)  # a FIFO or a device is never hashed
        actual = sha256_file(path)
        if actual != expected:
            raise InputError(str(path), None, f"changed since {writer} wrote it (sha256 "
                             f"{actual[:12]}, {record} records {expected[:12]}); {fix}")


def verify_files(paths) -> None:
    """:func:`verify` each of ``paths`` (files given on a command line) that
    lies in a run directory and is recorded there; None and ``"-"`` are skipped.

    >>> verify_files([None, "-", "no/such/dir/test.txt"])
    """
    for p in paths:
        if p is None or os.fspath(p) == "-" or os.path.isdir(p):
            continue
        p = Path(p)
        verify(p.parent, [p.name])



def run_task(run_dir: str | os.PathLike) -> str | None:
    """The task of the finished run in ``run_dir``: the one its manifest's
    config names (``segmentation`` when it names none); None when
    ``run_dir`` holds no readable manifest (no run, or one not final).

    >>> run_task("no/such/dir") is None
    True
    """
    path = Path(run_dir) / MANIFEST_FILE
    if not path.is_file():
        return None
    try:
        data = runfiles.read_json(path, "manifest", runfiles.Manifest)
    except InputError:
        return None
    return data["config"].get("task", DEFAULT_TASK)


def check_task(paths, task: str, fix=None) -> None:
    """Refuse a run directory, or a file directly inside one (its
    ``test.txt``, ``test.weight_c``, ``train-words.txt``, ...), whose run
    is of another task than ``task``: a segmentation's words are no
    entities, nor the reverse.  ``fix(key, value)`` spells the option to
    give (default: the keyword argument, ``task='ner'``).  None, ``"-"``
    and values that are no paths are skipped.

    >>> check_task([None, "-", [0.5], "no/such/dir/test.txt"], "ner")
    """
    fix = fix or (lambda key, value: f"{key}={value!r}")
    for given in paths:
        if not isinstance(given, (str, os.PathLike)) or os.fspath(given) == "-":
            continue
        path = Path(given)
        run = path if path.is_dir() else path.parent
        other = run_task(run)
        if other is None or other == task:
            continue
        what = "a run" if path.is_dir() else "a file of a run"
        raise InputError(os.fspath(given), None,
                         f"is {what} of task {other} ({run / MANIFEST_FILE}), not of task "
                         f"{task}: score it with {fix('task', other)}")


#: What each command writes into a run directory: files, and directories it
#: writes files into (checked by :func:`check_inputs`).
WRITTEN_BY = {
    lock.RUN: (OUTPUT_FILES + (STATE_FILE, LOG_FILE, PREDICTIONS_FILE, REPORT_FILE,
                                  REPORT_HTML_FILE, TABLE2_FILE),
                  (MEMBER_DIR, TMP_DIR, MODELS_DIR, REPORT_DIR)),
    lock.REPORT: ((REPORT_FILE, REPORT_HTML_FILE, TABLE2_FILE), (REPORT_DIR,)),
    "committee irt": (IRT_FILES, ()),  # committee.scoring.irt.COMMAND
    "committee check-gold": (CHECK_GOLD_FILES, ()),  # committee.scoring.checkgold.COMMAND
}


def check_inputs(run_dir: str | os.PathLike, inputs, command: str) -> None:
    """Refuse an input that ``command`` (a key of :data:`WRITTEN_BY`) would
    overwrite with what it writes into ``run_dir``: one of its files (the
    same path, or the same file through a link,
    :func:`committee.system.files.same_file`) or a file inside one of its
    directories.

    ``inputs`` are ``(flag, path)`` pairs, e.g. ``("--system", "out.txt")``;
    a path of None is skipped.  Raises :class:`InputError` naming the input
    before anything is read or written.

    >>> check_inputs("runs/x", [("--system", "runs/x/items.tsv")], "committee irt")
    Traceback (most recent call last):
    ...
    committee.errors.InputError: runs/x/items.tsv: the input (--system) is an output of committee irt: committee irt would overwrite its own input; give another file
    """
    root = Path(run_dir)
    names, dirs = WRITTEN_BY[command]
    outputs = [root / n for n in names]
    for d in dirs:  # a hard link elsewhere to a file in there
        if (root / d).is_dir():
            outputs += sorted(p for p in (root / d).rglob("*") if p.is_file())
    for flag, given in inputs:
        if given is None:
            continue
        where_is = f"the input ({flag})"
        inside = next((root / d for d in dirs if _inside(given, root / d)), None)
        if inside is not None:
            raise InputError(os.fspath(given), None, f"{where_is} is inside {inside}/, which "
                             f"{command} writes: it may overwrite its own input; give a file "
                             "from elsewhere")
        for out in outputs:
            refuse_overwrite(given, where_is, out, f"an output of {command}", command,
                             "give another file")


def _inside(path, directory: Path) -> bool:
    """Whether ``path`` lies inside ``directory`` (real paths compared)."""
    if os.fspath(path) == "-":
        return False
    real, base = os.path.realpath(path), os.path.realpath(directory)
    return os.path.commonpath([real, base]) == base and real != base
