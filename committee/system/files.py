"""Atomic file writing and checksums: no partial file is ever visible.

Temporary files carry the identity of the process that writes them
(:func:`owner_tag`): a process cleaning up leftovers removes only files
whose owner is itself or no longer runs (:func:`is_removable`,
:func:`clear_dir`), never a live process's files, such as those of a worker
still running after its run was killed.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
import shlex
import stat
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from committee.errors import OutputError
# the owners of temporary files, here too for their importers
from committee.system.owners import (clear_dir, is_dead, is_removable, machine,  # noqa: F401
                                     owner_tag, process_tag, read_proc_text, tag_in)


@contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8",
                newline: str | None = "\n", *, make_parents: bool = True) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success rename it over ``path``.

    The rename is atomic on POSIX, so readers see either the old file or the
    complete new one.  On error the temporary file is removed, and an
    :class:`OSError` (disk full, read-only file system, permission denied)
    becomes a :class:`committee.errors.OutputError` naming ``path``.

    The new file has the permissions a file replaced keeps
    (:func:`_keep_owner_and_mode`): those of the regular file at ``path``,
    with its owner and group where this process may keep them; a new path
    gets ``0o666`` less the umask, as any file the process creates.  While
    it is written, the temporary file of a replaced file is readable by its
    writer only.  Missing parent directories are made, unless
    ``make_parents`` is false (an :class:`OutputError` then).

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
        if make_parents:
            path.parent.mkdir(parents=True, exist_ok=True)
        old = _replaced(path)
        fd, tmp = _temporary(path, 0o600 if old is not None else 0o666)
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
        lost = None if old is None else _keep_owner_and_mode(tmp, old, path)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OutputError.from_os_error(exc, path) from None
        raise
    if lost is not None:
        warnings.warn(OwnerWarning(lost), stacklevel=3)


def new_file_mode() -> int:
    """The mode of a file this process creates: ``0o666`` less the umask,
    for a file made by another means than :func:`atomic_open` (a model a
    trainer writes, then renamed into place).

    >>> old = os.umask(0o027); new_file_mode() == 0o640; _ = os.umask(old)
    True
    """
    text = read_proc_text("/proc/self/status") or ""
    found = re.search(r"^Umask:\s*([0-7]+)$", text, re.MULTILINE)
    if found is None:  # no /proc: read by setting it (and back at once)
        umask = os.umask(0o022)
        os.umask(umask)
    else:
        umask = int(found[1], 8)
    return 0o666 & ~umask


class OwnerWarning(UserWarning):
    """A file replaced atomically could not keep its owner or group: only
    root gives a file to another user (:func:`atomic_open`)."""


def _replaced(path: Path) -> os.stat_result | None:
    """The status of the regular file that writing ``path`` replaces, or
    None (a new path; a link or another kind of file is replaced as a new
    path would be)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def _temporary(path: Path, mode: int) -> tuple[int, str]:
    """A new temporary file beside ``path``, open for writing, created with
    ``mode`` less the umask and named after its owner (:func:`owner_tag`):
    ``(descriptor, name)``."""
    prefix = os.path.join(path.parent, f".{path.name}.{owner_tag()}.")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = f"{prefix}{secrets.token_hex(3)}.tmp"
        try:
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:  # another writer drew the same name
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(path.parent))


