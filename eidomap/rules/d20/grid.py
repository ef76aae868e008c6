"""d20 tactical movement as arrays: budgets per round, step costs, straight lines.

Everything is counted in squares (1 square = 5 ft); every cost is a whole
number of squares.  The rules and eidomap's reading of each are in docs/d20.md
("Tactical movement on the battle grid").

* A round's budget (Table 7-6): ``move`` the speed, ``double`` twice it,
  ``run`` four times (three in heavy armour), ``charge`` twice.
* Entering a square costs 1, times 2 for each hampering condition (Table 7-7):
  difficult terrain (ignored by flyers), obstacle, poor visibility.
* Diagonals alternate 1, 2, 1, ... squares (the count starts again each round);
  a diagonal into a hampered square costs 1.5 times its multiplier (3, 6, 12)
  and, being worth two diagonals, leaves the alternation where it was.
* No diagonal past the corner of an impassable square.

The grid becomes a CSR over ``node = 2 * square + parity`` (parity 1: the next
clear diagonal costs 2), which :mod:`eidomap.search.grid` searches.

>>> m = Mover(speed=30)
>>> m.budget, Mover(30, "run", heavy_armor=True).budget
(6, 18)
>>> line(3, 1)
[(1, 0), (2, 1), (3, 1)]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.modes import Mode
from eidomap.record.grid import DIFFICULT, ENEMY, HAMPERING, IMPASSABLE, Grid

FEET_PER_SQUARE = 5
#: Fastest speed accepted (feet a move action).
MAX_SPEED = 1000


class Pace(Mode):
    """The movement of a round (Table 7-6): a move action, a double move (hustle), a run, a charge, or the
    5-foot step."""

    MOVE = "move"
    DOUBLE = "double"
    RUN = "run"
    CHARGE = "charge"
    STEP = "step"


#: Movement of a round: pace -> multiple of the speed (``run`` in heavy armour: 3).
MODES: dict[str, int] = {Pace.MOVE: 1, Pace.DOUBLE: 2, Pace.RUN: 4, Pace.CHARGE: 2, Pace.STEP: 0}
#: The actions a round of a route may take, from the least (:meth:`Mover.action`).
FIVE_FOOT_STEP, MOVE, DOUBLE_MOVE, RUN, FULL_ROUND = "5-ft step", "move", "double move", "run", "full-round 5 ft"
ACTIONS = (FIVE_FOOT_STEP, MOVE, DOUBLE_MOVE, RUN, FULL_ROUND)
#: The 8 neighbours: (d row, d col), orthogonal first.
DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


@dataclass(frozen=True)
class Mover:
    """Who moves and how: speed in feet, the round's mode, armour, flight, fatigue.

    ``mode`` is a :class:`Pace` or its word: ``move`` (a move action),
    ``double`` (hustle), ``run``, ``charge`` or ``step`` (the 5-foot step).
    A fatigued character can neither run nor charge (the chapter's fatigue
    rule).
    """

    speed: int
    mode: Pace | str = Pace.MOVE
    heavy_armor: bool = False
    flying: bool = False
    fatigued: bool = False

    def __post_init__(self) -> None:
        s = self.speed
        if isinstance(s, bool) or not isinstance(s, int | np.integer) or not 0 < s <= MAX_SPEED \
                or s % FEET_PER_SQUARE:
            raise RequestError(f"speed must be a multiple of 5 ft from 5 to {MAX_SPEED}, got {s!r}")
        object.__setattr__(self, "mode", Pace.checked(self.mode, "mode"))
        object.__setattr__(self, "speed", int(s))  # (held as plain Python values, as every answer holds them)
        for name in ("heavy_armor", "flying", "fatigued"):
            object.__setattr__(self, name, params.flag(getattr(self, name), name))
        if self.fatigued and self.straight:
            raise RequestError(f"a fatigued character can neither run nor charge (mode {str(self.mode)!r}):"
                               " choose move or double")

    @property
    def squares(self) -> int:
        """The speed in squares."""
        return int(self.speed) // FEET_PER_SQUARE

    @property
    def budget(self) -> int:
        """Squares of movement in a round of this mode (Table 7-6); 1 for the 5-foot step."""
        if self.mode is Pace.STEP:
            return 1
        factor = 3 if self.mode is Pace.RUN and self.heavy_armor else MODES[self.mode]
        return factor * self.squares

    @property
    def straight(self) -> bool:
        """Does a round of this mode go in a straight line (run, charge)?"""
        return self.mode in (Pace.RUN, Pace.CHARGE)

    @property
    def step_budget(self) -> int:
        """Squares a round's step-by-step movement may cost: the budget, but a double move's for a
        runner (a runner who cannot run through a square takes a double move that round)."""
        return 2 * self.squares if self.mode is Pace.RUN else self.budget

    def action(self, squares: int, clear_step: bool, full_round: bool) -> str:
        """The least action that makes a round's movement of ``squares`` squares (see :data:`ACTIONS`).

        ``clear_step``: the round moved one square into clear terrain, for 5 ft.

        >>> [Mover(30, "run").action(n, n == 1, False) for n in (1, 6, 12, 24)]
        ['5-ft step', 'move', 'double move', 'run']
        """
        if full_round:
            return FULL_ROUND
        if clear_step and self.squares > 1:
            return FIVE_FOOT_STEP
        if squares <= self.squares:
            return MOVE
        return DOUBLE_MOVE if squares <= 2 * self.squares else RUN


def multipliers(grid: Grid, flying: bool = False) -> np.ndarray:
    """Per square, the cost of entering it in squares: 2 ** (hampering conditions); 0 if impassable.

    >>> from eidomap.answers.grid import parse_grid
    >>> multipliers(parse_grid(".dD#")).tolist()
    [[1, 2, 4, 0]]
    """
    return _by_flags(flying)[grid.flags]


def _by_flags(flying: bool) -> np.ndarray:
    """The multiplier of each flag byte (256 of them, int64)."""
    f = np.arange(256)
    count = sum(((f & h) != 0).astype(np.int64) for h in HAMPERING if not (flying and h == DIFFICULT))
    return np.where(f & IMPASSABLE, 0, 1 << count)


@dataclass
class GridNet:
    """A grid compiled for one mover: the CSR over squares x parity and per-square arrays.

    Edge ``e`` goes from node ``u`` (= 2 * square + parity) to ``dst[e]`` at
    ``cost[e]`` squares.  Per square ``s``: ``can_end[s]`` (a move may end
    there: passable and not occupied), ``mult[s]`` (the cost of entering it,
    0 if impassable) and ``occupant[s]``.  Enemies' and impassable squares
    have no incoming edge.
    """

    shape: tuple[int, int]
    indptr: np.ndarray
    dst: np.ndarray
    cost: np.ndarray
    can_end: np.ndarray
    mult: np.ndarray
    occupant: np.ndarray


#: The row and column change of each of the :data:`DIRECTIONS`.
DIR_ROW = np.array([d[0] for d in DIRECTIONS], np.int64)
DIR_COL = np.array([d[1] for d in DIRECTIONS], np.int64)


def _enters(mult: np.ndarray, enterable: np.ndarray, rows: int, cols: int, r: int, c: int, k: int) -> bool:
    """Can a step go from square ``(r, c)`` in direction ``k``: onto the grid, into an enterable
    square, and not diagonally past the corner of an impassable square?"""
    rr, cc = r + DIR_ROW[k], c + DIR_COL[k]
    if rr < 0 or rr >= rows or cc < 0 or cc >= cols or not enterable[rr * cols + cc]:
        return False
    return rr == r or cc == c or (mult[r * cols + cc] != 0 and mult[rr * cols + c] != 0)


def step_masks(mult: np.ndarray, enterable: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Per square (flat), a byte whose bit ``k`` says a step in direction ``k`` (:data:`DIRECTIONS`)
    may be taken from it: from a passable square, onto the grid, into an enterable square, and
    not diagonally past the corner of an impassable square.  Vectorised; the searches read
    the steps from it and the multipliers, with no graph built.

    >>> from eidomap.answers.grid import parse_grid
    >>> g = parse_grid(".#\\n..")
    >>> mult = multipliers(g).reshape(-1)
    >>> [bin(b) for b in step_masks(mult, mult != 0, 2, 2)]  # no diagonal past the wall's corner
    ['0b10', '0b0', '0b1001', '0b100']
    """
    passable = mult.reshape(rows, cols) != 0
    ent = np.asarray(enterable).reshape(rows, cols)
    out = np.zeros((rows, cols), np.uint8)
    for k, (dr, dc) in enumerate(DIRECTIONS):
        src = (slice(max(0, -dr), rows - max(0, dr)), slice(max(0, -dc), cols - max(0, dc)))
        dst = (slice(max(0, dr), rows + min(0, dr)), slice(max(0, dc), cols + min(0, dc)))
        ok = passable[src] & ent[dst]
        if dr and dc:  # the two squares beside the diagonal
            ok &= passable[src[0], dst[1]] & passable[dst[0], src[1]]
        out[src] |= ok.astype(np.uint8) << k
    return out.reshape(-1)


