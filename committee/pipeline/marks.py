"""Marks: what each member got right, from the moment a member makes them
to the moment the report reads them back (docs/method.md §3, §4).

A member's *marks* are one boolean per gold test unit (word, or entity),
true when the member predicts that unit exactly (``m_ki``); its *ends* are
one boolean per test character (:meth:`committee.tasks.Segmentation.mask`:
true at the last character of each word it predicts, which gives back its
whole segmentation; for entities, the characters it puts inside one); a
tagger of the gold words (``task: pos``) keeps its *labels* instead, its
tag of every gold unit (:meth:`committee.tasks.Task.unit_labels`).
Both are made by the member's task (:func:`committee.tasks.match`); this
module owns every form they take after that:

* saved: :func:`save_member` writes one member record (its recipe, own
  scores and the bits packed as base64, :func:`pack`) into the run
  directory's ``members/``; :func:`load_member` reads it back;
* stacked: :func:`stack` puts the members' marks in member order (the
  ``marks.npz`` matrix); :func:`write_predictions` packs their ends, or
  their labels, into ``predictions.npz``;
* unpacked: :func:`read_predictions` and :func:`words_from_ends`, for the
  analyses that need the members' segmentations; :func:`read_labels` for
  their labels.

>>> bits = np.array([True, False, True, True, False, False, False, False, True])
>>> unpack(pack(bits), bits.size).tolist() == bits.tolist()
True
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import math
import os
import warnings
from pathlib import Path
from typing import Sequence

import numpy as np

from committee.pipeline import layout
from committee.pipeline import runfiles
from committee.errors import caller_level, InputError, PlausibilityWarning
from committee.system.files import atomic_write_text, write_npz

log = logging.getLogger("committee.run")


# --------------------------------------------------------------------------
# segmentations back from their ends


def words_from_ends(texts: Sequence[str], ends: np.ndarray) -> list[list[str]]:
    """Words of each sentence from their ends over ``texts``
    (:meth:`committee.tasks.Segmentation.mask`).

    >>> words_from_ends(["我爱北京", "好"], np.array([1, 1, 0, 1, 1], dtype=bool))
    [['我', '爱', '北京'], ['好']]
    """
    out, k = [], 0
    for text in texts:
        n = len(text)
        cuts = np.flatnonzero(ends[k:k + n]) + 1
        starts = np.concatenate(([0], cuts[:-1])) if len(cuts) else np.zeros(0, dtype=int)
        out.append([text[s:e] for s, e in zip(starts.tolist(), cuts.tolist())])
        k += n
    return out


# --------------------------------------------------------------------------
# packed bits


def pack(bits) -> str:
    """Booleans as base64 text of their packed bits (``numpy.packbits``)."""
    return base64.b64encode(np.packbits(np.asarray(bits, dtype=bool)).tobytes()).decode("ascii")


def unpack(text: str, count: int) -> np.ndarray:
    """The ``count`` booleans of :func:`pack`'s text."""
    packed = np.frombuffer(base64.b64decode(text), dtype=np.uint8)
    return np.unpackbits(packed, count=count).astype(bool)


# --------------------------------------------------------------------------
# member records (run directory, ``members/``)


def save_member(out: Path, result, member) -> None:
    """One finished member, atomically: its recipe, own scores and packed marks."""
    marks = np.asarray(result.marks, dtype=bool)
    record = {
        "index": member.index,
        "template": member.template,
        "ratio": member.ratio,
        "n_sentences": int(result.n_sentences),
        "n_gold": int(marks.size),
        "p": result.p, "r": result.r, "f1": result.f1,
        "marks": pack(marks),
    }
    ends = getattr(result, "pred_ends", None)
    if ends is not None:  # its segmentation of the test set, for later analyses
        ends = np.asarray(ends, dtype=bool)
        record["n_chars"] = int(ends.size)
        record["pred_ends"] = pack(ends)
    labels = getattr(result, "pred_labels", None)
    if labels is not None:  # its label of every gold unit
        record["label_names"] = list(result.label_names)
        record["pred_labels"] = pack_codes(labels, len(result.label_names))
    record[CHECKSUM_KEY] = _checksum(record)
    atomic_write_text(layout.member_path(out, member.index), json.dumps(record) + "\n")


#: Key of a member record's checksum: SHA-256 of the rest of the record
#: (:func:`_checksum`).  Records of earlier versions have none.
CHECKSUM_KEY = "sha256"


def _checksum(record: dict) -> str:
    """SHA-256 (hex) of a member record without its checksum, as canonical JSON."""
    rest = {k: v for k, v in record.items() if k != CHECKSUM_KEY}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode("utf-8")).hexdigest()


