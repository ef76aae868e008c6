"""The searches compiled with numba: the same functions as :mod:`.turns` and :mod:`.grid`.

Importing this module imports numba and compiles (or loads from numba's cache)
:func:`eidomap.search.turns.earliest_labels` the battle-grid searches
:func:`eidomap.search.grid.plan_labels`, :func:`~eidomap.search.grid.rounds_to` and
:func:`~eidomap.search.grid.lines_from` and the grid's CSR builder :func:`eidomap.rules.d20.tactical.step_arrays`;
the functions they call are registered as jit-able, so there is one source for
both forms.
"""

from __future__ import annotations

import numba
from numba.extending import register_jitable

from ..rules.d20 import tactical
from . import grid, turns

for _fn in (turns.budget_at, turns.can_start, turns.advance, turns._before, turns._heap_swap, turns._heap_push,
            turns._heap_pop, grid._pop, grid._offer, grid._queue, grid._next, grid._room, grid._label_rows,
            grid._rounds_left, grid._beyond, grid._reaches, grid._corner_ok, grid._clear_line, grid._line_end,
            grid.lines_from, tactical._enters, tactical.offsets, tactical.step_cost, tactical.line_square,
            tactical.line_cost):
    register_jitable(_fn)

earliest_labels = numba.njit(cache=True, nogil=True)(turns.earliest_labels)
plan_labels = numba.njit(cache=True, nogil=True)(grid.plan_labels)
lines_from = numba.njit(cache=True, nogil=True)(grid.lines_from)
rounds_to = numba.njit(cache=True, nogil=True)(grid.rounds_to)
step_arrays = numba.njit(cache=True, nogil=True)(tactical.step_arrays)
