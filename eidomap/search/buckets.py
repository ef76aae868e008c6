"""The bucket queue of the searches: whole-number keys that never go below the last one popped.

A label-setting search pops its labels in order and every label it makes is
no earlier than the one it came from, so its queue only ever holds keys at or
after the last one popped.  When the keys are small whole numbers that grow
by little at each step (PtMv costs and budgets, squares of a round), Dial's
buckets serve them in constant time: a ring with a bucket for each key value
within ``span`` of the last one popped, scanned forward.  A key past the ring
(a debt paid over many turns) waits in a binary heap until the ring reaches
it, so memory and time grow with the labels queued, never with the numbers
in their keys.

A key is two words ``(major, minor)``, compared major first; the ring holds
the keys of the last key's major, by their minor word.  A search whose keys
are small whole numbers puts them in the minor word (``major = 0``); one
whose keys are not (non-integer PtMv: :func:`eidomap.search.turns.earliest_labels`)
asks a ring of one bucket, which leaves every key but the last one's to the
heap: a comparison queue, exact for any keys of two words.  In the ring each
bucket lists its entries newest first, so of equal keys the newest is popped
first, as from Dial's ring of linked lists; the heap gives equal keys in no
particular order.

Plain functions over two arrays (the pool of entries and the queue's fields
and buckets), so that :mod:`eidomap.base.compiled` compiles them with the
searches that call them.  The pool is made to grow before pushes, where
:func:`has_room` says so (:func:`grow`), not by :func:`push`: an array handed
back by every push costs the compiled searches a tenth of their time.

>>> pool, queue = new_queue(2, span=8)
>>> for key, item in ((5, 50), (3, 30), (900_000, 9), (3, 31)):
...     if not has_room(pool, queue, 1):
...         pool = grow(pool, queue, 1)
...     push(pool, queue, 0, key, item)
>>> [int(pop(pool, queue)) for _ in range(4)], int(queue[LAST_MINOR])
([31, 30, 50, 9], 900000)
"""

from __future__ import annotations

import numpy as np

#: Columns of the pool of entries: the key's two words, the item, the next entry of its ring bucket (-1: none);
#: and, in row ``i``, the entry at place ``i`` of the heap.
MAJOR, MINOR, ITEM, NEXT, HEAP = 0, 1, 2, 3, 4
_COLUMNS = 5
#: Fields of a queue array: the last key popped; the entries queued, in the ring, in the heap; the first free
#: entry (-1: none), the entries ever used; the ring's size less one.  The ring's buckets follow (-1: empty).
LAST_MAJOR, LAST_MINOR, SIZE, IN_RING, IN_HEAP, FREE, USED, MASK = 0, 1, 2, 3, 4, 5, 6, 7
_RING = 8
#: Most buckets of a ring (512 KiB), whatever span is asked.
MAX_RING = 1 << 16


