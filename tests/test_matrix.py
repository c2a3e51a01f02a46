"""The command matrix: every subcommand × every task × its optional inputs
present and absent, end to end on a K = 3 committee (tests/matrix_runs.py),
so that a crash in ordinary use is caught here.

The combinations come from :data:`OPTIONS`, a table of the options each
command takes and their values (the first one: absent).  Options vary
together in a pairwise covering design (:func:`pairwise`): every two values
of any two options meet in some row, and the first row has every option
absent.  Combinations that are meaningless (``--buckets=type`` of words, an
IRT fit of 3 members, ...) are in :data:`REFUSALS` with their documented
one-line message.

Each case runs ``committee.cli.main`` in-process and asserts its exit code,
no internal error and no traceback on stderr, and something of its output:
the JSON keys docs promise (README.md, "Scoring"), the left-out columns of
``--check-gold``, ``–`` for an undefined metric, the files written.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from matrix_runs import call  # noqa: E402

TASKS = ("segmentation", "ner", "pos")

#: Each command's options and their values, the first one absent (None).
#: Values are symbolic; the builders below turn them into arguments.
OPTIONS = {
    "score": {
        "difficulty": [None, "run", "file"],
        "train": [None, "words", "corpus"],
        "irt": [None, "run"],
        "check_gold": [None, "run"],
        "buckets": [None, "all", "named"],
        "bootstrap": [None, "20"],
        "shape": [None, "json", "markdown"],
        "metrics": [None, "f1", "p,fb"],
    },
    "run": {"set": [None, "grow"], "with": [None, "cmd"], "quiet": [None, "yes"]},
    "report": {"system": [None, "two"], "with": [None, "cmd"], "table2": [None, "cheap"]},
    "irt": {"system": [None, "two"], "subset": [None, "50"], "model": [None, "1pl"],
            "no_export": [None, "yes"]},
    "check-gold": {"system": [None, "one"]},
    "segment": {"with": ["cmd", "jieba"], "output": ["file", "-"], "format": [None, "given"],
                "quiet": [None, "yes"]},
    "export": {"irt": [None, "k5"], "members": [None, "yes"], "into": [None, "earlier"]},
}

#: Options that do not apply to a task: (command, option, value) -> tasks.
NOT_FOR = {
    ("check-gold", "system", "one"): {"ner", "pos"},    # a refusal: see REFUSALS
    ("segment", "with", "jieba"): {"ner"},              # jieba tags no entities: REFUSALS
    ("irt", "subset", "50"): {"ner"},                   # perturbs segmentations: REFUSALS
}

#: The buckets ``--buckets=`` names for each task, none needing an input.
NAMED_BUCKETS = {"segmentation": "length,sentence", "ner": "type,length", "pos": "tag,length"}


def pairwise(factors: dict[str, list]) -> list[dict]:
    """Rows of a pairwise covering design of ``factors`` (name -> values):
    every pair of values of two factors is in some row; the first row takes
    every factor's first value.  Greedy and deterministic."""
    names = list(factors)
    if len(names) == 1:
        return [{names[0]: v} for v in factors[names[0]]]
    levels = [range(len(factors[n])) for n in names]
    pairs = list(itertools.combinations(range(len(names)), 2))
    uncovered = {(i, j, a, b) for i, j in pairs for a in levels[i] for b in levels[j]}
    candidates = list(itertools.product(*levels))
    rows = []
    first = True
    while uncovered:
        if first:
            best, first = candidates[0], False
        else:
            best = max(candidates, key=lambda c: sum((i, j, c[i], c[j]) in uncovered
                                                     for i, j in pairs))
        uncovered -= {(i, j, best[i], best[j]) for i, j in pairs}
        rows.append({n: factors[n][k] for n, k in zip(names, best)})
    return rows


@functools.lru_cache(maxsize=None)
def _rows(command: str, task: str) -> list[dict]:
    factors = {name: [v for v in values if task not in NOT_FOR.get((command, name, v), ())]
               for name, values in OPTIONS[command].items()}
    return pairwise(factors)


def _id(row: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in row.items() if v is not None) or "plain"


CASES = [pytest.param(command, task, row, id=f"{command}-{task}-{_id(row)}")
         for command in OPTIONS for task in TASKS for row in _rows(command, task)]


@pytest.fixture
def runs(task_runs):
    """The session's runs of each task (tests/conftest.py), which a case
    only reads: a command that writes into a run works on a copy."""
    return task_runs


