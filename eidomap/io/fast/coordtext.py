"""The coordinates' text of a batch of Eidos read in one compiled pass: structure and numbers together.

The GeoJSON reader's fast lane (:mod:`eidomap.io.fast.geojson`) leaves each Eido's
``coordinates`` as text.  :func:`scan_text` walks the text of a whole batch
once, byte by byte: the brackets give the Eidos, their polygons, rings and
positions, and each number between them is parsed straight into a float64 --
where numpy and msgspec would take several passes (the brackets, their depths,
the text without them, the numbers' list, the array).  It is plain Python over
numpy arrays, as the searches are; :func:`scan` runs its numba-compiled twin
(:mod:`eidomap.base.compiled`), which the fast lane calls on maps big enough to
pay for numba's import (:data:`eidomap.base.settings.COMPILED_BYTES`).

The text is JSON msgspec has already decoded (the batch as typed records), so
it is well formed; :func:`scan_text` checks only what makes coordinates plain,
by the fast lane's rules: every Eido one array, positions at depth 4
(polygons) or 5 (multipolygons, counting the batch's own array as depth 1),
no array empty, every array above the positions holding arrays only, every
position exactly two numbers.  Anything else between the brackets (``true``,
``null``, an object, a string) makes the batch **not plain**.

**Numbers** follow JSON's grammar, ``-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][+-]?[0-9]+)?``,
and come out correctly rounded: bit for bit the float64 msgspec gives (and
Python's ``float``).  Their digits from the first that is not 0, at most 19,
are read into a 64-bit whole number ``w``, the point and the exponent into a
power of ten ``q``; :func:`to_float` makes ``w * 10**q`` a float64:

* ``w <= 2**53`` and ``|q| <= 22``: one float64 operation on two exact
  operands, so one correct rounding (Clinger's fast path);
* else the Eisel-Lemire algorithm: ``w`` times a 128-bit truncated mantissa of
  ``10**q`` (a table computed at import), as in Go's ``strconv`` and Wuffs;
* where it cannot tell which way to round (the value is exact, or close to
  halfway between two floats), a value that is a whole number below ``2**64``
  times a power of two (``w * 5**q``, or ``w / 5**-q`` without remainder) is
  that number converted -- one rounding, ties to even -- and scaled.

Where none decides, and for more than 19 digits, a power of ten beyond
``10**±348``, a value that would be subnormal or beyond float64's range, the
pass stops: it is **not sure**.  ``-0``, an integer to msgspec (and to the
standard library's reader), is ``0.0``; ``-0.0`` and ``-0e0`` are ``-0.0``.

Not plain or not sure, the caller reads the batch by the fast lane's numpy
and msgspec scan instead (:func:`eidomap.io.fast.geojson._scan`), which gives
the map it always gave (msgspec refuses ``1e400``: the batch is not plain;
``5e-324`` it parses).  So the compiled pass changes the speed, never the map.

>>> u = np.frombuffer(b"[[[1,2.5],[3e2,-0.0]]],[[[7,8]]]", np.uint8)
>>> status, parts, part_rings, ring_len, xy = scan_text(u, 2, 4)
>>> status == DONE, parts.tolist(), part_rings.tolist(), ring_len.tolist(), xy.tolist()
(True, [1, 1], [1, 1], [2, 1], [1.0, 2.5, 300.0, -0.0, 7.0, 8.0])
>>> scan_text(np.frombuffer(b"[[[1,null]]]", np.uint8), 1, 4)[0] == NOT_PLAIN
True
"""

from __future__ import annotations

import numpy as np

#: What :func:`scan_text` found: the batch's arrays; coordinates that are not plain; a number it cannot be sure of.
DONE, NOT_PLAIN, NOT_SURE = 0, 1, 2

# the bit operations run on uint64 only: numba turns a uint64 mixed with an int64 (any bare literal) into a float64
_0, _1, _3, _9, _10 = (np.uint64(k) for k in (0, 1, 3, 9, 10))
_32, _53, _63 = (np.uint64(k) for k in (32, 53, 63))
_LOW32 = np.uint64(0xFFFF_FFFF)
_LOW9 = np.uint64(0x1FF)
_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_EXACT_MAX = np.uint64(1 << 53)
_MIN_Q, _MAX_Q = -348, 347


