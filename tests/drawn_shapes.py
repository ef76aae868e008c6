"""Drawings at any angle, rotation, scale and place, for the topology's and the validation's tests: corners and
borders "at any angle" must give the same answers wherever and however large a map is drawn."""

from __future__ import annotations

import numpy as np
import shapely
from hypothesis import strategies as st

ANGLE = st.floats(0.5, 179.5)
SCALE = st.floats(1e-3, 1e6)
ROTATION = st.floats(0.0, 360.0)
SHIFT = st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3))


def placed(geoms, rotation: float, scale: float, shift) -> np.ndarray:
    """Rotate about the origin, scale, then translate by ``shift`` (in units of the scaled drawing)."""
    t = np.radians(rotation)
    c, s = np.cos(t), np.sin(t)
    m = np.array([[c, -s], [s, c]]) * scale
    off = np.asarray(shift) * scale
    return np.asarray(shapely.transform(np.asarray(geoms, dtype=object), lambda xy: xy @ m.T + off))


def fan(apex, r: float, a1: float, a2: float) -> shapely.Polygon:
    """A triangle with its apex at ``apex`` and arms at angles ``a1`` and ``a2`` (degrees)."""
    t = np.radians([a1, a2])
    x, y = apex
    return shapely.Polygon([(x, y), (x + r * np.cos(t[0]), y + r * np.sin(t[0])),
                            (x + r * np.cos(t[1]), y + r * np.sin(t[1]))])
