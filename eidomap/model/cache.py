"""What a query needs of a map, kept in a file beside the map.

The cache holds the compiled graph (whose node arrays carry every Eido and
Pousa id, layer and terrain), the drawing tolerance, the map's ``eidomap``
member and its Eidos' display names: everything ``route`` and ``reach`` need,
so that a query with a valid cache never parses the GeoJSON.  It is keyed by
the SHA-256 and size of the bytes the map was built from -- those parsed, not a
file hashed apart from the read, which may have changed in between -- and the
tolerance asked for (and must name the catalog's terrains); a cache that does not
match, or does not look right, is ignored and rebuilt.  A cache whose checksum does
not match its bytes (:mod:`eidomap.io.arrays`) is damaged: ignored and rebuilt, with
a one-line warning (:class:`~eidomap.base.errors.EidomapWarning`).  Where the cache would
be, anything but a regular file (a FIFO, a device, a directory, a symbolic link) is
never opened nor replaced: it is left alone, with a warning.

Hashing a big map takes seconds (SHA-256 runs at about 200 MB/s on a
core without SHA instructions), so the cache also records the file's *stamp* -- device,
inode, size, modification and change times -- when it was hashed: while the map file
still has that stamp, its hash is the recorded one and the file is not read.  The
change time cannot be set back by hand (any write or ``touch`` moves it forward), and
a file changed in the second before it was hashed gets no stamp (its times may not
have moved since), so it is hashed again every time.

The file is a JSON header and raw arrays (:mod:`eidomap.io.arrays`): mapped, not
copied, nothing unpickled, checked like any untrusted input.  A map answered
from its cache is a :class:`CacheSource`: the map file is read -- its bytes
checked against the key first -- only when something asks for its record.
A cache that cannot be written is said in a warning, and the map answers as
without it.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import stat
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

import numpy as np

from eidomap.base.errors import EidomapWarning, MapError
from eidomap.base.files import MAX_MAP_BYTES, open_atomic, read_bounded, stat_stamp
from eidomap.base.names import shown
from eidomap.io import arrays
from eidomap.io.document import MapData
from eidomap.io.features import parse_meta, resolve_catalog
from eidomap.io.readers import checked, read_map
from eidomap.model.network import KINDS, LAYERS, MAP_ERROR_CODES, Network
from eidomap.record.catalog import Catalog

SUFFIX = ".eidomap-cache"
#: What the cache holds; a cache of another version is ignored and rebuilt.
VERSION = 3


def path_for(map_path: str | os.PathLike) -> Path:
    """The cache file of a map: beside it, in the same folder."""
    p = Path(map_path)
    return p.with_name(p.name + SUFFIX)


def digest(map_path: str | os.PathLike) -> str:
    """SHA-256 of a map file, read in chunks (the map is never held whole)."""
    with open(map_path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


@dataclass(frozen=True)
class Key:
    """What a cache must match: the map file's SHA-256 and size, the tolerance asked for (None: the default)."""

    digest: str
    size: int
    tolerance: float | None
    stamp: str | None = None

    def matches(self, data: bytes) -> bool:
        """Whether ``data`` are the bytes this key was made from."""
        return len(data) == self.size and _sha256(data) == self.digest


#: A file changed less than this before it was hashed (nanoseconds) gets no stamp: its times may not move again.
SETTLE_NS = 1_000_000_000


def _asked(tolerance: float | None) -> float | None:
    return None if tolerance is None else float(tolerance)


def known_key(map_path: str | os.PathLike, tolerance: float | None) -> Key | None:
    """The key of a map file from the hash its cache recorded, if the file still has the stamp it had then.

    Nothing of the map is read; None when there is no such record (then
    :func:`read_keyed` reads the map and hashes what it read).
    """
    try:
        p = Path(map_path)
        st = p.stat()
        if not stat.S_ISREG(st.st_mode):
            return None
        stamp = stat_stamp(st)
        known = _recorded(path_for(p), stamp)
    except OSError:
        return None
    return None if known is None else Key(known, st.st_size, _asked(tolerance), stamp)


