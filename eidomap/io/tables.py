"""Maps in GeoPackage, Shapefile and FlatGeobuf files (through pyogrio, GDAL) and GeoParquet (pyarrow).

A file holds either **one layer** -- of Eidos, or of every kind of feature
with a ``kind`` column (as ``eidomap convert`` writes FlatGeobuf and
GeoParquet) -- or **the layers named** ``eidos``, ``roads``, ``pousas``,
``fountains``, ``streams`` and ``rivers`` (as ``convert`` writes a GeoPackage);
other layers are then left out.  A row's kind is its ``kind`` column, else the
kind its layer is named after, else ``eido``.

Every row becomes a feature -- the ``id_field`` column its id, the
``terrain_field`` column its terrain, its other non-empty columns its
properties -- and goes to the builder every reader feeds
(:class:`~eidomap.io.builder.MapBuilder`): runs of plain Eidos and Pousas in
columns, any other row one by one through its checks.  A table map is
refused or reported exactly as the same GeoJSON map would be.
The map's ``eidomap`` member (rules, catalog, name...) travels as the JSON text
of a metadata item ``eidomap`` (GeoPackage and FlatGeobuf layer metadata,
GeoParquet file metadata); a catalog it names is looked up beside the map.

Map files are untrusted: only these formats are opened, each recognised by its
first bytes before GDAL sees it (so no VRT or other file that points elsewhere
is ever opened), and the file -- with a Shapefile's ``.dbf`` and ``.shx`` --
is at most :data:`~eidomap.base.files.MAX_MAP_BYTES`.

>>> import eidomap, tempfile, os
>>> m = eidomap.load(eidomap.demo_map_path())
>>> path = os.path.join(tempfile.mkdtemp(), "demo.gpkg")
>>> _ = write_table_map(m.data, path)
>>> eidomap.load(path, catalog=eidomap.demo_map_path().with_name("demo-catalog.toml")).pairs() == m.pairs()
True
"""

from __future__ import annotations

import json
import operator
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import shapely

from eidomap.base.errors import MapError, RequestError
from eidomap.base.files import MAX_MAP_BYTES, need_folder, replaceable, write_atomic
from eidomap.base.names import shown
from eidomap.base.problems import Problem
from eidomap.io.builder import MapBuilder
from eidomap.io.document import MapData
from eidomap.io.fast.alongside import decoded_alongside
from eidomap.io.features import MAX_FEATURES, as_id, encode, feature_id
from eidomap.io.geojson import dumps_geojson
from eidomap.io.jsontext import check_unicode
from eidomap.io.ragged import ENCODINGS, DamagedColumn, Shapes, arrow_nulls, arrow_numbers, sound_binary
from eidomap.record.catalog import Catalog

#: Table formats by suffix: GDAL driver (None: GeoParquet, read with pyarrow) and first bytes.
DRIVERS = {
    ".gpkg": ("GPKG", b"SQLite format 3\x00"),
    ".shp": ("ESRI Shapefile", b"\x00\x00\x27\x0a"),
    ".fgb": ("FlatGeobuf", b"fgb\x03"),
    ".parquet": (None, b"PAR1"),
    ".geoparquet": (None, b"PAR1"),
}
#: Suffixes of the GeoJSON maps eidomap writes.
GEOJSON_SUFFIXES = (".geojson", ".json")
#: The kind of the features of a layer, by the layer's name.
LAYER_KINDS = {"eidos": "eido", "roads": "road", "pousas": "pousa", "fountains": "fountain", "streams": "stream",
               "rivers": "river"}
#: Metadata item holding the map's ``eidomap`` member (JSON text).
META_KEY = "eidomap"
#: Rows a table reader decodes at a time while the next ones are read
#: (:func:`~eidomap.io.fast.alongside.decoded_alongside`).
BATCH_ROWS = 16_384
_SIDE_FILES = (".dbf", ".shx")
_TYPES = {0: "Point", 1: "LineString", 3: "Polygon", 5: "MultiLineString", 6: "MultiPolygon", 4: "MultiPoint",
          7: "GeometryCollection"}
_POLYGONS = ("Polygon", "MultiPolygon")
_EXTRA = 'pip install "eidomap[geo]"'


