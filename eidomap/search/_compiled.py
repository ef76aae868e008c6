"""The searches compiled with numba: the same functions as :mod:`.turns` and :mod:`.rounds`.

Importing this module imports numba and compiles (or loads from numba's cache)
:func:`eidomap.search.turns.earliest_labels` the battle-grid searches
:func:`eidomap.search.rounds.plan_labels`, :func:`~eidomap.search.rounds.rounds_to` and
:func:`~eidomap.search.rounds.lines_from` and the grid's CSR builder :func:`eidomap.rules.d20.tactical.step_arrays`;
the functions they call are registered as jit-able, so there is one source for
both forms.
"""

from __future__ import annotations

import numba
from numba.extending import register_jitable

from ..rules.d20 import tactical
from . import rounds, turns

for _fn in (turns.budget_at, turns.can_start, turns.advance, turns._before, turns._heap_swap, turns._heap_push,
            turns._heap_pop, rounds._pop, rounds._offer, rounds._queue, rounds._next, rounds._room,
            rounds._label_rows, rounds._rounds_left, rounds._beyond, rounds._reaches, rounds._corner_ok,
            rounds._clear_line, rounds._line_end, rounds.lines_from, tactical._enters, tactical.offsets,
            tactical.step_cost, tactical.line_square, tactical.line_cost):
    register_jitable(_fn)

earliest_labels = numba.njit(cache=True, nogil=True)(turns.earliest_labels)
plan_labels = numba.njit(cache=True, nogil=True)(rounds.plan_labels)
lines_from = numba.njit(cache=True, nogil=True)(rounds.lines_from)
rounds_to = numba.njit(cache=True, nogil=True)(rounds.rounds_to)
step_arrays = numba.njit(cache=True, nogil=True)(tactical.step_arrays)
