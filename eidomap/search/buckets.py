"""Dial's bucket ring: the one queue of every search of this package.

A label-setting search pops its labels in order and every label it makes is
no earlier than the one it came from, so its queue only ever holds keys at or
after the last one popped.  When the keys are small whole numbers that grow
by little at each step (PtMv costs and budgets, squares of a round), Dial's
buckets serve them in constant time: a ring with a bucket for each key value
within ``span`` of the last one popped, scanned forward.

**The ring** is two arrays: ``head``, the first item of each bucket (-1:
empty; a power of two of them, :func:`new_ring`), and ``links``, a row per
item whose first two columns are the next and the previous item of its
bucket (:data:`AFTER`, :data:`BEFORE`; -1: none).  An item is any whole
number the caller indexes its own arrays with -- a node, a square, a label,
an entry of the queue below -- and sits on at most one bucket.  The ring
holds keys from ``k`` to ``k + len(head) - 1``, ``k`` the least key queued;
bucket ``key & (len(head) - 1)`` holds key ``key``.  :func:`link` puts an item
at the head of its key's bucket, :func:`unlink` takes it out in constant time
(a search that finds a cheaper key for an item queued moves it: no stale
entries), :func:`least_key` finds the least key queued from a key at or before
it, and :func:`take` pops the head of that key's bucket.  Each bucket lists
its items newest first, so of equal keys the one queued last is popped first.

**The queue** (:func:`new_queue`, :func:`push`, :func:`pop`) is that ring
with room for any key: a key is two words ``(major, minor)``, compared major
first; the ring holds the keys of the last key's major within its reach, by
their minor word, and a key past it (a debt paid over many turns) waits in a
binary heap until the ring reaches it, so memory and time grow with the labels
queued, never with the numbers in their keys.  A search whose keys are small
whole numbers puts them in the minor word (``major = 0``); one whose keys are
not (non-integer PtMv: :func:`eidomap.search.turns.earliest_labels`) asks a
ring of one bucket, which leaves every key but the last one's to the heap: a
comparison queue, exact for any keys of two words (the heap gives equal keys
in no particular order).  Its entries live in a pool, a row each, whose first
two columns are the ring's links; an entry is never moved, so a search pushes
an item again when its key falls and skips the entries left behind.

Plain functions over arrays, so that :mod:`eidomap.base.compiled` compiles
them inside the searches that call them (``JIT_HELPERS``).  Two habits keep
the compiled calls as fast as the list operations written out in the search
(which the searches did before: a third slower without them, measured on
:func:`eidomap.search.dial.dial_labels`):

* each function uses each array it is given once more after its branches
  (``links[item, AFTER] = NONE`` ...): numba drops the reference counting of
  an array argument only when its last use is not inside a branch, and a
  count left in a search's inner loop is an atomic operation each step;
* the pool is made to grow before pushes, where :func:`has_room` says so
  (:func:`grow`), not by :func:`push`: an array handed back by every push
  costs the compiled searches a tenth of their time.

>>> head, links = new_ring(4, 3)
>>> for item, key in ((0, 5), (1, 3), (2, 3)):
...     link(head, links, item, key)
>>> k = least_key(head, 3)
>>> k, int(take(head, links, k)), int(take(head, links, least_key(head, k)))  # newest first among equal keys
(3, 2, 1)
>>> pool, queue, head = new_queue(2, span=8)
>>> for key, item in ((5, 50), (3, 30), (900_000, 9), (3, 31)):
...     if not has_room(pool, queue, 1):
...         pool = grow(pool, queue, 1)
...     push(pool, queue, head, 0, key, item)
>>> [int(pop(pool, queue, head)) for _ in range(4)], int(queue[LAST_MINOR])
([31, 30, 50, 9], 900000)
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The columns of an item's links: the next item of its bucket, the one before it.
AFTER, BEFORE = 0, 1
#: No item: an empty bucket, the end of a bucket's list.
NONE = -1
#: Most buckets of the queue's ring (512 KiB), whatever span is asked; the searches keep to it too.
MAX_RING = 1 << 16


def ring_size(span: int) -> int:
    """The buckets of a ring that holds ``span`` consecutive keys: the least power of two not below ``span``."""
    ring = 1
    while ring < span:
        ring *= 2
    return ring


def new_ring(span: int, items: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty ring ``(head, links)`` of :func:`ring_size` ``(span)`` buckets over items 0 to ``items - 1``
    (``int32``: the caller's ``links`` may be any integer rows whose first columns are :data:`AFTER` and
    :data:`BEFORE`)."""
    return np.full(ring_size(span), NONE, np.int32), np.empty((items, 2), np.int32)


def link(head: np.ndarray, links: np.ndarray, item: int, key: int) -> None:
    """``item`` at the head of the bucket of ``key`` (``item`` on no bucket, ``key`` within the ring's reach)."""
    b = key & (len(head) - 1)
    h = head[b]
    if h >= 0:
        links[h, BEFORE] = item
    links[item, AFTER] = h
    links[item, BEFORE] = NONE
    head[b] = item


def unlink(head: np.ndarray, links: np.ndarray, item: int, key: int) -> None:
    """``item`` out of the bucket of ``key``, where it is, the order of the others kept."""
    before, after = links[item, BEFORE], links[item, AFTER]
    if after >= 0:
        links[after, BEFORE] = before
    if before >= 0:
        links[before, AFTER] = after
    b = key & (len(head) - 1)
    head[b] = after if before < 0 else head[b]  # (the bucket's head written either way: see the module docstring)
    links[item, AFTER] = NONE


