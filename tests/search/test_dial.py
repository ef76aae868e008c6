"""Dial's bucket search (:mod:`eidomap.search.dial`) against SciPy's csgraph Dijkstra, on random graphs.

Both twins of the search (plain Python and numba) on random CSRs, and
:func:`eidomap.search.weighted.dijkstra` on random networks with parallel
edges and random cost tables: the same costs as SciPy, predecessors that are
a shortest-path tree (of ways of equal cost either may be named), and SciPy's
own answer wherever the buckets do not apply.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_networks import cost_table, csr_indptr, graphs, network
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra as csgraph_dijkstra

from eidomap.base import settings as tuning
from eidomap.base.compiled import compiled
from eidomap.model.network import KINDS, MAP_ERROR_CODES, CostTable, _compile, _key_bits
from eidomap.search.dial import MAX_COST, NO_PRED, dial_labels
from eidomap.search.weighted import dijkstra

SETTINGS = settings(max_examples=80, deadline=None)


def _scipy(n: int, src: np.ndarray, dst: np.ndarray, w: np.ndarray, source, limit=np.inf):
    """SciPy's costs over the cheapest of the parallel edges (steps that cannot be taken left out)."""
    ok = np.isfinite(w)
    best: dict[tuple[int, int], float] = {}
    for u, v, c in zip(src[ok].tolist(), dst[ok].tolist(), w[ok].tolist(), strict=True):
        best[u, v] = min(c, best.get((u, v), np.inf))
    rows, cols = (np.array([k[i] for k in best], np.int64) for i in (0, 1))
    graph = csr_matrix((np.array(list(best.values()), float), (rows, cols)), shape=(n, n))
    return csgraph_dijkstra(graph, directed=True, indices=source, limit=limit)


def _is_tree(dist, pred, src, dst, w, source) -> bool:
    """``pred`` names, for every node reached but the source, a node it is reached from at its cost; and
    :data:`NO_PRED` elsewhere."""
    reached = np.isfinite(dist)
    reached[source] = False
    if np.any(pred[~reached] != NO_PRED):
        return False
    best = {}
    for u, v, c in zip(src.tolist(), dst.tolist(), w.tolist(), strict=True):
        if np.isfinite(c) and dist[u] + c == dist[v]:
            best[u, v] = True
    return all((int(pred[v]), v) in best for v in np.flatnonzero(reached).tolist())


@SETTINGS
@given(g=graphs(), data=st.data(), jit=st.booleans())
def test_the_buckets_give_scipys_costs_and_a_shortest_path_tree(g, data, jit):
    n, src, dst, codes, table = g
    source = data.draw(st.integers(0, n - 1))
    limit = data.draw(st.sampled_from([1 << 62, 0, 3, 7]))
    # the CSR renumbered by a random order, the answer read in the first numbering
    order = np.array(data.draw(st.permutations(range(n))), np.int32)
    rank = np.empty(n, np.int32)
    rank[order] = np.arange(n)
    by = np.lexsort((rank[dst], rank[src]))
    indptr = csr_indptr(rank[src], n)
    search = compiled(dial_labels) if jit else dial_labels
    dist, pred = search(indptr, rank[dst][by], codes[by].astype(np.uint8), table, int(rank[source]), limit, order)
    w = np.where(table[codes] >= 0, table[codes], np.inf).astype(float)
    want = _scipy(n, src, dst, w, source, limit)
    assert np.array_equal(dist, want)
    assert _is_tree(dist, pred, src, dst, w, source)


@SETTINGS
@given(data=st.data(), terrains=st.integers(1, 4))
def test_dijkstra_on_whole_costs_gives_scipys_costs(data, terrains):
    net = network(data.draw, terrains)
    table = cost_table(data.draw, terrains, st.sampled_from([0.0, 1.0, 2.0, 3.0, 5.0, np.inf]))
    sources = data.draw(st.one_of(st.integers(0, net.n_nodes - 1),
                                  st.lists(st.integers(0, net.n_nodes - 1), max_size=3).map(np.array)))
    limit = data.draw(st.sampled_from([np.inf, 0.0, 2.5, 4.0]))
    with pytest.MonkeyPatch.context() as mp:  # before SciPy's csgraph is imported: a small search in Python,
        mp.setattr(tuning, "scipy_graphs_loaded", lambda: False)  # over the network's own CSR (not renumbered)
        small = dijkstra(net, table, sources, limit, predecessors=True)
    assert "near" not in net.__dict__
    dist, pred = dijkstra(net, table, sources, limit, predecessors=True, compiled=True)
    want = dijkstra(net, table, sources, limit, compiled=False)
    assert dist.shape == want.shape and np.array_equal(dist, want) and np.array_equal(small[0], want)
    w = net.edge_weights(table)
    for tree in (pred, small[1]):
        for s, d, p in zip(np.atleast_1d(sources), np.atleast_2d(dist), np.atleast_2d(tree), strict=True):
            assert _is_tree(d, p, net.src, net.dst, w, s)


