"""Functions a layer above lends to a layer below, by name.

Data flow one way (file -> map record -> topology -> network -> searches ->
answers -> command line and pictures) and no module imports one above it, not
even lazily.  Where a lower module offers what a higher one does -- the
:class:`~eidomap.model.Map` facade's ``graph_for`` (:mod:`eidomap.routing`),
``to_geodataframe`` (:mod:`eidomap.frames`) and ``explore``
(:mod:`eidomap.plot.explore`); the SVG import's snapping of borders drawn
twice (:mod:`eidomap.fix`) -- the higher module's function is registered here
by the package's root (``eidomap/__init__.py``, the top of every layer; it
imports the two that bring matplotlib and the validation when first called),
and the lower module calls it by name.  Importing any part of eidomap imports
its root first, so every hook is in place before anything can call one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["call", "register"]

_HOOKS: dict[str, Callable[..., Any]] = {}


def register(name: str, func: Callable[..., Any]) -> None:
    """Lend ``func`` under ``name``."""
    _HOOKS[name] = func


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    """Call the function lent under ``name``."""
    try:
        func = _HOOKS[name]
    except KeyError:
        raise RuntimeError(f"no function is lent as {name!r} (is eidomap imported whole?)") from None
    return func(*args, **kwargs)
