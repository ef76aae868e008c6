"""Routes through stops and with a debt carried into the first turn (docs/rules.md, "A debt carried in, and stops on
the way"): every answer against a brute force over the oracle's steps (``oracle_graph``) on small random maps, whose
states are (node, stops passed, debt owed) -- under both step rules, with rolls and without."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict

import numpy as np
import pytest
from conftest import DEMO, run
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from oracle_graph import oracle_vmv
from small_maps import (
    UNITS,
    arrival,
    cheapest,
    least_threshold,
    oracle_out,
    own_threshold,
    small_map,
    tie_rule_route,
    turn_of,
    within_turn,
)

import eidomap
from eidomap.answers.routing import MAX_DEBT, route
from eidomap.base.errors import RequestError
from eidomap.rules.eido import actor

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def passed_after(stops: list[int], p: int, v: int) -> int:
    """Stops passed once in node ``v`` with ``p`` passed before: each next stop that is ``v``."""
    while p < len(stops) and stops[p] == v:
        p += 1
    return p


def journey_out(out, n: int, stops: list[int]) -> dict:
    """The oracle's steps between (node, stops passed) states, over nodes ``0..n-1``."""
    states = defaultdict(list)
    for u, p in itertools.product(range(n), range(len(stops) + 1)):
        states[u, p] = [((v, passed_after(stops, p, v)), c) for v, c in out.get(u, ())]
    return states


def first_arrival(states, s, g, stops: list[int], budgets, carry: bool, debt: float = 0.0) -> tuple[int | None, float]:
    """The first turn the actor is in ``g`` with every stop passed, and the least PtMv of the ways in then: every
    (node, stops passed, points left, debt) state of each turn (``states``: :func:`journey_out`'s steps), stepped by
    the rules (docs/rules.md, the contract)."""
    begin, goal = (s, passed_after(stops, 0, s)), (g, len(stops))
    if begin == goal:
        return 0, 0.0
    starts = {(begin, round(float(debt), 9)): 0.0}  # (state, debt) at the start of a turn -> least cost
    for t, b in enumerate(budgets, start=1):
        entered, starts = turn_of(states, starts, b, carry)
        if goal in entered:
            return t, entered[goal]
    return None, np.inf


def draw_journey(tmp_path_factory, data, dice: str = "1d6", stops: tuple[int, int] = (1, 3)):
    """A map, a unit, its steps, a start, a goal and stops (any Eidos: the start, the goal, one twice...)."""
    m = small_map(tmp_path_factory, data.draw(st.integers(6, 14)), data.draw(st.integers(0, 400)))
    who = data.draw(st.sampled_from(UNITS))
    a = actor(m.catalog, who["species"], mount=who.get("mount"), party=who.get("party", ()), dice=dice)
    assert a.vmv == oracle_vmv(m, **who)
    out = oracle_out(m, who)
    n = len(m.eido_ids)
    s = data.draw(st.integers(0, n - 1))
    near = sorted(v for v in cheapest(out, s) if v < n) if data.draw(st.integers(0, 5)) else list(range(n))
    g = data.draw(st.sampled_from(near))  # (mostly Eidos the start reaches: a sixth of the cases, any)
    via = data.draw(st.lists(st.sampled_from(near), min_size=stops[0], max_size=stops[1]))
    return m, a, out, s, g, via


def assert_legs_walk_the_stops(m, r, s: int, via: list[int], g: int) -> None:
    """The legs split the path at the stops, in order: each leg ends in its stop, and they add up to the route."""
    ids = [m.eido_ids[k] for k in (s, *via, g)]
    assert [(leg.start, leg.goal) for leg in r.legs] == list(itertools.pairwise(ids))
    at = 0
    for leg in r.legs:
        at += leg.steps
        assert r.path[at].node == leg.goal
        assert leg.cost == pytest.approx(sum(x.cost for x in r.path[at - leg.steps + 1 : at + 1]))
    assert at == len(r.path) - 1


