"""What the command line sets for its own process, which it owns (a library call never does: docs/design.md).

glibc hands the top of its heap back to the system as soon as that much is
free, and serves every block of the dynamic mmap threshold or more (128 KiB,
rising with what is freed, up to 32 MiB) by a fresh ``mmap``: a cold route on
a big map builds and drops arrays of tens of megabytes one after another, and
each new one is faulted in page by page again.  Keeping freed memory for the
next array saves those faults.
"""

from __future__ import annotations

import ctypes

__all__ = ["keep_freed_memory"]

#: glibc's ``mallopt`` parameters (malloc.h): M_TRIM_THRESHOLD, M_MMAP_THRESHOLD.
_TRIM_THRESHOLD, _MMAP_THRESHOLD = -1, -3
#: The largest mmap threshold glibc accepts on 64 bits (HEAP_MAX_SIZE / 2).
_MMAP_MAX = 32 * 1024 * 1024


def keep_freed_memory() -> bool:
    """Ask glibc to keep freed heap memory and to serve blocks under 32 MiB from it; False where there is no glibc."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, TypeError):  # no glibc (TypeError: Windows has no CDLL(None))
        return False
    return bool(mallopt(_MMAP_THRESHOLD, _MMAP_MAX)) & bool(mallopt(_TRIM_THRESHOLD, 2**31 - 1))
