"""The travel mesh (eidomap/search/mesh.py): lines that cross share a node; the search over its lightest legs."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from eidomap.search.mesh import lightest, snap, tree


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


legs_strategy = st.integers(1, 7).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                   st.sampled_from([0.5, 1.0, 1.0, 2.0, 3.5, math.inf])), max_size=30)))


@settings(max_examples=200, deadline=None)
@given(legs_strategy, st.booleans())
def test_tree_searches_the_lightest_leg_between_each_pair(case, reverse):
    """Between two nodes only the lightest leg counts (ties: the first one), legs of infinite weight are none;
    :func:`tree` gives each node its least total weight from the source (``reverse``: to it), the node before
    it and the leg between them -- against a brute force over the legs as given (duplicates, ties, loops)."""
    n, given_legs = case
    src = np.array([a for a, _, _ in given_legs], np.int64)
    dst = np.array([b for _, b, _ in given_legs], np.int64)
    weight = np.array([w for _, _, w in given_legs], float)
    want: dict[tuple[int, int], int] = {}
    for k, (a, b, w) in enumerate(given_legs):
        if math.isfinite(w) and ((a, b) not in want or w < weight[want[a, b]]):
            want[a, b] = k
    graph = lightest(n, src, dst, weight)
    assert sorted(graph.first.tolist()) == sorted(want.values())
    assert {(int(src[k]), int(dst[k])): int(k) for k in graph.first} == want
    dist, pred, leg = tree(n, src, dst, weight, 0, reverse)
    best = [math.inf] * n  # Bellman-Ford over the lightest legs
    best[0] = 0.0
    for _ in range(n):
        for (a, b), k in want.items():
            u, v = (b, a) if reverse else (a, b)
            best[v] = min(best[v], best[u] + weight[k])
    assert dist.tolist() == pytest.approx(best)
    for v in range(n):
        if v == 0 or not math.isfinite(best[v]):
            assert leg[v] == -1
            continue
        k = int(leg[v])
        assert (int(src[k]), int(dst[k])) == ((v, int(pred[v])) if reverse else (int(pred[v]), v))
        assert want[int(src[k]), int(dst[k])] == k
        assert dist[v] == pytest.approx(dist[pred[v]] + weight[k])
