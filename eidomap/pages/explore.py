"""Interactive maps that open anywhere, with no network: Bokeh, its JavaScript inlined.

:func:`explore` draws a map to pan, zoom and hover -- Eidos filled by terrain,
a tooltip on each (id, name, terrain, region and, for a species, its PtMv to
enter), roads, Pousas, fountains and streams as layers the legend switches off
-- with a route turn by turn, a reachability result or validation problems on
top.  It returns an :class:`ExploreMap`, which shows itself in Jupyter (as
``GeoDataFrame.explore()`` does) and saves as **one** self-contained HTML file
(:func:`~eidomap.pages.html.save_html`, ``bokeh.resources.INLINE``): no script, style or tile is
fetched from anywhere, so the file opens offline, years later.

Coordinates are rounded to 1e-4 of the map's larger side (:data:`SCREEN`: finer
than a 10,000-pixel screen shows), and above :data:`MAX_EIDOS` Eidos it refuses
with a message that suggests a picture (``--png``) or a part of the map
(``bbox``, ``--bbox``).  Optional: ``pip install "eidomap[explore]"``.

>>> import eidomap
>>> from eidomap.answers.routing import route
>>> m = eidomap.load(eidomap.demo_map_path())
>>> view = explore(m, route=route(m, "bouza-vella", "porto-norte", "human", rolls=[3, 5, 2, 6]), species="human")
>>> view.figure.select_one({"name": "eidos"}).data_source.data["id"][:2]
['ceo-poente', 'ceo-gaivotas']
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from matplotlib.colors import to_hex

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.names import shown
from eidomap.model.map import Map
from eidomap.pages.html import framed, save_html
from eidomap.plot.parts import (
    FOUNTAIN_COLOR,
    OTHER_SEVERITY_STYLE,
    ROAD_COLOR,
    SEVERITY_STYLE,
    STREAM_COLOR,
    UNREACHED_COLOR,
    checked_problems,
    eido_values,
    line_coords,
    map_bounds,
    positions_of,
    problem_places,
    reach_scale,
    reach_title,
    route_title,
    terrain_colors,
    turn_colors,
)
from eidomap.plot.reach import reach_kind

if TYPE_CHECKING:
    from collections.abc import Sequence

    from eidomap.answers.routing import Reach, Route, Turn
    from eidomap.base.problems import Problem
    from eidomap.validate.checks import Report

#: Most Eidos an interactive map shows (pan and hover stay smooth in a browser).
MAX_EIDOS = 50_000
#: Coordinates are rounded to this fraction of the map's larger side.
SCREEN = 1e-4
#: Decimals a reach's values keep in the page (shown at 4 decimals, in 256 colours): the last bits of a sum, which
#: another machine's arithmetic may give otherwise, do not change the page.
VALUE_DECIMALS = 9
_INSTALL = 'pip install "eidomap[explore]"'
_TOOLS = "pan,wheel_zoom,box_zoom,reset,save"


def _bokeh():
    try:
        import bokeh  # noqa: F401
    except ImportError:
        raise RequestError(f"interactive maps need Bokeh: {_INSTALL}") from None


@dataclass
class ExploreMap:
    """An interactive map: the Bokeh ``layout`` (its main ``figure`` inside) and a title.

    Shown inline in Jupyter (an isolated frame holding the same self-contained
    page :meth:`save` writes); ``bokeh.plotting.show(view.layout)`` works too.
    """

    layout: Any
    figure: Any
    title: str

    def to_html(self) -> str:
        """The whole page, BokehJS inlined; the same view gives the same bytes (``_stable_ids``)."""
        from bokeh.embed import file_html
        from bokeh.resources import INLINE

        return _stable_ids(file_html(self.layout, INLINE, self.title))

    def save(self, path: str | os.PathLike) -> None:
        """Write the page to ``path`` (see :func:`~eidomap.pages.html.save_html`)."""
        save_html(self, path)

    def _repr_html_(self) -> str:
        return framed(self.to_html())


#: A Bokeh model's id where the page's document names it: the ``"id"`` member of a model or of a reference to one
#: (quotes inside a JSON string are escaped: text of the map cannot take this shape).
_MODEL_ID = re.compile(r'(?<=[{,]"id":")p[0-9]+(?=")')
#: A root element's model, as its ``<div>`` names it.
_ROOT_ID = re.compile(r'(?<= data-root-id=")p[0-9]+(?=")')


def _stable_ids(page: str) -> str:
    """``page`` with the ids Bokeh made for it named after its contents instead.

    Bokeh names the document, its root elements and the script holding the
    document with a fresh ``uuid4`` each time, and its models ``p1001``,
    ``p1002``... from a counter of the whole process (a second page made in
    the same process numbers its models on), so a saved notebook or page
    changed from run to run, and with what was drawn before it.  The models
    are numbered again in the order the document gives them (``p1``,
    ``p2``...), and the others renamed ``eidomap-<digest>-<k>``, the digest
    of the page so numbered without them: the same view gives the same page.
    All are found where the page's loader names them (the render items, the
    script it reads, each model's ``"id"``, the root's ``data-root-id``),
    never by their shape alone: map data that looks like an id is left alone.
    """
    items = re.search(r"const render_items = (\[.*?\]);", page)
    script = re.search(r"document\.getElementById\('([^']+)'\)\.textContent", page)
    docs = script and re.search(f'<script type="application/json" id="{re.escape(script[1])}">(.*?)</script>', page,
                                re.S)
    if items is None or script is None or docs is None:
        return page
    models = {old: f"p{k}" for k, old in enumerate(dict.fromkeys(_MODEL_ID.findall(docs[1])), start=1)}

    def model(hit: re.Match) -> str:
        return models.get(hit[0], hit[0])

    found = json.loads(items[1])
    for item in found:
        item["roots"] = {models.get(k, k): element for k, element in item["roots"].items()}
        item["root_ids"] = [models.get(k, k) for k in item["root_ids"]]
    renamed = f"const render_items = {json.dumps(found, separators=(',', ':'))};"
    page = _ROOT_ID.sub(model, page.replace(docs[0], _MODEL_ID.sub(model, docs[0]), 1).replace(items[0], renamed, 1))
    roots = [e for i in found for e in i["roots"].values()]
    made = list(dict.fromkeys([script[1], *(i["docid"] for i in found), *roots]))
    pattern = re.compile("|".join(map(re.escape, made)))
    digest = hashlib.sha256(pattern.sub("", page).encode()).hexdigest()[:20]
    names = {old: f"eidomap-{digest}-{k}" for k, old in enumerate(made)}
    return pattern.sub(lambda hit: names[hit[0]], page)


def parse_bbox(text: str) -> tuple[float, float, float, float]:
    """``"x0,y0,x1,y1"`` as four finite numbers with ``x0 < x1`` and ``y0 < y1``.

    >>> parse_bbox("0, 0, 10.5, 20")
    (0.0, 0.0, 10.5, 20.0)
    """
    try:
        box = tuple(float(v) for v in params.text(text, "bbox", "text x0,y0,x1,y1").split(","))
    except ValueError:
        box = ()
    return _box(box, text)


def _box(box: object, given: object) -> tuple[float, float, float, float]:
    """``box`` as four finite numbers ``x0, y0, x1, y1`` with ``x0 < x1`` and ``y0 < y1``; the
    :class:`RequestError` showing what was ``given`` else."""
    try:
        x0, y0, x1, y1 = params.reals(box, "bbox")
    except (RequestError, ValueError):  # (not numbers; not four)
        pass
    else:
        if x0 < x1 and y0 < y1:
            return float(x0), float(y0), float(x1), float(y1)
    raise params.refused("bbox", "x0,y0,x1,y1 with x0 < x1 and y0 < y1", given)


# -- geometry to Bokeh columns ----------------------------------------------------
def _decimals(bounds) -> int:
    """Decimal places that keep coordinates at :data:`SCREEN` of the larger side."""
    side = max(bounds[2] - bounds[0], bounds[3] - bounds[1], 1e-300)
    return int(-math.floor(math.log10(side * SCREEN)))


def _split(values: list, offsets: np.ndarray) -> list:
    return [values[a:b] for a, b in pairwise(offsets.tolist())]


def _polygons(geoms: np.ndarray, decimals: int) -> tuple[list, list]:
    """``xs``, ``ys`` of Bokeh's ``multi_polygons``: per Eido, per part, per ring (the closing vertex left out)."""
    if not len(geoms):
        return [], []
    _, xy, offsets = shapely.to_ragged_array(geoms, include_z=False)
    ring_off, part_off = offsets[:2]
    geom_off = offsets[2] if len(offsets) == 3 else np.arange(len(part_off))
    xy = np.round(xy, decimals)
    out = []
    for col in (0, 1):
        rings = [xy[a : b - 1, col].tolist() for a, b in pairwise(ring_off.tolist())]
        out.append(_split(_split(rings, part_off), geom_off))
    return out[0], out[1]


