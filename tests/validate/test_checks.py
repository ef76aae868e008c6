"""eidomap validate: one flawed map per check, brute-force oracles, the command line."""

from __future__ import annotations

import json
import os
import tempfile
from functools import cached_property
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import shapely
from conftest import DEMO, collection, eido, square
from drawn_shapes import ROTATION, SCALE, fan, placed
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

import eidomap
from eidomap.base.errors import RequestError
from eidomap.cli import main
from eidomap.io.geojson import read_geojson
from eidomap.model.generate import generate_map, voronoi_cells, write_map
from eidomap.model.network import build_network
from eidomap.model.topology import boundary_segments, exact_pairs, exact_union
from eidomap.rules.eido import actor
from eidomap.validate.board import Board, max_gap_area, near_miss_distance
from eidomap.validate.checks import CODES, geometry_problems, validate

DATA = Path(__file__).resolve().parents[1] / "data" / "validate"
FLAWED = sorted(p.stem for p in DATA.glob("*.geojson") if p.stem not in ("clean", "unreachable"))
#: A Pousa outside the board on its own road makes that road leave the board too.
ALSO = {"pousa-outside": {"road-outside"}}


def run_cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_code_has_a_flawed_map():
    assert set(FLAWED) | {"unreachable"} == set(CODES) - {"not-a-feature", "unknown-kind", "missing-id"}


def test_clean_map_has_no_problem():
    report = validate(DATA / "clean.geojson")
    assert report.problems == []
    assert report.as_dict() == {"errors": 0, "warnings": 0, "problems": []}


@pytest.mark.parametrize("name", FLAWED)
def test_flawed_map_raises_exactly_its_code(name):
    report = validate(DATA / f"{name}.geojson")
    assert set(report.codes()) == {name} | ALSO.get(name, set())
    mine = [p for p in report.problems if p.code == name]
    assert mine and all(p.severity == CODES[name] for p in mine)
    assert all(p.message.endswith(".") and "\n" not in p.message for p in report.problems)


def test_problem_details():
    def only(name):
        (p,) = [q for q in validate(DATA / f"{name}.geojson").problems if q.code == name]
        return p

    p = only("overlap")
    assert p.features == ("B", "C") and "area of 10." in p.message
    assert 20 < p.location[0] < 21 and 0 < p.location[1] < 10
    p = only("gap")
    assert set(p.features) == {"B", "D", "E"} and "gap of area 8 " in p.message
    assert shapely.box(13, 8, 17, 10).contains(shapely.Point(p.location))
    p = only("near-miss")
    assert p.features == ("A", "B") and "within 0.01 " in p.message and "length of 10 " in p.message
    assert 9.99 <= p.location[0] <= 10
    p = only("pousa-off-road")
    assert p.features == ("r1@2", "r1") and " 1 away" in p.message
    p = only("pousa-junction")
    assert p.features == ("r2@1", "B", "D", "E") and p.location == (15.0, 10.0)
    p = only("road-outside")
    assert p.location == (32.5, 5.0) and "length of 5." in p.message
    p = only("stream-outside")
    assert "source" in p.message and p.location == (35.0, 15.0)
    p = only("invalid-geometry")
    assert p.features == ("G",) and "Self-intersection" in p.message and p.location == (42.5, 2.5)
    contacts = {q.features for q in validate(DATA / "corner-contact.geojson").problems}
    assert contacts == {("A", "E"), ("B", "D")}


def test_unreachable_per_species():
    path = DATA / "unreachable.geojson"
    assert validate(path).problems == []
    (p,) = validate(path, species=["cart"]).problems
    assert p.code == "unreachable" and p.features == ("B", "C", "E")
    assert "3 Eidos of 5" in p.message and "(mountain, sea)" in p.message
    assert validate(path, species=["marino"]).problems == []  # it swims round through the sea


@pytest.mark.parametrize(("terrains", "says"), [
    (["meadow", "meadow", "sea"], "1 of them is of a terrain it cannot enter (sea)."),
    (["meadow", "sea", "lake", "sea"], "3 of them are of terrains it cannot enter (lake, sea)."),
])
def test_unreachable_counts_its_barred_eidos_in_words(tmp_path, terrains, says):
    path = tmp_path / "m.geojson"
    path.write_text(json.dumps(collection([eido(f"e{k}", t, square(k, 0)) for k, t in enumerate(terrains)])))
    (p,) = validate(path, species=["cow"]).problems
    assert p.message.endswith(says)


