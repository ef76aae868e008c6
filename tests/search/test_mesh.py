"""The travel mesh (eidomap/search/mesh.py): lines that cross share a node."""

from __future__ import annotations

import shapely

from eidomap.search.mesh import snap


def test_two_lines_that_cross_get_their_crossing_as_a_vertex_of_each():
    """Two rivers (or a road and a river) that cross in an X, no end of either on the other, share a node at
    the crossing: a traveller may turn from one onto the other there."""
    road, river = shapely.LineString([(0, 0), (10, 0)]), shapely.LineString([(5, -5), (5, 5)])
    lines, _ = snap([road, river], [], 1e-9)
    assert shapely.get_coordinates(lines[0]).tolist() == [[0.0, 0.0], [5.0, 0.0], [10.0, 0.0]]
    assert shapely.get_coordinates(lines[1]).tolist() == [[5.0, -5.0], [5.0, 0.0], [5.0, 5.0]]


def test_an_end_of_a_line_on_another_becomes_a_vertex_of_it():
    road, spur = shapely.LineString([(0, 0), (10, 0)]), shapely.LineString([(3, 0), (3, 4)])
    lines, _ = snap([road, spur], [], 1e-9)
    assert shapely.get_coordinates(lines[0]).tolist() == [[0.0, 0.0], [3.0, 0.0], [10.0, 0.0]]
    assert shapely.get_coordinates(lines[1]).tolist() == [[3.0, 0.0], [3.0, 4.0]]
