"""The vectorised answers for a block of (start, target) pairs: one call, no loop over pairs.

Shared by :mod:`eidomap.answers.analysis` (in memory) and the batch's workers, so
that both give the same numbers.  Under the debt rule a block is one
multi-source Dijkstra, the arrival thresholds on the edges into the targets,
then table look-ups (:func:`carry_block`); under ``forbid`` it is one policy
solve per target (:func:`forbid_block`).

>>> import eidomap
>>> from eidomap.rules.dice import budget_pmf
>>> from eidomap.rules.eido import actor
>>> m = eidomap.load(eidomap.demo_map_path())
>>> a = actor(m.catalog, "human")
>>> s, t = m.index("bouza-vella"), m.index("porto-norte")
>>> b = carry_block(m.network, a.costs, budget_pmf(a.dice, a.vmv), [s], [s, t], turns=2)
>>> b.cost.tolist(), b.expected.round(4).tolist()
([[0.0, 6.0]], [[0.0, 2.1614]])
>>> b.p.shape  # (turns, starts, targets)
(2, 1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from eidomap.model.network import CostTable
from eidomap.search.arrival import arrival_cdf, expected_turns_table
from eidomap.search.policy import forbid_reach_by_turn, policy_values, within_turn_pairs
from eidomap.search.weighted import backward_thresholds, dijkstra, entry_offsets, node_thresholds

if TYPE_CHECKING:
    from eidomap.model.network import Network


@dataclass
class Block:
    """Answers for ``starts x targets``: arrays of shape ``(len(starts), len(targets))``.

    ``cost`` is the least PtMv (``inf`` when no way), ``expected`` the expected
    turns (0 from a node to itself, ``inf`` when unreachable) and ``p[k - 1]``
    P(arrived within k turns).
    """

    cost: np.ndarray
    expected: np.ndarray
    p: np.ndarray

    @property
    def reachable(self) -> np.ndarray:
        return np.isfinite(self.expected)


def _same(starts: np.ndarray, targets: np.ndarray) -> np.ndarray:
    return starts[:, None] == targets[None, :]


def carry_block(net: Network, table: CostTable, pmf: np.ndarray, starts: np.ndarray, targets: np.ndarray,
                turns: int,
                offsets: np.ndarray | None = None, backward: bool = False) -> Block:
    """Under the debt rule: least PtMv, expected turns and P(within k) from each start to each target.

    ``table`` is the actor's PtMv (:attr:`~eidomap.rules.eido.Actor.costs`), ``pmf`` its budget
    distribution; ``offsets`` its :func:`~eidomap.search.weighted.entry_offsets`
    when already at hand.  Memory: ``len(starts) x nodes`` distances at once;
    ``backward`` searches from the targets instead (and the nodes just before
    them, :func:`~eidomap.search.weighted.backward_thresholds`): for few targets.
    """
    starts = np.asarray(starts, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    if offsets is None:
        offsets = entry_offsets(table, net)
    if backward:
        theta, cost = backward_thresholds(net, table, starts, offsets, targets)
    else:
        dist = np.atleast_2d(dijkstra(net, table, starts))
        theta, cost = node_thresholds(net, dist, starts, offsets, targets=targets), dist[:, targets]
    finite = np.isfinite(theta)
    top = int(theta[finite].max()) if finite.any() else 0
    expected = np.full(theta.shape, np.inf)
    expected[finite] = np.maximum(expected_turns_table(pmf, top)[theta[finite].astype(np.int64)], 1.0)
    expected[_same(starts, targets)] = 0.0
    p = arrival_cdf(pmf, theta.ravel(), turns).reshape(turns, *theta.shape) if turns else np.empty((0, *theta.shape))
    return Block(cost, expected, p)


def forbid_block(net: Network, w: np.ndarray, pmf: np.ndarray, starts: np.ndarray, targets: np.ndarray, turns: int,
                 pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> Block:
    """Under ``forbid``: the same answers, from the optimal roll-by-roll play.

    ``w`` are the payable edge weights (:func:`eidomap.answers.routing.plan_weights`);
    ``pairs`` the :func:`~eidomap.search.policy.within_turn_pairs` of ``w``
    when already computed.  Costs one policy solve per target (every start at
    once) and the finite-horizon programme for all targets together: meant for
    maps up to :data:`~eidomap.search.policy.MAX_POLICY_NODES` nodes.
    """
    starts = np.asarray(starts, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    budgets = np.flatnonzero(pmf)
    if pairs is None:
        pairs = within_turn_pairs(net, w, float(budgets[-1]))
    probs = pmf[budgets]
    values = [policy_values(net, w, g, budgets.astype(float), probs, pairs=pairs)[0][starts] for g in targets]
    expected = np.column_stack(values) if len(targets) else np.empty((len(starts), 0))
    expected[_same(starts, targets)] = 0.0
    from scipy.sparse.csgraph import dijkstra as csgraph_dijkstra

    # the least PtMv to each target: one search per target on the reversed graph
    cost = csgraph_dijkstra(net.csr(w).T, directed=True, indices=targets).T[starts] if len(targets) else expected.copy()
    p = forbid_reach_by_turn(net, w, starts, targets, budgets.astype(float), probs, turns, pairs=pairs)
    return Block(np.atleast_2d(cost), expected, p)
