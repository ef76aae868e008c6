"""d20 tactical movement on a battle grid: where a character can get this round, and how
to get somewhere in the fewest rounds.

Plain functions returning dataclasses, in the style of :mod:`eidomap.routing`.
Squares are ``(row, column)`` from ``(0, 0)`` at the top left; costs are in
feet.  The rules and their reading are in docs/d20.md.

>>> from eidomap.d20 import parse_grid, reach, route
>>> g = parse_grid("....\\n.dd.\\n....")
>>> reach(g, (0, 0), 15).feet[(1, 1)]      # a diagonal into difficult terrain: 3 squares
15
>>> reach(g, (0, 0), 10).full_round       # too dear for 10 ft: the full-round one-square move
[(1, 1)]
>>> r = route(g, (0, 0), (2, 3), 10)
>>> r.rounds, r.feet, r.round_ends
(2, 15, [(1, 1), (2, 3)])
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from .errors import RequestError
from .rules.d20.grid import ALLY, IMPASSABLE, Grid, format_square, grid_from_array, parse_grid, read_grid
from .rules.d20.tactical import DIRECTIONS, FEET_PER_SQUARE, Mover, grid_arrays, line, line_table, step_masks
from .search import grid as search
from .search.grid import FULL, KIND, NODE, PRED, SPENT, T

__all__ = ["COMPILE_ABOVE", "GridReach", "GridRoute", "Round", "grid_from_array", "load_grid", "parse_grid", "reach",
           "route"]

#: Above this many squares the numba-compiled searches are used (when numba is installed).
COMPILE_ABOVE = 2_500
#: Fewest squares a charge moves (10 ft).
CHARGE_MIN = 2


def load_grid(path: str | os.PathLike) -> Grid:
    """Read a battle-grid text file (see :mod:`eidomap.rules.d20.grid`)."""
    return read_grid(path)


@dataclass
class Round:
    """One round of a route: the squares entered, in order, and the feet they cost.

    ``full_round`` marks the full-round one-square move (movement too hampered
    to afford the square); it counts 5 ft.
    """

    round: int
    squares: list[tuple[int, int]]
    feet: int
    full_round: bool = False

    @property
    def end(self) -> tuple[int, int]:
        return self.squares[-1]


@dataclass
class GridRoute:
    """The answer of :func:`route`: fewest rounds, then fewest feet (``rounds`` None: no way there)."""

    start: tuple[int, int]
    goal: tuple[int, int]
    mover: Mover
    rounds: int | None = None
    feet: int | None = None
    path: list[tuple[int, int]] = field(default_factory=list)
    legs: list[Round] = field(default_factory=list)

    @property
    def reachable(self) -> bool:
        return self.rounds is not None

    @property
    def round_ends(self) -> list[tuple[int, int]]:
        """The square where each round ends."""
        return [leg.end for leg in self.legs]

    def as_dict(self) -> dict:
        return {"rounds": self.rounds, "feet": self.feet, "path": [format_square(s) for s in self.path],
                "round_ends": [format_square(s) for s in self.round_ends]}


@dataclass
class GridReach:
    """The answer of :func:`reach`: every square where this round's movement can end, with its feet.

    ``full_round`` lists the squares reached by the full-round one-square move.
    """

    start: tuple[int, int]
    mover: Mover
    feet: dict[tuple[int, int], int] = field(default_factory=dict)
    full_round: list[tuple[int, int]] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"reachable": {format_square(s): f for s, f in self.feet.items()}}


def _prepare(grid, start, mover: Mover, allies, enemies) -> tuple[Grid, tuple[int, int]]:
    if isinstance(grid, str | os.PathLike):
        grid = load_grid(grid)
    if allies or enemies:
        grid = grid.with_occupants(allies, enemies)
    start = grid.check_square(tuple(int(v) for v in start), "start")
    if grid.flags[start] & IMPASSABLE:
        raise RequestError(f"{grid.where(start)}: the start {format_square(start)} is impassable")
    if grid.occupant[start]:
        raise RequestError(f"{grid.where(start)}: the start {format_square(start)} is occupied by"
                           f" {'an ally' if grid.occupant[start] == ALLY else 'an enemy'}")
    return grid, start


def _fn(name: str, squares: int, compiled: bool | None):
    """The pure-Python search, or its numba twin on grids above :data:`COMPILE_ABOVE` squares."""
    if compiled or (compiled is None and squares > COMPILE_ABOVE):
        try:
            from .search import _compiled

            return getattr(_compiled, name)
        except ImportError:
            if compiled:
                raise
    return getattr(search, name)


def _search(grid: Grid, mover: Mover, source: int, goal: int, max_round: int, compiled):
    """The labels of the search (``goal`` -1: every state up to ``max_round``) and the goal's best label."""
    rows, cols = grid.shape
    mult, enterable, can_end, occupant = grid_arrays(grid, mover.flying)
    if mover.straight:
        charge = mover.mode == "charge"
        return _fn("line_labels", rows * cols, compiled)(
            mult, occupant, rows, cols, source, goal, *line_table(mover.budget), CHARGE_MIN if charge else 1, charge,
            max_round)
    mask = step_masks(mult, enterable, rows, cols)
    plan = _fn("plan_labels", rows * cols, compiled)
    if goal < 0:
        return plan(mult, mask, can_end, cols, source, goal, mover.budget, max_round, np.ones(rows * cols, np.int32),
                    np.zeros(rows * cols, np.int32), search.work_space(rows * cols, mover.budget))[:2]
    # the rounds counted back from the goal (a lower bound where a round may not end everywhere), then a
    # search that keeps to the ways that make them, its bound widened until it gets there
    rounds, first = _fn("rounds_to", rows * cols, compiled)(mult, mask, cols, goal, mover.budget, source)
    if rounds[source] < 0:
        return np.empty((0, search.COLUMNS), np.int64), -1
    bound, slack = int(rounds[source]), 1
    while True:
        lab, best, pruned = plan(mult, mask, can_end, cols, source, goal, mover.budget, bound, rounds, first,
                                 search.work_space(rows * cols, mover.budget))
        if best >= 0 or not pruned or bound >= max_round:
            return lab, best
        bound, slack = min(bound + slack, max_round), 2 * slack


