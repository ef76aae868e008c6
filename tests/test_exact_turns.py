"""Expected turns under the debt rule against exact fractions, computed another way.

The code solves the renewal recursion ``m(t) = 1 + sum_b P(b) m(t - b)``; the
oracle here sums the tail ``E[T] = sum_{k >= 0} P(S_k < t)`` over the exact
distribution of the sum of k budgets, enumerated with ``fractions.Fraction``.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from conftest import examples, strip
from hypothesis import given, settings
from hypothesis import strategies as st

from eidomap.routing import route
from eidomap.rules.dice import Dice, budget_pmf
from eidomap.search.dice import arrival_cdf, expected_turns_table


def exact_budgets(dice: str, vmv: int) -> dict[int, Fraction]:
    """P(budget = b), from every face of every die."""
    d = Dice.parse(dice)
    out: dict[int, Fraction] = {}
    for faces in product(range(1, d.sides + 1), repeat=d.n):
        b = max(sum(faces) + d.plus + vmv, 0)
        out[b] = out.get(b, Fraction(0)) + Fraction(1, d.sides**d.n)
    return out


def exact_expected_turns(budgets: dict[int, Fraction], threshold: int) -> Fraction:
    """sum over k >= 0 of P(S_k < threshold): the sum of k budgets, enumerated exactly.

    A budget of 0 makes no progress: each turn that moves is preceded by a
    geometric number of such turns, so E = E(moving turns only) / (1 - P(0)).
    """
    p0 = budgets.get(0, Fraction(0))
    if p0:
        moving = {b: q / (1 - p0) for b, q in budgets.items() if b}
        return exact_expected_turns(moving, threshold) / (1 - p0) if threshold > 0 else Fraction(0)
    total, below = Fraction(0), {0: Fraction(1)} if threshold > 0 else {}  # S_k's law, where S_k < threshold
    while below:
        total += sum(below.values())
        nxt: dict[int, Fraction] = {}
        for s, p in below.items():
            for b, q in budgets.items():
                if s + b < threshold:
                    nxt[s + b] = nxt.get(s + b, Fraction(0)) + p * q
        below = nxt
    return total


@pytest.mark.parametrize(("dice", "turns"), [("3d6", 1), ("4d6", 1), ("2d6", 2), ("5d4-3", 1)])
def test_dice_whose_faces_can_be_counted_give_correctly_rounded_probabilities(dice, turns):
    """While the faces can be counted, P(arrived within k) is a count of roll sequences over their number,
    divided once: the double nearest the exact fraction (P(3d6 >= 11) = 1/2 exactly), for every threshold."""
    budgets = exact_budgets(dice, 0)
    laws = [{0: Fraction(1)}]
    for _ in range(turns):  # the law of S_k, the sum of k budgets
        law: dict[int, Fraction] = {}
        for s, p in laws[-1].items():
            for b, q in budgets.items():
                law[s + b] = law.get(s + b, Fraction(0)) + p * q
        laws.append(law)
    top = max(laws[-1])
    got = arrival_cdf(budget_pmf(Dice.parse(dice), 0), np.arange(1.0, top + 2), turns)
    for k in range(1, turns + 1):
        want = [float(sum(p for s, p in laws[k].items() if s >= t)) for t in range(1, top + 2)]
        assert got[k - 1].tolist() == want


@settings(max_examples=examples(60), deadline=None)
@given(dice=st.sampled_from(["1d6", "2d6+1", "1d4", "1d8-2"]), vmv=st.integers(0, 3), threshold=st.integers(0, 30))
def test_expected_turns_table_equals_exact_fractions(dice, vmv, threshold):
    got = expected_turns_table(budget_pmf(Dice.parse(dice), vmv), 30)[threshold]
    assert float(exact_expected_turns(exact_budgets(dice, vmv), threshold)) == pytest.approx(got, rel=1e-12,
                                                                                           abs=1e-12)


@pytest.mark.parametrize(("dice", "threshold", "fraction"), [
    ("1d6", 1, Fraction(1)),
    ("1d6", 7, exact_expected_turns(exact_budgets("1d6", 0), 7)),
    ("2d6+1", 30, exact_expected_turns(exact_budgets("2d6+1", 0), 30)),
])
def test_known_thresholds(dice, threshold, fraction):
    assert float(fraction) == pytest.approx(expected_turns_table(budget_pmf(Dice.parse(dice), 0), 30)[threshold],
                                            rel=1e-14)


def test_exact_oracle_on_a_hand_count():
    # two-sided coin budgets 1 or 2: E[turns to add up to 2] = 1 + P(first budget is 1) = 3/2
    assert exact_expected_turns({1: Fraction(1, 2), 2: Fraction(1, 2)}, 2) == Fraction(3, 2)


@pytest.mark.parametrize("length", [2, 5, 9, 14])
def test_route_expected_turns_is_exact_on_a_strip(make_map, length):
    """On a row of meadows (1 PtMv each) the goal's threshold is ``length - 1`` points."""
    m = make_map(strip(["meadow"] * (length + 1)), catalog="[species.walker]\nvmv = 0\ncosts = { meadow = 1 }\n")
    r = route(m, "e0", f"e{length}", "walker", partial="carry")
    # in e<length> once the budgets add up to more than the length - 1 points before it: a threshold of length
    want = max(Fraction(1), exact_expected_turns(exact_budgets("1d6", 0), length))
    assert r.expected_turns == pytest.approx(float(want), rel=1e-12)
