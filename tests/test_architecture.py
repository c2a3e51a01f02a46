"""The package's layout (docs/architecture.md): imports only go down the
floors along the data's path, there is no import cycle and the top level
holds at most twelve entries (the size rules: tests/test_sizes.py).

Every module of ``committee`` is parsed with :mod:`ast`, imports inside
functions included.  ``committee/__init__.py`` (the public API and
``__version__``) is exempt: any module may import it.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path


PACKAGE = Path(__file__).resolve().parents[1] / "committee"

#: Floors from the top (0) to the bottom, by module (``learners.crf``) or by
#: package (``corpus``: every module of the package that is not listed on its
#: own; the longest listed prefix decides).  A module may import modules of a
#: lower floor, and of its own floor when that makes no cycle.  ``config``
#: sits on the members' floor, not lower: it takes its name lists from their
#: homes (``learners.members.DRAWS``, ``system.pools.BACKENDS``,
#: ``segmenters.SEGMENTERS``) and its CRF rules from ``learners``, and only the
#: report and the CLI (above it) read configs.  A package's ``__init__`` that
#: only documents the package (``learners``, ``pipeline``, ``system``) sits at
#: the bottom.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("cli", "__main__"),
    ("pipeline.workflow",),
    ("pipeline.dataset", "report", "scoring.checkgold", "pipeline.runconfig", "pipeline.export"),
    ("learners.members", "pipeline.marks", "pipeline.difficulty", "scoring",
     "scoring.adaptive_run", "system.pools", "pipeline.layout", "pipeline.runchecks",
     "pipeline.lock", "pipeline.unitfiles", "pipeline.runinputs", "pipeline.runmanifest",
     "metrics.difficulty_stats",
     "report.plots", "report.output", "scoring.irt",
     "segmenters", "config", "config.corpussection", "corpus.plausibility",
     "report.analyses"),
    ("learners.crf", "learners.trainers", "learners.draws", "learners.checks", "metrics",
     "metrics.significance", "corpus",
     "learners.features", "tasks.spans", "metrics.itemresponse", "metrics.irtem",
     "metrics.checkgold_model", "metrics.checkgold_injected", "tasks", "pipeline.runfiles",
     "pipeline.names", "pipeline.weightfiles"),
    ("system.files", "system.owners", "system.streams", "system.records", "errors", "system.arguments",
     "system.commands", "system.process", "system.reaper", "learners", "pipeline", "system"),
)
FLOOR = {name: i for i, names in enumerate(FLOORS) for name in names}



def module_name(path: Path) -> str:
    """``committee.report.build`` for ``committee/report/build.py``."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(tree: ast.AST, here: str, known: set[str],
                     is_package: bool = False) -> set[str]:
    """The ``committee`` modules a module imports, anywhere in its code.

    ``is_package``: ``here`` is a package's ``__init__``, so relative imports
    start from ``here`` itself rather than from its parent.
    """
    out = set()
    package = here if is_package or here == "committee" else here.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "committee"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[:len(up) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            if base.split(".")[0] != "committee":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if sub in known else base)
    out.discard(here)
    return out


def import_graph() -> dict[str, set[str]]:
    files = sorted(PACKAGE.rglob("*.py"))
    known = {module_name(p) for p in files}
    return {module_name(p): imported_modules(ast.parse(p.read_text(encoding="utf-8")),
                                             module_name(p), known, p.name == "__init__.py")
            for p in files}


def floor_of(module: str) -> int | None:
    """The floor of ``committee.X.Y``: that of ``X.Y`` if listed, else that of ``X``."""
    parts = module.split(".")[1:]
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in FLOOR:
            return FLOOR[".".join(parts[:n])]
    return None


