"""The documentation site (docs/): every public name documented, and the site builds with no warning.

What a public name's docstring must hold (numpydoc sections, each a title underlined with dashes):

* A **function** (each function of the ``__all__`` of :data:`api_pages.MODULES`, and :data:`api_pages.IO_NAMES`):
  a one-line summary; ``Parameters`` naming every parameter of its signature; ``Returns`` (or ``Yields``) unless
  it is annotated ``-> None``; ``Raises`` naming what it raises of eidomap's own (:mod:`eidomap.base.errors`, its
  subclasses) or of the standard library for a bad argument -- left out only for a name of
  :data:`RAISES_NOTHING`, which says why; ``See Also`` -- left out only for a name of :data:`NO_RELATED`;
  ``Examples`` with at least one ``>>>`` line (run by pytest's ``--doctest-modules`` over eidomap/, on the
  bundled maps).
* A **method or property** of a public class: a one-line summary; a method taking parameters also
  ``Parameters`` naming each; ``Returns`` unless annotated ``-> None`` (a property's summary says what it is).
  Their examples are the class's and its functions'.
* A **class**: a one-line summary; a dataclass (the results, the records) also ``Attributes`` naming every field.
  An error, a warning or a mode (an enum) needs the summary only: what it is for.
* **Constants** are documented by their ``#:`` comment; not checked here.

A module not finished yet is listed in :data:`TODO` with the date it was listed: its checks are expected to
fail (``xfail(strict=True)``, shown in the summary), and pass the day it is done -- then strictly fail, to have
the entry removed.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import re
import subprocess
import sys
from functools import cached_property
from pathlib import Path

import pytest
from conftest import hang_guard

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from api_pages import IO_MODULES, IO_NAMES, MODULES  # noqa: E402

#: Functions that raise nothing of eidomap's own nor for a bad argument (a ``Raises`` section would be empty).
RAISES_NOTHING: dict[str, str] = {
    "eidomap.demo_map_path": "the demo map is always installed with the package",
    "eidomap.answers.overland.example_map_path": "the overland map is always installed with the package",
    "eidomap.answers.analysis.race": "two arrays of probabilities: arithmetic on them",
    "eidomap.record.rulesets.names": "the registry's names, as they are",
    "eidomap.rules.eido.species_table": "a species already in the catalog: its costs, laid out",
    # the pictures of an answer eidomap gave: drawing it raises nothing of eidomap's own
    # the defaults of validate's and fix's parameters: measures of shapes already read and checked
    "eidomap.validate.checks.inlet_width": "a default from the shapes",
    "eidomap.validate.checks.max_gap_area": "a default from the shapes",
    "eidomap.validate.checks.near_miss_distance": "a default from the shapes",
    "eidomap.validate.checks.typical_size": "a default from the shapes",
    "eidomap.plot.eido_paths": "shapes in, paths out",
    "eidomap.plot.plot_route": "draws a Route",
    "eidomap.plot.plot_grid_reach": "draws a GridReach",
    "eidomap.plot.plot_grid_route": "draws a GridRoute",
    "eidomap.plot.plot_problems": "draws a validation report",
    "eidomap.plot.plot_travel": "draws a Travel",
    "eidomap.io.readers.formats": "the registry, as it is",
    "eidomap.io.geojson.dumps_geojson": "a map already read, written out as text",
    "eidomap.pages.report.named_places": "a map already read: its features' tags and regions",
}
#: Functions with no related public name to point at.
NO_RELATED: dict[str, str] = {}
#: Modules whose docstrings do not have every section yet: listed, dated, expected to fail until done.
TODO: dict[str, str] = {}

MEMBERS = (property, cached_property, classmethod, staticmethod)
SECTION = re.compile(r"^[ \t]*([A-Z][A-Za-z ]+)\n[ \t]*-{3,}[ \t]*$", re.MULTILINE)


def sections(doc: str) -> dict[str, str]:
    """A numpydoc docstring's sections by title (the text before the first: ``""``)."""
    doc = inspect.cleandoc(doc)
    heads = list(SECTION.finditer(doc))
    out = {"": doc[: heads[0].start()] if heads else doc}
    for i, head in enumerate(heads):
        out[head.group(1).strip()] = doc[head.end(): heads[i + 1].start() if i + 1 < len(heads) else len(doc)]
    return out


