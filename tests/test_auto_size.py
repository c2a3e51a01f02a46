"""``committee.size: auto`` (docs/method.md §12): members trained round by
round until the split-half reliability of the difficulties reaches the
target, and runs resized to another committee size.  A run that stops at K
is a run of size K, byte for byte; a run extended to a larger K is the
direct run of that K, byte for byte."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from committee.metrics import difficulty_stats
from committee.pipeline import layout
from committee.pipeline import workflow
from committee.config import load_config
from committee.errors import ConfigError, PlausibilityWarning
from toyrun import OUTPUTS, make_toy_corpus, outputs, write_config

#: The data files of a run (the manifest also records the config, which names
#: ``size: auto`` or the size).
DATA = [name for name in OUTPUTS if name != layout.MANIFEST_FILE]


def _auto(target: float, max_size: int = 9, round_: int = 2, min_size: int = 2) -> str:
    return (f"auto, max_size: {max_size}, stable: {{reliability: {target}, round: {round_}, "
            f"min_size: {min_size}}}")


def _run(d, name, size, **kw):
    cfg = write_config(d / f"{name}.yaml", d, d / name, size=size, backend="sequential", **kw)
    return workflow.run(load_config(cfg), progress=False)


def _members_trained(out) -> list[int]:
    log = (out / layout.LOG_FILE).read_text(encoding="utf-8")
    return [int(line.split("member ")[1].split(" ")[0]) for line in log.splitlines()
            if "): f1 " in line]


class _no_warning:
    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("error", PlausibilityWarning)

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    return make_toy_corpus(tmp_path_factory.mktemp("auto"))


@pytest.fixture(scope="module")
def reference(toy):
    """A fixed K = 9 run: its prefixes are every smaller committee."""
    out = _run(toy, "k9", 9)
    return np.load(out / layout.MARKS_FILE)["marks"]


def test_reliability_of_the_prefixes_decides_where_auto_stops(toy, reference):
    values = {k: difficulty_stats.reliability(reference[:k]) for k in (2, 4, 6, 8)}
    target = values[6]  # reached at 6 at the latest (earlier where a smaller prefix did)
    expected = next(k for k in (2, 4, 6) if values[k] is not None and values[k] >= target)
    with _no_warning():  # the target reached: no warning
        out = _run(toy, "auto", _auto(target))
    manifest = json.loads((out / layout.MANIFEST_FILE).read_text(encoding="utf-8"))
    stability = manifest["committee"]["stability"]
    assert stability["size"] == manifest["committee"]["size"] == expected
    assert stability["reached"] is True and stability["value"] == values[expected]
    assert stability["by_size"] == {str(k): values[k] for k in (2, 4, 6) if k <= expected}
    assert f"|K:{expected}|stable:reliability={values[expected]}>={target}|" in \
        manifest["signature"]
    # the run of size K, byte for byte; nothing past K was trained
    fixed = _run(toy, "fixed", expected)
    assert {n: outputs(out)[n] for n in DATA} == {n: outputs(fixed)[n] for n in DATA}
    assert sorted(_members_trained(out)) == list(range(expected))
    assert np.array_equal(np.load(out / layout.MARKS_FILE)["marks"], reference[:expected])


def test_auto_stops_at_max_size_and_says_the_target_was_not_reached(toy, reference, capsys):
    with pytest.warns(PlausibilityWarning, match=r"committee.size: auto stopped at "
                      r"committee.max_size = 5 with split-half reliability .*, short of "
                      r"committee.stable.reliability 0.9999: raise committee.max_size"):
        out = _run(toy, "short", _auto(0.9999, max_size=5))
    manifest = json.loads((out / layout.MANIFEST_FILE).read_text(encoding="utf-8"))
    assert manifest["committee"]["stability"]["reached"] is False
    assert manifest["committee"]["size"] == 5
    assert list(manifest["committee"]["stability"]["by_size"]) == ["2", "4", "5"]
    assert np.array_equal(np.load(out / layout.MARKS_FILE)["marks"], reference[:5])


def test_a_finished_run_extended_trains_only_its_new_members(toy, tmp_path):
    d = toy
    small = _run(d, "grow", 3)
    assert sorted(_members_trained(small)) == [0, 1, 2]
    (small / layout.REPORT_FILE).write_text("stale\n", encoding="utf-8")  # made from K = 3
    log_before = len(_members_trained(small))
    grown = _run(d, "grow", 5)  # same directory, larger committee
    assert sorted(_members_trained(grown)[log_before:]) == [3, 4]
    assert not (grown / layout.REPORT_FILE).exists()
    direct = _run(d, "direct5", 5)
    assert outputs(grown) == outputs(direct)  # the manifest too: both are size 5
    # run.json now names the size-5 run: rerunning it is a resume, not another resize
    state = json.loads((grown / layout.STATE_FILE).read_text(encoding="utf-8"))
    assert state["fingerprint"] == json.loads(
        (direct / layout.STATE_FILE).read_text(encoding="utf-8"))["fingerprint"]
    shrunk = _run(d, "grow", 4)  # a smaller size trains nothing
    assert len(_members_trained(shrunk)) == log_before + 2
    assert outputs(shrunk)[layout.MARKS_FILE] == outputs(_run(d, "direct4", 4))[layout.MARKS_FILE]


def test_another_committee_in_the_same_directory_is_still_refused(toy):
    from committee.errors import RunError

    _run(toy, "other", 3)
    cfg = write_config(toy / "other2.yaml", toy, toy / "other", size=3, backend="sequential",
                       iterations=6)
    with pytest.raises(RunError, match="holds a run of a different config"):
        workflow.run(load_config(cfg), progress=False)


@pytest.mark.parametrize("committee, message", [
    ("{size: 5, max_size: 9}", "committee.max_size: applies only to size: auto (size is 5)"),
    ("{size: 5, stable: {reliability: 0.9}}",
     "committee.stable: applies only to size: auto (size is 5)"),
    ("{size: auto, max_size: 4, stable: {min_size: 6}}",
     "committee.stable.min_size: must be <= committee.max_size (4), got 6"),
    ("{size: auto, stable: {reliability: 1.5}}", "committee.stable.reliability:"),
    ("{size: auto, max_size: 20000}", "committee.max_size: must be <= 10000, got 20000"),
    ("{size: many}", "committee.size: expected an integer or auto, got 'many' (a string)"),
    ("{size: 0}", "committee.size: must be >= 1, got 0"),
])
def test_auto_settings_are_checked(tmp_path, committee, message):
    path = tmp_path / "c.yaml"
    path.write_text(f"name: c\ncorpus: {{train: {{path: a.txt}}, test: {{path: b.txt}}}}\n"
                    f"committee: {committee}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert message in str(err.value), str(err.value)


def test_a_tiny_auto_committee_starts_with_all_its_members(toy, reference):
    """max_size below the default min_size: the first round is the whole
    committee, measured once (K = 3 is a documented route too)."""
    with pytest.warns(PlausibilityWarning, match="stopped at committee.max_size = 3"):
        out = _run(toy, "tiny", "auto, max_size: 3, stable: {reliability: 0.9999}")
    manifest = json.loads((out / layout.MANIFEST_FILE).read_text(encoding="utf-8"))
    assert list(manifest["committee"]["stability"]["by_size"]) == ["3"]
    assert np.array_equal(np.load(out / layout.MARKS_FILE)["marks"], reference[:3])


def test_a_fixed_size_config_keeps_its_fingerprint(tmp_path):
    """max_size and stable are not part of a fixed-size recipe: configs
    written before them sign and resume as before."""
    path = tmp_path / "c.yaml"
    path.write_text("name: c\ncorpus: {train: {path: a.txt}, test: {path: b.txt}}\n"
                    "committee: {size: 5}\noutput: {dir: out}\n", encoding="utf-8")
    cfg = load_config(path, check_paths=False)
    assert set(cfg.recipe()["committee"]) == {"size", "templates", "ratios", "draw", "seed"}
    assert cfg.fingerprint() != cfg.fingerprint(members=True)
    other = tmp_path / "d.yaml"
    other.write_text(path.read_text(encoding="utf-8").replace("size: 5", "size: auto"),
                     encoding="utf-8")
    assert load_config(other, check_paths=False).fingerprint(members=True) == cfg.fingerprint(members=True)


def test_a_fixed_run_turned_auto_trains_only_the_members_it_lacks(toy, reference):
    """A finished size-4 run rerun as size: auto: the first round reuses the
    four members, and the run is that of the size it stops at."""
    values = {k: difficulty_stats.reliability(reference[:k]) for k in (4, 6, 8)}
    stop = next((k for k in (6, 8) if values[k] is not None and values[k] > (values[4] or 0)),
                None)
    if stop is None:
        pytest.skip("the toy committee's reliability does not grow past 4 members")
    _run(toy, "turned", 4)
    trained = len(_members_trained(toy / "turned"))
    out = _run(toy, "turned", _auto(values[stop], round_=2, min_size=4))
    new = _members_trained(out)[trained:]
    assert sorted(new) == list(range(4, stop))
    assert np.array_equal(np.load(out / layout.MARKS_FILE)["marks"], reference[:stop])


def test_a_resumed_auto_run_counts_its_saved_members_on_the_progress_bar(toy, capsys):
    """Four members saved by a fixed run, resumed as size: auto from rounds
    of 2: the bar starts at 4 of the 6 members of the first round that
    trains, and ends with all 6 done (the count beside the bar, which moves
    by each member's cost)."""
    _run(toy, "resumed", 4)
    capsys.readouterr()
    cfg = write_config(toy / "resumed.yaml", toy, toy / "resumed",
                       size=_auto(0.9999, max_size=6), backend="sequential")
    with pytest.warns(PlausibilityWarning, match="stopped at committee.max_size = 6"):
        workflow.run(load_config(cfg), progress=True)
    bars = re.findall(r"(\d+)/(\d+) members", capsys.readouterr().err)
    assert (bars[0], bars[-1]) == (("4", "6"), ("6", "6"))
