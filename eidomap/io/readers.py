"""One way in: every map file is read through this registry of formats.

A format is a name, the file suffixes it claims and a read function
``read(path, data, options) -> (MapData, problems)``: it reads the file (or
``data``, its bytes, when the format reads bytes), hands its features to a
:class:`~eidomap.io.builder.MapBuilder` and returns what the builder made --
the format-neutral :class:`~eidomap.record.record.MapRecord` and, beside it, the
:class:`~eidomap.io.document.Document` a lossless write needs -- with a
:class:`~eidomap.base.problems.Problem` for every feature it could not use.
:func:`read` and :func:`read_map` pick the format by the file's suffix (a suffix
no format claims is read as GeoJSON) or by name.

The formats eidomap knows: ``geojson`` (two lanes: the plain reader,
:mod:`eidomap.io.geojson`, with the standard library's ``json``; and the fast
lane, :mod:`eidomap.io.fast`, with msgspec), ``tables`` (GeoPackage, Shapefile, FlatGeobuf through
GDAL; GeoParquet), ``tiled`` (Tiled's TMX and JSON maps) and ``svg``
(drawings), the last two through their import to GeoJSON.  ``svg`` is
registered by :mod:`eidomap.validate.fix`, a layer above: a drawing's borders
drawn twice are snapped onto each other by fix's rules as it is read.  A new
format is one :func:`register` call::

    def read_toy(path, data, options):
        builder = MapBuilder(path)
        features = [...]  # the file's features, as GeoJSON-like dicts
        for i, f in enumerate(features):
            builder.add_feature(i, f)
        return builder.finish({"type": "FeatureCollection"}, FeatureList.of(features), options.catalog)

    register("toy", (".toy",), read_toy)

(``tests/record/test_record.py`` registers one such format in a few lines.)

>>> import eidomap
>>> record, problems = read(eidomap.demo_map_path())
>>> record.name, len(record.eidos), problems
('Illas das Marabillas (demo)', 76, [])
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eidomap.base import params
from eidomap.base.errors import MapError, RequestError
from eidomap.base.files import read_bounded
from eidomap.base.modes import Lane
from eidomap.base.names import shown
from eidomap.base.problems import ERROR, Problem
from eidomap.io import tables
from eidomap.io.fast import geojson as fast
from eidomap.io.fast.collector import paused_gc
from eidomap.io.fast.letgo import read_without_text
from eidomap.io.geojson import read_geojson
from eidomap.io.grid import grid_instead

if TYPE_CHECKING:
    from eidomap.io.document import MapData
    from eidomap.record.catalog import Catalog
    from eidomap.record.record import MapRecord

__all__ = ["formats", "read_map"]


@dataclass(frozen=True)
class ReadOptions:
    """What a caller may ask of a read; each format takes what concerns it.

    ``catalog``: the terrains and species (a :class:`~eidomap.record.catalog.Catalog`
    or a file; default: the one the map names, else the default catalog).
    ``terrain_field``, ``id_field``: a table's terrain and id columns.
    ``reader``: the GeoJSON lane, ``"msgspec"`` (the fast lane) or ``"json"``
    (the plain reader); default: msgspec when installed.  The tuning, off
    unless asked (:mod:`eidomap.io.fast`): ``helper``, share a GeoJSON map of
    64 MB or more with a helper process on a second core; ``pause_gc``, pause
    Python's cyclic garbage collector while the map is read (process-wide:
    for a program that owns its process, as the command line does; see
    :mod:`eidomap.io.fast.collector`); ``document=False``, let the features'
    text go once the map is read, and read the file again when a feature is
    first asked for (:mod:`eidomap.io.fast.letgo`).
    """

    catalog: Catalog | str | os.PathLike | None = None
    reader: Lane | str | None = None
    helper: bool = False
    terrain_field: str = "terrain"
    id_field: str = "id"
    pause_gc: bool = False
    document: bool = True

    def __post_init__(self) -> None:
        from eidomap.record.catalog import Catalog

        Catalog.checked(self.catalog)
        if self.reader is not None:  # (None: the GeoJSON reader picks its lane, only when it reads)
            object.__setattr__(self, "reader", check_lane(self.reader))
        for name in ("terrain_field", "id_field"):
            params.text(getattr(self, name), name, "text (a column's name)")
        for name in ("helper", "pause_gc", "document"):
            params.flag(getattr(self, name), name)

    @classmethod
    def of(cls, options: dict[str, Any]) -> ReadOptions:
        """The options a caller passed by keyword, checked; a :class:`RequestError` naming one it does not know."""
        known = [f.name for f in fields(cls)]
        unknown = [k for k in options if k not in known]
        if unknown:
            raise RequestError(f"{unknown[0]} is not an option of a read (those are {', '.join(known)})",
                               param=unknown[0])
        return cls(**options)


#: A format's read function: the file (None: ``data`` comes from no file), its bytes if already read (only for a
#: format that reads bytes), the options.
ReadFunction = Callable[[Path | None, bytes | None, ReadOptions], "tuple[MapData, list[Problem]]"]


@dataclass(frozen=True)
class Format:
    """A map format: its name, the suffixes it claims, its read function, and whether it reads the file's bytes
    (then a map of it may have a cache, keyed by those bytes, and be read from bytes already read)."""

    name: str
    suffixes: tuple[str, ...]
    read: ReadFunction
    reads_bytes: bool = True


_FORMATS: dict[str, Format] = {}
#: The format of a file whose suffix no format claims.
DEFAULT = "geojson"


def register(name: str, suffixes: tuple[str, ...], read: ReadFunction, *, reads_bytes: bool = True) -> Format:
    """Add a format (or replace the one of that name); it claims ``suffixes`` (lower case, with the dot)."""
    taken = {s: f.name for f in _FORMATS.values() if f.name != name for s in f.suffixes}
    clash = [s for s in suffixes if s in taken]
    if clash:
        raise ValueError(f"{clash[0]} is already the suffix of the {taken[clash[0]]!r} format")
    fmt = Format(name, tuple(s.lower() for s in suffixes), read, reads_bytes)
    _FORMATS[name] = fmt
    return fmt


def formats() -> dict[str, Format]:
    """The formats registered, by name.

    Returns
    -------
    dict of str to Format
        ``geojson``, ``tables`` (GeoPackage, Shapefile, FlatGeobuf, GeoParquet), ``tiled``, ``svg``, and any
        registered since; each knows its suffixes and how to read.

    See Also
    --------
    read_map : Read a file in any of them.

    Examples
    --------
    >>> list(formats())[:4]
    ['geojson', 'tables', 'tiled', 'svg']
    """
    return dict(_FORMATS)


def format_for(path: str | os.PathLike | None, name: str | None = None) -> Format:
    """The format named ``name``, else the one claiming ``path``'s suffix, else GeoJSON."""
    if name is not None:
        return _FORMATS[params.one_of(name, "format", list(_FORMATS))]
    suffix = Path(path).suffix.lower() if path is not None else ""
    return next((f for f in _FORMATS.values() if suffix in f.suffixes), _FORMATS[DEFAULT])