def new_queue(capacity: int, span: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """An empty queue ``(pool, queue)``: a ring of ``span`` buckets or more (a power of two, at most
    :data:`MAX_RING`) and room for ``capacity`` entries (:func:`grow` makes more)."""
    ring = 1
    while ring < span and ring < MAX_RING:
        ring *= 2
    pool = np.empty((max(capacity, 16), _COLUMNS), np.int64)
    queue = np.full(_RING + ring, -1, np.int64)
    queue[:_RING] = 0
    queue[FREE] = -1
    queue[MASK] = ring - 1
    return pool, queue


def has_room(pool: np.ndarray, queue: np.ndarray, more: int) -> bool:
    """Whether ``more`` entries can be pushed without :func:`grow`."""
    return queue[USED] + more <= len(pool)


def grow(pool: np.ndarray, queue: np.ndarray, more: int) -> np.ndarray:
    """A larger copy of the pool, with room for ``more`` entries (twice as large, at least)."""
    used = queue[USED]
    room = max(2 * len(pool), used + more) - used  # (joined, no slice assigned: see eidomap.base.compiled)
    return np.concatenate((pool[:used], np.empty((room, _COLUMNS), np.int64)))


def _earlier(pool: np.ndarray, a: int, b: int) -> bool:
    """Entry ``a``'s key is before entry ``b``'s."""
    return pool[a, MAJOR] < pool[b, MAJOR] or (pool[a, MAJOR] == pool[b, MAJOR] and pool[a, MINOR] < pool[b, MINOR])


def _heap_add(pool: np.ndarray, queue: np.ndarray, x: int) -> None:
    """Entry ``x`` into the heap (sifted up)."""
    i = queue[IN_HEAP]
    queue[IN_HEAP] = i + 1
    while i > 0:
        parent = (i - 1) // 2
        y = pool[parent, HEAP]
        if not _earlier(pool, x, y):
            break
        pool[i, HEAP] = y
        i = parent
    pool[i, HEAP] = x


def _heap_take(pool: np.ndarray, queue: np.ndarray) -> int:
    """The heap's first entry, taken off it (the last one sifted down from the top)."""
    top = pool[0, HEAP]
    n = queue[IN_HEAP] - 1
    queue[IN_HEAP] = n
    x = pool[n, HEAP]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and _earlier(pool, pool[child + 1, HEAP], pool[child, HEAP]):
            child += 1
        y = pool[child, HEAP]
        if not _earlier(pool, y, x):
            break
        pool[i, HEAP] = y
        i = child
    pool[i, HEAP] = x
    return top


def _ring_add(pool: np.ndarray, queue: np.ndarray, x: int) -> None:
    """Entry ``x`` at the head of its ring bucket."""
    b = _RING + (pool[x, MINOR] & queue[MASK])
    pool[x, NEXT] = queue[b]
    queue[b] = x
    queue[IN_RING] += 1


def push(pool: np.ndarray, queue: np.ndarray, major: int, minor: int, item: int) -> None:
    """Queue ``item`` under the key ``(major, minor)``, no earlier than the last key popped (the pool must have
    room: :func:`has_room`)."""
    x = queue[FREE]
    if x >= 0:
        queue[FREE] = pool[x, NEXT]
    else:
        x = queue[USED]
        queue[USED] = x + 1
    pool[x, MAJOR] = major
    pool[x, MINOR] = minor
    pool[x, ITEM] = item
    queue[SIZE] += 1
    if major == queue[LAST_MAJOR] and minor - queue[LAST_MINOR] <= queue[MASK]:
        _ring_add(pool, queue, x)
    else:
        _heap_add(pool, queue, x)


def pop(pool: np.ndarray, queue: np.ndarray) -> int:
    """The item of the least key queued, taken off the queue; its key is then ``queue[LAST_MAJOR],
    queue[LAST_MINOR]``.  The queue must not be empty (``queue[SIZE] > 0``)."""
    mask = queue[MASK]
    if queue[IN_RING] == 0:  # the heap's first key opens the ring
        x = _heap_take(pool, queue)
        queue[LAST_MAJOR] = pool[x, MAJOR]
        queue[LAST_MINOR] = pool[x, MINOR]
        _ring_add(pool, queue, x)
    k = queue[LAST_MINOR]
    while queue[_RING + (k & mask)] < 0:
        k += 1
    b = _RING + (k & mask)
    x = queue[b]
    queue[b] = pool[x, NEXT]
    pool[x, NEXT] = queue[FREE]
    queue[FREE] = x
    queue[LAST_MINOR] = k
    queue[SIZE] -= 1
    queue[IN_RING] -= 1
    # the heap's keys now within the ring's reach join it, so that the ring holds every key it can
    while queue[IN_HEAP] > 0:
        y = pool[0, HEAP]
        if pool[y, MAJOR] != queue[LAST_MAJOR] or pool[y, MINOR] - k > mask:
            break
        _ring_add(pool, queue, _heap_take(pool, queue))
    return pool[x, ITEM]


#: What a search that uses the queue calls of it (:func:`eidomap.base.compiled.compiled` registers them).
JIT_HELPERS = (new_queue, has_room, grow, _earlier, _heap_add, _heap_take, _ring_add, push, pop)
