"""The :class:`Map` object and :func:`load`, the strict reader.

Data flows one way: file -> :class:`~eidomap.io.geojson.MapData` ->
adjacency (:mod:`eidomap.topology`) -> compiled :class:`~eidomap.graph.Network`
-> answers.  Each stage is computed on first use and kept.

>>> import eidomap
>>> m = eidomap.load(eidomap.demo_map_path())
>>> m.neighbors("portela")
['bouza-vella', 'fraga-do-pindo', 'monte-louro', 'monte-pindo', 'penedo-do-corvo']
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import numpy as np
import shapely

from . import cache as _cache
from ._arrays import paused_gc
from .catalog import Catalog
from .errors import MapError, RequestError
from .geometry import check_tolerance, default_tolerance
from .graph import LAYERS, MAP_ERROR_CODES, Network, build_network, to_networkx
from .io.files import MAX_MAP_BYTES, read_bounded
from .io.geojson import MapData, name_of, parse_meta, read_geojson, resolve_catalog, rules_of, write_geojson
from .io.tables import is_table_map, read_map
from .names import did_you_mean
from .problems import ERROR, Problem
from .topology import Adjacency, adjacency

__all__ = ["SCANS", "Map", "first_error", "load"]

#: Id look-ups a map answers by scanning its ids before it indexes every one (a route makes two).
SCANS = 8


def _position(ids: list[str], key: str) -> int | None:
    """Where ``key`` is in ``ids`` (one pass in C); None if it is not there."""
    try:
        return ids.index(key)
    except ValueError:
        return None


def first_error(path, problems: list[Problem]) -> MapError | None:
    """The first error among ``problems`` as a :class:`MapError`, or None."""
    for p in problems:
        if p.severity == ERROR:
            label = p.features[0] if p.features else None
            if label is not None and not label.startswith("#"):
                label = repr(label)
            return MapError(path, label, p.message)
    return None


class Map:
    """A loaded map: its features, adjacency and movement graph.

    Use :func:`load` to make one.  ``tolerance`` is the drawing tolerance used
    for adjacency and for points on borders (default: 1e-9 of the map's
    larger side).
    """

    def __init__(self, data: MapData, tolerance: float | None = None, cache_path: Path | None = None,
                 key: _cache.Key | None = None):
        self.data = data
        self._path, self._meta, self._catalog = data.path, data.meta, data.catalog
        self._tolerance = tolerance
        self._cache_path = cache_path
        self._key = key
        self._entry: _cache.Entry | None = None
        self._scans = 0

    @classmethod
    def from_cache(cls, path: Path, entry: _cache.Entry, catalog: Catalog, key: _cache.Key) -> Map:
        """A map answered from its cache: the file is read (geometry and all) only when something asks for it."""
        m = cls.__new__(cls)
        m._path, m._meta, m._catalog = path, entry.meta, catalog
        m._tolerance, m._cache_path, m._key, m._entry, m._scans = key.tolerance, None, key, entry, 0
        return m

    @cached_property
    def data(self) -> MapData:
        """Everything read from the file; read on first use when the map came from its cache."""
        raw = read_bounded(self._path, MAX_MAP_BYTES)
        if self._key is not None and not self._key.matches(raw):
            raise MapError(self._path, None, "changed since its cache was read; load it again")
        md, problems = read_geojson(self._path, self._catalog, data=raw)
        return _checked(self._path, md, problems)

    # -- what the file holds -------------------------------------------------
    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def name(self) -> str:
        return name_of(self._meta, self._path)

    @property
    def rules(self) -> str:
        """The rule set the map is drawn for: ``"eido"`` or ``"d20"``."""
        return rules_of(self._meta)

    @property
    def catalog(self) -> Catalog:
        return self._catalog

    @cached_property
    def eido_ids(self) -> list[str]:
        if self._entry is None:
            return self.data.eidos.ids
        net = self.network
        return net.node_ids[: net.n_eidos].tolist()

    @cached_property
    def pousa_ids(self) -> list[str]:
        """Ids of the Pousas, in the order of the network's Pousa nodes."""
        if self._entry is None:
            return self.data.pousas.ids
        net = self.network
        return net.node_ids[net.node_layer == LAYERS.index("pousa")].tolist()

    @property
    def geometries(self) -> np.ndarray:
        """The Eidos' Shapely polygons, in the order of :attr:`eido_ids`."""
        return self.data.eidos.geoms

    @cached_property
    def display_names(self) -> dict[str, str]:
        """The ``name`` property of each Eido that has one, by id."""
        if self._entry is not None:
            return self._entry.display_names
        ids, names = self.eido_ids, self.data.eido_names
        given = np.flatnonzero(np.fromiter(names, object, len(names)) != None).tolist()  # noqa: E711 (elementwise)
        return {ids[k]: names[k] for k in given if isinstance(names[k], str) and names[k].strip()}

    @property
    def terrains(self) -> list[str]:
        """Terrain name of each Eido."""
        names = self.catalog.terrain_names
        codes = self.data.terrain if self._entry is None else self.network.node_terrain[: len(self.eido_ids)]
        return [names[t] for t in codes]

    @cached_property
    def tolerance(self) -> float:
        if self._entry is not None:
            return self._entry.tolerance
        return default_tolerance(self.geometries) if self._tolerance is None else float(self._tolerance)

    def index(self, eido_id) -> int:
        """Position of an Eido in :attr:`eido_ids`; :class:`RequestError` if unknown."""
        k = self._find(str(eido_id), pousas=False)
        if k is None:
            raise RequestError(f"{self.path or self.name}: no Eido with id {str(eido_id)!r}"
                               f"{did_you_mean(str(eido_id), self.eido_ids)}")
        return k

    @cached_property
    def _id_index(self) -> dict[str, int]:
        return {e: k for k, e in enumerate(self.eido_ids)}

    def node_index(self, node_id) -> int:
        """Position of an Eido or a Pousa among the network's nodes: where a turn can start or end.

        :class:`RequestError` if the map has no Eido or Pousa with that id.
        """
        key = str(node_id)
        k = self._find(key, pousas=True)
        if k is None:
            raise RequestError(f"{self.path or self.name}: no Eido or Pousa with id {key!r}"
                               f"{did_you_mean(key, [*self.eido_ids, *self.pousa_ids])}")
        return k

    def _find(self, key: str, pousas: bool) -> int | None:
        """Node position of Eido ``key`` (or, with ``pousas``, Eido or Pousa); None if there is none.

        A map answers its first few look-ups (a route makes two) by scanning
        its ids, and indexes every id only when asked for more.
        """
        if self._scans < SCANS and "_id_index" not in self.__dict__:
            self._scans += 1
            if self._entry is not None:
                net = self.network
                ends = np.count_nonzero(net.node_layer <= LAYERS.index("pousa" if pousas else "eido"))
                hit = np.flatnonzero(net.node_ids[:ends] == key)
                return int(hit[0]) if len(hit) else None
            k = _position(self.eido_ids, key)
            if k is None and pousas:
                k = _position(self.pousa_ids, key)
                return None if k is None else len(self.eido_ids) + k
            return k
        k = self._id_index.get(key)
        return self._pousa_index.get(key) if k is None and pousas else k

    @cached_property
    def _pousa_index(self) -> dict[str, int]:
        n = len(self.eido_ids)
        return {p: n + k for k, p in enumerate(self.pousa_ids)}

    # -- derived -------------------------------------------------------------
    @cached_property
    def adjacency(self) -> Adjacency:
        """Adjacent Eido pairs (indices ``i < j``) and the length of border they share."""
        with paused_gc():
            return adjacency(self.geometries, self.tolerance)

    @cached_property
    def network(self) -> Network:
        """The compiled movement graph (CSR arrays), cached beside the map if asked."""
        if self._entry is not None:
            return self._entry.network
        with paused_gc():
            net = build_network(self.data, self.adjacency, self.tolerance)
        if self._cache_path is not None:
            _cache.save(self._cache_path, self._key, _cache.Entry(net, self.tolerance, self._meta, self.display_names))
        return net

    @cached_property
    def graph(self):
        """The NetworkX ``MultiDiGraph`` with Eido, Pousa and teleport-hub layers.

        Edges carry ``kind`` and ``terrain``, not costs: costs depend on who
        moves (:meth:`graph_for`, :func:`eidomap.weight`).
        """
        return to_networkx(self.network, self._node_attrs)

    def graph_for(self, who="human", partial: str = "carry"):
        """A NetworkX ``DiGraph`` weighted for one species or actor.

        The nodes of :attr:`graph`; between two nodes the cheapest step for
        ``who`` (a species name or an :class:`~eidomap.rules.eido.Actor`: a
        rider, a party), with its ``kind``, ``terrain`` and ``cost`` in PtMv;
        the steps ``who`` cannot take are left out (and under
        ``partial="forbid"`` the steps dearer than its largest roll).  Any
        NetworkX algorithm can use it with ``weight="cost"``:

        >>> import eidomap, networkx as nx
        >>> m = eidomap.load(eidomap.demo_map_path())
        >>> g = m.graph_for("human")
        >>> nx.shortest_path_length(g, "bouza-vella", "porto-norte", weight="cost")
        6.0
        """
        from .routing import plan_weights, resolve_actor
        from .search.turns import check_partial

        w = plan_weights(self, resolve_actor(self, who), check_partial(partial))
        return to_networkx(self.network, self._node_attrs, weights=w)

    @cached_property
    def _node_attrs(self) -> dict:
        pts = self.positions
        attrs = {e: {"region": r, "pos": tuple(p)} for e, r, p in
                 zip(self.eido_ids, self.data.regions, pts[: len(self.eido_ids)], strict=True)}
        pousa_xy = shapely.get_coordinates(self.data.pousas.geoms)
        for pid, road, xy in zip(self.data.pousas.ids, self.data.pousa_road, pousa_xy, strict=True):
            attrs[pid] = {"road": self.data.roads.ids[road], "pos": tuple(xy)}
        return attrs

    @cached_property
    def positions(self) -> np.ndarray:
        """An (x, y) inside each Eido (then each Pousa), for labels and plots."""
        inside = shapely.get_coordinates(shapely.point_on_surface(self.geometries))
        return np.vstack([inside, shapely.get_coordinates(self.data.pousas.geoms)]).reshape(-1, 2)

    def map_errors(self) -> dict[str, int]:
        """Errors the build of the movement graph came across, by validation code, as ``eidomap validate`` counts them.

        The build notices at no extra cost where Eidos overlap (borders that
        cross), Pousas off their road or in no Eido, roads with fewer than two
        Pousas, fountains and stream ends in no Eido; the codes it noticed are
        then counted by validate's own checks
        (:func:`eidomap.validate.counted_problems`), so the numbers are the
        ones ``eidomap validate`` reports.  An empty dict does not mean the
        map is valid (a gap, say, is not looked for).
        """
        noticed = [code for code, c in zip(MAP_ERROR_CODES, self.network.map_errors, strict=True) if c]
        if not noticed:
            return {}
        from .validate import Board, counted_problems

        return counted_problems(self.data, Board(self.geometries, self.tolerance), noticed)

    def neighbors(self, eido_id) -> list[str]:
        """Ids of the Eidos adjacent to ``eido_id``, sorted."""
        k = self.index(eido_id)
        adj = self.adjacency
        other = np.r_[adj.j[adj.i == k], adj.i[adj.j == k]]
        return sorted(self.eido_ids[o] for o in other)

    def pairs(self) -> list[tuple[str, str]]:
        """Every adjacent pair as ``(id_a, id_b)`` with ``id_a < id_b``, sorted."""
        ids = self.eido_ids
        return sorted(tuple(sorted((ids[i], ids[j]))) for i, j in zip(self.adjacency.i, self.adjacency.j, strict=True))

    def components(self) -> int:
        """Number of connected groups of Eidos (across borders only)."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        n = len(self.eido_ids)
        a = self.adjacency
        m = coo_matrix((np.ones(len(a)), (a.i, a.j)), shape=(n, n))
        return int(connected_components(m, directed=False)[0]) if n else 0

    def info(self) -> dict:
        """Counts of what the map holds (as printed by ``eidomap info``)."""
        names = self.catalog.terrain_names
        counts = np.bincount(self.data.terrain, minlength=len(names))
        return {
            "name": self.name,
            "rules": self.rules,
            "eidos": len(self.eido_ids),
            "terrains": {names[k]: int(c) for k, c in enumerate(counts) if c},
            "regions": len({r for r in self.data.regions if r is not None}),
            "adjacent_pairs": len(self.adjacency),
            "roads": len(self.data.roads),
            "pousas": len(self.data.pousas),
            "fountains": len(self.data.fountains),
            "streams": len(self.data.streams),
            "components": self.components(),
            "nodes": self.network.n_nodes,
            "edges": self.network.n_edges,
        }

    def save(self, path) -> None:
        """Write the map back as GeoJSON; every property and foreign member is kept."""
        write_geojson(self.data, path)

    def to_geodataframe(self, layer: str = "eidos"):
        """One layer as a GeoDataFrame (see :func:`eidomap.geo.to_geodataframe`)."""
        from .geo import to_geodataframe

        return to_geodataframe(self, layer)

    def explore(self, **kwargs):
        """An interactive map to pan, zoom and hover (see :func:`eidomap.plot.explore.explore`)."""
        from .plot.explore import explore

        return explore(self, **kwargs)

    def planner(self, **kwargs):
        """A page to plan on by clicking: one HTML file that works offline (see :func:`eidomap.planner.planner`)."""
        from .planner import planner

        return planner(self, **kwargs)

    def __repr__(self) -> str:
        return f"<eidomap.Map {self.name!r}: {len(self.eido_ids)} Eidos>"


def load(path, catalog=None, tolerance: float | None = None, cache: bool = False, *,
         terrain_field: str = "terrain", id_field: str = "id") -> Map:
    """Read a map file strictly.

    Parameters
    ----------
    path : str or Path
        A GeoJSON map (see docs/map-format.md), or a GeoPackage, Shapefile,
        FlatGeobuf or GeoParquet one (by suffix; :mod:`eidomap.io.tables`).
    catalog : str, Path or Catalog, optional
        Terrain/species catalog; default: the one the map names, else the
        default catalog.
    tolerance : float, optional
        Drawing tolerance for adjacency (default tied to the map's extent).
    cache : bool
        Keep the compiled graph and what a query needs of the map in a
        file beside it (``<map>.eidomap-cache``), keyed by the file's hash and size, so that
        the next load reads neither the GeoJSON nor the topology: the
        geometry is read only when asked for (GeoJSON maps).
    terrain_field, id_field : str
        The columns holding each Eido's terrain and each feature's id, in a
        table format.

    Raises
    ------
    MapError
        On the first problem: not JSON or GeoJSON, unknown kind, invalid
        geometry, duplicate id, unknown terrain, NaN coordinates, a Pousa on
        no road...
    """
    tolerance = None if tolerance is None else check_tolerance(tolerance)
    if not cache or is_table_map(path):
        md, problems = read_map(path, catalog, terrain_field=terrain_field, id_field=id_field)
        return Map(_checked(path, md, problems), tolerance)
    known = _cache.known_key(path, tolerance)  # the map's hash from its cache's record: nothing read
    if known is not None and (cached := _from_cache(Path(path), known, catalog)) is not None:
        return cached
    raw, key = _cache.read_keyed(path, tolerance)  # the key of the very bytes parsed below
    if known is None and (cached := _from_cache(Path(path), key, catalog)) is not None:
        return cached
    md, problems = read_geojson(path, catalog, data=raw)
    return Map(_checked(path, md, problems), tolerance, _cache.path_for(path), key)


def _checked(path, md: MapData, problems: list[Problem]) -> MapData:
    """``md`` if the strict reader accepts it; else the first error as a :class:`MapError`."""
    err = first_error(path, problems)
    if err is not None:
        raise err
    if len(md.eidos) == 0:
        raise MapError(path, None, "has no Eidos")
    return md


def _from_cache(path: Path, key: _cache.Key, catalog) -> Map | None:
    """The map from its cache, if the cache matches the file, the tolerance and the catalog's terrains."""
    entry = _cache.load(_cache.path_for(path), key)
    if entry is None:
        return None
    try:
        meta = parse_meta(path, {"eidomap": entry.meta})
    except MapError:
        return None
    cat = resolve_catalog(path, meta, catalog)  # the very catalog (and error) the read would give
    if tuple(cat.terrain_names) != entry.network.terrain_names:
        return None
    return Map.from_cache(path, entry, cat, key)
