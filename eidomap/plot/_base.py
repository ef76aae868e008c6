"""The matplotlib pictures that :mod:`eidomap.plot` re-exports."""

from __future__ import annotations

import io
import math
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import shapely
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import BoundaryNorm, Colormap, Normalize, to_rgba, to_rgba_array
from matplotlib.figure import Figure, FigureBase
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.path import Path as MplPath
from matplotlib.patheffects import withStroke
from matplotlib.ticker import MaxNLocator

from .._placement import place_labels
from ..errors import RequestError
from ..io.files import write_atomic
from ..names import did_you_mean
from ..problems import ERROR, WARNING

#: Fill colour of each known terrain; a catalog's own terrains get colours of ``tab20``.
TERRAIN_COLORS = {
    "sea": "#3d7fc1",
    "lake": "#63a9e0",
    "air": "#dcefff",
    "meadow": "#b7df8e",
    "scrub": "#cdd16a",
    "forest": "#2e6b35",
    "rocks": "#a6a6a6",
    "rocky_cliff": "#7b6d62",
    "marsh": "#8d8f4c",
    "mountain": "#8a5a2e",
    "desert": "#ead49b",
    "hills": "#b9a063",
    "jungle": "#1f5a2b",
    "moor": "#8f7b9f",
    "mountains": "#9c6b3e",
    "plains": "#dbe8a4",
    "swamp": "#5d6a3a",
    "tundra": "#dfe7ea",
}
#: Picture formats written, by file suffix.
PICTURE_FORMATS = {".png": "png", ".svg": "svg"}

_ROAD = "#6d3f17"
_STREAM = "#0d47a1"
_FOUNTAIN = "#29b6f6"
_UNREACHED = "#d9d9d9"
_SEVERITY = {ERROR: ("#d62728", "X"), WARNING: ("#ff8c00", "^")}
_OTHER_SEVERITY = ("#555555", "o")
_HALO = [withStroke(linewidth=2.5, foreground="white")]
_REACH_VALUES = ("p_within", "arrival_turn", "debt")
_JUMPS = ("teleport_exit", "stream")
#: Turns shown one by one in a route's legend.
_LEGEND_TURNS = 12

_PATHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# -- figures and files ------------------------------------------------------------
def _pyplot():
    """``matplotlib.pyplot``, on the Agg backend if no backend has been chosen."""
    import matplotlib

    if matplotlib.rcParams._get_backend_or_none() is None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _extent(m) -> tuple[float, float, float, float] | None:
    """Bounds of everything the map holds; None when it holds nothing."""
    md = m.data
    layers = [md.eidos.geoms, md.roads.geoms, md.pousas.geoms, md.fountains.geoms, md.streams.geoms]
    geoms = np.concatenate([np.asarray(g, dtype=object) for g in layers])
    if len(geoms) == 0:
        return None
    b = shapely.total_bounds(geoms)
    return tuple(float(v) for v in b) if np.isfinite(b).all() else None


def _bounds(m) -> tuple[float, float, float, float]:
    return _extent(m) or (0.0, 0.0, 1.0, 1.0)


def _figsize(m, width: float = 8.0) -> tuple[float, float]:
    x0, y0, x1, y1 = _bounds(m)
    return width, float(np.clip(width * (y1 - y0) / max(x1 - x0, 1e-300), 3.0, 14.0))


def _axes(ax, m):
    if ax is not None:
        return ax
    _, ax = _pyplot().subplots(figsize=_figsize(m))
    return ax


def _frame(ax, bounds, margin: float = 0.02) -> None:
    x0, y0, x1, y1 = bounds
    pad = margin * max(x1 - x0, y1 - y0) or 1.0
    ax.set_xlim(x0 - pad, x1 + pad)
    ax.set_ylim(y0 - pad, y1 + pad)
    ax.set_aspect("equal")
    ax.set_axis_off()


def picture_format(path) -> str:
    """The format a picture is written in, from its suffix; :class:`RequestError` otherwise."""
    p = Path(path)
    fmt = PICTURE_FORMATS.get(p.suffix.lower())
    if fmt is None:
        got = repr(p.suffix) if p.suffix else "no suffix"
        raise RequestError(f"{path}: a picture must be a .png or .svg file, got {got}")
    if not p.absolute().parent.is_dir():
        raise RequestError(f"{path}: the folder {str(p.absolute().parent)!r} does not exist")
    return fmt


def save_figure(ax_or_fig, path, *, dpi: int = 150) -> None:
    """Write the figure of ``ax_or_fig`` (an Axes, a Figure or an array of Axes) to ``path``.

    PNG or SVG by the file's suffix (any other suffix: :class:`RequestError`).
    The file is written atomically (through a temporary file in the same
    folder); nothing else is created.
    """
    fmt = picture_format(path)
    obj = ax_or_fig
    if isinstance(obj, np.ndarray | list | tuple):
        obj = np.ravel(np.asarray(obj, dtype=object))[0]
    fig = (obj if isinstance(obj, FigureBase) else obj.figure).figure
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=dpi, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None)
    write_atomic(path, buf.getvalue())


def _save(m, path, draw: Callable) -> None:
    picture_format(path)
    fig = Figure(figsize=_figsize(m))
    draw(fig.add_subplot())
    save_figure(fig, path)


def save_map_png(m, path, *, labels=False) -> None:
    """Draw ``m`` with :func:`plot_map` and write it (PNG or SVG by suffix)."""
    _save(m, path, lambda ax: plot_map(m, ax, labels=labels))


def save_route_png(m, route, path) -> None:
    """Draw ``route`` with :func:`plot_route` (zoomed on it) and write it (PNG or SVG by suffix)."""
    _save(m, path, lambda ax: plot_route(m, route, ax, zoom=True))


def save_reach_png(m, reach, path) -> None:
    """Draw ``reach`` with :func:`plot_reach` and write it (PNG or SVG by suffix)."""
    _save(m, path, lambda ax: plot_reach(m, reach, ax))


