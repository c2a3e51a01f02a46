"""Writing a segmentation (SIGHAN text, one sentence a line), tokens with
their entity tags (``bio``) and words with their part-of-speech tags
(``pku``)."""

from __future__ import annotations

import os
from typing import Iterable, Sequence

from committee.corpus.decoding import check_encoding
from committee.system.files import atomic_open


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
    check_encoding(encoding)
    with atomic_open(path, "w", encoding=encoding, newline="\n") as f:
        f.write(text)


def format_bio(words: Iterable[Sequence[str]], tags: Iterable[Sequence[str]]) -> str:
    """``bio`` text: a token, a tab and its tag a line, a blank line after
    every sentence.

    Raises :class:`ValueError` for a sentence without tokens (``bio`` has
    no way to write one: blank lines only separate sentences), a token
    that is empty or holds whitespace, or tokens and tags of different
    lengths.

    >>> format_bio([["江", "泽民", "好"]], [["B-PER", "I-PER", "O"]])
    '江\\tB-PER\\n泽民\\tI-PER\\n好\\tO\\n\\n'
    """
    out = []
    for i, (ws, ts) in enumerate(zip(words, tags)):
        if not ws:
            raise ValueError(f"sentence {i + 1} has no tokens: bio cannot write it")
        if len(ws) != len(ts):
            raise ValueError(f"sentence {i + 1}: {len(ws)} tokens but {len(ts)} tags")
        for w, t in zip(ws, ts):
            if not w or w.split() != [w]:
                raise ValueError(f"sentence {i + 1}: token {w!r} is empty or contains whitespace")
            out.append(f"{w}\t{t}\n")
        out.append("\n")
    return "".join(out)


def write_bio(path: str | os.PathLike, words: Iterable[Sequence[str]],
              tags: Iterable[Sequence[str]]) -> None:
    """Write tokens and their entity tags as ``bio`` UTF-8, atomically
    (:func:`format_bio`)."""
    text = format_bio(words, tags)
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def format_pku(words: Iterable[Sequence[str]], tags: Iterable[Sequence[str]]) -> str:
    """``pku`` text: ``word/TAG`` tokens joined by two spaces, as People's
    Daily writes them, ``\\n`` after every sentence.

    Raises :class:`ValueError` for a word or tag that could not be read
    back as the same (empty, holding whitespace, a tag holding ``/``, a
    word with ``[`` or ``]``, which open and close compounds), or words and
    tags of different lengths.

    >>> format_pku([["迈向", "新"], [], ["世纪"]], [["v", "a"], [], ["n"]])
    '迈向/v  新/a\\n\\n世纪/n\\n'
    """
    out = []
    for i, (ws, ts) in enumerate(zip(words, tags)):
        if len(ws) != len(ts):
            raise ValueError(f"sentence {i + 1}: {len(ws)} words but {len(ts)} tags")
        for w, t in zip(ws, ts):
            if (not w or w.split() != [w] or "[" in w or "]" in w or not t
                    or t.split() != [t] or "/" in t):
                raise ValueError(f"sentence {i + 1}: word {w!r} with tag {t!r} cannot be "
                                 "written as pku")
        out.append("  ".join(f"{w}/{t}" for w, t in zip(ws, ts)))
        out.append("\n")
    return "".join(out)


def write_pku(path: str | os.PathLike, words: Iterable[Sequence[str]],
              tags: Iterable[Sequence[str]]) -> None:
    """Write words and their tags as ``pku`` UTF-8, atomically (:func:`format_pku`)."""
    text = format_pku(words, tags)
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


#: The formats a system's output is written in, with their formatters: words
#: alone (``sighan``), or tokens with a label each (``bio``, ``pku``).
FORMATTERS = {"sighan": lambda words, tags: format_sighan(words), "bio": format_bio,
              "pku": format_pku}


def format_output(format: str, words: Iterable[Sequence[str]],
                  tags: Iterable[Sequence[str]] | None = None) -> str:
    """The text of an output in ``format`` (a key of :data:`FORMATTERS`):
    its words, and their labels for a labelled format.

    >>> format_output("pku", [["迈向", "新"]], [["v", "a"]])
    '迈向/v  新/a\\n'
    >>> format_output("sighan", [["迈向", "新"]])
    '迈向 新\\n'
    """
    return FORMATTERS[format](words, tags)


def write_output(path: str | os.PathLike, format: str, words: Iterable[Sequence[str]],
                 tags: Iterable[Sequence[str]] | None = None) -> None:
    """Write an output in ``format`` as UTF-8, atomically (:func:`format_output`)."""
    text = format_output(format, words, tags)
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
