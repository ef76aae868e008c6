"""eidomap: movement and pathfinding on tabletop-game maps made of regions (Eidos).

What a newcomer needs first, by task (the rest is in its module, on the API reference's pages):

* **Load a map**: :func:`load` (any map file, by suffix) gives a :class:`Map`; :func:`demo_map_path` and
  :func:`bundled_map_path` find the bundled maps; :func:`from_geodataframe` makes one from GeoPandas;
  :func:`load_catalog` reads a catalog of :class:`Terrain` and :class:`Species` (a :class:`Catalog`);
  :class:`MapRecord` is what a reader makes.
* **Plan** on an Eido map: :func:`route` (a :class:`Route`: the itinerary with rolls, the arrival odds without),
  :func:`reach` and :func:`reach_rolls` (a :class:`Reach`), for a species name or an :class:`Actor` built by
  :func:`actor` (riding, with companions); :func:`weight` weighs ``Map.graph`` for NetworkX.
* **Check** a map: :func:`validate` reports every problem at once; :func:`fix_map` snaps and closes what it can.
* **Pictures and pages**: :func:`explore` (an interactive map), :func:`planner` (a page that plans in the
  browser), :class:`PlannerWidget` (the same page in a notebook, its plan in traits that come back to Python);
  the figures are :mod:`eidomap.plot`'s.
* **d20**: :func:`load_grid` reads a battle grid (its answers: :mod:`eidomap.answers.grid`), :func:`travel`
  plans an overland journey (and the chapter's tables: :mod:`eidomap.answers.overland`).
* **Errors**: every error is an :class:`EidomapError`: :class:`MapError` (a map file), :class:`CatalogError`,
  :class:`RequestError` (a parameter); :class:`EidomapWarning` for what a map gets away with.

Every answer is a frozen dataclass of plain Python values (``int``, ``float``, ``bool``, ``str``, and lists and
dicts of them), with ``as_dict()`` for what ``--json`` prints.

>>> import eidomap
>>> m = eidomap.load(eidomap.demo_map_path())
>>> eidomap.route(m, "porto-norte", "aldea-do-cabo", "human", rolls=[3, 5, 2, 6, 4, 4, 1, 6]).arrival_turn
4
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eidomap.answers.routing import Reach, Route, reach, reach_rolls, route, weight
from eidomap.base.errors import CatalogError, EidomapError, EidomapWarning, MapError, RequestError
from eidomap.base.files import bundled_map_path, demo_map_path
from eidomap.base.version import __version__
from eidomap.model.frames import from_geodataframe
from eidomap.model.map import Map, load
from eidomap.record import rulesets
from eidomap.record.catalog import Catalog, Species, Terrain, load_catalog
from eidomap.record.record import MapRecord
from eidomap.rules import eido as _eido
from eidomap.rules.d20 import ruleset as _d20
from eidomap.rules.eido import Actor, actor
from eidomap.validate.checks import validate
from eidomap.validate.fix import fix_map  # (importing fix registers the svg format: drawings snapped as read)

if TYPE_CHECKING:
    from eidomap.answers.grid import load_grid
    from eidomap.answers.overland import travel
    from eidomap.pages.explore import explore
    from eidomap.pages.planner import planner
    from eidomap.pages.widget import PlannerWidget

__all__ = [  # noqa: RUF022  (by task, as the docstring says them)
    # load a map
    "load", "Map", "demo_map_path", "bundled_map_path", "from_geodataframe", "load_catalog", "Catalog", "Terrain",
    "Species", "MapRecord",
    # plan
    "route", "reach", "reach_rolls", "Route", "Reach", "actor", "Actor", "weight",
    # check
    "validate", "fix_map",
    # pictures and pages
    "explore", "planner", "PlannerWidget",
    # d20
    "load_grid", "travel",
    # errors
    "EidomapError", "MapError", "CatalogError", "RequestError", "EidomapWarning",
    "__version__",
]

def __getattr__(name: str):
    """The names imported when first used: each brings what ``import eidomap`` and the command line's
    ``route`` do without -- matplotlib and Bokeh (``explore``), the page's HTML (``planner``), anywidget
    (``PlannerWidget``), the d20 overland tables and mesh (``travel``), the battle grid's searches (``load_grid``)."""
    if name == "explore":
        from eidomap.pages.explore import explore

        return explore
    if name == "planner":
        from eidomap.pages.planner import planner

        return planner
    if name == "PlannerWidget":
        try:
            from eidomap.pages.widget import PlannerWidget
        except ImportError as exc:  # (the widget extra not installed: ``from eidomap import *`` still works)
            return _without_the_extra(exc)
        return PlannerWidget
    if name == "travel":
        from eidomap.answers.overland import travel

        return travel
    if name == "load_grid":
        from eidomap.answers.grid import load_grid

        return load_grid
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _without_the_extra(missing: ImportError) -> type:
    """``PlannerWidget`` without anywidget: the name is there, and making one raises ``missing`` (what to install)."""

    def __init__(self, *args, **kwargs):
        raise ImportError(missing.msg, name=missing.name)

    return type("PlannerWidget", (), {"__init__": __init__, "__doc__": missing.msg, "__module__": __name__})


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


# -- the rule sets a map may be drawn for (eidomap.record.rulesets) --------------------------------
rulesets.register(_eido.RULE_SET)
rulesets.register(_d20.RULE_SET)
