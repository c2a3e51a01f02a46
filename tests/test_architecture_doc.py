"""docs/architecture.md read against the tree, at test time.

The doc's table of the package's entries and their modules is the tree:
every module or package it lists exists, and every module of a package is
listed (or a package of its own that holds it is).  The floors diagram is
``FLOORS`` of tests/test_architecture.py.  The public API's table is the
lazy names of ``committee/__init__.py``, the one module that refers up the
floors.  And no module but ``pipeline.names`` and ``pipeline.runfiles``
spells a run directory's file names.

Nothing here lists modules: the doc and the tree are read when the test
runs, so a module added, moved or removed fails it until the doc says so.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from test_architecture import FLOORS, PACKAGE, imported_modules, module_name

DOC = PACKAGE.parent / "docs" / "architecture.md"


def section(text: str, title: str) -> str:
    """The body of ``## title`` (up to the next ``## ``)."""
    return ("\n" + text).split(f"\n## {title}", 1)[1].split("\n## ", 1)[0]


def table_rows(text: str) -> list[list[str]]:
    """The cells of a Markdown table's rows (its header and rule left out)."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if set("".join(cells)) <= set("-: "):
            continue
        rows.append(cells)
    return rows[1:]


def ticked(text: str) -> list[str]:
    """The names in backticks of a text."""
    return re.findall(r"`([^`]+)`", text)


def outside_parentheses(text: str) -> str:
    """``text`` without its parenthesised parts (nested ones too).

    >>> outside_parentheses("`a` (of `x` (and `y`)), `b`")
    '`a` , `b`'
    """
    out, depth = [], 0
    for ch in text:
        depth += ch == "("
        if depth == 0:
            out.append(ch)
        depth -= ch == ")" and depth > 0
    return "".join(out)


# --------------------------------------------------------------------------
# the table of entries and modules


def entries(package: Path) -> set[str]:
    """A package's modules (``x.py``) and packages (``x/``), ``__init__`` and
    ``__main__`` left out."""
    out = set()
    for p in package.iterdir():
        if p.suffix == ".py" and p.stem not in ("__init__", "__main__"):
            out.add(p.name)
        elif p.is_dir() and (p / "__init__.py").is_file():
            out.add(p.name + "/")
    return out


def layout_table(text: str) -> dict[str, tuple[list[str], set[str]]]:
    """The table before "## Floors": entry -> (the modules it lists, every
    name in backticks in its modules' cell, those in parentheses too)."""
    head = text.split("\n## ", 1)[0]
    return {row[0].strip("`"): (ticked(outside_parentheses(row[2])), set(ticked(row[2])))
            for row in table_rows(head) if len(row) == 3}


def layout_problems(text: str, package: Path = PACKAGE) -> list[str]:
    """Where the table and the tree disagree (empty when they agree)."""
    rows, problems = layout_table(text), []
    here = entries(package)
    problems += [f"committee/{e} is not in the table" for e in sorted(here - set(rows))]
    problems += [f"`{e}` is in the table but not in committee/" for e in sorted(set(rows) - here)]
    for entry, (listed, named) in sorted(rows.items()):
        if not entry.endswith("/") or entry not in here:
            continue
        inside = {e.removesuffix(".py").removesuffix("/") for e in entries(package / entry)}
        pkg = entry.rstrip("/")
        problems += [f"{pkg}.{m} is listed but does not exist" for m in listed
                     if m not in inside]
        problems += [f"{pkg}.{m} is not listed" for m in sorted(inside - named)]
    return problems


def test_the_table_of_modules_is_the_tree():
    assert layout_problems(DOC.read_text(encoding="utf-8")) == []


def test_the_table_check_can_fail(tmp_path):
    pkg = tmp_path / "committee"
    (pkg / "sub").mkdir(parents=True)
    for name in ("__init__.py", "one.py", "sub/__init__.py", "sub/a.py", "sub/b.py"):
        (pkg / name).write_text("", encoding="utf-8")
    text = ("| entry | role | modules |\n|---|---|---|\n"
            "| `sub/` | x | `a` (with `Thing`), `gone` |\n| `two.py` | y | |\n\n## Floors\n")
    assert layout_problems(text, pkg) == [
        "committee/one.py is not in the table", "`two.py` is in the table but not in committee/",
        "sub.gone is listed but does not exist", "sub.b is not listed"]
    text = text.replace("`gone`", "`b` (its sub-modules: `c`)")
    assert layout_problems(text, pkg) == [
        "committee/one.py is not in the table", "`two.py` is in the table but not in committee/"]


# --------------------------------------------------------------------------
# the floors


def doc_floors(text: str) -> list[set[str]]:
    """The names of each floor of the diagram in "## Floors" (what follows
    a ``#`` on a line describes it)."""
    block = section(text, "Floors").split("```", 2)[1]
    floors: list[set[str]] = []
    for line in block.splitlines():
        line = line.split("#", 1)[0]
        m = re.match(r"floor (\d+)\s", line)
        if m:
            assert int(m[1]) == len(floors), f"floor {m[1]} out of order"
            floors.append(set())
            line = line[m.end():]
        if floors and line.strip() != "|":
            floors[-1] |= set(re.findall(r"[\w.]+", line))
    return floors


def test_the_floors_diagram_is_floors():
    assert doc_floors(DOC.read_text(encoding="utf-8")) == [set(f) for f in FLOORS]


def test_the_floors_check_can_fail():
    text = ("## Floors\n\n```\nfloor 0  cli  # the command line\n           |\n"
            "floor 1  a.b  c\n         d          # more\n```\n")
    assert doc_floors(text) == [{"cli"}, {"a.b", "c", "d"}]
    assert doc_floors(text) != [set(f) for f in FLOORS]


# --------------------------------------------------------------------------
# the public API: the one reference up the floors


def doc_public_api(text: str) -> tuple[dict[str, str], set[str]]:
    """The table of "## The public API": name -> the module it comes from,
    and every module the table names."""
    names, modules = {}, set()
    for row in table_rows(section(text, "The public API")):
        found = ticked(row[1])
        modules |= set(found)
        names |= dict.fromkeys(ticked(row[0]), found[0])
    return names, modules


def code_public_api(source: str) -> tuple[dict[str, str], set[str], set[str]]:
    """From ``committee/__init__.py``: its lazy names (name -> module), the
    modules it imports on first use (its lazy names' modules, imports inside
    its functions and ``import_module`` of a constant) and those it imports
    when it is imported."""
    tree = ast.parse(source)
    known = {module_name(p) for p in PACKAGE.rglob("*.py")}
    lazy: dict[str, str] = {}
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if isinstance(node, ast.Assign) else None)
        if isinstance(target, ast.Name) and target.id == "_LAZY":
            lazy = {k: v[0].removeprefix("committee.")
                    for k, v in ast.literal_eval(node.value).items()}
    eager = {m.removeprefix("committee.") for node in tree.body
             if isinstance(node, (ast.Import, ast.ImportFrom))
             for m in imported_modules(ast.Module([node], []), "committee", known, True)}
    later = set(lazy.values())
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            later |= {m.removeprefix("committee.")
                      for m in imported_modules(node, "committee", known, True)}
            later |= {n.args[0].value.removeprefix("committee.") for n in ast.walk(node)
                      if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "import_module"
                      and n.args and isinstance(n.args[0], ast.Constant)}
    return lazy, later, eager