def _keep_owner_and_mode(tmp: str, old: os.stat_result, path: Path) -> str | None:
    """Give ``tmp`` the owner, group and mode of ``old``, the file it is
    about to replace at ``path``; return a warning when the owner or group
    cannot be kept (only root gives a file away), else None.

    An owner not kept takes away the set-user-ID bit; a group not kept takes
    away the set-group-ID bit and the group's permissions beyond those of
    everyone else, which would otherwise go to another group than the one
    they were given to (0640 becomes 0600, 0644 stays).
    """
    now = os.stat(tmp)
    if (now.st_uid, now.st_gid) != (old.st_uid, old.st_gid):
        for uid in (old.st_uid, -1):  # the group alone: one the user belongs to
            try:
                os.chown(tmp, uid, old.st_gid)
                break
            except OSError:  # EPERM; EINVAL where the id has no mapping
                continue
        now = os.stat(tmp)
    was = mode = stat.S_IMODE(old.st_mode)
    why = []
    if now.st_uid != old.st_uid and mode & stat.S_ISUID:
        mode &= ~stat.S_ISUID
        why.append("no set-user-ID bit for a new owner")
    if now.st_gid != old.st_gid:
        group = mode & 0o070 & ((mode & 0o007) << 3)  # no more than everyone else's
        if mode & stat.S_ISGID:
            why.append("no set-group-ID bit for a new group")
        if group != mode & 0o070:
            why.append("the new group gets no more than others")
        mode = (mode & ~(stat.S_ISGID | 0o070)) | group
    os.chmod(tmp, mode)
    if (now.st_uid, now.st_gid) == (old.st_uid, old.st_gid):
        return None
    kept = f"its mode {mode:04o} kept" if mode == was else (
        f"its mode {was:04o} kept as {mode:04o} ({', '.join(why)})")
    return (f"{path}: replaced by a file owned by {_owner(now)}, not {_owner(old)} as before "
            f"(only root can give a file to another user); {kept}")


def _owner(st: os.stat_result) -> str:
    """``user:group`` of a file, by name where the system knows them."""
    import grp
    import pwd

    def name(get, number: int) -> str:
        try:
            return get(number)[0]
        except KeyError:
            return str(number)
    return f"{name(pwd.getpwuid, st.st_uid)}:{name(grp.getgrgid, st.st_gid)}"


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (newlines written as given)."""
    with atomic_open(path, "w", encoding=encoding, newline="") as f:
        f.write(text)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_open(path, "wb", encoding=None, newline=None) as f:
        f.write(data)


# --------------------------------------------------------------------------
# an output file the user names

# Where /dev/stdout, /dev/stderr and /dev/fd/N lead: an open file descriptor.
_DESCRIPTOR = re.compile(r"/proc/(?:self|thread-self|\d+)(?:/task/\d+)?/fd/\d+")


def through_descriptor(path: str | os.PathLike) -> bool:
    """Whether ``path``, its links followed one by one (at most 40, as the
    kernel), leads to an open file descriptor (``/dev/stdout``, ``/dev/fd/3``).

    >>> through_descriptor("/dev/stdout"), through_descriptor("/dev/fd/2"), through_descriptor("a")
    (True, True, False)
    """
    p = os.path.abspath(path)
    for _ in range(40):
        head, tail = os.path.split(p)
        p = os.path.join(os.path.realpath(head), tail)
        if _DESCRIPTOR.fullmatch(p):
            return True
        try:
            p = os.path.join(os.path.dirname(p), os.readlink(p))  # an absolute target stands alone
        except OSError:  # not a link (or not there): the path ends here
            return False
    return False


def output_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be an output file (``committee segment -o``), as
    ``what is wrong; what to do``, or None.  Refused: an empty path; a
    directory (a link to one counts) or a path ending in ``/``; a socket,
    which no file can be opened onto; a symbolic link loop; a name too long;
    a new file (or a dangling link's target) whose directory does not exist,
    which is never made.  What only writing can tell (no permission, a full
    disk, a closed descriptor) is left to the write.

    >>> output_problem("."), output_problem("new/"), output_problem("out.txt")
    ('is a directory; name a file', "ends in '/', so it names a directory; name a file", None)
    >>> output_problem("")
    "is an empty path; name a file, or '-' for standard output"
    >>> output_problem("/nowhere/at/all.txt")
    'its directory /nowhere/at does not exist; create it first (mkdir -p /nowhere/at) or name a file in an existing directory'
    """
    name = os.fspath(path)
    if not name:
        return "is an empty path; name a file, or '-' for standard output"
    if os.path.isdir(name):
        return "is a directory; name a file"
    if name.endswith(("/", os.sep)):
        return "ends in '/', so it names a directory; name a file"
    try:
        st = os.stat(name)  # links followed
    except (FileNotFoundError, NotADirectoryError):  # a new file or a dangling link
        return None if through_descriptor(name) else _directory_problem(name)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symbolic link loop: following it never reaches a file; name a file"
        if exc.errno == errno.ENAMETOOLONG:
            return "File name too long; name a file with a shorter name"
        return None  # no permission: named when writing
    if stat.S_ISSOCK(st.st_mode):
        return ("is a socket, which cannot be written as a file; name a file, a FIFO or a "
                "device, or '-' for standard output")
    return None


