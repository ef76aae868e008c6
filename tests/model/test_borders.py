"""The compiled loops of eidomap.model.borders give numpy's boundary segments and exact pairs bit for bit.

Random rings and segments on a coarse grid of coordinates (so that points
repeat, segments are shared twice and thrice, either way round, by one owner
or two, on one side or both), against the numpy passes of eidomap.model.topology;
both twins of each loop (plain Python and numba).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eidomap.base import settings as tuning
from eidomap.base.compiled import compiled
from eidomap.model import topology
from eidomap.model.borders import pair_run_loop, ring_segment_loop, segment_hash_loop
from eidomap.model.topology import Segments, boundary_segments, exact_pairs

SETTINGS = settings(max_examples=60, deadline=None)
TWINS = [pytest.param(lambda fn: fn, id="python"), pytest.param(compiled, id="numba")]


def _same(x: np.ndarray, y: np.ndarray) -> bool:
    """Equal shapes and dtypes, and equal to the bit (NaN and -0.0 included)."""
    return x.shape == y.shape and x.dtype == y.dtype and np.ascontiguousarray(x).tobytes() == \
        np.ascontiguousarray(y).tobytes()


@st.composite
def rings(draw):
    """Coordinates of rings laid end to end, their offsets and which are exterior ones."""
    lengths = draw(st.lists(st.integers(0, 7), min_size=1, max_size=12))
    grid = st.sampled_from([0.0, 1.0, 2.0, -0.0, 0.5, np.nan])
    xy = np.array(draw(st.lists(st.tuples(grid, grid), min_size=sum(lengths), max_size=sum(lengths))),
                  dtype=np.float64).reshape(-1, 2)
    off = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    exterior = np.array(draw(st.lists(st.booleans(), min_size=len(lengths), max_size=len(lengths))), dtype=bool)
    return xy, off, exterior


@st.composite
def segments(draw):
    """Segments from a few points, many of them repeated (either way round), with owners and sides."""
    pts = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [-0.0, 0.0], [np.nan, 0.0]])
    ends = draw(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)).filter(lambda e: e[0] != e[1]),
                         min_size=0, max_size=30))
    m = len(ends)
    a = pts[[e[0] for e in ends]].reshape(-1, 2)
    b = pts[[e[1] for e in ends]].reshape(-1, 2)
    owner = np.array(draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)), dtype=np.int64)
    sided = draw(st.booleans())
    left = np.array(draw(st.lists(st.booleans(), min_size=m, max_size=m)), dtype=bool) if sided else None
    return Segments(a, b, owner, np.arange(m, dtype=np.int64), left)


@pytest.mark.parametrize("twin", TWINS)
@SETTINGS
@given(rings())
def test_ring_segment_loop_gives_numpys_segments_bit_for_bit(twin, given_rings):
    xy, off, exterior = given_rings
    want = topology._ring_segments(xy, off, exterior)
    got = twin(ring_segment_loop)(xy, off, exterior)
    assert all(_same(w, g) for w, g in zip(want, got, strict=True))


@pytest.mark.parametrize("twin", TWINS)
@SETTINGS
@given(segments())
def test_pair_run_loop_gives_numpys_exact_pairs(twin, seg):
    i, j, di, one_side, crowded = topology._exact_pairs(seg)
    a, b = np.ascontiguousarray(seg.a), np.ascontiguousarray(seg.b)
    with np.errstate(over="ignore"):  # (the hash wraps around 64 bits, as it does in numpy's arrays)
        h = twin(segment_hash_loop)(a.view(np.uint64), b.view(np.uint64))
    want_h = topology._point_hash(seg.a) ^ topology._point_hash(seg.b)
    assert _same(h, want_h)
    order, hs = topology._hash_order(h)
    left = np.empty(0, bool) if seg.inside_left is None else seg.inside_left
    gi, gj, gd, g_side, g_crowded = twin(pair_run_loop)(order, hs, a, b, seg.owner, left)
    assert _same(gi, i.astype(np.int64)) and _same(gj, j.astype(np.int64)) and _same(g_side, one_side)
    assert _same(gd, np.ascontiguousarray(di).view(np.float64).reshape(-1, 2)) and g_crowded == crowded


@SETTINGS
@given(segments())
def test_exact_pairs_are_the_same_through_the_loops(seg):
    want = exact_pairs(seg)
    old = tuning.LOOPS_ABOVE
    tuning.LOOPS_ABOVE = -1
    try:
        got = exact_pairs(seg)
    finally:
        tuning.LOOPS_ABOVE = old
    for field in ("i", "j", "length", "matched", "paired"):
        assert _same(getattr(want, field), getattr(got, field)), field
    assert want.crowded == got.crowded


def test_a_map_has_the_same_segments_and_adjacency_through_the_loops(monkeypatch):
    import shapely

    cells = shapely.get_parts(shapely.voronoi_polygons(shapely.multipoints(
        np.random.default_rng(3).uniform(0, 100, (300, 2))), extend_to=shapely.box(0, 0, 100, 100)))
    geoms = np.r_[shapely.intersection(cells, shapely.box(0, 0, 100, 100)),
                  [shapely.box(0, 0, 10, 10).difference(shapely.box(2, 2, 4, 4))]]  # a hole, and overlaps
    want_seg, want = boundary_segments(geoms), topology.adjacency(geoms)
    monkeypatch.setattr(tuning, "LOOPS_ABOVE", -1)
    got_seg, got = boundary_segments(geoms), topology.adjacency(geoms)
    for field in ("a", "b", "owner", "ring", "inside_left"):
        assert _same(getattr(want_seg, field), getattr(got_seg, field)), field
    assert _same(want.i, got.i) and _same(want.j, got.j) and _same(want.length, got.length)
    assert want.overlaps == got.overlaps > 0
