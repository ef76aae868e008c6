"""The turn search: one step under the debt rule, turn by turn; the forbid search of a fixed whole budget against
the general one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_networks import cost_table, csr_indptr, graphs, hub_graphs, network

from eidomap.base.compiled import compiled
from eidomap.model.network import MAP_ERROR_CODES, _compile, _key_bits
from eidomap.search import turns
from eidomap.search.forbid import MAX_BUDGET, forbid_costs, forbid_labels, steady_budget
from eidomap.search.turns import advance, earliest_labels
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


@settings(max_examples=80, deadline=None)
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


@settings(max_examples=80, deadline=None)
@given(g=graphs(max_cost=9), data=st.data(), budget=st.integers(0, 8), turns=st.one_of(st.none(), st.integers(1, 4)),
       jit=st.booleans())
def test_the_forbid_search_gives_the_general_searchs_labels(g, data, budget, turns, jit):
    """:func:`forbid_labels` against :func:`earliest_labels` on the same renumbered CSR: the same turn, points
    left and edge in every node (its ring pops the nodes in the general queue's order), read in the first
    numbering; ``turns`` budgets, or the budget for ever (None)."""
    n, src, dst, codes, table = g
    source = data.draw(st.integers(0, n - 1))
    order = np.array(data.draw(st.permutations(range(n))), np.int32)
    rank = np.empty(n, np.int32)
    rank[order] = np.arange(n)
    by = np.lexsort((rank[dst], rank[src])).astype(np.int32)
    indptr = csr_indptr(rank[src], n)
    w = np.where(table[codes] >= 0, table[codes], np.inf)[by]
    budgets = np.full(1 if turns is None else turns, float(budget))
    general, fast = (compiled(f) if jit else f for f in (earliest_labels, forbid_labels))
    _, turn, left, pred = general(indptr, rank[dst][by], w, int(rank[source]), budgets, turns is None, False)
    got = fast(indptr, rank[dst][by], np.arange(len(w), dtype=np.int32), forbid_costs(w, budget), int(rank[source]),
               budget, *steady_budget(budgets, turns is None, False)[1:], order, by)
    want = np.empty_like(turn), np.empty_like(left), np.empty_like(pred)
    for mine, theirs in zip(want, (turn, left, np.where(pred >= 0, np.r_[by, -1][pred], -1)), strict=True):
        mine[order] = theirs
    for x, y in zip(got, want, strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)


def _forbid_against_general(n, src, dst, cost, budget, source, jit):
    """The forbid search and the general one on a CSR in the order given (no renumbering), budget for ever."""
    indptr, dst, ids = csr_indptr(src, n), dst.astype(np.int32), np.arange(len(cost), dtype=np.int32)
    w = np.where(cost <= budget, cost, np.inf).astype(float)
    general, fast = (compiled(f) if jit else f for f in (earliest_labels, forbid_labels))
    _, turn, left, pred = general(indptr, dst, w, source, np.array([float(budget)]), True, False)
    got = fast(indptr, dst, ids, forbid_costs(w, budget), source, budget,
               *steady_budget(np.array([float(budget)]), True, False)[1:], np.arange(n, dtype=np.int32), ids)
    for x, y in zip(got, (turn, left, pred), strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    return got


@pytest.mark.parametrize("jit", [False, True])
def test_a_node_taken_out_of_its_bucket_after_the_head_leaves_the_bucket_whole(jit):
    """Issue 44's graph: 1 and 2 share a bucket (2 at its head); the free hub 3 takes 2 out, then 1.  Without
    ``before[b] = a`` the second removal follows a stale link and the search stops before node 5."""
    src, dst = np.array([0, 0, 0, 0, 3, 3, 4]), np.array([1, 2, 3, 4, 2, 1, 5])
    turn, _, pred = _forbid_against_general(6, src, dst, np.array([3, 3, 0, 4, 1, 2, 1]), 4, 0, jit)
    assert turn.tolist() == [0, 1, 1, 1, 1, 2] and pred[5] == 6


@settings(max_examples=80, deadline=None)
@given(g=hub_graphs(), jit=st.booleans())
def test_two_nodes_of_a_bucket_made_cheaper_in_turn_keep_the_forbid_search_whole(g, jit):
    """:func:`forbid_labels` against :func:`earliest_labels` where a zero-cost hub takes the head of a bucket and
    then the node after it (tests/random_networks.hub_graphs): the same labels, every node settled."""
    n, src, dst, cost, budget, source = g
    _forbid_against_general(n, src, dst, cost, budget, source, jit)


COSTS = st.sampled_from([0.0, 1.0, 2.0, 3.0, 5.0, 7.0, np.inf])


@settings(max_examples=80, deadline=None)
@given(data=st.data(), terrains=st.integers(1, 3), jit=st.booleans(), cycle=st.booleans(),
       partial=st.sampled_from(["forbid", "forbid", "carry"]),
       costs=st.sampled_from([COSTS, COSTS, st.sampled_from([0.5, 1.0, 2.5, np.inf, -1.0, np.nan])]),
       budgets=st.one_of(st.integers(0, 8).flatmap(lambda b: st.lists(st.just(float(b)), min_size=1, max_size=3)),
                         st.lists(st.sampled_from([0.0, 2.0, 2.5, 4.0, 6.0, MAX_BUDGET + 1.0]), max_size=3)))
def test_earliest_answers_as_the_general_search(data, terrains, jit, cycle, partial, costs, budgets):
    """:func:`earliest` picks the forbid search where it applies (whole costs, one whole budget, ``forbid``) and
    answers exactly as the general search it otherwise runs; on cost tables and edge weights alike."""
    net = network(data.draw, terrains)
    table = cost_table(data.draw, terrains, costs)
    source = data.draw(st.integers(0, net.n_nodes - 1))
    for w in (table, net.edge_weights(table)):
        got = turns.earliest(net, w, source, budgets, partial, cycle, compiled=jit)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(turns, "steady_budget", lambda *_: None)
            want = turns.earliest(net, w, source, budgets, partial, cycle, compiled=jit)
        for x, y in zip(got, want, strict=True):
            assert x.dtype == y.dtype and np.array_equal(x, y)



def test_edge_weights_of_another_length_are_refused_by_name():
    """The compiled searches read the weights unchecked: an array not one weight an edge is refused before them."""
    n = 3
    nb, kb, tb = _key_bits(n, 1)
    keys = np.array([(((a << nb | b) << kb) << tb) | 1 for a, b in ((0, 1), (1, 2))], np.int64)
    net = _compile(np.array(["a", "b", "c"]), np.zeros(n, np.int8), np.zeros(n, np.int32), keys, n, ("t",),
                   np.zeros(len(MAP_ERROR_CODES), np.int64))
    assert turns.earliest(net, np.ones(2), 0, [1], "forbid", True, compiled=True)[1].tolist() == [0, 1, 2]
    for bad in (np.ones(1), np.ones(3), np.ones((2, 1))):
        for jit in (False, True):
            with pytest.raises(ValueError, match=r"^w: per-edge weights of shape"):
                turns.earliest(net, bad, 0, [1], "forbid", True, compiled=jit)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), cycle=st.booleans(), partial=st.sampled_from(["forbid", "carry"]),
       budgets=st.lists(st.sampled_from([0.0, 1.0, 2.5, 4.0]), min_size=1, max_size=3))
def test_the_search_over_the_renumbered_network_reads_its_labels_back_in_the_networks_numbering(
        data, cycle, partial, budgets):
    """The compiled twin runs over :attr:`Network.near` (nodes renumbered, edges in its order) and its labels are read
    back node by node and edge by edge: the same labels as the search over the network as it is.  (The twin stood in
    by the Python search, so that numba is not needed to check the renumbering.)"""
    net = network(data.draw, 2)
    table = cost_table(data.draw, 2, st.sampled_from([0.5, 1.0, 2.0, 3.0, np.inf]))
    source = data.draw(st.integers(0, net.n_nodes - 1))
    want = turns.earliest(net, table, source, budgets, partial, cycle, compiled=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(turns, "twin", lambda fn, steps, compiled: lambda *args: fn(*args))
        got = turns.earliest(net, table, source, budgets, partial, cycle, compiled=True)
    for x, y in zip(got, want, strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)


@pytest.mark.parametrize("partial", ["forbid", "carry"])
def test_budgets_of_any_real_number_type_answer_as_their_floats(partial):
    """``budgets`` is array-like of reals: Decimal and Fraction budgets (a rule's exact PtMv), NumPy integers of
    any width, are the floats they equal (the searches compute in float64)."""
    from decimal import Decimal
    from fractions import Fraction

    n = 4
    nb, kb, tb = _key_bits(n, 1)
    keys = np.array([(((a << nb | b) << kb) << tb) | 1 for a, b in ((0, 1), (1, 2), (2, 3))], np.int64)
    net = _compile(np.array(["a", "b", "c", "d"]), np.zeros(n, np.int8), np.zeros(n, np.int32), keys, n, ("t",),
                   np.zeros(len(MAP_ERROR_CODES), np.int64))
    for w in (np.ones(3), np.full(3, 1.5), np.array([150.0, 200.0, 100.0])):
        for asked, floats in (([Decimal("2.5"), Decimal(4)], [2.5, 4.0]), ([Fraction(5, 2)], [2.5]),
                              (np.array([100, 120], np.int8), [100.0, 120.0])):
            got = turns.earliest(net, w, 0, asked, partial, True)
            want = turns.earliest(net, w, 0, floats, partial, True)
            for x, y in zip(got, want, strict=True):
                assert x.dtype == y.dtype and np.array_equal(x, y)
