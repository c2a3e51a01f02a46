"""The one reader of a run directory's records: JSON and ``.npz`` files.

A run directory is the hand-off between ``committee run``, ``check-gold``,
``score --difficulty/--irt/--check-gold``, ``report`` and ``irt``, and it
may come from someone else (a colleague's run, a paper's released runs,
a directory edited by hand).  Every JSON record and every array file of a
run is read here, the same careful way:

* **only a regular file is opened**: a FIFO, a device, a socket or a
  directory (behind a symbolic link too) is refused without being read,
  and the file is opened with ``O_NONBLOCK`` so that one swapped in at
  the last moment cannot block;
* **its size is bounded before it is read**: each kind of file has a
  largest plausible size (:data:`LIMITS`, or a bound its caller derives
  from the test set), and a larger one is refused;
* **JSON is strict**: ``NaN`` and ``Infinity`` are no JSON numbers, and the
  shape of each record is checked by a schema (:mod:`pydantic`) before
  any value is used;
* **an array file is read header first**: each array's dtype and shape
  are checked against what the run should hold, and its inflated size is
  bounded, before anything is inflated; nothing is unpickled.

Every failure is one :class:`~committee.errors.InputError` naming the file
and what is wrong, ending with what to do (exit 3).  Whether a file still
has the checksum its run recorded is checked by
:func:`committee.pipeline.layout.verify`, which reads the records here.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "r.json").write_text('{"a": NaN}')
>>> read_json(d / "r.json", "record")
Traceback (most recent call last):
...
committee.errors.InputError: .../r.json: not valid JSON (NaN is not a JSON number); rerun the command that wrote it
"""

from __future__ import annotations

import io
import math
import os
import zipfile
import zlib
from dataclasses import dataclass
from typing import Annotated, Any, Mapping

import numpy as np
import pydantic

from committee.errors import InputError
# the bounded, strict reading of a small file, shared with the corpus formats
# that keep JSON records; re-exported as the reader's own
from committee.system.records import (  # noqa: F401
    DEFAULT_FIX, check_regular, not_regular, parse_json, read_bytes, size_text)

#: The largest plausible size of each kind of record, in bytes.  A manifest
#: of the 297-member committee of the largest corpus in docs/corpora.md has
#: about 120 KB; ``check-gold.json`` and ``irt.json`` are summaries.
LIMITS = {
    "manifest": 16 << 20,
    "state": 1 << 20,
    "check-gold": 4 << 20,
    "irt": 16 << 20,
    "system": 1 << 20,
    "table2": 1 << 20,
    "record": 16 << 20,
    # a member's marks and readings, as base64 bits or codes: a test set of
    # 10 million characters needs under 8 MiB
    "member": 64 << 20,
    # a table of one row per gold unit (words.tsv, items.tsv) or per
    # suspicious span: a test set of 10 million words needs about 400 MiB
    "table": 1 << 30,
}
#: What a value of each pydantic type must be, as the messages say it.
_WANTED = {"dict_type": "a JSON object", "string_type": "a string", "list_type": "an array",
           "int_type": "an integer", "float_type": "a number", "bool_type": "true or false"}


def _problem(exc: pydantic.ValidationError) -> str:
    """The first problem of a validation error, in the words of the file:
    ``files: must be a JSON object, not a string``."""
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err["loc"]) or "the file"
    kind = err["type"]
    if kind in _WANTED:
        return f"{where}: must be {_WANTED[kind]}, not {_article(err.get('input'))}"
    if kind == "string_pattern_mismatch":
        return f"{where}: {err.get('input')!r} is not a SHA-256 checksum (64 hex digits)"
    if kind == "missing":
        return f"{where}: missing"
    return f"{where}: {err['msg'].removeprefix('Value error, ')}"


def _article(value) -> str:
    """``a string``, ``an array``, ``null``: what a JSON value is."""
    t = _json_type(value)
    return t if t == "null" else ("an " if t[0] in "aeiou" else "a ") + t


