"""What the pictures of :mod:`eidomap.plot` and the pages of :mod:`eidomap.pages` share: figures and files, geometry
to artists, colours, titles.  Its names are public so that another package may import them (no private name is
imported across packages: ``tests/test_layers.py``); a user's are those :mod:`eidomap.plot` lists."""

from __future__ import annotations

import contextlib
import io
import math
import os
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from matplotlib import colormaps
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import BoundaryNorm, Colormap, Normalize, to_rgba_array
from matplotlib.figure import Figure, SubFigure
from matplotlib.lines import Line2D
from matplotlib.path import Path as MplPath
from matplotlib.patheffects import withStroke

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.files import need_folder, write_atomic
from eidomap.base.modes import Mode
from eidomap.base.names import shown
from eidomap.base.problems import ERROR, WARNING, Problem
from eidomap.io.features import Coords
from eidomap.model.map import Map

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import FigureBase


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
#: The finest resolution a PNG is written at (a picture's pixels grow as its square).
MAX_DPI = 1200

ROAD_COLOR = "#6d3f17"
STREAM_COLOR = "#0d47a1"
FOUNTAIN_COLOR = "#29b6f6"
UNREACHED_COLOR = "#d9d9d9"
SEVERITY_STYLE = {ERROR: ("#d62728", "X"), WARNING: ("#ff8c00", "^")}
OTHER_SEVERITY_STYLE = ("#555555", "o")
HALO = [withStroke(linewidth=2.5, foreground="white")]
#: Turns shown one by one in a route's legend.
LEGEND_TURNS = 12

_PATHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# -- figures and files -----------------------------------------------------------------
def pyplot():
    """``matplotlib.pyplot``, on the Agg backend if no backend has been chosen."""
    import matplotlib

    # (private and not in matplotlib's stubs; the public get_backend(auto_select=False) needs matplotlib 3.10)
    if matplotlib.rcParams._get_backend_or_none() is None:  # type: ignore[attr-defined]
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def map_extent(m: Map) -> tuple[float, float, float, float] | None:
    """Bounds of everything the map holds; None when it holds nothing."""
    md = m.record
    layers = [md.eidos.geoms, md.roads.geoms, md.pousas.geoms, md.fountains.geoms, md.streams.geoms]
    geoms = np.concatenate([np.asarray(g, dtype=object) for g in layers])
    if len(geoms) == 0:
        return None
    b = shapely.total_bounds(geoms)
    return (float(b[0]), float(b[1]), float(b[2]), float(b[3])) if np.isfinite(b).all() else None


def map_bounds(m: Map) -> tuple[float, float, float, float]:
    return map_extent(m) or (0.0, 0.0, 1.0, 1.0)


def figure_size(m: Map, width: float = 8.0) -> tuple[float, float]:
    x0, y0, x1, y1 = map_bounds(m)
    return width, float(np.clip(width * (y1 - y0) / max(x1 - x0, 1e-300), 3.0, 14.0))


def map_axes(ax: Axes | None, m: Map) -> Axes:
    """``ax``, checked, or new axes sized to ``m``."""
    from matplotlib.axes import Axes

    if ax is not None:
        return params.instance(ax, "ax", Axes, "matplotlib Axes")
    _, ax = pyplot().subplots(figsize=figure_size(m))
    return ax


def frame_axes(ax, bounds, margin: float = 0.02) -> None:
    x0, y0, x1, y1 = bounds
    pad = margin * max(x1 - x0, y1 - y0) or 1.0
    ax.set_xlim(x0 - pad, x1 + pad)
    ax.set_ylim(y0 - pad, y1 + pad)
    ax.set_aspect("equal")
    ax.set_axis_off()


