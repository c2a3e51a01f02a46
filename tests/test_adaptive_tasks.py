"""Adaptive testing of entities (``--task ner``) and tagged words (``--task
pos``): every sentence gives ``committee score``'s own scores and θ, only
the drawn sentences of an output are parsed (a block of a ``bio`` file, a
line of a ``pku`` file), taggers are given the drawn sentences only, and a
test of tagged words is continued from its draws (docs/method.md §16)."""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np
import pytest

import committee
from committee import corpus as corpus_mod
from committee.cli import main
from committee.scoring import adaptive, adaptive_draws, adaptive_run
from committee.scoring.adaptive_sources import MemorySource, OutputSentences

KEYS = ("p", "r", "f1", "pb", "rb", "fb")
#: Each task's two outputs in tests/matrix_runs.py.
OUTPUTS = {"ner": ("drop", "none"), "pos": ("merged", "retag")}


def _full(gold, output, **options):
    """``committee.score``'s scores, its notes and warnings about the whole
    output (ill-formed tag sequences, words scored jointly) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return committee.score(gold, output, **options)


def _runs(task_runs, task):
    r = task_runs[task]
    return r, r.k5, r.k5 / "test.txt"


@pytest.mark.parametrize("task", ["ner", "pos"])
def test_every_sentence_gives_the_scorers_scores_and_theta(task_runs, task):
    r, run, gold = _runs(task_runs, task)
    for name in OUTPUTS[task]:
        full = _full(gold, r.outputs[name], difficulty=run, irt=run, task=task)
        got = committee.adaptive_score(gold, r.outputs[name], run, task=task, target=1e-9)
        assert got["sentences_used"] == 40
        # an undefined fb (no entity found) has no interval to stop on
        assert got["stopped_by"] == ("target" if full.fb is not None else "max-sentences")
        for k in KEYS:
            e = got["estimates"][k]
            assert e["value"] == getattr(full, k) and e["low"] == e["high"] == e["value"], k
        assert got["estimates"]["theta"]["value"] == pytest.approx(full.theta, abs=1e-8)
        assert got["estimates"]["theta"]["se"] == pytest.approx(full.theta_se, abs=1e-8)


def test_an_output_of_no_entity_has_no_precision(task_runs):
    r, run, gold = _runs(task_runs, "ner")
    got = committee.adaptive_score(gold, r.outputs["none"], run, task="ner", max_sentences=12)
    e = got["estimates"]
    assert e["r"]["value"] == 0.0 and e["p"] == e["f1"] == e["fb"] == {
        "value": None, "low": None, "high": None}


def _text(corpus, i: int) -> str:
    return "".join(corpus.words[i])


def _blocks(text: str) -> list[list[str]]:
    out, block = [], []
    for line in text.splitlines():
        if line.strip():
            block.append(line)
        elif block:
            out.append(block)
            block = []
    return out + ([block] if block else [])


@pytest.mark.parametrize("task", ["ner", "pos"])
def test_only_the_drawn_sentences_are_parsed(task_runs, task, tmp_path):
    r, run, gold = _runs(task_runs, task)
    path = r.outputs[OUTPUTS[task][0]]
    got = committee.adaptive_score(gold, path, run, task=task, max_sentences=12, seed=3)
    drawn = sorted({d["sentence"] for d in got["drawn"]})
    text = path.read_text(encoding="utf-8")
    if task == "ner":  # every other block malformed: three columns a line
        garbled = "\n\n".join("\n".join(b if k + 1 in drawn else ["乱 码 x"] * len(b))
                              for k, b in enumerate(_blocks(text))) + "\n"
    else:  # every other line malformed: tokens without a tag
        garbled = "\n".join(ln if k + 1 in drawn else "乱码 无标"
                            for k, ln in enumerate(text.splitlines())) + "\n"
    (tmp_path / path.name).write_text(garbled, encoding="utf-8")
    again = committee.adaptive_score(gold, tmp_path / path.name, run, task=task,
                                     max_sentences=12, seed=3)
    assert again["estimates"] == got["estimates"] and again["drawn"] == got["drawn"]
    bank = adaptive_run.load_bank(gold, run, options=committee.scoring.ScorerOptions(task=task))
    source = OutputSentences(tmp_path / path.name, bank.gold, bank.task)
    adaptive.administer(bank, source, adaptive.Settings(max_sentences=12, seed=3))
    assert sorted(source.parsed) == drawn


def test_a_malformed_drawn_block_names_its_line_in_the_file(task_runs, tmp_path, capsys):
    r, run, gold = _runs(task_runs, "ner")
    path = r.outputs["drop"]
    got = committee.adaptive_score(gold, path, run, task="ner", max_sentences=5, seed=5)
    first = min(d["sentence"] for d in got["drawn"])
    lines = path.read_text(encoding="utf-8").split("\n")
    starts = [k for k, ln in enumerate(lines) if ln.strip() and (k == 0 or not lines[k - 1].strip())]
    bad = starts[first - 1] + 1  # the block's second line (from 0)
    lines[bad] = lines[bad] + " extra"
    (tmp_path / "bad.bio").write_text("\n".join(lines), encoding="utf-8")
    assert main(["score", "--adaptive", "--task", "ner", "--gold", str(gold), "--irt", str(run),
                 "--max-sentences", "5", "--seed", "5", str(tmp_path / "bad.bio")]) == 3
    assert capsys.readouterr().err.strip() == (
        f"committee: error: {tmp_path / 'bad.bio'}:{bad + 1}: expected a token and its tag "
        "(2 columns separated by a tab or spaces), found 3")


def test_a_block_count_that_is_not_the_golds_is_refused(task_runs, tmp_path, capsys):
    r, run, gold = _runs(task_runs, "ner")
    blocks = _blocks(r.outputs["drop"].read_text(encoding="utf-8"))
    (tmp_path / "short.bio").write_text(
        "-DOCSTART- O\n\n" + "\n\n".join("\n".join(b) for b in blocks[:-1]) + "\n",
        encoding="utf-8")
    assert main(["score", "--adaptive", "--task", "ner", "--gold", str(gold), "--irt", str(run),
                 str(tmp_path / "short.bio")]) == 3
    assert capsys.readouterr().err.strip() == (
        f"committee: error: {tmp_path / 'short.bio'}: has 39 sentences, gold {gold} has 40: "
        "every output needs one sentence per gold sentence, in the same order")


@pytest.mark.parametrize("task", ["ner", "pos"])
def test_a_tagger_is_given_the_drawn_sentences_only(task_runs, task, tmp_path, capsys):
    r, run, gold = _runs(task_runs, task)
    log = tmp_path / "sent.txt"
    script = (f"import sys\nlog = open({str(log)!r}, 'a', encoding='utf-8')\n"
              "for line in sys.stdin:\n    log.write(line)\n    log.flush()\n"
              f"    tag = {'O' if task == 'ner' else 'n'!r}\n"
              "    print(' '.join(c + '/' + tag for c in line.strip()), flush=True)\n")
    (tmp_path / "tagger.py").write_text(script, encoding="utf-8")
    name = f"cmd:{sys.executable} {tmp_path / 'tagger.py'}"
    assert main(["score", "--adaptive", "--task", task, "--gold", str(gold), "--irt", str(run),
                 "--with", name, "--max-sentences", "10", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)["systems"][0]
    test = corpus_mod.read_corpus(gold, format=r.format)
    sent = log.read_text(encoding="utf-8").splitlines()
    assert sorted(sent) == sorted({_text(test, d["sentence"] - 1) for d in s["drawn"]})
    assert len(sent) == s["sentences_used"] == 10
    if task == "ner":  # no entity: recall 0
        assert s["estimates"]["r"]["value"] == 0.0


def test_a_test_of_tagged_words_is_continued_from_its_draws(task_runs, tmp_path, capsys):
    r, run, gold = _runs(task_runs, "pos")
    path = r.outputs["retag"]
    args = ["score", "--adaptive", "--task", "pos", "--gold", str(gold), "--irt", str(run),
            "--seed", "2", "--json", str(path)]
    assert main([*args, "--max-sentences", "12", "-o", str(tmp_path / "a.tsv")]) == 0
    capsys.readouterr()
    rows = [dict(zip(adaptive_draws.DRAW_COLUMNS, ln.split("\t"))) for ln in
            (tmp_path / "a.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    test = corpus_mod.read_corpus(path, format="pku")
    for row in rows:
        i = int(row["sentence"]) - 1
        assert row["words"].split(" ") == test.words[i] and row["labels"].split(" ") == test.pos[i]
    assert main([*args, "--max-sentences", "20", "-o", str(tmp_path / "b.tsv")]) == 0
    full = json.loads(capsys.readouterr().out)["systems"][0]
    # the output replaced by one that cannot be read: the file serves the first 12
    assert main([*args[:-1], "--max-sentences", "20", "--continue", str(tmp_path / "a.tsv"),
                 "-o", str(tmp_path / "c.tsv"), str(path)]) == 0
    again = json.loads(capsys.readouterr().out)["systems"][0]
    assert again.pop("sentences_reused") == 12
    full.pop("sentences_reused")
    assert again == full
    assert (tmp_path / "c.tsv").read_bytes() == (tmp_path / "b.tsv").read_bytes()
    lines = (tmp_path / "a.tsv").read_text(encoding="utf-8").splitlines()
    cells = lines[1].split("\t")
    cells[-1] = " ".join(cells[-1].split(" ")[:-1])
    (tmp_path / "a.tsv").write_text("\n".join([lines[0], "\t".join(cells)]) + "\n",
                                    encoding="utf-8")
    assert main([*args, "--continue", str(tmp_path / "a.tsv")]) == 3
    n = len(cells[-2].split(" "))
    assert capsys.readouterr().err.strip() == (
        f"committee: error: {tmp_path / 'a.tsv'}:2: has {n} tokens and {n - 1} labels: task "
        "pos needs one label per token")


def test_entities_in_memory_with_the_lengths_predictor_give_the_census(task_runs):
    r, run, gold = _runs(task_runs, "ner")
    bank = adaptive_run.load_bank(gold, run, options=committee.scoring.ScorerOptions(task="ner"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = corpus_mod.read_corpus(r.outputs["drop"], format="bio")
    full = _full(gold, out, difficulty=run, task="ner")
    got = adaptive.administer(bank, MemorySource(out, bank.gold, bank.task),
                              adaptive.Settings(target=1e-9, predictor="lengths"))
    assert got["sentences_used"] == 40
    assert all(got["estimates"][k]["value"] == getattr(full, k) for k in KEYS)
    assert np.all(bank.classes[:, 0] == bank.gold_rows[:, 0])  # entities by length class


def test_a_table_format_is_a_usage_error(task_runs, capsys):
    r, run, gold = _runs(task_runs, "pos")
    assert main(["score", "--adaptive", "--task", "pos", "--format", "jsonl", "--gold-format",
                 "pku", "--gold", str(gold), "--irt", str(run), str(r.outputs["retag"])]) == 2
    assert "--adaptive reads the drawn sentences of a file of text: --format jsonl is a " \
           "table, read whole" in capsys.readouterr().err


def test_a_segmenter_is_no_entity_tagger(task_runs, capsys):
    r, run, gold = _runs(task_runs, "ner")
    assert main(["score", "--adaptive", "--task", "ner", "--gold", str(gold), "--irt", str(run),
                 "--with", "jieba"]) == 2
    assert capsys.readouterr().err.startswith(
        "committee: error: --with jieba: not an entity tagger")


def _conllu(words, tags) -> str:
    """CoNLL-U of tagged words: a comment opens each sentence, a multiword
    range before its first word (skipped by the reader), no final newline."""
    blocks = []
    for k, (ws, ts) in enumerate(zip(words, tags)):
        rows = [f"# sent_id = {k + 1}", f"1-2\t{''.join(ws[:2])}" + "\t_" * 8]
        rows += [f"{j}\t{w}\t_\t{t}\t_\t_\t_\t_\t_\t_" for j, (w, t) in enumerate(zip(ws, ts), 1)]
        blocks.append("\n".join(rows))
    return "\n\n".join(blocks)


def test_tagged_words_in_every_format_of_the_task_give_the_same_test(task_runs, tmp_path):
    r, run, gold = _runs(task_runs, "pos")
    out = corpus_mod.read_corpus(r.outputs["retag"], format="pku")
    (tmp_path / "o.txt").write_text("\ufeff" + "\n".join(
        " ".join(f"{w}_{t}" for w, t in zip(ws, ts)) for ws, ts in zip(out.words, out.pos))
        + "\n", encoding="utf-8")
    (tmp_path / "o.conllu").write_text(_conllu(out.words, out.pos), encoding="utf-8")
    want = committee.adaptive_score(gold, r.outputs["retag"], run, task="pos",
                                    max_sentences=15, seed=8)
    for path, fmt in ((tmp_path / "o.txt", "underscore"), (tmp_path / "o.conllu", "conllu")):
        got = committee.adaptive_score(gold, path, run, task="pos", format=fmt,
                                       gold_format="pku", max_sentences=15, seed=8)
        assert got["estimates"] == want["estimates"] and got["drawn"] == want["drawn"], fmt
    # a drawn block's word line with 9 columns: named at its line in the file
    text = (tmp_path / "o.conllu").read_text(encoding="utf-8").split("\n")
    first = min(d["sentence"] for d in want["drawn"])
    at = [k for k, ln in enumerate(text) if ln == f"# sent_id = {first}"][0] + 2
    text[at] = text[at].rsplit("\t", 1)[0]
    (tmp_path / "o.conllu").write_text("\n".join(text), encoding="utf-8")
    with pytest.raises(committee.InputError) as err:
        committee.adaptive_score(gold, tmp_path / "o.conllu", run, task="pos", format="conllu",
                                 gold_format="pku", max_sentences=15, seed=8)
    assert str(err.value) == (f"{tmp_path / 'o.conllu'}:{at + 1}: expected 10 tab-separated "
                              "columns (CoNLL-U), found 9")


def test_entities_read_in_strict_mode_give_the_scorers_strict_scores(task_runs):
    r, run, gold = _runs(task_runs, "ner")
    full = _full(gold, r.outputs["drop"], difficulty=run, task="ner", mode="strict")
    default = _full(gold, r.outputs["drop"], difficulty=run, task="ner")
    assert full.f1 != default.f1  # the ill-formed sequences are read otherwise
    got = committee.adaptive_score(gold, r.outputs["drop"], run, task="ner", mode="strict",
                                   target=1e-9)
    assert all(got["estimates"][k]["value"] == getattr(full, k) for k in KEYS)
