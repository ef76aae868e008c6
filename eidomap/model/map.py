"""The :class:`Map` object and :func:`load`, the strict reader.

Data flows one way: file -> :class:`~eidomap.record.record.MapRecord` -> adjacency
(:mod:`eidomap.model.topology`) -> compiled :class:`~eidomap.model.network.Network` ->
answers.  A map is made over one small source: a file read
(:class:`~eidomap.io.document.MapData`, the record and its document) or its
cache (:class:`~eidomap.model.cache.CacheSource`); each later stage is computed on
first use and kept.

>>> import eidomap
>>> m = eidomap.load(eidomap.demo_map_path())
>>> m.neighbors("portela")
['bouza-vella', 'fraga-do-pindo', 'monte-louro', 'monte-pindo', 'penedo-do-corvo']
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import shapely

from eidomap.base import params
from eidomap.base.errors import RequestError
from eidomap.base.modes import Lane, Partial
from eidomap.base.names import did_you_mean, shown
from eidomap.io.document import MapData, write_geojson
from eidomap.io.fast.collector import paused_gc
from eidomap.io.readers import ReadOptions, checked, format_for, read_map
from eidomap.model import cache as _cache
from eidomap.model.lookup import IdLookup
from eidomap.model.network import MAP_ERROR_CODES, Network, build_network, to_networkx
from eidomap.model.topology import Adjacency, PileUp, adjacency
from eidomap.record import rulesets
from eidomap.record.catalog import Catalog
from eidomap.record.geometry import check_tolerance, default_tolerance
from eidomap.record.record import MapRecord, name_of, rules_of

if TYPE_CHECKING:
    from eidomap.pages.explore import ExploreMap
    from eidomap.pages.planner import PlannerPage
    from eidomap.pages.widget import PlannerWidget



class MapSource(Protocol):
    """Where a :class:`Map` comes from: a file read (:class:`~eidomap.io.document.MapData`) or its cache
    (:class:`~eidomap.model.cache.CacheSource`).

    It says what a query needs of the map -- ids, terrain codes, display
    names -- and gives the record and document (:meth:`read`; a cache reads
    the file then).  A cache also holds the network and the tolerance it was
    built with; a file read holds neither (None: the map builds it, at the
    tolerance asked or its default).
    """

    @property
    def path(self) -> Path | None: ...
    @property
    def catalog(self) -> Catalog: ...
    @property
    def meta(self) -> dict: ...
    def read(self) -> MapData: ...
    def eido_ids(self) -> list[str]: ...
    def pousa_ids(self) -> list[str]: ...
    def terrain_codes(self) -> np.ndarray: ...
    def display_names(self) -> dict[str, str]: ...
    def tolerance(self) -> float | None: ...
    def network(self) -> Network | None: ...
    def scan(self, key: str, pousas: bool) -> int | None: ...


class Map:
    """A loaded map: its features, adjacency and movement graph.

    Use :func:`load` to make one (or ``Map(source)`` over a reader's answer, as :func:`load` does).
    ``tolerance`` is the drawing tolerance used for adjacency and for points on borders (default: 1e-9 of the
    map's larger side; a map from its cache has the one the cache was built with).  ``pause_gc``: pause
    Python's cyclic garbage collector while the adjacency and the network are built (process-wide).
    What a map holds is worked out when first asked for (its adjacency, its network, its NetworkX graph).

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> m
    <eidomap.Map 'Illas das Marabillas (demo)': 76 Eidos>
    >>> m.neighbors("portela")
    ['bouza-vella', 'fraga-do-pindo', 'monte-louro', 'monte-pindo', 'penedo-do-corvo']
    """

    def __init__(self, source: MapSource, tolerance: float | None = None, *, pause_gc: bool = False):
        self._source = source
        self._asked = tolerance
        self._pause_gc = pause_gc
        self._lookup = IdLookup(source.scan)

    @cached_property
    def data(self) -> MapData:
        """The map as read from its file: its record and document (read now when the map came from its cache)."""
        return self._source.read()

    @property
    def record(self) -> MapRecord:
        """Everything the map holds (:class:`~eidomap.record.record.MapRecord`)."""
        return self.data.record

    # -- what the file holds -------------------------------------------------
    @property
    def path(self) -> Path | None:
        """The file the map was read from (None for a map made in memory)."""
        return self._source.path

    @property
    def meta(self) -> dict:
        """The map's ``eidomap`` member (its name, rules, catalog...)."""
        return self._source.meta

    @property
    def name(self) -> str:
        """The map's name (its ``eidomap.name``, else the file's stem)."""
        return name_of(self.meta, self.path)

    @property
    def rules(self) -> str:
        """The rule set the map is drawn for: ``"eido"`` or ``"d20"``."""
        return rules_of(self.meta)

    @property
    def catalog(self) -> Catalog:
        """The terrains and species the map's codes refer to (:class:`~eidomap.Catalog`)."""
        return self._source.catalog

    @cached_property
    def eido_ids(self) -> list[str]:
        """The Eidos' ids, in the order of the network's Eido nodes."""
        return self._source.eido_ids()

    @cached_property
    def pousa_ids(self) -> list[str]:
        """Ids of the Pousas, in the order of the network's Pousa nodes."""
        return self._source.pousa_ids()

    @property
    def geometries(self) -> np.ndarray:
        """The Eidos' Shapely polygons, in the order of :attr:`eido_ids`."""
        return self.record.eidos.geoms

    @cached_property
    def display_names(self) -> dict[str, str]:
        """The ``name`` property of each Eido that has one, by id."""
        return self._source.display_names()

    @property
    def terrains(self) -> list[str]:
        """Terrain name of each Eido."""
        names = self.catalog.terrain_names
        return [names[t] for t in self._source.terrain_codes()]

    @cached_property
    def tolerance(self) -> float:
        """The drawing tolerance for adjacency and for points on borders, in map units."""
        built = self._source.tolerance()
        if built is not None:
            return built
        return default_tolerance(self.geometries) if self._asked is None else float(self._asked)

    def index(self, eido_id: str) -> int:
        """Position of an Eido in :attr:`eido_ids`.

        Parameters
        ----------
        eido_id : str
            The Eido's id.

        Returns
        -------
        int
            Its position; a :class:`~eidomap.base.errors.RequestError` (with the closest ids) if the map has none.
        """
        k = self.find(params.text(eido_id, "eido_id", "an Eido id (text)"))
        if k is None:
            raise RequestError(f"{shown(self.path or self.name)}: no Eido with id {eido_id!r}"
                               f"{did_you_mean(eido_id, self.eido_ids)}")
        return k

    def node_index(self, node_id: str) -> int:
        """Position of an Eido or a Pousa among the network's nodes: where a turn can start or end.

        Parameters
        ----------
        node_id : str
            The Eido's or Pousa's id.

        Returns
        -------
        int
            Its node position; a :class:`~eidomap.base.errors.RequestError` if the map has no Eido or Pousa with that
            id.
        """
        key = params.text(node_id, "node_id", "an Eido or Pousa id (text)")
        k = self.find(key, pousas=True)
        if k is None:
            raise RequestError(f"{shown(self.path or self.name)}: no Eido or Pousa with id {key!r}"
                               f"{did_you_mean(key, [*self.eido_ids, *self.pousa_ids])}")
        return k

    def find(self, node_id: str, *, pousas: bool = False) -> int | None:
        """Node position of the Eido ``node_id`` (with ``pousas``: of the Eido or Pousa); None if there is none.

        A map answers its first few look-ups (a route makes two) by scanning its ids, and indexes every id only
        when asked for more (``eidomap.model.lookup``).

        Parameters
        ----------
        node_id : str
            The id.
        pousas : bool
            Look among the Pousas too.

        Returns
        -------
        int or None
            The node position.
        """
        node_id, pousas = params.text(node_id, "node_id", "text (an id)"), params.flag(pousas, "pousas")
        return self._lookup.find(node_id, pousas, lambda: self.eido_ids, lambda: self.pousa_ids)

    # -- derived -------------------------------------------------------------
    @cached_property
    def adjacency(self) -> Adjacency:
        """Adjacent Eido pairs (indices ``i < j``) and the length of border they share."""
        with paused_gc(self._pause_gc):
            try:
                return adjacency(self.geometries, self.tolerance)
            except PileUp as exc:
                raise exc.of(self.path) from None

    @cached_property
    def network(self) -> Network:
        """The compiled movement graph (CSR arrays): the cache's, or built from the record."""
        net = self._source.network()
        if net is not None:
            return net
        with paused_gc(self._pause_gc):
            kinds = rulesets.get(self.rules).edge_kinds
            return build_network(self.record, self.adjacency, self.tolerance, kinds=kinds)

    @cached_property
    def graph(self) -> Any:
        """The NetworkX ``MultiDiGraph`` with Eido, Pousa and teleport-hub layers.

        Edges carry ``kind`` and ``terrain``, not costs: costs depend on who
        moves (:meth:`graph_for`, :func:`eidomap.weight`).
        """
        return to_networkx(self.network, self._node_attrs)

    def graph_for(self, who: Any = "human", partial: Partial | str = Partial.CARRY) -> Any:
        """A NetworkX ``DiGraph`` weighted for one species or actor.

        The nodes of :attr:`graph`; between two nodes the cheapest step for ``who``, with its ``kind``,
        ``terrain`` and ``cost`` in PtMv; the steps ``who`` cannot take are left out (and under
        ``partial="forbid"`` the steps dearer than its largest roll).  Any NetworkX algorithm can use it with
        ``weight="cost"``.

        Parameters
        ----------
        who : Actor or str
            A species name or an :class:`~eidomap.rules.eido.Actor` (a rider, a party).
        partial : {"carry", "forbid"}
            The step rule (see :func:`eidomap.answers.routing.route`).

        Returns
        -------
        networkx.DiGraph
            The weighted graph.

        Examples
        --------
        >>> import eidomap, networkx as nx
        >>> m = eidomap.load(eidomap.demo_map_path())
        >>> g = m.graph_for("human")
        >>> nx.shortest_path_length(g, "bouza-vella", "porto-norte", weight="cost")
        6.0
        """
        from eidomap.answers.routing import plan_weights  # (the facade's shortcut: layers above)
        from eidomap.base.modes import Partial
        from eidomap.rules.actors import resolve_actor

        carry = Partial.checked(partial, "partial").carry
        return self.weighted_graph(plan_weights(self, resolve_actor(self, who), carry))

    def weighted_graph(self, weights: np.ndarray) -> Any:
        """The NetworkX ``DiGraph`` of :attr:`graph` with a cost on every edge (see :meth:`graph_for`).

        Parameters
        ----------
        weights : numpy.ndarray of float
            One cost per edge of :attr:`network` (``inf``: the edge is left out), as
            ``eidomap.answers.routing.plan_weights`` gives.

        Returns
        -------
        networkx.DiGraph
            Between two nodes the cheapest edge, with its ``kind``, ``terrain`` and ``cost``.
        """
        w = params.array(weights, "weights")
        n = self.network.n_edges
        if w.shape != (n,) or w.dtype.kind not in "iuf":
            raise params.refused("weights", f"an array of {n:,} costs, one per edge of the network", weights)
        return to_networkx(self.network, self._node_attrs, weights=w)

    @cached_property
    def _node_attrs(self) -> dict:
        pts = self.positions
        rec = self.record
        attrs = {e: {"region": r, "pos": tuple(p)} for e, r, p in
                 zip(self.eido_ids, rec.regions, pts[: len(self.eido_ids)], strict=True)}
        pousa_xy = shapely.get_coordinates(rec.pousas.geoms)
        for pid, road, xy in zip(rec.pousas.ids, rec.pousa_road, pousa_xy, strict=True):
            attrs[pid] = {"road": rec.roads.ids[road], "pos": tuple(xy)}
        return attrs

    @cached_property
    def positions(self) -> np.ndarray:
        """An (x, y) inside each Eido (then each Pousa), for labels and plots."""
        inside = shapely.get_coordinates(shapely.point_on_surface(self.geometries))
        return np.vstack([inside, shapely.get_coordinates(self.record.pousas.geoms)]).reshape(-1, 2)

    def map_errors(self) -> dict[str, int]:
        """Errors the build of the movement graph came across, by validation code, as ``eidomap validate`` counts
        them.

        The build notices at no extra cost where Eidos overlap (borders that cross), Pousas off their road or in
        no Eido, roads with fewer than two Pousas, fountains and stream ends in no Eido; the codes it noticed are
        then counted by validate's own checks (``eidomap.validate.features.counted_problems``), so the numbers are the
        ones ``eidomap validate`` reports.  An empty dict does not mean the map is valid (a gap, say, is not looked
        for).

        Returns
        -------
        dict of str to int
            The number of problems of each code noticed.
        """
        noticed = [code for code, c in zip(MAP_ERROR_CODES, self.network.map_errors, strict=True) if c]
        if not noticed:
            return {}
        from eidomap.validate.board import Board
        from eidomap.validate.features import counted_problems

        try:
            return counted_problems(self.record, Board(self.geometries, self.tolerance), noticed)
        except PileUp as exc:
            raise exc.of(self.path) from None

    def neighbors(self, eido_id: str) -> list[str]:
        """Ids of the Eidos adjacent to ``eido_id`` (sharing a border, not a corner), sorted.

        Parameters
        ----------
        eido_id : str
            The Eido's id.

        Returns
        -------
        list of str
            Its neighbours.
        """
        k = self.index(eido_id)
        adj = self.adjacency
        other = np.r_[adj.j[adj.i == k], adj.i[adj.j == k]]
        return sorted(self.eido_ids[o] for o in other)

    def pairs(self) -> list[tuple[str, str]]:
        """Every adjacent pair as ``(id_a, id_b)`` with ``id_a < id_b``, sorted.

        Returns
        -------
        list of tuple of str
            The pairs.
        """
        ids = self.eido_ids
        return sorted(tuple(sorted((ids[i], ids[j]))) for i, j in zip(self.adjacency.i, self.adjacency.j, strict=True))

    def components(self) -> int:
        """Number of connected groups of Eidos (across borders only).

        Returns
        -------
        int
            1 for a map whose Eidos all connect.
        """
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        n = len(self.eido_ids)
        a = self.adjacency
        m = coo_matrix((np.ones(len(a)), (a.i, a.j)), shape=(n, n))
        return int(connected_components(m, directed=False)[0]) if n else 0

    def info(self) -> dict:
        """Counts of what the map holds (as printed by ``eidomap info``).

        Returns
        -------
        dict
            ``name``, ``rules``, ``eidos``, ``terrains`` (Eidos of each), ``regions``, ``adjacent_pairs``,
            ``roads``, ``pousas``, ``fountains``, ``streams``, ``components``, ``nodes`` and ``edges``.
        """
        names, rec = self.catalog.terrain_names, self.record
        counts = np.bincount(rec.terrain, minlength=len(names))
        return {
            "name": self.name,
            "rules": self.rules,
            "eidos": len(self.eido_ids),
            "terrains": {names[k]: int(c) for k, c in enumerate(counts) if c},
            "regions": len({r for r in rec.regions if r is not None}),
            "adjacent_pairs": len(self.adjacency),
            "roads": len(rec.roads),
            "pousas": len(rec.pousas),
            "fountains": len(rec.fountains),
            "streams": len(rec.streams),
            "components": self.components(),
            "nodes": self.network.n_nodes,
            "edges": self.network.n_edges,
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write the map back as GeoJSON; every property and foreign member is kept.

        Parameters
        ----------
        path : str or Path
            The file to write.
        """
        write_geojson(self.data, path)

    def to_geodataframe(self, layer: str = "eidos") -> Any:
        """One layer as a GeoDataFrame (GeoPandas must be installed: ``eidomap[geo]``).

        Parameters
        ----------
        layer : {"eidos", "roads", "pousas", "fountains", "streams", "rivers"}
            The layer.

        Returns
        -------
        geopandas.GeoDataFrame
            One row per feature, its properties as columns and its id in ``id``.
        """
        from eidomap.model.frames import to_geodataframe  # (the facade's shortcut: GeoPandas, imported when used)

        return to_geodataframe(self, layer)

    def explore(self, **kwargs: Any) -> ExploreMap:
        """An interactive map to pan, zoom and hover (see :func:`eidomap.explore`).

        Parameters
        ----------
        **kwargs
            Those of :func:`eidomap.explore`: ``route``, ``reach``, ``problems``, ``species``, ``bbox``, ``title``.

        Returns
        -------
        ExploreMap
            Shown inline in Jupyter; ``.save(path)`` writes one offline HTML file.
        """
        from eidomap.pages.explore import explore  # (the facade's shortcut: a layer above; matplotlib and Bokeh)

        return explore(self, **kwargs)

    def planner(self, *, widget: bool = False, **kwargs: Any) -> PlannerPage | PlannerWidget:
        """A page to plan on by clicking: one HTML file that works offline (``eidomap planner``), or with
        ``widget`` the same page as a notebook widget whose plan comes back to Python.

        Parameters
        ----------
        widget : bool
            A :class:`~eidomap.pages.widget.PlannerWidget` (needs anywidget: ``pip install "eidomap[widget]"``)
            instead of the page.
        **kwargs
            The page's options (its title, the species it starts with); the widget's traits too (``start``,
            ``goal``, ``rolls``...).

        Returns
        -------
        PlannerPage or PlannerWidget
            The page (shown inline in Jupyter; ``.save(path)`` writes it), or the widget.
        """
        if params.flag(widget, "widget"):
            from eidomap.pages.widget import PlannerWidget  # (the facade's shortcuts: a layer above)

            return PlannerWidget(self, **kwargs)
        from eidomap.pages.planner import planner

        return planner(self, **kwargs)

    def __repr__(self) -> str:
        return f"<eidomap.Map {self.name!r}: {len(self.eido_ids)} Eidos>"


def load(path: str | os.PathLike, catalog: Catalog | str | os.PathLike | None = None,
         tolerance: float | None = None, cache: bool = False, *,
         terrain_field: str = "terrain", id_field: str = "id", reader: Lane | str | None = None,
         helper: bool = False, pause_gc: bool = False, document: bool = True) -> Map:
    """Read a map file strictly.

    Parameters
    ----------
    path : str or Path
        A map file: GeoJSON (see docs/map-format.md), GeoPackage, Shapefile, FlatGeobuf or GeoParquet, a Tiled
        map or an SVG drawing -- by suffix (:func:`eidomap.io.readers.read_map`).
    catalog : str, Path or Catalog, optional
        Terrain/species catalog; default: the one the map names, else the default catalog.
    tolerance : float, optional
        Drawing tolerance for adjacency (default tied to the map's extent).
    cache : bool
        Keep the compiled graph and what a query needs of the map in a file beside it
        (``<map>.eidomap-cache``), keyed by the file's hash and size, so that the next load reads neither the
        map nor the topology: the geometry is read only when asked for.  Without a valid cache the map is read
        and its graph built and saved now; a cache that cannot be written is said in a warning.  (Formats read
        from their bytes: not GDAL's tables.)
    terrain_field, id_field : str
        The columns holding each Eido's terrain and each feature's id, in a table format.
    reader : {"msgspec", "json"}, optional
        The GeoJSON reader's lane (default: msgspec when installed).
    helper : bool
        Share a GeoJSON map of 64 MB or more with a helper process on a second core (default: no process is
        started).
    pause_gc : bool
        Pause Python's cyclic garbage collector while the map is read and its graph built: 6 to 9 % faster on
        big maps, but felt by the whole process; the command line asks for it.
    document : bool
        Keep the features' text beside the map's record, for a lossless write and reports naming them (default).
        False lets it go once the map is read -- about the file's size of memory, which a program that only asks
        questions of the map does not need (the command line's ``route``, ``reach`` and ``batch``) -- and reads
        the file again if a feature is asked for later (``eidomap.io.fast.letgo.FileFeatures``: a
        :class:`MapError` if the file changed since).

    Returns
    -------
    Map
        The map; its adjacency and network are built when first asked for.

    Raises
    ------
    MapError
        On the first problem: not JSON or GeoJSON, unknown kind, invalid geometry, duplicate id, unknown
        terrain, NaN coordinates, a Pousa on no road...
    CatalogError
        When the catalog cannot be read or is malformed.
    RequestError
        For an option out of range (a negative tolerance, an unknown reader).

    See Also
    --------
    eidomap.validate.checks.validate : Every problem of a map at once, rather than the first.
    from_geodataframe : A map from GeoDataFrames.

    Notes
    -----
    The parameters come in three groups: what to read (``path``, ``catalog``, and ``terrain_field`` and
    ``id_field`` for a table format), how the map is built (``tolerance``, ``cache``), and how the reading itself
    is tuned for a cold read of a big map (``reader``, ``helper``, ``pause_gc``, ``document``: their defaults suit
    a program; the command line sets them for its one-shot runs).

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> m.rules, len(m.eido_ids), m.info()["adjacent_pairs"]
    ('eido', 76, 210)
    """
    path = params.path(path, "path")
    tolerance = None if tolerance is None else check_tolerance(tolerance)
    cache = params.flag(cache, "cache")
    options: dict[str, Any] = {"catalog": catalog, "terrain_field": terrain_field, "id_field": id_field,
                               "reader": reader, "helper": helper, "pause_gc": pause_gc, "document": document}
    ReadOptions(**options)  # (checked before anything is read)
    if not cache or not format_for(path).reads_bytes:
        return Map(checked(path, *read_map(path, **options)), tolerance, pause_gc=pause_gc)
    known = _cache.known_key(path, tolerance)  # the map's hash from its cache's record: nothing read
    if known is not None and (source := _cache.open_source(path, known, options)) is not None:
        return Map(source, pause_gc=pause_gc)
    raw, key = _cache.read_keyed(path, tolerance)  # the key of the very bytes parsed below
    if known is None and (source := _cache.open_source(path, key, options)) is not None:
        return Map(source, pause_gc=pause_gc)
    m = Map(checked(path, *read_map(path, data=raw, **options)), tolerance, pause_gc=pause_gc)
    _cache.save(_cache.path_for(path), key, _cache.Entry(m.network, m.tolerance, m.meta, m.display_names))
    return m
