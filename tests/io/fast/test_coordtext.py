"""The compiled pass over coordinate texts (eidomap.io.fast.coordtext) against Python's float and the fast lane's numpy
scan: every number it reads bit for bit float's, every batch it reads the numpy scan's arrays, every batch it calls
not plain not plain to the numpy scan too; both twins alike."""

from __future__ import annotations

import functools
import random
import struct

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from eidomap.base.compiled import compiled
from eidomap.io.fast.coordtext import DONE, NOT_PLAIN, NOT_SURE, scan_text

fastjson = pytest.importorskip("eidomap.io.fast.geojson")
pytest.importorskip("msgspec")

TWINS = {"python": scan_text, "compiled": compiled(scan_text)}


def _bits(x: float) -> int:
    return int(np.float64(x).view(np.uint64))


def _expected(text: str) -> float:
    """What msgspec (and the standard library's reader) make of a JSON number: an integer's float, else ``float``."""
    whole = not any(c in text for c in ".eE")
    return float(int(text)) if whole else float(text)


def _read(text: str, twin: str = "compiled") -> tuple[int, float]:
    """The number ``text`` as the pass reads it, the first of a position of one Eido: ``(status, value)``."""
    status, *_, xy = TWINS[twin](np.frombuffer(f"[[[{text},0]]]".encode(), np.uint8), 1, 4)
    return status, float(xy[0]) if status == DONE else np.nan


def _check(text: str) -> int:
    """Both twins read ``text`` alike, and a value they are sure of is the right one, bit for bit."""
    status, value = _read(text)
    assert status in (DONE, NOT_SURE), text
    py_status, py_value = _read(text, "python")
    assert py_status == status and (status != DONE or _bits(py_value) == _bits(value)), text
    if status == DONE:
        assert _bits(value) == _bits(_expected(text)), text
    return status


HARD = ["9007199254740993", "9007199254740992", "9007199254740995", "9007199254740993.0", "90071992547409930e-1",
        "5e-324", "2.4703282292062328e-324", "2.2250738585072014e-308", "2.2250738585072011e-308",
        "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1e308", "1e309", "1e400",
        "-1e400", "1e-400", "0e400", "-0e-999", "1e23", "8.98846567431158e307", "8.98846567431158e+307",
        "4.9406564584124654e-324", "0.000123", "0.1", "0.3", "-0", "-0.0", "0.0", "0", "-0e0", "1E5", "1e+2",
        "123456789012345678", "1234567890123456789", "9999999999999999999", "12345678901234567890", "0.1e-5",
        "5602951234108478.0", "527352880319309.75", "7.3177701707893310e+15", "1" + "0" * 22, "1" + "0" * 30,
        "0.00000000000000000001", "2.5e-15", "1.448997445238699", "6.02214076e23", "-4.35", "1e-22", "1e22",
        "1.0000000000000002", "0.30000000000000004", "3.141592653589793", "1e-7", "123456.789e-300"]


@pytest.mark.parametrize("text", HARD)
def test_the_hard_numbers_come_out_right_or_not_at_all(text):
    status = _check(text)
    if text in ("9007199254740993", "1e23", "1e308", "1.7976931348623157e308", "-0", "-0.0", "0.000123",
                "5602951234108478.0", "527352880319309.75", "9999999999999999999"):
        assert status == DONE, text  # exact, halfway, the extremes: decided
    if text in ("5e-324", "1e400", "1e309", "12345678901234567890", "1e-400"):
        assert status == NOT_SURE, text  # subnormal, beyond float64, 20 digits, below the table: the numpy scan's


def test_minus_zero_is_an_integer_zero_unless_written_as_a_float():
    assert [_bits(_read(t)[1]) for t in ("-0", "-0.0", "-0e0", "-0.000")] == [_bits(0.0)] + [_bits(-0.0)] * 3


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True))
def test_the_repr_of_any_double_is_read_back_to_the_same_double(x):
    text = repr(x)
    if _check(text) == NOT_SURE:
        assert abs(x) < 2.2250738585072014e-308  # only a subnormal is left to the numpy scan


_DIGITS = st.text("0123456789", min_size=1, max_size=25)


@settings(max_examples=300, deadline=None)
@given(st.booleans(), _DIGITS, st.none() | _DIGITS, st.none() | st.integers(-400, 400), st.sampled_from("eE"),
       st.sampled_from(["", "+", "0"]))
