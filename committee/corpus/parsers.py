"""The parsers of the corpus formats: ``(path, lines, normalization) ->
(words, line numbers, pos)`` (tags for a labelled format), one per format
(:mod:`committee.corpus.formats` names each in its record).  ``lines``
are the file's lines (split on ``\\n``, one trailing ``\\r`` dropped); a
malformed line raises :class:`committee.errors.InputError` naming the file
and the line."""

from __future__ import annotations

import re
import warnings

from committee.corpus.entities import TAG_SHAPE, breaks, detect_scheme, is_tag
from committee.corpus.model import normalize_words
from committee.corpus.tagging import bmes_error, char_tag, from_bmes
from committee.errors import caller_level, InputError, PlausibilityWarning

#: A CoNLL-U ID: a word's index, a multiword token's range (``3-4``) or an
#: empty node (``5.1``).
CONLLU_ID = re.compile(r"\d+(?:-\d+|\.\d+)?")


def parse_sighan(path, lines, norm):
    words = [s.split() for s in lines]
    if norm is not None:
        words = [normalize_words(path, k, ws, norm) if ws else ws for k, ws in enumerate(words, 1)]
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


def parse_pku(path, lines, norm):
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
            ws = normalize_words(path, k, ws, norm)
        words.append(ws)
        pos.append(ps)
    return words, list(range(1, len(lines) + 1)), pos


def parse_char_slash(path, lines, norm):
    words = []
    for k, s in enumerate(lines, 1):
        chars, tags = [], []
        for j, tok in enumerate(s.split(), 1):
            c, sep, tag = tok.rpartition("/")
            if not sep or len(c) != 1:
                raise InputError(path, k, f"token {j} {tok!r}: expected one character, '/', a tag (字/B)")
            chars.append(c)
            tags.append(char_tag(path, k, tag, f"token {j} {tok!r}"))
        err = bmes_error(tags)
        if err is not None:
            raise InputError(path, k, f"invalid tag sequence at token {err[0] + 1}: {err[1]}")
        ws = from_bmes("".join(chars), tags)
        if norm is not None and ws:
            ws = normalize_words(path, k, ws, norm)
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


def parse_char_tsv(path, lines, norm):
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
            tags.append(char_tag(path, k, tag.strip(), "second column"))
        err = bmes_error(tags)
        if err is not None:
            raise InputError(path, block[err[0]][0], f"invalid tag sequence: {err[1]}")
        ws = from_bmes("".join(chars), tags)
        if norm is not None:
            ws = normalize_words(path, first, ws, norm)
        words.append(ws)
        starts.append(first)
    return words, starts, None


def parse_conllu(path, lines, norm, column=3):
    """CoNLL-U: the FORM of word lines and, as POS, UPOS (``column`` 3) or
    XPOS (4: :func:`parse_conllu_xpos`)."""
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
            if not CONLLU_ID.fullmatch(ident):
                raise InputError(path, k, f"ID {ident!r} is not a number (column 1 of CoNLL-U "
                                 "is a word's index from 1, a range such as 3-4 or an empty "
                                 "node such as 5.1): number each sentence's word lines 1, 2, 3, ...")
            if "-" in ident or "." in ident:
                continue
            form = cols[1]
            if not form or form != form.strip() or len(form.split()) != 1:
                raise InputError(path, k, f"FORM {form!r} is empty or contains whitespace")
            ws.append(form)
            ps.append(cols[column])
        if not ws:
            raise InputError(path, first, "sentence has no word lines")
        if norm is not None:
            ws = normalize_words(path, first, ws, norm)
        words.append(ws)
        pos.append(ps)
        starts.append(first)
    return words, starts, pos


def parse_conllu_xpos(path, lines, norm):
    """CoNLL-U with XPOS (column 5) as POS (format ``conllu-xpos``)."""
    return parse_conllu(path, lines, norm, column=4)