def named(section: str) -> set[str]:
    """The names a Parameters, Attributes or Raises section lists (``name : type`` or ``name`` at its margin)."""
    lines = inspect.cleandoc("\n" + section.strip("\n")).splitlines() if section.strip() else []
    return {n.strip().lstrip("*") for line in lines if line and not line[0].isspace()
            for n in line.split(" : ")[0].split(",")}


def returns_none(fn) -> bool:
    return inspect.signature(fn).return_annotation in (None, "None")


def parameters(fn) -> list[str]:
    params = list(inspect.signature(fn).parameters.values())
    return [p.name for p in params if p.name not in ("self", "cls")]


def signature_problems(qualname: str, fn) -> tuple[dict[str, str], list[str]]:
    """A docstring's sections, and what they miss of the signature: each parameter named, Returns unless ``-> None``."""
    doc = inspect.getdoc(fn) or ""
    if not doc.strip():
        return {}, [f"{qualname}: no docstring"]
    s = sections(doc)
    wrong = []
    missing = set(parameters(fn)) - named(s.get("Parameters", ""))
    if missing:
        wrong.append(f"{qualname}: Parameters does not name {sorted(missing)}")
    if not returns_none(fn) and "Returns" not in s and "Yields" not in s:
        wrong.append(f"{qualname}: no Returns")
    return s, wrong


def function_problems(qualname: str, fn) -> list[str]:
    s, wrong = signature_problems(qualname, fn)
    if not s:
        return wrong
    if "Raises" not in s and qualname not in RAISES_NOTHING:
        wrong.append(f"{qualname}: no Raises")
    if "See Also" not in s and qualname not in NO_RELATED:
        wrong.append(f"{qualname}: no See Also")
    if ">>>" not in s.get("Examples", ""):
        wrong.append(f"{qualname}: no Examples with a >>> line")
    return wrong


def member_problems(qualname: str, member) -> list[str]:
    if isinstance(member, (property, cached_property)):
        fget = member.fget if isinstance(member, property) else member.func
        return [] if (inspect.getdoc(fget) or "").strip() else [f"{qualname}: no docstring"]
    return signature_problems(qualname, getattr(member, "__func__", member))[1]


def class_problems(qualname: str, cls) -> list[str]:
    doc = cls.__doc__ or ""
    if not doc.strip():
        return [f"{qualname}: no docstring"]
    wrong = []
    if dataclasses.is_dataclass(cls):
        missing = {f.name for f in dataclasses.fields(cls)} - named(sections(doc).get("Attributes", ""))
        if missing:
            wrong.append(f"{qualname}: Attributes does not name {sorted(missing)}")
    for name, member in vars(cls).items():
        if name.startswith("_") or not (inspect.isfunction(member) or isinstance(member, MEMBERS)):
            continue
        wrong += member_problems(f"{qualname}.{name}", member)
    return wrong


def module_names(module_name: str) -> list[tuple[str, object]]:
    module = importlib.import_module(module_name)
    return [(f"{module_name}.{name}", getattr(module, name)) for name in module.__all__]


def io_names() -> list[tuple[str, object]]:
    return [(name, getattr(importlib.import_module(name.rpartition(".")[0]), name.rpartition(".")[2]))
            for name in IO_NAMES]


def problems(names: list[tuple[str, object]]) -> list[str]:
    wrong = []
    for qualname, obj in names:
        if inspect.isfunction(obj):
            wrong += function_problems(qualname, obj)
        elif inspect.isclass(obj):
            wrong += class_problems(qualname, obj)
    return wrong


