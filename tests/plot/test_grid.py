"""Pictures of battle grids (eidomap/plot/grid.py): what each mark is, whatever the user's Matplotlib style."""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.markers import MarkerStyle

from eidomap.answers.grid import load_grid, reach, route
from eidomap.plot import plot_grid_reach, plot_grid_route

BATTLE = Path(__file__).resolve().parents[1] / "data" / "d20" / "battle.txt"


def _gid(ax, gid: str) -> list:
    return [a for a in ax.get_children() if a.get_gid() == gid]


def _is_marker(collection, marker: str) -> bool:
    want = MarkerStyle(marker)
    path = want.get_path().transformed(want.get_transform())
    return np.allclose(collection.get_paths()[0].vertices, path.vertices)


def test_a_route_picture_marks_the_start_with_a_dot_and_each_rounds_end_with_its_number_in_a_disc():
    """The start is a black dot (gid "start") and the goal a star, whatever the style's default scatter marker;
    each round's end is its number on a disc of the round's colour."""
    g = load_grid(BATTLE)
    with mpl.rc_context({"scatter.marker": "s"}):
        ax = plot_grid_route(g, route(g, (0, 0), (3, 8), 20), Figure().add_subplot())
    (start,), (goal,) = _gid(ax, "start"), _gid(ax, "goal")
    assert _is_marker(start, "o") and _is_marker(goal, "*")
    ends = [t for t in ax.texts if t.get_gid() == "round-end"]
    lines = [line for line in ax.lines if line.get_gid() == "route"]
    assert [t.get_text() for t in ends] == ["1", "2", "3"] and len(lines) == 3
    for text, line in zip(ends, lines, strict=True):
        disc = text.get_bbox_patch()
        assert disc is not None and disc.get_facecolor() == to_rgba(line.get_color())


def test_a_route_picture_marks_its_stops_with_open_diamonds():
    """A route through stops (issue 48) marks each stop, on its square, with an open diamond (gid "stop") named in
    the legend; a route without stops marks none."""
    g = load_grid(BATTLE)
    ax = plot_grid_route(g, route(g, (0, 0), (3, 8), 20, via=[(3, 0), (0, 8)]), Figure().add_subplot())
    (stops,) = _gid(ax, "stop")
    assert _is_marker(stops, "D") and stops.get_offsets().tolist() == [[0, 3], [8, 0]]
    assert "stops on the way" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert _gid(plot_grid_route(g, route(g, (0, 0), (3, 8), 20), Figure().add_subplot()), "stop") == []


def test_a_reach_picture_draws_the_feet_as_an_image_and_the_start_as_a_dot():
    g = load_grid(BATTLE)
    with mpl.rc_context({"scatter.marker": "s"}):
        ax = plot_grid_reach(g, reach(g, (0, 0), 30), Figure().add_subplot(), colorbar=False)
    (image,) = _gid(ax, "reach")
    feet = image.get_array()
    assert feet.count() == len(reach(g, (0, 0), 30).feet) and feet[0, 0] == 0
    assert _is_marker(_gid(ax, "start")[0], "o")
