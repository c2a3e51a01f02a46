"""The corpus formats: one :class:`Format` record each, in :data:`RECORDS`.

A record holds everything about a format: its name, its parser, the test
that tells its lines (:mod:`committee.corpus.sniffing`), its place in the
sniffing order, what it looks like in messages and its line of
docs/corpora.md.  :data:`FORMATS`, :data:`LOOKS` and the sniffing order
follow from the records; a new format is one more record.

``sighan``
    One sentence per line, words separated by any Unicode whitespace
    (space, tab, U+3000, U+00A0, ...).  Also the NLPCC 2016 ``.dat`` files.
    Blank lines are sentences with no words.
``pku``
    People's Daily 1998: ``word/POS`` tokens separated by whitespace, split
    on the last ``/``.  Bracketed compounds ``[中央/n 人民/n 广播/vn 电台/n]nt``
    give their inner words with their own POS; the compound's tag (``nt``)
    is dropped.  Blank lines are sentences with no words.
``char-slash``
    ``字/B 字/E ...``, one sentence per line; tags BMES or BIES (``I`` is
    ``M``), in either case.  Blank lines are sentences with no words.
``char-tsv``
    ``char<TAB>tag``, one character per line, blank lines between
    sentences.  A sentence's line is its first character's line.
``conllu``
    Universal Dependencies: the FORM (column 2) of word lines, UPOS
    (column 4) as POS; comments, multiword-token ranges (``3-4``) and empty
    nodes (``5.1``) are skipped; blank lines end sentences.  A sentence's
    line is the first line of its block (its first comment, if any).
``conllu-xpos``
    ``conllu`` with XPOS (column 5) as POS instead of UPOS: the same
    lines, so a file of either is read as the other (its shape is
    ``conllu``).
``underscore``
    ``word_TAG`` tokens separated by whitespace, split on the last ``_``
    (Penn Chinese Treebank style, ``上海_NR 浦东_NR``).  Blank lines are
    sentences with no words.
``bio``
    Labelled spans (named entities): a token and its tag a line, separated
    by a tab or spaces (``江泽民<TAB>S-PER``, ``北 B-LOC``), blank lines
    between sentences, ``-DOCSTART-`` lines skipped.  A tag is ``O`` or
    ``X-TYPE`` with X one of B, I, E, S, M, in the schemes IOB1, IOB2,
    IOBES or BMES (:mod:`committee.corpus.entities`); the tags go to
    :attr:`~committee.corpus.Corpus.tags`.  A sentence's line is its first
    token's.

The word list (``*_training_words``, read by
:func:`committee.corpus.read_word_list`) has a record too, without a
parser: sniffing tells it from a corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from committee.corpus.entities import is_tag
from committee.corpus.parsers import (CONLLU_ID, parse_bio, parse_char_slash, parse_char_tsv, parse_conllu,
                                      parse_conllu_xpos, parse_pku, parse_sighan,
                                      parse_underscore)
from committee.corpus.tables import read_jsonl, read_parquet, read_saved
from committee.corpus.tagging import CHAR_TAGS

#: Lines looked at to tell the format, from the start of the file.
SNIFF_LINES = 500

_CONLLU_ID = CONLLU_ID
_PKU_TOKEN = re.compile(r"\[?[^/\s]+/[A-Za-z][A-Za-z0-9]*(?:\][A-Za-z0-9]+)?")
_UNDERSCORE_TOKEN = re.compile(r"\S*[^_\s]_[A-Za-z][A-Za-z0-9$-]*")


def at_least_half(count: int, n: int, lines: Sequence[str]) -> bool:
    """The default claim: at least half of the ``n`` lines looked at have the shape."""
    return count * 2 >= n


def more_than_half(count: int, n: int, lines: Sequence[str]) -> bool:
    """More than half (sighan: a word list may hold a few two-word entries)."""
    return count * 2 > n


def word_list_claim(count: int, n: int, lines: Sequence[str]) -> bool:
    """20 lines or more, 95% of them one token, of at most 8 characters in the median."""
    if n < 20 or count < 0.95 * n:
        return False
    sample = [s.strip() for s in lines[:SNIFF_LINES * 2] if s.strip()]
    lengths = sorted(len(s) for s in sample)
    return lengths[len(lengths) // 2] <= 8


@dataclass(frozen=True)
class Format:
    """One corpus format.

    Attributes
    ----------
    name : str
        As given to ``read_corpus(format=...)``, ``--format`` and configs.
    parse : callable or None
        ``(path, lines, normalization) -> (words, line numbers, pos)``
        (:mod:`committee.corpus.parsers`); None for what is not a corpus
        format (the word list).
    line : callable
        ``line(s) -> True | False | None`` for one non-blank, non-comment
        line: it has the format's shape, it has not, or it decides nothing
        (the lines' test stops there).
    precedence : int
        Sniffing order, smallest first: lines are tested, and formats
        claimed, in this order.
    looks : str
        What a file of this format looks like, as messages say it
        (``looks like pku (word/POS tokens)``).
    what : str
        Its line in the format table of docs/corpora.md.
    pos : str
        Whether its POS tags are kept (the table's last column).
    claim : callable
        ``claim(count, n, lines)``: whether ``count`` lines of this shape
        among the ``n`` looked at make the file this format.
    within : str or None
        A format whose lines are also lines of this one (char-slash lines
        are valid pku): this one is named only when at most a tenth of
        the lines are of the other one only; else its lines count for it.
    comment_lines : bool
        Lines starting with ``#`` belong to the format, so the line that
        shows it is its first comment when there is one.
    labelled : bool
        The parser's third value is one span tag per token (``B-PER``,
        ``O``; :attr:`committee.corpus.Corpus.tags`), not POS.
    shape : str or None
        The format whose lines it reads, when another one (``conllu-xpos``
        reads CoNLL-U lines): a file that looks like that format is read
        as this one without complaint; None for its own lines.
    misshapen : callable or None
        ``misshapen(s) -> (looks, fix) | None`` for a line that looks like
        another format only because it is this format's line written
        wrongly (CoNLL-U columns separated by spaces): what it looks like
        and what to change in the file, so that the refusal names this
        format rather than the one the line happens to resemble.
    read : callable or None
        ``(path, normalization, options) -> Corpus`` for a format that is
        not lines of text (a table: :mod:`committee.corpus.tables`), read
        whole instead of parsed line by line (``parse`` is None; its
        ``line`` claims nothing, so sniffing never names it).
    """

    name: str
    parse: Callable | None
    line: Callable[[str], bool | None]
    precedence: int
    looks: str
    what: str
    pos: str = "no"
    claim: Callable[[int, int, Sequence[str]], bool] = at_least_half
    within: str | None = None
    comment_lines: bool = False
    labelled: bool = False
    shape: str | None = None
    misshapen: Callable[[str], tuple[str, str] | None] | None = None
    read: Callable | None = None


def _conllu_line(s: str) -> bool:
    cols = s.split("\t")
    return len(cols) == 10 and bool(_CONLLU_ID.fullmatch(cols[0].strip()))


def _conllu_spaced(s: str) -> tuple[str, str] | None:
    """A CoNLL-U word line whose 10 columns are separated by spaces, not tabs.

    >>> _conllu_spaced("1 北京 北京 PROPN _ _ 0 root _ _")[0]
    'CoNLL-U with its columns separated by spaces (10 columns, no tab)'
    >>> _conllu_spaced("北京 大学 是 一 所 大学 ， 在 海淀 。") is None
    True
    """
    cols = s.split()
    if "\t" in s.strip() or len(cols) != 10 or not _CONLLU_ID.fullmatch(cols[0]):
        return None
    return ("CoNLL-U with its columns separated by spaces (10 columns, no tab)",
            "CoNLL-U separates its 10 columns by tabs: replace the spaces between columns "
            "with tabs")


def _underscore_untagged(s: str) -> tuple[str, str] | None:
    """A line of ``word_TAG`` tokens whose tags are missing (``上海_ 浦东_``).

    >>> _underscore_untagged("上海_ 浦东_NR")[0]
    "underscore tokens with empty tags (such as '上海_')"
    >>> _underscore_untagged("上海 浦东") is None
    True
    """
    toks = s.split()
    bare = [t for t in toks if t.endswith("_") and t.strip("_")]
    if not bare or any(t not in bare and not _UNDERSCORE_TOKEN.fullmatch(t) for t in toks):
        return None
    return (f"underscore tokens with empty tags (such as {bare[0]!r})",
            "every token is word_TAG: give each word its tag after the last '_'")


def _char_tsv_line(s: str) -> bool:
    cols = s.split("\t")
    return len(cols) == 2 and len(cols[0]) == 1 and cols[1].strip().upper() in CHAR_TAGS


def _tagged(s: str) -> tuple[bool, bool] | None:
    """For a line where half the tokens or more are ``word/TAG`` (so that a
    line with one malformed token still counts and the parser names the
    token): whether a word or a tag is longer than one character, and
    whether a tag is upper case; None for other lines."""
    toks = s.split()
    tagged = [t.rpartition("/") for t in toks if _PKU_TOKEN.fullmatch(t)]
    if 2 * len(tagged) < len(toks):
        return None
    long = any(len(w.lstrip("[")) > 1 or len(p.partition("]")[0]) > 1 for w, _, p in tagged)
    return long, any(p.isupper() for _, _, p in tagged)


def _char_slash_line(s: str) -> bool:
    """One-character words with one-letter tags, one of them upper case
    (PKU's one-letter tags are lower case)."""
    found = _tagged(s)
    return found is not None and not found[0] and found[1]


def _pku_line(s: str) -> bool | None:
    """``word/POS`` tokens; one-character words with lower-case one-letter
    tags (``一/m 二/m``) fit pku and char-slash alike and decide nothing."""
    found = _tagged(s)
    if found is None:
        return False
    long, upper = found
    return True if long else (False if upper else None)


def _sighan_line(s: str) -> bool | None:
    """Several words; a line with inner tabs that is no other format decides nothing."""
    if "\t" in s.strip():
        return None
    return len(s.split()) > 1


def _bio_line(s: str) -> bool:
    """A token and an entity tag (``O``, ``B-PER``; not char-tsv's bare
    ``B``), or a CoNLL ``-DOCSTART-`` line."""
    cols = s.split()
    return s.startswith("-DOCSTART-") or (len(cols) == 2 and is_tag(cols[1]))


def _underscore_line(s: str) -> bool:
    """Half the tokens or more are ``word_TAG`` (so that the parser names a
    malformed one)."""
    toks = s.split()
    return 2 * sum(1 for t in toks if _UNDERSCORE_TOKEN.fullmatch(t)) >= len(toks) > 0


def _no_line(s: str) -> bool:
    """A format that is not lines of text: no line has its shape."""
    return False


def _word_list_line(s: str) -> bool:
    return len(s.split()) == 1


#: Every format, in the order that messages and ``--help`` list them.
RECORDS: tuple[Format, ...] = (
    Format("sighan", parse_sighan, _sighan_line, 6,
           looks="sighan (several words a line, separated by spaces)",
           what="one sentence per line, words separated by any Unicode whitespace "
                "(space, tab, U+3000, U+00A0); also NLPCC 2016 `.dat`",
           claim=more_than_half),
    Format("pku", parse_pku, _pku_line, 3,
           looks="pku (word/POS tokens)",
           what="People's Daily `word/POS`; bracketed compounds `[中央/n 人民/n]nt` give "
                "their inner words",
           pos="yes (idioms are `i`)"),
    Format("char-slash", parse_char_slash, _char_slash_line, 2,
           looks="char-slash (字/B tokens, one character each)",
           what="`字/B 字/E …` (BMES or BIES, either case)",
           within="pku"),
    Format("char-tsv", parse_char_tsv, _char_tsv_line, 1,
           looks="char-tsv (a character, a tab and a B/M/E/S tag a line)",
           what="`char<TAB>tag`, blank line between sentences"),
    Format("conllu", parse_conllu, _conllu_line, 0,
           looks="CoNLL-U (10 tab-separated columns)",
           what="Universal Dependencies: FORM of word lines; comments, ranges `3-4`, "
                "empty nodes `5.1` skipped",
           pos="UPOS", comment_lines=True, misshapen=_conllu_spaced),
    Format("conllu-xpos", parse_conllu_xpos, lambda s: False, 8,
           looks="CoNLL-U (10 tab-separated columns)",
           what="`conllu` with XPOS (column 5) as the POS instead of UPOS",
           pos="XPOS", comment_lines=True, shape="conllu", misshapen=_conllu_spaced),
    Format("underscore", parse_underscore, _underscore_line, 5,
           looks="underscore (word_TAG tokens)",
           what="`word_TAG` tokens (`上海_NR 浦东_NR`), split on the last `_`",
           pos="yes", misshapen=_underscore_untagged),
    Format("bio", parse_bio, _bio_line, 4,
           looks="bio (a token and its entity tag a line, such as 江 B-PER)",
           what="labelled spans: `token<TAB>tag` or `token tag` a line (`O`, `B-PER`, … in "
                "IOB1, IOB2, IOBES or BMES), blank line between sentences; `-DOCSTART-` "
                "lines skipped",
           pos="no (entity tags kept)", labelled=True),
    Format("hf-dataset", None, _no_line, 9,
           looks="a dataset saved by datasets' save_to_disk (a directory)",
           what="a directory written by `datasets`' `save_to_disk` (a `DatasetDict`'s split: "
                "`dataset_split`); tokens and tags columns (`tokens_column`, `tags_column`), "
                "integer tags named by its `ClassLabel`",
           pos="yes (a tags column)", read=read_saved),
    Format("parquet", None, _no_line, 10,
           looks="a parquet file",
           what="a parquet file, one row per sentence: a list of tokens and a list of tags "
                "(as `hf-dataset`)",
           pos="yes (a tags column)", read=read_parquet),
    Format("jsonl", None, _no_line, 11,
           looks="JSON lines (one object a line)",
           what="JSON lines, one object per sentence: `{\"tokens\": [...], \"tags\": [...]}` "
                "(as `hf-dataset`; tags as strings)",
           pos="yes (a tags column)", read=read_jsonl),
    Format("word-list", None, _word_list_line, 7,
           looks="a word list (one short word a line)",
           what="one entry a line (`*_training_words`): the training vocabulary",
           claim=word_list_claim),
)

#: The records by name.
BY_NAME: dict[str, Format] = {f.name: f for f in RECORDS}

#: Format names accepted by :func:`committee.corpus.read_corpus`.
FORMATS: tuple[str, ...] = tuple(f.name for f in RECORDS
                                 if f.parse is not None or f.read is not None)

#: The formats of lines of text, parsed line by line (sniffed, refused as another).
TEXT_FORMATS: tuple[str, ...] = tuple(f.name for f in RECORDS if f.parse is not None)

#: The formats of tables (:mod:`committee.corpus.tables`): read whole, with
#: their columns and split chosen by a config's corpus source.
TABLE_FORMATS: tuple[str, ...] = tuple(f.name for f in RECORDS if f.read is not None)

#: What each format (and a word list) looks like, as said in messages.
LOOKS: dict[str, str] = {f.name: f.looks for f in RECORDS}

#: The records in sniffing order.
SNIFF_ORDER: tuple[Format, ...] = tuple(sorted(RECORDS, key=lambda f: f.precedence))


def format_table() -> str:
    """The format table of docs/corpora.md (Markdown), one row per corpus format."""
    rows = ["| format | what | POS kept |", "|---|---|---|"]
    rows += [f"| `{f.name}` | {f.what} | {f.pos} |" for f in RECORDS if f.name in FORMATS]
    return "\n".join(rows) + "\n"
