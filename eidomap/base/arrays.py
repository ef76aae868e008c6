"""Small vectorised helpers shared by the array code."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import TypeVar

import numpy as np


def points(xy: np.ndarray) -> np.ndarray:
    """The rows of an ``(n, 2)`` float array as ``n`` complex numbers ``x + iy`` (a view when it can be).

    NumPy indexes and compares the rows of a 2-D array item by item, about ten
    times slower than the items of a 1-D array: one 16-byte item per point.
    """
    return np.ascontiguousarray(xy, dtype=np.float64).view(np.complex128)[:, 0]


def rows(xy: np.ndarray, index: np.ndarray | slice) -> np.ndarray:
    """``xy[index]`` for an ``(n, 2)`` float array, through :func:`points`.

    >>> rows(np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]), [2, 0]).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    return points(xy)[index].view(np.float64).reshape(-1, 2)


def distinct_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-D array, equal to the bit, and the index of each row among them.

    >>> values, inverse = distinct_rows(np.array([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0]]))
    >>> values.tolist(), inverse.tolist()
    ([[0.0, 5.0], [1.0, 2.0]], [1, 0, 1])
    """
    x = np.ascontiguousarray(x)
    width = x.shape[1]
    values, inverse = np.unique(x.view(np.dtype((np.void, x.dtype.itemsize * width)))[:, 0], return_inverse=True)
    return values.view(x.dtype).reshape(-1, width), inverse


def group_ranks(counts: np.ndarray) -> np.ndarray:
    """For groups of sizes ``counts`` laid end to end, each item's rank in its group.

    >>> group_ranks(np.array([2, 0, 3])).tolist()
    [0, 1, 0, 1, 2]
    """
    counts = np.asarray(counts, dtype=np.int64)
    return np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)


def nested_take(offsets: list[np.ndarray], rows: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """For rows ``rows`` of nested lists (each level's offsets into the next), the lengths at each level and the
    positions of their leaves.

    >>> counts, leaves = nested_take([np.array([0, 1, 3]), np.array([0, 2, 3, 5])], np.array([1, 0]))
    >>> [c.tolist() for c in counts], leaves.tolist()
    ([[2, 1], [1, 2, 2]], [2, 3, 4, 0, 1])
    """
    counts, at = [], rows
    for off in offsets:
        c = (off[1:] - off[:-1])[at]
        counts.append(c)
        at = np.repeat(off[:-1][at], c) + group_ranks(c)
    return counts, at


def stable_argsort(x: np.ndarray) -> np.ndarray:
    """``np.argsort(x, kind="stable")`` of an integer array, ten times faster on millions of items.

    When the range of the values and the positions fit together in 63 bits,
    it is one ``np.sort`` of ``(x - min) << bits | position`` (NumPy's
    vectorised sort; its stable argsort is a merge sort): the positions break
    the ties, so the order is the stable one.

    >>> stable_argsort(np.array([3, 1, 3, 1])).tolist()
    [1, 3, 0, 2]
    """
    x = np.asarray(x)
    n = len(x)
    if n == 0:
        return np.empty(0, np.intp)
    lo = int(x.min())
    bits = (n - 1).bit_length()
    if (int(x.max()) - lo).bit_length() + bits > 63:
        return np.argsort(x, kind="stable")
    # in place on one array (beside the positions): it sorts the largest arrays a read holds
    if x.dtype.kind == "u":
        packed = (x - x.dtype.type(lo)).astype(np.int64, copy=False)
    else:
        packed = x.astype(np.int64)
        packed -= lo
    packed <<= bits
    packed |= np.arange(n)
    packed.sort()
    packed &= (1 << bits) - 1
    return packed


def join(ka: np.ndarray, kb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(ia, ib)`` of every ``ka[ia] == kb[ib]`` (an equi-join).

    Only ``kb`` is sorted: join the larger array as ``ka``.  When ``kb``
    holds small non-negative integers, each key's place among them is read
    from a table of counts, not searched for (binary searches of millions of
    keys in no order cost ten times more).

    >>> ia, ib = join(np.array([1, 2]), np.array([2, 1, 2]))
    >>> list(zip(ia.tolist(), ib.tolist()))
    [(0, 1), (1, 0), (1, 2)]
    """
    order = stable_argsort(kb)
    if len(kb) and kb.dtype.kind in "iu" and np.asarray(ka).dtype.kind in "iu" and kb.min() >= 0 \
            and kb.max() < len(ka) + len(kb):
        start = np.zeros(int(kb.max()) + 2, np.int64)  # start[k]: how many keys of kb are below k
        np.cumsum(np.bincount(kb), out=start[1:])
        at = np.clip(ka, 0, len(start) - 2)
        lo = start[at]
        cnt = np.where((ka >= 0) & (ka == at), start[at + 1] - lo, 0)
    else:
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
    order = stable_argsort(x)
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


_T = TypeVar("_T")


def in_parts(func: Callable[[np.ndarray], _T], values: np.ndarray, *, least: int = 20_000) -> list[tuple[int, _T]]:
    """``func`` of each part of ``values``, one part per core: ``[(first item, answer), ...]``.

    Shapely's queries and ufuncs and NumPy's ufuncs release the GIL: on two
    cores a big array takes about half the time.  The last part runs on the
    calling thread, the others on threads started for the call.  Parts
    smaller than ``least`` are not worth a thread (one part, then).

    >>> parts = in_parts(np.negative, np.arange(5), least=2)  # as many parts as cores (up to 4)
    >>> np.concatenate([answer for _, answer in parts]).tolist(), parts[0][0]
    ([0, -1, -2, -3, -4], 0)
    """
    n = min(os.cpu_count() or 1, 4, max(len(values) // max(least, 1), 1))
    if n < 2:
        return [(0, func(values))]
    bounds = np.linspace(0, len(values), n + 1).astype(np.int64).tolist()
    parts = [values[a:b] for a, b in pairwise(bounds)]
    # (the last part on this thread: a second thread started while the first holds the GIL waits for it)
    with ThreadPoolExecutor(n - 1) as pool:
        futures = [pool.submit(func, part) for part in parts[:-1]]
        last = func(parts[-1])
        return list(zip(bounds[:-1], [f.result() for f in futures] + [last], strict=True))


def in_threads(func: Callable[[np.ndarray], np.ndarray], values: np.ndarray, *, least: int = 20_000) -> np.ndarray:
    """``func(values)`` for an element-wise ``func``, computed by :func:`in_parts`.

    >>> in_threads(np.negative, np.arange(5), least=2).tolist()
    [0, -1, -2, -3, -4]
    """
    return np.concatenate([answer for _, answer in in_parts(func, values, least=least)])
