"""Writing a segmentation: SIGHAN text, one sentence a line."""

from __future__ import annotations

import os
from typing import Iterable, Sequence

from committee.corpus.decoding import check_encoding
from committee.fileio import atomic_open


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
