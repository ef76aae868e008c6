"""The battle-grid file: a map given where a grid is read, and a grid given where a map is, each said for what it is."""

from __future__ import annotations

import shutil

import pytest
from conftest import DEMO, ROOT

import eidomap
from eidomap.answers.grid import load_grid
from eidomap.base.errors import MapError
from eidomap.io.tables import write_map
from eidomap.validate.checks import validate

GRID = ROOT / "maps" / "d20-battle.txt"
TILED = ROOT / "tests" / "data" / "tiled" / "board.tmj"


@pytest.mark.parametrize(("name", "what"), [
    ("demo.geojson", "a GeoJSON map"), ("demo.txt", "a GeoJSON map"), ("demo.gpkg", "a GeoPackage map"),
    ("demo.fgb", "a FlatGeobuf map"), ("demo.parquet", "a GeoParquet map"), ("board.tmj", "a Tiled map"),
    ("broken.geojson", "a GeoJSON file"),
])
def test_a_map_read_as_a_battle_grid_is_said_to_be_a_map(tmp_path, name, what):
    path = tmp_path / name
    if name == "board.tmj":
        shutil.copy(TILED, path)
    elif name == "broken.geojson":
        path.write_text('{"type": "FeatureCollection", "features": [')
    elif path.suffix in (".geojson", ".txt"):
        shutil.copy(DEMO, path)
    else:
        write_map(eidomap.load(DEMO).data, path)
    with pytest.raises(MapError) as caught:
        load_grid(path)
    said = str(caught.value)
    assert said.startswith(f"{path}: is {what}, not a battle grid (one character a square, docs/d20.md): ")
    assert ("import-tiled --grid" if name == "board.tmj" else "eidomap route, reach, planner") in said


@pytest.mark.parametrize("name", ["battle.txt", "battle.geojson", "battle"])
def test_a_battle_grid_read_as_a_map_is_said_to_be_a_grid(tmp_path, name):
    path = tmp_path / name
    shutil.copy(GRID, path)
    for read in (eidomap.load, validate):
        with pytest.raises(MapError, match=rf"^{path}: is a d20 battle grid \(one character a square, docs/d20.md\),"
                                           r" not a map: the battle-grid commands read it \(eidomap d20 reach"):
            read(path)


@pytest.mark.parametrize("text", ["{", "no map at all", ""])
def test_a_file_that_is_neither_keeps_its_own_message(tmp_path, text):
    path = tmp_path / "m.geojson"
    path.write_text(text)
    with pytest.raises(MapError, match="is not valid JSON"):
        eidomap.load(path)
    grid = tmp_path / "g.txt"
    grid.write_text(text)
    with pytest.raises(MapError, match=r"unknown square character|holds no grid rows"):
        load_grid(grid)
