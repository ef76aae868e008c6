"""eidomap: movement and pathfinding on tabletop-game maps made of regions (Eidos).

>>> import eidomap
>>> m = eidomap.load(eidomap.demo_map_path())
>>> m.rules
'eido'
"""

from __future__ import annotations

from eidomap._version import __version__
from eidomap.answers.routing import weight
from eidomap.base.errors import CatalogError, EidomapError, EidomapWarning, MapError, RequestError
from eidomap.base.files import bundled_map_path, demo_map_path
from eidomap.model.frames import from_geodataframe
from eidomap.model.map import Map, load
from eidomap.record import rulesets
from eidomap.record.catalog import Catalog, Species, Terrain, load_catalog
from eidomap.record.record import MapRecord
from eidomap.rules import eido as _eido
from eidomap.rules.d20 import ruleset as _d20
from eidomap.validate import fix as _fix  # noqa: F401  (registers the svg format: drawings snapped as they are read)

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
        from eidomap.pages.explore import explore

        return explore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- the rule sets a map may be drawn for (eidomap.record.rulesets) --------------------------------
rulesets.register(_eido.RULE_SET)
rulesets.register(_d20.RULE_SET)
