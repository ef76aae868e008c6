"""The searches compiled with numba: the same functions as :mod:`.turns` and :mod:`.rounds`.

Importing this module imports numba and compiles (or loads from numba's cache)
:func:`eidomap.search.turns.earliest_labels`, the battle-grid searches
:func:`eidomap.search.rounds.plan_labels`, :func:`~eidomap.search.rounds.rounds_to` and
:func:`~eidomap.search.rounds.lines_from` and the grid's CSR builder
:func:`eidomap.rules.d20.tactical.step_arrays`; the functions they call (the
bucket queue of :mod:`.buckets` among them) are registered as jit-able, so
there is one source for both forms.  :func:`eidomap.search.twins.twin` picks
which form runs.
"""

from __future__ import annotations

import numba
from numba.extending import register_jitable

from ..rules.d20 import tactical
from . import buckets, rounds, turns

_HELPERS = (
    buckets.new_queue, buckets.has_room, buckets.grow, buckets._earlier, buckets._heap_add, buckets._heap_take,
    buckets._ring_add, buckets.push, buckets.pop,
    turns.budget_at, turns.can_start, turns.advance, turns._before, turns._small_keys, turns._bits,
    rounds._offer, rounds._label_rows, rounds._rounds_left, rounds._beyond, rounds._reaches, rounds._corner_ok,
    rounds._clear_line, rounds._line_end, rounds.lines_from,
    tactical._enters, tactical.offsets, tactical.step_cost, tactical.line_square, tactical.line_cost,
)
for _fn in _HELPERS:
    register_jitable(_fn)

earliest_labels = numba.njit(cache=True, nogil=True)(turns.earliest_labels)
plan_labels = numba.njit(cache=True, nogil=True)(rounds.plan_labels)
lines_from = numba.njit(cache=True, nogil=True)(rounds.lines_from)
rounds_to = numba.njit(cache=True, nogil=True)(rounds.rounds_to)
step_arrays = numba.njit(cache=True, nogil=True)(tactical.step_arrays)