def _tampered(record: dict, marks: np.ndarray) -> str | None:
    """Why a member record contradicts itself, or None: its marks give
    another recall than the ``r`` it records (the units it gets right over
    all gold units), or its content no longer has the checksum it records.

    >>> rec = {"r": 0.5, "marks": "wA=="}
    >>> rec["sha256"] = _checksum(rec)
    >>> _tampered(rec, np.array([True, True, False, False]))
    >>> _tampered(rec, np.array([True, True, True, False]))
    'its marks give recall 0.7500 (3 of 4 gold units right), its recorded r is 0.5000'
    >>> _tampered(dict(rec, marks="4A=="), np.array([True, True, False, False]))[:47]
    'its content does not match its checksum (sha256'
    """
    r, n = record.get("r"), int(marks.size)
    if isinstance(r, (int, float)) and not isinstance(r, bool) and n and math.isfinite(r):
        right = int(marks.sum())
        if abs(right / n - r) > 1e-9:
            return (f"its marks give recall {right / n:.4f} ({right} of {n} gold units right), "
                    f"its recorded r is {r:.4f}")
    recorded = record.get(CHECKSUM_KEY)
    if recorded is not None:
        actual = _checksum(record)
        if actual != recorded:
            return (f"its content does not match its checksum (sha256 {actual[:12]}, recorded "
                    f"{str(recorded)[:12]})")
    return None


def load_member(out: Path, member, n_gold: int) -> dict | None:
    """A saved member, or None when it is missing or does not belong to this run.

    A record that contradicts itself (:func:`_tampered`: edited by hand or
    damaged) is not used: a :class:`~committee.errors.PlausibilityWarning`
    names its file, and the member is trained again.
    """
    path = layout.member_path(out, member.index)
    if not os.path.lexists(path):
        return None
    try:
        record = runfiles.read_json(path, "member", dict)
        marks = unpack(record["marks"], n_gold)
    except InputError as exc:
        log.warning("member %d: unreadable saved result (%s); training it again",
                    member.index, exc.message.rsplit("; ", 1)[0])
        return None
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("member %d: unreadable saved result (%s); training it again",
                    member.index, exc)
        return None
    if (record.get("template"), record.get("ratio"), record.get("n_gold")) != (
            member.template, member.ratio, n_gold):
        log.warning("member %d: saved result does not match this run; training it again",
                    member.index)
        return None
    problem = _tampered(record, marks)
    if problem is not None:
        message = (f"{path}: {problem}: edited or damaged since committee run saved it; member "
                   f"{member.index} is trained again")
        log.warning(message)
        warnings.warn(PlausibilityWarning(message), stacklevel=caller_level())
        return None
    record.pop(CHECKSUM_KEY, None)
    record["marks"] = marks
    packed_ends = record.pop("pred_ends", None)
    record["pred_ends"] = None  # members saved before segmentations were recorded
    if packed_ends is not None and "n_chars" in record:
        try:
            record["pred_ends"] = unpack(packed_ends, int(record["n_chars"]))
        except (ValueError, TypeError):
            log.warning("member %d: unreadable saved segmentation; predictions.npz "
                        "will not be written", member.index)
    packed_labels = record.pop("pred_labels", None)
    if packed_labels is not None:  # only members of a task that keeps labels have them
        record["pred_labels"] = None
        try:
            record["pred_labels"] = unpack_codes(packed_labels, len(record["label_names"]),
                                                 n_gold)
        except (ValueError, TypeError, KeyError):
            log.warning("member %d: unreadable saved labels; predictions.npz will not be "
                        "written", member.index)
    return record


# --------------------------------------------------------------------------
# stacked


def stack(committee, records: dict[int, dict]) -> np.ndarray:
    """The marks of every member in member order, shape (K, N)."""
    return np.stack([records[m.index]["marks"] for m in committee])


def write_predictions(path: Path, committee, records: dict[int, dict]) -> bool:
    """Every member's segmentation (packed ends, member order) into ``path``,
    or every member's labels of the gold units (:func:`stack_labels`); when
    a member has neither, remove ``path`` instead.  Returns whether written."""
    ends = [records[m.index].get("pred_ends") for m in committee]
    if all(e is not None for e in ends):
        write_npz(path, n_chars=np.int64(ends[0].size),
                  pred_ends=np.stack([np.packbits(e) for e in ends]))
        return True
    labels = [records[m.index].get("pred_labels") for m in committee]
    if all(x is not None for x in labels):
        names, codes = stack_labels([records[m.index]["label_names"] for m in committee],
                                    labels)
        write_npz(path, label_names=names, pred_labels=codes)
        return True
    if path.exists():
        path.unlink()
    return False