def _powers_of_ten() -> tuple[np.ndarray, np.ndarray]:
    """The 128-bit mantissas of ``10**q``, ``q`` from -348 to 347, truncated (rounded down): high and low words.

    ``10**q`` is ``m * 2**e`` with ``2**127 <= m < 2**128``; from Python's
    exact integers, once at import (about a millisecond).
    """
    hi = np.empty(_MAX_Q - _MIN_Q + 1, np.uint64)
    lo = np.empty_like(hi)
    for k, q in enumerate(range(_MIN_Q, _MAX_Q + 1)):
        if q >= 0:
            p = 10**q
            m = p >> (p.bit_length() - 128) if p.bit_length() > 128 else p << (128 - p.bit_length())
        else:  # 2**s / 10**-q with s so that the quotient has 128 bits (10**-q is no power of two)
            p = 10**-q
            m = (1 << (127 + p.bit_length())) // p
        hi[k], lo[k] = m >> 64, m & ((1 << 64) - 1)
    return hi, lo


_POW_HI, _POW_LO = _powers_of_ten()
#: 10**0 .. 10**22, each exact in a float64 (Clinger's fast path).
_EXACT = np.array([10.0**k for k in range(23)])
#: 5**0 .. 5**27, each below 2**63.
_FIVE = np.array([5**k for k in range(28)], np.uint64)
#: 2**-1074 .. 2**971, exact: a 53-bit mantissa times one of them is a float64 made without rounding.
_TWO = np.ldexp(1.0, np.arange(-1074, 972))


def _product(a: np.uint64, b: np.uint64) -> tuple[np.uint64, np.uint64]:
    """``a * b`` as 128 bits, ``(high, low)``: four products of 32-bit halves, none of which overflows."""
    a0, a1, b0, b1 = a & _LOW32, a >> _32, b & _LOW32, b >> _32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> _32) + (p01 & _LOW32) + (p10 & _LOW32)
    return p11 + (p01 >> _32) + (p10 >> _32) + (mid >> _32), (mid << _32) | (p00 & _LOW32)


def _leading_zeros(x: np.uint64) -> int:
    """The leading zero bits of ``x`` (not 0), in six tests."""
    n = 0
    for k in (32, 16, 8, 4, 2, 1):
        shift = np.uint64(k)
        if x >> (_63 - shift + _1) == _0:
            n += k
            x = x << shift
    return n


def _eisel_lemire(w: np.uint64, q: int) -> tuple[float, bool]:
    """``w * 10**q`` (``w`` not 0, ``q`` from -348 to 347) correctly rounded, and True; or False where the
    algorithm cannot be sure, or the value is subnormal or beyond float64.

    The steps of Go's ``strconv.eiselLemire64`` (after Wuffs and Lemire's
    fast_double_parser), written with 32-bit halves and without wrapping
    additions: ``a + b`` overflows exactly when ``a > ~b``.
    """
    zeros = _leading_zeros(w)
    w = w << np.uint64(zeros)
    exp2 = ((217706 * q) >> 16) + 64 + 1023 - zeros  # the binary exponent, biased, of the 128-bit product's top
    hi, lo = _product(w, _POW_HI[q - _MIN_Q])
    if (hi & _LOW9) == _LOW9 and lo > ~w:  # the truncated power's error may reach the 9 bits below the mantissa
        hi2, lo2 = _product(w, _POW_LO[q - _MIN_Q])
        if hi2 > ~lo:
            lo, hi = hi2 - ~lo - _1, hi + _1
        else:
            lo = lo + hi2
        if (hi & _LOW9) == _LOW9 and lo == _ALL and lo2 > ~w:
            return 0.0, False
    top = hi >> _63
    mantissa = hi >> (top + _9)  # 54 bits
    exp2 -= 1 - int(top)
    if lo == _0 and (hi & _LOW9) == _0 and (mantissa & _3) == _1:  # exactly halfway between two floats, maybe
        return 0.0, False
    mantissa = (mantissa + (mantissa & _1)) >> _1  # to 53 bits, rounding half to even
    if mantissa >> _53 != _0:
        mantissa = mantissa >> _1
        exp2 += 1
    if exp2 <= 0 or exp2 >= 0x7FF:  # subnormal, or infinite
        return 0.0, False
    return float(mantissa) * _TWO[exp2 - 1023 - 52 + 1074], True


