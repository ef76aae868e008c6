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
from .geometry import default_tolerance
from .graph import MAP_ERROR_CODES, Network, build_network, to_networkx
from .io.geojson import MapData, write_geojson
from .io.tables import is_table_map, read_map
from .names import did_you_mean
from .problems import ERROR, Problem
from .topology import Adjacency, adjacency

__all__ = ["Map", "first_error", "load"]


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
                 digest: str | None = None):
        self.data = data
        self._tolerance = tolerance
        self._cache_path = cache_path
        self._digest = digest

    # -- what the file holds -------------------------------------------------
    @property
    def path(self) -> Path | None:
        return self.data.path

    @property
    def name(self) -> str:
        return self.data.name

    @property
    def rules(self) -> str:
        """The rule set the map is drawn for: ``"eido"`` or ``"d20"``."""
        return self.data.rules

    @property
    def catalog(self) -> Catalog:
        return self.data.catalog

    @property
    def eido_ids(self) -> list[str]:
        return self.data.eidos.ids

    @property
    def geometries(self) -> np.ndarray:
        """The Eidos' Shapely polygons, in the order of :attr:`eido_ids`."""
        return self.data.eidos.geoms

    @cached_property
    def display_names(self) -> dict[str, str]:
        """The ``name`` property of each Eido that has one, by id."""
        feats, out = self.data.features, {}
        for eid, k in zip(self.eido_ids, self.data.eidos.index, strict=True):
            name = feats[k].get("properties", {}).get("name") if isinstance(feats[k], dict) else None
            if isinstance(name, str) and name.strip():
                out[eid] = name
        return out

    @property
    def terrains(self) -> list[str]:
        """Terrain name of each Eido."""
        names = self.catalog.terrain_names
        return [names[t] for t in self.data.terrain]

    @cached_property
    def tolerance(self) -> float:
        return default_tolerance(self.geometries) if self._tolerance is None else float(self._tolerance)

    def index(self, eido_id) -> int:
        """Position of an Eido in :attr:`eido_ids`; :class:`RequestError` if unknown."""
        k = self._id_index.get(str(eido_id))
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
        k = self._id_index.get(key)
        if k is None:
            k = self._pousa_index.get(key)
        if k is None:
            raise RequestError(f"{self.path or self.name}: no Eido or Pousa with id {key!r}"
                               f"{did_you_mean(key, [*self.eido_ids, *self.data.pousas.ids])}")
        return k

    @cached_property
    def _pousa_index(self) -> dict[str, int]:
        n = len(self.eido_ids)
        return {p: n + k for k, p in enumerate(self.data.pousas.ids)}

    # -- derived -------------------------------------------------------------
    @cached_property
    def adjacency(self) -> Adjacency:
        """Adjacent Eido pairs (indices ``i < j``) and the length of border they share."""
        with paused_gc():
            return adjacency(self.geometries, self.tolerance)

    @cached_property
    def network(self) -> Network:
        """The compiled movement graph (CSR arrays), cached beside the map if asked."""
        if self._cache_path is not None:
            net = _cache.load(self._cache_path, self._digest, self.tolerance)
            if net is not None:
                return net
        with paused_gc():
            net = build_network(self.data, self.adjacency, self.tolerance)
        if self._cache_path is not None:
            _cache.save(self._cache_path, self._digest, self.tolerance, net)
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
        """Errors the build of the movement graph came across, by validation code (cheap signs only).

        Overlapping Eidos whose borders cross, Pousas off their road or in no
        Eido, roads with fewer than two Pousas, fountains and stream ends in no
        Eido: what ``eidomap validate`` would report as errors, found at no
        extra cost.  An empty dict does not mean the map is valid.
        """
        return {code: int(c) for code, c in zip(MAP_ERROR_CODES, self.network.map_errors, strict=True) if c}

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
        """An interactive map to pan, zoom and hover (see :func:`eidomap.interactive.explore`)."""
        from .interactive import explore

        return explore(self, **kwargs)

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
        Keep the compiled graph in a ``.npz`` file beside the map, keyed by
        the file's hash, so that the next load skips topology (GeoJSON maps).
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
    md, problems = read_map(path, catalog, terrain_field=terrain_field, id_field=id_field)
    err = first_error(path, problems)
    if err is not None:
        raise err
    if len(md.eidos) == 0:
        raise MapError(path, None, "has no Eidos")
    if cache and not is_table_map(path):
        return Map(md, tolerance, _cache.path_for(path), _cache.digest(path))
    return Map(md, tolerance)
