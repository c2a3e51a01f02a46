"""How well ``committee check-gold`` finds annotation errors, against
cleanlab, variation n-grams alone, the IRT flag list and difficulty alone
(docs/benchmarks.md, "Suspicious gold").

For each finished run of segmentation given and each seed, errors are
injected into its test gold (:func:`committee.metrics.checkgold.inject_words`:
merges, splits and boundary shifts at ``--rate`` of the words, each new
word a word of the corpus), and every method ranks the corrupted gold
using the members' readings that the run recorded (the members never saw
the test set, so the corruption needs no retraining).  For n injected
errors each method's list is cut at n and 2n rows: recall@k is the share
of the errors its first k rows touch (an error touched twice counts
once), precision@k the share of those rows that touch one; AP is the
average precision over the whole list.

The methods:

* ``check-gold``: :func:`committee.metrics.checkgold.check_words`;
* ``variation n-grams``: its candidates that the training corpus or the
  rest of the test gold reads another way, by the share of that other
  reading (Dickinson & Meurers 2003);
* ``cleanlab``: ``cleanlab.token_classification.filter.find_label_issues``
  on the gold's BMES tags with, as probabilities, the members' tags
  averaged (each member's decoding is one-hot: the run keeps decodings,
  not marginals), smoothed by 1e-3; a flagged character stands for the
  gold word that holds it (on a run of tagged words: the gold words' tags
  and the members' tags of them; not on entities, whose runs keep no
  member types);
* ``irt flags``: ``committee irt``'s ``irt-flags.tsv`` order (all-wrong
  words, then negative and flat discriminations), refitted on the
  corrupted gold's marks (``--no-irt`` skips it);
* ``difficulty``: the corrupted gold's words by difficulty (share of
  members that miss them), ties in corpus order.

``--fit`` prints the weights of :data:`committee.metrics.checkgold.WEIGHTS`
fitted on the first run's clean gold with
:data:`~committee.metrics.checkgold.FIT_RATE` injected errors (seed 1000):
a candidate is an error when it overlaps one and proposes the reading the
injection replaced (:func:`committee.metrics.checkgold.restores`).

Usage: python benchmarks/bench_check_gold.py RUN [RUN ...] [--rate 0.02] [--seeds 1 2 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

from committee.errors import PlausibilityWarning
from committee.metrics import checkgold as S
from committee.pipeline import marks as marks_mod
from committee.scoring import checkgold
from committee.tasks import spans as spans_mod


def bmes(ends: np.ndarray, sentence_starts: np.ndarray) -> np.ndarray:
    """BMES tag ids (B 0, M 1, E 2, S 3) of every character from word ends."""
    begin = np.zeros(ends.size, dtype=bool)
    begin[0] = True
    begin[1:] = ends[:-1]
    begin[sentence_starts] = True
    return np.where(begin, np.where(ends, 3, 0), np.where(ends, 2, 1))


def word_rows(words) -> tuple[np.ndarray, np.ndarray]:
    s = spans_mod.spans(words)
    return s.starts, s.ends


def corrupted_marks(words, member_words) -> np.ndarray:
    return np.stack([spans_mod.marks(words, m) for m in member_words])


def cleanlab_rows(words, pred, offsets):
    from cleanlab.token_classification.filter import find_label_issues

    gold = bmes(S.ends_of(words), offsets[:-1])
    votes = np.zeros((gold.size, 4))
    for member in pred:
        votes[np.arange(gold.size), bmes(member, offsets[:-1])] += 1
    probs = (votes / len(pred) + 1e-3) / (1 + 4e-3)
    labels = [gold[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])]
    probs = [probs[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    issues = find_label_issues(labels, probs)
    starts, ends = word_rows(words)
    seen, out = set(), []
    for s, j in issues:
        c = int(offsets[s]) + j
        w = int(np.searchsorted(ends, c, side="right"))
        if w not in seen:
            seen.add(w)
            out.append(w)
    out = np.array(out, dtype=np.int64)
    return starts[out], ends[out]


def irt_rows(starts, ends, marks):
    from committee.scoring import irt

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PlausibilityWarning)
        fit, _ = irt.fit_model("marks", marks, "auto")
    order = np.array(irt.flag_order(fit, irt.flags(fit)), dtype=np.int64)
    return starts[order], ends[order]


def difficulty_rows(starts, ends, marks):
    d = 1 - marks.mean(0)
    order = np.argsort(-d, kind="stable")
    return starts[order], ends[order]


def variation_rows(check: S.Check):
    c = check.candidates
    ex = c.extra
    alt, gold = ex["train_alt"] + ex["test_alt"], ex["train_gold"] + ex["test_gold"]
    keep = np.flatnonzero(alt > 0)
    share = alt[keep] / (alt[keep] + gold[keep])
    order = keep[S.rank(c.start[keep], c.end[keep], share + 1e-6 * np.log1p(alt[keep]))]
    return c.start[order], c.end[order]


class Words:
    """A run of words: its gold, the injection and every method's rows."""

    def __init__(self, data):
        self.data, test = data, data.test
        self.gold = test.words
        self.n_units = test.n_words()
        self.inject_vocab = data.vocabulary | {w for s in test.words for w in s}
        texts = ["".join(s) for s in test.words]
        self.offsets = np.concatenate(([0], np.cumsum([len(x) for x in texts])))
        self.member_words = [marks_mod.words_from_ends(texts, m) for m in data.pred]

    def inject(self, rate, seed):
        bad, errors = S.inject_words(self.gold, rate, seed, self.inject_vocab)
        return bad, errors

    def check(self, gold):
        d = self.data
        return S.check_words(gold, d.pred, d.train.words, d.vocabulary, train_pos=d.train.pos)

    def fit_data(self, gold, errors):
        d = self.data
        c, x = S.word_features(gold, d.pred, d.train.words, d.vocabulary, d.train.pos)
        return x, S.restores(c, S.ends_of(self.gold), errors)

    def baselines(self, gold, methods):
        rows = {}
        marks = corrupted_marks(gold, self.member_words)
        if "cleanlab" in methods:
            rows["cleanlab"] = cleanlab_rows(gold, self.data.pred, self.offsets)
        starts, ends = word_rows(gold)
        if "irt" in methods:
            rows["irt flags"] = irt_rows(starts, ends, marks)
        rows["difficulty"] = difficulty_rows(starts, ends, marks)
        return rows