def is_table_map(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a table format (by suffix) rather than GeoJSON."""
    return Path(path).suffix.lower() in DRIVERS


def check_map_suffix(path: str | os.PathLike, tables: bool = True) -> None:
    """:class:`RequestError` unless ``path``'s suffix names a format eidomap writes maps in.

    GeoJSON (:data:`GEOJSON_SUFFIXES`), and with ``tables`` the table formats
    (:data:`DRIVERS`): a file never holds another format than its name says.

    >>> check_map_suffix("board.kml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: board.kml: eidomap writes maps as .geojson, .json, .gpkg, ... not .kml
    """
    suffix = Path(path).suffix.lower()
    known = GEOJSON_SUFFIXES + (tuple(DRIVERS) if tables else ())
    if suffix not in known:
        then = "; write GeoJSON, then 'eidomap convert' it" if suffix in DRIVERS else ""
        raise RequestError(f"{shown(path)}: eidomap writes maps as {', '.join(known[:-1])} or {known[-1]}, not"
                           f" {suffix or 'a name without a suffix'}{then}")


@dataclass
class Table:
    """One layer of rows: its name, its geometries (polygons as ragged arrays), its columns (Python values, None
    when empty)."""

    name: str
    shapes: Shapes
    columns: dict[str, list]
    meta: dict | None = None
    #: Whether each text of the columns (but the ids) is one string per value already.
    shared: bool = False
    #: Which rows are plain (:func:`_row_plan`), made where the table was decoded; None: not yet.
    plan: RowPlan | None = None


class Fields(NamedTuple):
    """The columns a reader was asked to take a feature's id and its terrain from."""

    id: str = "id"
    terrain: str = "terrain"


class RowPlan(NamedTuple):
    """Of a table's rows, for the fields asked: each one's position among the polygon rows (-1: another row),
    whether it is a whole polygon (:meth:`~eidomap.io.ragged.Shapes.whole`) and what :func:`_plain_rows` tells
    of it."""

    fields: Fields
    at: np.ndarray
    whole: np.ndarray
    plain: np.ndarray


def _row_columns(t: Table, fields: Fields) -> tuple[list, list, list, list, list, list]:
    """A table's ids, kinds, terrains, regions, names and roads (None where it has no such column)."""
    rows = len(t.shapes)
    ids, kinds, terrains, regions = (t.columns.get(c) or [None] * rows
                                     for c in (fields.id, "kind", fields.terrain, "region"))
    names, roads = (t.columns.get(c) if c not in fields else None for c in ("name", "road"))
    return ids, kinds, terrains, regions, names or [None] * rows, roads or [None] * rows


def _plan(t: Table, fields: Fields) -> RowPlan:
    """``t``'s row plan for ``fields``: the one made where it was decoded, else made now and kept."""
    if t.plan is None or t.plan.fields != fields:
        t.plan = _row_plan(t, fields)
    return t.plan


def _row_plan(t: Table, fields: Fields) -> RowPlan:
    """The :class:`RowPlan` of ``t``'s rows."""
    s = t.shapes
    ids, kinds, _, _, _, roads = _row_columns(t, fields)
    whole = np.zeros(len(s), bool)
    whole[s.rows] = s.whole()
    plain = _plain_rows(LAYER_KINDS.get(t.name.lower(), "eido"), s.codes, whole, ids, kinds, roads)
    return RowPlan(fields, _polygon_at(s), whole, plain)


def _need(module: str):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        raise RequestError(f"reading and writing this format needs {module.split('.')[0]}: {_EXTRA}") from None


def _check_file(path: Path) -> str | None:
    """The GDAL driver for ``path`` (None for GeoParquet), once its size and first bytes are right."""
    driver, magic = DRIVERS[path.suffix.lower()]
    files = [path, *(path.with_suffix(s) for s in _SIDE_FILES if driver == "ESRI Shapefile")]
    try:
        total = sum(f.stat().st_size for f in files)
        if not path.is_file():
            raise MapError(path, None, "is not a regular file")
        with open(path, "rb") as fh:
            head = fh.read(len(magic))
    except FileNotFoundError as exc:
        raise MapError(path, None, f"cannot be read: {Path(exc.filename).name} is missing") from None
    except OSError as exc:
        raise MapError(path, None, f"cannot be read ({exc.strerror or exc})") from None
    if total > MAX_MAP_BYTES:
        raise MapError(path, None, f"is {total:,} bytes, larger than the {MAX_MAP_BYTES:,}-byte limit")
    if head != magic:
        raise MapError(path, None, f"is not a {driver or 'GeoParquet'} file (its first bytes are not those of one)")
    return driver


def _meta_of(path: str | os.PathLike, items: dict | None) -> dict | None:
    text = (items or {}).get(META_KEY)
    if text is None:
        return None
    if isinstance(text, str):  # (its JSON may escape a lone surrogate: text no write of the map can write)
        check_unicode(path, text.encode(), f"its {META_KEY!r} metadata is")
    try:
        meta = json.loads(text)
    except (json.JSONDecodeError, RecursionError, TypeError):
        raise MapError(path, None, f"its {META_KEY!r} metadata is not JSON") from None
    return meta


def _values(column, shared: bool = True) -> list:
    """An Arrow column's values as JSON values: None for empty (null or NaN) cells, lists and structs as
    JSON text, dates, times and bytes as text; with ``shared``, each text one string per value (a column of
    few distinct texts, as terrains and kinds are, costs a few strings; one mostly empty is read as it is)."""
    import pyarrow as pa

    t = column.type
    if column.null_count == len(column):  # (a column no row fills, as names and roads mostly are)
        return [None] * len(column)
    if shared and (pa.types.is_string(t) or pa.types.is_large_string(t)) and 2 * column.null_count < len(column):
        codes = column.combine_chunks().dictionary_encode()
        words = np.fromiter([*codes.dictionary.to_pylist(), None], object)
        ind = codes.indices  # (read from its buffers: pyarrow's fill_null and to_numpy import pandas)
        return words[np.where(arrow_nulls(ind), len(words) - 1, arrow_numbers(ind))].tolist()
    values = column.to_pylist()
    if pa.types.is_floating(t):
        return [None if v != v else v for v in values]
    if pa.types.is_nested(t):
        return [None if v is None else json.dumps(v, default=str, ensure_ascii=False) for v in values]
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t) or pa.types.is_boolean(t):
        return values
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):  # (text written without its UTF-8 mark, as Parquet
        return [None if v is None else v.decode("utf-8") for v in values]  # writers may: UTF-8, else refused)
    return [None if v is None else str(v) for v in values]


