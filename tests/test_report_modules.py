"""The report package's modules are small (committee/report/: no module over
600 lines, no function over 50 lines of code or with more than 8
parameters, and no size note excusing one), and each analysis's file names
are spelled in its own module only."""

from __future__ import annotations

import ast
from pathlib import Path

from test_architecture import code_lines
from test_sizes import SIZE_NOTE

REPORT = Path(__file__).resolve().parents[1] / "committee" / "report"

MAX_LINES = 600
MAX_CODE_LINES = 50
MAX_PARAMETERS = 8


def size_problems(package: Path = REPORT) -> list[str]:
    """Each module, function and size note of ``package`` over the caps."""
    out = []
    for path in sorted(package.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        name = path.relative_to(package).as_posix()
        lines = source.splitlines()
        if len(lines) > MAX_LINES:
            out.append(f"{name}: {len(lines)} lines")
        if any(line.lstrip().startswith(SIZE_NOTE) for line in lines):
            out.append(f"{name}: a size note")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                n_args = (len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                          + (a.vararg is not None) + (a.kwarg is not None))
                if code_lines(source, node) > MAX_CODE_LINES:
                    out.append(f"{name}:{node.name}: {code_lines(source, node)} code lines")
                if n_args > MAX_PARAMETERS:
                    out.append(f"{name}:{node.name}: {n_args} parameters")
    return out


def test_the_report_modules_are_within_their_caps():
    assert size_problems() == []


def test_the_size_check_can_fail(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(51))
    (tmp_path / "m.py").write_text(
        f"# size: a note\ndef f(a, b, c, d, e, f, g, h, i):\n{body}" + "\n" * 600,
        encoding="utf-8")
    assert size_problems(tmp_path) == ["m.py: 653 lines", "m.py: a size note",
                                       "m.py:f: 52 code lines", "m.py:f: 9 parameters"]


def file_names(module: Path) -> set[str]:
    """The file names a module's constants spell: strings with no space that
    end as a figure, a table or a page of the report does."""
    return {node.value for node in ast.walk(ast.parse(module.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and not any(c.isspace() for c in node.value)
            and node.value.endswith((".png", ".csv", ".md")) and "*" not in node.value}


def spelled_elsewhere(package: Path = REPORT) -> list[str]:
    """Each file name of an analysis's module that another module of the
    package spells too."""
    owners = {p: file_names(p) for p in sorted((package / "analyses").glob("*.py"))}
    others = {p: file_names(p) for p in sorted(package.rglob("*.py"))}
    return [f"{name} of {own.name} in {p.relative_to(package).as_posix()}"
            for own, names in owners.items() for name in sorted(names)
            for p, found in others.items() if p != own and name in found]


def test_an_analysis_file_name_is_spelled_in_its_module_only():
    from committee.report.analyses import MODULES

    assert spelled_elsewhere() == []
    # each analysis names its files (a figure or a table) in its module
    assert all(file_names(Path(m.__file__)) for m in MODULES)


def test_the_spelling_check_can_fail(tmp_path):
    (tmp_path / "analyses").mkdir()
    (tmp_path / "analyses" / "fig.py").write_text('FIGURE = "fig9.png"\n', encoding="utf-8")
    (tmp_path / "build.py").write_text('x = "report/fig9.png"\ny = "fig9.png"\n',
                                       encoding="utf-8")
    assert spelled_elsewhere(tmp_path) == ["fig9.png of fig.py in build.py"]
