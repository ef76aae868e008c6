"""docs/design.md's layers hold in the code: data flow one way, and no import -- lazy ones included -- runs up."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "eidomap"

#: What the modules from the file to the network may import of eidomap (prefixes); the rest is above them.
BASE = ("eidomap._version", "eidomap.errors", "eidomap.problems", "eidomap.names", "eidomap._arrays", "eidomap._gc",
        "eidomap.hooks", "eidomap.progress", "eidomap.geometry", "eidomap.io.files", "eidomap.io.arrays",
        "eidomap.catalog", "eidomap.modes", "eidomap.rulesets",
        "eidomap._twins", "eidomap._compiled", "eidomap._borders", "eidomap._rings",
        "eidomap.params")
ALLOWED = {
    "eidomap.hooks": (),
    "eidomap.record": BASE,
    # (a battle grid's record is the d20 rules' Grid, arrays only: its file is read into one)
    "eidomap.io": (*BASE, "eidomap.record", "eidomap.io", "eidomap.rules.d20.squares"),
    "eidomap.topology": (*BASE, "eidomap.record"),
    "eidomap.graph": (*BASE, "eidomap.record", "eidomap.topology"),
    "eidomap.cache": (*BASE, "eidomap.record", "eidomap.io", "eidomap.graph"),
    "eidomap.model": (*BASE, "eidomap.record", "eidomap.io", "eidomap.topology", "eidomap.graph", "eidomap.cache",
                      "eidomap.validate"),
}


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (f, package)
    return out


MODULES = _modules()


def _is_type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    return isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING"


def _walk(node: ast.AST):
    """Every node under ``node`` but those of an ``if TYPE_CHECKING:`` block (its ``else`` is walked): an import
    made for the type checker only never runs, so it is no dependency."""
    yield node
    for child in ast.iter_child_nodes(node):
        if _is_type_checking(child):
            yield from (n for c in (child.test, *child.orelse) for n in _walk(c))
        else:
            yield from _walk(child)


def _imports_in(source: str, name: str, package: bool) -> set[str]:
    """Every eidomap module the code ``source`` of module ``name`` imports, at any depth (a function's lazy import
    too), but for the type checker."""
    out = set()
    for node in _walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = name.split(".")[: None if package else -1]
            base = base[: len(base) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base) if node.level else node.module or ""
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module for a in node.names]
        else:
            continue
        for t in targets:
            while t not in MODULES and "." in t:
                t = t.rsplit(".", 1)[0]
            if t.startswith("eidomap") and t != name and t in MODULES:
                out.add(t)
    return out


def _imports(name: str) -> set[str]:
    path, package = MODULES[name]
    return _imports_in(path.read_text(), name, package)


GRAPH = {name: _imports(name) for name in MODULES}


def test_an_import_for_the_type_checker_only_is_no_dependency_but_a_lazy_one_is():
    source = """
from typing import TYPE_CHECKING
import typing
if TYPE_CHECKING:
    from .model import Map
else:
    from . import errors
if typing.TYPE_CHECKING:
    import eidomap.routing
def f(m: Map):
    from .validate import validate
    if TYPE_CHECKING:
        from .analysis import bottlenecks
"""
    assert _imports_in(source, "eidomap.graph", False) == {"eidomap.errors", "eidomap.validate"}


def _owner(name: str) -> str | None:
    return max((k for k in ALLOWED if name == k or name.startswith(k + ".")), key=len, default=None)


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _owner(n)))
def test_no_module_from_the_file_to_the_network_imports_a_layer_above(name):
    allowed = ALLOWED[_owner(name)]
    above = sorted(t for t in GRAPH[name] if not any(t == a or t.startswith(a + ".") for a in allowed))
    assert above == [], f"{name} imports {above}"


def test_graph_validate_fix_and_the_pictures_do_not_read_through_the_geojson_module():
    users = [n for n in ("eidomap.graph", "eidomap.validate", "eidomap.fix", *(m for m in MODULES
                                                                             if m.startswith("eidomap.plot")))
             if "eidomap.io.geojson" in GRAPH[n]]
    assert users == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    """model <-> routing <-> geo <-> plot.explore was one; io.svg -> fix ran up; the command line's package and its
    commands (their helpers are in cli._common now); search.turns and its numba twin (the twin compiles what it is
    handed, importing none of the searches)."""
    assert _cycles(GRAPH) == []