def _unreachable_oracle(md, board, species: str) -> set[str]:
    """The same question asked with NetworkX: SCCs of the finite steps, reach from the largest."""
    md = md.record
    net = build_network(md, board.adjacency, board.tol)
    w = actor(md.catalog, species).weights(net)
    g = nx.DiGraph()
    g.add_nodes_from(range(net.n_nodes))
    g.add_edges_from((int(s), int(d)) for s, d, x in zip(net.src, net.dst, w, strict=True) if np.isfinite(x))
    can_be = np.isfinite(md.catalog.cost_row(md.catalog.species[species]))[md.terrain]
    n_e = len(md.eidos)

    def size_then_first(comp):  # the largest; of those as large, the one holding the Eido first in the file
        eidos = [v for v in comp if v < n_e and can_be[v]]
        return len(eidos), -min(eidos, default=n_e)

    region = max(nx.strongly_connected_components(g), key=size_then_first)
    seen = region | nx.descendants(g, next(iter(region)))  # (each node of a strong component reaches what all do)
    return {md.eidos.ids[k] for k in range(n_e) if k not in seen}


@pytest.mark.skipif(not DEMO.is_file(), reason="the demo map is not drawn yet")
@pytest.mark.parametrize("species", ["human", "boat", "cart", "marino", "oestrimio", "bird"])
def test_unreachable_matches_networkx(species):
    report = validate(DEMO, species=[species])
    found = [p for p in report.problems if p.code == "unreachable"]
    want = _unreachable_oracle(report.data, report.board, species)
    assert set(found[0].features if found else ()) == want


@settings(max_examples=25, deadline=None)
@given(n=st.integers(20, 150), seed=st.integers(0, 2**16), shuffle=st.integers(0, 2**16),
       species=st.sampled_from(["human", "boat", "cart", "marino", "oestrimio", "bird", "cow"]))
@example(n=20, seed=118, shuffle=175, species="oestrimio")  # two largest regions of 4 Eidos: the first Eido's
def test_unreachable_matches_networkx_on_random_maps(n, seed, shuffle, species):
    """Generated maps with their Eidos' terrains shuffled: regions cut off, roads through barred land."""
    doc = generate_map(n, seed)
    eidos = [f["properties"] for f in doc["features"] if f["properties"].get("kind") == "eido"]
    for props, terrain in zip(eidos, np.random.default_rng(shuffle).permutation([e["terrain"] for e in eidos]),
                              strict=True):
        props["terrain"] = str(terrain)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.geojson"
        write_map(doc, path)
        report = validate(path, species=[species])
    found = [p for p in report.problems if p.code == "unreachable"]
    assert set(found[0].features if found else ()) == _unreachable_oracle(report.data, report.board, species)


@pytest.mark.skipif(not DEMO.is_file(), reason="the demo map is not drawn yet")
def test_demo_map_validates_without_errors():
    report = validate(DEMO)
    assert report.errors == []
    # the four Agras meet at one point, on purpose: the diagonal pairs touch only there
    assert {p.code for p in report.warnings} <= {"corner-contact"}


@pytest.mark.parametrize(("n", "seed"), [(50, 0), (300, 1), (2000, 7)])
def test_generated_maps_validate_clean(tmp_path, n, seed):
    path = tmp_path / "g.geojson"
    write_map(generate_map(n, seed), path)
    assert validate(path).problems == []
    # a human cannot fly: the strip of air along the top is out of its reach, and nothing else
    report = validate(path, species=["human"])
    assert [p.code for p in report.problems] == ["unreachable"]
    md = report.data.record
    terrains = {md.catalog.terrain_names[md.terrain[md.eidos.ids.index(i)]] for i in report.problems[0].features}
    assert terrains == {"air"}


def test_reader_problems_come_with_plain_ids_and_sentences(tmp_path):
    doc = collection([eido("a", "sea", square(0, 0)), eido("a", "sea", square(1, 0)),
                      {"type": "Feature", "properties": {"kind": "castle"}, "geometry": None}])
    path = tmp_path / "m.geojson"
    path.write_text(json.dumps(doc))
    codes = {p.code: p for p in validate(path).problems}
    assert codes["duplicate-id"].features[0] == "a"
    assert codes["duplicate-id"].message.startswith("Feature ") and codes["unknown-kind"].message.endswith(".")


def test_defaults_are_tied_to_the_extent_and_the_eidos():
    side = [shapely.box(0, 0, 1000, 500), shapely.box(1000, 0, 2000, 500)]
    assert near_miss_distance(side) == pytest.approx(2.0)  # 1e-3 of 2000
    assert max_gap_area(side) == pytest.approx(400.0)  # (1e-2 of 2000)^2
    many = [shapely.box(k, 0, k + 1, 1) for k in range(1000)]
    assert near_miss_distance(many) == pytest.approx(0.01)  # capped: 1e-2 of an Eido
    assert max_gap_area(many) == pytest.approx(0.25)


def test_a_wider_near_miss_distance_finds_a_wider_channel(tmp_path):
    doc = json.loads((DATA / "near-miss.geojson").read_text())
    doc["features"][0]["geometry"]["coordinates"] = square(0, 0, 9.5)[:1]
    doc["features"][0]["geometry"]["coordinates"][0][2] = [9.5, 10]
    doc["features"][0]["geometry"]["coordinates"][0][3] = [0, 10]
    path = tmp_path / "m.geojson"
    path.write_text(json.dumps(doc))
    assert "near-miss" not in validate(path).codes()
    assert "near-miss" in validate(path, near_miss=1.0).codes()


