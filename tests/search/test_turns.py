"""The turn search: one step under the debt rule, turn by turn."""

from __future__ import annotations

import numpy as np
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from eidomap.search.turns import advance
from eidomap.search.weighted import EPS


def _paid_turn_by_turn(t: int, p: float, c: float, budgets: list[float], carry: bool):
    """The step rule for one step with budgets repeated, turn by turn (an oracle for ``advance``; small costs only)."""
    if c <= EPS or p + EPS >= c:
        return t, t, max(p - c, 0.0)
    start, debt = (t, c - p) if carry and p > EPS else (-1, c)
    for u in range(t + 1, t + 10 * len(budgets) * (int(c) + 2)):
        b = budgets[(u - 1) % len(budgets)]
        if start < 0 and b + EPS >= c:
            return u, u, max(b - c, 0.0)
        if start < 0 and carry and b > EPS:
            start, debt = u, c - b
        elif start >= 0 and b + EPS >= debt:
            return start, u, max(b - debt, 0.0)
        elif start >= 0:
            debt -= b
    return start, -1, 0.0


@settings(max_examples=examples(150), deadline=None)
@given(budgets=st.lists(st.integers(0, 6), min_size=1, max_size=5), cost=st.integers(1, 60), turn=st.integers(1, 7),
       carry=st.booleans())
def test_a_debt_over_many_cycles_is_paid_as_turn_by_turn(budgets, cost, turn, carry):
    b = np.asarray(budgets, dtype=float)
    left = float(b[(turn - 1) % len(b)])
    assert advance(turn, left, float(cost), b, True, carry) == _paid_turn_by_turn(turn, left, float(cost), budgets,
                                                                                     carry)


def test_the_time_to_pay_a_debt_does_not_grow_with_the_cost():
    """A cost of 10^12 paid 1 and 2 PtMv a turn: turn by turn that was 6.7 x 10^11 turns of work."""
    start, end, left = advance(1, 1.0, 1e12, np.array([1.0, 2.0]), True, True)
    assert (start, end, left) == (1, 666_666_666_667, 0.0)