# -- geometry to artists ----------------------------------------------------------------
def eido_paths(geoms) -> list[MplPath]:
    """One matplotlib path per polygon or multipolygon, ready for a PathCollection.

    Every ring is a closed sub-path; exteriors are wound counter-clockwise and
    holes clockwise (matplotlib fills by the non-zero rule), so holes stay
    empty and the parts of a multipolygon are all filled.  Built from the
    flat coordinate arrays of :func:`shapely.to_ragged_array`.
    """
    geoms = np.asarray(geoms, dtype=object)
    if len(geoms) == 0:
        return []
    _, xy, offsets = shapely.to_ragged_array(shapely.orient_polygons(geoms))
    xy = xy[:, :2]
    ring_off = offsets[0]
    first = offsets[-1]  # geometry -> first part / ring -> first coordinate
    for off in offsets[-2::-1]:
        first = off[first]
    codes = np.full(len(xy), MplPath.LINETO, dtype=MplPath.code_type)
    codes[ring_off[:-1]] = MplPath.MOVETO
    codes[ring_off[1:] - 1] = MplPath.CLOSEPOLY
    cuts = first[1:-1]
    return [MplPath(v, c) for v, c in zip(np.split(xy, cuts), np.split(codes, cuts), strict=True)]


def _paths(m) -> list[MplPath]:
    """The Eidos' paths, kept while the map lives (panels and repeated plots reuse them)."""
    paths = _PATHS.get(m)
    if paths is None:
        paths = _PATHS[m] = eido_paths(m.geometries)
    return paths


def _line_coords(geoms) -> list[np.ndarray]:
    """Vertex arrays of every line and ring in ``geoms`` (multi-part geometries split)."""
    parts = shapely.get_parts(np.asarray(geoms, dtype=object))
    kind = shapely.get_type_id(parts)
    parts = parts[(kind == shapely.GeometryType.LINESTRING) | (kind == shapely.GeometryType.LINEARRING)]
    if len(parts) == 0:
        return []
    xy, which = shapely.get_coordinates(parts, return_index=True)
    return np.split(xy, np.flatnonzero(np.diff(which)) + 1)


def _scale(m) -> float:
    """Line and marker scale: 1 on small maps, thinner as the Eidos get smaller."""
    return float(np.clip(math.sqrt(500 / max(len(m.eido_ids), 1)), 0.15, 1.0))


def _ids(m) -> np.ndarray:
    """Ids of the rows of ``m.positions``: the Eidos, then the Pousas."""
    return np.asarray([*m.eido_ids, *m.data.pousas.ids], dtype=str)


def _index_of(ids: np.ndarray, keys) -> np.ndarray:
    """Position of each key in ``ids`` (-1 where absent), by binary search."""
    keys = np.asarray(list(keys), dtype=str)
    if len(keys) == 0 or len(ids) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    pos = np.searchsorted(ids[order], keys).clip(0, len(ids) - 1)
    return np.where(ids[order][pos] == keys, order[pos], -1)


def _xy(m, names) -> np.ndarray:
    """Drawing position of each named Eido or Pousa; NaN for anything else (the teleport hub)."""
    k = _index_of(_ids(m), names)
    xy = np.full((len(k), 2), np.nan)
    xy[k >= 0] = m.positions[k[k >= 0]]
    return xy


def _values(m, mapping: dict) -> np.ndarray:
    """A per-Eido array of ``mapping``'s values (keyed by Eido id); NaN where absent."""
    out = np.full(len(m.eido_ids), np.nan)
    k = _index_of(np.asarray(m.eido_ids, dtype=str), mapping.keys())
    vals = np.fromiter(mapping.values(), dtype=float, count=len(mapping))
    out[k[k >= 0]] = vals[k >= 0]
    return out


def _eidos(ax, m, *, facecolors=None, values=None, cmap=None, norm=None, alpha=None, linewidth=None,
           edgecolor="#333333", subset=None) -> PathCollection:
    """Add the Eidos (or ``subset`` of them) as one PathCollection."""
    paths = _paths(m)
    if subset is not None:
        paths = [paths[k] for k in subset]
    coll = PathCollection(paths, edgecolors=edgecolor, zorder=1,
                          linewidths=0.6 * _scale(m) if linewidth is None else linewidth)
    if values is not None:
        coll.set_array(values)
        coll.set_cmap(cmap)
        coll.set_norm(norm)
    else:
        coll.set_facecolor("none" if facecolors is None else facecolors)
    if alpha is not None:
        coll.set_alpha(alpha)
    coll.set_gid("eidos" if subset is None else "eidos-marked")
    ax.add_collection(coll, autolim=False)
    return coll


def _dissolve(geoms):
    """The union of polygons that tile an area: a fast coverage union when edges match.

    Where borders meet in T-junctions (or the Eidos overlap, on a map being
    validated) the coverage union is invalid, and a full union is made instead.
    """
    try:
        out = shapely.coverage_union_all(geoms)
        if shapely.is_valid(out):
            return out
    except shapely.errors.GEOSException:
        pass
    return shapely.union_all(geoms)


def _region_outlines(m) -> list[np.ndarray]:
    """Outline of each region (the boundary of its Eidos dissolved together)."""
    regions = np.empty(len(m.eido_ids), dtype=object)
    regions[:] = m.data.regions
    has = np.not_equal(regions, None)
    if not has.any():
        return []
    _, code = np.unique(regions[has].astype(str), return_inverse=True)
    geoms = m.geometries[has]
    dissolved = [_dissolve(geoms[code == k]) for k in range(code.max() + 1)]  # one per region
    return _line_coords(shapely.get_rings(shapely.get_parts(np.asarray(dissolved, dtype=object))))


