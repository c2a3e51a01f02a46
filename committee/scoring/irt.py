"""``committee irt``: item response theory on a finished run (docs/irt.md).

Reads the run's ``marks.npz`` (K members × N gold words, true when the
member got the word right), ``words.tsv`` and ``test.txt``; fits a 1PL or
2PL model (:mod:`committee.metrics.itemresponse`; by default the 2PL from
:data:`committee.metrics.itemresponse.MIN_K_2PL` members on, else the 1PL, see
:func:`fit_model`); writes

* ``items.tsv`` — one row per test word: ``sentence``, ``word_index``,
  ``word``, ``d``, ``n_correct``, ``irt_b``, ``irt_b_se``, ``irt_a``,
  ``irt_a_se``, ``infit`` and ``flags`` (comma-separated, empty when none);
* ``irt.json`` — model, settings, convergence, log-likelihood, each member's
  θ and its standard error, the θ of any system scored alongside, and the
  SHA-256 of every other file written here (``files``: ``committee score
  --irt`` refuses an ``items.tsv`` edited since, :func:`committee.pipeline.layout.verify`);
* ``irt-flags.tsv`` — the flagged words: negative or near-zero
  discrimination, or missed by every member (``committee check-gold``
  ranks the likely annotation errors, :mod:`committee.scoring.checkgold`);
* ``irt-responses.jsonlines`` (py-irt's input: one subject per line) and
  ``irt-responses.npz`` (``responses``: items × subjects as girth takes it,
  ``difficulty``/``discrimination``/``ability``: the estimates).

Every check runs before anything is written, and every file is written
atomically, so a refused or failed command leaves the run directory as it
was.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from committee import corpus as corpus_mod
from committee.pipeline import difficulty as difficulty_mod
from committee.metrics import itemresponse
from committee.pipeline import layout
from committee import tasks as tasks_mod
from committee.errors import InputError, PlausibilityWarning, RunError
from committee.pipeline import runfiles
from committee.system.files import atomic_write_text, sha256_bytes, sha256_file, write_npz
from committee.system.streams import read_input
from committee.pipeline.layout import paths
from committee.pipeline.unitfiles import UnitFiles

#: How this command is named in messages (and in :data:`committee.pipeline.layout.READ_BY`).
COMMAND = "committee irt"
#: A word whose discrimination is below this is "flat": its outcome hardly
#: depends on the member's ability.
MIN_A = 0.3
ITEM_COLUMNS = ("sentence", "word_index", "word", "d", "n_correct", "irt_b", "irt_b_se",
                "irt_a", "irt_a_se", "infit", "flags")
CHECK_COLUMNS = ("sentence", "word_index", "word", "d", "n_correct", "irt_a", "irt_a_se",
                 "irt_b", "reason", "right_by_strong", "context")
SUBSET_COLUMNS = ("sentence", "word_index", "word", "d", "irt_a", "irt_b", "information")
#: Perturbation rates of the gold segmentation used as held-out systems
#: when measuring the informative subset (:func:`perturb`).
PERTURB_RATES = (0.02, 0.05, 0.1, 0.2)


@dataclass(frozen=True)
class RunResponses:
    """A run's response matrix and the words it covers."""

    marks: np.ndarray
    words: object  # pandas DataFrame of words.tsv
    test: corpus_mod.Corpus
    task: str = tasks_mod.DEFAULT_TASK  # ner: the items are gold entities (docs/method.md §13)
    char_d: np.ndarray | None = None  # ner: the per-character weights (test.weight_c)


def load(run_dir) -> RunResponses:
    """Read and check ``marks.npz``, ``words.tsv`` and ``test.txt`` of a run."""
    p = paths(run_dir)
    runfiles.check_dir(p.root)
    layout.check_final(p.root, COMMAND)
    layout.verify(p.root, layout.READ_BY[COMMAND])  # nothing edited since the run
    if not os.path.lexists(p.marks):
        raise InputError(str(p.marks), None, "no such file: the run has no member marks "
                         "(finish it with `committee run`)")
    manifest = (layout.read_manifest(p.root, COMMAND) if os.path.lexists(p.manifest) else {})
    task = tasks_mod.get(manifest.get("config", {}).get("task", tasks_mod.DEFAULT_TASK))
    test = corpus_mod.read_corpus(layout.need(p.test), format=task.format)
    read_input(layout.need(p.words))
    words = difficulty_mod.read_words_tsv(p.words)
    marks, char_d = task.unit_kind.irt_responses(UnitFiles(p), test, words, _read_marks)
    return RunResponses(marks, words, test, task.name, char_d)