@settings(max_examples=50, deadline=None)
@given(data=st.data(), costs=st.sampled_from([st.sampled_from([0.5, 1.0, 2.5, np.inf]),
                                              st.sampled_from([1.0, MAX_COST + 1.0, np.inf])]))
def test_fractional_or_wide_costs_and_edge_weights_go_to_scipy(data, costs):
    net = network(data.draw, 2)
    table = cost_table(data.draw, 2, costs)
    s = data.draw(st.integers(0, net.n_nodes - 1))
    for weights in (table, net.edge_weights(table)):
        want = dijkstra(net, weights, s, predecessors=True, compiled=False)
        got = dijkstra(net, weights, s, predecessors=True, compiled=True)
        assert all(np.array_equal(x, y) for x, y in zip(got, want, strict=True))


def test_a_source_off_the_network_is_refused_by_name():
    n = 3
    nb, kb, tb = _key_bits(n, 1)
    keys = np.array([(((0 << nb | 1) << kb) << tb) | 1], np.int64)
    net = _compile(np.array(["a", "b", "c"]), np.zeros(n, np.int8), np.zeros(n, np.int32), keys, n, ("t",),
                   np.zeros(len(MAP_ERROR_CODES), np.int64))
    table = CostTable(np.ones((len(KINDS), 2)))
    for bad in (3, -1, [0, 7]):
        with pytest.raises(ValueError, match="sources"):
            dijkstra(net, table, bad, compiled=True)


def test_one_search_of_a_network_not_renumbered_stays_on_scipy(monkeypatch):
    """numba's import and the renumbering cost about one SciPy search: a one-shot route never pays them."""

    monkeypatch.setattr(tuning, "DIAL_ABOVE", 0)
    n = 4
    nb, kb, tb = _key_bits(n, 1)
    keys = np.array([((((a << nb) | b) << kb) << tb) | 1 for a, b in ((0, 1), (1, 2), (2, 3))], np.int64)
    net = _compile(np.array(["a", "b", "c", "d"]), np.zeros(n, np.int8), np.zeros(n, np.int32), keys, n, ("t",),
                   np.zeros(len(MAP_ERROR_CODES), np.int64))
    table = CostTable(np.ones((len(KINDS), 2)))
    assert dijkstra(net, table, 0).tolist() == [0, 1, 2, 3] and "near" not in net.__dict__
    assert dijkstra(net, table, [0, 1]).tolist() == [[0, 1, 2, 3], [np.inf, 0, 1, 2]] and "near" in net.__dict__
    assert dijkstra(net, table, 1).tolist() == [np.inf, 0, 1, 2]  # (renumbered now: the buckets answer)


def test_the_buckets_take_a_step_of_64_ki_less_one_and_scipy_a_dearer_one():
    """MAX_COST: the buckets' ring is 64 Ki buckets (256 KiB) at most, so the dearest step they take costs 65,535;
    a table with a step of 65,536 goes to SciPy.  Either way the costs are SciPy's."""
    from eidomap.search.weighted import whole_costs

    n = 3
    nb, kb, tb = _key_bits(n, 2)
    keys = np.array([(((a << nb | b) << kb) << tb) | t for a, b, t in ((0, 1, 1), (1, 2, 2))], np.int64)
    net = _compile(np.array(["a", "b", "c"]), np.zeros(n, np.int8), np.zeros(n, np.int32), keys, n, ("t0", "t1"),
                   np.zeros(len(MAP_ERROR_CODES), np.int64))
    for dearest, buckets in ((65_535.0, True), (65_536.0, False)):
        array = np.full((len(KINDS), 3), np.inf)
        array[0, :2] = 2.0, dearest  # a border into t0 costs 2, into t1 the dearest
        table = CostTable(array)
        assert (whole_costs(table) is not None) == buckets
        assert dijkstra(net, table, 0, compiled=True).tolist() == [0.0, 2.0, 2.0 + dearest]


def test_a_route_and_a_reach_on_a_small_map_need_no_scipy(monkeypatch):
    """Until SciPy's csgraph is imported (its import was half of ``eidomap route``'s time on a small map), the
    searches of a small network are Dial's in Python and the tie rule's levels its own: with the module barred
    (an import of it fails), a fresh load of the demo map answers as with it."""
    import sys

    import eidomap
    from eidomap.answers.routing import reach, route

    def answers(m):
        return (route(m, "agra-de-riba", "porto-norte", "human").as_dict(),
                route(m, "bouza-vella", "porto-norte", "cow", rolls=[3, 5, 2, 6]).as_dict(),
                reach(m, "porto-sur", "human", turns=2).as_dict())

    want = answers(eidomap.load(eidomap.demo_map_path()))
    monkeypatch.setitem(sys.modules, "scipy.sparse.csgraph", None)
    assert answers(eidomap.load(eidomap.demo_map_path())) == want
