"""A caller's parameters, checked once where they come in: one rule for each kind of value.

Each public function checks what it is given with these helpers before it does any work, and passes the
checked value (a plain Python ``int``, ``float``, ``str``, ``tuple``...) on; nothing below checks it again.
A value of the wrong type or out of range is a :class:`~eidomap.base.errors.RequestError` whose first word is the
parameter (``param``), so the command line writes its flag in its place (:func:`eidomap.cli.flags`):

- a **whole number** is a Python or NumPy integer, never a ``bool`` or a ``float`` (``3.0`` is refused as
  ``True`` is: :func:`whole`, :func:`wholes`);
- a **number** is a finite real (a whole number, a ``float``, a :class:`~fractions.Fraction`, a NumPy
  number), never a ``bool`` (:func:`real`);
- **text** is a ``str`` (:func:`text`); a **list of names** is an iterable of ``str`` that is not itself a
  ``str`` (``party="cow"`` is not the party ``["c", "o", "w"]``: :func:`names`);
- a **file** is a ``str`` or an :class:`os.PathLike` naming one, never ``bytes`` (:func:`path`);
- a **square** of a battle grid is two whole numbers, ``(row, column)`` (:func:`square`, :func:`squares`);
- a **switch** is a ``bool`` (:func:`flag`); one of a few words: :func:`one_of` (the modes,
  :meth:`eidomap.base.modes.Mode.checked`, use it); an object of a given class: :func:`instance`.

>>> whole(np.int64(5), "max_turns", 1, 10_000), real(7, "spacing", above=0), names(("cow",), "party")
(5, 7.0, ('cow',))
>>> whole(3.0, "turns", 1, 10)
Traceback (most recent call last):
...
eidomap.base.errors.RequestError: turns must be a whole number from 1 to 10, got 3.0
>>> names("cow", "party", "species names")
Traceback (most recent call last):
...
eidomap.base.errors.RequestError: party must be a list of species names (not one str), got 'cow'
"""

from __future__ import annotations

import math
import numbers
import os
import re
import reprlib
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any, TypeGuard, TypeVar

import numpy as np
import shapely

from eidomap.base.errors import RequestError

T = TypeVar("T")

#: How much of a wrong value a message shows: a few items of a list, the start of a long text.
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict, _REPR.maxset = 2, 6, 6, 4, 4
_REPR.maxstring = _REPR.maxother = 60


def shown(value: object) -> str:
    """``value`` as a message shows it: its ``repr``, cut short (a list of a million rolls shows six) and on one
    line (a line break written ``\\n``).

    >>> shown(list(range(100)))
    '[0, 1, 2, 3, 4, 5, ...]'
    """
    return _REPR.repr(value).replace("\r", "\\r").replace("\n", "\\n")


def refused(param: str, what: str, value: object) -> RequestError:
    """The error for ``value``, passed as ``param``, which is not ``what`` it must be (for a check of one's own).

    >>> refused("ax_or_fig", "an Axes or a Figure", None)
    RequestError('ax_or_fig must be an Axes or a Figure, got None')
    """
    return RequestError(f"{param} must be {what}, got {shown(value)}", param=param)


# A number a person types is written with the digits 0-9 (and ASCII blanks around it): a digit of another script
# (Arabic-Indic, Devanagari, full-width...) is refused, here and in the planner pages, which read the same text
# (``EidomapCommon.whole``, ``Dice.parse`` in eidomap/data/planner/): both read a number the same way.
_BLANK = "[ \t\n\r\f\v]*"
#: Most digits of a number read from text (a roll, a turn count, a square, a die's count, faces or modifier): a
#: number of thousands of digits is not even read.
MAX_DIGITS = 12
_WHOLE = re.compile(f"{_BLANK}([+-]?[0-9]+){_BLANK}")


def read_whole(text: str) -> int | None:
    """A whole number as a person writes it -- at most :data:`MAX_DIGITS` digits 0-9, a sign, ASCII blanks
    around -- or None for any other text (the caller says what it expected).

    >>> read_whole(" -12"), read_whole("1_000"), read_whole("\u0663")  # the last: an Arabic-Indic 3
    (-12, None, None)
    """
    m = _WHOLE.fullmatch(text)
    return int(m[1]) if m and len(m[1].lstrip("+-")) <= MAX_DIGITS else None


def _is_whole(value: object) -> TypeGuard[int | np.integer]:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def _number(v: float) -> str:
    return f"{v:,}" if isinstance(v, int) else f"{v:g}"


