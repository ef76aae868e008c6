"""Suggestions for names a user got wrong: the nearest known name.

>>> did_you_mean("forrest", ["forest", "meadow", "sea"])
" (did you mean 'forest'?)"
>>> did_you_mean("castle", ["forest", "meadow", "sea"])
''
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean", "number", "plural", "unique"]

#: Known names compared in full; beyond this many (the ids of a large map), only
#: those sharing the first or the last half of ``name`` are, so that a typo costs
#: no noticeable time.
_COMPARED = 5_000


def did_you_mean(name: object, known: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the known name nearest to ``name``, or ``""`` when none is near.

    Near means :func:`difflib.get_close_matches` with its usual cutoff
    (0.6), letter case aside.

    >>> did_you_mean("R1", ["r1", "r2"])
    " (did you mean 'r1'?)"
    """
    if not isinstance(name, str) or not name:
        return ""
    known = known if isinstance(known, list | tuple) else list(known)
    if len(known) > _COMPARED:
        half = max(1, len(name) // 2)
        head, tail = name[:half], name[-half:]
        known = [k for k in known if k.startswith(head) or k.endswith(tail)][:_COMPARED]
    folded = {k.casefold(): k for k in reversed(known)}  # the first of names equal but for case
    close = difflib.get_close_matches(name.casefold(), folded, n=1)
    return f" (did you mean {folded[close[0]]!r}?)" if close else ""


def unique(names: Iterable[str], taken: Iterable[str] = ()) -> list[str]:
    """Each name, or -- when ``taken`` or an earlier one has it -- the name with the first free ``_2``, ``_3``...

    Linear however many names repeat: each name's next suffix is remembered.

    >>> unique(["a", "b", "a", "a", "a_2"], taken=["b"])
    ['a', 'b_2', 'a_2', 'a_3', 'a_2_2']
    """
    seen = set(taken)
    suffix: dict[str, int] = {}
    out = []
    for name in names:
        fid = name
        if fid in seen:
            k = suffix.get(name, 2)
            while f"{name}_{k}" in seen:
                k += 1
            suffix[name] = k + 1
            fid = f"{name}_{k}"
        seen.add(fid)
        out.append(fid)
    return out


def plural(n: int, word: str) -> str:
    """``"1 step"``, ``"3 steps"``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def number(x: float) -> str:
    """A number as a message shows it: six significant digits, no trailing zeros (``2.5``, ``1e+06``)."""
    return f"{x:.6g}"
