"""``committee export RUN DIR``: a finished run's difficulty dataset as a
dataset that ``datasets.load_dataset(DIR)`` (Hugging Face) reads back.

``DIR`` receives two files, each written atomically:

* ``data/test-00000-of-00001.parquet``: one row per gold unit of the run's
  test set (a word; an entity; a tagged word), in corpus order, with an
  explicit schema (:func:`columns`): the sentence and the unit's index in
  it, its span of characters in the sentence, its text, its gold label
  (entity type or tag, a class label; no column for a segmentation), its
  difficulty and the members that got it right, its IRT parameters when
  ``committee irt`` has fitted the run, and with ``members`` each member's
  outcome;
* ``README.md``: the dataset card, whose YAML front matter declares the
  features (``dataset_info``; label names as ``class_label`` names), the
  split, the language, the size category, the licence and the run's
  signature and config, so that the loader casts every column back to the
  type written.

The run is read as every reader reads it (:mod:`committee.pipeline.runfiles`
under the task's unit kind, :func:`committee.pipeline.layout.verify` first).
``DIR`` may be new, empty or an earlier export (its two files are
replaced); a directory holding anything else is refused unless ``force``.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from committee import tasks as tasks_mod
from committee.errors import InputError, RunError
from committee.pipeline import layout
from committee.pipeline.unitfiles import UnitFiles
from committee.system.files import atomic_write_bytes, atomic_write_text

#: How this command is named in messages.
COMMAND = "committee export"
#: The split the rows form: the run's test set.
SPLIT = "test"
#: The data file and the card, relative to ``DIR``.
DATA_FILE = f"data/{SPLIT}-00000-of-00001.parquet"
CARD_FILE = "README.md"
#: What an export writes: what a later export into the same ``DIR`` may replace.
OWN_ENTRIES = frozenset({"data", CARD_FILE})
#: The files of a run it reads (those its unit kind reads back), checked first.
READS = (layout.TEST_FILE, layout.WORDS_FILE, layout.MARKS_FILE, layout.PREDICTIONS_FILE,
         layout.WEIGHT_FILE, layout.WEIGHT_C_FILE)
#: Licences of corpora, by the start of the training file's name (SPDX-like
#: identifiers as the Hub spells them); any other corpus gets ``other``.
LICENSES = {"zh_gsdsimp-ud-": "cc-by-sa-4.0", "zh_gsd-ud-": "cc-by-sa-4.0"}
DEFAULT_LICENSE = "other"
#: Size categories of the Hub, by their largest row count.
SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
         (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"))


@dataclass(frozen=True)
class Column:
    """One column of the export: its values, its Arrow type and its
    feature as the card declares it (``feature``) and as the ``datasets``
    library records it in a file's schema (``info``)."""

    name: str
    values: list
    arrow: object
    feature: dict
    info: dict
    about: str


@dataclass(frozen=True)
class Exported:
    """What :func:`export` wrote."""

    dir: Path
    rows: int
    columns: tuple[str, ...]
    irt: bool
    license: str


def _value(name: str, values, arrow, dtype: str, about: str) -> Column:
    return Column(name, list(values), arrow, {"name": name, "dtype": dtype},
                  {"dtype": dtype, "_type": "Value"}, about)


def load(run_dir) -> dict:
    """A finished run's test set, units, difficulties and marks: the fields
    its unit kind reads back (:meth:`committee.tasks.units.base.UnitKind.load_run`),
    with ``manifest`` and ``task`` (the record)."""
    p = layout.paths(run_dir)
    manifest = layout.read_manifest(p.root, COMMAND)
    layout.verify(p.root, READS)  # nothing edited since the run
    task = tasks_mod.get(manifest.get("config", {}).get("task", tasks_mod.DEFAULT_TASK))
    fields = task.unit_kind.load_run(UnitFiles(p, manifest), task)
    return {**fields, "manifest": manifest, "task": task, "paths": p}