def _from_arrow(path: str | os.PathLike, name: str, table, column: str, meta: dict | None, fields: Fields,
                encoding: str = "WKB", start: int = 0) -> Table:
    """A layer read as an Arrow table, its geometry in ``column``: WKB, or the GeoArrow native encoding
    ``encoding`` names (planar: Z and M values left out); its :class:`RowPlan` made (on the decoding thread).
    ``start``: the map's features before its first row."""
    import pyarrow as pa

    if column not in table.column_names:
        raise MapError(path, None, f"has no geometry column {column!r}")
    geometry = table.column(column)
    if isinstance(geometry.type, pa.ExtensionType):  # (geoarrow.wkb, as GDAL and Parquet's GEOMETRY type mark it)
        geometry = pa.chunked_array([c.storage for c in geometry.chunks], geometry.type.storage_type)
    kind = geometry.type
    if encoding.lower() in ENCODINGS:
        try:
            shapes = Shapes.from_geoarrow(geometry, encoding.lower())
        except TypeError as exc:
            raise MapError(path, None, f"its geometry column {column!r} is not GeoArrow {encoding}: {exc}") from None
    elif pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_null(kind):
        try:
            shapes = Shapes.from_wkb(geometry)
        except DamagedColumn as exc:
            raise MapError(path, None, f"its geometry column {column!r} is damaged: {exc}") from None
    else:
        raise MapError(path, None, f"its geometry column {column!r} holds {kind}, not WKB")
    try:
        cols = {c: _values(table.column(c), shared=c != fields.id) for c in table.column_names if c != column}
    except UnicodeDecodeError:
        raise _not_utf8_value(path, table, column, fields, start) from None
    out = Table(name, shapes, cols, meta, shared=True)
    out.plan = _row_plan(out, fields)
    return out


def _around(exc: UnicodeDecodeError) -> str:
    """The bytes around what a decoder could not read, as Python writes them (a line break escaped)."""
    return repr(exc.object[max(exc.start - 16, 0) : exc.end + 16])


def _not_utf8_value(path: str | os.PathLike, table, geometry: str, fields: Fields, start: int) -> MapError:
    """The refusal of the first row of ``table`` (the map's features before it: ``start``) one of whose columns
    holds text that is not UTF-8: the feature named by its id, else by its place."""
    for c in (c for c in table.column_names if c != geometry):
        values = table.column(c)
        for k in range(table.num_rows):  # (only a column that failed is looked at, a value at a time)
            try:
                value = values[k].as_py()
                if isinstance(value, bytes):  # (a binary column, read as UTF-8 text by _values)
                    value.decode("utf-8")
            except UnicodeDecodeError as exc:
                return MapError(path, _row_label(table, fields.id, k, start), f"its {c!r} is not UTF-8 text"
                                                                              f" ({_around(exc)})")
    raise AssertionError("a column that could not be decoded decodes")  # (never: pyarrow decodes the same way)


def _row_label(table, id_field: str, k: int, start: int) -> str:
    """Row ``k`` of ``table`` as a message names its feature: its id (repr), else ``#`` and its place in the map."""
    try:
        fid = table.column(id_field)[k].as_py() if id_field in table.column_names else None
        fid = as_id(fid.decode("utf-8") if isinstance(fid, bytes) else fid)
    except UnicodeDecodeError:
        fid = None
    return f"#{start + k}" if fid is None else repr(fid)


def _not_utf8_name(path: str | os.PathLike, layer: str, exc: UnicodeDecodeError) -> MapError:
    """The refusal of a layer whose column names or metadata GDAL gives as text that is not UTF-8."""
    what = f"{META_KEY!r} metadata" if exc.object.startswith(f"{META_KEY}=".encode()) else \
        "a column name or a metadata item"
    return MapError(path, None, f"its layer {layer!r} has {what} that is not UTF-8 text ({_around(exc)})")


def _check_rows(path: str | os.PathLike, rows: int) -> None:
    """Refuse a GeoParquet file of more rows than a map's features, from its footer: before any row is read."""
    if rows > MAX_FEATURES:
        raise MapError(path, None, f"has {rows:,} rows, more than the {MAX_FEATURES:,}-feature limit")