class EntityRun:
    """A run of entities: the same, with entity errors (no cleanlab: the
    run's readings say where members put entities, not their types)."""

    def __init__(self, data):
        from committee.metrics import checkgold_entities as se

        self.se, self.data = se, data
        test, train, task = data.test, data.train, data.task
        self.lengths = [sum(map(len, s)) for s in test.words]
        self.gold = task.gold(test)
        self.n_units = sum(map(len, self.gold))
        self.types = sorted({u[2] for s in self.gold for u in s})
        self.text = "".join("".join(s) for s in test.words)
        texts = ["".join(s) for s in train.words]
        self.train_text = "\n".join(texts)
        self.train_gold = se.Entities.from_units(task.gold(train), [len(t) + 1 for t in texts])
        self.where = {}

    def inject(self, rate, seed):
        new, errors, where = self.se.inject_entities(self.gold, self.lengths, rate, seed,
                                                     self.types)
        self.where[id(new)] = (where, errors)
        return new, errors

    def _marks(self, units):
        where, errors = self.where.get(id(units), ([], []))
        return self.se.corrupted_marks(self.data.marks, self.data.pred, units, self.lengths,
                                       where, errors)

    def check(self, units):
        se = self.se
        return se.check_entities(se.Entities.from_units(units, self.lengths), self.lengths,
                                 self.text, self._marks(units), self.data.pred, self.train_text,
                                 self.train_gold)

    def fit_data(self, units, errors):
        se = self.se
        c, x = se.entity_inputs(se.Entities.from_units(units, self.lengths), self.lengths,
                                self.text, self._marks(units), self.data.pred, self.train_text,
                                self.train_gold)
        original = se.Entities.from_units(self.gold, self.lengths)
        return x, se.restores(c, original, errors, self.text)

    def baselines(self, units, methods):
        e = self.se.Entities.from_units(units, self.lengths)
        marks = self._marks(units)
        rows = {}
        if "irt" in methods:
            rows["irt flags"] = irt_rows(e.start, e.end, marks)
        rows["difficulty"] = difficulty_rows(e.start, e.end, marks)
        return rows


