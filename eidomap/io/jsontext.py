"""A GeoJSON file's text, read by the standard library's ``json``: its top-level members, its features' spans.

:func:`scan` walks the top-level object with the C decoder's ``raw_decode``, one
feature at a time (a million-Eido map never exists as one tree of Python
objects), handing each to a function and keeping only its place in the text
(:class:`FeatureList`).  Both lanes of the GeoJSON reader stand on it
(:mod:`eidomap.io.geojson`, :mod:`eidomap.io.fast.geojson`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from eidomap.base.errors import MapError
from eidomap.io.features import MAX_FEATURES, compact

_SPACE = re.compile(r"[ \t\n\r]*")


def _int(text: str) -> int | float:
    """A JSON integer; one of more digits than Python converts is read as a float (an infinity, as 1e400 is)."""
    try:
        return int(text)
    except ValueError:
        return float(text)


#: The standard decoder with :func:`_int`: slower on integers, used only when the standard one refused a long one.
_LONG_NUMBERS = json.JSONDecoder(parse_int=_int)


def loads_json(text: str) -> Any:
    """``json.loads``; a number of more digits than Python converts to int (a ``ValueError`` there) is read as a
    float, so a coordinate of 100,000 digits is "beyond ±1e15" as 1e400 is, never a traceback."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:
        return _LONG_NUMBERS.decode(text)


def _raw_decode(dec: json.JSONDecoder, text: str, i: int):
    """``dec.raw_decode`` with :func:`loads_json`'s reading of long numbers."""
    try:
        return dec.raw_decode(text, i)
    except json.JSONDecodeError:
        raise
    except ValueError:
        return _LONG_NUMBERS.raw_decode(text, i)


#: A JSON escape of a UTF-16 surrogate, of a pair or alone: where there is none, no string of the text holds a
#: lone surrogate (nothing else makes one: the text itself is UTF-8, which has none).
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
#: Each escape of JSON text in turn: a surrogate pair, a lone surrogate (its group), or any other escape (the
#: backslash and the character after it: so an escaped backslash is never taken for an escape's).
_ESCAPE = re.compile(rb"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(u[dD][89a-fA-F][0-9a-fA-F]{2})"
                     rb"|[\s\S])")


def lone_surrogate(data: bytes) -> tuple[int, str] | None:
    r"""Where JSON text (UTF-8) escapes half a surrogate pair alone (``"\ud800"``), and the escape; None if it never
    does.

    Such a string is no Unicode text: no file holds it (UTF-8 has no surrogates), so every write of it fails.

    >>> lone_surrogate(rb'{"id": "\ud83d\ude00 and \\ud800 (an escaped backslash)"}') is None
    True
    >>> lone_surrogate(rb'{"id": "a\ud800x"}')
    (9, '\\ud800')
    """
    if _SURROGATE.search(data) is None:  # (one pass in C: the common case)
        return None
    for m in _ESCAPE.finditer(data):
        if m.group(1):
            return m.start(), "\\" + m.group(1).decode()
    return None


def check_unicode(path: str | os.PathLike | None, data: bytes, what: str = "is") -> None:
    """Refuse JSON text (UTF-8 bytes) a string of which would hold a lone surrogate (:func:`lone_surrogate`), naming
    where it is: ``{what} not Unicode text`` ("is", or the part of the file it is, "its 'eidomap' metadata is")."""
    found = lone_surrogate(data)
    if found is not None:
        at, escape = found
        line = data.count(b"\n", 0, at) + 1
        column = len(data[data.rfind(b"\n", 0, at) + 1 : at].decode("utf-8", "replace")) + 1
        raise MapError(path, None, f"{what} not Unicode text (a lone surrogate, {escape}, at line {line} column"
                                   f" {column})")


def _bad_json(path: str | os.PathLike | None, exc: json.JSONDecodeError) -> MapError:
    return MapError(path, None, f"is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")


