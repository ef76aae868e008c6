"""Validation reports for CI systems: SARIF 2.1.0 and GitHub workflow annotations.

Each problem is placed on its map file at the line and column where the text
of its feature begins, when that is cheap to know (a GeoJSON map: where each
feature's text begins is known to the reader, or found again with msgspec
without decoding the features), else on the file as a whole (a table map).
The feature of a problem is the one the reader could not use
(:attr:`~eidomap.problems.Problem.index`), else the first of its
``features`` found in the map (the first Eido of an overlap, the Pousa of a
``pousa-off-road``, the first Eido around a gap).

Problems that follow from another (``caused_by``) are told in their cause's
message, as in the text output, and not placed apart.

>>> from eidomap.problems import Problem
>>> print(annotation("my map.geojson", Problem("gap", "error", ("A",), (1.0, 2.5), "A gap, here."), (3, 5)))
::error file=my map.geojson,line=3,col=5,title=gap::A gap, here. (at 1, 2.5)
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from ._version import __version__
from .errors import MapError
from .io.document import MapData
from .io.files import MAX_MAP_BYTES, read_bounded
from .io.tables import is_table_map
from .names import one_line
from .problems import Problem
from .validate import CODES, Report

__all__ = ["SARIF_SCHEMA", "annotation", "file_annotation", "github_annotations", "problem_places", "sarif_log",
           "where"]

#: The ``$schema`` of a SARIF 2.1.0 log: the OASIS standard's schema (errata 01).
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: The base the relative paths of the maps are written against (the working folder).
_ROOT = "%SRCROOT%"

#: A line and a column, both from 1 (columns in characters), or None: the file as a whole.
Place = tuple[int, int] | None


def where(p: Problem) -> str:
    """``" (at x, y)"``: the problem's point on the map, or ``""`` when it has none."""
    return "" if p.location is None else f" (at {p.location[0]:.6g}, {p.location[1]:.6g})"


def _shown(report: Report) -> list[Problem]:
    return [p for p in report.problems if p.caused_by is None]


def problem_places(report: Report, problems: Sequence[Problem]) -> list[Place]:
    """Where the feature of each of ``problems`` (of ``report``) begins in the map file.

    Returns one ``(line, column)`` per problem, or None where its feature is
    not known or not cheaply found (a table map, a map not read from a file).
    """
    md = report.data
    if md is None or not problems:
        return [None] * len(problems)
    index = _feature_index(md)
    wanted = [_feature_of(p, index) for p in problems]
    found = _places(md, sorted({i for i in wanted if i is not None}))
    return [None if i is None else found.get(i) for i in wanted]


def _feature_index(md: MapData) -> dict[str, int]:
    """The position among the file's features of each feature the map holds, by id (``#index`` without one)."""
    index: dict[str, int] = {}
    r = md.record
    for layer in (r.rivers, r.streams, r.fountains, r.pousas, r.roads, r.eidos):
        index.update(zip(layer.ids, layer.index, strict=True))
    return index


def _feature_of(p: Problem, index: dict[str, int]) -> int | None:
    if p.index is not None:
        return p.index
    return next((index[name] for name in p.features if name in index), None)


def _places(md: MapData, wanted: list[int]) -> dict[int, tuple[int, int]]:
    """Line and column of the beginning of features ``wanted`` (sorted) in the map file."""
    found = _offsets(md, wanted)
    if found is None:
        return {}
    text, offsets, skip = found
    newline: Any = "\n" if isinstance(text, str) else b"\n"  # (of text's kind)
    out, line, pos = {}, 1, 0
    for i, off in zip(wanted, offsets, strict=True):
        line += text.count(newline, pos, off)
        pos = off
        start = max(text.rfind(newline, 0, off) + 1, skip)
        before = text[start:off]
        out[i] = (line, 1 + (len(before) if isinstance(before, str) else len(before.decode("utf-8", "replace"))))
    return out


def _offsets(md: MapData, wanted: list[int]) -> tuple[str | bytes, list[int], int] | None:
    """The file's text, where features ``wanted`` begin in it, and how much of its start is a byte-order mark.

    The standard reader keeps the text and each feature's offset (characters);
    the msgspec reader keeps only each feature's bytes, so the file is read
    again and its features found by msgspec (bytes), without decoding them.
    """
    features = md.document.features
    text, starts = getattr(features, "text", None), getattr(features, "starts", None)
    if isinstance(text, str) and starts is not None and len(starts) == len(features):
        return text, [int(starts[i]) for i in wanted], 0
    if md.path is None or is_table_map(md.path):
        return None
    try:
        import msgspec
    except ImportError:  # (the standard reader, which keeps the offsets, read it)
        return None
    try:
        data = read_bounded(md.path, MAX_MAP_BYTES)
        skip = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
        raws: Any = msgspec.json.decode(memoryview(data)[skip:], type=dict[str, msgspec.Raw])["features"]
        raws = msgspec.json.decode(raws, type=list[msgspec.Raw])
    except (MapError, msgspec.DecodeError, msgspec.ValidationError, KeyError):
        return None
    if len(raws) != len(features):  # the file changed since it was validated
        return None
    base = np.frombuffer(data, np.uint8).ctypes.data
    offsets = []
    for i in wanted:  # msgspec's raw values are views into the bytes: their address is their place
        off = np.frombuffer(raws[i], np.uint8).ctypes.data - base
        if not (skip <= off and data[off : off + len(raws[i])] == bytes(raws[i])):
            return None
        offsets.append(off)
    return data, offsets, skip


