"""Pictures: the artists each plot function draws, files by suffix, and the CLI's --png."""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import shapely
from conftest import collection, eido, feature, pousa, road, square, strip
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import BoundaryNorm
from matplotlib.figure import Figure
from matplotlib.text import Text

import eidomap
from eidomap.answers.routing import reach, reach_rolls, route
from eidomap.base.problems import ERROR, WARNING, Problem
from eidomap.cli import main
from eidomap.io.geojson import read_geojson
from eidomap.model.generate import generate_map, write_map
from eidomap.plot import (
    eido_paths,
    plot_compare,
    plot_map,
    plot_problems,
    plot_reach,
    plot_route,
    save_figure,
    save_reach_png,
    save_route_png,
)
from eidomap.rules.eido import actor
from eidomap.validate.checks import validate

DATA = Path(__file__).resolve().parent / "data" / "validate"

PNG = b"\x89PNG\r\n\x1a\n"


def new_ax():
    return Figure(figsize=(6, 4)).add_subplot()


def by_gid(ax, gid: str) -> list:
    return [a for a in ax.get_children() if a.get_gid() == gid]


def texts(ax, gid: str) -> list[str]:
    return [t.get_text() for t in ax.texts if t.get_gid() == gid]


def eidos_of(ax) -> PathCollection:
    found = by_gid(ax, "eidos")
    assert len(found) == 1 and isinstance(found[0], PathCollection)
    return found[0]


def rendered(ax) -> bytes:
    buf = io.BytesIO()
    ax.figure.savefig(buf, format="png")
    return buf.getvalue()


# -- the map --------------------------------------------------------------------------
def test_map_is_one_collection_with_a_legend_of_the_terrains_present(demo):
    ax = plot_map(demo, new_ax())
    coll = eidos_of(ax)
    assert len(coll.get_paths()) == len(demo.eido_ids)
    present = {demo.catalog.terrains[k].label for k in np.unique(demo.record.terrain)}
    legend = {t.get_text() for t in ax.get_legend().get_texts()}
    assert present <= legend
    assert {"road", "Pousa", "fountain", "stream (source to mouth)", "region border"} <= legend
    assert not any(t.label in legend for t in demo.catalog.terrains if t.label not in present)
    assert ax.get_aspect() == 1.0
    assert rendered(ax).startswith(PNG)


def test_map_colours_each_eido_by_its_terrain(demo):
    ax = plot_map(demo, new_ax(), colors={"meadow": "#ff0000"})
    faces = eidos_of(ax).get_facecolors()
    meadow = np.array(demo.terrains) == "meadow"
    assert meadow.any() and np.allclose(faces[meadow], [1, 0, 0, 1])
    assert not np.isclose(faces[~meadow][:, :3], [1, 0, 0]).all(axis=1).any()


def test_map_layers(demo):
    ax = plot_map(demo, new_ax())
    md = demo.record
    assert len(by_gid(ax, "pousas")[0].get_offsets()) == len(md.pousas)
    assert len(by_gid(ax, "fountains")[0].get_offsets()) == len(md.fountains)
    assert len(by_gid(ax, "roads")[0].get_segments()) == len(md.roads)
    assert len(by_gid(ax, "streams")[0].get_segments()) == len(md.streams)
    # two island regions: each outline closes on itself (and the islet of the Norte is one more)
    outlines = by_gid(ax, "regions")[0].get_segments()
    assert len(outlines) >= 2 and all(np.allclose(s[0], s[-1]) for s in outlines)
    bare = plot_map(demo, new_ax(), roads=False, regions=False, fountains=False, streams=False, legend=False)
    assert not any(by_gid(bare, g) for g in ("pousas", "roads", "fountains", "streams", "regions"))
    assert bare.get_legend() is None


def test_region_outline_is_the_dissolved_region(demo):
    """The outline of a region (T-junction included) encloses exactly its Eidos' area."""
    ax = plot_map(demo, new_ax())
    outlines = [shapely.Polygon(s) for s in by_gid(ax, "regions")[0].get_segments()]
    land = shapely.union_all(demo.geometries[np.not_equal(np.array(demo.record.regions, dtype=object), None)])
    shells = shapely.union_all(outlines)
    assert shapely.symmetric_difference(shells, land).area == pytest.approx(0.0, abs=1e-6)


