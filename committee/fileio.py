"""Atomic file writing and checksums: no partial file is ever visible."""

from __future__ import annotations

import hashlib
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from committee.errors import OutputError


@contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8",
                newline: str | None = "\n") -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success rename it over ``path``.

    The rename is atomic on POSIX, so readers see either the old file or the
    complete new one.  On error the temporary file is removed, and an
    :class:`OSError` (disk full, read-only file system, permission denied)
    becomes a :class:`committee.errors.OutputError` naming ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_open(d / "x.txt") as f:
    ...     _ = f.write("好\\n")
    >>> (d / "x.txt").read_text(encoding="utf-8")
    '好\\n'
    """
    path = Path(path)
    binary = "b" in mode
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise OutputError.from_os_error(exc, path) from None
    try:
        if binary:
            f = os.fdopen(fd, mode)
        else:
            f = os.fdopen(fd, mode, encoding=encoding, newline=newline)
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OutputError.from_os_error(exc, path) from None
        raise


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (newlines written as given)."""
    with atomic_open(path, "w", encoding=encoding, newline="") as f:
        f.write(text)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_open(path, "wb", encoding=None, newline=None) as f:
        f.write(data)


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``.

    >>> sha256_bytes(b"")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_npz(path: str | os.PathLike, **arrays) -> None:
    """Write arrays to an ``.npz`` file byte-for-byte reproducibly, atomically.

    ``numpy.savez`` stamps each member with the current time, so two saves of
    the same arrays differ; here every entry carries a fixed timestamp and the
    entries are written in the order given.  ``numpy.load`` reads the result.

    >>> import numpy as np, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> write_npz(d / "a.npz", marks=np.eye(2, dtype=bool))
    >>> write_npz(d / "b.npz", marks=np.eye(2, dtype=bool))
    >>> (d / "a.npz").read_bytes() == (d / "b.npz").read_bytes()
    True
    >>> np.load(d / "a.npz")["marks"].tolist()
    [[True, False], [False, True]]
    """
    import io
    import zipfile

    import numpy as np

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, value in arrays.items():
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asanyarray(value), allow_pickle=False)
            zf.writestr(info, member.getvalue())
    atomic_write_bytes(path, buf.getvalue())


def read_input(path: str | os.PathLike) -> bytes:
    """The bytes of an input file; a file that cannot be read is an
    :class:`~committee.errors.InputError` naming it and saying why.
    ``"-"`` is standard input.

    >>> read_input("/no/such/file")
    Traceback (most recent call last):
    ...
    committee.errors.InputError: /no/such/file: no such file
    """
    from committee.errors import InputError

    p = os.fspath(path)
    if p == "-":
        import sys

        return sys.stdin.buffer.read()
    try:
        with open(p, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError(p, None, "no such file") from None
    except IsADirectoryError:
        raise InputError(p, None, "is a directory, expected a file") from None
    except PermissionError:
        raise InputError(p, None, "permission denied (cannot read the file)") from None
    except OSError as e:
        raise InputError(p, None, f"cannot read the file: {e.strerror or e}") from None

