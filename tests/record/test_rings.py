"""Surely simple rings (:mod:`eidomap.record.rings`) against GEOS's ``is_valid``: never simple where GEOS finds the
polygon invalid, and sure of the plain polygons maps are made of (hypothesis)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import shapely
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from eidomap.base import settings as tuning
from eidomap.base.settings import twin
from eidomap.io import builder
from eidomap.io.geojson import read_geojson
from eidomap.record import rings as _rings
from eidomap.record.rings import MAX_SEGMENTS, surely_simple

COMPILED = twin(surely_simple, 0, compiled=True)


def simple(*rings: list) -> list[bool]:
    xy = np.concatenate([np.asarray(r, dtype=float).reshape(-1, 2) for r in rings])
    length = np.array([len(r) for r in rings], dtype=np.int64)
    start = np.cumsum(length) - length
    plain = surely_simple(xy, start, length)
    assert np.array_equal(plain, COMPILED(xy, start, length))  # (the compiled twin is the same source)
    return plain.tolist()


def closed(points: list) -> list:
    return [*points, points[0]]


GRID = st.tuples(st.integers(0, 3), st.integers(0, 3)).map(lambda p: (float(p[0]), float(p[1])))
FAR = st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6))


@st.composite
def nearly_collinear(draw) -> list:
    """Positions on a line through large coordinates, each moved by a few units in the last place or not."""
    n = draw(st.integers(3, 8))
    x0, y0 = draw(FAR)
    dx, dy = draw(st.sampled_from([(1.0, 0.0), (1.0, 1.0), (3.0, 7.0), (0.1, 0.3)]))
    ts = draw(st.lists(st.floats(-100, 100), min_size=n, max_size=n))
    nudge = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    return [(math.nextafter(x0 + t * dx, math.inf) if k > 0 else x0 + t * dx, y0 + t * dy + k * 1e-10 * (k % 2))
            for t, k in zip(ts, nudge, strict=True)]


@st.composite
def valley(draw) -> list:
    """An "M": a base from q to r, and a valley position p between two peaks that comes down to the base within a
    few units in the last place, above it, on it or across it (where rounding may tell the wrong side)."""
    qx, qy, rx, ry = (draw(st.floats(0, 30)) for _ in range(4))
    if math.hypot(rx - qx, ry - qy) < 1:
        rx, ry = qx + 5, qy + 3
    t = draw(st.floats(0.2, 0.8))
    px, py = qx + t * (rx - qx), qy + t * (ry - qy)
    px += draw(st.integers(-3, 3)) * math.ulp(px)
    py += draw(st.integers(-3, 3)) * math.ulp(py)
    nx, ny = qy - ry, rx - qx  # (to the left of q -> r)
    peak = (rx + nx, ry + ny), (qx + nx, qy + ny)
    return [(qx, qy), (rx, ry), peak[0], (px, py), peak[1]]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.lists(GRID, min_size=2, max_size=9), st.lists(FAR, min_size=2, max_size=9), nearly_collinear(),
                 valley()))
def test_a_ring_surely_simple_is_a_valid_polygon_to_geos(points):
    ring = closed(points)
    (sure,) = simple(ring)
    if sure:
        assert shapely.is_valid(shapely.Polygon(ring)), ring


def regular(n: int, x0: float, y0: float, radius: float, turn: float) -> list:
    a = turn + 2 * np.pi * np.arange(n) / n
    return closed(list(zip((x0 + radius * np.cos(a)).tolist(), (y0 + radius * np.sin(a)).tolist(), strict=True)))


@settings(max_examples=100, deadline=None)
@given(st.integers(3, 90), st.floats(-1e6, 1e6), st.floats(-1e6, 1e6), st.floats(1.0, 1e4), st.floats(0, 7))
def test_a_convex_ring_is_surely_simple_up_to_its_length_limit(n, x0, y0, radius, turn):
    ring = regular(n, x0, y0, radius, turn)
    assert shapely.is_valid(shapely.Polygon(ring))
    assert simple(ring) == [n <= MAX_SEGMENTS]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.02, 3.0), min_size=3, max_size=40), st.lists(st.floats(0.3, 1.0), min_size=40,
                                                                         max_size=40))
def test_a_star_shaped_ring_is_surely_simple(gaps, radii):
    angles = np.cumsum(gaps) * 2 * np.pi / sum(gaps)  # (every gap under a half turn: the centre sees each side)
    assume(max(gaps) * 2 * np.pi / sum(gaps) < 3.1)
    ring = closed([(100 * r * math.cos(a), 100 * r * math.sin(a)) for a, r in zip(angles, radii, strict=False)])
    assert shapely.is_valid(shapely.Polygon(ring))
    assert simple(ring) == [True]


@pytest.mark.parametrize("ring, why", [
    ([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)], "a bowtie"),
    ([(0, 0), (2, 0), (2, 2), (1, 0), (0, 2), (0, 0)], "touches itself at a position"),
    ([(0, 0), (2, 0), (1, 0), (1, 1), (0, 0)], "doubles back on itself"),
    ([(0, 0), (1, 0), (1, 0), (1, 1), (0, 0)], "repeats a position"),
    ([(0, 0), (1, 0), (2, 0), (0, 0)], "lies on one line"),
    ([(0, 0), (1, 0), (0, 0)], "has two segments"),
    ([(0, 0), (4, 0), (4, 4), (2, 0.0), (0, 4), (0, 0)], "touches one of its segments"),
    # a valley that touches its base, where the orientation without its error bound tells the wrong side:
    ([(0.34591667097701007, 19.331377406404123), (7.662977476630579, 28.300131275692),
      (-1.3057763926572976, 35.61719208134557), (3.2401203602971935, 22.878894808069216),
      (-8.622837198310867, 26.64843821205769), (0.34591667097701007, 19.331377406404123)],
     "touches it, rounding aside"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_a_ring_that_is_not_simple_is_not_surely_simple(ring, why):
    assert simple(ring) == [False], why


@pytest.mark.parametrize("ring", [
    closed([(0, 0), (1, 0), (2, 0), (2, 1), (0, 1)]),  # on a side along x
    closed([(0, 0), (2, 0), (2, 1), (2, 2), (0, 2)]),  # along y
    closed([(0, 0), (1, 1), (2, 2), (0, 2)]),  # on a slant
    closed([(1, 0), (2, 0), (2, 1), (0, 1), (0, 0)]),  # the first position itself, between the last side and the first
    closed([(0, 0), (1, 0), (2, 0), (3, 0), (3, 1), (2, 1), (1, 1), (0, 1)]),  # several, either way along a line
], ids=["x", "y", "slant", "first", "several"])
def test_a_ring_with_a_straight_vertex_is_surely_simple(ring):
    """A position in the middle of a straight side (an editor's extra vertex, a segmentized border) neither turns
    nor goes back: the sides before and after it surely meet only there, so the ring is surely simple, as GEOS
    finds it valid -- not left to GEOS for want of a turn."""
    assert shapely.is_valid(shapely.Polygon(ring))
    assert simple(ring) == [True]


def test_rings_are_told_one_by_one_at_their_own_positions():
    square, bowtie = closed([(0, 0), (1, 0), (1, 1), (0, 1)]), closed([(0, 0), (1, 1), (1, 0), (0, 1)])
    assert simple(square, bowtie, square, regular(70, 0, 0, 1, 0), square) == [True, False, True, False, True]


def _map(n: int) -> bytes:
    """A grid of n x n squares, some Eidos replaced by shapes GEOS refuses or the check leaves to GEOS, some of
    an unknown terrain."""
    feats = []
    for k in range(n * n):
        x, y = k % n, k // n
        ring = closed([(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)])
        geom = {"type": "Polygon", "coordinates": [ring]}
        if k % 7 == 3:
            geom = {"type": "Polygon", "coordinates": [closed([(x, y), (x + 1, y + 1), (x + 1, y), (x, y + 1)])]}
        elif k % 11 == 5:  # (a hole)
            geom["coordinates"].append(closed([(x + .2, y + .2), (x + .2, y + .8), (x + .8, y + .8), (x + .8, y + .2)]))
        elif k % 13 == 6:
            geom = {"type": "MultiPolygon", "coordinates": [[ring]]}
        elif k % 17 == 8:  # (a spike back along its first side)
            geom = {"type": "Polygon", "coordinates": [[(x, y), (x + 1, y), (x + .5, y), (x + 1, y), (x + 1, y + 1),
                                                        (x, y + 1), (x, y)]]}
        terrain = "nowhere" if k % 19 == 9 else "meadow"  # (left out before the polygons are made)
        feats.append({"type": "Feature", "id": f"e{k}", "properties": {"kind": "eido", "terrain": terrain},
                      "geometry": geom})
    return json.dumps({"type": "FeatureCollection", "features": feats}).encode()


def test_a_map_read_with_the_check_is_the_map_read_by_geos_alone(monkeypatch):
    data = _map(12)
    monkeypatch.setattr(tuning, "SURE_ABOVE", 10**9)
    geos, geos_problems = read_geojson(None, None, data)
    calls = []
    monkeypatch.setattr(builder, "twin", lambda fn, steps, compiled=None: calls.append(fn) or fn)  # (the plain twin)
    monkeypatch.setattr(tuning, "SURE_ABOVE", 0)
    monkeypatch.setattr(builder, "loaded", lambda: True)  # (numba's machine code as good as loaded)
    checked, problems = read_geojson(None, None, data)
    assert calls == [_rings.surely_simple]  # (the check ran)
    assert [p.code for p in problems] == [p.code for p in geos_problems]
    assert {"invalid-geometry", "unknown-terrain"} <= {p.code for p in problems}
    assert [p.message for p in problems] == [p.message for p in geos_problems]
    a, b = geos.record.eidos, checked.record.eidos
    assert a.ids == b.ids and bool(shapely.equals_exact(a.geoms, b.geoms, 0.0).all())