def _features(ax, m, *, regions=True, roads=True, fountains=True, streams=True, alpha=1.0) -> list:
    """Region borders, roads, Pousas, fountains and streams; returns their legend handles."""
    md = m.data
    w, a = max(_scale(m), 0.4), _scale(m) ** 2  # line widths, marker areas
    handles = []
    outlines = _region_outlines(m) if regions else []
    if outlines:
        dashes = {"color": "white", "linestyle": (0, (4, 2.5))}
        ax.add_collection(LineCollection(outlines, **dashes, linewidth=2.2 * w, alpha=alpha, zorder=2, gid="regions",
                                         path_effects=[withStroke(linewidth=3.6 * w, foreground=(0, 0, 0, 0.45))]),
                          autolim=False)
        handles.append(Line2D([], [], **dashes, linewidth=2.2, label="region border",
                              path_effects=[withStroke(linewidth=3.6, foreground=(0, 0, 0, 0.45))]))
    if roads and len(md.roads):
        ax.add_collection(LineCollection(_line_coords(md.roads.geoms), color=_ROAD, linewidth=1.6 * w, alpha=alpha,
                                         zorder=3, gid="roads"), autolim=False)
        handles.append(Line2D([], [], color=_ROAD, linewidth=1.6, label="road"))
    if roads and len(md.pousas):
        xy = shapely.get_coordinates(md.pousas.geoms)
        ax.scatter(xy[:, 0], xy[:, 1], s=18 * a, facecolor="white", edgecolor=_ROAD, linewidth=0.8 * w,
                   alpha=alpha, zorder=4, gid="pousas")
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=5, markerfacecolor="white",
                              markeredgecolor=_ROAD, label="Pousa"))
    if streams and len(md.streams):
        ax.add_collection(LineCollection(_line_coords(md.streams.geoms), color=_STREAM, linewidth=1.3 * w,
                                         alpha=alpha, zorder=3, gid="streams"), autolim=False)
        tail = shapely.get_coordinates(shapely.get_point(md.streams.geoms, -2))
        mouth = shapely.get_coordinates(shapely.get_point(md.streams.geoms, -1))
        d = mouth - tail
        ax.quiver(tail[:, 0], tail[:, 1], d[:, 0], d[:, 1], angles="xy", scale_units="xy", scale=1, color=_STREAM,
                  width=0.004 * w, headwidth=4, headlength=5, alpha=alpha, zorder=3, gid="stream-mouths")
        handles.append(Line2D([], [], color=_STREAM, linewidth=1.3, marker=">", markevery=[1],
                              label="stream (source to mouth)"))
    if fountains and len(md.fountains):
        xy = shapely.get_coordinates(md.fountains.geoms)
        ax.scatter(xy[:, 0], xy[:, 1], s=40 * max(a, 0.1), marker="D", facecolor=_FOUNTAIN, edgecolor=_STREAM,
                   linewidth=0.8 * w, alpha=alpha, zorder=4, gid="fountains")
        handles.append(Line2D([], [], linestyle="none", marker="D", markersize=6, markerfacecolor=_FOUNTAIN,
                              markeredgecolor=_STREAM, label="fountain"))
    return handles


def _labels(ax, m, labels) -> None:
    names = m.eido_ids if labels is True else [str(x) for x in labels]
    xy = _xy(m, names)
    missing = [n for n, p in zip(names, xy, strict=True) if not np.isfinite(p).all()]
    if missing:
        raise RequestError(f"{m.path or m.name}: no Eido or Pousa with id {missing[0]!r} to label"
                           f"{did_you_mean(missing[0], _ids(m).tolist())}")
    place_labels(ax, xy, names, fontsize=7 if len(names) <= 200 else 4, path_effects=_HALO, zorder=6, gid="label")


def _legend(ax, handles, title=None) -> None:
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize="small",
                  title=title, title_fontsize="small", alignment="left")


def _terrain_colors(catalog, colors: dict | None) -> np.ndarray:
    spare = colormaps["tab20"]
    table = {**TERRAIN_COLORS, **(colors or {})}
    return to_rgba_array([table.get(t.name, spare(k % 20)) for k, t in enumerate(catalog.terrains)])


# -- the map ---------------------------------------------------------------------
def plot_map(m, ax=None, *, labels=False, legend=True, roads=True, regions=True, fountains=True, streams=True,
             colors: dict | None = None, alpha: float = 1.0, title: str | None = None):
    """Draw a map: Eidos filled by terrain, region borders, roads, Pousas, fountains, streams.

    Parameters
    ----------
    m : Map
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure sized to the map.
    labels : bool or iterable of str
        Write every Eido's id at its :attr:`~eidomap.model.Map.positions`
        (``True``), or only these Eido or Pousa ids.
    legend : bool
        A legend of the terrains present and of the features drawn, right of the map.
    roads, regions, fountains, streams : bool
        Draw roads and their Pousas (small circles); region outlines (white
        dashed, as on the board); fountains (diamonds); streams (lines from
        source to mouth, with an arrowhead at the mouth).
    colors : dict, optional
        Terrain name -> colour, laid over :data:`TERRAIN_COLORS`.
    alpha : float
        Opacity of everything drawn (lower it to draw over the map).
    title : str, optional
        Default: the map's name; ``""`` for none.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on (equal aspect, axis lines hidden).

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> ax = plot_map(m)
    >>> len(ax.collections[0].get_paths()) == len(m.eido_ids)
    True
    """
    ax = _axes(ax, m)
    table = _terrain_colors(m.catalog, colors)
    _eidos(ax, m, facecolors=table[m.data.terrain], alpha=alpha)
    handles = _features(ax, m, regions=regions, roads=roads, fountains=fountains, streams=streams, alpha=alpha)
    if legend:
        present = np.unique(m.data.terrain)
        terrains = [Patch(facecolor=table[k], edgecolor="#333333", linewidth=0.5,
                          label=m.catalog.terrains[k].label or m.catalog.terrains[k].name) for k in present]
        _legend(ax, terrains + handles)
    ax.set_title(m.name if title is None else title)
    _frame(ax, _bounds(m))
    if labels is not False:  # once the frame is set: they are placed where they will be seen
        _labels(ax, m, labels)
    return ax


# -- routes ----------------------------------------------------------------------
def _turn_colors(n: int) -> np.ndarray:
    if n <= 10:
        return to_rgba_array(colormaps["tab10"].colors[:n])
    return colormaps["viridis"](np.linspace(0.0, 0.9, n))


