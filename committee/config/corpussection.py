"""The config's ``corpus`` section (docs/config.md): its sources (a file
or the embedded corpus), how a file is split, and the section itself.
:mod:`committee.config.schema` re-exports every name here."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Strict, field_validator, model_serializer, model_validator

from committee.config.base import NonEmptyStr, section_problem, Section, show_value
from committee.corpus import FORMATS
from committee.corpus import NORMALIZATIONS as corpus_normalizations
from committee.corpus.encodings import ENCODINGS, text_encoding
from committee.corpus.formats import TABLE_FORMATS
from committee.corpus.splits import format_ranges, parse_ranges


#: The normalisations a config may name: those of the corpus reader but "off" (None).
NORMALIZATIONS = tuple(n for n in corpus_normalizations if n is not None)
BUILTINS = ("peoples-daily-1998",)
#: The keys of a source in a table format (committee.corpus.tables).
TABLE_KEYS = ("dataset_split", "tokens_column", "tags_column")
SPLITS = ("train", "test")


class CorpusSource(Section):
    """One corpus file, one split of a file, or one split of a built-in corpus.

    Exactly one of ``path`` and ``builtin`` is given.  A path source has a
    ``format`` (default ``sighan``) and an ``encoding`` (default ``utf-8``),
    and a ``split`` when ``corpus.split`` divides the file into train and
    test; a built-in source has a ``split`` and is in ``pku`` format.
    """

    path: NonEmptyStr | None = None
    """a corpus file, or the directory of a saved dataset (format hf-dataset), relative to
    corpus.root; give path or builtin"""
    builtin: Literal[BUILTINS] | None = None
    """a built-in corpus instead of a file"""
    split: Literal[SPLITS] | None = None
    """the part, train or test: required with builtin; with path, a part of the file that
    corpus.split divides"""
    format: Literal[FORMATS] = "sighan"
    """the file's format (docs/corpora.md, Formats); pku for a built-in corpus"""
    encoding: NonEmptyStr | None = None
    """the file's encoding, any Python text encoding (utf-8 for a file; none for a built-in corpus)"""
    normalization: Literal[NORMALIZATIONS] | None = None
    """characters normalized before use; the same for train and test"""
    dataset_split: NonEmptyStr | None = None
    """hf-dataset: the split of a saved DatasetDict to read (null: train for corpus.train, test
    for corpus.test)"""
    tokens_column: NonEmptyStr | None = None
    """hf-dataset, parquet, jsonl: the column of each sentence's tokens (null: tokens)"""
    tags_column: NonEmptyStr | None = None
    """hf-dataset, parquet, jsonl: the column of their tags (null: the first of tags, ner_tags,
    pos_tags there is; none: words alone)"""

    @model_validator(mode="before")
    @classmethod
    def _fill_defaults(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if data.get("builtin") is not None and data.get("path") is None:
                data.setdefault("format", "pku")
            if data.get("path") is not None:
                data.setdefault("encoding", "utf-8")
        return data

    @field_validator("encoding")
    @classmethod
    def _known_encoding(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                text_encoding(value)
            except LookupError:
                raise section_problem(f"unknown encoding {value!r}") from None
            except ValueError as exc:
                raise section_problem(f"{exc}; use one of {', '.join(ENCODINGS)}") from None
        return value

    @model_validator(mode="after")
    def _one_source(self) -> CorpusSource:
        if self.path is not None and self.builtin is not None:
            raise section_problem("give either 'path' or 'builtin', not both")
        if self.path is None and self.builtin is None:
            raise section_problem("give 'path' (a corpus file) or 'builtin' (a built-in corpus)")
        if self.builtin is not None:
            if self.split is None:
                raise section_problem("required with 'builtin' (one of: train, test)", ("split",))
            if self.format != "pku":
                raise section_problem(f"built-in corpora are in 'pku' format, got {self.format!r}", ("format",))
            if self.encoding is not None:
                raise section_problem("does not apply to a built-in corpus", ("encoding",))
        for key in TABLE_KEYS:
            if getattr(self, key) is not None and self.format not in TABLE_FORMATS:
                raise section_problem(f"applies to the formats {', '.join(TABLE_FORMATS)}, not "
                                      f"to {self.format}", (key,))
        return self

    @model_serializer(mode="wrap")
    def _drop_unused(self, handler):
        data = handler(self)
        for key in ("path", "builtin", "split", "encoding", *TABLE_KEYS):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @property
    def is_builtin(self) -> bool:
        return self.builtin is not None


class SplitConfig(Section):
    """How ``corpus.split`` divides one file into train and test
    (:mod:`committee.corpus.splits`)."""

    test: float | str
    """the test part: a share of the sentences in (0, 1), or 1-based sentence ranges such as
    "8001-9000" or "1-500,9001-9500"; every other sentence is train"""
    seed: Annotated[int, Strict(), Field(ge=0)] | None = None
    """null: a share is the file's last sentences, contiguous, as in the built-in corpus; a
    seed: the share is drawn at random with it (the same draw on every machine), in file
    order"""

    @field_validator("test", mode="before")
    @classmethod
    def _share_or_ranges(cls, value: Any) -> float | str:
        if isinstance(value, str):
            try:
                return format_ranges(parse_ranges(value))
            except ValueError as exc:
                raise section_problem(str(exc)) from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise section_problem("give a share in (0, 1) such as 0.2, or sentence ranges such as "
                           f"'8001-9000', got {show_value(value)}")
        if not 0 < value < 1:
            raise section_problem(f"a share must be in (0, 1), got {show_value(value)} (sentence ranges "
                           "are a string, such as '8001-9000')")
        return float(value)

    @model_validator(mode="after")
    def _seed_with_share(self) -> SplitConfig:
        if self.seed is not None and isinstance(self.test, str):
            raise section_problem(f"applies to a share (test: 0.2), not to sentence ranges "
                           f"(test: {self.test!r})", ("seed",))
        return self

    @model_serializer(mode="wrap")
    def _drop_unused(self, handler):
        data = handler(self)
        if data.get("seed") is None:
            data.pop("seed", None)
        return data


class CorpusConfig(Section):
    root: NonEmptyStr | None = None
    """base directory of relative paths (itself relative to the working directory); null: the
    working directory"""
    train: CorpusSource
    """the training corpus: {path: FILE, format: F, encoding: E} or {builtin: NAME, split: train};
    a part of a file split by corpus.split: {path: FILE, split: train}"""
    test: CorpusSource
    """the test corpus, scored and given difficulties (same form as train)"""
    train_words: NonEmptyStr | None = None
    """word list (one a line) that defines OOV words; null: the words of train"""
    allow_overlap: Annotated[bool, Strict()] = False
    """true: a test set with the very words of the training set is a warning, not an error"""
    split: SplitConfig | None = None
    """divides one file, named by train {path: FILE, split: train} and test {path: FILE, split:
    test}: {test: 0.2} (the last 20% of the sentences), {test: 0.2, seed: 7} (20% drawn) or
    {test: "8001-9000"} (sentence ranges); null: train and test are files of their own"""

    @model_validator(mode="after")
    def _same_normalization(self) -> CorpusConfig:
        if self.train.normalization != self.test.normalization:
            raise section_problem(
                f"must equal train.normalization ({show_value(self.train.normalization)}), "
                f"got {show_value(self.test.normalization)}: one normalization applies "
                "to every file scored together",
                ("test", "normalization"),
            )
        return self

    @model_validator(mode="after")
    def _one_file_split(self) -> CorpusConfig:
        sources = {"train": self.train, "test": self.test}
        if self.split is not None and any(s.is_builtin for s in sources.values()):
            raise section_problem("applies to a file: the built-in corpus has its own split (its last "
                           "10% is test, split: test); remove corpus.split", ("split",))
        parts = [k for k, s in sources.items() if s.split is not None and not s.is_builtin]
        if self.split is None:
            if parts:
                raise section_problem("a part of a file needs corpus.split, e.g. split: {test: 0.2}; "
                               "a file of its own has no split", (parts[0], "split"))
            return self
        for key in ("train", "test"):
            if key not in parts:
                raise section_problem(f"required with corpus.split: {key} is a part of the split file "
                               f"(split: {key})", (key, "split"))
        for key in ("path", "format", "encoding"):
            a, b = getattr(self.train, key), getattr(self.test, key)
            if a != b:
                raise section_problem(f"must equal corpus.train.{key} ({show_value(a)}): corpus.split "
                               f"divides one file, got {show_value(b)}", ("test", key))
        if self.train.split == self.test.split:
            raise section_problem(f"must differ from corpus.train.split ({self.train.split!r}): "
                           "train and test would be the same sentences", ("test", "split"))
        if "\n".encode(self.train.encoding) != b"\n":
            raise section_problem(f"a file divided by corpus.split must be in an ASCII-compatible "
                           f"encoding, not {self.train.encoding!r}", ("train", "encoding"))
        return self

    @model_serializer(mode="wrap")
    def _drop_unused(self, handler):
        data = handler(self)
        if data.get("split") is None:
            data.pop("split", None)
        return data


def source_description(source: CorpusSource) -> str:
    """A corpus source in a few words, for messages.

    Examples
    --------
    >>> source_description(CorpusSource(path="gold/pku_test_gold.utf8"))
    'gold/pku_test_gold.utf8 (sighan, utf-8)'
    >>> source_description(CorpusSource(builtin="peoples-daily-1998", split="test", normalization="nfkc"))
    'built-in peoples-daily-1998, test split (pku, nfkc)'
    >>> source_description(CorpusSource(path="hk.conllu", format="conllu", split="test"))
    'hk.conllu, test part (conllu, utf-8)'
    """
    details = [source.format]
    if source.builtin is not None:
        what = f"built-in {source.builtin}, {source.split} split"
    else:
        what = source.path if source.split is None else f"{source.path}, {source.split} part"
        details.append(source.encoding)
    if source.normalization is not None:
        details.append(source.normalization)
    return f"{what} ({', '.join(details)})"

