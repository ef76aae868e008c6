"""d20 battle grids: the squares and creatures, with a round's reach or a route round by round."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib import colormaps
from matplotlib.artist import Artist
from matplotlib.colors import BoundaryNorm, to_rgba, to_rgba_array
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.patheffects import withStroke
from matplotlib.ticker import MaxNLocator

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from eidomap.answers.grid import GridReach, GridRoute

from eidomap.base import params
from eidomap.plot.parts import LEGEND_TURNS, add_legend, picture_format, pyplot, save_figure, turn_colors
from eidomap.record.grid import Grid

#: Colours of a battle grid's squares: clear, hampered once, twice, three times; walls.
_GRID_COLORS = ("#f4f1e8", "#d9c9a3", "#b89f6b", "#8a6f3e")
_WALL = "#3b3b3b"


def _grid_axes(grid, ax):
    """``ax``, checked, or new axes sized to ``grid``."""
    from matplotlib.axes import Axes

    if ax is not None:
        return params.instance(ax, "ax", Axes, "matplotlib Axes")
    rows, cols = grid.shape
    _, ax = pyplot().subplots(figsize=(8.0, float(np.clip(8.0 * rows / cols, 3.0, 14.0))))
    return ax


def _grid_base(ax, grid) -> None:
    """The squares (shaded by how many conditions hamper them, walls dark) and the creatures."""
    from eidomap.record.grid import ALLY, ENEMY, IMPASSABLE
    from eidomap.rules.d20.grid import multipliers

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


def _grid_legend(ax, grid, extra=()) -> None:
    """The legend of the squares the grid has (clear, x2, x4, x8, impassable), its creatures and ``extra``."""
    from eidomap.record.grid import IMPASSABLE
    from eidomap.rules.d20.grid import multipliers

    mult = multipliers(grid)
    have = set(np.log2(mult[mult > 0]).astype(int).tolist())
    handles = [Patch(facecolor=c, label=f"x{2 ** i}" if i else "clear") for i, c in enumerate(_GRID_COLORS)
               if i in have]
    if (grid.flags & IMPASSABLE).any():
        handles.append(Patch(facecolor=_WALL, label="impassable"))
    handles += [h for h in ax.collections if h.get_gid() in ("ally", "enemy") and len(h.get_offsets())]
    add_legend(ax, [*handles, *extra])


def plot_grid_reach(grid: Grid, reach: GridReach, ax: Axes | None = None, *, colorbar: bool = True) -> Axes:
    """Draw a battle grid with every square reachable this round coloured by its feet.

    Squares reached by the full-round one-square move are hatched.

    Parameters
    ----------
    grid : Grid
        The battle grid.
    reach : GridReach
        From :func:`eidomap.answers.grid.reach`.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    colorbar : bool
        Draw the colour bar of the feet.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    See Also
    --------
    plot_grid_route : A route round by round.
    save_grid_png : Draw and write it.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.answers.grid import load_grid, reach
    >>> grid = load_grid(eidomap.bundled_map_path("d20-battle.txt"))
    >>> plot_grid_reach(grid, reach(grid, (13, 0), 30)).get_title()
    'reach from 13,0: speed 30 ft, move (35 squares)'
    """
    from eidomap.answers.grid import GridReach

    grid, reach = params.instance(grid, "grid", Grid), params.instance(reach, "reach", GridReach)
    colorbar = params.flag(colorbar, "colorbar")
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
    hatch: dict[str, Any] = {"fill": False, "hatch": "///", "edgecolor": "black", "linewidth": 0.8}
    for r, c in reach.full_round:
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, zorder=2, gid="full-round", **hatch))
    ax.scatter([reach.start[1]], [reach.start[0]], s=90, marker="o", color="black", edgecolor="white", zorder=7,
               gid="start")
    if colorbar:  # below the grid: the legend takes the right
        cb = ax.figure.colorbar(img, ax=ax, location="bottom", shrink=0.6, pad=0.08, aspect=40, label="feet")
        cb.set_ticks(np.arange(0, top + 1, 5 * -(-(top // 5 + 1) // 12)).tolist())  # feet come in 5s: at most 12 ticks
    m = reach.mover
    ax.set_title(f"reach from {reach.start[0]},{reach.start[1]}: speed {m.speed} ft, {m.mode}"
                 f" ({len(reach.feet)} squares)", fontsize="medium")
    extra: list[Artist] = [Line2D([], [], linestyle="none", marker="o", markersize=9, color="black",
                                  markeredgecolor="white", label="start")]
    if reach.full_round:
        extra.append(Patch(label="full-round 5-ft move only", **hatch))
    _grid_legend(ax, grid, extra)
    return ax


def plot_grid_route(grid: Grid, route: GridRoute, ax: Axes | None = None) -> Axes:
    """Draw a battle grid and a route: the squares of each round in the round's colour, each round's end numbered.

    Parameters
    ----------
    grid : Grid
        The battle grid.
    route : GridRoute
        From :func:`eidomap.answers.grid.route`.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    See Also
    --------
    plot_grid_reach : This round's reach.
    save_grid_png : Draw and write it.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.answers.grid import load_grid, route
    >>> grid = load_grid(eidomap.bundled_map_path("d20-battle.txt"))
    >>> print(plot_grid_route(grid, route(grid, (13, 0), (8, 15), 30)).get_title())
    13,0 → 8,15: 3 rounds, 85 ft (speed 30 ft, move)
    """
    from eidomap.answers.grid import GridRoute

    grid, route = params.instance(grid, "grid", Grid), params.instance(route, "route", GridRoute)
    ax = _grid_axes(grid, ax)
    _grid_base(ax, grid)
    start, goal = route.start, route.goal
    handles = []
    if route.legs:
        palette = turn_colors(len(route.legs))
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
        shown = route.legs[:LEGEND_TURNS]
        handles += [Line2D([], [], color=palette[i], linewidth=3, linestyle=":" if leg.full_round else "-",
                           label=f"round {leg.round}: {leg.feet} ft, {leg.action}") for i, leg in enumerate(shown)]
        if len(route.legs) > len(shown):
            handles.append(Line2D([], [], color="none", label=f"... {len(route.legs)} rounds in all"))
    if route.via:  # the stops passed on the way, in order
        rows, cols = zip(*route.via, strict=True)
        ax.scatter(cols, rows, s=160, marker="D", facecolor="none", edgecolor="black", linewidth=1.6, zorder=8,
                   gid="stop")
        handles.append(Line2D([], [], marker="D", color="none", markerfacecolor="none", markeredgecolor="black",
                              markersize=8, label=f"stop{'s' if len(route.via) > 1 else ''} on the way"))
    ax.scatter([start[1]], [start[0]], s=90, marker="o", color="black", edgecolor="white", zorder=7, gid="start")
    ax.scatter([goal[1]], [goal[0]], s=300, marker="*", color="gold", edgecolor="black", zorder=7, gid="goal")
    when = f"{route.rounds} rounds, {route.feet} ft" if route.reachable else "cannot be reached"
    ax.set_title(f"{start[0]},{start[1]} \u2192 {goal[0]},{goal[1]}: {when}"
                 f" (speed {route.mover.speed} ft, {route.mover.mode})", fontsize="medium")
    add_legend(ax, handles)
    return ax


def save_grid_png(grid: Grid, answer: GridReach | GridRoute, path: str | os.PathLike) -> None:
    """Draw a :class:`~eidomap.answers.grid.GridReach` or :class:`~eidomap.answers.grid.GridRoute` and write it (PNG
    or SVG).

    Parameters
    ----------
    grid : Grid
        The battle grid.
    answer : GridReach or GridRoute
        What to draw.
    path : str or Path
        The picture's file.

    Raises
    ------
    RequestError
        For a suffix other than ``.png`` and ``.svg``.

    See Also
    --------
    plot_grid_reach, plot_grid_route : Draw on axes of your own.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> from eidomap.answers.grid import load_grid, reach
    >>> grid = load_grid(eidomap.bundled_map_path("d20-battle.txt"))
    >>> path = Path(tempfile.mkdtemp()) / "reach.png"
    >>> save_grid_png(grid, reach(grid, (13, 0), 30, mode="double"), path)
    >>> path.is_file()
    True
    """
    from eidomap.answers.grid import GridReach, GridRoute

    picture_format(path)
    grid = params.instance(grid, "grid", Grid)
    if not isinstance(answer, GridReach | GridRoute):
        raise params.refused(
            "answer", "a GridReach or a GridRoute (eidomap.answers.grid.reach, eidomap.answers.grid.route)", answer)
    rows, cols = grid.shape
    fig = Figure(figsize=(8.0, float(np.clip(8.0 * rows / cols, 3.0, 14.0))))
    if isinstance(answer, GridRoute):
        plot_grid_route(grid, answer, fig.add_subplot())
    else:
        plot_grid_reach(grid, answer, fig.add_subplot())
    save_figure(fig, path)