def picture_format(path: str | os.PathLike) -> str:
    """The format a picture is written in, from its file's suffix.

    Parameters
    ----------
    path : str or Path
        The picture's file.

    Returns
    -------
    {"png", "svg"}
        The format.

    Raises
    ------
    RequestError
        For any other suffix.

    See Also
    --------
    save_figure : Write a figure in that format.

    Examples
    --------
    >>> picture_format("route.SVG"), picture_format("map.png")
    ('svg', 'png')
    """
    p = Path(params.path(path, "path"))
    fmt = PICTURE_FORMATS.get(p.suffix.lower())
    if fmt is None:
        got = repr(p.suffix) if p.suffix else "no suffix"
        raise RequestError(f"{shown(path)}: a picture must be a .png or .svg file, got {got}")
    need_folder(p)
    return fmt


def save_figure(ax_or_fig: Axes | FigureBase | Sequence[Axes] | np.ndarray, path: str | os.PathLike, *,
                dpi: int = 150) -> None:
    """Write the figure of ``ax_or_fig`` to ``path``, PNG or SVG by the file's suffix.

    The file is written atomically (through a temporary file in the same folder); nothing else is created.

    Parameters
    ----------
    ax_or_fig : Axes, Figure or array of Axes
        What was drawn.
    path : str or Path
        The file (``.png`` or ``.svg``).
    dpi : int
        Resolution of a PNG.

    Raises
    ------
    RequestError
        For a suffix other than ``.png`` and ``.svg``, or an output that is not a regular file.

    See Also
    --------
    picture_format : The format a suffix means.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "demo.svg"
    >>> from eidomap.plot import plot_map
    >>> save_figure(plot_map(eidomap.load(eidomap.demo_map_path())), path)
    >>> path.read_text()[:5]
    '<?xml'
    """
    from matplotlib.axes import Axes

    fmt = picture_format(path)
    dpi = params.whole(dpi, "dpi", 1, MAX_DPI)
    obj: Any = ax_or_fig
    if isinstance(obj, np.ndarray | list | tuple) and len(obj):
        obj = np.ravel(np.asarray(obj, dtype=object))[0]
    if not isinstance(obj, Axes | Figure | SubFigure):
        raise params.refused("ax_or_fig", "matplotlib Axes or a Figure (what was drawn)", ax_or_fig)
    fig = (obj if isinstance(obj, Figure | SubFigure) else obj.figure).figure
    write_atomic(path, figure_bytes(fig, fmt, dpi))


@contextlib.contextmanager
def glyphs_as_boxes() -> Iterator[None]:
    """Within it, a name in a script the font lacks is measured and drawn as boxes without matplotlib's warning
    of it: a picture eidomap writes is what there is to see of that (the command line prints no library's
    warning)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"Glyph \d+ .* missing from font", UserWarning)
        yield


def figure_bytes(fig: Figure, fmt: str, dpi: float) -> bytes:
    """``fig`` drawn as a ``fmt`` file (``png`` or ``svg``, no date in it), cut to what it shows."""
    buf = io.BytesIO()
    with glyphs_as_boxes():
        fig.savefig(buf, format=fmt, dpi=dpi, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None)
    return buf.getvalue()


def checked_problems(problems: object) -> list[Problem]:
    """The problems to draw, checked: Problems, or a report's (anything with a ``problems`` attribute)."""
    what = "Problems (or a report with a problems attribute)"
    return [params.instance(p, "problems", Problem, what)
            for p in params.listed(getattr(problems, "problems", problems), "problems", what)]


def save_drawn(m: Map, path: str | os.PathLike, draw: Callable) -> None:
    """Draw on new axes sized to ``m`` (checked) and write the picture to ``path`` (checked first)."""
    picture_format(path)
    params.instance(m, "m", Map)
    fig = Figure(figsize=figure_size(m))
    with glyphs_as_boxes():  # (labels are measured as they are placed)
        draw(fig.add_subplot())
    save_figure(fig, path)


