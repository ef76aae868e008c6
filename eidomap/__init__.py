"""eidomap: movement and pathfinding on tabletop-game maps made of regions (Eidos).

>>> import eidomap
>>> m = eidomap.load(eidomap.demo_map_path())
>>> m.rules
'eido'
"""

from __future__ import annotations

from pathlib import Path

from eidomap import frames, hooks, params, routing, rulesets
from eidomap._version import __version__
from eidomap.catalog import Catalog, Species, Terrain, load_catalog
from eidomap.errors import CatalogError, EidomapError, EidomapWarning, MapError, RequestError
from eidomap.frames import from_geodataframe
from eidomap.model import Map, load
from eidomap.modes import Partial
from eidomap.names import shown
from eidomap.record import MapRecord
from eidomap.routing import weight
from eidomap.rules import eido as _eido
from eidomap.rules.d20 import ruleset as _d20

__all__ = [
    "Catalog",
    "CatalogError",
    "EidomapError",
    "EidomapWarning",
    "Map",
    "MapError",
    "MapRecord",
    "RequestError",
    "Species",
    "Terrain",
    "__version__",
    "bundled_map_path",
    "demo_map_path",
    "explore",
    "from_geodataframe",
    "load",
    "load_catalog",
    "weight",
]


def __getattr__(name: str):
    """``eidomap.explore``, imported when first used: it brings matplotlib, which ``eidomap route`` does without."""
    if name == "explore":
        from eidomap.plot.explore import explore

        return explore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- what the layers above lend the Map facade and the readers (eidomap.hooks) --------
def _graph_for(m: Map, who, partial: str):
    carry = Partial.checked(partial, "partial").carry
    return m.weighted_graph(routing.plan_weights(m, routing.resolve_actor(m, who), carry))


def _explore(m: Map, **kwargs):
    from eidomap.plot.explore import explore  # (matplotlib and Bokeh: imported when first used)

    return explore(m, **kwargs)


def _planner(m: Map, **kwargs):
    from eidomap.planner import planner  # (matplotlib's colours: imported when first used)

    return planner(m, **kwargs)


def _snap_borders(doc: dict, catalog, warnings: list[str]) -> None:
    from eidomap.fix import snap_borders  # (the validation: imported when an SVG drawing is first read)

    snap_borders(doc, catalog, warnings)


hooks.register("graph_for", _graph_for)
hooks.register("to_geodataframe", frames.to_geodataframe)
hooks.register("explore", _explore)
hooks.register("planner", _planner)
hooks.register("snap_borders", _snap_borders)
# -- the rule sets a map may be drawn for (eidomap.rulesets) --------------------------------
rulesets.register(_eido.RULE_SET)
rulesets.register(_d20.RULE_SET)


def bundled_map_path(name: str) -> Path:
    """Path of a map (or grid, or catalog) shipped with eidomap.

    Installed as package data (``eidomap/maps/``); in a source checkout or an editable install,
    ``maps/<name>``.

    Parameters
    ----------
    name : str
        ``demo.geojson``, ``demo-catalog.toml``, ``d20-overland.geojson`` or ``d20-battle.txt``.

    Returns
    -------
    Path
        The file.

    Raises
    ------
    FileNotFoundError
        When no such file is installed (or ``name`` is a path, not a file name).

    See Also
    --------
    demo_map_path : The demo map's.
    eidomap.overland.example_map_path : The overland map's.

    Examples
    --------
    >>> import eidomap
    >>> eidomap.bundled_map_path("d20-battle.txt").name
    'd20-battle.txt'
    """
    here = Path(__file__).resolve().parent
    if Path(params.text(name, "name", "text (a file name)")).name == name:
        for candidate in (here / "maps" / name, here.parent / "maps" / name):
            if candidate.is_file():
                return candidate
    raise FileNotFoundError(f"the map {shown(name)} is not installed with this copy of eidomap")


def demo_map_path() -> Path:
    """Path of the bundled demo map (``maps/demo.geojson`` in a source checkout).

    Returns
    -------
    Path
        The demo map, *Illas das Marabillas*: 76 Eidos, two roads, three fountains.

    See Also
    --------
    bundled_map_path : The other bundled maps.
    load : Read it.

    Examples
    --------
    >>> import eidomap
    >>> eidomap.load(eidomap.demo_map_path()).name
    'Illas das Marabillas (demo)'
    """
    return bundled_map_path("demo.geojson")
