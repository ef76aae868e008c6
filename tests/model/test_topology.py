"""Edge-sharing adjacency: corners, T-junctions, tolerance, brute-force agreement."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import shapely
from conftest import DEMO, eido, pousa, road, square
from drawn_shapes import ANGLE, ROTATION, SCALE, SHIFT, fan, placed
from hypothesis import given, settings
from hypothesis import strategies as st

import eidomap
from eidomap.model import network as graph
from eidomap.model.generate import voronoi_cells
from eidomap.model.topology import _hash_order, adjacency, boundary_segments, points_in_polygons, shared_lengths
from eidomap.record.geometry import places_along


def pairs(adj) -> set[tuple[int, int]]:
    return set(zip(adj.i.tolist(), adj.j.tolist(), strict=True))


def brute_force_pairs(geoms, tol: float = 0.0, longer: float | None = None) -> set[tuple[int, int]]:
    """Pairwise oracle: boundaries share a stretch of positive length (Shapely's overlay), or, with ``tol``, one
    boundary runs within ``tol`` of the other for more than ``longer`` (default ``tol``)."""
    out = set()
    for i, j in itertools.combinations(range(len(geoms)), 2):
        a, b = shapely.boundary(geoms[i]), shapely.boundary(geoms[j])
        shared = shapely.intersection(shapely.buffer(a, tol) if tol else a, b)
        if shapely.length(shared) > (tol if longer is None else longer):
            out.add((i, j))
    return out


def test_corner_only_contact_is_not_adjacent():
    # a 2x2 checkerboard: diagonal squares touch at (1, 1) only
    geoms = [shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1), shapely.box(0, 1, 1, 2), shapely.box(1, 1, 2, 2)]
    assert pairs(adjacency(geoms)) == {(0, 1), (0, 2), (1, 3), (2, 3)}


def test_t_junction_is_adjacent():
    # the long bottom edge of "top" has no vertex at x=1, where its two neighbours meet
    top = shapely.Polygon([(0, 1), (2, 1), (2, 2), (0, 2)])
    geoms = [top, shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1)]
    adj = adjacency(geoms)
    assert pairs(adj) == {(0, 1), (0, 2), (1, 2)}
    assert np.allclose(adj.length, 1.0)


def test_tolerance_bridges_rounding_but_not_real_gaps():
    left = shapely.box(0, 0, 1, 1)
    near = shapely.box(1 + 1e-12, 0, 2, 1)  # off by rounding
    far = shapely.box(1.01, 0, 2, 1)  # a real gap of 0.01
    assert pairs(adjacency([left, near])) == {(0, 1)}
    assert pairs(adjacency([left, far])) == set()
    assert pairs(adjacency([left, far], tolerance=0.02)) == {(0, 1)}


def test_short_shared_stretch_below_tolerance_is_a_corner():
    # b lies 0.0001 right of a and overlaps it along y in [0.99, 1]: a stretch 0.01 long
    a = shapely.box(0, 0, 1, 1)
    b = shapely.box(1.0001, 0.99, 2, 2)
    assert pairs(adjacency([a, b], tolerance=0.001)) == {(0, 1)}
    assert pairs(adjacency([a, b], tolerance=0.02)) == set()  # shorter than the tolerance
    assert pairs(adjacency([a, shapely.box(1.0001, 0.9995, 2, 2)], tolerance=0.001)) == set()


def test_a_border_shared_in_part_from_both_sides_is_no_overlap_but_from_one_side_is():
    """``overlaps`` counts borders run together with both Eidos on the same side: a neighbour beside part of
    a's right edge is none, a triangle drawn inside a along that stretch is one (the tolerant pass sees both)."""
    a = shapely.box(0, 0, 1, 1)
    beside = shapely.Polygon([(1, 0.25), (2, 0.25), (2, 0.75), (1, 0.75)])
    inside = shapely.Polygon([(1, 0.25), (1, 0.75), (0.5, 0.5)])
    adj = adjacency([a, beside])
    assert pairs(adj) == {(0, 1)} and np.allclose(adj.length, 0.5) and adj.overlaps == 0
    assert adjacency([a, inside]).overlaps == 1


@pytest.mark.parametrize("side", [0.1, 1.0, 10.0])
def test_a_border_bowing_past_the_tolerance_from_a_straight_edge_is_not_that_edge(side):
    """Borders closer than the tolerance are the same border, at any scale: a's right edge drawn as 50 segments
    along a gentle arc (each vertex within the tolerance of its neighbours' line) is b's straight edge when
    the arc bows 0.5 tolerance from it, and not when it bows 20 (the two overlap along a sliver)."""
    tol = 1e-7

    def pair(bow):
        y = np.linspace(0, side, 51)
        a = shapely.Polygon([(0, 0), *zip(side + bow * tol * np.sin(np.pi * y / side), y, strict=True), (0, side)])
        return adjacency([a, shapely.box(side, 0, 2 * side, side)], tolerance=tol)

    near = pair(0.5)
    assert pairs(near) == {(0, 1)} and np.allclose(near.length, side)
    assert pairs(pair(20)) == set()


def test_adjacency_of_sea_land_and_air_is_one_partition():
    geoms = [shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1), shapely.box(0, 1, 2, 2)]
    assert pairs(adjacency(geoms)) == {(0, 1), (0, 2), (1, 2)}


