"""A deliberately plain per-word implementation of the metrics: the oracle
of the tests (``test_metrics``, ``test_api``) and the baseline of
``benchmarks/bench_score.py``.  It lives beside the tests, not in the
package: nothing in ``committee`` uses it."""

from __future__ import annotations

import math

from committee.metrics.records import METRICS
from committee.metrics.stats import N_BINS

def _ref_div(a, b):
    return None if b == 0 else a / b


def _ref_h(a, b):
    if a is None or b is None:
        return None
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def _ref_clip(x):
    return None if x is None else min(1.0, max(0.0, x))


def _ref_balanced(known, sum_d, sum_dm, sum_dp, sum_1d, sum_1dm, sum_1dp, bins_g, bins_c):
    """The balanced metrics of :func:`reference_scores` from its sums."""
    keys = ("pb", "rb", "fb", "p_reward", "p_punishment", "r_reward", "r_punishment")
    if not known:
        return dict.fromkeys(keys) | {"recall_by_bin": None}
    div, h, clip = _ref_div, _ref_h, _ref_clip
    out = {"p_reward": clip(div(sum_dm, sum_dp)), "p_punishment": clip(div(sum_1dm, sum_1dp)),
           "r_reward": clip(div(sum_dm, sum_d)), "r_punishment": clip(div(sum_1dm, sum_1d))}
    out["pb"] = h(out["p_reward"], out["p_punishment"])
    out["rb"] = h(out["r_reward"], out["r_punishment"])
    out["fb"] = h(out["pb"], out["rb"])
    out["recall_by_bin"] = [div(bins_c[b], bins_g[b]) for b in range(N_BINS)]
    return out


def _ref_spans(words: list[str]) -> tuple[list[tuple[int, int]], int]:
    """``(start, end)`` of each word, and the sentence's length in characters."""
    out, pos = [], 0
    for w in words:
        out.append((pos, pos + len(w)))
        pos += len(w)
    return out, pos


def _ref_sentence(acc: dict, gs: list[str], ps: list[str], d, vocab) -> None:
    """Add one sentence's counts and sums to ``acc`` (``d``: its gold words'
    difficulties or None)."""
    gspans, n = _ref_spans(gs)
    pspans, _ = _ref_spans(ps)
    pset = set(pspans)
    acc["N"] += len(gspans)
    acc["Np"] += len(pspans)
    acc["tw"] += n * (n + 1) // 2
    owner = {ch: i for i, (s, e) in enumerate(gspans) for ch in range(s, e)}
    for i, (sp, w) in enumerate(zip(gspans, gs)):
        ok = sp in pset
        acc["c"] += ok
        if d is not None:
            di = float(d[i])
            acc["sum_d"] += di
            acc["sum_1d"] += 1 - di
            if ok:
                acc["sum_dm"] += di
                acc["sum_1dm"] += 1 - di
            b = min(int(math.floor(di * 10 + 1e-9)), N_BINS - 1)
            acc["bins_g"][b] += 1
            acc["bins_c"][b] += ok
        if vocab is not None and w not in vocab:
            acc["n_oov"] += 1
            acc["oov_c"] += ok
    if d is not None:
        for (s, e) in pspans:
            dp = float(d[owner[e - 1]])
            acc["sum_dp"] += dp
            acc["sum_1dp"] += 1 - dp
    gb = {e for (s, e) in gspans if e != n}
    pb = {e for (s, e) in pspans if e != n}
    acc["bg"] += len(gb)
    acc["bp"] += len(pb)
    acc["bc"] += len(gb & pb)


def reference_scores(gold_words: list[list[str]], pred_words: list[list[str]],
                     difficulty=None, train_words=None) -> dict:
    """The metrics of :func:`compute`, computed word by word from span sets.

    Straightforward and slow on purpose: per-sentence sets of ``(start, end)``
    tuples and loops over words, following docs/method.md §5–§6 literally.  No
    warnings; undefined metrics are ``None``.

    >>> ref = reference_scores([["約翰", "喜歡", "瑪麗"]], [["約翰", "喜", "歡", "瑪麗"]])
    >>> ref["p"], ref["r"]
    (0.5, 0.6666666666666666)
    """
    div, h = _ref_div, _ref_h
    vocab = None if train_words is None else set(train_words)
    acc = dict.fromkeys(("N", "Np", "c", "tw", "n_oov", "oov_c", "bg", "bp", "bc"), 0)
    acc |= dict.fromkeys(("sum_d", "sum_dm", "sum_dp", "sum_1d", "sum_1dm", "sum_1dp"), 0.0)
    acc["bins_g"], acc["bins_c"] = [0] * N_BINS, [0] * N_BINS
    k = 0  # index of the sentence's first gold word in the flat difficulty vector
    for gs, ps in zip(gold_words, pred_words):
        d = None if difficulty is None else difficulty[k:k + len(gs)]
        _ref_sentence(acc, gs, ps, d, vocab)
        k += len(gs)
    N, Np, c = acc["N"], acc["Np"], acc["c"]
    p, r = div(c, Np), div(c, N)
    out = {"p": p, "r": r, "f1": h(p, r)}
    out |= _ref_balanced(difficulty is not None, *(acc[key] for key in (
        "sum_d", "sum_dm", "sum_dp", "sum_1d", "sum_1dm", "sum_1dp", "bins_g", "bins_c")))
    if vocab is not None:
        out["oov_rate"] = div(acc["n_oov"], N)
        out["oov_recall"] = div(acc["oov_c"], acc["n_oov"])
        out["iv_recall"] = div(c - acc["oov_c"], N - acc["n_oov"])
    else:
        out["oov_rate"] = out["oov_recall"] = out["iv_recall"] = None
    out["er"] = div(Np - c, N)
    fp = div(Np - c, acc["tw"] - N)
    out["tnr"] = None if fp is None else 1 - fp
    out["boundary_p"] = div(acc["bc"], acc["bp"])
    out["boundary_r"] = div(acc["bc"], acc["bg"])
    out["boundary_f1"] = h(out["boundary_p"], out["boundary_r"])
    out["counts"] = {"n_gold": N, "n_pred": Np, "n_correct": c}
    return {key: out[key] for key in (*METRICS, "recall_by_bin", "counts")}
