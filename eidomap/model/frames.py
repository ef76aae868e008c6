"""GeoPandas in and out: a map's layers as (Geo)DataFrames, and a map made from GeoDataFrames.

Optional: ``pip install "eidomap[geo]"``.  The tables :meth:`Route.to_frame
<eidomap.answers.routing.Route.to_frame>` and :meth:`Reach.to_frame
<eidomap.answers.routing.Reach.to_frame>` return have an ``id`` column that joins them
to :func:`to_geodataframe`'s.

>>> import eidomap
>>> from eidomap.answers.routing import reach
>>> m = eidomap.load(eidomap.demo_map_path())
>>> eidos = m.to_geodataframe()
>>> heat = eidos.merge(reach(m, "porto-sur", "human", turns=3).to_frame(), on="id")
>>> len(heat) == len(m.eido_ids)
True
>>> m2 = from_geodataframe(eidos, catalog=m.catalog)
>>> m2.pairs() == m.pairs()
True
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from eidomap.base import params
from eidomap.base.errors import MapError, RequestError
from eidomap.base.modes import Mode
from eidomap.io.ragged import Shapes
from eidomap.io.readers import checked
from eidomap.io.tables import Table, read_rows
from eidomap.model.map import Map
from eidomap.record.catalog import Catalog
from eidomap.record.geometry import check_tolerance

if TYPE_CHECKING:
    from types import ModuleType

    import geopandas as gpd
    import pandas as pd


__all__ = ["FeatureLayer", "from_geodataframe", "to_geodataframe"]


class FeatureLayer(Mode):
    """A layer of a map's features, as :func:`to_geodataframe` gives it and :func:`from_geodataframe` takes it: a
    member is the name of its :class:`~eidomap.record.record.MapRecord` field."""

    EIDOS = "eidos"
    ROADS = "roads"
    POUSAS = "pousas"
    FOUNTAINS = "fountains"
    STREAMS = "streams"
    RIVERS = "rivers"

_EXTRA = 'pip install "eidomap[geo]"'


def _module(name: str) -> ModuleType:
    try:
        return __import__(name)
    except ImportError:
        raise RequestError(f"this needs {name}: {_EXTRA}") from None


def frame(columns: dict) -> pd.DataFrame:
    """A pandas DataFrame (pandas comes with the ``geo`` extra)."""
    return _module("pandas").DataFrame(columns)


def to_geodataframe(m: Map, layer: FeatureLayer | str = FeatureLayer.EIDOS) -> gpd.GeoDataFrame:
    """One layer of ``m`` as a GeoDataFrame, one row per feature, in the map's order.

    Columns: ``id``, then for Eidos ``terrain``, ``region`` and ``name`` (its
    display name or None), for Pousas ``road``, for rivers ``current``; then
    ``geometry`` (planar: no CRS).

    Parameters
    ----------
    m : Map
        The map.
    layer : FeatureLayer or {"eidos", "roads", "pousas", "fountains", "streams", "rivers"}
        The layer (:class:`FeatureLayer`, or its name).

    Returns
    -------
    geopandas.GeoDataFrame
        One row per feature of the layer.

    Raises
    ------
    RequestError
        For another ``layer``, or when GeoPandas is not installed (``pip install "eidomap[geo]"``).

    See Also
    --------
    from_geodataframe : A map made from GeoDataFrames.
    eidomap.Map.to_geodataframe : The same, from the map.

    Examples
    --------
    >>> import eidomap
    >>> roads = to_geodataframe(eidomap.load(eidomap.demo_map_path()), "roads")
    >>> list(roads.columns), roads.crs is None
    (['id', 'geometry'], True)
    """
    m, layer = params.instance(m, "m", Map), FeatureLayer.checked(layer, "layer")
    gpd = _module("geopandas")
    md = m.record
    data = getattr(md, layer)
    cols: dict = {"id": list(data.ids)}
    if layer is FeatureLayer.EIDOS:
        names = m.display_names
        cols |= {"terrain": m.terrains, "region": list(md.regions), "name": [names.get(e) for e in data.ids]}
    elif layer is FeatureLayer.POUSAS:
        cols["road"] = [md.roads.ids[k] for k in md.pousa_road]
    elif layer is FeatureLayer.RIVERS:
        cols["current"] = md.river_current
    return gpd.GeoDataFrame(cols, geometry=np.asarray(data.geoms, dtype=object), crs=None)


def _table(name: str, gdf: gpd.GeoDataFrame, id_field: str) -> Table:
    if not hasattr(gdf, "geometry"):
        raise params.refused(name, "a GeoDataFrame", gdf)
    plain = gdf.drop(columns=gdf.geometry.name)
    columns = {str(c): plain[c].astype(object).where(plain[c].notna(), None).tolist() for c in plain.columns}
    if id_field not in columns:  # the index holds the ids
        columns[id_field] = [str(i) for i in gdf.index]
    _check_unicode(name, columns, id_field)
    return Table(name, Shapes.of(np.asarray(gdf.geometry.values, dtype=object)), columns)


def _check_unicode(name: str, columns: dict[str, list], id_field: str) -> None:
    """Refuse a column name or a text value holding a lone surrogate (``"\\ud800"``): no file can hold it (UTF-8
    has no surrogates), so every write of the map would fail.  One pass in C over each column's text."""
    for column, values in [("", list(columns)), *columns.items()]:
        if _unicode("".join(v for v in values if isinstance(v, str))):
            continue
        k = next(k for k, v in enumerate(values) if isinstance(v, str) and not _unicode(v))
        if not column:
            raise MapError("GeoDataFrame", None, f"{name}: the column name {values[k]!r} is not Unicode text"
                                                 " (a lone surrogate)")
        fid = columns[id_field][k] if id_field in columns else None
        raise MapError("GeoDataFrame", f"#{k}" if fid is None else repr(str(fid)),
                       f"its {column!r} is not Unicode text (a lone surrogate: {values[k]!r})")