def test_no_two_eidos_near_share_no_length():
    """shared_lengths of Eidos that come nowhere near each other (islands): no pair, in the arrays a pair would
    be given in (owners as whole numbers, lengths as floats), as when pairs come near and none runs together."""
    islands = boundary_segments([shapely.box(0, 0, 1, 1), shapely.box(5, 0, 6, 1), shapely.box(0, 5, 1, 6)])
    corner = boundary_segments([shapely.box(0, 0, 1, 1), shapely.box(1, 1, 2, 2)])  # near at a corner only
    for seg in (islands, corner):
        i, j, length = shared_lengths(seg, 1e-6)
        assert (len(i), len(j), len(length)) == (0, 0, 0)
        assert (i.dtype, j.dtype, length.dtype) == (np.int64, np.int64, np.float64)
    assert pairs(adjacency([shapely.box(0, 0, 1, 1), shapely.box(5, 0, 6, 1)])) == set()


@pytest.mark.parametrize("notch", [1.1, 1.2, 1.41])
def test_a_right_angle_notch_at_the_tolerance_is_two_corners_not_a_straight_border(notch):
    """A square with a notch cut at its corner, each side of it a little longer than the tolerance, and a
    triangle whose long side closes the notch: the notch's two sides meet at a right angle, so they are no
    straight stretch to match that side (their shared vertex within the tolerance of it or not) -- the triangle
    only touches the square at the notch's two ends.  A notch shallow enough to lie within the tolerance of that
    side does border it."""
    tol, s = 0.01, notch * 0.01
    square = shapely.difference(shapely.box(0, 0, 1, 1), shapely.box(1 - s, 1 - s, 1, 1))
    lid = shapely.Polygon([(1, 1 - s), (2, 2), (1 - s, 1)])
    assert pairs(adjacency([square, lid], tolerance=tol)) == set()
    bent = shapely.Polygon([(0, 0), (1, 0), (1, 1 - s), (1 - s / 2, 1 - s / 2 - tol / 4), (1 - s, 1), (0, 1)])
    assert pairs(adjacency([bent, lid], tolerance=tol)) == {(0, 1)}


def test_boundary_segments_cover_holes_and_parts():
    ring = shapely.Polygon([(0, 0), (3, 0), (3, 3), (0, 3)], [[(1, 1), (2, 1), (2, 2), (1, 2)]])
    multi = shapely.MultiPolygon([shapely.box(5, 5, 6, 6), shapely.box(7, 7, 8, 8)])
    seg = boundary_segments([ring, multi])
    assert np.bincount(seg.owner).tolist() == [8, 8]