def _too_many_rows(path: str | os.PathLike) -> MapError:
    """The refusal of a file found to have more rows than a map's features: how many more is not known (the rows
    past the limit are never read, and a cached count is no count)."""
    return MapError(path, None, f"has more rows than the {MAX_FEATURES:,}-feature limit")


def _row_past(path: Path, pyogrio, name: str, first: int) -> bool:
    """Whether layer ``name`` has a row past its first ``first``, asked of GDAL by skipping to it (a GeoPackage
    or a Shapefile goes there at once); False where GDAL cannot skip there (a FlatGeobuf without an index, whose
    header counts more rows than it has): the rows are then counted as they are read."""
    try:
        fids = pyogrio.raw.read(path, layer=name, columns=[], read_geometry=False, return_fids=True,
                                skip_features=first, max_features=1)[1]
    except (ValueError, RuntimeError):  # (pyogrio's errors: GDAL could not go there)
        return False
    return fids is not None and len(fids) > 0


def _read_gdal(path: Path, driver: str, fields: Fields) -> list[Table]:
    pyogrio = _need("pyogrio")
    _need("pyarrow")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # GDAL's retries on a damaged file: the error says it
            return _gdal_layers(path, pyogrio, fields)
    except (OSError, RuntimeError) as exc:  # GDAL on a damaged file: pyogrio's errors, an I/O failure
        raise MapError(path, None, f"cannot be read as a {driver} file ({exc})") from None


def _gdal_layers(path: Path, pyogrio, fields: Fields) -> list[Table]:
    try:
        names = [str(n) for n in pyogrio.list_layers(path)[:, 0]]
    except UnicodeDecodeError as exc:
        raise MapError(path, None, f"has a layer name that is not UTF-8 text ({_around(exc)})") from None
    known = [n for n in names if n.lower() in LAYER_KINDS]
    if not known and len(names) != 1:
        raise MapError(path, None, f"has {len(names)} layers and none named {', '.join(LAYER_KINDS)}")
    return decoded_alongside(lambda batch: _from_arrow(path, *batch[:4], fields, start=batch[4]),
                             _gdal_batches(path, pyogrio, known or names))


def _gdal_batches(path: Path, pyogrio, names: list[str]) -> Iterator[tuple[str, Any, str, dict | None, int]]:
    """Each layer's name, rows (:data:`BATCH_ROWS` at a time; an empty layer's, none), geometry column, eidomap
    metadata and the map's rows before them.  Until a layer gives the map's metadata, each layer's information is
    read first; where the row count it gives (a GeoPackage's cached count, a FlatGeobuf's header: the file's word,
    which pyogrio wraps at 2**31) goes past the feature limit, GDAL is asked for a row past the limit
    (:func:`_row_past`), and the layer refused before any row of it is read if there is one.  Whatever a file
    says, a layer is refused as its rows come past the limit (one batch past it at most).  A column name or a
    metadata item that is not UTF-8 (GDAL gives the bytes as they are) refuses its layer."""
    rows = 0
    found = None
    for name in names:
        try:
            meta = None
            if found is None:  # (a GeoPackage opens its SQLite file again for each: 3 ms a layer)
                info = pyogrio.read_info(path, layer=name)
                if rows + (info.get("features") or 0) > MAX_FEATURES and _row_past(path, pyogrio, name,
                                                                                   MAX_FEATURES - rows):
                    raise _too_many_rows(path)
                meta = found = _meta_of(path, info.get("layer_metadata") or info.get("dataset_metadata"))
            with pyogrio.raw.open_arrow(path, layer=name, batch_size=BATCH_ROWS, use_pyarrow=True) as (gdal, reader):
                column = gdal.get("geometry_name") or "wkb_geometry"
                first = 0  # (the layer's rows before this batch)
                for table in _tables_of(reader, reader.schema):
                    if rows + table.num_rows > MAX_FEATURES:
                        raise _too_many_rows(path)
                    if column in table.column_names and not sound_binary(table.column(column)):
                        table = _geometries_again(path, pyogrio, name, table, column, first)
                    first += table.num_rows
                    yield name, table, column, meta, rows
                    rows += table.num_rows
        except UnicodeDecodeError as exc:
            raise _not_utf8_name(path, name, exc) from None


def _geometries_again(path: Path, pyogrio, name: str, table, column: str, first: int):
    """``table`` (rows ``first`` on of layer ``name``) with its geometries read again without Arrow, where GDAL's
    Arrow stream gave offsets a row's bytes cannot be found by (:func:`~eidomap.io.ragged.sound_binary`)."""
    import pyarrow as pa

    geoms = pyogrio.raw.read(path, layer=name, columns=[], skip_features=first, max_features=table.num_rows)[2]
    if geoms is None or len(geoms) != table.num_rows:
        raise MapError(path, None, f"its layer {name!r} gives {table.num_rows:,} rows and a different number of"
                                   f" geometries from row {first:,}")
    return table.set_column(table.column_names.index(column), column, pa.array(geoms.tolist(), pa.binary()))


