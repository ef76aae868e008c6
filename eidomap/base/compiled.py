"""The searches compiled with numba, from the same source as the plain-Python ones.

Each search of :mod:`eidomap.search` (and the battle grid's CSR builder,
:func:`eidomap.rules.d20.grid.step_arrays`) is written once, as plain
Python over arrays.  :func:`compiled` hands it to numba, after registering as
jit-able the functions it calls -- those its module lists in ``JIT_HELPERS``
(the bucket queue of :mod:`eidomap.search.buckets` among them) -- so there is one source for
both forms.  Importing this module imports numba; the first call of a
compiled search loads its machine code from numba's cache (or compiles it).
:func:`eidomap.base.settings.twin` picks which form runs.

The sources assign no array into a slice (``a[i:j] = b``): numba compiles
that assignment's shape check, error message and all, for a second or two
in each function, where ``np.concatenate``, ``copy`` or a short loop takes a
tenth of it (the route of a battle grid compiled in 12 s, 7 s without).

It imports none of the modules whose functions it compiles: they reach it, not
the other way round, so the searches and their twins make no import cycle.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache
from typing import Any

import numba
from numba.extending import register_jitable

_registered: set[Callable[..., Any]] = set()


@cache
def compiled(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` compiled with numba (``njit``, cached on disk), its module's ``JIT_HELPERS`` registered first."""
    for helper in getattr(sys.modules[fn.__module__], "JIT_HELPERS", ()):
        if helper not in _registered:
            register_jitable(helper)
            _registered.add(helper)
    return numba.njit(cache=True, nogil=True)(fn)
