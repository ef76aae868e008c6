"""Validation problems marked on the map, or on what the lenient reader could use of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from matplotlib.lines import Line2D

from eidomap.base import params
from eidomap.base.names import shown
from eidomap.base.problems import ERROR, WARNING
from eidomap.plot.map import plot_map
from eidomap.plot.parts import (
    HALO,
    OTHER_SEVERITY_STYLE,
    SEVERITY_STYLE,
    add_legend,
    checked_problems,
    draw_eidos,
    frame_axes,
    map_axes,
    map_bounds,
    map_extent,
    problem_places,
    save_drawn,
)
from eidomap.plot.placement import place_labels

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence

    from matplotlib.axes import Axes

    from eidomap.base.problems import Problem
    from eidomap.io.document import MapData
    from eidomap.model.map import Map


def as_map(m_or_md: Map | MapData) -> Map:
    """``m_or_md`` as a :class:`~eidomap.model.map.Map`: a map, or what the lenient reader could use of one (a
    validation report's ``data``), checked."""
    from eidomap.io.document import MapData
    from eidomap.model.map import Map

    if isinstance(m_or_md, MapData):
        return Map(m_or_md)
    return params.instance(m_or_md, "m_or_md", Map, "a Map or a MapData (a report's data)")


def plot_problems(m_or_md: Map | MapData, problems: Sequence[Problem], ax: Axes | None = None) -> Axes:
    """Mark validation problems on the map, labelled with their code.

    Parameters
    ----------
    m_or_md : Map or MapData
        The map, or what the lenient reader (:func:`eidomap.io.readers.read_map`) could use of it (a
        report's ``data``).
    problems : iterable of Problem, or a report with a ``problems`` attribute
        Each is drawn at its ``location``, else at the first of its features that is an Eido or Pousa, else
        where the feature is in the file; errors are red crosses, warnings orange triangles, and the Eidos a
        problem names are outlined in its colour.  Problems that cannot be placed are counted in a note under
        the map; those that follow from another (``caused_by``) are told by their cause.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on; the title counts the errors and warnings.

    See Also
    --------
    eidomap.validate.checks.validate : Find the problems.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.validate.checks import validate
    >>> report = validate(eidomap.demo_map_path())
    >>> plot_problems(report.data, report).get_title()
    'Illas das Marabillas (demo): 0 errors, 2 warnings'
    """
    m = as_map(m_or_md)
    problems = [p for p in checked_problems(problems) if p.caused_by is None]
    ax = map_axes(ax, m)
    plot_map(m, ax, legend=False, alpha=0.5, title="")
    loc, eido_marks = problem_places(m, problems)
    placed = np.isfinite(loc).all(axis=1)
    severities = np.array([p.severity for p in problems], dtype=object)
    handles = []
    for sev in dict.fromkeys(severities.tolist()):  # one layer per severity
        color, marker = SEVERITY_STYLE.get(sev, OTHER_SEVERITY_STYLE)
        if eido_marks.get(sev):
            draw_eidos(ax, m, edgecolor=color, linewidth=2.0, subset=sorted(eido_marks[sev])).set_zorder(5)
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
    add_legend(ax, handles, title="problems")
    n_err = int(np.count_nonzero(severities == ERROR))
    n_warn = int(np.count_nonzero(severities == WARNING))
    ax.set_title(f"{shown(m.name)}: {n_err} error{'s' * (n_err != 1)}, {n_warn} warning{'s' * (n_warn != 1)}")
    corners = np.vstack([np.reshape(map_extent(m) or (), (-1, 2)), loc[placed]])
    frame_axes(ax, (*corners.min(axis=0), *corners.max(axis=0)) if len(corners) else map_bounds(m))
    spots: dict[tuple[float, float], list[int]] = {}
    for i in np.flatnonzero(placed):  # problems at the same spot share one label
        spots.setdefault(tuple(loc[i]), []).append(int(i))
    first = [members[0] for members in spots.values()]
    place_labels(ax, list(spots), ["\n".join(dict.fromkeys(problems[i].code for i in members))
                                   for members in spots.values()],
                 colors=[SEVERITY_STYLE.get(problems[i].severity, OTHER_SEVERITY_STYLE)[0] for i in first],
                 fontweight="bold", on_anchor=False, path_effects=HALO, zorder=9, gid="problem-code")
    return ax


def save_problems_png(m_or_md: Map | MapData, problems: Sequence[Problem], path: str | os.PathLike) -> None:
    r"""Draw ``problems`` on the map with :func:`plot_problems` and write it (PNG or SVG by suffix).

    Drawn on a figure of its own, not pyplot's: a program that writes many pictures keeps no figure open.

    Parameters
    ----------
    m_or_md : Map or MapData
        As for :func:`plot_problems`.
    problems : iterable of Problem, or a report with a ``problems`` attribute
        As for :func:`plot_problems`.
    path : str or Path
        The picture's file.

    Raises
    ------
    RequestError
        For a suffix other than ``.png`` and ``.svg``.

    See Also
    --------
    plot_problems : Draw them on axes of your own.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> from eidomap.validate.checks import validate
    >>> report = validate(eidomap.demo_map_path())
    >>> path = Path(tempfile.mkdtemp()) / "problems.svg"
    >>> save_problems_png(report.data, report, path)
    >>> path.read_bytes()[:5]
    b'<?xml'
    """
    m = as_map(m_or_md)
    save_drawn(m, path, lambda ax: plot_problems(m, problems, ax))
