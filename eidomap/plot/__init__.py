"""Pictures of maps, routes, reachability and validation problems (matplotlib).

Every function that draws one picture takes ``ax=None`` and **returns the
Axes it drew on**, as the plotting helpers of geopandas and OSMnx do: pass an
``ax`` to draw into a figure of your own (panels, insets), or leave it out to
get a new figure sized to the map; either way, keep the returned ``ax`` to add
a title or annotations.  :func:`plot_compare` draws several panels and returns
``(fig, axes)``.  Nothing here calls ``plt.show()``.

New figures come from pyplot, so that they show in notebooks.  When no
matplotlib backend has been chosen (no ``MPLBACKEND``, no ``matplotlib.use``,
none in a matplotlibrc) the non-interactive Agg backend is selected, so that
scripts and servers never need a display.  The ``save_*`` helpers used by the
command line draw on a bare :class:`~matplotlib.figure.Figure` and do not
touch pyplot at all.

All the Eidos of a map are **one** :class:`~matplotlib.collections.PathCollection`
(one path per Eido; holes and multi-part Eidos are compound paths) built from
the coordinate arrays of :func:`shapely.to_ragged_array`, so a
100,000-Eido map draws in seconds.  Its gid is ``"eidos"`` (also the id of its
group in an SVG); the other layers are ``"regions"``, ``"roads"``,
``"pousas"``, ``"fountains"``, ``"streams"``, ``"route"`` and
``"problems-<severity>"``.

One module per kind of picture -- ``map``, ``route``, ``reach`` (with
:func:`plot_compare`), ``problems``, ``grid`` (d20 battle grids) and
``travel`` (d20 journeys) -- and every public name is here.  The interactive
maps (Bokeh) are :func:`eidomap.explore`'s (``eidomap.pages.explore``, imported only when used:
``eidomap.explore``, ``Map.explore``).

May import: :mod:`eidomap.answers` and every layer below it (the pictures draw answers).

>>> import eidomap
>>> from eidomap.plot import plot_map, plot_reach
>>> from eidomap.answers.routing import reach
>>> m = eidomap.load(eidomap.demo_map_path())
>>> ax = plot_map(m, labels=["porto-norte", "porto-sur"])
>>> ax = plot_reach(m, reach(m, "porto-sur", "human", turns=3))
>>> ax.collections[0].get_gid()
'eidos'
"""

from __future__ import annotations

from eidomap.plot.grid import plot_grid_reach, plot_grid_route, save_grid_png
from eidomap.plot.map import plot_map, save_map_png
from eidomap.plot.parts import PICTURE_FORMATS, TERRAIN_COLORS, ReachValue, eido_paths, picture_format, save_figure
from eidomap.plot.problems import plot_problems, save_problems_png
from eidomap.plot.reach import plot_compare, plot_reach, save_reach_png
from eidomap.plot.route import plot_route, save_route_png
from eidomap.plot.travel import plot_travel, save_travel_png

__all__ = [
    "PICTURE_FORMATS",
    "TERRAIN_COLORS",
    "ReachValue",
    "eido_paths",
    "picture_format",
    "plot_compare",
    "plot_grid_reach",
    "plot_grid_route",
    "plot_map",
    "plot_problems",
    "plot_reach",
    "plot_route",
    "plot_travel",
    "save_figure",
    "save_grid_png",
    "save_map_png",
    "save_problems_png",
    "save_reach_png",
    "save_route_png",
    "save_travel_png",
]