# -- a brute-force oracle: boxes on an integer grid ------------------------------------
boxes = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(1, 3), st.integers(1, 3)),
                 min_size=2, max_size=9)


def _cells(b):
    x, y, w, h = b
    return {(i, j) for i in range(x, x + w) for j in range(y, y + h)}


@settings(max_examples=150, deadline=None)
@given(boxes)
def test_board_matches_box_arithmetic(bs):
    geoms = [shapely.box(x, y, x + w, y + h) for x, y, w, h in bs]
    board = Board(geoms)
    want_overlap, want_contact, adjacent = {}, set(), set()
    for a in range(len(bs)):
        for b in range(a + 1, len(bs)):
            (x0, y0, w0, h0), (x1, y1, w1, h1) = bs[a], bs[b]
            ox = min(x0 + w0, x1 + w1) - max(x0, x1)
            oy = min(y0 + h0, y1 + h1) - max(y0, y1)
            if ox > 0 and oy > 0:
                want_overlap[(a, b)] = ox * oy
            elif ox == 0 and oy == 0:
                want_contact.add((a, b))
            elif (ox == 0 and oy > 0) or (oy == 0 and ox > 0):
                adjacent.add((a, b))
    i, j, area, _ = board.overlaps
    assert dict(zip(zip(i.tolist(), j.tolist(), strict=True), area.tolist(), strict=True)) == pytest.approx(
        want_overlap)
    i, j, _ = board.contacts
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == want_contact - set(want_overlap)
    if not want_overlap:  # (with overlaps, what is adjacent is not well defined)
        linked = {k for pair in adjacent for k in pair}
        assert set(board.isolated.tolist()) == set(range(len(bs))) - linked
        assert board.near_misses[0].size == 0  # integer boxes never come close without touching
    # gaps: uncovered unit cells that no path of edge-adjacent uncovered cells joins to the outside
    covered = set().union(*map(_cells, bs))
    outside, todo = set(), [(-1, -1)]
    while todo:
        c = todo.pop()
        if c in outside or c in covered or not (-1 <= c[0] <= 9 and -1 <= c[1] <= 9):
            continue
        outside.add(c)
        todo += [(c[0] + 1, c[1]), (c[0] - 1, c[1]), (c[0], c[1] + 1), (c[0], c[1] - 1)]
    holes = {(i, j) for i in range(9) for j in range(9)} - covered - outside
    assert shapely.area(board.gaps).sum() == pytest.approx(len(holes))


# -- the command line -------------------------------------------------------------------------
def test_cli_exit_codes_and_text(capsys):
    code, out, _ = run_cli(["validate", DATA / "clean.geojson"], capsys)
    assert code == 0 and out.strip().endswith("clean.geojson: no problems")
    code, out, _ = run_cli(["validate", DATA / "near-miss.geojson"], capsys)
    assert code == 0 and out.startswith("warning: near-miss: Eidos 'A' and 'B'") and "1 warning" in out
    code, out, _ = run_cli(["validate", DATA / "gap.geojson"], capsys)
    assert code == 1 and out.startswith("error: gap: ") and "(at 15, 9)" in out and "1 error, 0 warnings" in out


def test_cli_json_shape(capsys):
    code, out, _ = run_cli(["validate", DATA / "pousa-outside.geojson", "--json"], capsys)
    doc = json.loads(out)
    assert code == 1 and list(doc) == ["errors", "warnings", "problems"]
    assert (doc["errors"], doc["warnings"]) == (1, 1)
    for p in doc["problems"]:
        assert list(p) == ["code", "severity", "features", "location", "message"]
        assert isinstance(p["location"], list) and all(isinstance(v, float) for v in p["location"])
    assert doc["problems"][0]["features"] == ["r1@3"]


def test_cli_species(capsys):
    code, out, _ = run_cli(["validate", DATA / "unreachable.geojson", "--species", "cart, boat"], capsys)
    assert code == 0 and out.count("warning: unreachable:") == 2


