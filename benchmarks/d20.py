"""Workload *d20*: ``eidomap.d20.route`` on a battle grid, corner to corner.

A square grid (1,000 x 1,000 in a full run) with 10 % impassable squares and
20 % hampered ones (difficult terrain, an obstacle or poor visibility, one
each), speed 30, move actions, from the top-left to the bottom-right corner:
the fewest rounds, then the fewest feet, under the 3.5 rules (5-10-5
diagonals, the round budget, hampered squares, the full-round move) -- the
CSR over squares x diagonal parity built and searched, all timed.  Peers:

* one SciPy csgraph Dijkstra over the same grid's 8-neighbour CSR (the cost
  of entering each square, diagonals at their cheaper count), built outside
  the timing; its distance is a lower bound of eidomap's route (checked);
* the PyPI ``pathfinding`` package's Dijkstra on the same grid (weights = the
  cost of entering a square, diagonals not past a wall's corner) -- it ignores
  the round rules; both must find a way.
"""

from __future__ import annotations

import time

import numpy as np

from .harness import Config, Context, Row, missing, timed

__all__ = ["battle_grid", "run", "sizes"]

#: Side of the grid by mode.
SIDES = {"full": 1000, "quick": 200, "smoke": 40}


def sizes(cfg: Config) -> list[None]:
    return [None]


def battle_grid(side: int, seed: int) -> np.ndarray:
    """Per-square flags: 10 % impassable, 20 % hampered by one condition; the corners clear."""
    from eidomap.rules.d20.grid import DIFFICULT, IMPASSABLE, OBSTACLE, POOR_VISIBILITY

    rng = np.random.default_rng(seed)
    u = rng.random((side, side))
    flags = np.where(u < 0.1, IMPASSABLE, 0)
    hampered = (u >= 0.1) & (u < 0.3)
    flags[hampered] = rng.choice([DIFFICULT, OBSTACLE, POOR_VISIBILITY], size=int(hampered.sum()))
    flags[0, 0] = flags[-1, -1] = 0
    return flags.astype(np.uint8)


def _csgraph(net):
    """The 8-neighbour CSR of the grid (parity-0 rows of eidomap's CSR: the cheaper diagonal count)."""
    from scipy.sparse import csr_matrix

    lens = net.indptr[1::2] - net.indptr[0:-1:2]
    first = np.repeat(net.indptr[0:-1:2], lens)
    idx = first + np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
    n = len(net.can_end)
    rows = np.repeat(np.arange(n), lens)
    return csr_matrix((net.cost[idx].astype(float), (rows, net.dst[idx] // 2)), shape=(n, n))


def _pathfinding(flags: np.ndarray, mult: np.ndarray, cfg: Config):
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.core.grid import Grid
    from pathfinding.finder.dijkstra import DijkstraFinder

    side = flags.shape[0]
    matrix = mult.reshape(side, side).tolist()  # 0: impassable

    def solve():
        grid = Grid(matrix=matrix)
        finder = DijkstraFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle)
        path, _ = finder.find_path(grid.node(0, 0), grid.node(side - 1, side - 1), grid)
        return path

    return timed(solve, cfg, warmup=False, runs=1)


def run(ctx: Context, n: None) -> None:
    from scipy.sparse.csgraph import dijkstra

    from eidomap.d20 import grid_from_array, route
    from eidomap.rules.d20.tactical import compile_grid
    from eidomap.search import _compiled

    cfg, rep = ctx.cfg, ctx.report
    side = SIDES[cfg.mode]
    flags = battle_grid(side, cfg.seed)
    grid = grid_from_array(flags)
    route(grid_from_array(flags[:8, :8]), (0, 0), (7, 7), 30, compiled=True)  # numba's cache loaded
    goal = (side - 1, side - 1)
    mine = timed(lambda: route(grid, (0, 0), goal, 30, compiled=True), cfg)
    r = mine.value
    net = compile_grid(grid, kernel=_compiled.step_arrays)
    csr = _csgraph(net)
    cs = timed(lambda: dijkstra(csr, directed=True, indices=0), cfg)
    low = float(cs.value[-1])
    agree = r.reachable and np.isfinite(low) and low <= r.feet / 5
    case = f"{side:,} x {side:,} squares, speed 30, corner to corner"
    detail = f"{r.rounds} rounds, {r.feet} ft; csgraph's lower bound {low:g} squares"
    rep.add(Row("d20 route", side * side, case, mine.seconds, "scipy csgraph, 1 Dijkstra (8-neighbour CSR)",
                cs.seconds, 3.0, "≤ 3", bool(agree), detail, runs=len(mine.runs), extra={"peer_runs": cs.runs}))
    if missing("pathfinding"):
        rep.note("pathfinding (PyPI) is not installed: its d20 row is left out")
        return
    t0 = time.perf_counter()
    pf = _pathfinding(flags, net.mult, cfg)
    found = len(pf.value) > 1
    rep.add(Row("d20 route", side * side, case, mine.seconds, "pathfinding (PyPI) Dijkstra, ignores the round rules",
                pf.seconds, 0.05, "≤ 0.05 (≥ 20x faster)", bool(found and r.reachable),
                f"both find a way; pathfinding's path {len(pf.value) - 1} steps"
                f" ({time.perf_counter() - t0:.1f} s with its grid)", runs=len(mine.runs)))
