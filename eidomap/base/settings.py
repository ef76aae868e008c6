"""Which twin of a search runs: the plain-Python function or its numba-compiled copy.

Each search of this package is written once, as plain Python over arrays;
:mod:`eidomap.base.compiled` compiles the same source with numba.  Importing
it imports numba and loads the machine code from numba's cache (about half a
second; a few seconds when it must compile), so the Python twin answers
sooner on a small input and the compiled one on a large input: past
:data:`COMPILE_ABOVE` steps the compiled twin runs, unless the caller chose.

>>> from eidomap.search.turns import earliest_labels
>>> twin(earliest_labels, 100) is earliest_labels
True
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast

#: Steps a search may try (the edges of a network; eight a square of a battle grid) past which its compiled
#: twin runs by default.
COMPILE_ABOVE = 20_000

F = TypeVar("F", bound=Callable[..., Any])


def twin(fn: F, steps: int, compiled: bool | None = None) -> F:
    """``fn``, or its compiled twin (:func:`eidomap.base.compiled.compiled`).

    ``compiled`` True or False chooses; None takes the compiled twin when the
    search may try more than :data:`COMPILE_ABOVE` steps.
    """
    if not (steps > COMPILE_ABOVE if compiled is None else compiled):
        return fn
    from eidomap.base.compiled import compiled as _compile

    return cast(F, _compile(fn))


def loaded() -> bool:
    """Whether compiled twins already run in this process: numba is imported and its cache open, so one more
    loads in milliseconds instead of half a second."""
    return "eidomap.base.compiled" in sys.modules
