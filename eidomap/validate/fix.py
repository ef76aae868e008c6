"""Safe fixes for a designer's map: snap near-miss borders together, close small gaps.

:func:`fix_geometries` works on the Eidos of a map read leniently and returns
new geometries plus one :class:`Change` per thing it did (and one per thing it
left alone, with the reason).  A change is kept only when the map has no
error afterwards that it did not have before: the fixed map is validated and
every Eido involved in a new error is put back as it was, until no new error
is left.  :func:`fix_map` does the file side: it never writes over its input
(``in_place`` keeps a backup first), writes atomically, and keeps every
property and foreign member (only the geometry of the Eidos it changed is
rewritten).

* **Snapping** (``snap_onto``).  For each ``near-miss`` pair, the Eido that
  comes later in the file is moved onto the earlier one's border: each of its
  vertices within the near-miss distance goes to the nearest vertex of the
  partner within it, else to the nearest point of the partner's border (a
  vertex on a third Eido's border only if it stays on that border), then
  :func:`shapely.snap` inserts the partner's vertices into its border.
* **Gaps.**  Each gap no larger than ``max_gap`` is given to the Eido that
  shares the longest border with it (the union of the two).

>>> import shapely
>>> from eidomap.validate.fix import snap_onto
>>> a, b = shapely.box(0, 0, 1, 1), shapely.box(1.01, 0, 2, 1)
>>> shapely.get_coordinates(snap_onto([a, b], [1], [[0]], 0.05)[1]).min(axis=0).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import shapely

from eidomap.base import params, progress
from eidomap.base.errors import RequestError
from eidomap.base.files import MAX_MAP_BYTES, read_bounded
from eidomap.base.names import number, shown
from eidomap.base.problems import ERROR, Problem
from eidomap.io.document import MapData, write_geojson
from eidomap.io.features import geometry_coords
from eidomap.io.readers import ReadOptions, format_for, read_document, read_map, register, source_bytes
from eidomap.model.topology import PileUp, boundary_segments, shared_lengths
from eidomap.record.catalog import Catalog
from eidomap.record.geometry import MAX_TOLERANCE, default_tolerance
from eidomap.record.record import MapRecord
from eidomap.validate.board import Board, distance, grouped, max_gap_area
from eidomap.validate.checks import Report, geometry_problems, validate
from eidomap.validate.features import feature_problems

__all__ = ["Change", "FixResult", "fix_geometries", "fix_map"]


@dataclass(frozen=True)
class Change:
    """One thing ``fix`` did (``snap``, ``fill-gap``) or left alone (``left``).

    Attributes
    ----------
    action : {"snap", "fill-gap", "left"}
        What was done.
    eido : str or None
        The Eido changed (or left).
    others : tuple of str
        The Eidos it was snapped onto, or that a gap left alone touches.
    location : (float, float) or None
        Where, in map units.
    message : str
        What was done, in one sentence.
    """

    action: str
    eido: str | None
    others: tuple[str, ...]
    location: tuple[float, float] | None
    message: str

    def as_dict(self) -> dict:
        """The change as plain data: what ``eidomap fix --json`` prints.

        Returns
        -------
        dict
            ``action``, ``eido``, ``others``, ``location`` and ``message``.
        """
        loc = None if self.location is None else [float(self.location[0]), float(self.location[1])]
        return {"action": self.action, "eido": self.eido, "others": list(self.others), "location": loc,
                "message": self.message}


@dataclass
class FixResult:
    """New Eido geometries (in the order of the map's Eidos), what changed and what was left.

    Attributes
    ----------
    geoms : numpy.ndarray of Polygon
        Every Eido's geometry after the fix.
    changes : list of Change
        What was done.
    left : list of Change
        What was left alone, and why (a gap too large, a change that would have made a new error).
    changed : numpy.ndarray of int
        The indices of the Eidos whose geometry changed.
    tolerance, near_miss, inlet, max_gap : float
        The distances and the largest gap area used.
    """

    geoms: np.ndarray
    changes: list[Change] = field(default_factory=list)
    left: list[Change] = field(default_factory=list)
    changed: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    tolerance: float = 0.0
    near_miss: float = 0.0
    inlet: float = 0.0
    max_gap: float = 0.0

    def as_dict(self) -> dict:
        """The result as plain data: what ``eidomap fix --json`` prints.

        Returns
        -------
        dict
            ``changes`` and ``left``.
        """
        return {"changes": [c.as_dict() for c in self.changes], "left": [c.as_dict() for c in self.left]}


def _targets(xy, slot, txy, tslot, borders, distance: float) -> tuple[np.ndarray, np.ndarray]:
    """Where each vertex goes: the nearest partner vertex within ``distance``, else the nearest
    point of the partners' borders within it.  Returns the targets and a mask of vertices that have one."""
    pts = shapely.points(xy)
    vi, ti = shapely.STRtree(shapely.points(txy)).query(pts, predicate="dwithin", distance=distance)
    same = tslot[ti] == slot[vi]
    vi, ti = vi[same], ti[same]
    d = np.hypot(*(txy[ti] - xy[vi]).T)
    order = np.lexsort((d, vi))
    vi, ti = vi[order], ti[order]
    first = np.r_[True, vi[1:] != vi[:-1]] if len(vi) else np.empty(0, bool)
    target = xy.copy()
    has = np.zeros(len(xy), bool)
    target[vi[first]] = txy[ti[first]]
    has[vi[first]] = True
    rest = np.flatnonzero(~has)
    d = shapely.distance(pts[rest], borders[slot[rest]])
    go = rest[(d > 0) & (d <= distance)]
    target[go] = shapely.get_coordinates(shapely.get_point(shapely.shortest_line(pts[go], borders[slot[go]]), 1))
    has[go] = True
    return target, has & np.any(target != xy, axis=1)


def _stuck(xy, target, slot, movers, partner_keys, geoms, tol: float) -> np.ndarray:
    """Vertices on the border of a third Eido (neither the mover nor a partner) that their target would
    take off that border: they stay where they are, so that no new gap or overlap opens there."""
    pi, ei = shapely.STRtree(geoms).query(shapely.points(xy), predicate="dwithin", distance=tol)
    owner = movers[slot[pi]]
    third = (owner != ei) & ~np.isin(owner * len(geoms) + ei, partner_keys)
    pi, ei = pi[third], ei[third]
    off = shapely.distance(shapely.points(target[pi]), shapely.boundary(geoms[ei])) > tol
    stuck = np.zeros(len(xy), bool)
    stuck[pi[off]] = True
    return stuck


def snap_onto(geoms: npt.ArrayLike, movers: Sequence[int] | np.ndarray, refs: Sequence[Sequence[int]], distance: float,
              tolerance: float | None = None) -> np.ndarray:
    """Move each of ``movers`` onto the borders of its ``refs`` where it runs within ``distance``.

    Each vertex of a mover within ``distance`` of a partner goes to the nearest partner vertex within the
    distance, else to the nearest point of the partners' borders; a vertex on the border of a third Eido moves
    only along that border.  Then ``shapely.snap`` inserts the partners' vertices lying within the distance
    into the mover's border, so that it follows the partners' bends.

    Parameters
    ----------
    geoms : array_like of Polygon or MultiPolygon
        All Eidos (the partners and the third Eidos are not moved).
    movers : sequence of int
        The Eidos to move (indices into ``geoms``, distinct).
    refs : sequence of sequence of int
        For each mover, the Eidos it is snapped onto.
    distance : float
        How far a vertex may move.
    tolerance : float, optional
        Drawing tolerance deciding which vertices are on a third Eido's border.

    Returns
    -------
    numpy.ndarray of Polygon
        A copy of ``geoms`` with the movers replaced.

    See Also
    --------
    fix_geometries : Which Eidos to snap, and the check that nothing new breaks.

    Examples
    --------
    >>> import shapely
    >>> a, b = shapely.box(0, 0, 1, 1), shapely.box(1.05, 0, 2, 1)
    >>> moved = snap_onto([a, b], [1], [[0]], 0.1)
    >>> bool(shapely.touches(moved[0], moved[1]))
    True
    """
    geoms = np.array(geoms, dtype=object)
    tol = default_tolerance(geoms) if tolerance is None else tolerance
    movers = np.asarray(movers, np.int64)
    slot = np.repeat(np.arange(len(movers)), [len(r) for r in refs])
    ref = np.fromiter((r for rs in refs for r in rs), np.int64, len(slot))
    partners = movers[slot] * len(geoms) + ref
    lines, lk = shapely.get_parts(shapely.boundary(geoms[ref]), return_index=True)
    borders = np.empty(len(movers), dtype=object)
    used, borders[used] = grouped(lines, slot[lk], shapely.multilinestrings)
    txy, tk = shapely.get_coordinates(geoms[ref], return_index=True)
    tslot = slot[tk]
    xy, vslot = shapely.get_coordinates(geoms[movers], return_index=True)
    target, go = _targets(xy, vslot, txy, tslot, borders, distance)
    stuck = _stuck(xy, target, vslot, movers, partners, geoms, tol) & go
    go &= ~stuck
    xy[go] = target[go]
    moved = shapely.set_coordinates(geoms[movers].copy(), xy)
    # insert the partners' vertices, but none near a vertex that must stay
    if stuck.any():
        ti, pj = shapely.STRtree(shapely.points(xy[stuck])).query(shapely.points(txy), predicate="dwithin",
                                                                  distance=distance)
        keep = np.ones(len(txy), bool)
        keep[ti[tslot[ti] == vslot[stuck][pj]]] = False
        txy, tslot = txy[keep], tslot[keep]
    has, points = grouped(shapely.points(txy), tslot, shapely.multipoints)
    moved[has] = shapely.snap(moved[has], points, distance)
    geoms[movers] = moved
    return geoms


def _snap_all(board: Board, frozen: set[int]) -> tuple[np.ndarray, dict[int, list[int]]]:
    """Snap every near-miss pair (within the near-miss distance), then every inlet (within the inlet width).

    The later Eido of a pair moves onto the earlier, in rounds so that no
    reference moves while it is used.
    """
    geoms = board.geoms.copy()
    done: dict[int, list[int]] = {}
    for (i, j), within in ((board.near_misses[:2], board.near), (board.inlets[:2], board.inlet)):
        keep = ~np.isin(j, list(frozen))
        ref, mover = i[keep], j[keep]
        while len(mover):
            ready = ~np.isin(ref, mover)  # a reference that still has to move waits for a later round
            order = np.lexsort((ref[ready], mover[ready]))
            movers, first = np.unique(mover[ready][order], return_index=True)
            refs = [r.tolist() for r in np.split(ref[ready][order], first[1:])]
            geoms = snap_onto(geoms, movers, refs, within, board.tol)
            for m, r in zip(movers.tolist(), refs, strict=True):
                done.setdefault(m, []).extend(r)
            ref, mover = ref[~ready], mover[~ready]
    return geoms, done


def _border_lengths(board: Board, gaps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(gap, eido, length)`` of border each gap shares with each Eido around it."""
    _, e = board.tree.query(gaps, predicate="dwithin", distance=board.tol)
    cand = np.unique(e)
    mix = np.r_[gaps, board.geoms[cand]]
    oi, oj, length = shared_lengths(boundary_segments(mix), board.tol)
    ng = len(gaps)
    gap_side = np.minimum(oi, oj)
    other = np.maximum(oi, oj)
    ok = (gap_side < ng) & (other >= ng)
    key = gap_side[ok] * len(mix) + other[ok]
    ukey, inv = np.unique(key, return_inverse=True)
    total = np.bincount(inv, length[ok])
    gi, mi = np.divmod(ukey, len(mix))
    return gi, cand[mi - ng], total


def _fill_gaps(board: Board, limit: float, frozen: set[int], ids: Sequence[str]):
    """Give each gap no larger than ``limit`` to the Eido sharing the longest border with it."""
    geoms = board.geoms.copy()
    gaps = board.gaps
    area = shapely.area(gaps)
    where = shapely.get_coordinates(shapely.point_on_surface(gaps)).reshape(-1, 2).tolist()
    fills: list[Change] = []
    left: list[Change] = []
    small = np.flatnonzero(area <= limit)
    for k in np.flatnonzero(area > limit).tolist():
        left.append(Change("left", None, (), tuple(where[k]),
                           f"Left the gap of area {number(area[k])} at ({number(where[k][0])}, {number(where[k][1])}):"
                           f" it is larger than the largest gap fix closes ({number(limit)}, see max_gap=...)."))
    if not len(small):
        return geoms, fills, left
    gi, ei, length = _border_lengths(board, gaps[small])
    ok = ~np.isin(ei, list(frozen)) & (length > board.tol)
    gi, ei, length = gi[ok], ei[ok], length[ok]
    order = np.lexsort((ei, -length, gi))  # per gap: longest border first, then file order
    gi, ei, length = gi[order], ei[order], length[order]
    first = np.diff(gi, prepend=-1) != 0  # (gi may be empty: no gap has a border long enough)
    owner = np.full(len(small), -1)
    owner[gi[first]] = ei[first]
    border = np.zeros(len(small))
    border[gi[first]] = length[first]
    for k in np.flatnonzero(owner < 0).tolist():
        x, y = where[small[k]]
        left.append(Change("left", None, (), (x, y),
                           f"Left the gap of area {number(area[small[k]])} at ({number(x)}, {number(y)}): no Eido"
                           " around it can take it without creating a new error."))
    got = np.flatnonzero(owner >= 0)
    if len(got):
        parts, pk = shapely.get_parts(gaps[small[got]], return_index=True)
        takers, slot = np.unique(owner[got][pk], return_inverse=True)
        geoms[takers] = _polygonal(shapely.union(geoms[takers], grouped(parts, slot, shapely.multipolygons)[1]))
        for k in got.tolist():
            e = int(owner[k])
            x, y = where[small[k]]
            fills.append(Change("fill-gap", ids[e], (), (x, y),
                                f"Gave the gap of area {number(area[small[k]])} at ({number(x)}, {number(y)})"
                                f" to {ids[e]!r},"
                                f" which shares the longest border with it ({number(border[k])})."))
    return geoms, fills, left


def _polygonal(geoms: np.ndarray) -> np.ndarray:
    """``geoms`` with the lines and points an overlay may leave beside polygons (a collection) dropped."""
    mixed = np.flatnonzero(shapely.get_type_id(geoms) == shapely.GeometryType.GEOMETRYCOLLECTION)
    for k in mixed.tolist():  # rare: one union per such geometry
        parts = shapely.get_parts(geoms[k])
        geoms[k] = shapely.union_all(parts[shapely.get_dimensions(parts) == 2])
    return geoms


def _error_keys(problems: list[Problem]) -> set:
    return {(p.code, frozenset(p.features)) for p in problems}


def _errors(rec: MapRecord, board: Board) -> list[Problem]:
    found = geometry_problems(board, rec.eidos.ids, errors_only=True) + feature_problems(rec, board)
    return [p for p in found if p.severity == ERROR]


def fix_geometries(md: MapData, *, tolerance: float | None = None, near_miss: float | None = None,
                   inlet: float | None = None, max_gap: float | None = None) -> FixResult:
    """Snap near-miss borders and inlets, close small gaps, keeping only changes that create no new error.

    Parameters
    ----------
    md : MapData
        A map read leniently (:func:`eidomap.io.readers.read_map`).
    tolerance, near_miss, inlet : float, optional
        As for :func:`eidomap.validate.checks.validate`; ``near_miss`` (``inlet``) is also how far a vertex may move to
        close a near-miss (an inlet).
    max_gap : float, optional
        Largest gap area closed (default :func:`eidomap.validate.checks.max_gap_area`).

    Returns
    -------
    FixResult
        The new geometries, what changed and what was left.

    Raises
    ------
    RequestError
        For a distance or area that is not a number >= 0.

    See Also
    --------
    fix_map : The same on a file, written and validated.

    Examples
    --------
    >>> import eidomap
    >>> from eidomap.io.readers import read_map
    >>> md, _ = read_map(eidomap.demo_map_path())
    >>> len(fix_geometries(md).changed)  # the demo map has nothing to fix
    0
    """
    rec = params.instance(md, "md", MapData, "a MapData (eidomap.io.readers.read_map)").record
    near_miss, inlet, max_gap = (params.maybe(params.real, v, name, 0) for v, name in
                                 ((near_miss, "near_miss"), (inlet, "inlet"), (max_gap, "max_gap")))
    ids = rec.eidos.ids
    geoms0 = rec.eidos.geoms
    board0 = Board(geoms0, tolerance, near_miss, inlet)
    tol, near, wide = board0.tol, board0.near, board0.inlet
    limit = max_gap_area(geoms0) if max_gap is None else distance(max_gap, "max_gap", MAX_TOLERANCE ** 2)
    before = _error_keys(_errors(rec, board0))
    frozen: dict[int, str] = {}
    while True:
        snapped, snaps = _snap_all(board0, set(frozen))
        if _freeze_invalid(snapped, list(snaps), frozen):
            continue
        board1 = Board(snapped, tol, near, wide) if snaps else board0
        geoms, fills, left = _fill_gaps(board1, limit, set(frozen), ids)
        changed = np.flatnonzero(~shapely.equals_exact(geoms, geoms0, 0.0))
        if not len(changed):
            break
        if _freeze_invalid(geoms, changed, frozen):
            continue
        board = Board(geoms, tol, near, wide)
        new = [p for p in _errors(dataclasses.replace(rec, eidos=dataclasses.replace(rec.eidos, geoms=geoms)), board)
               if (p.code, frozenset(p.features)) not in before]
        if not new:
            break
        frozen.update(_culprits(new, changed, board, ids))
    result = _result(geoms, changed, snapped, snaps, fills, left, frozen, board0, ids)
    result.tolerance, result.near_miss, result.inlet, result.max_gap = tol, near, wide, limit
    return result


def _freeze_invalid(geoms: np.ndarray, changed, frozen: dict[int, str]) -> bool:
    """Freeze the changed Eidos that are no longer valid polygons; whether there were any."""
    changed = np.asarray(changed, np.int64)
    bad = changed[~shapely.is_valid(geoms[changed])]
    frozen.update({int(k): "would make it an invalid polygon" for k in bad})
    return bool(len(bad))


def _culprits(new: list[Problem], changed: np.ndarray, board: Board, ids: Sequence[str]) -> dict[int, str]:
    """The changed Eidos to put back for each new error: those it names, else those near it, else all."""
    index = {ids[k]: k for k in changed.tolist()}
    out: dict[int, str] = {}
    for p in new:
        named = [index[f] for f in p.features if f in index]
        if not named and p.location is not None:
            near = board.tree.query(shapely.Point(p.location), predicate="dwithin", distance=board.near)
            named = near[np.isin(near, changed)].tolist()
        for k in named or changed.tolist():
            out.setdefault(int(k), f"would create a new error ({p.code}: {p.message.rstrip('.')})")
    return out


def _result(geoms, changed, snapped, snaps, fills, left, frozen, board0: Board, ids) -> FixResult:
    """The changes (a snap that changed nothing is none) and what was left, with the reasons.

    A snap that only inserts the partner's vertices says so, not that the
    border "moved by at most 0".
    """
    changes = []
    pairs = {"near-miss": board0.near_misses, "inlet": board0.inlets}
    where = {(a, b): tuple(p) for i, j, *_, xy in pairs.values()
             for a, b, p in zip(i.tolist(), j.tolist(), xy.tolist(), strict=True)}
    movers = np.fromiter(snaps, np.int64, len(snaps))
    movers = movers[~shapely.equals_exact(snapped[movers], board0.geoms[movers], 0.0)]
    moved = shapely.hausdorff_distance(snapped[movers], board0.geoms[movers])
    after = Board(geoms, board0.tol, board0.near) if len(movers) else None
    still = set() if after is None else {frozenset(p) for p in zip(*after.near_misses[:2], strict=True)}
    for m, d in zip(movers.tolist(), moved.tolist(), strict=True):
        done = [r for r in snaps[m] if frozenset((r, m)) not in still]
        missed = [r for r in snaps[m] if frozenset((r, m)) in still]
        how = f"its border moved by at most {number(d)}" if d > 0 else "vertices added to its border, none moved"
        if done:
            changes.append(Change("snap", ids[m], tuple(ids[r] for r in done), where[(done[0], m)],
                                  f"Snapped {ids[m]!r} onto the border of {', '.join(repr(ids[r]) for r in done)}"
                                  f" ({how})."))
        for r in missed:  # moved, but the two borders still miss each other: say so, never claim it
            left.append(Change("left", ids[m], (ids[r],), where[(r, m)],
                               f"Left the near-miss between {ids[r]!r} and {ids[m]!r}: snapping moved {ids[m]!r}"
                               f" ({how}) but their borders still do not meet; draw that border again."))
    changes += fills
    for code, (i, j, *_) in pairs.items():
        for a, b in zip(i.tolist(), j.tolist(), strict=True):
            if b in frozen:
                left.append(Change("left", ids[b], (ids[a],), where[(a, b)], f"Left the {code} between {ids[a]!r}"
                                   f" and {ids[b]!r}: snapping {ids[b]!r} {frozen[b]}."))
    return FixResult(geoms, changes, left, changed)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def fix_map(path: str | os.PathLike, out: str | os.PathLike | None = None, *, in_place: bool = False,
            catalog: Catalog | str | os.PathLike | None = None, tolerance: float | None = None,
            near_miss: float | None = None, inlet: float | None = None,
            max_gap: float | None = None, show: bool | None = False, reader: str | None = None,
            helper: bool = False, pause_gc: bool = False) -> tuple[FixResult, Report]:
    """Fix a map file and write the result; return what changed and the validation of the output.

    Only the Eidos that changed are rewritten; every other feature, property and foreign member is written
    back as read.  When nothing changes, nothing is written and the report is the validation of ``path``
    itself.

    Parameters
    ----------
    path : str or Path
        The map.
    out : str or Path, optional
        The file to write (never ``path`` itself).
    in_place : bool
        Instead of ``out``: copy ``path`` to ``path.bak`` (refusing when that exists), then replace ``path``
        atomically.
    catalog : str, Path or Catalog, optional
        The terrains and species (default: the one the map names).
    tolerance, near_miss, inlet, max_gap : float, optional
        As for :func:`~eidomap.validate.fix.fix_geometries`.
    show : bool or None
        A progress bar on stderr (None: when it is a terminal).
    reader, helper, pause_gc
        How the file is read (see :func:`eidomap.load`).

    Returns
    -------
    (FixResult, Report)
        What changed, and the validation of the map written.

    Raises
    ------
    RequestError
        Without exactly one of ``out`` and ``in_place``, when ``out`` is ``path``, or ``in_place`` on a map that
        is not GeoJSON, or when the backup of ``in_place`` exists; when the output is not a regular file (a
        library call replaces an output file that exists: the command line refuses it without ``--force``).
    MapError
        When the map cannot be read.

    See Also
    --------
    eidomap.validate.checks.validate : The problems, without fixing them.
    eidomap.validate.fix.fix_geometries : The fix, in memory.

    Examples
    --------
    A corner of an Eido dragged off its neighbours leaves a gap, which the fix gives to that Eido:

    >>> import json, shutil, tempfile, eidomap
    >>> from pathlib import Path
    >>> demo = eidomap.demo_map_path()
    >>> doc = json.loads(demo.read_text())
    >>> castro = next(f for f in doc["features"] if f.get("id") == "castro")
    >>> ring = castro["geometry"]["coordinates"][0]
    >>> ring[:] = [[490, 126] if p == [492, 125] else p for p in ring]
    >>> work = Path(tempfile.mkdtemp())
    >>> _ = shutil.copy(demo.with_name("demo-catalog.toml"), work)
    >>> _ = (work / "flawed.geojson").write_text(json.dumps(doc))
    >>> result, report = fix_map(work / "flawed.geojson", work / "fixed.geojson")
    >>> [(c.action, c.eido) for c in result.changes], len(report.errors)
    ([('fill-gap', 'castro')], 0)
    """
    src, out = Path(params.path(path, "path")), params.maybe(params.path, out, "out")
    in_place, show = params.flag(in_place, "in_place"), params.maybe(params.flag, show, "show")
    near_miss, inlet, max_gap = (params.maybe(params.real, v, name, 0) for v, name in
                                 ((near_miss, "near_miss"), (inlet, "inlet"), (max_gap, "max_gap")))
    if in_place == (out is not None):
        raise RequestError("give either an output file (out=...) or in_place=True")
    if out is not None and _same_file(src, Path(out)):
        raise RequestError(f"{shown(out)}: is the map being fixed; fix never writes over its input (use in_place=True,"
                           " which keeps a backup)")
    with progress.steps(("reading", "fixing", "writing", "validating"), show) as step:
        fmt = format_for(src)
        if in_place and fmt.name != "geojson":
            raise RequestError(f"{shown(path)}: fix writes GeoJSON; give a GeoJSON output file (out=...) for this map")
        data = read_bounded(src, MAX_MAP_BYTES) if fmt.reads_bytes else None  # (and kept for the backup)
        read: dict[str, Any] = {"reader": reader, "helper": helper, "pause_gc": pause_gc}
        md, _ = read_map(src, data=data, catalog=catalog, **read)
        step("fixing")
        try:
            result = fix_geometries(md, tolerance=tolerance, near_miss=near_miss, inlet=inlet, max_gap=max_gap)
        except PileUp as exc:  # (a Board knows no file)
            raise exc.of(src) from None
        same: dict[str, Any] = {"catalog": md.catalog, "tolerance": result.tolerance, "near_miss": result.near_miss,
                "inlet": result.inlet, **read}
        if not len(result.changed):
            step("validating")
            return result, validate(src, **same)
        step("writing")
        dst = src if out is None else Path(out)
        if in_place:
            assert data is not None  # (a GeoJSON map, read as bytes above)
            backup = src.with_name(src.name + ".bak")
            try:
                with open(backup, "xb") as fh:
                    fh.write(data)
            except FileExistsError:
                raise RequestError(f"{shown(backup)}: a backup already exists; move it away before fixing in"
                                   " place") from None
        write_geojson(md, dst, eido_geoms=result.geoms)
        step("validating")
        return result, validate(dst, **same)


def snap_borders(doc: dict, catalog: Catalog | str | os.PathLike | None, warnings: list[str]) -> None:
    """Snap the borders of an imported GeoJSON document drawn twice onto each other.

    By the rules of :func:`fix_geometries` (no gap is filled), with a warning for each snap: what the SVG
    import does (:func:`read_svg_map`, the ``svg`` format, and ``eidomap import-svg``).

    Parameters
    ----------
    doc : dict
        A GeoJSON document (a FeatureCollection), changed in place.
    catalog : str, Path or Catalog, optional
        The terrains and species.
    warnings : list of str
        Each snap's warning is appended to it.

    Raises
    ------
    MapError
        When the document is not a valid map.

    See Also
    --------
    fix_geometries : The fix it applies.

    Examples
    --------
    >>> import json, eidomap
    >>> doc = json.loads(eidomap.demo_map_path().read_text())
    >>> toxeira = next(f for f in doc["features"] if f.get("id") == "toxeira")
    >>> ring = toxeira["geometry"]["coordinates"][0]
    >>> ring[:] = [[660.4, p[1]] if p[0] == 660 else p for p in ring]
    >>> warnings = []
    >>> snap_borders(doc, eidomap.bundled_map_path("demo-catalog.toml"), warnings)
    >>> warnings
    ["snapped: Snapped 'toxeira' onto the border of 'souto' (its border moved by at most 0.4)."]
    """
    md, _ = read_map(None, format="geojson", data=json.dumps(doc).encode("utf-8"), catalog=catalog)
    rec = md.record
    if len(rec.eidos) < 2:
        return
    result = fix_geometries(md, max_gap=0.0)
    for k in result.changed.tolist():
        c = geometry_coords(result.geoms[k])
        doc["features"][int(rec.eidos.index[k])]["geometry"] = {"type": c.type, "coordinates": c.tolist()}
    warnings += [f"snapped: {c.message}" for c in result.changes]


def read_svg_map(path: Path | None, data: bytes | None, options: ReadOptions) -> tuple[MapData, list[Problem]]:
    """The ``svg`` format of :func:`eidomap.io.readers.read`: the drawing imported as a GeoJSON document, its
    borders drawn twice snapped onto each other (:func:`snap_borders`), and read as that document.

    Parameters
    ----------
    path : Path or None
        The drawing's file (None: ``data`` comes from no file).
    data : bytes or None
        Its bytes, when already read.
    options : ReadOptions
        The read's options (its ``catalog``; the others as for a GeoJSON map).

    Returns
    -------
    md : MapData
        The map, as the imported document reads.
    problems : list of Problem
        What the reader could not use.

    Raises
    ------
    MapError
        When the file is not an SVG drawing, cannot be read, or its whole board is refused.

    See Also
    --------
    eidomap.io.svg.read_svg : The drawing as a document (``snap=`` the snapping).

    Examples
    --------
    >>> from eidomap.io.readers import ReadOptions
    >>> md, problems = read_svg_map(None, b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10">'
    ...     b'<rect id="a" width="10" height="10" data-terrain="meadow"/>'
    ...     b'<rect id="b" x="10.01" width="10" height="10" data-terrain="forest"/></svg>', ReadOptions())
    >>> md.record.eidos.ids, problems
    (('a', 'b'), [])
    """
    from eidomap.io.svg import MAX_SVG_BYTES, read_svg

    doc, _ = read_svg(source_bytes(path, data, MAX_SVG_BYTES), path, options.catalog, snap=snap_borders)
    return read_document(doc, path, options)


register("svg", (".svg",), read_svg_map)
