"""One name per module: inside the package a module is imported under its
own name (or that name with ``_mod`` when the plain name is taken in the
importing module), never under another word (``dataset as pipeline``,
``lock as runlock``): a reader finds a module by the name it is used by."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "committee"


def renaming_aliases(tree: ast.AST, is_module) -> list[tuple[int, str]]:
    """``(line, "from X import M as A")`` for each import of a committee
    module ``M`` under a name other than ``M`` or ``M_mod``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("committee"):
            for alias in node.names:
                if alias.asname is None or alias.asname in (alias.name, alias.name + "_mod"):
                    continue
                if alias.asname.startswith("_") or not is_module(node.module, alias.name):
                    continue  # a private name, or a function or class imported under another
                out.append((node.lineno, f"from {node.module} import {alias.name} as "
                                         f"{alias.asname}"))
    return out


def _is_module(package: str, name: str) -> bool:
    base = PACKAGE.parent.joinpath(*package.split("."), name)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def test_no_module_is_imported_under_another_name():
    found = [f"committee/{p.relative_to(PACKAGE).as_posix()}:{line}: {text}"
             for p in sorted(PACKAGE.rglob("*.py"))
             for line, text in renaming_aliases(ast.parse(p.read_text(encoding="utf-8")),
                                                _is_module)]
    assert found == [], "import the module under its own name:\n" + "\n".join(found)


def test_the_alias_check_can_fail():
    tree = ast.parse("from committee.pipeline import dataset as pipeline\n"
                     "from committee.pipeline import lock as lock_mod\n"
                     "from committee.tasks import get as get_task\n")
    assert renaming_aliases(tree, _is_module) == [
        (1, "from committee.pipeline import dataset as pipeline")]
