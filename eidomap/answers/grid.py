"""d20 tactical movement on a battle grid: where a character can get this round, and how
to get somewhere in the fewest rounds.

Plain functions returning dataclasses, in the style of :mod:`eidomap.answers.routing`.
Squares are ``(row, column)`` from ``(0, 0)`` at the top left; costs are in
feet.  The rules and their reading are in docs/d20.md.

>>> from eidomap.answers.grid import parse_grid, reach, route
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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import groupby, pairwise

import numpy as np

from eidomap.base import params
from eidomap.base import settings as twins
from eidomap.base.errors import RequestError
from eidomap.base.names import shown
from eidomap.io.grid import parse_grid, read_grid
from eidomap.record import rulesets
from eidomap.record.grid import ALLY, IMPASSABLE, Grid, format_square, grid_from_array
from eidomap.rules.d20.grid import (
    DIRECTIONS,
    FEET_PER_SQUARE,
    FULL_ROUND,
    Mover,
    Pace,
    grid_arrays,
    line,
    line_cost,
    step_masks,
)
from eidomap.search import grid as search
from eidomap.search.grid import FULL, KIND, LABEL_COLUMNS, LINE, MAX_LAYERED_SQUARES, NODE, SPENT, T
from eidomap.search.stops import MAX_STOPS as STOPS_MAX

__all__ = ["COMPILE_ABOVE", "MAX_STOPS", "Grid", "GridLeg", "GridReach", "GridRoute", "Pace", "Round",
           "grid_from_array", "load_grid", "parse_grid", "reach", "route"]

#: Above this many squares the numba-compiled searches run by default for a walker without stops
#: (:data:`eidomap.base.settings.COMPILE_ABOVE` steps, a step in each of the 8 directions of a square; the
#: stops and a runner's straight lines multiply the steps).
COMPILE_ABOVE = twins.COMPILE_ABOVE // len(DIRECTIONS)
#: Fewest squares a charge moves (10 ft).
CHARGE_MIN = 2
#: Most stops a route passes (as many as an Eido map's route: :data:`eidomap.search.stops.MAX_STOPS`); the grid's
#: squares times the stops plus one are at most :data:`eidomap.search.grid.MAX_LAYERED_SQUARES` as well.
MAX_STOPS = STOPS_MAX


def load_grid(path: str | os.PathLike) -> Grid:
    """Read a battle-grid text file: one character a square (the legend: docs/d20.md).

    Parameters
    ----------
    path : str or Path
        The grid file (UTF-8 text).

    Returns
    -------
    Grid
        The grid.

    Raises
    ------
    MapError
        When the file cannot be read, is not UTF-8, or holds an unknown character or ragged rows; the message
        names ``FILE:LINE:COLUMN``.

    See Also
    --------
    eidomap.answers.grid.parse_grid : A grid from text.
    eidomap.answers.grid.grid_from_array : A grid from arrays of flags.

    Examples
    --------
    >>> import eidomap
    >>> load_grid(eidomap.bundled_map_path("d20-battle.txt")).shape
    (14, 22)
    """
    return read_grid(path)


@dataclass(frozen=True)
class Round:
    """One round of a route: the squares entered, in order, the feet they cost and the action.

    Attributes
    ----------
    round : int
        Its number, from 1.
    squares : list of (int, int)
        The squares entered, in order.
    feet : int
        The feet they cost (difficult terrain and diagonals counted; the full-round one-square move counts 5 ft).
    action : str
        The least action that makes the round's movement: ``"5-ft step"``, ``"move"``, ``"double move"``,
        ``"run"`` or ``"full-round 5 ft"`` (the one-square move, when movement is too hampered for any other way
        into the square).
    """

    round: int
    squares: list[tuple[int, int]]
    feet: int
    action: str = ""

    @property
    def end(self) -> tuple[int, int]:
        """The square where the round ends."""
        return self.squares[-1]

    @property
    def full_round(self) -> bool:
        """Is this round the full-round one-square move?"""
        return self.action == FULL_ROUND


@dataclass(frozen=True)
class GridLeg:
    """One leg of a route through stops: from the start or a stop to the next stop or the goal.

    Attributes
    ----------
    start, goal : (int, int)
        Where the leg begins and ends: the start, the stops in order, the goal.
    squares : int
        How many squares of the route's ``path`` the leg enters (0: its goal is where it begins).
    feet : int
        The feet they cost.
    round : int
        The round the leg's goal is reached in (1: this round; 0 for a goal the route starts on).
    """

    start: tuple[int, int]
    goal: tuple[int, int]
    squares: int
    feet: int
    round: int

    def as_dict(self) -> dict:
        """The leg as plain data, as ``eidomap d20 route --json`` prints it in ``legs``.

        Returns
        -------
        dict
            ``from``, ``to`` (squares as ``"R,C"``), ``squares``, ``feet`` and ``round``.
        """
        return {"from": format_square(self.start), "to": format_square(self.goal), "squares": self.squares,
                "feet": self.feet, "round": self.round}


@dataclass(frozen=True)
class GridRoute:
    """The answer of :func:`route`: fewest rounds, then fewest feet.

    Attributes
    ----------
    start, goal : (int, int)
        The squares asked for (row, column).
    mover : Mover
        Who moves and how (speed, mode, armour, flight, fatigue).
    rounds : int or None
        The rounds the route takes; None: no way there.
    feet : int or None
        The feet it costs.
    path : list of (int, int)
        Every square of the route, the start first.
    legs : list of Round
        The route round by round (the rounds it moves in: none in round 1 when all of it was used).
    why : str
        When the goal or a stop is the reason there is no way (it is occupied, or a leg has none): why.
    via : list of (int, int)
        The stops the route passes, in order.
    used : int
        The feet of round 1's movement already used before the route begins.
    via_legs : list of GridLeg
        The route's legs through the stops (one without stops; none when there is no way).
    """

    start: tuple[int, int]
    goal: tuple[int, int]
    mover: Mover
    rounds: int | None = None
    feet: int | None = None
    path: list[tuple[int, int]] = field(default_factory=list)
    legs: list[Round] = field(default_factory=list)
    why: str = ""
    via: list[tuple[int, int]] = field(default_factory=list)
    used: int = 0
    via_legs: list[GridLeg] = field(default_factory=list)

    @property
    def reachable(self) -> bool:
        """Whether there is a way to the goal."""
        return self.rounds is not None

    @property
    def round_ends(self) -> list[tuple[int, int]]:
        """The square where each round ends."""
        return [leg.end for leg in self.legs]

    def as_dict(self) -> dict:
        """The route as plain data: what ``eidomap d20 route --json`` prints.

        Returns
        -------
        dict
            ``rounds``, ``feet``, ``path`` and ``round_ends`` (squares as ``"R,C"``), each round's ``actions``, the
            stops (``via``), the feet ``used`` of round 1 before it and the ``legs`` through the stops
            (:meth:`GridLeg.as_dict`).
        """
        return {"rounds": self.rounds, "feet": self.feet, "path": [format_square(s) for s in self.path],
                "round_ends": [format_square(s) for s in self.round_ends],
                "actions": [leg.action for leg in self.legs], "via": [format_square(s) for s in self.via],
                "used": self.used, "legs": [leg.as_dict() for leg in self.via_legs]}


@dataclass(frozen=True)
class GridReach:
    """The answer of :func:`reach`: every square where this round's movement can end, with its feet.

    Attributes
    ----------
    start : (int, int)
        The square the character starts from.
    mover : Mover
        Who moves and how.
    feet : dict of (int, int) to int
        Each square the round can end on, with the fewest feet to it.
    full_round : list of (int, int)
        Apart: the squares only the full-round one-square move reaches (5 ft, a full-round action).
    why : str
        Why a charge at a target has no square.
    used : int
        The feet of the round's movement already used before ``start`` (``feet`` are those moved from it).
    """

    start: tuple[int, int]
    mover: Mover
    feet: dict[tuple[int, int], int] = field(default_factory=dict)
    full_round: list[tuple[int, int]] = field(default_factory=list)
    why: str = ""
    used: int = 0

    def as_dict(self) -> dict:
        """The answer as plain data: what ``eidomap d20 reach --json`` prints.

        Returns
        -------
        dict
            ``reachable`` (feet by ``"R,C"``) and ``full_round``.
        """
        return {"reachable": {format_square(s): f for s, f in self.feet.items()},
                "full_round": [format_square(s) for s in self.full_round]}


def _prepare(grid: object, start: tuple[int, int], mover: Mover, allies: object, enemies: object,
             compiled: object, name: str = "start") -> tuple[Grid, tuple[int, int]]:
    """The grid (read when a file is given) with ``allies`` and ``enemies`` on it, and ``start`` on it: each
    parameter checked (``start``: a square, by the caller, which names it: ``name``, as the messages do)."""
    allies, enemies = params.squares(allies, "allies"), params.squares(enemies, "enemies")
    params.maybe(params.flag, compiled, "compiled")
    if not isinstance(grid, Grid):
        grid = load_grid(params.path(grid, "grid", "a Grid"))
    rulesets.require(grid.rules, "grid", grid.source)  # (the battle grid's answers are its rule set's, as a map's)
    if allies or enemies:
        grid = grid.with_occupants(allies, enemies)
    start = grid.check_square(start, name)
    if grid.flags[start] & IMPASSABLE:
        raise RequestError(f"{grid.where(start)}: {name} {format_square(start)} is impassable")
    if grid.occupant[start]:
        raise RequestError(f"{grid.where(start)}: {name} {format_square(start)} is occupied by"
                           f" {'an ally' if grid.occupant[start] == ALLY else 'an enemy'}")
    return grid, start


def _under_way(mover: Mover, used: object, odd_diagonals: object) -> int:
    """``used``, the feet of this round's movement already used, checked (a multiple of 5 from 0 to the round's
    step-by-step movement: :attr:`Mover.step_budget`), and ``odd_diagonals`` with it (only for a round under way)."""
    round_feet = mover.step_budget * FEET_PER_SQUARE
    if isinstance(used, bool) or not isinstance(used, int | np.integer) or not 0 <= used <= round_feet \
            or used % FEET_PER_SQUARE:
        raise RequestError(f"used must be a multiple of 5 ft from 0 to {round_feet} (a round's movement at speed"
                           f" {mover.speed} ft, {mover.mode}), got {params.shown(used)}", param="used")
    if params.flag(odd_diagonals, "odd_diagonals") and used == 0:
        raise RequestError("odd_diagonals is for a round already under way: give used=..., the feet moved in it",
                           param="odd_diagonals")
    return int(used)


def _fn(name: str, steps: int, compiled: bool | None):
    """The search ``name`` of :mod:`eidomap.search.grid`, or its numba twin where it may try more than
    :data:`eidomap.base.settings.COMPILE_ABOVE` steps (:func:`eidomap.base.settings.twin`)."""
    return twins.twin(getattr(search, name), steps, compiled)


def _steps(rows: int, cols: int, mover: Mover, layers: int = 1) -> int:
    """The steps a round-by-round search of ``mover`` may try: a step in each direction of each square of each
    layer (the stops passed), and for a runner each straight line a round's start tries -- the squares within its
    run, walked square by square.  A runner's lines are most of its work: counted as squares alone, a run through
    stops on a 14 x 22 grid took 3.7 s in plain Python instead of 40 ms compiled."""
    n = rows * cols
    return n * layers * (len(DIRECTIONS) + (_line_steps(rows, cols, mover.budget) if mover.mode is Pace.RUN else 0))


def _line_steps(rows: int, cols: int, budget: int) -> int:
    """The steps of the straight lines of at most ``budget`` squares from one square: each end within reach of it,
    walked square by square."""
    high = min(budget, rows + cols)
    return min((2 * high + 1) ** 2, rows * cols) * high


def _no_bound(squares: int) -> tuple[np.ndarray, np.ndarray]:
    """``rounds`` and ``first`` arrays that bound nothing (every square one round away, none first)."""
    return np.ones(squares, np.int32), np.zeros(squares, np.int32)


def _stops(stops: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The stops (flat squares) as :func:`eidomap.search.grid.plan_labels` takes them, with the layer the next stop
    leads to from each layer: the next one, past each following stop that is the same square."""
    at = np.asarray(stops, np.int64).reshape(-1)
    jump = np.arange(1, len(at) + 1, dtype=np.int64)
    for i in range(len(at) - 2, -1, -1):  # (a loop over the stops)
        if at[i + 1] == at[i]:
            jump[i] = jump[i + 1]
    return at, jump


