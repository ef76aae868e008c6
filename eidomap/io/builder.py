"""The builder every reader feeds: features in, a :class:`~eidomap.record.record.MapRecord` and its problems out.

A reader hands the builder its features in file order, each at its position
``i`` among the file's features, in one of two ways:

* one at a time, as a GeoJSON-like dict (:meth:`MapBuilder.add_feature`): the
  builder checks it as the map format says (kind, id, geometry type,
  coordinates) and files it, or notes a problem about it;
* column-wise, for features the reader has already checked and whose ids are
  text used nowhere before (not in :attr:`MapBuilder.used_ids`): Eidos as flat
  coordinate columns (:meth:`MapBuilder.add_eido_columns`: the GeoJSON
  reader's fast lane, the table formats' ragged arrays), Pousas as points
  (:meth:`MapBuilder.add_pousas`).

:meth:`MapBuilder.finish` then makes the record (:meth:`MapBuilder.build`): the Eido polygons in one
vectorised pass (``shapely.from_ragged_array``) checked for validity (a
one-ring polygon by its ring, :mod:`eidomap.record.rings`, where numba already
runs; the others by ``shapely.is_valid`` in threads), catalog codes, roads, the Pousas on their
roads (named ``<road>@<k>`` when they have no id, placed along it), and every
problem, in file order.  Eido coordinates are kept in flat buffers (one
float64 array of every position, ring lengths, parts), never as Python
objects per position.
"""

from __future__ import annotations

import math
import os
from array import array
from collections.abc import KeysView, Sequence
from itertools import chain, repeat
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, cast

import numpy as np
import shapely

from eidomap.base import settings
from eidomap.base.arrays import in_parts, in_threads, unique, unique_inverse
from eidomap.base.errors import MapError
from eidomap.base.settings import loaded, twin
from eidomap.record import rulesets
from eidomap.record.rings import surely_simple

if TYPE_CHECKING:
    from eidomap.record.catalog import Catalog
from eidomap.base.names import did_you_mean
from eidomap.base.problems import ERROR, Problem
from eidomap.io.document import Document, Features, MapData
from eidomap.io.features import (
    GEOMETRY_TYPES,
    KINDS,
    MAX_COORDINATE,
    MAX_EIDO_VERTICES,
    as_bytes,
    compact,
    feature_id,
    parse_meta,
    resolve_catalog,
    usable,
    wrong_id,
)
from eidomap.record.geometry import MIN_SIDE, larger_side, places_along, tolerance_for
from eidomap.record.record import DEFAULT_CURRENT, Layer, MapRecord, Places, rules_of