def _tables_of(batches: Iterable, schema) -> Iterator[Any]:
    """Each Arrow record batch as a table of ``schema``; one empty table when there is none (an empty layer
    still gives its columns and metadata)."""
    import pyarrow as pa

    empty = True
    for batch in batches:
        empty = False
        yield pa.Table.from_batches([batch], schema)
    if empty:
        yield schema.empty_table()


def _read_parquet(path: Path, fields: Fields) -> list[Table]:
    pq = _need("pyarrow.parquet")
    try:
        with pq.ParquetFile(path) as f:
            _check_rows(path, f.metadata.num_rows)
            schema = f.schema_arrow
            column, encoding, kv = _geoparquet_columns(path, schema)
            meta = _meta_of(path, kv)
            return decoded_alongside(lambda ts: _from_arrow(path, path.stem, ts[0], column, meta, fields, encoding,
                                                            ts[1]),
                                     _with_starts(_tables_of(f.iter_batches(batch_size=BATCH_ROWS), schema)))
    except MapError:
        raise
    except UnicodeDecodeError as exc:  # (a column's values are refused as their feature's, in _from_arrow)
        raise MapError(path, None, f"has a column name that is not UTF-8 text ({_around(exc)})") from None
    except Exception as exc:  # pyarrow raises several kinds on a corrupt file
        raise MapError(path, None, f"cannot be read as GeoParquet ({exc})") from None


def _with_starts(tables: Iterable) -> Iterator[tuple[Any, int]]:
    """Each table, and the rows of those before it."""
    start = 0
    for t in tables:
        yield t, start
        start += t.num_rows


def _geoparquet_columns(path: Path, schema) -> tuple[str, str, dict[str, str]]:
    """A GeoParquet file's geometry column and its encoding, and the metadata items eidomap reads (``geo`` and
    ``eidomap``: UTF-8 text, else refused)."""
    kv = {}
    for k, v in (schema.metadata or {}).items():
        if k in (b"geo", META_KEY.encode()):
            try:
                kv[k.decode()] = v.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise MapError(path, None, f"its {k.decode()!r} metadata is not UTF-8 text ({_around(exc)})") from None
    try:
        geo = json.loads(kv.get("geo", "{}"))
        column = geo.get("primary_column", "geometry")
        encoding = (geo.get("columns") or {}).get(column, {}).get("encoding", "WKB")
    except (json.JSONDecodeError, AttributeError, RecursionError):
        raise MapError(path, None, "has 'geo' metadata that is not GeoParquet JSON") from None
    if not isinstance(column, str) or not isinstance(encoding, str):
        raise MapError(path, None, "has 'geo' metadata that is not GeoParquet JSON")
    return column, encoding, kv


def _plain(g):
    """GeoJSON coordinates of a point or line: lists."""
    return _plain_all(np.array([g], dtype=object))[0]


def _plain_all(geoms: np.ndarray) -> list:
    """GeoJSON coordinates of points and lines (lists), in one pass."""
    xy, which = shapely.get_coordinates(geoms, return_index=True)
    parts = np.split(xy, np.searchsorted(which, np.arange(1, len(geoms)))) if len(geoms) else []
    points = (shapely.get_type_id(geoms) == shapely.GeometryType.POINT).tolist()
    return [p.tolist()[0] if point and len(p) else p.tolist() for p, point in zip(parts, points, strict=True)]


def _row(t: Table, row: int, id_field: str, terrain_field: str) -> tuple[object, dict]:
    """Row ``row`` of ``t`` as a feature's id and properties (its kind defaulting to the layer's)."""
    props = {n: col[row] for n, col in t.columns.items() if col[row] is not None}
    fid = props.pop(id_field, None)
    if terrain_field != "terrain" and terrain_field in props:
        props["terrain"] = props.pop(terrain_field)
    props.setdefault("kind", LAYER_KINDS.get(t.name.lower(), "eido"))
    return fid, props


def _polygon_at(shapes: Shapes) -> np.ndarray:
    """Each row's position among the polygon rows (-1 for another row)."""
    at = np.full(len(shapes), -1, np.int64)
    at[shapes.rows] = np.arange(len(shapes.rows))
    return at


def _geometry(shapes: Shapes, row: int, at: int, plain=None) -> dict | None:
    """Row ``row``'s geometry as GeoJSON (None for none or an empty one); ``at`` its position among the polygon
    rows, ``plain`` the coordinates of a point or line if already made."""
    gtype = _TYPES.get(int(shapes.codes[row]))
    if gtype is None:
        return None
    if gtype in _POLYGONS:
        nested = shapes.nested(at)
        return {"type": gtype, "coordinates": nested[0] if gtype == "Polygon" else nested}
    return {"type": gtype, "coordinates": _plain(shapes.geoms_at([row])[0]) if plain is None else plain}