# -- geometry to artists ---------------------------------------------------------------
def eido_paths(geoms: np.ndarray) -> list[MplPath]:
    """One matplotlib path per polygon or multipolygon, ready for a PathCollection.

    Every ring is a closed sub-path; exteriors are wound counter-clockwise and holes clockwise (matplotlib
    fills by the non-zero rule), so holes stay empty and the parts of a multipolygon are all filled.  Built
    from the flat coordinate arrays of ``shapely.to_ragged_array``.

    Parameters
    ----------
    geoms : array of Polygon or MultiPolygon
        The shapes.

    Returns
    -------
    list of matplotlib.path.Path
        One path per shape.

    See Also
    --------
    plot_map : The map drawn with them.

    Examples
    --------
    >>> import shapely
    >>> square_with_hole = shapely.box(0, 0, 4, 4).difference(shapely.box(1, 1, 2, 2))
    >>> [len(p.vertices) for p in eido_paths([square_with_hole, shapely.box(5, 5, 6, 6)])]
    [10, 5]
    """
    geoms = params.geometries(geoms, "geoms")
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


def _paths(m: Map) -> list[MplPath]:
    """The Eidos' paths, kept while the map lives (panels and repeated plots reuse them)."""
    paths = _PATHS.get(m)
    if paths is None:
        paths = _PATHS[m] = eido_paths(m.geometries)
    return paths


def line_coords(geoms) -> list[np.ndarray]:
    """Vertex arrays of every line and ring in ``geoms`` (multi-part geometries split)."""
    parts = shapely.get_parts(np.asarray(geoms, dtype=object))
    kind = shapely.get_type_id(parts)
    parts = parts[(kind == shapely.GeometryType.LINESTRING) | (kind == shapely.GeometryType.LINEARRING)]
    if len(parts) == 0:
        return []
    xy, which = shapely.get_coordinates(parts, return_index=True)
    return np.split(xy, np.flatnonzero(np.diff(which)) + 1)


def _scale(m: Map) -> float:
    """Line and marker scale: 1 on small maps, thinner as the Eidos get smaller."""
    return float(np.clip(math.sqrt(500 / max(len(m.eido_ids), 1)), 0.15, 1.0))


def eido_ids(m: Map) -> np.ndarray:
    """Ids of the rows of ``m.positions``: the Eidos, then the Pousas."""
    return np.asarray([*m.eido_ids, *m.record.pousas.ids], dtype=str)


def _index_of(ids: np.ndarray, keys) -> np.ndarray:
    """Position of each key in ``ids`` (-1 where absent), by binary search."""
    keys = np.asarray(list(keys), dtype=str)
    if len(keys) == 0 or len(ids) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    pos = np.searchsorted(ids[order], keys).clip(0, len(ids) - 1)
    return np.where(ids[order][pos] == keys, order[pos], -1)


def positions_of(m: Map, names) -> np.ndarray:
    """Drawing position of each named Eido or Pousa; NaN for anything else (the teleport hub)."""
    k = _index_of(eido_ids(m), names)
    xy = np.full((len(k), 2), np.nan)
    xy[k >= 0] = m.positions[k[k >= 0]]
    return xy


def eido_values(m: Map, mapping: dict) -> np.ndarray:
    """A per-Eido array of ``mapping``'s values (keyed by Eido id); NaN where absent."""
    out = np.full(len(m.eido_ids), np.nan)
    k = _index_of(np.asarray(m.eido_ids, dtype=str), mapping.keys())
    vals = np.fromiter(mapping.values(), dtype=float, count=len(mapping))
    out[k[k >= 0]] = vals[k >= 0]
    return out


