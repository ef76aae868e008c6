"""Suggestions for names a user got wrong: the nearest known name.

>>> did_you_mean("forrest", ["forest", "meadow", "sea"])
" (did you mean 'forest'?)"
>>> did_you_mean("castle", ["forest", "meadow", "sea"])
''
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable

#: Known names compared in full; beyond this many (the ids of a large map), only
#: those sharing the first or the last half of ``name`` are, so that a typo costs
#: no noticeable time.
_COMPARED = 5_000


#: Every control character (C0, DEL, C1), line or paragraph separator and lone surrogate (no encoding
#: writes one), as ``repr`` writes it (a tab stays): among them all that :meth:`str.splitlines` ends a line
#: on (``\n``, ``\x85``, ``\u2028``...).
_ESCAPES = {c: repr(chr(c))[1:-1] for c in [*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0xD800, 0xE000)]
            if c != 0x09}
#: A feature's place among the file's features (``#12``): how a feature without an id is named.
_INDEX = re.compile(r"#[0-9]+")


def shown(text: object, *, quoted: bool = False) -> str:
    r"""Text read from a file or an argument (an id, a name, a label, a path) as a message writes it: it can
    neither break a line nor begin a command of the program reading the output (a CI runner's ``::error::``).

    Plain text is written as it is (``maps/demo.geojson``, ``porto-norte``, ``#12``): printable, no space
    at either end, and beginning with a letter, a digit or one of ``./\_<`` (or a feature's place,
    ``#12``): not ``::`` (GitHub), ``##`` (Azure, TeamCity) nor ``~~~`` (Buildkite), which CI runners read as
    commands.  Other text is quoted as :func:`repr` quotes a string: its line breaks, control characters
    and anything unprintable escaped.

    Parameters
    ----------
    text : str, os.PathLike or object
        The text (a path as :func:`os.fspath` spells it, anything else as ``str``).
    quoted : bool, default False
        Quote it even when it is plain (as ``!r`` quotes an id).

    Returns
    -------
    str
        The text to put in the message.

    Examples
    --------
    >>> print(shown("porto-norte"), shown("porto-norte", quoted=True), shown("::x"), shown(" x"))
    porto-norte 'porto-norte' '::x' ' x'
    >>> print(shown("a\n::error::x"))
    'a\n::error::x'
    """
    s = os.fspath(text) if isinstance(text, os.PathLike) else text
    s = os.fsdecode(s) if isinstance(s, bytes) else str(s)
    if not quoted and s.isprintable() and s and not s[-1].isspace() and (s[0].isalnum() or s[0] in "./\\_<"
                                                                         or _INDEX.fullmatch(s)):
        return s
    return repr(s)


def one_line(text: str) -> str:
    r"""``text`` (a message) with its line breaks and control characters written as ``repr`` writes them
    (``\n``, ``\u2028``...): whatever it quotes, a message is one line.

    >>> print(one_line("a\u2028b\nc"))
    a\u2028b\nc
    """
    return text.translate(_ESCAPES)


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