class TableFeatures:
    """The features of a table map, as the GeoJSON reader's :class:`~eidomap.io.geojson.FeatureList` gives them.

    ``features[i]`` is a fresh feature dict (geometry coordinates as lists),
    made from its row when asked; :meth:`raw` is its GeoJSON text.
    """

    def __init__(self, tables: list[Table], id_field: str = "id", terrain_field: str = "terrain"):
        self.tables, self.id_field, self.terrain_field = tables, id_field, terrain_field
        self.fields = Fields(id_field, terrain_field)
        self.starts = np.cumsum([0] + [len(t.shapes) for t in tables])

    def __len__(self) -> int:
        return int(self.starts[-1])

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        i %= len(self)
        k = int(np.searchsorted(self.starts, i, side="right")) - 1
        t, row = self.tables[k], i - int(self.starts[k])
        fid, props = _row(t, row, self.id_field, self.terrain_field)
        at = int(_plan(t, self.fields).at[row])  # (made when the rows were filed)
        f: dict[str, object] = {"type": "Feature", "properties": props, "geometry": _geometry(t.shapes, row, at)}
        if fid is not None:
            f["id"] = fid
        return f

    def raw(self, i: int) -> str:
        return json.dumps(self[i], default=encode, ensure_ascii=False)


def read_table_map(path: str | os.PathLike, catalog: Catalog | str | os.PathLike | None = None, *,
                   terrain_field: str = "terrain", id_field: str = "id") -> tuple[MapData, list[Problem]]:
    """Read a GeoPackage, Shapefile, FlatGeobuf or GeoParquet map leniently (as
    :func:`~eidomap.io.geojson.read_geojson` does)."""
    path = Path(path)
    driver = _check_file(path)
    fields = Fields(id_field, terrain_field)
    tables = _read_parquet(path, fields) if driver is None else _read_gdal(path, driver, fields)
    meta = next((t.meta for t in tables if t.meta is not None), None)
    body = {"type": "FeatureCollection", **({"eidomap": meta} if meta is not None else {})}
    return read_rows(path, tables, body, catalog, terrain_field=terrain_field, id_field=id_field)


def read_rows(path: Path | None, tables: list[Table], body: dict, catalog: Catalog | str | os.PathLike | None, *,
              terrain_field: str = "terrain", id_field: str = "id") -> tuple[MapData, list[Problem]]:
    """A map from :class:`Table` rows, each made a feature and handed to the builder every reader feeds: runs of
    plain Eidos as flat coordinate columns (the GeoJSON reader's fast lane), runs of plain Pousas as points."""
    builder = MapBuilder(path)
    fields = Fields(id_field, terrain_field)
    n = 0
    for t in tables:
        s = t.shapes
        rows = len(s)
        ids, kinds, terrains, regions, names, roads = _row_columns(t, fields)
        _, at, whole, plain = _plan(t, fields)
        cuts = np.flatnonzero(np.diff(plain)) + 1
        for a, b in zip(np.r_[0, cuts].tolist(), np.r_[cuts, rows].tolist(), strict=True):  # runs of rows
            run, index = ids[a:b], range(n + a, n + b)
            if plain[a] == _EIDO:  # (polygon rows one after another: at[a:b] is a range)
                filed = builder.add_eido_columns(index, run, *s.run(int(at[a]), int(at[b - 1]) + 1),
                                                 (s.codes[a:b] == shapely.GeometryType.MULTIPOLYGON).tolist(),
                                                 terrains[a:b], regions[a:b], names[a:b], shared=t.shared)
            else:
                filed = plain[a] == _POUSA and builder.add_pousas(index, run, roads[a:b], s.point_coordinates(a, b))
            if not filed:  # (an id used twice or before, or rows of another kind: one at a time)
                _visit_rows(builder, n, t, range(a, b), at, whole, ids, kinds, terrains, regions, names, id_field,
                            terrain_field)
        n += rows
    return builder.finish(body, TableFeatures(tables, id_field, terrain_field), catalog)


#: What :func:`_plain_rows` tells of a row: neither, a plain Eido, a plain Pousa.
_OTHER, _EIDO, _POUSA = 0, 1, 2


def _plain_rows(default: str, codes: np.ndarray, whole: np.ndarray, ids: list, kinds: list,
                roads: list) -> np.ndarray:
    """Which rows are plain Eidos (``whole`` polygons of kind eido with a text id) and which plain Pousas (points
    of kind pousa, their id text or none, their road text); ids not yet checked for reuse."""
    kind = np.fromiter(kinds, object, len(kinds))  # (a list among them stays one item)
    kind[kind == None] = default  # noqa: E711 (elementwise)
    text = _texts(ids)
    eido = whole & text & (kind == "eido")
    pousa = (kind == "pousa") & (codes == shapely.GeometryType.POINT)
    rows = np.flatnonzero(pousa).tolist()  # (a few: only they need their road and id looked at)
    none = np.array([ids[k] is None for k in rows], dtype=bool)
    pousa[rows] = _texts([roads[k] for k in rows]) & (text[rows] | none)
    return np.where(eido, _EIDO, np.where(pousa, _POUSA, _OTHER))