def draw_eidos(ax, m: Map, *, facecolors=None, values=None, cmap=None, norm=None, alpha=None, linewidth=None,
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


def _region_outlines(m: Map) -> list[np.ndarray]:
    """Outline of each region (the boundary of its Eidos dissolved together)."""
    regions = np.empty(len(m.eido_ids), dtype=object)
    regions[:] = m.record.regions
    has = np.not_equal(regions, None)  # type: ignore[call-overload]  # (each item against None: numpy's stubs know no None operand)
    if not has.any():
        return []
    _, code = np.unique(regions[has].astype(str), return_inverse=True)
    geoms = m.geometries[has]
    dissolved = [_dissolve(geoms[code == k]) for k in range(code.max() + 1)]  # one per region
    return line_coords(shapely.get_rings(shapely.get_parts(np.asarray(dissolved, dtype=object))))


def draw_features(ax, m: Map, *, regions=True, roads=True, fountains=True, streams=True, alpha=1.0) -> list:
    """Region borders, roads, Pousas, fountains and streams; returns their legend handles."""
    md = m.record
    w, a = max(_scale(m), 0.4), _scale(m) ** 2  # line widths, marker areas
    handles = []
    outlines = _region_outlines(m) if regions else []
    if outlines:
        dashes: dict[str, Any] = {"color": "white", "linestyle": (0, (4, 2.5))}
        ax.add_collection(LineCollection(outlines, **dashes, linewidth=2.2 * w, alpha=alpha, zorder=2, gid="regions",
                                         path_effects=[withStroke(linewidth=3.6 * w, foreground=(0, 0, 0, 0.45))]),
                          autolim=False)
        handles.append(Line2D([], [], **dashes, linewidth=2.2, label="region border",
                              path_effects=[withStroke(linewidth=3.6, foreground=(0, 0, 0, 0.45))]))
    if roads and len(md.roads):
        ax.add_collection(LineCollection(line_coords(md.roads.geoms), color=ROAD_COLOR, linewidth=1.6 * w, alpha=alpha,
                                         zorder=3, gid="roads"), autolim=False)
        handles.append(Line2D([], [], color=ROAD_COLOR, linewidth=1.6, label="road"))
    if roads and len(md.pousas):
        xy = shapely.get_coordinates(md.pousas.geoms)
        ax.scatter(xy[:, 0], xy[:, 1], s=18 * a, facecolor="white", edgecolor=ROAD_COLOR, linewidth=0.8 * w,
                   alpha=alpha, zorder=4, gid="pousas")
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=5, markerfacecolor="white",
                              markeredgecolor=ROAD_COLOR, label="Pousa"))
    if streams and len(md.streams):
        ax.add_collection(LineCollection(line_coords(md.streams.geoms), color=STREAM_COLOR, linewidth=1.3 * w,
                                         alpha=alpha, zorder=3, gid="streams"), autolim=False)
        tail = shapely.get_coordinates(shapely.get_point(md.streams.geoms, -2))
        mouth = shapely.get_coordinates(shapely.get_point(md.streams.geoms, -1))
        d = mouth - tail
        ax.quiver(tail[:, 0], tail[:, 1], d[:, 0], d[:, 1], angles="xy", scale_units="xy", scale=1, color=STREAM_COLOR,
                  width=0.004 * w, headwidth=4, headlength=5, alpha=alpha, zorder=3, gid="stream-mouths")
        handles.append(Line2D([], [], color=STREAM_COLOR, linewidth=1.3, marker=">", markevery=[1],
                              label="stream (source to mouth)"))
    if fountains and len(md.fountains):
        xy = shapely.get_coordinates(md.fountains.geoms)
        ax.scatter(xy[:, 0], xy[:, 1], s=40 * max(a, 0.1), marker="D", facecolor=FOUNTAIN_COLOR, edgecolor=STREAM_COLOR,
                   linewidth=0.8 * w, alpha=alpha, zorder=4, gid="fountains")
        handles.append(Line2D([], [], linestyle="none", marker="D", markersize=6, markerfacecolor=FOUNTAIN_COLOR,
                              markeredgecolor=STREAM_COLOR, label="fountain"))
    return handles


def add_legend(ax, handles, title=None) -> None:
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize="small",
                  title=title, title_fontsize="small", alignment="left")


def terrain_colors(catalog, colors: dict | None) -> np.ndarray:
    spare = colormaps["tab20"]
    table = {**TERRAIN_COLORS, **(colors or {})}
    return to_rgba_array([table.get(t.name, spare(k % 20)) for k, t in enumerate(catalog.terrains)])


