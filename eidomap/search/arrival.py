"""Arrival distributions under the dice: P(arrived by turn k) and expected turns.

Both depend only on the budget distribution (:func:`eidomap.rules.dice.budget_pmf`)
and a node's arrival threshold (:func:`eidomap.search.weighted.node_thresholds`):
the actor has arrived by turn k when the budgets of its first k turns add up to
the threshold.  Both come from the law of that sum, turn by turn, held only
where it is still below the largest threshold asked and past its exact zeros
(:func:`_sums`): memory and time grow with the spread of the dice and the turns
it takes, never with a VMv, a modifier or a cost -- and the work is bounded by
:data:`MAX_DICE_WORK` before it is done.

>>> from eidomap.rules.dice import Dice, budget_pmf
>>> pmf = budget_pmf(Dice.parse("1d6"), vmv=0)
>>> round(float(expected_turns(pmf, [7])[0]), 6)  # E[turns until 1d6 rolls add up to 7]
2.521626
>>> arrival_cdf(pmf, [7], 3)[:, 0].round(4).tolist()  # P(by turn 1, 2, 3)
[0.0, 0.5833, 0.9074]
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from eidomap.base.errors import RequestError

#: Most work of one distribution: sums held x (budgets + a few) over every turn (a few seconds here).
MAX_DICE_WORK = 4_000_000_000
#: Most cells of the table of P(S_k >= t) :func:`arrival_cdf` keeps for one dice and range of thresholds (32 MB).
TABLE_CELLS = 4_000_000
#: Below this share of what has arrived, what has not cannot change a double any more (half an ulp of 1).
_NEGLIGIBLE = 2.0**-54


def counted(law: np.ndarray) -> np.ndarray:
    """A law of the budget as whole counts of equally likely rolls, where the dice's faces can be counted; else
    the law itself.

    They can when every value is a whole multiple of the least likely one (to a relative ``1e-9``: the law of
    ``NdM`` is made by convolving ``1/M``) and the counts are fewer than ``2**20`` in all.  Sums and ratios of
    counts are then exact while a double holds them: a tie such as P(3d6 >= 11) = 1/2, or a certainty, comes out
    as exactly 1/2 or 1, where the law's own values (six sixths add up to 0.9999999999999999) would not.

    >>> counted(np.array([1 / 6] * 6)).tolist(), counted(np.array([0.25, 0.0, 0.75])).tolist()
    ([1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 3.0])
    >>> counted(np.array([0.3, 0.7])).tolist()  # 0.7 is no whole number of 0.3s
    [0.3, 0.7]
    """
    least = law[law > 0].min()
    counts = np.round(law / least)
    if np.allclose(counts * least, law, rtol=1e-9, atol=0) and counts.sum() < 2**20:
        return counts
    return law


def _sums(budget: np.ndarray, top: int, turns: int | None) -> Iterator[tuple[int, np.ndarray, float, float]]:
    """The law of S_k, the sum of k budgets, for k = 1, 2, ... (``turns`` of them, or until it is all past ``top``).

    Yields ``(off, p, over, total)``: ``p[i] / total = P(S_k = off + i)`` for
    the sums up to ``top`` that can still happen (exact zeros at both ends
    dropped) and ``over / total = P(S_k > top)``.  While the dice's faces can
    be counted (:func:`counted`), ``p`` and ``over`` count roll sequences and stay exact as long as a double holds
    them: a tie such as P(3d6 >= 11) = 1/2 comes out as exactly 1/2.  Raises
    :class:`RequestError`, before the work, when it would go past
    :data:`MAX_DICE_WORK`.
    """
    faces = np.flatnonzero(budget)
    lo, hi = int(faces[0]), int(faces[-1])
    kernel = counted(budget[lo : hi + 1])
    off, p, over, total, work = 0, np.ones(1), 0.0, 1.0, 0
    k = 0
    while turns is None or k < turns:
        k += 1
        work += (len(p) + 8) * (len(kernel) + 8)
        if work > MAX_DICE_WORK:
            raise RequestError(f"the arrival distribution for budgets of {lo} to {hi} PtMv a turn, over sums up to"
                               f" {top:,} PtMv, needs more than {MAX_DICE_WORK:,} steps (past turn {k}): ask fewer"
                               " turns, a nearer goal or dice of fewer faces")
        grown = np.convolve(p, kernel)
        scale = float(kernel.sum())  # (1 but for rounding, unless counting: each sequence goes on every way)
        total, over = total * scale, over * scale
        if total > 1e200:  # counted past what a double holds: kept as probabilities from here on
            grown, over, total = grown / total, over / total, 1.0
        off += lo
        keep = max(0, min(len(grown), top + 1 - off))  # sums above top go to `over`
        over += float(grown[keep:].sum())
        nz = np.flatnonzero(grown[:keep])
        p = grown[nz[0] : nz[-1] + 1] if len(nz) else grown[:0]
        off += int(nz[0]) if len(nz) else 0
        yield off, p, over, total
        if not len(p):
            return


def _tails(off: int, p: np.ndarray, over: float, thresholds: np.ndarray) -> np.ndarray:
    """P(S_k >= t) for each threshold ``t`` (at most ``top``) from one law of :func:`_sums`.

    Both tails are summed directly and normalised (``p`` and ``over`` may be
    counts), so a probability that is exactly 0 or 1 comes out as 0 or 1.
    """
    at = np.clip(thresholds - off, 0, len(p)).astype(np.intp)
    below = np.r_[0.0, np.cumsum(p)][at]
    tail = np.r_[np.cumsum(p[::-1])[::-1], 0.0][at] + over
    return tail / (tail + below)


def _top(budget: np.ndarray, thresholds: np.ndarray, turns: int) -> tuple[np.ndarray, int]:
    """The thresholds some sum of ``turns`` budgets can reach (a mask), and the largest of them."""
    reachable = thresholds <= turns * np.flatnonzero(budget)[-1]  # the most ``turns`` budgets can add up to
    return reachable, int(thresholds[reachable].max(initial=0))


def arrival_cdf(budget: np.ndarray, thresholds: npt.ArrayLike, turns: int) -> np.ndarray:
    """P(the budgets of the first k turns add up to at least each threshold), k = 1 .. ``turns``.

    Returns an array of shape ``(turns, len(thresholds))``: row ``k - 1`` is
    P(S_k >= threshold) where S_k is the sum of k independent budgets drawn
    from ``budget``.  A threshold of 0 is met at once (probability 1); one no
    ``turns`` budgets can reach (infinity among them) never.

    While the table of P(S_k >= t) for every t up to the largest threshold
    and every k holds at most :data:`TABLE_CELLS` cells, it is made once for
    the dice and that range (and kept: an analyst's batch, a heat map per
    species ask again) and each threshold's row is gathered from it; past
    that, each turn's law is read at the thresholds as it is made.  The two
    give the same numbers (:func:`_tails` on the same laws).
    """
    thresholds = np.asarray(thresholds, dtype=float)
    budget = np.asarray(budget, dtype=float)
    reachable, top = _top(budget, thresholds, turns)
    if (top + 2) * turns <= TABLE_CELLS:
        rows = np.clip(thresholds, 0, top + 1).astype(np.intp)  # past top: not reachable, the last row (never)
        # whole rows gathered (np.take: a third of fancy indexing's time on rows), then seen turn by turn
        return np.take(_tail_table(budget.tobytes(), top, turns), rows, axis=0).T
    out = np.zeros((turns, len(thresholds)))
    out[:, reachable] = _tail_rows(budget, thresholds[reachable], top, turns)
    return out


def _tail_rows(budget: np.ndarray, t: np.ndarray, top: int, turns: int) -> np.ndarray:
    """P(S_k >= t) for thresholds ``t`` (none above ``top``), a row per k = 1 .. ``turns``."""
    out = np.zeros((turns, len(t)))
    for k, (off, p, over, _) in enumerate(_sums(budget, top, turns), start=1):
        row = _tails(off, p, over, t)
        out[k - 1] = row
        if (row == 1.0).all() or (over > 0 and p.sum() < _NEGLIGIBLE * over):  # every later row is all 1
            out[k:] = 1.0
            break
    return out


@lru_cache(maxsize=64)
def _tail_table(budget_bytes: bytes, top: int, turns: int) -> np.ndarray:
    """P(S_k >= t), a row per t = 0 .. ``top`` (then a row of 0 for "never"), a column per k = 1 .. ``turns``."""
    table = np.zeros((top + 2, turns))
    table[: top + 1] = _tail_rows(np.frombuffer(budget_bytes, dtype=float), np.arange(top + 1.0), top, turns).T
    table.flags.writeable = False
    return table


def arrival_within(budget: np.ndarray, thresholds: npt.ArrayLike, turns: int) -> np.ndarray:
    """The last row of :func:`arrival_cdf` alone: P(S_turns >= each threshold), without the rows before it."""
    thresholds = np.asarray(thresholds, dtype=float)
    budget = np.asarray(budget, dtype=float)
    out = np.zeros(len(thresholds))
    reachable, top = _top(budget, thresholds, turns)
    for off, p, over, _ in _sums(budget, top, turns):
        if over > 0 and p.sum() < _NEGLIGIBLE * over:
            out[reachable] = 1.0
            return out
        last = off, p, over
    out[reachable] = _tails(*last, thresholds[reachable])
    return out


def expected_turns(budget: np.ndarray, thresholds: npt.ArrayLike) -> np.ndarray:
    """E[first k with S_k >= t] for each threshold t: ``sum_{k >= 0} P(S_k < t)``.

    Budgets of 0 are conditioned out (each turn that moves comes after a
    geometric number of turns that do not: E = E[moving turns] / (1 - P(0)));
    every moving turn adds a point at least, so the sum ends, and it is
    stopped once what is left of it is below the rounding of the total.
    ``inf`` when no budget is ever positive; 0 for a threshold of 0 or less.
    """
    thresholds = np.asarray(thresholds, dtype=float)
    budget = np.asarray(budget, dtype=float)
    out = np.where(np.isfinite(thresholds), 0.0, np.inf)
    positive = (thresholds > 0) & np.isfinite(thresholds)
    p0 = float(budget[0])
    moving = budget[1:].sum()
    if not moving > 0:
        out[positive] = np.inf
        return out
    t = thresholds[positive]
    top = int(t.max(initial=0))
    step = np.r_[0.0, budget[1:] / moving]
    least = int(np.flatnonzero(step)[0])
    # many thresholds: P(S_k < t) for every t up to top at once, added up where it changes (O(sums held) a turn)
    dense = 4 * len(t) >= top
    total = np.ones(top + 2 if dense else len(t))  # k = 0: nothing rolled yet, below every positive threshold
    after = np.zeros(top + 2 if dense else 0)  # dense: what each turn adds to every threshold past its sums
    for off, p, _, mass in _sums(step, top - 1, None):
        cum = np.cumsum(p) / mass
        if dense:
            total[off + 1 : off + len(p) + 1] += cum
            if len(p):
                after[off + len(p) + 1] += cum[-1]
        else:
            total += np.r_[0.0, cum][np.clip(t - off, 0, len(p)).astype(np.intp)]
        # each later moving turn adds `least` at least: what is left of the sum is below the rounding of it (>= 1)
        if not len(p) or cum[-1] * -(-(top - off) // least) < _NEGLIGIBLE:
            break
    total = (total + np.cumsum(after))[t.astype(np.intp)] if dense else total
    out[positive] = total / (1.0 - p0) if p0 > 0 else total
    return out


def expected_turns_table(budget: np.ndarray, top: int) -> np.ndarray:
    """:func:`expected_turns` for every threshold t = 0 .. ``top``.

    The table is kept for the next question with the same dice.
    """
    return _table(np.asarray(budget, dtype=float).tobytes(), int(top))


@lru_cache(maxsize=64)
def _table(budget_bytes: bytes, top: int) -> np.ndarray:
    m = expected_turns(np.frombuffer(budget_bytes, dtype=float), np.arange(top + 1))
    m.flags.writeable = False
    return m
