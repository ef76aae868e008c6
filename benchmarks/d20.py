"""Workload *d20*: ``eidomap.answers.grid.route`` on a battle grid, corner to corner.

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

Two more rows:

* **the route against the brute force** on random ally-dense grids (20,000 in
  a full run: 2 to 7 squares a side, three squares in eight an ally's), speeds
  5 to 15 ft, move and double rounds -- fewest rounds, then feet, equal to the
  plain Dijkstra of ``tests/d20_oracle.py`` (where rounds may not end, the
  search's round bound is only a lower bound: issue 26, point 9);
* **overland travel on the calendar** (issue 26, point 1): ``travel`` on the
  bundled map with a guided keelboat (the river legs searched by the hour they
  start), against the same travel mesh weighed in hours and solved by one SciPy
  Dijkstra -- what ``travel`` did before; the bar is 2x.
"""

from __future__ import annotations

import time

import numpy as np

from .harness import Config, Context, Row, from_tests, missing, timed

__all__ = ["ally_dense_check", "battle_grid", "run", "sizes"]

#: Side of the grid by mode.
SIDES = {"full": 1000, "quick": 200, "smoke": 40}
#: Random ally-dense grids checked against the brute force, by mode.
GRIDS = {"full": 20_000, "quick": 2_000, "smoke": 50}
#: Travel-mesh spacing (miles) on the bundled overland map, by mode (a smoke run's coarse mesh: the same way, few legs).
SPACING = {"full": 0.25, "quick": 0.5, "smoke": 2.0}


def sizes(cfg: Config) -> list[None]:
    return [None]


def battle_grid(side: int, seed: int) -> np.ndarray:
    """Per-square flags: 10 % impassable, 20 % hampered by one condition; the corners clear."""
    from eidomap.record.grid import DIFFICULT, IMPASSABLE, OBSTACLE, POOR_VISIBILITY

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


def ally_dense_check(count: int, seed: int) -> tuple[int, list]:
    """Routes on ``count`` random ally-dense grids against the brute force: (grids compared, disagreements)."""
    from eidomap.answers.grid import parse_grid, route
    from eidomap.rules.d20.grid import Mover

    oracle = from_tests("d20_oracle")  # the brute force the test suite runs too
    rng = np.random.default_rng(seed)
    done, wrong = 0, []
    while done < count:
        rows = oracle.random_rows(rng)
        free = [(r, c) for r in range(len(rows)) for c in range(len(rows[0])) if rows[r][c] in ".dB"]
        if not free:
            continue
        start, goal = (free[k] for k in rng.integers(len(free), size=2))
        speed, mode = int(rng.choice([5, 10, 15])), str(rng.choice(["move", "double"]))
        plan = route(parse_grid("\n".join(rows)), start, goal, speed, mode=mode, compiled=False)
        got = None if plan.rounds is None else (plan.rounds, plan.feet // 5)
        want = oracle.brute_force(rows, start, goal, Mover(speed, mode).budget, False)
        if got != want:
            wrong.append((rows, start, goal, speed, mode, got, want))
        done += 1
    return done, wrong


def _travel_rows(ctx: Context) -> None:
    """Overland travel on the calendar against the travel mesh weighed in hours and one SciPy Dijkstra."""
    import eidomap
    from eidomap.answers import overland
    from eidomap.rules.d20.speeds import party
    from eidomap.search.mesh import build_mesh, tree

    cfg, rep = ctx.cfg, ctx.report
    m = eidomap.load(overland.example_map_path())
    spacing = SPACING[cfg.mode]
    trip = {"vehicle": "keelboat", "guided": True, "spacing": spacing}
    mine = timed(lambda: overland.travel(m, "greypeaks", "greenfield", **trip), cfg)

    def hours_only():  # the mesh travel builds, weighed in hours (rowed legs at their rowed speed): one Dijkstra
        upm = float(m.meta["units_per_mile"])
        lines = np.concatenate([np.asarray(m.record.roads.geoms, dtype=object), np.asarray(m.record.rivers.geoms)])
        step = overland._mesh_step(m, spacing, lines, upm)
        a = m.positions[m.index("greypeaks")]
        mesh = build_mesh(m.geometries, lines, step, m.tolerance, points=[a, m.positions[m.index("greenfield")]])
        mph, _, _, miles = overland._leg_speeds(m, mesh, party([30], vehicle="keelboat"), upm)
        with np.errstate(divide="ignore"):
            hours = np.where(mph > 0, miles / np.where(mph > 0, mph, 1.0), np.inf)
        return tree(len(mesh.xy), mesh.src, mesh.dst, hours, mesh.extra[0])[0][mesh.extra[1]], len(mesh.src)

    peer = timed(hours_only, cfg)
    t = mine.value
    fewest, legs = peer.value
    agree = t.reachable and bool(np.isfinite(fewest))
    where = "default spacing" if spacing is None else f"spacing {spacing} mi"
    rep.add(Row("d20 travel", None, f"bundled map, greypeaks -> greenfield, guided keelboat, {where}",
                mine.seconds, "the same mesh in hours, 1 SciPy Dijkstra (travel before issue 26)", peer.seconds, 2.0,
                "≤ 2", agree, f"arrives day {t.arrival[0]} hour {t.arrival[1]:.2f} ({t.hours:.2f} h of travel);"
                f" fewest hours {fewest:.2f}; {legs:,} legs", runs=len(mine.runs), extra={"peer_runs": peer.runs}))


def run(ctx: Context, n: None) -> None:
    from scipy.sparse.csgraph import dijkstra

    from eidomap.answers.grid import grid_from_array, route
    from eidomap.base.settings import twin
    from eidomap.rules.d20.grid import compile_grid, step_arrays

    cfg, rep = ctx.cfg, ctx.report
    side = SIDES[cfg.mode]
    flags = battle_grid(side, cfg.seed)
    grid = grid_from_array(flags)
    route(grid_from_array(flags[:8, :8]), (0, 0), (7, 7), 30, compiled=True)  # numba's cache loaded
    goal = (side - 1, side - 1)
    mine = timed(lambda: route(grid, (0, 0), goal, 30, compiled=True), cfg)
    r = mine.value
    net = compile_grid(grid, kernel=twin(step_arrays, 0, compiled=True))
    csr = _csgraph(net)
    cs = timed(lambda: dijkstra(csr, directed=True, indices=0), cfg)
    low = float(cs.value[-1])
    agree = r.reachable and np.isfinite(low) and low <= r.feet / 5
    case = f"{side:,} x {side:,} squares, speed 30, corner to corner"
    detail = f"{r.rounds} rounds, {r.feet} ft; csgraph's lower bound {low:g} squares"
    rep.add(Row("d20 route", side * side, case, mine.seconds, "scipy csgraph, 1 Dijkstra (8-neighbour CSR)",
                cs.seconds, 0.8, "≤ 0.8", bool(agree), detail, runs=len(mine.runs), extra={"peer_runs": cs.runs}))
    t0 = time.perf_counter()
    count, wrong = ally_dense_check(GRIDS[cfg.mode], cfg.seed)
    rep.add(Row("d20 route", count, f"{count:,} random ally-dense grids (2-7 squares a side), speeds 5-15 ft, move"
                " and double", time.perf_counter() - t0, "the brute force of tests/d20_oracle.py", agree=not wrong,
                table="measure", detail=f"{len(wrong)} disagree" + (f"; first: {wrong[0]}" if wrong else "")))
    _travel_rows(ctx)
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
