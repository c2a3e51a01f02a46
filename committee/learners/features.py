"""CRF attributes of the feature templates F1, F2, F3 (docs/method.md §2),
and of their word analogues W1, W2, W3 (docs/method.md §14, at the end).

For every character of a sentence, :func:`attributes` returns the list of
attribute names that describe its context.  An attribute name holds the
characters it looks at, then ``=`` and the offsets:

=============  =====================  ======================================
kind           name                   characters
=============  =====================  ======================================
unigram        ``x=C{i}``             the character at offset ``i``
bigram         ``xy=C{i}:{i+1}``      offsets ``i`` and ``i+1``
trigram        ``xyz=C{i}:{i+2}``     offsets ``i``, ``i+1``, ``i+2``
=============  =====================  ======================================

so ``中=C-1`` and ``中=C1`` are different attributes.  Offsets outside the
sentence hold the padding symbol :data:`PAD` (one symbol per missing
character, so ``<P>我=C-1:0`` at the first character).  Names are
unambiguous: the offsets follow the last ``=``, and in the characters a
real character is one code point, ``PAD`` is three.

Why the characters come first: crfsuite files attribute names in a search
tree ordered by ``strcmp`` and looks every occurrence up while it takes the
training data in (``Trainer.append``).  Named characters first, the twelve
attributes of a position fall into the tree regions of its five
characters, which the neighbouring positions have just visited, so the
lookups stay in cache; named offsets first (``C-1=中``), they scatter over
twelve regions.  Measured on a 30% F3 slice of NLPCC Weibo train (2.5M
attribute occurrences): ``append`` 3.8 s against 6.9 s (docs/benchmarks.md,
"Attribute names and ``Trainer.append``").  The model is the same either way: crfsuite numbers
attributes in the order it first meets them, whatever their names, so the
features, weights and tags are identical; only the names stored in the
model file differ.

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

Word templates
--------------
A task whose members tag the words of the gold segmentation
(:attr:`committee.tasks.Task.item` ``words``: parts of speech) gives each
sentence as a tuple of words, and the config's F1, F2, F3 stand for W1,
W2, W3 (:func:`template_for`).  With ``w`` the current word, ``W{i}`` the
word at offset ``i`` (:data:`PAD` outside the sentence):

======  ==============  ======================  =============================
name    words ``W{i}``  bigrams (one space)     characters of ``w``, more
======  ==============  ======================  =============================
W1      i = -1, 0, 1    --                      first ``=P0``, last ``=S0``,
                                                length ``=N0`` (4: 4 or more)
W2      i = -2 ... 2    ``W-1:0``, ``W0:1``     as W1
W3      i = -2 ... 2    ``W-1:0``, ``W0:1``     as W1, first two ``=PP0``,
                                                last two ``=SS0``; the last
                                                character of ``W-1``
                                                (``=S-1``), the first of
                                                ``W1`` (``=P1``)
======  ==============  ======================  =============================

6, 10 and 14 attributes per word.  The character attributes stand in for
the word's identity when it was not seen in training; they are given for
every word, so the test attributes do not depend on a member's sample.
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
        [f"{a}=C-1", f"{b}=C0", f"{c}=C1", f"{a}{b}=C-1:0", f"{b}{c}=C0:1"]
        for a, b, c in zip(p, p[1:], p[2:])
    ]


def _f2(chars: str) -> list[list[str]]:
    p = [PAD, PAD, *chars, PAD, PAD]
    return [
        [f"{a}=C-2", f"{b}=C-1", f"{c}=C0", f"{d}=C1", f"{e}=C2",
         f"{a}{b}=C-2:-1", f"{b}{c}=C-1:0", f"{c}{d}=C0:1", f"{d}{e}=C1:2"]
        for a, b, c, d, e in zip(p, p[1:], p[2:], p[3:], p[4:])
    ]


def _f3(chars: str) -> list[list[str]]:
    p = [PAD, PAD, *chars, PAD, PAD]
    return [
        [f"{a}=C-2", f"{b}=C-1", f"{c}=C0", f"{d}=C1", f"{e}=C2",
         f"{a}{b}=C-2:-1", f"{b}{c}=C-1:0", f"{c}{d}=C0:1", f"{d}{e}=C1:2",
         f"{a}{b}{c}=C-2:0", f"{b}{c}{d}=C-1:1", f"{c}{d}{e}=C0:2"]
        for a, b, c, d, e in zip(p, p[1:], p[2:], p[3:], p[4:])
    ]


# --------------------------------------------------------------------------
# word templates W1, W2, W3: the items are the words of the gold segmentation
# (a task whose members tag words, :attr:`committee.tasks.Task.item`)

#: The word template standing for each template of a config when a task's
#: members tag words (docs/method.md §14): ``F1`` -> ``W1`` and so on.
WORD_TEMPLATES = {"F1": "W1", "F2": "W2", "F3": "W3"}

#: What :attr:`committee.tasks.Task.item` says of members that tag words.
WORD_ITEMS = "words"

#: Longest word length named by the length attribute: ``4=N0`` is 4 or more.
MAX_LENGTH = 4


def _check_words(words) -> None:
    if isinstance(words, str):
        raise TypeError("word templates take a sequence of words, not a string of characters")


def _w1(words) -> list[list[str]]:
    _check_words(words)
    p = [PAD, *words, PAD]
    return [
        [f"{a}=W-1", f"{b}=W0", f"{c}=W1",
         f"{b[0]}=P0", f"{b[-1]}=S0", f"{min(len(b), MAX_LENGTH)}=N0"]
        for a, b, c in zip(p, p[1:], p[2:])
    ]


def _w2(words) -> list[list[str]]:
    _check_words(words)
    p = [PAD, PAD, *words, PAD, PAD]
    return [
        [f"{a}=W-2", f"{b}=W-1", f"{c}=W0", f"{d}=W1", f"{e}=W2",
         f"{b} {c}=W-1:0", f"{c} {d}=W0:1",
         f"{c[0]}=P0", f"{c[-1]}=S0", f"{min(len(c), MAX_LENGTH)}=N0"]
        for a, b, c, d, e in zip(p, p[1:], p[2:], p[3:], p[4:])
    ]


def _w3(words) -> list[list[str]]:
    _check_words(words)
    p = [PAD, PAD, *words, PAD, PAD]
    # the last character of the word before, the first of the word after
    last = [PAD, *(w[-1] for w in words), PAD]
    first = [PAD, *(w[0] for w in words), PAD]
    return [
        [f"{a}=W-2", f"{b}=W-1", f"{c}=W0", f"{d}=W1", f"{e}=W2",
         f"{b} {c}=W-1:0", f"{c} {d}=W0:1",
         f"{c[0]}=P0", f"{c[-1]}=S0", f"{min(len(c), MAX_LENGTH)}=N0",
         f"{c[:2]}=PP0", f"{c[-2:]}=SS0", f"{x}=S-1", f"{y}=P1"]
        for a, b, c, d, e, x, y in zip(p, p[1:], p[2:], p[3:], p[4:], last, first[2:])
    ]


_BUILDERS = {"F1": _f1, "F2": _f2, "F3": _f3, "W1": _w1, "W2": _w2, "W3": _w3}
_N_ATTRIBUTES.update({"W1": 6, "W2": 10, "W3": 14})


def template_for(template: str, item: str) -> str:
    """The template a member whose items are ``item`` is trained with: the
    config's ``template`` itself for characters, its word analogue
    (:data:`WORD_TEMPLATES`) for words.

    >>> template_for("F2", "characters"), template_for("F2", "words")
    ('F2', 'W2')
    """
    check_template(template)
    return WORD_TEMPLATES.get(template, template) if item == WORD_ITEMS else template


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
    """Number of attributes per character for ``template`` (5, 9 or 12;
    per word for the word templates: 6, 10, 14).

    >>> [n_attributes(t) for t in TEMPLATES]
    [5, 9, 12]
    """
    check_template(template)
    return _N_ATTRIBUTES[template]


def training_cost(n_sentences: int, template: str) -> int:
    """The expected cost of training a model of ``template`` on
    ``n_sentences`` sentences, in work units: the sentences times the
    template's attributes per item (:func:`n_attributes`), which the time
    to build and train a CRF grows with about linearly.  Progress bars count
    these units, so a member on 30% of the sentences weighs three times one
    on 10%, and F3 more than F1 on the same sample.

    >>> training_cost(300, "F1"), training_cost(100, "F1"), training_cost(100, "F3")
    (1500, 500, 1200)
    """
    return n_sentences * n_attributes(template)


def attributes(chars, template: str) -> list[list[str]]:
    """Attribute names of every character of one sentence (of every word,
    for the word templates).

    Parameters
    ----------
    chars : str, or tuple of str
        The characters of the sentence (may be empty); its words, for
        ``W1``-``W3`` (a :class:`TypeError` for a string).
    template : {"F1", "F2", "F3", "W1", "W2", "W3"}

    Returns
    -------
    list of list of str
        One list per character, in the fixed order unigrams (by offset),
        bigrams, trigrams.

    Examples
    --------
    >>> attributes("中国", "F1")
    [['<P>=C-1', '中=C0', '国=C1', '<P>中=C-1:0', '中国=C0:1'], \
['中=C-1', '国=C0', '<P>=C1', '中国=C-1:0', '国<P>=C0:1']]
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