def unit_rows(task, test, units):
    """Each gold unit's sentence, index in it, start and end (characters of
    the sentence) and text, in corpus order, with the units laid out by the
    task (:meth:`committee.tasks.Task.spans`; ``units`` None: the words of
    the segmentation), whose ``labels`` and ``label_names`` are the labels."""
    lengths = [sum(map(len, ws)) for ws in test.words]
    s = task.spans(lengths, test.words if units is None else units)
    base = s.sentence_offsets[s.sentence]
    first = np.searchsorted(s.sentence, s.sentence)  # each sentence's first unit
    chars = "".join("".join(ws) for ws in test.words)
    texts = [chars[a:b] for a, b in zip(s.starts.tolist(), s.ends.tolist())]
    return (s.sentence.tolist(), (np.arange(len(s.starts)) - first).tolist(),
            (s.starts - base).tolist(), (s.ends - base).tolist(), texts, s)


def irt_items(run, texts: list[str]):
    """``(a, b)`` of every unit from the run's ``items.tsv``, or None when
    ``committee irt`` has not fitted the run."""
    p = run["paths"]
    if not os.path.lexists(p.irt_items):
        return None
    from committee.scoring import read_irt_items

    return read_irt_items(p.root, texts)


def columns(run, *, members: bool = False) -> list[Column]:
    """The export's columns (see the module's docstring), in order."""
    import pyarrow as pa

    task, test = run["task"], run["test"]
    sentence, index, start, end, texts, spans = unit_rows(task, test, run.get("units"))
    out = [_value("sentence", sentence, pa.int32(), "int32", "the sentence's index in the test set, from 0"),
           _value("unit", index, pa.int32(), "int32", f"the {task.unit}'s index in its sentence, from 0"),
           _value("start", start, pa.int32(), "int32", "its first character's offset in the sentence"),
           _value("end", end, pa.int32(), "int32", "the offset after its last character"),
           _value("text", texts, pa.string(), "string", f"the {task.unit}'s characters")]
    if spans.labels is not None:
        names = list(spans.label_names)
        out.append(Column("label", spans.labels.tolist(), pa.int64(),
                          {"name": "label", "dtype": {"class_label": {"names": dict(
                              (str(k), n) for k, n in enumerate(names))}}},
                          {"names": names, "_type": "ClassLabel"},
                          f"its gold label ({task.unit}'s class), a class label"))
    d, n_correct = np.asarray(run["d"], dtype=np.float64), np.asarray(run["n_correct"])
    out += [_value("difficulty", d.tolist(), pa.float64(), "float64",
                   "the share of the committee's members that got it wrong"),
            _value("n_correct", n_correct.astype(int).tolist(), pa.int32(), "int32",
                   "the members that got it right")]
    if run.get("oov") is not None:
        out.append(_value("oov", np.asarray(run["oov"], dtype=bool).tolist(), pa.bool_(), "bool",
                          "out of the training vocabulary"))
    items = irt_items(run, texts)
    if items is not None:
        a, b = items
        out += [_value("irt_b", b.tolist(), pa.float64(), "float64", "IRT difficulty b"),
                _value("irt_a", a.tolist(), pa.float64(), "float64", "IRT discrimination a")]
    if members:
        marks = np.asarray(run["marks"], dtype=bool)
        out.append(Column("members", marks.T.tolist(), pa.list_(pa.bool_()),
                          {"name": "members", "sequence": "bool"},
                          {"feature": {"dtype": "bool", "_type": "Value"}, "_type": "Sequence"},
                          "each member's outcome, true when it got it right (K values)"))
    return out


def table(cols: list[Column]):
    """The columns as one Arrow table whose schema carries the features as
    the ``datasets`` library records them (its ``huggingface`` metadata)."""
    import pyarrow as pa

    schema = pa.schema([pa.field(c.name, c.arrow) for c in cols])
    info = {"info": {"features": {c.name: c.info for c in cols}}}
    schema = schema.with_metadata({"huggingface": json.dumps(info, ensure_ascii=False)})
    return pa.Table.from_arrays([pa.array(c.values, type=c.arrow) for c in cols], schema=schema)


def parquet_bytes(tbl) -> bytes:
    """The table as the bytes of one parquet file."""
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(tbl, buf)
    return buf.getvalue()


def size_category(n: int) -> str:
    """The Hub's size category of ``n`` rows.

    >>> size_category(999), size_category(1000), size_category(10 ** 9)
    ('n<1K', '1K<n<10K', 'n>1T')
    """
    return next((name for top, name in SIZES if n < top), "n>1T")