def reach(grid, at, speed: int = 30, *, mode: str = "move", heavy_armor: bool = False, flying: bool = False,
          allies=(), enemies=(), target=None, compiled: bool | None = None) -> GridReach:
    """Every square where this round's movement can end, and the fewest feet to get there.

    ``mode``: ``move`` (a move action), ``double``, ``run`` or ``charge`` (a
    straight line; a charge at least 10 ft, ending next to ``target`` when
    given), or ``step`` (the 5-foot step).  ``allies`` and ``enemies`` add
    creatures to the grid's.  The start is included with 0 ft.
    """
    mover = Mover(speed, mode, heavy_armor, flying)
    grid, start = _prepare(grid, at, mover, allies, enemies)
    rows, cols = grid.shape
    s = start[0] * cols + start[1]
    out = GridReach(start, mover, {start: 0})
    mult, enterable, can_end, _ = grid_arrays(grid, flying)
    if mode == "step":
        if mover.squares > 1:  # never for speed 5 ft or less: one clear square, any of the 8
            ways = step_masks(mult, enterable, rows, cols)[s]
            for k, (dr, dc) in enumerate(DIRECTIONS):
                q = s + dr * cols + dc
                if (ways >> k) & 1 and mult[q] == 1 and can_end[q]:
                    out.feet[divmod(int(q), cols)] = FEET_PER_SQUARE
        return out
    lab, _ = _search(grid, mover, s, -1, 1, compiled)
    sq = lab[:, NODE] // (1 if mover.straight else 2)
    ok = (lab[:, T] == 1) & can_end[sq]
    if target is not None:
        tr, tc = grid.check_square(tuple(target), "target")
        r, c = np.divmod(sq, cols)
        ok &= np.maximum(np.abs(r - tr), np.abs(c - tc)) == 1
    best = np.full(can_end.size, np.iinfo(np.int64).max)
    np.minimum.at(best, sq[ok], lab[ok, SPENT])
    for q in np.flatnonzero(best < np.iinfo(np.int64).max):
        out.feet[divmod(int(q), cols)] = int(best[q]) * FEET_PER_SQUARE
    out.full_round = sorted({divmod(int(q), cols) for q in sq[ok & (lab[:, KIND] == FULL)]})
    return out


def route(grid, start, goal, speed: int = 30, *, mode: str = "move", heavy_armor: bool = False,
          flying: bool = False, allies=(), enemies=(), compiled: bool | None = None) -> GridRoute:
    """The way from ``start`` to ``goal`` in the fewest rounds, then the fewest feet.

    Each round moves as ``mode`` says (``move``, ``double`` or ``run``); where
    a square cannot be afforded even with a whole round, the full-round
    one-square move takes it.  A goal that is impassable or occupied cannot be
    reached (``rounds`` None).
    """
    mover = Mover(speed, mode, heavy_armor, flying)
    if mode not in ("move", "double", "run"):
        raise RequestError(f"a route moves by move, double or run rounds, not {mode!r}")
    grid, start = _prepare(grid, start, mover, allies, enemies)
    goal = grid.check_square(tuple(int(v) for v in goal), "goal")
    out = GridRoute(start, goal, mover)
    if start == goal:
        out.rounds, out.feet, out.path = 0, 0, [start]
        return out
    cols = grid.shape[1]
    g = goal[0] * cols + goal[1]
    if grid.flags[goal] & IMPASSABLE or grid.occupant[goal]:  # no move may end there
        return out
    lab, best = _search(grid, mover, start[0] * cols + start[1], g, 1 << 40, compiled)
    if best < 0:
        return out
    chain = [int(best)]
    while lab[chain[-1], PRED] >= 0:
        chain.append(int(lab[chain[-1], PRED]))
    chain.reverse()
    per = 1 if mover.straight else 2
    out.path = [start]
    for a, b in pairwise(chain):
        here = divmod(int(lab[b, NODE]) // per, cols)
        if mover.straight and lab[b, KIND] != FULL:
            prev = out.path[-1]
            squares = [(prev[0] + dr, prev[1] + dc) for dr, dc in line(here[0] - prev[0], here[1] - prev[1])]
        else:
            squares = [here]
        feet = int(lab[b, SPENT] - lab[a, SPENT]) * FEET_PER_SQUARE
        if not out.legs or out.legs[-1].round != lab[b, T]:
            out.legs.append(Round(int(lab[b, T]), [], 0, bool(lab[b, KIND] == FULL)))
        out.legs[-1].squares += squares
        out.legs[-1].feet += feet
        out.path += squares
    out.rounds = len(out.legs)
    out.feet = int(lab[best, SPENT]) * FEET_PER_SQUARE
    return out
