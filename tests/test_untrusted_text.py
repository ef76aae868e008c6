"""No text from a map file, a file name or an argument starts a line of output or breaks one.

A map is untrusted: its ids, names, terrains, species and file name may hold line breaks -- every
character :meth:`str.splitlines` ends a line on -- and text such as ``::error::`` that a CI runner
reads, at the start of a line, as a workflow command (``validate`` runs in CI through the pre-commit
hook).  Each command is run here on maps made of such text: every line it prints begins with
eidomap's own words (or is an annotation eidomap wrote, for ``--format github``), and each problem
is one line.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, collection, eido, feature, road, run, square

from eidomap.base.names import one_line, shown

#: Every character :meth:`str.splitlines` ends a line on, and the pair it reads as one.
BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def evil(word: str) -> str:
    """Text that begins with a workflow command and holds one after each line break."""
    return f"::error::{word}%" + "".join(f"{b}::error::{word}%" for b in BREAKS)


def evil_file(word: str, suffix: str = "") -> str:
    """A file name as :func:`evil`, short enough for the file system."""
    return f"::error::{word}%" + "".join(f"{b}::e" for b in BREAKS) + suffix


E1, E2, E3, E4 = evil("E1"), evil("E2"), evil("E3"), evil("E4")
ROAD, P1, P2, FOUNTAIN, STREAM = evil("R"), evil("P1"), evil("P2"), evil("F"), evil("S")
SPECIES, TERRAIN = evil("sp"), evil("t")
#: A GitHub workflow command eidomap writes: level, file, place and title as properties, then the message.
ANNOTATION = re.compile(r"::(error|warning) file=[^:,]*(,line=\d+,col=\d+)?,title=[^:,]*::[^\r\n]*")


def _lines_are_eidomap_s(text: str, annotations: int | None = None) -> list[str]:
    """The lines of ``text``, each checked: none begins with a command (but ``annotations`` of them)."""
    lines = text.splitlines()
    made = [line for line in lines if ANNOTATION.fullmatch(line)]
    for line in lines:
        if line in made and annotations is not None:
            assert re.fullmatch(r"(%(25|0A|0D|3A|2C)|[^%])*", line), f"a '%' not escaped: {line!r}"
            continue
        assert not line.startswith(("::", "##", "~~~", "%")), f"a line begins with text of the map: {line!r}"
    assert len(made) == (annotations or 0), lines
    return lines


@pytest.fixture
def maps(tmp_path, monkeypatch):
    """Maps, a catalog and a battle grid whose every name is :func:`evil`, in the working folder."""
    monkeypatch.chdir(tmp_path)
    catalog = evil_file("catalog", ".toml")
    names = {"map": evil_file("map", ".geojson"), "bad": evil_file("bad", ".geojson"),
             "near": evil_file("near", ".geojson"), "d20": evil_file("d20", ".geojson"),
             "grid": evil_file("grid", ".txt"), "catalog": catalog, "missing": evil_file("missing", ".geojson")}

    def key(text: str) -> str:
        return json.dumps(text)  # a TOML basic string is JSON's (escapes \uXXXX)

    Path(catalog).write_text(f"[terrains]\n{key(TERRAIN)} = {{ medium = \"land\", label = {key(evil('label'))} }}\n"
                             f"[species.walker]\nvmv = 0\ncosts = {{ meadow = 1 }}\n"
                             f"[species.{key(SPECIES)}]\nlabel = {key(evil('label'))}\nvmv = 0\n"
                             f"costs = {{ meadow = 1, {key(TERRAIN)} = 2 }}\n", encoding="utf-8")
    cells = [eido(E1, "meadow", square(0, 0), name=evil("name1")), eido(E2, "meadow", square(1, 0)),
             eido(E3, TERRAIN, square(2, 0), name=evil("name3")), eido(E4, "meadow", square(3, 0))]
    ways = [road(ROAD, [[0.5, 0.5], [3.5, 0.5]]), feature("pousa", "Point", [0.5, 0.5], P1, road=ROAD),
            feature("pousa", "Point", [3.5, 0.5], P2, road=ROAD), feature("fountain", "Point", [1.5, 0.5], FOUNTAIN),
            feature("stream", "LineString", [[1.2, 0.2], [3.8, 0.8]], STREAM)]
    meta = {"name": evil("name"), "catalog": catalog}
    Path(names["map"]).write_text(json.dumps(collection(cells + ways, **meta)), encoding="utf-8")
    wrong = [eido(evil("X"), evil("unknown"), square(4, 0)), eido(evil("Y"), "meadow", square(0.5, 0)),
             feature("pousa", "Point", [2.5, 0.5], evil("P3"), road=evil("nowhere"))]
    Path(names["bad"]).write_text(json.dumps(collection(cells + ways + wrong, **meta)), encoding="utf-8")
    near = [*cells[:3], eido(E4, "meadow", [[[3.0005, 0], [4, 0], [4, 1], [3.0005, 1], [3.0005, 0]]])]
    Path(names["near"]).write_text(json.dumps(collection(near, **meta)), encoding="utf-8")
    d20 = json.loads((ROOT / "maps" / "d20-overland.geojson").read_text())
    for f in d20["features"]:
        f["id"] = evil(f["id"])
    d20["eidomap"]["name"] = evil("d20 map")
    Path(names["d20"]).write_text(json.dumps(d20), encoding="utf-8")
    shutil.copy(ROOT / "maps" / "d20-battle.txt", names["grid"])
    return names


def test_validate_text_is_one_line_a_problem(maps, capsys):
    code, out, err = run(["validate", maps["bad"]], capsys)
    assert code == 1 and not err
    lines = _lines_are_eidomap_s(out)
    assert all(line.startswith(("error: ", "warning: ")) for line in lines[:-1])
    assert lines[-1] == f"{shown(maps['bad'])}: {len(lines) - 1} errors, 0 warnings"
    assert repr(evil("unknown")) in out  # the text is told, escaped


def test_validate_github_is_one_annotation_a_problem_and_its_summary_escaped(maps, capsys):
    code, out, err = run(["validate", maps["bad"], "--format", "github"], capsys)
    assert code == 1 and not err
    lines = _lines_are_eidomap_s(out, annotations=len(out.splitlines()) - 1)
    assert lines[-1].startswith(f"{shown(maps['bad'])}: ") and lines[-1].startswith("'::error::bad")
    assert all(line.startswith("::error file=%3A%3Aerror%3A%3Abad%25%0A%3A%3Ae%0D%3A%3Ae") for line in lines[:-1])


@pytest.mark.parametrize("fmt", [[], ["--format", "github"]])
def test_validate_of_several_maps_as_the_pre_commit_hook_runs_it(maps, capsys, fmt):
    code, out, err = run(["validate", maps["map"], maps["bad"], maps["missing"], *fmt], capsys)
    assert code == 2
    _lines_are_eidomap_s(out, annotations=out.count("\n::") + out.startswith("::") if fmt else None)
    (said,) = _lines_are_eidomap_s(err)
    assert said.startswith(f"eidomap: {shown(maps['missing'])}: ")


@pytest.mark.parametrize("fmt", [["--json"], ["--format", "sarif"]])
def test_validate_json_is_a_json_line_a_line(maps, capsys, fmt):
    code, out, _ = run(["validate", maps["bad"], *fmt], capsys)
    assert code == 1
    _lines_are_eidomap_s(out)
    assert json.loads(out) and len(out.splitlines()) == out.count("\n")


def test_validate_watch_lines(maps, capsys, monkeypatch):
    """Each save's lines: what it brought and fixed, and a save that cannot be read."""
    from eidomap.validate import watch

    path = Path(maps["map"])
    good, bad = path.read_text(), Path(maps["bad"]).read_text()

    def saves(_path, _since):
        path.write_text(bad)
        yield None
        path.write_text("{")
        yield None
        path.write_text(good)
        yield None
        raise KeyboardInterrupt

    monkeypatch.setattr(watch, "saves", saves)
    code, out, err = run(["validate", "--watch", maps["map"]], capsys)
    assert code == 130
    lines = _lines_are_eidomap_s(out)
    assert lines[0].startswith(f"watching {shown(maps['map'])}: ")
    assert sum(line.startswith("new: ") for line in lines) == sum(line.startswith("fixed: ") for line in lines) > 2
    _lines_are_eidomap_s(err)