def _clean(err: str) -> None:
    assert "internal error" not in err, err
    assert "Traceback" not in err, err


def _copy(run: Path, tmp_path: Path) -> Path:
    """A copy of a run, for a command that writes into it."""
    out = tmp_path / run.name
    shutil.copytree(run, out)
    return out


@pytest.mark.parametrize("command, task, row", CASES)
def test_matrix(command, task, row, runs, tmp_path, capsys):
    r = runs[task]
    capsys.readouterr()  # the runs' own lines, when this case made them
    check = globals()["_" + command.replace("-", "_")]
    check(r, row, tmp_path, capsys)


# -- score ---------------------------------------------------------------------

def _score_argv(r, row) -> list:
    argv = ["score", "--task", r.task, "--gold", r.k3 / "test.txt"]
    if row["buckets"] == "all":  # given alone, before the outputs (it takes a value)
        argv += ["--buckets"]
    elif row["buckets"] == "named":
        argv += [f"--buckets={NAMED_BUCKETS[r.task]}"]
    if row["difficulty"] == "run":
        argv += ["--difficulty", r.k3]
    elif row["difficulty"] == "file":  # entities need the per-character file
        argv += ["--difficulty", r.k3 / ("test.weight_c" if r.task == "ner" else "test.weight")]
    if row["train"] == "words":
        argv += ["--train-words", r.k3 / "train-words.txt"]
    elif row["train"] == "corpus":
        argv += ["--train", r.train, "--train-format", r.train_format]
    if row["irt"]:
        argv += ["--irt", r.k5]
    if row["check_gold"]:
        argv += ["--check-gold", r.k3]
    if row["bootstrap"]:
        argv += ["--bootstrap", row["bootstrap"]]
    if row["shape"]:
        argv += ["--" + row["shape"]]
    if row["metrics"]:
        argv += ["--metrics", row["metrics"]]
    return argv + list(r.outputs.values())


def _score(r, row, tmp_path, capsys):
    code = call(_score_argv(r, row))
    out, err = capsys.readouterr()
    _clean(err)
    assert code == 0, err
    if r.task == "ner" and (row["metrics"] is None or "f1" in str(row["metrics"])):
        assert "none.bio: p undefined (and so f1): the output has no entities (N' = 0)" in err
    names = list(r.outputs)
    chosen = row["metrics"].split(",") if row["metrics"] else None
    shows_fb = chosen is None or "fb" in chosen
    if row["shape"] == "json":
        data = json.loads(out)
        assert data["signature"].startswith("committee-score|")
        systems = data["systems"]
        assert [s["name"] for s in systems] == names
        for s in systems:
            assert s["path"] == str(r.outputs[s["name"]])
            for key in chosen or ("p", "r", "f1", "pb", "rb", "fb", "er"):
                assert key in s
            if chosen:
                assert not {"recall_by_bin", "counts", "error_types"} & set(s)
                assert ("rank_f1" in s) == ("f1" in chosen)
                assert ("rank_fb" in s) == ("fb" in chosen)
                assert set(s) - {"name", "path", "ci", "buckets", "paired", "rank_f1",
                                 "rank_fb"} == set(chosen)
            else:
                assert {"recall_by_bin", "counts", "error_types", "rank_f1", "rank_fb"} <= set(s)
                assert ("theta" in s and "theta_se" in s) == bool(row["irt"])
            assert ("ci" in s) == bool(row["bootstrap"])
            assert ("buckets" in s) == bool(row["buckets"])
            if shows_fb and not row["difficulty"]:
                assert s["fb"] is None  # undefined without difficulties, not 0
        if r.task == "ner" and (chosen is None or "f1" in chosen):
            assert systems[1]["f1"] is None  # a tagger that finds no entity
        assert ("check_gold" in data) == bool(row["check_gold"])
        if row["check_gold"]:
            gc = data["check_gold"]
            assert {"run", "n_left_out", "systems", "flips"} <= set(gc)
            assert [s["system"] for s in gc["systems"]] == names
            assert {"f1", "f1_left_out", "fb", "fb_left_out"} <= set(gc["systems"][0])
        return
    lines = out.splitlines()
    if row["shape"] == "markdown":
        table = [line for line in lines if line.startswith("|")]
        assert table[0].startswith("| system |") and len(table) == 2 + len(names)
        rows = {line.split("|")[1].strip(): line for line in table[2:]}
    else:
        assert lines[0].split()[0] == "system"
        rows = {line.split()[0]: line for line in lines[1:1 + len(names)]}
        for heading in chosen or ("p", "r", "f1", "pb", "rb", "fb"):
            assert heading in lines[0].split()
    assert list(rows) == names
    if shows_fb and not row["difficulty"]:
        assert all("–" in line for line in rows.values())  # fb undefined: a dash
    if r.task == "ner" and (chosen is None or "f1" in chosen):
        assert "–" in rows["none"]
    assert any(line.startswith("committee-score|") for line in lines)
    if row["check_gold"]:
        at = next(k for k, line in enumerate(lines) if line.startswith("check-gold ("))
        assert lines[at + 1].split() == ["system", "f1", "left", "out", "fb", "left", "out"]
        assert [line.split()[0] for line in lines[at + 2:at + 2 + len(names)]] == names
        assert lines[at + 2 + len(names)].startswith("ranking by f1:")
    else:
        assert "check-gold (" not in out


