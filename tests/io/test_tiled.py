"""eidomap import-tiled: a Tiled map made for the test, in JSON and TMX, and bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, shared

import eidomap
from eidomap.cli import main
from eidomap.io.tiled import read_tiled
from eidomap.validate.checks import validate

DATA = Path(__file__).resolve().parents[1] / "data" / "tiled"
HEIGHT = 80.0  # 8 rows of 10-pixel tiles: the y axis is flipped with it


def run_cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def read(name: str, **kw):
    path = DATA / name
    return read_tiled(path.read_bytes(), path, **kw)


@pytest.fixture(scope=shared("module"), params=["board.tmj", "board.tmx"])
def board(request):
    doc, warnings = read(request.param)
    return {f["id"]: f for f in doc["features"]}, warnings, doc


def test_json_and_tmx_give_the_same_map():
    a, _ = read("board.tmj")
    b, _ = read("board.tmx")
    assert a["features"] == b["features"] and a["eidomap"] == b["eidomap"]


def test_features(board):
    feats, _, doc = board
    kinds = {fid: f["properties"]["kind"] for fid, f in feats.items()}
    assert kinds == {"meadow-1": "eido", "forest-1": "eido", "scrub-1": "eido", "bay": "eido", "t8": "eido",
                     "t9": "eido", "king's road": "road", "p-start": "pousa", "t12": "pousa", "t13": "pousa",
                     "well": "fountain", "brook": "stream"}
    terrain = {fid: f["properties"].get("terrain") for fid, f in feats.items() if kinds[fid] == "eido"}
    assert terrain == {"meadow-1": "meadow", "forest-1": "forest", "scrub-1": "scrub", "bay": "sea",
                       "t8": "marsh", "t9": "rocks"}
    # a name used twice gives t<id> ids, and is kept
    assert feats["t8"]["properties"]["name"] == feats["t9"]["properties"]["name"] == "lowland"
    # plain custom properties are copied; the class-typed one is not
    assert feats["meadow-1"]["properties"] == {"kind": "eido", "region": "west", "fertile": True, "height": 3,
                                               "terrain": "meadow"}
    assert {feats[p]["properties"]["road"] for p in ("p-start", "t12", "t13")} == {"king's road"}
    assert doc["eidomap"] == {"format": 1, "rules": "eido", "name": "Tiled test board"}


def test_upright_coordinates(board):
    feats, _, _ = board
    assert feats["meadow-1"]["geometry"]["coordinates"] == [[[0, 80], [40, 80], [40, 40], [0, 40], [0, 80]]]
    # layer offsets: the Roads layer is shifted 5 pixels right
    assert feats["king's road"]["geometry"]["coordinates"] == [[20, 60], [60, 60], [100, 60]]
    assert feats["p-start"]["geometry"]["coordinates"] == [20, 60]
    # nested groups: Extras (+10) holds Magic (-10)
    assert feats["well"]["geometry"]["coordinates"] == [20, 70]
    assert feats["brook"]["geometry"]["coordinates"] == [[70, 50], [50, 20]]  # source first


def test_rotated_rectangles(board):
    feats, _, _ = board
    # a quarter turn clockwise about (120, 0): exactly the square x 80..120, y-down 0..40
    ring = np.array(feats["scrub-1"]["geometry"]["coordinates"][0])
    assert sorted(map(tuple, ring[:-1].tolist())) == [(80, 40), (80, 80), (120, 40), (120, 80)]
    # 30 degrees clockwise (on screen, y down) about the object's (140, 10), then y flipped
    t = math.radians(30)
    want = []
    for u, v in [(0, 0), (20, 0), (20, 10), (0, 10)]:
        z = complex(u, v) * complex(math.cos(t), math.sin(t))  # y down: a positive angle turns clockwise
        want.append((140 + z.real, HEIGHT - (10 + z.imag)))
    got = feats["t9"]["geometry"]["coordinates"][0]
    assert got[0] == got[-1]
    assert np.allclose(got[:-1], want, atol=1e-12)
    assert np.allclose(want[1], (157.3205080757, 60.0))  # the far corner, by hand: 140 + 20 cos 30, 80 - 20 sin 30


def test_what_cannot_be_mapped_is_a_warning(board):
    _, warnings, _ = board
    text = "\n".join(warnings)
    for needle in ["layer 'Ground' is a tile layer", "layer 'Sketch' is an image layer",
                   "object 4 'pond' (layer 'Board/Land') is an ellipse", "object 5 (layer 'Board/Land') is a text",
                   "object 14 (layer 'Roads') is a point without class", "custom property 'style' of type 'class'",
                   "object 6 'volcano' (layer 'Board/Land'): has terrain 'lava', which is not in the catalog",
                   "map property 'author' is not imported"]:
        assert needle in text
    assert len(warnings) == 8


def test_cli_import_then_load_and_validate(tmp_path, capsys):
    out = tmp_path / "board.geojson"
    code, text, err = run_cli(["import-tiled", DATA / "board.tmx", "-o", out], capsys)
    assert code == 0 and err.count("eidomap: warning: ") == 8
    assert "6 Eidos, 1 road, 3 Pousas, 1 fountain, 1 stream; 8 warnings" in text
    m = eidomap.load(out)
    assert sorted(m.neighbors("forest-1")) == ["bay", "meadow-1", "scrub-1", "t8"]
    # the skerry, off the board, is the only thing to say
    assert [(p.code, p.features) for p in validate(out).problems] == [("isolated", ("t9",))]


def test_catalog_with_more_terrains(tmp_path, capsys):
    cat = tmp_path / "lava.toml"
    cat.write_text('[terrains]\nlava = { medium = "land", label = "Lava" }\n')
    out = tmp_path / "board.geojson"
    code, _, err = run_cli(["import-tiled", DATA / "board.tmj", "-o", out, "--catalog", cat], capsys)
    assert code == 0 and "volcano" not in err
    doc = json.loads(out.read_text())
    assert doc["eidomap"]["catalog"] == "lava.toml"
    assert "volcano" in eidomap.load(out).eido_ids


def _tmj(objects, **extra) -> bytes:
    doc = {"type": "map", "height": 10, "tileheight": 10, "orientation": "orthogonal",
           "layers": [{"type": "objectgroup", "name": "L", "objects": objects}], **extra}
    return json.dumps(doc).encode()


def _rect(id_, name, cls, x, y, w=10, h=10, **kw):
    return {"id": id_, "name": name, "type": cls, "x": x, "y": y, "width": w, "height": h, **kw}


def test_a_layer_of_a_kind_no_json_string_names_is_a_warning(tmp_path, capsys):
    src = tmp_path / "odd.tmj"
    doc = json.loads((DATA / "board.tmj").read_text())
    doc["layers"].append({"type": ["tilelayer"], "name": "T"})
    src.write_text(json.dumps(doc))
    code, _, err = run_cli(["import-tiled", src, "-o", tmp_path / "out.geojson"], capsys)
    assert code == 0 and "layer 'T' is a ['tilelayer'] layer; only object layers are imported" in err, err


def test_pousa_roads_and_odd_objects():
    road_a = {"id": 3, "name": "a", "type": "road", "x": 0, "y": 5, "polyline": [{"x": 0, "y": 0}, {"x": 20, "y": 0}]}
    road_b = {"id": 4, "name": "b", "type": "", "x": 10, "y": 0, "properties": [{"name": "road", "type": "bool",
              "value": True}], "polyline": [{"x": 0, "y": 0}, {"x": 0, "y": 10}]}
    objects = [_rect(1, "m", "meadow", 0, 0), _rect(2, "f", "forest", 10, 0), road_a, road_b,
               {"id": 5, "type": "pousa", "x": 10, "y": 5, "point": True},  # on both roads: ambiguous
               {"id": 6, "type": "pousa", "x": 1, "y": 9, "point": True},  # on no road
               {"id": 7, "type": "pousa", "x": 20, "y": 5, "point": True,
                "properties": [{"name": "road", "type": "string", "value": "zz"}]},
               {"id": 8, "type": "pousa", "x": 0, "y": 5, "point": True},
               {"id": 9, "type": "pousa", "x": 10, "y": 10, "point": True},
               _rect(10, "r", "road", 0, 0), {"id": 11, "gid": 5, "x": 0, "y": 0, "width": 8, "height": 8},
               {"id": 12, "template": "tree.tx", "x": 0, "y": 0}, _rect(13, "z", "", 0, 0, w=0),
               {"id": 14, "name": "s", "type": "meadow", "x": "left", "y": 0, "width": 1, "height": 1}]
    doc, warnings = read_tiled(_tmj(objects, orientation="isometric"))
    feats = {f["id"]: f for f in doc["features"]}
    assert feats["t8"]["properties"]["road"] == "a" and feats["t9"]["properties"]["road"] == "b"
    assert feats["b"]["properties"] == {"kind": "road"}  # its road property is what made it a road
    text = "\n".join(warnings)
    for needle in ["object 5 (layer 'L'): has no 'road' property and lies on 2 roads",
                   "object 6 (layer 'L'): has no 'road' property and lies on no road",
                   "object 7 (layer 'L'): names road 'zz'", "object 10 'r' (layer 'L') is a rectangle of class 'road'",
                   "object 11 (layer 'L') is a tile object", "object 12 (layer 'L') is a template instance",
                   "object 13 'z' (layer 'L') is a rectangle without area", "object 14 's' (layer 'L'): its 'x' is not",
                   "the map is 'isometric'"]:
        assert needle in text


@pytest.mark.parametrize(("name", "content", "message"), [
    ("bad.tmj", b"{not json", "is not valid JSON"),
    ("bad.json", b"[1, 2]", "is not a Tiled map"),
    ("tileset.tsj", b'{"type": "tileset", "tiles": []}', "is a Tiled 'tileset', not a map"),
    ("nolayers.tmj", b'{"type": "map"}', "it has no 'layers' list"),
    ("entity.tmx", (b'<?xml version="1.0"?>\n<!DOCTYPE map [<!ENTITY a "aaaaaaaaaa">\n<!ENTITY b "&a;&a;&a;&a;">]>'
                    b'\n<map><properties><property name="name" value="&b;"/></properties></map>'),
     "holds a DOCTYPE or ENTITY declaration"),
    ("external.tmx", b'<?xml version="1.0"?><!DOCTYPE map SYSTEM "file:///etc/passwd"><map/>',
     "holds a DOCTYPE or ENTITY declaration"),
    ("utf16.tmx", '<?xml version="1.0" encoding="UTF-16"?><map/>'.encode("utf-16"), "is not UTF-8 text"),
    ("latin.tmx", b'<?xml version="1.0" encoding="ISO-8859-1"?><map/>', "declares the encoding 'ISO-8859-1'"),
    ("broken.tmx", b"<map><objectgroup></map>", "is not well-formed XML"),
    ("svg.tmx", b"<svg/>", "its root element is <svg>"),
    ("number.tmx", b'<map height="8" tileheight="ten"/>', "has a malformed number"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, name, content, message):
    src = tmp_path / name
    src.write_bytes(content)
    code, out, err = run_cli(["import-tiled", src, "-o", tmp_path / "out.geojson"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"eidomap: {src}: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "out.geojson").exists()


@pytest.mark.parametrize(("source", "said"), [
    (ROOT / "maps" / "demo.geojson", "is a GeoJSON map, not a Tiled map: the map commands read it"),
    (ROOT / "maps" / "d20-battle.txt", "is a d20 battle grid (one character a square, docs/d20.md), not a map: "
                                       "the battle-grid commands read it"),
])
def test_a_map_or_a_battle_grid_given_to_import_tiled_is_said_for_what_it_is(tmp_path, capsys, source, said):
    """As a map command says of a grid and a grid command of a map (issue 46, 7): import-tiled said a GeoJSON map
    "is a Tiled 'FeatureCollection', not a map" and a battle grid "is not valid JSON"."""
    src = tmp_path / f"board{source.suffix}"
    src.write_bytes(source.read_bytes())
    code, out, err = run_cli(["import-tiled", src, "-o", tmp_path / "out.geojson"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"eidomap: {src}: {said}")


def test_group_nesting_is_bounded(tmp_path, capsys):
    layer = {"type": "objectgroup", "name": "L", "objects": []}
    for _ in range(70):
        layer = {"type": "group", "name": "g", "layers": [layer]}
    src = tmp_path / "deep.tmj"
    src.write_text(json.dumps({"type": "map", "layers": [layer]}))
    code, _, err = run_cli(["import-tiled", src, "-o", tmp_path / "o.geojson"], capsys)
    assert code == 2 and "nests layers more than 64 groups deep" in err


@pytest.mark.parametrize("groups", [64, 65])
def test_a_layer_64_groups_deep_is_read_and_one_more_is_refused(tmp_path, capsys, groups):
    """The bound is 64 groups: a meadow in a layer exactly that deep is imported, under its groups' names."""
    layer = {"type": "objectgroup", "name": "L", "objects": [
        {"id": 1, "name": "a", "type": "meadow", "x": 0, "y": 0, "width": 10, "height": 10}]}
    for _ in range(groups):
        layer = {"type": "group", "name": "g", "layers": [layer]}
    src = tmp_path / "deep.tmj"
    src.write_text(json.dumps({"type": "map", "height": 1, "tileheight": 10, "layers": [layer]}))
    code, _, err = run_cli(["import-tiled", src, "-o", tmp_path / "o.geojson"], capsys)
    if groups > 64:
        assert code == 2 and err == f"eidomap: {src}: nests layers more than 64 groups deep\n"
    else:
        assert code == 0, err
        assert eidomap.load(tmp_path / "o.geojson").terrains == ["meadow"]


