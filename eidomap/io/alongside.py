"""Decoding alongside reading: each item a file gives, decoded on a second thread while the next is read.

GDAL's Arrow stream and Parquet's batches are read in C with the GIL released,
and so are most of a batch's decoding (the compiled WKB walk, Arrow's
dictionary encoding), so a table reader that decodes batch ``k`` while batch
``k + 1`` is read keeps both cores busy (a 100,000-Eido FlatGeobuf: 79 -> 45 ms
for the read and decode of its rows).  The reading stays on the caller's
thread: GDAL reports its errors to the thread that installed pyogrio's error
handler, and a dataset is used by the thread that opened it.

>>> decoded_alongside(lambda x: x * x, iter(range(5)))
[0, 1, 4, 9, 16]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

__all__ = ["decoded_alongside"]

T = TypeVar("T")
R = TypeVar("R")


def decoded_alongside(decode: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``[decode(item) for item in items]``, each ``decode`` run on a second thread (in turn, in order) while this
    thread takes the next item.

    An error of ``decode`` is raised here as soon as it is seen (the items
    not yet taken are left untaken); an error of ``items`` stops the decoding
    of the items after it.

    >>> def halve(x):
    ...     if x % 2:
    ...         raise ValueError(f"odd: {x}")
    ...     return x // 2
    >>> decoded_alongside(halve, [4, 3, 2])
    Traceback (most recent call last):
    ...
    ValueError: odd: 3
    """
    done: list[Future[R]] = []
    with ThreadPoolExecutor(1, thread_name_prefix="eidomap-decode") as pool:
        try:
            for item in items:
                done.append(pool.submit(decode, item))
                _raise_first(done)
            return [f.result() for f in done]
        finally:
            for f in done:
                f.cancel()


def _raise_first(futures: list[Future]) -> None:
    """Raise the error of the first decoding that failed, if any has finished failing."""
    for f in futures:
        if not f.done():
            return
        if f.exception() is not None:
            f.result()