def _todo(name: str):
    return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=f"to do: {TODO[name]}")) if name in TODO \
        else name


@pytest.mark.parametrize("module_name", [_todo(m) for m in [*MODULES, "eidomap.io"]])
def test_public_names_have_numpydoc_sections(module_name):
    names = io_names() if module_name == "eidomap.io" else module_names(module_name)
    assert problems(names) == []


def test_the_rule_finds_what_is_missing():
    def bare(a, b=1):
        """A summary only."""

    def done(a) -> None:
        """A summary.

        Parameters
        ----------
        a : int
            Something.

        Raises
        ------
        ValueError
            Never.

        See Also
        --------
        bare

        Examples
        --------
        >>> done(1)
        """

    assert problems([("bare", bare)]) == ["bare: Parameters does not name ['a', 'b']", "bare: no Returns",
                                          "bare: no Raises", "bare: no See Also", "bare: no Examples with a >>> line"]
    assert problems([("done", done)]) == []

    @dataclasses.dataclass
    class Result:
        """A result.

        Attributes
        ----------
        x : int
            One field.
        """

        x: int
        y: int

        def total(self, scale) -> int:
            """The sum."""

    assert problems([("Result", Result)]) == ["Result: Attributes does not name ['y']",
                                              "Result.total: Parameters does not name ['scale']",
                                              "Result.total: no Returns"]


def test_site_builds_without_warnings(tmp_path):
    """The site as CI builds it: ``python -m sphinx -W --keep-going -b html docs OUT`` (warnings are errors, every
    cross-reference checked), the gallery's scripts run; then its generated pages are looked at."""
    for module in ("sphinx", "pydata_sphinx_theme", "myst_nb", "sphinx_gallery", "numpydoc"):
        pytest.importorskip(module, reason='the docs extra is not installed (pip install -e ".[docs]")')
    out = tmp_path / "html"
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                          "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(out)],
                         capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "Agg"},
                         timeout=hang_guard(120))
    assert run.returncode == 0, run.stderr[-4000:]
    cli = (out / "cli.html").read_text(encoding="utf-8")
    from eidomap.cli import build_parser
    from eidomap.cli._common import COMMANDS, GROUPS

    parser = build_parser()
    commands = [[c] for c in COMMANDS] + [[g, c] for g, (_, table) in GROUPS.items() for c in table]
    for words in commands:
        sub = parser
        for w in words:
            sub = next(a for a in sub._actions if a.dest in ("command", "subcommand")).choices[w]
        assert f'id="cli-eidomap-{"-".join(words)}"' in cli, words
        for action in sub._actions:
            for option in action.option_strings:
                assert option in cli, (words, option)
    gallery = sorted((ROOT / "docs" / "gallery").glob("plot_*.py"))
    assert len(gallery) >= 7
    for script in gallery:
        page = (out / "auto_examples" / f"{script.stem}.html").read_text(encoding="utf-8")
        assert f"sphx_glr_{script.stem}_001.png" in page, script.name
    for name in ("answers.routing.route", "answers.grid.reach", "answers.overland.travel", "base.errors.MapError",
                 "io.readers.read_map"):
        assert list(out.glob(f"api/generated/**/eidomap.{name}.html")), name
    for module in MODULES:  # each module's page, an entry (a page of its own, or a constant's) for each public name
        page = (out / "api" / "generated" / f"{module}.html").read_text(encoding="utf-8")
        entries = set(re.findall(r'(?:href="names/|id=")([\w.]+?)(?:\.html)?"', page))
        missing = [name for name in importlib.import_module(module).__all__ if f"{module}.{name}" not in entries]
        assert not missing, (module, missing)
    assert 'src="_images/planner.png"' in (out / "index.html").read_text(encoding="utf-8")
    validation = (out / "validation.html").read_text(encoding="utf-8")  # each SARIF rule's helpUri lands on its row
    from eidomap.validate.checks import CODES
    from eidomap.validate.formats import help_uri

    assert [c for c in CODES if f'id="{help_uri(c).partition("#")[2]}"' not in validation] == []
    # issue 46: the command-line page's "Section Navigation" was empty (its section had no pages but itself)
    empty = []
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        nav = re.search(r'aria-label="Section Navigation">(.*?)</nav>', text, re.S)
        if nav is not None and 'href="' not in nav[1]:
            empty.append(page.relative_to(out).as_posix())
    assert empty == [], empty


