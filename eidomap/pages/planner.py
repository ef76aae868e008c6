"""Planner pages: click to plan on a board, in one HTML file that answers offline.

:func:`planner` writes a page for an Eido map: click an Eido or a Pousa for the
start, another for the goal, and the page plans the route for the actor chosen
in its controls (species, mount, companions, ``carry`` or ``forbid``, dice):
the itinerary for rolls typed in, the arrival distribution under the dice
without; or, from a start, where this turn can end with a roll and
P(arrived within K turns).  :func:`grid_planner` writes one for a d20 battle
grid: what this round reaches, the route round by round with each round's
action, allies and enemies placed by clicking.

The page computes every answer itself, in JavaScript, from the compiled network
and the cost tables (or the grid's squares) embedded in it as base64 typed
arrays; nothing is computed per pair in advance.  The JavaScript
(``eidomap/data/planner/*.js``) follows eidomap's own searches step for step
-- of equally good routes both take the one eidomap's tie rule names (docs/rules.md,
"Ties"), whatever order a queue settles them in -- and ``window.eidomap.route(from, to, options)`` /
``window.eidomap.reach(from, options)`` return what ``eidomap route --json`` /
``eidomap reach --json`` (``eidomap d20 route --json`` / ``d20 reach --json``)
print.  No script, style or font is fetched: the file opens from ``file://``,
offline, on a laptop or a tablet.

Data flows one way: this module reads the map, the network and the actors'
tables, and writes a page; nothing reads the page back.

>>> import eidomap
>>> page = planner(eidomap.load(eidomap.demo_map_path()), species="human")
>>> page.html.count("<script src=")
0
"""

from __future__ import annotations

import base64
import html
import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import shapely

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.names import shown
from eidomap.model.map import Map
from eidomap.pages.html import framed, save_html
from eidomap.record import rulesets
from eidomap.record.grid import Grid

__all__ = ["MAX_PAGE_EIDOS", "PlannerPage", "grid_planner", "planner"]

#: Most Eidos a planner page holds (a click stays well under a second in a browser).
MAX_PAGE_EIDOS = 200_000
#: Coordinates are stored as 16-bit steps of the map's larger side (1.5e-5 of it: finer than a screen).
_STEPS = 65535
_SCRIPTS = {"eido": ("common.js", "eido.js", "view.js", "eido_page.js"),
            "grid": ("common.js", "grid.js", "view.js", "grid_page.js")}


@dataclass
class PlannerPage:
    """A planner page: its whole HTML text.

    Shown inline in Jupyter (an isolated frame holding the same page
    :meth:`save` writes).  Made by :func:`planner` and :func:`grid_planner`.

    Attributes
    ----------
    html : str
        The page: one self-contained HTML file (its scripts, style and data inlined).
    title : str
        Its title (the ``<title>`` and the heading).
    """

    html: str
    title: str

    def to_html(self) -> str:
        """The page's HTML text (what :meth:`save` writes).

        Returns
        -------
        str
            Its ``html``.
        """
        return self.html

    def save(self, path: str | os.PathLike) -> None:
        """Write the page to ``path`` (``.html`` or ``.htm``), atomically.

        Parameters
        ----------
        path : str or PathLike
            The file, in a folder that exists (a :class:`~eidomap.base.errors.RequestError` otherwise).
        """
        save_html(self, path)

    def _repr_html_(self) -> str:
        return framed(self.html)


# -- arrays as the page reads them ------------------------------------------------------------
_DTYPES = {"u8": "<u1", "u16": "<u2", "i32": "<i4", "f64": "<f8"}


def _array(a, dtype: str) -> dict:
    """A typed array for the page: little-endian bytes in base64 (``EidomapCommon.array`` reads it)."""
    data = np.ascontiguousarray(np.asarray(a), dtype=_DTYPES[dtype]).tobytes()
    return {"dtype": dtype, "b64": base64.b64encode(data).decode("ascii")}


def _offsets(counts) -> dict:
    return _array(np.r_[0, np.cumsum(np.asarray(counts, np.int64))], "i32")