def read_json(path: str | os.PathLike, kind: str, schema=None, fix: str = DEFAULT_FIX,
              limit: int | None = None) -> Any:
    """A JSON record of a run: bounded by ``limit`` (default: :data:`LIMITS`
    of ``kind``), strict, and checked by ``schema`` (a pydantic model: the
    record must pass it; a type: the record must be one).  Returns the
    record as parsed."""
    p = os.fspath(path)
    value = parse_json(read_bytes(p, LIMITS[kind] if limit is None else limit, fix), p, fix)
    if schema is None:
        return value
    if isinstance(schema, type) and not issubclass(schema, pydantic.BaseModel):
        if not isinstance(value, schema):
            raise InputError(p, None, f"holds a JSON {_json_type(value)}, not an "
                                      f"{_json_type(schema())}; {fix}")
        return value
    if not isinstance(value, dict):
        raise InputError(p, None, f"holds a JSON {_json_type(value)}, not an object; {fix}")
    try:
        schema.model_validate(value)
    except pydantic.ValidationError as exc:
        raise InputError(p, None, f"{_problem(exc)}; {fix}") from None
    return value


def _json_type(value) -> str:
    """The JSON name of ``value``'s type.

    >>> _json_type([]), _json_type({}), _json_type("x"), _json_type(None)
    ('array', 'object', 'string', 'null')
    """
    return {list: "array", dict: "object", str: "string", bool: "boolean", int: "number",
            float: "number"}.get(type(value), "null")


def check_dir(run_dir: str | os.PathLike) -> None:
    """Refuse a ``run_dir`` that is no directory, in words that say which:
    missing, or a file where the output.dir of a run is expected.

    >>> check_dir("/dev/null")
    Traceback (most recent call last):
    ...
    committee.errors.InputError: /dev/null: is a file, not a directory: give the output.dir of a finished `committee run`
    """
    if os.path.isdir(run_dir):
        return
    what = "no such directory" if not os.path.lexists(run_dir) else "is a file, not a directory"
    raise InputError(os.fspath(run_dir), None,
                     f"{what}: give the output.dir of a finished `committee run`")


def manifest_task(manifest: dict, path) -> str:
    """The task a run's ``manifest`` (read from ``path``) names; one this
    version does not know is an :class:`InputError` naming the file."""
    from committee import __version__
    from committee import tasks as tasks_mod

    task = manifest.get("config", {}).get("task", tasks_mod.DEFAULT_TASK)
    if task not in tasks_mod.TASKS:
        raise InputError(os.fspath(path), None,
                         f"config.task: {task!r} is not a task of committee {__version__} "
                         f"({', '.join(tasks_mod.TASKS)}): a run of another version? read it "
                         "with the version that wrote it")
    return task


def read_table(path: str | os.PathLike, kind: str = "table", fix: str = DEFAULT_FIX,
               limit: int | None = None, **options):
    """A TSV or CSV file of a run as a :class:`pandas.DataFrame`
    (``options``: :func:`pandas.read_csv`'s), bounded as :func:`read_bytes`;
    text that is not UTF-8, or that pandas cannot parse, is one line.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "t.tsv"
    >>> _ = f.write_text("word\\td\\n北京\\t0.5\\n", encoding="utf-8")
    >>> read_table(f, sep="\\t")["word"].tolist()
    ['北京']
    """
    import pandas as pd

    p = os.fspath(path)
    data = read_bytes(p, LIMITS[kind] if limit is None else limit, fix)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError(p, line, f"is not valid UTF-8 (byte {data[exc.start]:#04x}); "
                                  f"{fix}") from None
    try:
        return pd.read_csv(io.BytesIO(data), encoding="utf-8", **options)
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(p, None, f"not a table of the run ({reason}); {fix}") from None


#: The header of a run's training words with their counts.
WORD_COUNTS_HEADER = "word\tcount"


def format_word_counts(counts) -> str:
    """The text of a run's training words with their counts (a mapping of
    word to count): :data:`WORD_COUNTS_HEADER`, then ``word<TAB>count``
    lines in the order of the words.

    >>> format_word_counts({"北京": 2, "的": 5}).splitlines()
    ['word\\tcount', '北京\\t2', '的\\t5']
    """
    return "".join([WORD_COUNTS_HEADER + "\n"]
                   + [f"{w}\t{n}\n" for w, n in sorted(counts.items())])


