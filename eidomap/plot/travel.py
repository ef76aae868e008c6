"""d20 overland journeys: roads by class, rivers with their flow, the route day by day, the night camps."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
import shapely
from matplotlib.artist import Artist
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.patheffects import withStroke
from matplotlib.typing import LineStyleType

from eidomap.base import params
from eidomap.base.names import shown
from eidomap.model.map import Map
from eidomap.plot.map import plot_map
from eidomap.plot.parts import (
    LEGEND_TURNS,
    add_legend,
    frame_axes,
    line_coords,
    map_axes,
    map_bounds,
    save_drawn,
    terrain_colors,
    turn_colors,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from eidomap.answers.overland import Travel

#: Road classes of d20 maps: colour, width and line style.
_ROAD_CLASSES: dict[str, tuple[str, float, LineStyleType]] = {
    "highway": ("#4a2a0c", 3.0, "-"), "road": ("#8d5524", 1.8, "-"), "trail": ("#8d5524", 1.4, "--")}
_RIVER = "#1565c0"


def _d20_features(ax, m: Map) -> list:
    """Roads by class and rivers with arrows along their flow; returns legend handles."""
    md = m.record
    handles: list[Artist] = []
    classes = np.asarray([c or "road" for c in md.road_class], dtype=object)
    for cls, (color, width, style) in _ROAD_CLASSES.items():
        mine = md.roads.geoms[classes == cls] if len(classes) else []
        if len(mine):
            ax.add_collection(LineCollection(line_coords(mine), color=color, linewidth=width, linestyle=style,
                                             zorder=3, gid=f"roads-{cls}"), autolim=False)
            handles.append(Line2D([], [], color=color, linewidth=width, linestyle=style, label=cls))
    if len(md.rivers):
        ax.add_collection(LineCollection(line_coords(md.rivers.geoms), color=_RIVER, linewidth=2.2, zorder=3,
                                         gid="rivers"), autolim=False)
        xy, which = shapely.get_coordinates(md.rivers.geoms, return_index=True)
        same = which[1:] == which[:-1]
        a, d = xy[:-1][same], (xy[1:] - xy[:-1])[same]
        mid = a + d / 2
        x0, y0, x1, y1 = map_bounds(m)
        d = d / np.hypot(d[:, 0], d[:, 1])[:, None] * 0.025 * max(x1 - x0, y1 - y0)
        ax.quiver(mid[:, 0], mid[:, 1], d[:, 0], d[:, 1], angles="xy", scale_units="xy", scale=1, pivot="mid",
                  color=_RIVER, zorder=3, width=0.004, headwidth=4, headlength=4, gid="river-flow")
        handles.append(Line2D([], [], color=_RIVER, linewidth=2.2, marker=">", markevery=[1],
                              label="river (arrows: flow)"))
    return handles


def plot_travel(m: Map, result: Travel, ax: Axes | None = None) -> Axes:
    """Draw a d20 overland journey on its map.

    The regions by terrain, roads by class (highway thick, road, trail dashed), rivers with arrows along their
    flow, the route coloured by day (floating, towed and rowed stretches dotted) and each night's camp
    numbered with the day that ends there.

    Parameters
    ----------
    m : Map
        The d20 overland map.
    result : Travel
        From :func:`eidomap.answers.overland.travel`.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    See Also
    --------
    save_travel_png : Draw and write it.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.answers.overland import example_map_path, travel
    >>> m = eidomap.load(example_map_path())
    >>> plot_travel(m, travel(m, "greenfield", "kingsbridge")).get_title()
    'greenfield → kingsbridge: 51.0 miles, 17.7 hours of travel, 3 days'
    """
    from eidomap.answers.overland import Travel

    m = params.instance(m, "m", Map)
    result = params.instance(result, "result", Travel, "a Travel (eidomap.answers.overland.travel)")
    ax = map_axes(ax, m)
    plot_map(m, ax, legend=False, roads=False, regions=False, streams=False, alpha=0.75, title="")
    table = terrain_colors(m.catalog, None)
    handles: list[Artist] = [Patch(facecolor=table[k], edgecolor="#333333", label=m.catalog.terrains[k].label)
               for k in np.unique(m.record.terrain)]
    handles += _d20_features(ax, m)
    if result.reachable and len(result.path) > 1:
        xy = np.asarray(result.path, dtype=float)
        day = np.asarray(result.day_of) - 1
        palette = turn_colors(len(result.days))
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
                    for d in result.days[:LEGEND_TURNS]]
        for d in result.days[:-1]:
            ax.text(*d.end, str(d.day), ha="center", va="center", fontsize=8, fontweight="bold", color="white",
                    zorder=9, gid="camp",
                    bbox={"boxstyle": "circle,pad=0.3", "facecolor": palette[d.day - 1], "edgecolor": "black"})
        if len(result.days) > 1:
            handles.append(Line2D([], [], linestyle="none", marker="o", markersize=9, markerfacecolor="white",
                                  markeredgecolor="black", label="night camp (day number)"))
        ends = xy[[0, -1]]
        start = ax.scatter(ends[:1, 0], ends[:1, 1], s=90, marker="o", color="black", edgecolor="white", zorder=7,
                           gid="start", label="start")
        goal = ax.scatter(ends[1:, 0], ends[1:, 1], s=380, marker="*", color="gold", edgecolor="black", zorder=7,
                          gid="goal", label="goal")
        handles += [start, goal]
        if result.boat is not None:
            at = np.asarray(result.boat, dtype=float)
            boat = ax.scatter(at[:, 0], at[:, 1], s=70, marker="D", color=_RIVER, edgecolor="white", zorder=8,
                              gid="boat", label="the boat: where it lay, where it is left")
            handles.append(boat)
    add_legend(ax, handles)
    when = (f"{result.miles:.1f} miles, {result.hours:.1f} hours of travel, {len(result.days)} days"
            if result.reachable else "no way there")
    ax.set_title(f"{shown(result.start)} \u2192 {shown(result.goal)}: {when}", fontsize="medium")
    frame_axes(ax, map_bounds(m))
    return ax


def save_travel_png(m: Map, result: Travel, path: str | os.PathLike) -> None:
    """Draw a journey with :func:`plot_travel` and write it (PNG or SVG by suffix).

    Parameters
    ----------
    m : Map
        The d20 overland map.
    result : Travel
        The journey.
    path : str or Path
        The picture's file.

    Raises
    ------
    RequestError
        For a suffix other than ``.png`` and ``.svg``.

    See Also
    --------
    plot_travel : Draw it on axes of your own.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> from eidomap.answers.overland import example_map_path, travel
    >>> m = eidomap.load(example_map_path())
    >>> path = Path(tempfile.mkdtemp()) / "trip.svg"
    >>> save_travel_png(m, travel(m, "greenfield", "kingsbridge"), path)
    >>> path.is_file()
    True
    """
    save_drawn(m, path, lambda ax: plot_travel(m, result, ax))
