"""Workload 4: P(arrived within k turns) for every Eido, k = 1..20, under the dice.

eidomap: the arrival thresholds of every node from one Dijkstra
(:func:`eidomap.search.weighted.node_thresholds`, with :func:`~eidomap.search.weighted.entry_offsets`), then
:func:`eidomap.search.arrival.arrival_cdf` for 20 turns -- timed against one
csgraph Dijkstra on the same CSR (the bar: at most half of it).  The peer for
agreement is a Monte-Carlo estimate on a few Eidos (:func:`monte_carlo`): roll
the dice, find the earliest turn in each Eido with a plain Python label search
under the debt rule (:func:`arrival_turns`, written here from the rules), and
compare the frequencies with eidomap's probabilities within sampling error.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from .harness import Config, Context, Row, timed

__all__ = ["TURNS", "arrival_turns", "monte_carlo", "pick_targets", "run", "sizes"]

#: Turns of the arrival distribution.
TURNS = 20
#: Standard errors a Monte-Carlo frequency may be away from eidomap's probability.
Z = 4.5


def sizes(cfg: Config) -> list[int]:
    return list(cfg.sizes)


def _samples(cfg: Config) -> int:
    return {"full": 1000, "quick": 300, "smoke": 100}[cfg.mode]


def arrival_turns(indptr, dst, w, source: int, budgets, targets) -> dict[int, int]:
    """Earliest turn the actor is in each target with these per-turn budgets (debt rule).

    Plain Python, from the rules: a step of cost ``c`` is taken at once when the
    points left cover it; otherwise, if some points are left, they are all
    spent and the rest is owed, paid first out of the next rolls (the actor is
    in the new Eido from the turn the step starts); with no points left it
    waits for the next turn.  Unused points are lost at the end of a turn.
    Labels ``(turn free of debt, points left)`` are settled earliest first; a
    step taken from a label of turn ``t`` starts in turn ``t`` or later, which
    bounds the search.  Targets not reached within ``len(budgets)`` turns are
    left out.
    """
    budgets = [float(b) for b in budgets]
    horizon = len(budgets)
    want = set(targets)
    arrive: dict[int, int] = {}
    best: dict[int, tuple[int, float]] = {source: (1, budgets[0])}
    heap = [(1, -budgets[0], source)]
    done = set()
    while heap:
        t, negp, u = heapq.heappop(heap)
        if t > horizon or (len(arrive) == len(want) and max(arrive.values()) <= t):
            break  # every later step starts in turn t or after
        if u in done:
            continue
        done.add(u)
        p = -negp
        for e in range(indptr[u], indptr[u + 1]):
            c, v = w[e], dst[e]
            if v in done or c == math.inf:
                continue
            start, free, rest = _step(t, p, c, budgets)
            if start < 0:
                continue
            if v in want and (v not in arrive or start < arrive[v]):
                arrive[v] = start
            if free > 0 and (v not in best or free < best[v][0] or (free == best[v][0] and rest > best[v][1])):
                best[v] = (free, rest)
                heapq.heappush(heap, (free, -rest, v))
    return {v: k for v, k in arrive.items() if k <= horizon}


def _step(t: int, p: float, c: float, budgets: list[float]) -> tuple[int, int, float]:
    """(turn the step starts, turn it is paid off, points left then); -1 when beyond the budgets."""
    if c <= p:
        return t, t, p - c
    start, owed = (t, c - p) if p > 0 else (-1, c)
    while True:
        t += 1
        if t > len(budgets):
            return start, -1, 0.0
        b = budgets[t - 1]
        if start < 0:
            if b >= c:
                return t, t, b - c
            if b > 0:
                start, owed = t, c - b
        elif b >= owed:
            return start, t, b - owed
        else:
            owed -= b


def pick_targets(theta: np.ndarray, low: float, high: float, k: int = 6) -> np.ndarray:
    """``k`` Eidos whose thresholds are spread between ``low`` and ``high``."""
    out = []
    for goal in np.linspace(low, high, k):
        order = np.argsort(np.abs(theta - goal), kind="stable")
        pick = next(int(i) for i in order if int(i) not in out)
        out.append(pick)
    return np.array(out)


def monte_carlo(net, w, source: int, targets, dice, vmv: int, samples: int, seed: int = 7) -> np.ndarray:
    """Frequency of having arrived in each target by turn k (rows k = 1..TURNS)."""
    rng = np.random.default_rng(seed)
    indptr, dst, wl = net.indptr.tolist(), net.dst.tolist(), w.tolist()
    hits = np.zeros((TURNS, len(targets)))
    for _ in range(samples):
        rolls = sum(rng.integers(1, dice.sides + 1, size=(dice.n, TURNS))) + dice.plus
        budgets = np.maximum(rolls + vmv, 0)
        arrive = arrival_turns(indptr, dst, wl, source, budgets, [int(t) for t in targets])
        for j, tgt in enumerate(targets):
            k = arrive.get(int(tgt))
            if k is not None:
                hits[max(k, 1) - 1 :, j] += 1
    return hits / samples


def run(ctx: Context, n: int) -> None:
    from scipy.sparse.csgraph import dijkstra as csgraph_dijkstra

    from eidomap.rules.dice import budget_pmf
    from eidomap.rules.eido import actor
    from eidomap.search.arrival import arrival_cdf
    from eidomap.search.weighted import dijkstra, entry_offsets, node_thresholds

    cfg, rep = ctx.cfg, ctx.report
    m = ctx.map(n)
    net = m.network
    a = actor(m.catalog, "human")
    w = a.weights(net)
    s = m.index(ctx.map_file(n).start)
    n_e = len(m.eido_ids)
    pmf = budget_pmf(a.dice, a.vmv)
    dist = dijkstra(net, w, s)

    def dice_pass():  # as eidomap.answers.routing.reach does it, from the Dijkstra's costs on
        theta = node_thresholds(net, dist, s, entry_offsets(a.table, net))[:n_e]
        return theta, arrival_cdf(pmf, theta, TURNS)

    mine = timed(dice_pass, cfg)
    theta, cdf = mine.value
    csr = net.csr(w)
    cs = timed(lambda: csgraph_dijkstra(csr, directed=True, indices=s), cfg)
    # the peer: Monte Carlo on a few Eidos whose arrival falls within the 20 turns
    mean = float(np.dot(np.arange(len(pmf)), pmf))
    targets = pick_targets(np.where(np.arange(n_e) == s, np.inf, theta), 2, mean * TURNS * 0.9)
    samples = _samples(cfg)
    freq = monte_carlo(net, w, s, targets, a.dice, a.vmv, samples)
    p = cdf[:, targets]
    se = np.sqrt(np.maximum(p * (1 - p), 0.25 / samples) / samples)
    gap = np.abs(freq - p) / se
    agree = bool(np.all(gap <= Z))
    detail = (f"Monte Carlo on {len(targets)} Eidos (thresholds {', '.join(f'{t:g}' for t in theta[targets])}),"
              f" {samples} rolls each: max {gap.max():.2f} standard errors off")
    rep.add(Row("dice reachability", n, f"P(arrived within k), k = 1..{TURNS}, every Eido", mine.seconds,
                "scipy csgraph, 1 Dijkstra", cs.seconds, 0.5, "≤ 0.5", agree, detail, runs=len(mine.runs),
                extra={"targets": targets.tolist(), "max_gap_se": float(gap.max())}))
