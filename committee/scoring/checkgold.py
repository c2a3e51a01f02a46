"""``committee check-gold``: the gold units of a finished run most likely to
be annotation errors (docs/method.md §15, docs/irt.md).

Reads the run's ``test.txt``, ``predictions.npz`` (every member's reading
of the test set), ``train-words.txt`` and its training corpus (from the
config its manifest records), ranks candidate spans with
:func:`committee.metrics.checkgold.check_words` and writes

* ``check-gold.tsv`` — one row per suspicious span, most suspicious first:
  ``sentence``, ``word_index`` (the first gold word of the span, counted
  in its sentence from 0), ``start``, ``end`` (characters of the
  sentence), ``gold`` and ``proposed`` (the two readings, words separated
  by spaces), ``evidence`` (the score the list is ranked by: the model's
  probability that the span is an error like those injected where its
  weights were fitted, not the probability of a real annotation error,
  docs/method.md §15), ``reasons`` (the evidence, ``;``-separated) and
  ``context`` (the sentence with the span in 【】);
* ``check-gold.json`` — the list's format (:data:`VERSION`), the number
  of its first rows ``committee score --check-gold`` leaves out
  (``expected_errors``), the counts, the systems read and the SHA-256 of
  ``check-gold.tsv`` (``committee score --check-gold`` refuses a list
  edited since).

Every check runs before anything is written; both files are written
atomically, the JSON last.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

import numpy as np

from committee import corpus as corpus_mod
from committee import tasks as tasks_mod
from committee.errors import InputError
from committee.metrics import checkgold
from committee.pipeline import layout
from committee.pipeline import marks as marks_mod
from committee.pipeline import runfiles
from committee.pipeline.unitfiles import UnitFiles
from committee.system.files import atomic_write_text, sha256_bytes

#: How this command is named in messages.
COMMAND = "committee check-gold"
COLUMNS = ("sentence", "word_index", "start", "end", "gold", "proposed", "evidence", "reasons",
           "context")
#: The format of ``check-gold.tsv`` and ``check-gold.json``; a list of
#: another (version 1 had a ``score`` column of EM-adjusted probabilities)
#: is refused with what to run.
VERSION = 2


@dataclass
class GoldCheck:
    """A run's check (:func:`compute`): the ranked rows as dicts (keys
    :data:`COLUMNS`, plus ``g_start``/``g_end`` on the global character
    axis) and the summary that becomes ``check-gold.json``."""

    rows: list
    summary: dict

    def tsv(self) -> str:
        """The text of ``check-gold.tsv``."""
        lines = ["\t".join(COLUMNS)]
        for r in self.rows:
            lines.append("\t".join(f"{r[c]:.6g}" if c == "evidence" else str(r[c])
                                   for c in COLUMNS))
        return "\n".join(lines) + "\n"


@dataclass
class RunInputs:
    """What a check reads of a run: its gold test set (and its task), the
    members' marks and readings, the training corpus and vocabulary."""

    paths: object
    task: object
    test: corpus_mod.Corpus
    marks: np.ndarray
    pred: np.ndarray
    train: corpus_mod.Corpus
    vocabulary: set


def load_inputs(run_dir, train=None) -> RunInputs:
    """Read and check what :func:`compute` needs of a finished run;
    ``train``: where the training corpus the run used is now, when it moved
    (it must still have the checksum the run recorded)."""
    from committee.pipeline import dataset
    from committee.pipeline.runconfig import load_run_config

    p = layout.paths(run_dir)
    runfiles.check_dir(p.root)
    layout.check_final(p.root, COMMAND)
    layout.verify(p.root, layout.READ_BY[COMMAND])
    manifest = layout.read_manifest(p.root, COMMAND)
    task = tasks_mod.get(manifest.get("config", {}).get("task", tasks_mod.DEFAULT_TASK))
    test = task.prepare(corpus_mod.read_corpus(layout.need(p.test), format=task.format))
    marks = marks_mod.read_marks(p, manifest, sum(map(len, task.gold(test))))
    pred = task.unit_kind.members_readings(UnitFiles(p, manifest), test, marks)
    if pred is None:
        raise InputError(str(p.predictions), None, "no members' readings of the test set "
                         "(a run of an older version): run committee run again on this "
                         "directory to write them")
    vocabulary = set(corpus_mod.read_word_list(layout.need(p.train_words)))
    moved = [] if train is None else [f"corpus.train.path={os.path.abspath(train)}"]
    cfg = load_run_config(p.root, overrides=moved)
    train, _ = dataset.load_recorded(cfg, manifest, str(p.manifest), RECORDED_FIX)
    return RunInputs(p, task, test, marks, pred, task.prepare(train), vocabulary)