def _route_title(r) -> str:
    who = f"{r.actor}: {r.start} \u2192 {r.goal}"
    if not r.reachable:
        return f"{who}: cannot be reached"
    if r.turns:
        when = (f"arrives in turn {r.arrival_turn}" if r.arrival_turn is not None
                else f"not there after the {len(r.turns)} rolls given")
    else:
        worst = "unbounded" if r.worst_turns is None else r.worst_turns
        when = f"{r.expected_turns:.2f} turns expected (best {r.best_turns}, worst {worst})"
    return f"{who}\n{when}; {r.total_cost:g} PtMv"


def plot_route(m, route, ax=None, *, zoom: bool = False):
    """Draw a route over the map.

    With a turn-by-turn itinerary (a :class:`~eidomap.routing.Route` planned
    with ``rolls``), each turn is drawn in its own colour and its end is
    marked with the turn's number (``"1,2"`` where the actor stays put), with
    the debt carried into the next turn written under it; steps beyond the
    rolls given are grey and dashed.  Without turns (planned under the dice),
    the path is drawn in one colour and the title gives the expected turns.
    Teleports and streams are dotted jumps.

    Parameters
    ----------
    m : Map
    route : Route
    ax : matplotlib Axes, optional
    zoom : bool
        Frame the route instead of the whole map.

    Returns
    -------
    ax : matplotlib Axes
    """
    ax = _axes(ax, m)
    plot_map(m, ax, legend=False, alpha=0.45, title="")
    steps = route.path
    xy = _xy(m, [s.node for s in steps])
    handles = []
    if len(steps) > 1:
        handles += _route_lines(ax, m, route, xy)
    if route.turns:
        _turn_marks(ax, m, route)
    ends = _xy(m, [route.start, route.goal])
    ax.scatter(ends[:1, 0], ends[:1, 1], s=90, marker="o", color="black", edgecolor="white", zorder=7, gid="start")
    ax.scatter(ends[1:, 0], ends[1:, 1], s=420, marker="*", color="gold", edgecolor="black", zorder=7, gid="goal")
    for name, (x, y) in zip((route.start, route.goal), ends, strict=True):
        ax.annotate(name, (x, y), xytext=(7, 7), textcoords="offset points", fontsize=8, fontweight="bold",
                    path_effects=_HALO, zorder=8)
    handles += [Line2D([], [], linestyle="none", marker="o", color="black", label=f"start: {route.start}"),
                Line2D([], [], linestyle="none", marker="*", markersize=12, color="gold", markeredgecolor="black",
                       label=f"goal: {route.goal}")]
    _legend(ax, handles)
    ax.set_title(_route_title(route), fontsize="medium")
    if zoom:
        pts = np.vstack([xy, ends])
        pts = pts[np.isfinite(pts).all(axis=1)]
        x0, y0, x1, y1 = _bounds(m)
        pad = max(0.25 * float(np.ptp(pts, axis=0).max()), 0.08 * max(x1 - x0, y1 - y0))
        lo, hi = pts.min(axis=0) - pad, pts.max(axis=0) + pad
        _frame(ax, (max(lo[0], x0), max(lo[1], y0), min(hi[0], x1), min(hi[1], y1)))
    return ax


def _route_lines(ax, m, route, xy: np.ndarray) -> list:
    """The route's steps as one LineCollection, coloured by turn; returns legend handles."""
    n = len(route.path)
    kinds = np.array([s.kind for s in route.path])
    ok = np.isfinite(xy).all(axis=1)
    last = np.maximum.accumulate(np.where(ok, np.arange(n), -1))  # last drawable node so far
    k = np.flatnonzero(ok[1:]) + 1  # steps into a drawable node (not the teleport hub)
    k = k[last[k - 1] >= 0]
    segs = np.stack([xy[last[k - 1]], xy[k]], axis=1)
    jump = np.isin(kinds[k], _JUMPS)
    handles = []
    if route.turns:
        counts = [len(t.steps) for t in route.turns]
        turn_of = np.full(n, -1)
        turn_of[1 : 1 + sum(counts)] = np.repeat(np.arange(len(counts)), counts)
        palette = _turn_colors(len(route.turns))
        beyond = turn_of[k] < 0
        colors = np.where(beyond[:, None], to_rgba("#555555"), palette[np.maximum(turn_of[k], 0)])
        shown = route.turns[:_LEGEND_TURNS]
        handles += [Line2D([], [], color=palette[i], linewidth=3,
                           label=f"turn {t.turn}: roll {t.roll}, {t.spent:g} PtMv") for i, t in enumerate(shown)]
        if len(route.turns) > len(shown):
            handles.append(Line2D([], [], color="none", label=f"... {len(route.turns)} turns in all"))
        if beyond.any():
            handles.append(Line2D([], [], color="#555555", linestyle="--", label="beyond the rolls given"))
    else:
        beyond = np.zeros(len(k), bool)
        colors = np.tile(to_rgba("#c2185b"), (len(k), 1))
        handles.append(Line2D([], [], color="#c2185b", linewidth=3, label="cheapest route"))
    styles = np.where(jump, ":", np.where(beyond, "--", "-"))
    ax.add_collection(LineCollection(segs, colors=colors, linestyles=list(styles), linewidths=2.6, capstyle="round",
                                     path_effects=[withStroke(linewidth=4.6, foreground="white")], zorder=5,
                                     gid="route"), autolim=False)
    if jump.any():
        handles.append(Line2D([], [], color="black", linestyle=":", linewidth=2, label="teleport or stream"))
    return handles


def _turn_marks(ax, m, route) -> None:
    """Number each turn's end (turns ending in the same place share a mark); write the debts."""
    palette = _turn_colors(len(route.turns))
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(route.turns):  # one entry per turn
        groups.setdefault(t.end, []).append(i)
    xy = _xy(m, list(groups))
    for (_, members), (x, y) in zip(groups.items(), xy, strict=True):
        if not np.isfinite(x):
            continue
        turns = [route.turns[i] for i in members]
        label = ",".join(str(t.turn) for t in turns)
        box = "circle,pad=0.3" if len(turns) == 1 else "round,pad=0.3"
        ax.text(x, y, label, ha="center", va="center", fontsize=8, fontweight="bold", color="white", zorder=9,
                bbox={"boxstyle": box, "facecolor": palette[members[-1]], "edgecolor": "white", "linewidth": 1.2},
                gid="turn-end")
        debts = [f"debt {t.debt_after:g} after turn {t.turn}" for t in turns if t.debt_after > 0]
        if debts:
            ax.annotate("\n".join(debts), (x, y), xytext=(0, -13), textcoords="offset points", ha="center",
                        va="top", fontsize=7, fontstyle="italic", color="#8b0000", path_effects=_HALO, zorder=9,
                        gid="debt")