def turn_colors(n: int) -> np.ndarray:
    if n <= 10:
        return colormaps["tab10"](np.arange(n))  # (its first n colours)
    return colormaps["viridis"](np.linspace(0.0, 0.9, n))


# -- what the pictures and the interactive maps both say -------------------------------
def route_title(r) -> str:
    who = f"{shown(r.actor)}: {shown(r.start)} \u2192 {shown(r.goal)}"
    if not r.reachable:
        return f"{who}: cannot be reached"
    if r.turns:
        when = (f"arrives in turn {r.arrival_turn}" if r.arrival_turn is not None
                else f"not there after the {len(r.turns)} rolls given")
    else:
        worst = "unbounded" if r.worst_turns is None else r.worst_turns
        when = f"{r.expected_turns:.2f} turns expected (best {r.best_turns}, worst {worst})"
    return f"{who}\n{when}; {r.total_cost:g} PtMv"


class ReachValue(Mode):
    """What a picture of a :class:`~eidomap.answers.routing.Reach` shows: the chance of having arrived within its
    turns, the turn of first arrival, or (one roll) the debt carried into the next turn -- each a field of the
    Reach."""

    P_WITHIN = "p_within"
    ARRIVAL_TURN = "arrival_turn"
    DEBT = "debt"


def reach_scale(kind: ReachValue, v: np.ndarray) -> tuple[Colormap, Normalize, str]:
    if kind is ReachValue.P_WITHIN:
        return colormaps["viridis"], Normalize(0.0, 1.0), "P(arrived within {turns} turns)"
    top = float(np.nanmax(v)) if np.isfinite(v).any() else 0.0
    if kind is ReachValue.ARRIVAL_TURN:
        cmap = colormaps["viridis_r"]
        return cmap, BoundaryNorm(np.arange(-0.5, top + 1.0), cmap.N), "turn of first arrival"
    return colormaps["YlOrRd"], Normalize(0.0, max(top, 1.0)), "debt carried into the next turn (PtMv)"


def reach_title(reach, kind: ReachValue) -> str:
    who = f"{shown(reach.actor)} from {shown(reach.start)}"
    if kind is ReachValue.P_WITHIN:
        return f"{who}: P(arrived within {reach.turns} turns)"
    if kind is ReachValue.ARRIVAL_TURN:
        return f"{who}: turn of first arrival"
    return f"{who} with a roll of {reach.roll}: where it can end the turn"


def _feature_key(label: str) -> str:
    """A feature id as problems name it (``'id'`` quoted by the lenient reader, or plain)."""
    if len(label) >= 2 and label[0] == label[-1] and label[0] in "'\"":
        return label[1:-1]
    return label


def _raw_location(doc, i: int) -> tuple[float, float] | None:
    """Centre of the first ring of feature ``i`` of the file, even if the reader skipped it."""
    f = doc.features[i] if 0 <= i < len(doc.features) else None
    geom = f.get("geometry") if isinstance(f, dict) else None
    coords = geom.get("coordinates") if isinstance(geom, dict) else None
    if not isinstance(coords, Coords) or not len(coords.rings[0]):
        return None
    ring = coords.rings[0][:, :2]
    if not np.isfinite(ring).all():
        return None
    x, y = (ring.min(axis=0) + ring.max(axis=0)) / 2
    return float(x), float(y)


def problem_places(m: Map, problems) -> tuple[np.ndarray, dict[str, set[int]]]:
    """Where to draw each problem, and the Eidos to outline for each severity.

    A problem is drawn at its location, else at the first of its features that
    is an Eido or Pousa, else where that feature is in the file (a feature the
    lenient reader skipped, named ``'id'`` or ``#index``); NaN if nowhere.
    """
    doc, ids, n_eidos = m.data.document, eido_ids(m), len(m.eido_ids)
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
                by_label = {_feature_key(doc.label(j)): j for j in range(len(doc.features))}
            raw = [_raw_location(doc, by_label.get(key, -1)) for key in keys]
            loc[i] = next((r for r in raw if r is not None), (np.nan, np.nan))
    return loc, marks
