"""A route drawn over its map, turn by turn."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D
from matplotlib.patheffects import withStroke

from eidomap.answers.routing import Route
from eidomap.base import params
from eidomap.base.names import shown
from eidomap.model.map import Map
from eidomap.plot.map import plot_map
from eidomap.plot.parts import (
    HALO,
    LEGEND_TURNS,
    add_legend,
    frame_axes,
    map_axes,
    map_bounds,
    positions_of,
    route_title,
    save_drawn,
    turn_colors,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes


_JUMPS = ("teleport_exit", "stream")


def plot_route(m: Map, route: Route, ax: Axes | None = None, *, zoom: bool = False) -> Axes:
    """Draw a route over the map.

    With a turn-by-turn itinerary (a :class:`~eidomap.answers.routing.Route` planned with ``rolls``), each turn is
    drawn in its own colour and its end is marked with the turn's number (``"1,2"`` where the actor stays put),
    with the debt carried into the next turn written under it; steps beyond the rolls given are grey and
    dashed.  Without turns (planned under the dice), the path is drawn in one colour and the title gives the
    expected turns.  Teleports and streams are dotted jumps.

    Parameters
    ----------
    m : Map
        The map.
    route : Route
        From :func:`eidomap.answers.routing.route`.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    zoom : bool
        Frame the route instead of the whole map.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    See Also
    --------
    save_route_png : Draw and write it.
    eidomap.answers.routing.route : Plan the route.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.answers.routing import route
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> ax = plot_route(m, route(m, "bouza-vella", "porto-norte", "human", rolls=[3, 5]), zoom=True)
    >>> print(ax.get_title())
    human: bouza-vella → porto-norte
    arrives in turn 2; 6 PtMv
    """
    m, route, zoom = params.instance(m, "m", Map), params.instance(route, "route", Route), params.flag(zoom, "zoom")
    ax = map_axes(ax, m)
    plot_map(m, ax, legend=False, alpha=0.45, title="")
    steps = route.path
    xy = positions_of(m, [s.node for s in steps])
    handles = []
    if len(steps) > 1:
        handles += _route_lines(ax, m, route, xy)
    if route.turns:
        _turn_marks(ax, m, route)
    ends = positions_of(m, [route.start, route.goal])
    ax.scatter(ends[:1, 0], ends[:1, 1], s=90, marker="o", color="black", edgecolor="white", zorder=7, gid="start")
    ax.scatter(ends[1:, 0], ends[1:, 1], s=420, marker="*", color="gold", edgecolor="black", zorder=7, gid="goal")
    for name, (x, y) in zip((route.start, route.goal), ends, strict=True):
        ax.annotate(shown(name), (x, y), xytext=(7, 7), textcoords="offset points", fontsize=8, fontweight="bold",
                    path_effects=HALO, zorder=8)
    handles += [Line2D([], [], linestyle="none", marker="o", color="black", label=f"start: {shown(route.start)}"),
                Line2D([], [], linestyle="none", marker="*", markersize=12, color="gold", markeredgecolor="black",
                       label=f"goal: {shown(route.goal)}")]
    add_legend(ax, handles)
    ax.set_title(route_title(route), fontsize="medium")
    if zoom:
        pts = np.vstack([xy, ends])
        pts = pts[np.isfinite(pts).all(axis=1)]
        x0, y0, x1, y1 = map_bounds(m)
        pad = max(0.25 * float(np.ptp(pts, axis=0).max()), 0.08 * max(x1 - x0, y1 - y0))
        lo, hi = pts.min(axis=0) - pad, pts.max(axis=0) + pad
        frame_axes(ax, (max(lo[0], x0), max(lo[1], y0), min(hi[0], x1), min(hi[1], y1)))
    return ax


def _route_lines(ax, m: Map, route, xy: np.ndarray) -> list:
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
        palette = turn_colors(len(route.turns))
        beyond = turn_of[k] < 0
        colors = np.where(beyond[:, None], to_rgba("#555555"), palette[np.maximum(turn_of[k], 0)])
        shown = route.turns[:LEGEND_TURNS]
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
    ax.add_collection(LineCollection(segs,  # type: ignore[arg-type]  # (an (n, 2, 2) array of segments)
                                     colors=colors, linestyles=list(styles), linewidths=2.6, capstyle="round",
                                     path_effects=[withStroke(linewidth=4.6, foreground="white")], zorder=5,
                                     gid="route"), autolim=False)
    if jump.any():
        handles.append(Line2D([], [], color="black", linestyle=":", linewidth=2, label="teleport or stream"))
    return handles


def _turn_marks(ax, m: Map, route) -> None:
    """Number each turn's end (turns ending in the same place share a mark); write the debts."""
    palette = turn_colors(len(route.turns))
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(route.turns):  # one entry per turn
        groups.setdefault(t.end, []).append(i)
    xy = positions_of(m, list(groups))
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
                        va="top", fontsize=7, fontstyle="italic", color="#8b0000", path_effects=HALO, zorder=9,
                        gid="debt")


def save_route_png(m: Map, route: Route, path: str | os.PathLike) -> None:
    """Draw ``route`` with :func:`plot_route` (zoomed on it) and write it (PNG or SVG by suffix).

    Parameters
    ----------
    m : Map
        The map.
    route : Route
        The route.
    path : str or Path
        The picture's file.

    Raises
    ------
    RequestError
        For a suffix other than ``.png`` and ``.svg``.

    See Also
    --------
    plot_route : Draw it on axes of your own.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> from eidomap.answers.routing import route
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> path = Path(tempfile.mkdtemp()) / "route.svg"
    >>> save_route_png(m, route(m, "bouza-vella", "porto-norte", "human"), path)
    >>> path.is_file()
    True
    """
    save_drawn(m, path, lambda ax: plot_route(m, route, ax, zoom=True))
