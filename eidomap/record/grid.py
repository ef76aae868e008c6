"""The d20 battle grid's squares: their flags and occupants, and the :class:`Grid` that holds them.

A square is named ``R,C`` (row, column, from 0 at the top left).  Arrays
only: the grid text file is read by :mod:`eidomap.io.grid`.

>>> g = grid_from_array([[0, DIFFICULT, IMPASSABLE], [0, 0, 0]], [[0, 0, 0], [0, ALLY, 0]])
>>> g.shape, g.flags[0, 1] == DIFFICULT, g.occupant[1, 1] == ALLY
((2, 3), np.True_, np.True_)
>>> g.where((0, 2))
'<array>: square 0,2'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from eidomap.base import params
from eidomap.base.errors import MapError, RequestError
from eidomap.base.names import shown
from eidomap.base.params import read_whole

#: Square flags (bits of ``Grid.flags``).
DIFFICULT, OBSTACLE, POOR_VISIBILITY, IMPASSABLE = 1, 2, 4, 8
#: The three conditions of Table 7-7 that hamper movement.
HAMPERING = (DIFFICULT, OBSTACLE, POOR_VISIBILITY)
#: Occupants (``Grid.occupant``): nobody, an ally, an enemy.
NOBODY, ALLY, ENEMY = 0, 1, 2
#: Largest number of rows and of columns.
MAX_SIDE = 1000


@dataclass
class Grid:
    """A battle grid of 5-ft squares: what each square is, and who stands on it.

    Attributes
    ----------
    flags : numpy.ndarray of uint8, shape (rows, columns)
        Each square's bits: ``DIFFICULT``, ``OBSTACLE``, ``POOR_VISIBILITY``, ``IMPASSABLE``.
    occupant : numpy.ndarray of uint8, shape (rows, columns)
        Who stands there: 0 (nobody), ``ALLY`` (1) or ``ENEMY`` (2).
    source : str
        Where it came from (a file), named in errors.
    row_lines : list of int
        The file line of each row (from 1), so that errors can point at a square in the file.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.answers.grid import load_grid
    >>> grid = load_grid(eidomap.bundled_map_path("d20-battle.txt"))
    >>> grid.shape, grid.where((2, 3)).rsplit("/", 1)[-1]
    ((14, 22), 'd20-battle.txt:7:4')
    """

    flags: np.ndarray
    occupant: np.ndarray
    source: str = "<array>"
    row_lines: list[int] = field(default_factory=list)

    @property
    def shape(self) -> tuple[int, int]:
        """Rows and columns."""
        return self.flags.shape

    @property
    def rules(self) -> str:
        """The rule set the grid is drawn for (:mod:`eidomap.record.rulesets`), as :attr:`Map.rules
        <eidomap.Map.rules>` is a map's: ``"d20"``, whose movement chapter its legend is written in (Table 7-7's
        hampered squares; docs/d20.md) -- a grid file names no other."""
        return "d20"

    def where(self, sq: Sequence[int]) -> str:
        """Where a square is, for a message: ``FILE:LINE:COL`` (``FILE: square R,C`` for a grid not read from a file).

        Parameters
        ----------
        sq : (int, int)
            The square.

        Returns
        -------
        str
            Its place.
        """
        r, c = sq
        if 0 <= r < len(self.row_lines):
            return f"{shown(self.source)}:{self.row_lines[r]}:{c + 1}"
        return f"{shown(self.source)}: square {format_square(sq)}"

    def check_square(self, sq: Sequence[int], what: str) -> tuple[int, int]:
        """``sq`` if inside the grid, else a :class:`~eidomap.base.errors.RequestError` naming it.

        Parameters
        ----------
        sq : (int, int)
            The square.
        what : str
            What it is, for the message (``"start"``, ``"goal"``).

        Returns
        -------
        (int, int)
            The square.
        """
        rows, cols = self.shape
        try:
            r, c = params.square(sq, "sq")
        except RequestError:
            raise RequestError(f"{self.source}: {what} {params.shown(sq)} is not a square: two whole numbers (row,"
                               " column)") from None
        if not (0 <= r < rows and 0 <= c < cols):
            raise RequestError(f"{shown(self.source)}: {what} {format_square(sq)} is outside the grid"
                               f" ({rows} rows x {cols} columns)")
        return r, c

    def with_occupants(self, allies: Iterable[Sequence[int]] = (), enemies: Iterable[Sequence[int]] = ()) -> Grid:
        """A copy with these squares occupied by allies and by enemies (never on a wall).

        Parameters
        ----------
        allies, enemies : sequence of (int, int)
            The squares.

        Returns
        -------
        Grid
            The copy; a :class:`~eidomap.base.errors.RequestError` for a square outside the grid or impassable.
        """
        occ = self.occupant.copy()
        for squares, who, what in ((allies, ALLY, "ally"), (enemies, ENEMY, "blocked square")):
            for sq in squares:
                r, c = self.check_square(sq, what)
                if self.flags[r, c] & IMPASSABLE:
                    raise RequestError(f"{self.where(sq)}: {what} {format_square(sq)} is impassable;"
                                       " no creature stands there")
                occ[r, c] = who
        return Grid(self.flags, occ, self.source, self.row_lines)


def format_square(sq: Sequence[int]) -> str:
    """``(3, 4)`` -> ``"3,4"``."""
    return f"{int(sq[0])},{int(sq[1])}"


def parse_square(text: str, what: str = "square") -> tuple[int, int]:
    """``"3,4"`` -> ``(3, 4)``; :class:`RequestError` for anything else.

    >>> parse_square(" 3, 4")
    (3, 4)
    """
    parts = [read_whole(p) for p in text.split(",")]  # the digits 0-9, as the battle page reads a square
    if len(parts) == 2 and None not in parts:
        return parts[0], parts[1]  # type: ignore[return-value]
    raise RequestError(f"{what} must be R,C (row,column from 0 at the top left), got {text!r}")


def parse_squares(text: str, what: str = "squares") -> list[tuple[int, int]]:
    """``"1,2;3,4"`` -> ``[(1, 2), (3, 4)]``."""
    return [parse_square(p, what) for p in text.split(";") if p.strip()]


def grid_from_array(flags: npt.ArrayLike, occupant: npt.ArrayLike | None = None, source: str = "<array>") -> Grid:
    """A :class:`Grid` from an array of per-square flags (and occupants), checked.

    Parameters
    ----------
    flags : array of int, shape (rows, columns)
        Each square's bits, 0 to 15: ``DIFFICULT | OBSTACLE | POOR_VISIBILITY | IMPASSABLE``.
    occupant : array of int, optional
        0, ``ALLY`` (1) or ``ENEMY`` (2) per square (default: nobody).
    source : str
        What to call the grid in errors.

    Returns
    -------
    Grid
        The grid.

    Raises
    ------
    MapError
        For flags that are not a 2-D integer array of values 0 to 15 (or larger than the largest grid), or
        occupants of another shape or value.

    See Also
    --------
    eidomap.answers.grid.load_grid : A grid from its text file.

    Examples
    --------
    >>> grid_from_array([[0, DIFFICULT | OBSTACLE]]).shape
    (1, 2)
    """
    source = params.text(source, "source", "text (what to call the grid)")
    f = params.array(flags, "flags", "a 2-D array of whole numbers (rows of one length)")
    if f.ndim != 2 or f.size == 0 or f.shape[0] > MAX_SIDE or f.shape[1] > MAX_SIDE:
        raise MapError(source, None, f"flags must be a non-empty 2-D array of at most {MAX_SIDE} x {MAX_SIDE},"
                       f" got shape {f.shape}")
    if not np.issubdtype(f.dtype, np.integer) or f.min() < 0 or f.max() > 15:
        raise MapError(source, None, "flags must be integers from 0 to 15 (DIFFICULT | OBSTACLE | ...)")
    o = np.zeros(f.shape, np.uint8) if occupant is None else params.array(occupant, "occupant",
                                                                           "an array of the shape of flags")
    if o.shape != f.shape or not np.isin(o, (NOBODY, ALLY, ENEMY)).all():
        raise MapError(source, None, "occupant must have the shape of flags and hold 0, ALLY (1) or ENEMY (2)")
    return Grid(f.astype(np.uint8), o.astype(np.uint8), source)
