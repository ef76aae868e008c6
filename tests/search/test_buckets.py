"""The bucket queue of the searches (eidomap/search/buckets.py): its ring's size and the reuse of popped entries."""

from __future__ import annotations

import pytest

from eidomap.search.buckets import MASK, MAX_RING, USED, has_room, new_queue, pop, push


@pytest.mark.parametrize(("span", "buckets"), [(1, 1), (2, 2), (5, 8), (8, 8), (9, 16), (MAX_RING + 1, MAX_RING)])
def test_the_ring_has_the_least_power_of_two_of_buckets_at_least_span_and_at_most_max_ring(span, buckets):
    """Memory grows with the span asked, never past MAX_RING: a ring of 8 buckets for a span of 5, not 64 Ki."""
    _, queue = new_queue(4, span=span)
    assert queue[MASK] + 1 == buckets and len(queue) == 8 + buckets


def test_a_popped_entry_is_pushed_into_again_so_the_pool_grows_with_what_is_queued_at_once():
    """A search pushes and pops millions of labels: the entry of each label popped (entry 0 as the others) is
    taken by a later push, so the entries ever used are the most queued at once, not the pushes."""
    pool, queue = new_queue(16, span=4)
    for round_ in range(40):
        for item in range(3):
            push(pool, queue, 0, round_, item)
        assert sorted(int(pop(pool, queue)) for _ in range(3)) == [0, 1, 2]
    assert queue[USED] == 3 and has_room(pool, queue, 13)
