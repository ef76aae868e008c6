"""Python's cyclic garbage collector paused for a bulk build, when the caller asks (``pause_gc=True``).

Reading a map makes a Shapely polygon per Eido, and the collector tracks
each: while they pile up, every full collection walks them all again (6 to 9 %
of reading a 100,000-Eido map, measured in CPU time; they hold no cycles).
Pausing it is process-wide -- every thread's allocations and the host
program's are affected while it lasts -- so a library call never does it
unasked: the command line, which owns its process, asks.  Nested and
concurrent pauses (threads) count: the collector is enabled again when the
last one ends, if it was enabled when the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

_LOCK = threading.Lock()
_PAUSES = 0
_WAS_ENABLED = False


@contextmanager
def _paused() -> Iterator[None]:
    global _PAUSES, _WAS_ENABLED
    with _LOCK:
        if _PAUSES == 0:
            _WAS_ENABLED = gc.isenabled()
            gc.disable()
        _PAUSES += 1
    try:
        yield
    finally:
        with _LOCK:
            _PAUSES -= 1
            if _PAUSES == 0 and _WAS_ENABLED:
                gc.enable()


def paused_gc(pause: bool) -> AbstractContextManager[None]:
    """The collector paused for the ``with`` block if ``pause``; else nothing happens.

    >>> with paused_gc(True):
    ...     gc.isenabled()
    False
    """
    return _paused() if pause else nullcontext()