COMMANDS = {
    "validate-species": ["validate", "{map}", "--species", f"walker,{SPECIES}"],
    "info": ["info", "{map}"],
    "neighbors": ["neighbors", "{map}"],
    "neighbors-of": ["neighbors", "{map}", E2],
    "species": ["species", "--catalog", "{catalog}"],
    "route": ["route", "{map}", "--from", E1, "--to", E4, "--species", SPECIES],
    "route-rolls": ["route", "{map}", "--from", P1, "--to", E4, "--species", SPECIES, "--rolls", "1,6,6"],
    "route-unreachable": ["route", "{map}", "--from", E1, "--to", E3, "--species", "walker"],
    "route-unknown-id": ["route", "{map}", "--from", evil("E"), "--to", E3, "--species", SPECIES],
    "route-unknown-species": ["route", "{map}", "--from", E1, "--to", E3, "--species", evil("s")],
    "route-bad-map": ["route", "{bad}", "--from", E1, "--to", E3, "--species", SPECIES],
    "reach-roll": ["reach", "{map}", "--from", E1, "--species", SPECIES, "--roll", "3"],
    "reach-turns": ["reach", "{map}", "--from", E1, "--species", SPECIES, "--turns", "2"],
    "reach-rolls": ["reach", "{map}", "--from", E1, "--species", SPECIES, "--rolls", "3,3"],
    "fix": ["fix", "{near}", "-o", evil_file("fixed", ".geojson")],
    "convert": ["convert", "{map}", evil_file("out", ".gpkg")],
    "plot": ["plot", "{map}", "--png", evil_file("out", ".png")],
    "planner": ["planner", "{map}", "-o", evil_file("out", ".html")],
    "generate": ["generate", "--eidos", "5", evil_file("gen", ".geojson")],
    "batch": ["batch", "{map}", "--species", SPECIES, "--from", E1, "--to", E4, "--out", evil_file("result"),
              "--quiet", "--workers", "1"],
    "d20-travel": ["d20", "travel", "{d20}", "--from", evil("greenfield"), "--to", evil("kingsbridge")],
    "d20-travel-unknown": ["d20", "travel", "{d20}", "--from", evil("greenfeld"), "--to", "0,0"],
    "d20-reach": ["d20", "reach", "{grid}", "--at", "0,0", "--speed", "30", "--png", evil_file("grid", ".png")],
    "d20-reach-outside": ["d20", "reach", "{grid}", "--at", "999,0", "--speed", "30"],
    "d20-planner": ["d20", "planner", "{grid}", "-o", evil_file("grid", ".html")],
    "d20-route": ["d20", "route", "{grid}", "--from", "0,0", "--to", "13,0", "--speed", "30", "--png",
                  evil_file("route", ".png")],
    "report": ["report", "{map}", "--species", f"walker,{SPECIES}", "-o", evil_file("report", ".html")],
    "validate-png": ["validate", "{bad}", "--png", evil_file("problems", ".png")],
    "species-json": ["species", "--catalog", "{catalog}", "--json"],
    "info-json": ["info", "{map}", "--json"],
    "unknown-map": ["info", "{missing}"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_writes_the_text_of_the_map_within_its_own_lines(maps, capsys, name):
    argv = [a.format(**maps) if a.startswith("{") else a for a in COMMANDS[name]]
    code, out, err = run(argv, capsys)
    assert code in (0, 1, 2), (out, err)
    _lines_are_eidomap_s(out)
    said = _lines_are_eidomap_s(err)
    assert all(line.startswith("eidomap: ") for line in said), said
    assert "::error::" in out + err  # the text was told (escaped), not left out


def test_the_svg_and_tiled_imports_warn_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = evil("n").replace("\r\n", "").translate({0x0B: None, 0x0C: None, 0x1C: None, 0x1D: None, 0x1E: None})
    attr = "".join(f"&#{ord(c)};" if not c.isalnum() else c for c in name)  # (XML holds no other control char)
    Path("board.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">'
        f'<rect id="{attr}" x="0" y="0" width="5" height="5" fill="#00ff00" data-terrain="meadow"/>'
        f'<use id="{attr}2" xlink:href="#a"/><rect id="{attr}3" x="5" y="0" width="5" height="5"'
        ' transform="rotate(x)"/></svg>', encoding="utf-8")
    code, out, err = run(["import-svg", "board.svg", "-o", evil_file("svg", ".geojson")], capsys)
    assert code == 0 and err.count("::error::n") >= 2
    _lines_are_eidomap_s(out)
    _lines_are_eidomap_s(err)
    tiled = {"type": "map", "orientation": "orthogonal", "width": 4, "height": 4, "tilewidth": 10, "tileheight": 10,
             "layers": [{"type": "objectgroup", "name": name, "objects": [
                 {"id": 1, "name": name, "type": "eido", "x": 0, "y": 0, "width": 20, "height": 20,
                  "properties": [{"name": "terrain", "type": "string", "value": "meadow"},
                                 {"name": name, "type": "object", "value": 3}]},
                 {"id": 2, "name": name, "type": "eido", "x": 0, "y": 0, "point": True}]}]}
    Path("board.tmj").write_text(json.dumps(tiled), encoding="utf-8")
    code, out, err = run(["import-tiled", "board.tmj", "-o", evil_file("tiled", ".geojson")], capsys)
    assert code == 0 and err.count("::error::n") >= 2
    _lines_are_eidomap_s(out)
    _lines_are_eidomap_s(err)


@pytest.mark.parametrize("text", [*BREAKS, "\x1b[2J", "\ud800", "\x00", "\x7f", "\x9b"])
def test_shown_and_one_line_escape_what_ends_or_hides_a_line(text):
    said = shown(f"a{text}b")
    assert said.isprintable() and len(said.splitlines()) == 1 and said == repr(f"a{text}b")
    line = one_line(f"a{text}b")
    assert line.isprintable() and len(line.splitlines()) == 1


@pytest.mark.parametrize(("text", "said"), [
    ("maps/demo.geojson", "maps/demo.geojson"), ("porto-norte", "porto-norte"), ("#12", "#12"),
    ("Illas das Marabillas (demo)", "Illas das Marabillas (demo)"), ("ñ.geojson", "ñ.geojson"),
    ("::error::x", "'::error::x'"), ("##[error]x", "'##[error]x'"), ("~~~ x", "'~~~ x'"), ("#12\n", "'#12\\n'"),
    ("", "''"), (" x", "' x'"), ("x ", "'x '"), ("a\u00a0b", "'a\\xa0b'"), (Path("a b/c"), "a b/c"),
])
def test_shown_writes_plain_text_as_it_is_and_quotes_the_rest(text, said):
    assert shown(text) == said
    assert shown(text, quoted=True) == repr(str(text))
