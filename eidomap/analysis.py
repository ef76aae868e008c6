"""Analyst's questions across many places and species (under the dice; debt rule or forbid).

* :func:`expected_turns_matrix` -- expected turns between every pair of places,
  from one multi-source Dijkstra and a table of the dice's renewal function;
* :func:`race` -- the chance that one actor arrives before another;
* :func:`bottlenecks` -- Eidos that many cheapest routes pass through.

>>> import numpy as np
>>> race(np.array([0.5, 1.0]), np.array([0.0, 1.0]))  # A: turn 1 or 2, B: turn 2
(0.5, 0.5, 0.0)
"""

from __future__ import annotations

import numpy as np

from .batch.kernels import carry_block, forbid_block
from .routing import plan_weights, resolve_actor
from .rules.dice import budget_pmf
from .search.turns import check_partial
from .search.weighted import entry_offsets

__all__ = ["BATCH_CELLS", "bottlenecks", "expected_turns_matrix", "race"]

#: Distances held at once by :func:`expected_turns_matrix` (sources x nodes).
BATCH_CELLS = 50_000_000


def expected_turns_matrix(m, places, who="human", partial: str = "carry") -> np.ndarray:
    """Expected turns to arrive from each place (rows) to each place (columns).

    Under the actor's dice; ``inf`` where unreachable, 0 on the diagonal.
    Under the debt rule: multi-source Dijkstra, then vectorised look-ups on
    the edges into the places only: no per-pair search.  Sources go in batches
    so that no more than about :data:`BATCH_CELLS` distances are held at once.
    Under ``forbid``: the optimal roll-by-roll play's value from every node,
    one solve per target place (maps up to a few thousand nodes).
    The kernels are those of ``eidomap batch`` (:mod:`eidomap.batch.kernels`).
    """
    a = resolve_actor(m, who)
    net = m.network
    idx = np.array([m.index(p) for p in places], dtype=np.int64)
    pmf = budget_pmf(a.dice, a.vmv)
    if not check_partial(partial):
        return forbid_block(net, plan_weights(m, a, carry=False), pmf, idx, idx, 0).expected
    offsets = entry_offsets(a.table, net)
    step = max(1, BATCH_CELLS // max(net.n_nodes, 1))
    blocks = [carry_block(net, a.table, pmf, idx[k : k + step], idx, 0, offsets).expected
              for k in range(0, len(idx), step)]
    return np.vstack(blocks) if blocks else np.empty((0, 0))


def race(p_a: np.ndarray, p_b: np.ndarray) -> tuple[float, float, float]:
    """P(A arrives first), P(same turn), P(B first), from two ``P(arrived by turn k)``.

    The two actors roll independently.  A distribution shorter than the other
    is extended with its last value (an actor that never arrives has 0s).
    """
    n = max(len(p_a), len(p_b))
    cdf_a = np.r_[0.0, np.pad(p_a, (0, n - len(p_a)), mode="edge") if len(p_a) else np.zeros(n)]
    cdf_b = np.r_[0.0, np.pad(p_b, (0, n - len(p_b)), mode="edge") if len(p_b) else np.zeros(n)]
    pa, pb = np.diff(cdf_a), np.diff(cdf_b)  # P(T = k), k = 1..n
    first_a = float(np.sum(pa * (1.0 - cdf_b[1:])))
    tie = float(np.sum(pa * pb))
    first_b = float(np.sum(pb * (1.0 - cdf_a[1:])))
    return first_a, tie, first_b


def bottlenecks(m, who="human", top: int = 10, partial: str = "carry") -> list[tuple[str, float]]:
    """The Eidos with the highest betweenness on the actor's cost-weighted graph.

    Uses NetworkX's ``betweenness_centrality`` over the cheapest pair weights
    (impassable steps removed, and under ``forbid`` the steps no roll can pay).
    """
    import networkx as nx

    a = resolve_actor(m, who)
    net = m.network
    coo = net.csr(plan_weights(m, a, check_partial(partial))).tocoo()
    ok = np.isfinite(coo.data)
    g = nx.DiGraph()
    g.add_nodes_from(range(net.n_nodes))
    g.add_weighted_edges_from(zip(coo.row[ok].tolist(), coo.col[ok].tolist(), coo.data[ok].tolist(), strict=True))
    score = nx.betweenness_centrality(g, weight="weight")
    n_e = len(m.eido_ids)
    ranked = sorted(((score[k], m.eido_ids[k]) for k in range(n_e)), reverse=True)[:top]
    return [(eid, s) for s, eid in ranked]
