"""Hostile and hopeless configs: YAML aliases that would explode or loop,
sizes that cannot fit, committees whose members cannot differ, and a run
that stops on an error.

The table runs ``committee run`` in-process on each case and checks the exit
code, the one exact stderr line, nothing on stdout, and that nothing was
written (the directory tree is compared before and after): a refused run
leaves no ``.committee.lock``, no ``run.json``, nothing.  The alias bounds are
checked by what stops them (the count of values with the aliases expanded),
not by a timer.
"""

from __future__ import annotations

import json
import os
import statistics
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from committee import cli
from committee.learners import members
from committee.pipeline import layout
from committee import config as config_mod
from committee.config import yamlsafe
from committee.errors import ConfigError, PlausibilityWarning, RunError
from toyrun import snapshot

TRAIN = "约翰 喜欢 北京\n我 爱 计算机\n问题 总是 有\n" * 4  # 12 sentences
GOLD = "约翰 喜欢 玛丽\n我 爱 北京 天安门\n计算机 总是 有 问题\n"  # 11 words, 21 characters

CONFIG = """\
name: hostile
corpus:
  train: {{path: {train}}}
  test: {{path: {test}}}
committee: {{size: 2, seed: 1}}
crf: {{params: {{max_iterations: 2}}}}
output: {{dir: {out}}}
"""


