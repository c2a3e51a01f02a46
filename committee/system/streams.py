"""Reading a user's inputs block by block: binary data, an endless stream or
a line without end refused at once, with the file (and line) named.

Inputs are paths or ``"-"`` (standard input, :data:`STDIN` in messages);
:func:`read_blocks` yields their bytes, :class:`TextReader` decodes and
checks them as they come, :func:`read_text` and :func:`read_input` return
the whole input.
"""

from __future__ import annotations

import os
from contextlib import closing
from typing import Iterator

#: Bytes read from an input at a time: binary data (a NUL byte, bytes that do
#: not decode) is refused within the first block it appears in.
BLOCK_SIZE = 1 << 18
#: The longest line an input may hold, in characters.  The longest sentence
#: of the corpora in docs/corpora.md has a few thousand; a line without end
#: (a stream with no line break) is refused once it passes this.  Must be at
#: least the characters of one block (so that only a line running across
#: blocks can pass it).
MAX_LINE_CHARS = 1_000_000
#: The most bytes read from one input (an endless stream of lines is refused
#: here); the embedded corpus has 10 MB.
MAX_INPUT_BYTES = 1 << 30
#: How standard input (the path ``"-"``) and output are named in messages.
STDIN = "<stdin>"
STDOUT = "<stdout>"


def input_label(path: str | os.PathLike) -> str:
    """How an input is named in messages: its path, :data:`STDIN` for ``"-"``.

    >>> input_label("-"), input_label("gold.txt")
    ('<stdin>', 'gold.txt')
    """
    p = os.fspath(path)
    return STDIN if p == "-" else p


def _open_input(path: str | os.PathLike):
    """``(read, close)`` of an input: ``read(n)`` returns what one read gives
    (up to ``n`` bytes, ``b""`` at the end)."""
    from committee.errors import InputError

    p = os.fspath(path)
    if p == "-":
        import sys

        if sys.stdin is None:  # the process started with standard input closed
            raise InputError(STDIN, None, "standard input is closed; pipe the file in "
                             "(< FILE) or give its path in place of '-'")
        return sys.stdin.buffer.read1, lambda: None
    try:
        f = open(p, "rb", buffering=0)
    except OSError as e:
        raise InputError(p, None, open_problem(p, e)) from None
    return f.read, f.close


def open_problem(path: str | os.PathLike, exc: OSError) -> str:
    """Why ``path`` could not be opened for reading (``exc``), in the words
    every reader of a file uses: a missing file, a link that leads nowhere
    (a loop, or to a missing file), a directory, no permission.

    >>> open_problem("/no/such/file", FileNotFoundError(2, "No such file or directory"))
    'no such file'
    """
    import errno

    if exc.errno == errno.ELOOP:
        return "is a symbolic link loop: following it never reaches a file"
    if exc.errno == errno.ENOENT:
        if os.path.islink(path):
            return f"is a symbolic link to {os.readlink(path)}, which does not exist"
        return "no such file"
    if exc.errno == errno.EISDIR:
        return "is a directory, expected a file"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied (cannot read the file)"
    return f"cannot read the file: {exc.strerror or exc}"


def read_blocks(path: str | os.PathLike) -> Iterator[bytes]:
    """The bytes of an input, block by block (at most :data:`BLOCK_SIZE`
    each), so that a reader can refuse binary or endless input early.
    ``"-"`` is standard input.  A file that cannot be opened or read, or
    that passes :data:`MAX_INPUT_BYTES`, is an
    :class:`~committee.errors.InputError` naming it.

    >>> next(read_blocks("/no/such/file"))
    Traceback (most recent call last):
    ...
    committee.errors.InputError: /no/such/file: no such file
    """
    from committee.errors import InputError

    label = input_label(path)
    read, close = _open_input(path)
    total = 0
    try:
        while True:
            try:
                block = read(BLOCK_SIZE)
            except OSError as e:
                raise InputError(label, None, f"cannot read the file: {e.strerror or e}") from None
            if not block:
                return
            total += len(block)
            if total > MAX_INPUT_BYTES:
                limit = _size(MAX_INPUT_BYTES)
                raise InputError(label, None, f"more than {limit} of input (an endless "
                                 f"stream?); inputs are read whole, up to {limit} each: give a "
                                 "smaller file")
            yield block
    finally:
        close()


def _size(n: int) -> str:
    """``n`` bytes in binary units.

    >>> _size(1 << 30), _size(1 << 18), _size(1000)
    ('1 GiB', '256 KiB', '1000 bytes')
    """
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def read_input(path: str | os.PathLike) -> bytes:
    """The bytes of an input file (:func:`read_blocks`); a file that cannot
    be read is an :class:`~committee.errors.InputError` naming it and saying
    why.  ``"-"`` is standard input.

    >>> read_input("/no/such/file")
    Traceback (most recent call last):
    ...
    committee.errors.InputError: /no/such/file: no such file
    """
    return b"".join(read_blocks(path))