def test_any_digits_with_or_without_a_fraction_and_an_exponent(minus, whole, fraction, exponent, e, plus):
    """Up to 25 digits before and after the point (leading zeros in the fraction: ``0.000123``), exponents
    written any way JSON allows."""
    whole = whole.lstrip("0") or "0"  # (JSON: no leading zero)
    text = ("-" if minus else "") + whole + ("" if fraction is None else "." + fraction)
    if exponent is not None:
        text += e + ("-" if exponent < 0 else "+" if plus == "+" else "") + ("0" if plus == "0" else "") \
            + str(abs(exponent))
    _check(text)


def test_20000_random_doubles_in_one_batch_bit_for_bit():
    """Random bit patterns (no subnormal): every repr read back, none left undecided."""
    rng = random.Random(31)
    values: list[float] = []
    while len(values) < 20_000:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if np.isfinite(x) and (x == 0 or abs(x) >= 2.2250738585072014e-308):
            values.append(x)
    text = "[[" + ",".join(f"[{values[k]!r},{values[k + 1]!r}]" for k in range(0, len(values), 2)) + "]]"
    status, parts, part_rings, ring_len, xy = TWINS["compiled"](np.frombuffer(text.encode(), np.uint8), 1, 4)
    assert status == DONE and parts.tolist() == [1] and part_rings.tolist() == [1] and ring_len.tolist() == [10_000]
    assert np.array_equal(xy.view(np.uint64), np.array(values).view(np.uint64))


# coordinate texts: numbers of every kind, and (not plain) anything else JSON allows between the brackets
_NUMBER = (st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=False).map(repr)
           | st.integers(-10**18, 10**18).map(str)
           | st.sampled_from(["-0", "-0.0", "-0e0", "1E5", "2.5e-3", "0.000123", "9007199254740993", "1e23"]))
#: What the pass leaves to the numpy scan: beyond float64 (msgspec refuses it), a subnormal, more than 19 digits.
_UNSURE = st.sampled_from(["1e400", "5e-324", "-123456789012345678901"])
_OTHER = st.sampled_from(["true", "false", "null", "{}", '{"a": [1, 2]}', '"1"', "[]", "[1, 2]", "[[1, 2]]"])


#: The strategies :func:`_coordinates` draws from, made once: a strategy made at each draw is validated at each
#: draw (a third of the test's time went to it), the same draws either way.
_SPACE = st.sampled_from(["", "", "", " ", "\n", " \t\r\n "])
_ONE_IN_31 = st.integers(0, 30)
_POSITION_SIZE = st.sampled_from([2] * 12 + [1, 3])
_ODD_VALUE, _ANY_NUMBER = _OTHER | _NUMBER, _NUMBER | _UNSURE


def _space(draw) -> str:
    return draw(_SPACE)


@functools.cache
def _coordinates(depth: int, odd: bool, unsure: bool = False) -> st.SearchStrategy[str]:
    """A ``coordinates`` text with its positions ``depth`` arrays below it (0: a position, 2: a polygon, 3: a
    multipolygon); with ``odd``, now and then something that makes it not plain; with ``unsure``, numbers the pass
    leaves to the numpy scan among the others.  (One strategy for each ``depth, odd, unsure``.)"""
    return _coordinates_drawn(depth, odd, unsure)


@st.composite
def _coordinates_drawn(draw, depth: int, odd: bool, unsure: bool) -> str:
    """:func:`_coordinates`, drawn."""
    if odd and draw(_ONE_IN_31) == 0:
        return draw(_ODD_VALUE)
    if depth == 0:
        items = [draw(_OTHER if odd and draw(_ONE_IN_31) == 0 else _ANY_NUMBER if unsure else _NUMBER)
                 for _ in range(draw(_POSITION_SIZE) if odd else 2)]
    else:
        items = [draw(_coordinates(depth - 1, odd, unsure)) for _ in range(draw(st.integers(1 - odd, 3)))]
    return "[" + ",".join(_space(draw) + item + _space(draw) for item in items) + "]"


def _same(parsed, got) -> None:
    _, parts, part_rings, ring_len, xy = got
    mine = fastjson._Parsed(np.ones(len(parts), dtype=bool), parts, part_rings, ring_len, xy)
    for array in ("good", "part_rings", "ring_len", "part_off", "ring_off", "num_off"):
        assert np.array_equal(getattr(mine, array), getattr(parsed, array)), array
        assert getattr(mine, array).dtype == getattr(parsed, array).dtype, array
    assert mine.xy.dtype == parsed.xy.dtype and np.array_equal(mine.xy.view(np.uint64), parsed.xy.view(np.uint64))


