"""The tests are laid out by module (tests/README.md), and the mutation-testing selection is drawn from that layout."""

from __future__ import annotations

import ast
import fnmatch
import re
import tomllib
from pathlib import Path

from conftest import ROOT

TESTS = ROOT / "tests"
PACKAGE = ROOT / "eidomap"


def layout_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if not p.is_relative_to(TESTS / "bad_inputs"))


def cross_cutting() -> set[str]:
    """The suites tests/README.md lists as cross-cutting (named for what they check, not for a module)."""
    text = (TESTS / "README.md").read_text()
    section = text[text.index("## Cross-cutting suites"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    return set(re.findall(r"^- `(test_\w+\.py)`", section, re.M))


def module_of(test: Path) -> Path | None:
    """The module (or package folder) a test file is named after, if it exists."""
    folder = PACKAGE / test.parent.relative_to(TESTS)
    name = test.stem.removeprefix("test_")
    for candidate in (folder / f"{name}.py", folder / f"_{name}.py", folder / name):
        if candidate.is_file() or (candidate / "__init__.py").is_file():
            return candidate
    return None


def mutmut() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]


def mutated_modules() -> list[Path]:
    """The modules ``only_mutate`` names, without the old names of moved modules (only an alias, nothing to mutate)."""
    found = (p for p in PACKAGE.rglob("*.py")
             if any(fnmatch.fnmatch(p.relative_to(ROOT).as_posix(), g) for g in mutmut()["only_mutate"]))
    return sorted(p for p in found if "alias_module(" not in p.read_text())


def test_every_test_file_is_named_after_a_module_or_listed_as_cross_cutting():
    listed = cross_cutting()
    assert listed <= {p.name for p in TESTS.glob("test_*.py")}, "tests/README.md lists a suite that is not there"
    stray = [p.relative_to(TESTS).as_posix() for p in layout_files()
             if module_of(p) is None and not (p.parent == TESTS and p.name in listed)]
    assert not stray, f"named after no module of eidomap/ and not listed as cross-cutting in tests/README.md: {stray}"


def test_test_files_that_share_a_name_are_imported_by_their_path():
    """tests/ mirrors eidomap/, whose layers have modules of one name (``io/grid.py``, ``rules/d20/grid.py``): pytest
    imports each test file by its path (``--import-mode=importlib``), and the helpers from tests/ (``pythonpath``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--import-mode=importlib" in config["addopts"] and config["pythonpath"] == ["tests"]
    helpers = {p.stem for p in TESTS.glob("*.py") if not p.name.startswith("test_")}
    assert not helpers & {p.stem for p in layout_files()}, "a helper shares a test file's name"


def ignored() -> list[Path]:
    """The test files and folders the mutation run leaves out whole (``--ignore=`` of ``pytest_add_cli_args``)."""
    return [ROOT / a.removeprefix("--ignore=") for a in mutmut()["pytest_add_cli_args"] if a.startswith("--ignore=")]


def own_tests(module: Path) -> list[Path]:
    """Where the layout puts ``module``'s tests, nearest first: its own file (a package's beside its folder),
    then its package's, up to the folder of ``tests/`` mirroring the package (tests/README.md: a module without a
    file of its own is tested through the one above it)."""
    relative = module.relative_to(PACKAGE)
    if relative.name == "__init__.py":
        relative = relative.parent
    if relative == Path("."):  # eidomap itself: all of tests/
        return [TESTS]
    wanted = [TESTS / relative.parent / f"test_{relative.stem.removeprefix('_')}.py"]
    for package in relative.parents:
        wanted.append(TESTS / package)
        if package.name:
            wanted.append(TESTS / package.parent / f"test_{package.name}.py")
    return wanted


def test_every_mutated_module_has_tests_the_mutation_run_selects():
    selection = mutmut()["pytest_add_cli_args_test_selection"]
    selected = [ROOT / s.split("::")[0] for s in selection]
    assert all(p.exists() for p in selected), [s for s, p in zip(selection, selected, strict=True) if not p.exists()]
    out = ignored()
    assert all(p.exists() for p in out), [p for p in out if not p.exists()]

    def runs(path: Path) -> bool:
        return any(path == s or path.is_relative_to(s) for s in selected) and not any(
            path == o or path.is_relative_to(o) for o in out)

    modules = mutated_modules()
    assert modules, "only_mutate names no module"
    for module in modules:
        wanted = [w for w in own_tests(module) if w.is_file() or (w.is_dir() and any(w.rglob("test_*.py")))]
        name = module.relative_to(ROOT).as_posix()
        assert wanted, f"{name}: no tests where the layout puts them"
        if wanted[0].is_file():  # a file of its own (or its package's): run, never left out
            assert runs(wanted[0]), f"{name}: {wanted[0].relative_to(ROOT)} is not run by the mutation run"
        assert any(runs(w) for w in wanted), f"{name}: none of {[w.relative_to(ROOT).as_posix() for w in wanted]}" \
                                             " is run by [tool.mutmut]'s pytest_add_cli_args_test_selection"


def test_the_mutation_run_leaves_out_only_cross_cutting_suites():
    # a module's own tests are never left out whole: what it leaves out are suites named for what they check
    listed = cross_cutting()
    assert [p.name for p in ignored() if not (p.parent == TESTS and p.name in listed)] == []


def test_the_mutation_run_deselects_only_tests_that_exist():
    for arg in mutmut()["pytest_add_cli_args"]:
        if arg.startswith("--deselect="):
            path, test = arg.removeprefix("--deselect=").split("::")
            assert (ROOT / path).is_file() and re.search(rf"^def {re.escape(test)}\(", (ROOT / path).read_text(),
                                                         re.M), f"{arg}: no such test"


# -- the waits of the tests are hang guards (issue 46: a 300 s timeout failed the suite on a busy machine) ----------
def _python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if not p.is_relative_to(TESTS / "bad_inputs"))


def _number(node: ast.AST) -> bool:
    """A number written in the code (``300``, ``60_000``, ``5 * 60``): a time limit nobody measured on a busy day."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp | ast.BinOp):
        return all(_number(n) for n in ast.iter_child_nodes(node) if isinstance(n, ast.expr))
    return False