def test_points_on_a_border_belong_to_both():
    geoms = [shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1)]
    pts = shapely.points([[0.5, 0.5], [1.0, 0.5], [1.0, 1.0]])
    pi, gi = points_in_polygons(pts, geoms, 1e-9)
    assert list(zip(pi.tolist(), gi.tolist(), strict=True)) == [(0, 0), (1, 0), (1, 1), (2, 0), (2, 1)]


def test_border_pousa_is_reachable_from_both_eidos(make_map):
    m = make_map([eido("a", "meadow", square(0, 0)), eido("b", "forest", square(1, 0)),
                  road("r", [[0.5, 0.5], [1.5, 0.5]]), pousa("r", [1.0, 0.5], "border")])
    g = m.graph
    assert {u for u, _, d in g.in_edges("border", data=True) if d["kind"] == "board"} == {"a", "b"}
    assert {v for _, v, d in g.out_edges("border", data=True) if d["kind"] == "alight"} == {"a", "b"}


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 30), seed=st.integers(0, 10_000))
def test_adjacency_matches_brute_force_on_voronoi_maps(n, seed):
    cells = voronoi_cells(n, np.random.default_rng(seed), side=100.0)
    adj = adjacency(cells)
    assert pairs(adj) == brute_force_pairs(cells)
    assert np.all(adj.i < adj.j)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 30), seed=st.integers(0, 10_000), step=st.floats(0.5, 5.0))
def test_split_borders_keep_their_pairs(n, seed, step):
    """Extra vertices on every second cell's edges (off the neighbour's line by rounding)."""
    cells = voronoi_cells(n, np.random.default_rng(seed), side=100.0)
    truth = pairs(adjacency(cells))
    split = cells.copy()
    split[::2] = shapely.segmentize(split[::2], step)
    assert pairs(adjacency(split)) == truth


@settings(max_examples=20, deadline=None)
@given(n=st.integers(3, 20), seed=st.integers(0, 10_000), shift=st.floats(1e-9, 1e-4))
def test_tolerance_matches_a_buffered_oracle(n, seed, shift):
    """Cells pulled apart by a small shift: adjacent iff the buffered oracle says so."""
    cells = voronoi_cells(n, np.random.default_rng(seed), side=100.0)
    moved = shapely.affinity.scale(cells[0], 1 - shift, 1 - shift, origin="centroid")
    cells = np.r_[[moved], cells[1:]]
    tol = 1e-3
    got = pairs(adjacency(cells, tolerance=tol))
    # every pair the oracle finds with a margin is found, and no pair beyond twice the tolerance.  The margin is
    # in length too: two cells a hair apart at a near-degenerate Voronoi vertex (a sliver of a third between them)
    # run within tol/2 of each other along both legs of a corner, up to about 2 x tol/2 in all -- corner contact,
    # which does not count (n=6, seed=3022, shift=6.1e-5 found it: 8.7e-4 of "shared" corner)
    must = brute_force_pairs(cells, tol * 0.5, longer=tol * 2.0)
    assert must <= got <= brute_force_pairs(cells, tol * 2.0) | brute_force_pairs(cells)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 12), m=st.integers(1, 20))
def test_positions_along_lines_match_shapely(seed, k, m):
    rng = np.random.default_rng(seed)
    xs = np.sort(rng.uniform(0, 100, (2, k)), axis=1)  # x increasing: no self-intersection
    lines = shapely.linestrings(np.stack([xs, rng.uniform(0, 100, (2, k))], axis=2))
    which = rng.integers(0, 2, m)
    dist = rng.uniform(0, 1, m) * shapely.length(lines[which])
    on = shapely.line_interpolate_point(lines[which], dist)
    off = shapely.points(rng.uniform(0, 100, (m, 2)))  # anywhere: the slow fallback
    for pts in (on, off):
        got = places_along(lines, which, pts, 1e-9)[0]
        assert np.allclose(got, shapely.line_locate_point(lines[which], pts), atol=1e-7)


