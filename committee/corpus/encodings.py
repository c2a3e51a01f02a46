"""Which encoding turns a file's bytes into plausible Chinese text.

The Chinese encodings overlap: most Big5 byte pairs are also valid GB18030
(and the reverse), so "decodes without error" does not tell them apart.
What does is the text they give.  Real Chinese text is made almost only of
common characters (ASCII, CJK punctuation, full-width forms, and the
frequent Han characters of GB2312 and of Big5); a wrong
decoding gives an unusual share of rare Han characters, private-use code
points, kana, Cyrillic, Latin-1 letters and the like (:func:`unusual_share`).

:func:`rank_encodings` decodes the bytes with the Chinese encodings and the
candidates of ``charset-normalizer`` (a maintained detector, which covers
the encodings outside the Chinese family), groups the encodings that give
the same text, and ranks the groups by that share.  Within the Big5 family:

``big5``
    Strict Big5.  Named when it gives the same text as CP950.
``cp950``
    Microsoft's Big5: Big5 plus the ETEN extensions (``裏`` ``碁`` ...,
    box drawing) and the euro, and another mapping of eleven punctuation
    marks (0xA145 is ``‧`` U+2027, where ``big5`` and ``big5hkscs`` give
    ``•`` U+2022).  The UTF-8 files of the SIGHAN 2005 bakeoff follow
    CP950 there; it is preferred when both read as plausible text.
``big5hkscs``
    Big5 with the Hong Kong Supplementary Character Set (Cantonese ``嘅``
    ``喺`` ``啲`` ...).  Named when CP950 cannot decode the file.
"""

from __future__ import annotations

import codecs
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Decoding", "unusual_share", "unusual_counts", "rank_encodings", "PLAUSIBLE_MAX_SHARE",
           "CHINESE_ENCODINGS", "ENCODINGS", "text_encoding"]

#: Encodings documented and tested; any Python text encoding is accepted
#: (:func:`text_encoding`).
ENCODINGS = ("utf-8", "utf-8-sig", "gb18030", "cp936", "gbk", "big5", "cp950", "big5hkscs")

#: Encodings tried first, in the order they are named when they give the
#: same text (the narrowest first).
CHINESE_ENCODINGS = ("utf-8", "gb18030", "big5", "cp950", "big5hkscs")

# When decodings differ but are equally plausible, the group holding the
# first of these is named first (cp950 before big5: see the module docstring).
_GROUP_PREFERENCE = ("utf-8", "gb18030", "cp950", "big5", "big5hkscs")

#: A decoding whose share of unusual characters (among the non-ASCII ones)
#: is above this is implausible as Chinese text.  Real text of the SIGHAN
#: corpora, UD Chinese and NLPCC 2016 stays below 0.02; GB18030 read as Big5
#: and the reverse give 0.3 and more.
PLAUSIBLE_MAX_SHARE = 0.1

#: Fewer unusual characters than this never make a warning (a short file
#: with two rare names is not mojibake).
MOJIBAKE_MIN_COUNT = 5

# Characters counted at most, from the start of the text (keeps the check
# fast on large corpora; deterministic).
_SAMPLE_CHARS = 1_000_000

# Unicode blocks whose characters are usual in Chinese text besides the
# common Han characters: general punctuation, letter-like symbols, number
# forms, arrows, math, box drawing, geometric shapes, CJK symbols and
# punctuation, CJK compatibility forms, full-width forms.
_USUAL_RANGES = (
    (0x00A0, 0x00BF), (0x00D7, 0x00D7), (0x00F7, 0x00F7), (0x2000, 0x206F),
    (0x2100, 0x22FF), (0x2460, 0x24FF), (0x2500, 0x25FF), (0x2600, 0x26FF),
    (0x3000, 0x303F), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF),
)


