"""Small vectorised helpers shared by the array code."""

from __future__ import annotations

import numpy as np

__all__ = ["group_ranks", "join"]


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
