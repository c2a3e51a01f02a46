"""Where the tests look for the public corpora (data/README.md, "Integration
tests"): a folder of the corpus's name (``nlpcc2016-weibo``,
``ud-chinese-gsdsimp``) in the directory named by the environment variable
``COMMITTEE_CORPORA``, in the repository's ``data/``, or in
``../shared/corpora`` beside the repository, the first that has it.  A test
whose corpus is in none of them is skipped, and its reason says which corpus
it needs and points to data/README.md."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: The environment variable naming a directory that holds the corpora's folders.
ENV = "COMMITTEE_CORPORA"

#: Each corpus's folder and what the skip reason calls it.
TITLES = {"nlpcc2016-weibo": "the NLPCC 2016 Weibo corpus",
          "ud-chinese-gsdsimp": "the UD Chinese GSDSimp treebank",
          "icwb2-data": "the SIGHAN 2005 bakeoff data"}


def places() -> list[Path]:
    """The directories searched for a corpus's folder, in order."""
    given = os.environ.get(ENV)
    return [*([Path(given)] if given else []), REPO / "data", REPO.parent / "shared" / "corpora"]


def find(folder: str, *files: str) -> Path:
    """``PLACE/folder`` of the first place that has the folder with ``files``
    in it; ``data/folder`` when none has."""
    return next((p / folder for p in places()
                 if (p / folder).is_dir() and all((p / folder / f).is_file() for f in files)),
                REPO / "data" / folder)


def reason(folder: str) -> str:
    """Why a test of the corpus in ``folder`` is skipped.

    >>> reason("nlpcc2016-weibo")
    'needs the NLPCC 2016 Weibo corpus in data/nlpcc2016-weibo/: see data/README.md'
    """
    return f"needs {TITLES[folder]} in data/{folder}/: see data/README.md"


def needs(folder: str, *files: str) -> pytest.MarkDecorator:
    """Skip a test unless :func:`find` finds the folder with ``files``."""
    found = find(folder, *files)
    present = found.is_dir() and all((found / f).is_file() for f in files)
    return pytest.mark.skipif(not present, reason=reason(folder))