def least_key(head: np.ndarray, key: int) -> int:
    """The least key at or after ``key`` whose bucket holds an item: the least key queued, ``key`` at or before
    it (the ring must hold an item)."""
    mask = len(head) - 1
    while head[key & mask] < 0:
        key += 1
    return key


def take(head: np.ndarray, links: np.ndarray, key: int) -> int:
    """The item at the head of the bucket of ``key`` (one that holds an item), taken out of it."""
    b = key & (len(head) - 1)
    item = head[b]
    after = links[item, AFTER]
    if after >= 0:
        links[after, BEFORE] = NONE
    links[item, AFTER] = NONE
    head[b] = after
    return item


#: Columns of the queue's pool of entries: the ring's links, the key's two words, the item; and, in row ``i``,
#: the entry at place ``i`` of the heap.
MAJOR, MINOR, ITEM, HEAP = 2, 3, 4, 5
_COLUMNS = 6
#: Fields of the queue's array: the last key popped; the entries queued, in the ring, in the heap; the first
#: free entry (-1: none, the next ones linked through :data:`AFTER`), the entries ever used.
LAST_MAJOR, LAST_MINOR, SIZE, IN_RING, IN_HEAP, FREE, USED = 0, 1, 2, 3, 4, 5, 6
_FIELDS = 7


def new_queue(capacity: int, span: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty queue ``(pool, queue, head)``: a ring of ``span`` buckets or more (at most :data:`MAX_RING`),
    and room for ``capacity`` entries (:func:`grow` makes more)."""
    pool = np.empty((max(capacity, 16), _COLUMNS), np.int64)
    queue = np.zeros(_FIELDS, np.int64)
    queue[FREE] = NONE
    return pool, queue, np.full(ring_size(min(span, MAX_RING)), NONE, np.int64)


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


def _ring_add(pool: np.ndarray, queue: np.ndarray, head: np.ndarray, x: int) -> None:
    """Entry ``x`` on the ring."""
    link(head, pool, x, pool[x, MINOR])
    queue[IN_RING] += 1


def push(pool: np.ndarray, queue: np.ndarray, head: np.ndarray, major: int, minor: int, item: int) -> None:
    """Queue ``item`` under the key ``(major, minor)``, no earlier than the last key popped (the pool must have
    room: :func:`has_room`)."""
    x = queue[FREE]
    if x >= 0:
        queue[FREE] = pool[x, AFTER]
    else:
        x = queue[USED]
        queue[USED] = x + 1
    pool[x, MAJOR] = major
    pool[x, MINOR] = minor
    pool[x, ITEM] = item
    queue[SIZE] += 1
    if major == queue[LAST_MAJOR] and minor - queue[LAST_MINOR] < len(head):
        _ring_add(pool, queue, head, x)
    else:
        _heap_add(pool, queue, x)


def pop(pool: np.ndarray, queue: np.ndarray, head: np.ndarray) -> int:
    """The item of the least key queued, taken off the queue; its key is then ``queue[LAST_MAJOR],
    queue[LAST_MINOR]``.  The queue must not be empty (``queue[SIZE] > 0``)."""
    if queue[IN_RING] == 0:  # the heap's first key opens the ring
        x = _heap_take(pool, queue)
        queue[LAST_MAJOR] = pool[x, MAJOR]
        queue[LAST_MINOR] = pool[x, MINOR]
        _ring_add(pool, queue, head, x)
    k = least_key(head, queue[LAST_MINOR])
    x = take(head, pool, k)
    pool[x, AFTER] = queue[FREE]
    queue[FREE] = x
    queue[LAST_MINOR] = k
    queue[SIZE] -= 1
    queue[IN_RING] -= 1
    # the heap's keys now within the ring's reach join it, so that the ring holds every key it can
    while queue[IN_HEAP] > 0:
        y = pool[0, HEAP]
        if pool[y, MAJOR] != queue[LAST_MAJOR] or pool[y, MINOR] - k >= len(head):
            break
        _ring_add(pool, queue, head, _heap_take(pool, queue))
    return pool[x, ITEM]


def wide(x: Any) -> int:
    """``x``, an entry of an array of any integers, as an ``int64``.  A search reads its items, labels and nodes so:
    numba compiles a helper again for each mix of integer widths in its arguments (the battle grid's route
    compiled its label helpers three or four times each, 5 s in all)."""
    return np.int64(x)  # type: ignore[return-value]


def double_bits(x: float) -> int:
    """The bit pattern of the double ``x`` (0 or more) as a whole number in the doubles' order: a key word of the
    queue for a search whose keys are not whole numbers.  (A scalar's view: an array's view compiles ten times
    as long.)"""
    return np.float64(x).view(np.int64)  # type: ignore[return-value]


def bits_double(bits: int) -> float:
    """The double whose bit pattern is ``bits``: :func:`double_bits` undone."""
    return np.int64(bits).view(np.float64)


#: What a search that uses the ring or the queue calls of it (:func:`eidomap.base.compiled.compiled` registers
#: them).
JIT_HELPERS = (ring_size, new_ring, link, unlink, least_key, take, new_queue, has_room, grow, _earlier, _heap_add,
               _heap_take, _ring_add, push, pop, double_bits, bits_double, wide)