def read_word_counts(path: str | os.PathLike, fix: str = DEFAULT_FIX) -> dict[str, int]:
    """A run's training words with their counts (:func:`format_word_counts`),
    bounded as :func:`read_bytes`: text that is not UTF-8, another header, or
    a line that is not a word and a positive count is refused.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "c.tsv"
    >>> _ = f.write_text(format_word_counts({"北京": 2}), encoding="utf-8")
    >>> read_word_counts(f)
    {'北京': 2}
    """
    p = os.fspath(path)
    data = read_bytes(p, LIMITS["table"], fix)
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise InputError(p, data[:exc.start].count(b"\n") + 1,
                         f"is not valid UTF-8 (byte {data[exc.start]:#04x}); {fix}") from None
    if lines[0] != WORD_COUNTS_HEADER:
        raise InputError(p, 1, f"expected the header {WORD_COUNTS_HEADER!r}; {fix}")
    counts: dict[str, int] = {}
    for lineno, line in enumerate(lines[1:], 2):
        if not line and lineno == len(lines):
            break
        word, _, n = line.partition("\t")
        if not word or word.strip() != word or not n.isascii() or not n.isdigit() or int(n) < 1 \
                or word in counts:
            raise InputError(p, lineno, f"expected a word not seen above, a tab and a positive "
                                        f"count, got {line[:60]!r}; {fix}")
        counts[word] = int(n)
    return counts


def format_train_text(sentences) -> str:
    """The text of a run's training corpus: each sentence's characters
    (a sentence is a list of words or tokens) on a line of its own.

    >>> format_train_text([["北京", "大学"], ["我"]])
    '北京大学\\n我\\n'
    """
    return "".join("".join(s) + "\n" for s in sentences)


def read_train_text(path: str | os.PathLike, fix: str = DEFAULT_FIX) -> str:
    """A run's training text (:func:`format_train_text`), bounded as
    :func:`read_bytes`: text that is not UTF-8, a control character or a
    missing final line end is refused.  Returns the lines joined by ``\\n``
    (no final one), as :class:`committee.metrics.buckets.Bucketer` counts in.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> _ = f.write_text(format_train_text([["北京"], ["我", "在"]]), encoding="utf-8")
    >>> read_train_text(f)
    '北京\\n我在'
    """
    import re

    p = os.fspath(path)
    data = read_bytes(p, LIMITS["table"], fix)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(p, data[:exc.start].count(b"\n") + 1,
                         f"is not valid UTF-8 (byte {data[exc.start]:#04x}); {fix}") from None
    if text and not text.endswith("\n"):
        raise InputError(p, text.count("\n") + 1, f"the last line has no line end; {fix}")
    bad = re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", text)  # a control character
    if bad is not None:
        raise InputError(p, text.count("\n", 0, bad.start()) + 1,
                         f"holds the control character {bad.group()!r}; {fix}")
    return text[:-1]


# --------------------------------------------------------------------------
# schemas


#: A SHA-256 checksum as a run records it: 64 lowercase hex digits.
Sha256 = Annotated[str, pydantic.StringConstraints(pattern=r"^[0-9a-f]{64}$")]


class _Record(pydantic.BaseModel):
    """A record whose keys this version does not know are kept, not refused
    (a run of a later version stays readable where it can be)."""

    model_config = pydantic.ConfigDict(extra="allow", strict=True)


class Manifest(_Record):
    """``manifest.json``: the config a run ran with and the checksums of its
    files (:func:`committee.pipeline.layout.write_manifest`)."""

    config: dict
    files: dict[str, Sha256] = {}
    corpus: dict = {}
    signature: str | None = None
    fingerprint: str | None = None

    @pydantic.field_validator("config")
    @classmethod
    def _task_is_a_name(cls, config: dict) -> dict:
        task = config.get("task", "segmentation")
        if not isinstance(task, str):
            raise ValueError(f"task must be a task's name, got {task!r}")
        return config

    def recorded(self, part: str, key: str) -> str | None:
        """``corpus.<part>.<key>`` (a checksum the run recorded), or None."""
        value = self.corpus.get(part)
        value = value.get(key) if isinstance(value, dict) else None
        return value if isinstance(value, str) else None


