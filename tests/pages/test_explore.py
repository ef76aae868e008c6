"""explore(): interactive maps on the demo map, the --html options, and the page in a real browser."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely

pytest.importorskip("bokeh", reason='explore needs Bokeh: pip install "eidomap[explore]"')

from conftest import DEMO, LOCAL, PAGE_GUARD, ROOT, borrowed_page, eido, shared, square

import eidomap
from eidomap.answers.routing import reach, route
from eidomap.base.errors import RequestError
from eidomap.cli import main
from eidomap.pages import explore as ex
from eidomap.plot.problems import as_map
from eidomap.validate.checks import validate

ROLLS = [3, 5, 2, 6]


@pytest.fixture(scope=shared("module"))
def trip(demo):
    return route(demo, "bouza-vella", "porto-norte", "human", rolls=ROLLS)


@pytest.fixture(scope=shared("module"))
def trip_page(demo, trip, tmp_path_factory) -> Path:
    """The trip's page for a human, saved alone in a folder: the same for the test of the file and Chromium's."""
    out = tmp_path_factory.mktemp("explore") / "trip.html"
    demo.explore(route=trip, species="human").save(out)  # (the view's save: save_html)
    return out


def _data(view, name: str) -> dict:
    return view.figure.select_one({"name": name}).data_source.data


def test_eidos_with_tooltips_and_costs(demo):
    view = demo.explore(species="human")
    data = _data(view, "eidos")
    assert data["id"] == demo.eido_ids
    parts = sum(len(e) for e in data["xs"])
    assert parts == int(shapely.get_num_geometries(demo.geometries).sum())
    k = demo.eido_ids.index("portela")
    assert (data["name"][k], data["terrain"][k], data["cost"][k]) == ("A Portela", "Rocks", "3")
    hover = view.figure.select_one({"name": "eido-hover"})
    assert ("Eido", "@id") in hover.tooltips and any("human" in label for label, _ in hover.tooltips)
    assert view.figure.match_aspect and view.figure.legend[0].click_policy == "hide"


def test_coordinates_are_rounded_to_screen_precision(demo):
    xs = _data(demo.explore(), "eidos")["xs"]
    flat = np.array([v for e in xs for part in e for ring in part for v in ring])
    side = 1000.0  # the demo map is 1,000 units wide
    assert np.allclose(flat, np.round(flat, ex._decimals((0, 0, side, side))))


def test_route_turn_by_turn(demo, trip):
    view = eidomap.explore(demo, route=trip)
    lines = _data(view, "route")
    assert [t.split(":")[0] for t in lines["turn"]] == [f"turn {t.turn}" for t in trip.turns]
    ends = _data(view, "turn-ends")
    assert ends["label"] == [str(t.turn) for t in trip.turns]
    assert "cr-4 (board, 1)" in lines["steps"][0]


def test_route_under_the_dice_is_one_line(demo):
    view = demo.explore(route=route(demo, "bouza-vella", "porto-norte", "human"))
    assert len(_data(view, "route")["xs"]) == 1 and "expected" in view.title


@pytest.mark.parametrize("kw", [{"turns": 3}, {"roll": 4}])
def test_reach_is_colour_mapped_with_a_colour_bar(demo, kw):
    from bokeh.models import ColorBar

    view = demo.explore(reach=reach(demo, "porto-sur", "human", **kw))
    values = np.asarray(_data(view, "eidos")["value"], dtype=float)
    assert len(values) == len(demo.eido_ids) and np.isfinite(values).any() and np.isnan(values).any()
    assert view.figure.select_one({"type": ColorBar}) is not None


def test_problems_are_markers_with_their_message():
    report = validate(ROOT / "tests" / "data" / "validate" / "gap.geojson")
    view = ex.explore(as_map(report.data), problems=report)
    data = _data(view, "problems-error")
    assert data["code"] == ["gap"] and "belongs to no Eido" in data["message"][0]


def test_bbox_takes_a_part_of_the_map(demo):
    view = demo.explore(bbox=ex.parse_bbox("0,300,500,700"))
    ids = _data(view, "eidos")["id"]
    meets = shapely.intersects(demo.geometries, shapely.box(0, 300, 500, 700))
    assert ids == [e for e, yes in zip(demo.eido_ids, meets, strict=True) if yes]
    assert 0 < len(ids) < len(demo.eido_ids) and "portela" in ids


def test_too_many_eidos_suggests_a_picture_or_bbox(demo, monkeypatch):
    monkeypatch.setattr(ex, "MAX_EIDOS", 10)
    with pytest.raises(RequestError, match=r"picture.*bbox=\(x0, y0, x1, y1\)"):
        demo.explore()


def test_without_bokeh_it_says_how_to_install(demo, monkeypatch):
    monkeypatch.setitem(sys.modules, "bokeh", None)
    with pytest.raises(RequestError, match=r'pip install "eidomap\[explore\]"'):
        demo.explore()


def test_save_html_is_one_self_contained_file(demo, trip_page, tmp_path):
    page = trip_page.read_text()
    assert "<script src=" not in page and "<link " not in page and "Bokeh" in page
    assert [p.name for p in trip_page.parent.iterdir()] == ["trip.html"]
    with pytest.raises(RequestError, match="html"):
        ex.save_html(demo.explore(), tmp_path / "trip.png")


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def test_the_same_view_is_the_same_page_every_time(make_map):
    """No random ids: a notebook's saved output or a saved page is the same bytes on every run."""
    odd = "0b4c2f7e-1d2a-4c3b-9e8f-7a6b5c4d3e2f"  # map data shaped like Bokeh's ids is kept as it is
    m = make_map([eido(odd, "meadow", square(0, 0)), eido("e1", "sea", square(1, 0))])
    view = m.explore(species="human")
    page = view.to_html()
    assert view.to_html() == page and view._repr_html_() == view._repr_html_()
    assert set(UUID.findall(page)) == {odd}
    ids = set(re.findall(r"eidomap-[0-9a-f]{20}-[0-9]+", page))
    assert len(ids) >= 3 and f'<div id="{sorted(ids)[-1]}" data-root-id=' in page