def violations(graph: dict[str, set[str]]) -> list[str]:
    """Every unknown module and every import that goes up a floor."""
    problems = []
    for module, targets in sorted(graph.items()):
        if module == "committee":
            continue  # the public API: exempt
        here = floor_of(module)
        if here is None:
            problems.append(f"{module} has no floor: add {module.split('.')[1]!r} to FLOORS "
                            "in tests/test_architecture.py and to docs/architecture.md")
            continue
        for target in sorted(targets):
            if target == "committee":
                continue
            there = floor_of(target)
            if there is not None and there > here:
                continue
            if there is not None and there == here:
                continue  # same floor: allowed when acyclic (see cycles)
            problems.append(f"{module} (floor {here}) imports {target} "
                            f"(floor {there}): imports must go down")
    return problems


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Import cycles (each as a path that comes back to its start)."""
    found, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if nxt == "committee":
                continue
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_imports_only_go_down():
    assert violations(import_graph()) == []


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_every_floor_name_is_unique():
    names = [n for floor in FLOORS for n in floor]
    assert len(names) == len(set(names))


def test_the_checks_can_fail():
    """An upward import, a same-floor cycle and an unknown module are caught."""
    graph = {"committee.pipeline.dataset": {"committee.report.build"},
             "committee.report.build": {"committee.pipeline.dataset"},
             "committee.learners.crf": {"committee.learners.members"},
             "committee.newthing": set()}
    found = violations(graph)
    assert any("committee.learners.crf (floor 4) imports committee.learners.members" in p
               for p in found)
    assert any("committee.newthing has no floor: add 'newthing' to FLOORS" in p for p in found)
    assert not any(p.startswith("committee.pipeline.dataset") for p in found)  # same floor
    assert cycles(graph) == [["committee.pipeline.dataset", "committee.report.build",
                              "committee.pipeline.dataset"]]


def crossings(graph: dict[str, set[str]], low: str, high: str) -> list[str]:
    """Every import of a module of package ``high`` by a module of package
    ``low``, where ``low`` must not depend on ``high``."""
    def within(module: str, package: str) -> bool:
        return module == f"committee.{package}" or module.startswith(f"committee.{package}.")

    return sorted(f"{m} imports {t}" for m, targets in graph.items() if within(m, low)
                  for t in targets if within(t, high))


def test_scoring_imports_nothing_from_report():
    """Scoring and the report both read runs; what they share (a run's
    config read back: ``pipeline.runconfig``) lives below both."""
    assert crossings(import_graph(), "scoring", "report") == []


def test_the_crossing_check_can_fail():
    graph = {"committee.scoring.checkgold": {"committee.report.rundata", "committee.pipeline"},
             "committee.report.build": {"committee.scoring"}}
    assert crossings(graph, "scoring", "report") == [
        "committee.scoring.checkgold imports committee.report.rundata"]


def test_imports_inside_functions_count():
    tree = ast.parse("def f():\n    from committee import report\n    import committee.cli\n")
    known = {"committee.report", "committee.cli"}
    assert imported_modules(tree, "committee.pipeline.dataset", known) == {
        "committee.report", "committee.cli"}


def code_lines(source: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The lines of ``node`` that hold code: not its docstring, not blank,
    not a comment alone."""
    skip: set[int] = set()
    first = node.body[0]
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        skip = set(range(first.lineno, first.end_lineno + 1))
    lines = source.splitlines()[node.lineno - 1:node.end_lineno]
    return sum(1 for n, line in enumerate(lines, node.lineno)
               if n not in skip and line.strip() and not line.strip().startswith("#"))


#: The package's top level holds at most this many modules and packages
#: (``__init__`` and ``__main__`` not counted): one per role.
MAX_TOP_LEVEL = 12

def top_level(package: Path = PACKAGE) -> list[str]:
    return sorted(p.stem if p.is_file() else p.name for p in package.iterdir()
                  if (p.suffix == ".py" and p.stem not in {"__init__", "__main__"})
                  or (p.is_dir() and (p / "__init__.py").exists()))


def test_at_most_12_modules_at_the_top_level():
    found = top_level()
    assert len(found) <= MAX_TOP_LEVEL, found


def test_the_size_checks_can_fail(tmp_path):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "data").mkdir()  # not a package
    (tmp_path / "__main__.py").write_text("", encoding="utf-8")
    assert top_level(tmp_path) == ["a", "b", "c", "pkg"]


CODE_LINES_EXAMPLE = '''\
def f(x):
    """Doc

    more doc.
    """

    # a comment
    y = x  # code with a comment
    s = """
    """
    return y
'''


