"""Reading corpora and word lists: decode (:mod:`committee.corpus.decoding`),
refuse a file that looks like another format than the one given
(:mod:`committee.corpus.sniffing`), parse with the format's parser
(:mod:`committee.corpus.formats`) and normalise the words
(:mod:`committee.corpus.model`)."""

from __future__ import annotations

import os
import re
import warnings
from typing import Sequence

from committee.corpus.decoding import BAD_CHAR, check_encoding, read_text, spell, split_lines
from committee.corpus.formats import BY_NAME, FORMATS, LOOKS
from committee.corpus.model import NORMALIZATIONS, Corpus, content_sha256, normalize, normalize_words
from committee.corpus.sniffing import shapes, sniff_format
from committee.errors import FormatMismatchError, InputError, PlausibilityWarning
from committee.system.files import sha256_bytes
from committee.system.streams import input_label


# Whitespace around a word-list entry (not the control characters that
# str.strip would also take).
_EDGE_SPACE = re.compile("^[ \t\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+"
                         "|[ \t\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$")


def check_format(path: str, lines: Sequence[str], given: str, fix) -> None:
    """Refuse a file that looks like another known format than ``given``.

    A file where as many lines have the shape of ``given`` as of the other
    format is read, so that the parser names a malformed line itself.
    """
    found = sniff_format(lines)
    if found is None or found[0] in (given, BY_NAME[given].shape if given in BY_NAME else None):
        return
    detected, line = found
    counts = shapes(lines)[0]
    if counts.get(given, 0) >= counts.get(detected, 0):
        return
    misshapen = BY_NAME[given].misshapen if given in BY_NAME else None
    wrong = misshapen(lines[line - 1]) if misshapen is not None else None
    if wrong is not None:
        raise InputError(path, line, f"looks like {wrong[0]}, read as {given}: {wrong[1]}")
    raise FormatMismatchError(path, line, given, detected, LOOKS[detected], spell(fix))


def check_args(format: str, normalization: str | None) -> None:
    """Refuse an unknown format or normalisation name (:class:`ValueError`)."""
    if format not in FORMATS:
        raise ValueError(f"unknown corpus format {format!r}; valid: {', '.join(FORMATS)}")
    if normalization not in NORMALIZATIONS:
        raise ValueError(
            f"unknown normalization {normalization!r}; valid: {', '.join(map(repr, NORMALIZATIONS))}"
        )


def parse(path: str, text: str, data: bytes, format: str, encoding: str,
          normalization: str | None, fix=None) -> Corpus:
    """The corpus in ``text`` (decoded from ``data``), read as ``format``
    once the file is checked to look like it."""
    lines = split_lines(text)
    check_format(path, lines, format, fix)
    record = BY_NAME[format]
    words, starts, pos = record.parse(path, lines, normalization)
    tags = None
    if record.labelled:  # the third column holds the spans' tags, not POS
        pos, tags = None, pos
    return Corpus(
        path=path, words=words, lines=starts, pos=pos, sha256=sha256_bytes(data),
        encoding=encoding, normalization=normalization, format=format,
        content_sha256=content_sha256(words, tags), tags=tags,
    )


def read_corpus(path: str | os.PathLike, format: str = "sighan", encoding: str = "utf-8",
                normalization: str | None = None, fix=None, table=None) -> Corpus:
    """Read a segmented corpus.

    Parameters
    ----------
    path : str or path-like
        ``"-"`` reads standard input (named ``<stdin>`` in messages).
    format : {"sighan", "pku", "char-slash", "char-tsv", "conllu"}
        See :mod:`committee.corpus.formats`.
    encoding : str
        Any Python text encoding (documented: :data:`ENCODINGS`).
    normalization : {None, "nfkc", "fullwidth"}
        Applied to every word after splitting (see :func:`normalize`).
    fix : callable or str, optional
        How messages spell setting an option where the reader was called
        from: ``fix(key, value)`` for ``key`` ``"format"`` or
        ``"encoding"``, or a template such as ``"corpus.train.{key}:
        {value}"``.  Default ``--{key} {value}``.
    table : TableOptions, optional
        For a table format (``hf-dataset``, ``parquet``, ``jsonl``): its
        split and columns (:class:`committee.corpus.tables.TableOptions`;
        default: the defaults).  ``encoding`` does not apply to them.

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
    check_args(format, normalization)
    if BY_NAME[format].read is not None:  # a table, read whole (committee.corpus.tables)
        return BY_NAME[format].read(path, normalization, table)
    check_encoding(encoding)
    p = input_label(path)
    text, data = read_text(path, p, encoding, fix)
    return parse(p, text, data, format, encoding, normalization, fix)


def read_fixed(path: str | os.PathLike, format: str, reads: str) -> Corpus:
    """Read a corpus that a command takes in one format and in UTF-8 only,
    with no option to choose others (``committee report --system``): a file
    in another format or encoding is refused saying what the command reads
    (``reads``, such as ``"--system of a run of pos reads UTF-8 pku files
    (word/POS tokens)"``) rather than naming an option it does not have.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> _ = f.write_text("迈向 充满 希望\\n", encoding="utf-8")
    >>> read_fixed(f, "pku", "--system reads pku")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    committee.errors.InputError: .../out.txt:1: looks like sighan (several words a line, separated by spaces), read as pku: --system reads pku; give this output in that format
    """
    from committee.errors import DecodeError

    try:
        return read_corpus(path, format=format)
    except DecodeError as exc:
        found = f" (it decodes as {' or '.join(exc.candidates)})" if exc.candidates else ""
        raise InputError(exc.path, exc.line, f"cannot decode as {exc.encoding} at byte "
                         f"{exc.column} (0x{exc.bad.hex()}): {reads}; give this output in "
                         f"UTF-8{found}") from None
    except FormatMismatchError as exc:
        raise InputError(exc.path, exc.line, f"looks like {exc.evidence}, read as {exc.given}: "
                         f"{reads}; give this output in that format") from None


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
    text, _ = read_text(path, p, encoding, fix, controls=True)
    lines = split_lines(text)
    check_format(p, lines, "word-list", fix)
    out = set()
    odd, first = 0, None
    for k, s in enumerate(lines, 1):
        entry = _EDGE_SPACE.sub("", s)
        if not entry:
            continue
        if entry.split() != [entry] or BAD_CHAR.search(entry):
            odd += 1
            first = first or (k, entry)
            if normalization is not None:
                entry = _EDGE_SPACE.sub("", normalize(entry, normalization))
                if not entry:
                    continue
        elif normalization is not None:
            entry = normalize_words(p, k, [entry], normalization)[0]
        out.add(entry)
    if odd:
        warnings.warn(
            f"{p}: {odd} entr{'y holds' if odd == 1 else 'ies hold'} inner whitespace or a control "
            f"character, kept whole as one word each (first: line {first[0]}, {first[1]!r})",
            PlausibilityWarning, stacklevel=2,
        )
    return out
