"""The run directory: the one place that knows its file names.

A finished ``committee run`` leaves these files in ``output.dir``; the
pipeline writes them, and the report and the scorer read them through
:func:`paths`, so no other module spells a file name of the run directory.
This module also decides whether a directory may be used for a run
(:func:`claim_output_dir`: new, or a run of the same config to resume; the
caller holds its lock, :mod:`committee.pipeline.lock`), whether a run's files are
final for a reader (:func:`check_final`), opens its ``run.log`` and writes
and reads its manifest.

>>> p = paths("runs/default")
>>> p.weight.name, p.test.name, p.train_words.name
('test.weight', 'test.txt', 'train-words.txt')
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from committee import __version__
from committee.pipeline import lock as runlock
from committee.pipeline import runfiles
from committee.errors import InputError, OutputError, RunError
from committee.tasks import DEFAULT_TASK
from committee.system.files import (atomic_write_text, clear_dir, is_removable, owner_tag,
                              refuse_overwrite, sha256_bytes, sha256_file)

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
GOLD_CHECK_FILE = "check-gold.tsv"
GOLD_CHECK_JSON = "check-gold.json"
GOLD_CHECK_FILES = (GOLD_CHECK_FILE, GOLD_CHECK_JSON)
#: The dataset a run publishes, in the order it is written.
OUTPUT_FILES = (TEST_FILE, WEIGHT_FILE, WEIGHT_C_FILE, WORDS_FILE, MARKS_FILE,
                TRAIN_WORDS_FILE, MANIFEST_FILE)
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
               | set(GOLD_CHECK_FILES))

log = logging.getLogger("committee.run")


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
    def gold_check(self) -> Path:
        return self.root / GOLD_CHECK_FILE

    @property
    def gold_check_json(self) -> Path:
        return self.root / GOLD_CHECK_JSON

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


# --------------------------------------------------------------------------
# claim and resume


def check_output_dir(out: Path, fingerprint: str, restart: bool,
                     members: str | None = None) -> bool:
    """Refuse an ``out`` that cannot become a run of ``fingerprint``, reading
    only; return whether it holds a run of another config to discard
    (``restart``).  A run whose ``members`` fingerprint (the committee but
    its size) is the same is another size of the same committee: resized,
    not discarded.

    >>> check_output_dir(Path("no/such/dir"), "f", restart=False)
    False
    """
    if out.exists() and not out.is_dir():
        raise RunError(f"output.dir {out} exists and is not a directory")
    if out.is_dir() and any(p.name != runlock.LOCK_FILE for p in out.iterdir()):
        return _check_resumable(out, out / STATE_FILE, fingerprint, restart, members)
    return False


def claim_output_dir(out: Path, fingerprint: str, name: str, restart: bool,
                     members: str | None = None) -> None:
    """Make ``out`` ours: new, a run of the same fingerprint (resumed), or a
    run of the same committee at another size (``members``: its members are
    kept, the files made from them removed until the run writes them again).

    A directory holding a run of another config is refused unless
    ``restart``; one holding anything else is always refused.  The caller
    holds ``out``'s lock (:func:`committee.pipeline.lock.hold`).
    """
    if check_output_dir(out, fingerprint, restart, members):
        discard_run(out)
    state_path = out / STATE_FILE
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError.from_os_error(exc, out) from None
    _remove_leftovers(out)
    if not state_path.exists():
        try:
            _write_state(state_path, {"name": name, "fingerprint": fingerprint,
                                      "version": __version__}
                         | ({} if members is None else {"members": members}))
        except OutputError:
            if created:  # leave nothing behind when not even run.json can be written
                shutil.rmtree(out, ignore_errors=True)
            raise
    else:
        state = _read_state(state_path)
        stopped = state.pop(STOPPED_KEY, None) is not None  # it runs again: no longer stopped
        resized = state.get("fingerprint") != fingerprint
        if resized:  # the same committee at another size: its members stay
            discard_run(out, keep=RESIZE_KEEPS)
            state.update(name=name, fingerprint=fingerprint)
        if stopped or resized or (members is not None and state.get("members") != members):
            _write_state(state_path, state | ({} if members is None else {"members": members}))
    # leftovers of a killed run: temporary models, unless their worker still runs
    clear_dir(out / TMP_DIR)


def _check_resumable(out: Path, state_path: Path, fingerprint: str, restart: bool,
                     members: str | None = None) -> bool:
    """Refuse a non-empty ``out`` that is not a run of ``fingerprint``; return
    whether it is a run of another fingerprint, to discard (``restart``)."""
    names = [p.name for p in out.iterdir() if p.name != runlock.LOCK_FILE]
    foreign = sorted(n for n in names if n not in OWN_ENTRIES and not _is_leftover(n))
    if not state_path.exists() and all(_is_leftover(n) for n in names):
        return False  # a run killed while it wrote its first run.json: a new run
    if not state_path.exists() or foreign:
        shown = ", ".join(foreign[:3]) or f"(no {STATE_FILE})"
        raise RunError(f"output.dir {out} holds files that are not part of a committee "
                       f"run ({shown}); choose an empty or new output.dir")
    try:
        state = runfiles.read_json(state_path, "state", runfiles.RunState)
    except InputError as exc:
        raise RunError(f"{state_path}: unreadable run state ({exc.message.split('; ')[0]}); "
                       "use --restart to start over") from None
    if state.get("fingerprint") != fingerprint:
        if members is not None and state.get("members") == members:
            return False  # the same committee at another size
        if not restart:
            raise RunError(
                f"output.dir {out} holds a run of a different config or corpus "
                f"(run {state.get('name')!r}, fingerprint {str(state.get('fingerprint'))[:12]}, "
                f"now {fingerprint[:12]}{_recorded_recipe(out)}); pass --restart to discard "
                "it, or choose another output.dir")
        return True
    return False


def _recorded_recipe(out: Path) -> str:
    """``; its members: lbfgs c1 = 0.1, ... (crf.preset elastic)``: the recipe
    a finished run's manifest records, for the message of a changed config
    (a preset's values change between versions; docs/method.md §10), or ""."""
    try:
        crf = runfiles.read_json(out / MANIFEST_FILE, "manifest", runfiles.Manifest)["config"]["crf"]
        algorithm, params = crf["algorithm"], dict(crf["params"])
    except (InputError, ValueError, KeyError, TypeError):
        return ""
    from committee.learners import trainers

    name = crf.get("trainer", trainers.DEFAULT_TRAINER)
    presets = getattr(trainers.TRAINERS.get(name), "presets", {}) if isinstance(name, str) else {}
    shown = ", ".join(f"{k} = {v}" for k, v in params.items())
    named = [n for n, p in presets.items() if p["algorithm"] == algorithm and p["params"] == params]
    by = "" if name == trainers.DEFAULT_TRAINER else f"{name} "
    return (f"; its members: {by}{algorithm}{' ' + shown if shown else ''}"
            + (f" (crf.preset {named[0]})" if named else ""))


def _is_leftover(name: str) -> bool:
    """A temporary file of an atomic write (``.NAME.XXXX.tmp``) that a killed
    run left behind, for one of the run's own files.

    >>> _is_leftover(".marks.npz.a1b2.tmp"), _is_leftover(".notes.txt.a1b2.tmp")
    (True, False)
    """
    return name.endswith(".tmp") and any(name.startswith(f".{own}.") for own in OWN_ENTRIES)


def _remove_leftovers(out: Path) -> None:
    """Delete what atomic writes interrupted by a kill left behind (never a
    finished file: those are renamed into place whole; never the file of a
    process that still runs: :func:`committee.system.files.is_removable`)."""
    for d in (out, out / MEMBER_DIR):
        if not d.is_dir():
            continue
        for p in d.iterdir():
            if (p.name.startswith(".") and p.name.endswith(".tmp") and p.is_file()
                    and is_removable(p.name)):
                p.unlink()


#: What a run resized to another committee size keeps: its members and its
#: log (everything else was made from the members of the old size).
RESIZE_KEEPS = frozenset({STATE_FILE, MEMBER_DIR, LOG_FILE, MODELS_DIR})


def discard_run(out: Path, keep=frozenset()) -> None:
    """Remove a previous run's files (only the ones a run writes), but those
    named in ``keep``.  ``manifest.json`` goes first: a run without it is not
    final."""
    for name in sorted(OWN_ENTRIES - set(keep), key=lambda n: n != MANIFEST_FILE):
        p = out / name
        if name == TMP_DIR:  # a live worker's temporary model stays
            clear_dir(p)
        elif p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()


# --------------------------------------------------------------------------
# readers


def check_final(run_dir: str | os.PathLike, command: str = "committee score") -> None:
    """Raise :class:`RunError` unless ``run_dir``'s files are final, for a reader.

    Only a directory holding ``run.json`` or a lock file (a committee run's
    output directory) is checked.  It is final when ``manifest.json`` is
    present (a run writes it last, a discarded run loses it first) and no
    ``committee run`` holds it; ``committee report`` writes only its own
    files, so a run it holds stays final.  Nothing is added to the published
    files to mark them final.

    >>> check_final("no/such/dir")   # not a run directory: nothing to check
    """
    d = Path(run_dir)
    if not ((d / STATE_FILE).exists() or (d / runlock.LOCK_FILE).exists()):
        return
    h = runlock.holder(d)
    if h is not None and h.command != runlock.REPORT:
        raise runlock.in_use_error(d, h, command)
    if not os.path.lexists(d / MANIFEST_FILE):
        stopped = _read_state(d / STATE_FILE).get(STOPPED_KEY)
        if isinstance(stopped, str) and stopped:
            raise RunError(f"{d} holds a committee run that stopped on an error before it "
                           f"finished (no {MANIFEST_FILE}): {stopped}")
        raise RunError(f"{d} holds a committee run that is not finished (no {MANIFEST_FILE}: "
                       "it was interrupted); rerun the same committee run to finish it")


#: Key of ``run.json`` holding the error a run stopped on (absent: it did not
#: stop on an error; it finished, runs or was interrupted).
STOPPED_KEY = "stopped_on"


def _read_state(path: Path) -> dict:
    """``run.json`` as a dict; empty when it is missing or unreadable."""
    try:
        return runfiles.read_json(path, "state", dict)
    except InputError:
        return {}


def _write_state(path: Path, state: dict) -> None:
    atomic_write_text(path, json.dumps(state, indent=2) + "\n")


def record_stop(out: str | os.PathLike, message: str) -> None:
    """Note in ``run.json`` that the run in ``out`` stopped on an error, with
    its message (which says what to do), so that readers tell it from an
    interrupted run (:func:`check_final`).  Best effort: a run that cannot
    write (a full disk) is reported as interrupted."""
    path = Path(out) / STATE_FILE
    state = _read_state(path)
    if not state:
        return
    state[STOPPED_KEY] = message
    try:
        _write_state(path, state)
    except (OSError, OutputError):
        pass


# --------------------------------------------------------------------------
# run.log


class _RunLogHandler(logging.FileHandler):
    """``run.log``: a record that cannot be written (a full disk) is dropped
    quietly; the error that matters reaches the user through the run itself."""

    def handleError(self, record):
        pass


def open_log(out: Path) -> logging.Handler | None:
    """Send the ``committee.run`` log to ``out/run.log`` too; return the handler
    to give to :func:`close_log`, or None when it already goes there."""
    path = Path(out) / LOG_FILE
    if any(getattr(h, "baseFilename", None) == os.path.abspath(path) for h in log.handlers):
        return None
    try:
        handler = _RunLogHandler(path, encoding="utf-8")
    except OSError as exc:
        raise OutputError.from_os_error(exc, path) from None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    return handler


def close_log(handler: logging.Handler | None) -> None:
    """Undo :func:`open_log`."""
    if handler is not None:
        log.removeHandler(handler)
        handler.close()


# --------------------------------------------------------------------------
# manifest


def write_manifest(out: Path, manifest: dict, files: Sequence[str]) -> None:
    """Write ``manifest.json``: ``manifest`` with the sha256 of each of ``files``
    (names inside ``out``) under ``"files"``."""
    manifest = dict(manifest)
    manifest["files"] = {name: sha256_bytes((out / name).read_bytes()) for name in files}
    atomic_write_text(out / MANIFEST_FILE,
                      json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


def need(path: Path) -> Path:
    """``path``, or an :class:`InputError` saying a finished run's file is
    missing, or is no regular file (a FIFO, a device, a directory: never
    opened, :func:`committee.pipeline.runfiles.check_regular`)."""
    if not os.path.lexists(path):
        raise InputError(str(path), None, "no such file: is this the output.dir of a finished "
                                          "`committee run`?")
    runfiles.check_regular(path, REWRITE)
    return path


def read_manifest(run_dir: str | os.PathLike, command: str = "committee score") -> dict:
    """The manifest of the finished run in ``run_dir``; a run that is not
    final (:func:`check_final`) is refused for ``command``."""
    run_dir = Path(run_dir)
    runfiles.check_dir(run_dir)
    check_final(run_dir, command)
    path = need(run_dir / MANIFEST_FILE)
    manifest = runfiles.read_json(path, "manifest", runfiles.Manifest, REWRITE)
    runfiles.manifest_task(manifest, path)
    return manifest


def manifest_in(directory: str | os.PathLike) -> dict:
    """The ``manifest.json`` in ``directory`` as a record of checksums (the
    manifest of a run, or of anything that keeps its files' checksums
    there), without the checks of a finished run (:func:`read_manifest`);
    empty when there is none.  A damaged one is an :class:`InputError`."""
    path = Path(directory) / MANIFEST_FILE
    if not os.path.lexists(path):
        return {}
    return runfiles.read_json(path, "manifest", runfiles.Checksums, REWRITE)


# --------------------------------------------------------------------------
# verified before use

#: What to do about a run's file that is damaged or edited.
REWRITE = "rerun the same committee run to rewrite it (saved members are not trained again)"

#: The files each reader of a run reads, checked by :func:`verify`.
READ_BY = {
    runlock.REPORT: (TEST_FILE, WORDS_FILE, MARKS_FILE, PREDICTIONS_FILE, WEIGHT_FILE,
                     WEIGHT_C_FILE, TRAIN_WORDS_FILE),
    "committee irt": (TEST_FILE, WORDS_FILE, MARKS_FILE, WEIGHT_C_FILE),  # scoring.irt.COMMAND
    # scoring.goldcheck.COMMAND
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
        elif name in GOLD_CHECK_FILES:
            record, writer, fix = (GOLD_CHECK_JSON, "committee check-gold",
                                   f"rerun committee check-gold {root}")
        else:
            record, writer, fix = MANIFEST_FILE, runlock.RUN, REWRITE
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
    runlock.RUN: (OUTPUT_FILES + (STATE_FILE, LOG_FILE, PREDICTIONS_FILE, REPORT_FILE,
                                  REPORT_HTML_FILE, TABLE2_FILE),
                  (MEMBER_DIR, TMP_DIR, MODELS_DIR, REPORT_DIR)),
    runlock.REPORT: ((REPORT_FILE, REPORT_HTML_FILE, TABLE2_FILE), (REPORT_DIR,)),
    "committee irt": (IRT_FILES, ()),  # committee.scoring.irt.COMMAND
    "committee check-gold": (GOLD_CHECK_FILES, ()),  # committee.scoring.goldcheck.COMMAND
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