def test_every_wait_in_the_tests_is_a_hang_guard():
    """A ``timeout=`` in a test is a guard against a hang, far above the slowest run on a loaded machine
    (:func:`conftest.hang_guard`), never a number of its own; hypothesis has no ``deadline``; a playwright browser,
    page or context waits as long (playwright's own limit is 30 s)."""
    from hypothesis import settings

    found = []
    for path in _python_files():
        tree = ast.parse(path.read_text(), str(path))
        wrapped = {id(a) for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "guarded"
                   for a in n.args}
        where = path.relative_to(TESTS).as_posix()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            for kw in node.keywords:
                if kw.arg == "timeout" and _number(kw.value):
                    found.append(f"{where}:{node.lineno}: timeout={ast.unparse(kw.value)}")
                if kw.arg == "deadline" and not (isinstance(kw.value, ast.Constant) and kw.value.value is None):
                    found.append(f"{where}:{node.lineno}: deadline={ast.unparse(kw.value)}")
            name = getattr(node.func, "attr", "")
            if name in ("new_page", "new_context") and id(node) not in wrapped:
                found.append(f"{where}:{node.lineno}: .{name}(...) outside guarded(...)")
            if name == "launch" and "timeout" not in {kw.arg for kw in node.keywords}:
                found.append(f"{where}:{node.lineno}: .launch(...) with playwright's own timeout")
    assert found == [], "use conftest.hang_guard (PAGE_GUARD and guarded for pages):\n" + "\n".join(found)
    assert settings().deadline is None  # every profile of conftest.py: an example slowed down is no failure