#: The most members a response matrix may hold (the paper's largest
#: committee has 297): a larger ``marks.npz`` is refused before it is inflated.
MAX_MEMBERS = 10_000


def _read_marks(path, n_words: int) -> np.ndarray:
    """``marks.npz`` as a (members × ``n_words``) response matrix: booleans,
    or 0/1 numbers of a matrix made by hand (:func:`itemresponse.check_responses`)."""
    spec = runfiles.Array("biuf", (None, None), max_items=MAX_MEMBERS * max(n_words, 1))
    raw = runfiles.read_npz(path, {"marks": spec}, layout.REWRITE)["marks"]
    try:
        return itemresponse.check_responses(raw, n_items=n_words)
    except ValueError as exc:
        raise InputError(str(path), None, f"marks: {exc}") from None


def flags(fit: itemresponse.IrtFit, min_a: float = MIN_A) -> list[list[str]]:
    """Each item's flags: ``all_correct``, ``all_wrong``, ``negative_a``
    (a < 0: better members miss it more often), ``flat_a`` (0 ≤ a < min_a)."""
    out = []
    a = fit.discrimination
    for i in range(fit.n_items):
        f = []
        if fit.all_correct[i]:
            f.append("all_correct")
        elif fit.all_wrong[i]:
            f.append("all_wrong")
        elif a[i] < 0:
            f.append("negative_a")
        elif a[i] < min_a:
            f.append("flat_a")
        out.append(f)
    return out


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def items_tsv(fit: itemresponse.IrtFit, words, infit: np.ndarray, item_flags) -> str:
    """The text of ``items.tsv``."""
    rows = ["\t".join(ITEM_COLUMNS)]
    cols = zip(words["sentence"].tolist(), words["word_index"].tolist(), words["word"].tolist(),
               words["difficulty"].tolist(), fit.n_correct.tolist(), fit.difficulty.tolist(),
               fit.difficulty_se.tolist(), fit.discrimination.tolist(),
               fit.discrimination_se.tolist(), infit.tolist(), item_flags)
    for s, j, w, d, n, b, sb, a, sa, inf, fl in cols:
        rows.append(f"{s}\t{j}\t{w}\t{d!r}\t{n}\t{_fmt(b)}\t{_fmt(sb)}\t{_fmt(a)}\t{_fmt(sa)}"
                    f"\t{_fmt(inf)}\t{','.join(fl)}")
    return "\n".join(rows) + "\n"


def strong_right(fit: itemresponse.IrtFit, systems) -> list[list[str]]:
    """For every item, the strong systems that get it right: ``systems`` are
    dicts with ``name``, ``theta`` and ``marks``; strong means θ at least the
    members' median θ."""
    cut = float(np.median(fit.ability))
    out: list[list[str]] = [[] for _ in range(fit.n_items)]
    for s in systems:
        if s["theta"] >= cut:
            for i in np.flatnonzero(s["marks"] & fit.all_wrong):
                out[i].append(s["name"])
    return out


def flag_order(fit: itemresponse.IrtFit, item_flags, right_by=None) -> list[int]:
    """The flagged items in the order of ``irt-flags.tsv``: ``all_wrong``
    first (those most strong systems get right first), then ``negative_a``
    and ``flat_a`` by increasing discrimination."""
    right_by = right_by or [[] for _ in range(fit.n_items)]
    order = {"all_wrong": 0, "negative_a": 1, "flat_a": 2}
    picked = [i for i, f in enumerate(item_flags) if f and f[0] in order]
    picked.sort(key=lambda i: (order[item_flags[i][0]], -len(right_by[i]),
                               fit.discrimination[i], i))
    return picked