def _exact(w: np.uint64, q: int) -> tuple[float, bool]:
    """``w * 10**q`` correctly rounded, and True, where it is a whole number below 2**64 times a power of two; else
    False.

    ``10**q`` is ``5**q * 2**q``: with ``w * 5**q`` (or ``w / 5**-q``) a
    whole number below 2**64, the value is that number converted to float64
    -- one correct rounding, ties to even -- scaled by ``2**q``, exactly.
    So the exact values the Eisel-Lemire algorithm leaves undecided
    (``9007199254740993``, ``1e23``, ``5602951234108478.0``, halfway or not)
    are decided.
    """
    if 0 <= q <= 27:
        if w > _ALL // _FIVE[q]:
            return 0.0, False
        return float(w * _FIVE[q]) * _TWO[q + 1074], True
    if -27 <= q < 0:
        if w % _FIVE[-q] != _0:
            return 0.0, False
        return float(w // _FIVE[-q]) * _TWO[q + 1074], True
    return 0.0, False


def to_float(w: np.uint64, q: int) -> tuple[float, bool]:
    """``w * 10**q`` correctly rounded, and True; or 0.0 and False where this module is not sure of it (a
    subnormal value, one beyond float64's range, or one no method here decides).

    ``w``: a whole number of at most 19 digits, not 0.  Clinger's fast path,
    else :func:`_eisel_lemire`, else :func:`_exact` (the module's notes).
    """
    if w <= _EXACT_MAX and -22 <= q <= 22:  # both exact in a float64: one rounding, the right one
        return float(w) * _EXACT[q] if q >= 0 else float(w) / _EXACT[-q], True
    if q < _MIN_Q or q > _MAX_Q:
        return 0.0, False
    x, sure = _eisel_lemire(w, q)
    return (x, True) if sure else _exact(w, q)


def scan_text(u: np.ndarray, n_eidos: int, deepest: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """Read the ``coordinates`` texts of a batch of Eidos in one pass.

    Parameters
    ----------
    u : numpy.ndarray of uint8, shape (n,)
        The texts, joined by commas.
    n_eidos : int
        How many texts (Eidos) ``u`` holds.
    deepest : int
        The depth of the positions, the batch's array around the texts
        counted as depth 1: 4 for polygons, 5 for multipolygons.

    Returns
    -------
    status : int
        :data:`DONE`; else :data:`NOT_PLAIN` or :data:`NOT_SURE`, and the
        arrays below empty.
    parts : numpy.ndarray of int64, shape (n_eidos,)
        Each Eido's polygons.
    part_rings : numpy.ndarray of int64, shape (polygons,)
        Each polygon's rings.
    ring_len : numpy.ndarray of int64, shape (rings,)
        Each ring's positions.
    xy : numpy.ndarray of float64, shape (2 * positions,)
        Every coordinate, in order.
    """
    n = len(u)
    cap = 0  # arrays of each kind the text may hold: no more than it opens (a first look, of half a millisecond)
    for i in range(n):
        cap += u[i] == 0x5B
    parts = np.empty(n_eidos, np.int64)
    part_rings = np.empty(cap, np.int64)
    ring_len = np.empty(cap, np.int64)
    xy = np.empty(2 * cap, np.float64)
    eidos = polygons = rings = positions = filled = 0
    depth = 1
    values = 0  # the numbers in the position open
    opened = False  # the last token was a "[": a "]" next is an empty array
    i = 0
    status = DONE
    while i < n:
        c = u[i]
        if c == 0x5B:  # [
            depth += 1
            opened = True
            if depth > deepest:
                status = NOT_PLAIN
                break
            if depth == 2:
                if eidos == n_eidos:
                    status = NOT_PLAIN
                    break
                parts[eidos] = 1 if deepest == 4 else 0
                eidos += 1
            if depth == deepest - 2:  # a polygon (an Eido's own array, for polygons)
                if polygons == cap:
                    status = NOT_SURE
                    break
                part_rings[polygons] = 0
                polygons += 1
                if deepest == 5:
                    parts[eidos - 1] += 1
            elif depth == deepest - 1:  # a ring
                if rings == cap:
                    status = NOT_SURE
                    break
                ring_len[rings] = 0
                rings += 1
                part_rings[polygons - 1] += 1
            elif depth == deepest:  # a position
                if positions == cap:
                    status = NOT_SURE
                    break
                positions += 1
                ring_len[rings - 1] += 1
                values = 0
            i += 1
        elif c == 0x5D:  # ]
            if opened or depth <= 1 or (depth == deepest and values != 2):
                status = NOT_PLAIN
                break
            depth -= 1
            i += 1
        elif c == 0x2C:
            opened = False
            i += 1
        elif c == 0x20 or c == 0x0A or c == 0x0D or c == 0x09:  # white space
            i += 1
        elif c == 0x2D or 0x30 <= c <= 0x39:  # a number: its digits read into w, its exponent into q
            if depth != deepest or values == 2:
                status = NOT_PLAIN
                break
            neg = c == 0x2D
            if neg:
                i += 1
            if i < n and u[i] == 0x30:  # a whole part of 0 (JSON's only one to begin with 0): no digit of w
                i += 1
            stop = min(n, i + 19)  # (19 digits fit in a uint64)
            first = i
            w = _0
            while i < stop and 0x30 <= u[i] <= 0x39:
                w = w * _10 + np.uint64(u[i] - 0x30)
                i += 1
            q = 0
            whole = True  # no fraction, no exponent: an integer to msgspec ("-0" is 0.0)
            if i < n and u[i] == 0x2E:
                whole = False
                i += 1
                point = i
                if w == _0:  # the fraction's leading zeros: no digits of w either
                    while i < n and u[i] == 0x30:
                        i += 1
                stop = min(n, i + 19 - (point - 1 - first))
                while i < stop and 0x30 <= u[i] <= 0x39:
                    w = w * _10 + np.uint64(u[i] - 0x30)
                    i += 1
                q = point - i
            if i < n and 0x30 <= u[i] <= 0x39:  # more than 19 digits from the first that is not 0
                status = NOT_SURE
                break
            if i < n and (u[i] == 0x65 or u[i] == 0x45):
                whole = False
                i += 1
                minus = i < n and u[i] == 0x2D
                if i < n and (u[i] == 0x2D or u[i] == 0x2B):
                    i += 1
                e = 0
                while i < n and 0x30 <= u[i] <= 0x39:
                    if e < 100_000:  # beyond any float's exponent either way, and no overflow on a long one
                        e = 10 * e + int(u[i] - 0x30)
                    i += 1
                q += -e if minus else e
            if w == _0:
                x = -0.0 if neg and not whole else 0.0
            else:
                x, sure = to_float(w, q)
                if not sure:
                    status = NOT_SURE
                    break
                if neg:
                    x = -x
            xy[filled] = x
            filled += 1
            values += 1
            opened = False
        else:  # true, false, null, an object, a string
            status = NOT_PLAIN
            break
    if status == DONE and (depth != 1 or eidos != n_eidos):
        status = NOT_PLAIN
    if status != DONE:  # (one return of empty arrays, not one at each refusal: each compiles its slices)
        return status, parts[:0], part_rings[:0], ring_len[:0], xy[:0]
    return DONE, parts, part_rings[:polygons].copy(), ring_len[:rings].copy(), xy[:filled].copy()


def load() -> None:
    """Import numba and load :func:`scan_text`'s machine code (from numba's cache, or compiled): what the first call
    of :func:`scan` in a process pays (about half a second), paid ahead."""
    scan([b"[[[0,0]]]"], 4)


def scan(texts: list, deepest: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`scan_text`, compiled, on the ``coordinates`` texts of a batch of Eidos.

    Parameters
    ----------
    texts : list of bytes-like
        Each Eido's ``coordinates`` text (msgspec's raw views).
    deepest : int
        4 for polygons, 5 for multipolygons (:func:`scan_text`).

    Returns
    -------
    tuple of numpy.ndarray or None
        ``(parts, part_rings, ring_len, xy)`` as :func:`scan_text` gives them;
        None where it finds the texts not plain or is not sure of a number
        (the caller reads them another way).
    """
    from eidomap.base.settings import twin

    status, *arrays = twin(scan_text, 0, compiled=True)(np.frombuffer(b",".join(texts), np.uint8), len(texts),
                                                         deepest)
    return None if status != DONE else (arrays[0], arrays[1], arrays[2], arrays[3])


JIT_HELPERS = (_product, _leading_zeros, _eisel_lemire, _exact, to_float)
