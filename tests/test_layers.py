"""docs/design.md's layers hold in the code: each folder of eidomap is one layer, data flow one way, and no import --
lazy ones and those for the type checker included -- runs up.

The layers, from the bottom: ``base``, ``record``, ``io``, ``model``, ``rules``, ``search``, ``validate``,
``answers``, the pictures and pages (``plot``, ``pages``), ``cli``, and the package's root (the API).  A module
may import its own layer and the layers below it.  The one exception (:data:`FACADE`): a convenience method of
the ``Map`` facade imports, inside itself, the function it is a shortcut for, as GeoPandas' ``explore`` does.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "eidomap"

#: The layers from the bottom: each a tuple of the module prefixes (folders) it holds.
LAYERS = (
    ("eidomap.base",),
    ("eidomap.record",),
    ("eidomap.io",),
    ("eidomap.model",),
    ("eidomap.rules",),
    ("eidomap.search",),
    ("eidomap.validate",),
    ("eidomap.answers",),
    ("eidomap.plot", "eidomap.pages"),
    ("eidomap.cli",),
    ("eidomap", "eidomap.__main__"),
)
#: Imports that run up on purpose: (module, what it imports) -- the facade's shortcuts, each inside its method
#: (docs/design.md).  They are left out of the cycle check too: a facade method and the function it is a shortcut
#: for are one thing under two names.
FACADE = {("eidomap.model.map", m) for m in ("eidomap.answers.routing", "eidomap.model.frames", "eidomap.pages.planner",
                                             "eidomap.pages.widget", "eidomap.pages.explore", "eidomap.rules.actors",
                                             "eidomap.validate.board", "eidomap.validate.features")}


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (f, package)
    return out


MODULES = _modules()


def layer_of(name: str) -> int:
    """The layer of module ``name``: the one holding its longest prefix."""
    best, at = -1, -1
    for k, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > best:
                best, at = len(p), k
    return at


def _imports_in(source: str, name: str, package: bool) -> set[str]:
    """Every eidomap module the code ``source`` of module ``name`` imports, at any depth: a function's lazy import
    and an ``if TYPE_CHECKING:`` one too (an annotation names a layer as surely as a call does)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
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


@functools.cache
def graph() -> dict[str, set[str]]:
    """Every module's eidomap imports (parsed once, by the worker that runs these tests: not at collection)."""
    return {name: _imports(name) for name in MODULES}


def test_every_module_is_in_a_layer():
    assert sorted(n for n in MODULES if layer_of(n) < 0) == []


def test_the_root_holds_at_most_ten_modules_besides_its_folders():
    """A newcomer sees the layers in ``ls eidomap/``."""
    assert len(list(PACKAGE.glob("*.py"))) <= 10


def test_each_folder_says_what_its_layer_is_and_what_it_may_import():
    for folder in sorted(p for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
        assert "May import" in doc, f"{folder.name}/__init__.py does not say what its layer may import"


def test_an_import_for_the_type_checker_or_in_a_function_is_a_dependency():
    source = """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from eidomap.model.map import Map
def f(m: Map):
    from eidomap.validate.checks import validate
"""
    assert _imports_in(source, "eidomap.model.network", False) == {"eidomap.model.map", "eidomap.validate.checks"}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_import_runs_up_a_layer(name):
    here = layer_of(name)
    above = sorted(t for t in graph()[name] if layer_of(t) > here and (name, t) not in FACADE)
    assert above == [], f"{name} (layer {LAYERS[here][0]}) imports {above}"


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
    """Imports for the type checker count: a cycle through an annotation is a cycle a reader must follow too.  A
    package's ``__init__`` that gathers its modules' names is left out of the graph (its modules import each other,
    not it)."""
    edges = {n: {t for t in ts if not MODULES[t][1] and (n, t) not in FACADE} for n, ts in graph().items()}
    assert _cycles(edges) == []


def _reached(name: str) -> set[str]:
    """Every module ``name`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        for t in graph()[todo.pop()] - seen:
            seen.add(t)
            todo.append(t)
    return seen


#: The fast lane's module a plain reader may stand on: the table reader decodes a batch of rows while GDAL reads
#: the next (io/fast/alongside), as does every format that imports the table reader.
ALONGSIDE = "eidomap.io.fast.alongside"


def test_the_plain_readers_import_nothing_of_the_fast_lane():
    """A GeoJSON map is read as the format says by io/geojson (the standard library's json); the fast lane (io/fast:
    msgspec, the compiled coordinate parser, the helper process, the let-go document, the collector pause) sits
    behind the reader registry (io/readers), which picks a map's lane.  No reader of io but the registry imports
    the fast lane, at any depth (but for the table reader's decoding alongside)."""
    fast = "eidomap.io.fast"
    plain = [n for n in MODULES if layer_of(n) == LAYERS.index(("eidomap.io",)) and n != "eidomap.io.readers"
             and not (n == fast or n.startswith(fast + "."))]
    assert "eidomap.io.geojson" in plain
    reached = {n: {t for t in _reached(n) if t.startswith(fast + ".")} for n in plain}
    assert reached["eidomap.io.geojson"] == set()
    allowed = {n: {ALONGSIDE} if "eidomap.io.tables" in _reached(n) | {n} else set() for n in plain}
    assert {n: sorted(ts - allowed[n]) for n, ts in reached.items() if ts - allowed[n]} == {}


def _package_of(name: str) -> str:
    """The package (folder of ``eidomap/``) module ``name`` belongs to: ``eidomap.plot`` for
    ``eidomap.plot.parts``, the root ``eidomap`` for a module beside the folders."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and (PACKAGE / parts[1]).is_dir() else "eidomap"


def _private(word: str) -> bool:
    return word.startswith("_") and not word.startswith("__")


def _private_imports_in(source: str, name: str, package: bool) -> list[str]:
    """Each private name (or private module) of another package of eidomap that the code ``source`` of module
    ``name`` imports, at any depth -- in a function, or for the type checker -- as ``'module.name'``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = name.split(".")[: None if package else -1]
            base = base[: len(base) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base) if node.level else node.module or ""
            names = [f"{module}.{a.name}" for a in node.names]
        else:
            continue
        for full in names:
            words = full.split(".")
            if words[0] == "eidomap" and any(_private(w) for w in words[1:]) \
                    and _package_of(full) != _package_of(name):
                out.append(full)
    return out


def test_a_private_name_imported_in_a_function_or_for_the_type_checker_is_seen():
    source = """
from typing import TYPE_CHECKING
from eidomap.plot.parts import map_bounds
from eidomap.plot.map import _own
if TYPE_CHECKING:
    from eidomap.model.map import _Hidden
def f(m):
    from eidomap.plot._base import figure_size
    import eidomap.cli._common
"""
    assert _private_imports_in(source, "eidomap.pages.explore", False) == [
        "eidomap.plot.map._own", "eidomap.model.map._Hidden", "eidomap.plot._base.figure_size",
        "eidomap.cli._common"]
    assert _private_imports_in(source, "eidomap.plot.route", False) == ["eidomap.model.map._Hidden",
                                                                         "eidomap.cli._common"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_private_name_is_imported_from_another_package(name):
    """Issue 47: 80 imports of ``plot/_base.py``'s private names from other modules.  A name shared beyond its
    package is public (``eidomap.plot.parts``); a private one stays inside its package."""
    path, package = MODULES[name]
    assert _private_imports_in(path.read_text(), name, package) == []