def offsets(cols: int) -> np.ndarray:
    """Flat index offsets of the 8 :data:`DIRECTIONS` on a grid ``cols`` squares wide."""
    return DIR_ROW * cols + DIR_COL


def step_cost(mult: np.ndarray, v: int, parity: int, k: int) -> tuple[int, int]:
    """Cost (squares) and diagonal parity after a step into square ``v`` in direction ``k``.

    Orthogonal: the square's multiplier; a clear diagonal: 1 or 2 by the
    parity, which flips; a hampered diagonal: 1.5 times the multiplier, worth
    two diagonals (the parity kept).
    """
    m = mult[v]
    if k < 4:
        return m, parity
    if m == 1:
        return 1 + parity, 1 - parity
    return 3 * m // 2, parity


def step_arrays(mult: np.ndarray, enterable: np.ndarray, rows: int,
                cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The CSR ``(indptr, dst, cost)`` over ``node = 2 * square + parity`` (see the module docstring).

    Plain loops: :mod:`eidomap.base.compiled` compiles this same function.
    """
    n = rows * cols
    count = 0
    for sq in range(n):
        if mult[sq] != 0:
            for k in range(8):
                count += _enters(mult, enterable, rows, cols, sq // cols, sq % cols, k)
    indptr = np.zeros(2 * n + 1, np.int64)
    dst = np.empty(2 * count, np.int64)
    cost = np.empty(2 * count, np.int64)
    e = 0
    for sq in range(n):
        r, c = sq // cols, sq % cols
        for parity in range(2):
            if mult[sq] != 0:
                for k in range(8):
                    if not _enters(mult, enterable, rows, cols, r, c, k):
                        continue
                    v = sq + DIR_ROW[k] * cols + DIR_COL[k]
                    cost[e], p = step_cost(mult, v, parity, k)
                    dst[e] = 2 * v + p
                    e += 1
            indptr[2 * sq + parity + 1] = e
    return indptr, dst, cost


def grid_arrays(grid: Grid, flying: bool = False,
                compact: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per square (flat): ``mult`` (see :func:`multipliers`), ``enterable`` (passable, no enemy),
    ``can_end`` (passable, no creature) and ``occupant``.

    ``mult`` and ``occupant`` are int64, or with ``compact`` a byte each (int8: every multiplier is at most 8),
    for the compiled searches: a 1,000 x 1,000 grid's 1 MB of them stays in the processor's cache where 8 MB
    did not (a route 5 % faster).  The plain searches take int64: NumPy keeps a byte's arithmetic with a
    Python integer in a byte.
    """
    kind = np.int8 if compact else np.int64
    mult = _by_flags(flying).astype(kind)[grid.flags].reshape(-1)
    occupant = grid.occupant.reshape(-1)  # (compared in its own small type, then widened)
    passable = mult != 0
    return mult, passable & (occupant != ENEMY), passable & (occupant == 0), occupant.astype(kind)


def compile_grid(grid: Grid, flying: bool = False,
                 kernel: Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]] = step_arrays) -> GridNet:
    """The CSR of every legal step of the grid, for a flyer or not: the graph for other tools
    (SciPy, NetworkX); eidomap's own searches read :func:`step_masks` instead.

    ``kernel`` builds the CSR: :func:`step_arrays` or its compiled twin.
    """
    mult, enterable, can_end, occupant = grid_arrays(grid, flying)
    indptr, dst, cost = kernel(mult, enterable, *grid.shape)
    return GridNet(grid.shape, indptr, dst, cost, can_end, mult, occupant)


