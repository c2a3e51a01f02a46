"""``committee irt``: item response theory on a finished run (docs/irt.md).

Reads the run's ``marks.npz`` (K members × N gold words, true when the
member got the word right), ``words.tsv`` and ``test.txt``; fits a 1PL or
2PL model (:mod:`committee.irt`); writes

* ``items.tsv`` — one row per test word: ``sentence``, ``word_index``,
  ``word``, ``d``, ``n_correct``, ``irt_b``, ``irt_b_se``, ``irt_a``,
  ``irt_a_se``, ``infit`` and ``flags`` (comma-separated, empty when none);
* ``irt.json`` — model, settings, convergence, log-likelihood, each member's
  θ and its standard error, and the θ of any system scored alongside;
* ``check-gold.tsv`` — words whose gold segmentation deserves a look:
  negative or near-zero discrimination, or missed by every member;
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

import numpy as np

from committee import corpus as corpus_mod
from committee import difficulty as difficulty_mod
from committee import irt
from committee.errors import InputError, PlausibilityWarning, RunError
from committee.fileio import atomic_write_text, read_input, write_npz
from committee.rundir import paths

#: A word whose discrimination is below this is "flat": its outcome hardly
#: depends on the member's ability.
MIN_A = 0.3
ITEM_COLUMNS = ("sentence", "word_index", "word", "d", "n_correct", "irt_b", "irt_b_se",
                "irt_a", "irt_a_se", "infit", "flags")
CHECK_COLUMNS = ("sentence", "word_index", "word", "d", "n_correct", "irt_a", "irt_a_se",
                 "irt_b", "reason", "context")


@dataclass(frozen=True)
class RunResponses:
    """A run's response matrix and the words it covers."""

    marks: np.ndarray
    words: object  # pandas DataFrame of words.tsv
    test: corpus_mod.Corpus


def load(run_dir) -> RunResponses:
    """Read and check ``marks.npz``, ``words.tsv`` and ``test.txt`` of a run."""
    p = paths(run_dir)
    if not p.root.is_dir():
        raise InputError(str(p.root), None, "no such directory")
    if not p.marks.is_file():
        raise InputError(str(p.marks), None, "no such file: the run has no member marks "
                         "(finish it with `committee run`)")
    test = corpus_mod.read_corpus(p.test)
    read_input(p.words)
    words = difficulty_mod.read_words_tsv(p.words)
    marks = _read_marks(p.marks, test.n_words())
    if len(words) != test.n_words():
        raise InputError(str(p.words), None,
                         f"has {len(words)} words, {p.test.name} has {test.n_words()}")
    return RunResponses(marks, words, test)


def _read_marks(path, n_words: int) -> np.ndarray:
    try:
        with np.load(path, allow_pickle=False) as f:
            if "marks" not in f.files:
                raise InputError(str(path), None, f"holds no array 'marks' (has: "
                                 f"{', '.join(f.files) or 'nothing'})")
            raw = f["marks"]
    except (OSError, ValueError) as exc:
        raise InputError(str(path), None, f"not a readable .npz file ({exc})") from None
    try:
        return irt.check_responses(raw, n_items=n_words)
    except ValueError as exc:
        raise InputError(str(path), None, f"marks: {exc}") from None


def flags(fit: irt.IrtFit, min_a: float = MIN_A) -> list[list[str]]:
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


def items_tsv(fit: irt.IrtFit, words, infit: np.ndarray, item_flags) -> str:
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


def check_gold_tsv(fit: irt.IrtFit, words, test: corpus_mod.Corpus, item_flags) -> str:
    """The text of ``check-gold.tsv``: all-wrong words first, then negative
    and flat discriminations by increasing a; ``context`` is the sentence
    with the word in 【】."""
    order = {"all_wrong": 0, "negative_a": 1, "flat_a": 2}
    picked = [i for i, f in enumerate(item_flags) if f and f[0] in order]
    picked.sort(key=lambda i: (order[item_flags[i][0]], fit.discrimination[i], i))
    sent, idx = words["sentence"].to_numpy(), words["word_index"].to_numpy()
    rows = ["\t".join(CHECK_COLUMNS)]
    for i in picked:
        s, j = int(sent[i]), int(idx[i])
        toks = test.words[s]
        context = "".join(toks[:j]) + "【" + toks[j] + "】" + "".join(toks[j + 1:])
        rows.append(f"{s}\t{j}\t{toks[j]}\t{float(words['difficulty'].iat[i])!r}"
                    f"\t{int(fit.n_correct[i])}\t{_fmt(fit.discrimination[i])}"
                    f"\t{_fmt(fit.discrimination_se[i])}\t{_fmt(fit.difficulty[i])}"
                    f"\t{item_flags[i][0]}\t{context}")
    return "\n".join(rows) + "\n"


