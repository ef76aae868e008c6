"""GeoJSON maps: the plain reader and the lossless writer.

:func:`read_geojson` reads a map as the format says, with the standard
library's ``json``, and leniently: it returns every feature it could use plus
a list of :class:`~eidomap.base.problems.Problem` for the rest, so that
validation can report everything at once.  :func:`eidomap.load` is the strict
reader built on it: it raises the first error as a
:class:`~eidomap.base.errors.MapError`.

The file is read one feature at a time (the C decoder's ``raw_decode``, so a
million-Eido map never exists as one tree of Python objects), each feature
handed to the :class:`~eidomap.io.builder.MapBuilder`, which checks it and
keeps its coordinates in flat buffers; only the feature's place in the text is
kept.  The reader registry (:func:`eidomap.io.readers.read_map`) reads a map
by this reader, or by the fast lane (:mod:`eidomap.io.fast`: msgspec, to the
same map and problems) when msgspec is installed.  Writing
(:func:`~eidomap.io.document.dumps_geojson`, here too) is lossless to the
byte: a feature that did not change is copied from the original text; one
whose geometry changed (``fix``) is written back with every property and
foreign member it had.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from eidomap.base import params
from eidomap.base.errors import MapError, RequestError
from eidomap.base.files import MAX_MAP_BYTES, read_bounded
from eidomap.base.problems import Problem
from eidomap.io.builder import MapBuilder
from eidomap.io.document import dumps_geojson, write_geojson
from eidomap.io.jsontext import FeatureList, check_unicode, scan
from eidomap.record.catalog import Catalog

if TYPE_CHECKING:
    from eidomap.io.document import MapData

__all__ = ["dumps_geojson", "read_geojson", "write_geojson"]


def read_geojson(path: str | os.PathLike | None, catalog: Catalog | str | os.PathLike | None = None,
                 data: bytes | None = None) -> tuple[MapData, list[Problem]]:
    """Read a GeoJSON map leniently: what can be used, and a problem for everything else.

    Parameters
    ----------
    path : str, Path or None
        The file (None: ``data`` comes from no file).
    catalog : str, Path or Catalog, optional
        The terrains and species (default: the one the map names).
    data : bytes, optional
        The file's bytes, when already read.

    Returns
    -------
    md : MapData
        The record and the document.
    problems : list of Problem
        What was left out, and why.

    Raises
    ------
    MapError
        Only when the file cannot be read as a map at all (not JSON, not a FeatureCollection, too large, bad
        ``eidomap`` member, bad catalog).

    See Also
    --------
    eidomap.io.readers.read_map : Any format, by suffix; a GeoJSON map by the fast lane when msgspec is installed.
    eidomap.io.geojson.write_geojson : Write it back.

    Examples
    --------
    >>> import eidomap
    >>> md, problems = read_geojson(eidomap.demo_map_path())
    >>> md.record.eidos.ids[:2], problems
    (('ceo-poente', 'ceo-gaivotas'), [])
    """
    path, data = params.maybe(params.path, path, "path"), params.maybe(params.instance, data, "data", bytes, "bytes")
    Catalog.checked(catalog)
    path = None if path is None else Path(path)
    b = MapBuilder(path)
    members, features = read_features(path, data, b)
    return b.finish(members, features, catalog)


def map_bytes(path: Path | None, data: bytes | None) -> bytes:
    """``data``, else the file's bytes (at most :data:`~eidomap.base.files.MAX_MAP_BYTES`)."""
    if data is not None:
        return data
    if path is None:
        raise RequestError("give the map's path, or its bytes as data")
    return read_bounded(path, MAX_MAP_BYTES)


def read_features(path: Path | None, data: bytes | None, b: MapBuilder) -> tuple[dict, FeatureList]:
    """The collection's members other than its features, and its features, each handed to the builder ``b``:
    the file (or ``data``, its bytes) read with the standard library's ``json``.

    The features hold the text (:class:`~eidomap.io.jsontext.FeatureList`: each one's place in it).
    """
    raw = map_bytes(path, data)
    check_unicode(path, raw)  # (json takes an escaped lone surrogate, which no write can write)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MapError(path, None, "is not UTF-8 text") from None
    del raw, data  # the bytes dropped as soon as they are decoded (unless the caller holds them)
    return scan(path, text, b.add_feature)