def test_places_along_gives_each_point_its_place_and_whether_it_is_near():
    lines = np.array([shapely.LineString([(0, 0), (10, 0)]), shapely.LineString([(0, 5), (0, 9)])])
    pts = np.array([shapely.Point(3, 0), shapely.Point(2, 7)])
    pos, near = places_along(lines, np.array([0, 1]), pts, 1e-9)
    assert pos.tolist() == [3.0, 2.0] and near.tolist() == [True, False]
    assert places_along(lines, np.array([0, 1]), pts, 3.0)[1].tolist() == [True, True]  # another tolerance


def test_the_network_takes_the_pousas_places_the_reader_found_at_its_tolerance(monkeypatch):
    """The reader places the Pousas along their roads to name them; the build reuses that, at the same tolerance."""
    calls = []
    real = graph.places_along
    monkeypatch.setattr(graph, "places_along", lambda *a: calls.append(a[-1]) or real(*a))
    m = eidomap.load(DEMO)
    net = m.network
    assert calls == [] and m.record.pousa_places.tolerance == m.tolerance
    other = eidomap.load(DEMO, tolerance=m.tolerance * 2)
    assert np.array_equal(other.network.dst, net.dst) and calls == [m.tolerance * 2]


@pytest.mark.parametrize("low_bits_only", [False, True])
def test_hash_order_is_a_stable_argsort(low_bits_only):
    """The exact pass's packed sort of hashes, its clashing top bits put back in order of the whole hash."""
    rng = np.random.default_rng(5)
    h = rng.integers(0, 2**63, 5000, dtype=np.uint64)[rng.integers(0, 3000, 5000)]  # duplicates
    if low_bits_only:  # every top bit the same: every run clashes
        h = (h & np.uint64(0xFFF)) | np.uint64(0xABC << 40)
    order, hs = _hash_order(h)
    assert np.array_equal(order, np.argsort(h, kind="stable")) and np.array_equal(hs, np.sort(h))


def test_overlaps_are_noticed_on_the_way():
    """Borders that cross, run together on the same side, or a segment held three times: an overlap sign."""
    assert adjacency([shapely.box(0, 0, 2, 1), shapely.box(1, 0.5, 3, 2)]).overlaps > 0  # borders cross
    assert adjacency([shapely.box(0, 0, 2, 1), shapely.box(1, 0, 3, 1)]).overlaps > 0  # strips overlapping
    assert adjacency([shapely.box(0, 0, 1, 1), shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1)]).overlaps > 0
    clean = [shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1, ccw=False), shapely.box(2, 0, 3, 1)]
    assert adjacency(clean).overlaps == 0
    holed = shapely.Polygon([(0, 0), (3, 0), (3, 3), (0, 3)], [[(1, 1), (2, 1), (2, 2), (1, 2)]])
    assert adjacency([holed, shapely.box(1, 1, 2, 2)]).overlaps == 0  # an island in a hole


@settings(max_examples=20, deadline=None)
@given(n=st.integers(3, 40), seed=st.integers(0, 10_000))
def test_a_clean_coverage_shows_no_overlap(n, seed):
    assert adjacency(voronoi_cells(n, np.random.default_rng(seed), side=100.0)).overlaps == 0


def _turn(geoms, k: int) -> np.ndarray:
    """Rotated by k x 90 degrees about the origin, exactly (no sine or cosine rounding)."""
    def rot(xy):
        for _ in range(k % 4):
            xy = np.column_stack([-xy[:, 1], xy[:, 0]])
        return xy

    return shapely.transform(geoms, rot)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(3, 30), seed=st.integers(0, 10_000), k=st.integers(0, 3), scale=st.sampled_from([0.001, 3.0, 1e6]),
       shift=st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)), data=st.data())
