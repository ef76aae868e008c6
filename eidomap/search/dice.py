"""Arrival distributions under the dice: P(arrived by turn k) and expected turns.

Both depend only on the budget distribution (:func:`eidomap.rules.dice.budget_pmf`)
and a node's arrival threshold (:func:`eidomap.search.weighted.node_thresholds`).

>>> from eidomap.rules.dice import Dice, budget_pmf
>>> pmf = budget_pmf(Dice.parse("1d6"), vmv=0)
>>> round(float(expected_turns_table(pmf, 7)[7]), 6)  # E[turns until 1d6 rolls add up to 7]
2.521626
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["arrival_cdf", "expected_turns_table"]


def arrival_cdf(budget: np.ndarray, thresholds: np.ndarray, turns: int) -> np.ndarray:
    """P(the budgets of the first k turns add up to at least each threshold).

    Returns an array of shape ``(turns, len(thresholds))``: row ``k - 1`` is
    P(S_k >= threshold) where S_k is the sum of k independent budgets drawn
    from ``budget``.  A threshold of 0 is met at once (probability 1); an
    infinite one never.  Both tails are summed directly and normalised, so a
    probability that is exactly 0 or 1 comes out as 0 or 1.
    """
    thresholds = np.asarray(thresholds, dtype=float)
    budget = np.asarray(budget, dtype=float)
    cap = turns * (len(budget) - 1) + 1  # the budgets of k <= turns turns add up to less: row cap is all 0
    rows = np.minimum(thresholds, cap)  # infinity and every threshold above cap share it
    table = _reach_table(budget.tobytes(), int(rows.max(initial=0)), turns)
    # whole rows gathered (np.take: a third of fancy indexing's time on rows), then seen turn by turn
    return np.take(table, rows.astype(np.intp), axis=0).T


@lru_cache(maxsize=64)
def _reach_table(budget_bytes: bytes, top: int, turns: int) -> np.ndarray:
    """P(S_k >= t), a row per t = 0..top+1 (then a row of 0 for "never"), a column per k = 1..turns.

    Depends only on the dice and the range of thresholds, so repeated
    questions (an analyst's batch, a heatmap per species) reuse it.
    """
    budget = np.frombuffer(budget_bytes, dtype=float)
    table = np.zeros((top + 3, turns))
    s = np.zeros(top + 2)  # pmf of S_k over 0..top, and everything above top in the last bin
    s[0] = 1.0
    for k in range(turns):
        grown = np.convolve(s[:-1], budget)
        over = s[-1] + grown[top + 1 :].sum()
        s = np.r_[grown[: top + 1], np.zeros(max(0, top + 1 - len(grown))), over]
        tail = np.cumsum(s[::-1])[::-1]  # tail[t] = P(S_k >= t)
        below = np.cumsum(s)[: top + 2] - s[: top + 2]  # below[t] = P(S_k < t)
        table[: top + 2, k] = tail / (tail + below)
    np.clip(table, 0.0, 1.0, out=table)
    table.flags.writeable = False
    return table


def expected_turns_table(budget: np.ndarray, top: int) -> np.ndarray:
    """E[first k with S_k >= t] for every threshold t = 0 .. top.

    ``E = sum_{k >= 0} P(S_k < t)``; the renewal recursion
    ``m(t) = 1 + sum_b P(b) m(t - b)`` (with ``m(t) = 0`` for ``t <= 0``) gives all
    thresholds at once.  Budgets of 0 are handled by conditioning them out.
    The table is kept for the next question with the same dice.
    """
    return _renewal(np.asarray(budget, dtype=float).tobytes(), int(top))


@lru_cache(maxsize=64)
def _renewal(budget_bytes: bytes, top: int) -> np.ndarray:
    budget = np.frombuffer(budget_bytes, dtype=float)
    p0 = budget[0]
    if p0 >= 1.0:
        m = np.r_[0.0, np.full(top, np.inf)]
    else:
        m = np.zeros(top + 1)
        b = np.arange(1, len(budget))
        pb = budget[1:]
        for t in range(1, top + 1):
            m[t] = (1.0 + np.dot(pb, m[np.maximum(t - b, 0)])) / (1.0 - p0)
    m.flags.writeable = False
    return m
