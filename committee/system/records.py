"""Small files read whole, as committee reads its records: a regular file
only (a FIFO, a device, a socket or a directory is refused before it is
opened), no more than a bound, decoded as strict JSON (UTF-8, no ``NaN``
or ``Infinity``); every problem an :class:`~committee.errors.InputError`
naming the file.  The run reader (:mod:`committee.pipeline.runfiles`) reads
a run's files through these, and so do the corpus formats that keep JSON
records (:mod:`committee.corpus.tables`)."""

from __future__ import annotations

import json
import os
import stat
from typing import Any

from committee.errors import InputError

#: What to do about a damaged or forged file, by default.
DEFAULT_FIX = "rerun the command that wrote it"


def size_text(n: int) -> str:
    """``n`` bytes, as people read them.

    >>> size_text(16 << 20), size_text(1536), size_text(12)
    ('16 MiB', '1.5 KiB', '12 bytes')
    """
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.3g} {unit}"
    return f"{n} bytes"


_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a directory"))


def not_regular(mode: int) -> str | None:
    """What a file of ``mode`` is when it is no regular file, else None.

    >>> not_regular(stat.S_IFIFO | 0o644), not_regular(stat.S_IFREG | 0o644)
    ('a FIFO (named pipe)', None)
    """
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def check_regular(path: str | os.PathLike, fix: str = DEFAULT_FIX) -> os.stat_result:
    """The status of ``path`` (links followed), refusing anything but an
    existing regular file in one line: a missing file, a link to nowhere,
    a FIFO, a device, a socket, a directory.  Nothing is opened.

    >>> check_regular("/dev/null")
    Traceback (most recent call last):
    ...
    committee.errors.InputError: /dev/null: is a character device, not a regular file (not opened); rerun the command that wrote it
    """
    p = os.fspath(path)
    try:
        st = os.stat(p)
    except OSError as exc:
        from committee.system.streams import open_problem

        raise InputError(p, None, open_problem(p, exc)) from None
    what = not_regular(st.st_mode)
    if what is not None:
        raise InputError(p, None, f"is {what}, not a regular file (not opened); {fix}")
    return st


def read_bytes(path: str | os.PathLike, limit: int, fix: str = DEFAULT_FIX) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them: a
    larger file is refused before it is read (:func:`check_regular` for
    what is not a regular file)."""
    p = os.fspath(path)
    check_regular(p, fix)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        from committee.system.streams import open_problem

        raise InputError(p, None, open_problem(p, exc)) from None
    try:
        st = os.fstat(fd)  # the file opened, not the one looked at before
        what = not_regular(st.st_mode)
        if what is not None:
            raise InputError(p, None, f"is {what}, not a regular file (not opened); {fix}")
        if st.st_size > limit:
            raise InputError(p, None, f"holds {size_text(st.st_size)}, more than a file of its "
                                      f"kind can plausibly hold ({size_text(limit)}): not read; {fix}")
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            data = f.read(limit + 1)
    except OSError as exc:
        raise InputError(p, None, f"cannot read the file: {exc.strerror or exc}") from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > limit:  # it grew while read
        raise InputError(p, None, f"holds more than {size_text(limit)}: not read; {fix}")
    return data


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_json(data: bytes, label: str, fix: str = DEFAULT_FIX, line: int | None = None) -> Any:
    """``data`` as strict JSON (UTF-8; ``NaN``/``Infinity`` refused); a
    problem is an :class:`InputError` naming ``label`` (and ``line``, for one
    record of a file of JSON lines)."""
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise InputError(label, line, f"is not valid UTF-8 (byte {data[exc.start]:#04x} at "
                                      f"offset {exc.start}); {fix}") from None
    except (ValueError, RecursionError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(label, line, f"not valid JSON ({reason}); {fix}") from None