# -- run -----------------------------------------------------------------------

def _run(r, row, tmp_path, capsys):
    run = _copy(r.k3, tmp_path)
    argv = ["run", r.config, "--set", f"output.dir={run}"]
    if row["set"]:  # one more member: the three saved ones are not trained again
        argv += ["--set", "committee.size=4"]
    if row["with"]:  # ranked in a report that runs only the ranking
        argv += ["--with", r.tagger, "--timeout", "60", "--set", "experiments.ranking=true"]
    if row["quiet"]:
        argv += ["--quiet"]
    code = call(argv)
    out, err = capsys.readouterr()
    _clean(err)
    assert code == 0, err
    k = 4 if row["set"] else 3
    assert f"committee: resuming {run}: 3 members saved, {k - 3} to train" in err
    lines = out.splitlines()
    assert lines[0].startswith(f"wrote {run}/: K={k}, ")
    tag = "" if r.task == "segmentation" else f"task:{r.task}|"
    assert lines[1].startswith(f"committee-difficulty|{tag}") and f"|K:{k}|" in lines[1]
    assert (run / "report.md").exists() == bool(row["with"])
    if row["with"]:
        assert lines[2] == f"report: {run / 'report.md'}"
        assert "tagger" in (run / "report.md").read_text(encoding="utf-8")


# -- report --------------------------------------------------------------------

def _report(r, row, tmp_path, capsys):
    run = _copy(r.k3, tmp_path)
    argv = ["report", run, "--quiet"]
    if row["table2"]:  # one Table 2 model, ranked with the systems
        argv += ["--only", "table2,ranking", "--set", "experiments.table2_fractions=[1.0]",
                 "--set", "experiments.table2_preset=committee"]
    else:
        argv += ["--skip", "table2"]
    names = []
    if row["system"]:
        for name, path in r.outputs.items():
            argv += ["--system", path]
            names.append(name)
    if row["with"]:
        argv += ["--with", r.tagger]
        names.append("tagger")
    code = call(argv)
    out, err = capsys.readouterr()
    _clean(err)
    assert code == 0, err
    assert "report.md" in out and "report.html" in out
    md = (run / "report.md").read_text(encoding="utf-8")
    assert "**Not made: the " not in md, md  # no analysis failed (docs/errors.md, ReportWarning)
    for name in names:
        assert name in md
    assert (run / "table2.csv").exists() == bool(row["table2"])


# -- irt -----------------------------------------------------------------------

def _irt(r, row, tmp_path, capsys):
    run = _copy(r.k5, tmp_path)
    argv = ["irt", run]
    systems = list(r.outputs.values()) if row["system"] else []
    for path in systems:
        argv += ["--system", path]
    if row["subset"]:
        argv += ["--subset", row["subset"]]
    if row["model"]:
        argv += ["--model", row["model"]]
    if row["no_export"]:
        argv += ["--no-export"]
    for name in ("items.tsv", "irt.json", "irt-responses.npz"):
        (run / name).unlink()
    code = call(argv)
    out, err = capsys.readouterr()
    _clean(err)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"wrote {run}/items.tsv, irt.json, irt-flags.tsv: 1pl on K=5 × ")
    unit = {"segmentation": "words", "ner": "entities", "pos": "words"}[r.task]
    assert re.search(rf" × [\d,]+ {unit}, \d+ EM iterations", lines[0]), lines[0]
    assert [line.split(":")[0] for line in lines[1:1 + len(systems)]] == [str(p) for p in systems]
    assert all(": theta " in line for line in lines[1:1 + len(systems)])
    assert (run / "items.tsv").exists() and (run / "irt.json").exists()
    assert (run / "irt-responses.npz").exists() != bool(row["no_export"])
    assert (run / "irt-subset.tsv").exists() == bool(row["subset"])