def test_every_public_module_has_its_page_and_every_name_of_its_all_an_entry():
    """Issue 46: the API reference had no page for eidomap.pages.planner (which docs/plotting.md documents),
    eidomap.pages.report or eidomap.model.frames.  Every module of the package's top level has its page
    (``api_pages.MODULES``) or is listed in ``api_pages.INTERNAL`` with why; each page lists every name of its
    module's ``__all__`` (the built site's pages: :func:`test_site_builds_without_warnings`)."""
    import pkgutil

    from api_pages import INTERNAL, module_page

    import eidomap

    found = {m.name for m in pkgutil.walk_packages(eidomap.__path__, "eidomap.")
             if not any(part.startswith("_") for part in m.name.split(".")[1:])}
    layers = {n for n in found if n.count(".") <= 2}  # (a layer, and its modules and packages)

    def covered(name: str) -> bool:
        return name in MODULES or any(name == k or name.startswith(k + ".") for k in INTERNAL)

    assert sorted(n for n in layers if not covered(n)) == []
    assert sorted(set(INTERNAL) - found) == [] and sorted(set(INTERNAL) & set(MODULES)) == []
    for module in MODULES:
        text = module_page(module)
        listed = re.findall(r"^   (\w+)$", text, re.M) + re.findall(r"^\.\. autodata:: (\w+)$", text, re.M)
        assert sorted(listed) == sorted(importlib.import_module(module).__all__), module


def test_landing_page_commands_are_the_readmes():
    """The landing page's set-up commands are the README's, word for word (the README is what is kept up to date)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "docs" / "index.md").read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 2
    for block in blocks:
        assert f"```sh\n{block}```" in readme, block


def _modules() -> list[str]:
    """Every module of the package (``__main__`` runs the command line when imported: left out)."""
    import pkgutil

    import eidomap

    return ["eidomap", *(m.name for m in pkgutil.walk_packages(eidomap.__path__, "eidomap.")
                         if m.name != "eidomap.__main__")]


def test_a_module_has_an_all_exactly_when_the_api_reference_documents_it():
    """Issue 47: 602 names in the modules' ``__all__`` lists, most of them on no page.  ``__all__`` is the API
    reference's: a module of :data:`api_pages.MODULES` or :data:`api_pages.IO_MODULES` has one, the names its page
    lists (:func:`test_every_public_module_has_its_page_and_every_name_of_its_all_an_entry`); an inner module has
    none -- its names are reached by their module's path, as the layers allow (tests/test_layers.py)."""
    documented = {*MODULES, *IO_MODULES}
    with_all = {m for m in _modules() if hasattr(importlib.import_module(m), "__all__")}
    assert sorted(with_all - documented) == [] and sorted(documented - with_all) == []
    for module in documented:
        names = importlib.import_module(module).__all__
        assert len(set(names)) == len(names) and all(hasattr(importlib.import_module(module), n) for n in names), module


def test_the_exceptions_to_the_sections_name_public_functions():
    """An entry of :data:`RAISES_NOTHING` or :data:`NO_RELATED` names a function the reference documents (an entry
    left behind by a name that left the reference is removed with it)."""
    public = {name for module in MODULES for name, _ in module_names(module)} | set(IO_NAMES)
    assert sorted({*RAISES_NOTHING, *NO_RELATED} - public) == []