def line_square(i: int, dr: int, dc: int, major: int) -> tuple[int, int]:
    """Square ``i`` (1 to ``major``) of the straight line from ``(0, 0)`` to ``(dr, dc)``,
    ``major`` being ``max(|dr|, |dc|)``: see :func:`line`.  Plain integers, so that the
    searches walk a line without building it."""
    r = (2 * i * abs(dr) + major) // (2 * major)
    c = (2 * i * abs(dc) + major) // (2 * major)
    return (r if dr >= 0 else -r), (c if dc >= 0 else -c)


@lru_cache(maxsize=4096)
def line(dr: int, dc: int) -> list[tuple[int, int]]:
    """The squares of the straight line from ``(0, 0)`` to ``(dr, dc)``, start excluded.

    One square per step along the longer axis; the shorter coordinate is the
    exact line's rounded to the nearest square, a tie (the line through a
    corner) rounding away from the start.  Each step goes to one of the 8
    neighbours, so the line is a path of the grid and costs the 3.5 distance
    (the longer side + half the shorter, rounded down).
    """
    major = max(abs(dr), abs(dc))
    return [line_square(i, dr, dc, major) for i in range(1, major + 1)]


def line_cost(dr: int, dc: int) -> int:
    """Squares a straight move of ``(dr, dc)`` costs over clear squares (diagonals 1, 2, 1, ...).

    >>> line_cost(4, 4), line_cost(5, 2)
    (6, 6)
    """
    a, b = abs(dr), abs(dc)
    return max(a, b) + min(a, b) // 2


#: The functions :func:`step_arrays` and the battle-grid searches call of this module
#: (:func:`eidomap.base.compiled.compiled` registers them).
JIT_HELPERS = (_enters, offsets, step_cost, line_square, line_cost)
