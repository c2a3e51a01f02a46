"""The package's size rules, without exemptions: no module over 600 lines,
no function over 50 lines of code (its docstring, blank lines and
comment-only lines not counted), no ``# size:`` note excusing either, and
no function over 8 parameters but the public API's, whose options beyond
8 are keyword-only and documented (docs/api.md)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from test_architecture import code_lines

PACKAGE = Path(__file__).resolve().parents[1] / "committee"
MAX_MODULE_LINES = 600
MAX_CODE_LINES = 50
MAX_PARAMETERS = 8
SIZE_NOTE = "# size:"


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8")


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def parameters(node) -> tuple[int, int]:
    """``(all, positional)`` parameters of a function, ``self``/``cls`` not counted."""
    a = node.args
    positional = [x for x in a.posonlyargs + a.args if x.arg not in ("self", "cls")]
    extra = len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
    return len(positional) + extra, len(positional)


def public_api() -> set[tuple[str, str]]:
    """``(module path, function name)`` of every function of the public API
    (``committee._LAZY``)."""
    committee = importlib.import_module("committee")
    out = set()
    for module, name in committee._LAZY.values():
        obj = getattr(importlib.import_module(module), name)
        code = getattr(obj, "__code__", None)
        if code is not None:
            out.add((Path(code.co_filename).resolve().relative_to(PACKAGE).as_posix(),
                     obj.__name__))
    return out


def oversized(modules, public=frozenset()) -> list[str]:
    found = []
    for rel, source in modules:
        lines = source.splitlines()
        if len(lines) > MAX_MODULE_LINES:
            found.append(f"{rel}: {len(lines)} lines")
        if any(line.lstrip().startswith(SIZE_NOTE) for line in lines):
            found.append(f"{rel}: a {SIZE_NOTE!r} note")
        for node in _functions(ast.parse(source)):
            n = code_lines(source, node)
            if n > MAX_CODE_LINES:
                found.append(f"{rel}:{node.name}: {n} code lines")
            total, positional = parameters(node)
            allowed = (rel, node.name) in public and positional <= MAX_PARAMETERS
            if total > MAX_PARAMETERS and not allowed:
                found.append(f"{rel}:{node.name}: {total} parameters")
    return found


def test_no_module_function_or_signature_over_its_cap():
    assert oversized(_modules(), public_api()) == []


def test_the_caps_can_fail():
    big = "\n".join(f"x{i} = {i}" for i in range(MAX_MODULE_LINES + 1))
    body = "\n".join(f"    y{i} = {i}" for i in range(MAX_CODE_LINES))  # and its def line
    source = (f"def long():\n{body}\n\n"
              "def wide(a, b, c, d, e, f, g, h, i):\n    pass\n\n"
              "def api(a, *, b, c, d, e, f, g, h, i):\n    pass\n"
              "# size: near the cap on purpose\n")
    assert oversized([("big.py", big), ("m.py", source)], {("m.py", "api")}) == [
        f"big.py: {MAX_MODULE_LINES + 1} lines", "m.py: a '# size:' note",
        f"m.py:long: {MAX_CODE_LINES + 1} code lines", "m.py:wide: 9 parameters"]