def _directory_problem(name: str) -> str | None:
    """Why the new file ``name`` (or the target of the dangling link
    ``name``) cannot be made in its directory, or None."""
    link = os.path.islink(name)
    target = os.path.realpath(name) if link else name
    parent = os.path.dirname(target) or "."
    elsewhere = "name a file in an existing directory"
    try:
        if stat.S_ISDIR(os.stat(parent).st_mode):
            return None
        missing = "is not a directory"
    except FileNotFoundError:
        missing = "does not exist"
        elsewhere = f"create it first (mkdir -p {shlex.quote(parent)}) or {elsewhere}"
    except NotADirectoryError:
        missing = "does not exist (a part of its path is a file)"
    except OSError:  # no permission: named when writing
        return None
    whose = f"leads to {target}, whose directory" if link else "its directory"
    return f"{whose} {parent} {missing}; {elsewhere}"


def _output_error(exc: OSError, name: str) -> OutputError:
    """The :class:`OutputError` of ``exc`` on the output file ``name``."""
    e = OutputError.from_os_error(exc, name)
    return OutputError(name, e.reason, e.hint.replace("output directory", "output file"))


@contextmanager
def open_output(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8",
                newline: str | None = "\n") -> Iterator[IO]:
    """Open the output file a user named (``committee segment -o``), to be
    written where the user expects, never as a partial regular file:

    * a regular file or a new path is replaced atomically (:func:`atomic_open`):
      a file replaced keeps its mode, and its owner and group where this
      process may keep them; a new file gets ``0o666`` less the umask;
    * a symbolic link is followed: its target is replaced, the link stays;
    * a device or FIFO, or a path that leads to an open file descriptor
      (:func:`through_descriptor`), is written in place, never replaced
      (``/dev/null`` stays a device, a FIFO's reader gets the bytes);
    * what :func:`output_problem` names is refused: a directory, a socket,
      an empty path, a missing directory (never made), a link loop.

    An :class:`OSError` is an :class:`~committee.errors.OutputError` naming
    ``path``; a reader that went away stays a :class:`BrokenPipeError`.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "link.txt").symlink_to(d / "real.txt")
    >>> with open_output(d / "link.txt") as f:
    ...     _ = f.write("好\\n")
    >>> (d / "link.txt").is_symlink(), (d / "real.txt").read_text(encoding="utf-8")
    (True, '好\\n')
    >>> with open_output("/dev/full") as f:
    ...     _ = f.write("好\\n")
    Traceback (most recent call last):
    ...
    committee.errors.OutputError: /dev/full: cannot write: No space left on device; free some space or choose another output file
    """
    name = os.fspath(path)
    problem = output_problem(name)
    if problem is not None:
        raise OutputError(name, *problem.split("; ", 1))
    descriptor = through_descriptor(name)
    try:
        regular = stat.S_ISREG(os.stat(name).st_mode)  # links followed
    except FileNotFoundError:  # a new file, a dangling link, or a closed descriptor
        regular = not descriptor
    except OSError as exc:  # a link loop, a path through a file, no permission
        raise _output_error(exc, name) from None
    if regular and not descriptor:
        target = os.path.realpath(name) if os.path.islink(name) else name
        try:
            with atomic_open(target, mode, encoding=encoding, newline=newline,
                             make_parents=False) as f:
                yield f
        except OutputError as exc:
            if exc.path != str(Path(target)):  # not about the output
                raise
            raise OutputError(name, exc.reason,
                              exc.hint.replace("output directory", "output file")) from None
        return
    try:
        f = open(name, mode, **({} if "b" in mode else {"encoding": encoding, "newline": newline}))
    except OSError as exc:
        if descriptor and isinstance(exc, FileNotFoundError):  # /dev/stdout, stdout closed
            raise OutputError(name, "the file descriptor it leads to is closed",
                              "redirect it (> FILE) or choose another output file") from None
        raise _output_error(exc, name) from None
    try:
        yield f
        f.close()  # flushes: a full device fails here
    except BrokenPipeError:  # the reader went away: as for standard output
        raise
    except OSError as exc:
        raise _output_error(exc, name) from None
    finally:
        try:
            f.close()
        except OSError:  # named above, or the body's own error goes on
            pass


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


