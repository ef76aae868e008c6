"""Under ``--partial forbid`` a step dearer than any budget the dice can give is never planned.

A step starts only when the turn's points cover its whole cost, so with 1d6 and
VMv 0 a 7-PtMv mountain can never be entered.  Every forbid answer -- route with
and without rolls, reach by roll, by turns and by rolls, the analysis functions
-- sees only the steps some roll can pay.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import DEMO, eido, road_round_a_forest, run, square, strip
from hypothesis import given
from hypothesis import strategies as st
from small_maps import SETTINGS, SPECIES, edge_list, small_map

import eidomap
from eidomap.answers.analysis import bottlenecks, expected_turns_matrix, race
from eidomap.answers.routing import plan_table, reach, reach_rolls, route
from eidomap.base.errors import RequestError
from eidomap.cli import main
from eidomap.rules.dice import budget_pmf
from eidomap.rules.eido import actor
from eidomap.search import policy
from eidomap.search.arrival import counted
from eidomap.search.forbid import forbid_costs
from eidomap.search.weighted import EPS

CATALOG = """
[species.climber]
vmv = 0
costs = { meadow = 1, forest = 3, mountain = 7 }
"""


def detour_map() -> list[dict]:
    """e0 -> mountain -> e2 costs 8; the forest detour d0 -> d1 -> d2 -> e2 costs 10."""
    return [eido("e0", "meadow", square(0, 1)), eido("peak", "mountain", square(1, 1)),
            eido("e2", "meadow", square(2, 1)), eido("d0", "forest", square(0, 0)),
            eido("d1", "forest", square(1, 0)), eido("d2", "forest", square(2, 0))]


@pytest.fixture
def detour(make_map):
    return make_map(detour_map(), catalog=CATALOG)


@pytest.fixture
def wall(make_map):
    return make_map(strip(["meadow", "mountain", "meadow"]), catalog=CATALOG)


def nodes(r) -> list[str]:
    return [s.node for s in r.path]


def test_forbid_takes_the_payable_detour_carry_the_mountain(detour):
    carry = route(detour, "e0", "e2", "climber")
    assert nodes(carry) == ["e0", "peak", "e2"] and carry.total_cost == 8
    forbid = route(detour, "e0", "e2", "climber", partial="forbid")
    assert forbid.reachable and nodes(forbid) == ["e0", "d0", "d1", "d2", "e2"]
    assert forbid.total_cost == forbid.cheapest_cost == 10
    with_rolls = route(detour, "e0", "e2", "climber", partial="forbid", rolls=[6, 6, 6])
    assert "peak" not in nodes(with_rolls) and with_rolls.arrival_turn == 2


def test_forbid_with_no_payable_way_is_unreachable(wall):
    assert route(wall, "e0", "e2", "climber").reachable  # the debt rule crosses it
    r = route(wall, "e0", "e2", "climber", partial="forbid")
    assert not r.reachable and r.path == [] and r.total_cost is None and r.expected_turns is None
    assert not route(wall, "e0", "e2", "climber", partial="forbid", rolls=[6] * 5).reachable


def test_forbid_unreachable_exits_1(wall, capsys):
    path = wall.path
    code = main(["route", str(path), "--from", "e0", "--to", "e2", "--species", "climber", "--partial", "forbid",
                 "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["reachable"] is False and out["path"] == []


def test_bigger_dice_make_the_step_payable_again(wall, detour):
    two = actor(wall.catalog, "climber", dice="2d6")
    r = route(wall, "e0", "e2", two, partial="forbid")
    assert r.reachable and nodes(r) == ["e0", "e1", "e2"] and r.total_cost == 8
    assert route(detour, "e0", "e2", two, partial="forbid").cheapest_cost == 8


def test_forbid_reach_never_enters_an_unpayable_step(wall):
    assert set(reach(wall, "e0", "climber", roll=6, partial="forbid").debt) == {"e0"}
    p = reach(wall, "e0", "climber", turns=4, partial="forbid").p_within
    assert p == {"e0": 1.0, "e1": 0.0, "e2": 0.0}
    assert reach_rolls(wall, "e0", "climber", rolls=[6, 6, 6], partial="forbid").arrival_turn == {"e0": 0}
    # the debt rule does enter it
    assert reach(wall, "e0", "climber", turns=2).p_within["e2"] > 0


def test_analysis_under_forbid_sees_only_payable_steps(wall, detour):
    e = expected_turns_matrix(wall, ["e0", "e2"], "climber", partial="forbid")
    assert e[0, 1] == np.inf and e[0, 0] == 0
    assert np.isfinite(expected_turns_matrix(wall, ["e0", "e2"], "climber")[0, 1])
    e = expected_turns_matrix(detour, ["e0", "e2"], "climber", partial="forbid")
    assert e[0, 1] == pytest.approx(route(detour, "e0", "e2", "climber", partial="forbid").expected_turns)
    assert dict(bottlenecks(detour, "climber", top=6))["peak"] > 0
    assert dict(bottlenecks(detour, "climber", top=6, partial="forbid"))["peak"] == 0


def test_forbid_path_cost_and_turns_describe_one_play(detour):
    r = route(detour, "e0", "e2", "climber", partial="forbid")
    assert r.total_cost == pytest.approx(sum(s.cost for s in r.path))
    assert r.expected_turns == pytest.approx(1 + sum(1 - p for p in r.p_by_turn))


@SETTINGS
@given(n=st.integers(4, 14), seed=st.integers(0, 400), species=st.sampled_from([*SPECIES, "oestrimio"]),
       dice=st.sampled_from(["1d4", "1d6", "2d4"]), data=st.data())
def test_every_forbid_step_fits_the_largest_budget(tmp_path_factory, n, seed, species, dice, data):
    m = small_map(tmp_path_factory, n, seed)
    a = actor(m.catalog, species, dice=dice)
    top = a.dice.high + a.vmv
    ids = m.eido_ids
    s, g = data.draw(st.integers(0, len(ids) - 1)), data.draw(st.integers(0, len(ids) - 1))
    rolls = data.draw(st.lists(st.integers(a.dice.low, a.dice.high), min_size=1, max_size=6))
    # what the brute force says is reachable through payable steps only
    out = edge_list(m, a)
    seen, stack = {s}, [s]
    while stack:
        for v, c in out[stack.pop()]:
            if c <= top + 1e-9 and v not in seen:
                seen.add(v)
                stack.append(v)
    plain = route(m, ids[s], ids[g], a, partial="forbid")
    assert plain.reachable == (g in seen)
    for r in (plain, route(m, ids[s], ids[g], a, partial="forbid", rolls=rolls)):
        assert all(step.cost <= top + 1e-9 for step in r.path)
        if r.path:
            assert r.total_cost == pytest.approx(sum(step.cost for step in r.path))
            assert r.path[-1].node == ids[g]
    within = reach(m, ids[s], a, turns=2, partial="forbid").p_within
    assert all(within[ids[k]] == 0 for k in range(len(ids)) if k not in seen)
    entered = reach_rolls(m, ids[s], a, rolls=rolls, partial="forbid").arrival_turn
    assert set(entered) <= {ids[k] for k in seen if k < len(ids)}


def test_the_forbid_doc_example_in_json(detour, capsys):
    code = main(["route", str(detour.path), "--from", "e0", "--to", "e2", "--species", "climber", "--partial",
                 "forbid", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["reachable"] and [s["node"] for s in out["path"]] == ["e0", "d0", "d1", "d2", "e2"]
    assert out["total_cost"] == 10 and out["expected_turns"] > 1


def test_the_policy_holds_pairs_up_to_its_limit_and_refuses_one_more(monkeypatch):
    """MAX_POLICY_PAIRS is the most pairs of nodes within a turn's reach the roll-by-roll policy holds: a map
    with exactly that many is answered, with one more refused before the tables are made."""
    net = eidomap.load(DEMO).network
    w = np.ones(len(net.dst))
    held = len(policy.within_turn_pairs(net, w, 2.0)[0])
    monkeypatch.setattr(policy, "MAX_POLICY_PAIRS", held)
    assert len(policy.within_turn_pairs(net, w, 2.0)[0]) == held
    monkeypatch.setattr(policy, "MAX_POLICY_PAIRS", held - 1)
    with pytest.raises(RequestError, match=f"would hold more than {held - 1:,} pairs of nodes within a turn's reach"):
        policy.within_turn_pairs(net, w, 2.0)


def test_a_turn_past_every_path_is_counted_before_the_searches_to_the_pair(monkeypatch):
    """A turn longer than every path (VMv 1,000,000): each node's pairs are the nodes it can reach at all, counted
    without a search, so a map past MAX_POLICY_PAIRS is refused at once (8,000 Eidos searched for a second before
    their refusal) -- and the count is the searches' own: the bound held, one more refused.  A step one way only
    (a node that reaches one it is not reached from) leaves the count to the searches."""
    net = eidomap.load(DEMO).network
    w = np.ones(len(net.dst))
    held = len(policy.within_turn_pairs(net, w, 1e6)[0])
    assert policy._all_pairs(net, net.pair_weights(w), 1e6) == held == net.n_nodes**2
    monkeypatch.setattr(policy, "MAX_POLICY_PAIRS", held)
    assert len(policy.within_turn_pairs(net, w, 1e6)[0]) == held
    monkeypatch.setattr(policy, "MAX_POLICY_PAIRS", held - 1)
    monkeypatch.setattr("scipy.sparse.csgraph.dijkstra", lambda *a, **k: pytest.fail("searched"))
    with pytest.raises(RequestError, match=f"would hold more than {held - 1:,} pairs of nodes within a turn's reach"):
        policy.within_turn_pairs(net, w, 1e6)
    monkeypatch.undo()
    w[net.dst == 0] = np.inf  # node 0 reaches every node, and none reaches it
    csr = net.pair_dst.copy(), net.pair_indptr.copy()
    assert policy._all_pairs(net, net.pair_weights(w), 1e6) == -1
    assert np.array_equal(net.pair_dst, csr[0]) and np.array_equal(net.pair_indptr, csr[1])  # (the network's own)
    assert len(policy.within_turn_pairs(net, w, 1e6)[0]) == held - (net.n_nodes - 1)


def test_forbid_beyond_the_turn_limit_is_unreachable_as_under_carry(demo):
    """``max_turns``: a goal not even the highest rolls reach within it is not reachable, under either rule --
    not ``reachable`` with a probability of 0 in every turn (issue 44)."""
    for partial in ("carry", "forbid"):
        r = route(demo, "bouza-vella", "aldea-do-cabo", "human", partial=partial, max_turns=1)
        assert not r.reachable and r.p_by_turn == [] and r.expected_turns is None and r.path == []
        assert r.reason == "aldea-do-cabo is 19 PtMv away and a turn gives at most 6: more than 1 turn"
        assert not route(demo, "bouza-vella", "aldea-do-cabo", "human", partial=partial, max_turns=3).reachable
        within = route(demo, "bouza-vella", "aldea-do-cabo", "human", partial=partial, max_turns=4)
        assert within.reachable and within.best_turns == 4 and within.p_by_turn[-1] > 0


def test_forbid_a_step_never_split_can_put_the_goal_beyond_the_turn_limit(make_map):
    """Three 4-PtMv steps are 12 PtMv, two turns of 6 under the debt rule, but three turns under forbid: a step
    waits for a turn that pays it whole and the 2 points left each turn are lost."""
    m = make_map(strip(["meadow"] * 4), catalog="[species.walker]\nvmv = 0\ncosts = { meadow = 4 }\n")
    assert route(m, "e0", "e3", "walker", max_turns=2).reachable
    r = route(m, "e0", "e3", "walker", partial="forbid", max_turns=2)
    assert not r.reachable and r.p_by_turn == [] and r.best_turns is None
    assert r.reason == ("e3 is 12 PtMv away and a turn gives at most 6, a step never split between two turns:"
                        " 3 turns at the least, more than 2 turns")
    assert route(m, "e0", "e3", "walker", partial="forbid", max_turns=3).p_by_turn == [0.0, 0.0, 1 / 8]


def test_forbid_the_play_soonest_on_average_not_there_within_the_limit_is_unreachable(make_map):
    """The route without rolls describes the play that arrives soonest on average: when that play never arrives
    within ``max_turns`` the goal is not reachable within them, even where another play (two 6s over the
    forests) could be, and the reason says where its best chance is."""
    feats = [eido("s", "meadow", square(0, 1)), eido("a1", "forest", square(1, 1)),
             eido("a2", "forest", square(2, 1)), eido("g", "meadow", square(3, 1))]
    lane = [(0, y) for y in range(2, 11)] + [(1, 10), (2, 10)] + [(3, y) for y in range(10, 1, -1)]
    feats += [eido(f"b{k}", "meadow", square(x, y)) for k, (x, y) in enumerate(lane)]  # 21 meadows round to g
    feats += [eido(f"w{x}{y}", "sea", square(x, y)) for x in (1, 2) for y in range(2, 10)]
    m = make_map(feats, catalog="[species.walker]\nvmv = 0\ncosts = { meadow = 1, forest = 6 }\n")
    r = route(m, "s", "g", "walker", partial="forbid", max_turns=3)
    assert not r.reachable and r.p_by_turn == [] and r.path == []
    assert r.reason == ("the play that arrives soonest on average takes more than 3 turns to g, even with the"
                        " highest rolls; another play can arrive in 3 (reach with turns=3 gives its best chance)")
    assert reach(m, "s", "walker", turns=3, partial="forbid").p_within["g"] == 1 / 36
    r = route(m, "s", "g", "walker", partial="forbid", max_turns=4)
    assert r.reachable and r.best_turns == 4 and r.path[1].node == "b0"


def test_forbid_probabilities_are_plain_floats_and_a_certainty_is_one(demo):
    """Six sixths add up to 0.9999999999999999: the laws are counted (arrival.counted), so that a goal every
    roll reaches is reached with probability 1.0 in 1.0 turn, and a tie is the debt rule's to the last bit."""
    sure = route(demo, "bouza-vella", "carballeira", "human", partial="forbid")
    assert sure.p_by_turn == [1.0] and sure.expected_turns == 1.0 and sure.worst_turns == 1
    forbid = route(demo, "bouza-vella", "porto-norte", "human", partial="forbid")
    carry = route(demo, "bouza-vella", "porto-norte", "human")  # one step a point: the same play either way
    assert forbid.p_by_turn == carry.p_by_turn and forbid.p_by_turn[0] == 1 / 6 and forbid.p_by_turn[-1] == 1.0
    within = reach(demo, "bouza-vella", "human", turns=3, partial="forbid").p_within
    assert max(within.values()) == 1.0 and not [p for p in within.values() if 1 - 1e-9 < p < 1]
    for p in [*sure.p_by_turn, *forbid.p_by_turn, sure.expected_turns, forbid.expected_turns, *within.values()]:
        assert type(p) is float
    assert all(type(p) is float for p in race(np.array(forbid.p_by_turn), np.array(carry.p_by_turn)))