def flags_tsv(fit: itemresponse.IrtFit, words, test: corpus_mod.Corpus, item_flags,
                   right_by=None) -> str:
    """The text of ``irt-flags.tsv``: words every member misses that strong
    systems get right first (most such systems first), then the other
    all-wrong words, then negative and flat discriminations by increasing a;
    ``right_by_strong`` lists those systems (``right_by``, from
    :func:`strong_right`), ``context`` is the sentence with the word in 【】."""
    right_by = right_by or [[] for _ in range(fit.n_items)]
    picked = flag_order(fit, item_flags, right_by)
    sent, idx = words["sentence"].to_numpy(), words["word_index"].to_numpy()
    starts, ends, units = words["start"].to_numpy(), words["end"].to_numpy(), words["word"]
    rows = ["\t".join(CHECK_COLUMNS)]
    for i in picked:
        s, j, a, b = int(sent[i]), int(idx[i]), int(starts[i]), int(ends[i])
        text = "".join(test.words[s])
        context = text[:a] + "【" + text[a:b] + "】" + text[b:]
        rows.append(f"{s}\t{j}\t{units.iat[i]}\t{float(words['difficulty'].iat[i])!r}"
                    f"\t{int(fit.n_correct[i])}\t{_fmt(fit.discrimination[i])}"
                    f"\t{_fmt(fit.discrimination_se[i])}\t{_fmt(fit.difficulty[i])}"
                    f"\t{item_flags[i][0]}\t{','.join(right_by[i])}\t{context}")
    return "\n".join(rows) + "\n"


def subset_tsv(fit: itemresponse.IrtFit, words, items: np.ndarray, info: np.ndarray) -> str:
    """The text of ``irt-subset.tsv``: the chosen words in corpus order with
    their mean Fisher information over the ability range."""
    rows = ["\t".join(SUBSET_COLUMNS)]
    for i in items:
        rows.append(f"{int(words['sentence'].iat[i])}\t{int(words['word_index'].iat[i])}"
                    f"\t{words['word'].iat[i]}\t{float(words['difficulty'].iat[i])!r}"
                    f"\t{_fmt(fit.discrimination[i])}\t{_fmt(fit.difficulty[i])}"
                    f"\t{_fmt(info[i])}")
    return "\n".join(rows) + "\n"


def pyirt_jsonlines(marks: np.ndarray) -> str:
    """py-irt's input: one line per subject, ``{"subject_id": "member-k",
    "responses": {"w0": 1, ...}}`` (items named ``w`` + word number)."""
    lines = []
    for k, row in enumerate(marks):
        resp = ", ".join(f'"w{i}": {int(v)}' for i, v in enumerate(row))
        lines.append(f'{{"subject_id": "member-{k}", "responses": {{{resp}}}}}')
    return "\n".join(lines) + "\n"


def read_system(test: corpus_mod.Corpus, d: np.ndarray, output_path,
                fmt: str = "sighan") -> dict:
    """A segmenter's output as a system: ``name`` (the path), ``marks``
    (right/wrong on every gold word) and ``stats`` (against ``d``)."""
    pred = corpus_mod.read_corpus(output_path, format=fmt)
    return system(os.fspath(output_path), test, d, pred.words)


def system(name: str, test: corpus_mod.Corpus, d: np.ndarray, words, kind="system") -> dict:
    """A segmentation of the test set as a system dict (see :func:`read_system`),
    with its ``scores`` (:class:`committee.scoring.Scores`, as ``committee
    score`` gives them against the run's test set and difficulties)."""
    from committee import metrics, scoring
    from committee.tasks import spans

    pred = corpus_mod.Corpus(name, words, test.lines)
    metrics.check_aligned(test, pred)
    stats = metrics.collector_for(tasks_mod.WORDS, test, d, task=tasks_mod.SEGMENTATION).collect(
        pred, check=False)
    signature = metrics.make_signature(test.words, difficulty=d)
    return {"name": name, "kind": kind, "marks": spans.marks(test.words, pred.words),
            "stats": stats, "scores": scoring.Scores.from_stats(stats, signature, name=name,
                                                                undefined="ignore")}


