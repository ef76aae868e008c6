"""eidomap fix: snapping, closing gaps, nothing lost, never over its input, no new error."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
from pathlib import Path

import numpy as np
import pytest
import shapely
from conftest import collection, eido
from hypothesis import example, given, settings
from hypothesis import strategies as st

import eidomap
from eidomap.cli import main
from eidomap.io.document import MapData
from eidomap.io.geojson import read_geojson
from eidomap.validate.board import Board
from eidomap.validate.checks import validate
from eidomap.validate.fix import fix_geometries, fix_map

DATA = Path(__file__).resolve().parents[1] / "data" / "validate"


def run_cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def box(x0, y0, x1, y1) -> list:
    return [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]


def test_near_miss_is_snapped(tmp_path, capsys):
    out = tmp_path / "fixed.geojson"
    code, text, _ = run_cli(["fix", DATA / "near-miss.geojson", "-o", out], capsys)
    assert code == 0
    assert "changed: Snapped 'B' onto the border of 'A' (its border moved by at most 0.01)." in text
    assert text.strip().endswith("fixed.geojson: no problems")
    assert validate(out).problems == []
    m = eidomap.load(out)
    assert "B" in m.neighbors("A")
    before = read_geojson(DATA / "near-miss.geojson")[0].record.eidos.geoms
    after = m.geometries
    moved = shapely.hausdorff_distance(before, after)
    assert moved[1] == pytest.approx(0.01) and np.all(moved[[0, 2, 3, 4]] == 0)  # only B moved, by 0.01


def test_gap_is_closed_only_below_the_threshold(tmp_path, capsys):
    out = tmp_path / "fixed.geojson"
    code, text, _ = run_cli(["fix", DATA / "gap.geojson", "-o", out], capsys)
    assert code == 1  # area 8 is above the default for a 30-unit board, so the gap stays: nothing to write
    assert "left: Left the gap of area 8 at (15, 9)" in text and "nothing to change; " in text
    assert "error left: gap: A gap of area 8 " in text and not out.exists()
    code, text, _ = run_cli(["fix", DATA / "gap.geojson", "-o", out, "--max-gap-area", "10"], capsys)
    assert code == 0
    assert "Gave the gap of area 8 at (15, 9) to 'B', which shares the longest border with it (8)." in text
    assert validate(out).problems == []
    b = eidomap.load(out).geometries[1]
    assert shapely.equals(b, shapely.box(10, 0, 20, 10))


def test_fix_keeps_every_property_and_foreign_member(tmp_path):
    doc = json.loads((DATA / "near-miss.geojson").read_text())
    doc["x-designer"] = {"who": "Ana", "layers": [1, 2, {"deep": None}]}
    doc["features"][1]["properties"]["style"] = {"fill": "#228822", "hatch": [1, 2]}
    doc["features"][1]["properties"]["name"] = "Fraga Ñ"
    doc["features"][1]["geometry"]["x-source"] = "inkscape"
    doc["features"][1]["bbox"] = [10, 0, 20, 10]
    doc["features"][0]["properties"]["note"] = "unchanged, to the digit: 0.1"
    doc["features"].append({"type": "Feature", "properties": {"kind": "castle"}, "geometry": None})
    src = tmp_path / "m.geojson"
    src.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "out.geojson"
    fix_map(src, out)
    new = json.loads(out.read_text(encoding="utf-8"))
    assert {k: v for k, v in new.items() if k != "features"} == {k: v for k, v in doc.items() if k != "features"}
    assert len(new["features"]) == len(doc["features"])
    for k, (a, b) in enumerate(zip(doc["features"], new["features"], strict=True)):
        if k == 1:  # B: only its coordinates changed
            assert {**b, "geometry": None} == {**a, "geometry": None}
            assert {**b["geometry"], "coordinates": None} == {**a["geometry"], "coordinates": None}
            assert b["geometry"]["coordinates"] != a["geometry"]["coordinates"]
        else:
            assert b == a
    assert validate(out).codes() == ["unknown-kind"]  # the castle is kept, and still reported


def test_never_writes_over_its_input(tmp_path, capsys):
    src = tmp_path / "m.geojson"
    src.write_bytes((DATA / "near-miss.geojson").read_bytes())
    original = src.read_bytes()
    link = tmp_path / "link.geojson"
    link.symlink_to(src)
    for target in (src, link, tmp_path / "." / "m.geojson"):
        code, _, err = run_cli(["fix", src, "-o", target], capsys)
        assert code == 2 and "never writes over its input" in err and err.count("\n") == 1
    assert src.read_bytes() == original
    with pytest.raises(SystemExit):  # neither -o nor --in-place
        main(["fix", str(src)])
    capsys.readouterr()


def test_in_place_keeps_a_backup(tmp_path, capsys):
    src = tmp_path / "m.geojson"
    src.write_bytes((DATA / "near-miss.geojson").read_bytes())
    original = src.read_bytes()
    code, out, _ = run_cli(["fix", src, "--in-place"], capsys)
    assert code == 0 and "m.geojson.bak" in out
    assert (tmp_path / "m.geojson.bak").read_bytes() == original
    assert validate(src).problems == []
    fixed = src.read_bytes()
    src.write_bytes(original)  # broken again: a second in-place fix must not lose the first backup
    code, _, err = run_cli(["fix", src, "--in-place"], capsys)
    assert code == 2 and "a backup already exists" in err
    assert src.read_bytes() == original and fixed != original


def test_in_place_with_nothing_to_change_writes_nothing(tmp_path, capsys):
    src = tmp_path / "m.geojson"
    src.write_bytes((DATA / "clean.geojson").read_bytes())
    code, out, _ = run_cli(["fix", src, "--in-place"], capsys)
    assert code == 0 and "nothing to change; not written" in out
    assert sorted(os.listdir(tmp_path)) == ["m.geojson"]


def test_json_report(tmp_path, capsys):
    code, out, _ = run_cli(["fix", DATA / "near-miss.geojson", "-o", tmp_path / "o.geojson", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and list(doc) == ["changes", "left", "output", "validation"]
    (c,) = doc["changes"]
    assert (c["action"], c["eido"], c["others"]) == ("snap", "B", ["A"])
    assert doc["validation"] == {"errors": 0, "warnings": 0, "problems": []}


def test_a_snap_that_would_create_an_error_is_left(tmp_path):
    # a sliver C sits between A and B in the upper half of the channel: snapping B onto A would overlap C
    doc = collection([eido("A", "meadow", box(0, 0, 10, 10)), eido("B", "forest", box(10.01, 0, 20, 10)),
                      eido("C", "rocks", box(10, 5, 10.004, 10)), eido("D", "sea", box(0, 10, 20, 20))])
    src = tmp_path / "m.geojson"
    src.write_text(json.dumps(doc))
    result, report = fix_map(src, tmp_path / "o.geojson")
    assert result.changes == []
    reasons = {c.eido: c.message for c in result.left}
    assert "would create a new error (overlap: Eidos 'B' and 'C' overlap" in reasons["B"]
    assert report.errors == []


def _errors(md, geoms=None):
    if geoms is not None:
        record = dataclasses.replace(md.record, eidos=dataclasses.replace(md.record.eidos, geoms=geoms))
        md = MapData(record, md.document)
    return {(p.code, frozenset(p.features)) for p in validate(md).errors}


def _jittered(rng: np.random.Generator, noise: float) -> MapData:
    """Staggered rows of boxes, the vertices of about half of them jittered by up to ``noise``."""
    feats, k = [], 0
    for row in range(3):
        cuts = np.r_[0, np.sort(rng.choice(np.arange(1, 12), 3, replace=False)), 12].astype(float)
        for x0, x1 in itertools.pairwise(cuts):
            ring = np.array(box(x0, row * 3, x1, row * 3 + 3)[0])
            if rng.random() < 0.5:
                ring[:-1] += rng.uniform(-noise, noise, (4, 2))
                ring[-1] = ring[0]
            feats.append(eido(f"e{k}", "meadow", [ring.tolist()]))
            k += 1
    return read_geojson(None, data=json.dumps(collection(feats)).encode())[0]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.002, 0.05))
@example(2109760, 0.03125)  # gaps whose every border is too short to fill from: none is filled, none crashes
def test_fix_never_creates_an_error(seed, noise):
    """Whatever fix does to jittered boxes, no error is new."""
    md = _jittered(np.random.default_rng(seed), noise)
    before = _errors(md)
    result = fix_geometries(md, near_miss=0.1, max_gap=1.0)
    after = _errors(md, result.geoms)
    assert after <= before
    assert shapely.is_valid(result.geoms).all()
    # and what it says it did, it did: a snapped pair is no near-miss any more, a filled gap is gone
    board = Board(result.geoms, near_miss=0.1)
    ids = md.record.eidos.ids
    near = {frozenset((ids[i], ids[j])) for i, j in zip(*board.near_misses[:2], strict=True)}
    for change in result.changes:
        if change.action == "snap":
            assert not any(frozenset((change.eido, other)) in near for other in change.others), change.message
        if change.action == "fill-gap":
            assert not any(shapely.covers(g, shapely.points(change.location)) for g in board.gaps), change.message


@pytest.mark.parametrize("seed", [7, 12, 16, 17, 70])
def test_fix_reports_only_what_it_changed(seed):
    """Snaps that moved nothing were reported as "moved by at most 0"; a gap given away made a collection."""
    rng = np.random.default_rng(seed)
    md = _jittered(rng, rng.uniform(0.002, 0.05))
    result = fix_geometries(md, near_miss=0.1, max_gap=1.0)
    assert not any("at most 0)" in c.message for c in result.changes)
    eidos = md.record.eidos
    changed = ~shapely.equals_exact(result.geoms, eidos.geoms, 0.0)
    assert {c.eido for c in result.changes if c.action == "snap"} <= {eidos.ids[k] for k in np.flatnonzero(changed)}
    assert set(shapely.get_type_id(result.geoms).tolist()) <= {3, 6}  # polygons and multipolygons only


def test_an_inlet_is_closed(tmp_path, capsys):
    out = tmp_path / "fixed.geojson"
    code, text, _ = run_cli(["fix", DATA / "inlet.geojson", "-o", out], capsys)
    assert code == 0
    assert "changed: Snapped 'B' onto the border of 'A' (its border moved by at most 0.3)." in text
    assert validate(out).problems == [] and "B" in eidomap.load(out).neighbors("A")
    code, text, _ = run_cli(["fix", DATA / "inlet.geojson", "-o", tmp_path / "o2.geojson", "--inlet", "0.2"], capsys)
    assert code == 0 and "nothing to change; " in text and not (tmp_path / "o2.geojson").exists()


def test_nothing_to_change_writes_nothing_and_names_the_errors_left(tmp_path, capsys):
    out = tmp_path / "o.geojson"
    code, text, _ = run_cli(["fix", DATA / "overlap.geojson", "-o", out], capsys)
    assert code == 1 and not out.exists()
    assert f"overlap.geojson: nothing to change; {out} not written" in text
    assert "error left: overlap: Eidos 'B' and 'C' overlap over an area of 10. (at " in text
    code, text, _ = run_cli(["fix", DATA / "overlap.geojson", "-o", out, "--json"], capsys)
    doc = json.loads(text)
    assert code == 1 and doc["output"] is None and doc["validation"]["errors"] == 1


def _with_unknown_road(name: str, folder: Path) -> Path:
    """The map ``name`` of the validation data with a Pousa on a road it lacks (an error fix leaves)."""
    doc = json.loads((DATA / name).read_text())
    doc["features"].append({"type": "Feature", "id": "stray", "properties": {"kind": "pousa", "road": "r9"},
                            "geometry": {"type": "Point", "coordinates": [5, 5]}})
    path = folder / f"{Path(name).stem}-and-unknown-road.geojson"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(("name", "broken", "written", "code"), [
    ("clean.geojson", False, False, 0),
    ("near-miss.geojson", False, True, 0),
    ("near-miss.geojson", True, True, 1),
    ("gap.geojson", True, False, 1),  # the gap is larger than fix closes, the road is unknown: nothing to change
])
def test_fix_exits_1_when_errors_remain_whatever_it_wrote(tmp_path, capsys, name, broken, written, code):
    src = _with_unknown_road(name, tmp_path) if broken else DATA / name
    for extra in ([], ["--json"]):
        out = tmp_path / f"out{len(extra)}.geojson"
        status, text, _ = run_cli(["fix", src, "-o", out, *extra], capsys)
        assert (status, out.exists()) == (code, written)
        if broken and not extra:
            assert "error left: unknown-road: " in text
    src = tmp_path / "in-place.geojson"
    src.write_bytes((_with_unknown_road(name, tmp_path) if broken else DATA / name).read_bytes())
    assert run_cli(["fix", src, "--in-place"], capsys)[0] == code


def test_a_vertex_whose_target_is_within_the_tolerance_of_a_third_eidos_border_moves_as_still_on_it():
    """A vertex on a third Eido's border stays where its target would take it off that border; at the tolerance
    from it, as within it, a point is on it (the test that found it on the border), so the vertex moves there."""
    from eidomap.validate.fix import snap_onto

    partner, mover, third = shapely.box(-1, 0.25, 0, 1), shapely.box(0, 0, 1, 1), shapely.box(0, -1, 1, 0)
    moved = snap_onto([partner, mover, third], [1], [[0]], 0.3, tolerance=0.25)[1]
    corners = {tuple(p) for p in shapely.get_coordinates(moved).tolist()}
    assert (0.0, 0.25) in corners and (0.0, 0.0) not in corners
    # a hair past the tolerance, it is off the border: the corner stays
    moved = snap_onto([partner, mover, third], [1], [[0]], 0.3, tolerance=0.2499)[1]
    assert (0.0, 0.0) in {tuple(p) for p in shapely.get_coordinates(moved).tolist()}
