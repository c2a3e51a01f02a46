"""The documents' references to other files of the repository lead somewhere:
every relative Markdown link (``[text](docs/irt.md#anchor)``, the anchor
left unchecked) and every path of the repository written out in the text
(``docs/corpora.md``, ``committee/metrics/records.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", REPO / "data" / "README.md", REPO / "benchmarks" / "README.md",
        REPO / "scripts" / "README.md", *sorted((REPO / "docs").glob("*.md"))]

#: ``[text](target)``: a link; its target up to the closing parenthesis.
LINK = re.compile(r"\]\(([^)\s]+)\)")

#: A path of the repository in the text: a top-level directory of its code
#: or documents, then a file name with an extension (a glob such as
#: ``tests/test_hostile_*.py`` is not a path).
MENTION = re.compile(r"(?<![\w/.*-])((?:docs|committee|tests|scripts|benchmarks|configs)/[\w/.-]*\.\w+)"
                     r"(?![\w*])")


def _links(text: str) -> list[str]:
    """The relative link targets of a Markdown text, without their anchors
    (a link within the page, ``#anchor``, and a URL are left out).

    >>> _links("[a](docs/irt.md#fit) [b](#top) [c](https://x.org) [d](../README.md)")
    ['docs/irt.md', '../README.md']
    """
    targets = []
    for target in LINK.findall(text):
        if target.startswith("#") or re.match(r"[a-z][a-z+.-]*:", target):
            continue
        targets.append(target.split("#")[0])
    return targets


def _mentions(text: str) -> list[str]:
    """The repository paths written out in a text.

    >>> _mentions("see docs/corpora.md, `committee/cli.py` and tests/test_hostile_*.py")
    ['docs/corpora.md', 'committee/cli.py']
    """
    return [m.rstrip(".") for m in MENTION.findall(text)]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_leads_to_a_file(doc):
    text = doc.read_text(encoding="utf-8")
    missing = [t for t in _links(text) if not (doc.parent / t).exists()]
    assert missing == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_path_named_in_the_text_exists(doc):
    text = doc.read_text(encoding="utf-8")
    missing = [m for m in _mentions(text) if not (REPO / m).exists()]
    assert missing == []


def test_the_readme_names_every_system_package_set_up_installs():
    """Whatever ``scripts/bootstrap.sh`` installs with ``apt-get`` (as root)
    is named in the README's set-up section, with why."""
    root = Path(__file__).resolve().parents[1]
    script = (root / "scripts" / "bootstrap.sh").read_text(encoding="utf-8")
    packages = set(re.findall(r"apt-get install -y -qq ([\w.+-]+)", script))
    assert packages >= {"fonts-wqy-microhei", "chromium"}
    readme = (root / "README.md").read_text(encoding="utf-8")
    setup = readme[readme.index("## Set-up and the two commands"):]
    setup = setup[:setup.index("\n## ", 1)]
    for package in packages:
        assert f"`{package}`" in setup, package
