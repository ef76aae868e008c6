"""The d20 battle grid: 5-ft squares with flags, read from a text file or an array.

One character a square, rows top to bottom; a square is named ``R,C`` (row,
column, from 0 at the top left).  Lines starting with ``;`` are comments; a
comment ``; legend: c=difficult+obstacle w=impassable`` adds or redefines
characters.  Empty lines are ignored.  Every error names the file, the line
and the column where it applies (both from 1).

>>> g = parse_grid(".d#\\n.a.\\n", "battle.txt")
>>> g.shape, g.flags[0, 1] == DIFFICULT, g.occupant[1, 1] == ALLY
((2, 3), np.True_, np.True_)
>>> g.where((0, 2))
'battle.txt:1:3'
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ...errors import MapError, RequestError
from ...io.files import read_bounded

__all__ = [
    "ALLY",
    "DIFFICULT",
    "ENEMY",
    "HAMPERING",
    "IMPASSABLE",
    "LEGEND",
    "MAX_SIDE",
    "OBSTACLE",
    "POOR_VISIBILITY",
    "TERMS",
    "Grid",
    "flags_char",
    "format_square",
    "grid_from_array",
    "parse_grid",
    "parse_square",
    "parse_squares",
    "read_grid",
]

#: Square flags (bits of ``Grid.flags``).
DIFFICULT, OBSTACLE, POOR_VISIBILITY, IMPASSABLE = 1, 2, 4, 8
#: The three conditions of Table 7-7 that hamper movement.
HAMPERING = (DIFFICULT, OBSTACLE, POOR_VISIBILITY)
#: Occupants (``Grid.occupant``): nobody, an ally, an enemy.
NOBODY, ALLY, ENEMY = 0, 1, 2
#: Largest number of rows and of columns.
MAX_SIDE = 1000
#: Largest grid file read (bytes): a full grid and plenty of comments.
MAX_GRID_BYTES = 16 * 1024**2
#: Words of a legend and of Tiled's ``d20`` property: a flag, or an occupant (negative).
TERMS = {"clear": 0, "difficult": DIFFICULT, "obstacle": OBSTACLE, "poor_visibility": POOR_VISIBILITY,
         "impassable": IMPASSABLE, "ally": -ALLY, "enemy": -ENEMY}
#: Default legend: character -> (flags, occupant).
LEGEND: dict[str, tuple[int, int]] = {
    ".": (0, NOBODY), "#": (IMPASSABLE, NOBODY), "d": (DIFFICULT, NOBODY), "o": (OBSTACLE, NOBODY),
    "v": (POOR_VISIBILITY, NOBODY), "B": (DIFFICULT | OBSTACLE, NOBODY),
    "D": (DIFFICULT | POOR_VISIBILITY, NOBODY), "O": (OBSTACLE | POOR_VISIBILITY, NOBODY),
    "X": (DIFFICULT | OBSTACLE | POOR_VISIBILITY, NOBODY), "a": (0, ALLY), "e": (0, ENEMY),
}


@dataclass
class Grid:
    """A battle grid: per-square ``flags`` (bits) and ``occupant`` (0, ALLY, ENEMY).

    ``source`` names where it came from and ``row_lines[r]`` the file line of
    row ``r`` (1-based), so that errors can point at a square in the file.
    """

    flags: np.ndarray
    occupant: np.ndarray
    source: str = "<array>"
    row_lines: list[int] = field(default_factory=list)

    @property
    def shape(self) -> tuple[int, int]:
        return self.flags.shape

    def where(self, sq: tuple[int, int]) -> str:
        """``FILE:LINE:COL`` of a square (``FILE: square R,C`` for a grid not read from a file)."""
        r, c = sq
        if 0 <= r < len(self.row_lines):
            return f"{self.source}:{self.row_lines[r]}:{c + 1}"
        return f"{self.source}: square {format_square(sq)}"

    def check_square(self, sq: tuple[int, int], what: str) -> tuple[int, int]:
        """``sq`` if inside the grid, else :class:`RequestError` naming it."""
        rows, cols = self.shape
        r, c = sq
        if not (0 <= r < rows and 0 <= c < cols):
            raise RequestError(f"{self.source}: {what} {format_square(sq)} is outside the grid"
                               f" ({rows} rows x {cols} columns)")
        return sq

    def with_occupants(self, allies=(), enemies=()) -> Grid:
        """A copy with these squares occupied by allies and by enemies (never on a wall)."""
        occ = self.occupant.copy()
        for squares, who, what in ((allies, ALLY, "ally"), (enemies, ENEMY, "blocked square")):
            for sq in squares:
                r, c = self.check_square(sq, what)
                if self.flags[r, c] & IMPASSABLE:
                    raise RequestError(f"{self.where(sq)}: {what} {format_square(sq)} is impassable;"
                                       " no creature stands there")
                occ[r, c] = who
        return Grid(self.flags, occ, self.source, self.row_lines)


def format_square(sq) -> str:
    """``(3, 4)`` -> ``"3,4"``."""
    return f"{int(sq[0])},{int(sq[1])}"


def parse_square(text: str, what: str = "square") -> tuple[int, int]:
    """``"3,4"`` -> ``(3, 4)``; :class:`RequestError` for anything else.

    >>> parse_square(" 3, 4")
    (3, 4)
    """
    parts = text.split(",")
    try:
        if len(parts) == 2:
            return int(parts[0]), int(parts[1])
    except ValueError:
        pass
    raise RequestError(f"{what} must be R,C (row,column from 0 at the top left), got {text!r}")


def parse_squares(text: str, what: str = "squares") -> list[tuple[int, int]]:
    """``"1,2;3,4"`` -> ``[(1, 2), (3, 4)]``."""
    return [parse_square(p, what) for p in text.split(";") if p.strip()]


def _legend_line(text: str, path: str, line: int, legend: dict) -> None:
    """Apply ``legend: c=difficult+obstacle x=impassable`` (the text after ``;``)."""
    offset = text.index("legend:") + len("legend:")
    for token in text[offset:].split():
        col = text.index(token, offset) + 2  # +1 for the ';', +1 for 1-based
        offset = text.index(token, offset) + len(token)
        if len(token) < 3 or token[1] != "=" or token[0] == ";":
            raise MapError(f"{path}:{line}:{col}", None, f"legend entry {token!r} is not CHAR=TERM[+TERM...]")
        flags = occupant = 0
        for term in token[2:].split("+"):
            if term not in TERMS:
                raise MapError(f"{path}:{line}:{col}", None,
                               f"legend term {term!r} is unknown (known: {', '.join(TERMS)})")
            value = TERMS[term]
            flags, occupant = (flags | value, occupant) if value >= 0 else (flags, -value)
        legend[token[0]] = (flags, occupant)


def _unknown_character(ch: str, legend: dict) -> str:
    """What to say of a square character the legend lacks: how to name it, with the character found.

    >>> _unknown_character("x", LEGEND)[-55:]
    "ally, enemy; 'X' is difficult+obstacle+poor_visibility)"
    """
    if ch.isspace() or ch == ";":
        return (f"unknown square character {ch!r} (a legend cannot name it: write the square with another"
                " character, naming it in a comment line such as '; legend: c=difficult' if it is not in the legend)")
    known = {v: k for k, v in TERMS.items() if v > 0}
    twin = ch.swapcase()
    if twin != ch and twin in legend:
        flags, occupant = legend[twin]
        terms = [known[f] for f in (*HAMPERING, IMPASSABLE) if flags & f] + [
            k for k, v in TERMS.items() if v == -occupant and occupant]
        also = f"; {twin!r} is {'+'.join(terms) or 'clear'}"
    else:
        also = ""
    return (f"unknown square character {ch!r} (name it with a comment line such as '; legend: {ch}=difficult',"
            f" terms joined with +: {', '.join(TERMS)}{also})")


def parse_grid(text: str, path: str = "<text>") -> Grid:
    """A :class:`Grid` from the text of a grid file (see the module docstring)."""
    legend = dict(LEGEND)
    rows: list[str] = []
    lines: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if line.startswith(";"):
            if line[1:].lstrip().startswith("legend:"):
                _legend_line(line[1:], path, number, legend)
            continue
        if not line:
            continue
        if rows and len(line) != len(rows[0]):
            col = min(len(line), len(rows[0])) + 1
            raise MapError(f"{path}:{number}:{col}", None, f"row {len(rows)} has {len(line)} squares, the rows"
                           f" above have {len(rows[0])} (rows must all be the same length)")
        if len(line) > MAX_SIDE or len(rows) == MAX_SIDE:
            col = MAX_SIDE + 1 if len(line) > MAX_SIDE else 1
            raise MapError(f"{path}:{number}:{col}", None, f"the grid is larger than {MAX_SIDE} x {MAX_SIDE} squares")
        bad = next((i for i, ch in enumerate(line) if ch not in legend), None)
        if bad is not None:
            raise MapError(f"{path}:{number}:{bad + 1}", None, _unknown_character(line[bad], legend))
        rows.append(line)
        lines.append(number)
    if not rows:
        raise MapError(f"{path}:1:1", None, "holds no grid rows (an empty grid)")
    chars = np.array([list(r) for r in rows])
    flags = np.zeros(chars.shape, np.uint8)
    occupant = np.zeros(chars.shape, np.uint8)
    for ch, (f, o) in legend.items():
        hit = chars == ch
        flags[hit] = f
        occupant[hit] = o
    return Grid(flags, occupant, str(path), lines)


def read_grid(path: str | os.PathLike) -> Grid:
    """Read a grid file (UTF-8 text, bounded in size)."""
    data = read_bounded(path, MAX_GRID_BYTES)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise MapError(f"{path}:{line}:{col}", None, "is not UTF-8 text") from None
    return parse_grid(text, str(path))


def grid_from_array(flags, occupant=None, source: str = "<array>") -> Grid:
    """A :class:`Grid` from an array of per-square flags (and occupants), checked.

    >>> grid_from_array([[0, DIFFICULT | OBSTACLE]]).shape
    (1, 2)
    """
    f = np.asarray(flags)
    if f.ndim != 2 or f.size == 0 or f.shape[0] > MAX_SIDE or f.shape[1] > MAX_SIDE:
        raise MapError(source, None, f"flags must be a non-empty 2-D array of at most {MAX_SIDE} x {MAX_SIDE},"
                       f" got shape {f.shape}")
    if not np.issubdtype(f.dtype, np.integer) or f.min() < 0 or f.max() > 15:
        raise MapError(source, None, "flags must be integers from 0 to 15 (DIFFICULT | OBSTACLE | ...)")
    o = np.zeros(f.shape, np.uint8) if occupant is None else np.asarray(occupant)
    if o.shape != f.shape or not np.isin(o, (NOBODY, ALLY, ENEMY)).all():
        raise MapError(source, None, "occupant must have the shape of flags and hold 0, ALLY (1) or ENEMY (2)")
    return Grid(f.astype(np.uint8), o.astype(np.uint8), source)


def flags_char(flags: np.ndarray) -> np.ndarray:
    """The default legend's character for each square's flags (impassable wins).

    >>> flags_char(np.array([[0, DIFFICULT | POOR_VISIBILITY, IMPASSABLE | OBSTACLE]])).tolist()
    [['.', 'D', '#']]
    """
    by_flags = {f: ch for ch, (f, o) in LEGEND.items() if o == NOBODY}
    table = np.array([by_flags[IMPASSABLE if v & IMPASSABLE else v] for v in range(16)])
    return table[np.asarray(flags, np.int64) & 15]
