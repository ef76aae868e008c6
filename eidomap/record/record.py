"""The map record: what a map holds, whatever file it was read from.

A :class:`MapRecord` is made by a reader (:mod:`eidomap.io.readers`) and never
changes afterwards: its arrays are read-only and its ids tuples.  It holds no
text of the file it came from -- what a lossless write needs (the source
document, which features were left out) is kept beside it
(:class:`eidomap.io.document.Document`) -- and nothing a later stage computes.
Everything after reading (topology, the network, validation, pictures) starts
from a record.

>>> import eidomap
>>> rec = eidomap.load(eidomap.demo_map_path()).record
>>> rec.rules, len(rec.eidos) > 0, rec.eidos.geoms.flags.writeable
('eido', True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from eidomap.record.catalog import Catalog

#: Road classes of d20 overland maps (``properties.class`` of a road).
ROAD_CLASSES = ("highway", "road", "trail")
#: A river's current (mph) when it gives none.
DEFAULT_CURRENT = 3.0


def _frozen(a: npt.ArrayLike, dtype: npt.DTypeLike | None = None) -> np.ndarray:
    """A read-only view of ``a`` as an array (the caller's own array stays writeable)."""
    out = np.asarray(a, dtype=dtype).view()
    out.flags.writeable = False
    return out


def _freeze(obj: object, arrays: dict[str, npt.DTypeLike], texts: tuple[str, ...] = ()) -> None:
    """Set each of ``arrays`` (name -> dtype) on a frozen dataclass as a read-only array, each of ``texts`` as a
    tuple (a tuple is taken as it is: no copy of a million ids)."""
    for name, dtype in arrays.items():
        object.__setattr__(obj, name, _frozen(getattr(obj, name), dtype))
    for name in texts:
        value = getattr(obj, name)
        if type(value) is not tuple:
            object.__setattr__(obj, name, tuple(value))


def _no_geometries() -> np.ndarray:
    return np.empty(0, dtype=object)


@dataclass(frozen=True, eq=False)
class Layer:
    """Features of one kind: their ids, their positions among the source's features, their Shapely geometries."""

    ids: tuple[str, ...] = ()
    index: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    geoms: np.ndarray = field(default_factory=_no_geometries)

    def __post_init__(self) -> None:
        _freeze(self, {"index": np.int64, "geoms": object}, ("ids",))

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True, eq=False)
class Places:
    """Where each Pousa lies along its road (:func:`eidomap.record.geometry.places_along`), found at ``tolerance``:
    ``position`` the distance along the road, ``near`` whether it lies within the tolerance of a segment of it."""

    tolerance: float = 0.0
    position: np.ndarray = field(default_factory=lambda: np.empty(0))
    near: np.ndarray = field(default_factory=lambda: np.empty(0, bool))

    def __post_init__(self) -> None:
        _freeze(self, {"position": np.float64, "near": bool})


@dataclass(frozen=True, eq=False)
class MapRecord:
    """Everything a map holds, as read-only arrays and tuples.

    Attributes
    ----------
    path : Path or None
        The file it was read from (None for none).
    meta : dict
        The map's ``eidomap`` member (rules, name, catalog...).
    catalog : Catalog
        The terrains and species its codes refer to.
    eidos : Layer
        The Eidos: ids, Shapely polygons and properties.
    terrain : numpy.ndarray of int32
        Each Eido's catalog terrain code.
    regions : tuple of str or None
        Each Eido's region.
    eido_names : tuple of str or None
        Each Eido's ``name`` property.
    roads : Layer
        The roads (lines).
    road_class : tuple of str or None
        Each road's d20 class (None on Eido maps).
    pousas : Layer
        The Pousas (the stepping circles of roads; points).
    pousa_road : numpy.ndarray of int32
        The index of each Pousa's road.
    pousa_places : Places
        The Pousas' places along their roads.
    fountains, streams, rivers : Layer
        The fountains (points), streams and rivers (lines).
    river_current : numpy.ndarray of float
        Each river's current in miles an hour.
    """

    path: Path | None
    meta: dict
    catalog: Catalog
    eidos: Layer = field(default_factory=Layer)
    terrain: np.ndarray = field(default_factory=lambda: np.empty(0, np.int32))
    regions: tuple = ()
    eido_names: tuple = ()
    roads: Layer = field(default_factory=Layer)
    road_class: tuple = ()
    pousas: Layer = field(default_factory=Layer)
    pousa_road: np.ndarray = field(default_factory=lambda: np.empty(0, np.int32))
    pousa_places: Places = field(default_factory=Places)
    fountains: Layer = field(default_factory=Layer)
    streams: Layer = field(default_factory=Layer)
    rivers: Layer = field(default_factory=Layer)
    river_current: np.ndarray = field(default_factory=lambda: np.empty(0))

    def __post_init__(self) -> None:
        _freeze(self, {"terrain": np.int32, "pousa_road": np.int32, "river_current": np.float64},
                ("regions", "eido_names", "road_class"))

    @property
    def rules(self) -> str:
        """The rule set the map is drawn for (``"eido"`` or ``"d20"``)."""
        return rules_of(self.meta)

    @property
    def name(self) -> str:
        """The map's name (its ``eidomap.name``, else the file's stem)."""
        return name_of(self.meta, self.path)


def rules_of(meta: dict) -> str:
    """The rule set a map's ``eidomap`` member names (default ``"eido"``)."""
    return meta.get("rules", "eido")


def name_of(meta: dict, path: Path | None) -> str:
    """A map's name: the one its ``eidomap`` member gives, else its file's stem."""
    return str(meta.get("name") or (path.stem if path else "map"))
