"""eidomap import-svg: a board with shared edges drawn twice, a transformed group, curves, roads and Pousas."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import shapely
from conftest import ROOT, shared

import eidomap
import eidomap.io.svg
from eidomap.base.errors import MapError
from eidomap.cli import main
from eidomap.io.svg import FLATNESS, _path, import_svg, read_svg
from eidomap.validate.checks import validate
from eidomap.validate.fix import snap_borders

DATA = Path(__file__).resolve().parents[1] / "data" / "svg"
BOARD, LEGEND = DATA / "board.svg", DATA / "legend.toml"
HEAD = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'


def svg(body: bytes, **kw):
    return read_svg(HEAD + body + b"</svg>", **kw)


@pytest.fixture(scope=shared("module"))
def board():
    doc, warnings = read_svg(BOARD.read_bytes(), BOARD, legend=LEGEND, snap=snap_borders)
    return {f["id"]: f for f in doc["features"]}, warnings


def test_board_imports_every_shape(board):
    feats, _ = board
    kinds = {fid: (f["properties"]["kind"], f["properties"].get("terrain")) for fid, f in feats.items()}
    assert kinds == {"meadow-west": ("eido", "meadow"), "forest-middle": ("eido", "forest"),
                     "south": ("eido", "meadow"), "east": ("eido", "sea"), "camino": ("road", None),
                     "p1": ("pousa", None), "p2": ("pousa", None), "p3": ("pousa", None)}


def test_the_border_drawn_twice_is_snapped_and_shared(board, tmp_path):
    feats, warnings = board
    assert any("Snapped 'forest-middle'" in w for w in warnings)
    assert min(x for x, _ in feats["forest-middle"]["geometry"]["coordinates"][0]) == 100.0
    out = tmp_path / "board.geojson"
    import_svg(BOARD, out, legend=LEGEND, snap=snap_borders)
    m = eidomap.load(out)
    assert ("forest-middle", "meadow-west") in m.pairs() and ("east", "forest-middle") in m.pairs()
    assert validate(out).problems == []


def test_a_drawing_read_by_its_format_is_snapped_and_read_alone_is_as_drawn(tmp_path):
    """The snapping is fix's (a layer above the readers): the ``svg`` format, registered by eidomap.validate.fix,
    snaps as it reads; read_svg without ``snap`` gives the shapes as drawn (the border drawn twice stays two)."""
    drawing = (HEAD + b'<rect id="a" x="0" y="0" width="50" height="100" data-terrain="meadow"/>'
               b'<path id="b" d="M 50.05,0 L 100,0 L 100,100 L 50.05,100 Z" data-terrain="forest"/></svg>')
    raw, warnings = read_svg(drawing)
    assert not any("Snapped" in w for w in warnings)
    assert min(x for x, _ in raw["features"][1]["geometry"]["coordinates"][0]) == 50.05
    (tmp_path / "two.svg").write_bytes(drawing)
    assert eidomap.load(tmp_path / "two.svg").pairs() == [("a", "b")]


def test_transformed_group_and_flipped_y(board):
    ring = np.array(board[0]["south"]["geometry"]["coordinates"][0])
    assert ring.min(axis=0).tolist() == [100.0, 0.0] and ring.max(axis=0).tolist() == [200.0, 100.0]


def test_curves_are_flattened_within_the_tolerance(board):
    east = shapely.Polygon(board[0]["east"]["geometry"]["coordinates"][0])
    arc = shapely.Point(250, 150).buffer(50, quad_segs=256).intersection(shapely.box(250, 150, 300, 200))
    tol = FLATNESS * 300
    corner = east.intersection(shapely.box(250, 150, 300, 200))
    assert shapely.hausdorff_distance(corner, arc) <= tol * 1.01
    assert len(east.exterior.coords) > 12


def test_pousas_are_put_on_their_road(board):
    feats, _ = board
    road = shapely.LineString(feats["camino"]["geometry"]["coordinates"])
    for pid in ("p1", "p2", "p3"):
        assert feats[pid]["properties"]["road"] == "camino"
        assert road.distance(shapely.Point(feats[pid]["geometry"]["coordinates"])) < 1e-9


@pytest.mark.parametrize("d, closed", [("M0 0 L10 0 L10 10 Z", True), ("M0 0 l10 0 v10 h-10 z", True),
                                       ("M0 0 Q5 10 10 0 T20 0", False), ("M0 0 C0 10 10 10 10 0 S20 -10 20 0", False)])
def test_path_commands(d, closed):
    (pts, is_closed), = _path(d, 0.01)
    assert is_closed == closed and np.isfinite(pts).all()


def test_full_circle_arc():
    (pts, _), = _path("M0 0 A5 5 0 1 1 10 0 A5 5 0 1 1 0 0 Z", 0.001)
    r = np.hypot(pts[:, 0] - 5, pts[:, 1])
    assert np.allclose(r, 5, atol=1e-9) and abs(shapely.Polygon(pts).area - math.pi * 25) < 0.05


@pytest.mark.parametrize("large, sweep, centre", [(0, 1, (0, 5)), (1, 1, (10, 0)), (0, 0, (10, 0)), (1, 0, (0, 5))])
def test_an_elliptical_arc_lies_on_its_ellipse_about_the_centre_its_flags_choose(large, sweep, centre):
    """SVG 1.1 F.6.5: of the two ellipses of radii 10 and 5 through (0, 0) and (10, 5), the large-arc and sweep
    flags choose one (sweep 1: angles increasing, from (0, 0) a quarter turn about (0, 5)); every point drawn lies
    on it."""
    (pts, _), = _path(f"M0 0 A10 5 0 {large} {sweep} 10 5", 0.001)
    assert np.allclose(((pts[:, 0] - centre[0]) / 10) ** 2 + ((pts[:, 1] - centre[1]) / 5) ** 2, 1, atol=1e-9)


def test_a_curve_is_drawn_with_at_most_1000_points():
    """However small the flatness against its size, an arc or a Bezier curve is at most 1,000 points."""
    for d in ("M0 0 A1000000 1000000 0 0 1 2000000 0", "M0 0 C0 1000000 1000000 1000000 1000000 0"):
        (pts, _), = _path(d, 1e-6)
        assert len(pts) == 1 + 1000  # the start, and the curve's points
    (pts, _), = _path("M0 0 A1000 1000 0 0 1 2000 0", 1.0)
    assert 2 < len(pts) < 1 + 1000  # (a curve that needs fewer has fewer)


def test_a_scale_of_two_numbers_scales_each_axis_by_its_own():
    doc, _ = svg(b'<rect id="a" data-terrain="meadow" width="10" height="10" transform="scale(2, 3)"/>'
                 b'<rect id="b" data-terrain="meadow" x="20" width="10" height="10" transform="scale(2)"/>')
    (a, b) = (shapely.Polygon(f["geometry"]["coordinates"][0]) for f in doc["features"])
    assert a.bounds == (0, 70, 20, 100) and b.bounds == (40, 80, 60, 100)  # (y up from the box's foot)


def test_what_is_only_defined_or_clipped_with_is_not_drawn_and_a_bad_transform_skips_only_its_shape():
    """A clip path, a mask, a symbol, a pattern, definitions are not shapes of the board, nor read (not even their
    transform); a shape whose transform cannot be read is skipped with a warning, and the shapes after it are read."""
    hidden = b"".join(b'<%s id="h%d" transform="matrix(1 0 0)"><rect id="in%d" data-terrain="meadow" width="5"'
                      b' height="5"/></%s>' % (t, k, k, t)
                      for k, t in enumerate((b"defs", b"clipPath", b"mask", b"symbol", b"pattern")))
    doc, warnings = svg(hidden + b'<rect id="bad" data-terrain="meadow" width="5" height="5"'
                                 b' transform="matrix(1 0 0)"/><rect id="after" data-terrain="meadow" x="10" width="5"'
                                 b' height="5"/>')
    assert [f["id"] for f in doc["features"]] == ["after"]
    assert warnings == ["<rect> bad: has a malformed transform matrix(1 0 0); skipped"]


@pytest.mark.parametrize("shape", [b'<circle id="c" cx="1" cy="1" r="0"/>',
                                   b'<ellipse id="c" cx="1" cy="1" rx="0" ry="0"/>'])
def test_a_circle_or_ellipse_without_a_radius_is_skipped_as_such(shape):
    doc, warnings = svg(b'<g id="fountains">' + shape + b"</g>")
    assert doc["features"] == [] and len(warnings) == 1 and "is a circle without a radius" in warnings[0]


def test_terrain_from_the_layer_name_and_the_legend_layers(tmp_path):
    legend = tmp_path / "legend.toml"
    legend.write_text('[layers]\nBosque = "forest"\n')
    doc, _ = svg(b'<g id="meadow"><rect id="a" width="10" height="10"/></g>'
                 b'<g id="Bosque"><rect id="b" x="10" width="10" height="10"/></g>', legend=legend)
    assert [f["properties"]["terrain"] for f in doc["features"]] == ["meadow", "forest"]


def test_what_cannot_be_imported_is_a_warning():
    doc, warnings = svg(b'<rect id="x" width="10" height="10" fill="#123456"/>'
                        b'<path id="open" d="M0 0 L5 5"/><circle id="c" cx="1" cy="1" r="1"/>')
    assert doc["features"] == [] and len(warnings) == 3
    assert any("no terrain" in w for w in warnings) and any("open line" in w for w in warnings)


def test_doctype_and_entities_are_refused():
    with pytest.raises(MapError, match="DOCTYPE or ENTITY"):
        read_svg(b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "b">]><svg/>')
    with pytest.raises(MapError, match="not an SVG"):
        read_svg(b"<map/>")


def test_cli_import_svg(tmp_path, capsys):
    out = tmp_path / "board.geojson"
    assert main(["import-svg", str(BOARD), "-o", str(out), "--legend", str(LEGEND)]) == 0
    assert "wrote" in capsys.readouterr().out and eidomap.load(out).info()["pousas"] == 3


def test_nested_transforms_rotate_scale_matrix():
    doc, _ = svg(b'<g transform="translate(10,0) rotate(90)"><g transform="scale(2)">'
                 b'<rect id="a" width="1" height="1" data-terrain="meadow"/></g></g>'
                 b'<rect id="b" width="1" height="1" transform="matrix(1 0 0 1 5 5)" data-terrain="sea"/>')
    a, b = (np.array(f["geometry"]["coordinates"][0]) for f in doc["features"])
    assert np.allclose(a.min(axis=0), [8, 98]) and np.allclose(a.max(axis=0), [10, 100])
    assert np.allclose(b.min(axis=0), [5, 94]) and np.allclose(b.max(axis=0), [6, 95])


@pytest.mark.parametrize(("attrs", "low", "high"), [
    ('x="50" y="50" width="10" height="10" viewBox="0 0 20 20"', [50, 45], [55, 50]),  # scaled by half
    ('x="50" y="50" width="20" height="10" viewBox="0 0 10 10"', [55, 40], [65, 50]),  # meet, centred in x
    ('x="50" y="50" width="20" height="10" viewBox="0 0 10 10" preserveAspectRatio="none"', [50, 40], [70, 50]),
    ('x="50" y="50" width="20" height="10" viewBox="0 0 10 10" preserveAspectRatio="xMinYMax slice"',
     [50, 40], [70, 60]),
    ('x="50" y="50" width="20%" height="10%" viewBox="5 5 10 10"', [50, 45], [60, 55]),  # of the 100 x 100 around it
    ('x="50" y="50"', [50, 40], [60, 50]),  # no viewBox: moved only
])
def test_a_nested_svg_places_its_content_in_its_viewport(attrs, low, high):
    doc, _ = svg(f'<svg {attrs}><rect id="a" width="10" height="10" data-terrain="meadow"/></svg>'.encode())
    ring = np.array(doc["features"][0]["geometry"]["coordinates"][0])
    assert np.allclose(ring.min(axis=0), low) and np.allclose(ring.max(axis=0), high)


def test_curves_are_counted_against_the_vertex_limit_before_they_are_drawn(monkeypatch):
    monkeypatch.setattr(eidomap.io.svg, "MAX_VERTICES", 60)
    far = " ".join("C1e6 1e6 -1e6 1e6 0 0" for _ in range(3))  # each curve would be drawn with 1,000 points
    doc, warnings = svg(f'<path id="a" data-terrain="meadow" d="M0 0 {far} Z"/>'
                        '<path id="b" data-terrain="sea" d="M0 0 L10 0 A5 5 0 0 1 10 10 Z"/>'.encode())
    assert [f["id"] for f in doc["features"]] == ["b"]
    assert warnings == ["<path> a (layer '(none)'): has more than 60 vertices, its curves drawn within the flatness"
                        " (simplify it); skipped"]


def test_a_line_no_longer_than_the_flatness_is_a_point():
    """Found by fuzzing: a road 1e-300 long beside a board of no area, GEOS failed to measure along it."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (a RuntimeWarning from GEOS is a failure too)
        doc, found = svg(b'<rect id="a" data-terrain="meadow" width="10" height="10"/><g id="roads">'
                         b'<path id="r" d="M5e-324 1e-255 L1e-300 1e-255"/><circle id="p" cx="0" cy="0" r="1"/></g>')
    assert [f["id"] for f in doc["features"]] == ["a"]
    assert found[0] == "<path> r (layer 'roads') is a line no longer than the flatness of the board, a point; skipped"


@pytest.mark.parametrize(("source", "said"), [
    ("maps/demo.geojson", "is a GeoJSON map, not an SVG drawing: the map commands read it"),
    ("maps/d20-battle.txt", "is a d20 battle grid (one character a square, docs/d20.md), not a map: "
                            "the battle-grid commands read it"),
])
def test_a_map_or_a_battle_grid_given_to_import_svg_is_said_for_what_it_is(tmp_path, capsys, source, said):
    """As the map and grid commands say of each other's files (issue 46, 7): both were 'not well-formed XML'."""
    src = tmp_path / f"board{Path(source).suffix}"
    src.write_bytes((ROOT / source).read_bytes())
    code = main(["import-svg", str(src), "-o", str(tmp_path / "out.geojson")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"eidomap: {src}: {said}")
