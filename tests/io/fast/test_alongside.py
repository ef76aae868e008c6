"""Decoding alongside reading: the answers in order, a decoding error raised as soon as it is seen, a reading
error stopping the decoding, no thread left behind."""

from __future__ import annotations

import threading

import pytest

from eidomap.io.fast.alongside import decoded_alongside


def test_the_answers_come_in_the_items_order():
    assert decoded_alongside(str, iter(range(200))) == [str(k) for k in range(200)]
    assert decoded_alongside(str, []) == []


def test_a_decoding_error_stops_the_reading_when_it_is_seen():
    """The reading goes on no further than the item being read when the failure is seen: a damaged batch does
    not cost the rest of the file."""
    failed = threading.Event()
    taken = []

    def decode(x):
        if x == 2:
            failed.set()
            raise ValueError("batch 2 is damaged")
        return x

    def items():
        for k in range(1_000):
            taken.append(k)
            if k > 2:
                failed.wait(5)  # (the next item is asked for once the failure is there to be seen)
            yield k

    with pytest.raises(ValueError, match="batch 2 is damaged"):
        decoded_alongside(decode, items())
    assert len(taken) <= 5


def test_a_reading_error_is_raised_and_no_thread_is_left():
    before = threading.active_count()

    def items():
        yield from range(3)
        raise OSError("cut short")

    with pytest.raises(OSError, match="cut short"):
        decoded_alongside(str, items())
    assert threading.active_count() == before