# -- check-gold ----------------------------------------------------------------

def _check_gold(r, row, tmp_path, capsys):
    run = _copy(r.k3, tmp_path)
    (run / "check-gold.tsv").unlink()
    argv = ["check-gold", run]
    if row["system"]:
        argv += ["--system", r.outputs["merged"]]
    code = call(argv)
    out, err = capsys.readouterr()
    _clean(err)
    assert code == 0, err
    assert out.startswith(f"wrote {run}/check-gold.tsv and check-gold.json: ")
    assert "the likeliest annotation errors first" in out
    from committee.scoring import checkgold

    rows = (run / "check-gold.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[0].split("\t") == list(checkgold.COLUMNS) and len(rows) > 1


# -- segment -------------------------------------------------------------------

def _segment(r, row, tmp_path, capsys):
    test = r.k3 / "test.txt"
    target = tmp_path / "out.txt"
    argv = ["segment", "--task", r.task, test,
            "--with", r.tagger if row["with"] == "cmd" else row["with"],
            "-o", "-" if row["output"] == "-" else target]
    if row["format"]:
        argv += ["--format", r.format]
    if row["quiet"]:
        argv += ["--quiet"]
    code = call(argv)
    out, err = capsys.readouterr()
    _clean(err)
    assert code == 0, err
    if row["output"] == "-":
        target.write_text(out, encoding="utf-8")
    n_sentences = 40
    assert f"{n_sentences} sentences" in err
    # what it wrote scores against the test set
    code = call(["score", "--task", r.task, "--gold", test, "--json", target])
    out, err = capsys.readouterr()
    _clean(err)
    assert code == 0, err
    [system] = json.loads(out)["systems"]
    assert system["f1"] is None or 0 <= system["f1"] < 1


# -- export --------------------------------------------------------------------

def _export(r, row, tmp_path, capsys):
    run = r.k5 if row["irt"] else r.k3
    out = tmp_path / "ds"
    if row["into"]:  # an earlier export of the same run: its files replaced
        assert call(["export", run, out]) == 0
        capsys.readouterr()
    argv = ["export", run, out] + (["--members"] if row["members"] else [])
    code = call(argv)
    out_text, err = capsys.readouterr()
    _clean(err)
    assert code == 0, err
    assert out_text.startswith(f"wrote {out}/data/test-00000-of-00001.parquet and README.md: ")
    import pyarrow.parquet as pq

    names = pq.read_schema(out / "data" / "test-00000-of-00001.parquet").names
    assert ("irt_b" in names and "irt_a" in names) == bool(row["irt"])
    assert ("members" in names) == bool(row["members"])
    assert ("label" in names) == (r.task != "segmentation")
    assert (out / "README.md").read_text(encoding="utf-8").startswith("---\nlanguage:\n- zh\n")


# -- refusals ------------------------------------------------------------------

#: Meaningless combinations: (task, argv with {placeholders}, exit code, the line).
REFUSALS = [
    ("segmentation", "score --gold {k3}/test.txt --buckets=type {merged}", 2,
     "committee: error: --buckets: unknown attribute 'type'; choose from length, oov, frequency, "
     "consistency, sentence, difficulty (write --buckets=ATTR,... before the OUTPUTs) (see "
     "'committee score --help')"),
    ("segmentation", "score --gold {k3}/test.txt --buckets=oov {merged}", 2,
     "committee: error: --buckets: oov needs --train or --train-words (see 'committee score "
     "--help')"),
    ("ner", "score --task ner --gold {k3}/test.txt --buckets=oov {drop}", 2,
     "committee: error: --buckets: 'oov' is not an attribute of entities here; choose from "
     "type, length, difficulty (difficulty needs --difficulty) (see 'committee score --help')"),
    ("pos", "score --task pos --gold {k3}/test.txt --buckets=type {retag}", 2,
     "committee: error: --buckets: 'type' is not an attribute of words here; choose from tag, "
     "length, difficulty (difficulty needs --difficulty) (see 'committee score --help')"),
    ("pos", "score --task pos --gold {k3}/test.txt --buckets=difficulty {retag}", 2,
     "committee: error: --buckets: 'difficulty' is not an attribute of words here; choose from "
     "tag, length, difficulty (difficulty needs --difficulty) (see 'committee score --help')"),
    ("ner", "score --task ner --gold {k3}/test.txt --buckets {drop}", 2,
     "committee: error: --buckets took the file '{drop}' as its attributes: put --buckets "
     "after the OUTPUTs, or write --buckets=ATTR,... (see 'committee score --help')"),
    ("pos", "score --task pos --gold {k3}/test.txt --buckets {retag} {merged}", 2,
     "committee: error: --buckets took the file '{retag}' as its attributes: put --buckets "
     "after the OUTPUTs, or write --buckets=ATTR,... (see 'committee score --help')"),
    ("segmentation", "report {k3} --only stability --set experiments.stability_sizes=[99]", 4,
     "committee: error: --set experiments.stability_sizes=[99]: experiments.stability_sizes: "
     "[99] exceed committee.size (3)"),
    ("segmentation", "score --gold {k3}/test.txt --metrics theta {merged}", 2,
     "committee: error: --metrics: theta needs --irt RUN_DIR (the items of `committee irt "
     "RUN_DIR`) (see 'committee score --help')"),
    ("pos", "score --task pos --mode strict --gold {k3}/test.txt {retag}", 2,
     "committee: error: --mode and --scheme are for --task ner (entity tags) (see 'committee "
     "score --help')"),
    ("segmentation", "irt {k3}", 3,
     "committee: error: {k3}/marks.npz: 3 members are too few for an IRT fit (at least 5 for "
     "the 1PL model, 12 for the 2PL): train a larger committee"),
    ("ner", "irt {k3}", 3,
     "committee: error: {k3}/marks.npz: 3 members are too few for an IRT fit (at least 5 for "
     "the 1PL model, 12 for the 2PL): train a larger committee"),
    ("pos", "irt {k3}", 3,
     "committee: error: {k3}/marks.npz: 3 members are too few for an IRT fit (at least 5 for "
     "the 1PL model, 12 for the 2PL): train a larger committee"),
    ("ner", "irt {k5} --subset 50", 3,
     "committee: error: {k5}: --subset measures its words on perturbed gold segmentations; on "
     "a run of entities fit the items, with systems"),
    ("ner", "check-gold {k3} --system {drop}", 3,
     "committee: error: {drop}: --system reads segmentations: a run of entities is checked "
     "from its members alone"),
    ("pos", "check-gold {k3} --system {retag}", 3,
     "committee: error: {retag}: --system reads segmentations: a run of tagged words is "
     "checked from its members alone"),
    ("ner", "segment --task ner --with jieba {k3}/test.txt -o {tmp}/out.bio", 3,
     "committee: error: jieba: not an entity tagger: it segments words and tags no entities; "
     "entity taggers: lac, cmd:COMMAND"),
    ("segmentation", "run {config} --set output.dir={tmp}/k3 --with {tagger}", 4,
     "committee: error: {config}: experiments.ranking: the report ranks the systems named with "
     "--with; switch it on (experiments: {{ranking: true}})"),
]


@pytest.mark.parametrize("task, template, exit_code, line", REFUSALS,
                         ids=[f"{t}-{a.split()[0]}-{k}" for k, (t, a, _, _) in
                              enumerate(REFUSALS)])
def test_refusal(task, template, exit_code, line, runs, tmp_path, capsys):
    r = runs[task]
    capsys.readouterr()
    if template.startswith("run "):
        shutil.copytree(r.k3, tmp_path / "k3")
    names = {"k3": r.k3, "k5": r.k5, "tmp": tmp_path, "config": r.config, "tagger": r.tagger, **r.outputs}
    argv = [a.format(**names) for a in template.split()]  # the tagger: one argument
    code = call(argv)
    out, err = capsys.readouterr()
    assert (code, err) == (exit_code, line.format(**names) + "\n")
    assert out == ""


def test_the_design_covers_every_pair_and_starts_with_every_option_absent():
    factors = {"a": [None, 1, 2], "b": [None, 1], "c": [None, 1, 2], "d": [None, 1]}
    rows = pairwise(factors)
    assert rows[0] == {"a": None, "b": None, "c": None, "d": None}
    for x, y in itertools.combinations(factors, 2):
        assert {(row[x], row[y]) for row in rows} == set(itertools.product(factors[x],
                                                                           factors[y]))
    assert len(rows) < len(list(itertools.product(*factors.values())))
    # each command's options, present and absent, for each task
    for command, options in OPTIONS.items():
        for task in TASKS:
            seen = {name: {row[name] for row in _rows(command, task)} for name in options}
            for name, values in options.items():
                assert seen[name] == {v for v in values
                                      if task not in NOT_FOR.get((command, name, v), ())}