@pytest.mark.parametrize(("make", "args", "message"), [
    (lambda p: None, [], "cannot be read"),
    (lambda p: p.write_text("{not json"), [], "is not valid JSON"),
    (lambda p: p.write_bytes(b"\xff\xfe{}"), [], "m.geojson: is not "),
    (lambda p: p.write_text('{"type": "Feature"}'), [], "is not a GeoJSON FeatureCollection"),
    (lambda p: p.write_text(json.dumps(collection([]))), ["--species", "dragon"], "unknown species 'dragon'"),
    (lambda p: p.write_text(json.dumps(collection([]))), ["--tolerance", "nan"], "tolerance must be"),
    (lambda p: p.write_text(json.dumps(collection([]))), ["--near-miss", "-1"], "--near-miss must be"),
    (lambda p: p.write_text(json.dumps(collection([]))), ["--near-miss", "1e308"],
     "--near-miss must be a number from 0 to 1e+15, got 1e+308"),
])
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, capsys, make, args, message):
    path = tmp_path / "m.geojson"
    make(path)
    code, out, err = run_cli(["validate", path, *args], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("eidomap: ") and message in err and "Traceback" not in err


def test_cli_png(tmp_path, capsys):
    pytest.importorskip("eidomap.plot")
    out = tmp_path / "problems.png"
    code, _, _ = run_cli(["validate", DATA / "gap.geojson", "--png", out], capsys)
    assert code == 1 and out.read_bytes().startswith(b"\x89PNG")


def test_map_already_read_can_be_validated():
    md, _ = read_geojson(DATA / "overlap.geojson")
    assert validate(md).codes() == ["overlap"]


def test_map_already_read_with_a_feature_left_out_can_be_validated():
    # (it failed with a ValueError: the reader's problems, which the caller holds, were zipped with what it left out)
    md, read = read_geojson(DATA / "unknown-terrain.geojson")
    assert [p.code for p in read] == ["unknown-terrain"] and len(md.document.left_out) == 1
    assert "unknown-terrain" not in validate(md).codes()


# -- square boards, --ignore and --select -------------------------------------------------------
def _grid(tmp_path, n: int = 10) -> Path:
    path = tmp_path / "grid.geojson"
    path.write_text(json.dumps(collection([eido(f"c{i}-{j}", "meadow", square(i, j))
                                           for i in range(n) for j in range(n)])))
    return path


def test_a_square_board_groups_its_corner_contacts(tmp_path, capsys):
    code, out, _ = run_cli(["validate", _grid(tmp_path)], capsys)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert lines[0].startswith("warning: corner-contact: 162 corner contacts (the board is a square grid?);")
    assert "--ignore corner-contact" in lines[0] and lines[1].endswith("0 errors, 162 warnings")
    code, out, _ = run_cli(["validate", _grid(tmp_path), "--json"], capsys)  # the JSON stays complete
    assert len(json.loads(out)["problems"]) == 162


def test_the_grid_hint_only_where_it_fits(tmp_path, capsys):
    doc = json.loads(_grid(tmp_path).read_text())
    for f in doc["features"]:  # the same board, every square turned into a diamond
        (x, y), *_ = f["geometry"]["coordinates"][0]
        f["geometry"]["coordinates"] = [[[x, y + 0.5], [x + 0.5, y], [x + 1, y + 0.5], [x + 0.5, y + 1], [x, y + 0.5]]]
    path = tmp_path / "diamonds.geojson"
    path.write_text(json.dumps(doc))
    _, out, _ = run_cli(["validate", path], capsys)
    assert "corner contacts;" in out and "square grid" not in out


@pytest.mark.parametrize("param", ["ignore", "select"])
def test_ignore_and_select_are_lists_of_codes_and_one_str_is_refused_as_species_is(tmp_path, param):
    """One rule for lists across the API (issue 45, 15): species='human' was refused and ignore='corner-contact'
    read as one code."""
    with pytest.raises(RequestError, match=rf"^{param} must be a list of problem codes \(not one str\), got 'gap'$"):
        validate(_grid(tmp_path), **{param: "gap"})
    assert validate(_grid(tmp_path), **{param: ("gap",)}) is not None


def test_ignore_and_select(tmp_path, capsys):
    assert validate(_grid(tmp_path), ignore=["corner-contact"]).problems == []
    assert validate(DATA / "gap.geojson", select=["near-miss", "corner-contact"]).problems == []
    assert validate(DATA / "pousa-outside.geojson", ignore=["road-outside"]).codes() == ["pousa-outside"]
    code, out, _ = run_cli(["validate", _grid(tmp_path), "--ignore", "corner-contact,gap"], capsys)
    assert code == 0 and out.strip().endswith("no problems")
    code, out, _ = run_cli(["validate", DATA / "gap.geojson", "--ignore", "gap", "--json"], capsys)
    assert code == 0 and json.loads(out) == {"errors": 0, "warnings": 0, "problems": []}
    code, out, _ = run_cli(["validate", DATA / "gap.geojson", "--select", "gap"], capsys)
    assert code == 1 and out.startswith("error: gap: ")


@pytest.mark.parametrize("option", ["--ignore", "--select"])
def test_an_unknown_code_is_one_line_with_a_suggestion(tmp_path, capsys, option):
    code, out, err = run_cli(["validate", _grid(tmp_path), option, "corner-contacts"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "unknown problem code 'corner-contacts' (did you mean 'corner-contact'?)" in err


# -- one mistake, one problem ---------------------------------------------------------------
def _clean_with(tmp_path, change) -> Path:
    doc = json.loads((DATA / "clean.geojson").read_text())
    change(doc["features"])
    path = tmp_path / "m.geojson"
    path.write_text(json.dumps(doc))
    return path


def test_a_terrain_typo_is_reported_once_with_what_it_hides(tmp_path, capsys):
    path = _clean_with(tmp_path, lambda fs: fs[1]["properties"].update(terrain="forrest"))
    report = validate(path)
    (cause,) = report.errors
    assert cause.code == "unknown-terrain" and "'forrest'" in cause.message
    assert "(did you mean 'forest'?)" in cause.message
    assert "pousa-outside 'r1@1', 'r1@2'" in cause.message and "road-outside 'r1'" in cause.message
    assert report.warnings == []
    hidden = [p for p in report.problems if p.caused_by]
    assert {p.code for p in hidden} == {"pousa-outside", "road-outside"} and {p.caused_by for p in hidden} == {"B"}
    code, out, _ = run_cli(["validate", path], capsys)
    assert code == 1 and len(out.splitlines()) == 2 and out.strip().endswith("1 error, 0 warnings")
    code, out, _ = run_cli(["validate", path, "--json"], capsys)
    doc = json.loads(out)
    assert (doc["errors"], doc["warnings"], len(doc["problems"])) == (1, 0, 4)
    assert [p.get("caused_by") for p in doc["problems"]] == [None, "B", "B", "B"]


def test_a_missing_id_hides_the_fountain_on_it(tmp_path):
    path = _clean_with(tmp_path, lambda fs: fs[3].pop("id"))
    (cause,) = validate(path).errors
    assert cause.code == "missing-id" and "fountain-outside 'f1'" in cause.message


@pytest.mark.parametrize(("change", "message"), [
    (lambda fs: fs[6]["properties"].update(road="R1"), "which is not a road of this map (did you mean 'r1'?)"),
    (lambda fs: fs[0]["properties"].update(kind="eidos"), "unknown kind 'eidos' (did you mean 'eido'?)"),
])
def test_the_reader_suggests_the_nearest_name(tmp_path, change, message):
    path = _clean_with(tmp_path, change)
    assert any(message in p.message for p in validate(path).errors)


def test_unknown_names_elsewhere_get_a_suggestion(tmp_path):
    from eidomap.base.errors import CatalogError, RequestError
    from eidomap.record.catalog import load_catalog

    with pytest.raises(RequestError, match=r"unknown species 'hmuan' \(did you mean 'human'\?\)"):
        validate(DATA / "clean.geojson", species=["hmuan"])
    cat = tmp_path / "c.toml"
    cat.write_text('[species.elf]\ncosts = { forrest = 2 }\n')
    with pytest.raises(CatalogError, match=r"unknown terrain 'forrest' \(did you mean 'forest'\?\)"):
        load_catalog(cat)
    m = eidomap.load(DATA / "clean.geojson")
    with pytest.raises(RequestError, match=r"no Eido with id 'b' \(did you mean 'B'\?\)"):
        m.index("b")


# -- inlets -------------------------------------------------------------------------------------
def _slit(width: float, closed: bool = False) -> Board:
    """Two 10x10 Eidos side by side on a base, a slit ``width`` wide between them from the top edge."""
    geoms = [shapely.box(0, 0, 10, 10), shapely.box(10 + width, 0, 20, 10), shapely.box(0, -10, 20, 0)]
    return Board(geoms + [shapely.box(0, 10, 20, 20)] * closed)


def test_an_inlet_from_the_edge_is_reported():
    p = only_code(validate(DATA / "inlet.geojson"), "inlet")
    assert p.features == ("A", "B") and "at most 0.3 wide, 10 long" in p.message and p.location == (9.85, 5.0)
    board = _slit(0.3)
    assert board.inlets[0].tolist() == [0] and board.inlets[1].tolist() == [1]
    assert board.inlets[2].tolist() == [10.0] and board.inlets[3].tolist() == pytest.approx([0.3])


@pytest.mark.parametrize(("width", "closed", "code"), [
    (0.01, False, "near-miss"),  # narrower than the near-miss distance (0.02 here)
    (2.0, False, None),  # wider than the inlet width (1, a tenth of an Eido): a bay, not a slit
    (0.3, True, "gap"),  # closed at the top: a gap, not an inlet
])
def test_what_is_not_an_inlet(width, closed, code):
    board = _slit(width, closed)
    assert len(board.inlets[0]) == 0
    found = {"near-miss": len(board.near_misses[0]), "gap": len(board.gaps)}
    assert {k for k, n in found.items() if n} == ({code} if code else set())


def test_a_short_notch_and_a_corner_are_not_inlets():
    # facing for 1 across 0.3: not five times as long as wide
    notch = Board([shapely.box(0, 0, 10, 10), shapely.box(10.3, 9, 20, 10), shapely.box(10, 0, 20, 9)])
    assert len(notch.inlets[0]) == 0
    # two Eidos meeting at a point at 10 degrees, the space between them open: a corner contact
    t = np.radians(10)
    fan = shapely.Polygon([(5, 10), (5 + 4 * np.cos(t), 10 + 4 * np.sin(t)), (5, 14)])
    corner = Board([shapely.box(0, 0, 10, 10), fan])
    assert len(corner.inlets[0]) == 0 and corner.contacts[0].tolist() == [0]


def test_the_inlet_width_is_an_option(capsys):
    assert "inlet" not in validate(DATA / "inlet.geojson", inlet=0.2).codes()
    code, out, _ = run_cli(["validate", DATA / "inlet.geojson", "--inlet", "0.5"], capsys)
    assert code == 0 and out.startswith("warning: inlet: Eidos 'A' and 'B' face each other")


def only_code(report, code):
    (p,) = [q for q in report.problems if q.code == code]
    return p


# -- what validation says of them ---------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(a=st.floats(6.0, 174.0), b=st.floats(6.0, 174.0), at=st.floats(0.2, 1.8), rot=ROTATION, scale=SCALE)
def test_validate_calls_a_point_contact_a_corner_contact(a, b, at, rot, scale):
    lo, hi = sorted((a, b))
    hi = max(hi, lo + 1.0)
    board = Board(placed([shapely.box(0, 0, 2, 1), fan((at, 1.0), 1.0, lo, hi)], rot, scale, (0.0, 0.0)))
    assert len(board.adjacency) == 0
    assert len(board.near_misses[0]) == 0
    assert board.contacts[0].tolist() == [0] and board.contacts[1].tolist() == [1]


@pytest.mark.parametrize("angle", [0.5, 1.0])
def test_validate_calls_a_very_slowly_converging_border_a_near_miss(angle):
    """Arms under about 3 degrees run within the near-miss distance for 20 of it: a near-miss (docs/design.md)."""
    board = Board([shapely.box(0, 0, 2, 1), fan((0.2, 1.0), 1.5, angle, 30.0)])
    assert len(board.adjacency) == 0
    assert board.near_misses[0].tolist() == [0]


# -- validation's fast path on Eidos that share their borders to the bit (topology.exact_union), held to the
# general way on random maps.  The oracle, PlainBoard, is the board as it was before the fast path: GEOS's
# coverage check and union, and every pair within the near-miss distance from one STRtree dwithin query.
# Random Voronoi maps get defects -- Eidos left out, grown, shrunk, shifted, a vertex nudged, borders split, an
# Eido twice, an Eido inside another -- some of which keep the fast path (gaps, holes with an island) and some of
# which must make it give up.

class PlainBoard(Board):
    """The board without the fast path: GEOS's coverage check and union, one ``dwithin`` query for close pairs."""

    @cached_property
    def _borders(self):
        adjacency, keys, _ = Board._borders.func(self)
        return adjacency, keys, None

    @cached_property
    def close(self):
        i, j = self.tree.query(self.geoms, predicate="dwithin", distance=max(self.near, self.tol))
        keep = i < j
        return i[keep], j[keep]


SIDE = 100.0
DEFECTS = ("gap", "notch", "grow", "shrink", "shift", "nudge", "tiny-nudge", "split", "twice", "inside")


def _defect(cells: list, kind: str, k: int, size: float) -> list:
    """``cells`` with one defect on cell ``k``."""
    cell = cells[k]
    c = shapely.centroid(cell)
    if kind == "gap":  # an inner cell left out: a hole in the board
        return cells[:k] + cells[k + 1:]
    if kind == "notch":  # the cell nearest the board's edge left out
        k = int(np.argmin(shapely.distance(shapely.boundary(shapely.box(0, 0, SIDE, SIDE)), cells)))
        return cells[:k] + cells[k + 1:]
    if kind in ("grow", "shrink"):
        f = 1 + size if kind == "grow" else 1 - size
        return [*cells[:k], shapely.affinity.scale(cell, f, f, origin=c), *cells[k + 1:]]
    if kind == "shift":
        return [*cells[:k], shapely.affinity.translate(cell, size, size / 2), *cells[k + 1:]]
    if kind in ("nudge", "tiny-nudge"):  # one vertex moved: the borders it is on no longer match
        xy = shapely.get_coordinates(cell)
        xy[[0, -1]] += size if kind == "nudge" else SIDE * 1e-12
        return [*cells[:k], shapely.polygons(xy), *cells[k + 1:]]
    if kind == "split":  # extra vertices on one side of its borders only
        return [*cells[:k], shapely.segmentize(cell, 0.5), *cells[k + 1:]]
    if kind == "twice":
        return [*cells, cell]
    # "inside": a small square within the cell
    r = size * 0.5
    return [*cells, shapely.box(c.x - r, c.y - r, c.x + r, c.y + r).intersection(cell)]


maps = st.tuples(st.integers(8, 60), st.integers(0, 2**32 - 1),
                 st.lists(st.tuples(st.sampled_from(DEFECTS), st.integers(0, 10**6), st.floats(0.002, 0.3)),
                          max_size=3))


def _board_maps(n: int, seed: int, defects) -> np.ndarray:
    cells = list(voronoi_cells(n, np.random.default_rng(seed), side=SIDE))
    for kind, k, size in defects:
        if len(cells) > 3:
            cells = _defect(cells, kind, k % len(cells), size)
    return np.array([g for g in cells if not shapely.is_empty(g) and shapely.is_valid(g)], dtype=object)


def _same(fast, plain) -> None:
    for a, b in zip(fast, plain, strict=True):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=150, deadline=None)
@given(maps)
def test_the_fast_path_finds_what_the_general_way_finds(m):
    geoms = _board_maps(*m)
    fast, plain = Board(geoms), PlainBoard(geoms)
    event("fast path" if fast._borders[2] is not None else "general way")
    _same(fast.close, plain.close)  # the same pairs, in the same order
    assert fast.clean == plain.clean or (fast.clean and fast._borders[2] is not None)
    assert shapely.equals(fast.union, plain.union) or fast.n == 0
    assert shapely.equals(fast.outline, plain.outline) or fast.n == 0
    _same(fast.overlaps, plain.overlaps)
    _same(fast.gap_eidos, plain.gap_eidos)
    _same(fast.near_misses, plain.near_misses)
    _same(fast.inlets, plain.inlets)
    _same(fast.contacts, plain.contacts)
    ids = [f"e{k}" for k in range(fast.n)]
    fp, pp = geometry_problems(fast, ids), geometry_problems(plain, ids)
    assert [(p.code, p.features, p.message) for p in fp] == [(p.code, p.features, p.message) for p in pp]
    np.testing.assert_array_equal(np.array([p.location for p in fp]), np.array([p.location for p in pp]))


@settings(max_examples=150, deadline=None)
@given(maps)
def test_an_exact_union_is_the_union_of_eidos_that_do_not_overlap(m):
    geoms = _board_maps(*m)
    seg = boundary_segments(geoms)
    union = exact_union(seg, exact_pairs(seg).paired)
    if union is None:
        return
    assert shapely.is_valid(union) and shapely.equals(union, shapely.union_all(geoms))
    tree = shapely.STRtree(geoms)
    i, j = tree.query(geoms, predicate="intersects")
    keep = i < j
    assert not shapely.relate_pattern(geoms[i[keep]], geoms[j[keep]], "T********").any()


def test_a_clean_map_and_a_map_with_a_hole_take_the_fast_path():
    cells = voronoi_cells(200, np.random.default_rng(7), side=SIDE)
    for geoms in (cells, np.delete(cells, 100)):
        board = Board(geoms)
        assert board._borders[2] is not None and board.clean
    assert len(Board(np.delete(cells, 100)).gaps) == 1


@pytest.mark.parametrize("kind", ["grow", "shift", "twice", "inside", "split", "nudge"])
def test_overlaps_and_unmatched_borders_leave_the_fast_path(kind):
    cells = list(voronoi_cells(50, np.random.default_rng(3), side=SIDE))
    board = Board(np.array(_defect(cells, kind, 20, 0.2), dtype=object))
    assert board._borders[2] is None


def test_an_eido_inside_another_is_not_a_hole():
    """Its border, left unpaired, bounds a hole of the linework's area -- but runs the wrong way round."""
    big, small = shapely.box(0, 0, 10, 10), shapely.box(4, 4, 6, 6)
    seg = boundary_segments([big, small])
    assert exact_union(seg, exact_pairs(seg).paired) is None
    seg = boundary_segments([big.difference(small), small])
    assert shapely.equals(exact_union(seg, exact_pairs(seg).paired), big)


def test_close_pairs_measured_in_threads_come_as_one_query_gives_them(monkeypatch):
    """The pairs measured go in parts, one a thread, and come in the order one query gives them.  Parts of at
    least 1,000 pairs here, not 20,000: 2,500 Eidos and a wide near-miss distance (some 4,500 pairs) go in parts
    as 25,000 did (the boxes asked a few at a time: test_close_boxes_found_a_few_at_a_time_are_those_of_one_query)."""
    from eidomap.base import arrays
    from eidomap.validate import board as v

    parts = []
    monkeypatch.setattr(v, "in_threads", lambda func, values: arrays.in_threads(
        lambda part: parts.append(len(part)) or func(part), values, least=1_000))
    n = 2_500
    cells = voronoi_cells(n, np.random.default_rng(4), side=float(np.sqrt(n) * 10))
    board = Board(cells, near_miss=3.0)
    _ = board._borders  # (what close reads first)
    parts.clear()
    close = board.close
    assert len(parts) == min(os.cpu_count() or 1, 4) and min(parts) >= 1_000, parts
    _same(close, PlainBoard(cells, near_miss=3.0).close)


@pytest.mark.parametrize("name", ["near_miss", "inlet"])
@pytest.mark.parametrize("value", [1e308, float("inf"), float("nan"), -1.0, True, "1"])
def test_a_distance_is_a_number_from_0_to_the_largest_tolerance(name, value):
    """A distance past every coordinate a map may hold (±1e15) says nothing more, and its sums overflow."""
    with pytest.raises(RequestError, match=rf"^{name} must be a number from 0 to 1e\+15, got ") as caught:
        validate(DEMO, **{name: value})
    assert caught.value.param == name


def _rings(n: int) -> np.ndarray:
    """``n`` concentric rings, each around the one before: every box holds the smaller ones."""
    circles = shapely.buffer(shapely.points(np.zeros((n + 1, 2))), np.arange(1, n + 2), quad_segs=8)
    return shapely.difference(circles[1:], circles[:-1])


def test_eidos_whose_boxes_pile_up_are_refused_before_their_pairs_are_measured(tmp_path, monkeypatch):
    """Validation measures the pairs of Eidos whose boxes come near each other: n rings one inside another are
    n (n - 1) / 2 pairs to measure (each at GEOS's cost), listed all at once.  Past CLOSE_PAIRS_PER_EIDO an Eido
    (and the floor) they are refused, naming the file, before they are listed."""
    from eidomap.validate import board as v

    rings = _rings(30)  # 435 pairs
    assert len(Board(rings).close[0]) == 29  # (measured: each ring touches the next)
    monkeypatch.setattr(v, "CLOSE_PAIRS_FLOOR", 435 - 64 * 30 - 1)
    with pytest.raises(v.PileUp, match=r"^its Eidos pile up around \(0, 0\): more than 434 pairs of them come within"
                                       r" the near-miss distance of each other, the most validation measures on a"
                                       r" map of 30 Eidos \(64 an Eido\)"):
        Board(rings).close  # noqa: B018
    path = tmp_path / "target.geojson"
    path.write_text(json.dumps(collection([{"type": "Feature", "id": f"r{k}", "properties": {
        "kind": "eido", "terrain": "meadow"}, "geometry": json.loads(shapely.to_geojson(g))}
        for k, g in enumerate(rings)])))
    with pytest.raises(eidomap.MapError, match=rf"^{path}: its Eidos pile up around \(0, 0\)"):
        validate(path)


@settings(max_examples=20, deadline=None)
@given(boxes=st.lists(st.tuples(*[st.integers(0, 20)] * 4), min_size=1, max_size=30), chunk=st.integers(1, 50),
       d=st.sampled_from([0.0, 0.5, 3.0]))
def test_close_boxes_found_a_few_at_a_time_are_those_of_one_query(boxes, chunk, d):
    from eidomap.record.geometry import query
    from eidomap.validate import board as v

    geoms = np.array([shapely.box(min(a, c), min(b, e), max(a, c) + 1, max(b, e) + 1) for a, b, c, e in boxes])
    tree = shapely.STRtree(geoms)
    x0, y0, x1, y1 = shapely.bounds(geoms).T
    i, j = query(tree, shapely.box(x0 - d, y0 - d, x1 + d, y1 + d))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(v, "_BOX_CHUNK", chunk)
        got = v._box_pairs(tree, shapely.bounds(geoms), d)
    assert (got[0].tolist(), got[1].tolist()) == (i[i < j].tolist(), j[i < j].tolist())


def test_overlaps_past_the_first_thousand_are_counted_in_one_problem(tmp_path, capsys):
    """Eidos drawn over one another overlap pairwise: 50 identical squares are 1,225 pairs.  The first 1,000 are
    listed (their ids and place), one more problem says how many more; the map's count is every pair."""
    squares = [eido(f"e{k}", "meadow", square(0, 0)) for k in range(50)]
    path = tmp_path / "pile.geojson"
    path.write_text(json.dumps(collection(squares)))
    overlaps = [p for p in validate(path).problems if p.code == "overlap"]
    assert len(overlaps) == 1_001 and all(len(p.features) == 2 for p in overlaps[:-1])
    assert (overlaps[-1].features, overlaps[-1].location, overlaps[-1].message) == (
        (), None, "225 more pairs of Eidos overlap: only the first 1,000 are listed; fix them and validate again.")
    assert eidomap.load(path).map_errors()["overlap"] == 1_225


def test_a_validate_that_asks_no_species_never_imports_scipys_graphs(monkeypatch):
    """The reach check needs SciPy's csgraph only for the species it is asked about: the pre-commit hook and
    ``--watch`` ask none, and its import was a third of their start-up.  With the module barred (an import of it
    fails), the same problems."""
    import sys

    want = [(p.code, p.features) for p in validate(DEMO).problems]
    monkeypatch.setitem(sys.modules, "scipy.sparse.csgraph", None)
    assert [(p.code, p.features) for p in validate(DEMO).problems] == want
    with pytest.raises(ImportError):  # (what a species asks for: the module is barred indeed)
        validate(DEMO, species=["human"])