def test_forbid_rolls_that_run_out_go_as_far_as_they_allow(make_map, capsys):
    """Rolls of 1 never pay the 2-PtMv border, but each pays a road step: with 1, 1, 1 the party walks the
    road a step a turn and arrives in turn 3; with 1, 1 it walks the same two steps and is not there yet --
    it does not stand still at e0 waiting to pay the border (issue 44)."""
    m = make_map(road_round_a_forest())
    three = route(m, "e0", "e1", "human", partial="forbid", rolls=[1, 1, 1])
    assert three.arrival_turn == 3 and [t.end for t in three.turns] == ["p0", "p1", "e1"]
    two = route(m, "e0", "e1", "human", partial="forbid", rolls=[1, 1])
    assert two.arrival_turn is None and [t.end for t in two.turns] == ["p0", "p1"]
    assert [(t.spent, t.lost) for t in two.turns] == [(1.0, 0.0), (1.0, 0.0)]
    assert [s.node for s in two.path] == [s.node for s in three.path] == ["e0", "p0", "p1", "p2", "e1"]
    code, out, _ = run(["route", m.path, "--from", "e0", "--to", "e1", "--species", "human", "--partial", "forbid",
                        "--rolls", "1,1"], capsys)
    assert code == 1 and "Pousa p1 (along the road, 1) -> Pousa p1" in out and "not there after the 2 rolls" in out
    # the debt rule steps into e1 at once, owing a point
    assert route(m, "e0", "e1", "human", rolls=[1, 1]).turns[0].end == "e1"