def _plan(grid: Grid, mover: Mover, source: int, goal: int, compiled, stops: Sequence[int] = (),
          left: int | None = None, parity: int = 0):
    """The labels of the round-by-round search (``goal`` -1: this round's, from ``source``), the goal's best and
    the grid's multipliers for the mover (flat).

    A route counts the rounds back from the goal first (a lower bound where a round may not end
    everywhere), toward the start and only over the squares a way of that many rounds may pass, then
    searches only the ways that make them, its bound (and the count) widened until it gets there.
    A runner's rounds are counted as if any way of its run's cost could be run: a lower bound too.
    Through ``stops`` (flat squares, in order) each leg's rounds are counted too: a leg begins in the round the
    one before ends, so each after the first adds its rounds less one, to the first bound and to the bound of
    every label before its stop, which is also held to the rounds counted back from its next stop (the whole
    grid, once a stop); a leg with no way at all ends the search (the goal's best -1).  Round 1 has ``left``
    squares of movement left (None: all of it) and diagonal parity ``parity``.
    """
    rows, cols = grid.shape
    steps = _steps(rows, cols, mover, len(stops) + 1)
    plan = _fn("plan_labels", steps, compiled)
    mult, enterable, can_end, occupant = grid_arrays(grid, mover.flying, plan is not search.plan_labels)
    mask = step_masks(mult, enterable, rows, cols)
    run = mover.budget if mover.mode is Pace.RUN else 0
    left = mover.step_budget if left is None else left
    args = (mult, mask, can_end, occupant, rows, cols, source, goal, mover.step_budget, run)
    n, k = rows * cols, len(stops)
    ahead_rounds, ahead_first, more = np.empty((k, n), np.int32), np.empty((k, n), np.int32), np.zeros(k, np.int64)
    if goal < 0:
        return (*plan(*args, 1, *_no_bound(n), *_stops(stops), ahead_rounds, ahead_first, more, left, parity)[:2],
                mult)
    # (the count in the same form as the search: the arrays are made for one form; every call gives all seven
    # arguments, so that the compiled count has one signature -- each omitted default compiles another)
    count, budget = _fn("rounds_to", steps, compiled), max(mover.step_budget, run)
    none = np.empty((0, LABEL_COLUMNS), np.int64), -1, mult

    def opening(rounds: np.ndarray, first: np.ndarray) -> int:
        """The fewest rounds from the start by a count from a fresh round: a round 1 under way goes on step by
        step with ``left`` squares, so the count's first round (a run's, for a runner) may not fit in it."""
        g = int(rounds[source])
        return g if left == mover.step_budget else int(search._rounds_left(rounds, first, source, left)) + 1

    low, begun, counted = 0, False, None
    for j, (a, b) in enumerate(pairwise([source, *stops, goal])):
        if a == b:
            continue
        legs = count(mult, mask, cols, b, budget, a, -1)
        if legs[0][a] < 0:
            return none
        # the first leg from the start, in round 1; each later one from the round the one before ends in
        low += opening(*legs) if not begun else int(legs[0][a]) - 1
        more[:j] += int(legs[0][a]) - 1  # (a label before stop i has the legs after it still to go)
        begun = True
        counted = legs if (a, b) == (source, goal) else None  # (without stops: the count the route needs)
    for i, stop in enumerate(stops):  # the rounds back from each stop, the whole grid's (a label of any round)
        if i and stop == stops[i - 1]:
            ahead_rounds[i], ahead_first[i] = ahead_rounds[i - 1], ahead_first[i - 1]
        else:
            ahead_rounds[i], ahead_first[i] = count(mult, mask, cols, stop, budget, -1, -1)
    on = (*_stops(stops), ahead_rounds, ahead_first, more, left, parity)
    rounds, first = counted or count(mult, mask, cols, goal, budget, source, -1)
    if rounds[source] < 0:
        return none
    bound = max(low, opening(rounds, first))
    if bound != rounds[source]:  # (the count kept to the start's own rounds: counted again for the bound)
        rounds, first = count(mult, mask, cols, goal, budget, source, bound)
    slack = 1
    while True:
        lab, best, pruned = plan(*args, bound, rounds, first, *on)
        if best >= 0 or not pruned:
            return lab, best, mult
        bound, slack = bound + slack, 2 * slack
        # the count kept to the squares a way of the old bound may pass: counted again for the new one
        rounds, first = count(mult, mask, cols, goal, budget, source, bound)