def _unicode(text: str) -> bool:
    """Whether ``text`` is Unicode text: it has a UTF-8 encoding (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def from_geodataframe(eidos: gpd.GeoDataFrame, roads: gpd.GeoDataFrame | None = None,
                      pousas: gpd.GeoDataFrame | None = None, fountains: gpd.GeoDataFrame | None = None,
                      streams: gpd.GeoDataFrame | None = None, rivers: gpd.GeoDataFrame | None = None, *,
                      terrain: str = "terrain", id: str = "id", catalog: Catalog | str | os.PathLike | None = None,
                      meta: dict | None = None,
                      tolerance: float | None = None) -> Map:
    """A :class:`~eidomap.Map` from GeoDataFrames, with the same checks as the GeoJSON reader.

    Parameters
    ----------
    eidos, roads, pousas, fountains, streams, rivers : GeoDataFrame
        One per kind of feature (all but ``eidos`` optional); a row's other columns become its properties (a
        Pousa's ``road`` names its road).
    terrain, id : str
        The columns holding the terrain and the id (without an ``id`` column, the index holds the ids).
    catalog : str, Path or Catalog, optional
        The terrains and species (default: the default catalog).
    meta : dict, optional
        The map's ``eidomap`` member (``rules``, ``name``, ``units_per_mile``...).
    tolerance : float, optional
        The drawing tolerance for adjacency (default tied to the map's extent).

    Returns
    -------
    Map
        The map.

    Raises
    ------
    MapError
        On the first error the GeoJSON reader would report for the same features (unknown terrain, duplicate
        id, invalid polygon...).

    See Also
    --------
    eidomap.Map.to_geodataframe : The other way.
    eidomap.load : A map from a file.

    Examples
    --------
    >>> import eidomap
    >>> m = eidomap.load(eidomap.demo_map_path())
    >>> again = eidomap.from_geodataframe(m.to_geodataframe(), terrain="terrain", id="id")
    >>> again.pairs() == m.pairs()
    True
    """
    terrain, id = (params.text(v, name, "text (a column's name)") for v, name in ((terrain, "terrain"), (id, "id")))
    catalog, meta = Catalog.checked(catalog), params.maybe(params.instance, meta, "meta", dict)
    tolerance = None if tolerance is None else check_tolerance(tolerance)
    frames = dict(zip(FeatureLayer.words(), (eidos, roads, pousas, fountains, streams, rivers), strict=True))
    tables = [_table(name, gdf, id) for name, gdf in frames.items() if gdf is not None]
    body = {"type": "FeatureCollection", "eidomap": dict(meta or {"name": "GeoDataFrame"})}
    return Map(checked("GeoDataFrame", *read_rows(None, tables, body, catalog, terrain_field=terrain, id_field=id)),
               tolerance)