def labelled_system(task: tasks_mod.Task, name: str, test: corpus_mod.Corpus, d: np.ndarray,
                    pred: corpus_mod.Corpus, kind: str = "system",
                    char_d: np.ndarray | None = None) -> dict:
    """An output of a task of labelled units (entities, parts of speech),
    read as ``task`` scores it, as a system dict (:func:`system`): its
    ``marks`` (right/wrong on every gold unit), ``stats`` and ``scores`` as
    ``committee score --task`` gives them against ``d`` (and, for entities,
    the per-character ``char_d``)."""
    from committee import metrics, scoring

    collector = metrics.collector_for(task.unit_kind, test, d, char_d, task=task)
    metrics.check_aligned(test, pred)
    matched = collector.match(pred)
    stats = collector.collect(pred, check=False, matched=matched)
    signature = metrics.make_signature(  # entities: the per-character weights too
        test.words, tags=task.labels_of(test), match=task.match,
        difficulty=d if char_d is None else np.concatenate([d, char_d]))
    return {"name": name, "kind": kind, "marks": matched[2], "stats": stats,
            "scores": scoring.Scores.from_stats(stats, signature, name=name,
                                                undefined="ignore")}


#: ``--model``: ``auto`` fits :func:`committee.metrics.itemresponse.choose_model`'s model and
#: falls back on the 1PL when the 2PL does not converge (docs/irt.md).
MODELS = ("auto", "2pl", "1pl")


def _k_check(marks_path, k: int) -> None:
    if k < itemresponse.MIN_K:
        raise InputError(str(marks_path), None, f"{k} members are too few for an IRT fit "
                         f"(at least {itemresponse.MIN_K} for the 1PL model, {itemresponse.MIN_K_2PL} for the "
                         "2PL): train a larger committee")


def _not_converged(fit: itemresponse.IrtFit, tol: float) -> str:
    return (f"the {fit.model.upper()} fit did not converge in {fit.n_iter} EM iterations "
            f"(largest change {fit.max_change:.2g} > {tol:g})")


def fit_model(marks_path, marks: np.ndarray, model: str = "auto", *, max_iter: int = 500,
              tol: float = 1e-3) -> tuple[itemresponse.IrtFit, str | None]:
    """Fit ``model`` (one of :data:`MODELS`) to ``marks``; return the fit and,
    when ``auto`` chose the 1PL, why (a clause, also warned of as a
    :class:`PlausibilityWarning` naming ``marks_path``).

    ``auto``: the 1PL below :data:`committee.metrics.itemresponse.MIN_K_2PL` members, else
    the 2PL, and the 1PL when the 2PL does not converge.  A fit that does
    not converge is a :class:`RunError`.
    """
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; use one of {', '.join(MODELS)}")
    k = marks.shape[0]
    chosen = itemresponse.choose_model(k) if model == "auto" else model
    fit = _fit(marks, chosen, max_iter, tol)
    reason = todo = None
    if model == "auto" and chosen == "1pl":
        reason = f"{k} members are too few for the 2PL model (at least {itemresponse.MIN_K_2PL})"
        todo = f"train {itemresponse.MIN_K_2PL} or more members for each word's discrimination"
    elif model == "auto" and not fit.converged:
        reason = _not_converged(fit, tol)
        todo = "`committee irt --model 2pl --max-iter N` tries the 2PL longer"
        fit = _fit(marks, "1pl", max_iter, tol)
    if not fit.converged:
        hint = "raise --max-iter" + (" or use --model 1pl" if fit.model == "2pl" else "")
        raise RunError(f"{marks_path}: {_not_converged(fit, tol)}"
                       + (" (nor did the 2PL)" if reason else "")
                       + f"; nothing written: {hint}")
    if reason is not None:
        warnings.warn(PlausibilityWarning(f"{marks_path}: {reason}: fitted the 1PL model, one "
                                          f"discrimination shared by every word; {todo}"))
    elif fit.model == "2pl" and k < itemresponse.WARN_K:
        warnings.warn(PlausibilityWarning(
            f"{marks_path}: only {k} members: discriminations rest largely on their prior "
            f"(use at least {itemresponse.WARN_K})"))
    return fit, reason


def _fit(marks: np.ndarray, model: str, max_iter: int, tol: float) -> itemresponse.IrtFit:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PlausibilityWarning)  # said by fit_model
        return itemresponse.fit(marks, model=model, max_iter=max_iter, tol=tol)


@dataclass
class IrtResult:
    """What :func:`compute` found: the fit, the systems with their θ, the
    files' texts (path → text) and the chosen subset (or None)."""

    data: RunResponses
    fit: itemresponse.IrtFit
    summary: dict
    texts: dict
    systems: list
    items: np.ndarray | None = None


