"""Labelled spans read from entity tags: named entities, matched span and
type together (:class:`committee.metrics.labelled.EntityCollector`;
docs/method.md §13)."""

from __future__ import annotations

from committee.tasks.units.base import UnitKind, gold_sentences, oov_flags


class Entities(UnitKind):
    """Entities: one difficulty per gold entity, and one per character
    (``test.weight_c``) for the precision side of entities that are no gold
    entity."""

    name = "entities"
    labelled = True
    how_to_read = (
        "How to read: an entity's difficulty d is the share of the committee's members that do "
        "not tag exactly its span with its type. The balanced metrics pb, rb, fb reward getting "
        "hard entities right (weight d) and punish getting easy ones wrong (weight 1 − d); a "
        "predicted entity that is no gold entity weighs, on the precision side, the share of "
        "members that also put an entity over its last character (docs/method.md §13). p, r, "
        "f1 count every entity alike, as seqeval does.")

    def attributes(self) -> tuple:
        from committee.metrics.buckets import ENTITY_ATTRIBUTES

        return ENTITY_ATTRIBUTES

    def collector(self, task, gold, difficulty=None, char_difficulty=None, *, oov=None,
                  **options):
        from committee.metrics.labelled import EntityCollector

        return EntityCollector(gold, difficulty, char_difficulty, task=task, oov=oov, **options)

    def gold_side(self, scorer, side) -> None:
        """Spans of the gold's entities, their difficulties with one per
        character outside them; a tagged training corpus gives its entities
        as the vocabulary."""
        import numpy as np

        from committee import corpus as corpus_mod
        from committee.metrics.labelled import ENTITY_ATTRIBUTES

        task, gold = scorer._task, scorer.gold
        self.check_output(gold)
        units = task.gold(gold, scorer.mode, scorer.scheme)
        if scorer.mode == "strict" and not any(units):
            side.check_strict_gold()
        side.span_difficulty(units)
        train = side.vocabulary()
        if train is not None and train.tags is not None:  # a tagged corpus: its entities
            scorer.train_words = set(task.texts(train.words, task.gold(train)))
            scorer.train_words_sha256 = corpus_mod.word_list_sha256(scorer.train_words)
        words = scorer.train_words
        oov = None if words is None else np.fromiter(
            (t not in words for t in task.texts(gold.words, units)), dtype=bool,
            count=sum(map(len, units)))
        side.collector(oov=oov, mode=scorer.mode, scheme=scorer.scheme,
                       buckets=side.unit_buckets(ENTITY_ATTRIBUTES,
                                                 scorer.char_difficulty is not None))
        side.irt_items(task.texts(gold.words, units))

    def outcomes(self):
        from committee.metrics.labelled import ENTITY_OUTCOMES, entity_outcomes

        return ENTITY_OUTCOMES, entity_outcomes

    def sentences_collector(self, task, collector, sentences):
        """With the per-character weights of those sentences, entities read
        as the full collector reads them (its mode and scheme)."""
        from committee.metrics.labelled import EntityCollector

        gold, units, chars = gold_sentences(task, collector, sentences)
        d = char_d = None
        if collector.difficulty is not None:
            d, char_d = collector.difficulty[units], collector.char_difficulty[chars]
        return EntityCollector(gold, d, char_d, task=task, mode=collector.mode,
                               scheme=collector.scheme_used)

    def check_output(self, corpus) -> None:
        """A gold or an output without entity tags is refused."""
        from committee.errors import InputError

        if corpus.tags is None:
            raise InputError(corpus.path, None, "has no entity tags: task ner reads bio files "
                                                "(a token and its tag a line)")

    no_subset = ("--subset measures its words on perturbed gold segmentations; on a run of "
                 "entities fit the items, with systems")

    def write_files(self, files, test, units, committee, records, d, n_correct, oov) -> None:
        """``test.txt`` (bio), ``test.weight``, ``test.weight_c`` and
        ``words.tsv`` of entities (docs/method.md §13): a character outside
        every gold entity weighs the share of members that put an entity
        over it."""
        import numpy as np

        from committee import corpus as corpus_mod

        inside = np.stack([records[m.index]["pred_ends"] for m in committee])
        spurious = inside.sum(axis=0, dtype=np.int64)
        corpus_mod.write_bio(files.paths.test, test.words, test.tags)
        files.write_unit_weight(units, d)
        files.write_char_values(test, files.char_weights(test, units, d, spurious,
                                                         len(committee)))
        files.write_entities_tsv(test, units, d, n_correct, oov)

    def load_run(self, files, task) -> dict:
        """A run of entities read back (docs/method.md §13): each entity's
        difficulty from the per-character weights."""
        import numpy as np

        test = files.read_test(task)
        units, rows, marks = self.labelled_rows(files, task, test)
        char_d = files.read_weight_c(test)
        d = files.entity_values(char_d, test, units)
        pred_ends = files.read_predictions(test.n_chars(), marks.shape[0])
        return {"test": test, "d": d, "n_correct": rows["n_correct"].to_numpy(dtype=np.int64),
                "oov": oov_flags(rows["oov"], blank_is_none=False), "marks": marks,
                "pred_ends": pred_ends, "units": units, "char_d": char_d}

    def irt_responses(self, files, test, rows, read_marks) -> tuple:
        """As many items as ``words.tsv`` has rows, and the per-character weights."""
        return (read_marks(files.paths.marks, len(rows)),
                files.read_weight_c(test, needed=False))

    def perturbed(self, task, name, test, rate, seed):
        """Never asked: :attr:`no_subset`."""
        raise NotImplementedError(self.no_subset)

    def suspicious(self, data, systems, reasons, irt_flags) -> tuple:
        """Candidates of a run of entities (``systems`` are not read: a
        tagger's output names types the members' records lack)."""
        import os

        import numpy as np

        from committee.errors import InputError
        from committee.metrics import checkgold_entities

        if systems:
            raise InputError(os.fspath(systems[0]), None, "--system reads segmentations: a run "
                             "of entities is checked from its members alone")
        task, test, train = data.task, data.test, data.train
        lengths = [sum(map(len, s)) for s in test.words]
        gold = checkgold_entities.Entities.from_units(task.gold(test), lengths)
        train_texts = ["".join(s) for s in train.words]
        train_gold = checkgold_entities.Entities.from_units(task.gold(train), [len(t) + 1 for t in train_texts])
        text = "".join("".join(s) for s in test.words)
        check = checkgold_entities.check_entities(gold, lengths, text, data.marks, data.pred,
                                  "\n".join(train_texts), train_gold)
        c = check.candidates
        rows = []
        for i in check.order.tolist():
            unit = int(c.extra["entity"][i])
            index = unit if unit >= 0 else int(np.searchsorted(gold.start, c.start[i]))
            rows.append((i, c.extra["gold"][i], c.extra["proposed"][i], index,
                         reasons(c, i, (), (), {}, ()) + f"; reading: {c.extra['kind'][i]}"))
        return check, rows, lengths

    def by_label(self, units: list) -> str:
        """`` (LOC 3,244, ORG 376, PER 1,896)``: the gold entities by type."""
        from collections import Counter

        counts = Counter(u[2] for s in units for u in s)
        return " (" + ", ".join(f"{t} {n:,}" for t, n in sorted(counts.items())) + ")"


ENTITIES = Entities()
