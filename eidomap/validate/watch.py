"""Watching a map file: each save of it, and which problems a save brought or fixed.

Editors save in two ways: QGIS, Inkscape and most others write a new file and
rename it over the old one (a new inode), some write the file in place (a new
size or modification time).  :func:`saves` polls the file's status for either,
with no dependency and no thread, and waits until it holds still for one
interval, so that a save being written is not read half-way.

>>> from eidomap.base.problems import Problem
>>> a = Problem("gap", "error", ("A", "B"), (0.0, 0.0), "A gap of area 2.")
>>> b = Problem("overlap", "error", ("A", "C"), (1.0, 0.0), "A and C overlap.")
>>> new, fixed = changes([a], [a, b])
>>> [p.code for p in new], fixed
(['overlap'], [])
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterator, Sequence

from eidomap.base.problems import Problem

#: Seconds between two looks at the file.
INTERVAL = 0.25

#: What a save changes in a file's status (None: the file is not there; one number: why it cannot be looked at).
Stamp = tuple[int, ...] | None


def stamp(path: str | os.PathLike) -> Stamp:
    """The file's device, inode, size, modification and change times (ns); None while it is missing.

    A path that cannot be looked at (a symbolic link to itself, a folder on the way that is a file, one that
    may not be read) has the error's number for its stamp: a change that is read as a save, so that the
    reading says what is wrong, as it says it of a folder or a FIFO, and the watch goes on.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return (-(exc.errno or 0),)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def saves(path: str | os.PathLike, since: Stamp, interval: float = INTERVAL) -> Iterator[Stamp]:
    """Wait for each save of ``path``: yield the file's new :func:`stamp` once it has held for ``interval``.

    ``since`` is the stamp of the version already seen.  A file that is
    missing for a while (an editor that deletes, then writes) is waited for.
    The generator never ends: the caller stops it (Ctrl-C).
    """
    seen = last = since
    while True:
        time.sleep(interval)
        now = stamp(path)
        if now != seen:  # still being written, or just saved: look again after one more interval
            seen = now
        elif now is not None and now != last:
            last = now
            yield now


def _keys(problems: Sequence[Problem]) -> list[tuple]:
    """A problem's identity across saves: its code and features (and which of those it is), not its numbers."""
    count: Counter = Counter()
    out = []
    for p in problems:
        key = (p.code, p.features)
        out.append((*key, count[key]))
        count[key] += 1
    return out


def changes(before: Sequence[Problem], after: Sequence[Problem]) -> tuple[list[Problem], list[Problem]]:
    """The problems of ``after`` that ``before`` did not have (new), and those of ``before`` gone (fixed).

    A problem is the same across two versions of a map when its code and the
    features it names are: an overlap whose area changed is still the same
    overlap.  Problems that follow from another (``caused_by``) are left out,
    as the text output leaves them out.
    """
    before = [p for p in before if p.caused_by is None]
    after = [p for p in after if p.caused_by is None]
    old, now = set(_keys(before)), set(_keys(after))
    return ([p for p, k in zip(after, _keys(after), strict=True) if k not in old],
            [p for p, k in zip(before, _keys(before), strict=True) if k not in now])
