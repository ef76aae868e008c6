"""Arrival turns and their distributions: expected turns under the debt rule against exact fractions, computed
another way; the distributions against every roll sequence; invariants on random maps (monotone in costs, rolls,
roads and teleports; probabilities in [0, 1] growing with the turns); work bounded whatever the VMv or the costs.

The code solves the renewal recursion ``m(t) = 1 + sum_b P(b) m(t - b)``; the
oracle here sums the tail ``E[T] = sum_{k >= 0} P(S_k < t)`` over the exact
distribution of the sum of k budgets, enumerated with ``fractions.Fraction``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from conftest import strip
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from oracle_graph import oracle_edges
from small_maps import UNITS, far_apart, oracle_out

import eidomap
import eidomap.search.arrival
from eidomap.answers.routing import MAX_TURNS, reach, route
from eidomap.base.errors import RequestError
from eidomap.model.generate import generate_map
from eidomap.model.network import KIND
from eidomap.rules.dice import Dice, budget_pmf
from eidomap.rules.eido import actor
from eidomap.search.arrival import arrival_cdf, arrival_within, expected_turns, expected_turns_table


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


@settings(max_examples=60, deadline=None)
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


SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


#: A species with fractional costs, roads and the teleport gift, whose costs the tests raise.
COSTS = {"sea": 3, "meadow": 1.5, "scrub": 2, "forest": 2.5, "marsh": 1, "rocks": 2, "rocky_cliff": 3.5,
         "mountain": 3, "road_cost": 0.5, "teleport_cost": 0}


ROLLS = st.lists(st.integers(1, 6), min_size=3, max_size=8)


def _catalog(costs: dict) -> str:
    terrain = ", ".join(f"{t} = {c}" for t, c in costs.items() if not t.endswith("_cost"))
    return (f'[species.frac]\nvmv = 0\ncosts = {{ {terrain} }}\nroad_cost = {costs["road_cost"]}\n'
            f'teleport_cost = {costs["teleport_cost"]}\ngifts = ["teleport"]\n')


def _load(folder, doc: dict, costs: dict = COSTS, drop=()) -> eidomap.Map:
    """``doc`` without the features of the kinds ``drop``, its catalog the ``frac`` species at ``costs``."""
    doc = {**doc, "features": [f for f in doc["features"] if f["properties"]["kind"] not in drop],
           "eidomap": {**doc["eidomap"], "catalog": "cat.toml"}}
    (folder / "cat.toml").write_text(_catalog(costs))
    (folder / "m.geojson").write_text(json.dumps(doc))
    return eidomap.load(folder / "m.geojson")


def _arrival(m, s: int, g: int, rolls, partial: str) -> float:
    t = route(m, m.eido_ids[s], m.eido_ids[g], "frac", rolls=rolls, partial=partial).arrival_turn
    return np.inf if t is None else t


@SETTINGS
@given(n=st.integers(12, 30), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]),
       raise_=st.sampled_from(sorted(COSTS)), by=st.sampled_from([0.5, 1, 3]), rolls=ROLLS, data=st.data())
def test_arrival_is_never_sooner_when_a_cost_rises_or_a_roll_falls(tmp_path_factory, n, seed, partial, raise_, by,
                                                                     rolls, data):
    doc = generate_map(n, seed)
    m = _load(tmp_path_factory.mktemp("base"), doc)
    dearer = _load(tmp_path_factory.mktemp("dearer"), doc, {**COSTS, raise_: COSTS[raise_] + by})
    s = data.draw(st.integers(0, n - 1))
    g = far_apart(m, oracle_out(m, {"species": "frac"}), s, lambda k: data.draw(st.integers(0, k - 1)))
    base = _arrival(m, s, g, rolls, partial)
    assert _arrival(dearer, s, g, rolls, partial) >= base
    i = data.draw(st.integers(0, len(rolls) - 1))
    lower = [*rolls[:i], max(1, rolls[i] - data.draw(st.integers(1, 5))), *rolls[i + 1:]]
    assert _arrival(m, s, g, lower, partial) >= base


@SETTINGS
@given(n=st.integers(15, 30), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]),
       added=st.sampled_from([("road", "pousa"), ("fountain",)]), rolls=ROLLS, data=st.data())
def test_arrival_is_never_later_with_a_road_or_a_teleport_added(tmp_path_factory, n, seed, partial, added, rolls,
                                                                  data):
    doc = generate_map(n, seed)
    without = _load(tmp_path_factory.mktemp("without"), doc, drop=added)
    m = _load(tmp_path_factory.mktemp("with"), doc)
    s, g = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    assert _arrival(m, s, g, rolls, partial) <= _arrival(without, s, g, rolls, partial)


@SETTINGS
@given(n=st.integers(6, 20), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]), data=st.data())
def test_probabilities_lie_in_0_1_and_grow_with_the_turns(tmp_path_factory, n, seed, partial, data):
    m = _load(tmp_path_factory.mktemp("m"), generate_map(n, seed))
    who = data.draw(st.sampled_from(["frac", "human", "horse", "boat"]))
    s, g = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    p = np.asarray(route(m, m.eido_ids[s], m.eido_ids[g], who, partial=partial).p_by_turn or [0.0])
    assert ((p >= 0) & (p <= 1 + 1e-12)).all() and (np.diff(p) >= -1e-12).all()
    within = [reach(m, m.eido_ids[s], who, turns=k, partial=partial).p_within for k in (1, 2, 4)]
    for e in m.eido_ids:
        ks = [w.get(e, 0.0) for w in within]
        assert 0 <= ks[0] <= ks[1] + 1e-12 <= ks[2] + 2e-12 <= 1 + 3e-12


@SETTINGS
@given(n=st.integers(12, 30), seed=st.integers(0, 400), partial=st.sampled_from(["carry", "forbid"]),
       rolls=st.none() | ROLLS, data=st.data())
def test_routes_only_take_steps_the_actor_may_take(tmp_path_factory, n, seed, partial, rolls, data):
    m = _load(tmp_path_factory.mktemp("m"), generate_map(n, seed))
    who = data.draw(st.sampled_from(UNITS))
    a = actor(m.catalog, who["species"], mount=who.get("mount"), party=who.get("party", ()))
    steps = oracle_edges(m, **who)  # from the geometry and the catalog, not from eidomap's tables
    s, g = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    r = route(m, m.eido_ids[s], m.eido_ids[g], a, rolls=rolls, partial=partial)
    medium = dict(zip(m.eido_ids, m.catalog.media()[m.record.terrain], strict=True))
    movers = [m.catalog.species[x] for x in ([who["mount"]] if who.get("mount") else [who["species"],
                                                                                        *who.get("party", ())])]
    for before, step in zip(r.path, r.path[1:], strict=False):
        assert (before.node, step.node) in steps and step.cost == steps[before.node, step.node]
        if medium.get(step.node) == "water":  # no swimming for who has no cost for that water
            assert all(m.terrains[m.index(step.node)] in u.costs for u in movers)
        if step.kind in ("teleport", "teleport_exit"):
            assert all("teleport" in u.gifts for u in movers)
        if partial == "forbid":
            assert step.cost <= a.largest_budget
    borders = m.network.kind == KIND["border"]
    edges = set(zip(m.network.src[borders].tolist(), m.network.dst[borders].tolist(), strict=True))
    assert edges == {(v, u) for u, v in edges}  # adjacency is symmetric


WALKER = "[species.walker]\nvmv = 0\ncosts = { meadow = 1000000 }\nroad_cost = 1\n" \
         "[species.runner]\nvmv = 1000000\ncosts = { meadow = 1000000 }\nroad_cost = 1\n"


def test_the_work_does_not_grow_with_the_vmv_or_the_costs(make_map, monkeypatch):
    """With a few thousand steps allowed, a VMv and costs of 1,000,000 are answered; many turns are refused."""
    m = make_map(strip(["meadow"] * 5), catalog=WALKER)
    monkeypatch.setattr(eidomap.search.arrival, "MAX_DICE_WORK", 5_000)
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


@settings(max_examples=40, deadline=None)
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
        mp.setattr(eidomap.search.arrival, "TABLE_CELLS", 0)
        np.testing.assert_array_equal(arrival_cdf(pmf, np.array(t, dtype=float), turns), got)
    if shift == 0:
        np.testing.assert_allclose(expected_turns(pmf, t), [float(exact_expected_turns(budgets, x)) for x in t],
                                   rtol=1e-12)


def test_a_law_is_counted_to_its_tolerance_and_no_further():
    """The dice's faces are counted (exact ties, exact certainties) when each value of the law is a whole number
    of its least one to a relative 1e-9 -- a law made by convolving ``1/M`` is, to rounding -- and the counts are
    fewer than 2**20; a law off by more, or of more counts, is taken as it is."""
    from eidomap.search.arrival import counted

    for off, whole in ((0.5e-9, True), (1.5e-9, False)):
        law = np.array([0.25, 0.75 * (1 + off)])
        assert counted(law).tolist() == ([1.0, 3.0] if whole else law.tolist())
        p = arrival_cdf(np.r_[0.0, law], [2], 1)[0, 0]  # P(a budget of 2): 3/4 counted, the law's own share else
        assert p == 0.75 if whole else p == pytest.approx(law[1] / law.sum(), abs=1e-15) and p != 0.75
    for total, whole in ((2**20 - 1, True), (2**20, False)):
        law = np.array([1.0, total - 1.0]) / total
        assert (counted(law).tolist() == [1.0, total - 1.0]) == whole