def read_map(path: str | os.PathLike | None, *, format: str | None = None, data: bytes | None = None,
             **options: Any) -> tuple[MapData, list[Problem]]:
    """Read any map file leniently: its record and document, and a problem for everything it could not use.

    Parameters
    ----------
    path : str, Path or None
        The file (None: ``data`` comes from no file).
    format : str, optional
        A registered format (:func:`formats`); default: by the file's suffix, else GeoJSON.
    data : bytes, optional
        The file's bytes when already read (a format that reads bytes only).
    **options
        ``catalog``, ``terrain_field``, ``id_field``, ``reader``, ``helper``, ``pause_gc``, ``document``: as
        for :func:`eidomap.load`.

    Returns
    -------
    md : MapData
        The record (:class:`~eidomap.MapRecord`) and the document as read, without what could not be used.
    problems : list of Problem
        What was left out, and why (the codes of :func:`eidomap.validate.checks.validate`).

    Raises
    ------
    MapError
        Only when the file cannot be read as a map at all.
    RequestError
        For an unknown format or option, or bytes given to a format that reads its file.

    See Also
    --------
    eidomap.load : Read a map strictly (the first problem is an error).
    eidomap.validate.checks.validate : Every problem, the reader's and the checks'.

    Examples
    --------
    >>> import eidomap
    >>> md, problems = read_map(eidomap.demo_map_path())
    >>> len(md.record.eidos), problems
    (76, [])
    """
    path = params.maybe(params.path, path, "path")
    data = params.maybe(params.instance, data, "data", bytes, "bytes")
    fmt = format_for(path, format)
    if data is not None and not fmt.reads_bytes:
        raise RequestError(f"the {fmt.name} format reads its file, not bytes")
    o = ReadOptions.of(options)
    file = None if path is None else Path(path)
    if file is None or data is not None or o.document:  # (bytes given keep their document: no file to read again)
        return _read(fmt, file, data, o)
    return read_without_text(file, lambda document: _read(fmt, file, None, replace(o, document=document)))


