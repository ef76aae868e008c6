"""GeoJSON maps: the reader (two lanes) and the lossless writer.

:func:`read_geojson` is lenient: it returns every feature it could use plus a
list of :class:`~eidomap.base.problems.Problem` for the rest, so that validation
can report everything at once.  :func:`eidomap.load` is the strict reader
built on it: it raises the first error as a :class:`~eidomap.base.errors.MapError`.

The file is read one feature at a time (the C decoder's ``raw_decode``, so a
million-Eido map never exists as one tree of Python objects), each feature
handed to the :class:`~eidomap.io.builder.MapBuilder`, which checks it and
keeps its coordinates in flat buffers; only the feature's place in the text is
kept.  With msgspec, :mod:`eidomap.io.fast.geojson` reads the same file faster,
to the same map and problems.  Writing (:func:`~eidomap.io.document.dumps_geojson`,
here too) is lossless to the byte: a feature that did not change is copied
from the original text; one whose geometry changed (``fix``) is written back
with every property and foreign member it had.
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
from eidomap.io.document import Features, LetGo, dumps_geojson, write_geojson
from eidomap.io.jsontext import check_unicode, scan
from eidomap.record.catalog import Catalog

if TYPE_CHECKING:
    from eidomap.io.document import MapData

__all__ = ["dumps_geojson", "read_geojson", "write_geojson"]

#: The two lanes of the reader: the standard library's ``json``, and msgspec (``eidomap[fast]``).
LANES = ("json", "msgspec")


def read_geojson(path: str | os.PathLike | None, catalog: Catalog | str | os.PathLike | None = None,
                 data: bytes | None = None, *, reader: str | None = None, helper: bool = False,
                 keep_text: bool = True) -> tuple[MapData, list[Problem]]:
    """Read a GeoJSON map leniently: what can be used, and a problem for everything else.

    Parameters
    ----------
    path : str, Path or None
        The file (None: ``data`` comes from no file).
    catalog : str, Path or Catalog, optional
        The terrains and species (default: the one the map names).
    data : bytes, optional
        The file's bytes, when already read.
    reader : {"msgspec", "json"}, optional
        The lane: msgspec (the same map, problems and errors, faster), or the standard library's ``json``.
        Default: msgspec when it is installed.
    helper : bool
        With msgspec, share a map of 64 MB or more with a helper process on a second core.  Off unless asked: a
        library call starts no process of its own.
    keep_text : bool
        Keep the features' text for the document (a lossless write).  False: let it go as soon as the features
        are filed, before the record is built -- about the file's size of memory less at the read's peak; the
        document then knows only how many features there were
        (:class:`~eidomap.io.document.LetGo`; what :func:`~eidomap.io.readers.read_map` with
        ``document=False`` puts in its place reads them again).

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
    eidomap.io.readers.read_map : Any format, by suffix.
    eidomap.io.geojson.write_geojson : Write it back.

    Examples
    --------
    >>> import eidomap
    >>> md, problems = read_geojson(eidomap.demo_map_path(), reader="json")
    >>> md.record.eidos.ids[:2], problems
    (('ceo-poente', 'ceo-gaivotas'), [])
    """
    from eidomap.io.fast import geojson as fastjson

    lane = check_lane(reader)
    path, data = params.maybe(params.path, path, "path"), params.maybe(params.instance, data, "data", bytes, "bytes")
    Catalog.checked(catalog)
    helper, keep_text = params.flag(helper, "helper"), params.flag(keep_text, "keep_text")
    features: Features  # (the lane's own list, then what the document keeps: :func:`_kept`)
    path = None if path is None else Path(path)
    if data is not None:
        raw = data
    elif path is not None:
        raw = read_bounded(path, MAX_MAP_BYTES)
    else:
        raise RequestError("give the map's path, or its bytes as data")
    check_unicode(path, raw)  # (both lanes would take an escaped lone surrogate, which no write can write)
    if lane == "msgspec":
        b = MapBuilder(path)
        found = fastjson.read_features(path, raw, b, helper=helper)
        if found is not None:
            members, features = found
            del found, raw, data  # (unless the caller holds the file's bytes, the features' views alone do now)
            features = _kept(path, features, keep_text)
            return b.finish(members, features, catalog)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MapError(path, None, "is not UTF-8 text") from None
    del raw  # the bytes are dropped as soon as they are decoded (unless the caller holds them)
    b = MapBuilder(path)
    members, features = scan(path, text, b.add_feature)
    del text  # (the features hold it)
    features = _kept(path, features, keep_text)
    return b.finish(members, features, catalog)


def _kept(path: Path | None, features: Features, keep_text: bool) -> Features:
    """``features``, or in their place (``keep_text`` False) only how many they were: the last reference to the
    map's text, let go here, before the record is built."""
    return features if keep_text else LetGo(path, len(features))


def check_lane(reader: str | None) -> str:
    """The lane ``reader`` names (None: msgspec when installed); :class:`RequestError` for anything else."""
    from eidomap.io.fast import geojson as fastjson

    if reader is None:
        return "msgspec" if fastjson.available() else "json"
    if reader not in LANES:
        raise RequestError(f"reader must be one of {', '.join(map(repr, LANES))}, got {reader!r}")
    if reader == "msgspec" and not fastjson.available():
        raise RequestError('reader="msgspec" needs msgspec: pip install "eidomap[fast]"')
    return reader
