"""Tagged words: the gold words with a label each (parts of speech), matched
span and tag together (:class:`committee.metrics.tagged.TagCollector`;
docs/method.md §14)."""

from __future__ import annotations

from committee.tasks.units.base import UnitKind, gold_sentences, oov_flags


class Tags(UnitKind):
    """Words with their tags: one difficulty per gold word, as for words."""

    name = "tags"
    labelled = True
    how_to_read = (
        "How to read: a word's difficulty d is the share of the committee's members, taggers "
        "of the gold words, that give it another tag than the gold's. A system's word is right "
        "when its span and its tag are a gold word's, so a tagger that keeps the gold "
        "segmentation has p = r = f1 = its tag accuracy, and one with its own segmentation is "
        "scored jointly (segmentation and tagging). The balanced metrics pb, rb, fb reward "
        "getting hard words right (weight d) and punish getting easy words wrong (weight "
        "1 − d); a predicted word weighs the difficulty of the gold word that holds its last "
        "character (docs/method.md §14).")

    def attributes(self) -> tuple:
        from committee.metrics.buckets import TAG_ATTRIBUTES

        return TAG_ATTRIBUTES

    def collector(self, task, gold, difficulty=None, char_difficulty=None, *, oov=None,
                  **options):
        from committee.metrics.tagged import TagCollector

        if char_difficulty is not None:
            raise ValueError(f"per-character difficulties are for labelled spans, not {self.name}")
        return TagCollector(gold, difficulty, task=task, oov=oov, **options)

    def gold_side(self, scorer, side) -> None:
        """One difficulty per gold word, as for words."""
        from committee.metrics.tagged import TAG_ATTRIBUTES

        side.word_difficulty()
        side.vocabulary()
        side.collector(oov=side.word_oov(),
                       buckets=side.unit_buckets(TAG_ATTRIBUTES, scorer.difficulty is not None))
        side.irt_items(scorer._task.texts(scorer.gold.words, scorer._collector.units))

    def outcomes(self):
        """A word of the wrong tag is ``wrong_tag``, not ``wrong_type``."""
        from committee.metrics.tagged import TAG_OUTCOMES, tag_outcomes

        return TAG_OUTCOMES, tag_outcomes

    def sentences_collector(self, task, collector, sentences):
        from committee.metrics.tagged import TagCollector

        gold, units, _ = gold_sentences(task, collector, sentences)
        d = None if collector.difficulty is None else collector.difficulty[units]
        return TagCollector(gold, d, task=task)

    def by_label(self, units: list) -> str:
        """`` (44 tags)``: how many tags the gold words have."""
        return f" ({len({u[2] for s in units for u in s})} tags)"

    def write_files(self, files, test, units, committee, records, d, n_correct, oov) -> None:
        """``test.txt`` (pku: the gold words with their tags), ``test.weight``,
        ``test.weight_c`` and ``words.tsv`` of tagged words (docs/method.md
        §14): one difficulty per gold word, as for words, its tag in ``pos``."""
        from committee import corpus as corpus_mod

        corpus_mod.write_pku(files.paths.test, test.words, test.pos)
        files.write_weight(test, d)
        files.write_weight_c(test, d)
        files.write_words_tsv(test, d, n_correct, oov)

    def load_run(self, files, task) -> dict:
        """A run of tagged words read back (docs/method.md §14): one
        difficulty per gold word, each member's tag of every gold word."""
        import numpy as np

        test = task.prepare(files.read_test(task))
        units, rows, marks = self.labelled_rows(files, task, test)
        labels = self.members_readings(files, test, marks)
        names, codes = labels if labels is not None else ((), None)
        return {"test": test, "d": rows["difficulty"].to_numpy(dtype=np.float64),
                "n_correct": rows["n_correct"].to_numpy(dtype=np.int64),
                "oov": oov_flags(rows["oov"]), "marks": marks, "pred_ends": None,
                "units": units, "char_d": None, "pred_labels": codes, "label_names": names}

    def members_readings(self, files, test, marks):
        """Each member's label of every gold word (``label_names``, codes)."""
        return files.read_labels(marks.shape[1], marks.shape[0])

    def perturbed(self, task, name, test, rate, seed):
        """The gold words with their tags replaced (:func:`perturb_tags`)."""
        return task.as_corpus(name, test.words, test.lines,
                              perturb_tags(task.labels_of(test), rate, seed))

    def suspicious(self, data, systems, reasons, irt_flags) -> tuple:
        """Candidates of a run of tagged words: the members' labels of every
        gold word against its gold label (``systems`` are not read)."""
        import os

        from committee.errors import InputError
        from committee.metrics import checkgold_tags

        if systems:
            raise InputError(os.fspath(systems[0]), None, "--system reads segmentations: a run "
                             "of tagged words is checked from its members alone")
        names, codes = data.pred
        test, train = data.test, data.train
        check = checkgold_tags.check_tags(test.words, test.pos, codes, names, train.words, train.pos)
        c = check.candidates
        rows = [(i, c.extra["gold"][i], c.extra["proposed"][i], int(c.extra["unit"][i]),
                 reasons(c, i, (), (), {}, ())) for i in check.order.tolist()]
        return check, rows, [sum(map(len, x)) for x in test.words]


def perturb_tags(tags, rate: float, seed: int) -> list[list[str]]:
    """Gold tags with errors: each tag replaced, with probability ``rate``,
    by another of the tags the gold uses, drawn uniformly (seeded, local
    generator).

    >>> perturb_tags([["r", "v", "n"]], 0.0, 1)
    [['r', 'v', 'n']]
    >>> [a != b for a, b in zip(perturb_tags([["r", "v", "n"]], 1.0, 1)[0], ["r", "v", "n"])]
    [True, True, True]
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    names = sorted({t for sentence in tags for t in sentence})
    out = []
    for sentence in tags:
        row = []
        for t in sentence:
            if len(names) > 1 and rng.random() < rate:
                others = [x for x in names if x != t]
                t = others[int(rng.integers(len(others)))]
            row.append(t)
        out.append(row)
    return out


TAGS = Tags()