# -- d20 overland journeys -------------------------------------------------------------
#: Road classes of d20 maps: colour, width and line style.
_ROAD_CLASSES = {"highway": ("#4a2a0c", 3.0, "-"), "road": ("#8d5524", 1.8, "-"), "trail": ("#8d5524", 1.4, "--")}
_RIVER = "#1565c0"


def _d20_features(ax, m) -> list:
    """Roads by class and rivers with arrows along their flow; returns legend handles."""
    md, handles = m.data, []
    classes = np.asarray([c or "road" for c in md.road_class], dtype=object)
    for cls, (color, width, style) in _ROAD_CLASSES.items():
        mine = md.roads.geoms[classes == cls] if len(classes) else []
        if len(mine):
            ax.add_collection(LineCollection(_line_coords(mine), color=color, linewidth=width, linestyle=style,
                                             zorder=3, gid=f"roads-{cls}"), autolim=False)
            handles.append(Line2D([], [], color=color, linewidth=width, linestyle=style, label=cls))
    if len(md.rivers):
        ax.add_collection(LineCollection(_line_coords(md.rivers.geoms), color=_RIVER, linewidth=2.2, zorder=3,
                                         gid="rivers"), autolim=False)
        xy, which = shapely.get_coordinates(md.rivers.geoms, return_index=True)
        same = which[1:] == which[:-1]
        a, d = xy[:-1][same], (xy[1:] - xy[:-1])[same]
        mid = a + d / 2
        x0, y0, x1, y1 = _bounds(m)
        d = d / np.hypot(d[:, 0], d[:, 1])[:, None] * 0.025 * max(x1 - x0, y1 - y0)
        ax.quiver(mid[:, 0], mid[:, 1], d[:, 0], d[:, 1], angles="xy", scale_units="xy", scale=1, pivot="mid",
                  color=_RIVER, zorder=3, width=0.004, headwidth=4, headlength=4, gid="river-flow")
        handles.append(Line2D([], [], color=_RIVER, linewidth=2.2, marker=">", markevery=[1],
                              label="river (arrows: flow)"))
    return handles


def plot_travel(m, result, ax=None):
    """Draw a d20 overland journey (:func:`eidomap.overland.travel`) on its map.

    The regions by terrain, roads by class (highway thick, road, trail
    dashed), rivers with arrows along their flow, the route coloured by day
    (floating, towed and rowed stretches dotted) and each night's camp
    numbered with the day that ends there.

    Returns
    -------
    ax : matplotlib Axes
    """
    ax = _axes(ax, m)
    plot_map(m, ax, legend=False, roads=False, regions=False, streams=False, alpha=0.75, title="")
    table = _terrain_colors(m.catalog, None)
    handles = [Patch(facecolor=table[k], edgecolor="#333333", label=m.catalog.terrains[k].label)
               for k in np.unique(m.data.terrain)]
    handles += _d20_features(ax, m)
    if result.reachable and len(result.path) > 1:
        xy = np.asarray(result.path, dtype=float)
        day = np.asarray(result.day_of) - 1
        palette = _turn_colors(len(result.days))
        water = np.isin(np.asarray(result.modes, dtype=object), ["rowed", "float", "towed", "sailed"])
        cut = np.flatnonzero((day[1:] != day[:-1]) | (water[1:] != water[:-1])) + 1  # pieces of one day and way
        first = np.r_[0, cut]
        pieces = [xy[a : b + 1] for a, b in zip(first, np.r_[cut, len(day)], strict=True)]
        ax.add_collection(LineCollection(pieces, colors=palette[day[first]],
                                         linestyles=list(np.where(water[first], ":", "-")), linewidths=3.0,
                                         capstyle="round", path_effects=[withStroke(linewidth=5, foreground="white")],
                                         zorder=5, gid="route"), autolim=False)
        handles += [Line2D([], [], color=palette[d.day - 1], linewidth=3,
                           label=f"day {d.day}: {d.miles:.1f} mi, {d.hours:.1f} h")
                    for d in result.days[:_LEGEND_TURNS]]
        for d in result.days[:-1]:
            ax.text(*d.end, str(d.day), ha="center", va="center", fontsize=8, fontweight="bold", color="white",
                    zorder=9, gid="camp",
                    bbox={"boxstyle": "circle,pad=0.3", "facecolor": palette[d.day - 1], "edgecolor": "black"})
        if len(result.days) > 1:
            handles.append(Line2D([], [], linestyle="none", marker="o", markersize=9, markerfacecolor="white",
                                  markeredgecolor="black", label="night camp (day number)"))
        ends = xy[[0, -1]]
        ax.scatter(ends[:1, 0], ends[:1, 1], s=90, marker="o", color="black", edgecolor="white", zorder=7, gid="start")
        ax.scatter(ends[1:, 0], ends[1:, 1], s=380, marker="*", color="gold", edgecolor="black", zorder=7, gid="goal")
    _legend(ax, handles)
    when = (f"{result.miles:.1f} miles, {result.hours:.1f} hours of travel, {len(result.days)} days"
            if result.reachable else "no way there")
    ax.set_title(f"{result.start} \u2192 {result.goal}: {when}", fontsize="medium")
    _frame(ax, _bounds(m))
    return ax


def save_travel_png(m, result, path) -> None:
    """Draw a journey with :func:`plot_travel` and write it (PNG or SVG by suffix)."""
    _save(m, path, lambda ax: plot_travel(m, result, ax))