def _values_by_definition(dist: np.ndarray, goal: int, budgets: np.ndarray, probs: np.ndarray, start: int):
    """The optimal forbid policy's values by their definition, slowly (issue 48, item 10): over and over, of the
    nodes not settled, the one whose value -- solved from the best value within each budget's reach of it among
    the nodes settled so far -- is least (of equal values, the least node) is settled; ``arg`` the first node
    settled within each budget's reach.  ``dist``: the cheapest costs between every two nodes."""
    n, nb = len(dist), len(budgets)
    weights = counted(probs)
    rw = weights[::-1]
    held = np.cumsum(rw)
    value, best, arg = np.full(n, np.inf), np.full((n, nb), np.inf), np.full((n, nb), -1)
    settled = np.zeros(n, bool)
    while True:
        with np.errstate(invalid="ignore"):
            solved = (held[-1] + np.cumsum(rw * best[:, ::-1], axis=1)) / held
        tentative = np.nanmin(np.where(np.isnan(solved), np.inf, solved), axis=1)
        tentative[goal] = 0.0
        tentative[settled] = np.inf
        if not np.isfinite(tentative).any():
            return value, best, arg
        x = int(np.argmin(tentative))  # (the first of equal least values)
        settled[x], value[x] = True, tentative[x]
        if x == start:
            return value, best, arg
        fits = (budgets[None, :] + EPS >= dist[:, x, None]) & ~np.isfinite(best)
        best[fits], arg[fits] = value[x], x


