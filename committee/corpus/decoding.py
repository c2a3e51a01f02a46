"""Bytes to text: a file read block by block, decoded as it arrives, and
refused in one line naming the file and the line at the first problem.

:func:`read_text` refuses bytes that do not decode (naming the encodings
that read as Chinese, :mod:`committee.corpus.encodings`), control
characters (``binary data?``), a carriage return inside a line (old Mac
line ends) and a line longer than :data:`committee.system.streams.MAX_LINE_CHARS`
characters in the block where they appear, so binary or endless input
(``/dev/zero``, a stream without line breaks) is refused at once.  It
tolerates a leading byte-order mark and CRLF line ends
(:func:`split_lines` splits on ``\\n`` only), and rejects missing,
unreadable, directory and empty files and standard input that is closed.
"""

from __future__ import annotations

import os
import re
import warnings
from contextlib import closing
from typing import Callable

from committee.corpus.encodings import (CHINESE_ENCODINGS, ENCODINGS, MOJIBAKE_MIN_COUNT,
                                        PLAUSIBLE_MAX_SHARE, is_unicode, rank_encodings,
                                        text_encoding, unusual_counts)
from committee.errors import caller_level, DecodeError, InputError, PlausibilityWarning
from committee.system.streams import TextReader, read_blocks


# C0 controls except TAB, LF, CR; DEL; C1 controls (U+0085 is one, and
# str.split would silently treat it as a separator); a CR not followed by LF
# or the end of the text.
BAD_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n|\\Z)")


# What a word list refuses: NUL (binary data) and a CR inside a line.
NUL_OR_CR = re.compile("\x00|\r(?!\n|\\Z)")


def check_encoding(encoding: str) -> str:
    """The codec name of ``encoding``, a text encoding (:func:`text_encoding`);
    a :class:`ValueError` naming it otherwise.

    >>> check_encoding("rot13")
    Traceback (most recent call last):
    ...
    ValueError: 'rot13' is not a text encoding (it encodes str to str); documented: utf-8, utf-8-sig, gb18030, cp936, gbk, big5, cp950, big5hkscs
    """
    try:
        return text_encoding(encoding)
    except TypeError:  # not a str
        problem = f"unknown encoding {encoding!r}"
    except (LookupError, ValueError) as exc:
        problem = str(exc)
    raise ValueError(f"{problem}; documented: {', '.join(ENCODINGS)}")


def spell(fix) -> Callable[[str, str], str]:
    """``fix`` as a function ``(key, value) -> text`` (see :func:`read_corpus`)."""
    if fix is None:
        return lambda key, value: f"--{key} {value}"
    if isinstance(fix, str):
        return lambda key, value: fix.format(key=key, value=value)
    return fix


def read_text(path: str | os.PathLike, label: str, encoding: str, fix=None,
              controls: bool = False) -> tuple[str, bytes]:
    """The text of ``path`` (without a BOM) and its bytes, read block by block
    (:class:`committee.system.streams.TextReader`): the first of bytes that do not
    decode, a control character and a line without end is refused in the
    block it arrives in, so binary or endless input never fills the memory.

    ``controls=True`` lets control characters other than NUL through (word
    lists keep them, with a warning).  A non-UTF encoding that decodes into
    implausible text draws a :class:`PlausibilityWarning` naming a better one.
    """
    codec = check_encoding(encoding)
    reader = TextReader(label, encoding)
    bad = NUL_OR_CR if controls else BAD_CHAR
    try:
        with closing(read_blocks(path)) as blocks:  # closed as soon as a block is refused
            for block in blocks:
                _check_piece(reader, reader.feed(block), bad, fix)
        _check_piece(reader, reader.feed(b"", final=True), bad, fix)
    except UnicodeDecodeError:
        raise _decode_error(label, reader.data(), encoding, codec, bad, fix) from None
    data = reader.data()
    if not data:
        raise InputError(label, None, "file is empty (0 bytes)")
    text = reader.text()
    if not text.strip():
        raise InputError(label, None, "file is empty (no non-blank line)")
    if not is_unicode(codec):
        _check_plausible(label, data, text, encoding, fix)
    return text, data