def test_missing_file_and_output_over_input(tmp_path, capsys):
    code, _, err = run_cli(["import-tiled", tmp_path / "nope.tmx", "-o", tmp_path / "o.geojson"], capsys)
    assert code == 2 and "cannot be read" in err and err.count("\n") == 1
    src = tmp_path / "board.tmj"
    src.write_bytes((DATA / "board.tmj").read_bytes())
    code, _, err = run_cli(["import-tiled", src, "-o", src], capsys)
    assert code == 2 and "choose another output file" in err
    assert src.read_bytes() == (DATA / "board.tmj").read_bytes()


# -- tile layers to a d20 battle grid (import-tiled --grid) --------------------------------
GRID = ["..d.", "#..D", ".o.a"]  # gid = firstgid + tile id; gid 0 (no tile) is clear; flip bits ignored


@pytest.mark.parametrize("name", ["grid.tmj", "grid.tmx"])
def test_import_tiled_grid(name, tmp_path, capsys):
    from eidomap.answers.grid import load_grid
    from eidomap.io.grid import flags_char

    out = tmp_path / "battle.txt"
    code, text, err = run_cli(["import-tiled", DATA / name, "--grid", "-o", out], capsys)
    assert code == 0 and "a battle grid of 3 x 4 squares" in text and err == ""
    lines = out.read_text().splitlines()
    assert lines[0].startswith(";") and lines[1:] == GRID
    g = load_grid(out)
    assert g.occupant[2, 3] == 1 and flags_char(g.flags)[1].tolist() == list("#..D")


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["tilesets"][0].update(source="battle.tsj"), "external tileset 'battle.tsj'"),
    (lambda d: d["tilesets"][0]["tiles"][0]["properties"][0].update(value="lava"), "'lava' is not one of"),
    (lambda d: d["layers"][0].update(data=[1, 2]), "holds 2 tiles, not 4 x 3"),
    (lambda d: d["layers"][0].update(width=5000), "not 1 to 1000 tiles wide"),
    (lambda d: d["layers"][0].update(data="eJw=", encoding="base64", compression="zstd"),
     "compressed with 'zstd'; eidomap reads none, zlib or gzip"),
    (lambda d: d["tilesets"][0].update(tiles=[]), "no tile layer whose tiles carry a 'd20' property"),
    (lambda d: d["layers"][0].update(data=7, encoding="csv"), "has data eidomap cannot read (encoding 'csv')"),
])
def test_import_tiled_grid_refuses_bad_maps(change, message, tmp_path, capsys):
    doc = json.loads((DATA / "grid.tmj").read_text())
    change(doc)
    src = tmp_path / "bad.tmj"
    src.write_text(json.dumps(doc))
    code, _, err = run_cli(["import-tiled", src, "--grid", "-o", tmp_path / "out.txt"], capsys)
    assert code == 2 and message in err and err.count("\n") == 1 and not (tmp_path / "out.txt").exists()