def _read(fmt: Format, path: Path | None, data: bytes | None, o: ReadOptions) -> tuple[MapData, list[Problem]]:
    """``fmt``'s read; a GeoJSON file that is not a map but a battle grid is said to be one."""
    with paused_gc(o.pause_gc):
        try:
            return fmt.read(path, data, o)
        except MapError:
            said = grid_instead(path, data) if path is not None and fmt.name == DEFAULT else None
            if said is None:
                raise
            raise MapError(path, None, said) from None


def read(path: str | os.PathLike, **options: Any) -> tuple[MapRecord, list[Problem]]:
    """Read any map file leniently: its :class:`~eidomap.record.record.MapRecord` and a problem for everything it could
    not use (:func:`read_map` without the document)."""
    md, problems = read_map(path, **options)
    return md.record, problems


def first_error(path: str | os.PathLike, problems: list[Problem]) -> MapError | None:
    """The first error among ``problems`` as a :class:`MapError`, or None."""
    for p in problems:
        if p.severity == ERROR:
            label = p.features[0] if p.features else None
            if label is not None:  # a feature's place (``#12``) as it is, an id quoted
                label = shown(label, quoted=not label.startswith("#"))
            return MapError(path, label, p.message)
    return None


def checked(path: str | os.PathLike, md: MapData, problems: list[Problem]) -> MapData:
    """``md`` if the strict reader accepts it (no error, some Eido); else the first error as a :class:`MapError`."""
    err = first_error(path, problems)
    if err is not None:
        raise err
    if len(md.record.eidos) == 0:
        raise MapError(path, None, "has no Eidos")
    return md


# -- the formats eidomap knows ----------------------------------------------------------
def _geojson(path: Path | None, data: bytes | None, o: ReadOptions) -> tuple[MapData, list[Problem]]:
    """The plain reader, or the fast lane: with msgspec, or to let the features' text go before the record is
    built (only where :func:`read_map` reads them again from the file)."""
    lane = check_lane(o.reader)
    keep_text = o.document or path is None or data is not None
    if lane is Lane.JSON and keep_text:
        return read_geojson(path, o.catalog, data)
    return fast.read_geojson(path, o.catalog, data, reader=lane, helper=o.helper, keep_text=keep_text)


def check_lane(reader: Lane | str | None) -> Lane:
    """The GeoJSON lane ``reader`` names (None: msgspec when installed); :class:`RequestError` for anything else."""
    if reader is None:
        return Lane.MSGSPEC if fast.available() else Lane.JSON
    lane = Lane.checked(reader, "reader")
    if lane is Lane.MSGSPEC and not fast.available():
        raise RequestError('reader="msgspec" needs msgspec: pip install "eidomap[fast]"')
    return lane


def _tables(path: Path | None, data: bytes | None, o: ReadOptions) -> tuple[MapData, list[Problem]]:
    assert path is not None  # (registered reads_bytes=False: read from its file)
    return tables.read_table_map(path, o.catalog, terrain_field=o.terrain_field, id_field=o.id_field)


def read_document(doc: dict, path: Path | None, o: ReadOptions) -> tuple[MapData, list[Problem]]:
    """A map imported to an eidomap GeoJSON document (a drawing's, a Tiled map's), read as that document (what a
    lossless write writes): what a format that imports returns."""
    text = json.dumps(doc, ensure_ascii=False, allow_nan=False).encode("utf-8")
    return _geojson(path, text, o)


def source_bytes(path: Path | None, data: bytes | None, limit: int) -> bytes:
    """``data``, else the file's bytes (at most ``limit``): what a format that reads bytes reads."""
    if data is not None:
        return data
    if path is None:
        raise RequestError("read_map needs a file or its bytes")
    return read_bounded(path, limit)


def _tiled(path: Path | None, data: bytes | None, o: ReadOptions) -> tuple[MapData, list[Problem]]:
    from eidomap.io.tiled import MAX_TILED_BYTES, read_tiled

    doc, _ = read_tiled(source_bytes(path, data, MAX_TILED_BYTES), path, o.catalog)
    return read_document(doc, path, o)


register("geojson", tables.GEOJSON_SUFFIXES, _geojson)
register("tables", tuple(tables.DRIVERS), _tables, reads_bytes=False)
register("tiled", (".tmx", ".tmj"), _tiled)
