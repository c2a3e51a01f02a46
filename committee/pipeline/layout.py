"""The run directory: its names and its rules.

The file names of a run directory and :func:`paths` are spelled in
:mod:`committee.pipeline.names`, the checks of a finished run's files in
:mod:`committee.pipeline.runchecks`; both are re-exported here, so
importers say ``layout.paths``, ``layout.verify``.  This module decides
whether a directory may be used for a run (:func:`claim_output_dir`: new,
or a run of the same config to resume; the caller holds its lock,
:mod:`committee.pipeline.lock`), whether a run's files are final for a
reader (:func:`check_final`), opens its ``run.log`` and writes and reads
its manifest.

>>> p = paths("runs/default")
>>> p.weight.name, p.test.name, p.train_words.name
('test.weight', 'test.txt', 'train-words.txt')
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path
from typing import Sequence

from committee import __version__
from committee.pipeline import lock as lock_mod
from committee.pipeline import runfiles
from committee.errors import InputError, OutputError, RunError
from committee.system.files import atomic_write_text, clear_dir, is_removable, sha256_bytes
from committee.pipeline.names import (  # noqa: F401  (re-exported)
    CHECK_GOLD_FILE, CHECK_GOLD_FILES, CHECK_GOLD_JSON, IRT_CHECK_FILE, IRT_FILES, IRT_FIT_FILE,
    IRT_ITEMS_FILE, IRT_NPZ_FILE, IRT_PYIRT_FILE, IRT_SUBSET_FILE, LOG_FILE, MANIFEST_FILE,
    MARKS_FILE, MEMBER_DIR, MODELS_DIR, OUTPUT_FILES, OWN_ENTRIES, PREDICTIONS_FILE,
    REPORT_DIR, REPORT_ENTRIES, REPORT_FILE, REPORT_HTML_FILE, RESIZE_KEEPS, STATE_FILE,
    TABLE2_FILE, TEST_FILE, TMP_DIR, TRAIN_WORDS_FILE, WEIGHT_C_FILE, WEIGHT_FILE, WORDS_FILE,
    RunPaths, is_run_dir, member_path, model_path, model_temp_prefix, paths)
from committee.pipeline.runchecks import (  # noqa: F401  (re-exported)
    READ_BY, REWRITE, WRITTEN_BY, check_inputs, check_task, need, run_task, verify,
    verify_files)

log = logging.getLogger("committee.run")


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
    if out.is_dir() and any(p.name != lock_mod.LOCK_FILE for p in out.iterdir()):
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
    names = [p.name for p in out.iterdir() if p.name != lock_mod.LOCK_FILE]
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
    if not ((d / STATE_FILE).exists() or (d / lock_mod.LOCK_FILE).exists()):
        return
    h = lock_mod.holder(d)
    if h is not None and h.command != lock_mod.REPORT:
        raise lock_mod.in_use_error(d, h, command)
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
