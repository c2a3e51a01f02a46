"""Entity tags and their schemes: labelled spans (named entities) as one tag
per token, and back.

A tag is ``O`` (outside any entity) or a prefix letter, ``-`` and the
entity's type: ``B-PER``, ``I-LOC``.  The prefix says where the token sits
in its entity; the schemes (:data:`SCHEMES`) differ in which prefixes they
use and what they mean:

``IOB1``
    ``I-X`` inside (and starting) an entity of type X; ``B-X`` only starts
    an entity that directly follows another one of type X (the original
    CoNLL-2003 files).
``IOB2``
    ``B-X`` starts every entity, ``I-X`` continues it.
``IOBES``
    ``B-X`` begins, ``I-X`` continues, ``E-X`` ends an entity of several
    tokens; ``S-X`` is an entity of one token.
``BMES``
    IOBES spelled with ``M-`` for ``I-`` (the spelling of Chinese word
    segmentation's BMES tags).  ``M-X`` is read as ``I-X`` everywhere in
    this module, in every scheme and mode.

Entities follow from tags in one of two modes (:data:`MODES`):

``"default"``
    The conlleval rules (:func:`chunks`), as ``seqeval``'s default mode:
    every sequence of tags, well formed or not, is read, in any scheme,
    with no need to know which one.
``"strict"``
    ``seqeval``'s ``mode="strict"`` for a given scheme
    (:func:`strict_chunks`): an entity counts only when its tags begin and
    end it as the scheme says; ``I-PER I-PER`` is no entity under IOB2.

Entities never cross a sentence boundary.  :func:`detect_scheme` names the
scheme a file is written in, :func:`ill_formed` where a sequence breaks it,
:func:`bioes` writes spans as IOBES tags, :func:`char_entities` and
:func:`entities` give entities as character offsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

#: How entities follow from tags: the conlleval rules, or strict to a scheme.
MODES: tuple[str, ...] = ("default", "strict")

#: What a tag must look like, as messages say it.
TAG_SHAPE = "O or B-/I-/E-/S-/M- followed by a type (such as B-PER)"

# A type holds no whitespace and neither starts nor ends with "-" (seqeval's
# default and strict modes would read "B--X" as types "-X" and "X").
_TAG = re.compile(r"O|[BIESM]-[^\s-](?:\S*[^\s-])?")

def is_tag(tag: str) -> bool:
    """Whether ``tag`` is ``O`` or ``X-TYPE`` with X one of B, I, E, S, M.

    >>> is_tag("B-PER"), is_tag("O"), is_tag("B"), is_tag("PER"), is_tag("b-per"), is_tag("B-")
    (True, True, False, False, False, False)
    """
    return _TAG.fullmatch(tag) is not None


def split_tag(tag: str) -> tuple[str, str]:
    """A tag's prefix and type; ``O`` has the type ``""``.

    Raises :class:`ValueError` for what is not a tag (:func:`is_tag`).

    Examples
    --------
    >>> split_tag("B-PER"), split_tag("O"), split_tag("M-GPE.NAM")
    (('B', 'PER'), ('O', ''), ('M', 'GPE.NAM'))
    >>> split_tag("PER")
    Traceback (most recent call last):
    ...
    ValueError: tag 'PER' is not O or B-/I-/E-/S-/M- followed by a type (such as B-PER)
    """
    if tag == "O":
        return "O", ""
    if not is_tag(tag):
        raise ValueError(f"tag {tag!r} is not {TAG_SHAPE}")
    return tag[0], tag[2:]


def _read(tag: str) -> tuple[str, str]:
    """:func:`split_tag` with ``M`` read as ``I``."""
    prefix, type_ = split_tag(tag)
    return ("I" if prefix == "M" else prefix), type_


def _check_scheme(scheme: str) -> None:
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; valid: {', '.join(SCHEMES)}")


# ------------------------------------------------------------- default mode


def _end_of_chunk(prev_tag: str, tag: str, prev_type: str, type_: str) -> bool:
    """Whether a chunk ended between the previous token and this one
    (seqeval's ``end_of_chunk``, conlleval's ``endOfChunk``)."""
    if prev_tag in ("E", "S"):
        return True
    if prev_tag in ("B", "I") and tag in ("B", "S", "O"):
        return True
    return prev_tag != "O" and prev_type != type_


def _start_of_chunk(prev_tag: str, tag: str, prev_type: str, type_: str) -> bool:
    """Whether a chunk starts at this token (seqeval's ``start_of_chunk``,
    conlleval's ``startOfChunk``)."""
    if tag in ("B", "S"):
        return True
    if prev_tag in ("E", "S", "O") and tag in ("E", "I"):
        return True
    return tag != "O" and prev_type != type_


def chunks(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """The entities of one sentence's tags by the conlleval rules.

    The rules of ``seqeval.metrics.sequence_labeling.get_entities``
    (seqeval's default mode, after conlleval): a chunk starts at ``B-``
    and ``S-``, at ``I-``/``E-`` after ``O``, ``E-`` or ``S-``, and at any
    change of type; it ends after ``E-`` and ``S-``, before ``B-``, ``S-``
    and ``O``, and at any change of type.  Every sequence is read, in any
    scheme: ``I-PER I-PER`` is one entity, ``B-PER E-LOC`` two.

    ``M-`` is read as ``I-`` first.  seqeval knows no ``M-`` (it warns that
    the tag "seems not to be NE tag"): ``M-X`` never ends a chunk there, so
    ``M-X B-X`` loses the chunk of ``M-X``; read as ``I-X``, it ends before
    ``B-X`` as in IOBES.

    Parameters
    ----------
    tags : sequence of str
        One tag per token (:func:`is_tag`).

    Returns
    -------
    list of (type, start, end)
        Token indices, ``end`` exclusive, in order of their start.

    Examples
    --------
    >>> chunks(["B-PER", "I-PER", "O", "B-LOC"])
    [('PER', 0, 2), ('LOC', 3, 4)]
    >>> chunks(["I-PER", "I-PER", "B-PER", "I-LOC"])  # IOB1, and a change of type
    [('PER', 0, 2), ('PER', 2, 3), ('LOC', 3, 4)]
    >>> chunks(["B-ORG", "M-ORG", "E-ORG", "S-PER", "E-PER"])
    [('ORG', 0, 3), ('PER', 3, 4), ('PER', 4, 5)]
    >>> chunks([])
    []
    """
    out = []
    prev_tag, prev_type, begin = "O", "", 0
    for i, tag in enumerate([*tags, "O"]):
        prefix, type_ = _read(tag)
        if _end_of_chunk(prev_tag, prefix, prev_type, type_):
            out.append((prev_type, begin, i))
        if _start_of_chunk(prev_tag, prefix, prev_type, type_):
            begin = i
        prev_tag, prev_type = prefix, type_
    return out


# -------------------------------------------------------------- strict mode

_ANY = "IOBES"


@dataclass(frozen=True)
class _Rules:
    """A scheme's patterns as in seqeval/scheme.py: each is (previous
    token's prefixes, this token's prefixes, type condition ``same``,
    ``diff`` or ``any``)."""

    start: tuple[tuple[str, str, str], ...]
    inside: tuple[tuple[str, str, str], ...]
    end: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class Scheme:
    """A tagging scheme: its name, the prefixes it allows (``M`` read as
    ``I``) and seqeval's rules for where its entities start, go on and end
    in strict mode."""

    name: str
    prefixes: str
    rules: _Rules


_IOBES_RULES = _Rules(
    start=((_ANY, "B", "any"), (_ANY, "S", "any")),
    inside=(("B", "I", "same"), ("B", "E", "same"), ("I", "I", "same"), ("I", "E", "same")),
    end=(("S", _ANY, "any"), ("E", _ANY, "any")))

#: The tagging schemes, one record each (BMES is IOBES with ``M-`` for ``I-``).
SCHEME_RECORDS: tuple[Scheme, ...] = (
    Scheme("IOB1", "IOB", _Rules(
        start=(("O", "I", "any"), ("I", "I", "diff"), ("B", "I", "any"),
               ("I", "B", "same"), ("B", "B", "same")),
        inside=(("B", "I", "same"), ("I", "I", "same")),
        end=(("I", "I", "diff"), ("I", "O", "any"), ("I", "B", "any"), ("B", "O", "any"),
             ("B", "I", "diff"), ("B", "B", "same")))),
    Scheme("IOB2", "IOB", _Rules(
        start=((_ANY, "B", "any"),),
        inside=(("B", "I", "same"), ("I", "I", "same")),
        end=(("I", "O", "any"), ("I", "I", "diff"), ("I", "B", "any"), ("B", "O", "any"),
             ("B", "I", "diff"), ("B", "B", "any")))),
    Scheme("IOBES", "IOBES", _IOBES_RULES),
    Scheme("BMES", "IOBES", _IOBES_RULES),
)
_BY_NAME = {s.name: s for s in SCHEME_RECORDS}

#: The names of the schemes, in order.
SCHEMES: tuple[str, ...] = tuple(_BY_NAME)


def _match(patterns, prev: tuple[str, str], tok: tuple[str, str]) -> bool:
    """seqeval's ``Token.check_patterns``."""
    return any(prev[0] in before and tok[0] in now
               and (cond == "any" or (cond == "same") == (prev[1] == tok[1]))
               for before, now, cond in patterns)


def foreign_tag(tags: Sequence[str], scheme: str) -> int | None:
    """The index of the first tag whose prefix ``scheme`` has not (``E-PER``
    under IOB2; ``M-`` is ``I-``), or None.

    >>> foreign_tag(["B-PER", "E-PER"], "IOB2"), foreign_tag(["B-PER", "M-PER"], "IOB2")
    (1, None)
    """
    allowed = _BY_NAME[scheme].prefixes
    return next((j for j, t in enumerate(tags) if _read(t)[0] not in allowed), None)


def _foreign(tag: str, scheme: str) -> str:
    return f"tag {tag!r} is not a tag of {scheme} (its prefixes are {', '.join(_BY_NAME[scheme].prefixes)})"


def strict_chunks(tags: Sequence[str], scheme: str) -> list[tuple[str, int, int]]:
    """The entities of one sentence's tags, strict to ``scheme``.

    seqeval's ``mode="strict"`` (``seqeval.scheme.Tokens.entities`` with
    the scheme's class): an entity starts where the scheme's start patterns
    say, runs while its inside patterns hold, and counts only if its end
    pattern holds at the token after it (a sentence ends with ``O``).
    ``BMES`` is ``IOBES`` with ``M-`` read as ``I-``.

    Parameters
    ----------
    tags : sequence of str
        One tag per token (:func:`is_tag`).
    scheme : {"IOB1", "IOB2", "IOBES", "BMES"}

    Returns
    -------
    list of (type, start, end)
        Token indices, ``end`` exclusive, in order.

    Raises
    ------
    ValueError
        A tag whose prefix the scheme does not have (``E-PER`` in IOB2), as
        seqeval raises; an unknown scheme.

    Examples
    --------
    >>> strict_chunks(["B-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-ORG"], "IOB2")
    [('PER', 0, 2), ('LOC', 4, 5)]
    >>> strict_chunks(["I-PER", "I-PER", "B-PER", "O"], "IOB1")
    [('PER', 0, 2), ('PER', 2, 3)]
    >>> strict_chunks(["B-PER", "I-PER", "S-LOC", "B-ORG", "E-ORG"], "IOBES")  # PER never ends
    [('LOC', 2, 3), ('ORG', 3, 5)]
    >>> strict_chunks(["S-PER", "E-PER"], "IOB2")
    Traceback (most recent call last):
    ...
    ValueError: tag 'S-PER' is not a tag of IOB2 (its prefixes are I, O, B)
    """
    _check_scheme(scheme)
    rules = _BY_NAME[scheme].rules
    j = foreign_tag(tags, scheme)
    if j is not None:
        raise ValueError(_foreign(tags[j], scheme))
    toks = [_read(t) for t in tags] + [("O", "")]
    out = []
    i, prev = 0, ("O", "")
    while i < len(toks):
        tok = toks[i]
        if _match(rules.start, prev, tok):
            end = i + 1  # seqeval's Tokens._forward; the final O is never inside
            while _match(rules.inside, toks[end - 1], toks[end]):
                end += 1
            if _match(rules.end, toks[end - 1], toks[end]):
                out.append((tok[1], i, end))
            i = end
        else:
            i += 1
        prev = toks[i - 1]
    return out


# ---------------------------------------------------- schemes and their breaks


def detect_scheme(sequences: Iterable[Sequence[str]]) -> str:
    """The scheme that tag sequences (one per sentence) are written in.

    ``"BMES"`` if any tag is ``M-``; else ``"IOBES"`` if any is ``E-`` or
    ``S-``; else ``"IOB1"`` if ``I-X`` starts an entity (at the start of a
    sentence, after ``O`` or after a tag of another type) more often than
    ``B-X`` starts one other than right after a tag of type X (which IOB1
    never does); else ``"IOB2"``.  So an IOB2 tagger's output with a few
    stray ``I-X`` is still IOB2, with those few ill-formed
    (:func:`ill_formed`), and so are sequences without entities.

    Examples
    --------
    >>> detect_scheme([["B-PER", "I-PER", "O"], ["B-LOC"]])
    'IOB2'
    >>> detect_scheme([["I-PER", "I-PER", "B-PER", "O"], ["I-LOC"]])
    'IOB1'
    >>> detect_scheme([["B-PER", "E-PER", "O"]]), detect_scheme([["B-PER", "M-PER", "E-PER"]])
    ('IOBES', 'BMES')
    >>> detect_scheme([["O", "O"], []])
    'IOB2'
    """
    prefixes: set[str] = set()
    i_starts = b_fresh = 0
    for tags in sequences:
        prev = ("O", "")
        for tag in tags:
            prefix, type_ = split_tag(tag)
            prefixes.add(prefix)
            continues = prev[0] != "O" and prev[1] == type_
            i_starts += prefix == "I" and not continues
            b_fresh += prefix == "B" and not continues
            prev = (prefix, type_)
    if "M" in prefixes:
        return "BMES"
    if prefixes & {"E", "S"}:
        return "IOBES"
    return "IOB1" if i_starts > b_fresh else "IOB2"


def _after(tags: Sequence[str], i: int) -> str:
    return f"after {tags[i - 1]!r}" if i else "at the start of the sentence"


def breaks(tags: Sequence[str], scheme: str) -> list[tuple[int, str]]:
    """Where one sentence's tags break ``scheme``, and how, in order: each
    token index at most once, with a phrase such as ``'I-PER' after 'O'``.

    IOB2: ``I-X`` not after ``B-X`` or ``I-X``.  IOB1: ``B-X`` not right
    after a tag of type X.  IOBES and BMES: ``I-X`` or ``E-X`` not after
    ``B-X`` or ``I-X``; an entity left open (``B-X`` or ``I-X`` followed by
    anything but ``I-X`` or ``E-X``, or ending the sentence).  Any scheme:
    a prefix it does not have (``S-X`` in IOB2).

    Examples
    --------
    >>> breaks(["I-PER", "O", "B-LOC", "I-PER"], "IOB2")
    [(0, "'I-PER' at the start of the sentence"), (3, "'I-PER' after 'B-LOC'")]
    >>> breaks(["B-PER", "O", "E-LOC", "B-ORG"], "IOBES")
    [(1, "'O' after 'B-PER'"), (2, "'E-LOC' after 'O'"), (3, "'B-ORG' ends the sentence")]
    """
    _check_scheme(scheme)
    toks = [_read(t) for t in tags]
    out: dict[int, str] = {}
    for i, (prefix, type_) in enumerate(toks):
        prev = toks[i - 1] if i else ("O", "")
        continues = prev[0] in ("B", "I") and prev[1] == type_
        if prefix not in _BY_NAME[scheme].prefixes:
            out[i] = f"{tags[i]!r} is not a tag of {scheme}"
        elif scheme == "IOB2" and prefix == "I" and not continues:
            out[i] = f"{tags[i]!r} {_after(tags, i)}"
        elif scheme == "IOB1" and prefix == "B" and not (prev[0] != "O" and prev[1] == type_):
            out[i] = f"{tags[i]!r} {_after(tags, i)}"
        elif scheme in ("IOBES", "BMES") and (
                (prev[0] in ("B", "I") and not (prefix in ("I", "E") and continues))
                or (prefix in ("I", "E") and not continues)):
            out[i] = f"{tags[i]!r} {_after(tags, i)}"
    if scheme in ("IOBES", "BMES") and toks and toks[-1][0] in ("B", "I"):
        out.setdefault(len(toks) - 1, f"{tags[-1]!r} ends the sentence")
    return sorted(out.items())


def ill_formed(tags: Sequence[str], scheme: str) -> list[int]:
    """Token indices where one sentence's tags break ``scheme`` (see
    :func:`breaks` for the rules).

    Examples
    --------
    >>> ill_formed(["O", "I-PER", "I-PER", "B-PER"], "IOB2")
    [1]
    >>> ill_formed(["O", "I-PER", "I-PER", "B-PER"], "IOB1")
    []
    >>> ill_formed(["O", "B-PER", "I-PER", "B-PER"], "IOB1")
    [1]
    >>> ill_formed(["B-PER", "M-PER", "E-PER", "S-LOC", "M-LOC"], "BMES")
    [4]
    """
    return [i for i, _ in breaks(tags, scheme)]


# ------------------------------------------------------------ spans and text


def bioes(n: int, spans: Sequence[tuple[int, int, str]]) -> list[str]:
    """IOBES tags of ``n`` tokens holding non-overlapping ``spans``.

    Parameters
    ----------
    n : int
        Number of tokens.
    spans : sequence of (start, end, type)
        Token indices, ``end`` exclusive, in any order.

    Returns
    -------
    list of str
        ``S-X`` for an entity of one token, ``B-X I-X ... E-X`` for a longer
        one, ``O`` elsewhere; :func:`chunks` gives the spans back.

    Raises
    ------
    ValueError
        A span that is empty, outside ``0..n`` or overlaps another, or a type
        that makes no tag.

    Examples
    --------
    >>> bioes(6, [(3, 6, "ORG"), (0, 1, "PER")])
    ['S-PER', 'O', 'O', 'B-ORG', 'I-ORG', 'E-ORG']
    >>> bioes(3, [(0, 2, "PER"), (1, 3, "LOC")])
    Traceback (most recent call last):
    ...
    ValueError: span (1, 3, 'LOC') overlaps (0, 2, 'PER')
    """
    tags = ["O"] * n
    prev = None
    for span in sorted(spans):
        start, end, type_ = span
        if not 0 <= start < end <= n:
            raise ValueError(f"span {tuple(span)!r} is empty or outside the {n} tokens")
        if not is_tag(f"S-{type_}"):
            raise ValueError(f"span {tuple(span)!r}: type {type_!r} makes no tag ({TAG_SHAPE})")
        if prev is not None and start < prev[1]:
            raise ValueError(f"span {tuple(span)!r} overlaps {tuple(prev)!r}")
        prev = span
        if end - start == 1:
            tags[start] = f"S-{type_}"
        else:
            tags[start:end] = [f"B-{type_}", *[f"I-{type_}"] * (end - start - 2), f"E-{type_}"]
    return tags


def _spans(tags: Sequence[str], mode: str, scheme: str | None) -> list[tuple[str, int, int]]:
    if mode == "default":
        return chunks(tags)
    if mode == "strict":
        return strict_chunks(tags, scheme or detect_scheme([tags]))
    raise ValueError(f"unknown mode {mode!r}; valid: {', '.join(MODES)}")


def char_entities(words: Sequence[str], tags: Sequence[str], mode: str = "default",
                  scheme: str | None = None) -> list[tuple[int, int, str]]:
    """The entities of one sentence as character offsets.

    Parameters
    ----------
    words : sequence of str
        The sentence's tokens (a character each, or words).
    tags : sequence of str
        One tag per token.
    mode : {"default", "strict"}
        :func:`chunks` or :func:`strict_chunks`.
    scheme : {"IOB1", "IOB2", "IOBES", "BMES"}, optional
        For the strict mode; None: :func:`detect_scheme` on this sentence.
        The default mode needs none (a scheme given is checked, not used).

    Returns
    -------
    list of (start, end, type)
        Offsets into ``"".join(words)``, ``end`` exclusive.

    Examples
    --------
    >>> char_entities(["江泽民", "访问", "北京"], ["S-PER", "O", "S-LOC"])
    [(0, 3, 'PER'), (5, 7, 'LOC')]
    >>> char_entities(list("去北京"), ["O", "I-LOC", "I-LOC"], mode="strict", scheme="IOB2")
    []
    """
    if len(words) != len(tags):
        raise ValueError(f"{len(words)} tokens but {len(tags)} tags")
    if scheme is not None:
        _check_scheme(scheme)
    offsets = [0]
    for w in words:
        offsets.append(offsets[-1] + len(w))
    return [(offsets[start], offsets[end], type_) for type_, start, end in _spans(tags, mode, scheme)]


def entities(corpus, mode: str = "default", scheme: str | None = None) -> list[list[tuple[int, int, str]]]:
    """The entities of each sentence of a labelled corpus, as character offsets.

    Parameters
    ----------
    corpus : committee.corpus.Corpus
        With ``tags`` (read from a labelled format such as ``bio``).
    mode : {"default", "strict"}
    scheme : {"IOB1", "IOB2", "IOBES", "BMES"}, optional
        For the strict mode; None: :func:`detect_scheme` over the whole
        corpus.

    Returns
    -------
    list of list of (start, end, type)
        Per sentence, offsets into the sentence's characters, ``end``
        exclusive (:func:`char_entities`).

    Raises
    ------
    ValueError
        The corpus has no tags (a segmentation), or an unknown mode or
        scheme.

    Examples
    --------
    >>> from committee.corpus import Corpus
    >>> c = Corpus("g.bio", [["江", "泽", "民", "好"], ["北京"]], [1, 6],
    ...            tags=[["B-PER", "I-PER", "I-PER", "O"], ["I-LOC"]])
    >>> entities(c)
    [[(0, 3, 'PER')], [(0, 2, 'LOC')]]
    >>> entities(c, mode="strict")  # detected: IOB2, where I-LOC starts nothing
    [[(0, 3, 'PER')], []]
    """
    if corpus.tags is None:
        raise ValueError(f"{corpus.path}: the corpus has no entity tags (read it with a labelled "
                         "format such as bio)")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; valid: {', '.join(MODES)}")
    if mode == "strict" and scheme is None:
        scheme = detect_scheme(corpus.tags)
    if mode == "strict":
        _check_prefixes(corpus, scheme)
    return [char_entities(ws, ts, mode, scheme) for ws, ts in zip(corpus.words, corpus.tags)]


def _check_prefixes(corpus, scheme: str) -> None:
    """Refuse, naming the file and the line (a token a line, as ``bio``), a
    tag whose prefix ``scheme`` has not (an ``E-`` under IOB2): the strict
    mode cannot read it (seqeval raises too)."""
    from committee.errors import InputError

    _check_scheme(scheme)
    for i, tags in enumerate(corpus.tags):
        j = foreign_tag(tags, scheme)
        if j is not None:
            line = corpus.lines[i] + j if i < len(corpus.lines) else None
            raise InputError(corpus.path, line, f"{_foreign(tags[j], scheme)}: the strict mode "
                                                "reads only the tags of its scheme; give --scheme")