class TagRun:
    """A run of tagged words: a word given another tag (one the training
    corpus gives the same word, when it gives one)."""

    def __init__(self, data):
        from committee.metrics import checkgold_tags as st

        self.st, self.data = st, data
        self.names, self.codes = data.pred
        test, train = data.test, data.train
        self.words = test.words
        self.gold = test.pos
        self.n_units = test.n_words()
        self.train_var = st.TagVariation(train.words, train.pos)
        lengths = np.array([len(w) for s in test.words for w in s], dtype=np.int64)
        self.ends = np.cumsum(lengths)
        self.starts = self.ends - lengths
        self.offsets = np.concatenate(([0], np.cumsum([len(s) for s in test.words])))

    def inject(self, rate, seed):
        new, errors, _ = self.st.inject_tags(self.words, self.gold, rate, seed, self.train_var,
                                             self.names)
        return new, errors

    def check(self, tags):
        t = self.data.train
        return self.st.check_tags(self.words, tags, self.codes, self.names, t.words, t.pos)

    def fit_data(self, tags, errors):
        t = self.data.train
        c, x = self.st.tag_inputs(self.words, tags, self.codes, self.names, t.words, t.pos)
        return x, self.st.restores(c, self.gold, self.names, errors)

    def _gold_codes(self, tags):
        index = {n: i for i, n in enumerate(self.names)}
        return np.array([index.get(t, -1) for s in tags for t in s], dtype=np.int64)

    def baselines(self, tags, methods):
        gold = self._gold_codes(tags)
        marks = self.codes == gold[None, :]
        rows = {}
        if "cleanlab" in methods:
            rows["cleanlab"] = self._cleanlab(gold)
        if "irt" in methods:
            rows["irt flags"] = irt_rows(self.starts, self.ends, marks)
        rows["difficulty"] = difficulty_rows(self.starts, self.ends, marks)
        return rows

    def _cleanlab(self, gold):
        from cleanlab.token_classification.filter import find_label_issues

        m = len(self.names)
        known = np.where(gold >= 0, gold, 0)
        votes = np.zeros((gold.size, m))
        for row in self.codes:
            votes[np.arange(gold.size), row] += 1
        probs = (votes / len(self.codes) + 1e-3) / (1 + m * 1e-3)
        o = self.offsets
        issues = find_label_issues([known[a:b].tolist() for a, b in zip(o[:-1], o[1:])],
                                   [probs[a:b] for a, b in zip(o[:-1], o[1:])])
        order = np.array([int(o[s]) + j for s, j in issues], dtype=np.int64)
        return self.starts[order], self.ends[order]


def case_of(run):
    data = checkgold.load_inputs(run)
    kind = data.task.unit_kind.name
    return {"words": Words, "entities": EntityRun, "tags": TagRun}[kind](data)


def fit_weights(run: str) -> None:
    case = case_of(run)
    bad, errors = case.inject(S.FIT_RATE, 1000)
    x, y = case.fit_data(bad, errors)
    if x.shape[1] == len(S.WORD_FEATURES):  # words: surname's weight is set, not fitted
        keep = S.WORD_FEATURES.index("surname")
        w = np.insert(S.fit(np.delete(x, keep, axis=1), y.astype(float)), 1 + keep,
                      S.SURNAME_WEIGHT)
    else:
        w = S.fit(x, y.astype(float))
    print(f"{run}: {len(errors)} injected errors, {len(y)} candidates, {int(y.sum())} of them "
          "propose the reading an error replaced")
    print("WEIGHTS = np.array([" + ", ".join(f"{v:.4f}" for v in w) + "])")
    print(f"FITTED_RATE = {y.mean():.4f}")