@lru_cache(maxsize=1)
def _common_han() -> frozenset[str]:
    """The frequent Han characters: GB2312 level 1 (3,755), Big5 level 1
    (5,401) and the Han characters of HKSCS (Cantonese 嘅 喺 啲 ...).

    The rare levels (GB2312 level 2, Big5 level 2) stay out: a wrong
    decoding between GB and Big5 lands on them about half the time, real
    text seldom (1–3%).
    """
    out = set()
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                out.add(bytes((hi, lo)).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    for hi in range(0xA4, 0xC7):
        for lo in [*range(0x40, 0x7F), *range(0xA1, 0xFF)]:
            if hi == 0xC6 and lo > 0x7E:
                break
            try:
                out.add(bytes((hi, lo)).decode("big5"))
            except UnicodeDecodeError:
                pass
    # HKSCS: the Han characters Big5-HKSCS adds (Cantonese 嘅 喺 啲 ...).
    for hi in [*range(0x87, 0xA1), *range(0xC6, 0xC9), *range(0xF9, 0xFF)]:
        for lo in [*range(0x40, 0x7F), *range(0xA1, 0xFF)]:
            try:
                ch = bytes((hi, lo)).decode("big5hkscs")
            except UnicodeDecodeError:
                continue
            if len(ch) == 1 and unicodedata.name(ch, "").startswith("CJK UNIFIED"):
                out.add(ch)
    return frozenset(out)


# Pinyin with tone marks (UD treebanks carry it in MISC as Translit).
_PINYIN = frozenset("āáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜüêÀÁÈÉÌÍÒÓÙÚÜĀĒĪŌŪ")


def _usual(ch: str, common: frozenset[str]) -> bool:
    if ch in common or ch in _PINYIN:
        return True
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in _USUAL_RANGES)


def unusual_share(text: str) -> float:
    """Share of the non-ASCII characters of ``text`` that are unusual in
    Chinese text (rare Han, private use, kana, Latin-1 letters, ...).

    Whitespace and ASCII do not count; a text with no non-ASCII character
    gives 0.0.

    Examples
    --------
    >>> unusual_share("迈向 充满 希望 的 新 世纪 。")
    0.0
    >>> unusual_share("臺灣 大學 的 學生")
    0.0
    >>> unusual_share("臺灣 大學".encode("big5").decode("gb18030"))  # mojibake
    0.75
    >>> unusual_share("abc")
    0.0
    """
    unusual, total = unusual_counts(text)
    return unusual / total if total else 0.0


def unusual_counts(text: str) -> tuple[int, int]:
    """``(unusual, non-ASCII)`` character counts of :func:`unusual_share`,
    over the first million characters.

    >>> unusual_counts("a 好 ぁ")
    (1, 2)
    """
    counts = Counter(text[:_SAMPLE_CHARS])
    common = _common_han()
    total = unusual = 0
    for ch, n in counts.items():
        if ch < "\x80" or ch.isspace():
            continue
        total += n
        if not _usual(ch, common):
            unusual += n
    return unusual, total


@dataclass(frozen=True)
class Decoding:
    """One way to read the bytes: the encodings that give the same text.

    Attributes
    ----------
    encodings : tuple of str
        Codec names, the one to name first first.
    unusual : float
        :func:`unusual_share` of the text.
    """

    encodings: tuple[str, ...]
    unusual: float

    @property
    def encoding(self) -> str:
        """The encoding to name."""
        return self.encodings[0]

    @property
    def plausible(self) -> bool:
        """True if the text reads as Chinese (:data:`PLAUSIBLE_MAX_SHARE`)."""
        return self.unusual <= PLAUSIBLE_MAX_SHARE


def _detector_candidates(data: bytes) -> list[str]:
    """Encodings ``charset-normalizer`` finds for ``data``, best first."""
    from charset_normalizer import from_bytes

    try:
        return [m.encoding for m in from_bytes(data[:200_000])]
    except Exception:  # the detector failing is no reason to fail the read
        return []


def _norm(encoding: str) -> str:
    name = codecs.lookup(encoding).name
    return {"utf_8": "utf-8", "big5-hkscs": "big5hkscs"}.get(name, name)


