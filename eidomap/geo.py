"""Deprecated: GeoPandas in and out is :mod:`eidomap.frames` (its name beside :mod:`eidomap.geometry` said
nothing of what it does)."""

from __future__ import annotations

from eidomap._moved import moved_names

#: The names this module had (``from eidomap.geo import *`` imports nothing: name them).
__getattr__ = moved_names(__name__, dict.fromkeys(("LAYERS", "frame", "from_geodataframe", "to_geodataframe"),
                                                  "eidomap.frames"))
