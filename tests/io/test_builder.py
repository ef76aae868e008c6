"""The map builder's geometry (eidomap/io/builder.py): polygons made in parts are the polygons made at once."""

from __future__ import annotations

import numpy as np
import shapely

from eidomap.io import builder


def test_polygons_made_in_parts_on_threads_are_the_polygons_made_at_once(monkeypatch):
    """A big map's polygons are made a part at a time (one a core): each part's rings and positions are its own,
    so the parts end to end are the polygons of the whole -- holes and all."""
    polys = [shapely.box(k, 0, k + 1, 1) if k % 3 else shapely.box(k, 0, k + 1, 1).difference(
        shapely.box(k + 0.25, 0.25, k + 0.75, 0.75)) for k in range(7)]
    _, xy, (ring_off, poly_off) = shapely.to_ragged_array(polys)
    ring_len, part_rings = np.diff(ring_off), np.diff(poly_off)

    def in_three_parts(func, values):
        return [(a, func(values[a:b])) for a, b in ((0, 2), (2, 5), (5, len(values)))]

    monkeypatch.setattr(builder, "in_parts", in_three_parts)
    made = builder._polygons_from(xy, ring_len, part_rings)
    assert len(made) == len(polys) and shapely.equals_exact(made, np.array(polys, dtype=object), 0).all()


def test_no_polygons_are_an_empty_array_of_geometries():
    """No polygons are what ``shapely.from_ragged_array`` makes of none: an empty array of geometries (dtype object),
    which a map's geometries are whatever their number, not an empty array of floats."""
    none = builder._polygons_from(np.empty((0, 2)), np.empty(0, np.int64), np.empty(0, np.int64))
    assert none.dtype == object and shapely.area(none).tolist() == []