def test_map_properties_are_checked_as_the_map_reader_checks_them():
    props = [{"name": "units_per_mile", "type": "string", "value": "NaN"},
             {"name": "name", "type": "class", "value": {"a": 1}}, {"name": "rules", "type": "string", "value": "d20"}]
    doc, warnings = read_tiled(_tmj([_rect(1, "m", "meadow", 0, 0)], properties=props))
    assert doc["eidomap"] == {"format": 1, "rules": "d20", "name": "tiled map"}
    assert warnings == ["map property 'units_per_mile': 'units_per_mile' must be a positive number, got 'NaN'; ignored",
                        "map property 'name': 'name' must be text, got {'a': 1}; ignored"]


def test_a_property_no_json_holds_is_not_imported(tmp_path):
    rect = _rect(1, "m", "meadow", 0, 0) | {"properties": [{"name": "w", "type": "float", "value": math.nan}]}
    doc, warnings = read_tiled(_tmj([rect]))
    assert doc["features"][0]["properties"] == {"kind": "eido", "terrain": "meadow"}
    assert warnings == ["object 1 'm' (layer 'L'): custom property 'w' is nan; not imported"]


def test_repeated_ids_get_the_first_free_number_in_linear_time():
    objects = [_rect(1, "", "meadow", 0, 0), _rect(1, "", "meadow", 10, 0), _rect(2, "t1_2", "meadow", 20, 0),
               _rect(1, "", "meadow", 30, 0)]
    doc, _ = read_tiled(_tmj(objects))
    assert [f["id"] for f in doc["features"]] == ["t1", "t1_3", "t1_2", "t1_4"]