def test_adjacency_is_unchanged_by_placement_orientation_and_order(n, seed, k, scale, shift, data):
    cells = voronoi_cells(n, np.random.default_rng(seed), side=100.0)
    truth = pairs(adjacency(cells))
    moved = shapely.transform(_turn(cells, k), lambda xy: xy * scale + np.array(shift))
    flip = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    moved[flip] = shapely.reverse(moved[flip])  # ring orientation reversed on some Eidos
    order = np.array(data.draw(st.permutations(range(n))))
    got = pairs(adjacency(moved[order]))  # positions in the new order -> the original Eidos
    assert {tuple(sorted((int(order[i]), int(order[j])))) for i, j in got} == truth


# -- a corner is a corner at any angle; a shared border is a border however it is drawn.  The rule: "Eidos that
# share some of their sides are considered adjacent, not those that touch each other in the corners."  Every case
# is drawn at random angles, then rotated, scaled from 1e-3 to 1e6 map units and translated.
def adjacent(geoms) -> bool:
    return len(adjacency(geoms)) > 0


def relate_pairs(geoms) -> set[tuple[int, int]]:
    """The exact oracle: interiors apart, boundaries sharing a line (``F***1****``)."""
    return {(i, j) for i, j in itertools.combinations(range(len(geoms)), 2)
            if shapely.relate_pattern(geoms[i], geoms[j], "F***1****")}


# -- never adjacent -------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(a=ANGLE, b=ANGLE, at=st.floats(0.2, 1.8), rot=ROTATION, scale=SCALE, shift=SHIFT)
def test_v_apex_on_a_side_is_not_adjacent(a, b, at, rot, scale, shift):
    """A triangle whose apex touches the top side of a 2x1 box, arms at any angle to that side."""
    lo, hi = sorted((a, b))
    if hi - lo < 0.5:
        hi = lo + 0.5
    geoms = placed([shapely.box(0, 0, 2, 1), fan((at, 1.0), 1.0, lo, min(hi, 179.9))], rot, scale, shift)
    assert not adjacent(geoms)


@settings(max_examples=100, deadline=None)
@given(a=ANGLE, width=st.floats(0.5, 5.0), rot=ROTATION, scale=SCALE, shift=SHIFT)
def test_spike_touching_a_side_is_not_adjacent(a, width, rot, scale, shift):
    """A thin spike (0.5 to 5 degrees wide) from a block above, its tip on the box's top side."""
    lo = min(max(a - width / 2, 0.2), 179.8 - width)
    t = np.radians([lo, lo + width])
    tip = np.array([1.0, 1.0])
    ends = tip + 1.5 * np.c_[np.cos(t), np.sin(t)]
    body = shapely.Polygon([tip, ends[0], (ends[0][0], 3.0), (ends[1][0], 3.0), ends[1]])
    body = body if body.is_valid else shapely.make_valid(body)
    geoms = placed([shapely.box(0, 0, 2, 1), body], rot, scale, shift)
    assert not adjacent(geoms)


@settings(max_examples=150, deadline=None)
@given(a=ANGLE, b=ANGLE, rot=ROTATION, scale=SCALE, shift=SHIFT)
def test_x_crossing_is_not_adjacent(a, b, rot, scale, shift):
    """Two triangles apex to apex, opposite each other: their borders cross in an X."""
    lo, hi = sorted((a, b))
    hi = max(hi, lo + 0.5)
    geoms = placed([fan((0, 0), 1.0, lo, hi), fan((0, 0), 1.0, lo + 180, hi + 180)], rot, scale, shift)
    assert not adjacent(geoms)


@settings(max_examples=150, deadline=None)
@given(gap=ANGLE, a=st.floats(0.5, 90.0), b=st.floats(0.5, 90.0), rot=ROTATION, scale=SCALE, shift=SHIFT)
def test_polygons_meeting_at_a_corner_are_not_adjacent(gap, a, b, rot, scale, shift):
    """Two corners at one point, ``gap`` degrees apart (their near arms meet at that angle)."""
    if a + gap + b > 359.5:
        gap = 359.5 - a - b
    geoms = placed([fan((0, 0), 1.0, 0.0, a), fan((0, 0), 1.0, a + gap, a + gap + b)], rot, scale, shift)
    assert not adjacent(geoms)