#: How to go on when the training corpus is not the one the run used.
RECORDED_FIX = ("give the original with --train PATH, or rerun committee run on this corpus")


def _irt_flags(p) -> dict[int, str]:
    """The IRT flag of each gold word with one (``irt-flags``' words), when
    ``committee irt`` has run on the directory and its files are intact."""
    if not (p.irt_items.is_file() and p.irt_fit.is_file()):
        return {}
    try:
        layout.verify(p.root, [layout.IRT_ITEMS_FILE])
        items = runfiles.read_table(p.irt_items, sep="\t", keep_default_na=False,
                                    usecols=["flags", "irt_a"])
    except (InputError, ValueError):
        return {}
    return {i: f"{f} (a = {a})" for i, (f, a) in enumerate(zip(items["flags"], items["irt_a"]))
            if f and f != "all_correct"}


def _reasons(c, i: int, systems, sys_ends, irt, word_ids) -> str:
    """The evidence of candidate ``i``, ``;``-separated."""
    k = c.k
    out = [f"members: {int(c.n_alt[i])} of {k} read it as proposed, {int(c.n_wrong[i])} "
           f"of {k} otherwise than the gold"]
    ex = c.extra
    out.append(f"training data: proposed {int(ex['train_alt'][i])}, gold {int(ex['train_gold'][i])}")
    out.append(f"rest of the test gold: proposed {int(ex['test_alt'][i])}, gold "
               f"{int(ex['test_gold'][i])}")
    if systems:
        s, e = int(c.start[i]), int(c.end[i])
        agree = [name for name, ends in zip(systems, sys_ends)
                 if checkgold.reading(ends, s, e) == tuple(c.alt[i])]
        out.append(f"systems reading it as proposed: {', '.join(agree) if agree else 'none'}")
    flagged = [irt[w] for w in word_ids if w in irt]
    if flagged:
        out.append("irt: " + ", ".join(flagged))
    return "; ".join(out)


#: Characters of a sentence shown on each side of a span in ``context``.
CONTEXT = 40


def _context(sentence: str, a: int, b: int) -> str:
    """The sentence around ``[a, b)``, the span in 【】, cut to :data:`CONTEXT`
    characters on each side (… marks a cut).

    >>> _context("我爱北京天安门", 2, 4)
    '我爱【北京】天安门'
    """
    left, right = sentence[max(0, a - CONTEXT):a], sentence[b:b + CONTEXT]
    return (("…" if a > CONTEXT else "") + left + "【" + sentence[a:b] + "】" + right
            + ("…" if len(sentence) - b > CONTEXT else ""))


def compute(run_dir, systems=(), train=None) -> GoldCheck:
    """Rank a run's gold spans (words, or entities); nothing is written (see
    :func:`run`).  ``systems`` are segmenters' outputs (SIGHAN) whose
    readings the reasons name (runs of words only)."""
    data = load_inputs(run_dir, train)
    check, rows, lengths = data.task.unit_kind.suspicious(data, systems, _reasons,
                                                          lambda: _irt_flags(data.paths))
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    per_sentence = np.concatenate(([0], np.cumsum([len(u) for u in data.task.gold(data.test)])))
    text = "".join("".join(s) for s in data.test.words)
    c = check.candidates
    out = []
    for (i, gold, proposed, unit, reasons), evidence in zip(rows, check.p[check.order].tolist()):
        s, e = int(c.start[i]), int(c.end[i])
        sent = int(np.searchsorted(offsets, s, side="right") - 1)
        base = int(offsets[sent])
        out.append({"sentence": sent, "word_index": unit - int(per_sentence[sent]),
                    "start": s - base, "end": e - base, "gold": gold, "proposed": proposed,
                    "evidence": evidence, "reasons": reasons,
                    "context": _context(text[base:int(offsets[sent + 1])], s - base, e - base),
                    "g_start": s, "g_end": e})
    summary = {
        "version": VERSION, "task": data.task.name, "units": data.task.units,
        "n_members": int(c.k), "n_units": int(per_sentence[-1]), "n_chars": len(text),
        "n_candidates": len(c), "n_rows": len(out), "expected_errors": check.expected,
        "expected_errors_at_fitted_rate": check.expected_at_fitted_rate,
        "error_rate": check.rate, "features": list(check.features),
        "systems": [os.fspath(s) for s in systems], **_identity(data),
    }
    return GoldCheck(out, summary)


