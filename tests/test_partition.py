"""Validation's fast path on Eidos that share their borders to the bit, held to the general way on random maps.

The oracle, :class:`PlainBoard`, is the board as it was before the fast path:
GEOS's coverage check and union, and every pair within the near-miss distance
from one ``STRtree`` ``dwithin`` query.  Random Voronoi maps get defects --
Eidos left out, grown, shrunk, shifted, a vertex nudged, borders split, an Eido
twice, an Eido inside another -- some of which keep the fast path (gaps, holes
with an island) and some of which must make it give up.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pytest
import shapely
from conftest import examples
from hypothesis import event, given, settings
from hypothesis import strategies as st

from eidomap.generate import voronoi_cells
from eidomap.partition import exact_union
from eidomap.topology import boundary_segments, exact_pairs
from eidomap.validate import Board, geometry_problems


class PlainBoard(Board):
    """The board without the fast path: GEOS's coverage check and union, one ``dwithin`` query for close pairs."""

    @cached_property
    def _borders(self):
        adjacency, keys, _ = Board._borders.func(self)
        return adjacency, keys, None

    @cached_property
    def close(self):
        i, j = self.tree.query(self.geoms, predicate="dwithin", distance=max(self.near, self.tol))
        keep = i < j
        return i[keep], j[keep]


SIDE = 100.0
DEFECTS = ("gap", "notch", "grow", "shrink", "shift", "nudge", "tiny-nudge", "split", "twice", "inside")


def _defect(cells: list, kind: str, k: int, size: float) -> list:
    """``cells`` with one defect on cell ``k``."""
    cell = cells[k]
    c = shapely.centroid(cell)
    if kind == "gap":  # an inner cell left out: a hole in the board
        return cells[:k] + cells[k + 1:]
    if kind == "notch":  # the cell nearest the board's edge left out
        k = int(np.argmin(shapely.distance(shapely.boundary(shapely.box(0, 0, SIDE, SIDE)), cells)))
        return cells[:k] + cells[k + 1:]
    if kind in ("grow", "shrink"):
        f = 1 + size if kind == "grow" else 1 - size
        return [*cells[:k], shapely.affinity.scale(cell, f, f, origin=c), *cells[k + 1:]]
    if kind == "shift":
        return [*cells[:k], shapely.affinity.translate(cell, size, size / 2), *cells[k + 1:]]
    if kind in ("nudge", "tiny-nudge"):  # one vertex moved: the borders it is on no longer match
        xy = shapely.get_coordinates(cell)
        xy[[0, -1]] += size if kind == "nudge" else SIDE * 1e-12
        return [*cells[:k], shapely.polygons(xy), *cells[k + 1:]]
    if kind == "split":  # extra vertices on one side of its borders only
        return [*cells[:k], shapely.segmentize(cell, 0.5), *cells[k + 1:]]
    if kind == "twice":
        return [*cells, cell]
    # "inside": a small square within the cell
    r = size * 0.5
    return [*cells, shapely.box(c.x - r, c.y - r, c.x + r, c.y + r).intersection(cell)]


maps = st.tuples(st.integers(8, 60), st.integers(0, 2**32 - 1),
                 st.lists(st.tuples(st.sampled_from(DEFECTS), st.integers(0, 10**6), st.floats(0.002, 0.3)),
                          max_size=3))


def _board_maps(n: int, seed: int, defects) -> np.ndarray:
    cells = list(voronoi_cells(n, np.random.default_rng(seed), side=SIDE))
    for kind, k, size in defects:
        if len(cells) > 3:
            cells = _defect(cells, kind, k % len(cells), size)
    return np.array([g for g in cells if not shapely.is_empty(g) and shapely.is_valid(g)], dtype=object)


def _same(fast, plain) -> None:
    for a, b in zip(fast, plain, strict=True):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=examples(300), deadline=None)
@given(maps)
def test_the_fast_path_finds_what_the_general_way_finds(m):
    geoms = _board_maps(*m)
    fast, plain = Board(geoms), PlainBoard(geoms)
    event("fast path" if fast._borders[2] is not None else "general way")
    _same(fast.close, plain.close)  # the same pairs, in the same order
    assert fast.clean == plain.clean or (fast.clean and fast._borders[2] is not None)
    assert shapely.equals(fast.union, plain.union) or fast.n == 0
    assert shapely.equals(fast.outline, plain.outline) or fast.n == 0
    _same(fast.overlaps, plain.overlaps)
    _same(fast.gap_eidos, plain.gap_eidos)
    _same(fast.near_misses, plain.near_misses)
    _same(fast.inlets, plain.inlets)
    _same(fast.contacts, plain.contacts)
    ids = [f"e{k}" for k in range(fast.n)]
    fp, pp = geometry_problems(fast, ids), geometry_problems(plain, ids)
    assert [(p.code, p.features, p.message) for p in fp] == [(p.code, p.features, p.message) for p in pp]
    np.testing.assert_array_equal(np.array([p.location for p in fp]), np.array([p.location for p in pp]))


@settings(max_examples=examples(300), deadline=None)
@given(maps)
def test_an_exact_union_is_the_union_of_eidos_that_do_not_overlap(m):
    geoms = _board_maps(*m)
    seg = boundary_segments(geoms)
    union = exact_union(seg, exact_pairs(seg).paired)
    if union is None:
        return
    assert shapely.is_valid(union) and shapely.equals(union, shapely.union_all(geoms))
    tree = shapely.STRtree(geoms)
    i, j = tree.query(geoms, predicate="intersects")
    keep = i < j
    assert not shapely.relate_pattern(geoms[i[keep]], geoms[j[keep]], "T********").any()


def test_a_clean_map_and_a_map_with_a_hole_take_the_fast_path():
    cells = voronoi_cells(200, np.random.default_rng(7), side=SIDE)
    for geoms in (cells, np.delete(cells, 100)):
        board = Board(geoms)
        assert board._borders[2] is not None and board.clean
    assert len(Board(np.delete(cells, 100)).gaps) == 1


@pytest.mark.parametrize("kind", ["grow", "shift", "twice", "inside", "split", "nudge"])
def test_overlaps_and_unmatched_borders_leave_the_fast_path(kind):
    cells = list(voronoi_cells(50, np.random.default_rng(3), side=SIDE))
    board = Board(np.array(_defect(cells, kind, 20, 0.2), dtype=object))
    assert board._borders[2] is None


def test_an_eido_inside_another_is_not_a_hole():
    """Its border, left unpaired, bounds a hole of the linework's area -- but runs the wrong way round."""
    big, small = shapely.box(0, 0, 10, 10), shapely.box(4, 4, 6, 6)
    seg = boundary_segments([big, small])
    assert exact_union(seg, exact_pairs(seg).paired) is None
    seg = boundary_segments([big.difference(small), small])
    assert shapely.equals(exact_union(seg, exact_pairs(seg).paired), big)


def test_close_pairs_measured_in_threads_come_as_one_query_gives_them():
    """25,000 Eidos and a wide near-miss distance: the boxes and the 45,000 pairs measured go in parts."""
    n = 25_000
    cells = voronoi_cells(n, np.random.default_rng(4), side=float(np.sqrt(n) * 10))
    _same(Board(cells, near_miss=3.0).close, PlainBoard(cells, near_miss=3.0).close)
