"""CRF attributes of the feature templates F1, F2, F3 (docs/method.md §2).

For every character of a sentence, :func:`attributes` returns the list of
attribute names that describe its context.  An attribute name encodes the
offset and the characters it looks at:

=============  =====================  ======================================
kind           name                   characters
=============  =====================  ======================================
unigram        ``C{i}=x``             the character at offset ``i``
bigram         ``C{i}:{i+1}=xy``      offsets ``i`` and ``i+1``
trigram        ``C{i}:{i+2}=xyz``     offsets ``i``, ``i+1``, ``i+2``
=============  =====================  ======================================

so ``C-1=中`` and ``C1=中`` are different attributes.  Offsets outside the
sentence hold the padding symbol :data:`PAD` (one symbol per missing
character, so ``C-1:0=<P>我`` at the first character).  Values are
unambiguous: a real character is one code point, ``PAD`` is three.

The templates (paper, Table 1):

======  ====================  ====================  ===================
name    unigrams ``C_i``      bigrams ``C_i:i+1``   trigrams ``C_i:i+2``
======  ====================  ====================  ===================
F1      i = -1, 0, 1          i = -1, 0             --
F2      i = -2 ... 2          i = -2 ... 1          --
F3      i = -2 ... 2          i = -2 ... 1          i = -2, -1, 0
======  ====================  ====================  ===================

There is nothing else: no bias attribute, no character-type or dictionary
attribute.  crfsuite conjoins every attribute with the current tag (state
features) and adds tag bigrams (transition features) itself; attribute
weights are all 1.

Speed: each sentence is padded once and all attributes of a position are
built by one f-string list comprehension over ``zip`` of shifted views.
Measured on this machine (2 cores, Python 3.11, shared with other jobs)
over the 1.84M characters of People's Daily 1998-01, attributes of the
whole corpus in one call: F1 0.62M, F2 0.40M, F3 0.27M characters per
second (5, 9 and 12 attributes per character).  More than half of that
time is Python's cyclic garbage collector walking the millions of
per-character lists: with ``gc`` disabled the same builds run at 1.7M,
1.0M and 0.65M characters per second.  This module leaves ``gc`` alone (it
is process-wide state); at committee-member scale the cost is small anyway:
the F2 attributes of a 10% slice (170k characters) take 0.4 s, against
1.5 s for python-crfsuite to take them in (``Trainer.append``) and 5-12 s
to train (docs/benchmarks.md).
"""

from __future__ import annotations

TEMPLATES = ("F1", "F2", "F3")
"""The template names, in the order used by grid draws."""

PAD = "<P>"
"""Padding symbol standing for every offset outside the sentence."""

_N_ATTRIBUTES = {"F1": 5, "F2": 9, "F3": 12}


def _f1(chars: str) -> list[list[str]]:
    p = [PAD, *chars, PAD]
    return [
        [f"C-1={a}", f"C0={b}", f"C1={c}", f"C-1:0={a}{b}", f"C0:1={b}{c}"]
        for a, b, c in zip(p, p[1:], p[2:])
    ]


def _f2(chars: str) -> list[list[str]]:
    p = [PAD, PAD, *chars, PAD, PAD]
    return [
        [f"C-2={a}", f"C-1={b}", f"C0={c}", f"C1={d}", f"C2={e}",
         f"C-2:-1={a}{b}", f"C-1:0={b}{c}", f"C0:1={c}{d}", f"C1:2={d}{e}"]
        for a, b, c, d, e in zip(p, p[1:], p[2:], p[3:], p[4:])
    ]


def _f3(chars: str) -> list[list[str]]:
    p = [PAD, PAD, *chars, PAD, PAD]
    return [
        [f"C-2={a}", f"C-1={b}", f"C0={c}", f"C1={d}", f"C2={e}",
         f"C-2:-1={a}{b}", f"C-1:0={b}{c}", f"C0:1={c}{d}", f"C1:2={d}{e}",
         f"C-2:0={a}{b}{c}", f"C-1:1={b}{c}{d}", f"C0:2={c}{d}{e}"]
        for a, b, c, d, e in zip(p, p[1:], p[2:], p[3:], p[4:])
    ]


_BUILDERS = {"F1": _f1, "F2": _f2, "F3": _f3}


def check_template(template: str) -> None:
    """Raise ``ValueError`` unless ``template`` is one of :data:`TEMPLATES`.

    >>> check_template("F4")
    Traceback (most recent call last):
    ...
    ValueError: unknown feature template 'F4'; expected one of F1, F2, F3
    """
    if template not in _BUILDERS:
        raise ValueError(
            f"unknown feature template {template!r}; expected one of {', '.join(TEMPLATES)}"
        )


def n_attributes(template: str) -> int:
    """Number of attributes per character for ``template`` (5, 9 or 12).

    >>> [n_attributes(t) for t in TEMPLATES]
    [5, 9, 12]
    """
    check_template(template)
    return _N_ATTRIBUTES[template]


def attributes(chars: str, template: str) -> list[list[str]]:
    """Attribute names of every character of one sentence.

    Parameters
    ----------
    chars : str
        The characters of the sentence (may be empty).
    template : {"F1", "F2", "F3"}

    Returns
    -------
    list of list of str
        One list per character, in the fixed order unigrams (by offset),
        bigrams, trigrams.

    Examples
    --------
    >>> attributes("中国", "F1")
    [['C-1=<P>', 'C0=中', 'C1=国', 'C-1:0=<P>中', 'C0:1=中国'], \
['C-1=中', 'C0=国', 'C1=<P>', 'C-1:0=中国', 'C0:1=国<P>']]
    >>> attributes("", "F3")
    []
    """
    builder = _BUILDERS.get(template)
    if builder is None:
        check_template(template)
    return builder(chars)


def corpus_attributes(sentences: list[str], template: str) -> list[list[list[str]]]:
    """:func:`attributes` of every sentence of a corpus.

    >>> [len(a) for a in corpus_attributes(["我爱", "", "北京"], "F2")]
    [2, 0, 2]
    """
    check_template(template)
    builder = _BUILDERS[template]
    return [builder(s) for s in sentences]
