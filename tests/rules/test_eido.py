"""One test (at least) per rule of eido-movement.en.txt, on small hand-drawn maps.

Costs come from the test catalog below, so every number in an assertion can
be checked by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT, eido, feature, pousa, road, square, strip

import eidomap
from eidomap.answers.routing import plan_weights, reach, reach_rolls, route
from eidomap.base.errors import RequestError
from eidomap.record.catalog import MODES, load_catalog
from eidomap.rules.eido import actor
from eidomap.search.policy import forbid_policy
from eidomap.search.turns import advance, earliest, soonest_route
from eidomap.search.weighted import EPS

CATALOG = """
[species.walker]
vmv = 0
costs = { meadow = 1, scrub = 2, forest = 3, marsh = 4, rocks = 2, rocky_cliff = 5, sea = 6 }

[species.runner]
vmv = 2
costs = { meadow = 1, forest = 2, scrub = 1 }

[species.slow]
vmv = 1
costs = { meadow = 2, forest = 5, scrub = 1 }

[species.mule]
vmv = 3
costs = { meadow = 2, forest = 2 }

[species.fish]
vmv = 1
costs = { sea = 1 }

[species.costly]
vmv = 0
costs = { meadow = 3, forest = 4 }

[species.halfroad]
vmv = 0
costs = { meadow = 2, forest = 3 }
road_cost = 0.5

[species.gifted]
vmv = 0
costs = { meadow = 1, forest = 3, sea = 6 }
gifts = ["teleport"]

