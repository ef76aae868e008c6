"""Deprecated: GeoPandas in and out is :mod:`eidomap.frames` (its name beside :mod:`eidomap.geometry` said
nothing of what it does)."""

import warnings

from .frames import LAYERS, frame, from_geodataframe, to_geodataframe

__all__ = ["LAYERS", "frame", "from_geodataframe", "to_geodataframe"]

warnings.warn("eidomap.geo is now eidomap.frames", DeprecationWarning, stacklevel=2)