class RunState(_Record):
    """``run.json``: which run a directory holds (:mod:`committee.pipeline.layout`)."""

    name: str | None = None
    fingerprint: str | None = None


class Checksums(_Record):
    """A record that lists checksums of files beside it under ``files``
    (``irt.json``, ``check-gold.json``)."""

    files: dict[str, Sha256] = {}


# --------------------------------------------------------------------------
# arrays


@dataclass(frozen=True)
class Array:
    """What one array of an ``.npz`` file must be: one of the dtype
    ``kinds`` (numpy's letters: ``b`` bool, ``u``/``i`` integers, ``U``
    text) and ``shape`` (None for a dimension not known in advance);
    ``max_items``: the most elements it may hold when a dimension is open."""

    kinds: str
    shape: tuple
    max_items: int = 1 << 28

    def problem(self, dtype: np.dtype, shape: tuple) -> str | None:
        if dtype.hasobject or dtype.kind not in self.kinds:
            return f"holds {dtype} values"
        if len(shape) != len(self.shape) or any(
                want is not None and want != got for want, got in zip(self.shape, shape)):
            want = "(" + ", ".join("any" if w is None else str(w) for w in self.shape) + ")"
            return f"has shape {tuple(shape)}, expected {want}"
        if math.prod(shape) > self.max_items:
            return f"holds {math.prod(shape):,} values, at most {self.max_items:,} expected"
        return None


def read_npz(path: str | os.PathLike, arrays: Mapping[str, Array], fix: str = DEFAULT_FIX
             ) -> dict[str, np.ndarray]:
    """The ``arrays`` of an ``.npz`` file, each checked from its header
    (dtype, shape, size) before its data is inflated; the file must be a
    regular file whose compressed size is plausible for what it holds.

    >>> import tempfile, pathlib
    >>> from committee.system.files import write_npz
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "m.npz"
    >>> write_npz(f, marks=np.eye(2, dtype=bool))
    >>> read_npz(f, {"marks": Array("b", (2, 2))})["marks"].tolist()
    [[True, False], [False, True]]
    >>> read_npz(f, {"marks": Array("b", (3, 2))})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    committee.errors.InputError: .../m.npz: array 'marks' has shape (2, 2), expected (3, 2); rerun the command that wrote it
    """
    p = os.fspath(path)
    budget = sum(a.max_items if None in a.shape else math.prod(a.shape) for a in arrays.values())
    # deflate cannot shrink data more than about 1000-fold; allow for headers
    data = read_bytes(p, min(8 * budget + (1 << 20), 1 << 34), fix)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = {i.filename: i for i in zf.infolist()}
            out = {}
            for name, spec in arrays.items():
                info = names.get(name + ".npy")
                if info is None:
                    have = ", ".join(n.removesuffix(".npy") for n in names) or "nothing"
                    raise InputError(p, None, f"holds no array {name!r} (has: {have}); {fix}")
                out[name] = _read_member(zf, info, name, spec, p, fix)
            return out
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error,
            NotImplementedError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(p, None, f"not a readable .npz file ({reason}): truncated or "
                                  f"damaged? {fix}") from None


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, spec: Array,
                 p: str, fix: str) -> np.ndarray:
    """One array of an open ``.npz`` file, its header checked first."""
    fmt = np.lib.format
    with zf.open(info) as f:
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(f)
        else:
            raise ValueError(f"array {name!r} is of .npy format {version}, not read here")
        problem = spec.problem(dtype, shape)
        if problem is not None:
            raise InputError(p, None, f"array {name!r} {problem}; {fix}")
        nbytes = math.prod(shape) * dtype.itemsize
        if info.file_size > nbytes + (1 << 16):
            raise InputError(p, None, f"array {name!r} would inflate to {size_text(info.file_size)}"
                                      f", its header says {size_text(nbytes)}: not inflated; {fix}")
        raw = f.read(nbytes)
    if len(raw) != nbytes:
        raise ValueError(f"array {name!r} holds {len(raw)} bytes of {nbytes}")
    order = "F" if fortran else "C"
    return np.frombuffer(raw, dtype=dtype).reshape(shape, order=order).copy()