# -- reachability ------------------------------------------------------------------
def _reach_scale(kind: str, v: np.ndarray) -> tuple[Colormap, Normalize, str]:
    if kind == "p_within":
        return colormaps["viridis"], Normalize(0.0, 1.0), "P(arrived within {turns} turns)"
    top = float(np.nanmax(v)) if np.isfinite(v).any() else 0.0
    if kind == "arrival_turn":
        cmap = colormaps["viridis_r"]
        return cmap, BoundaryNorm(np.arange(-0.5, top + 1.0), cmap.N), "turn of first arrival"
    return colormaps["YlOrRd"], Normalize(0.0, max(top, 1.0)), "debt carried into the next turn (PtMv)"


def reach_kind(reach, value: str | None = None) -> str:
    """What a picture of ``reach`` shows: ``value``, else the one the Reach holds; :class:`RequestError` if none."""
    kind = value or next((k for k in _REACH_VALUES if getattr(reach, k)), "p_within")
    if kind not in _REACH_VALUES:
        raise RequestError(f"value must be one of {', '.join(_REACH_VALUES)}, got {kind!r}")
    if not getattr(reach, kind):
        raise RequestError(f"this Reach holds no {kind} (from {reach.start} for {reach.actor})")
    return kind


def _reach_title(reach, kind: str) -> str:
    who = f"{reach.actor} from {reach.start}"
    if kind == "p_within":
        return f"{who}: P(arrived within {reach.turns} turns)"
    if kind == "arrival_turn":
        return f"{who}: turn of first arrival"
    return f"{who} with a roll of {reach.roll}: where it can end the turn"


def plot_reach(m, reach, ax=None, *, value: str | None = None, colorbar: bool = True, legend: bool = True,
               title: str | None = None):
    """A heatmap of a :class:`~eidomap.routing.Reach` over the Eidos, with a colour bar.

    ``value`` picks what is drawn (default: the one the Reach holds):
    ``"p_within"`` (P(arrived within K turns), from ``reach(..., turns=K)``),
    ``"arrival_turn"`` (the least number of turns, from ``reach_rolls``) or
    ``"debt"`` (the least debt carried, from ``reach(..., roll=R)``).  Eidos
    never reached (probability 0, no turn, no debt) are grey; roads and Pousas
    are drawn faintly on top; the start is a star.

    Returns
    -------
    ax : matplotlib Axes
    """
    kind = reach_kind(reach, value)
    data = getattr(reach, kind)
    ax = _axes(ax, m)
    v = _values(m, data)
    cmap, norm, label = _reach_scale(kind, v)
    unreached = ~(v > 0) if kind == "p_within" else ~np.isfinite(v)
    coll = _eidos(ax, m, values=np.ma.masked_array(v, unreached), cmap=cmap.with_extremes(bad=_UNREACHED),
                  norm=norm, edgecolor="#555555")
    handles = _features(ax, m, regions=False, fountains=False, streams=False, alpha=0.55)
    start = _xy(m, [reach.start])
    ax.scatter(start[:, 0], start[:, 1], s=260, marker="*", color="white", edgecolor="black", zorder=7, gid="start")
    if colorbar:
        cbar = ax.figure.colorbar(coll, ax=ax, shrink=0.75, label=label.format(turns=reach.turns))
        if kind == "arrival_turn":
            cbar.locator = MaxNLocator(integer=True)
            cbar.update_ticks()
    if legend:
        handles = [Line2D([], [], linestyle="none", marker="*", markersize=12, color="white", markeredgecolor="black",
                          label=f"start: {reach.start}"), *handles]
        if unreached.any():
            handles.append(Patch(facecolor=_UNREACHED, edgecolor="#555555", label="not reached"))
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, -0.01), ncols=min(len(handles), 4),
                  frameon=False, fontsize="small")
    ax.set_title(_reach_title(reach, kind) if title is None else title, fontsize="medium")
    _frame(ax, _bounds(m))
    return ax


