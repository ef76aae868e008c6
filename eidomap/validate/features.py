"""The feature checks: Pousas, roads, fountains and streams against the Eidos they lie on.

Each check takes the map's record and its :class:`~eidomap.validate.board.Board`
and returns its problems (:func:`feature_problems`), or counts them
(:func:`counted_problems`, what ``Map.info`` reports).
"""


from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from typing import TYPE_CHECKING

import numpy as np
import shapely

from eidomap.base.names import number, plural
from eidomap.base.problems import ERROR, WARNING, Problem
from eidomap.model.topology import (
    points_in_polygons,
)
from eidomap.record import rulesets
from eidomap.record.record import MapRecord

if TYPE_CHECKING:

    pass
from eidomap.validate.board import Board, listed_ids, location, points_xy


def _holders(points, board: Board) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (point, Eido) of points in or on an Eido (within the tolerance)."""
    if board.n == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return points_in_polygons(points, board.geoms, board.tol, board.tree)


def _pousas_off_road(md: MapRecord, board: Board) -> list[Problem]:
    pousas, roads = md.pousas, md.roads
    if not len(pousas):
        return []
    out = []
    pxy = points_xy(pousas.geoms)
    dist = shapely.distance(pousas.geoms, roads.geoms[md.pousa_road])
    for k in np.flatnonzero(dist > board.tol).tolist():
        rid = roads.ids[md.pousa_road[k]]
        out.append(Problem("pousa-off-road", ERROR, (pousas.ids[k], rid), location(pxy[k]),
                           f"Pousa {pousas.ids[k]!r} is {number(dist[k])} away from the line of its road {rid!r}."))
    return out


def _pousas_held(md: MapRecord, board: Board) -> list[Problem]:
    """Pousas in no Eido (an error), and where three or more Eidos meet (a warning)."""
    ids, pousas = md.eidos.ids, md.pousas
    if not len(pousas):
        return []
    out = []
    pxy = points_xy(pousas.geoms)
    pp, pe = _holders(pousas.geoms, board)
    count = np.bincount(pp, minlength=len(pousas))
    for k in np.flatnonzero(count == 0).tolist():
        out.append(Problem("pousa-outside", ERROR, (pousas.ids[k],), location(pxy[k]),
                           f"Pousa {pousas.ids[k]!r} lies in no Eido."))
    held = np.split(pe, np.searchsorted(pp, np.arange(1, len(pousas))))
    for k in np.flatnonzero(count >= 3).tolist():
        names = [ids[e] for e in held[k].tolist()]
        out.append(Problem("pousa-junction", WARNING, (pousas.ids[k], *names), location(pxy[k]),
                           f"Pousa {pousas.ids[k]!r} lies where {len(names)} Eidos meet ({listed_ids(names)});"
                           " it can be reached from each of them."))
    return out


def _short_roads(md: MapRecord, board: Board) -> list[Problem]:
    roads = md.roads
    if not len(roads) or not rulesets.get(md.rules).pousa_roads:  # (d20 roads are followed, not hopped)
        return []
    count = np.bincount(md.pousa_road, minlength=len(roads))
    start = points_xy(shapely.get_point(roads.geoms, 0))
    return [Problem("road-short", ERROR, (roads.ids[k],), location(start[k]),
                    f"Road {roads.ids[k]!r} has {plural(int(count[k]), 'Pousa')}; a road needs at least two.")
            for k in np.flatnonzero(count < 2).tolist()]


def _roads_outside(md: MapRecord, board: Board) -> list[Problem]:
    roads = md.roads
    if not len(roads) or not board.n:
        return []
    loose = np.flatnonzero(~shapely.covers(board.outline, roads.geoms))
    outside = shapely.difference(roads.geoms[loose], board.outline)
    far = shapely.length(outside) > board.tol
    where = points_xy(shapely.line_interpolate_point(outside[far], 0.5, normalized=True))
    return [Problem("road-outside", WARNING, (roads.ids[k],), (x, y),
                    f"Road {roads.ids[k]!r} leaves the board for a length of {number(ln)}.")
            for k, ln, (x, y) in zip(loose[far].tolist(), shapely.length(outside[far]).tolist(), where.tolist(),
                                     strict=True)]


def _fountains_outside(md: MapRecord, board: Board) -> list[Problem]:
    if not len(md.fountains):
        return []
    fp, _ = _holders(md.fountains.geoms, board)
    fxy = points_xy(md.fountains.geoms)
    return [Problem("fountain-outside", ERROR, (md.fountains.ids[k],), location(fxy[k]),
                    f"Fountain {md.fountains.ids[k]!r} lies in no Eido.")
            for k in np.flatnonzero(np.bincount(fp, minlength=len(md.fountains)) == 0).tolist()]


def _streams_outside(md: MapRecord, board: Board) -> list[Problem]:
    streams = md.streams
    out = []
    for end, which in ((0, "source (first point)"), (-1, "mouth (last point)")):
        if not len(streams):
            break
        pts = shapely.get_point(streams.geoms, end)
        sp, _ = _holders(pts, board)
        sxy = points_xy(pts)
        for k in np.flatnonzero(np.bincount(sp, minlength=len(streams)) == 0).tolist():
            out.append(Problem("stream-outside", ERROR, (streams.ids[k],), location(sxy[k]),
                               f"The {which} of stream {streams.ids[k]!r} lies in no Eido."))
    return out


#: The checks of :func:`feature_problems`, each with the codes it reports.
_FEATURE_CHECKS = ((("pousa-off-road",), _pousas_off_road), (("pousa-outside", "pousa-junction"), _pousas_held),
                   (("road-short",), _short_roads), (("road-outside",), _roads_outside),
                   (("fountain-outside",), _fountains_outside), (("stream-outside",), _streams_outside))


def feature_problems(md: MapRecord, board: Board, codes: Collection[str] | None = None) -> list[Problem]:
    """Problems of Pousas, roads, fountains and streams against the Eidos.

    Parameters
    ----------
    md : MapRecord
        The map's record.
    board : Board
        The Eidos' analysis.
    codes : collection of str, optional
        Only the checks that report one of these codes.

    Returns
    -------
    list of Problem
        The problems.

    See Also
    --------
    validate : Every problem of a map.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> feature_problems(m.record, Board(m.geometries))
    []
    """
    return [p for reports, check in _FEATURE_CHECKS if codes is None or not set(codes).isdisjoint(reports)
            for p in check(md, board)]


def counted_problems(md: MapRecord, board: Board, codes: Collection[str]) -> dict[str, int]:
    """How many problems of each of ``codes`` :func:`validate` reports on this map, found by its own checks.

    Only the checks that report them run; codes it finds none of are left out.  What ``eidomap route`` warns
    of (:meth:`eidomap.Map.map_errors`) is counted here: one count, from one place.

    Parameters
    ----------
    md : MapRecord
        The map's record.
    board : Board
        The Eidos' analysis.
    codes : collection of str
        ``overlap`` and the feature codes.

    Returns
    -------
    dict of str to int
        The number of problems of each code found.

    See Also
    --------
    eidomap.Map.map_errors : What a loaded map noticed.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> counted_problems(m.record, Board(m.geometries), ["overlap", "pousa-off-road"])
    {}
    """
    codes = list(codes)
    count = Counter(p.code for p in feature_problems(md, board, codes))
    if "overlap" in codes:  # (every pair that overlaps, though validate lists the first MAX_OVERLAPS_LISTED)
        count["overlap"] = len(board.overlaps[0])
    return {c: count[c] for c in codes if count[c]}