def read_keyed(map_path: str | os.PathLike, tolerance: float | None) -> tuple[bytes, Key]:
    """The bytes of a map file and their key: the hash of the very bytes read, which the map is then built from.

    The key gets the file's stamp only when the file kept it through the read
    and has settled (:data:`SETTLE_NS`).  Raises
    :class:`~eidomap.base.errors.MapError` as reading the map would.
    """
    p = Path(map_path)
    try:
        before = p.stat()
    except OSError:
        before = None  # the read says why
    data = read_bounded(p, MAX_MAP_BYTES)
    stamp = None
    if before is not None:
        try:
            still = stat_stamp(p.stat()) == stat_stamp(before)
        except OSError:
            still = False
        if still and time.time_ns() - max(before.st_mtime_ns, before.st_ctime_ns) > SETTLE_NS:
            stamp = stat_stamp(before)
    return data, Key(_sha256(data), len(data), _asked(tolerance), stamp)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _other_kind(path: Path) -> str | None:
    """What stands at ``path`` when it is something other than a regular file (None: a file, or nothing)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
             (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISSOCK, "a socket"))
    return next((what for test, what in kinds if test(mode)), "not a regular file")


def _recorded(path: Path, stamp: str) -> str | None:
    """The SHA-256 a cache recorded for a map file of this stamp, if it did (its header alone is read)."""
    if _other_kind(path) is not None:
        return None
    try:
        with arrays.open_regular(path) as fh:
            header = arrays.read_header(fh)
    except (OSError, ValueError):
        return None
    found = header.get("digest")
    ok = header.get("stamp") == stamp and isinstance(found, str) and re.fullmatch("[0-9a-f]{64}", found)
    return found if ok else None


@dataclass(frozen=True)
class Entry:
    """A cache's contents: the network, the tolerance used, the ``eidomap`` member, display names by Eido id."""

    network: Network
    tolerance: float
    meta: dict
    display_names: dict[str, str]


def _integer(*arrays: np.ndarray) -> bool:
    return all(a.ndim == 1 and a.dtype.kind in "iu" for a in arrays)


def _in_range(a: np.ndarray, high: int) -> bool:
    """Every value of ``a`` in ``[0, high)``."""
    return len(a) == 0 or (0 <= a.min() and a.max() < high)


def _consistent(net: Network) -> bool:
    n, e, p = net.n_nodes, net.n_edges, len(net.pair_dst)
    layer = net.node_layer
    if net.node_ids.ndim != 1 or net.node_ids.dtype.kind != "U" or not _integer(
            layer, net.node_terrain, net.indptr, net.dst, net.kind, net.terrain, net.pair_indptr, net.pair_dst,
            net.pair_start, net.map_errors):
        return False
    n_e = net.n_eidos
    checks = (
        len(layer) == n and len(net.node_terrain) == n and _in_range(layer, len(LAYERS)),
        bool(np.all(np.diff(layer.astype(np.int64)) >= 0)),  # Eidos, then Pousas, then the hub
        _in_range(net.node_terrain[:n_e], len(net.terrain_names)),
        len(net.indptr) == n + 1 and net.indptr[0] == 0 and net.indptr[-1] == e,
        bool(np.all(np.diff(net.indptr) >= 0)),
        len(net.kind) == e and len(net.terrain) == e,
        _in_range(net.dst, n) and _in_range(net.kind, len(KINDS)),
        _in_range(net.terrain + 1, len(net.terrain_names) + 1),
        len(net.pair_indptr) == n + 1 and net.pair_indptr[0] == 0 and net.pair_indptr[-1] == p == len(net.pair_start),
        bool(np.all(np.diff(net.pair_indptr) >= 0)),
        _in_range(net.pair_start, max(e, 1)),  # (the pairs' targets are checked against the edges')
        net.map_errors.shape == (len(MAP_ERROR_CODES),),
    )
    return all(checks) and _pairs_match_edges(net)


def _pairs_match_edges(net: Network) -> bool:
    """Whether the pair CSR groups the edge CSR: a row's pairs start at its edges, a pair at an edge to its target.

    So a search over the pairs never names a step the edges do not hold.  Two
    passes over the pairs and one over the nodes.
    """
    start, p = net.pair_start, len(net.pair_start)
    first = net.pair_indptr[:-1]  # each row's first pair; p for the empty rows at the end
    at = np.where(first < p, start[np.minimum(first, max(p - 1, 0))] if p else 0, net.n_edges)
    return bool(np.all(start[1:] > start[:-1]) and np.array_equal(at, net.indptr[:-1])
                and np.array_equal(net.dst[start], net.pair_dst))


def _warn(path: Path, what: str) -> None:
    warnings.warn(f"{shown(path)}: {what}", EidomapWarning, stacklevel=3)


def load(path: Path, key: Key) -> Entry | None:
    """The cache's contents, or None when there is none, it does not match ``key`` or does not look right.

    A damaged cache (its checksum) and anything but a regular file at
    ``path`` are said in a warning; the others (stale, of another version or
    tolerance) are ignored quietly.  The caller checks what the cache cannot:
    its terrains against the catalog's.
    """
    other = _other_kind(path)
    if other is not None:
        _warn(path, f"is {other}, not a cache file: left alone, and the map read without its cache")
        return None
    try:
        header, found = arrays.read(path, MAX_MAP_BYTES)
        if (header.get("version") != VERSION or header.get("digest") != key.digest or header.get("size") != key.size
                or not _same(header.get("asked"), key.tolerance)):
            return None
        net = Network.from_arrays(found)  # (its order of edges by target and its pair codes checked when used)
        names_at, names = found["names_at"], found["names"]
    except arrays.Damaged:
        _warn(path, "is damaged (its checksum does not match its contents): ignored, and written again")
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None  # not a cache, cut short, a field missing or of another kind...
    tolerance, meta = header.get("tolerance"), header.get("meta")
    if (not _consistent(net) or not isinstance(meta, dict) or not _number(tolerance)
            or not math.isfinite(tolerance) or tolerance < 0):
        return None
    n_e = net.n_eidos
    if not (_integer(names_at) and names.ndim == 1 and names.dtype.kind == "U" and len(names) == len(names_at)
            and _in_range(names_at, n_e)):
        return None
    ids = net.node_ids
    return Entry(net, float(tolerance), meta, dict(zip(ids[names_at].tolist(), names.tolist(), strict=True)))