#: Convergence tolerance of the EM fit of a run's marks (largest change of
#: an item parameter between iterations).
TOL = 1e-3


def compute(run_dir, model: str = "auto", *, systems=(), extra=(), min_a: float = MIN_A,
            max_iter: int = 500, subset: int | None = None, seed: int = 0) -> IrtResult:
    """Fit ``model`` to a run's marks; nothing is written (see :func:`run`).

    ``model``: ``2pl``, ``1pl``, or ``auto`` (the default, as in the
    report): the 1PL below :data:`committee.metrics.itemresponse.MIN_K_2PL` members or when
    the 2PL does not converge, else the 2PL (:func:`fit_model`).

    ``systems`` are output files, ``extra`` system dicts (:func:`system`);
    their θ is estimated with the items fixed, and those at least as able
    as the members' median fill ``right_by_strong`` of ``irt-flags.tsv``.
    ``subset``: choose that many words by Fisher information over the
    members' θ range and measure the estimates from them on the systems
    and on perturbed gold outputs (:func:`subset_errors`, ``seed``).
    """
    p = paths(run_dir)
    data = load(run_dir)
    task = tasks_mod.get(data.task)
    if task.unit_kind.no_subset and (extra or subset is not None):
        raise InputError(str(p.root), None, task.unit_kind.no_subset)
    _k_check(p.marks, data.marks.shape[0])
    if subset is not None and not 0 < subset <= data.marks.shape[1]:
        raise InputError(str(p.marks), None, f"--subset {subset}: choose 1 to "
                         f"{data.marks.shape[1]} of the {data.marks.shape[1]} {task.units}")
    d = data.words["difficulty"].to_numpy(dtype=np.float64)
    if task.labels_field is not None:  # entities (bio), tagged words (pku)
        named = [labelled_system(task, os.fspath(s), data.test, d, task.prepare(
            corpus_mod.read_corpus(s, format=task.format)), char_d=data.char_d)
            for s in systems]
    else:
        named = [read_system(data.test, d, s) for s in systems]
    named += list(extra)
    fit, reason = fit_model(p.marks, data.marks, model, max_iter=max_iter, tol=TOL)
    infit = itemresponse.infit(data.marks, fit.discrimination, fit.difficulty, fit.ability)
    item_flags = flags(fit, min_a)
    summary = _summary(fit, min_a, item_flags)
    summary.update(model_requested=model, model_reason=reason, units=task.units)
    for s in named:
        s["theta"], s["theta_se"] = map(float, itemresponse.ability(s["marks"], fit.discrimination,
                                                           fit.difficulty))
        summary["systems"].append({"output": s["name"], "theta": s["theta"],
                                   "theta_se": s["theta_se"], "n_correct": int(s["marks"].sum())})
    texts = {p.irt_items: items_tsv(fit, data.words, infit, item_flags),
             p.irt_check: flags_tsv(fit, data.words, data.test, item_flags,
                                         strong_right(fit, named))}
    items = None
    if subset is not None:
        lo, hi = float(fit.ability.min()), float(fit.ability.max())
        info = itemresponse.mean_information(fit.discrimination, fit.difficulty, (lo, hi))
        items = itemresponse.select_items(fit.discrimination, fit.difficulty, subset, (lo, hi))
        texts[p.irt_subset] = subset_tsv(fit, data.words, items, info)
        held_out = named + [_perturbed(task, data.test, d, q, seed + j)
                            for j, q in enumerate(PERTURB_RATES)]
        rows = subset_errors(fit, d, items, held_out, seed)
        summary["subset"] = {"n": int(subset), "theta_range": [lo, hi], "seed": seed,
                             "rms": rms_errors(rows), "systems": rows}
    return IrtResult(data, fit, summary, texts, named, items)


def _perturbed(task: tasks_mod.Task, test: corpus_mod.Corpus, d: np.ndarray, rate: float,
               seed: int) -> dict:
    """The gold perturbed at ``rate`` as a system, as its unit kind perturbs
    it (:meth:`committee.tasks.units.UnitKind.perturbed`): its segmentation
    (:func:`committee.tasks.units.words.perturb`), or, for tagged words, its tags
    (:func:`committee.tasks.units.tags.perturb_tags`)."""
    name = f"gold, {100 * rate:g}% perturbed"
    pred = task.unit_kind.perturbed(task, name, test, rate, seed)
    if task.labels_field is not None:  # tagged words
        return labelled_system(task, name, test, d, pred, kind="perturbed")
    return system(name, test, d, pred.words, kind="perturbed")