class TextReader:
    """Decodes an input block by block and knows where each piece of text
    starts, so that a reader can check every piece as it arrives and name
    the line and column of what it refuses.

    ``feed(block)`` returns the text of ``block`` (a leading byte-order mark
    dropped; a trailing ``\\r`` held back until the next block shows whether
    ``\\n`` follows); :meth:`where` gives the line and column of a position
    in it; :meth:`accept` records it, refusing a line longer than
    :data:`MAX_LINE_CHARS`.  Decoding errors propagate as
    :class:`UnicodeDecodeError`; :meth:`data` holds the bytes read so far.

    >>> r = TextReader("x.txt", "utf-8")
    >>> piece = r.feed("\\ufeff一 二\\n三".encode())
    >>> piece, r.where(piece, 4)
    ('一 二\\n三', (2, 1))
    >>> r.accept(piece); r.where(r.feed(b"", final=True), 0)
    (2, 2)
    """

    def __init__(self, label: str, encoding: str):
        import codecs

        self.label = label
        self.blocks: list[bytes] = []
        self.parts: list[str] = []
        self.line, self.col = 1, 0  # where the next piece starts (col: characters before it)
        self._decoder = codecs.getincrementaldecoder(encoding)("strict")
        self._carry = ""
        self._started = False

    def feed(self, block: bytes, final: bool = False) -> str:
        self.blocks.append(block)
        text = self._carry + self._decoder.decode(block, final)
        self._carry = ""
        if not self._started and text:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        if not final and text.endswith("\r"):
            text, self._carry = text[:-1], "\r"
        return text

    @property
    def pending(self) -> str:
        """The ``\\r`` held back from the last piece (``""`` if none): search a
        piece followed by it, so that what follows the piece's last character
        is known."""
        return self._carry

    def where(self, piece: str, i: int) -> tuple[int, int]:
        """1-based line and column of ``piece[i]``."""
        nl = piece.count("\n", 0, i)
        if not nl:
            return self.line, self.col + i + 1
        return self.line + nl, i - piece.rfind("\n", 0, i)

    def accept(self, piece: str) -> None:
        """Add ``piece`` to the text; refuse a line that grows past
        :data:`MAX_LINE_CHARS`."""
        from committee.errors import InputError

        first = piece.find("\n")
        running = self.col + (len(piece) if first < 0 else first)
        if running > MAX_LINE_CHARS:
            raise InputError(self.label, self.line, f"line longer than {MAX_LINE_CHARS:,} "
                             "characters without a line end (an endless stream, or not a "
                             "text file?); give a file with one sentence a line")
        if first < 0:
            self.col += len(piece)
        else:
            self.line += piece.count("\n")
            self.col = len(piece) - piece.rfind("\n") - 1
        self.parts.append(piece)

    def text(self) -> str:
        """The text accepted so far (its pieces joined once, then kept whole)."""
        self.parts = ["".join(self.parts)]
        return self.parts[0]

    def data(self) -> bytes:
        """The bytes read so far (joined once, then kept whole)."""
        self.blocks = [b"".join(self.blocks)]
        return self.blocks[0]


def read_text(path: str | os.PathLike, encoding: str = "utf-8") -> str:
    """The text of a small input (a difficulty file, human judgements), read
    with :class:`TextReader`: bytes that do not decode and a NUL character
    are refused in the block they arrive in, naming the line.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "w.txt"
    >>> _ = f.write_bytes(b"0.5\\n0.25 \\x80\\n")
    >>> read_text(f)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    committee.errors.InputError: .../w.txt:2: is not valid UTF-8 (byte 0x80)
    """
    from committee.errors import InputError

    label = input_label(path)
    reader = TextReader(label, encoding)
    try:
        with closing(read_blocks(path)) as blocks:  # closed as soon as a block is refused
            for block in blocks:
                _check_text(reader, reader.feed(block))
        _check_text(reader, reader.feed(b"", final=True))
    except UnicodeDecodeError:
        data = reader.data()
        try:
            data.decode(encoding)
        except UnicodeDecodeError as e:
            name = "UTF-8" if encoding.replace("_", "-").lower() in ("utf-8", "utf8") else encoding
            raise InputError(label, data[:e.start].count(b"\n") + 1,
                             f"is not valid {name} (byte {data[e.start]:#04x})") from None
        raise
    return reader.text()


def _check_text(reader: TextReader, piece: str) -> None:
    from committee.errors import InputError

    i = piece.find("\x00")
    if i >= 0:
        line, col = reader.where(piece, i)
        raise InputError(reader.label, line, f"binary data? control character U+0000 at column {col}")
    reader.accept(piece)


