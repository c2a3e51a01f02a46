"""Corpora as tables: one row per sentence, a column of its tokens and a
column of their tags, as the Hugging Face ``datasets`` library keeps them.

Three formats read them (:mod:`committee.corpus.formats`):

``hf-dataset``
    A directory written by ``datasets.Dataset.save_to_disk`` (its Arrow
    stream files, ``state.json`` and ``dataset_info.json``), or by
    ``DatasetDict.save_to_disk`` (``dataset_dict.json`` and a directory per
    split: the split is chosen by ``dataset_split``, by default the
    source's part, ``train`` or ``test``; a split's directory may also be
    given itself).  Read with pyarrow alone: ``datasets`` need not be
    installed.
``parquet``
    A parquet file, such as ``Dataset.to_parquet`` writes or a dataset of
    the Hub holds.
``jsonl``
    JSON lines: one object a line, a sentence each.

The tokens are read from the column ``tokens`` (or the one named by
``tokens_column``): for a segmentation they are the words, for entities
the tokens tagged (usually characters), for parts of speech the words
tagged.  The tags are read from the column named by ``tags_column``, by
default the first of ``tags``, ``ner_tags`` and ``pos_tags`` there is (none:
a corpus of words alone).  Integer tags are class labels: their names come
from the features the dataset records (a ``ClassLabel``, in
``dataset_info.json`` or in the file's ``huggingface`` metadata).  Tags of
a column ``ner_tags``, or all of the form ``O`` / ``X-TYPE``, are entity
tags (:attr:`committee.corpus.Corpus.tags`); others are parts of speech.

Every problem is one :class:`~committee.errors.InputError` naming the file
and the row (counted from 0, as ``dataset[i]``; for JSON lines, the line).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from committee.corpus.entities import TAG_SHAPE, is_tag
from committee.corpus.model import Corpus, content_sha256, normalize_words
from committee.errors import InputError
from committee.system.records import check_regular, parse_json, read_bytes

#: The default column of tokens, and the columns of tags looked for, in order.
TOKENS = "tokens"
TAG_COLUMNS = ("tags", "ner_tags", "pos_tags")
#: Columns whose tags are entity tags, and those whose tags are parts of speech.
ENTITY_COLUMNS = ("ner_tags",)
POS_COLUMNS = ("pos_tags", "upos_tags", "xpos_tags")
#: The files ``save_to_disk`` writes.
DICT_FILE = "dataset_dict.json"
STATE_FILE = "state.json"
INFO_FILE = "dataset_info.json"
#: The ``datasets`` library's key of a schema's metadata.
HF_METADATA = b"huggingface"
#: The largest plausible size of a saved dataset's JSON record.
RECORD_LIMIT = 16 << 20


@dataclass(frozen=True)
class TableOptions:
    """How a table is read.

    ``split``: the split of a saved ``DatasetDict`` (None: ``part``);
    ``tokens``, ``tags``: the columns (None: the defaults); ``part``: the
    source's part of the run, ``train`` or ``test``; ``key``: the config
    key of the source, which messages name (``corpus.train``).
    """

    split: str | None = None
    tokens: str | None = None
    tags: str | None = None
    part: str | None = None
    key: str | None = None

    def setting(self, name: str) -> str:
        """How to set ``name`` (``tokens_column``): its config key when read
        from a config, else the key of a config's corpus source."""
        return f"set {self.key}.{name}" if self.key else f"set {name} in a config's corpus source"


def source_options(source, key: str) -> TableOptions:
    """The options of a config's corpus ``source`` (keys ``dataset_split``,
    ``tokens_column``, ``tags_column``) named ``key`` (``corpus.train``)."""
    return TableOptions(split=getattr(source, "dataset_split", None),
                        tokens=getattr(source, "tokens_column", None),
                        tags=getattr(source, "tags_column", None),
                        part=getattr(source, "split", None) or key.rpartition(".")[2], key=key)