def read_npz(path: str | os.PathLike, names, fix: str = "give an .npz file that committee "
             "wrote") -> dict:
    """The arrays ``names`` of an ``.npz`` file (no pickled objects).

    A file that is not a readable ``.npz`` (truncated, damaged, not a zip
    file) or lacks one of ``names`` is an :class:`~committee.errors.InputError`
    naming it, ending with ``fix``; the file is closed whatever happens.

    >>> import tempfile, pathlib, numpy as np
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "m.npz"
    >>> write_npz(f, marks=np.eye(2, dtype=bool))
    >>> read_npz(f, ["marks"])["marks"].tolist()
    [[True, False], [False, True]]
    >>> _ = f.write_bytes(f.read_bytes()[:100])
    >>> read_npz(f, ["marks"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    committee.errors.InputError: .../m.npz: not a readable .npz file (File is not a zip file): truncated or damaged? give an .npz file that committee wrote
    """
    import zipfile
    import zlib

    import numpy as np

    from committee.errors import InputError

    p = os.fspath(path)
    try:
        with open(p, "rb") as fh, np.load(fh, allow_pickle=False) as f:
            if not isinstance(f, np.lib.npyio.NpzFile):
                raise ValueError("not a zip archive of arrays")
            missing = [n for n in names if n not in f.files]
            if missing:
                raise InputError(p, None, f"holds no array {missing[0]!r} (has: "
                                 f"{', '.join(f.files) or 'nothing'}); {fix}")
            return {n: f[n] for n in names}
    except FileNotFoundError:
        raise InputError(p, None, "no such file") from None
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(p, None, f"not a readable .npz file ({reason}): truncated or "
                         f"damaged? {fix}") from None


# --------------------------------------------------------------------------
# inputs and outputs apart


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> str | None:
    """Whether paths ``a`` and ``b`` name the same file, and how: ``"the same
    path"``, ``"a symbolic link"`` (their real paths agree), ``"a hard link"``
    (the same device and inode); None when they are different files (or
    either is standard input, ``"-"``).

    >>> same_file("a.txt", "./a.txt"), same_file("a.txt", "b.txt"), same_file("-", "-")
    ('the same path', None, None)
    """
    if os.fspath(a) == "-" or os.fspath(b) == "-":
        return None
    if os.path.abspath(a) == os.path.abspath(b):
        return "the same path"
    if os.path.realpath(a) == os.path.realpath(b):
        return "a symbolic link"
    try:
        if os.path.samefile(a, b):
            return "a hard link"
    except OSError:  # one of them does not exist (yet)
        pass
    return None


def refuse_overwrite(where: str | os.PathLike, where_is: str, other: str | os.PathLike,
                     other_is: str, command: str, fix: str) -> None:
    """Raise an :class:`~committee.errors.InputError` naming ``where`` when it
    is the same file as ``other`` (:func:`same_file`): an input that
    ``command`` would overwrite with an output.  ``where_is`` and
    ``other_is`` say what each is (``"the output (-o)"``, ``"the input TEST"``).

    A device, FIFO or socket (``/dev/stdin`` and ``/dev/stdout`` on one
    terminal) is read or written as a stream, never overwritten, so it is
    never refused.

    >>> refuse_overwrite("g.txt", "the output (-o)", "g.txt", "the input TEST",
    ...                  "committee segment", "choose another output file")
    Traceback (most recent call last):
    ...
    committee.errors.InputError: g.txt: the output (-o) is the input TEST: committee segment would overwrite its own input; choose another output file
    >>> refuse_overwrite("/dev/null", "the output (-o)", "/dev/null", "the input TEST",
    ...                  "committee segment", "choose another output file")
    """
    from committee.errors import InputError

    for path in (where, other):
        try:
            mode = os.stat(path).st_mode
        except (OSError, ValueError):  # not there (yet)
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return
    how = same_file(where, other)
    if how is None:
        return
    what = other_is if how == "the same path" else f"{other_is} {os.fspath(other)} ({how})"
    raise InputError(os.fspath(where), None,
                     f"{where_is} is {what}: {command} would overwrite its own input; {fix}")
