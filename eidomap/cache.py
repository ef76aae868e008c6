"""A map's compiled graph kept in a ``.npz`` file beside the map.

The cache is keyed by the SHA-256 of the map file and the tolerance; a cache
that does not match, or does not look right, is ignored and rebuilt.  It is
read with ``allow_pickle=False`` and checked like any untrusted input.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import numpy as np

from .graph import MAP_ERROR_CODES, Network
from .io.files import MAX_MAP_BYTES, write_atomic

__all__ = ["digest", "load", "path_for", "save"]

SUFFIX = ".eidomap-cache.npz"


def path_for(map_path) -> Path:
    """The cache file of a map: beside it, in the same folder."""
    p = Path(map_path)
    return p.with_name(p.name + SUFFIX)


def digest(map_path) -> str:
    """SHA-256 of a map file, read in chunks (the map is never held twice)."""
    h = hashlib.sha256()
    with open(map_path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _consistent(net: Network) -> bool:
    n, e = net.n_nodes, net.n_edges
    checks = (
        len(net.indptr) == n + 1 and net.indptr[0] == 0 and net.indptr[-1] == e,
        bool(np.all(np.diff(net.indptr) >= 0)),
        len(net.kind) == e and len(net.terrain) == e,
        e == 0 or (0 <= net.dst.min() and net.dst.max() < n),
        len(net.pair_indptr) == n + 1 and net.pair_indptr[-1] == len(net.pair_dst) == len(net.pair_start),
        len(net.node_layer) == n and len(net.node_terrain) == n,
        e == 0 or net.terrain.max() < len(net.terrain_names),
        net.map_errors.shape == (len(MAP_ERROR_CODES),),
    )
    return all(checks)


def load(path: Path, key: str, tolerance: float) -> Network | None:
    """The cached network, or None when there is none or it does not match."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_MAP_BYTES:
            return None
        with np.load(path, allow_pickle=False) as z:
            if str(z["digest"]) != key or float(z["tolerance"]) != tolerance:
                return None
            net = Network.from_arrays({k: z[k] for k in z.files})
            order = z["in_order"] if "in_order" in z.files else None
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):  # truncated, not a zip...
        return None
    if not _consistent(net):
        return None
    if order is not None and _is_in_order(net, order):
        net.__dict__["in_order"] = order  # derived, but slow to sort again on big maps
    return net


def _is_in_order(net: Network, order: np.ndarray) -> bool:
    """``order`` is a permutation of the edges sorting them by target."""
    if order.shape != (net.n_edges,) or order.dtype.kind not in "iu":
        return False
    if net.n_edges == 0:
        return True
    if order.min() < 0 or order.max() >= net.n_edges:
        return False
    return bool(np.all(np.bincount(order, minlength=net.n_edges) == 1) and np.all(np.diff(net.dst[order]) >= 0))


def save(path: Path, key: str, tolerance: float, net: Network) -> None:
    """Write the cache atomically; a folder that cannot be written is skipped."""
    buf = io.BytesIO()
    np.savez(buf, digest=np.array(key), tolerance=np.array(tolerance), in_order=net.in_order, **net.arrays())
    try:
        write_atomic(path, buf.getvalue())
    except OSError:
        if os.environ.get("EIDOMAP_DEBUG"):
            raise