def _line_ends(grid: Grid, mover: Mover, source: int, target, compiled) -> tuple[dict[int, int], str]:
    """This round's straight lines from ``source`` (a run or a charge): end square -> squares, and
    why a charge at ``target`` has none.

    A charge moves at least :data:`CHARGE_MIN` squares, and no line from its start square to its end
    square passes a hampering, impassable or occupied square; with a ``target`` it ends on the closest
    square from which it can attack the target (one of them, if several are as close); the target's own
    square is occupied.
    """
    rows, cols = grid.shape
    charge = mover.mode is Pace.CHARGE
    if target is not None:
        grid = grid.with_occupants(enemies=[target]) if not grid.occupant[target] else grid
    lines = _fn("lines_from", _line_steps(rows, cols, mover.budget), compiled)
    mult, _, can_end, occupant = grid_arrays(grid, mover.flying, lines is not search.lines_from)
    high = min(mover.budget, rows + cols)  # no line on the grid costs more
    room = min((2 * high + 1) ** 2, rows * cols)
    ends, costs = np.empty(room, np.int64), np.empty(room, np.int64)
    m, _ = lines(
        mult, occupant, can_end, rows, cols, source, CHARGE_MIN if charge else 1, high, charge,
        *_no_bound(rows * cols), 0, ends, -1, ends, costs)  # no bound: slack 0, every square of the window tried
    out = dict(zip(ends[:m].tolist(), costs[:m].tolist(), strict=True))
    if target is None:
        return out, ""
    r, c = divmod(source, cols)
    around = [(target[0] + dr, target[1] + dc) for dr, dc in DIRECTIONS
              if 0 <= target[0] + dr < rows and 0 <= target[1] + dc < cols]
    closest = min(line_cost(a - r, b - c) for a, b in around)
    nearest = " ".join(format_square(sq) for sq in around if line_cost(sq[0] - r, sq[1] - c) == closest)
    said = f"the closest square from which to attack {format_square(target)} ({nearest}) is {closest * 5} ft away"
    if closest < CHARGE_MIN:  # already next to the target (or nearly): no charge
        return {}, f"{said}: a charge moves at least {CHARGE_MIN * 5} ft"
    if closest > mover.budget:
        return {}, f"{said}: more than twice the speed"
    out = {e: f for e, f in out.items() if divmod(e, cols) in around and f == closest}
    return out, "" if out else (f"{said}, and a line from the start square to it passes a hampering, occupied or"
                                " impassable square, or it is one (3.5: every line must be clear)")


