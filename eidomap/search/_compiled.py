"""The turn search compiled with numba: the same functions as :mod:`.turns`.

Importing this module imports numba and compiles (or loads from numba's cache)
:func:`eidomap.search.turns.earliest_labels`; the functions it calls are
registered as jit-able, so there is one source for both forms.
"""

from __future__ import annotations

import numba
from numba.extending import register_jitable

from . import turns

for _fn in (turns.budget_at, turns.can_start, turns.advance, turns._before, turns._heap_swap, turns._heap_push,
            turns._heap_pop):
    register_jitable(_fn)

earliest_labels = numba.njit(cache=True, nogil=True)(turns.earliest_labels)
