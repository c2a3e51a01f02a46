"""Words: units that tile each sentence, counted span by span
(:class:`committee.metrics.Collector`; docs/method.md §5)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from committee.tasks.units.base import UnitKind, gold_sentences, oov_flags

if TYPE_CHECKING:
    from committee.corpus import Corpus

#: What ``committee check-gold --system`` reads, as messages say it.
SYSTEM_FILES = "--system reads segmentations as UTF-8 SIGHAN files (words separated by spaces)"


class Words(UnitKind):
    """The words of a segmentation: one difficulty per gold word."""

    name = "words"
    how_to_read = (
        "How to read: a word's difficulty d is the share of the committee's members that "
        "segment it wrongly. The balanced metrics pb, rb, fb reward getting hard words right "
        "(weight d) and punish getting easy words wrong (weight 1 − d), each side as a "
        "harmonic mean (Qian, Qiu & Huang, ACL 2016); p, r, f1 count every word alike.")

    def attributes(self) -> tuple:
        from committee.metrics.buckets import ATTRIBUTES

        return ATTRIBUTES

    def collector(self, task, gold, difficulty=None, char_difficulty=None, *, oov=None,
                  **options):
        from committee.metrics.stats import Collector

        if char_difficulty is not None:
            raise ValueError(f"per-character difficulties are for labelled spans, not {self.name}")
        return Collector(gold, difficulty=difficulty, oov=oov, **options)

    def gold_side(self, scorer, side) -> None:
        side.no_entity_tags()
        side.word_difficulty()
        train = side.vocabulary()
        oov = side.word_oov(check_rate=True)
        side.collector(oov=oov, bucketer=side.word_buckets(train))
        side.irt_items([w for s in scorer.gold.words for w in s])

    def outcomes(self):
        from committee.metrics.labelled import ENTITY_OUTCOMES, entity_outcomes

        return ENTITY_OUTCOMES, entity_outcomes

    def sentences_collector(self, task, collector, sentences):
        from committee.metrics.stats import Collector

        gold, units, _ = gold_sentences(task, collector, sentences)
        d = None if collector.difficulty is None else collector.difficulty[units]
        return Collector(gold, difficulty=d)

    def scored(self, collector, pred) -> tuple:
        """Words matched span by span."""
        from committee.tasks.spans import match, spans

        p = spans(pred.words)
        return collector.collect(pred, check=False, pred_spans=p), match(collector.spans, p)[0]

    def write_files(self, files, test, units, committee, records, d, n_correct, oov) -> None:
        """``test.txt`` (sighan), ``test.weight``, ``test.weight_c`` and
        ``words.tsv`` of words."""
        from committee import corpus as corpus_mod

        corpus_mod.write_sighan(files.paths.test, test.words)
        files.write_weight(test, d)
        files.write_weight_c(test, d)
        files.write_words_tsv(test, d, n_correct, oov)

    def load_run(self, files, task) -> dict:
        """A run of words read back (``task: segmentation``), the POS tags of
        ``words.tsv`` on the test set when it has any."""
        import numpy as np

        from committee.errors import InputError

        test = files.read_test(task)
        words = files.read_words_tsv()
        if len(words) != test.n_words():
            raise InputError(str(files.paths.words), None,
                             f"has {len(words)} words, test.txt has {test.n_words()}")
        test = _with_pos(test, words["pos"].astype(str).tolist())
        marks = files.read_marks(test.n_words())
        return {"test": test, "d": words["difficulty"].to_numpy(dtype=np.float64),
                "n_correct": words["n_correct"].to_numpy(dtype=np.int64),
                "oov": oov_flags(words["oov"]), "marks": marks,
                "pred_ends": files.read_predictions(test.n_chars(), marks.shape[0])}

    def perturbed(self, task, name, test, rate, seed):
        """The gold segmentation with words split and merged (:func:`perturb`)."""
        from committee.corpus import Corpus

        return Corpus(name, perturb(test.words, rate, seed), test.lines)

    def suspicious(self, data, systems, reasons, irt_flags) -> tuple:
        """Candidates of a run of words: the members' readings, the
        variation n-grams, and the readings of ``systems`` (SIGHAN files)."""
        import os

        import numpy as np

        from committee.metrics import checkgold

        test = data.test
        sys_ends = [system_ends(test, s) for s in systems]
        check = checkgold.check_words(test.words, data.pred, data.train.words, data.vocabulary,
                                      train_pos=data.train.pos)
        c = check.candidates
        text = "".join("".join(s) for s in test.words)
        unit_starts = np.concatenate(([0], np.cumsum([len(w) for s in test.words
                                                      for w in s])))[:-1]
        irt = irt_flags()
        names = [os.fspath(x) for x in systems]
        rows = []
        for i in check.order.tolist():
            s, e = int(c.start[i]), int(c.end[i])
            piece = text[s:e]
            w0, w1 = (int(np.searchsorted(unit_starts, x)) for x in (s, e))
            rows.append((i, " ".join(checkgold.cut(piece, c.gold[i])),
                         " ".join(checkgold.cut(piece, c.alt[i])), w0,
                         reasons(c, i, names, sys_ends, irt, range(w0, w1))))
        return check, rows, [sum(map(len, x)) for x in test.words]


def _with_pos(test: Corpus, pos_col: list[str]) -> Corpus:
    """``test`` with the POS tags of ``words.tsv`` when it has any."""
    from committee.corpus import Corpus

    pos = None
    if any(pos_col):
        pos, k = [], 0
        for sentence in test.words:
            pos.append(pos_col[k:k + len(sentence)])
            k += len(sentence)
    return Corpus(test.path, test.words, test.lines, pos, test.sha256, test.encoding,
                  test.normalization)


def system_ends(test: Corpus, path):
    """The word ends of a ``check-gold --system`` output; a file in another
    encoding or format is refused with what ``check-gold`` reads (it has no
    option to read others)."""
    from committee import corpus as corpus_mod
    from committee.metrics import checkgold
    from committee.metrics.align import check_aligned

    out = corpus_mod.reading.read_fixed(path, "sighan", SYSTEM_FILES)
    check_aligned(test, out)
    return checkgold.ends_of(out.words)


def perturb(words, rate: float, seed: int) -> list[list[str]]:
    """The gold segmentation with errors: each word of two or more characters
    is split at a random inner point with probability ``rate / 2``, then
    each word is merged into the previous one with probability ``rate / 2``
    (seeded, local generator).

    >>> perturb([["我们", "爱", "北京"]], 0.0, 1)
    [['我们', '爱', '北京']]
    >>> "".join(perturb([["我们", "爱", "北京"]], 1.0, 1)[0])
    '我们爱北京'
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for sentence in words:
        split = []
        for w in sentence:
            if len(w) > 1 and rng.random() < rate / 2:
                k = int(rng.integers(1, len(w)))
                split += [w[:k], w[k:]]
            else:
                split.append(w)
        merged = split[:1]
        for w in split[1:]:
            if rng.random() < rate / 2:
                merged[-1] += w
            else:
                merged.append(w)
        out.append(merged)
    return out


WORDS = Words()