def write(run_dir, result: IrtResult, export: bool = True) -> dict:
    """Write the files of ``result`` into ``run_dir`` (atomically, ``irt.json``
    last); with ``export``, the py-irt and girth exports too."""
    p = paths(run_dir)
    texts = dict(result.texts)
    files = {}  # the checksum of each file, recorded in irt.json (layout.verify)
    if export:
        texts[p.irt_pyirt] = pyirt_jsonlines(result.data.marks)
        write_npz(p.irt_npz, responses=result.data.marks.T.astype(np.uint8),
                  difficulty=result.fit.difficulty, discrimination=result.fit.discrimination,
                  ability=result.fit.ability)
        files[p.irt_npz.name] = sha256_file(p.irt_npz)
    for path, text in texts.items():
        atomic_write_text(path, text)
        files[Path(path).name] = sha256_bytes(text.encode("utf-8"))
    result.summary["files"] = dict(sorted(files.items()))
    atomic_write_text(p.irt_fit, json.dumps(result.summary, ensure_ascii=False, indent=2) + "\n")
    return result.summary


def run(run_dir, model: str = "auto", *, systems=(), min_a: float = MIN_A,
        max_iter: int = 500, export: bool = True, subset: int | None = None,
        seed: int = 0) -> dict:
    """Fit ``model`` to a run's marks and write the IRT files into ``run_dir``.

    ``model``: ``auto``, ``2pl`` or ``1pl`` (:func:`compute`).
    ``systems`` are segmenters' outputs (SIGHAN) whose θ is estimated with
    the items held fixed; ``subset`` writes ``irt-subset.tsv`` and the
    estimation error (:func:`compute`).  Returns the content of
    ``irt.json``.  Raises :class:`InputError` for a missing, malformed or
    edited input (:func:`committee.pipeline.layout.verify`), a system's output that is
    one of the files written here, a committee below
    :data:`committee.metrics.itemresponse.MIN_K` members or an output that does not align,
    and :class:`RunError` for a run that is not final or a fit that does not
    converge; nothing is written then.
    """
    layout.check_inputs(run_dir, [("--system", s) for s in systems], COMMAND)
    return write(run_dir, compute(run_dir, model, systems=systems, min_a=min_a,
                                  max_iter=max_iter, subset=subset, seed=seed),
                 export)


def _summary(fit: itemresponse.IrtFit, min_a: float, item_flags) -> dict:
    counts = {}
    for f in item_flags:
        for name in f:
            counts[name] = counts.get(name, 0) + 1
    return {
        "model": fit.model,
        "n_members": fit.n_subjects, "n_words": fit.n_items,
        "converged": fit.converged, "n_iter": fit.n_iter, "max_change": fit.max_change,
        "log_likelihood": fit.log_likelihood, "log_posterior": fit.log_posterior,
        "settings": {**fit.settings, "min_a": min_a},
        "flags": dict(sorted(counts.items())),
        "members": [{"member": k, "theta": float(t), "theta_se": float(s)}
                    for k, (t, s) in enumerate(zip(fit.ability, fit.ability_se))],
        "systems": [],
    }


# --------------------------------------------------------------------------
# an informative subset (tinyBenchmarks-style estimates)


def _balanced(stats, n_correct: float, correct_d: float, bin_correct) -> dict:
    """p, r, f1, pb, rb, fb from ``stats``' totals with the gold-dependent
    sums replaced by estimates (the output-side sums n_pred and Σ d' need no
    gold comparison: d' comes from the test set's difficulties)."""
    from dataclasses import fields, replace

    from committee import metrics

    totals = {f.name: None if getattr(stats, f.name) is None
              else getattr(stats, f.name).sum(0, dtype=np.float64)[None]
              for f in fields(stats)}
    est = replace(metrics.SufficientStats(**totals), n_correct=np.array([n_correct]),
                  correct_d=np.array([correct_d]), bin_correct=np.asarray(bin_correct)[None],
                  n_oov=None, oov_correct=None)
    m = metrics.compute(est, undefined="ignore")
    return {k: m[k] for k in ("p", "r", "f1", "pb", "rb", "fb")}


