"""Reachability heatmaps: one Reach, or one panel per actor from the same start."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from eidomap.answers.routing import Reach
from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.modes import Partial
from eidomap.base.names import shown
from eidomap.model.map import Map
from eidomap.plot.parts import (
    UNREACHED_COLOR,
    ReachValue,
    draw_eidos,
    draw_features,
    eido_values,
    figure_size,
    frame_axes,
    map_axes,
    map_bounds,
    positions_of,
    pyplot,
    reach_scale,
    reach_title,
    save_drawn,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from eidomap.rules.eido import Actor


def reach_kind(reach: Reach, value: ReachValue | str | None = None) -> ReachValue:
    """What a picture of ``reach`` shows: ``value``, else the one the Reach holds.

    Parameters
    ----------
    reach : Reach
        The answer.
    value : ReachValue or {"p_within", "arrival_turn", "debt"}, optional
        What to show.

    Returns
    -------
    ReachValue
        The field shown.

    Raises
    ------
    RequestError
        When ``value`` is none of those, or the Reach holds none of them.

    See Also
    --------
    plot_reach : The picture.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.answers.routing import reach
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> reach_kind(reach(m, "porto-sur", "cow", roll=4)).value
    'debt'
    """
    reach = params.instance(reach, "reach", Reach)
    kind = next((k for k in ReachValue if getattr(reach, k)), ReachValue.P_WITHIN) if value is None \
        else ReachValue.checked(value, "value")
    if not getattr(reach, kind):
        raise RequestError(f"this Reach holds no {kind} (from {shown(reach.start)} for {shown(reach.actor)})")
    return kind


def plot_reach(m: Map, reach: Reach, ax: Axes | None = None, *, value: ReachValue | str | None = None,
               colorbar: bool = True, legend: bool = True, title: str | None = None) -> Axes:
    """A heatmap of a :class:`~eidomap.answers.routing.Reach` over the Eidos, with a colour bar.

    Eidos never reached (probability 0, no turn, no debt) are grey; roads and Pousas are drawn faintly on top;
    the start is a star.

    Parameters
    ----------
    m : Map
        The map.
    reach : Reach
        From :func:`eidomap.answers.routing.reach` or :func:`eidomap.answers.routing.reach_rolls`.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.
    value : ReachValue or {"p_within", "arrival_turn", "debt"}, optional
        What is drawn (default: the one the Reach holds): P(arrived within K turns), from ``reach(...,
        turns=K)``; the least number of turns, from ``reach_rolls``; the least debt carried, from ``reach(...,
        roll=R)``.
    colorbar, legend : bool
        Draw the colour bar; the legend of the start and the unreached.
    title : str, optional
        Default: who, from where, and what is shown.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    Raises
    ------
    RequestError
        For a ``value`` the Reach does not hold.

    See Also
    --------
    plot_compare : One panel per actor.
    save_reach_png : Draw and write it.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.answers.routing import reach
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> plot_reach(m, reach(m, "porto-sur", "cow", turns=3)).get_title()
    'cow from porto-sur: P(arrived within 3 turns)'
    """
    kind = reach_kind(reach, value)
    m, colorbar, legend = params.instance(m, "m", Map), params.flag(colorbar, "colorbar"), params.flag(legend, "legend")
    title = params.maybe(params.text, title, "title")
    data = getattr(reach, kind)
    ax = map_axes(ax, m)
    v = eido_values(m, data)
    cmap, norm, label = reach_scale(kind, v)
    unreached = ~(v > 0) if kind is ReachValue.P_WITHIN else ~np.isfinite(v)
    coll = draw_eidos(ax, m, values=np.ma.masked_array(v, unreached), cmap=cmap.with_extremes(bad=UNREACHED_COLOR),
                  norm=norm, edgecolor="#555555")
    handles = draw_features(ax, m, regions=False, fountains=False, streams=False, alpha=0.55)
    start = positions_of(m, [reach.start])
    ax.scatter(start[:, 0], start[:, 1], s=260, marker="*", color="white", edgecolor="black", zorder=7, gid="start")
    if colorbar:
        cbar = ax.figure.colorbar(coll, ax=ax, shrink=0.75, label=label.format(turns=reach.turns))
        if kind is ReachValue.ARRIVAL_TURN:
            cbar.locator = MaxNLocator(integer=True)
            cbar.update_ticks()
    if legend:
        handles = [Line2D([], [], linestyle="none", marker="*", markersize=12, color="white", markeredgecolor="black",
                          label=f"start: {shown(reach.start)}"), *handles]
        if unreached.any():
            handles.append(Patch(facecolor=UNREACHED_COLOR, edgecolor="#555555", label="not reached"))
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, -0.01), ncols=min(len(handles), 4),
                  frameon=False, fontsize="small")
    ax.set_title(reach_title(reach, kind) if title is None else title, fontsize="medium")
    frame_axes(ax, map_bounds(m))
    return ax


def plot_compare(m: Map, start: str, actors: Iterable[Actor | str], *, turns: int = 3,
                 partial: Partial | str = Partial.CARRY, ncols: int = 3) -> tuple[Figure, np.ndarray]:
    """Small multiples: for each actor, P(arrived within ``turns`` turns) from the same start.

    Parameters
    ----------
    m : Map
        The map.
    start : str
        The start Eido of every panel.
    actors : iterable of str or Actor
        Species names of the map's catalog, or :func:`eidomap.rules.eido.actor` units.
    turns : int
        The horizon K.
    partial : {"carry", "forbid"}
        The step rule (see :func:`eidomap.answers.routing.route`).
    ncols : int
        Panels per row.

    Returns
    -------
    fig : matplotlib Figure
        The figure.
    axes : numpy array of Axes
        One panel per actor, in order, with one shared colour bar.

    Raises
    ------
    RequestError
        For an unknown start or species.

    See Also
    --------
    plot_reach : One actor's picture.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> fig, axes = plot_compare(m, "porto-norte", ["human", "cow"], turns=2)
    >>> [ax.get_title() for ax in axes.ravel()]
    ['human', 'cow']
    """
    from eidomap.answers.routing import reach

    m, actors = params.instance(m, "m", Map), params.listed(actors, "actors", "species names or Actors")
    start = params.text(start, "start", "an Eido or Pousa id (text)")
    if not actors:
        raise RequestError("plot_compare needs at least one actor")
    ncols = min(params.whole(ncols, "ncols", 1), len(actors))
    nrows = -(-len(actors) // ncols)
    w, h = figure_size(m, width=4.2)
    fig, grid = pyplot().subplots(nrows, ncols, figsize=(w * ncols + 1.0, h * nrows + 0.6), squeeze=False,
                                   layout="constrained")
    panels = grid.ravel()
    for ax in panels[len(actors):]:
        ax.remove()
    panels = panels[: len(actors)]
    for ax, who in zip(panels, actors, strict=True):
        r = reach(m, start, who, turns=turns, partial=partial)
        plot_reach(m, r, ax, colorbar=False, legend=False, title=shown(r.actor))
    cmap, norm, label = reach_scale(ReachValue.P_WITHIN, np.empty(0))
    fig.colorbar(ScalarMappable(norm, cmap), ax=list(panels), shrink=0.8, label=label.format(turns=turns))
    fig.suptitle(f"From {shown(start)} (star): where each can be within {turns} turns; grey: not within reach")
    return fig, panels


def save_reach_png(m: Map, reach: Reach, path: str | os.PathLike) -> None:
    """Draw ``reach`` with :func:`plot_reach` and write it (PNG or SVG by suffix).

    Parameters
    ----------
    m : Map
        The map.
    reach : Reach
        The answer.
    path : str or Path
        The picture's file.

    Raises
    ------
    RequestError
        For a suffix other than ``.png`` and ``.svg``.

    See Also
    --------
    plot_reach : Draw it on axes of your own.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> from eidomap.answers.routing import reach
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> path = Path(tempfile.mkdtemp()) / "cow.png"
    >>> save_reach_png(m, reach(m, "porto-sur", "cow", turns=3), path)
    >>> path.is_file()
    True
    """
    save_drawn(m, path, lambda ax: plot_reach(m, reach, ax))