def summary_line(run_dir, summary: dict) -> str:
    """What ``committee check-gold`` prints of a list (``summary``: its
    ``check-gold.json``), in words a reader of the list needs: how many
    places it ranks, which are the likeliest errors and how likely, as a
    hand-judged sample measured it (:data:`committee.metrics.checkgold_judged.MEASURED`,
    quoted for the task it was measured on).

    >>> print(summary_line("runs/x", {"n_rows": 1234, "n_members": 12, "n_units": 103464,
    ...                               "units": "words", "expected_errors": 665.2,
    ...                               "task": "segmentation"}))
    ... # doctest: +NORMALIZE_WHITESPACE
    wrote runs/x/check-gold.tsv and check-gold.json: 1,234 places where the 12 committee
    members or the training data read the gold's 103,464 words otherwise, the likeliest
    annotation errors first. Judged by hand on the embedded People's Daily corpus, 40 of the
    first 50 were annotation errors, 7 were not and 3 unclear (docs/benchmarks.md); committee
    score --check-gold leaves out the first 665.
    """
    from committee.metrics.checkgold_judged import MEASURED

    sample = (f"Judged by hand on {MEASURED['corpus']}, {MEASURED['gold_wrong']} of the "
              f"first {MEASURED['k']} were annotation errors, {MEASURED['gold_right']} were not "
              f"and {MEASURED['unclear']} unclear ({MEASURED['where']}); "
              if summary.get("task") == MEASURED["task"] else "")
    return (f"wrote {run_dir}/check-gold.tsv and check-gold.json: {summary['n_rows']:,} places "
            f"where the {summary['n_members']} committee members or the training data read the "
            f"gold's {summary['n_units']:,} {summary['units']} otherwise, the likeliest "
            f"annotation errors first.\n{sample}committee score --check-gold leaves out the "
            f"first {round(summary['expected_errors']):,}.")


def content_sha256(gold: corpus_mod.Corpus) -> str:
    """The checksum of a gold's content as its task reads it (its words,
    with their tags when it has any, :func:`committee.corpus.content_sha256`):
    the same for the same gold in any file format, encoding or line ends."""
    return gold.content_sha256 or corpus_mod.content_sha256(gold.words)


#: The keys of ``check-gold.json`` that name the gold its list belongs to
#: (:func:`_identity`); a list without them was written by an older version.
IDENTITY = ("task", "test_sha256", "test_content_sha256", "signature")


def _identity(data: RunInputs) -> dict:
    """What the list belongs to: the run's test set (the SHA-256 of its
    ``test.txt`` and of the test corpus file it read, as the manifest
    records them, and the content checksum of the gold, :func:`content_sha256`), the
    normalisation it was read with and the run's difficulty signature."""
    manifest = layout.read_manifest(data.paths.root, COMMAND)
    return {"test_sha256": _recorded(manifest, "files", layout.TEST_FILE),
            "test_source_sha256": _recorded(manifest, "corpus", "test", "sha256"),
            "test_content_sha256": content_sha256(data.test),
            "normalization": _recorded(manifest, "config", "corpus", "test", "normalization"),
            "signature": _recorded(manifest, "signature")}


def _recorded(record, *keys) -> str | None:
    """The string at ``keys`` in nested dicts, or None.

    >>> _recorded({"files": {"test.txt": "ab"}}, "files", "test.txt"), _recorded({}, "a", "b")
    ('ab', None)
    """
    for key in keys:
        record = record.get(key) if isinstance(record, dict) else None
    return record if isinstance(record, str) else None