def test_a_lone_surrogate_in_a_tiled_json_map_is_refused(tmp_path, capsys):
    """An object's name escaping half a surrogate pair is no text: the import wrote it (UnicodeEncodeError, exit 3)."""
    src = tmp_path / "board.tmj"
    src.write_text(json.dumps({"type": "map", "height": 1, "tileheight": 10, "layers": [
        {"type": "objectgroup", "name": "E", "objects": [
            {"id": 1, "name": "a\ud800", "type": "meadow", "x": 0, "y": 0, "width": 10, "height": 10}]}]}))
    at = src.read_text().index("\\ud800")
    code, out, err = run_cli(["import-tiled", src, "-o", tmp_path / "o.geojson"], capsys)
    assert (code, out) == (2, "")
    assert err == f"eidomap: {src}: is not Unicode text (a lone surrogate, \\ud800, at line 1 column {at + 1})\n"
    assert not (tmp_path / "o.geojson").exists()


def test_objects_that_are_no_shape_or_have_no_terrain_are_skipped_saying_why():
    objects = [_rect(1, "m", "meadow", 0, 0), _rect(2, "", "", 20, 0),
               {"id": 3, "name": "r", "type": "road", "x": 0, "y": 0, "polyline": [{"x": 0, "y": 0}]},
               {"id": 4, "name": "s", "type": "stream", "x": 0, "y": 0, "polyline": []}]
    doc, warnings = read_tiled(_tmj(objects))
    assert [f["id"] for f in doc["features"]] == ["m"]
    assert warnings == ["object 3 'r' (layer 'L') is a polyline of 1 point; skipped",
                        "object 4 's' (layer 'L') is a polyline of 0 points; skipped",
                        "object 2 (layer 'L'): has no terrain (give it a class or a 'terrain' custom property);"
                        " skipped"]


def test_a_tmx_class_property_is_read_with_the_members_it_holds():
    """TMX writes a class-typed property's members as properties within it: read as a dict, as TMJ's value."""
    tmx = (b'<?xml version="1.0"?><map version="1.10" orientation="orthogonal" width="10" height="10" tilewidth="10"'
           b' tileheight="10"><properties><property name="name" type="class"><properties>'
           b'<property name="a" type="int" value="1"/></properties></property></properties><objectgroup name="L">'
           b'<object id="1" name="m" type="meadow" x="0" y="0" width="10" height="10"/></objectgroup></map>')
    _, warnings = read_tiled(tmx)
    assert warnings == ["map property 'name': 'name' must be text, got {'a': 1}; ignored"]


@pytest.mark.parametrize("name", ["board.tmj", "board.tmx"])
def test_the_document_says_which_tiled_file_it_came_from(name):
    doc, _ = read(name)
    assert doc["tiled"]["source"] == name and doc["tiled"]["orientation"] == "orthogonal"
