"""Deprecated: GeoPandas in and out is :mod:`eidomap.frames` (its name beside :mod:`eidomap.geometry` said
nothing of what it does)."""

from __future__ import annotations

#: The names this module had (``from eidomap.geo import *`` imports nothing: name them).
_MOVED = ("LAYERS", "frame", "from_geodataframe", "to_geodataframe")


def __getattr__(name: str):
    if name in _MOVED:
        import warnings

        from . import frames

        warnings.warn(f"eidomap.geo.{name} is now eidomap.frames.{name}", DeprecationWarning, stacklevel=2)
        return getattr(frames, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