def test_the_public_api_table_is_the_code():
    names, modules = doc_public_api(DOC.read_text(encoding="utf-8"))
    lazy, later, eager = code_public_api((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    assert names == lazy
    assert modules == later
    bottom = set(FLOORS[-1])
    assert eager <= bottom, "import committee loads only the bottom floor"


def test_the_public_api_check_can_fail():
    source = ('from committee.errors import X\nfrom committee.tasks import Y\n'
              '_LAZY = {"f": ("committee.scoring", "f")}\n'
              'def g():\n    import importlib\n    return importlib.import_module("committee.report")\n')
    lazy, later, eager = code_public_api(source)
    assert (lazy, later, eager) == ({"f": "scoring"}, {"scoring", "report"}, {"errors", "tasks"})
    text = "## The public API\n\n| name | from |\n|---|---|\n| `f`, `h` | `scoring` (and `cli`) |\n"
    assert doc_public_api(text) == ({"f": "scoring", "h": "scoring"}, {"scoring", "cli"})


# --------------------------------------------------------------------------
# the run directory's file names

#: The modules that may spell a run directory's file names.
RUN_FILE_MODULES = ("pipeline/names.py", "pipeline/runfiles.py")

#: Extensions that only files of a run directory have (a user's files are
#: .txt, .json, .tsv, ... too, so those say nothing alone).
RUN_ONLY_EXTENSIONS = (".npz", ".weight", ".weight_c", ".jsonlines")

#: Spellings outside those modules that are there today, by module and value:
#: each one is a name that belongs in ``pipeline.names``.  The list only
#: shrinks; a new spelling fails the test.
KNOWN = {
    ("pipeline/difficulty.py", ".weight"), ("pipeline/difficulty.py", ".weight_c"),
    ("report/analyses.py", "table2.csv"), ("report/html.py", "report.html"),
    ("tasks/ner.py", "test.weight_c"), ("tasks/pos.py", "test.weight"),
    ("tasks/segmentation.py", "test.weight"),
}


def run_file_names(names_source: str) -> set[str]:
    """The file names ``pipeline.names`` declares (its ``*_FILE`` and
    ``*_JSON`` constants)."""
    return {node.value.value for node in ast.parse(names_source).body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and any(isinstance(t, ast.Name) and t.id.endswith(("_FILE", "_JSON"))
                    for t in node.targets)}


def spells_a_run_file(value: str, names: set[str]) -> bool:
    """A string constant that is a run file's name or path (not a sentence
    that mentions one), or a run file's own extension."""
    if any(ch.isspace() for ch in value):
        return False
    return (value in RUN_ONLY_EXTENSIONS
            or any(value == n or value.endswith("/" + n) for n in names))


def run_file_spellings(package: Path = PACKAGE) -> set[tuple[str, str]]:
    """(module, constant) for each string constant of the package, outside
    RUN_FILE_MODULES, that spells a run file's name."""
    names = run_file_names((package / RUN_FILE_MODULES[0]).read_text(encoding="utf-8"))
    found = set()
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel in RUN_FILE_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and spells_a_run_file(node.value, names)):
                found.add((rel, node.value))
    return found


def test_only_pipeline_names_spells_the_run_files_names():
    assert run_file_spellings() - KNOWN == set()


def test_the_run_file_check_can_fail(tmp_path):
    (tmp_path / "pipeline").mkdir()
    (tmp_path / "pipeline" / "names.py").write_text(
        'MARKS_FILE = "marks.npz"\nWORDS_FILE = "words.tsv"\nTMP_DIR = ".tmp"\n', encoding="utf-8")
    (tmp_path / "m.py").write_text(
        'a = "marks.npz"\nb = root + "/words.tsv"\nc = "see words.tsv"\nd = ".tmp"\n'
        'e = x.endswith(".npz")\n', encoding="utf-8")
    assert run_file_spellings(tmp_path) == {("m.py", "marks.npz"), ("m.py", "/words.tsv"),
                                            ("m.py", ".npz")}
