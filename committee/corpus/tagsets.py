"""Part-of-speech tagsets and the mappings of taggers' tags into them.

A part-of-speech tagger run through ``--with`` (docs/segmenters.md,
"Part-of-speech taggers") writes its own tags; a task whose units carry
part-of-speech tags (:attr:`committee.tasks.Task.pos_tagset`) scores them
in its tagset, :data:`PD` (People's Daily 1998, the embedded corpus's).
:data:`MAPPINGS` says, for each tagger's tagset, which of its tags become
which tag of the target: a tag it renames, else the same tag when the
target has it.  A tag no mapping places is kept as written (it then never
matches a gold tag), counted, and named once in a warning
(:func:`map_tags`, :func:`unplaced_message`): never silently.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

__all__ = ["PD", "TAGSETS", "MAPPINGS", "map_tags", "unplaced_message"]

#: People's Daily 1998's tagset (Peking University's annotation
#: specification: Yu Shiwen et al. 2002), the embedded corpus's tags: the
#: word classes, their subclasses (``nr`` person, ``ns`` place, ``nt``
#: organisation, ``nz`` other proper noun, ``nx`` foreign letters, ``vn``
#: verbal noun, ``vd`` adverbial verb, ``ad``, ``an``), idioms ``i``, set
#: phrases ``l``, abbreviations ``j``, morphemes ``g`` and ``Ag`` .. ``Yg``,
#: non-morpheme characters ``x`` and punctuation ``w``.
PD = "pd"

TAGSETS: dict[str, frozenset[str]] = {
    PD: frozenset(
        "Ag a ad an b Bg c d Dg e f g h i j k l m Mg n Ng nr ns nt nx nz o p q Qg r Rg s t Tg "
        "u Ug v vd Vg vn w x y Yg z".split()),
    "jieba": frozenset(
        "a ad ag an b bg c d df dg e en eng f g h i in j jn k l ln m mg mq n ng nr nrfg nrt ns "
        "nt nz o p q qe qg r rg rr rz s t tg u ud ug uj ul uv uz v vd vg vi vn vq w x y yg z "
        "zg".split()),
    "thulac": frozenset("n np ns ni nz m q mq t f s v a d h k i id j r c p u y e o g w "
                        "x".split()),
    "lac": frozenset("n f s t nr ns nt nw nz v vd vn a ad an d m q r p c u xc w PER LOC ORG "
                     "TIME".split()),
}

#: (a tagger's tagset, the target tagset) -> its tags the target spells
#: otherwise; a tag not listed is kept when the target has it.
MAPPINGS: dict[tuple[str, str], dict[str, str]] = {
    # jieba.posseg: ICTCLAS's tags, lower-case morphemes, finer subclasses
    ("jieba", PD): {
        **{m: m[0].upper() + "g" for m in ("ag", "bg", "dg", "mg", "ng", "qg", "rg", "tg", "vg",
                                          "yg")},
        "df": "d", "mq": "m", "nrfg": "nr", "nrt": "nr", "rr": "r", "rz": "r",
        "vi": "v", "vq": "v", "qe": "q", "in": "i", "jn": "j", "ln": "l",
        **{u: "u" for u in ("ud", "ug", "uj", "ul", "uv", "uz")},
        "eng": "nx", "en": "nx",  # runs of Latin letters
        "x": "w",  # its punctuation and other symbols
        "zg": "g",  # its tag of single characters of its dictionary: a morpheme
    },
    # THULAC: its own names for person, organisation, number + measure word;
    # id (not in its documentation) marks the words of its idiom dictionary
    ("thulac", PD): {"np": "nr", "ni": "nt", "mq": "m", "id": "i"},
    # Baidu LAC: entity tags for its names and times, nw for works' titles;
    # its xc (other function words: interjections, onomatopoeia, ...) has
    # no one counterpart and is not placed
    ("lac", PD): {"PER": "nr", "LOC": "ns", "ORG": "nt", "TIME": "t", "nw": "nz"},
}

#: How messages name a target tagset.
NAMES = {PD: "People's Daily's"}


def map_tags(source: str, target: str,
             tags: Sequence[Sequence[str]]) -> tuple[list[list[str]], Counter]:
    """Each sentence's ``tags`` (tagset ``source``) in tagset ``target``,
    and how often each tag that has no place there was met (kept as
    written).  A ``source`` equal to ``target`` keeps every tag and counts
    those not in it (a ``cmd:`` tagger, which writes the target's tags).

    >>> map_tags("jieba", PD, [["nrfg", "x", "ng", "n"], ["un"]])
    ([['nr', 'w', 'Ng', 'n'], ['un']], Counter({'un': 1}))
    >>> map_tags("lac", PD, [["PER", "xc", "v"]])
    ([['nr', 'xc', 'v']], Counter({'xc': 1}))
    >>> map_tags(PD, PD, [["n", "NOUN"]])
    ([['n', 'NOUN']], Counter({'NOUN': 1}))
    """
    renames = {} if source == target else MAPPINGS[(source, target)]
    known = TAGSETS[target]
    out, unplaced = [], Counter()
    for sent in tags:
        mapped = [renames.get(t, t) for t in sent]
        unplaced.update(t for t in mapped if t not in known)
        out.append(mapped)
    return out, unplaced


def unplaced_message(who: str, target: str, unplaced: Counter, shown: int = 8) -> str | None:
    """One line naming the tags :func:`map_tags` could not place, the most
    frequent first (at most ``shown``), or None when there were none.

    >>> from collections import Counter
    >>> unplaced_message("lac", PD, Counter({"xc": 12, "O": 1}))
    "lac: 13 tags not in People's Daily's tagset, kept as written: xc (12), O (1)"
    """
    if not unplaced:
        return None
    n = sum(unplaced.values())
    named = ", ".join(f"{t} ({c:,})" for t, c in unplaced.most_common(shown))
    if len(unplaced) > shown:
        named += f" and {len(unplaced) - shown} more"
    return (f"{who}: {n:,} tag{'' if n == 1 else 's'} not in {NAMES.get(target, target)} "
            f"tagset, kept as written: {named}")