class _Quantizer:
    """Coordinates as 16-bit steps of the larger side of the map's box, from its lower left corner (the page draws
    in these steps: the same scale on both axes)."""

    def __init__(self, bounds):
        x0, y0, x1, y1 = bounds
        self.origin = (float(x0), float(y0))
        self.side = float(max(x1 - x0, y1 - y0)) or 1.0

    def __call__(self, xy: np.ndarray) -> dict:
        q = np.rint((np.asarray(xy, float).reshape(-1, 2) - self.origin) / self.side * _STEPS)
        return _array(np.clip(q, 0, _STEPS), "u16")


def _polygons(geoms, quantize: _Quantizer) -> dict:
    """Polygons as flat coordinates with ring, part and geometry offsets (holes: even-odd filling)."""
    kind, xy, offsets = shapely.to_ragged_array(shapely.force_2d(np.asarray(geoms, dtype=object)))
    ring, part = offsets[0], offsets[1]
    geom = offsets[2] if kind == shapely.GeometryType.MULTIPOLYGON else np.arange(len(part))
    return {"xy": quantize(xy), "ring": _array(ring, "i32"), "part": _array(part, "i32"), "geom": _array(geom, "i32")}


def _lines(geoms, quantize: _Quantizer) -> dict:
    """Every line of ``geoms`` (multi-part ones split) as flat coordinates and offsets."""
    from eidomap.plot.parts import line_coords

    parts = line_coords(geoms)
    xy = np.concatenate(parts) if parts else np.empty((0, 2))
    return {"xy": quantize(xy), "offsets": _offsets([len(p) for p in parts])}