def _lines(geoms, decimals: int) -> tuple[list, list]:
    """``xs``, ``ys`` of ``multi_line``: one list per line."""
    parts = [np.round(c, decimals) for c in line_coords(geoms)]
    return [c[:, 0].tolist() for c in parts], [c[:, 1].tolist() for c in parts]


def _hex(rgba) -> list[str]:
    return [to_hex(c) for c in rgba]


# -- layers -------------------------------------------------------------------------
class _Builder:
    """Adds the layers of one interactive map to a Bokeh figure."""

    def __init__(self, m: Map, shown: np.ndarray, bounds, fig):
        self.m, self.shown, self.fig = m, shown, fig
        self.decimals = _decimals(bounds)
        self.box = shapely.box(*bounds)

    def xy(self, names) -> np.ndarray:
        return np.round(positions_of(self.m, names), self.decimals)

    def eidos(self, species, values=None, mapper=None):
        from bokeh.models import ColumnDataSource, HoverTool

        m, k = self.m, self.shown
        xs, ys = _polygons(m.geometries[k], self.decimals)
        names, labels = m.display_names, m.catalog.terrains
        ids = [m.eido_ids[i] for i in k.tolist()]
        data = {"xs": xs, "ys": ys, "id": ids, "name": [names.get(e, "") for e in ids],
                "terrain": [labels[t].label or labels[t].name for t in m.record.terrain[k].tolist()],
                "region": [r or "" for r in (m.record.regions[i] for i in k.tolist())],
                "color": _hex(terrain_colors(m.catalog, None)[m.record.terrain[k]])}
        tips = [("Eido", "@id"), ("name", "@name"), ("terrain", "@terrain"), ("region", "@region")]
        if species is not None:
            data["cost"] = self.costs(species)
            tips.append((f"PtMv to enter ({species})", "@cost"))
        fill: Any = "color"
        if values is not None:
            data["value"] = values[k]
            fill = {"field": "value", "transform": mapper}
            tips.append(("value", "@value{0.[0000]}"))
        r = self.fig.multi_polygons(xs="xs", ys="ys", source=ColumnDataSource(data), fill_color=fill,
                                    line_color="#333333", line_width=0.5, name="eidos", legend_label="Eidos",
                                    hover_line_color="black", hover_line_width=2.0, hover_fill_color=fill)
        self.fig.add_tools(HoverTool(renderers=[r], tooltips=tips, name="eido-hover"))

    def costs(self, species) -> list[str]:
        from eidomap.model.network import KIND
        from eidomap.rules.actors import resolve_actor

        a = resolve_actor(self.m, species)
        cost = a.table[KIND["border"], self.m.record.terrain[self.shown]]
        return [f"{c:g}" if np.isfinite(c) else "cannot enter" for c in cost.tolist()]

    def within(self, geoms) -> np.ndarray:
        return np.flatnonzero(shapely.intersects(np.asarray(geoms, dtype=object), self.box))

    def features(self):
        from bokeh.models import ColumnDataSource, HoverTool

        md, f = self.m.record, self.fig
        for layer, color, width, label in ((md.roads, ROAD_COLOR, 2.0, "roads"),
                                           (md.streams, STREAM_COLOR, 1.6, "streams")):
            k = self.within(layer.geoms)
            if len(k):
                xs, ys = _lines(layer.geoms[k], self.decimals)
                r = f.multi_line(xs="xs", ys="ys", line_color=color, line_width=width, legend_label=label, name=label,
                                 source=ColumnDataSource({"xs": xs, "ys": ys}))
                r.level = "overlay" if label == "roads" else r.level
        for layer, marker, fill, line, label in ((md.pousas, "circle", "white", ROAD_COLOR, "Pousas"),
                                                 (md.fountains, "diamond", FOUNTAIN_COLOR, STREAM_COLOR, "fountains")):
            k = self.within(layer.geoms)
            if not len(k):
                continue
            xy = np.round(shapely.get_coordinates(layer.geoms[k]), self.decimals)
            data = {"x": xy[:, 0], "y": xy[:, 1], "id": [layer.ids[i] for i in k.tolist()]}
            if label == "Pousas":
                data["road"] = [md.roads.ids[md.pousa_road[i]] for i in k.tolist()]
            r = f.scatter("x", "y", marker=marker, size=7 if label == "Pousas" else 10, fill_color=fill,
                          line_color=line, source=ColumnDataSource(data), legend_label=label, name=label)
            f.add_tools(HoverTool(renderers=[r], tooltips=[(label[:-1], "@id"), *([("road", "@road")]
                                                                                  if label == "Pousas" else [])]))

    def route(self, r):
        """The route turn by turn: one line per turn, each turn's end numbered, the itinerary in tooltips."""
        from bokeh.models import ColumnDataSource, HoverTool
        from bokeh.models.annotations import LabelSet  # (bokeh.models' stubs do not re-export it)

        f = self.fig
        turns = r.turns or []
        lines = []
        ends: dict[str, list[Turn]] = {}  # a turn's end node -> the turns ending there
        palette = _hex(turn_colors(max(len(turns), 1)))
        k = 1
        for t in turns:  # one row per turn
            nodes = [r.path[k - 1].node] + [s.node for s in t.steps]
            text = ", ".join(f"{s.node} ({s.kind}, {s.cost:g})" for s in t.steps) or "stays"
            lines.append((nodes, palette[t.turn - 1], "solid",
                          f"turn {t.turn}: roll {t.roll}, budget {t.budget:g}, spent {t.spent:g},"
                          f" debt after {t.debt_after:g}", text))
            ends.setdefault(t.end, []).append(t)
            k += len(t.steps)
        rest = r.path[k - 1 :] if turns else r.path
        if len(rest) > 1:
            what = "beyond the rolls given" if turns else route_title(r).replace("\n", "; ")
            lines.append(([s.node for s in rest], "#555555" if turns else "#c2185b", "dashed" if turns else "solid",
                          what, ", ".join(f"{s.node} ({s.kind}, {s.cost:g})" for s in rest[1:])))
        if lines:
            xs, ys = [], []
            for nodes, *_ in lines:
                xy = self.xy(nodes)
                xy = xy[np.isfinite(xy).all(axis=1)]  # the teleport hub has no place
                xs.append(xy[:, 0].tolist())
                ys.append(xy[:, 1].tolist())
            src = ColumnDataSource({"xs": xs, "ys": ys, "color": [x[1] for x in lines], "dash": [x[2] for x in lines],
                                   "turn": [x[3] for x in lines], "steps": [x[4] for x in lines]})
            rr = f.multi_line(xs="xs", ys="ys", line_color="color", line_dash="dash", line_width=4, source=src,
                              legend_label="route", name="route", hover_line_width=7)
            f.add_tools(HoverTool(renderers=[rr], tooltips=[("", "@turn"), ("steps", "@steps")], line_policy="nearest"))
        if ends:
            xy = self.xy(list(ends))
            ok = np.isfinite(xy).all(axis=1)
            groups = [g for g, good in zip(ends.values(), ok, strict=True) if good]
            src = ColumnDataSource({
                "x": xy[ok, 0], "y": xy[ok, 1], "label": [",".join(str(t.turn) for t in g) for g in groups],
                "color": [palette[g[-1].turn - 1] for g in groups],
                "where": [f"end of turn {', '.join(str(t.turn) for t in g)}: {g[0].end}" for g in groups],
                "debt": [", ".join(f"{t.debt_after:g}" for t in g) for g in groups]})
            rt = f.scatter("x", "y", size=20, fill_color="color", line_color="white", line_width=1.5, source=src,
                           legend_label="turn ends", name="turn-ends")
            f.add_layout(LabelSet(x="x", y="y", text="label", source=src, text_color="white", text_font_size="9pt",
                                  text_font_style="bold", text_align="center", text_baseline="middle"))
            f.add_tools(HoverTool(renderers=[rt], tooltips=[("", "@where"), ("debt carried", "@debt")]))
        se = self.xy([r.start, r.goal])
        f.scatter(se[:1, 0], se[:1, 1], size=12, fill_color="black", line_color="white",
                  legend_label=f"start: {r.start}")
        f.scatter(se[1:, 0], se[1:, 1], size=22, marker="star", fill_color="gold", line_color="black",
                  legend_label=f"goal: {r.goal}")

    def problems(self, problems):
        from bokeh.models import ColumnDataSource, HoverTool

        loc, _ = problem_places(self.m, problems)
        ok = np.isfinite(loc).all(axis=1)
        for sev in dict.fromkeys(p.severity for p in problems):
            keep = [i for i, p in enumerate(problems) if p.severity == sev and ok[i]]
            if not keep:
                continue
            color, marker = SEVERITY_STYLE.get(sev, OTHER_SEVERITY_STYLE)
            src = ColumnDataSource({"x": loc[keep, 0], "y": loc[keep, 1],
                                    "code": [problems[i].code for i in keep],
                                    "features": [", ".join(problems[i].features) for i in keep],
                                    "message": [problems[i].message for i in keep]})
            r = self.fig.scatter("x", "y", source=src, size=14, marker="x" if marker == "X" else "triangle",
                                 line_color=color, fill_color=color, line_width=3, legend_label=f"{sev}s",
                                 name=f"problems-{sev}")
            self.fig.add_tools(HoverTool(renderers=[r], tooltips=[(sev, "@code"), ("features", "@features"),
                                                                  ("", "@message")]))


