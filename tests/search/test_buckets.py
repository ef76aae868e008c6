"""Dial's bucket ring (:mod:`eidomap.search.buckets`), the one queue of every search, against a plain model.

Both twins of each function (plain Python and numba): the ring pops the least key queued and, of equal keys,
the item queued last; an item taken out of its bucket leaves the others in their order.  The queue with room for
any key pops its keys in order, those past the ring's reach included.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eidomap.base.compiled import compiled
from eidomap.search import buckets
from eidomap.search.buckets import MAX_RING

SETTINGS = settings(max_examples=80, deadline=None)


def _twins(jit: bool, *fns):
    return [compiled(f) if jit else f for f in fns]


@SETTINGS
@given(span=st.integers(1, 9), items=st.integers(1, 12), data=st.data(), jit=st.booleans())
def test_the_ring_pops_the_least_key_and_of_equal_keys_the_newest(span, items, data, jit):
    link, unlink, least_key, take = _twins(jit, buckets.link, buckets.unlink, buckets.least_key, buckets.take)
    head, links = buckets.new_ring(span, items)
    assert len(head) >= span and len(head) & (len(head) - 1) == 0
    queued: dict[int, tuple[int, int]] = {}  # item -> (key, when it was queued)
    last = 0  # the last key popped: the ring reaches from it to last + len(head) - 1
    for when in range(data.draw(st.integers(0, 60))):
        free = [i for i in range(items) if i not in queued]
        op = data.draw(st.sampled_from(["link"] * bool(free) + ["unlink", "pop"] * bool(queued)))
        if op == "link":
            item, key = data.draw(st.sampled_from(free)), data.draw(st.integers(last, last + len(head) - 1))
            link(head, links, item, key)
            queued[item] = key, when
        elif op == "unlink":
            item = data.draw(st.sampled_from(sorted(queued)))
            unlink(head, links, item, queued.pop(item)[0])
        else:
            want = max(queued, key=lambda i: (-queued[i][0], queued[i][1]))
            assert (head >= 0).any()  # (else least_key would scan for ever)
            last = least_key(head, last)
            assert (last, int(take(head, links, last))) == (queued.pop(want)[0], want)
    assert (head < 0).all() == (not queued)


@SETTINGS
@given(span=st.integers(1, 40), data=st.data(), jit=st.booleans())
def test_the_queue_pops_every_key_in_order_those_past_the_ring_too(span, data, jit):
    """Keys of two words, a jump of up to a million in the minor word (past any ring: the heap keeps them), from a
    pool of two rows that grows."""
    push, pop, grow, has_room = _twins(jit, buckets.push, buckets.pop, buckets.grow, buckets.has_room)
    pool, queue, head = buckets.new_queue(2, span)
    queued: list[tuple[int, int, int]] = []
    last = (0, 0)
    for item in range(data.draw(st.integers(0, 80))):
        if queued and data.draw(st.booleans()):
            got = int(pop(pool, queue, head))
            last = int(queue[buckets.LAST_MAJOR]), int(queue[buckets.LAST_MINOR])
            assert last == min(k[:2] for k in queued)
            queued.remove((*last, got))
            continue
        major = last[0] + data.draw(st.sampled_from([0, 0, 0, 1, 3]))
        low = last[1] if major == last[0] else 0
        minor = low + data.draw(st.sampled_from([0, 1, 2, span, 1_000_000]))
        if not has_room(pool, queue, 1):
            pool = grow(pool, queue, 1)
        push(pool, queue, head, major, minor, item)
        queued.append((major, minor, item))
    assert int(queue[buckets.SIZE]) == len(queued)


@pytest.mark.parametrize(("span", "size"), [(1, 1), (2, 2), (5, 8), (8, 8), (9, 16), (MAX_RING + 1, MAX_RING)])
def test_the_ring_has_the_least_power_of_two_of_buckets_at_least_span_and_at_most_max_ring(span, size):
    """Memory grows with the span asked, never past MAX_RING: a ring of 8 buckets for a span of 5, not 64 Ki."""
    _, _, head = buckets.new_queue(4, span=span)
    assert len(head) == size


def test_a_popped_entry_is_pushed_into_again_so_the_pool_grows_with_what_is_queued_at_once():
    """A search pushes and pops millions of labels: the entry of each label popped (entry 0 as the others) is
    taken by a later push, so the entries ever used are the most queued at once, not the pushes."""
    pool, queue, head = buckets.new_queue(16, span=4)
    for round_ in range(40):
        for item in range(3):
            buckets.push(pool, queue, head, 0, round_, item)
        assert sorted(int(buckets.pop(pool, queue, head)) for _ in range(3)) == [0, 1, 2]
    assert queue[buckets.USED] == 3 and buckets.has_room(pool, queue, 13)