def plot_compare(m, start, actors: Iterable, *, turns: int = 3, partial: str = "carry", ncols: int = 3):
    """Small multiples: for each actor, P(arrived within ``turns`` turns) from the same start.

    Parameters
    ----------
    m : Map
    start : str
        The start Eido of every panel.
    actors : iterable of str or Actor
        Species names of the map's catalog, or :func:`eidomap.rules.eido.actor` units.
    turns : int
    partial : {"carry", "forbid"}
    ncols : int
        Panels per row.

    Returns
    -------
    fig : matplotlib Figure
    axes : numpy array of Axes
        One panel per actor, in order, with one shared colour bar.
    """
    from ..routing import reach

    actors = list(actors)
    if not actors:
        raise RequestError("plot_compare needs at least one actor")
    ncols = max(1, min(int(ncols), len(actors)))
    nrows = -(-len(actors) // ncols)
    w, h = _figsize(m, width=4.2)
    fig, grid = _pyplot().subplots(nrows, ncols, figsize=(w * ncols + 1.0, h * nrows + 0.6), squeeze=False,
                                   layout="constrained")
    panels = grid.ravel()
    for ax in panels[len(actors):]:
        ax.remove()
    panels = panels[: len(actors)]
    for ax, who in zip(panels, actors, strict=True):
        r = reach(m, start, who, turns=turns, partial=partial)
        plot_reach(m, r, ax, colorbar=False, legend=False, title=r.actor)
    cmap, norm, label = _reach_scale("p_within", np.empty(0))
    fig.colorbar(ScalarMappable(norm, cmap), ax=list(panels), shrink=0.8, label=label.format(turns=turns))
    fig.suptitle(f"From {start} (star): where each can be within {turns} turns; grey: not within reach")
    return fig, panels


# -- validation problems ------------------------------------------------------------
def _as_map(m_or_md):
    from ..io.geojson import MapData
    from ..model import Map

    return Map(m_or_md) if isinstance(m_or_md, MapData) else m_or_md


def _feature_key(label: str) -> str:
    """A feature id as problems name it (``'id'`` quoted by the lenient reader, or plain)."""
    if len(label) >= 2 and label[0] == label[-1] and label[0] in "'\"":
        return label[1:-1]
    return label


def _raw_location(md, i: int) -> tuple[float, float] | None:
    """Centre of the first ring of feature ``i`` of the file, even if the reader skipped it."""
    from ..io.geojson import Coords

    f = md.features[i] if 0 <= i < len(md.features) else None
    geom = f.get("geometry") if isinstance(f, dict) else None
    coords = geom.get("coordinates") if isinstance(geom, dict) else None
    if not isinstance(coords, Coords) or not len(coords.rings[0]):
        return None
    ring = coords.rings[0][:, :2]
    if not np.isfinite(ring).all():
        return None
    x, y = (ring.min(axis=0) + ring.max(axis=0)) / 2
    return float(x), float(y)


def _problem_places(m, problems) -> tuple[np.ndarray, dict[str, set[int]]]:
    """Where to draw each problem, and the Eidos to outline for each severity.

    A problem is drawn at its location, else at the first of its features that
    is an Eido or Pousa, else where that feature is in the file (a feature the
    lenient reader skipped, named ``'id'`` or ``#index``); NaN if nowhere.
    """
    md, ids, n_eidos = m.data, _ids(m), len(m.eido_ids)
    loc = np.full((len(problems), 2), np.nan)
    marks: dict[str, set[int]] = {}
    by_label: dict[str, int] | None = None
    for i, p in enumerate(problems):  # one row per problem
        keys = [_feature_key(f) for f in p.features]
        k = _index_of(ids, keys)
        marks.setdefault(p.severity, set()).update(k[(k >= 0) & (k < n_eidos)].tolist())
        if p.location is not None:
            loc[i] = p.location
        elif (k >= 0).any():
            loc[i] = m.positions[k[k >= 0][0]]
        elif p.features:
            if by_label is None:  # only when a problem names a feature no layer holds
                by_label = {_feature_key(md.label(j)): j for j in range(len(md.features))}
            raw = [_raw_location(md, by_label.get(key, -1)) for key in keys]
            loc[i] = next((r for r in raw if r is not None), (np.nan, np.nan))
    return loc, marks


def plot_problems(m_or_md, problems, ax=None):
    """Mark validation problems on the map, labelled with their code.

    Parameters
    ----------
    m_or_md : Map or MapData
        The map, or what the lenient reader
        (:func:`eidomap.io.geojson.read_geojson`) could use of it.
    problems : iterable of Problem, or a report with a ``problems`` attribute
        Each is drawn at its ``location``, else at the first of its features
        that is an Eido or Pousa, else where the feature is in the file;
        errors are red crosses, warnings orange triangles, and the Eidos a
        problem names are outlined in its colour.
        Problems that cannot be placed are counted in a note under the map;
        those that follow from another (``caused_by``) are told by their cause.

    Returns
    -------
    ax : matplotlib Axes
    """
    m = _as_map(m_or_md)
    problems = [p for p in getattr(problems, "problems", problems) if getattr(p, "caused_by", None) is None]
    ax = _axes(ax, m)
    plot_map(m, ax, legend=False, alpha=0.5, title="")
    loc, eido_marks = _problem_places(m, problems)
    placed = np.isfinite(loc).all(axis=1)
    severities = np.array([p.severity for p in problems], dtype=object)
    handles = []
    for sev in dict.fromkeys(severities.tolist()):  # one layer per severity
        color, marker = _SEVERITY.get(sev, _OTHER_SEVERITY)
        if eido_marks.get(sev):
            _eidos(ax, m, edgecolor=color, linewidth=2.0, subset=sorted(eido_marks[sev])).set_zorder(5)
        here = placed & (severities == sev)
        ax.scatter(loc[here, 0], loc[here, 1], s=70, marker=marker, color=color, edgecolor="white", linewidth=0.8,
                   zorder=8, gid=f"problems-{sev}")
        count = int(np.count_nonzero(severities == sev))
        handles.append(Line2D([], [], linestyle="none", marker=marker, markersize=8, color=color,
                              label=f"{sev} ({count})"))
    if not placed.all():
        counts: dict[str, int] = {}
        for i in np.flatnonzero(~placed):
            counts[problems[i].code] = counts.get(problems[i].code, 0) + 1
        note = "not on the map: " + ", ".join(f"{c} \u00d7{n}" for c, n in counts.items())
        ax.text(0.0, -0.01, note, transform=ax.transAxes, ha="left", va="top", fontsize=8, gid="unplaced")
    _legend(ax, handles, title="problems")
    n_err = int(np.count_nonzero(severities == ERROR))
    n_warn = int(np.count_nonzero(severities == WARNING))
    ax.set_title(f"{m.name}: {n_err} error{'s' * (n_err != 1)}, {n_warn} warning{'s' * (n_warn != 1)}")
    corners = np.vstack([np.reshape(_extent(m) or (), (-1, 2)), loc[placed]])
    _frame(ax, (*corners.min(axis=0), *corners.max(axis=0)) if len(corners) else _bounds(m))
    spots: dict[tuple[float, float], list[int]] = {}
    for i in np.flatnonzero(placed):  # problems at the same spot share one label
        spots.setdefault(tuple(loc[i]), []).append(int(i))
    first = [members[0] for members in spots.values()]
    place_labels(ax, list(spots), ["\n".join(dict.fromkeys(problems[i].code for i in members))
                                   for members in spots.values()],
                 colors=[_SEVERITY.get(problems[i].severity, _OTHER_SEVERITY)[0] for i in first],
                 fontweight="bold", on_anchor=False, path_effects=_HALO, zorder=9, gid="problem-code")
    return ax


# -- d20 battle grids -----------------------------------------------------------------
#: Colours of a battle grid's squares: clear, hampered once, twice, three times; walls.
_GRID_COLORS = ("#f4f1e8", "#d9c9a3", "#b89f6b", "#8a6f3e")
_WALL = "#3b3b3b"


def _grid_axes(grid, ax):
    if ax is not None:
        return ax
    rows, cols = grid.shape
    _, ax = _pyplot().subplots(figsize=(8.0, float(np.clip(8.0 * rows / cols, 3.0, 14.0))))
    return ax


def _grid_base(ax, grid) -> None:
    """The squares (shaded by how many conditions hamper them, walls dark) and the creatures."""
    from ..rules.d20.grid import ALLY, ENEMY, IMPASSABLE
    from ..rules.d20.tactical import multipliers

    rows, cols = grid.shape
    level = np.log2(np.maximum(multipliers(grid), 1)).astype(int)
    rgba = to_rgba_array(_GRID_COLORS)[level]
    rgba[(grid.flags & IMPASSABLE) != 0] = to_rgba(_WALL)
    ax.imshow(rgba, extent=(-0.5, cols - 0.5, rows - 0.5, -0.5), interpolation="nearest", zorder=0, gid="squares")
    if max(rows, cols) <= 60:
        ax.set_xticks(np.arange(-0.5, cols, 1.0), minor=True)
        ax.set_yticks(np.arange(-0.5, rows, 1.0), minor=True)
        ax.grid(which="minor", color="white", linewidth=0.5)
    for who, color, name in ((ALLY, "#1565c0", "ally"), (ENEMY, "#c62828", "enemy")):
        r, c = np.nonzero(grid.occupant == who)
        ax.scatter(c, r, s=60, marker="o", color=color, edgecolor="white", zorder=6, gid=name, label=name)
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    ax.set_aspect("equal")
    ax.tick_params(which="both", length=0, labelsize=7)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def _grid_legend(ax) -> None:
    handles = [Patch(facecolor=c, label=f"x{2 ** i}" if i else "clear") for i, c in enumerate(_GRID_COLORS)]
    handles += [Patch(facecolor=_WALL, label="impassable")]
    handles += [h for h in ax.collections if h.get_gid() in ("ally", "enemy") and len(h.get_offsets())]
    _legend(ax, handles)


def plot_grid_reach(grid, reach, ax=None, *, colorbar: bool = True):
    """Draw a battle grid with every square reachable this round coloured by its feet.

    ``reach`` is a :class:`~eidomap.d20.GridReach`; squares reached by the
    full-round one-square move are hatched.  Returns the Axes.
    """
    ax = _grid_axes(grid, ax)
    _grid_base(ax, grid)
    rows, cols = grid.shape
    feet = np.full((rows, cols), np.nan)
    for (r, c), f in reach.feet.items():
        feet[r, c] = f
    top = max(reach.feet.values())
    norm = BoundaryNorm(np.arange(-2.5, top + 5, 5), colormaps["viridis_r"].N)
    img = ax.imshow(np.ma.masked_invalid(feet), cmap="viridis_r", norm=norm, alpha=0.75, zorder=1,
                    extent=(-0.5, cols - 0.5, rows - 0.5, -0.5), interpolation="nearest", gid="reach")
    for r, c in reach.full_round:
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, hatch="///", edgecolor="black", linewidth=0.8,
                               zorder=2, gid="full-round"))
    ax.scatter([reach.start[1]], [reach.start[0]], s=90, marker="o", color="black", edgecolor="white", zorder=7,
               gid="start")
    if colorbar:
        cb = ax.figure.colorbar(img, ax=ax, shrink=0.7, label="feet")
        cb.locator = MaxNLocator(integer=True, steps=[1, 5, 10])
        cb.update_ticks()
    m = reach.mover
    ax.set_title(f"reach from {reach.start[0]},{reach.start[1]}: speed {m.speed} ft, {m.mode}"
                 f" ({len(reach.feet)} squares)", fontsize="medium")
    _grid_legend(ax)
    return ax


