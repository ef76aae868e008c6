"""The API reference's pages: one per public module, listing its ``__all__``, written before Sphinx reads.

:data:`MODULES` and :data:`IO_MODULES` are what the site documents and what tests/test_docs.py checks: each public
function there has the numpydoc sections, each class its summary.  A module has an ``__all__`` exactly when it is
one of them, and its ``__all__`` is what its page lists (docs/design.md, "The public surface").  The pages go to
``docs/api/generated/`` (in .gitignore); autosummary then writes a page per name in ``names/`` below.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

#: The public modules, each documented by its ``__all__``.
MODULES = [
    "eidomap", "eidomap.answers.routing", "eidomap.answers.analysis", "eidomap.answers.grid",
    "eidomap.answers.overland", "eidomap.plot", "eidomap.pages.planner", "eidomap.pages.report",
    "eidomap.model.frames", "eidomap.validate.checks", "eidomap.base.problems", "eidomap.validate.fix",
    "eidomap.answers.batch", "eidomap.record.rulesets", "eidomap.base.modes", "eidomap.base.errors",
    "eidomap.rules.eido", "eidomap.rules.actors",
]
#: The modules of the package's top level with no page of their own, and why: how the public ones work inside,
#: or reached through a page (tests/test_docs.py holds every other module of the top level to a page).
INTERNAL = {
    "eidomap.answers": "the answers' layer: each of its modules has its page",
    "eidomap.base": "the base layer: errors and modes have their pages; the rest checks and reads what eidomap is"
                    " given",
    "eidomap.model": "the Map (on eidomap's page) and what it computes; frames has its page",
    "eidomap.model.borders": "the topology's compiled loops",
    "eidomap.pages": "the pages' layer: planner, report and explore have their pages; widget's PlannerWidget is"
                     " on eidomap's",
    "eidomap.pages.explore": "eidomap.explore, on eidomap's page, and the map it makes",
    "eidomap.pages.html": "what the pages share: where a page may be written, how a notebook shows it",
    "eidomap.plot.grid": "on eidomap.plot's page (every public name of plot is there)",
    "eidomap.plot.map": "on eidomap.plot's page (every public name of plot is there)",
    "eidomap.plot.placement": "labels placed by eidomap.plot's pictures",
    "eidomap.plot.parts": "what the pictures of eidomap.plot and the pages share (figures, colours, titles); its"
                          " names for users are on eidomap.plot's page",
    "eidomap.plot.problems": "on eidomap.plot's page (every public name of plot is there)",
    "eidomap.plot.reach": "on eidomap.plot's page (every public name of plot is there)",
    "eidomap.plot.route": "on eidomap.plot's page (every public name of plot is there)",
    "eidomap.plot.travel": "on eidomap.plot's page (every public name of plot is there)",
    "eidomap.record": "the map record's layer: MapRecord and the catalog on eidomap's page; rulesets has its page",
    "eidomap.record.grid": "the battle grid's squares: Grid and grid_from_array on eidomap.answers.grid's page",
    "eidomap.record.rings": "the ring check under the readers",
    "eidomap.validate": "the checks' layer: validate (checks) and fix have their pages",
    "eidomap.model.cache": "a map's cache file, which eidomap.load(cache=True) and the command line's --cache keep",
    "eidomap.record.catalog": "its public names are eidomap's own (Catalog, Species, Terrain, load_catalog): on its"
                              " page",
    "eidomap.cli": "the command line: its page is the command-line reference (cli.md)",
    "eidomap.model.generate": "the engine of the command `eidomap generate` (on the command-line page) and of the"
                              " tests",
    "eidomap.record.geometry": "plain geometry under the readers and the topology",
    "eidomap.model.network": "the compiled network inside a Map (Map.network; Map.graph for NetworkX)",
    "eidomap.io": "the readers and writers: its page lists them (IO_NAMES), the rest is how they work",
    "eidomap.model.map": "Map and load: on eidomap's page",
    "eidomap.base.names": "the 'did you mean' of the messages",
    "eidomap.base.params": "the checks of a caller's parameters behind every public function (their errors name them)",
    "eidomap.base.progress": "the command line's progress bar",
    "eidomap.record.record": "what a reader makes (MapRecord, on eidomap's page), read through a Map",
    "eidomap.rules": "eidomap.rules.eido and eidomap.rules.actors have their pages; the d20 rules are"
                     " eidomap.answers.grid's and eidomap.answers.overland's",
    "eidomap.search": "the searches under eidomap.answers.routing, eidomap.answers.analysis, eidomap.answers.batch"
                      " and eidomap.answers.grid",
    "eidomap.model.topology": "the adjacency inside a Map (Map.pairs, Map.neighbors)",
    "eidomap.validate.formats": "the SARIF and GitHub outputs of `eidomap validate --format` (on the command-line"
                                " page and in validation.md)",
    "eidomap.validate.watch": "`eidomap validate --watch` (on the command-line page)",
    "eidomap.validate.board": "the geometry validate checks and fix repairs; its defaults (typical_size,"
                              " near_miss_distance, inlet_width, max_gap_area) on eidomap.validate.checks' page",
    "eidomap.validate.features": "the feature checks gathered by validate (on eidomap.validate.checks' page)",
    "eidomap.validate.reach": "the reach check gathered by validate (on eidomap.validate.checks' page)",
}
#: The modules of ``eidomap.io`` whose readers and writers its page lists, each by its ``__all__`` (the rest of
#: ``eidomap.io`` is how they work inside).
IO_MODULES = ["eidomap.io.readers", "eidomap.io.geojson", "eidomap.io.grid", "eidomap.io.tiled", "eidomap.io.svg"]
#: ``eidomap.io``'s page: its readers and writers, by their dotted names.
IO_NAMES = [f"{m}.{name}" for m in IO_MODULES for name in importlib.import_module(m).__all__]

SECTIONS = [("Functions", inspect.isfunction),
            ("Errors and warnings", lambda o: inspect.isclass(o) and issubclass(o, BaseException)),
            ("Classes", inspect.isclass)]


def public_names(module_name: str) -> dict[str, list[str]]:
    """A module's ``__all__`` by section (functions, errors, classes, constants), in the order of ``__all__``."""
    module = importlib.import_module(module_name)
    out: dict[str, list[str]] = {title: [] for title, _ in SECTIONS} | {"Constants": []}
    for name in module.__all__:
        obj = getattr(module, name)
        title = next((t for t, test in SECTIONS if test(obj)), "Constants")
        out[title].append(name)
    return out


