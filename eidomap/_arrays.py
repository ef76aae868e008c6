"""Small vectorised helpers shared by the array code."""

from __future__ import annotations

import gc
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

__all__ = ["group_ranks", "in_threads", "join", "member", "paused_gc", "points", "rows", "unique", "unique_inverse"]


@contextmanager
def paused_gc():
    """Pause Python's cyclic garbage collector for a bulk build.

    Reading a map makes millions of small containers and no cycles; while they
    are alive, every later collection walks them all again (it triples the
    time of reading a 100,000-Eido map, and of its topology after it).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def points(xy: np.ndarray) -> np.ndarray:
    """The rows of an ``(n, 2)`` float array as ``n`` complex numbers ``x + iy`` (a view when it can be).

    NumPy indexes and compares the rows of a 2-D array item by item, about ten
    times slower than the items of a 1-D array: one 16-byte item per point.
    """
    return np.ascontiguousarray(xy, dtype=np.float64).view(np.complex128)[:, 0]


def rows(xy: np.ndarray, index) -> np.ndarray:
    """``xy[index]`` for an ``(n, 2)`` float array, through :func:`points`.

    >>> rows(np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]), [2, 0]).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    return points(xy)[index].view(np.float64).reshape(-1, 2)


def group_ranks(counts: np.ndarray) -> np.ndarray:
    """For groups of sizes ``counts`` laid end to end, each item's rank in its group.

    >>> group_ranks(np.array([2, 0, 3])).tolist()
    [0, 1, 0, 1, 2]
    """
    counts = np.asarray(counts, dtype=np.int64)
    return np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)


def join(ka: np.ndarray, kb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(ia, ib)`` of every ``ka[ia] == kb[ib]`` (an equi-join).

    >>> ia, ib = join(np.array([1, 2]), np.array([2, 1, 2]))
    >>> list(zip(ia.tolist(), ib.tolist()))
    [(0, 1), (1, 0), (1, 2)]
    """
    order = np.argsort(kb, kind="stable")
    sk = kb[order]
    lo = np.searchsorted(sk, ka, "left")
    cnt = np.searchsorted(sk, ka, "right") - lo
    ia = np.repeat(np.arange(len(ka)), cnt)
    ib = order[np.repeat(lo, cnt) + group_ranks(cnt)]
    return ia, ib


def unique(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values of an integer array.

    A plain sort: on large integer arrays it is several times faster than
    ``np.unique``, which hashes first in recent NumPy.

    >>> unique(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    x = np.sort(x)
    return x[np.r_[True, x[1:] != x[:-1]]] if len(x) else x


def unique_inverse(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of ``x`` and, for each item, the index of its value.

    >>> values, inverse = unique_inverse(np.array([30, 10, 30]))
    >>> values.tolist(), inverse.tolist()
    ([10, 30], [1, 0, 1])
    """
    order = np.argsort(x, kind="stable")
    xs = x[order]
    new = np.r_[True, xs[1:] != xs[:-1]] if len(x) else np.zeros(0, bool)
    inverse = np.empty(len(x), np.int64)
    inverse[order] = np.cumsum(new) - 1
    return xs[new], inverse


def member(x: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``np.isin`` for integers by binary search (``np.isin`` hashes: slow on millions).

    >>> member(np.array([5, 2, 9]), np.array([9, 5])).tolist()
    [True, False, True]
    """
    keys = np.sort(keys)
    if len(keys) == 0:
        return np.zeros(len(x), bool)
    at = np.minimum(np.searchsorted(keys, x), len(keys) - 1)
    return keys[at] == x


def in_threads(func, values: np.ndarray, *, least: int = 100_000) -> np.ndarray:
    """``func(values)`` for an element-wise ufunc, its halves (quarters...) in threads, one per core.

    Shapely's and NumPy's ufuncs release the GIL: on two cores a big array
    takes about half the time.  Small arrays are not worth a thread.

    >>> in_threads(np.negative, np.arange(5), least=2).tolist()
    [0, -1, -2, -3, -4]
    """
    n = min(os.cpu_count() or 1, 4, max(len(values) // max(least, 1), 1))
    if n < 2:
        return func(values)
    with ThreadPoolExecutor(n) as pool:
        return np.concatenate(list(pool.map(func, np.array_split(values, n))))