def _text(obj) -> str:
    """JSON to sit inside a ``<script>`` element: no ``<``, so no map text can end the element."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")


# -- the Eido page ------------------------------------------------------------------------------
def default_species(catalog) -> str:
    """The species a page (and the notebook widget) starts with when none is given: ``human`` when the catalog has
    it, else its first."""
    return "human" if "human" in catalog.species else next(iter(catalog.species))


def eido_data(m: Map, species: str | None = None) -> dict:
    """What the Eido planner page embeds: the network, every species' cost table and the drawing.

    Parameters
    ----------
    m : Map
        An Eido map (rule set ``eido``).
    species : str, optional
        The species the page starts with (default: ``human`` when the catalog has it, else the first).

    Returns
    -------
    dict
        JSON-ready: the node ids, the compiled network and the cost tables as base64 typed arrays, the
        names, regions and colours, and the outlines quantized to 16-bit steps of the map's larger side.

    Raises
    ------
    RequestError
        For a map drawn for another rule set, an unknown ``species``, or more
        than :data:`MAX_PAGE_EIDOS` Eidos.

    See Also
    --------
    planner : The page made of it.

    Examples
    --------
    >>> import eidomap
    >>> data = eido_data(eidomap.load(eidomap.demo_map_path()))
    >>> data["default_species"], data["n_eidos"], len(data["node_ids"]) > data["n_eidos"]
    ('human', 76, True)
    """
    from matplotlib.colors import to_hex

    from eidomap.model.network import KINDS
    from eidomap.plot.parts import FOUNTAIN_COLOR, ROAD_COLOR, STREAM_COLOR, map_bounds, terrain_colors
    from eidomap.rules.actors import resolve_actor

    m, species = params.instance(m, "m", Map), params.maybe(params.text, species, "species", "a species name")
    where = shown(m.path or m.name)
    rulesets.require(m.rules, "planner", m.path or m.name)  # (a battle grid has a page of its own: grid_planner)
    n_e = len(m.eido_ids)
    if n_e > MAX_PAGE_EIDOS:
        raise RequestError(f"{where}: {n_e:,} Eidos, more than the {MAX_PAGE_EIDOS:,} a planner page holds")
    cat = m.catalog
    names = list(cat.species)
    default = species if species is not None else default_species(cat)
    cat.get_species(default)  # an unknown species: the catalog's one-line error
    net = m.network
    actors = [resolve_actor(m, s, "planner") for s in names]  # (the map's rule set's costs for each species)
    md = m.record
    quantize = _Quantizer(map_bounds(m))
    n_p = len(m.pousa_ids)
    labels = [t.label or t.name for t in cat.terrains]
    colors = [to_hex(rgba) for rgba in terrain_colors(cat, None)]
    return {
        "map": m.path.name if m.path is not None else m.name,
        "kinds": list(KINDS),
        "terrain_names": list(cat.terrain_names),
        "terrain_labels": labels,
        "terrain_colors": colors,
        "node_ids": net.node_ids.tolist(),
        "n_eidos": n_e,
        "n_pousas": n_p,
        "net": {"indptr": _array(net.indptr, "i32"), "dst": _array(net.dst, "i32"), "kind": _array(net.kind, "u8"),
                "terrain": _array(net.terrain, "i32"), "node_layer": _array(net.node_layer, "u8"),
                "node_terrain": _array(net.node_terrain, "i32")},
        "species": {"names": names, "labels": [cat.species[s].label for s in names],
                    "vmv": [a.vmv for a in actors], "tables": _array(np.concatenate(
                        [a.table.ravel() for a in actors]) if actors else np.empty(0), "f64")},
        "default_species": default,
        "names": sorted(m.display_names.items()),
        "regions": [r or "" for r in md.regions],
        "pousa_roads": [md.roads.ids[k] for k in np.asarray(md.pousa_road, np.int64).tolist()],
        "eidos": _polygons(m.geometries, quantize),
        "positions": quantize(m.positions),
        "roads": _lines(md.roads.geoms, quantize),
        "streams": _lines(md.streams.geoms, quantize),
        "fountains": quantize(shapely.get_coordinates(md.fountains.geoms)),
        "colors": {"road": ROAD_COLOR, "stream": STREAM_COLOR, "fountain": FOUNTAIN_COLOR},
    }


def planner(m: Map, species: str | None = None, *, title: str | None = None) -> PlannerPage:
    """The planner page of an Eido map (see the module docstring).

    Parameters
    ----------
    m : Map
        An Eido map (rule set ``eido``), of at most :data:`~eidomap.pages.planner.MAX_PAGE_EIDOS` Eidos.
    species : str, optional
        The species the page starts with (default: ``human`` when the catalog
        has it); every species of the map's catalog is in its controls.
    title : str, optional
        The page's title (default: the map's name).

    Returns
    -------
    PlannerPage
        The page; ``.save(path)`` writes it, Jupyter shows it inline.

    Raises
    ------
    RequestError
        For a map drawn for another rule set (a battle grid has :func:`~eidomap.pages.planner.grid_planner`), an unknown
        ``species``, or more than :data:`~eidomap.pages.planner.MAX_PAGE_EIDOS` Eidos.

    See Also
    --------
    eidomap.pages.planner.grid_planner : The page of a battle grid.
    eidomap.explore : An interactive map of one answer computed in Python.

    Examples
    --------
    >>> import eidomap
    >>> page = planner(eidomap.load(eidomap.demo_map_path()), species="horse")
    >>> page.title, '"default_species":"horse"' in page.html
    ('Illas das Marabillas (demo): planner', True)
    """
    title = params.maybe(params.text, title, "title", "text (the page's title)")
    return _page("eido", eido_data(m, species), title or f"{m.name}: planner")


# -- the battle-grid page -----------------------------------------------------------------------
def grid_data(grid: Grid, speed: int = 30) -> dict:
    """What the battle-grid planner page embeds: the squares' flags and occupants, and the speed it starts with.

    Parameters
    ----------
    grid : Grid
        A battle grid (:func:`eidomap.answers.grid.load_grid`, :func:`eidomap.answers.grid.parse_grid`).
    speed : int
        The speed (feet) the page starts with.

    Returns
    -------
    dict
        JSON-ready: the grid's file and rows, its shape, the speed, and the flags and occupants as base64
        typed arrays.

    Raises
    ------
    RequestError
        For a speed the d20 rules do not take (not a positive multiple of 5 feet).

    See Also
    --------
    grid_planner : The page made of it.

    Examples
    --------
    >>> from eidomap.answers.grid import parse_grid
    >>> data = grid_data(parse_grid("..#\\n.d."), speed=20)
    >>> data["rows"], data["cols"], data["speed"]
    (2, 3, 20)
    """
    from eidomap.rules.d20.grid import Mover

    grid = params.instance(grid, "grid", Grid, "a Grid (eidomap.answers.grid.load_grid)")
    rulesets.require(grid.rules, "grid", grid.source)  # (the page answers what answers.grid does)
    Mover(speed)  # a bad speed: the rules' one-line error
    rows, cols = grid.shape
    return {"source": str(grid.source), "row_lines": list(grid.row_lines), "rows": int(rows),
            "cols": int(cols), "speed": int(speed),
            "flags": _array(grid.flags.reshape(-1), "u8"), "occupant": _array(grid.occupant.reshape(-1), "u8")}


def grid_planner(grid: Grid | str | os.PathLike, *, speed: int = 30, title: str | None = None) -> PlannerPage:
    """The planner page of a d20 battle grid (a :class:`~eidomap.record.grid.Grid` or a grid file).

    Parameters
    ----------
    grid : Grid, str or PathLike
        The grid, or its file (read by :func:`eidomap.answers.grid.load_grid`).
    speed : int
        The speed (feet) the page starts with; its controls change it.
    title : str, optional
        The page's title (default: the grid file's name).

    Returns
    -------
    PlannerPage
        The page; ``.save(path)`` writes it, Jupyter shows it inline.

    Raises
    ------
    MapError
        For a grid file that cannot be read as a battle grid.
    RequestError
        For a speed the d20 rules do not take.

    See Also
    --------
    planner : The page of an Eido map.
    eidomap.answers.grid.reach : What the page's reach computes, in Python.

    Examples
    --------
    >>> import eidomap
    >>> page = grid_planner(eidomap.bundled_map_path("d20-battle.txt"))
    >>> page.title
    'd20-battle.txt: battle planner'
    """
    from eidomap.answers.grid import load_grid

    title = params.maybe(params.text, title, "title", "text (the page's title)")
    if not isinstance(grid, Grid):
        grid = load_grid(params.path(grid, "grid", "a Grid"))
    name = Path(grid.source).name
    return _page("grid", grid_data(grid, speed), title or f"{name}: battle planner")


# -- the page -----------------------------------------------------------------------------------
def _asset(name: str) -> str:
    return resources.files("eidomap").joinpath("data", "planner", name).read_text(encoding="utf-8")


#: What a board is called to a screen reader, by page.
_BOARDS = {"eido": "the board: arrow keys move between neighbours, Enter chooses",
           "grid": "the battle grid: arrow keys move, Enter clicks"}


def _page(kind: str, data: dict, title: str) -> PlannerPage:
    """The page: the controls and the answer's extra parts (``{kind}.html``), then the plan's buttons every page has
    (``plan.html``), around the board."""
    controls, _, extra = _asset(f"{kind}.html").partition("</form>\n")
    # (each script has an id: the hover preview's worker is made of the page's own scripts, read from the page)
    scripts = "\n".join(f'<script id="eidomap-{name.removesuffix(".js")}">\n{_asset(name)}\n</script>'
                        for name in _SCRIPTS[kind])
    page = (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n<style>\n{_asset('planner.css')}\n</style>\n</head>\n<body>\n"
            f'<h1 id="title">{html.escape(title)}</h1>\n<div id="app">\n{controls}{_asset("plan.html")}</form>\n'
            f'<div id="board"><canvas id="map" tabindex="0" role="application" aria-label="{_BOARDS[kind]}"></canvas>\n'
            '<div id="tip" hidden></div><div id="zoom"></div><div id="preview" role="status" hidden></div></div>\n'
            '<section id="answer" aria-label="the answer">\n<p id="status" role="status"></p>\n'
            f'<div id="legend"></div>\n<pre id="text"></pre>\n{extra}</section>\n</div>\n'
            f'<script type="application/json" id="eidomap-data">{_text(data)}</script>\n{scripts}\n</body>\n</html>\n')
    return PlannerPage(page, title)

