"""A run directory made under another recipe (a preset whose values changed,
docs/method.md §10) is refused, and the refusal names the recipe its members
were trained with."""

import json

import pytest

from committee.pipeline import layout
from committee.errors import RunError


def _old_run(tmp_path, params, algorithm="lbfgs"):
    out = tmp_path / "run"
    out.mkdir()
    (out / layout.STATE_FILE).write_text(json.dumps({"name": "default", "fingerprint": "a" * 64}))
    (out / layout.MANIFEST_FILE).write_text(json.dumps(
        {"config": {"crf": {"preset": "paper", "algorithm": algorithm, "params": params}}}))
    return out


def test_the_refusal_names_the_recorded_recipe_and_its_preset_today(tmp_path):
    out = _old_run(tmp_path, {"c1": 0.1, "c2": 0.1, "max_iterations": 100})
    with pytest.raises(RunError) as caught:
        layout._check_resumable(out, out / layout.STATE_FILE, "b" * 64, restart=False)
    assert ("(run 'default', fingerprint aaaaaaaaaaaa, now bbbbbbbbbbbb; its members: lbfgs "
            "c1 = 0.1, c2 = 0.1, max_iterations = 100 (crf.preset elastic)); pass --restart"
            in str(caught.value))


def test_a_recipe_no_preset_holds_is_named_without_one(tmp_path):
    out = _old_run(tmp_path, {"c1": 0.3}, algorithm="lbfgs")
    assert layout._recorded_recipe(out) == "; its members: lbfgs c1 = 0.3"
    (tmp_path / "other").mkdir()
    out = _old_run(tmp_path / "other", {}, algorithm="ap")
    assert layout._recorded_recipe(out) == "; its members: ap"


def test_no_manifest_or_a_garbled_one_adds_nothing(tmp_path):
    out = _old_run(tmp_path, {"c1": 1.0})
    (out / layout.MANIFEST_FILE).write_text("{not json")
    assert layout._recorded_recipe(out) == ""
    (out / layout.MANIFEST_FILE).unlink()
    assert layout._recorded_recipe(out) == ""
    with pytest.raises(RunError, match=r"now bbbbbbbbbbbb\); pass --restart"):
        layout._check_resumable(out, out / layout.STATE_FILE, "b" * 64, restart=False)