# -- GitHub workflow annotations -------------------------------------------------------------------
def _escape(text: str, prop: bool = False) -> str:
    """``text`` as a workflow command's message (or, with ``prop``, one of its properties) may hold it: the runner's
    escapes for its line breaks, ``%`` (and ``:`` and ``,`` in a property), the other line breaks and control
    characters as ``repr`` writes them (the command is one line, whatever reads it)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return one_line(text.replace(":", "%3A").replace(",", "%2C") if prop else text)


def _command(level: str, path: str | os.PathLike, place: Place, title: str, message: str) -> str:
    at = "" if place is None else f",line={place[0]},col={place[1]}"
    return f"::{level} file={_escape(os.fspath(path), True)}{at},title={_escape(title, True)}::{_escape(message)}"


def annotation(path: str | os.PathLike, p: Problem, place: Place = None) -> str:
    """One GitHub workflow command that shows problem ``p`` on file ``path`` (at ``place``, a line and column)."""
    return _command("error" if p.severity == "error" else "warning", path, place, p.code, p.message + where(p))


def file_annotation(path: str | os.PathLike, message: str) -> str:
    """The GitHub workflow command that shows on file ``path`` why it cannot be read as a map."""
    return _command("error", path, None, "unreadable map", message)


def github_annotations(path: str | os.PathLike, report: Report) -> list[str]:
    """A workflow command (``::error file=...,line=...,title=CODE::message``) for each problem of ``report``."""
    shown = _shown(report)
    return [annotation(path, p, place) for p, place in zip(shown, problem_places(report, shown), strict=True)]


# -- SARIF -----------------------------------------------------------------------------------------
def _uri(path: str | os.PathLike) -> dict:
    """A SARIF artifact location: a relative path against the working folder, an absolute one as a file URI."""
    p = Path(path)
    if p.is_absolute():
        return {"uri": p.as_uri()}
    return {"uri": quote(p.as_posix()), "uriBaseId": _ROOT}


def sarif_log(checked: Iterable[tuple[str | os.PathLike, Report | str]]) -> dict:
    """A SARIF 2.1.0 log of the validation of maps: one run of eidomap, one result per problem.

    Parameters
    ----------
    checked : iterable of (path, Report or str)
        Each map as named on the command line, with its report, or the one
        line saying why it could not be read (told as a tool notification,
        and the run marked as not successful).

    Returns
    -------
    dict
        The log, ready for ``json.dumps``: each result has the problem's code
        as ``ruleId``, its severity as ``level``, its message, the map file
        (with the line and column of its feature where known, see
        :func:`problem_places`) and, in ``properties``, the ids of the
        features involved and the problem's point on the map.
    """
    rules: dict[str, int] = {}
    artifacts: list[dict] = []
    results: list[dict] = []
    notes: list[dict] = []
    for path, report in checked:
        artifact = _uri(path) | {"index": len(artifacts)}
        artifacts.append({"location": _uri(path)})
        if isinstance(report, str):
            notes.append({"level": "error", "message": {"text": report},
                          "locations": [{"physicalLocation": {"artifactLocation": artifact}}]})
            continue
        shown = _shown(report)
        for p, place in zip(shown, problem_places(report, shown), strict=True):
            rule = rules.setdefault(p.code, len(rules))
            physical: dict = {"artifactLocation": artifact}
            if place is not None:
                physical["region"] = {"startLine": place[0], "startColumn": place[1]}
            props: dict[str, list] = {"features": list(p.features)}
            if p.location is not None:
                props["location"] = [float(p.location[0]), float(p.location[1])]
            results.append({"ruleId": p.code, "ruleIndex": rule, "level": p.severity,
                            "message": {"text": p.message + where(p)},
                            "locations": [{"physicalLocation": physical}], "properties": props})
    run = {
        "tool": {"driver": {"name": "eidomap", "version": __version__, "semanticVersion": __version__,
                            "rules": [{"id": code, "defaultConfiguration": {"level": CODES[code]}}
                                      for code in rules]}},
        "invocations": [{"executionSuccessful": not notes, "toolExecutionNotifications": notes}],
        "originalUriBaseIds": {_ROOT: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
        "artifacts": artifacts,
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
