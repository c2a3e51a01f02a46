"""Splits of one corpus file into a training and a test part.

A split names the test sentences; the training part is every other
sentence.  Sentences are numbered from 1 in file order, as the file's
format reads them (a CoNLL-U sentence spans many lines).  Three rules:

- a share (``test: 0.2``), contiguous: the last ``floor(n * share)``
  sentences (:func:`tail_indices`), as the built-in corpus's split, so no
  article is cut across it and the test text comes later;
- a share with a seed (``test: 0.2, seed: 7``): ``floor(n * share)``
  sentences drawn by :func:`seeded_indices` (SHA-256 of ``"seed:number"``,
  so the same on any machine, Python or NumPy version), kept in file order;
- sentence ranges (``test: "8001-9000"``, ``"1-500,9001-9500"``,
  :func:`parse_ranges`): those sentences, 1-based and inclusive.

Both parts keep the file's path and line numbers; each part's ``sha256``
is the checksum of its own bytes of the file (a sentence's bytes run from
its first line to the first line of the next sentence), so a run's
manifest identifies exactly the text used.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import replace
from typing import Iterable, Sequence

from committee.corpus.model import Corpus, content_sha256
from committee.errors import InputError
from committee.system.files import sha256_bytes
from committee.system.streams import read_input

_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_ranges(text: str) -> tuple[tuple[int, int], ...]:
    """Sentence ranges such as ``"8001-9000"`` or ``"1-500, 9001"``.

    1-based and inclusive, ascending and without overlap; a single number is
    one sentence.  Raises ``ValueError`` with a message for a user.

    Examples
    --------
    >>> parse_ranges("8001-9000")
    ((8001, 9000),)
    >>> parse_ranges(" 1-500, 9001 ")
    ((1, 500), (9001, 9001))
    >>> parse_ranges("10-5")
    Traceback (most recent call last):
    ...
    ValueError: range '10-5' ends before it starts
    """
    out: list[tuple[int, int]] = []
    for part in text.split(","):
        m = _RANGE.match(part)
        if m is None:
            raise ValueError(f"{part.strip()!r} is not a sentence range such as '8001-9000'")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if lo < 1:
            raise ValueError(f"sentences are numbered from 1, got {part.strip()!r}")
        if hi < lo:
            raise ValueError(f"range {part.strip()!r} ends before it starts")
        if out and lo <= out[-1][1]:
            raise ValueError(f"range {part.strip()!r} overlaps or precedes the one before it: "
                             "give ranges in ascending order without overlap")
        out.append((lo, hi))
    return tuple(out)


def format_ranges(ranges: Iterable[tuple[int, int]]) -> str:
    """The canonical text of ranges: ``((1, 500), (9001, 9001))`` -> ``"1-500,9001"``."""
    return ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in ranges)


def _share_count(n: int, share: float) -> int:
    """``floor(n * share)``, immune to binary rounding (0.1 * 19,480 is 1,948)."""
    if not 0 < share < 1:
        raise ValueError(f"a test share must be in (0, 1), got {share}")
    n_test = math.floor(round(n * share, 9))
    if n_test == 0 or n_test == n:
        side = "no sentence" if n_test == 0 else "every sentence"
        raise ValueError(f"a test share of {share} of {n} sentences is {side}: "
                         "one side would be empty")
    return n_test


def tail_indices(n: int, share: float) -> range:
    """Indices (0-based) of the last ``floor(n * share)`` of ``n`` sentences.

    >>> tail_indices(19484, 0.1)
    range(17536, 19484)
    """
    return range(n - _share_count(n, share), n)


def seeded_indices(n: int, share: float, seed: int) -> list[int]:
    """Indices (0-based, ascending) of ``floor(n * share)`` of ``n``
    sentences drawn with ``seed``: those whose SHA-256 of ``"seed:number"``
    (``number`` 1-based) is smallest.  Defined by SHA-256 alone, the draw is
    the same on every machine and version.

    >>> seeded_indices(10, 0.3, 7)
    [2, 3, 6]
    """
    n_test = _share_count(n, share)
    keys = sorted(range(n), key=lambda i: hashlib.sha256(f"{seed}:{i + 1}".encode()).digest())
    return sorted(keys[:n_test])


def range_indices(n: int, ranges: Sequence[tuple[int, int]]) -> list[int]:
    """Indices (0-based) of 1-based inclusive ``ranges`` of ``n`` sentences;
    a range past the last sentence, or ranges that take every sentence, are
    a ``ValueError``.

    >>> range_indices(5, ((2, 3), (5, 5)))
    [1, 2, 4]
    """
    for lo, hi in ranges:
        if hi > n:
            raise ValueError(f"range {format_ranges([(lo, hi)])} is outside the file's "
                             f"{n:,} sentences")
    out = [i for lo, hi in ranges for i in range(lo - 1, hi)]
    if len(out) == n:
        raise ValueError(f"ranges {format_ranges(ranges)} take every one of the file's {n:,} "
                         "sentences: the training part would be empty")
    return out


def held_out(n: int, test: float | str, seed: int | None = None) -> Sequence[int]:
    """The test sentences (0-based, ascending) of a split of ``n`` sentences:
    ``test`` a share (with ``seed``: drawn, else the tail) or sentence ranges."""
    if isinstance(test, str):
        if seed is not None:
            raise ValueError("a seed applies to a share of the sentences, not to ranges")
        return range_indices(n, parse_ranges(test))
    if seed is None:
        return tail_indices(n, test)
    return seeded_indices(n, test, seed)


def split_sentences(corpus: Corpus, test: Sequence[int],
                    data: bytes | None = None) -> tuple[Corpus, Corpus]:
    """Split ``corpus`` into the sentences not in ``test`` and those in it.

    Parameters
    ----------
    corpus : Corpus
        As read from the whole of ``corpus.path``.
    test : sequence of int
        0-based indices of the test sentences, ascending; neither side empty.
    data : bytes, optional
        The file's bytes, if already at hand; otherwise the file is read
        again and must still have the checksum ``corpus.sha256``.

    Returns
    -------
    (train, test) : tuple of Corpus
        In file order; each part's ``sha256`` is that of its own bytes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from committee.corpus.reading import read_corpus
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "c.txt"
    >>> _ = f.write_text("一 二\\n三\\n四 五\\n六\\n", encoding="utf-8")
    >>> train, test = split_sentences(read_corpus(f), [1, 3])
    >>> train.words, test.words, test.lines
    ([['一', '二'], ['四', '五']], [['三'], ['六']], [2, 4])
    >>> test.sha256 == sha256_bytes("三\\n六\\n".encode("utf-8"))
    True
    """
    n = len(corpus)
    chosen = set(test)
    if not chosen or len(chosen) == n:
        raise ValueError(f"a split of {n} sentences into {len(chosen)} test sentences "
                         "leaves one side empty")
    if "\n".encode(corpus.encoding) != b"\n":
        raise ValueError(f"a split needs an ASCII-compatible encoding, not {corpus.encoding}")
    if data is None:
        data = read_input(corpus.path)
    if sha256_bytes(data) != corpus.sha256:
        raise InputError(corpus.path, None, "file changed since it was read (or the corpus is already a split)")
    starts = _sentence_starts(data, corpus.lines)
    train = [i for i in range(n) if i not in chosen]
    return _part(corpus, train, data, starts), _part(corpus, sorted(chosen), data, starts)


def _sentence_starts(data: bytes, lines: Sequence[int]) -> list[int]:
    """Byte offset where each sentence's bytes start (the first at 0), and
    the file's length last."""
    line_starts = [0]
    line_starts += [m.end() for m in re.finditer(b"\n", data)]
    return [0] + [line_starts[line - 1] for line in lines[1:]] + [len(data)]


