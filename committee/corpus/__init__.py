"""Reading and writing segmented corpora (docs/method.md §1, §9; docs/corpora.md).

A corpus is a list of sentences; a sentence is a list of words (non-empty
strings).  Line ``k`` of a SIGHAN-style file is sentence ``k`` (blank lines
are kept as sentences with no words, so that gold and output align line by
line).  Readers never "fix" input: bytes that do not decode, malformed
tokens and the like raise :class:`committee.errors.InputError` naming the
file and line.

The package, along the way a file takes:

``decoding``
    Bytes to text, block by block, refused at the first problem in one
    line naming the file and the line.
``encodings``
    Which encoding turns the bytes into plausible Chinese text
    (:data:`ENCODINGS`, the documented set).
``formats``
    One :class:`~committee.corpus.formats.Format` record per format
    (:data:`FORMATS`): its parser, its line shape, its sniffing precedence,
    what it looks like in messages and its line in docs/corpora.md.
``parsers``
    The formats' parsers.
``sniffing``
    The format a file's first lines look like (:func:`sniff_format`).
``reading``
    :func:`read_corpus` and :func:`read_word_list`.
``model``
    :class:`Corpus`, normalisation (:data:`NORMALIZATIONS`), checksums of
    content and of word lists.
``tagging``
    BMES tags (:func:`to_bmes`, :func:`from_bmes`).
``entities``
    Entity tags (``B-PER``, ``O``) of a labelled corpus and their schemes
    (:data:`~committee.corpus.entities.SCHEMES`): the entities by the
    conlleval rules or strict to a scheme, scheme detection, ill-formed
    sequences, spans to IOBES tags.
``writing``
    SIGHAN text (:func:`format_sighan`, :func:`write_sighan`).
``splits``
    A file split into train and test: the tail (:func:`split_tail`), a
    seeded draw or sentence ranges (:func:`split_by`).
``embedded``
    The embedded People's Daily corpus (:data:`EMBEDDED_NAME`) and its split.

Normalisation (:data:`NORMALIZATIONS`, off by default) is applied to each
word after splitting: ``"nfkc"`` is Unicode NFKC, ``"fullwidth"`` maps only
full-width ASCII U+FF01–U+FF5E to U+0021–U+007E.  Gold and output must be
read with the same setting; the setting is recorded in the corpus.
"""

from __future__ import annotations

from committee.corpus.embedded import EMBEDDED_NAME, embedded_path, read_embedded
from committee.corpus.encodings import ENCODINGS
from committee.corpus.entities import SCHEMES
from committee.corpus.formats import FORMATS, LOOKS, Format
from committee.corpus.model import (NORMALIZATIONS, Corpus, content_sha256, normalize,
                                    training_words, word_list_sha256)
from committee.corpus.reading import read_corpus, read_word_list
from committee.corpus.sniffing import sniff_format
from committee.corpus.splits import split_by, split_tail
from committee.corpus.tagging import from_bmes, to_bmes
from committee.corpus.writing import (format_bio, format_output, format_pku, format_sighan,
                                      write_bio, write_output, write_pku, write_sighan)

__all__ = [
    "Corpus",
    "FORMATS",
    "ENCODINGS",
    "NORMALIZATIONS",
    "EMBEDDED_NAME",
    "read_corpus",
    "read_word_list",
    "sniff_format",
    "content_sha256",
    "word_list_sha256",
    "training_words",
    "format_sighan",
    "write_sighan",
    "format_bio",
    "write_bio",
    "format_pku",
    "write_pku",
    "format_output",
    "write_output",
    "normalize",
    "to_bmes",
    "from_bmes",
    "embedded_path",
    "read_embedded",
    "split_tail",
    "split_by",
    "Format",
    "LOOKS",
    "SCHEMES",
]
