"""Bounded work: memory and time grow with the map, never with a number written in it (issue 28).

The dice, the VMv, the costs and the turns asked are bounded by documented
maxima before any table is made; the arrival distributions work through the
spread of the dice and the turns it takes, not through the size of a VMv or
a cost.  (The hostile-input corpus holds the command-line cases, each under a
memory guard: tests/test_bad_inputs.py.)
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from conftest import DEMO, examples, strip
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_exact_turns import exact_budgets, exact_expected_turns

import eidomap
import eidomap.search.dice
from eidomap.errors import RequestError
from eidomap.routing import MAX_TURNS, reach, route
from eidomap.rules.dice import MAX_MODIFIER, Dice, budget_pmf
from eidomap.rules.eido import actor
from eidomap.search.dice import arrival_cdf, arrival_within, expected_turns
from eidomap.search.turns import advance
from eidomap.search.weighted import EPS
from eidomap.validate import validate

WALKER = "[species.walker]\nvmv = 0\ncosts = { meadow = 1000000 }\nroad_cost = 1\n" \
         "[species.runner]\nvmv = 1000000\ncosts = { meadow = 1000000 }\nroad_cost = 1\n"


@pytest.mark.parametrize(("dice", "vmv"), [("1d6-6", 0), ("1d6-100", 0), ("2d4-9", 1)])
def test_dice_whose_budget_is_never_positive_cannot_move(demo, dice, vmv):
    with pytest.raises(RequestError, match=rf"human cannot move: with dice {dice} and VMv {vmv} no turn gives a PtMv"):
        actor(demo.catalog, "human", dice=dice, vmv=vmv)
    assert actor(demo.catalog, "human", dice=dice, vmv=vmv + 100).largest_budget > 0


def test_a_dice_modifier_is_bounded_however_the_dice_are_made():
    assert Dice.parse(f"1d6+{MAX_MODIFIER}").high == 6 + MAX_MODIFIER
    assert Dice.parse(f"1d6-{MAX_MODIFIER}").plus == -MAX_MODIFIER
    for text in (f"1d6+{MAX_MODIFIER + 1}", "1d6+100000000", "1d6-" + "9" * 5000):
        with pytest.raises(RequestError, match="a modifier within ±100,000"):
            Dice.parse(text)
    with pytest.raises(RequestError, match="dice '1d6\\+1000000000'"):
        Dice(1, 6, 10**9)


def test_a_vmv_given_is_bounded_like_the_catalog_s(demo):
    with pytest.raises(RequestError, match="VMv must be a whole number from 0 to 1,000,000, got 1000001"):
        actor(demo.catalog, "human", vmv=1_000_001)
    with pytest.raises(RequestError, match="dice must be a Dice or text"):
        actor(demo.catalog, "human", dice=6)


@pytest.mark.parametrize("turns", [0, MAX_TURNS + 1, True, 2.0])
def test_the_turns_asked_are_bounded(demo, turns):
    with pytest.raises(RequestError, match=f"must be a whole number from 1 to {MAX_TURNS}"):
        route(demo, "porto-norte", "aldea-do-cabo", "human", max_turns=turns)
    with pytest.raises(RequestError, match=f"turns must be a whole number from 1 to {MAX_TURNS}"):
        reach(demo, "porto-norte", "human", turns=turns)


def test_a_goal_beyond_the_horizon_is_said_so_without_a_distribution(make_map):
    m = make_map(strip(["meadow"] * 4), catalog="[species.walker]\nvmv = 0\ncosts = { meadow = 5 }\n")
    r = route(m, "e0", "e3", "walker", max_turns=1)  # in e3 once 10 PtMv and a point are paid: a turn gives 6
    assert not r.reachable and r.p_by_turn == [] and r.best_turns is None and r.worst_turns is None
    assert r.reason == "e3 is 15 PtMv away and a turn gives at most 6: more than 1 turn"
    far = make_map(strip(["meadow"] * 6), catalog="[species.walker]\nvmv = 0\ncosts = { meadow = 5 }\n")
    assert route(far, "e0", "e5", "walker", max_turns=2).reason.endswith(": more than 2 turns")
    r = route(m, "e0", "e3", "walker", max_turns=2)  # 11 points in two turns: 5+6, 6+5 or 6+6
    assert r.reachable and (r.best_turns, r.worst_turns) == (2, 11) and r.p_by_turn == [0.0, 3 / 36]

def test_the_work_does_not_grow_with_the_vmv_or_the_costs(make_map, monkeypatch):
    """With a few thousand steps allowed, a VMv and costs of 1,000,000 are answered; many turns are refused."""
    m = make_map(strip(["meadow"] * 5), catalog=WALKER)
    monkeypatch.setattr(eidomap.search.dice, "MAX_DICE_WORK", 5_000)
    r = route(m, "e0", "e4", "runner")  # in e4 once 3,000,001 PtMv are paid, at 1,000,001 to 1,000,006 a turn
    assert (r.best_turns, r.expected_turns, r.worst_turns, r.p_by_turn) == (3, 3.0, 3, [0.0, 0.0, 1.0])
    assert reach(m, "e0", "runner", turns=MAX_TURNS).p_within == {"e0": 1.0, "e1": 1.0, "e2": 1.0, "e3": 1.0,
                                                                   "e4": 1.0}
    with pytest.raises(RequestError, match="needs more than 5,000 steps"):
        reach(m, "e0", actor(m.catalog, "walker", dice="100d6", vmv=100), turns=MAX_TURNS)


def _exact_sums(budgets: dict[int, Fraction], turns: int) -> list[dict[int, Fraction]]:
    """The law of the sum of k budgets, k = 1 .. turns, enumerated with fractions."""
    out, law = [], {0: Fraction(1)}
    for _ in range(turns):
        nxt: dict[int, Fraction] = {}
        for s, p in law.items():
            for b, q in budgets.items():
                nxt[s + b] = nxt.get(s + b, Fraction(0)) + p * q
        out.append(law := nxt)
    return out


@settings(max_examples=examples(40), deadline=None)
@given(dice=st.sampled_from(["1d6", "2d4", "1d4-1", "1d8-3", "3d2"]), vmv=st.sampled_from([0, 1, 3, 999_999]),
       thresholds=st.lists(st.integers(-2, 40), min_size=1, max_size=5), turns=st.integers(1, 5))
@example(dice="1d6", vmv=0, thresholds=[-2, 0, 5, 40], turns=3)  # a threshold below 0 is met at once
def test_arrival_distributions_equal_every_roll_sequence(dice, vmv, thresholds, turns):
    """P(S_k >= t) and E[turns] against fractions; a VMv of 999,999 shifts the sums, not the work."""
    budgets = exact_budgets(dice, vmv)
    shift = 0 if vmv < 1000 else vmv  # thresholds near the sums those budgets make
    t = [x + shift * (1 + abs(x) % 3) for x in thresholds]
    pmf = budget_pmf(Dice.parse(dice), vmv)
    want = [[float(sum(p for s, p in law.items() if s >= x)) for x in t] for law in _exact_sums(budgets, turns)]
    got = arrival_cdf(pmf, np.array(t, dtype=float), turns)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert ((got == 0) == (np.array(want) == 0)).all()
    np.testing.assert_array_equal(arrival_within(pmf, np.array(t, dtype=float), turns), got[-1])
    with pytest.MonkeyPatch.context() as mp:  # the kept table and the laws read turn by turn give the same numbers
        mp.setattr(eidomap.search.dice, "TABLE_CELLS", 0)
        np.testing.assert_array_equal(arrival_cdf(pmf, np.array(t, dtype=float), turns), got)
    if shift == 0:
        np.testing.assert_allclose(expected_turns(pmf, t), [float(exact_expected_turns(budgets, x)) for x in t],
                                   rtol=1e-12)


def test_rolls_are_a_list_of_whole_numbers(demo):
    for rolls in ("3,5", b"35", 4):
        with pytest.raises(RequestError, match="rolls must be a list of whole numbers"):
            route(demo, "porto-norte", "aldea-do-cabo", "human", rolls=rolls)


@pytest.mark.parametrize("tolerance", [float("nan"), float("inf"), 1e308, -1.0, "0.1", True])
def test_a_tolerance_no_map_holds_is_refused(tolerance):
    with pytest.raises(RequestError, match="tolerance must be a number from 0 to 1e\\+15"):
        eidomap.load(DEMO, tolerance=tolerance)
    with pytest.raises(RequestError, match="tolerance must be a number from 0 to 1e\\+15"):
        validate(DEMO, tolerance=tolerance)


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
