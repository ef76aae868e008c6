"""Map validation for designers: every problem of a map at once.

:func:`validate` reads a map leniently and reports every problem it finds,
each a :class:`~eidomap.base.problems.Problem` with a stable code, a severity, the
ids of the features involved, a location and one sentence.  The codes, what
they mean and how they are computed are documented in docs/validation.md.

The reader reports what is wrong with single features (``not-a-feature``,
``unknown-kind``, ``missing-id``, ``duplicate-id``, ``invalid-geometry``,
``unknown-terrain``, ``unknown-road``); the checks here look at how the
features that could be read fit together: the board's geometry
(``eidomap.validate.board``), the features on it
(``eidomap.validate.features``) and each species' reach
(``eidomap.validate.reach``); this module gathers them into a
:class:`Report`.

>>> import eidomap
>>> validate(eidomap.demo_map_path()).errors
[]
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import shapely

from eidomap.base import params, progress
from eidomap.base.errors import RequestError
from eidomap.base.names import did_you_mean, number, plural, shown
from eidomap.base.problems import ERROR, WARNING, Problem
from eidomap.io.document import Document, MapData
from eidomap.io.readers import read_map
from eidomap.model.topology import (
    PileUp,
)
from eidomap.record.catalog import Catalog
from eidomap.rules.actors import resolve_actor
from eidomap.validate.board import (
    Board,
    distance,
    inlet_width,
    listed_ids,
    location,
    max_gap_area,
    near_miss_distance,
    points_xy,
    typical_size,
)
from eidomap.validate.features import feature_problems
from eidomap.validate.reach import reach_problems

if TYPE_CHECKING:

    pass

__all__ = ["CODES", "CONSEQUENCES", "Report", "inlet_width", "max_gap_area", "near_miss_distance", "typical_size",
           "validate"]

#: Every code :func:`validate` may report, with its severity (reader codes first).
CODES = {
    "not-a-feature": ERROR,
    "unknown-kind": ERROR,
    "missing-id": ERROR,
    "bad-id": ERROR,
    "duplicate-id": ERROR,
    "invalid-geometry": ERROR,
    "unknown-terrain": ERROR,
    "unknown-road": ERROR,
    "bad-property": ERROR,
    "no-eidos": ERROR,
    "overlap": ERROR,
    "gap": ERROR,
    "near-miss": WARNING,
    "inlet": WARNING,
    "corner-contact": WARNING,
    "isolated": WARNING,
    "pousa-off-road": ERROR,
    "pousa-outside": ERROR,
    "pousa-junction": WARNING,
    "road-short": ERROR,
    "road-outside": WARNING,
    "fountain-outside": ERROR,
    "stream-outside": ERROR,
    "unreachable": WARNING,
}

#: Problems that an Eido the reader left out causes where it was drawn: they are
#: told in the message of the reader's problem (``caused_by``), not counted.
CONSEQUENCES = ("gap", "pousa-outside", "road-outside", "fountain-outside", "stream-outside")
#: Overlaps listed one by one: past them, one problem tells how many more pairs overlap.
MAX_OVERLAPS_LISTED = 1_000

@dataclass
class Report:
    """What :func:`validate` found.

    Attributes
    ----------
    problems : list of Problem
        Every problem, in a stable order: what the reader found, then the checks in the order of
        docs/validation.md.  Each has a ``code``, a ``severity``, the ``features`` involved, a ``location``, a
        ``message`` and, when it follows from another, ``caused_by``.
    data : MapData or None
        The map as read (what the lenient reader could use of it).
    tolerance, near_miss : float
        The distances used.
    board : Board or None
        The geometric analysis, for callers that go on to fix the map.
    """

    problems: list[Problem]
    data: MapData | None = None
    tolerance: float = 0.0
    near_miss: float = 0.0
    board: Board | None = field(default=None, repr=False)

    @property
    def errors(self) -> list[Problem]:
        """The errors, but those that follow from another problem (``caused_by``)."""
        return [p for p in self.problems if p.severity == ERROR and p.caused_by is None]

    @property
    def warnings(self) -> list[Problem]:
        """The warnings, but those that follow from another problem (``caused_by``)."""
        return [p for p in self.problems if p.severity == WARNING and p.caused_by is None]

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return not self.errors

    def codes(self) -> list[str]:
        """The distinct codes reported, in order.

        Returns
        -------
        list of str
            The codes.
        """
        return list(dict.fromkeys(p.code for p in self.problems))

    def as_dict(self) -> dict:
        """``{"errors": n, "warnings": n, "problems": [...]}`` (what ``validate --json`` prints).

        Returns
        -------
        dict
            The counts and every problem as plain data.
        """
        return {"errors": len(self.errors), "warnings": len(self.warnings),
                "problems": [p.as_dict() for p in self.problems]}


def _reader_problem(p: Problem, index: int) -> Problem:
    """A reader problem with plain ids, a whole sentence as message and the position of its feature."""
    subject = shown(p.features[0]) if p.features else "a feature"
    loc = None if p.location is None else location(p.location)
    return Problem(p.code, p.severity, p.features, loc,
                   f"Feature {subject} {p.message}.", index=index)


def _drawn(doc: Document, index: int):
    """The polygon a feature the reader left out was drawn as; None when it is no polygon GEOS can read."""
    try:
        geom = shapely.from_geojson(doc.features.raw(index))
    except (shapely.errors.GEOSException, AttributeError):
        return None
    if shapely.get_dimensions(geom) != 2:
        return None
    return geom if shapely.is_valid(geom) else shapely.make_valid(geom)


def _fold(problems: list[Problem], doc: Document, read: list[Problem], tol: float) -> list[Problem]:
    """Tell the problems an Eido left out by the reader causes (a Pousa in no Eido) with their cause.

    A problem of :data:`CONSEQUENCES` whose location lies where a left-out
    Eido was drawn gets ``caused_by`` (that feature) and is listed in the
    reader problem's message instead of being counted on its own.
    """
    causes = [(k, p, g) for k, p in enumerate(read)
              if p.features and p.index is not None and (g := _drawn(doc, p.index)) is not None]
    after = [k for k, p in enumerate(problems) if p.code in CONSEQUENCES and p.location is not None
             and p.caused_by is None]
    if not causes or not after:
        return problems
    pts = shapely.points([problems[k].location for k in after])
    pi, ci = shapely.STRtree([g for _, _, g in causes]).query(pts, predicate="dwithin", distance=tol)
    first = np.r_[True, pi[1:] != pi[:-1]] if len(pi) else np.empty(0, bool)  # one cause each
    out = list(problems)
    hidden: dict[int, list[Problem]] = {}
    for k, c in zip(pi[first].tolist(), ci[first].tolist(), strict=True):
        cause = causes[c][1]
        out[after[k]] = dataclasses.replace(problems[after[k]], caused_by=cause.features[0])
        hidden.setdefault(c, []).append(out[after[k]])
    for c, found in hidden.items():
        k, cause, _ = causes[c]
        by_code: dict[str, list[str]] = {}
        for p in found:
            by_code.setdefault(p.code, []).append(p.features[0])
        told = "; ".join(plural(len(names), "gap") if code == "gap" else f"{code} {listed_ids(names)}"
                         for code, names in by_code.items())  # a gap has no id of its own
        out[out.index(cause)] = dataclasses.replace(
            cause, message=f"{cause.message} It is left out, so what lay on it is told here rather than"
                           f" counted apart: {told}.")
    return out


def checked_codes(codes: Iterable[str], what: str) -> set[str]:
    """``codes`` as a set, each a known code (:data:`CODES`).

    Parameters
    ----------
    codes : iterable of str
        Problem codes (a list: one ``str`` is refused, as every list of names is).
    what : str
        Where they come from, for the message (``"select"``).

    Returns
    -------
    set of str
        The codes.

    Raises
    ------
    RequestError
        For an unknown code (with the closest known one).

    See Also
    --------
    validate : Takes them as ``ignore`` and ``select``.

    Examples
    --------
    >>> sorted(checked_codes(["gap", " overlap"], "select"))
    ['gap', 'overlap']
    """
    codes = {c.strip() for c in params.names(codes, what, "problem codes")}  # (one str: no list, as everywhere)
    codes -= {""}
    for c in sorted(codes):
        if c not in CODES:
            raise RequestError(f"{what}: unknown problem code {c!r}{did_you_mean(c, list(CODES))}"
                               " (see docs/validation.md for the codes)")
    return codes


def geometry_problems(board: Board, ids: Sequence[str], errors_only: bool = False) -> list[Problem]:
    """Problems of the Eidos among themselves: overlap, gap (the errors), near-miss, corner-contact, inlet, isolated.

    Parameters
    ----------
    board : Board
        The Eidos' analysis.
    ids : sequence of str
        The Eidos' ids, in the order of the board's geometries.
    errors_only : bool
        Only the errors (overlaps and gaps).

    Returns
    -------
    list of Problem
        The problems.

    See Also
    --------
    validate : Every problem of a map.

    Examples
    --------
    >>> import shapely
    >>> board = Board([shapely.box(0, 0, 10, 10), shapely.box(9, 0, 20, 10), shapely.box(0, 10.01, 10, 20)])
    >>> [(p.code, p.features) for p in geometry_problems(board, ["a", "b", "c"])]
    [('overlap', ('a', 'b')), ('near-miss', ('a', 'c')), ('near-miss', ('b', 'c')), ('isolated', ('c',))]
    """
    out = _overlap_problems(board, ids)
    gi, ge = board.gap_eidos
    around = np.split(ge, np.searchsorted(gi, np.arange(1, len(board.gaps))))
    gxy = points_xy(shapely.point_on_surface(board.gaps))
    for k, (gap, (x, y)) in enumerate(zip(board.gaps, gxy.tolist(), strict=True)):
        names = [ids[e] for e in around[k].tolist()]
        out.append(Problem("gap", ERROR, tuple(names), (x, y),
                           f"A gap of area {number(shapely.area(gap))} belongs to no Eido"
                           + (f"; around it: {listed_ids(names)}." if names else ".")))
    if errors_only:
        return out
    i, j, length, dist, xy = board.near_misses
    for a, b, ln, d, (x, y) in zip(i.tolist(), j.tolist(), length.tolist(), dist.tolist(), xy.tolist(), strict=True):
        out.append(Problem("near-miss", WARNING, (ids[a], ids[b]), (x, y),
                           f"Eidos {ids[a]!r} and {ids[b]!r} run within {number(d)} of each other for a length of"
                           f" {number(ln)} but share no border, so they are not adjacent."))
    i, j, length, width, xy = board.inlets
    for a, b, ln, w, (x, y) in zip(i.tolist(), j.tolist(), length.tolist(), width.tolist(), xy.tolist(), strict=True):
        out.append(Problem("inlet", WARNING, (ids[a], ids[b]), (x, y),
                           f"Eidos {ids[a]!r} and {ids[b]!r} face each other across a narrow inlet from outside the"
                           f" board (at most {number(w)} wide, {number(ln)} long), so they are not adjacent."))
    i, j, xy = board.contacts
    for a, b, (x, y) in zip(i.tolist(), j.tolist(), xy.tolist(), strict=True):
        out.append(Problem("corner-contact", WARNING, (ids[a], ids[b]), (x, y),
                           f"Eidos {ids[a]!r} and {ids[b]!r} touch only at a corner, so they are not adjacent."))
    inside = points_xy(shapely.point_on_surface(board.geoms[board.isolated]))
    for k, (x, y) in zip(board.isolated.tolist(), inside.tolist(), strict=True):
        out.append(Problem("isolated", WARNING, (ids[k],), (x, y), f"Eido {ids[k]!r} has no neighbour."))
    return out


def _overlap_problems(board: Board, ids: Sequence[str]) -> list[Problem]:
    """A problem for each pair of Eidos that overlap, the first :data:`MAX_OVERLAPS_LISTED` of them; then one that
    tells how many more pairs overlap (Eidos drawn over one another: a list of every pair would be as long as
    their square)."""
    i, j, area, xy = (a[:MAX_OVERLAPS_LISTED] for a in board.overlaps)
    out = [Problem("overlap", ERROR, (ids[a], ids[b]), (x, y),
                   f"Eidos {ids[a]!r} and {ids[b]!r} overlap over an area of {number(ar)}.")
           for a, b, ar, (x, y) in zip(i.tolist(), j.tolist(), area.tolist(), xy.tolist(), strict=True)]
    more = len(board.overlaps[0]) - len(out)
    if more > 0:
        out.append(Problem("overlap", ERROR, (), None, f"{more:,} more {'pair' if more == 1 else 'pairs'} of Eidos"
                                                       f" overlap: only the first {len(out):,} are listed; fix them"
                                                       " and validate again."))
    return out


def validate(source: str | os.PathLike | MapData, *, catalog: Catalog | str | os.PathLike | None = None,
             tolerance: float | None = None, near_miss: float | None = None, inlet: float | None = None,
             species: Iterable[str] = (), ignore: Iterable[str] = (), select: Iterable[str] = (),
             terrain_field: str = "terrain",
             id_field: str = "id", show: bool | None = False, reader: str | None = None,
             helper: bool = False, pause_gc: bool = False) -> Report:
    """Check a map and report every problem at once.

    Parameters
    ----------
    source : str, Path or MapData
        A map file (read leniently: what the reader cannot use is reported and left out of the checks), or a
        map already read.
    catalog : str, Path or Catalog, optional
        Terrain/species catalog (default: the one the map names).
    tolerance : float, optional
        Drawing tolerance (default 1e-9 of the map's larger side).
    near_miss : float, optional
        Largest distance between two borders reported as a near-miss (default
        :func:`~eidomap.validate.checks.near_miss_distance`).
    inlet : float, optional
        Widest inlet reported (default :func:`~eidomap.validate.checks.inlet_width`).
    species : iterable of str
        Species to check ``unreachable`` for.
    ignore, select : iterable of str
        Problem codes (:data:`~eidomap.validate.checks.CODES`) left out of the report, or the only ones kept in it
        (empty: all).
    terrain_field, id_field, reader, helper, pause_gc
        How the file is read (see :func:`eidomap.load`).
    show : bool or None
        A progress bar on stderr; None: when it is a terminal.

    Returns
    -------
    Report
        Every problem, with the map as read.

    Raises
    ------
    MapError
        When the file cannot be read as a map at all.
    RequestError
        When a species is not in the catalog, or a code is unknown.

    See Also
    --------
    eidomap.validate.fix.fix_map : Fix what can be fixed.
    eidomap.plot.plot_problems : Draw the problems.

    Examples
    --------
    >>> import eidomap
    >>> report = validate(eidomap.demo_map_path(), species=["boat"])
    >>> report.ok, report.codes()
    (True, ['corner-contact', 'unreachable'])
    >>> report.problems[0].message
    "Eidos 'xesteira' and 'bouza-vella' touch only at a corner, so they are not adjacent."

    A generated map has no error:

    >>> import os, tempfile
    >>> from eidomap.model.generate import generate_map, write_map
    >>> path = os.path.join(tempfile.mkdtemp(), "g.geojson")
    >>> write_map(generate_map(300, seed=2), path)
    >>> validate(path).errors
    []
    """
    ignore, select = checked_codes(ignore, "ignore"), checked_codes(select, "select")
    species, show = params.names(species, "species", "species names"), params.maybe(params.flag, show, "show")
    near_miss, inlet = (params.maybe(distance, v, name) for v, name in ((near_miss, "near_miss"), (inlet, "inlet")))
    if not isinstance(source, MapData):
        source = Path(params.path(source, "source", "a MapData"))
    with progress.steps(("reading", "geometry", "features", "reach"), show) as step:
        if isinstance(source, MapData):  # (what its reader found, the caller holds)
            data, read = source, []
        else:
            data, found = read_map(source, catalog=catalog, terrain_field=terrain_field, id_field=id_field,
                                   reader=reader, helper=helper, pause_gc=pause_gc)
            read = [_reader_problem(p, i) for p, i in zip(found, data.document.left_out, strict=True)]
        md = data.record
        actors = [resolve_actor(md, sp, None) for sp in species]  # the map's rule set's; refused before the work
        step("geometry")
        board = Board(md.eidos.geoms, tolerance, near_miss, inlet)
        problems = list(read)
        if board.n == 0:
            problems.append(Problem("no-eidos", ERROR, (), None, "The map has no Eido that could be read."))
        try:
            problems += geometry_problems(board, md.eidos.ids)
            step("features")
            problems += feature_problems(md, board)
            step("reach")
            if "unreachable" not in ignore and (not select or "unreachable" in select):
                problems += reach_problems(md, board, actors)
        except PileUp as exc:  # (a Board knows no file)
            raise exc.of(md.path) from None
    kept = [p for p in _fold(problems, data.document, read, board.tol)
            if p.code not in ignore and (not select or p.code in select)]
    return Report(kept, data, board.tol, board.near, board)
