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
from conftest import DEMO, eido, square, strip
from hypothesis import given
from hypothesis import strategies as st
from test_routing import SETTINGS, SPECIES, edge_list, small_map

import eidomap
from eidomap.analysis import bottlenecks, expected_turns_matrix
from eidomap.cli import main
from eidomap.errors import RequestError
from eidomap.routing import reach, reach_rolls, route
from eidomap.rules.eido import actor
from eidomap.search import policy

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