def scan(path: str | os.PathLike | None, text: str, visit: Callable[[int, Any], None]) -> tuple[dict, FeatureList]:
    """Walk the top-level object, decoding each feature and handing it to ``visit``.

    Returns the collection's other members and the list of feature spans.
    """
    dec = json.JSONDecoder()
    body: dict = {}
    starts: list[int] = []
    ends: list[int] = []

    def space(i: int) -> int:
        return _SPACE.match(text, i).end()  # type: ignore[union-attr]  # (it matches the empty string too)

    def expect(i: int, char: str) -> int:
        if text[i : i + 1] != char:
            loads_json(text)  # raises the JSON error with its position, if any
            raise MapError(path, None, "is not a GeoJSON FeatureCollection")
        return space(i + 1)

    try:
        i = expect(space(0), "{")
        members = 0
        while text[i : i + 1] != "}":
            if members:
                i = expect(i, ",")
            members += 1
            key, i = _raw_decode(dec, text, i)
            if not isinstance(key, str):  # a member name must be a string: the decoder says where it is not
                loads_json(text)
            i = expect(space(i), ":")
            if key == "features":
                if "features" in body:
                    raise MapError(path, None, "has two 'features' members")
                if text[i : i + 1] != "[":
                    raise MapError(path, None, "has a 'features' member that is not a list")
                i = space(i + 1)
                while text[i : i + 1] != "]":
                    if starts:
                        i = expect(i, ",")
                    start = i
                    feature, i = _raw_decode(dec, text, i)
                    if len(starts) >= MAX_FEATURES:
                        raise MapError(path, None, f"has more than the {MAX_FEATURES:,}-feature limit")
                    starts.append(start)
                    ends.append(i)
                    visit(len(starts) - 1, feature)
                    i = space(i)
                body["features"] = None
                i = space(i + 1)
            else:
                body[key], i = _raw_decode(dec, text, i)
                i = space(i)
        if text[space(i + 1) :]:
            loads_json(text)  # trailing data: the decoder names it
    except json.JSONDecodeError as exc:
        raise _bad_json(path, exc) from None
    except RecursionError:
        raise MapError(path, None, "is nested too deeply to be a map") from None
    if body.get("type") != "FeatureCollection":
        raise MapError(path, None, "is not a GeoJSON FeatureCollection")
    if "features" not in body:
        raise MapError(path, None, "has no 'features' list")
    del body["features"]
    return body, FeatureList(text, starts, ends)


class FeatureList(Sequence):
    """The features of a map file, decoded on demand from the file's text.

    ``features[i]`` is the i-th feature as a fresh dict, its geometry's
    coordinates parsed into :class:`Coords` when they are well formed;
    :meth:`raw` is its text exactly as in the file.
    """

    def __init__(self, text: str, starts: Sequence[int] | np.ndarray, ends: Sequence[int] | np.ndarray):
        self.text = text
        self.starts = np.asarray(starts, dtype=np.int64)
        self.ends = np.asarray(ends, dtype=np.int64)

    @classmethod
    def of(cls, features: list) -> FeatureList:
        """Features given as JSON values (dicts) -- a new format's, made into GeoJSON-like features -- kept as
        their text, each decoded again on demand (so a fresh dict every time)."""
        texts = [json.dumps(f, ensure_ascii=False) for f in features]
        ends = np.cumsum([len(t) + 1 for t in texts], dtype=np.int64) - 1
        return cls(",".join(texts), ends - [len(t) for t in texts], ends)

    def __len__(self) -> int:
        return len(self.starts)

    def raw(self, i: int) -> str:
        return self.text[int(self.starts[i]) : int(self.ends[i])]

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        f = loads_json(self.raw(i))
        geom = f.get("geometry") if isinstance(f, dict) else None
        if isinstance(geom, dict) and isinstance(kind := geom.get("type"), str) and "coordinates" in geom:
            c = compact(kind, geom["coordinates"])
            geom["coordinates"] = geom["coordinates"] if c is None else c
        return f