@SETTINGS
@given(partial=st.sampled_from(["carry", "forbid"]), debt=st.sampled_from([0, 0, 1, 2, 5]), data=st.data())
def test_a_journey_through_stops_with_rolls_is_the_soonest_then_cheapest(tmp_path_factory, partial, debt, data):
    """With rolls: the first turn the actor can be in the goal having passed every stop in order, and the least
    PtMv of the ways that make it, as the brute force finds them -- a debt carried in paid first (carry)."""
    m, a, out, s, g, via = draw_journey(tmp_path_factory, data)
    debt = debt if partial == "carry" else 0
    rolls = data.draw(st.lists(st.integers(1, 6), min_size=3, max_size=14))
    budgets = [max(x + a.vmv, 0) for x in rolls]
    turn, cost = first_arrival(journey_out(out, m.network.n_nodes, via), s, g, via, budgets, partial == "carry", debt)
    ids = m.eido_ids
    r = route(m, ids[s], ids[g], a, via=[ids[k] for k in via], debt=debt, rolls=rolls, partial=partial)
    event(f"arrival turn {turn}")
    assert r.via == [ids[k] for k in via] and r.debt == debt
    if not r.reachable:
        assert turn is None
        return
    assert r.arrival_turn == turn
    if turn is not None:
        assert r.total_cost == pytest.approx(cost)
    assert_legs_walk_the_stops(m, r, s, via, g)
    taken = [t.turn for t in r.turns for _ in t.steps]
    for leg, end in zip(r.legs, np.cumsum([leg.steps for leg in r.legs]), strict=True):  # each stop's turn
        assert leg.arrival_turn == (0 if end == 0 else taken[end - 1] if end <= len(taken) else None)
    paid = sum(t.spent for t in r.turns) + (r.turns[-1].debt_after if r.turns else debt)
    assert paid == pytest.approx(debt + sum(x.cost for x in r.path[1 : 1 + len(taken)]))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(debt=st.sampled_from([0, 1, 3]), data=st.data())
def test_a_journey_through_stops_under_the_debt_rule_has_every_roll_sequence_s_odds(tmp_path_factory, debt, data):
    """Without rolls, under the debt rule: P(arrived by turn k) is the share of every sequence of 1d4 rolls with
    which the brute force arrives by turn k, through the stops, after paying the debt carried in."""
    m, a, out, s, g, via = draw_journey(tmp_path_factory, data, dice="1d4", stops=(1, 2))
    k_max = 4
    hits = np.zeros(k_max)
    states, goal = journey_out(out, m.network.n_nodes, via), (g, len(via))

    def roll_on(starts, t):  # every sequence of the rolls of turns t..k_max after those that led to ``starts``
        for x in range(1, 5):
            entered, after = turn_of(states, starts, max(x + a.vmv, 0), True)
            if goal in entered:  # arrived: so does each of the 4 ** (k_max - t) sequences that go on
                hits[t - 1:] += 4 ** (k_max - t)
            elif t < k_max:
                roll_on(after, t + 1)

    # every sequence of 1d4 rolls, first_arrival's turns walked once for all the sequences that begin alike
    if (s, passed_after(via, 0, s)) == (g, len(via)):
        hits += 4**k_max
    else:
        roll_on({((s, passed_after(via, 0, s)), round(float(debt), 9)): 0.0}, 1)
    p = hits / 4**k_max
    ids = m.eido_ids
    r = route(m, ids[s], ids[g], a, via=[ids[k] for k in via], debt=debt)
    if not r.reachable:
        assert p.max() == 0
        return
    assert_legs_walk_the_stops(m, r, s, via, g)
    got = np.pad(r.p_by_turn, (0, k_max), mode="edge")[:k_max] if r.arrival_turn != 0 else np.ones(k_max)
    assert np.allclose(got, p)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_journey_through_stops_under_forbid_has_the_optimal_play_s_expected_turns(tmp_path_factory, data):
    """Without rolls, under forbid: the expected turns of the best roll-by-roll play over (node, stops passed)
    states, by value iteration over every state's reach in a turn of each 1d4 budget."""
    m, a, out, s, g, via = draw_journey(tmp_path_factory, data, dice="1d4", stops=(1, 2))
    states = journey_out(out, m.network.n_nodes, via)
    budgets = [x + a.vmv for x in range(1, 5)]
    nodes = list(states)
    reach = {(u, b): within_turn(states, u, b) for u in nodes for b in budgets}
    goal = (g, len(via))
    e = {u: (0.0 if u == goal else np.inf) for u in nodes}
    can = {goal}
    while more := {u for u in nodes if reach[u, budgets[-1]] & can} - can:
        can |= more
    e = {u: (0.0 if u in can else np.inf) for u in nodes}
    for _ in range(5000):
        new = {u: 0.0 if u == goal else 1.0 + np.mean([min(e[u], *(e[v] for v in reach[u, b])) for b in budgets])
               for u in nodes}
        if all(new[u] == e[u] or abs(new[u] - e[u]) < 1e-13 for u in nodes):
            break
        e = new
    ids = m.eido_ids
    r = route(m, ids[s], ids[g], a, via=[ids[k] for k in via], partial="forbid")
    begin = (s, passed_after(via, 0, s))
    event(f"expected turns {int(min(e[begin], 99))}+")
    if begin == goal:
        assert r.expected_turns == 0
    elif not np.isfinite(e[begin]):
        assert not r.reachable
    else:
        assert r.expected_turns == pytest.approx(e[begin], rel=1e-9, abs=1e-9)
        assert 1 + sum(1 - p for p in r.p_by_turn) == pytest.approx(e[begin], rel=1e-6)
        assert_legs_walk_the_stops(m, r, s, via, g)