def plot_grid_route(grid, route, ax=None):
    """Draw a battle grid and a :class:`~eidomap.d20.GridRoute`: the squares of each round
    in the round's colour, and each round's end numbered.  Returns the Axes."""
    ax = _grid_axes(grid, ax)
    _grid_base(ax, grid)
    start, goal = route.start, route.goal
    handles = []
    if route.legs:
        palette = _turn_colors(len(route.legs))
        here = start
        for i, leg in enumerate(route.legs):
            pts = np.array([here, *leg.squares], float)
            ax.plot(pts[:, 1], pts[:, 0], color=palette[i], linewidth=2.6, linestyle=":" if leg.full_round else "-",
                    solid_capstyle="round", path_effects=[withStroke(linewidth=4.6, foreground="white")], zorder=4,
                    gid="route")
            r, c = leg.end
            ax.text(c, r, str(leg.round), ha="center", va="center", fontsize=7, fontweight="bold", color="white",
                    zorder=9, bbox={"boxstyle": "circle,pad=0.25", "facecolor": palette[i], "edgecolor": "white"},
                    gid="round-end")
            here = leg.end
        shown = route.legs[:_LEGEND_TURNS]
        handles += [Line2D([], [], color=palette[i], linewidth=3, linestyle=":" if leg.full_round else "-",
                           label=f"round {leg.round}: {leg.feet} ft" + (" (full-round)" if leg.full_round else ""))
                    for i, leg in enumerate(shown)]
        if len(route.legs) > len(shown):
            handles.append(Line2D([], [], color="none", label=f"... {len(route.legs)} rounds in all"))
    ax.scatter([start[1]], [start[0]], s=90, marker="o", color="black", edgecolor="white", zorder=7, gid="start")
    ax.scatter([goal[1]], [goal[0]], s=300, marker="*", color="gold", edgecolor="black", zorder=7, gid="goal")
    when = f"{route.rounds} rounds, {route.feet} ft" if route.reachable else "cannot be reached"
    ax.set_title(f"{start[0]},{start[1]} \u2192 {goal[0]},{goal[1]}: {when}"
                 f" (speed {route.mover.speed} ft, {route.mover.mode})", fontsize="medium")
    _legend(ax, handles)
    return ax


def save_grid_png(grid, answer, path) -> None:
    """Draw a :class:`~eidomap.d20.GridReach` or :class:`~eidomap.d20.GridRoute` and write it (PNG or SVG)."""
    picture_format(path)
    rows, cols = grid.shape
    fig = Figure(figsize=(8.0, float(np.clip(8.0 * rows / cols, 3.0, 14.0))))
    draw = plot_grid_route if hasattr(answer, "legs") else plot_grid_reach
    draw(grid, answer, fig.add_subplot())
    save_figure(fig, path)
