"""A loaded tool on texts: its words (:func:`segment`), entity tags
(:func:`tag`) or parts of speech (:func:`pos_tag`), each checked to give
back exactly the characters it was given: a tool that drops or changes a
character is refused (:class:`committee.errors.InputError` naming the
sentence), never silently fixed."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from committee.errors import caller_level, InputError, TagsetWarning
from committee.segmenters.base import CMD_PREFIX, Segmenter


def segment(segmenter: Segmenter, texts: Sequence[str], path: str = "<input>",
            lines: Sequence[int] | None = None, progress: bool = False) -> list[list[str]]:
    """Segment each text; check that every character comes back unchanged.

    Parameters
    ----------
    segmenter : Segmenter
    texts : sequence of str
        Characters of each sentence (an empty string gives no words).
    path, lines
        Where the texts came from, for the error message.

    Raises
    ------
    InputError
        The segmenter changed the characters of a sentence.
    SegmenterFailed
        A ``cmd:`` segmenter's command failed (:func:`committee.segmenters.command`).

    Examples
    --------
    >>> chars = Segmenter("chars", "0", lambda t: list(t))
    >>> segment(chars, ["我爱北京", ""])
    [['我', '爱', '北', '京'], []]
    >>> segment(Segmenter("lossy", "0", lambda t: [t[:-1]]), ["我爱北京"], "test.txt", [7])
    Traceback (most recent call last):
    ...
    committee.errors.InputError: test.txt:7: lossy changed the characters at character 4: its output ends where the text has '京'
    """
    from tqdm import tqdm

    if segmenter.command:  # the command runs once, on every sentence
        every = segmenter.cut_many(texts, progress=progress)
    elif segmenter.cut_many is not None:
        every = segmenter.cut_many(texts)
    else:
        every = (segmenter.cut(text) if text else []
                 for text in tqdm(texts, unit="sentence", desc=segmenter.name,
                                  disable=not progress, dynamic_ncols=True))
    return _spelled(_who(segmenter), texts, every, path, lines)


def tag(segmenter: Segmenter, texts: Sequence[str], path: str = "<input>",
        lines: Sequence[int] | None = None,
        progress: bool = False) -> tuple[list[list[str]], list[list[str]]]:
    """Each text's tokens and entity tags by ``segmenter.tag`` (a ``cmd:``
    tagger's ``TOKEN/TAG`` items); the tokens must spell the text
    (:func:`segment`'s check).  An item that is not ``TOKEN/TAG`` (no
    ``/``, an empty token or tag) or a tag that is none is an
    :class:`~committee.errors.InputError` naming ``path`` and the line.

    >>> from committee.segmenters import command
    >>> fake = Segmenter("fake", "0", list, tag=lambda t: ([t[:2], t[2:]], ["B-PER", "O"]))
    >>> tag(fake, ["江泽好", ""])
    ([['江泽', '好'], []], [['B-PER', 'O'], []])
    >>> tag(command("sed 's|$|/B-PER|'"), ["约翰"], "t.txt", [3])
    ([['约翰']], [['B-PER']])
    >>> tag(command("sed 's|^|/B-PER |'"), ["约翰"], "t.txt", [3])
    Traceback (most recent call last):
    ...
    committee.errors.InputError: t.txt:3: cmd:sed 's|^|/B-PER |' wrote the item '/B-PER', which is not TOKEN/TAG (its token is empty)
    """
    from committee.corpus.entities import TAG_SHAPE, is_tag

    who = _who(segmenter)
    if segmenter.command:  # the command runs once, on every sentence
        pairs = _items(segmenter, texts, path, lines, progress)
    else:
        pairs = [segmenter.tag(t) if t else ([], []) for t in texts]
    for i, (_, tags) in enumerate(pairs):
        bad = next((t for t in tags if not is_tag(t)), None)
        if bad is not None:
            raise InputError(path, _line(lines, i), f"{who} wrote the tag {bad!r}, which is "
                                                    f"not {TAG_SHAPE} (a tagger writes "
                                                    "TOKEN/TAG items)")
    words = _spelled(who, texts, [p[0] for p in pairs], path, lines)
    return words, [list(p[1]) for p in pairs]


def pos_tag(segmenter: Segmenter, texts: Sequence[str], target: str, path: str = "<input>",
            lines: Sequence[int] | None = None,
            progress: bool = False) -> tuple[list[list[str]], list[list[str]], Counter]:
    """Each text's words and their part-of-speech tags in tagset ``target``
    (:mod:`committee.corpus.tagsets`), by :attr:`Segmenter.pos`, its tags
    mapped from its ``tagset``, or by a ``cmd:`` tagger's ``WORD/TAG``
    items, its tags kept; the words must spell the text (:func:`segment`'s
    check), an item that is not ``WORD/TAG`` is an
    :class:`~committee.errors.InputError` naming ``path`` and the line.  A
    tag with no place in ``target`` is kept, counted (the third value) and
    named in one warning.

    >>> from committee.segmenters import command
    >>> fake = Segmenter("fake", "0", list, pos=lambda t: [(t[:2], "nrfg"), (t[2:], "eng")],
    ...                  tagset="jieba")
    >>> pos_tag(fake, ["江泽a", ""], "pd")
    ([['江泽', 'a'], []], [['nr', 'nx'], []], Counter())
    >>> pos_tag(command("sed 's|$|/nr|'"), ["约翰"], "pd", "t.txt", [3])
    ([['约翰']], [['nr']], Counter())
    """
    import warnings

    from tqdm import tqdm

    from committee.corpus import tagsets

    who = _who(segmenter)
    if segmenter.command:
        pairs = _items(segmenter, texts, path, lines, progress)
    else:
        pairs = []
        for text in tqdm(texts, unit="sentence", desc=segmenter.name, disable=not progress,
                         dynamic_ncols=True):
            got = [(w, t) for w, t in segmenter.pos(text) if w.strip()] if text else []
            pairs.append(([w for w, _ in got], [t for _, t in got]))
    words = _spelled(who, texts, [p[0] for p in pairs], path, lines)
    tags, unplaced = tagsets.map_tags(segmenter.tagset or target, target, [p[1] for p in pairs])
    message = tagsets.unplaced_message(who, target, unplaced)
    if message is not None:
        warnings.warn(message, TagsetWarning, stacklevel=caller_level())
    return words, tags, unplaced


def apply(task, segmenter: Segmenter, texts: Sequence[str], path: str = "<input>",
          lines: Sequence[int] | None = None, progress: bool = False
          ) -> tuple[list[list[str]], list[list[str]] | None]:
    """``segmenter`` (loaded by :func:`committee.segmenters.tool_loader`)
    on ``texts`` for ``task``: its tokens and, for a task of labels, their
    labels (parts of speech mapped to the task's tagset by :func:`pos_tag`;
    entity tags by :func:`tag`); words and None for segmentation
    (:func:`segment`)."""
    if task.pos_tagset is not None:
        words, tags, _ = pos_tag(segmenter, texts, task.pos_tagset, path, lines,
                                 progress=progress)
        return words, tags
    if task.tagged:
        return tag(segmenter, texts, path, lines, progress=progress)
    return segment(segmenter, texts, path, lines, progress=progress), None


def _item_problem(item: str) -> str | None:
    """Why a tagger's output item is not ``TOKEN/TAG`` (the tag after the
    last ``/``), or None.

    >>> [_item_problem(i) for i in ("我/B-PER", "a/b/O", "/B-PER", "我/", "我")]
    [None, None, 'its token is empty', 'its tag is empty', 'it has no /']
    """
    token, slash, tag_ = item.rpartition("/")
    if not slash:
        return "it has no /"
    if not token:
        return "its token is empty"
    return None if tag_ else "its tag is empty"


def _items(segmenter: Segmenter, texts: Sequence[str], path: str, lines: Sequence[int] | None,
           progress: bool) -> list[tuple[list[str], list[str]]]:
    """A ``cmd:`` tagger's tokens and tags of each text, read from its
    ``TOKEN/TAG`` items (one not so: an :class:`InputError` at its line)."""
    items = segmenter.cut_many(texts, progress=progress, tagged=True)
    for i, ws in enumerate(items):
        bad = next(((w, why) for w in ws if (why := _item_problem(w))), None)
        if bad is not None:
            raise InputError(path, _line(lines, i), f"{_who(segmenter)} wrote the item "
                                                    f"{bad[0]!r}, which is not TOKEN/TAG "
                                                    f"({bad[1]})")
    return [([w.rpartition("/")[0] for w in ws], [w.rpartition("/")[2] for w in ws])
            for ws in items]


def _who(segmenter: Segmenter) -> str:
    """How messages name a segmenter: ``cmd:COMMAND``, or its name."""
    return f"{CMD_PREFIX}{segmenter.command}" if segmenter.command else segmenter.name


def _line(lines: Sequence[int] | None, i: int) -> int:
    """The line of text ``i`` in its file (``lines``, else counted from 1)."""
    return lines[i] if lines is not None and i < len(lines) else i + 1


def _spelled(who: str, texts: Sequence[str], every, path: str,
             lines: Sequence[int] | None) -> list[list[str]]:
    """The words of each text, once checked to spell it (:func:`segment`)."""
    out = []
    for i, (text, cut) in enumerate(zip(texts, every)):
        words = [w for w in cut if w.strip()]
        got = "".join(words)
        if got != text:
            k = next((k for k, (a, b) in enumerate(zip(text, got)) if a != b),
                     min(len(text), len(got)))
            a = f"has {text[k]!r}" if k < len(text) else "ends"
            b = f"has {got[k]!r}" if k < len(got) else "ends"
            raise InputError(path, _line(lines, i), f"{who} changed the characters at "
                                                    f"character {k + 1}: its output {b} where "
                                                    f"the text {a}")
        out.append(words)
    return out