def write(run_dir, result: GoldCheck) -> dict:
    """Write ``check-gold.tsv`` then ``check-gold.json`` into ``run_dir``."""
    p = layout.paths(run_dir)
    text = result.tsv()
    atomic_write_text(p.check_gold, text)
    summary = dict(result.summary, files={layout.CHECK_GOLD_FILE: sha256_bytes(text.encode("utf-8"))})
    atomic_write_text(p.check_gold_json, json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    return summary


def run(run_dir, systems=(), train=None) -> dict:
    """Rank a run's suspicious gold spans and write the files; returns the
    content of ``check-gold.json``.  An :class:`InputError` for a missing,
    edited or unreadable input, a run of another task or an output that
    does not align; nothing is written then."""
    layout.check_inputs(run_dir, [("--system", s) for s in systems], COMMAND)
    return write(run_dir, compute(run_dir, systems, train))


def check_gold(run_dir, systems=(), write_files: bool = True, train=None) -> GoldCheck:
    """The Python form of ``committee check-gold``: the ranked suspicious
    spans of a finished run (words, or entities) as a :class:`GoldCheck`
    (``rows``: dicts with the columns of ``check-gold.tsv``; ``summary``:
    ``check-gold.json``); with ``write_files`` (the default) both files are
    written into ``run_dir`` as the command writes them."""
    if write_files:
        layout.check_inputs(run_dir, [("--system", s) for s in systems], COMMAND)
    result = compute(run_dir, systems, train)
    if write_files:
        result.summary = write(run_dir, result)
    return result


def read(run_dir) -> tuple[list[dict], dict]:
    """``check-gold.tsv`` (rows as dicts with ``g_start``/``g_end``) and
    ``check-gold.json`` of a run, checked against each other and the run's
    test set: an :class:`InputError` names what is missing, edited, written
    by an older version or made for another test set of the directory."""
    p = layout.paths(run_dir)
    for f in (p.check_gold, p.check_gold_json):
        if not f.is_file():
            raise InputError(str(f), None, f"no such file: run `committee check-gold {run_dir}` "
                             "first")
    layout.verify(p.root, [layout.CHECK_GOLD_FILE])
    rerun = f"rerun committee check-gold {run_dir}"
    summary = _read_summary(p.check_gold_json, rerun)
    manifest = layout.read_manifest(p.root)
    task = tasks_mod.get(_recorded(manifest, "config", "task") or tasks_mod.DEFAULT_TASK)
    test = task.prepare(corpus_mod.read_corpus(layout.need(p.test), format=task.format))
    _check_this_run(p.check_gold_json, summary, task, test, manifest, rerun)
    rows = _read_rows(p.check_gold, test, rerun)
    _check_counts(p.check_gold_json, summary, len(rows), rerun)
    return rows, summary


def _read_summary(path, rerun: str) -> dict:
    """``check-gold.json`` as a dict that records the checksum of
    ``check-gold.tsv`` and the gold its list belongs to (:data:`IDENTITY`)."""
    summary = runfiles.read_json(path, "check-gold", dict, rerun)
    if not isinstance(_recorded(summary, "files", layout.CHECK_GOLD_FILE), str):
        raise InputError(str(path), None, f"does not record the checksum of "
                         f"{layout.CHECK_GOLD_FILE}, so the list cannot be checked; {rerun}")
    if summary.get("version") != VERSION:
        raise InputError(str(path), None, f"written by another version of committee "
                         f"check-gold (list format {summary.get('version', 1)}, this one reads "
                         f"{VERSION}); {rerun}")
    if any(not isinstance(summary.get(k), str) for k in IDENTITY if k != "signature"):
        raise InputError(str(path), None, "written by an older version of committee "
                         "check-gold (it does not record the test set its list belongs to); "
                         f"{rerun}")
    return summary


def _check_this_run(path, summary: dict, task, test: corpus_mod.Corpus, manifest: dict,
                    rerun: str) -> None:
    """Refuse a list made for another task, test set or committee than the
    run now in its directory (a run rewritten since ``check-gold`` ran)."""
    if summary["task"] != task.name:
        raise InputError(str(path), None, f"lists suspicious gold of a run of task "
                         f"{summary['task']}, the run in this directory is of task {task.name}; "
                         f"{rerun}")
    if summary["test_content_sha256"] != content_sha256(test):
        raise InputError(str(path), None, f"made for another test set (content sha256 "
                         f"{summary['test_content_sha256'][:12]}) than the run's "
                         f"{layout.TEST_FILE} ({content_sha256(test)[:12]}); {rerun}")
    if summary.get("signature") != _recorded(manifest, "signature"):
        raise InputError(str(path), None, f"made for another committee (difficulty signature "
                         f"{summary.get('signature')}) than the run in this directory "
                         f"({_recorded(manifest, 'signature')}); {rerun}")


#: Bytes ``check-gold.tsv`` may hold per character of the test set: at most
#: one row starts at each, a row holds a span, its context and its evidence.
ROW_BYTES = 2048


def _read_rows(path, test: corpus_mod.Corpus, rerun: str) -> list[dict]:
    """The rows of ``check-gold.tsv``, each span within its sentence of ``test``."""
    lengths = [sum(map(len, s)) for s in test.words]
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    # a row is a span of the test set with its context and evidence: a few KiB at most
    data = runfiles.read_bytes(path, (1 << 20) + ROW_BYTES * int(offsets[-1]), rerun)
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(str(path), None, f"not UTF-8 text (byte {exc.start + 1}); "
                         f"{rerun}") from None
    rows = []
    for n, line in enumerate(lines[1:], 2):
        r = dict(zip(COLUMNS, line.split("\t")))
        try:
            s, a, b = int(r["sentence"]), int(r["start"]), int(r["end"])
            r.update(sentence=s, start=a, end=b, evidence=float(r["evidence"]))
            if not (0 <= s < len(lengths) and 0 <= a < b <= lengths[s]):
                raise ValueError
        except (KeyError, ValueError):
            raise InputError(str(path), n, f"not a row of check-gold.tsv; {rerun}") from None
        r.update(g_start=int(offsets[s]) + a, g_end=int(offsets[s]) + b)
        rows.append(r)
    return rows


def _check_counts(path, summary: dict, n_rows: int, rerun: str) -> None:
    """Refuse an ``expected_errors`` that is no number of errors among
    ``n_rows`` rows, and an ``n_units`` that is no count."""
    value = summary.get("expected_errors")
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or not 0 <= value <= n_rows):
        raise InputError(str(path), None, f"expected_errors is {json.dumps(value)}, not a "
                         f"number from 0 to {n_rows} (the rows of {layout.CHECK_GOLD_FILE}); "
                         f"{rerun}")
    units = summary.get("n_units")
    if isinstance(units, bool) or not isinstance(units, int) or units < 0:
        raise InputError(str(path), None, f"n_units is {json.dumps(units)}, not a number of "
                         f"gold units; {rerun}")


