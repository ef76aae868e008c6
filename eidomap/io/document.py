"""What a reader gives: the map record and, beside it, the document it was read from.

The :class:`~eidomap.record.record.MapRecord` is format-neutral; the
:class:`Document` keeps what a lossless write and a report on the features
the reader left out need of the file: the collection's other members, each
feature's text, and which features were left out.  :class:`MapData` is the
two side by side -- what :func:`eidomap.io.readers.read_map` returns, what the
writers take, and the source a :class:`~eidomap.model.map.Map` of a file is made
from.  :func:`dumps_geojson` writes it back as GeoJSON, losslessly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import shapely

from eidomap.base import params
from eidomap.base.files import write_atomic
from eidomap.io.features import encode, feature_id, geometry_coords
from eidomap.record.catalog import Catalog
from eidomap.record.record import MapRecord


class Features(Protocol):
    """A file's features: ``features[i]`` a fresh GeoJSON-like dict, ``raw(i)`` its GeoJSON text
    (:class:`~eidomap.io.jsontext.FeatureList`, :class:`~eidomap.io.tables.TableFeatures`)."""

    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Any: ...
    def raw(self, i: int) -> str: ...


@dataclass(frozen=True, eq=False)
class Document:
    """The file a record was read from, for a lossless write.

    ``members`` are the collection's members other than its features (the
    ``eidomap`` member among them); ``features[i]`` is the i-th feature as a
    fresh dict and ``features.raw(i)`` its text; ``left_out`` holds, for each
    problem the reader returned, the position of the feature it is about.
    """

    members: dict
    features: Features
    left_out: tuple[int, ...] = ()

    def label(self, index: int) -> str:
        """Feature number ``index`` by its id, or ``#index`` when it has none."""
        feature = self.features[index]
        return (feature_id(feature) if isinstance(feature, dict) else None) or f"#{index}"


@dataclass(frozen=True, eq=False)
class MapData:
    """A map as read from its file: its :class:`~eidomap.record.record.MapRecord` and its :class:`Document`.

    It is also the source a :class:`~eidomap.model.map.Map` of a file is made
    from (everything is there: nothing is read again).
    """

    record: MapRecord
    document: Document

    # -- the source of a Map (eidomap.model.map.MapSource) -------------------------
    @property
    def path(self) -> Path | None:
        return self.record.path

    @property
    def meta(self) -> dict:
        return self.record.meta

    @property
    def catalog(self) -> Catalog:
        return self.record.catalog

    def read(self) -> MapData:
        return self

    def eido_ids(self) -> list[str]:
        return list(self.record.eidos.ids)

    def pousa_ids(self) -> list[str]:
        return list(self.record.pousas.ids)

    def terrain_codes(self) -> np.ndarray:
        return self.record.terrain

    def display_names(self) -> dict[str, str]:
        ids, names = self.record.eidos.ids, self.record.eido_names
        given = np.flatnonzero(np.fromiter(names, object, len(names)) != None).tolist()  # noqa: E711 (elementwise)
        return {ids[k]: names[k] for k in given if isinstance(names[k], str) and names[k].strip()}

    def tolerance(self) -> float | None:
        return None  # the Map's own (asked, or the default of its geometry)

    def network(self) -> None:
        return None  # built by the Map from the record

    def scan(self, key: str, pousas: bool) -> int | None:
        """Node position of Eido ``key`` (or, with ``pousas``, Eido or Pousa) by one pass over the ids."""
        k = _position(self.record.eidos.ids, key)
        if k is None and pousas:
            k = _position(self.record.pousas.ids, key)
            return None if k is None else len(self.record.eidos) + k
        return k


def _position(ids: Sequence[str], key: str) -> int | None:
    """Where ``key`` is in ``ids`` (one pass in C); None if it is not there."""
    try:
        return ids.index(key)
    except ValueError:
        return None


def dumps_geojson(md: MapData, eido_geoms: np.ndarray | None = None) -> str:
    """Serialise a map read from a file (its record and document), optionally with new Eido geometries (as
    ``fix`` does).

    A feature whose geometry is unchanged is copied from the original text; a changed one keeps every
    property and foreign member it had.

    Parameters
    ----------
    md : MapData
        A map as read (:func:`eidomap.io.readers.read_map`).
    eido_geoms : numpy.ndarray of Polygon, optional
        New geometries for the Eidos, in the record's order.

    Returns
    -------
    str
        The GeoJSON text.

    See Also
    --------
    write_geojson : Write it to a file.

    Examples
    --------
    >>> import json, eidomap
    >>> from eidomap.io.readers import read_map
    >>> md, _ = read_map(eidomap.demo_map_path())
    >>> len(json.loads(dumps_geojson(md))["features"]) == len(md.document.features)
    True
    """
    md = params.instance(md, "md", MapData, "a MapData (eidomap.io.readers.read_map)")
    eidos, doc = md.record.eidos, md.document
    changed: dict[int, object] = {}
    if eido_geoms is not None:
        eido_geoms = params.geometries(eido_geoms, "eido_geoms", len(eidos))
        differ = np.flatnonzero(~shapely.equals_exact(eidos.geoms, eido_geoms, 0.0))
        changed = dict(zip(eidos.index[differ].tolist(), eido_geoms[differ], strict=True))
    parts = []
    for i in range(len(doc.features)):
        if i not in changed:
            parts.append(doc.features.raw(i))
            continue
        f = doc.features[i]
        coords = geometry_coords(changed[i])
        f["geometry"] = {**f["geometry"], "type": coords.type, "coordinates": coords}
        parts.append(json.dumps(f, default=encode, ensure_ascii=False))
    head = json.dumps({**doc.members, "features": []}, ensure_ascii=False)  # ends with '"features": []}'
    return head[:-3] + "[" + ",\n".join(parts) + "]}"


def write_geojson(md: MapData, path: str | os.PathLike, eido_geoms: np.ndarray | None = None) -> None:
    """Write a map atomically, through a temporary file renamed into place.

    The text is :func:`~eidomap.io.geojson.dumps_geojson`'s.

    Parameters
    ----------
    md : MapData
        A map as read.
    path : str or Path
        The file.
    eido_geoms : numpy.ndarray of Polygon, optional
        New geometries for the Eidos.

    Raises
    ------
    FileExistsError
        When ``path`` is a folder, a link, a FIFO or a device (only a new path or a regular file is written).

    See Also
    --------
    eidomap.Map.save : The same for a loaded map.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> from eidomap.io.readers import read_map
    >>> md, _ = read_map(eidomap.demo_map_path())
    >>> path = Path(tempfile.mkdtemp()) / "copy.geojson"
    >>> write_geojson(md, path)
    >>> eidomap.load(path, catalog=eidomap.bundled_map_path("demo-catalog.toml")).pairs() == eidomap.load(
    ...     eidomap.demo_map_path()).pairs()
    True
    """
    path = params.path(path, "path")
    write_atomic(path, dumps_geojson(md, eido_geoms).encode("utf-8"))
