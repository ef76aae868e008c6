"""Old names of renamed modules and functions (issue 29): still importable, with a :class:`DeprecationWarning`.

A module that moved keeps a file under its old name that only calls
:func:`alias_module`; names that moved out of a module that stays are served by
its ``__getattr__`` (:func:`moved_names`), warning when one is used.  Both will
go in a later release.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["alias_module", "moved", "moved_names"]


def moved(old: str, new: str) -> None:
    """Warn that ``old`` is now ``new`` (for the caller's caller: the code that used the old name)."""
    warnings.warn(f"{old} is now {new}; the old name will be removed", DeprecationWarning, stacklevel=3)


def alias_module(old: str, new: str) -> None:
    """Make the module being imported as ``old`` the module ``new`` (the same object: patching one patches both)."""
    moved(old, new)
    sys.modules[old] = importlib.import_module(new)


def moved_names(module: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A ``__getattr__`` for ``module`` that serves each name of ``names`` from the module it moved to (name ->
    that module, where it keeps its name), imported when the name is first used."""

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        moved(f"{module}.{name}", f"{names[name]}.{name}")
        return getattr(importlib.import_module(names[name]), name)

    return __getattr__