def left_out(rows: list[dict], summary: dict, n_chars: int, n: int | None = None
             ) -> tuple[np.ndarray, int]:
    """The characters of the first ``n`` rows of ``check-gold.tsv`` (by
    default the list's expected number of errors, rounded), as one boolean
    per test character, and that ``n``.

    >>> rows = [{"g_start": 0, "g_end": 2}, {"g_start": 5, "g_end": 6}]
    >>> mask, n = left_out(rows, {"expected_errors": 1.4}, 7)
    >>> mask.astype(int).tolist(), n
    ([1, 1, 0, 0, 0, 0, 0], 1)
    """
    if n is None:
        n = int(round(float(summary.get("expected_errors", 0.0))))
    n = max(0, min(n, len(rows)))
    mask = np.zeros(n_chars, dtype=bool)
    for r in rows[:n]:
        mask[r["g_start"]:r["g_end"]] = True
    return mask, n


def ranking_changes(systems: list[dict]) -> dict[str, bool]:
    """Whether ordering ``systems`` (dicts with ``f1``, ``fb`` and their
    ``_left_out`` values; None sorts last) by f1, and by fb, changes without
    the left-out spans.

    >>> ranking_changes([{"f1": .9, "f1_left_out": .8, "fb": .5, "fb_left_out": .5},
    ...                  {"f1": .8, "f1_left_out": .85, "fb": .4, "fb_left_out": .4}])
    {'f1': True, 'fb': False}
    """
    def order(key):
        return sorted(range(len(systems)),
                      key=lambda j: -(systems[j][key] if systems[j][key] is not None
                                      else float("-inf")))
    return {key: order(key) != order(f"{key}_left_out") for key in ("f1", "fb")}