def module_page(module_name: str) -> str:
    lines = [module_name, "=" * len(module_name), "", f".. automodule:: {module_name}", "   :no-members:", "",
             f".. currentmodule:: {module_name}", ""]
    for title, names in public_names(module_name).items():
        if not names:
            continue
        lines += [f".. rubric:: {title}", ""]
        if title == "Constants":
            lines += [line for name in names for line in (f".. autodata:: {name}", "   :no-value:", "")]
        else:
            lines += _autosummary(names)
    return "\n".join(lines)


def io_page() -> str:
    title = "eidomap.io: reading and writing maps"
    return "\n".join([title, "=" * len(title), "", "The readers and writers of the map formats; :func:`eidomap.load`"
                      " and :func:`eidomap.io.readers.read_map` choose among them by the file's suffix. The rest of"
                      " ``eidomap.io`` is how they work inside.", "", *_autosummary(IO_NAMES)])


def _autosummary(names: list[str]) -> list[str]:
    return [".. autosummary::", "   :toctree: names", "   :nosignatures:", "", *(f"   {n}" for n in names), ""]


def _named(dotted: str) -> object:
    """The object a dotted name documented by the reference names (a module's attribute)."""
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name, None)


def write_pages(folder: Path) -> None:
    """Write the module pages into ``folder``, and remove what an earlier build wrote there for a module or a name
    the reference no longer has (autosummary's pages of names, ``names/``, are written again from these)."""
    folder.mkdir(parents=True, exist_ok=True)
    pages = dict([*((m, module_page(m)) for m in MODULES), ("eidomap.io", io_page())])
    for stale in folder.glob("*.rst"):
        if stale.stem not in pages:
            stale.unlink()
    names = folder / "names"
    if names.is_dir():  # (names of a module that moved or went: a page no toctree includes is a warning)
        listed = {n if "." in n else f"{m}.{n}" for m, text in pages.items()
                  for n in re.findall(r"^   ([\w.]+)$", text, re.M)}
        for stale in names.glob("*.rst"):
            parent = stale.stem.rpartition(".")[0]  # (a class's members have pages of their own)
            if stale.stem not in listed and not (parent in listed and isinstance(_named(parent), type)):
                stale.unlink()
    for name, text in pages.items():
        page = folder / f"{name}.rst"
        if not page.is_file() or page.read_text(encoding="utf-8") != text:  # unchanged pages stay unchanged
            page.write_text(text, encoding="utf-8")