def test_the_issue_cases_are_not_adjacent():
    square = shapely.Polygon([(0, 0), (2, 0), (2, 1), (0, 1)])
    triangle = shapely.Polygon([(0.5, 2), (1, 1), (1.5, 2)])
    assert not adjacent([square, triangle])
    # borders crossing at a shared vertex, as an independent city touching a county at one point
    a = shapely.Polygon([(0, 0), (4, 1), (4, -1)])
    b = shapely.Polygon([(0, 0), (-4, 1.5), (-4, -0.5)])
    assert shapely.relate_pattern(a, b, "FF*F0****")
    assert not adjacent([a, b])


# -- still adjacent -------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(at=st.floats(0.05, 1.95), rot=ROTATION, scale=SCALE, shift=SHIFT)
def test_t_junction_is_adjacent_at_any_placement(at, rot, scale, shift):
    top = shapely.Polygon([(0, 1), (2, 1), (2, 2), (0, 2)])
    geoms = placed([top, shapely.box(0, 0, at, 1), shapely.box(at, 0, 2, 1)], rot, scale, shift)
    adj = adjacency(geoms)
    assert set(zip(adj.i.tolist(), adj.j.tolist(), strict=True)) == {(0, 1), (0, 2), (1, 2)}


@settings(max_examples=100, deadline=None)
@given(k=st.integers(1, 6), sign=st.sampled_from([-1.0, 1.0]), rot=ROTATION, scale=SCALE, shift=SHIFT)
def test_shared_edge_with_vertices_off_by_rounding_is_adjacent(k, sign, rot, scale, shift):
    """The right box's left side has ``k`` extra vertices 1e-9 of the side off the left box's side."""
    ys = np.linspace(0, 1, k + 2)[1:-1]
    xs = 1.0 + sign * 1e-9 * (-1.0) ** np.arange(k)
    left_side = [(1.0, 1.0), *zip(xs[::-1], ys[::-1], strict=True), (1.0, 0.0)]
    right = shapely.Polygon([(1.0, 0.0), (2.0, 0.0), (2.0, 1.0), *left_side[:-1]])
    geoms = placed([shapely.box(0, 0, 1, 1), right], rot, scale, shift)
    assert adjacent(geoms)


@settings(max_examples=100, deadline=None)
@given(step=st.floats(0.01, 0.7), rot=ROTATION, scale=SCALE, shift=SHIFT)
def test_segmentized_shared_edge_is_adjacent(step, rot, scale, shift):
    geoms = placed([shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1)], rot, scale, shift)
    geoms[1] = shapely.segmentize(geoms[1], step * scale)
    assert adjacent(geoms)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 40), seed=st.integers(0, 10_000), rot=ROTATION, scale=SCALE)
def test_clean_coverage_pairs_equal_the_relate_pattern(n, seed, rot, scale):
    cells = placed(voronoi_cells(n, np.random.default_rng(seed), side=1.0), rot, scale, (0.0, 0.0))
    adj = adjacency(cells)
    assert set(zip(adj.i.tolist(), adj.j.tolist(), strict=True)) == relate_pairs(cells)


@settings(max_examples=60, deadline=None)
@given(dx=st.floats(-1e4, 1e4), dy=st.floats(-1e4, 1e4), scale=st.floats(1e-2, 1e3), over=st.booleans())
def test_an_eido_drawn_over_borders_shared_to_the_bit_is_an_overlap_anywhere(dx, dy, scale, over):
    """The crossed borders pair exactly (so they skip the tolerant pass) on any coordinates, not only grid-like ones."""
    def at(x0, y0, x1, y1):
        return shapely.box(dx + scale * x0, dy + scale * y0, dx + scale * x1, dy + scale * y1)

    cells = [at(k, 0, k + 1, 1) for k in range(4)] + ([at(0.5, 0.2, 2.5, 0.8)] if over else [])
    found = adjacency(cells).overlaps
    assert (found > 0) if over else found == 0