def sensitivity(scorer, outputs, run_dir, full=None, check=None) -> dict:
    """Each output's p, r, f1, pb, rb and fb with and without the run's
    most suspicious spans (:func:`left_out`), and whether the ranking of
    the outputs by f1 or fb changes (:func:`ranking_changes`):
    ``{"n_left_out", "n_chars_left_out", "systems": [{"system", "<metric>",
    "<metric>_left_out", ...}], "flips": {"f1": bool, "fb": bool}}``.

    ``full``: the outputs' scores on the whole test set, when the caller
    has them (the rows of :meth:`Scorer.score_all`, with ``name``): only
    the scores without the spans are computed then.  ``check``: the run's
    list as :func:`read` returns it, when the caller has read it."""
    from committee.scoring.scores import Scores

    rows, summary = read(run_dir) if check is None else check
    check_scored_gold(summary, scorer, run_dir)
    mask, n = left_out(rows, summary, scorer.gold.n_chars())
    sig = scorer.signature()
    systems = []
    for i, output in enumerate(outputs):
        if full is None:
            whole = Scores.from_stats(scorer.collect(output), sig, name=os.fspath(output),
                                      undefined="ignore")
            name = os.fspath(output)
        else:
            whole, name = full[i], full[i]["name"]
        part = Scores.from_stats(scorer.collect_leaving_out(output, mask), sig, name=name,
                                 undefined="ignore")
        row = {"system": name}
        for key in ("p", "r", "f1", "pb", "rb", "fb"):
            row[key], row[f"{key}_left_out"] = whole[key], part[key]
        systems.append(row)
    return {"run": os.fspath(run_dir), "n_left_out": n, "n_chars_left_out": int(mask.sum()),
            "expected_errors": summary.get("expected_errors"), "systems": systems,
            "flips": ranking_changes(systems)}


def check_scored_gold(summary: dict, scorer, run_dir) -> None:
    """Refuse a list (``check-gold.json``'s ``summary``, as :func:`read`
    returns it) made for another task or another gold than the one
    ``scorer`` scores against: its spans would fall on other units.  The
    gold must have the content of the run's test set
    (:func:`content_sha256`: any file format or encoding of the same
    units); the same file read with another normalisation is named so."""
    p = layout.paths(run_dir)
    where, gold = str(p.check_gold_json), scorer.gold
    if summary["task"] != scorer.task:
        raise InputError(where, None, f"lists suspicious gold of a run of task "
                         f"{summary['task']}, the gold scored is of task {scorer.task}: score "
                         f"{p.test} with --task {summary['task']}, or run committee check-gold "
                         "on the run of this gold")
    ours, theirs = summary["test_content_sha256"], content_sha256(gold)
    if ours == theirs:
        return
    run_norm, norm = summary.get("normalization") or "none", gold.normalization or "none"
    if gold.sha256 in (summary["test_sha256"], summary.get("test_source_sha256")) \
            and run_norm != norm:
        raise InputError(where, None, f"lists spans of the run's test set read with "
                         f"normalization {run_norm}; the gold {gold.path} is that file read "
                         f"with --normalize {norm}, which changes its text: score with "
                         f"--normalize {run_norm}")
    raise InputError(where, None, f"lists spans of the test set of {run_dir} ({p.test}, "
                     f"content sha256 {ours[:12]}), not of the gold {gold.path} ({theirs[:12]}): "
                     f"run committee check-gold on the run of that gold, or score against "
                     f"{p.test}")


def format_sensitivity(sens: dict) -> str:
    """``committee score --check-gold``'s table: percentages, ``–`` when a
    metric is undefined (no difficulties, every difficulty 0, no unit
    predicted)."""
    from committee.metrics.records import pct

    lines = [f"check-gold ({sens['run']}): the {sens['n_left_out']:,} most suspicious spans "
             f"left out ({sens['n_chars_left_out']:,} characters)",
             f"{'system':<28} {'f1':>7} {'left out':>9} {'fb':>7} {'left out':>9}"]
    for r in sens["systems"]:
        lines.append(f"{r['system'][-28:]:<28} {pct(r['f1']):>7} {pct(r['f1_left_out']):>9}"
                     f" {pct(r['fb']):>7} {pct(r['fb_left_out']):>9}")
    for key, flipped in sens["flips"].items():
        lines.append(f"ranking by {key}: {'changes' if flipped else 'unchanged'} without them")
    return "\n".join(lines)
