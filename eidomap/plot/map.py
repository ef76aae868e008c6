"""A map drawn with matplotlib: Eidos filled by terrain, region borders, roads, Pousas, fountains, streams."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.patches import Patch

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.names import did_you_mean, shown
from eidomap.model.map import Map
from eidomap.plot.parts import (
    HALO,
    add_legend,
    draw_eidos,
    draw_features,
    eido_ids,
    frame_axes,
    map_axes,
    map_bounds,
    positions_of,
    save_drawn,
    terrain_colors,
)
from eidomap.plot.placement import place_labels

if TYPE_CHECKING:
    from collections.abc import Iterable

    from matplotlib.axes import Axes


def _labels(ax, m: Map, labels) -> None:
    names = m.eido_ids if labels is True else list(labels)
    xy = positions_of(m, names)
    missing = [n for n, p in zip(names, xy, strict=True) if not np.isfinite(p).all()]
    if missing:
        raise RequestError(f"{shown(m.path or m.name)}: no Eido or Pousa with id {missing[0]!r} to label"
                           f"{did_you_mean(missing[0], eido_ids(m).tolist())}")
    place_labels(ax, xy, [shown(n) for n in names], fontsize=7 if len(names) <= 200 else 4, path_effects=HALO,
                 zorder=6, gid="label")


def plot_map(m: Map, ax: Axes | None = None, *, labels: bool | Iterable[str] = False, legend: bool = True,
             roads: bool = True, regions: bool = True, fountains: bool = True, streams: bool = True,
             colors: dict | None = None, alpha: float = 1.0, title: str | None = None) -> Axes:
    """Draw a map: Eidos filled by terrain, region borders, roads, Pousas, fountains, streams.

    Parameters
    ----------
    m : Map
        The map.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure sized to the map.
    labels : bool or iterable of str
        Write every Eido's id at its position (:attr:`Map.positions <eidomap.Map.positions>`, ``True``), or only
        these Eido or Pousa ids.
    legend : bool
        A legend of the terrains present and of the features drawn, right of the map.
    roads, regions, fountains, streams : bool
        Draw roads and their Pousas (small circles); region outlines (white dashed, as on the board); fountains
        (diamonds); streams (lines from source to mouth, with an arrowhead at the mouth).
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

    Raises
    ------
    RequestError
        For a label that names no Eido or Pousa.

    See Also
    --------
    save_map_png : Draw and write it.
    eidomap.explore : An interactive map.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> ax = plot_map(m)
    >>> len(ax.collections[0].get_paths()) == len(m.eido_ids)
    True
    """
    m, alpha = params.instance(m, "m", Map), params.real(alpha, "alpha", 0, 1)
    legend, roads, regions, fountains, streams = (params.flag(v, name) for v, name in (
        (legend, "legend"), (roads, "roads"), (regions, "regions"), (fountains, "fountains"), (streams, "streams")))
    colors, title = params.maybe(params.instance, colors, "colors", dict), params.maybe(params.text, title, "title")
    if not isinstance(labels, bool):
        labels = params.names(labels, "labels", "Eido or Pousa ids")
    ax = map_axes(ax, m)
    table = terrain_colors(m.catalog, colors)
    draw_eidos(ax, m, facecolors=table[m.record.terrain], alpha=alpha)
    handles = draw_features(ax, m, regions=regions, roads=roads, fountains=fountains, streams=streams, alpha=alpha)
    if legend:
        present = np.unique(m.record.terrain)
        terrains = [Patch(facecolor=table[k], edgecolor="#333333", linewidth=0.5,
                          label=shown(m.catalog.terrains[k].label or m.catalog.terrains[k].name)) for k in present]
        add_legend(ax, terrains + handles)
    ax.set_title(shown(m.name) if title is None else title)
    frame_axes(ax, map_bounds(m))
    if labels is not False:  # once the frame is set: they are placed where they will be seen
        _labels(ax, m, labels)
    return ax


def save_map_png(m: Map, path: str | os.PathLike, *, labels: bool | Iterable[str] = False) -> None:
    r"""Draw ``m`` with :func:`plot_map` and write it (PNG or SVG by suffix).

    Parameters
    ----------
    m : Map
        The map.
    path : str or Path
        The picture's file.
    labels : bool or iterable of str
        As for :func:`plot_map`.

    Raises
    ------
    RequestError
        For a suffix other than ``.png`` and ``.svg``.

    See Also
    --------
    plot_map : Draw it on axes of your own.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "demo.png"
    >>> save_map_png(eidomap.load(eidomap.demo_map_path()), path, labels=["porto-norte"])
    >>> path.read_bytes()[:4]
    b'\x89PNG'
    """
    save_drawn(m, path, lambda ax: plot_map(m, ax, labels=labels))