def test_labels(demo):
    ax = plot_map(demo, new_ax(), labels=True)
    assert sorted(texts(ax, "label")) == sorted(demo.eido_ids)
    ax = plot_map(demo, new_ax(), labels=["porto-norte", "cr-3"])
    assert texts(ax, "label") == ["porto-norte", "cr-3"]
    assert texts(plot_map(demo, new_ax()), "label") == []
    with pytest.raises(eidomap.RequestError, match="no Eido or Pousa with id 'nowhere'"):
        plot_map(demo, new_ax(), labels=["nowhere"])


def test_generated_map_draws_every_eido(tmp_path):
    path = tmp_path / "g.geojson"
    write_map(generate_map(300, seed=2), path)
    m = eidomap.load(path)
    ax = plot_map(m, new_ax())
    assert len(eidos_of(ax).get_paths()) == 300
    assert rendered(ax).startswith(PNG)


def test_new_figure_when_no_axes_is_given(demo):
    ax = plot_map(demo)
    assert ax.figure is not None and len(eidos_of(ax).get_paths()) == len(demo.eido_ids)


# -- paths: holes and multipolygons, checked pixel by pixel ---------------------------------
def _pixels_inside(geoms, size: int = 120, extent: float = 10.0):
    fig = Figure(figsize=(size / 100, size / 100), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.add_collection(PathCollection(eido_paths(geoms), facecolors="black", edgecolors="none", antialiased=False))
    ax.set_xlim(0, extent)
    ax.set_ylim(0, extent)
    ax.set_axis_off()
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    dark = np.asarray(canvas.buffer_rgba())[:, :, 0] < 128
    rows, cols = np.mgrid[0:size, 0:size]
    x = (cols + 0.5) / size * extent
    y = extent - (rows + 0.5) / size * extent
    return dark, x, y


def _flip(ring):
    return ring[::-1]


@pytest.mark.parametrize("flip_shell", [False, True])
@pytest.mark.parametrize("flip_hole", [False, True])
def test_paths_leave_holes_empty_and_fill_every_part(flip_shell, flip_hole):
    shell = [(1, 1), (9, 1), (9, 9), (1, 9), (1, 1)]
    hole = [(3, 3), (7, 3), (7, 7), (3, 7), (3, 3)]
    islet = [(4.5, 4.5), (5.5, 4.5), (5.5, 5.5), (4.5, 5.5), (4.5, 4.5)]
    donut = shapely.Polygon(_flip(shell) if flip_shell else shell, [_flip(hole) if flip_hole else hole])
    # an Eido in two parts: the donut's neighbour to the left, plus an islet in the donut's hole
    other = shapely.MultiPolygon([shapely.box(0.2, 1, 0.8, 9), shapely.Polygon(islet)])
    geoms = np.array([donut, other], dtype=object)
    dark, x, y = _pixels_inside(geoms)
    inside = shapely.contains_xy(shapely.union_all(geoms), x, y)
    boundary = shapely.union_all(shapely.boundary(geoms))
    clear = shapely.distance(boundary, shapely.points(x, y)) > 0.2
    assert clear.sum() > 5000
    assert np.array_equal(dark[clear], inside[clear])
    assert not dark[(np.abs(x - 3.5) < 0.3) & (np.abs(y - 3.5) < 0.3)].any()  # in the hole


def test_multipolygon_eido_is_one_path(make_map):
    two = feature("eido", "MultiPolygon", [square(0, 0), square(3, 0)], "pair", terrain="meadow")
    m = make_map([two, *strip(["sea"], y=1)])
    ax = plot_map(m, new_ax())
    assert len(eidos_of(ax).get_paths()) == 2


# -- routes -------------------------------------------------------------------------------
def test_route_with_rolls_numbers_each_turn_end_and_writes_debts(demo):
    r = route(demo, "porto-norte", "porto-sur", "human", rolls=[1] * 12)
    assert r.turns and any(t.debt_after > 0 for t in r.turns)
    ax = plot_route(demo, r, new_ax())
    numbers = sorted(int(n) for label in texts(ax, "turn-end") for n in label.split(","))
    assert numbers == [t.turn for t in r.turns]
    debts = "\n".join(texts(ax, "debt"))
    for t in r.turns:
        assert (f"debt {t.debt_after:g} after turn {t.turn}" in debts) == (t.debt_after > 0)
    line = by_gid(ax, "route")[0]
    assert isinstance(line, LineCollection) and len(line.get_segments()) == len(r.path) - 1
    colours = {tuple(c) for c in line.get_colors()}
    assert len(colours) == len({t.turn for t in r.turns if t.steps})
    assert "arrives in turn" in ax.get_title()
    assert rendered(ax).startswith(PNG)


def test_route_turns_ending_in_the_same_place_share_a_mark(demo):
    r = route(demo, "porto-sur", "monte-pindo", "marino", rolls=[3, 5, 2, 6])
    assert r.turns[0].end == r.turns[1].end and r.turns[0].debt_after > 0
    ax = plot_route(demo, r, new_ax())
    assert "1,2" in texts(ax, "turn-end")


def test_route_beyond_the_rolls_is_drawn_dashed(demo):
    r = route(demo, "porto-norte", "porto-sur", "human", rolls=[1])
    assert r.arrival_turn is None
    ax = plot_route(demo, r, new_ax())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "beyond the rolls given" in legend and "not there after the 1 rolls given" in ax.get_title()


def test_teleport_is_a_jump_from_fountain_to_fountain(demo):
    r = route(demo, "carballeira", "aldea-do-cabo", "marino", rolls=[1])
    assert [s.kind for s in r.path] == ["start", "teleport", "teleport_exit"]
    ax = plot_route(demo, r, new_ax())
    (seg,) = by_gid(ax, "route")[0].get_segments()  # the hub has no place: one segment
    assert np.allclose(seg, demo.positions[[demo.index("carballeira"), demo.index("aldea-do-cabo")]])
    legend = ax.get_legend()
    (jump,) = [h for h, t in zip(legend.legend_handles, legend.get_texts(), strict=True)
               if t.get_text() == "teleport or stream"]
    assert jump.get_linestyle() == ":"  # dotted in the key, as the jump on the map


def test_route_under_the_dice_is_one_colour_with_the_expected_turns(demo):
    r = route(demo, "agra-de-riba", "porto-norte", actor(demo.catalog, "human", mount="horse"))
    ax = plot_route(demo, r, new_ax())
    line = by_gid(ax, "route")[0]
    assert len({tuple(c) for c in line.get_colors()}) == 1
    assert f"{r.expected_turns:.2f} turns expected" in ax.get_title()
    assert texts(ax, "turn-end") == []


def test_unreachable_route_is_drawn_with_its_ends(demo):
    r = route(demo, "porto-norte", "porto-sur", "horse")
    assert not r.reachable
    ax = plot_route(demo, r, new_ax())
    assert "cannot be reached" in ax.get_title()
    assert by_gid(ax, "start") and by_gid(ax, "goal") and not by_gid(ax, "route")


def test_zoom_frames_the_route(demo):
    r = route(demo, "bouza-vella", "toxal", "human")
    ax = plot_route(demo, r, new_ax(), zoom=True)
    x0, _, x1, _ = shapely.total_bounds(demo.geometries)
    lo, hi = ax.get_xlim()
    xy = demo.positions[[demo.index(s.node) for s in r.path if s.node in demo.eido_ids]]
    assert hi - lo < (x1 - x0) / 2 and lo < xy[:, 0].min() and xy[:, 0].max() < hi


# -- reachability ---------------------------------------------------------------------------
def test_reach_heatmap_of_probabilities_has_a_colour_bar(demo):
    r = reach(demo, "porto-sur", "human", turns=3)
    ax = plot_reach(demo, r, new_ax())
    coll = eidos_of(ax)
    assert coll.colorbar is not None and "within 3 turns" in coll.colorbar.ax.get_ylabel()
    values = coll.get_array()
    p = np.array([r.p_within[e] for e in demo.eido_ids])
    assert np.allclose(values.filled(0.0), p)
    assert np.array_equal(np.ma.getmaskarray(values), p == 0)
    assert by_gid(ax, "start")
    assert rendered(ax).startswith(PNG)


def test_reach_heatmap_of_arrival_turns(demo):
    r = reach_rolls(demo, "porto-sur", "human", rolls=[3, 4, 2])
    ax = plot_reach(demo, r, new_ax())
    coll = eidos_of(ax)
    assert isinstance(coll.norm, BoundaryNorm) and coll.colorbar is not None
    values = coll.get_array()
    assert values[demo.index("porto-sur")] == 0
    assert np.ma.count(values) == len(r.arrival_turn)


def test_reach_heatmap_of_debts_after_one_roll(demo):
    r = reach(demo, "porto-sur", "human", roll=4)
    ax = plot_reach(demo, r, new_ax(), colorbar=False)
    values = eidos_of(ax).get_array()
    assert eidos_of(ax).colorbar is None
    assert {demo.eido_ids[k]: float(values[k]) for k in np.flatnonzero(~np.ma.getmaskarray(values))} == r.debt
    with pytest.raises(eidomap.RequestError, match="holds no p_within"):
        plot_reach(demo, r, new_ax(), value="p_within")
    with pytest.raises(eidomap.RequestError,
                       match=r"^value must be 'p_within', 'arrival_turn' or 'debt', got 'speed'$"):
        plot_reach(demo, r, new_ax(), value="speed")


def test_compare_draws_one_panel_per_actor_with_one_colour_bar(demo):
    who = ["human", "horse", actor(demo.catalog, "human", party=["cow"]), "marino"]
    fig, axes = plot_compare(demo, "porto-norte", who, turns=2, ncols=3)
    assert len(axes) == 4
    assert [ax.get_title() for ax in axes] == ["human", "horse", "human with cow", "marino"]
    for ax, w in zip(axes, who, strict=True):
        p = reach(demo, "porto-norte", w, turns=2).p_within
        assert np.allclose(eidos_of(ax).get_array().filled(0.0), [p[e] for e in demo.eido_ids])
    assert len(fig.axes) == 5  # four panels and the shared colour bar
    with pytest.raises(eidomap.RequestError):
        plot_compare(demo, "porto-norte", [])


# -- problems ---------------------------------------------------------------------------
def flawed(make_map):
    doc = collection([
        *strip(["meadow", "forest", "scrub"]),
        eido("lava-field", "lava", square(0, 1)),
        eido("bow", "meadow", [[[1, 1], [2, 2], [2, 1], [1, 2], [1, 1]]]),
        road("r", [[0.5, 0.5], [2.5, 0.5]]), pousa("r", [0.5, 0.5]), pousa("nowhere", [1.5, 0.5]),
    ])
    return read_geojson(make_map.path(doc))


def test_problems_are_marked_and_labelled_over_partial_map_data(make_map):
    md, problems = flawed(make_map)
    assert {p.code for p in problems} == {"unknown-terrain", "invalid-geometry", "unknown-road"}
    extra = [Problem("gap", WARNING, ("'e0'", "'e1'"), (1.0, 0.5), "a gap"), Problem("odd", ERROR, (), None, "?")]
    ax = plot_problems(md, [*problems, *extra], new_ax())
    assert len(eidos_of(ax).get_paths()) == len(md.record.eidos) == 3
    errors, warnings = by_gid(ax, "problems-error")[0], by_gid(ax, "problems-warning")[0]
    # the skipped lava Eido and the stray Pousa are placed where they are in the file
    assert len(errors.get_offsets()) == len(problems) and len(warnings.get_offsets()) == 1
    assert np.allclose(sorted(map(tuple, errors.get_offsets())), sorted([(0.5, 1.5), (1.5, 1.5), (1.5, 0.5)]))
    labels = "\n".join(texts(ax, "problem-code"))
    assert all(code in labels for code in ("unknown-terrain", "invalid-geometry", "unknown-road", "gap"))
    assert texts(ax, "unplaced") == ["not on the map: odd \u00d71"]
    marked = by_gid(ax, "eidos-marked")
    assert len(marked) == 1 and len(marked[0].get_paths()) == 2  # e0 and e1, outlined for the warning
    assert ax.get_title().endswith("4 errors, 1 warning")
    assert rendered(ax).startswith(PNG)


def test_problems_accept_a_map_and_a_report(demo):
    report = SimpleNamespace(problems=[Problem("corner-only", WARNING, ("'agra-de-riba'", "'agra-de-baixo'"),
                                               (200.0, 480.0), "x")])
    ax = plot_problems(demo, report, new_ax())
    assert texts(ax, "problem-code") == ["corner-only"]
    assert ax.get_title().endswith("0 errors, 1 warning")
    assert not by_gid(ax, "problems-error")


def test_problems_of_a_validation_report(make_map):
    from eidomap.validate.checks import validate

    doc = collection([*strip(["meadow", "forest"]), eido("over", "scrub", [[[1.5, 0], [2.5, 0], [2.5, 1], [1.5, 1],
                                                                             [1.5, 0]]]),
                      eido("typo", "medow", square(0, 1))])
    report = validate(make_map.path(doc))
    assert {"overlap", "unknown-terrain"} <= set(report.codes())
    ax = plot_problems(report.data, report, new_ax())
    shown = sum(len(c.get_offsets()) for c in ax.collections if str(c.get_gid()).startswith("problems-"))
    assert shown == sum(p.location is not None or bool(p.features) for p in report.problems)
    assert set(report.codes()) <= set("\n".join(texts(ax, "problem-code")).split("\n"))


def test_problems_on_a_map_with_no_usable_eido(make_map):
    md, problems = read_geojson(make_map.path(collection([eido("a", "lava", square(2, 2))])))
    assert len(md.record.eidos) == 0
    ax = plot_problems(md, problems, new_ax())
    assert np.allclose(by_gid(ax, "problems-error")[0].get_offsets(), [(2.5, 2.5)])
    assert rendered(ax).startswith(PNG)


# -- files and the command line ----------------------------------------------------------
def test_save_figure_by_suffix(demo, tmp_path):
    ax = plot_map(demo, new_ax())
    save_figure(ax, tmp_path / "a.png")
    save_figure(ax.figure, tmp_path / "b.SVG")
    assert (tmp_path / "a.png").read_bytes().startswith(PNG)
    svg = (tmp_path / "b.SVG").read_text()
    assert svg.startswith("<?xml") and "<svg" in svg and 'id="eidos"' in svg
    with pytest.raises(eidomap.RequestError, match=r"must be a \.png or \.svg file, got '\.pdf'"):
        save_figure(ax, tmp_path / "c.pdf")
    with pytest.raises(eidomap.RequestError, match="does not exist"):
        save_figure(ax, tmp_path / "missing" / "d.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png", "b.SVG"]


def test_save_helpers_of_the_command_line(demo, tmp_path):
    save_route_png(demo, route(demo, "bouza-vella", "toxal", "human", rolls=[2, 2, 2]), tmp_path / "r.png")
    save_reach_png(demo, reach(demo, "porto-sur", "human", turns=2), tmp_path / "p.svg")
    assert (tmp_path / "r.png").read_bytes().startswith(PNG)
    assert "<svg" in (tmp_path / "p.svg").read_text()


def cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_plot(demo, tmp_path, capsys):
    code, out, _ = cli(["plot", demo.path, "--png", tmp_path / "m.png", "--labels"], capsys)
    assert code == 0 and "wrote" in out
    assert (tmp_path / "m.png").read_bytes().startswith(PNG) and (tmp_path / "m.png").stat().st_size > 10_000
    code, _, _ = cli(["plot", demo.path, "--png", tmp_path / "m.svg"], capsys)
    assert code == 0 and "<svg" in (tmp_path / "m.svg").read_text()


@pytest.mark.parametrize("command", [
    ["plot"],
    ["route", "--from", "bouza-vella", "--to", "toxal", "--species", "human"],
    ["reach", "--from", "porto-sur", "--species", "human", "--turns", "2"],
])
def test_cli_unknown_picture_suffix_is_one_line_and_exit_2(command, demo, tmp_path, capsys):
    code, _, err = cli([command[0], demo.path, *command[1:], "--png", tmp_path / "out.jpg"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "out.jpg: a picture must be a .png or .svg file, got '.jpg'" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "name"), [
    (["route", "--from", "bouza-vella", "--to", "toxal", "--species", "human", "--rolls", "2,3,1"], "out.png"),
    (["route", "--from", "agra-de-riba", "--to", "porto-norte", "--species", "human", "--mount", "horse"], "out.svg"),
    (["reach", "--from", "porto-sur", "--species", "human", "--turns", "3"], "out.png"),
    (["reach", "--from", "porto-sur", "--species", "human", "--roll", "4"], "out.svg"),
    (["reach", "--from", "porto-sur", "--species", "human", "--rolls", "3,4"], "out.png"),
])
def test_cli_route_and_reach_write_pictures(args, name, demo, tmp_path, capsys):
    """Route and reach each write both kinds of picture, each answer one of them: the kind is the suffix's, chosen
    after the drawing by the save_figure every command's save_*_png calls (test_save_figure_by_suffix), so an
    answer drawn and written as one kind is drawn and written as the other."""
    code, _, err = cli([args[0], demo.path, *args[1:], "--png", tmp_path / name], capsys)
    assert code == 0, err
    if name.endswith(".png"):
        assert (tmp_path / name).read_bytes().startswith(PNG)
    else:
        assert "<svg" in (tmp_path / name).read_text()


def test_cli_plot_of_a_bad_map_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.geojson"
    bad.write_text(json.dumps(collection([eido("a", "lava", square(0, 0))])))
    code, _, err = cli(["plot", bad, "--png", tmp_path / "m.png"], capsys)
    assert code == 2 and "feature 'a': has terrain 'lava'" in err and err.count("\n") == 1
    assert not (tmp_path / "m.png").exists()


def _overlapping(ax, gid: str) -> list[tuple[str, str]]:
    """Pairs of labels whose drawn boxes overlap (after a draw, with the renderer's text extents)."""
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    found = [t for t in ax.texts if t.get_gid() == gid]
    boxes = [Text.get_window_extent(t, renderer) for t in found]  # the text's box, not its leader line's
    return [(a.get_text(), b.get_text()) for (a, p), (b, q) in itertools.combinations(zip(found, boxes, strict=True), 2)
            if p.overlaps(q)]


@pytest.mark.parametrize("size", [(8, 6), (5, 4)])
def test_map_labels_do_not_overprint_each_other(demo, size):
    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    ax = plot_map(demo, fig.add_subplot(), labels=True)
    assert sorted(texts(ax, "label")) == sorted(demo.eido_ids)
    assert _overlapping(ax, "label") == []
    moved = [t for t in ax.texts if t.get_gid() == "label" and t.arrow_patch is not None]
    assert moved  # some had to move off their Eido's centre, with a leader line


def test_problem_labels_do_not_overprint_each_other(demo):
    report = validate(DATA / "gap.geojson")
    crowded = [dataclasses.replace(p, code=f"{p.code}-{k}", location=(p.location[0] + k * 0.1, p.location[1]))
               for k in range(12) for p in report.problems]  # twelve problems side by side
    fig = Figure(figsize=(6, 4))
    FigureCanvasAgg(fig)
    ax = plot_problems(report.data, crowded, fig.add_subplot())
    assert len(texts(ax, "problem-code")) == 12 and _overlapping(ax, "problem-code") == []


def test_problems_that_follow_from_another_are_not_drawn_apart(tmp_path):
    doc = json.loads((DATA / "clean.geojson").read_text())
    doc["features"][1]["properties"]["terrain"] = "forrest"
    path = tmp_path / "m.geojson"
    path.write_text(json.dumps(doc))
    report = validate(path)
    ax = plot_problems(report.data, report, new_ax())
    assert texts(ax, "problem-code") == ["unknown-terrain"] and ax.get_title().endswith("1 error, 0 warnings")


def test_a_label_in_a_script_the_font_lacks_is_drawn_without_a_warning(tmp_path, make_map):
    import warnings

    m = make_map([eido("\u6f22\u5b57", "meadow", square(0, 0)), eido("b", "meadow", square(1, 0))])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eidomap.plot.save_map_png(m, tmp_path / "m.png", labels=True)
    assert (tmp_path / "m.png").stat().st_size > 0


def test_a_skipped_feature_is_placed_where_it_is_in_the_file_the_files_first_too(make_map):
    """The lenient reader skips an Eido of an unknown terrain: its problem is drawn at the centre of its ring in
    the file, whichever feature of the file it is -- the first (index 0) as any other."""
    md, problems = read_geojson(make_map.path(collection([eido("lava-field", "lava", square(0, 1)),
                                                          *strip(["meadow", "forest", "scrub"])])))
    assert [p.code for p in problems] == ["unknown-terrain"]
    ax = plot_problems(md, problems, new_ax())
    assert by_gid(ax, "problems-error")[0].get_offsets().tolist() == [[0.5, 1.5]] and not texts(ax, "unplaced")


def test_a_problem_legends_title_is_as_small_as_its_entries(make_map):
    """The key of a problem picture: its title "problems" in the entries' small size, whatever the style's
    default title size."""
    import matplotlib as mpl

    md, problems = flawed(make_map)
    with mpl.rc_context({"legend.title_fontsize": "xx-large"}):
        legend = plot_problems(md, problems, new_ax()).get_legend()
    assert legend.get_title().get_text() == "problems"
    assert legend.get_title().get_fontsize() == legend.get_texts()[0].get_fontsize() < mpl.rcParams["font.size"]