def _bounds(low: float | None, high: float | None, above: float | None = None) -> str:
    """`` from 1 to 6``, `` of at least 1``, `` above 0``... for a message."""
    if above is not None:
        return f" above {_number(above)}" + ("" if high is None else f" and at most {_number(high)}")
    if low is not None and high is not None:
        return f" from {_number(low)} to {_number(high)}"
    if low is not None:
        return f" of at least {_number(low)}"
    return "" if high is None else f" of at most {_number(high)}"


def whole(value: object, param: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int``: a Python or NumPy integer (never a ``bool`` or a ``float``) from ``low`` to ``high``.

    Parameters
    ----------
    value : object
        What the caller passed.
    param : str
        The parameter, the message's first word.
    low, high : int, optional
        The smallest and largest allowed (inclusive); none: no bound.

    Returns
    -------
    int
        The value; a :class:`~eidomap.base.errors.RequestError` naming ``param`` and the range when it is not one.

    Examples
    --------
    >>> whole(np.uint8(4), "vmv", 0)
    4
    >>> whole(True, "hustle", 0, 24)
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: hustle must be a whole number from 0 to 24, got True
    """
    if _is_whole(value) and (low is None or value >= low) and (high is None or value <= high):
        return int(value)
    raise refused(param, "a whole number" + _bounds(low, high), value)


def wholes(value: object, param: str, low: int | None = None, high: int | None = None, *,
           what: str = "whole numbers") -> list[int]:
    """``value`` as a list of ``int``: an iterable (not a ``str``) of whole numbers from ``low`` to ``high``.

    Parameters
    ----------
    value : object
        What the caller passed.
    param : str
        The parameter, the message's first word.
    low, high : int, optional
        The smallest and largest each may be.
    what : str
        What they are, for the message (``"rolls of 1d6"``).

    Returns
    -------
    list of int
        The values; a :class:`~eidomap.base.errors.RequestError` naming the first wrong one.

    Examples
    --------
    >>> wholes((np.int32(2), 6), "rolls", 1, 6)
    [2, 6]
    >>> wholes([3.0], "rolls", 1, 6)
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: rolls must be a list of whole numbers from 1 to 6, got 3.0 in [3.0]
    """
    items = listed(value, param, what)
    for v in items:
        if not _is_whole(v) or (low is not None and v < low) or (high is not None and v > high):
            raise RequestError(f"{param} must be a list of {what}{_bounds(low, high)}, got {shown(v)} in"
                               f" {shown(value)}", param=param)
    return [int(v) for v in items]


def real(value: object, param: str, low: float | None = None, high: float | None = None, *,
         above: float | None = None) -> float:
    """``value`` as a ``float``: a finite real number (never a ``bool``) from ``low`` (or ``above``) to ``high``.

    Parameters
    ----------
    value : object
        What the caller passed: an ``int``, ``float``, :class:`~fractions.Fraction` or NumPy number.
    param : str
        The parameter, the message's first word.
    low, high : float, optional
        The smallest and largest allowed (inclusive); none: no bound but finiteness.
    above : float, optional
        A bound the value must exceed (``above=0``: a positive number), in place of ``low``.

    Returns
    -------
    float
        The value; a :class:`~eidomap.base.errors.RequestError` naming ``param`` and the range when it is not one.

    Examples
    --------
    >>> real(np.float32(0.5), "tolerance", 0, 1e15)
    0.5
    >>> real(float("nan"), "spacing", above=0)
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: spacing must be a positive number, got nan
    """
    positive = above == 0 and low is None and high is None
    what = "a positive number" if positive else "a number" + _bounds(low, high, above)
    try:
        v = float(value) if _is_real(value) else math.nan  # type: ignore[arg-type]  # (a Real: checked first)
    except OverflowError:  # (a whole number past the largest float)
        v = math.nan
    if not math.isfinite(v) or (low is not None and v < low) or (above is not None and v <= above) \
            or (high is not None and v > high):
        raise refused(param, what, value)
    return v


def fraction(value: object, param: str, low: float | None = None, high: float | None = None, *,
             above: float | None = None) -> Fraction:
    """``value`` as an exact :class:`~fractions.Fraction`, checked as :func:`real` checks it (a speed of the d20
    rules: ``1/3`` stays a third).

    >>> fraction(np.int64(30), "speed", above=0), fraction(Fraction(1, 3), "speed", above=0)
    (Fraction(30, 1), Fraction(1, 3))
    """
    real(value, param, low, high, above=above)
    return Fraction(value) if isinstance(value, numbers.Rational) else Fraction(float(value))  # type: ignore[arg-type]


def reals(value: object, param: str, low: float | None = None, high: float | None = None, *,
          above: float | None = None) -> list[int | float]:
    """``value`` as a list of plain numbers: a list (any iterable or a 1-D array, not a ``str``) of finite
    numbers from ``low`` (or ``above``) to ``high``, each as :func:`real` checks it; a whole number stays an
    ``int``, any other a ``float``.

    >>> reals((0.5, np.float32(1), np.int64(1)), "p_a", 0, 1)
    [0.5, 1.0, 1]
    >>> reals([0.5, "1"], "p_a", 0, 1)
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: p_a must be a list of numbers from 0 to 1, got '1' in [0.5, '1']
    """
    what = "positive numbers" if above == 0 and low is None and high is None else \
        "numbers" + _bounds(low, high, above)
    items = value.tolist() if isinstance(value, np.ndarray) and value.ndim == 1 else value
    out: list[int | float] = []
    for v in listed(items, param, what):
        try:
            checked = real(v, param, low, high, above=above)
        except RequestError:
            raise RequestError(f"{param} must be a list of {what}, got {shown(v)} in {shown(value)}",
                               param=param) from None
        out.append(int(v) if _is_whole(v) else checked)
    return out


def array(value: object, param: str, what: str = "an array") -> np.ndarray:
    """``value`` as a NumPy array (:func:`numpy.asarray`), or a :class:`~eidomap.base.errors.RequestError` saying
    ``what`` it must be when it makes none (lists of unequal lengths: no shape).

    >>> array([[0, 0], [0]], "flags", "a 2-D array of whole numbers (rows of one length)")
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: flags must be a 2-D array of whole numbers (rows of one length), got [[0, 0], [0]]
    """
    try:
        return np.asarray(value)
    except (ValueError, TypeError):
        raise refused(param, what, value) from None


def geometries(value: object, param: str, count: int | None = None) -> np.ndarray:
    """``value`` as a 1-D object array of Shapely geometries (``count`` of them, when given), checked at NumPy's
    speed.

    >>> geometries([shapely.box(0, 0, 1, 1)], "eido_geoms", 1).shape
    (1,)
    >>> geometries([shapely.Point(0, 0), "POINT (1 1)"], "geoms")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: geoms must be a list of Shapely geometries, got 'POINT (1 1)' in [<POINT ...]
    """
    what = "a list of Shapely geometries" + ("" if count is None else f", one per Eido ({count:,})")
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise refused(param, what, value)
    try:
        arr = np.asarray(value, dtype=object)
    except ValueError:  # (lists of unequal lengths)
        raise refused(param, what, value) from None
    if arr.ndim != 1 or (count is not None and len(arr) != count):
        raise refused(param, what, value)
    ok = shapely.is_geometry(arr)
    if not ok.all():
        raise RequestError(f"{param} must be {what}, got {shown(arr[np.argmin(ok)])} in {shown(value)}",
                           param=param)
    return arr


def text(value: object, param: str, what: str = "text") -> str:
    """``value`` itself when it is a ``str``; a :class:`~eidomap.base.errors.RequestError` naming ``param`` else.

    >>> text(5, "title", "text (the page's title)")
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: title must be text (the page's title), got 5
    """
    if not isinstance(value, str):
        raise refused(param, what, value)
    return value


def listed(value: object, param: str, what: str) -> list:
    """``value`` as a list: any iterable but a ``str`` or ``bytes`` (one name is not a list of its letters).

    >>> listed(iter([1, 2]), "mods", "whole numbers")
    [1, 2]
    """
    if isinstance(value, str | bytes):
        raise refused(param, f"a list of {what} (not one {type(value).__name__})", value)
    if not isinstance(value, Iterable):
        raise refused(param, f"a list of {what}", value)
    return list(value)


def names(value: object, param: str, what: str = "names") -> tuple[str, ...]:
    """``value`` as a tuple of ``str``: a list (any iterable) of names, not one name.

    Parameters
    ----------
    value : object
        What the caller passed.
    param : str
        The parameter, the message's first word.
    what : str
        What the names are, for the message (``"species names"``).

    Returns
    -------
    tuple of str
        The names; a :class:`~eidomap.base.errors.RequestError` for a ``str`` (a name is not a list of its letters),
        a value that is not iterable, or an item that is not a ``str``.

    Examples
    --------
    >>> names(["cow", "dog"], "party", "species names")
    ('cow', 'dog')
    """
    items = listed(value, param, what)
    for v in items:
        if not isinstance(v, str):
            raise RequestError(f"{param} must be a list of {what}, got {shown(v)} in {shown(value)}", param=param)
    return tuple(items)


def path(value: object, param: str, other: str = "") -> str | os.PathLike[str]:
    """``value`` itself when it names a file: a ``str`` or an :class:`os.PathLike` giving one, never ``bytes``.

    Parameters
    ----------
    value : object
        What the caller passed.
    param : str
        The parameter, the message's first word.
    other : str
        What else the parameter takes, for the message (``"a Grid"``: the caller checked it is not one).

    Returns
    -------
    str or os.PathLike
        The value; a :class:`~eidomap.base.errors.RequestError` for anything else.

    Examples
    --------
    >>> path(b"map.geojson", "path")
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: path must be a file path (str or os.PathLike), got b'map.geojson'
    """
    if isinstance(value, str) or (isinstance(value, os.PathLike) and isinstance(os.fspath(value), str)):
        return value
    raise refused(param, f"{other + ' or ' if other else ''}a file path (str or os.PathLike)", value)


def square(value: object, param: str) -> tuple[int, int]:
    """``value`` as a battle grid's square: two whole numbers ``(row, column)``.

    >>> square([np.int64(13), 0], "at")
    (13, 0)
    >>> square((13.5, 0), "at")
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: at must be a square: two whole numbers (row, column), got (13.5, 0)
    """
    if isinstance(value, Sequence) and not isinstance(value, str | bytes) and len(value) == 2 \
            and all(_is_whole(v) for v in value):
        return int(value[0]), int(value[1])
    if isinstance(value, np.ndarray) and value.shape == (2,) and np.issubdtype(value.dtype, np.integer):
        return int(value[0]), int(value[1])
    raise refused(param, "a square: two whole numbers (row, column)", value)


def squares(value: object, param: str) -> list[tuple[int, int]]:
    """``value`` as a list of squares (each two whole numbers ``(row, column)``).

    >>> squares([(1, 2), [3, 4]], "allies")
    [(1, 2), (3, 4)]
    """
    items = listed(value, param, "squares (row, column)")
    for v in items:
        if not (isinstance(v, Sequence | np.ndarray) and not isinstance(v, str | bytes) and len(v) == 2
                and all(_is_whole(x) for x in v)):
            raise RequestError(f"{param} must be a list of squares, each two whole numbers (row, column), got"
                               f" {shown(v)} in {shown(value)}", param=param)
    return [(int(r), int(c)) for r, c in items]


def flag(value: object, param: str) -> bool:
    """``value`` as a ``bool``: ``True`` or ``False`` (a NumPy ``bool_`` too), never a number or a word.

    >>> flag(np.True_, "guided"), flag(False, "guided")
    (True, False)
    >>> flag("no", "guided")
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: guided must be True or False, got 'no'
    """
    if not isinstance(value, bool | np.bool_):
        raise refused(param, "True or False", value)
    return bool(value)


def one_of(value: object, param: str, words: Sequence[str]) -> str:
    """``value`` itself when it is one of ``words``; a :class:`~eidomap.base.errors.RequestError` naming them else.

    >>> one_of("fly", "mode", ("move", "double", "run"))
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: mode must be 'move', 'double' or 'run', got 'fly'
    """
    if isinstance(value, str) and value in words:
        return value
    quoted = [f"'{w}'" for w in words]
    allowed = " or ".join(quoted) if len(quoted) < 3 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    raise refused(param, allowed, value)


def instance(value: object, param: str, kind: type[T], what: str | None = None) -> T:
    """``value`` itself when it is a ``kind``; a :class:`~eidomap.base.errors.RequestError` saying ``what`` it must
    be else (default: ``"a <kind's name>"``).

    >>> instance(None, "grid", dict, "a Grid (eidomap.answers.grid.load_grid)")
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: grid must be a Grid (eidomap.answers.grid.load_grid), got None
    """
    if not isinstance(value, kind):
        raise refused(param, f"a {kind.__name__}" if what is None else what, value)
    return value


def function(value: object, param: str, what: str) -> Callable[..., Any]:
    """``value`` itself when it can be called (a function the caller hands eidomap); else a
    :class:`~eidomap.base.errors.RequestError` saying ``what`` it must be.

    >>> function(len, "snap", "a function") is len
    True
    >>> function("snap_borders", "snap", "a function snap(doc, catalog, warnings)")
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: snap must be a function snap(doc, catalog, warnings), got 'snap_borders'
    """
    if not callable(value):
        raise refused(param, what, value)
    return value


def maybe(check: Callable[..., T], value: object, param: str, *args: object, **kwargs: object) -> T | None:
    """None when ``value`` is None (a parameter left out), else ``check(value, param, *args, **kwargs)``.

    >>> maybe(text, None, "title"), maybe(whole, np.int8(3), "hp", 1)
    (None, 3)
    """
    return None if value is None else check(value, param, *args, **kwargs)
