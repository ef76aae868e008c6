"""Random graphs for the search oracles: CSRs with a cost table by code, and compiled networks.

Shared by tests/search (Dial's buckets against SciPy, the forbid search
against the general turn search).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from eidomap.model.network import KINDS, MAP_ERROR_CODES, CostTable, Network, _compile, _key_bits


@st.composite
def graphs(draw, max_nodes: int = 30, max_cost: int = 9):
    """A random CSR ``(n, src, dst, codes, table)``: parallel edges and loops, costs from a table by code
    (-1: the step cannot be taken)."""
    n = draw(st.integers(1, max_nodes))
    m = draw(st.integers(0, 4 * n))
    src = np.sort(np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), np.int64))
    dst = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), np.int64)
    table = np.array(draw(st.lists(st.integers(-1, max_cost), min_size=1, max_size=6)), np.int64)
    codes = np.array(draw(st.lists(st.integers(0, len(table) - 1), min_size=m, max_size=m)), np.int64)
    return n, src, dst, codes, table


def csr_indptr(src: np.ndarray, n: int) -> np.ndarray:
    """The CSR row pointers of edges sorted by ``src`` over ``n`` nodes, as a compiled network holds them (int32):
    a search's compiled twin is then tested in the signature a map gives it -- another dtype would compile it
    again, for the tests alone."""
    return np.r_[0, np.cumsum(np.bincount(src, minlength=n))].astype(np.int32)


def network(draw, terrains: int) -> Network:
    """A random network of a few nodes: edges of any kind into any terrain, parallel ones among them."""
    n = draw(st.integers(1, 25))
    m = draw(st.integers(0, 5 * n))
    nb, kb, tb = _key_bits(n, terrains)
    ints = st.lists(st.integers(0, 1 << 20), min_size=m, max_size=m)
    src, dst, kind, ent = (np.array(draw(ints), np.int64) % k for k in (n, n, len(KINDS), terrains + 1))
    keys = np.unique((((src << nb | dst) << kb | kind) << tb) | ent)
    names = tuple(f"t{k}" for k in range(terrains))
    return _compile(np.array([f"n{k}" for k in range(n)]), np.zeros(n, np.int8), np.zeros(n, np.int32), keys, n,
                    names, np.zeros(len(MAP_ERROR_CODES), np.int64))


def cost_table(draw, terrains: int, costs) -> CostTable:
    """A random actor's cost table over ``terrains``, each cost drawn from ``costs``."""
    size = len(KINDS) * (terrains + 1)
    return CostTable(np.array(draw(st.lists(costs, min_size=size, max_size=size)), float).reshape(len(KINDS), -1))


@st.composite
def hub_graphs(draw, max_extra: int = 8):
    """A CSR ``(n, src, dst, costs, budget)`` where two nodes of one bucket of the forbid search get cheaper in
    turn through a zero-cost hub, and a node further on is settled only if the bucket's list survived that.

    The source steps to ``x`` and then ``y`` at one cost ``c`` (both in one bucket, ``y`` at its head and ``x``
    after it), for free to a hub, and to ``w`` at a dearer cost; the hub steps to ``y`` and then ``x`` for less
    than ``c`` (the head taken out, then the node after it) and ``w`` on to ``z``.  The nodes are numbered at
    random among up to ``max_extra`` others, and random edges follow each node's own: they may change the
    keys, never the answer the general search gives.  Random graphs never draw this (issue 44).
    """
    budget = draw(st.integers(2, 8))
    c = draw(st.integers(1, budget - 1))
    extra = draw(st.integers(0, max_extra))
    n = 6 + extra
    s, x, y, hub, w, z = draw(st.permutations(range(n)))[:6]
    edges = [(s, x, c), (s, y, c), (s, hub, 0), (s, w, draw(st.integers(c + 1, budget))),
             (hub, y, draw(st.integers(0, c - 1))), (hub, x, draw(st.integers(0, c - 1))),
             (w, z, draw(st.integers(0, budget)))]
    nodes = st.integers(0, n - 1)
    edges += draw(st.lists(st.tuples(nodes, nodes, st.integers(0, budget + 1)), max_size=2 * extra))
    edges.sort(key=lambda e: e[0])  # (stable: each node's edges in the order drawn, the gadget's first)
    src, dst, cost = (np.array(col, np.int64) for col in zip(*edges, strict=True))
    return n, src, dst, cost, budget, s