def _part(corpus: Corpus, keep: list[int], data: bytes, starts: list[int]) -> Corpus:
    blob = b"".join(data[starts[i]:starts[i + 1]] for i in keep)
    words = [corpus.words[i] for i in keep]
    tags = None if corpus.tags is None else [corpus.tags[i] for i in keep]
    return replace(
        corpus,
        words=words,
        lines=[corpus.lines[i] for i in keep],
        pos=None if corpus.pos is None else [corpus.pos[i] for i in keep],
        tags=tags,
        sha256=sha256_bytes(blob),
        content_sha256=content_sha256(words, tags),
    )


def split_tail(corpus: Corpus, test_fraction: float, data: bytes | None = None) -> tuple[Corpus, Corpus]:
    """Split off the last ``floor(n * test_fraction)`` sentences as a test set
    (contiguous: no article is cut across it); see :func:`split_sentences`.

    ``split_tail(corpus, 0.5)`` of a 4-sentence file is ``split_sentences(corpus, [2, 3])``
    (tests/test_splits.py checks both on the same file).
    """
    return split_sentences(corpus, tail_indices(len(corpus), test_fraction), data)


def split_by(corpus: Corpus, test: float | str, seed: int | None = None,
             data: bytes | None = None) -> tuple[Corpus, Corpus]:
    """Split ``corpus`` as a config's ``corpus.split`` says: ``test`` a share
    in (0, 1) (the tail, or with ``seed`` a seeded draw) or sentence ranges
    such as ``"8001-9000"``.  Raises ``ValueError`` for a split the file
    cannot take (a range past its end, an empty side).

    >>> import tempfile, pathlib
    >>> from committee.corpus.reading import read_corpus
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "c.txt"
    >>> _ = f.write_text("一\\n二\\n三\\n四\\n", encoding="utf-8")
    >>> [p.words for p in split_by(read_corpus(f), "2-3")]
    [[['一'], ['四']], [['二'], ['三']]]
    >>> [p.words for p in split_by(read_corpus(f), 0.25)]
    [[['一'], ['二'], ['三']], [['四']]]
    """
    return split_sentences(corpus, held_out(len(corpus), test, seed), data)
