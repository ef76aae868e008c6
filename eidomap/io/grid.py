"""The d20 battle-grid text file: one character a square, read into a :class:`~eidomap.record.grid.Grid`.

Rows top to bottom, one character a square; a square is named ``R,C`` (row,
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

import json
import os
from pathlib import Path

import numpy as np

from eidomap.base import params
from eidomap.base.errors import MapError
from eidomap.base.files import read_bounded
from eidomap.record.grid import (
    ALLY,
    DIFFICULT,
    ENEMY,
    HAMPERING,
    IMPASSABLE,
    MAX_SIDE,
    NOBODY,
    OBSTACLE,
    POOR_VISIBILITY,
    Grid,
)

__all__ = ["parse_grid", "read_grid"]

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
    r"""A :class:`~eidomap.answers.grid.Grid` from the text of a grid file (see the module docstring).

    Parameters
    ----------
    text : str
        The grid: one character a square, rows top to bottom; ``;`` comments, ``; legend: c=difficult``.
    path : str
        What to call it in errors.

    Returns
    -------
    Grid
        The grid.

    Raises
    ------
    MapError
        For an unknown character, ragged rows, a malformed legend or a grid too large; the message names
        ``PATH:LINE:COLUMN``.

    See Also
    --------
    eidomap.io.grid.read_grid : A grid from its file.

    Examples
    --------
    >>> g = parse_grid("..#\n.d.\n", "battle.txt")
    >>> g.shape, g.flags[1, 1] == DIFFICULT
    ((2, 3), np.True_)
    """
    text, path = params.text(text, "text", "text (the grid's rows)"), params.text(path, "path", "text (a name)")
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
    """Read a grid file (UTF-8 text, bounded in size).

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    Grid
        The grid.

    Raises
    ------
    MapError
        When the file cannot be read, is larger than ``MAX_GRID_BYTES`` (16 MiB), is not UTF-8 or is not a grid
        (see :func:`parse_grid`).

    See Also
    --------
    eidomap.answers.grid.load_grid : The same, for the d20 rules' users.

    Examples
    --------
    >>> import eidomap
    >>> read_grid(eidomap.bundled_map_path("d20-battle.txt")).shape
    (14, 22)
    """
    data = read_bounded(params.path(path, "path"), MAX_GRID_BYTES)
    try:
        return parse_grid(_grid_text(data, path), str(path))
    except MapError:
        said = _map_instead(path, data)
        if said is None:
            raise
        raise MapError(path, None, said) from None


def _grid_text(data: bytes, path: str | os.PathLike) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise MapError(f"{path}:{line}:{col}", None, "is not UTF-8 text") from None


#: The drawings eidomap reads as maps, by suffix (the formats of :mod:`eidomap.io.readers`).
_DRAWINGS = {".tmx": "tiled", ".tmj": "tiled", ".svg": "svg"}
#: What a map's file is called, by its format (:func:`eidomap.io.readers.format_for`) and table driver.
_MAP_NAMES = {"GPKG": "a GeoPackage map", "ESRI Shapefile": "a Shapefile map", "FlatGeobuf": "a FlatGeobuf map",
              None: "a GeoParquet map", "geojson": "a GeoJSON map", "svg": "an SVG drawing", "tiled": "a Tiled map"}
#: Who reads a battle grid, and who reads a map: said of a file given to the other.
GRID_READERS = "the battle-grid commands read it (eidomap d20 reach, route and planner; eidomap.answers.grid.load_grid)"
MAP_READERS = "the map commands read it (eidomap route, reach, planner, validate, d20 travel...; eidomap.load)"


def _map_instead(path: str | os.PathLike, data: bytes) -> str | None:
    """What to say of a file that is no battle grid when it is a map (by its first bytes, its JSON or its
    suffix), else None."""
    from eidomap.io.tables import DRIVERS, GEOJSON_SUFFIXES

    driver = next((d for d, magic in DRIVERS.values() if data.startswith(magic)), "")
    drawing = _DRAWINGS.get(Path(path).suffix.lower())
    if driver != "":
        what = _MAP_NAMES[driver]
    elif drawing is not None:
        what = _MAP_NAMES[drawing]
    elif _feature_collection(data):
        what = _MAP_NAMES["geojson"]
    elif Path(path).suffix.lower() in GEOJSON_SUFFIXES:
        what = "a GeoJSON file"
    else:
        return None
    how = ("eidomap import-tiled --grid makes a battle grid of its tile layers" if what == _MAP_NAMES["tiled"]
           else MAP_READERS)
    return f"is {what}, not a battle grid (one character a square, docs/d20.md): {how}"


def _feature_collection(data: bytes) -> bool:
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return False
    return isinstance(doc, dict) and doc.get("type") == "FeatureCollection"


def grid_instead(path: str | os.PathLike, data: bytes | None) -> str | None:
    """What to say of a file read as a map that is none, when it is a battle grid (its text reads as one, read
    from ``data`` or the file), else None."""
    try:
        parse_grid(_grid_text(read_bounded(path, MAX_GRID_BYTES) if data is None else data, path), str(path))
    except MapError:
        return None
    return f"is a d20 battle grid (one character a square, docs/d20.md), not a map: {GRID_READERS}"




def flags_char(flags: np.ndarray) -> np.ndarray:
    """The default legend's character for each square's flags (impassable wins).

    >>> flags_char(np.array([[0, DIFFICULT | POOR_VISIBILITY, IMPASSABLE | OBSTACLE]])).tolist()
    [['.', 'D', '#']]
    """
    by_flags = {f: ch for ch, (f, o) in LEGEND.items() if o == NOBODY}
    table = np.array([by_flags[IMPASSABLE if v & IMPASSABLE else v] for v in range(16)])
    return table[np.asarray(flags, np.int64) & 15]