def numbered(out, n: int, stops: list[int]) -> tuple[dict, int]:
    """The oracle's steps between (node, stops passed) states numbered ``node * layers + passed`` (the layered
    network's numbering), and the number of layers."""
    layers = len(stops) + 1
    states = journey_out(out, n, stops)
    return {u * layers + p: [(v * layers + q, c) for (v, q), c in steps] for (u, p), steps in states.items()}, layers


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_of_the_journeys_through_stops_that_arrive_soonest_the_route_is_the_cheapest_then_the_tie_rules(
        tmp_path_factory, data):
    """docs/rules.md, "What a route answers" and "Ties", through stops: of every journey whose own arrival threshold
    is the goal's (listed by brute force over (node, stops passed) states), the cheapest, then the fewest steps,
    then read back from the goal the lesser node, at the same node the fewer stops passed."""
    m, a, out, s, g, via = draw_journey(tmp_path_factory, data)
    states, layers = numbered(out, m.network.n_nodes, via)
    want = tie_rule_route(states, s * layers + passed_after(via, 0, s), g * layers + len(via))
    event("listed" if want is not None and len(want) > 2 else "not listed, or two steps at most")
    if want is not None:
        ids = m.eido_ids
        r = route(m, ids[s], ids[g], a, via=[ids[k] for k in via])
        index = {str(x): k for k, x in enumerate(m.network.node_ids)}
        assert [index[x.node] for x in r.path] == [k // layers for k in want]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(debt=st.sampled_from([0, 1, 3]), data=st.data())
def test_a_journey_through_stops_drawn_is_the_one_its_odds_describe(tmp_path_factory, debt, data):
    """Without rolls, under the debt rule, through stops and after a debt carried in: the journey drawn has the
    goal's arrival threshold of its own (the least over every journey, by brute force over (node, stops passed)
    states), and ``p_by_turn`` is its own arrival distribution under every sequence of 1d4 rolls, the debt paid
    first.  Rolls that run out before the goal walk the same journey as far as they go."""
    m, a, out, s, g, via = draw_journey(tmp_path_factory, data, dice="1d4", stops=(1, 2))
    states, layers = numbered(out, m.network.n_nodes, via)
    ids = m.eido_ids
    stops = [ids[k] for k in via]
    r = route(m, ids[s], ids[g], a, via=stops, debt=debt)
    theta = least_threshold(states, s * layers + passed_after(via, 0, s), g * layers + len(via))
    if not r.reachable or r.arrival_turn == 0:
        assert theta in (None, 0)
        return
    costs = [x.cost for x in r.path[1:]]
    assert own_threshold(costs) == theta
    k_max = 4
    hits = np.zeros(k_max)
    for seq in itertools.product(range(1, 5), repeat=k_max):
        t = arrival(costs, [max(x + a.vmv, 0) for x in seq], True, debt)
        if t is not None:
            hits[t - 1 :] += 1
    assert np.allclose(np.pad(r.p_by_turn, (0, k_max), mode="edge")[:k_max], hits / 4**k_max)
    short = route(m, ids[s], ids[g], a, via=stops, debt=debt, rolls=data.draw(st.lists(st.integers(1, 4), min_size=1,
                                                                                        max_size=3)))
    if short.arrival_turn is None:
        assert short.path == r.path


def test_through_a_stop_and_with_a_debt_the_route_drawn_arrives_soonest(tmp_path):
    """docs/rules.md, "Which route is drawn under the debt rule": from road0@5 to road1@2 of this generated map the
    cheapest way (6 PtMv) starts its last step with 5 PtMv paid, one of 7 PtMv with 4.  Through road0@4 with 2 PtMv
    owed, the journey drawn is the one of 7 (the odds of 2 + 5 PtMv: 21 in 36 by turn 2) and a roll of 6 walks it;
    there and back again, only the last step into the goal counts: the first leg is the cheapest way."""
    from eidomap.model.generate import generate_map, write_map

    write_map(generate_map(40, 5), tmp_path / "m.geojson")
    m = eidomap.load(tmp_path / "m.geojson")
    soonest = ["road0@4", "e01", "e08", "road1@2"]
    r = route(m, "road0@5", "road1@2", "human", via=["road0@4"], debt=2)
    assert [x.node for x in r.path[1:]] == soonest and (r.total_cost, r.cheapest_cost) == (7.0, 6.0)
    assert r.p_by_turn[:2] == [0.0, pytest.approx(21 / 36)]
    played = route(m, "road0@5", "road1@2", "human", via=["road0@4"], debt=2, rolls=[6])
    assert played.path == r.path and played.turns[0].end == "e08"
    back = route(m, "road0@5", "road1@2", "human", via=["road1@2", "road0@5"])
    assert [x.node for x in back.path[-4:]] == soonest and [leg.cost for leg in back.legs] == [6.0, 6.0, 7.0]


def test_the_best_journey_is_not_the_legs_each_best_on_its_own(tmp_path_factory):
    """Somewhere among small maps the journey through a stop beats going to the stop the soonest way and on from
    there the soonest way (the legs' routes one after the other), and the answer is the journey's."""
    found = 0
    for n, seed in itertools.product(range(8, 15), range(40)):
        m = small_map(tmp_path_factory, n, seed)
        a = actor(m.catalog, "frac")
        ids = m.eido_ids
        for s, v, g in [(0, n // 2, n - 1), (n - 1, 1, 2)]:
            rolls = [2, 1, 3, 1, 2, 1, 3, 2]
            whole = route(m, ids[s], ids[g], a, via=[ids[v]], rolls=rolls)
            first = route(m, ids[s], ids[v], a, rolls=rolls)
            if not (whole.arrival_turn and first.arrival_turn):
                continue
            # the first leg's soonest way, then on from its stop with what its turn has left: the turns it takes
            costs = [x.cost for x in first.path[1:]] + [x.cost for x in route(m, ids[v], ids[g], a).path[1:]]
            chained = arrival(costs, rolls, True)
            assert chained is None or whole.arrival_turn <= chained
            found += chained is None or whole.arrival_turn < chained
        if found:
            return
    pytest.fail("no journey through a stop beat its legs' routes on these maps")


# -- the demo map, and what is refused ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo():
    return eidomap.load(DEMO)


def test_a_debt_carried_in_is_paid_before_any_step(demo):
    """docs/rules.md: the debt is paid first out of the next roll; a smaller roll leaves the rest owed."""
    r = route(demo, "bouza-vella", "porto-norte", "human", debt=4, rolls=[3, 5, 2, 6, 4])
    assert (r.turns[0].steps, r.turns[0].spent, r.turns[0].debt_after) == ([], 3.0, 1.0)
    assert r.turns[1].spent == 5.0 and r.turns[1].steps  # 1 owed, then 4 PtMv of steps
    plain = route(demo, "bouza-vella", "porto-norte", "human", rolls=[3, 5, 2, 6, 4])
    assert r.arrival_turn > plain.arrival_turn and r.path == plain.path


def test_a_debt_carried_in_shifts_the_arrival_odds_by_the_debt(demo):
    """Without rolls, under the debt rule, the threshold is the debt plus the goal's own: P(by turn k) for debt 6
    is P(the first k rolls add up to 6 more)."""
    r0 = route(demo, "bouza-vella", "porto-norte", "human")
    r6 = route(demo, "bouza-vella", "porto-norte", "human", debt=6)
    assert r6.best_turns == r0.best_turns + 1 and r6.expected_turns > r0.expected_turns + 1
    assert all(p6 <= p0 for p6, p0 in zip(r6.p_by_turn, r0.p_by_turn, strict=False))
    assert r6.total_cost == r0.total_cost and r6.legs == r0.legs


def test_a_goal_where_the_route_starts_is_crossed_when_the_debt_is_paid(demo):
    r = route(demo, "castro", "castro", "human", debt=7, rolls=[3, 2, 4])
    assert (r.arrival_turn, r.crossed_turn) == (0, 3)


def test_a_stop_reached_mid_turn_lets_the_turn_go_on(demo):
    """The rest of the turn's points go on past a stop: a stop is no place a turn must end."""
    r = route(demo, "bouza-vella", "porto-norte", "human", via=["agra-de-baixo"], rolls=[6, 6])
    first = r.turns[0]
    nodes = [x.node for x in first.steps]
    assert "agra-de-baixo" in nodes and nodes[-1] != "agra-de-baixo" and first.spent == 6.0
    assert r.legs[0].arrival_turn == 1


@pytest.mark.parametrize("kwargs, says", [
    ({"debt": -1}, "debt must be a whole number from 0 to 1,000,000, got -1"),
    ({"debt": MAX_DEBT + 1}, "debt must be a whole number from 0 to 1,000,000"),
    ({"debt": 1.5}, "debt must be a whole number"),
    ({"debt": True}, "debt must be a whole number"),
    ({"debt": 2, "partial": "forbid"}, "debt must be 0 under partial='forbid', got 2"),
    ({"via": "castro"}, "via must be a list of Eido or Pousa ids (not one str)"),
    ({"via": [3]}, "via must be an Eido or Pousa id (text), got 3"),
    ({"via": ["castr"]}, "no Eido or Pousa with id 'castr' (did you mean 'castro'?)"),
    ({"via": ["castro"] * 101}, "via must be at most 100 stops, got 101"),
])
def test_bad_stops_and_debts_are_refused_in_python_s_words(demo, kwargs, says):
    with pytest.raises(RequestError) as caught:
        route(demo, "bouza-vella", "porto-norte", "human", **kwargs)
    assert says in str(caught.value)


def test_an_unreachable_stop_names_its_leg(demo):
    r = route(demo, "bouza-vella", "porto-norte", "horse", via=["porto-sur"])
    assert not r.reachable and r.legs == []
    assert r.reason == "from bouza-vella to porto-sur: horse cannot enter sea: porto-sur lies beyond"


def test_route_json_names_each_leg(capsys):
    code, out, _ = run(["route", DEMO, "--from", "bouza-vella", "--to", "porto-norte", "--species", "human",
                        "--via", "monte-louro,laxes", "--debt", "2", "--rolls", "3,5,2,6,4,4", "--json"], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["via"] == ["monte-louro", "laxes"] and d["debt"] == 2
    assert [(leg["from"], leg["to"], leg["arrival_turn"]) for leg in d["legs"]] == [
        ("bouza-vella", "monte-louro", 1), ("monte-louro", "laxes", 4), ("laxes", "porto-norte", 4)]


def test_route_words_list_the_legs(capsys):
    code, out, _ = run(["route", DEMO, "--from", "bouza-vella", "--to", "porto-norte", "--species", "human",
                        "--via", "monte-louro", "--debt", "2"], capsys)
    assert code == 0
    assert 'via monte-louro "Monte Louro"' in out and "a debt of 2 PtMv carried into turn 1" in out
    assert 'leg 1: bouza-vella "Bouza Vella" -> monte-louro "Monte Louro": 4 PtMv in 1 step' in out


def test_a_forbid_policy_too_big_through_stops_says_why(tmp_path):
    """The exact forbid policy's bound counts the layered network's nodes: the message says they are the map's
    once for each leg."""
    from eidomap.model.generate import generate_map

    (tmp_path / "m.geojson").write_text(json.dumps(generate_map(300, 1)))
    m = eidomap.load(tmp_path / "m.geojson")
    ids = m.eido_ids
    with pytest.raises(RequestError) as caught:
        route(m, ids[0], ids[1], "human", via=[ids[2], ids[3]] * 50, partial="forbid")
    n = m.network.n_nodes
    assert f"(this one has {n * 101:,})" in str(caught.value)
    assert str(caught.value).endswith(f"(through 100 stops: the map's {n:,} nodes once for each of the 101 legs)")