def _decode_error(path: str, data: bytes, encoding: str, codec: str, bad: re.Pattern,
                  fix) -> InputError:
    """The error for ``data`` (the bytes read so far), which does not decode:
    a control character before the undecodable bytes if there is one (the
    first problem of the file, whatever the blocks), else a :class:`DecodeError`."""
    try:
        data.decode(encoding)
        return InputError(path, None, f"cannot decode as {encoding}")  # not expected
    except UnicodeDecodeError as e:
        start, end = e.start, e.end
    try:
        before = data[:start].decode(encoding)
    except UnicodeDecodeError:  # a codec with state: cut inside a sequence
        before = ""
    before = before[1:] if before.startswith("\ufeff") else before
    m = bad.search(before)
    if m:
        i = m.start()
        col = i - (before.rfind("\n", 0, i) + 1) + 1
        return InputError(path, before.count("\n", 0, i) + 1,
                          _bad_char_message(before[i], col, data, fix))
    line = data[:start].count(b"\n") + 1
    col = start - (data.rfind(b"\n", 0, start) + 1) + 1
    candidates, note = _suggest(data, codec, line)
    return DecodeError(path, line, encoding, col, data[start:max(end, start + 1)][:4],
                       candidates, note, spell(fix))


def _bad_char_message(ch: str, col: int, data: bytes, fix) -> str:
    """What is wrong with control character or carriage return ``ch`` at ``col``."""
    if ch == "\r":
        return f"carriage return inside a line at column {col} (old Mac line ends?)"
    msg = f"binary data? control character U+{ord(ch):04X} at column {col}"
    if ch == "\x00" and data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        msg += ": try " + spell(fix)("encoding", "utf-16")
    return msg


def _check_piece(reader: TextReader, piece: str, bad: re.Pattern, fix) -> None:
    """Refuse a control character or a carriage return inside a line in
    ``piece``, the next piece of text; else add it to ``reader``."""
    m = bad.search(piece + reader.pending)  # a held-back "\r" is what follows the piece
    if m:
        line, col = reader.where(piece, m.start())
        raise InputError(reader.label, line,
                         _bad_char_message(piece[m.start()], col, reader.data(), fix))
    reader.accept(piece)


def _check_plausible(path: str, data: bytes, text: str, encoding: str, fix) -> None:
    """Warn when ``text`` (``data`` decoded as ``encoding``) looks like mojibake."""
    unusual, total = unusual_counts(text)
    share = unusual / total if total else 0.0
    if share <= PLAUSIBLE_MAX_SHARE or unusual < MOJIBAKE_MIN_COUNT:
        return
    better = [d for d in rank_encodings(data, exclude=encoding) if d.plausible]
    if better:
        advice = f"it reads as Chinese text with {spell(fix)('encoding', better[0].encoding)}"
    else:
        advice = f"is {encoding} the file's encoding?"
    warnings.warn(
        f"{path}: decoded as {encoding}, {share:.0%} of its non-ASCII characters are rare, "
        f"private-use or not Chinese (mojibake?); {advice}",
        PlausibilityWarning, stacklevel=caller_level(),
    )


def _best(ranked: list) -> list[str]:
    """The encodings to name from :func:`committee.corpus.encodings.rank_encodings`:
    the best and those as plausible (within 0.5% unusual characters), at
    most three, only Chinese ones when the best is."""
    plausible = [d for d in ranked if d.plausible]
    if not plausible:
        return []
    best = plausible[0]
    close = [d.encoding for d in plausible if d.unusual <= best.unusual + 0.005]
    if best.encoding in CHINESE_ENCODINGS:
        close = [e for e in close if e in CHINESE_ENCODINGS]
    return close[:3]


def _suggest(data: bytes, codec: str, line: int) -> tuple[list[str], str]:
    """Encodings to suggest for ``data`` (best first), and a note.

    With no plausible decoding of the whole file, the part from ``line`` on
    is tried (a file that mixes encodings); with none either, the note
    lists the documented encodings.
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return ["utf-16"], "the file starts with a UTF-16 byte-order mark"
    ranked = rank_encodings(data, exclude=codec)
    good = _best(ranked)
    if good:
        bad = [d.encoding for d in ranked if not d.plausible and d.encoding in CHINESE_ENCODINGS]
        note = f"{' and '.join(bad)} also decode{'s' if len(bad) == 1 else ''} it, into unusual characters" if bad else ""
        return good, note
    if line > 1:
        start = len(b"\n".join(data.split(b"\n", line - 1)[:-1])) + 1
        part = _best(rank_encodings(data[start:], exclude=codec))
        if part:
            return part, f"from line {line} on; the lines before decode as {codec}: does the file mix encodings?"
    return [], ", ".join(ENCODINGS)


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only; drop one trailing ``\\r`` per line and the
    empty piece after a final ``\\n``."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [s[:-1] if s.endswith("\r") else s for s in lines]
    return lines
