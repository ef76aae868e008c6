"""Decoding alongside reading: each item a file gives, decoded on a second thread while the next is read.

GDAL's Arrow stream and Parquet's batches are read in C with the GIL released,
and so are most of a batch's decoding (the compiled WKB walk, Arrow's
dictionary encoding), so a table reader that decodes batch ``k`` while batch
``k + 1`` is read keeps both cores busy (a 100,000-Eido FlatGeobuf: 79 -> 45 ms
for the read and decode of its rows); once the file is read, the caller's
thread decodes what is left beside the helper.  The reading stays on the
caller's thread: GDAL reports its errors to the thread that installed
pyogrio's error handler, and a dataset is used by the thread that opened it.

>>> decoded_alongside(lambda x: x * x, iter(range(5)))
[0, 1, 4, 9, 16]
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def decoded_alongside(decode: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``[decode(item) for item in items]``, each ``decode`` run on a helper thread while this thread takes the
    next item; once there are no more, this thread decodes those still waiting too.

    An error of ``decode`` is raised here as soon as it is seen (the items
    not yet taken are left untaken, those not yet decoded undecoded); an
    error of ``items`` stops the decoding.

    >>> def halve(x):
    ...     if x % 2:
    ...         raise ValueError(f"odd: {x}")
    ...     return x // 2
    >>> decoded_alongside(halve, [4, 3, 2])
    Traceback (most recent call last):
    ...
    ValueError: odd: 3
    """
    waiting: queue.SimpleQueue[tuple[int, T] | None] = queue.SimpleQueue()
    done: dict[int, R] = {}
    failed: list[BaseException] = []
    stop = threading.Event()

    def run(task: tuple[int, T]) -> None:
        if stop.is_set():
            return
        try:
            done[task[0]] = decode(task[1])
        except BaseException as exc:  # (raised on the caller's thread)
            failed.append(exc)
            stop.set()

    def helper() -> None:
        while (task := waiting.get()) is not None:
            run(task)

    thread = threading.Thread(target=helper, name="eidomap-decode")
    thread.start()
    count = 0
    try:
        for item in items:
            waiting.put((count, item))
            count += 1
            if failed:
                raise failed[0]
        while not stop.is_set():  # (the file read: this thread takes its share of what waits)
            try:
                task = waiting.get_nowait()
            except queue.Empty:
                break
            if task is None:
                break
            run(task)
    except BaseException:
        stop.set()
        raise
    finally:
        waiting.put(None)
        thread.join()
    if failed:
        raise failed[0]
    return [done[k] for k in range(count)]
