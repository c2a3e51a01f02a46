"""What a file looks like: the format its first lines have the shape of.

Each non-blank, non-comment line among the first
:data:`~committee.corpus.formats.SNIFF_LINES` gets one shape: the first
format, in sniffing order (:data:`~committee.corpus.formats.SNIFF_ORDER`),
whose line test says yes, or none when a test decides nothing.  The first
format, in that order, that claims the counts is the file's.
"""

from __future__ import annotations

from typing import Sequence

from committee.corpus.formats import SNIFF_LINES, SNIFF_ORDER


def line_shape(s: str) -> str | None:
    """What one non-blank line looks like: a format name or None.

    >>> line_shape("迈向/v 充满/v"), line_shape("迈/b 向/e"), line_shape("迈向")
    ('pku', None, 'word-list')
    """
    for fmt in SNIFF_ORDER:
        found = fmt.line(s)
        if found is None:
            return None
        if found:
            return fmt.name
    return None


def shapes(lines: Sequence[str]) -> tuple[dict, dict, int, int | None]:
    """Line shapes of the first non-blank, non-comment lines: counts, first
    line of each, lines looked at, first comment line."""
    counts, first, n, first_line = {}, {}, 0, None
    for k, s in enumerate(lines, 1):
        if not s.strip():
            continue
        if s.startswith("#"):
            first_line = first_line or k
            continue
        n += 1
        shape = line_shape(s)
        if shape is not None:
            counts[shape] = counts.get(shape, 0) + 1
            first.setdefault(shape, k)
        if n >= SNIFF_LINES:
            break
    return counts, first, n, first_line


def _fold(counts: dict, first: dict, n: int) -> None:
    """Count the lines of a format whose lines are also another's (its
    ``within``) for that other one, unless at most a tenth of the lines
    are of the other one only."""
    for fmt in SNIFF_ORDER:
        if fmt.within is None:
            continue
        inner, outer = counts.get(fmt.name, 0), counts.get(fmt.within, 0)
        if inner and 10 * outer <= n:
            counts[fmt.within] = 0
        else:
            counts[fmt.within] = outer + inner
            counts[fmt.name] = 0
            if inner:
                first[fmt.within] = min(first.get(fmt.within, first[fmt.name]), first[fmt.name])


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
    counts, first, n, first_line = shapes(lines)
    if not n:
        return None
    _fold(counts, first, n)
    for fmt in SNIFF_ORDER:
        count = counts.get(fmt.name, 0)
        if count and fmt.claim(count, n, lines):
            line = first[fmt.name]
            if fmt.comment_lines and first_line:
                line = min(line, first_line)
            return fmt.name, line
    return None