def _same(found: object, asked: float | None) -> bool:
    """Whether a cache made for tolerance ``found`` (None: the default) serves one asked for ``asked``."""
    return found is None if asked is None else _number(found) and found == asked


def _number(x: object) -> TypeGuard[float | int]:
    return isinstance(x, float | int) and not isinstance(x, bool)


def save(path: Path, key: Key, entry: Entry) -> None:
    """Write the cache atomically.

    A path holding no regular file is left alone (said when the cache was to
    be read); a cache that cannot be written (a folder without the right, a
    full disk) is said in a warning (:class:`~eidomap.base.errors.EidomapWarning`),
    and the map answers as without it.
    """
    if _other_kind(path) is not None:
        return
    net = entry.network
    index = {eid: k for k, eid in enumerate(net.node_ids[: net.n_eidos].tolist())}
    names_at = np.array([index[eid] for eid in entry.display_names], dtype=np.int32)
    header = {"version": VERSION, "digest": key.digest, "size": key.size, "stamp": key.stamp,
              "asked": key.tolerance, "tolerance": entry.tolerance, "meta": entry.meta}
    try:
        with open_atomic(path) as fh:
            names = np.array(list(entry.display_names.values()), dtype=str)
            arrays.write(fh, header, {"names_at": names_at, "names": names, **net.arrays()})
    except OSError as exc:
        _warn(path, f"cannot be written ({exc.strerror or exc}): the map is read again next time")


class CacheSource:
    """A map answered from its cache (the source of a :class:`~eidomap.model.map.Map`).

    Ids, terrains, display names, the tolerance and the network come from the
    cache; the map file is read -- its bytes checked against the cache's key
    first -- only when something asks for its record (:meth:`read`).
    """

    def __init__(self, path: Path, entry: Entry, catalog: Catalog, key: Key, options: dict):
        self.path, self.catalog, self._entry, self._key, self._options = path, catalog, entry, key, options

    @property
    def meta(self) -> dict:
        return self._entry.meta

    def read(self) -> MapData:
        raw = read_bounded(self.path, MAX_MAP_BYTES)
        if not self._key.matches(raw):
            raise MapError(self.path, None, "changed since its cache was read; load it again")
        return checked(self.path, *read_map(self.path, data=raw, **{**self._options, "catalog": self.catalog}))

    def eido_ids(self) -> list[str]:
        net = self._entry.network
        return net.node_ids[: net.n_eidos].tolist()

    def pousa_ids(self) -> list[str]:
        net = self._entry.network
        return net.node_ids[net.node_layer == LAYERS.index("pousa")].tolist()

    def terrain_codes(self) -> np.ndarray:
        net = self._entry.network
        return net.node_terrain[: net.n_eidos]

    def display_names(self) -> dict[str, str]:
        return self._entry.display_names

    def tolerance(self) -> float:
        return self._entry.tolerance

    def network(self) -> Network:
        return self._entry.network

    def scan(self, key: str, pousas: bool) -> int | None:
        """Node position of Eido ``key`` (or, with ``pousas``, Eido or Pousa) by one pass over the node ids."""
        net = self._entry.network
        ends = np.count_nonzero(net.node_layer <= LAYERS.index("pousa" if pousas else "eido"))
        hit = np.flatnonzero(net.node_ids[:ends] == key)
        return int(hit[0]) if len(hit) else None


def open_source(map_path: str | os.PathLike, key: Key, options: dict) -> CacheSource | None:
    """The map from its cache, if the cache matches the file, the tolerance and the catalog's terrains.

    ``options`` are those the map would be read with (:class:`~eidomap.io.readers.ReadOptions`), its
    ``catalog`` among them.
    """
    p = Path(map_path)
    entry = load(path_for(p), key)
    if entry is None:
        return None
    try:
        meta = parse_meta(p, {"eidomap": entry.meta})
    except MapError:
        return None
    cat = resolve_catalog(p, meta, options.get("catalog"))  # the very catalog (and error) the read would give
    if tuple(cat.terrain_names) != entry.network.terrain_names:
        return None
    return CacheSource(p, entry, cat, key, options)