def _reach_layer(m: Map, reach):
    """Per-Eido values of a Reach, its colour mapper and colour bar."""
    from bokeh.models import LinearColorMapper
    from bokeh.models.annotations import ColorBar
    from bokeh.palettes import Viridis256, YlOrRd9

    kind = reach_kind(reach)
    v = eido_values(m, getattr(reach, kind))
    if kind == "p_within":
        v = np.where(v > 0, v, np.nan)
    v = np.round(v, VALUE_DECIMALS)
    top = float(np.nanmax(v)) if np.isfinite(v).any() else 1.0
    palette = {"p_within": Viridis256, "arrival_turn": Viridis256[::-1], "debt": YlOrRd9[::-1]}[kind]
    mapper = LinearColorMapper(palette=palette, low=0.0, high=1.0 if kind == "p_within" else max(top, 1.0),
                               nan_color=UNREACHED_COLOR)
    label = reach_scale(kind, v)[2].format(turns=reach.turns)
    return v, mapper, ColorBar(color_mapper=mapper, title=label, width=12), kind


def explore(m: Map, *, route: Route | None = None, reach: Reach | None = None,
            problems: Sequence[Problem] | Report | None = None, species: str | None = None,
            bbox: tuple[float, float, float, float] | None = None, title: str | None = None) -> ExploreMap:
    """An interactive map of ``m`` (Bokeh), to show in Jupyter or save as one offline HTML file.

    Parameters
    ----------
    m : Map
        The map.
    route : Route, optional
        Drawn turn by turn (with rolls: one colour per turn, each turn's end numbered, its roll, budget, debt and
        steps in the tooltips), or as one line under the dice.
    reach : Reach, optional
        The Eidos coloured by what it holds (P within K turns, turn of first arrival, or debt), with a colour
        bar; grey where not reached.
    problems : list of Problem or a validation Report, optional
        Markers at each problem, its code and message in the tooltip.
    species : str, optional
        Each Eido's tooltip gives this species' PtMv to enter it.
    bbox : (x0, y0, x1, y1), optional
        Show only the Eidos and features meeting this box.
    title : str, optional
        The title (default: the route's, the reach's or the map's name).

    Returns
    -------
    ExploreMap
        Shown inline in Jupyter; ``.save(path)`` writes one HTML file with BokehJS inlined, ``.to_html()``
        gives its text.

    Raises
    ------
    RequestError
        Without Bokeh (``pip install "eidomap[explore]"``), with more than ``MAX_EIDOS`` (50,000) Eidos to show,
        or with no Eido in ``bbox``.

    See Also
    --------
    eidomap.plot.plot_map : A picture (PNG, SVG) with matplotlib.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.answers.routing import route
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> view = eidomap.explore(m, route=route(m, "bouza-vella", "porto-norte", "human", rolls=[3, 5]))
    >>> view.title
    'human: bouza-vella → porto-norte; arrives in turn 2; 6 PtMv'
    """
    _bokeh()
    from bokeh.layouts import column
    from bokeh.plotting import figure

    from eidomap.answers.routing import Reach, Route

    m = params.instance(m, "m", Map)
    route = params.maybe(params.instance, route, "route", Route)
    reach = params.maybe(params.instance, reach, "reach", Reach)
    problems = [] if problems is None else checked_problems(problems)
    species, title = params.maybe(params.text, species, "species"), params.maybe(params.text, title, "title")
    bbox = None if bbox is None else _box(bbox, bbox)
    geoms = m.geometries
    kept = np.arange(len(geoms)) if bbox is None else np.flatnonzero(shapely.intersects(geoms, shapely.box(*bbox)))
    if len(kept) > MAX_EIDOS:
        raise RequestError(f"{shown(m.path or m.name)}: {len(kept):,} Eidos to show, more than the"
                           f" {MAX_EIDOS:,} an interactive map keeps smooth; draw a picture instead, or show a part of"
                           " the map (bbox=(x0, y0, x1, y1))")
    if not len(kept):
        raise RequestError(f"{shown(m.path or m.name)}: no Eido meets the box {bbox}")
    bounds = tuple(shapely.total_bounds(geoms[kept])) if bbox is not None else map_bounds(m)
    if title is None:
        title = (route_title(route).replace("\n", "; ") if route is not None
                 else m.name if reach is None else reach_title(reach, reach_kind(reach)))
    pad = 0.02 * max(bounds[2] - bounds[0], bounds[3] - bounds[1])
    x_range, y_range = (bounds[0] - pad, bounds[2] + pad), (bounds[1] - pad, bounds[3] + pad)
    fig = figure(title=title, match_aspect=True, tools=_TOOLS, active_scroll="wheel_zoom", sizing_mode="stretch_width",
                 height=680, x_range=x_range, y_range=y_range)  # type: ignore[arg-type]  # (a Range1d of (start, end))
    fig.grid.visible = False
    b = _Builder(m, kept, bounds, fig)
    if reach is not None:
        values, mapper, bar, _ = _reach_layer(m, reach)
        b.eidos(species, values, mapper)
        fig.add_layout(bar, "right")
    else:
        b.eidos(species)
    b.features()
    if route is not None and route.reachable:
        b.route(route)
    if problems:
        b.problems(problems)
    fig.legend.click_policy = "hide"
    fig.legend.title = "layers (click to hide)"
    fig.add_layout(fig.legend[0], "right")
    return ExploreMap(column(fig, sizing_mode="stretch_width"), fig, title)