# --------------------------------------------------------------------------
# labels of the gold units (a tagger of the gold words)


def _code_dtype(n_names: int):
    """One byte per label while there are at most 256 names, two beyond."""
    return np.uint8 if n_names <= 256 else np.dtype("<u2")


def pack_codes(codes, n_names: int) -> str:
    """Label codes (each below ``n_names``) as base64 text of their bytes.

    >>> unpack_codes(pack_codes([3, 0, 2], 4), 4, 3).tolist()
    [3, 0, 2]
    """
    return base64.b64encode(np.asarray(codes).astype(_code_dtype(n_names)).tobytes()
                            ).decode("ascii")


def unpack_codes(text: str, n_names: int, count: int) -> np.ndarray:
    """The ``count`` codes of :func:`pack_codes`' text (a :class:`ValueError`
    when it holds another number of codes, or a code of no name)."""
    codes = np.frombuffer(base64.b64decode(text), dtype=_code_dtype(n_names))
    if codes.size != count or (codes.size and int(codes.max()) >= n_names):
        raise ValueError(f"{codes.size} label codes, {count} expected, below {n_names}")
    return codes.astype(np.int64)


def stack_labels(names: Sequence[Sequence[str]], codes: Sequence[np.ndarray]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Members' labels over one label set: the sorted union of their names,
    and a ``(K, N)`` matrix of codes into it (int16), in member order.

    >>> n, c = stack_labels([["n", "v"], ["a", "n"]], [np.array([1, 0]), np.array([0, 1])])
    >>> n.tolist(), c.tolist()
    (['a', 'n', 'v'], [[2, 1], [0, 1]])
    """
    union = sorted({x for member in names for x in member})
    index = {x: i for i, x in enumerate(union)}
    rows = [np.array([index[x] for x in member], dtype=np.int16)[np.asarray(c, dtype=np.int64)]
            for member, c in zip(names, codes)]
    return np.array(union, dtype=str), np.stack(rows)


def read_marks(p, manifest: dict, n_units: int) -> np.ndarray:
    """``marks.npz``: one row per member the manifest records, one column
    per gold unit of the test set (shape checked before it is inflated)."""
    size = manifest.get("committee", {}).get("size")
    k = size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None
    marks = runfiles.read_npz(layout.need(p.marks), {"marks": runfiles.Array("b", (k, n_units))},
                              layout.REWRITE)["marks"]
    return marks.astype(bool)


def read_labels(path: Path, n_units: int, n_members: int
                ) -> tuple[tuple[str, ...], np.ndarray] | None:
    """The label names and ``(K, N)`` codes of :func:`write_predictions`, or
    None when ``path`` is missing; a file that is damaged, holds no labels,
    another shape than ``n_members`` × ``n_units`` gold units or a code of
    no label is an :class:`~committee.errors.InputError` naming it."""
    if not os.path.lexists(path):
        return None
    arrays = runfiles.read_npz(path, {"label_names": runfiles.Array("U", (None,), 1 << 16),
                                      "pred_labels": runfiles.Array("iu", (n_members, n_units))},
                               layout.REWRITE)
    names, codes = arrays["label_names"], arrays["pred_labels"].astype(np.int64)
    if codes.size and (int(codes.min()) < 0 or int(codes.max()) >= len(names)):
        raise InputError(str(path), None, f"holds label codes from {int(codes.min())} to "
                         f"{int(codes.max())}, but {len(names)} label names; {layout.REWRITE}")
    return tuple(str(x) for x in names.tolist()), codes


def read_predictions(path: Path, n_chars: int, n_members: int) -> np.ndarray | None:
    """The ends of :func:`write_predictions`, shape (K, C), or None when ``path``
    is missing; a file that is damaged or of another shape than
    ``n_members`` × ``n_chars`` test characters is an
    :class:`~committee.errors.InputError` naming it."""
    if not os.path.lexists(path):
        return None
    arrays = runfiles.read_npz(path, {"n_chars": runfiles.Array("iu", ()),
                                      "pred_ends": runfiles.Array("u", (n_members,
                                                                        -(-n_chars // 8)))},
                               layout.REWRITE)
    stored, packed = int(arrays["n_chars"]), arrays["pred_ends"]
    if stored != n_chars:
        raise InputError(str(path), None, f"holds readings of {stored:,} characters, the "
                         f"run's test.txt has {n_chars:,}; {layout.REWRITE}")
    return np.unpackbits(packed, axis=1, count=n_chars).astype(bool)
