"""Errors injected into a gold segmentation, and how a ranked list of
spans finds them: what the weights of :mod:`committee.metrics.checkgold`
were fitted on and are measured by (``benchmarks/bench_check_gold.py``).
:mod:`committee.metrics.checkgold` re-exports every name here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Share of gold words :func:`inject_words` turns into errors for the fit.
FIT_RATE = 0.03
#: Kinds of injected word errors and their shares.
WORD_ERRORS = (("merge", 0.4), ("split", 0.4), ("shift", 0.2))


@dataclass(frozen=True)
class Injected:
    """One injected error: its kind and its span on the global axis."""

    kind: str
    start: int
    end: int


def _sites(sentence, vocabulary):
    """Where one sentence's words can take each kind of error: ``(kind, i, new words)``."""
    out = []
    for i, w in enumerate(sentence):
        if i + 1 < len(sentence):
            nxt = sentence[i + 1]
            if w + nxt in vocabulary:
                out.append(("merge", i, [w + nxt], 2))
            if len(w) > 1 and w[:-1] in vocabulary and w[-1] + nxt in vocabulary:
                out.append(("shift", i, [w[:-1], w[-1] + nxt], 2))
            if len(nxt) > 1 and w + nxt[0] in vocabulary and nxt[1:] in vocabulary:
                out.append(("shift", i, [w + nxt[0], nxt[1:]], 2))
        for p in range(1, len(w)):
            if w[:p] in vocabulary and w[p:] in vocabulary:
                out.append(("split", i, [w[:p], w[p:]], 1))
    return out


def inject_words(words: list[list[str]], rate: float, seed: int, vocabulary,
                 kinds=WORD_ERRORS) -> tuple[list[list[str]], list[Injected]]:
    """A copy of ``words`` with errors in about ``rate`` of its words, and
    the errors (each counted once, in corpus order).  Merges join two
    neighbours into a word of ``vocabulary``; splits cut a word into two
    words of ``vocabulary``; shifts move one character across a boundary,
    both new words in ``vocabulary``.  Errors never touch each other (a
    word next to an error stays as it is).  Seeded: the same arguments give
    the same errors.

    >>> vocab = {"北京", "大学", "北京大学", "我", "爱"}
    >>> new, errs = inject_words([["我", "爱", "北京", "大学"]], 1.0, 0, vocab)
    >>> len(errs), "".join(new[0])
    (1, '我爱北京大学')
    """
    rng = np.random.default_rng(seed)
    n_words = sum(map(len, words))
    target = int(round(rate * n_words))
    sites = [(s, *site) for s, sentence in enumerate(words) for site in _sites(sentence, vocabulary)]
    order = rng.permutation(len(sites))
    by_kind = {name: [sites[i] for i in order if sites[i][1] == name] for name, _ in kinds}
    shares = np.array([share for _, share in kinds], dtype=np.float64)
    names = [name for name, _ in kinds]
    blocked: set = set()
    chosen = []
    pos = {name: 0 for name in names}
    while len(chosen) < target and any(pos[n] < len(by_kind[n]) for n in names):
        live = np.array([pos[n] < len(by_kind[n]) for n in names])
        probs = shares * live
        name = names[int(rng.choice(len(names), p=probs / probs.sum()))]
        s, kind, i, new, span = by_kind[name][pos[name]]
        pos[name] += 1
        touched = {(s, j) for j in range(i - 1, i + span + 1)}
        if touched & blocked:
            continue
        blocked |= touched
        chosen.append((s, kind, i, new, span))
    chosen.sort(key=lambda t: (t[0], t[2]))
    out = [list(sentence) for sentence in words]
    offsets = np.concatenate(([0], np.cumsum([sum(map(len, x)) for x in words])))
    errors = []
    for s, kind, i, new, span in reversed(chosen):  # right to left: indices stay valid
        start = int(offsets[s]) + sum(map(len, words[s][:i]))
        end = start + sum(map(len, words[s][i:i + span]))
        out[s][i:i + span] = new
        errors.append(Injected(kind, start, end))
    errors.reverse()
    return out, errors


def detection(start: np.ndarray, end: np.ndarray, errors: list[Injected],
              ks=()) -> dict:
    """How a ranked list of spans finds the ``errors``: ``recall@k`` and
    ``precision@k`` for each ``k`` (a row finds every error it overlaps;
    an error found twice counts once) and the average precision.

    >>> errs = [Injected("merge", 0, 2), Injected("split", 10, 12)]
    >>> r = detection(np.array([0, 5, 11]), np.array([2, 6, 12]), errs, ks=(1, 2, 4))
    >>> r["recall@1"], r["precision@2"], r["recall@4"], round(r["ap"], 4)
    (0.5, 0.5, 1.0, 0.8333)
    """
    n = len(errors)
    es = np.array([e.start for e in errors], dtype=np.int64)
    ee = np.array([e.end for e in errors], dtype=np.int64)
    order = np.argsort(es, kind="stable")
    es, ee = es[order], ee[order]
    found = np.zeros(n, dtype=bool)
    hit_rows = np.zeros(len(start), dtype=bool)
    new_at = np.zeros(len(start), dtype=np.int64)
    for r, (s, e) in enumerate(zip(np.asarray(start).tolist(), np.asarray(end).tolist())):
        lo = np.searchsorted(ee, s, side="right")  # errors ending after s
        hi = np.searchsorted(es, e, side="left")   # errors starting before e
        hits = np.arange(lo, hi)
        hits = hits[(es[hits] < e) & (ee[hits] > s)] if hits.size else hits
        if hits.size:
            hit_rows[r] = True
            fresh = hits[~found[hits]]
            new_at[r] = fresh.size
            found[fresh] = True
    out = {"n_errors": n, "n_rows": int(len(start))}
    cum_new = np.cumsum(new_at)
    cum_hit = np.cumsum(hit_rows)
    for k in ks:
        k = int(k)
        m = min(k, len(start))
        out[f"recall@{k}"] = float(cum_new[m - 1] / n) if n and m else 0.0
        out[f"precision@{k}"] = float(cum_hit[m - 1] / k) if k and m else 0.0
    ranks = np.flatnonzero(new_at)
    out["ap"] = float(sum(new_at[r] * cum_hit[r] / (r + 1) for r in ranks) / n) if n else 0.0
    return out


def touches(start: np.ndarray, end: np.ndarray, errors: list[Injected]) -> np.ndarray:
    """For each span, whether it overlaps one of ``errors``.

    >>> touches(np.array([0, 3]), np.array([2, 4]), [Injected("split", 1, 3)]).tolist()
    [True, False]
    """
    cover = np.zeros(int(max([e.end for e in errors] + [int(end.max()) if end.size else 0])) + 1,
                     dtype=np.int64)
    for e in errors:
        cover[e.start:e.end] = 1
    before = np.concatenate(([0], np.cumsum(cover)))
    return (before[end] - before[start]) > 0