# --------------------------------------------------------------------------
# the three readers


def read_saved(path, normalization: str | None, options: TableOptions | None = None) -> Corpus:
    """A dataset saved by ``save_to_disk`` (see the module's docstring)."""
    import pyarrow as pa

    options = options or TableOptions()
    root = Path(path)
    label = os.fspath(path)
    if not root.is_dir():
        what = "no such directory" if not os.path.lexists(root) else "is not a directory"
        raise InputError(label, None, f"{what}: hf-dataset reads a directory written by "
                                      "datasets' save_to_disk")
    split_dir = _split_dir(root, label, options)
    state = _json(split_dir / STATE_FILE, "a directory written by save_to_disk")
    names = [f.get("filename") for f in state.get("_data_files", []) if isinstance(f, dict)]
    if not names or not all(isinstance(n, str) and "/" not in n for n in names):
        raise InputError(str(split_dir / STATE_FILE), None, "names no data files (_data_files)")
    tables, digest = [], hashlib.sha256()
    for name in names:
        f = split_dir / name
        try:
            data = f.read_bytes()
            tables.append(pa.ipc.open_stream(pa.py_buffer(data)).read_all())
        except OSError as exc:
            raise InputError(str(f), None, f"cannot read the file: {exc.strerror or exc}") from None
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise InputError(str(f), None, f"not an Arrow stream file ({_reason(exc)})") from None
        digest.update(data)
    try:
        table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    except pa.ArrowInvalid as exc:
        raise InputError(label, None, f"its data files differ in schema ({_reason(exc)})") from None
    info = split_dir / INFO_FILE
    features = (_json(info, "a dataset_info.json").get("features") if info.is_file() else None)
    return from_table(str(split_dir), table, features or _metadata(table.schema),
                      options, normalization, digest.hexdigest(), "hf-dataset")