def corpus_license(manifest: dict) -> str:
    """The licence of the run's corpus when its training file is one whose
    licence is known (:data:`LICENSES`), else :data:`DEFAULT_LICENSE`."""
    train = manifest.get("corpus", {}).get("train", {})
    name = os.path.basename(str(train.get("path", ""))) if isinstance(train, dict) else ""
    return next((v for k, v in LICENSES.items() if name.startswith(k)), DEFAULT_LICENSE)


def front_matter(run, cols: list[Column], n_bytes: int, license: str) -> dict:
    """The card's YAML front matter: what the Hub and ``load_dataset`` read."""
    task, manifest = run["task"], run["manifest"]
    n = len(cols[0].values)
    return {
        "language": ["zh"],
        "license": license,
        "task_categories": ["token-classification"],
        "size_categories": [size_category(n)],
        "pretty_name": f"{manifest.get('name', 'committee run')}: difficulty of every gold "
                       f"{task.unit}",
        "tags": ["difficulty", "item-response-theory", "committee", task.name],
        "configs": [{"config_name": "default",
                     "data_files": [{"split": SPLIT, "path": DATA_FILE}]}],
        "dataset_info": {"features": [c.feature for c in cols],
                         "splits": [{"name": SPLIT, "num_bytes": n_bytes, "num_examples": n}]},
        "committee": {"signature": manifest.get("signature", ""),
                      "members": int(np.asarray(run["marks"]).shape[0]),
                      "config": manifest.get("config", {})},
    }


def card(run, cols: list[Column], n_bytes: int, license: str) -> str:
    """The text of ``README.md``: the front matter, then what a reader needs."""
    import yaml

    task, meta = run["task"], front_matter(run, cols, n_bytes, license)
    head = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000)
    rows = "\n".join(f"| `{c.name}` | {c.about} |" for c in cols)
    n, k = len(cols[0].values), meta["committee"]["members"]
    return (f"---\n{head}---\n\n# {meta['pretty_name']}\n\n"
            f"The difficulty dataset of a committee of {k} learners (`committee run`, "
            f"docs/method.md): one row per gold {task.unit} of the test set, {n:,} rows. "
            f"A {task.unit}'s difficulty is the share of the members that got it wrong; "
            "balanced precision, recall and F weigh each unit by it.\n\n"
            f"| column | meaning |\n|---|---|\n{rows}\n\n"
            "```python\nimport datasets\nds = datasets.load_dataset(\"path/to/this/folder\")"
            f"[\"{SPLIT}\"]\n```\n\n"
            f"Signature: `{meta['committee']['signature']}`\n\n"
            f"Licence: `{license}` (that of the corpus the committee read).\n")


def check_target(run_dir: Path, out: Path, force: bool) -> None:
    """Refuse an ``out`` that is the run, a file, or a directory holding
    more than an earlier export (unless ``force``)."""
    if out.exists() and not out.is_dir():
        raise RunError(f"{out} exists and is not a directory: give a new or empty directory")
    if out.is_dir() and os.path.samefile(out, run_dir):
        raise RunError(f"{out} is the run directory itself: export into another directory")
    if out.is_dir() and not force:
        foreign = sorted(p.name for p in out.iterdir() if p.name not in OWN_ENTRIES)
        if foreign:
            raise RunError(f"{out} holds files that no export wrote ({', '.join(foreign[:3])}"
                           f"{', ...' if len(foreign) > 3 else ''}): give a new or empty "
                           "directory, or --force to write the export beside them")


def export(run_dir, out_dir, *, members: bool = False, force: bool = False,
           license: str | None = None) -> Exported:
    """Write the run in ``run_dir`` as a dataset into ``out_dir`` (see the
    module's docstring); ``members``: each member's outcome too;
    ``license``: the card's licence (default: :func:`corpus_license`)."""
    run_dir, out = Path(run_dir), Path(out_dir)
    if not os.path.lexists(run_dir):
        raise InputError(str(run_dir), None, "no such run directory")
    run = load(run_dir)
    check_target(run_dir, out, force)
    cols = columns(run, members=members)
    data = parquet_bytes(table(cols))
    license = license or corpus_license(run["manifest"])
    atomic_write_bytes(out / DATA_FILE, data)
    atomic_write_text(out / CARD_FILE, card(run, cols, len(data), license))
    return Exported(out, len(cols[0].values), tuple(c.name for c in cols),
                    any(c.name == "irt_b" for c in cols), license)