def parse_underscore(path, lines, norm):
    """``word_TAG`` tokens separated by whitespace, split on the last ``_``
    (format ``underscore``); a token without ``_``, or with an empty word or
    tag, is refused naming its line."""
    words, pos = [], []
    for k, s in enumerate(lines, 1):
        parts = [t.rpartition("_") for t in s.split()]
        bad = next((w + sep + p for w, sep, p in parts if not (w and sep and p)), None)
        if bad is not None:
            why = ("has no '_'" if "_" not in bad else
                   "has an empty tag" if bad.endswith("_") else "has an empty word")
            raise InputError(path, k, f"token {bad!r} {why} (expected word_TAG)")
        ws = [w for w, _, _ in parts]
        if norm is not None and ws:
            ws = normalize_words(path, k, ws, norm)
        words.append(ws)
        pos.append([p for _, _, p in parts])
    return words, list(range(1, len(lines) + 1)), pos


def _warn_ill_formed(path, tags, lines):
    """One :class:`PlausibilityWarning` counting the tokens where the tag
    sequences break the file's scheme (:func:`committee.corpus.entities.breaks`),
    naming the first; ``lines`` holds each token's line number."""
    scheme = detect_scheme(tags)
    count, first = 0, None
    for ts, ks in zip(tags, lines):
        found = breaks(ts, scheme)
        if found and first is None:
            first = (ks[found[0][0]], found[0][1])
        count += len(found)
    if count:
        warnings.warn(
            f"{path}: {count} ill-formed tag sequence{'s' if count != 1 else ''} under {scheme} "
            f"(first at line {first[0]}: {first[1]}), read by the conlleval rules",
            PlausibilityWarning, stacklevel=caller_level(),
        )


def _bio_columns_problem(line: str, found: int) -> str:
    """Why a ``bio`` line does not split into a token and its tag: the count
    of its columns, and the whitespace other than a space or a tab that split
    it, when there is some (Python splits on every Unicode space).

    >>> _bio_columns_problem("江 B-PER O", 3)
    'expected a token and its tag (2 columns separated by a tab or spaces), found 3'
    >>> _bio_columns_problem("\u3000 O", 1)
    'the token is whitespace (U+3000 IDEOGRAPHIC SPACE), which reads as a column separator; a token is visible text: replace it (with _, say) in the gold and in every output alike'
    >>> _bio_columns_problem("北\u00a0京 B-LOC", 3)
    'expected a token and its tag (2 columns separated by a tab or spaces), found 3: the whitespace U+00A0 NO-BREAK SPACE at column 2 splits the token'
    """
    import re

    from committee.corpus.encodings import describe

    problem = ("expected a token and its tag (2 columns separated by a tab or spaces), "
               f"found {found}")
    odd = next(((i, c) for i, c in enumerate(line) if c.isspace() and c not in " \t"), None)
    if odd is None:
        return problem
    column, ch = odd
    fields = re.split(r"[ \t]+", line.strip(" \t"))
    if len(fields) == 2 and fields[0].isspace():
        return (f"the token is whitespace ({describe(ch)}), which reads as a column separator; "
                "a token is visible text: replace it (with _, say) in the gold and in every "
                "output alike")
    return f"{problem}: the whitespace {describe(ch)} at column {column + 1} splits the token"


def parse_bio(path, lines, norm):
    """A token and its entity tag a line, separated by a tab or spaces, a
    blank line between sentences; ``-DOCSTART-`` lines are skipped.  The
    third value is the tags.  A sentence's line is its first token's."""
    words, starts, tags, where = [], [], [], []
    docstarts = 0
    for _, block in _blocks(lines):
        ws, ts, ks = [], [], []
        for k, s in block:
            if s.startswith("-DOCSTART-"):
                docstarts += 1
                continue
            cols = s.split()
            if len(cols) != 2:
                raise InputError(path, k, _bio_columns_problem(s, len(cols)))
            tok, tag = cols
            if not is_tag(tag):
                raise InputError(path, k, f"tag {tag!r} is not {TAG_SHAPE}")
            ws.append(tok if norm is None else normalize_words(path, k, [tok], norm)[0])
            ts.append(tag)
            ks.append(k)
        if ws:
            words.append(ws)
            tags.append(ts)
            starts.append(ks[0])
            where.append(ks)
    if not words and docstarts:
        raise InputError(path, None, f"holds only -DOCSTART- lines ({docstarts}), no sentence: "
                                     "a bio file has a token and its tag a line after them")
    _warn_ill_formed(path, tags, where)
    return words, starts, tags