def _texts(values: list) -> np.ndarray:
    """Which values are texts (``str`` itself: a subclass, such as NumPy's, is not plain)."""
    return np.fromiter(map(operator.is_, map(type, values), repeat(str)), bool, len(values))


def _visit_rows(builder: MapBuilder, n: int, t: Table, rows: range, at: np.ndarray, whole: np.ndarray, ids, kinds,
                terrains, regions, names, id_field: str, terrain_field: str) -> None:
    """Rows one by one: a plain Eido is filed at once, any other row made a feature the builder checks."""
    s = t.shapes
    codes = s.codes[rows.start : rows.stop].tolist()
    lines = [k for k, code in zip(rows, codes, strict=True) if code >= 0 and _TYPES.get(code) not in _POLYGONS]
    plain = dict(zip(lines, _plain_all(s.geoms_at(lines)), strict=True))
    default = LAYER_KINDS.get(t.name.lower(), "eido")
    for row in rows:
        fid, k = ids[row], int(at[row])
        if (kinds[row] or default) == "eido" and whole[row] and type(fid) is str and builder.add_eido_columns(
                [n + row], [fid], *s.run(k, k + 1), [bool(s.codes[row] == shapely.GeometryType.MULTIPOLYGON)],
                [terrains[row]], [regions[row]], [names[row]], shared=t.shared):
            continue
        fid, props = _row(t, row, id_field, terrain_field)
        f: dict[str, object] = {"type": "Feature", "properties": props,
                                "geometry": _geometry(s, row, k, plain.get(row))}
        if fid is not None:
            f["id"] = fid
        builder.add_feature(n + row, f)


# -- writing ---------------------------------------------------------------------------
def _feature_geoms(md: MapData, path: Path) -> np.ndarray:
    """The Shapely geometry of every feature of the file: a layer's, or, for a feature the read left out (a map
    with errors), its document's as written; none for a null geometry.  A geometry Shapely cannot make (a ring
    left open, too few positions) is refused: GeoJSON keeps it, a table cannot."""
    rec = md.record
    features = md.document.features
    out = np.full(len(features), None, dtype=object)
    kept = np.zeros(len(features), bool)
    for layer in (rec.eidos, rec.roads, rec.pousas, rec.fountains, rec.streams, rec.rivers):
        out[layer.index] = layer.geoms
        kept[layer.index] = True
    for i in np.flatnonzero(~kept).tolist():
        f = features[i]
        if not isinstance(f, dict) or f.get("geometry") is None:
            continue
        try:
            out[i] = shapely.from_geojson(features.raw(i))  # (the feature's own text: its geometry as written)
        except shapely.errors.GEOSException as exc:
            label = feature_id(f) or f"#{i}"
            raise RequestError(f"{shown(path)}: feature {label!r} has a geometry no table can hold ({exc}); write"
                               f" the map as GeoJSON to keep it, or fix it first (eidomap fix)") from None
    return out


def _column(values: list, name: str, notes: list[str]) -> np.ndarray:
    """One column of plain type: text, whole numbers, numbers or booleans; anything else as JSON text.

    A column of booleans some features leave out is a masked array, its empty cells masked (written as nulls).
    """
    present = [v for v in values if v is not None]
    if all(isinstance(v, str) for v in present):
        return np.array(values, dtype=object)
    if all(isinstance(v, bool) for v in present):  # (a flag on a few features, "poi": true: empty elsewhere)
        empty = np.array([v is None for v in values], dtype=bool)
        flags = np.array([v is True for v in values], dtype=bool)
        return np.ma.MaskedArray(flags, mask=empty) if empty.any() else flags
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present) and len(present) == len(values):
        return np.array(values, dtype=np.int64)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return np.array([np.nan if v is None else float(v) for v in values], dtype=float)
    notes.append(f"property {name!r} mixes types or holds lists or objects: written as JSON text")
    return np.array([None if v is None else json.dumps(v, ensure_ascii=False) for v in values], dtype=object)


def _rows(md: MapData, which: list[int], notes: list[str]) -> tuple[list[str], list[np.ndarray]]:
    feats = [md.document.features[i] for i in which]
    names: dict[str, None] = {"id": None}
    for f in feats:
        names.update(dict.fromkeys(k for k in f.get("properties") or {} if k != "id"))
    values: dict[str, list] = {n: [] for n in names}
    for f in feats:
        props = f.get("properties") or {}
        values["id"].append(feature_id(f))
        for n in list(names)[1:]:
            values[n].append(props.get(n))
    return list(names), [_column(values[n], n, notes) for n in names]