#: The names of ``eidomap``'s root, by task (its docstring says them in this order): what a newcomer needs first.
ROOT_TASKS = {
    "load a map": {"load", "Map", "demo_map_path", "bundled_map_path", "from_geodataframe", "load_catalog", "Catalog",
                   "Terrain", "Species", "MapRecord"},
    "plan": {"route", "reach", "reach_rolls", "Route", "Reach", "actor", "Actor", "weight"},
    "check": {"validate", "fix_map"},
    "pictures and pages": {"explore", "planner", "PlannerWidget"},
    "d20": {"load_grid", "travel"},
    "errors": {"EidomapError", "MapError", "CatalogError", "RequestError", "EidomapWarning"},
}


def test_the_root_offers_what_a_newcomer_needs_first_by_task():
    """Issue 47: ``eidomap.__all__`` had ``weight`` but not ``route`` nor ``reach``.  At most 40 names, each task's;
    every one is the object its module documents (the root's page shows the same functions, classes and errors)."""
    import eidomap

    assert len(eidomap.__all__) <= 40
    assert set(eidomap.__all__) == set().union(*ROOT_TASKS.values()) | {"__version__"}
    from eidomap.answers import grid, overland, routing
    from eidomap.pages import explore, planner, widget
    from eidomap.validate import checks, fix

    assert (eidomap.route, eidomap.reach, eidomap.Route) == (routing.route, routing.reach, routing.Route)
    assert (eidomap.validate, eidomap.fix_map) == (checks.validate, fix.fix_map)
    assert (eidomap.explore, eidomap.planner, eidomap.PlannerWidget) == (explore.explore, planner.planner,
                                                                         widget.PlannerWidget)
    assert (eidomap.travel, eidomap.load_grid) == (overland.travel, grid.load_grid)
    assert set(eidomap.__all__) <= set(dir(eidomap))


def test_the_root_imports_the_heavy_modules_when_first_used():
    """``import eidomap`` (and so every command) brings neither matplotlib nor Bokeh, nor the page, anywidget, the
    d20 overland rules or the battle grid's searches: ``explore``, ``planner``, ``PlannerWidget``, ``travel`` and
    ``load_grid`` are imported when first used."""
    lazy = ("matplotlib", "bokeh", "eidomap.pages.explore", "eidomap.pages.planner", "anywidget",
            "eidomap.pages.widget", "eidomap.answers.overland", "eidomap.answers.grid")
    code = (f"import sys, eidomap; print([m for m in {lazy!r} if m in sys.modules]); eidomap.travel, eidomap.load_grid;"
            " print('eidomap.answers.overland' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=hang_guard(60))
    assert run.stdout.split("\n")[:2] == ["[]", "True"], run.stderr


def test_the_validate_function_is_not_shadowed_by_its_layer():
    """``eidomap.validate`` is the function, though ``eidomap/validate/`` is the checks' layer: a module of the layer
    imported later (``eidomap validate --watch`` imports ``eidomap.validate.watch`` when asked) leaves it so."""
    code = ("import eidomap, eidomap.validate.watch, eidomap.validate.formats;"
            " from eidomap.validate.checks import validate; print(eidomap.validate is validate)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=hang_guard(60))
    assert run.stdout.strip() == "True", run.stderr


def test_the_usage_docs_validation_gives_is_the_commands_own(capsys):
    """docs/validation.md writes the usage of validate and fix: each option there is the command's, its value named
    as --help names it."""
    from eidomap.cli import main as cli_main

    text = (ROOT / "docs" / "validation.md").read_text()
    for cmd in ("validate", "fix"):
        usage = next(line for line in text.splitlines() if line.startswith(f"eidomap {cmd} MAP"))
        with pytest.raises(SystemExit):
            cli_main([cmd, "--help"])
        helped = " ".join(capsys.readouterr().out.split())
        for option in re.findall(r"\[(--[a-z-]+ [A-Z][A-Z,.]*)\]", usage):
            assert option in helped, (cmd, option)