def test_eidos_piled_on_one_another_are_refused_before_their_pairs_are_listed(monkeypatch):
    """The tolerant pass compares each segment with those in its grid cell: Eidos drawn on one another put every
    segment in one cell, and the pairs grow as their square (200,001 identical squares: 3.2e11 pairs, a MemoryError
    of 2.33 TiB).  They are counted first, and past NEAR_PAIRS_PER_SEGMENT a segment (and the floor) refused, saying
    where; below the bound the same squares are all adjacent, as before."""
    from eidomap.model import topology

    squares = np.array([shapely.box(0, 0, 1, 1)] * 50)  # 200 segments in one cell: 19,900 pairs
    assert len(adjacency(squares)) == 50 * 49 // 2
    monkeypatch.setattr(topology, "NEAR_PAIRS_FLOOR", 19_900 - 64 * 200 - 1)
    with pytest.raises(topology.PileUp) as caught:
        adjacency(squares)
    assert str(caught.value) == ("its Eidos pile up around (0.5, 0.5): 200 border segments lie there within the"
                                 " drawing tolerance of one another, and comparing every segment with those near it"
                                 " would take 19,900 pairs, more than the 19,899 allowed to a map of 200 segments (64 a"
                                 " segment); Eidos drawn over one another?")
    assert caught.value.path is None and caught.value.of("board.gpkg").path == "board.gpkg"


@settings(max_examples=15, deadline=None)
@given(n=st.integers(3, 25), seed=st.integers(0, 10_000), chunk=st.integers(1, 40))
def test_the_tolerant_pass_a_few_pairs_at_a_time_finds_what_one_pass_finds(n, seed, chunk):
    """The pairs of a cell are listed, and measured, a chunk at a time (memory bounded whatever the cells hold):
    the adjacency, its lengths and its count of overlaps are those of one pass, on borders split on one side (every
    segment to the tolerant pass) and on Eidos overlapping."""
    from eidomap.model import topology

    cells = voronoi_cells(n, np.random.default_rng(seed), side=100.0)
    cells[::2] = shapely.segmentize(cells[::2], 3.0)
    cells = np.r_[cells, shapely.transform(cells[:2], lambda xy: xy + np.array([0.5, 0.25]))]
    whole = adjacency(cells)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(topology, "_CHUNK", chunk)
        m.setattr(topology, "_PAIR_CHUNK", chunk)
        parts = adjacency(cells)
    assert (parts.i.tolist(), parts.j.tolist(), parts.overlaps) == (whole.i.tolist(), whole.j.tolist(), whole.overlaps)
    assert np.allclose(parts.length, whole.length, rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_borders_split_by_extra_vertices_on_one_side_only_are_the_same_borders_and_no_overlap(seed):
    """An editor's export or a segmentize adds vertices along one Eido's side of a border only: the pairs and the
    lengths they share are those of the map before, and no overlap is counted (the runs of split segments are
    matched as straight chords)."""
    from eidomap.model.generate import generate_map

    doc = generate_map(40, seed=seed)
    geoms = np.array([shapely.geometry.shape(f["geometry"]) for f in doc["features"]
                      if f["properties"].get("kind", "eido") == "eido"], dtype=object)
    split = geoms.copy()
    half = np.random.default_rng(seed).random(len(geoms)) < 0.5
    split[half] = shapely.segmentize(geoms[half], 0.7)
    whole, parts = adjacency(geoms), adjacency(split)
    assert parts.overlaps == whole.overlaps == 0
    assert parts.i.tolist() == whole.i.tolist() and parts.j.tolist() == whole.j.tolist()
    assert np.allclose(parts.length, whole.length, rtol=1e-9)