def test_the_page_of_a_reach_is_fixed_by_its_answers_not_by_their_last_bit(demo):
    """Issue 46: notebook 02's page changed on another machine (its ids too: they are a digest of the page), as a
    probability came out one unit in the last place apart there.  The values are drawn at 4 decimals and 256
    colours: the page holds them to ``VALUE_DECIMALS``, so the same answers give the same page, other answers
    another page and other ids."""
    r = reach(demo, "porto-norte", "human", turns=3)
    ulp = dataclasses.replace(r, p_within={k: float(np.nextafter(v, 2.0)) if 0 < v < 1 else v
                                           for k, v in r.p_within.items()})
    assert ulp.p_within != r.p_within
    page = demo.explore(reach=r, species="human").to_html()
    assert demo.explore(reach=ulp, species="human").to_html() == page
    other = demo.explore(reach=reach(demo, "porto-norte", "human", turns=2), species="human").to_html()
    ids = set(re.findall(r"eidomap-[0-9a-f]{20}-[0-9]+", page))
    assert ids and not ids & set(re.findall(r"eidomap-[0-9a-f]{20}-[0-9]+", other))


def test_notebook_display_is_an_isolated_frame(demo):
    assert demo.explore()._repr_html_().startswith("<iframe srcdoc=")


@pytest.mark.parametrize("argv", [
    ["plot", DEMO],
    ["route", DEMO, "--from", "bouza-vella", "--to", "porto-norte", "--species", "human", "--rolls", "3,5,2,6"],
    ["reach", DEMO, "--from", "porto-sur", "--species", "human", "--turns", "3"],
    ["validate", ROOT / "tests" / "data" / "validate" / "gap.geojson"],
    ["plot", DEMO, "--bbox", "0,300,500,700"],
])
def test_cli_html(argv, tmp_path, capsys):
    out = tmp_path / "out.html"
    code = main([str(a) for a in [*argv, "--html", out]])
    assert code in (0, 1) and out.is_file()
    assert f"wrote {out}" in capsys.readouterr().out


def test_cli_plot_needs_png_or_html(capsys):
    assert main(["plot", str(DEMO)]) == 2
    assert "--png" in capsys.readouterr().err


# -- in a real browser (the session's Chromium: conftest.browser) ---------------------------------
SCREENSHOT = Path(__file__).resolve().parents[1] / "output" / "explore-route.png"


_SCREEN_XY = """([x, y]) => {
  const figure = Bokeh.documents[0].roots()[0].children[0];
  const view = Bokeh.index.find_one(figure);
  const box = view.canvas_view.el.getBoundingClientRect();
  return [box.left + view.frame.x_scale.compute(x), box.top + view.frame.y_scale.compute(y)];
}"""


def test_the_page_in_chromium(demo, trip_page, browser):
    with borrowed_page(browser, 1200, 800) as (page, asked):  # (a context of the planner's tests, offline)
        page.goto(trip_page.as_uri())
        page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0 && Bokeh.index"
                               " && Object.keys(Bokeh.index).length > 0", timeout=PAGE_GUARD)
        assert [u for u in asked if not u.startswith(LOCAL)] == []
        parts = page.evaluate("() => Bokeh.documents[0].get_model_by_name('eidos').data_source.data.xs"
                              ".reduce((n, eido) => n + eido.length, 0)")
        assert parts == int(shapely.get_num_geometries(demo.geometries).sum())
        x, y = demo.positions[demo.eido_ids.index("portela")]
        page.mouse.move(*page.evaluate(_SCREEN_XY, [float(x), float(y)]))
        page.get_by_text("A Portela").wait_for(timeout=PAGE_GUARD)
        assert page.get_by_text("Rocks").count() >= 1
        SCREENSHOT.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000


def test_lines_are_drawn_from_their_sources_columns_and_points_with_their_layers_markers(demo):
    """Each line glyph reads its source's xs and ys columns (a column name the source lacks draws nothing, without
    an error); the Pousas are circles and the fountains diamonds, as their legend says."""
    view = demo.explore()
    for name in ("roads", "streams", "eidos"):
        r = view.figure.select_one({"name": name})
        assert {r.glyph.xs, r.glyph.ys} <= set(r.data_source.data), name
    assert view.figure.select_one({"name": "Pousas"}).glyph.marker == "circle"
    assert view.figure.select_one({"name": "fountains"}).glyph.marker == "diamond"


def test_the_way_beyond_the_rolls_given_is_a_dashed_line(demo):
    """Turns rolled are solid lines, the rest of the way (beyond the rolls given) a dashed one: Bokeh's named dash
    patterns, read from the source's dash column."""
    view = demo.explore(route=route(demo, "bouza-vella", "porto-norte", "human", rolls=[1]))
    lines = _data(view, "route")
    assert lines["dash"] == ["solid", "dashed"] and lines["turn"][-1] == "beyond the rolls given"