def reach(grid: Grid | str | os.PathLike, at: Sequence[int], speed: int = 30, *, mode: Pace | str = Pace.MOVE,
          heavy_armor: bool = False, flying: bool = False, fatigued: bool = False, allies: Iterable[Sequence[int]] = (),
          enemies: Iterable[Sequence[int]] = (), target: Sequence[int] | None = None, used: int = 0,
          odd_diagonals: bool = False, compiled: bool | None = None) -> GridReach:
    """Every square where this round's movement can end, and the fewest feet to get there.

    The start is included with 0 ft (not for a charge, which must move).  Squares only the full-round
    one-square move reaches (no movement of the round pays for them) are listed apart, in ``full_round``.

    Parameters
    ----------
    grid : Grid, str or Path
        The battle grid, or its file.
    at : (int, int)
        The start square (row, column from 0 at the top left).
    speed : int
        The speed in feet (a multiple of 5).
    mode : Pace or {"move", "double", "run", "charge", "step"}
        A move action, a double move, a run, a charge (a straight line, at least 10 ft, passing no creature;
        with a ``target``, ending on the closest square from which it can attack it), or the 5-foot step.
    heavy_armor : bool
        Runs at x3 instead of x4.
    flying : bool
        Difficult terrain does not hamper.
    fatigued : bool
        A fatigued character can neither run nor charge.
    allies, enemies : sequence of (int, int)
        Creatures added to the grid's: allies can be passed through, enemies cannot.
    target : (int, int), optional
        The creature a charge attacks.
    used : int
        Feet of this round's movement already used before ``at`` (as :func:`route` takes them: a multiple of 5, at
        most the round's movement): the round goes on from ``at`` with the rest of it, step by step -- neither a
        run nor the full-round one-square move begins in a round already under way --, and ``feet`` are the feet
        moved from ``at``.  Not for a charge or the 5-foot step, each a round's only movement.
    odd_diagonals : bool
        An odd number of diagonals is among the ``used`` feet: the next clear diagonal costs 10 ft.
    compiled : bool, optional
        Use the numba-compiled search (default: when it may try more than
        :data:`eidomap.base.settings.COMPILE_ABOVE` steps -- above :data:`COMPILE_ABOVE` squares for a walker
        without stops; fewer through stops, and far fewer for a runner, whose every round tries straight lines).

    Returns
    -------
    GridReach
        The squares and their feet.

    Raises
    ------
    RequestError
        For a square outside the grid, a start or target that is impassable or occupied, a speed that is not a
        multiple of 5 ft, an unknown mode, a target without a charge, a fatigued run or charge, or ``used`` out of
        range or given for a charge or a 5-foot step.
    MapError
        When ``grid`` is a file that cannot be read.

    See Also
    --------
    route : The way to one square, round by round.
    eidomap.plot.plot_grid_reach : Draw the answer.

    Examples
    --------
    >>> import eidomap
    >>> grid = load_grid(eidomap.bundled_map_path("d20-battle.txt"))
    >>> r = reach(grid, (13, 0), 30)
    >>> len(r.feet), max(r.feet.values())
    (35, 30)
    >>> reach(grid, (9, 18), 30, mode="charge", target=(2, 19)).feet
    {(3, 18): 30, (3, 19): 30}

    With 20 ft of the round's 30 already moved, 10 ft are left:

    >>> r = reach(grid, (13, 0), 30, used=20)
    >>> len(r.feet), max(r.feet.values()), r.used
    (7, 10, 20)
    """
    mover = Mover(speed, mode, heavy_armor, flying, fatigued)
    mode = mover.mode
    used = _under_way(mover, used, odd_diagonals)
    if used and mode in (Pace.CHARGE, Pace.STEP):
        raise RequestError(f"used is for a round's movement under way (mode move, double or run), not for mode"
                           f" {str(mode)!r}: " + ("a charge is a full-round action" if mode is Pace.CHARGE else
                                                  "a 5-foot step is taken in a round with no other movement"),
                           param="used")
    target = params.maybe(params.square, target, "target")
    grid, start = _prepare(grid, params.square(at, "at"), mover, allies, enemies, compiled, "at")
    if target is not None:
        if mode is not Pace.CHARGE:
            raise RequestError(f"a target is for a charge (mode 'charge'), not for mode {str(mode)!r}")
        target = grid.check_square(target, "target")
        if grid.flags[target] & IMPASSABLE:
            raise RequestError(f"{grid.where(target)}: the target {format_square(target)} is impassable;"
                               " no creature stands there")
    rows, cols = grid.shape
    s = start[0] * cols + start[1]
    feet: dict[tuple[int, int], int] = {} if mode is Pace.CHARGE else {start: 0}
    mult, enterable, can_end, _ = grid_arrays(grid, flying)
    if mode is Pace.STEP:
        if mover.squares > 1:  # never for speed 5 ft or less: one clear square, any of the 8
            ways = step_masks(mult, enterable, rows, cols)[s]
            for k, (dr, dc) in enumerate(DIRECTIONS):
                q = s + dr * cols + dc
                if (ways >> k) & 1 and mult[q] == 1 and can_end[q]:
                    feet[divmod(int(q), cols)] = FEET_PER_SQUARE
        return GridReach(start, mover, feet)
    if mover.straight and not used:  # (a run does not begin in a round under way: it goes on step by step)
        ends, why = _line_ends(grid, mover, s, target, compiled)
        for q, squares in sorted(ends.items(), key=lambda e: e[1]):
            feet[divmod(q, cols)] = squares * FEET_PER_SQUARE
        return GridReach(start, mover, feet, why=why)
    lab, _, _ = _plan(grid, mover, s, -1, compiled, (), mover.step_budget - used // FEET_PER_SQUARE,
                      int(odd_diagonals))
    sq = lab[:, NODE] // 2
    full = lab[:, KIND] == FULL
    moved = ~full & can_end[sq]
    best = np.full(rows * cols, np.iinfo(np.int64).max)
    np.minimum.at(best, sq[moved], lab[moved, SPENT])
    for q in np.flatnonzero(best < np.iinfo(np.int64).max).tolist():
        feet[divmod(int(q), cols)] = int(best[q]) * FEET_PER_SQUARE
    return GridReach(start, mover, feet, sorted({divmod(int(q), cols) for q in sq[full].tolist()}), used=used)

