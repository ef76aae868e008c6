"""The sources numba compiles (:mod:`eidomap.base.compiled`) keep to what it compiles quickly."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap

from conftest import ROOT

from eidomap.search import grid as rounds


def _compiled_functions() -> dict[str, object]:
    """Every function the package and the benchmarks hand to numba: the first argument of each ``twin(...)``
    call, the battle grid's searches (``_fn("name", ...)``) and every module's ``JIT_HELPERS``."""
    found: dict[str, object] = {}
    for path in [*(ROOT / "eidomap").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.args]
        named = [c.args[0].id for c in calls if isinstance(c.args[0], ast.Name)
                 and getattr(c.func, "id", getattr(c.func, "attr", None)) == "twin"]
        fns = [c.args[0].value for c in calls if getattr(c.func, "id", None) == "_fn"
               and isinstance(c.args[0], ast.Constant)]
        helpers = any(isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "JIT_HELPERS" for t in n.targets)
                      for n in tree.body)
        if not (named or fns or helpers):
            continue
        module = importlib.import_module(name)
        found.update((f"{f.__module__}.{f.__qualname__}", f) for f in [
            *(getattr(module, n) for n in named if callable(getattr(module, n, None))),
            *(getattr(rounds, n) for n in fns), *getattr(module, "JIT_HELPERS", ())])
    return found


def _sliced(node: ast.Subscript) -> bool:
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return any(isinstance(p, ast.Slice) for p in parts)


def _array_into_slice(fn) -> list[str]:
    """The assignments of ``fn`` that put an array into a slice or a row: ``a[i:j] = b``, ``a[k] = b[x, :]``."""
    bad = []
    for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(fn)))):
        if not isinstance(node, ast.Assign):
            continue
        targets = [e for t in node.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
        scalar = isinstance(node.value, ast.Constant | ast.UnaryOp)
        into = any(isinstance(t, ast.Subscript) and _sliced(t) for t in targets) and not scalar
        row = any(isinstance(t, ast.Subscript) for t in targets) and isinstance(node.value, ast.Subscript) \
            and _sliced(node.value)
        if into or row:
            bad.append(ast.unparse(node))
    return bad


def test_compiled_sources_assign_no_array_into_a_slice():
    """numba compiles such an assignment's shape check and error message for a second or two in each function
    (the battle grid's route compiled in 12 s with four of them, 7 s without)."""
    found = _compiled_functions()
    assert {"eidomap.search.grid.plan_labels", "eidomap.search.turns.earliest_labels",
            "eidomap.search.buckets.grow", "eidomap.io.wkb.fill_rows"} <= set(found)
    bad = {name: lines for name, fn in found.items() if (lines := _array_into_slice(fn))}
    assert bad == {}


def _into_slices(a, b, rows):  # (what the check above must see)
    a[1:3] = b
    a[0] = rows[0, :]
    view = a[1:3]  # (a view taken, not assigned into: compiles quickly)
    view[0] = b[0]


def test_the_check_sees_an_array_assigned_into_a_slice_or_a_row():
    assert _array_into_slice(_into_slices) == ["a[1:3] = b", "a[0] = rows[0, :]"]
