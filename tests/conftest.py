"""Shared pytest set-up: tests marked ``slow`` run only when asked for with
``-m slow`` (or any ``-m`` expression naming ``slow``); a plain ``pytest``
run reports them as skipped.

The suite runs on two worker processes (pyproject.toml: ``-n 2 --dist
loadfile``): a module's fixtures are made once, on the worker that runs the
module; a session fixture here once on each worker that asks for it."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _shared_corpora_unchanged():
    """The embedded corpus is read once per session and shared
    (tests/toyrun.py, ``embedded``): no test may change it."""
    yield
    from toyrun import changed

    assert changed() == [], "a test changed a shared corpus of toyrun.embedded"


@pytest.fixture(scope="session")
def task_runs(tmp_path_factory):
    """Each task's K = 3 and K = 5 runs and system outputs
    (tests/matrix_runs.py), made once per session when first needed and
    shared by the tests that only read them."""
    from matrix_runs import Runs

    return Runs(tmp_path_factory.mktemp("matrix"))


@pytest.fixture(scope="session")
def toy_corpus(tmp_path_factory):
    """300 training and 40 test sentences of People's Daily (tests/toyrun.py)."""
    from toyrun import make_toy_corpus

    return make_toy_corpus(tmp_path_factory.mktemp("toy"))