def route(grid: Grid | str | os.PathLike, start: Sequence[int], goal: Sequence[int], speed: int = 30, *,
          mode: Pace | str = Pace.MOVE, heavy_armor: bool = False, flying: bool = False, fatigued: bool = False,
          allies: Iterable[Sequence[int]] = (), enemies: Iterable[Sequence[int]] = (),
          via: Iterable[Sequence[int]] = (), used: int = 0, odd_diagonals: bool = False,
          compiled: bool | None = None) -> GridRoute:
    """The way from ``start`` to ``goal`` in the fewest rounds, then the fewest feet, through stops on the way.

    Each round moves as ``mode`` says (a runner who cannot run through a square takes a double move that
    round); where no movement of the round reaches a neighbouring square, the full-round one-square move
    takes it.  Each round says the least action that makes it.  An occupied goal cannot be reached
    (``rounds`` None, ``why`` says so).

    Parameters
    ----------
    grid : Grid, str or Path
        The battle grid, or its file.
    start, goal : (int, int)
        Squares (row, column from 0 at the top left).
    speed : int
        The speed in feet (a multiple of 5).
    mode : Pace or {"move", "double", "run"}
        The movement of each round.
    heavy_armor : bool
        Runs at x3 instead of x4.
    flying : bool
        Difficult terrain does not hamper.
    fatigued : bool
        A fatigued character cannot run.
    allies, enemies : sequence of (int, int)
        Creatures added to the grid's: allies can be passed through, enemies cannot.
    via : sequence of (int, int)
        Squares to pass, in this order (at most :data:`MAX_STOPS`), on the way to ``goal``: a stop is passed
        when any square the route enters is it (each square of a run too; it may be an ally's, which is passed
        but not ended on).  A stop ends no round: the round and what is left of it go on, and the answer is the
        best whole journey, not legs each best on its own (docs/d20.md, "Stops and a round under way").
    used : int
        Feet of this round's movement already used (a multiple of 5, at most the round's movement: the speed in
        mode ``"move"``, twice it in ``"double"`` and ``"run"``):
        round 1 goes on with the rest of it, step by step -- neither a run nor the full-round one-square move
        begins in a round already under way --, and its action counts the feet already moved.
    odd_diagonals : bool
        An odd number of diagonals is among the ``used`` feet: the next clear diagonal of round 1 costs 10 ft.
    compiled : bool, optional
        Use the numba-compiled search (default: when it may try more than
        :data:`eidomap.base.settings.COMPILE_ABOVE` steps -- above :data:`COMPILE_ABOVE` squares for a walker
        without stops; fewer through stops, and far fewer for a runner, whose every round tries straight lines).

    Returns
    -------
    GridRoute
        The route round by round, and its legs through the stops.

    Raises
    ------
    RequestError
        For a square outside the grid, an impassable start, goal or stop, an occupied start, a speed that is not a
        multiple of 5 ft, a mode a route does not move by, too many stops, or ``used`` out of range.
    MapError
        When ``grid`` is a file that cannot be read.

    See Also
    --------
    reach : Every square of this round.
    eidomap.plot.plot_grid_route : Draw the route.

    Examples
    --------
    >>> import eidomap
    >>> grid = load_grid(eidomap.bundled_map_path("d20-battle.txt"))
    >>> r = route(grid, (13, 0), (8, 15), 30)
    >>> r.rounds, r.feet, r.round_ends
    (3, 85, [(10, 5), (9, 11), (8, 15)])
    >>> r.legs[0].action
    'move'

    Through the ruined chapel's doorway first, with 15 ft of this round already moved:

    >>> r = route(grid, (13, 0), (8, 15), 30, via=[(5, 5)], used=15)
    >>> r.rounds, [(leg.goal, leg.round) for leg in r.via_legs]
    (5, [((5, 5), 3), ((8, 15), 5)])
    """
    mover = Mover(speed, mode, heavy_armor, flying, fatigued)
    if mover.mode not in (Pace.MOVE, Pace.DOUBLE, Pace.RUN):
        raise RequestError(f"a route moves by move, double or run rounds, not {str(mover.mode)!r}")
    goal = params.square(goal, "goal")
    stops = params.squares(via, "via")
    if len(stops) > MAX_STOPS:
        raise RequestError(f"via must be at most {MAX_STOPS} stops, got {len(stops)}", param="via")
    used = _under_way(mover, used, odd_diagonals)
    grid, start = _prepare(grid, params.square(start, "start"), mover, allies, enemies, compiled)
    goal = grid.check_square(goal, "goal")
    if grid.flags[goal] & IMPASSABLE:
        raise RequestError(f"{grid.where(goal)}: the goal {format_square(goal)} is impassable")
    rows, cols = grid.shape
    for sq in stops:
        if not (0 <= sq[0] < rows and 0 <= sq[1] < cols):  # (as Grid.check_square says it, the parameter named)
            raise RequestError(f"{shown(grid.source)}: stop {format_square(sq)} of via=... is outside the grid"
                               f" ({rows} rows x {cols} columns)")
        if grid.flags[sq] & IMPASSABLE:
            raise RequestError(f"{grid.where(sq)}: stop {format_square(sq)} of via=... is impassable")
    if rows * cols * (len(stops) + 1) > MAX_LAYERED_SQUARES:
        raise RequestError(f"via has {len(stops)} stops: on a grid of {rows * cols:,} squares the search would"
                           f" hold {rows * cols * (len(stops) + 1):,} squares-and-stops, more than"
                           f" {MAX_LAYERED_SQUARES:,}; give fewer stops", param="via")
    answer = partial(GridRoute, start, goal, mover, via=stops, used=used)
    if start == goal and all(sq == start for sq in stops):
        return answer(0, 0, [start], via_legs=[GridLeg(start, sq, 0, 0, 0) for sq in [*stops, goal]])
    why = _occupied(grid, goal, "goal", "no move ends there")
    for sq in stops:
        why = why or (_occupied(grid, sq, "stop", "no move enters it") if grid.occupant[sq] != ALLY else "")
    if why:
        return answer(why=why)
    flat = [r * cols + c for r, c in stops]
    lab, best, mult = _plan(grid, mover, start[0] * cols + start[1], goal[0] * cols + goal[1], compiled, flat,
                            mover.step_budget - used // FEET_PER_SQUARE, int(odd_diagonals))
    if best < 0:
        return answer(why=_no_leg(grid, mover, [start, *stops, goal], compiled) if stops else "")
    path, legs, spent, when = [start], [], [0], [0]  # each square of the path: its squares spent and round
    moved = used // FEET_PER_SQUARE
    # the goal's chain (a few hundred labels) read as Python numbers, not as a numpy scalar for each column read
    chain = lab.tolist()
    for t, labels in groupby(range(1, len(chain)), key=lambda b: chain[b][T]):  # each round's labels, in order
        first, ks = len(path), [*labels]
        for k in ks:
            here = divmod(chain[k][NODE] // 2, cols)
            if chain[k][KIND] == LINE:  # a run: over clear squares, its diagonals 1, 2, 1, ... from the round's start
                prev = path[-1]
                for dr, dc in line(here[0] - prev[0], here[1] - prev[1]):  # (a line's first squares cost their
                    path.append((prev[0] + dr, prev[1] + dc))                 # own line's: one square a step along
                    spent.append(chain[k - 1][SPENT] + line_cost(dr, dc))     # its longer side)
                    when.append(t)
            else:
                path.append(here)
                spent.append(chain[k][SPENT])
                when.append(t)
        paid = chain[ks[-1]][SPENT] - chain[ks[0] - 1][SPENT]  # in squares (5 ft each)
        end = path[-1]
        before = moved if t == 1 else 0  # (round 1: the feet already moved count toward its action)
        clear_step = len(path) - first == 1 and paid == 1 and mult[end[0] * cols + end[1]] == 1 and not before
        legs.append(Round(t, path[first:], paid * FEET_PER_SQUARE,
                          mover.action(paid + before, clear_step, chain[ks[0]][KIND] == FULL)))
    return answer(legs[-1].round, chain[best][SPENT] * FEET_PER_SQUARE, path, legs,
                  via_legs=_via_legs(path, spent, when, stops, goal))


def _occupied(grid: Grid, sq: tuple[int, int], what: str, so: str) -> str:
    """Why a route cannot end at (or pass) ``sq`` when a creature stands there ("" when none does)."""
    who = grid.occupant[sq]
    if not who:
        return ""
    return f"the {what} {format_square(sq)} is occupied by {'an ally' if who == ALLY else 'an enemy'}: {so}"


def _no_leg(grid: Grid, mover: Mover, squares: list[tuple[int, int]], compiled) -> str:
    """Why a route through stops (``squares``: start, stops, goal) has no way: the first leg with none at all (the
    rounds counted back from its end: :func:`eidomap.search.grid.rounds_to`), or "" when each leg has one."""
    rows, cols = grid.shape
    count = _fn("rounds_to", rows * cols * len(DIRECTIONS), compiled)
    mult, enterable, _, _ = grid_arrays(grid, mover.flying, count is not search.rounds_to)
    mask = step_masks(mult, enterable, rows, cols)
    budget = max(mover.step_budget, mover.budget if mover.mode is Pace.RUN else 0)
    for a, b in pairwise(squares):
        x, y = a[0] * cols + a[1], b[0] * cols + b[1]
        if x != y and count(mult, mask, cols, y, budget, x, -1)[0][x] < 0:
            return f"no way from {format_square(a)} to {format_square(b)}"
    return ""


def _via_legs(path: list[tuple[int, int]], spent: list[int], when: list[int], stops: list[tuple[int, int]],
              goal: tuple[int, int]) -> list[GridLeg]:
    """The legs of a route through ``stops``: each ends at the first square of the ``path`` (whose squares spent
    and round are ``spent`` and ``when``) where one more stop is passed -- the start counts --, the last at the
    goal."""
    ends, i = [], 0
    for k, sq in enumerate(path):
        while i < len(stops) and stops[i] == sq:
            ends.append(k)
            i += 1
    ends.append(len(path) - 1)
    out, a = [], 0
    for b, sq in zip(ends, [*stops, goal], strict=True):
        out.append(GridLeg(path[a], sq, b - a, (spent[b] - spent[a]) * FEET_PER_SQUARE, when[b]))
        a = b
    return out
