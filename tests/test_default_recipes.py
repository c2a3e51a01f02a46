"""The recipes of the default configs: a feature cut-off (``crf.params``
``feature.minfreq``) for the part-of-speech members (docs/benchmarks.md,
"A feature cut-off for the POS and entity configs"); the segmentation and
entity members keep theirs; the part-of-speech and entity routes are a grid
of nine members whose report trains its Table 2 taggers under ``fast``
("The part-of-speech and entity routes within reach")."""

from __future__ import annotations

from pathlib import Path

import pycrfsuite
import pytest

from committee.config import load_config
from committee.learners import crf

CONFIGS = Path(__file__).resolve().parents[1] / "configs"

#: The cut-off of each config and the preset it refines.
CUT_OFFS = {"default-pos.yaml": (2.0, "paper")}


@pytest.mark.parametrize("name", sorted(CUT_OFFS))
def test_the_members_take_the_cut_off(name):
    minfreq, preset = CUT_OFFS[name]
    cfg = load_config(CONFIGS / name)
    expected = {**crf.PRESETS[preset]["params"], "feature.minfreq": minfreq}
    assert (cfg.crf.algorithm, cfg.crf.trainer_params()) == ("lbfgs", expected)


@pytest.mark.parametrize("name, preset", [("default.yaml", "paper"),
                                          ("default-ner.yaml", "elastic")])
def test_the_segmentation_and_entity_defaults_keep_their_members_recipes(name, preset):
    cfg = load_config(CONFIGS / name)
    recipe = ("lbfgs", crf.PRESETS[preset]["params"])
    assert (cfg.crf.algorithm, cfg.crf.trainer_params()) == recipe
    assert cfg.table2_crf() == (recipe if name == "default.yaml" else
                                (crf.PRESETS["fast"]["algorithm"], crf.PRESETS["fast"]["params"]))


@pytest.mark.parametrize("name", ["default-pos.yaml", "default-ner.yaml"])
def test_the_tagging_routes_are_a_grid_of_nine_with_fast_taggers(name):
    """The part-of-speech and entity routes within reach (docs/benchmarks.md):
    one member per template and share of the training data, and the report's
    Table 2 taggers under the fast preset (L2-SGD), without the members' cut-off."""
    cfg = load_config(CONFIGS / name)
    assert (cfg.committee.size, cfg.committee.templates, cfg.committee.ratios,
            cfg.committee.draw) == (9, ("F1", "F2", "F3"), (0.1, 0.2, 0.3), "grid")
    fast = crf.PRESETS["fast"]
    assert cfg.table2_crf() == (fast["algorithm"], fast["params"])


def test_the_configs_cut_off_reaches_crfsuite(tmp_path):
    """Three one-item sentences: the attribute w=a is seen twice with N,
    s=y once with N and once with V, s=x and w=b once each.  Without a
    cut-off the model keeps the five (attribute, label) pairs; with the POS
    config's parameters (features seen fewer than 2 times dropped) only
    (w=a, N)."""
    xs = [[["w=a", "s=x"]], [["w=a", "s=y"]], [["w=b", "s=y"]]]
    ys = [["N"], ["N"], ["V"]]
    params = load_config(CONFIGS / "default-pos.yaml").crf.trainer_params()
    kept = {}
    for name, given in (("none", {**params, "feature.minfreq": 0.0}), ("config", params)):
        # c1 = 0: an L1 term would zero out weights of this tiny data set
        path = tmp_path / f"{name}.crfsuite"
        crf.train_model(xs, ys, "lbfgs", {**given, "c1": 0.0, "c2": 0.1}, path)
        tagger = pycrfsuite.Tagger()
        tagger.open(str(path))
        kept[name] = sorted(tagger.info().state_features)
        tagger.close()
    assert kept["none"] == [("s=x", "N"), ("s=y", "N"), ("s=y", "V"), ("w=a", "N"),
                            ("w=b", "V")]
    assert kept["config"] == [("w=a", "N")]
