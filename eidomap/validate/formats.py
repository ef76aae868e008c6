"""Validation reports for CI systems: SARIF 2.1.0 and GitHub workflow annotations.

Each problem is placed on its map file at the line and column where the text
of its feature begins, when that is cheap to know (a GeoJSON map: where each
feature's text begins is known to the reader, or found again with msgspec
without decoding the features), else on the file as a whole (a table map).
The feature of a problem is the one the reader could not use
(:attr:`~eidomap.base.problems.Problem.index`), else the first of its
``features`` found in the map (the first Eido of an overlap, the Pousa of a
``pousa-off-road``, the first Eido around a gap).

Problems that follow from another (``caused_by``) are told in their cause's
message, as in the text output, and not placed apart.

>>> from eidomap.base.problems import Problem
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

from eidomap.base.errors import MapError
from eidomap.base.files import MAX_MAP_BYTES, read_bounded
from eidomap.base.names import one_line
from eidomap.base.problems import Problem
from eidomap.base.version import __version__
from eidomap.io.document import MapData
from eidomap.io.tables import is_table_map
from eidomap.validate.checks import CODES, Report

#: The ``$schema`` of a SARIF 2.1.0 log: the OASIS standard's schema (errata 01).
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: The base the relative paths of the maps are written against (the working folder).
_ROOT = "%SRCROOT%"
#: Where the documentation site built from docs/ is published (the repository's pages; docs/validation.md names
#: the repository ``github.com/OWNER/eidomap`` too): each SARIF rule's ``helpUri`` is its code's row of the
#: validation page there (:func:`help_uri`).
DOCS_URL = "https://OWNER.github.io/eidomap/"
#: Each validation code's SARIF rule: a short description (what is wrong) and a full one (what it means, what to do).
#: docs/validation.md tells each at length, in the row :func:`help_uri` points at.
RULES: dict[str, tuple[str, str]] = {
    "not-a-feature": ("An entry of the map is not a feature",
                      "An entry of 'features' is not a GeoJSON Feature, or its 'properties' is not an object: it is"
                      " left out of the map."),
    "unknown-kind": ("A feature of an unknown kind",
                     "A feature's 'kind' is not one of eido, road, pousa, fountain, stream: it is left out of the"
                     " map."),
    "missing-id": ("An Eido or a road without an id",
                   "Every Eido and road needs an id (routes, the command line and the other features name it): the"
                   " feature is left out of the map."),
    "bad-id": ("An id that is neither text nor a whole number",
               "An id must be a string or a whole number (not 1.5, true or an object): the feature is left out of"
               " the map."),
    "duplicate-id": ("An id used twice",
                     "An id already used by an earlier feature, whatever its kind (an automatic Pousa id road@k"
                     " included): the later feature is left out of the map. Give each feature its own id."),
    "invalid-geometry": ("A geometry eidomap cannot use",
                         "The wrong geometry type for the feature's kind, malformed, NaN or infinite coordinates, an"
                         " unclosed or too short ring, a line without two distinct points, or a polygon GEOS finds"
                         " invalid (a self-intersection...): the feature is left out of the map."),
    "unknown-terrain": ("An Eido of a terrain the catalog does not have",
                        "An Eido's terrain is not in the map's catalog: it is left out of the map. Fix the name or"
                        " add the terrain to the catalog."),
    "unknown-road": ("A Pousa of a road the map does not have",
                     "A Pousa's 'road' is not the id of a road of the map: it is left out of the map."),
    "bad-property": ("A property a d20 map does not take",
                     "On a d20 map, a road whose 'class' is not highway, road or trail, or a river whose 'current'"
                     " is not a number of miles an hour of at least 0."),
    "no-eidos": ("No Eido could be read",
                 "No Eido of the map could be read, so there is no board to move on."),
    "overlap": ("Two Eidos overlap",
                "The interiors of two Eidos overlap, wider than the drawing tolerance: part of the board belongs to"
                " both. Move one border onto the other."),
    "gap": ("A gap in the board",
            "A hole in the board that belongs to no Eido (slivers included), wider than the drawing tolerance:"
            " Eidos around it that should share a border do not. eidomap fix closes small gaps."),
    "near-miss": ("Two borders that nearly meet",
                  "Two Eidos that are not adjacent but whose borders run within the near-miss distance of each"
                  " other over open space: the usual way a map loses a border, so that no one can cross there."
                  " eidomap fix snaps such borders together."),
    "inlet": ("A narrow slit between two Eidos",
              "Two Eidos on the board's edge face each other across a slit running in from outside the board,"
              " narrower than the inlet width: but for the slit they would share a border. eidomap fix snaps one"
              " side onto the other."),
    "corner-contact": ("Two Eidos that touch at a corner only",
                       "Two Eidos touch but share no length of border: they meet at a corner, and the rules let no"
                       " one cross there. Share a side if a crossing is meant."),
    "isolated": ("An Eido with no neighbour",
                 "An Eido that shares no length of border with another: no step crosses a border into it or out"
                 " of it."),
    "pousa-off-road": ("A Pousa off its road",
                       "A Pousa farther than the drawing tolerance from the line of its road."),
    "pousa-outside": ("A Pousa in no Eido",
                      "A Pousa that lies in no Eido (not within the drawing tolerance of any)."),
    "pousa-junction": ("A Pousa where three or more Eidos meet",
                       "A Pousa within the tolerance of three or more Eidos: the rules let it be boarded from each"
                       " of them, which is rarely meant."),
    "road-short": ("A road with fewer than two Pousas",
                   "A road with fewer than two Pousas goes nowhere: a road is travelled from Pousa to Pousa (on"
                   " an Eido map; a d20 map's roads are followed along their line)."),
    "road-outside": ("A road leaving the board",
                     "A road whose line runs outside the board's outline for longer than the drawing tolerance."),
    "fountain-outside": ("A fountain in no Eido",
                         "A fountain that lies in no Eido of the board."),
    "stream-outside": ("A stream whose source or mouth is in no Eido",
                       "A stream's source (its first point) or mouth (its last point) lies in no Eido."),
    "unreachable": ("Eidos a species cannot reach",
                    "Asked for with --species: the Eidos that species cannot reach from the largest region it can"
                    " move in (some of them may be of terrains it can never enter)."),
}

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


def help_uri(code: str) -> str:
    """Where the documentation site explains validation code ``code``: its row of the validation page.

    >>> help_uri("gap").endswith("validation.html#code-gap")
    True
    """
    return f"{DOCS_URL}validation.html#code-{code}"


def _rule(code: str) -> dict:
    """The SARIF rule of a validation code: its id, severity, descriptions and help."""
    short, full = RULES[code]
    return {"id": code, "name": "".join(w.capitalize() for w in code.split("-")),
            "shortDescription": {"text": short}, "fullDescription": {"text": full},
            "help": {"text": f"{full} See {help_uri(code)}", "markdown": f"{full} [More]({help_uri(code)})"},
            "helpUri": help_uri(code), "defaultConfiguration": {"level": CODES[code]}}


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
        features involved and the problem's point on the map.  Each code
        found is a rule of the run, with its descriptions (:data:`RULES`)
        and its row of the documentation's validation page (:func:`help_uri`).
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
                            "informationUri": DOCS_URL, "rules": [_rule(code) for code in rules]}},
        "invocations": [{"executionSuccessful": not notes, "toolExecutionNotifications": notes}],
        "originalUriBaseIds": {_ROOT: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
        "artifacts": artifacts,
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
