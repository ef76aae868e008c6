"""eidomap: movement and pathfinding on tabletop-game maps made of regions (Eidos).

>>> import eidomap
>>> m = eidomap.load(eidomap.demo_map_path())
>>> m.rules
'eido'
"""

from __future__ import annotations

from pathlib import Path

from ._version import __version__
from .catalog import Catalog, Species, Terrain, load_catalog
from .errors import CatalogError, EidomapError, MapError, RequestError
from .geo import from_geodataframe
from .model import Map, load
from .routing import weight

__all__ = [
    "Catalog",
    "CatalogError",
    "EidomapError",
    "Map",
    "MapError",
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
        from .plot.explore import explore

        return explore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def bundled_map_path(name: str) -> Path:
    """Path of a map (or grid, or catalog) shipped with eidomap: ``demo.geojson``, ``demo-catalog.toml``,
    ``d20-overland.geojson``, ``d20-battle.txt``.

    Installed as package data (``eidomap/maps/``); in a source checkout or an
    editable install, ``maps/<name>``.
    """
    here = Path(__file__).resolve().parent
    if Path(name).name == name:
        for candidate in (here / "maps" / name, here.parent / "maps" / name):
            if candidate.is_file():
                return candidate
    raise FileNotFoundError(f"the map {name} is not installed with this copy of eidomap")


def demo_map_path() -> Path:
    """Path of the bundled demo map (``maps/demo.geojson`` in a source checkout)."""
    return bundled_map_path("demo.geojson")