class MapBuilder:
    """Sorts features into layers as a reader hands them over, and collects problems (see the module's text).

    Eido coordinates go into flat buffers (positions, ring lengths, parts);
    the other kinds (a few roads, Pousas, fountains, streams) keep small
    arrays.
    """

    def __init__(self, path: Path | None):
        self.path = path
        self._problems: list[tuple[int, Problem]] = []  # with the feature's position, to sort
        self._seen: dict[str, int] = {}
        self._fid: list[str | None] = []  # each feature's id by its position (None: none)
        self._by_kind: dict[str, list[int]] = {k: [] for k in KINDS}  # (the Eidos': _eido_index)
        self._eido_index = _Column("q")
        self._coords: dict = {}  # lines
        self._props: dict[int, dict] = {}  # lines
        self._point_xy = {"pousa": array("d"), "fountain": array("d")}  # (x, y) of each, flat, in _by_kind order
        self._pousa_roads: list = []  # each Pousa's 'road' property
        self._xy = _Column("d")
        self._ring_len = _Column("q")
        self._part_rings = _Column("q")
        self._eido_rings = _Column("q")
        self._eido_parts = _Column("q")
        self._is_multi = _Column("b", bool)
        self._terrain_names: list = []
        self._regions: list = []
        self._eido_names: list = []
        self._names: dict[str, str] = {}

    # -- problems and ids -----------------------------------------------------
    def problem(self, code: str, index: int, message: str, location: tuple[float, float] | None = None,
                others: Sequence[str] = ()) -> None:
        """Note a problem about feature ``index`` (an error: the feature is left out)."""
        self._problems.append((index, Problem(code, ERROR, (self.label(index), *others), location, message)))

    def label(self, index: int) -> str:
        """A feature's id, or ``#index`` when it has none."""
        return (self._fid[index] if index < len(self._fid) else None) or f"#{index}"

    @property
    def used_ids(self) -> KeysView[str]:
        """The ids of the features filed so far (a read-only, live set view)."""
        return self._seen.keys()

    def _claim(self, index: Sequence[int], fids: list) -> bool:
        """File the ids ``fids`` (texts; None for none) of features ``index`` if they are all different and used
        nowhere before; False, and none filed, otherwise."""
        seen = self._seen
        named = [fid for fid in fids if fid is not None] if None in fids else fids
        if not seen.keys().isdisjoint(named):
            return False
        before = len(seen)
        pairs = zip(fids, index, strict=True)
        seen.update(pairs if named is fids else ((fid, i) for fid, i in pairs if fid is not None))
        if len(seen) - before != len(named):  # an id twice in the run: none of them was there before
            for fid in named:
                seen.pop(fid, None)
            return False
        self._note_ids(index, fids)
        return True

    def _note_ids(self, index: Sequence[int], fids: list) -> None:
        """Note the ids ``fids`` of features ``index`` (a run of positions: one slice of the list)."""
        if not len(index):
            return
        if len(self._fid) <= (last := max(index[0], index[-1])):
            self._fid.extend([None] * (last + 1 - len(self._fid)))
        if isinstance(index, range) and index.step == 1:
            self._fid[index.start : index.stop] = fids
        else:
            for i, fid in zip(index, fids, strict=True):
                self._fid[i] = fid

    def _intern(self, value):
        """One shared string per terrain or region name, not one per Eido."""
        return self._names.setdefault(value, value) if isinstance(value, str) else value

    def _shared(self, values: list) -> list:
        """``values``, each text one shared string (:meth:`_intern` of a column)."""
        share = self._names.setdefault
        return [share(v, v) if type(v) is str else v for v in values]

    # -- features one at a time ----------------------------------------------
    def add_feature(self, i: int, f: object) -> None:
        """Check feature ``i`` (a GeoJSON-like dict) and file it under its kind, or note what is wrong with it."""
        if not isinstance(f, dict) or f.get("type") != "Feature":
            self.problem("not-a-feature", i, "is not a GeoJSON Feature")
            return
        if _wrong_id(f):
            self.problem("bad-id", i, f"has an id that is not a string or an integer: {f.get('id')!r}")
            return
        fid = feature_id(f)
        if fid is not None:
            self._note_ids((i,), [fid])
        props = f.get("properties")
        if props is None:
            props = {}
        if not isinstance(props, dict):
            self.problem("not-a-feature", i, "has 'properties' that is not an object")
            return
        kind = props.get("kind")
        if kind not in KINDS:
            what = "has no 'kind' property" if kind is None else f"has unknown kind {kind!r}{did_you_mean(kind, KINDS)}"
            self.problem("unknown-kind", i, f"{what} (expected one of {', '.join(KINDS)})")
            return
        if fid is None and kind in ("eido", "road"):
            self.problem("missing-id", i, f"is {_a(kind)} without an id")
            return
        if fid is not None:
            if fid in self._seen:
                j = self._seen[fid]
                self.problem("duplicate-id", i, f"has id {fid!r}, already used by feature #{j}", others=(f"#{j}",))
                return
            self._seen[fid] = i
        geom = f.get("geometry")
        if not isinstance(geom, dict) or geom.get("type") not in GEOMETRY_TYPES[kind]:
            got = geom.get("type") if isinstance(geom, dict) else geom
            want = " or ".join(GEOMETRY_TYPES[kind])
            self.problem("invalid-geometry", i, f"is {_a(kind)} whose geometry must be a {want}, got {got!r}")
            return
        if kind == "eido":
            if not self._add_rings(geom["type"], geom.get("coordinates")):
                self._malformed(i, geom["type"])
                return
            self._file_eido(i, props.get("terrain"), props.get("region"), props.get("name"))
            return
        c = compact(geom["type"], geom.get("coordinates"))
        if c is None:
            self._malformed(i, geom["type"])
            return
        if kind in self._point_xy:
            self._point_xy[kind].extend(c.rings[0][0, :2].astype(float).tolist())
            if kind == "pousa":
                self._pousa_roads.append(props.get("road"))
        else:
            self._coords[i] = c
            self._props[i] = props
        self._by_kind[kind].append(i)

    def _malformed(self, i: int, gtype: str) -> None:
        self.problem("invalid-geometry", i, f"has malformed {gtype} coordinates")

    def _file_eido(self, i: int, terrain, region, name) -> None:
        """Note Eido ``i``'s properties, its coordinates filed."""
        self._terrain_names.append(self._intern(terrain))
        self._regions.append(self._intern(region))
        self._eido_names.append(name)
        self._eido_index.tail.append(i)

    def _add_rings(self, gtype: str, coords) -> bool:
        """Append an Eido's rings (nested lists) to the flat buffers; False (nothing kept) if malformed."""
        if not isinstance(coords, list) or not coords:
            return False
        polys = [coords] if gtype == "Polygon" else coords
        xy, ring_len = self._xy.tail, self._ring_len.tail
        n_xy, n_ring = len(xy), len(ring_len)
        try:
            for poly in polys:
                if not isinstance(poly, list) or not poly:
                    raise ValueError
                for ring in poly:
                    if set(map(len, ring)) != {2}:
                        if not isinstance(ring, list) or min(map(len, ring)) < 2:
                            raise ValueError
                        ring = [p[:2] for p in ring]
                    xy.extend(chain.from_iterable(ring))
                    ring_len.append(len(ring))
        except (TypeError, ValueError, OverflowError):
            del xy[n_xy:]
            del ring_len[n_ring:]
            return False
        self._part_rings.tail.extend(len(p) for p in polys)
        self._eido_rings.tail.append(len(ring_len) - n_ring)
        self._eido_parts.tail.append(len(polys))
        self._is_multi.tail.append(gtype == "MultiPolygon")
        return True

    # -- features column-wise --------------------------------------------------
    def add_eido_columns(self, index: Sequence[int], fids: list[str], xy: np.ndarray, ring_len: np.ndarray,
                         part_rings: np.ndarray, eido_rings: np.ndarray, eido_parts: np.ndarray, multi: list[bool],
                         terrains: list, regions: list, names: list, *, shared: bool = False) -> bool:
        """File Eidos ``index`` at once, as :meth:`add_feature` would: their ids (text, used nowhere before), their
        coordinates flat (every position's x and y; each ring's length, each polygon's rings, each Eido's rings
        and polygons; whether each is a MultiPolygon) and their properties.  ``shared``: the texts among
        ``terrains`` and ``regions`` are already one string per name (as a reader that dictionary-encodes its
        columns gives them), not to be shared again.  False, and nothing filed, when an id is used twice or
        before (for the reader to hand those features over one at a time)."""
        if not self._claim(index, fids):
            return False
        self._xy.add(xy.reshape(-1))
        self._ring_len.add(ring_len)
        self._part_rings.add(part_rings)
        self._eido_rings.add(eido_rings)
        self._eido_parts.add(eido_parts)
        self._is_multi.add(multi)
        self._file_eidos(index, terrains, regions, names, shared)
        return True

    def _file_eidos(self, index: Sequence[int], terrains: list, regions: list, names: list,
                    shared: bool = False) -> None:
        self._terrain_names.extend(terrains if shared else self._shared(terrains))
        self._regions.extend(regions if shared else self._shared(regions))
        self._eido_names.extend(names)
        self._eido_index.add(index)

    def add_pousas(self, index: Sequence[int], fids: list, roads: list, xy: np.ndarray) -> bool:
        """File Pousas ``index`` at once, as :meth:`add_feature` would: their ids (text, used nowhere before, or
        None), their roads (texts) and their points ``xy`` (``(n, 2)`` floats).  False, and nothing filed, when
        an id is used twice or before."""
        if not self._claim(index, fids):
            return False
        self._point_xy["pousa"].frombytes(as_bytes(np.asarray(xy, dtype=np.float64)))
        self._pousa_roads.extend(roads)
        self._by_kind["pousa"].extend(index)
        return True

    # -- the record -------------------------------------------------------------
    def finish(self, members: dict, features: Features,
               catalog: Catalog | str | os.PathLike | None) -> tuple[MapData, list[Problem]]:
        """The map read: its record (:meth:`build`) and its document -- ``members`` and ``features``, the file's
        -- and every problem found, in file order."""
        record, found = self.build(members, catalog)
        return MapData(record, Document(members, features, tuple(i for i, _ in found))), [p for _, p in found]

    def build(self, members: dict,
              catalog: Catalog | str | os.PathLike | None) -> tuple[MapRecord, list[tuple[int, Problem]]]:
        """The record of the features filed, and every problem with the position of its feature, in file order.

        ``members`` are the collection's members other than its features (the
        ``eidomap`` member among them); ``catalog`` the one asked for (a
        :class:`~eidomap.record.catalog.Catalog`, a file, or None: the one the map
        names, else the default).
        """
        path = self.path
        meta = parse_meta(path, members)
        cat = resolve_catalog(path, meta, catalog)
        code = _codes_of(self._terrain_names, cat.codes)
        known = code >= 0
        for k in np.flatnonzero(~known).tolist():
            i = int(self._eido_index.whole()[k])
            name = self._terrain_names[k]
            self.problem("unknown-terrain", i, "has no 'terrain' property (expected a terrain of the catalog)"
                         if name is None else f"has terrain {name!r}, which is not in the catalog"
                                              f"{did_you_mean(name, cat.codes)}")
        eidos, pos = self._polygons(known)
        if 0 < (side := self._larger_side(eidos, pos)) < MIN_SIDE:  # its tolerance, squared, would leave the doubles
            raise MapError(path, None, f"is {side:g} units across, smaller than any map eidomap draws (at least"
                                       f" {MIN_SIDE:g})")
        roads = self._lines(self._by_kind["road"])
        road_index: dict[str | None, int] = {rid: k for k, rid in enumerate(roads.ids)}
        refs: list[str | None] = [ref if type(ref) is str else None if ref is None or isinstance(ref, bool)
                                  else str(ref) for ref in self._pousa_roads]
        on = np.array([road_index.get(ref, -1) for ref in refs], dtype=np.int64).reshape(-1)
        for k in np.flatnonzero(on < 0).tolist():
            self.problem("unknown-road", self._by_kind["pousa"][k], f"is a pousa on road {refs[k]!r}, which is not"
                                                                     f" a road of this map"
                                                                     f"{did_you_mean(refs[k], roads.ids)}")
        wanted = np.flatnonzero(on >= 0)
        index, xy = self._points("pousa", wanted)
        placed = np.isin(np.asarray(self._by_kind["pousa"], dtype=np.int64)[wanted], index)
        pousa_road = on[wanted][placed].astype(np.int32)
        pousas, places = self._placed_pousas(index, xy, roads, pousa_road, tolerance_for(side))
        fountains = self._point_layer("fountain")
        currents = {i: self._current(i) for i in self._by_kind["river"]}
        rivers = self._lines([i for i, c in currents.items() if c is not None])
        rules = rulesets.get(rules_of(meta))
        road_class = tuple(self._road_class(i, rules) for i in roads.index.tolist())
        record = MapRecord(path, meta, cat, eidos, code[pos], _picked(self._regions, pos),
                           _picked(self._eido_names, pos), roads, road_class, pousas, pousa_road, places,
                           fountains, self._lines(self._by_kind["stream"]), rivers,
                           np.array([currents[i] for i in rivers.index.tolist()], dtype=float))
        return record, sorted(self._problems, key=lambda item: item[0])

    def _larger_side(self, eidos: Layer, pos: np.ndarray) -> float:
        """The larger side of the box around the Eidos kept (at positions ``pos``): the box of every position
        when all were kept (that of a valid polygon's positions is its own), else Shapely's."""
        xy = self._xy.whole()
        if len(pos) != len(self._eido_index.whole()) or not len(xy):
            return larger_side(eidos.geoms)
        x, y = xy[0::2], xy[1::2]  # (a column at a time: NumPy reduces an (n, 2) array's axis 0 ten times slower)
        return float(max(x.max() - x.min(), y.max() - y.min()))

    def _ids(self, indices) -> tuple[str, ...]:
        try:  # every one has an id (as every Eido and road kept): one lookup each, in C
            ids = tuple(map(self._fid.__getitem__, indices))
            if None not in ids:
                return cast(tuple[str, ...], ids)
        except IndexError:
            pass
        return tuple(map(self.label, indices))

    def _not_finite(self, i: int) -> None:
        limit = f"{MAX_COORDINATE:.0e}".replace("e+", "e")
        self.problem("invalid-geometry", i, f"has a NaN or infinite coordinate, or one beyond ±{limit}")

    def _points(self, kind: str, wanted: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The positions in the file and ``(x, y)`` of the usable points of ``kind`` (those at positions
        ``wanted`` of its features, or all); a problem for each other."""
        indices = np.asarray(self._by_kind[kind], dtype=np.int64)
        xy = np.frombuffer(self._point_xy[kind], dtype=np.float64).reshape(-1, 2)
        if wanted is not None:
            indices, xy = indices[wanted], xy[wanted]
        ok = usable(xy)
        for k in np.flatnonzero(~ok).tolist():
            self._not_finite(int(indices[k]))
        return indices[ok], xy[ok]

    def _point_layer(self, kind: str) -> Layer:
        index, xy = self._points(kind)
        return Layer(self._ids(index.tolist()), index, shapely.points(xy))

    def _placed_pousas(self, index: np.ndarray, xy: np.ndarray, roads: Layer, pousa_road: np.ndarray,
                       tol: float) -> tuple[Layer, Places]:
        """The Pousas, placed along their roads at the map's default tolerance ``tol``; each one without an id
        named ``<road>@<k>`` (k-th along its road)."""
        geoms = shapely.points(xy)
        ids = [self._fid[i] or "" if i < len(self._fid) else "" for i in index.tolist()]
        if not len(ids):
            return Layer((), index, geoms), Places()
        pos, near = places_along(roads.geoms, pousa_road, geoms, tol)
        order = np.lexsort((pos, pousa_road))
        rank = np.empty(len(order), dtype=np.int64)
        road_sorted = pousa_road[order]
        starts = np.searchsorted(road_sorted, road_sorted)
        rank[order] = np.arange(len(order)) - starts
        unnamed = [k for k, pid in enumerate(ids) if not pid]
        # distinct from one another (a name splits at its last "@" into one road and one rank), not from the ids read
        names = [f"{roads.ids[road]}@{n + 1}" for road, n in zip(pousa_road[unnamed].tolist(),
                                                                  rank[unnamed].tolist(), strict=True)]
        at = index[unnamed].tolist()
        for i, name in zip(at, names, strict=True):
            if name in self._seen:
                self.problem("duplicate-id", i, f"gets the automatic id {name!r}, already used")
        for k, name in zip(unnamed, names, strict=True):
            ids[k] = name
        self._seen.update(zip(names, at, strict=True))
        return Layer(tuple(ids), index, geoms), Places(tol, pos, near)

    def _lines(self, indices) -> Layer:
        keep = []
        for i in indices:
            xy = self._coords[i].rings[0][:, :2]
            if not usable(xy).all():
                self._not_finite(i)
            elif not np.any(xy != xy[0]):
                self.problem("invalid-geometry", i, "is a LineString with fewer than two distinct points")
            else:
                keep.append(i)
        geoms = np.array([shapely.linestrings(self._coords[i].rings[0][:, :2]) for i in keep], dtype=object)
        return Layer(self._ids(keep), np.asarray(keep, dtype=np.int64), geoms.reshape(len(keep)))

    def _current(self, i: int) -> float | None:
        """A river's ``current`` (mph, default 3); None, with a problem, if it is not a number >= 0."""
        c = self._props[i].get("current", DEFAULT_CURRENT)
        if isinstance(c, bool) or not isinstance(c, int | float) or not (math.isfinite(c) and c >= 0):
            self.problem("bad-property", i, f"is a river whose 'current' must be a number of miles an hour >= 0, got"
                                            f" {c!r}")
            return None
        return float(c)

    def _road_class(self, i: int, rules: rulesets.RuleSet) -> str | None:
        """A road's ``class``: required where the rule set names the classes (d20: highway, road or trail)."""
        cls = self._props[i].get("class")
        if rules.road_classes and cls not in rules.road_classes:
            self.problem("bad-property", i, f"is a road whose 'class' must be one of {', '.join(rules.road_classes)}"
                                            f" on a {rules.name} map, got {cls!r}")
            return None
        return cls if isinstance(cls, str) else None

    def _flat(self) -> _Flat:
        """The Eidos' coordinates, flat (the buffers filled)."""
        return _Flat(self._xy.whole().reshape(-1, 2), self._ring_len.whole(), self._part_rings.whole(),
                     self._eido_rings.whole(), self._eido_parts.whole(), self._is_multi.whole())

    def _polygons(self, keep: np.ndarray) -> tuple[Layer, np.ndarray]:
        """Build the Eido polygons in one vectorised pass (``shapely.from_ragged_array``).

        ``keep`` marks the Eidos (in file order) still wanted; returns the layer
        and the positions (in that order) of the Eidos it holds.
        """
        index = self._eido_index.whole()
        if len(index) == 0:
            return Layer(), np.empty(0, np.int64)
        flat = self._flat()
        lengths, xy = flat.ring_len, flat.xy
        ring_eido = np.repeat(np.arange(len(index)), flat.eido_rings)
        part_eido = np.repeat(np.arange(len(index)), flat.eido_parts)
        starts = np.cumsum(lengths) - lengths
        unusable = ~usable(xy)
        nan_ring = np.logical_or.reduceat(unusable, starts) if unusable.any() else np.zeros(len(starts), bool)
        head, tail = xy[starts], xy[starts + lengths - 1]
        closed = (head[:, 0] == tail[:, 0]) & (head[:, 1] == tail[:, 1])  # (not all(axis=1): slow on two columns)
        vertices = np.bincount(ring_eido, lengths, minlength=len(index))
        nan = unique(ring_eido[nan_ring])
        big = np.setdiff1d(np.flatnonzero(vertices > MAX_EIDO_VERTICES), nan)
        shape = np.setdiff1d(ring_eido[(lengths < 4) | ~closed], np.r_[nan, big])
        for k in nan:
            self._not_finite(int(index[k]))
        for k in big:
            self.problem("invalid-geometry", int(index[k]), f"has {int(vertices[k]):,} positions, more than the"
                         f" {MAX_EIDO_VERTICES:,} one Eido may have")
        for k in shape:
            first = starts[np.searchsorted(ring_eido, k)]
            self.problem("invalid-geometry", int(index[k]),
                         "has a polygon ring that is not closed or has fewer than 4 positions",
                         location=(float(xy[first, 0]), float(xy[first, 1])))
        keep = keep.copy()
        keep[nan] = False
        keep[big] = False
        keep[shape] = False
        if not keep.any():
            return Layer(), np.empty(0, np.int64)
        pos, geoms = self._shapes_of(keep, flat, ring_eido, part_eido)
        valid = _valid(flat, starts, pos, geoms)
        for k in np.flatnonzero(~valid):
            reason = shapely.is_valid_reason(geoms[k])
            self.problem("invalid-geometry", int(index[pos[k]]), f"is not a valid polygon ({reason})",
                         location=_reason_location(reason, geoms[k]))
        pos, geoms = pos[valid], geoms[valid]
        feats = index[pos]
        return Layer(self._ids(feats.tolist()), feats, geoms), pos

    def _shapes_of(self, keep: np.ndarray, flat: _Flat, ring_eido: np.ndarray,
                   part_eido: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The positions of the Eidos ``keep`` marks and their polygons, built from the flat coordinates."""
        xy, lengths, part_rings = flat.xy, flat.ring_len, flat.part_rings
        if not keep.all():  # (a copy of every kept position: not when all are kept)
            keep_ring = keep[ring_eido]
            xy, lengths = xy[np.repeat(keep_ring, lengths)], lengths[keep_ring]
            part_rings, part_eido = part_rings[keep[part_eido]], part_eido[keep[part_eido]]
        polys = _polygons_from(xy, lengths, part_rings)
        first = np.flatnonzero(np.r_[True, part_eido[1:] != part_eido[:-1]])
        pos = part_eido[first]
        multi = flat.is_multi[pos]
        geoms = np.empty(len(pos), dtype=object)
        geoms[~multi] = polys[first[~multi]]
        if multi.any():
            group = np.repeat(np.arange(len(pos)), np.diff(np.r_[first, len(part_eido)]))
            member = multi[group]
            geoms[multi] = shapely.multipolygons(polys[member], indices=unique_inverse(group[member])[1])
        return pos, geoms


class _Column:
    """A flat column of numbers filled a feature at a time (:attr:`tail`, an ``array.array``) or a run at a
    time (:meth:`add`: the run's array kept as it is, not copied), made one array once (:meth:`whole`): one copy
    of the coordinates whatever the number of runs, none for a single run."""

    def __init__(self, typecode: str, dtype: type | None = None):
        self.tail = array(typecode)
        self._dtype = np.dtype(dtype or typecode)
        self._chunks: list[np.ndarray] = []

    def _flush(self) -> None:
        if len(self.tail):
            self._chunks.append(np.frombuffer(self.tail, self._dtype))  # (the array lives on in its buffer)
            self.tail = array(self.tail.typecode)

    def add(self, values: np.ndarray | Sequence) -> None:
        self._flush()
        if isinstance(values, range):
            values = np.arange(values.start, values.stop, values.step)
        self._chunks.append(np.asarray(values, self._dtype))

    def whole(self) -> np.ndarray:
        self._flush()
        if len(self._chunks) > 1:
            self._chunks = [np.concatenate(self._chunks)]
        return self._chunks[0] if self._chunks else np.empty(0, self._dtype)


class _Flat(NamedTuple):
    """Eidos' coordinates, flat: every position ``(n, 2)``; each ring's length, each polygon's rings, each Eido's
    rings and polygons; whether each Eido is a MultiPolygon."""

    xy: np.ndarray
    ring_len: np.ndarray
    part_rings: np.ndarray
    eido_rings: np.ndarray
    eido_parts: np.ndarray
    is_multi: np.ndarray


def _polygons_from(xy: np.ndarray, ring_len: np.ndarray, part_rings: np.ndarray) -> np.ndarray:
    """``shapely.from_ragged_array`` of polygons, in parts on threads (GEOS makes them without the GIL)."""
    ring_at = np.r_[0, np.cumsum(ring_len)]
    poly_at = np.r_[0, np.cumsum(part_rings)]

    def made(polys: np.ndarray) -> np.ndarray:  # polygons polys[0] to polys[-1]
        a, b = int(polys[0]), int(polys[-1]) + 1
        r0, r1 = int(poly_at[a]), int(poly_at[b])
        at = ring_at[r0 : r1 + 1]
        return shapely.from_ragged_array(shapely.GeometryType.POLYGON, xy[at[0] : at[-1]],
                                         (at - at[0], poly_at[a : b + 1] - r0))

    if not len(part_rings):
        return np.empty(0, dtype=object)
    return np.concatenate([polys for _, polys in in_parts(made, np.arange(len(part_rings)))])


def _valid(flat: _Flat, starts: np.ndarray, pos: np.ndarray, geoms: np.ndarray) -> np.ndarray:
    """Which of the polygons ``geoms`` (of the Eidos at positions ``pos``, ring ``r`` of ``flat`` from position
    ``starts[r]``) are valid: a polygon of one ring whose ring is surely simple is (:mod:`eidomap.record.rings`, past
    :data:`~eidomap.base.settings.SURE_ABOVE` of them where numba already runs), GEOS's ``is_valid`` says of the
    others, in threads."""
    valid = np.zeros(len(pos), dtype=bool)
    one = (flat.eido_rings[pos] == 1) & ~flat.is_multi[pos]
    tried = int(np.count_nonzero(one))
    if tried > settings.SURE_ABOVE and loaded():
        ring = (np.cumsum(flat.eido_rings) - flat.eido_rings)[pos[one]]
        simple = twin(surely_simple, tried, compiled=True)
        valid[one] = in_threads(lambda part: simple(flat.xy, starts[part], flat.ring_len[part]), ring)
    rest = np.flatnonzero(~valid)
    valid[rest] = in_threads(shapely.is_valid, geoms[rest])
    return valid


def _picked(values: list, pos: np.ndarray) -> tuple:
    """``values`` at positions ``pos`` (increasing), as a tuple."""
    return tuple(values) if len(pos) == len(values) else tuple(map(values.__getitem__, pos.tolist()))


def _a(kind: str) -> str:
    """A kind with its article: 'an eido', 'a road'."""
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _wrong_id(feature: dict) -> bool:
    """The feature has an id (``id`` or ``properties.id``) that :func:`~eidomap.io.features.wrong_id` refuses."""
    fid = feature.get("id")
    if fid is None and isinstance(feature.get("properties"), dict):
        fid = feature["properties"].get("id")
    return wrong_id(fid)


def _reason_location(reason: str, geom) -> tuple[float, float]:
    """The point GEOS names in an invalidity reason such as 'Self-intersection[3 4]'."""
    if "[" in reason and reason.endswith("]"):
        try:
            x, y = (float(v) for v in reason[reason.rindex("[") + 1 : -1].split()[:2])
            return (x, y)
        except ValueError:
            pass
    p = shapely.get_point(shapely.get_exterior_ring(shapely.get_geometry(geom, 0)), 0)
    return (shapely.get_x(p), shapely.get_y(p))


def _codes_of(names: list, codes: dict[str, int]) -> np.ndarray:
    """The catalog code of each terrain name; -1 where it is not one (not text, or not in the catalog)."""
    try:  # hashable names, a catalog of texts: only a text can be found (one lookup each, in C)
        return np.fromiter(map(codes.get, names, repeat(-1)), np.int32, len(names))
    except TypeError:  # a list or an object among them
        return np.fromiter((codes.get(t, -1) if type(t) is str else -1 for t in names), np.int32, len(names))