def pyirt_jsonlines(marks: np.ndarray) -> str:
    """py-irt's input: one line per subject, ``{"subject_id": "member-k",
    "responses": {"w0": 1, ...}}`` (items named ``w`` + word number)."""
    lines = []
    for k, row in enumerate(marks):
        resp = ", ".join(f'"w{i}": {int(v)}' for i, v in enumerate(row))
        lines.append(f'{{"subject_id": "member-{k}", "responses": {{{resp}}}}}')
    return "\n".join(lines) + "\n"


def system_marks(test: corpus_mod.Corpus, output_path, fmt: str = "sighan") -> np.ndarray:
    """Right/wrong outcome of a segmenter's output on every gold word."""
    from committee import metrics, spans

    pred = corpus_mod.read_corpus(output_path, format=fmt)
    metrics.check_aligned(test, pred)
    return spans.marks(test.words, pred.words)


def _k_check(marks_path, k: int) -> None:
    if k < irt.MIN_K:
        raise InputError(str(marks_path), None, f"{k} members are too few for an IRT fit "
                         f"(at least {irt.MIN_K}; {irt.WARN_K} or more for stable "
                         "discriminations): train a larger committee")
    if k < irt.WARN_K:
        warnings.warn(PlausibilityWarning(
            f"{marks_path}: only {k} members: discriminations rest largely on their prior "
            f"(use at least {irt.WARN_K})"))


def run(run_dir, model: str = "2pl", *, systems=(), min_a: float = MIN_A,
        max_iter: int = 500, tol: float = 1e-3, export: bool = True) -> dict:
    """Fit ``model`` to a run's marks and write the IRT files into ``run_dir``.

    ``systems`` are segmenters' outputs (SIGHAN) whose θ is estimated with
    the items held fixed.  Returns the content of ``irt.json``.  Raises
    :class:`InputError` for a missing or malformed input, a committee below
    :data:`committee.irt.MIN_K` members or an output that does not align,
    and :class:`RunError` for a fit that does not converge; nothing is
    written then.
    """
    p = paths(run_dir)
    data = load(run_dir)
    _k_check(p.marks, data.marks.shape[0])
    sys_marks = [(os.fspath(s), system_marks(data.test, s)) for s in systems]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PlausibilityWarning)  # said once by _k_check
        fit = irt.fit(data.marks, model=model, max_iter=max_iter, tol=tol)
    if not fit.converged:
        raise RunError(f"{p.marks}: the {model.upper()} fit did not converge in {fit.n_iter} "
                       f"EM iterations (largest change {fit.max_change:.2g} > {tol:g}); "
                       "nothing written: raise --max-iter")
    infit = irt.infit(data.marks, fit.discrimination, fit.difficulty, fit.ability)
    item_flags = flags(fit, min_a)
    summary = _summary(fit, min_a, item_flags)
    for name, m in sys_marks:
        th, se = irt.ability(m, fit.discrimination, fit.difficulty)
        summary["systems"].append({"output": name, "theta": float(th), "theta_se": float(se),
                                   "n_correct": int(m.sum())})
    texts = {p.irt_items: items_tsv(fit, data.words, infit, item_flags),
             p.irt_check: check_gold_tsv(fit, data.words, data.test, item_flags)}
    if export:
        texts[p.irt_pyirt] = pyirt_jsonlines(data.marks)
        write_npz(p.irt_npz, responses=data.marks.T.astype(np.uint8),
                  difficulty=fit.difficulty, discrimination=fit.discrimination,
                  ability=fit.ability)
    for path, text in texts.items():
        atomic_write_text(path, text)
    atomic_write_text(p.irt_fit, json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    return summary


def _summary(fit: irt.IrtFit, min_a: float, item_flags) -> dict:
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