def _write_layers(md: MapData, geoms: np.ndarray, path: Path, driver: str | None, notes: list[str]) -> None:
    meta = json.dumps(md.record.meta, ensure_ascii=False)
    features = md.document.features
    order = np.arange(len(features))
    if driver == "GPKG":  # one layer per kind, in the order of the file
        kinds = np.array([(features[i].get("properties") or {}).get("kind") for i in order.tolist()], dtype=object)
        layers = [(name, order[kinds == kind]) for name, kind in LAYER_KINDS.items() if (kinds == kind).any()]
    else:
        layers = [("eidos", order)]
    if driver is None:
        _write_parquet(md, path, geoms, meta, notes)
        return
    pyogrio = _need("pyogrio")
    for k, (name, which) in enumerate(layers):
        fields, data = _rows(md, which.tolist(), notes)
        types = _types(geoms[which])
        gtype = types[0] if len(types) == 1 else "Unknown"
        if driver == "ESRI Shapefile":
            gtype = "MultiPolygon" if gtype == "Unknown" else gtype
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # planar maps have no CRS
            pyogrio.raw.write(path, shapely.to_wkb(geoms[which]), [np.ma.getdata(d) for d in data], fields,
                              field_mask=[np.ma.getmask(d) if np.ma.is_masked(d) else None for d in data],
                              layer=name, driver=driver, geometry_type=gtype, append=k > 0,
                              layer_options={"SPATIAL_INDEX": "NO"} if driver == "FlatGeobuf" else None,  # keep order
                              layer_metadata={META_KEY: meta} if driver != "ESRI Shapefile" and k == 0 else None)


def _types(geoms: np.ndarray) -> list[str]:
    """The geometry types among ``geoms`` (a null geometry has none), sorted."""
    return sorted({_TYPES[t] for t in shapely.get_type_id(geoms).tolist() if t >= 0})


def _write_parquet(md: MapData, path: Path, geoms: np.ndarray, meta: str, notes: list[str]) -> None:
    pa = _need("pyarrow")
    pq = _need("pyarrow.parquet")
    fields, data = _rows(md, list(range(len(md.document.features))), notes)
    types = _types(geoms)
    geo = {"version": "1.1.0", "primary_column": "geometry",
           "columns": {"geometry": {"encoding": "WKB", "geometry_types": types}}}
    arrays = [pa.array(d.tolist(), from_pandas=True) for d in data] + [pa.array(shapely.to_wkb(geoms).tolist())]
    table = pa.table(arrays, names=[*fields, "geometry"])
    table = table.replace_schema_metadata({"geo": json.dumps(geo), META_KEY: meta})
    pq.write_table(table, path)


def write_table_map(md: MapData, path: str | os.PathLike) -> list[str]:
    """Write a map as GeoPackage, Shapefile, FlatGeobuf or GeoParquet (by suffix); returns notes on what changed.

    Every feature keeps its id, kind, properties and geometry -- a feature the
    read left out (a map with errors) its geometry as written, so the table
    reads back with the same problems; one Shapely cannot make (a ring left
    open) is refused, naming the feature, before anything is written.  Lists
    and objects in properties (and a property mixing types) become JSON text.  A Shapefile
    holds one layer of polygons and no metadata: a map with other features or
    an ``eidomap`` member beyond its format is refused.  Written atomically
    (all of a Shapefile's files are put in place at the end).
    """
    path = Path(path)
    if not is_table_map(path):
        raise RequestError(f"{shown(path)}: not a table format (known: {', '.join(DRIVERS)})")
    driver = DRIVERS[path.suffix.lower()][0]
    if driver == "ESRI Shapefile":
        other = len(md.document.features) - len(md.record.eidos)
        extra = sorted(set(md.record.meta) - {"format"})
        if other or extra:
            what = f"{other} features that are not Eidos" if other else f"its eidomap {', '.join(extra)}"
            raise RequestError(f"{shown(path)}: a Shapefile holds Eidos alone, and this map has {what};"
                               " convert it to a GeoPackage (.gpkg) to keep everything")
    need_folder(path)
    notes: list[str] = []
    geoms = _feature_geoms(md, path)
    folder = path.absolute().parent
    # written under plain names (GDAL drops a line break from a file's name), then given the map's (each of a
    # Shapefile's files with its suffix)
    tmp = Path(tempfile.mkdtemp(prefix=".eidomap-", dir=folder))
    try:
        _write_layers(md, geoms, tmp / f"map{path.suffix}", driver, notes)
        made = {f: folder / f"{path.stem}{f.name[3:]}" for f in sorted(tmp.iterdir())}
        for dst in made.values():  # each only over a regular file or a new path, as every writer (files.replaceable)
            replaceable(dst)
        for f, dst in made.items():
            os.replace(f, dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return list(dict.fromkeys(notes))


def write_map(md: MapData, path: str | os.PathLike) -> list[str]:
    """Write a map in the format its suffix names: GeoJSON, or a table format (:func:`write_table_map`).

    Any other suffix is refused (:func:`check_map_suffix`).
    """
    check_map_suffix(path)
    if is_table_map(path):
        return write_table_map(md, path)
    write_atomic(path, dumps_geojson(md).encode("utf-8"))
    return []