def bomb(levels: int, width: int = 9, indent: str = "  ") -> str:
    """Billion laughs: ``a0`` holds ``width`` strings, each ``a{i}`` ``width``
    aliases of ``a{i-1}`` (``width ** levels`` strings once expanded)."""
    lines = [f"{indent}x0: &a0 [{', '.join(['lol'] * width)}]"]
    lines += [f"{indent}x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]"
              for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def setup(d: Path, extra: str = "", train: str = TRAIN) -> list[str]:
    """Corpora and ``c.yaml`` (``CONFIG`` then ``extra``) in ``d``; argv of the run."""
    (d / "train.txt").write_text(train, encoding="utf-8")
    (d / "test.txt").write_text(GOLD, encoding="utf-8")
    text = CONFIG.format(train=d / "train.txt", test=d / "test.txt", out=d / "run") + extra
    (d / "c.yaml").write_text(text, encoding="utf-8")
    return ["run", str(d / "c.yaml"), "--quiet"]


# --------------------------------------------------------------------------
# the table: (case, build(dir, monkeypatch) -> argv, exit code, stderr line)


@dataclass(frozen=True)
class Case:
    id: str
    build: Callable
    code: int
    line: str  # the one stderr line; {c} is the config's path, {d} the directory


def _extra(text: str, **kw):
    return lambda d, mp: setup(d, text, **kw)


def _with_set(*sets: str, text: str = ""):
    def build(d, mp):
        argv = setup(d, text)
        for s in sets:
            argv += ["--set", s]
        return argv
    return build


def _huge_file(d, mp):
    argv = setup(d)
    with open(d / "c.yaml", "a", encoding="utf-8") as f:
        f.write("# " + "x" * config_mod.MAX_BYTES + "\n")
    return argv


def _committee(section: str, low_memory: bool = False):
    """The config with ``committee: SECTION``; ``low_memory``: a 20 MB machine."""
    def build(d, mp):
        if low_memory:
            mp.setattr("committee.learners.checks.physical_memory", lambda: 20_000_000)
        argv = setup(d)
        cfg = d / "c.yaml"
        cfg.write_text(cfg.read_text(encoding="utf-8").replace(
            "committee: {size: 2, seed: 1}", f"committee: {section}"), encoding="utf-8")
        return argv
    return build


def _previous_run(build):
    """``build``, with ``run/`` holding a finished-looking run of another config."""
    def wrapped(d, mp):
        argv = build(d, mp)
        (d / "run").mkdir()
        (d / "run" / "run.json").write_text('{"name": "old", "fingerprint": "0"}\n')
        return argv + ["--restart"]
    return wrapped


def _ner_without_training_entities(d, mp):
    """An entity run whose training corpus tags no entity (every tag O)."""
    chars = "约翰喜欢北京"
    (d / "train.bio").write_text("".join(f"{c} O\n" for c in chars) * 2, encoding="utf-8")
    (d / "test.bio").write_text("约 B-PER\n翰 I-PER\n喜 O\n欢 O\n北 B-LOC\n京 I-LOC\n",
                                encoding="utf-8")
    (d / "c.yaml").write_text(f"""\
name: hostile
task: ner
corpus:
  train: {{path: {d / 'train.bio'}, format: bio}}
  test: {{path: {d / 'test.bio'}, format: bio}}
committee: {{size: 2, seed: 1}}
output: {{dir: {d / 'run'}}}
""", encoding="utf-8")
    return ["run", str(d / "c.yaml"), "--quiet"]


BOMB_LINE = ("{c}: line 13, column 12: alias *a3 expands the config past 10000 values (aliases "
             "of aliases: an alias bomb?); a config holds a few dozen: write the values out")
SAME = ("{c}: committee.ratios: the 6 members would be identical: with the one template F2 and "
        "ratio 1.0, each trains on every training sentence, so every difficulty would be 0 or 1; "
        "add ratios below 1 (the paper draws from 0.1, 0.2, 0.3) or more templates, or set "
        "committee.size: 1")

CASES = [
    Case("alias-bomb", _extra("junk:\n" + bomb(9)), 4, BOMB_LINE),
    Case("alias-bomb-in-a-valid-key", _extra("experiments:\n  systems:\n    - &a0 [l, l, l, l, l, l, l, l, l, l]\n"
                                             + "".join(f"    - &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n"
                                                       for i in range(1, 9))),
         4, "{c}: line 13, column 47: alias *a2 expands the config past 10000 values (aliases of "
            "aliases: an alias bomb?); a config holds a few dozen: write the values out"),
    Case("alias-bomb-of-merge-keys",
         _extra("junk:\n  m0: &m0 {k0: v, k1: v, k2: v, k3: v, k4: v, k5: v, k6: v, k7: v, k8: v}\n"
                + "".join(f"  m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * 9)}]}}\n"
                          for i in range(1, 8))),
         4, "{c}: line 12, column 42: alias *m2 expands the config past 10000 values (aliases of "
            "aliases: an alias bomb?); a config holds a few dozen: write the values out"),
    Case("recursive-alias", _extra("x: &a [*a]\n"), 4,
         "{c}: line 8, column 8: alias *a refers to the value it is part of (a recursive alias); "
         "a config is a tree: write the value out"),
    Case("recursive-alias-in-a-mapping", _extra("experiments: &e {systems: [*e]}\n"), 4,
         "{c}: line 8, column 28: alias *e refers to the value it is part of (a recursive "
         "alias); a config is a tree: write the value out"),
    Case("nested-too-deep", _extra("junk: " + "[" * 3000 + "]" * 3000 + "\n"), 4,
         "{c}: line 8, column 26: values nested more than 20 deep; a config nests a few levels: "
         "is this a config file?"),
    Case("too-many-values", _extra("junk: [" + ", ".join(["0"] * 10_000) + "]\n"), 4,
         "{c}: line 8, column 29915: the config holds more than 10000 values; a config holds a "
         "few dozen: is this a config file?"),
    Case("file-too-long", _huge_file, 4,
         "{c}: cannot read: longer than 1000000 bytes, and a config has a few hundred: is this "
         "a config file?"),
    Case("set-alias-bomb", _with_set("experiments.systems=[&a [a, a, a, a, a, a, a, a, a, a], "
                                     "&b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a], "
                                     "&c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b], "
                                     "[*c, *c, *c, *c, *c, *c, *c, *c, *c, *c, *c]]"),
         4, "--set experiments.systems=[&a [a, a, a, a, a, a, a, a, a, a], &b [*a, *a, *a, *a, "
            "*a, *a, *a, *a, *a, *a], &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b], [*c, *c, *c, "
            "*c, *c, *c, *c, *c, *c, *c, *c]]: cannot parse the value: line 1, column 156: alias "
            "*c expands the config past 10000 values (aliases of aliases: an alias bomb?); a "
            "config holds a few dozen: write the values out"),
    Case("set-recursive-alias", _with_set("experiments.systems=&a [*a]"), 4,
         "--set experiments.systems=&a [*a]: cannot parse the value: line 1, column 5: alias *a "
         "refers to the value it is part of (a recursive alias); a config is a tree: write the "
         "value out"),
    Case("size-a-billion", _with_set("committee.size=1000000000"), 4,
         "--set committee.size=1000000000: must be <= 10000, got 1000000000 (difficulties settle "
         "long before: the paper's committee has 90 members, and every member trains a CRF)"),
    Case("size-in-the-file", _committee("{size: 10001}"), 4,
         "{c}: committee.size: must be <= 10000, got 10001 (difficulties settle long before: the "
         "paper's committee has 90 members, and every member trains a CRF)"),
    Case("size-beyond-memory", _committee("{size: 10000}", low_memory=True), 4,
         "{c}: committee.size: 10000 members need about 21 MB of memory for their marks and "
         "segmentations of the 11 test words (21 characters), more than the 20 MB this machine "
         "has; lower committee.size (at most 9,469 fit) or score a smaller test set"),
    Case("size-beyond-memory-over-a-previous-run",
         _previous_run(_committee("{size: 10000}", low_memory=True)), 4,
         "{c}: committee.size: 10000 members need about 21 MB of memory for their marks and "
         "segmentations of the 11 test words (21 characters), more than the 20 MB this machine "
         "has; lower committee.size (at most 9,469 fit) or score a smaller test set"),
    Case("identical-members", _with_set("committee.size=6", "committee.templates=[F2]",
                                        "committee.ratios=[1.0]"),
         4, "--set committee.ratios=[1.0]: the 6 members would be identical: with the one "
            "template F2 and ratio 1.0, each trains on every training sentence, so every "
            "difficulty would be 0 or 1; add ratios below 1 (the paper draws from 0.1, 0.2, "
            "0.3) or more templates, or set committee.size: 1"),
    Case("identical-members-in-the-file",
         _committee("{size: 6, templates: [F2], ratios: [1.0]}"), 4, SAME),
    # the other refusals of committee run leave nothing behind either
    Case("experiments-missing-system", lambda d, mp: setup(d) + [
        "--set", "experiments.ranking=true", "--set", f"experiments.systems=[{d}/nope.txt]"],
         4, "experiments: experiments.systems[0]: no such file: {d}/nope.txt"),
    Case("test-set-missing", lambda d, mp: setup(d) and (d / "test.txt").unlink() or
         ["run", str(d / "c.yaml"), "--quiet"],
         4, "{c}: corpus.test.path: no such file: {d}/test.txt"),
    Case("output-dir-foreign", lambda d, mp: (d / "run").mkdir() or (d / "run" / "x.tex").touch()
         or setup(d), 5, "output.dir {d}/run holds files that are not part of a committee run "
                         "(x.tex); choose an empty or new output.dir"),
    Case("number-in-quotes", _committee('{size: auto, max_size: 4, seed: 1, '
                                        'stable: {reliability: "0.99"}}'), 4,
         "{c}: committee.stable.reliability: expected a number, got '0.99' (a string: it is in "
         "quotes); write 0.99 without quotes"),
    Case("number-in-quotes-set", _with_set("committee.size=auto",
                                           'committee.stable.reliability="0.99"'), 4,
         "--set committee.stable.reliability=\"0.99\": expected a number, got '0.99' (a "
         "string: it is in quotes); write 0.99 without quotes"),
    Case("integer-in-quotes", _committee('{size: 2, seed: "1"}'), 4,
         "{c}: committee.seed: expected an integer, got '1' (a string: it is in quotes); write 1 "
         "without quotes"),
    Case("exponent-read-as-text", _committee("{size: auto, max_size: 4, seed: 1, "
                                             "stable: {reliability: 9e-1}}"), 4,
         "{c}: committee.stable.reliability: expected a number, got '9e-1' (a string: YAML reads "
         "exponents without a '.' as text; write e.g. 1.0e-3)"),
    Case("entities-without-an-entity-to-learn", _ner_without_training_entities, 3,
         "{d}/train.bio: the training corpus has no entities (every tag is O): members trained "
         "on it would find none; give corpus.train a corpus with its entities tagged"),
    Case("identical-members-on-a-tiny-training-set",
         _with_set("committee.size=6", "committee.templates=[F2]", "committee.ratios=[0.99]"),
         4, "{c}: committee.ratios: the 6 members would be identical: with the one template F2 "
            "and ratio 0.99, each trains on all 12 training sentences, so every difficulty "
            "would be 0 or 1; add ratios below 1 (the paper draws from 0.1, 0.2, 0.3) or more "
            "templates, or set committee.size: 1"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_refused_with_one_line_and_nothing_left(case, tmp_path, monkeypatch, capsys):
    argv = case.build(tmp_path, monkeypatch)
    before = snapshot(tmp_path)
    code = cli.main(argv)
    out, err = capsys.readouterr()
    monkeypatch.undo()
    expected = "committee: error: " + case.line.format(c=tmp_path / "c.yaml", d=tmp_path) + "\n"
    assert (code, err, out) == (case.code, expected, "")
    assert snapshot(tmp_path) == before, "a refused run writes nothing (no lock, no run.json)"


# --------------------------------------------------------------------------
# the bound is what stops an alias bomb


def expanded(value) -> int:
    """Values of loaded YAML data with every shared object counted again."""
    if isinstance(value, dict):
        return 1 + sum(expanded(k) + expanded(v) for k, v in value.items())
    if isinstance(value, list):
        return 1 + sum(expanded(v) for v in value)
    return 1


def test_the_bomb_is_stopped_by_the_count_before_anything_is_built(monkeypatch):
    """Composing stops at the alias that crosses MAX_VALUES: nothing is
    constructed, and a looser bound lets the same text through."""
    built = []
    real = yamlsafe._ConfigLoader.construct_document
    monkeypatch.setattr(yamlsafe._ConfigLoader, "construct_document",
                        lambda self, node: built.append(node) or real(self, node))
    # the root, x and its mapping (3); x0..x3: key and list, with 10 strings,
    # or 10 aliases of the list before: 12 + 112 + 1,112 + 11,112 values
    text = "x:\n" + bomb(3, width=10)
    # 1,241 values up to the list of x3, 1,111 more with each *a2: the 8th crosses 10,000
    with pytest.raises(yaml.YAMLError) as info:
        yamlsafe.read_yaml(text)
    assert info.value.problem.startswith("alias *a2 expands the config past 10000 values")
    assert (info.value.problem_mark.line + 1, info.value.problem_mark.column + 1) == (5, 47)
    assert built == []
    monkeypatch.setattr(yamlsafe, "MAX_VALUES", 12_351)
    data, _ = yamlsafe.read_yaml(text)
    assert expanded(data) == 12_351 and len(built) == 1
    monkeypatch.setattr(yamlsafe, "MAX_VALUES", 12_350)
    with pytest.raises(yaml.YAMLError, match="past 12350 values"):
        yamlsafe.read_yaml(text)


@st.composite
def alias_documents(draw):
    """YAML text of a list of anchored lists, each holding scalars and
    aliases of the lists before it."""
    items = []
    for i in range(draw(st.integers(1, 6))):
        parts = draw(st.lists(st.one_of(st.just("s"), st.integers(0, max(i - 1, 0)).map(
            lambda j, i=i: f"*a{j}" if i else "s")), max_size=6))
        items.append(f"&a{i} [{', '.join(parts)}]")
    return "[" + ", ".join(items) + "]"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=alias_documents(), bound=st.integers(1, 400))
def test_refused_exactly_when_the_expanded_data_exceeds_the_bound(text, bound):
    size = expanded(yaml.safe_load(text))
    old = yamlsafe.MAX_VALUES
    yamlsafe.MAX_VALUES = bound
    try:
        if size <= bound:
            data, _ = yamlsafe.read_yaml(text)
            assert data == yaml.safe_load(text)
        else:
            with pytest.raises(yaml.YAMLError, match=f"(past|more than) {bound} values"):
                yamlsafe.read_yaml(text)
    finally:
        yamlsafe.MAX_VALUES = old


def test_configs_with_a_few_aliases_and_merge_keys_still_load(tmp_path):
    (tmp_path / "train.txt").write_text(TRAIN, encoding="utf-8")
    (tmp_path / "test.txt").write_text(GOLD, encoding="utf-8")
    (tmp_path / "c.yaml").write_text(f"""\
name: merged
corpus:
  root: {tmp_path}
  train: &source {{path: train.txt, format: sighan, encoding: utf-8}}
  test:
    <<: *source
    path: test.txt
committee: {{size: 3, templates: &t [F1, F2], ratios: [0.1, 0.3]}}
experiments: {{table2_fractions: [0.5, 1.0], segmenters: []}}
output: {{dir: run}}
""", encoding="utf-8")
    cfg = config_mod.load_config(tmp_path / "c.yaml")
    assert (cfg.corpus.test.path, cfg.corpus.test.format, cfg.corpus.test.encoding) == (
        "test.txt", "sighan", "utf-8")
    assert cfg.committee.templates == ("F1", "F2")


def test_a_duplicate_key_in_an_aliased_mapping_is_reported_once(tmp_path):
    (tmp_path / "c.yaml").write_text(
        "name: d\ncorpus:\n  train: &s {path: a, path: b}\n  test: *s\noutput: {dir: r}\n",
        encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        config_mod.load_config(tmp_path / "c.yaml", check_paths=False)
    assert info.value.problems == ["corpus.train.path: duplicate key (lines 3 and 3)"]


# --------------------------------------------------------------------------
# committees whose members cannot differ, and grids with cells left out


@pytest.mark.parametrize("size,templates,ratios,n_train,refused", [
    (6, ["F2"], [1.0], None, True),
    (2, ["F2"], [1.0], None, True),
    (1, ["F2"], [1.0], None, False),       # one member: nothing is wasted
    (6, ["F1", "F2"], [1.0], None, False),  # two models, each repeated
    (6, ["F2"], [0.5, 1.0], None, False),
    (6, ["F2"], [0.99], None, False),       # depends on the training set
    (6, ["F2"], [0.99], 12, True),          # floor(0.99 * 12 + 0.5) = 12
    (6, ["F2"], [0.95], 12, False),         # 11 of 12
])
def test_identical_members(size, templates, ratios, n_train, refused):
    assert (members.identical_members(size, templates, ratios, n_train) is not None) == refused


def test_a_grid_with_cells_left_out_is_warned_about():
    with pytest.warns(PlausibilityWarning) as caught:
        members.check_committee(4, ("F1", "F2", "F3"), (0.1, 0.2, 0.3), "grid", n_train=300,
                                n_words=2052, n_chars=3400, where="c.yaml")
    assert [str(w.message) for w in caught] == [
        "c.yaml: committee.size: draw: grid with 4 members covers 4 of the 9 cells of "
        "templates × ratios; left out: F2 × 0.2, F2 × 0.3, F3 × 0.1, F3 × 0.2, F3 × 0.3 "
        "(raise committee.size to 9, or use draw: random)"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for size, draw in ((9, "grid"), (10, "grid"), (4, "random")):
            members.check_committee(size, ("F1", "F2", "F3"), (0.1, 0.2, 0.3), draw,
                                    n_train=300, n_words=2052, n_chars=3400, where="c.yaml")


def test_the_grid_warning_reaches_the_terminal(toy_corpus, tmp_path, capsys):
    from toyrun import write_config

    cfg = write_config(tmp_path / "c.yaml", toy_corpus, tmp_path / "run", size=4)
    text = cfg.read_text(encoding="utf-8").replace("seed: 7}", "seed: 7, draw: grid}")
    cfg.write_text(text, encoding="utf-8")
    assert cli.main(["run", str(cfg), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (
        f"committee: warning: {cfg}: committee.size: draw: grid with 4 members covers 4 of the "
        "9 cells of templates × ratios; left out: F2 × 0.2, F2 × 0.3, F3 × 0.1, F3 × 0.2, "
        "F3 × 0.3 (raise committee.size to 9, or use draw: random)")


def test_memory_needed_golden():
    # 90 members of the SIGHAN PKU test set: 104,372 words, 172,733 characters
    assert members.memory_needed(90, 104_372, 172_733) == 90 * (2 * 104_372 + 2 * 172_733 + 2048)
    assert members.memory_needed(1, 0, 0) == 2048


def test_physical_memory_is_a_positive_number_here():
    have = members.physical_memory()
    assert have is None or have > 0


# --------------------------------------------------------------------------
# a member record edited by hand is not reused


def test_a_member_record_edited_by_hand_is_named_and_trained_again(toy_corpus, tmp_path,
                                                                   capsys):
    """Its marks all set to 1 contradict its recorded r; its segmentation
    edited contradicts its checksum.  Either way the file is named, the
    member is trained again, and the run ends as if nothing had happened."""
    import base64

    from toyrun import write_config

    from committee.pipeline import marks

    out = tmp_path / "run"
    cfg = write_config(tmp_path / "c.yaml", toy_corpus, out, size=2)
    assert cli.main(["run", str(cfg), "--quiet"]) == 0
    capsys.readouterr()
    member = out / "members" / "member-0001.json"
    original = member.read_bytes()
    record = json.loads(original)
    n = record["n_gold"]
    member.write_text(json.dumps(dict(record, marks=base64.b64encode(
        b"\xff" * ((n + 7) // 8)).decode())) + "\n", encoding="utf-8")
    assert cli.main(["run", str(cfg), "--set", "committee.size=3", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err == (f"committee: warning: {member}: its marks give recall 1.0000 ({n} of {n} gold "
                   f"units right), its recorded r is {record['r']:.4f}: edited or damaged since "
                   "committee run saved it; member 1 is trained again\n"
                   f"committee: resuming {out}: 1 member saved, 2 to train\n")
    assert member.read_bytes() == original  # trained again, to the same record
    ends = bytearray(base64.b64decode(record["pred_ends"]))
    ends[0] ^= 0xFF
    edited = dict(record, pred_ends=base64.b64encode(bytes(ends)).decode())
    member.write_text(json.dumps(edited) + "\n", encoding="utf-8")
    before = {name: (out / name).read_bytes() for name in layout.OUTPUT_FILES}
    assert cli.main(["run", str(cfg), "--set", "committee.size=3", "--quiet"]) == 0
    assert capsys.readouterr().err == (
        f"committee: warning: {member}: its content does not match its checksum (sha256 "
        f"{marks._checksum(edited)[:12]}, recorded {record['sha256'][:12]}): edited or damaged "
        "since committee run saved it; member 1 is trained again\n"
        f"committee: resuming {out}: 2 members saved, 1 to train\n")
    assert member.read_bytes() == original
    assert {name: (out / name).read_bytes() for name in layout.OUTPUT_FILES} == before


# --------------------------------------------------------------------------
# a run that stops on an error is not "interrupted"


def tiny_run(toy_corpus: Path, d: Path) -> tuple[Path, Path]:
    """A config whose members train on 1 or 2 of 5 sentences; its run dir."""
    from toyrun import write_config

    lines = (toy_corpus / "train.txt").read_text(encoding="utf-8").splitlines()[:5]
    (d / "train5.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (d / "test.txt").write_text((toy_corpus / "test.txt").read_text(encoding="utf-8"),
                                encoding="utf-8")
    cfg = write_config(d / "tiny.yaml", d, d / "tiny", size=12)
    cfg.write_text(cfg.read_text(encoding="utf-8").replace("train.txt", "train5.txt"),
                   encoding="utf-8")
    return cfg, d / "tiny"


def test_a_tiny_training_set_is_named_and_readers_say_the_run_stopped(toy_corpus, tmp_path,
                                                                      capsys):
    cfg, out = tiny_run(toy_corpus, tmp_path)
    assert cli.main(["run", str(cfg), "--quiet"]) == 5
    err = capsys.readouterr().err
    saved = [json.loads(p.read_text()) for p in sorted((out / "members").iterdir())]
    assert len(saved) == 3 and {r["n_sentences"] for r in saved} <= {1, 2}
    median = statistics.median(r["f1"] for r in saved)
    sizes = sorted({r["n_sentences"] for r in saved})
    shares = sorted({r["ratio"] for r in saved})
    sample = (f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}") + (
        f" sentence{'s' * (sizes[-1] > 1)} (" + (
            f"{shares[0]:.0%}" if len(shares) == 1 else f"{shares[0]:.0%} to {shares[-1]:.0%}")
        + " of 5)")
    stop = (f"the first 3 members of 12 score a median f1 of {median:.3f} (below 0.5): they "
            "cannot segment the test set, so every word would look hard; they train on "
            f"{sample}, too few to learn segmentation from (fewer than 20): give "
            "corpus.train train5.txt (sighan, utf-8) more sentences (hundreds or more) or raise "
            "committee.ratios, then rerun with --restart")
    assert err == f"committee: error: {stop}\n"
    assert json.loads((out / "run.json").read_text())[layout.STOPPED_KEY] == stop
    reader = (f"committee: error: {out} holds a committee run that stopped on an error before "
              f"it finished (no manifest.json): {stop}\n")
    test = tmp_path / "test.txt"
    assert cli.main(["score", "--gold", str(test), "--difficulty", str(out), str(test)]) == 5
    assert capsys.readouterr().err == reader
    assert cli.main(["report", str(out), "--quiet"]) == 5
    assert capsys.readouterr().err == reader
    # the same run again stops the same way (and says so again)
    assert cli.main(["run", str(cfg), "--quiet"]) == 5
    assert capsys.readouterr().err == (f"committee: resuming {out}: 3 members saved, 9 to train\n"
                                       f"committee: error: {stop}\n")
    assert json.loads((out / "run.json").read_text())[layout.STOPPED_KEY] == stop


def test_an_unexpected_error_is_recorded_with_what_to_do(toy_corpus, tmp_path, monkeypatch,
                                                         capsys):
    from toyrun import write_config

    from committee.pipeline import dataset

    cfg = write_config(tmp_path / "c.yaml", toy_corpus, tmp_path / "run")

    def broken(*args, **kwargs):
        raise MemoryError("cannot allocate\n2 GB")

    monkeypatch.setattr(dataset, "write_outputs", broken)
    assert cli.main(["run", str(cfg), "--quiet"]) == 1
    capsys.readouterr()
    with pytest.raises(RunError) as info:
        layout.check_final(tmp_path / "run")
    assert str(info.value) == (
        f"{tmp_path / 'run'} holds a committee run that stopped on an error before it finished "
        "(no manifest.json): MemoryError: cannot allocate 2 GB; rerun the same committee run to "
        "finish it")


def test_a_resumed_run_is_no_longer_stopped(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json").write_text(json.dumps({"name": "t", "fingerprint": "f", "version": "0",
                                              layout.STOPPED_KEY: "it broke; do this"}))
    with pytest.raises(RunError, match="stopped on an error before it finished .*: it broke; do this$"):
        layout.check_final(out)
    layout.claim_output_dir(out, "f", "t", restart=False)
    assert layout.STOPPED_KEY not in json.loads((out / "run.json").read_text())
    with pytest.raises(RunError, match=r"not finished \(no manifest\.json: it was interrupted\); "
                                       "rerun the same committee run to finish it$"):
        layout.check_final(out)


def test_an_interrupted_run_is_still_called_interrupted(tmp_path):
    (tmp_path / "run.json").write_text('{"name": "t", "fingerprint": "f"}\n')
    with pytest.raises(RunError) as info:
        layout.check_final(tmp_path)
    assert str(info.value) == (f"{tmp_path} holds a committee run that is not finished (no "
                               "manifest.json: it was interrupted); rerun the same committee "
                               "run to finish it")


def test_an_auto_committee_whose_first_rounds_are_small_is_still_judged(toy_corpus, tmp_path,
                                                                        capsys):
    """size: auto in rounds of 2: the first 3 members are judged although they
    finish in two rounds; the run stops there, not at max_size."""
    cfg, out = tiny_run(toy_corpus, tmp_path)
    cfg.write_text(cfg.read_text(encoding="utf-8").replace(
        "size: 12", "size: auto, max_size: 12, stable: {round: 2, min_size: 2}"),
        encoding="utf-8")
    assert cli.main(["run", str(cfg), "--quiet"]) == 5
    err = capsys.readouterr().err
    assert "the first 3 members of 12 score a median f1" in err, err
    assert len(list((out / "members").iterdir())) == 3  # stopped inside the second round