@settings(max_examples=100, deadline=None)
@given(st.data(), st.booleans(), st.booleans(), st.sampled_from([False] * 4 + [True]))
def test_a_batch_is_read_as_the_numpy_scan_reads_it_or_left_to_it(data, polygons, odd, unsure):
    """The numpy scan's arrays, bit for bit; its "not plain"; or, not sure, left to it -- by both twins alike."""
    texts = data.draw(st.lists(_coordinates(2 if polygons else 3, odd, unsure), min_size=1, max_size=6))
    if odd and data.draw(st.booleans()):  # too deep: a multipolygon's coordinates in a polygon's place, and so on
        texts[data.draw(st.integers(0, len(texts) - 1))] = data.draw(_coordinates(3 if polygons else 4, False))
    blobs = [t.encode() for t in texts]
    parsed = fastjson._scan(blobs, polygons)
    u = np.frombuffer(b",".join(blobs), np.uint8)
    got = TWINS["compiled"](u, len(texts), 4 if polygons else 5)
    py = TWINS["python"](u, len(texts), 4 if polygons else 5)
    event(f"odd {odd}: {['done', 'not plain', 'not sure'][got[0]]}")
    assert py[0] == got[0]
    assert all(np.array_equal(a.view(np.uint8), b.view(np.uint8)) for a, b in zip(py[1:], got[1:], strict=True))
    if got[0] == DONE:
        assert parsed is not None
        _same(parsed, got)
    elif got[0] == NOT_PLAIN:
        assert parsed is None


@pytest.mark.parametrize("texts, polygons, status", [
    (["[[[0,0],[1,0],[1,1],[0,0]]]"], True, DONE),
    (["[[[[0,0],[1,0],[1,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,5]],[[5.5,5.5],[5.6,5.5],[5.5,5.6],[5.5,5.5]]]]"], False,
     DONE),
    ([" [ [ [0 , 0] ,\n[1,0] ] ] ", "[[[2,2],[3,3]]]"], True, DONE),
    (["[[[0,0],[1,0],[1,1],[0,0,0]]]"], True, NOT_PLAIN),  # three numbers
    (["[[[0],[1,0],[1,1],[0,0]]]"], True, NOT_PLAIN),  # one number
    (["[[[0,0],[1,0],[1,1],[true,0]]]"], True, NOT_PLAIN),
    (["[[[0,0],[1,0],[1,1],[null,0]]]"], True, NOT_PLAIN),
    (["[[[0,0],[1,0],[1,1],[{},0]]]"], True, NOT_PLAIN),
    (['[[[0,0],[1,0],[1,1],["0",0]]]'], True, NOT_PLAIN),
    (["[[]]"], True, NOT_PLAIN),  # an empty ring
    (["[]"], True, NOT_PLAIN),  # an empty polygon
    (["[ ]"], True, NOT_PLAIN),
    (["[[[[0,0],[1,0],[1,1],[0,0]]]]"], True, NOT_PLAIN),  # too deep
    (["[[0,0],[1,0],[1,1],[0,0]]"], True, NOT_PLAIN),  # too shallow: numbers in a ring
    (["[[[0,0],[1,0],[1,1],[0,0]],5]"], True, NOT_PLAIN),  # a number beside the rings
    (["null"], True, NOT_PLAIN),
    (["7"], True, NOT_PLAIN),
    (["[[[0,0],[1,0],[1,1],[1e400,0]]]"], True, NOT_SURE),  # msgspec refuses it: not plain to the numpy scan
    (["[[[0,0],[1,0],[1,1],[5e-324,0]]]"], True, NOT_SURE),  # a subnormal: msgspec reads it
])
def test_what_makes_a_batch_not_plain_or_leaves_it_to_the_numpy_scan(texts, polygons, status):
    blobs = [t.encode() for t in texts]
    u = np.frombuffer(b",".join(blobs), np.uint8)
    for twin in TWINS.values():
        got = twin(u, len(texts), 4 if polygons else 5)
        assert got[0] == status
    parsed = fastjson._scan(blobs, polygons)
    if status == DONE:
        _same(parsed, got)
    elif status == NOT_PLAIN:
        assert parsed is None
    else:
        assert (parsed is None) == ("1e400" in texts[0])
