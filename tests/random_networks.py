"""Random graphs for the search oracles: CSRs with a cost table by code, and compiled networks.

Shared by tests/search (Dial's buckets against SciPy, the forbid search
against the general turn search).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from eidomap.graph import KINDS, MAP_ERROR_CODES, CostTable, Network, _compile, _key_bits


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