def estimate(fit: itemresponse.IrtFit, d: np.ndarray, items: np.ndarray, marks: np.ndarray,
             stats) -> dict:
    """θ and the scores of a system from its outcomes on ``items`` alone.

    θ is the EAP from those outcomes (items fixed); every other word's
    outcome is its expected value P(correct | θ) (:func:`itemresponse.fill_outcomes`),
    whose sums give the recall side (Σ m_i, Σ d_i m_i); the precision side
    uses the output's own n_pred and Σ d'_j from ``stats``.
    """
    from committee import metrics

    theta, se = itemresponse.ability(marks[items], fit.discrimination, fit.difficulty, items=items)
    y = itemresponse.fill_outcomes(theta, fit.discrimination, fit.difficulty, items, marks[items])
    bins = np.bincount(metrics.difficulty_bins(d), weights=y, minlength=metrics.N_BINS)
    return {"theta": float(theta), "theta_se": float(se),
            **_balanced(stats, float(y.sum()), float(d @ y), bins)}


def subset_errors(fit: itemresponse.IrtFit, d: np.ndarray, items: np.ndarray, systems,
                  seed: int = 0) -> list[dict]:
    """θ, r and fb of each system from all words, from ``items`` and from as
    many random words (seeded); ``systems`` are dicts with ``name``,
    ``kind``, ``marks`` (every gold word), ``stats`` (its sufficient
    statistics against the run's difficulties) and ``scores`` (its
    :class:`committee.scoring.Scores` from them)."""
    rng = np.random.default_rng(seed)
    rand = np.sort(rng.choice(fit.n_items, size=items.size, replace=False))
    rows = []
    for s in systems:
        theta, _ = itemresponse.ability(s["marks"], fit.discrimination, fit.difficulty)
        full = s["scores"]
        sub = estimate(fit, d, items, s["marks"], s["stats"])
        ran = estimate(fit, d, rand, s["marks"], s["stats"])
        rows.append({"system": s["name"], "kind": s.get("kind", "system"),
                     "theta": float(theta), "theta_subset": sub["theta"],
                     "theta_random": ran["theta"], "r": full["r"], "r_subset": sub["r"],
                     "r_random": ran["r"], "fb": full["fb"], "fb_subset": sub["fb"],
                     "fb_random": ran["fb"]})
    return rows


def rms_errors(rows) -> dict:
    """Root-mean-square error of the subset's and the random words' θ, r and
    fb against the full test's, over ``rows`` of :func:`subset_errors`."""
    out = {}
    for key in ("theta", "r", "fb"):
        for how in ("subset", "random"):
            pairs = [(r[key], r[f"{key}_{how}"]) for r in rows
                     if r[key] is not None and r[f"{key}_{how}"] is not None]
            out[f"{key}_{how}"] = (float(np.sqrt(np.mean([(u - v) ** 2 for u, v in pairs])))
                                   if pairs else None)
    return out


def format_subset(sub: dict) -> str:
    """``committee irt --subset``'s table: each held-out system's θ, r and fb
    from every word, from the chosen words and from as many random words."""
    from committee.metrics.records import pct

    head = f"{'system':<24} {'theta':>7} {'subset':>7} {'random':>7}  {'fb':>6} {'subset':>6} " \
           f"{'random':>6}"
    lines = [f"irt-subset.tsv: {sub['n']} words chosen over theta "
             f"[{sub['theta_range'][0]:.2f}, {sub['theta_range'][1]:.2f}]", head]
    for r in sub["systems"]:
        lines.append(f"{r['system'][-24:]:<24} {r['theta']:>7.3f} {r['theta_subset']:>7.3f} "
                     f"{r['theta_random']:>7.3f}  {pct(r['fb']):>6} {pct(r['fb_subset']):>6} "
                     f"{pct(r['fb_random']):>6}")
    rms = sub["rms"]
    lines.append(f"RMS error: theta {rms['theta_subset']:.3f} (random words "
                 f"{rms['theta_random']:.3f}), fb {pct(rms['fb_subset'])} points (random "
                 f"{pct(rms['fb_random'])})")
    return "\n".join(lines)