def rank_encodings(data: bytes, exclude: str | None = None) -> list[Decoding]:
    """The decodings of ``data``, the most plausible first.

    Parameters
    ----------
    data : bytes
    exclude : str, optional
        An encoding not to consider (the one that just failed).

    Returns
    -------
    list of Decoding
        Only encodings that decode every byte; plausible ones first, then
        by :func:`unusual_share`, ties by the preference of the module
        docstring.

    Examples
    --------
    >>> best = rank_encodings("臺灣 大學 的 學生\\n".encode("big5"))[0]
    >>> best.encodings, best.plausible
    (('big5', 'cp950', 'big5hkscs'), True)
    >>> rank_encodings("圖書館 裏 的 學生\\n".encode("cp950"))[0].encodings
    ('cp950', 'big5hkscs')
    >>> rank_encodings("佢哋 話 香港 城市 大學 嘅 學生 喺 度 溫書\\n".encode("big5hkscs"))[0].encoding
    'big5hkscs'
    >>> rank_encodings("迈向 充满 希望\\n".encode("gb18030"))[0].encoding
    'gb18030'
    """
    skip = _norm(exclude) if exclude else None
    names = []
    for enc in [*CHINESE_ENCODINGS, *_detector_candidates(data)]:
        try:
            n = _norm(enc)
        except LookupError:
            continue
        if n != skip and n not in names:
            names.append(n)
    texts: dict[str, list[str]] = {}
    for n in names:
        try:
            text = data.decode(n)
        except (UnicodeDecodeError, LookupError):
            continue
        texts.setdefault(text, []).append(n)
    groups = []
    for text, encs in texts.items():
        order = [e for e in CHINESE_ENCODINGS if e in encs] + [e for e in encs if e not in CHINESE_ENCODINGS]
        pref = min((_GROUP_PREFERENCE.index(e) for e in encs if e in _GROUP_PREFERENCE),
                   default=len(_GROUP_PREFERENCE) + names.index(encs[0]))
        d = Decoding(tuple(order), unusual_share(text))
        # among plausible decodings, 5% more unusual characters outweigh
        # the preference order
        groups.append((not d.plausible, int(d.unusual * 20), pref, d.unusual, d))
    groups.sort(key=lambda g: g[:4])
    return [g[-1] for g in groups]


def text_encoding(name: str) -> str:
    """The codec name of ``name`` when it is a text encoding, one that turns
    bytes into ``str``; every place that takes an encoding checks it here.

    Python's codec registry also holds codecs that no file can be read with:
    from bytes to bytes (``base64``, ``zlib_codec``, ``hex``, ``bz2``,
    ``quopri``, ``uu``), from str to str (``rot13``), and ``undefined``,
    which decodes nothing.  Raises :class:`LookupError` for a name that is no
    codec and :class:`ValueError` for a codec that is not a text encoding,
    each naming ``name``; callers add how to fix it where it was given.

    Examples
    --------
    >>> text_encoding("UTF8"), text_encoding("GB18030"), text_encoding("big5-hkscs")
    ('utf-8', 'gb18030', 'big5hkscs')
    >>> text_encoding("rot13")
    Traceback (most recent call last):
    ...
    ValueError: 'rot13' is not a text encoding (it encodes str to str)
    >>> text_encoding("zlib_codec")
    Traceback (most recent call last):
    ...
    ValueError: 'zlib_codec' is not a text encoding (it encodes bytes to bytes)
    >>> text_encoding("klingon")
    Traceback (most recent call last):
    ...
    LookupError: unknown encoding 'klingon'
    """
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise LookupError(f"unknown encoding {name!r}") from None
    if getattr(info, "_is_text_encoding", True):
        try:
            decodes = isinstance(info.decode(b"")[0], str)
        except Exception:  # a codec that refuses even no bytes (``undefined``)
            decodes = False
        if decodes:
            return info.name
        raise ValueError(f"{name!r} is not a text encoding (it decodes nothing)")
    kind = "it does not turn bytes into text"
    for probe, what in ((b"", "bytes"), ("", "str")):
        try:
            out = info.encode(probe)[0]
        except Exception:  # the probe is of the other type
            continue
        kind = f"it encodes {what} to {'str' if isinstance(out, str) else 'bytes'}"
        break
    raise ValueError(f"{name!r} is not a text encoding ({kind})")


def is_unicode(encoding: str) -> bool:
    """True for the UTF encodings, whose successful decoding needs no
    plausibility check.

    >>> is_unicode("UTF8"), is_unicode("utf-8-sig"), is_unicode("big5")
    (True, True, False)
    """
    return codecs.lookup(encoding).name.startswith("utf")


def describe(ch: str) -> str:
    """``U+XXXX NAME`` of a character (for messages).

    >>> describe("‧")
    'U+2027 HYPHENATION POINT'
    """
    return f"U+{ord(ch):04X} {unicodedata.name(ch, '(unnamed)')}"