def test_code_lines_leave_out_docstring_blank_and_comment_lines():
    node = ast.parse(CODE_LINES_EXAMPLE).body[0]
    assert code_lines(CODE_LINES_EXAMPLE, node) == 5  # def, y =, s = """ and its end, return


DOC = PACKAGE.parent / "docs" / "architecture.md"

#: The kinds of extension docs/architecture.md's "Where to add" table covers.
EXTENSIONS = {"a metric", "a corpus format", "a segmenter", "a task", "a trainer",
              "an analysis", "a subcommand", "a unit kind"}

_PLACE = re.compile(r"`((?:committee/[\w/<>]+\.py)|pyproject\.toml)`(?: \(`(\w+)`)?")


def where_to_add(text: str) -> dict[str, tuple[list[tuple[str, str | None]], str]]:
    """The rows of the "Where to add" table: kind -> ([(file, name)], test)."""
    section = text.split("## Where to add", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("to add", "---"):
            continue
        rows[cells[0]] = (_PLACE.findall(cells[1]), cells[3].strip("`"))
    return rows


def row_problems(kind: str, places, test: str) -> list[str]:
    """Why a row of the table does not hold (empty when it does)."""
    problems = []
    if not 1 <= len(places) <= 2:
        problems.append(f"{kind}: {len(places)} files (at most 2)")
    for path, name in places:
        if "<name>" in path:  # a new module: its package exists
            if not (PACKAGE.parent / path).parent.is_dir():
                problems.append(f"{kind}: no package for {path}")
            continue
        if not (PACKAGE.parent / path).is_file():
            problems.append(f"{kind}: no file {path}")
            continue
        if name and path.endswith(".py"):
            module = importlib.import_module(path[:-3].replace("/", ".").removesuffix(".__init__"))
            if not hasattr(module, name) and f"def {name}" not in (PACKAGE.parent / path).read_text(
                    encoding="utf-8"):
                problems.append(f"{kind}: {path} has no {name}")
    file, _, function = test.partition("::")
    source = PACKAGE.parent / file
    if not source.is_file() or f"def {function}(" not in source.read_text(encoding="utf-8"):
        problems.append(f"{kind}: no test {test}")
    return problems


def test_the_where_to_add_table_holds():
    rows = where_to_add(DOC.read_text(encoding="utf-8"))
    assert set(rows) == EXTENSIONS
    assert [p for kind, (places, test) in rows.items() for p in row_problems(kind, places, test)] == []


def test_the_where_to_add_check_can_fail():
    text = ("## Where to add\n\n| to add | declare it in | what follows | toy |\n|---|---|---|---|\n"
            "| a metric | `committee/metrics/records.py` (`NOPE`) | x | `tests/test_api.py::nope` |\n"
            "| a task | `committee/a.py`, `committee/b.py`, `committee/c.py` | x | "
            "`tests/test_api.py::test_run_passes_config_and_overrides` |\n")
    rows = where_to_add(text)
    found = [p for kind, (places, test) in rows.items() for p in row_problems(kind, places, test)]
    assert "a metric: committee/metrics/records.py has no NOPE" in found
    assert "a metric: no test tests/test_api.py::nope" in found
    assert "a task: 3 files (at most 2)" in found
    assert "a task: no file committee/a.py" in found


def test_every_floor_is_in_the_docs():
    block = DOC.read_text(encoding="utf-8").split("## Floors", 1)[1].split("## ", 1)[0]
    words = set(re.findall(r"[\w.]+", block))
    assert [name for floor in FLOORS for name in floor if name not in words] == []


def private_imports(package: Path = PACKAGE) -> list[str]:
    """``from committee.X import _name``: a module's private name used by
    another module (``__version__`` and the API's ``_ReportModule`` aside)."""
    out = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("committee"):
                out += [f"{path.relative_to(package).as_posix()}: {node.module}.{a.name}"
                        for a in node.names
                        if a.name.startswith("_") and a.name not in ("__version__", "_ReportModule")]
    return out


def test_no_module_imports_another_modules_private_name(tmp_path):
    assert private_imports() == []
    (tmp_path / "m.py").write_text("from committee.config.base import _x\n", encoding="utf-8")
    assert private_imports(tmp_path) == ["m.py: committee.config.base._x"]