@SETTINGS
@given(n=st.integers(4, 14), seed=st.integers(0, 400), species=st.sampled_from([*SPECIES, "cow"]),
       dice=st.sampled_from(["1d4", "1d6", "2d4", "1d3+2", "1d2"]), data=st.data())
def test_the_fast_forbid_policy_is_its_definition(tmp_path_factory, n, seed, species, dice, data):
    """Issue 48, item 10: the pairs within a turn's reach found over Dial's buckets (``compiled=True``, whole
    costs) are SciPy's, in the same order, and the policy's values, best values in reach and their nodes are
    those of the definition, to the last bit, with and without a start, compiled or not."""
    from scipy.sparse.csgraph import dijkstra

    m = small_map(tmp_path_factory, n, seed)
    a = actor(m.catalog, species, dice=dice)
    net = m.network
    w = net.edge_weights(plan_table(a, False))
    pmf = budget_pmf(a.dice, a.vmv)
    budgets = np.flatnonzero(pmf).astype(float)
    want = policy.within_turn_pairs(net, w, budgets[-1], compiled=False)
    got = policy.within_turn_pairs(net, w, budgets[-1], compiled=True)
    assert all(np.array_equal(x, y) for x, y in zip(got, want, strict=True))
    costs = forbid_costs(net.pair_weights(w), int(budgets[-1]))
    if costs is not None:  # the buckets' search run as plain Python too
        *found, held = policy.ball_pairs(net.pair_indptr, net.pair_dst, costs, int(budgets[-1]), len(want[0]))
        assert held == len(want[0]) and all(np.array_equal(x[:held], y) for x, y in zip(found, want, strict=True))
        assert policy.ball_pairs(net.pair_indptr, net.pair_dst, costs, int(budgets[-1]), held - 1)[3] == -1
    dist = dijkstra(net.csr(w), limit=budgets[-1] + EPS)
    goal, start = (data.draw(st.integers(0, net.n_nodes - 1)) for _ in range(2))
    for s in (start, None):
        expected = _values_by_definition(dist, goal, budgets, pmf[budgets.astype(int)], -1 if s is None else s)
        for compiled in (True, False):
            got = policy.policy_values(net, w, goal, budgets, pmf[budgets.astype(int)], s, compiled=compiled)
            for x, y in zip(got, expected, strict=True):
                np.testing.assert_array_equal(x, y)
