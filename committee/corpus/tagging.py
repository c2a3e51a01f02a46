"""BMES tags: a segmented sentence as one tag per character and back, and
the tags of the character-tagged formats (``B``, ``M`` or ``I``, ``E``,
``S``, in either case)."""

from __future__ import annotations

from typing import Sequence

from committee.errors import InputError

_TAGS = frozenset("BMES")

#: The tags of the character-tagged formats (upper case) and their BMES tag.
CHAR_TAGS = {"B": "B", "M": "M", "I": "M", "E": "E", "S": "S"}


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


def bmes_error(tags: Sequence[str]) -> tuple[int, str] | None:
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
        err = bmes_error(tags)
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


def char_tag(path, line, tag, where):
    t = CHAR_TAGS.get(tag.upper())
    if t is None:
        raise InputError(path, line, f"{where}: unknown tag {tag!r} (expected B, M/I, E or S)")
    return t