def read_parquet(path, normalization: str | None, options: TableOptions | None = None) -> Corpus:
    """A parquet file, one row per sentence."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from committee.system.files import sha256_file

    label = os.fspath(path)
    check_regular(label, "give a corpus file")
    try:
        table = pq.read_table(label)
    except OSError as exc:
        raise InputError(label, None, f"cannot read the file: {exc.strerror or exc}") from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        raise InputError(label, None, f"not a readable parquet file ({_reason(exc)})") from None
    return from_table(label, table, _metadata(table.schema), options or TableOptions(),
                      normalization, sha256_file(label), "parquet")


def read_jsonl(path, normalization: str | None, options: TableOptions | None = None) -> Corpus:
    """JSON lines: one object a line, a sentence each (blank lines skipped)."""
    from committee.corpus.decoding import read_text, split_lines
    from committee.system.files import sha256_bytes

    options = options or TableOptions()
    label = os.fspath(path)
    check_regular(label, "give a corpus file")
    text, data = read_text(path, label, "utf-8", None)
    rows, lines = [], []
    for k, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        row = parse_json(line.encode("utf-8"), label, "give one JSON object a line", k)
        if not isinstance(row, dict):
            raise InputError(label, k, "is not a JSON object: give one object a line, such as "
                                       '{"tokens": ["迈向", "充满"], "tags": ["v", "v"]}')
        rows.append(row)
        lines.append(k)
    if not rows:
        raise InputError(label, None, "holds no JSON object (one a line)")
    names = _columns(rows)
    column = {name: [r.get(name) for r in rows] for name in names}
    return _corpus(label, column, None, options, normalization, sha256_bytes(data), "jsonl",
                   lines)


# --------------------------------------------------------------------------
# a table to a corpus


def from_table(label: str, table, features, options: TableOptions, normalization: str | None,
               sha256: str, format: str) -> Corpus:
    """The corpus in an Arrow ``table`` whose ``features`` (the ``datasets``
    library's, as a dict; None when unknown) may name its class labels."""
    names = table.column_names
    wanted = [c for c in (_tokens_name(names, label, options), _tags_name(names, label, options))
              if c is not None]
    column = {c: table.column(c).to_pylist() for c in wanted}
    return _corpus(label, column, features, options, normalization, sha256, format,
                   list(range(1, table.num_rows + 1)))


def _corpus(label: str, column: dict, features, options: TableOptions,
            normalization: str | None, sha256: str, format: str, lines: list[int]) -> Corpus:
    """The corpus of the columns ``column`` (name -> one value per row)."""
    names = list(column)
    tok, tag = _tokens_name(names, label, options), _tags_name(names, label, options)
    where = _where(format)
    words = [_tokens(label, where(k, i), row, normalization)
             for i, (k, row) in enumerate(zip(lines, column[tok]))]
    tags = None
    if tag is not None:
        label_names = class_names(features, tag)
        tags = [_tags(label, where(k, i), row, len(ws), label_names, tag, options)
                for i, (k, row, ws) in enumerate(zip(lines, column[tag], words))]
    entity = tags is not None and _entity_tags(tag, tags)
    if entity:
        for i, (k, row) in enumerate(zip(lines, tags)):
            bad = next((t for t in row if not is_tag(t)), None)
            if bad is not None:
                raise InputError(label, *where(k, i)(f"tag {bad!r} is not {TAG_SHAPE}"))
    return Corpus(path=label, words=words, lines=lines, pos=None if entity else tags,
                  sha256=sha256, normalization=normalization, format=format,
                  content_sha256=content_sha256(words, tags if entity else None),
                  tags=tags if entity else None)


def _where(format: str):
    """``where(line, i)(message)``: ``(line, message)`` for JSON lines,
    ``(None, "row i: message")`` for a table."""
    if format == "jsonl":
        return lambda k, i: (lambda m: (k, m))
    return lambda k, i: (lambda m: (None, f"row {i}: {m}"))


def _tokens(label: str, where, row, normalization: str | None) -> list[str]:
    if not isinstance(row, list) or not all(isinstance(t, str) for t in row):
        raise InputError(label, *where(f"its tokens are {_kind(row)}, not a list of strings"))
    for n, t in enumerate(row):
        if not t or t.split() != [t]:
            raise InputError(label, *where(f"token {n} is {t!r}: a token is a non-empty "
                                           "string without whitespace"))
    return row if normalization is None else normalize_words(label, None, row, normalization)


def _tags(label: str, where, row, n: int, names, column: str, options) -> list[str]:
    if not isinstance(row, list):
        raise InputError(label, *where(f"its {column} are {_kind(row)}, not a list"))
    if len(row) != n:
        raise InputError(label, *where(f"{len(row)} {column} for {n} tokens: one tag per token"))
    out = []
    for t in row:
        if isinstance(t, bool) or not isinstance(t, (str, int)):
            raise InputError(label, *where(f"tag {t!r} is neither a string nor a class label"))
        if isinstance(t, int):
            if names is None:
                raise InputError(label, *where(
                    f"tag {t} is an integer, and no ClassLabel of the features names column "
                    f"{column}'s labels: give the tags as strings"))
            if not 0 <= t < len(names):
                raise InputError(label, *where(f"tag {t} is no class of {column} (0 to "
                                               f"{len(names) - 1})"))
            t = names[t]
        out.append(t)
    return out


def _entity_tags(column: str, tags: list[list[str]]) -> bool:
    """Whether ``tags`` are entity tags: by their column's name, else by
    their form (all of them ``O`` or ``X-TYPE``)."""
    if column in ENTITY_COLUMNS:
        return True
    if column in POS_COLUMNS:
        return False
    return all(is_tag(t) for row in tags for t in row)


def class_names(features, column: str) -> list[str] | None:
    """The class label names of ``column``'s tags in ``features`` (the
    ``datasets`` library's dict: ``{"feature": {"names": [...], "_type":
    "ClassLabel"}, "_type": "List"}``, or the older ``Sequence``), or None.

    >>> class_names({"t": {"feature": {"names": ["O", "B-PER"], "_type": "ClassLabel"},
    ...                    "_type": "Sequence"}}, "t")
    ['O', 'B-PER']
    """
    if not isinstance(features, dict):
        return None
    spec = features.get(column)
    while isinstance(spec, dict) and "feature" in spec:
        spec = spec["feature"]
    if isinstance(spec, list) and len(spec) == 1:  # an old list-of-one form
        spec = spec[0]
    if isinstance(spec, dict) and spec.get("_type") == "ClassLabel":
        names = spec.get("names")
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            return names
    return None


# --------------------------------------------------------------------------
# the pieces


def _tokens_name(names, label: str, options: TableOptions) -> str:
    wanted = options.tokens or TOKENS
    if wanted not in names:
        raise InputError(label, None, f"has no column {wanted!r} of tokens (its columns: "
                                      f"{', '.join(names) or 'none'}); "
                                      f"{options.setting('tokens_column')} to the one that is")
    return wanted


def _tags_name(names, label: str, options: TableOptions) -> str | None:
    if options.tags is not None:
        if options.tags not in names:
            raise InputError(label, None, f"has no column {options.tags!r} of tags (its columns: "
                                          f"{', '.join(names)}); "
                                          f"{options.setting('tags_column')} to the one that is")
        return options.tags
    return next((c for c in TAG_COLUMNS if c in names), None)


def _columns(rows: list[dict]) -> list[str]:
    """The keys of JSON rows, in order of first appearance."""
    seen: dict[str, None] = {}
    for r in rows:
        seen.update(dict.fromkeys(r))
    return list(seen)


def _split_dir(root: Path, label: str, options: TableOptions) -> Path:
    """The directory of the split to read: ``root`` itself, or for a saved
    ``DatasetDict`` its split chosen by ``options``."""
    if not (root / DICT_FILE).is_file():
        if options.split is not None:
            raise InputError(label, None, f"is one dataset, not a DatasetDict of splits: "
                                          f"remove dataset_split ({options.split!r})")
        return root
    splits = _json(root / DICT_FILE, "a dataset_dict.json").get("splits")
    if not isinstance(splits, list) or not all(isinstance(s, str) for s in splits):
        raise InputError(str(root / DICT_FILE), None, "splits: must be a list of split names")
    wanted = options.split or options.part
    if wanted not in splits:
        choose = (f"{options.setting('dataset_split')} to one of them"
                  if options.key else "give one split's directory, such as "
                                      f"{root / splits[0]}" if splits else "")
        said = f"no split {wanted!r}" if wanted else "several splits"
        raise InputError(label, None, f"is a DatasetDict with {said} (its splits: "
                                      f"{', '.join(splits) or 'none'}): {choose}")
    return root / wanted


def _json(path: Path, what: str) -> dict:
    """A small JSON record of a saved dataset, read as the run reader reads
    its records: a regular file, bounded, strict JSON."""
    fix = f"give {what}"
    value = parse_json(read_bytes(path, RECORD_LIMIT, fix), str(path), fix)
    if not isinstance(value, dict):
        raise InputError(str(path), None, f"is not a JSON object; {fix}")
    return value


def _metadata(schema) -> dict | None:
    """The features the ``datasets`` library recorded in a schema's
    metadata, or None."""
    raw = (schema.metadata or {}).get(HF_METADATA)
    if raw is None:
        return None
    try:
        value = parse_json(raw, "<metadata>", "")
    except InputError:
        return None
    info = value.get("info") if isinstance(value, dict) else None
    return info.get("features") if isinstance(info, dict) else None


def _kind(value) -> str:
    return "missing" if value is None else f"a {type(value).__name__}"


def _reason(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__