def bench(run: str, rate: float, seeds, methods) -> list[dict]:
    t = time.process_time()
    case = case_of(run)
    units = case.data.task.units
    print(f"\n## {run}: K = {case.data.marks.shape[0]}, {case.n_units:,} test {units} "
          f"(read in {time.process_time() - t:.1f} CPU-s)", flush=True)
    t = time.process_time()
    clean = case.check(case.gold)
    print(f"clean gold: {len(clean.order):,} rows, expected errors {clean.expected:.0f} "
          f"(rate {clean.rate:.4f}); check-gold took {time.process_time() - t:.1f} CPU-s",
          flush=True)
    results = []
    for seed in seeds:
        bad, errors = case.inject(rate, seed)
        n = len(errors)
        ks = (n, 2 * n)
        check = case.check(bad)
        rows = {"check-gold": (check.candidates.start[check.order],
                               check.candidates.end[check.order])}
        if "variation" in methods:
            rows["variation n-grams"] = variation_rows(check)
        rows.update(case.baselines(bad, methods))
        for name, (s, e) in rows.items():
            r = S.detection(s, e, errors, ks)
            results.append({"run": run, "seed": seed, "method": name, "n": n,
                            "rows": r["n_rows"], "r@n": r[f"recall@{n}"],
                            "p@n": r[f"precision@{n}"], "r@2n": r[f"recall@{2 * n}"],
                            "p@2n": r[f"precision@{2 * n}"], "ap": r["ap"]})
        extra = check.expected - clean.expected
        print(f"seed {seed}: {n} errors injected; check-gold expects {check.expected:.0f} "
              f"errors in its list ({extra:+.0f} against the clean gold)", flush=True)
        print(f"  calibration: {calibration(check, errors)}", flush=True)
    return results


#: Bins of the evidence column for :func:`calibration`.
BINS = ((0.99, 1.01), (0.9, 0.99), (0.5, 0.9), (0.1, 0.5), (0.0, 0.1))


def calibration(check, errors) -> str:
    """Each bin of :data:`BINS`: its rows, their mean evidence (the model's
    p) and the share of them that touch an injected error (a lower end: the
    gold's own inconsistencies count as no error here)."""
    c, order = check.candidates, check.order
    p = check.p[order]
    hit = S.touches(c.start[order], c.end[order], errors)
    out = []
    for lo, hi in BINS:
        sel = (p >= lo) & (p < hi)
        if sel.any():
            out.append(f"[{lo:g}, {min(hi, 1):g}): {int(sel.sum()):,} rows, evidence "
                       f"{p[sel].mean():.3f}, injected errors {hit[sel].mean():.3f}")
    return "; ".join(out)


def table(results) -> str:
    import pandas as pd

    df = pd.DataFrame(results)
    g = df.groupby(["run", "method"], sort=False)
    lines = ["| run | method | rows | recall@n | precision@n | recall@2n | precision@2n | AP |",
             "|---|---|---|---|---|---|---|---|"]
    for (run, method), part in g:
        cells = [f"{part[c].mean():.3f} ± {part[c].std(ddof=0):.3f}"
                 for c in ("r@n", "p@n", "r@2n", "p@2n", "ap")]
        lines.append(f"| {run} | {method} | {part['rows'].mean():,.0f} | " + " | ".join(cells)
                     + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", metavar="RUN")
    ap.add_argument("--rate", type=float, default=0.02)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--fit", action="store_true", help="print the model's weights and stop")
    ap.add_argument("--no-irt", action="store_true")
    ap.add_argument("--no-cleanlab", action="store_true")
    args = ap.parse_args(argv)
    if args.fit:
        fit_weights(args.runs[0])
        return 0
    methods = {"variation"} | ({"irt"} if not args.no_irt else set()) | (
        {"cleanlab"} if not args.no_cleanlab else set())
    results = []
    for run in args.runs:
        results += bench(run, args.rate, args.seeds, methods)
    print(f"\n### {100 * args.rate:g}% of the words injected, seeds "
          f"{' '.join(map(str, args.seeds))} (mean ± sd)\n")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