[species.tiny]
vmv = 0
costs = { meadow = 3, scrub = 3, rocks = 9, rocky_cliff = 12 }
road_style = "eido"
road_eido_cost = 6
road_eido_terrains = ["rocks", "rocky_cliff"]
"""


@pytest.fixture
def make(make_map):
    def build(features):
        return make_map(features, catalog=CATALOG)

    return build


def kinds(r) -> list[str]:
    return [s.kind for s in r.path[1:]]


def nodes(r) -> list[str]:
    return [s.node for s in r.path]


# -- Movement roll -----------------------------------------------------------------
def test_movement_roll_is_1d6_plus_vmv(make):
    m = make(strip(["meadow"] * 12))
    r = route(m, "e0", "e11", "runner", rolls=[1, 6, 3])
    assert [t.budget for t in r.turns] == [3, 8, 0 + 3 + 2][:len(r.turns)]
    assert [t.roll for t in r.turns] == [1, 6, 3][:len(r.turns)]


def test_pcs_with_vmv_zero_use_the_dice_only(make):
    m = make(strip(["meadow"] * 8))
    r = route(m, "e0", "e7", "walker", rolls=[4, 3])
    assert [t.budget for t in r.turns] == [4, 3]
    assert r.arrival_turn == 2


def test_other_dice_expressions(make):
    m = make(strip(["meadow"] * 20))
    two = actor(m.catalog, "walker", dice="2d6+1")
    r = route(m, "e0", "e19", two, rolls=[13, 7])
    assert [t.budget for t in r.turns] == [13, 7] and r.arrival_turn == 2
    assert r.dice == "2d6+1"


# -- Cost of each Eido --------------------------------------------------------------
def test_cost_depends_on_terrain_and_species(make):
    m = make(strip(["meadow", "forest", "meadow"]))
    assert route(m, "e0", "e2", "walker").total_cost == 3 + 1
    assert route(m, "e0", "e2", "runner").total_cost == 2 + 1
    assert route(m, "e0", "e2", "fish").reachable is False  # no cost: impassable


def test_medium_fixes_the_movement_mode():
    cat = load_catalog()
    modes = {t.name: t.mode for t in cat.terrains}
    assert modes["sea"] == "swimming" and modes["air"] == "flying" and modes["meadow"] == "running"
    assert set(MODES.values()) == {"running", "swimming", "flying"}


def test_the_start_eido_is_free(make):
    m = make(strip(["forest", "meadow"]))
    assert route(m, "e0", "e1", "walker").total_cost == 1


# -- Not enough points: debt ------------------------------------------------------------
def test_not_enough_points_remains_in_the_eido_with_a_debt(make):
    m = make(strip(["meadow", "forest", "meadow"]))
    r = route(m, "e0", "e2", "walker", rolls=[2, 6])
    t1 = r.turns[0]
    assert [s.node for s in t1.steps] == ["e1"] and t1.end == "e1"
    assert t1.spent == 2 and t1.debt_after == 1 and t1.lost == 0


def test_debt_is_paid_first_next_turn(make):
    m = make(strip(["meadow", "forest", "meadow"]))
    r = route(m, "e0", "e2", "walker", rolls=[2, 1, 6])
    assert [t.debt_after for t in r.turns] == [1, 0, 0]
    assert r.turns[1].steps == [] and r.turns[1].spent == 1  # turn 2 only pays the debt
    assert [s.node for s in r.turns[2].steps] == ["e2"]


def test_a_roll_smaller_than_the_debt_leaves_the_rest_owed(make):
    m = make(strip(["meadow", "rocky_cliff", "meadow"]))
    r = route(m, "e0", "e2", "walker", rolls=[1, 1, 1, 1, 2])
    assert [t.debt_after for t in r.turns[:4]] == [4, 3, 2, 1]
    assert r.arrival_turn == 5


def test_unused_points_are_lost(make):
    m = make(strip(["meadow", "forest", "meadow"]))
    r = route(m, "e0", "e2", "walker", rolls=[6])
    t = r.turns[0]
    assert t.spent == 4 and t.lost == 2 and r.arrival_turn == 1


def test_actors_need_not_move_nor_spend_all_points(make):
    m = make(strip(["meadow", "forest", "meadow"]))
    r = reach(m, "e0", "walker", roll=5)
    assert r.debt == {"e0": 0.0, "e1": 0.0, "e2": 0.0}  # may stop at the start or any Eido crossed


def test_reach_gives_the_least_debt_where_the_turn_can_end(make):
    m = make(strip(["meadow", "forest", "rocky_cliff", "meadow"]))
    r = reach(m, "e0", "walker", roll=2)
    assert r.debt == {"e0": 0.0, "e1": 1.0}  # e1 entered with 2 of its 3 points
    r = reach(m, "e0", "walker", roll=4)
    assert r.debt == {"e0": 0.0, "e1": 0.0, "e2": 4.0}


def test_arriving_soonest_may_step_in_with_a_debt(make):
    # the road (2 PtMv) is cheapest, but stepping across the border (3) puts the
    # walker in e1 with any roll: it arrives sooner, and finishes crossing later
    m = make(road_map(["forest"] * 4, [0.5, 2.0]))
    r = route(m, "e0", "e1", "walker", rolls=[1, 1, 1])
    assert kinds(r) == ["border"] and r.arrival_turn == 1 and r.crossed_turn == 3
    # without rolls too: the odds (there in turn 1 whatever the roll) are the border step's, and so is the route
    plan = route(m, "e0", "e1", "walker")
    assert kinds(plan) == ["border"] and (plan.total_cost, plan.cheapest_cost, plan.p_by_turn) == (3.0, 2.0, [1.0])


def test_arrival_and_crossed_turns(make):
    m = make(strip(["meadow", "meadow", "rocky_cliff"]))
    r = route(m, "e0", "e2", "walker", rolls=[2, 4])
    assert r.arrival_turn == 1 and r.crossed_turn == 2  # in e2 at once, finished next turn


# -- Riding and travelling together ---------------------------------------------------
def test_riding_uses_the_mounts_vmv_and_costs(make):
    m = make(strip(["meadow", "forest", "forest", "meadow"]))
    rider = actor(m.catalog, "walker", mount="mule")
    r = route(m, "e0", "e3", rider, rolls=[2])
    assert r.turns[0].budget == 2 + 3  # 1d6 + the mule's VMv
    assert r.total_cost == 2 + 2 + 2  # the mule's costs


def test_a_party_uses_the_lower_vmv_and_the_slower_pace(make):
    m = make(strip(["meadow", "forest", "scrub"]))
    group = actor(m.catalog, "runner", party=["slow"])
    assert group.vmv == 1
    r = route(m, "e0", "e2", group)
    assert r.total_cost == 5 + 1  # forest: slow's 5; scrub: both 1


def test_terrain_impassable_to_one_member_is_impassable_to_the_party(make):
    m = make(strip(["meadow", "scrub", "meadow"]))
    assert route(m, "e0", "e2", actor(m.catalog, "runner", party=["mule"])).reachable is False


# -- Movement between Eidos ----------------------------------------------------------
def test_only_adjacent_eidos_not_corners(make):
    feats = [eido("a", "meadow", square(0, 0)), eido("b", "forest", square(1, 0)),
             eido("c", "forest", square(0, 1)), eido("d", "meadow", square(1, 1))]
    m = make(feats)
    r = route(m, "a", "d", "walker")
    assert len(r.path) == 3  # a -> b or c -> d, never a -> d at the corner
    assert "d" not in m.neighbors("a")


def test_region_borders_are_ordinary_borders(make):
    feats = [eido("n", "meadow", square(0, 0), region="north"), eido("s", "meadow", square(1, 0), region="south")]
    m = make(feats)
    assert route(m, "n", "s", "walker").total_cost == 1


def test_sea_borders_all_count_the_same(make):
    m = make(strip(["sea", "sea", "sea"]))
    assert route(m, "e0", "e2", "fish").total_cost == 2


# -- Roads -----------------------------------------------------------------------------
def road_map(terrains, pousa_x, road_id="r"):
    n = len(terrains)
    feats = strip(terrains)
    feats.append(road(road_id, [[0.5, 0.5], [n - 0.5, 0.5]]))
    feats += [pousa(road_id, [x, 0.5], f"p{k}") for k, x in enumerate(pousa_x)]
    return feats


def test_roads_ignore_eidos_and_borders(make):
    # eight forest Eidos (3 each) with a road: one Pousa in each Eido
    m = make(road_map(["forest"] * 8, [k + 0.5 for k in range(8)]))
    r = route(m, "e0", "e7", "walker")
    assert kinds(r) == ["board"] + ["road"] * 7 + ["alight"]
    assert r.total_cost == 8  # 1 per Pousa, whatever the terrain


def test_a_roll_gives_the_number_of_pousas(make):
    m = make(road_map(["forest"] * 8, [k + 0.5 for k in range(8)]))
    r = route(m, "e0", "e7", "walker", rolls=[4, 4])
    assert [len([s for s in t.steps if s.kind in ("board", "road")]) for t in r.turns] == [4, 4]


def test_road_cost_is_one_or_the_minimum_cost():
    cat = load_catalog()
    assert cat.species["human"].road_cost == 1  # min land cost 1
    assert cat.species["cow"].road_cost == 2  # min land cost 2 > 1
    assert cat.species["boat"].road_cost is None  # no land cost: no roads
    assert load_catalog().species["cart"].road_cost == 1


def test_road_cost_default_uses_the_minimum_cost(make):
    m = make(road_map(["forest"] * 4, [k + 0.5 for k in range(4)]))
    assert m.catalog.species["costly"].road_cost == 3
    r = route(m, "e0", "p3", "costly")  # (to the Pousa: the road is the way)
    assert [s.cost for s in r.path[1:] if s.kind == "road"] == [3, 3]


def test_older_edition_half_a_point_a_pousa(make):
    # "an older edition charged half a PtMv a Pousa": a roll of 3 crosses 6 Pousas
    m = make(road_map(["forest"] * 8, [k + 0.5 for k in range(8)]))
    r = route(m, "e0", "e7", "halfroad", rolls=[3, 1])
    first = [s for s in r.turns[0].steps if s.kind in ("board", "road")]
    assert len(first) == 6 and r.turns[0].spent == 3


def test_a_budget_meets_a_cost_to_the_same_rounding_on_a_later_turn_as_on_this_one():
    """A step costing EPS (the rounding of summed costs) more than a budget is paid by it: whether the actor has
    that many points now or waits, under forbid, for the turn that gives them."""
    budgets = np.array([1.0, 6.0])
    cost = 6.0 + EPS
    assert advance(1, 6.0, cost, budgets, False, False) == (1, 1, 0.0)  # its points now
    assert advance(1, 1.0, cost, budgets, False, False) == (2, 2, 0.0)  # 1 point now: waits for turn 2's 6


def test_half_a_point_left_starts_the_next_eido_with_a_debt(make):
    # "at least 1 point left" read as "some points left" (docs/rules.md): with
    # fractional costs no fraction of a point is wasted mid-turn
    m = make(road_map(["meadow", "meadow", "meadow", "forest"], [0.5, 1.5, 2.5]))
    r = route(m, "e0", "e3", "halfroad", rolls=[2, 6])
    assert kinds(r) == ["board", "road", "road", "alight", "border"]
    assert r.arrival_turn == 1 and r.turns[0].debt_after == 2.5 and r.turns[0].lost == 0


def test_getting_on_a_road_from_the_eido_of_the_pousa_pays_the_first_pousa(make):
    m = make(road_map(["forest"] * 5, [0.5, 1.5, 2.5, 3.5, 4.5]))
    r = route(m, "e0", "e4", "walker")
    assert r.path[1].kind == "board" and r.path[1].cost == 1


def test_getting_on_from_an_adjacent_eido_pays_that_eido_and_the_first_pousa_is_free(make):
    # no Pousa in e0; the first one is in e1 (forest, 3)
    m = make(road_map(["meadow", "forest", "forest", "forest", "forest", "forest"], [1.5, 2.5, 3.5, 4.5, 5.5]))
    r = route(m, "e0", "e5", "walker")
    assert kinds(r)[0] == "board_adjacent" and r.path[1].node == "p0" and r.path[1].cost == 3
    assert r.total_cost == 3 + 4 + 0


def test_paths_can_only_be_accessed_where_there_is_a_pousa(make):
    m = make(road_map(["forest"] * 5, [4.5]))  # a single Pousa, in e4
    g = m.graph
    assert {u for u, _, d in g.in_edges("p0", data=True)} == {"e4", "e3"}


def test_a_pousa_on_a_border_is_accessible_from_either_eido(make):
    m = make(road_map(["forest"] * 4, [1.0, 3.5]))  # p0 on the e0|e1 border
    for start in ("e0", "e1"):
        r = route(m, start, "e3", "walker")
        assert r.path[1].node == "p0" and r.path[1].kind == "board"


def test_getting_off_a_road_puts_the_actor_in_the_eido_of_the_pousa(make):
    m = make(road_map(["forest"] * 4, [0.5, 2.0]))  # p1 on the e1|e2 border
    for goal in ("e1", "e2"):  # (a roll of 2 takes the road to either in turn 1, for less than the border to e1)
        r = route(m, "e0", goal, "walker", rolls=[2])
        assert nodes(r) == ["e0", "p0", "p1", goal] and r.path[-1].kind == "alight" and r.total_cost == 2


def test_fish_cannot_follow_roads(make):
    m = make(road_map(["sea"] * 4, [0.5, 3.5]))
    assert "road" not in kinds(route(m, "e0", "e3", "fish"))


# -- Oestrimios -------------------------------------------------------------------------
def test_oestrimios_never_hop_pousas(make):
    m = make(road_map(["meadow", "rocks", "rocky_cliff", "meadow"], [0.5, 1.5, 2.5, 3.5]))
    r = route(m, "e0", "e3", "tiny")
    assert not {"road", "board", "board_adjacent", "alight"} & set(kinds(r))


def test_oestrimios_pay_6_for_each_rock_eido_along_a_road(make):
    m = make(road_map(["meadow", "rocks", "rocky_cliff", "meadow"], [0.5, 3.5]))
    r = route(m, "e0", "e3", "tiny")
    assert kinds(r) == ["road_eido", "road_eido", "border"]
    assert [s.cost for s in r.path[1:]] == [6, 6, 3]


def test_oestrimios_go_cross_country_without_a_road(make):
    m = make(strip(["meadow", "rocks", "meadow"]))
    r = route(m, "e0", "e2", "tiny")
    assert kinds(r) == ["border", "border"] and r.total_cost == 9 + 3


def test_oestrimio_road_cost_configurable(make_map):
    custom = CATALOG.replace("road_eido_cost = 6", "road_eido_cost = 4")
    m = make_map(road_map(["meadow", "rocks", "meadow"], [0.5, 2.5]), catalog=custom)
    assert [s.cost for s in route(m, "e0", "e2", "tiny").path[1:]] == [4, 3]


# -- Teleports ---------------------------------------------------------------------------
def teleport_map():
    feats = strip(["meadow", "forest", "forest", "forest", "forest", "meadow"])
    feats += [feature("fountain", "Point", [0.5, 0.5], "f0"), feature("fountain", "Point", [5.5, 0.5], "f1")]
    feats += [feature("stream", "LineString", [[2.5, 0.5], [4.5, 0.5]], "s")]  # source e2, mouth e4
    return feats


def test_gifted_characters_teleport_between_fountains(make):
    m = make(teleport_map())
    r = route(m, "e0", "e5", "gifted")
    assert kinds(r) == ["teleport", "teleport_exit"] and r.total_cost == 0
    assert route(m, "e0", "e5", "walker").total_cost == 3 * 4 + 1


def test_teleport_is_instant_even_with_no_points_left(make):
    m = make(teleport_map())
    r = route(m, "e1", "e5", "gifted", rolls=[1, 1, 1])
    # e1 -> e0 costs 1 (all of turn 1), then the free teleport still happens in turn 1
    assert r.arrival_turn == 1 and r.turns[0].lost == 0


def test_from_the_mouth_of_a_stream_to_its_source(make):
    m = make(teleport_map())
    r = route(m, "e4", "e2", "gifted")
    assert kinds(r) == ["stream"] and r.total_cost == 0
    back = route(m, "e2", "e4", "gifted")
    assert "stream" not in kinds(back)  # only mouth -> source


def test_the_gift_can_be_given_and_its_cost_configured(make, make_map):
    m = make(teleport_map())
    assert kinds(route(m, "e0", "e5", actor(m.catalog, "walker", gifts=["teleport"])))[0] == "teleport"
    costly = CATALOG.replace('gifts = ["teleport"]', 'gifts = ["teleport"]\nteleport_cost = 2')
    m2 = make_map(teleport_map(), catalog=costly)
    assert route(m2, "e0", "e5", "gifted").total_cost == 2


# -- Partial steps forbidden (house rule / d20) -----------------------------------------
def test_forbid_waits_for_a_turn_that_covers_the_step(make):
    m = make(strip(["meadow", "forest", "meadow"]))
    r = route(m, "e0", "e2", "walker", rolls=[2, 2, 4], partial="forbid")
    assert r.turns[0].lost == 2 and r.turns[0].steps == []
    assert r.arrival_turn == r.crossed_turn == 3
    assert all(t.debt_after == 0 for t in r.turns)


def test_forbid_with_dice_reports_the_optimal_policy(make):
    m = make(strip(["meadow", "forest", "meadow"]))
    r = route(m, "e0", "e2", "walker", partial="forbid")
    assert r.reachable and r.best_turns == 1 and r.worst_turns is None  # can be stuck on rolls of 1 or 2
    # E = 1 + P(3) E(e1) + P(1 or 2) E: with a 3 the forest is entered, any roll then finishes: E = 7/4
    assert r.expected_turns == pytest.approx(7 / 4, rel=1e-12) and np.all(np.diff(r.p_by_turn) >= 0)


# -- Dice distributions -------------------------------------------------------------------
def test_arrival_distribution_under_the_debt_rule(make):
    m = make(strip(["meadow"] * 4))
    r = route(m, "e0", "e3", "walker")
    # in e3 once the rolls exceed 2 (the cost of e1 and e2): P(turn 1) = P(roll >= 3)
    assert r.p_by_turn[0] == pytest.approx(4 / 6)
    assert r.p_by_turn[1] == pytest.approx(35 / 36)  # two 1s add up to 2 only
    assert r.p_by_turn[2] == 1.0 and r.worst_turns == 3 and r.best_turns == 1
    assert r.expected_turns == pytest.approx(1 + 2 / 6 + 1 / 36)


def test_reach_within_k_turns(make):
    m = make(strip(["meadow"] * 4))
    r = reach(m, "e0", "walker", turns=1)
    assert r.p_within == pytest.approx({"e0": 1.0, "e1": 1.0, "e2": 5 / 6, "e3": 4 / 6})


# -- No turns to play, no way to go ------------------------------------------------------
def test_with_no_turns_to_play_the_actor_is_only_at_the_start(make):
    m = make(strip(["meadow"] * 3))
    w = plan_weights(m, actor(m.catalog, "walker"), carry=True)
    arrive, turn, _, pred = earliest(m.network, w, 0, [])
    assert (arrive[0], turn[0]) == (0, 0) and (arrive[1:] == -1).all() and (turn[1:] == -1).all()
    assert (pred == -1).all()
    assert soonest_route(m.network, w, 0, 2, np.array([]), True) == (None, -1)
    assert soonest_route(m.network, w, 0, 0, np.array([]), True) == ([], 0)
    assert reach_rolls(m, "e0", "walker", rolls=[]).arrival_turn == {"e0": 0}


def test_the_optimal_forbid_play_from_the_goal_itself_takes_no_turn(make):
    m = make(strip(["meadow"] * 3))
    w = plan_weights(m, actor(m.catalog, "walker"), carry=False)
    res = forbid_policy(m.network, w, 1, 1, np.arange(1.0, 7.0), np.full(6, 1 / 6), 10)
    assert (res.expected, res.p_by_turn, res.worst, res.course) == (0.0, [], 0, [1])


def test_with_turns_that_can_give_no_points_arrival_is_never_certain(make):
    m = make(strip(["meadow"] * 2))
    r = route(m, "e0", "e1", actor(m.catalog, "walker", vmv=0, dice="1d4-1"))  # a roll of 1 gives 0 PtMv
    # in e1 once a turn gives a point: P(by turn k) = 1 - (1/4)^k, E = 1 / (1 - 1/4)
    assert r.p_by_turn[:3] == pytest.approx([3 / 4, 15 / 16, 63 / 64])
    assert r.worst_turns is None and r.best_turns == 1 and r.expected_turns == pytest.approx(4 / 3)
    # the distribution runs to the first turn by which arrival is certain to 1e-12: (1/4)^20 < 1e-12 < (1/4)^19
    assert len(r.p_by_turn) == 20 and r.p_by_turn[-1] == pytest.approx(1 - 0.25**20, abs=1e-15)


def test_route_and_reach_refuse_a_map_drawn_for_the_d20_rules():
    m = eidomap.load(ROOT / "maps" / "d20-overland.geojson")
    for question, call in (("route", lambda: route(m, "a", "b", "human")),
                           ("reach", lambda: reach(m, "a", "human", turns=2))):
        with pytest.raises(RequestError) as err:
            call()
        assert str(err.value).endswith(f": the map is drawn for the d20 rules, and {question} applies the eido"
                                       " rules (the d20 rules answer: grid, travel)")


def test_who_moves_is_an_actor_or_a_species_name(make):
    m = make(strip(["meadow"] * 2))
    with pytest.raises(RequestError) as err:
        route(m, "e0", "e1", 3)
    assert str(err.value) == "who must be an Actor (eidomap.rules.eido.actor) or a species name, got 3"
