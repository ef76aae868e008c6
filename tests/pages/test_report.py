"""eidomap report: one self-contained HTML file, its sections and figures, opened in headless Chromium."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
import shapely
from conftest import borrowed_page, eido, shared, square

import eidomap
from eidomap.answers.analysis import load_batch
from eidomap.answers.batch import Query, actor_from_spec
from eidomap.answers.batch.job import prepare, run_chunk
from eidomap.answers.batch.store import open_folder
from eidomap.base.errors import RequestError
from eidomap.cli import main
from eidomap.pages import report as report_module
from eidomap.pages.report import SECTIONS, build_report, named_places

DEMO = str(eidomap.demo_map_path())
SPECIES = ("human", "cow", "boat")


def _batch_here(query: Query, out: Path) -> Path:
    """The batch of ``query`` in ``out``, its chunks computed in this process, as a worker computes them: the report
    reads its folder, whichever process wrote it (a batch's worker processes are tests/answers/test_batch.py's; a
    spawned one here cost a second of imports)."""
    job, chunks, record = prepare(query, out)
    with open_folder(out, record):
        for chunk in chunks:
            run_chunk(job, chunk)
    return out


def _undrawn(m, actors, **kw) -> str:
    """``build_report``'s page with its pictures undrawn (their data URIs empty), for the tests that read its tables
    and words only: the figures are still made, but drawing them is half a report's CPU.  The pictures drawn are
    ``report_file``'s and ``demo_batch_report``'s (from a batch), and ``test_long_names_lay_the_figures_out...``'s."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(report_module, "_data_uri", lambda fig, fmt: "data:,")
        return build_report(m, actors, **kw)


@pytest.fixture(scope="module")
def demo_batch(tmp_path_factory):
    return _batch_here(Query((DEMO,), actors=SPECIES, turns=2), tmp_path_factory.mktemp("report") / "batch")


@pytest.fixture(scope=shared("module"))
def report_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main(["report", DEMO, "--species", ",".join(SPECIES), "-o", str(out)]) == 0
    return out


def test_named_places_poi_then_regions_then_a_spread(make_map):
    tagged = make_map([eido("a", "meadow", square(0, 0), poi=True, name="Port"), eido("b", "meadow", square(1, 0)),
                       eido("c", "forest", square(2, 0), poi=True)])
    assert named_places(tagged) == [("Port", "a"), ("c", "c")]
    regions = make_map([eido(f"e{k}", "meadow", square(k, 0), region="west" if k < 3 else "east") for k in range(6)])
    assert named_places(regions) == [("east", "e4"), ("west", "e1")]
    plain = make_map([eido(f"e{k}", "meadow", square(k, 0)) for k in range(30)])
    assert len(named_places(plain)) == 12


def test_report_is_self_contained_with_every_section(report_file):
    text = report_file.read_text()
    for key, title in SECTIONS.items():
        assert f'<section id="{key}"><h2>{title}</h2>' in text
    images = re.findall(r'<img src="([^"]+)"', text)
    assert len(images) == 4 and all(src.startswith(("data:image/svg+xml;base64,", "data:image/png;base64,"))
                                    for src in images)
    assert not re.search(r'(src|href)="(https?:)?//', text)
    assert "boat" in text and "porto" in text


def _can_stand(m, species: str, ids) -> np.ndarray:
    """Whether ``species`` can be on each Eido: its catalog cost for the Eido's terrain is finite."""
    terrain = dict(zip(m.eido_ids, m.terrains, strict=True))
    sp = m.catalog.get_species(species)
    return np.array([np.isfinite(sp.costs.get(terrain[e], np.inf)) for e in ids])


def _tables(text: str, section: str) -> list[str]:
    return re.findall(r"<table>.*?</table>", re.search(f'<section id="{section}">(.*?)</section>', text, re.S)[1],
                      re.S)


@pytest.fixture(scope=shared("module"))
def demo_batch_report(demo_batch, tmp_path_factory):
    """The demo map, its batch result and the report from it, written by ``eidomap report --batch`` (the batch's
    species, 1d6 each: the report ``build_report`` gives their actors and the batch): the same for the tests that
    read it."""
    out = tmp_path_factory.mktemp("report") / "batch.html"
    assert main(["report", DEMO, "--batch", str(demo_batch), "-o", str(out)]) == 0
    return eidomap.load(DEMO), load_batch(demo_batch), out.read_text()


def test_report_from_a_batch_counts_its_rows_from_the_starts_each_species_can_stand_on(demo_batch_report):
    m, batch, text = demo_batch_report
    for species in SPECIES:
        rows = batch.rows("demo.geojson", species)
        stand = _can_stand(m, species, rows["from"])
        mine = (rows["from"] != rows["to"]) & stand
        share = 100 * (1 - rows["reachable"][mine].mean())
        starts = _can_stand(m, species, m.eido_ids).sum()
        assert f"<td>{species}</td><td>{starts} of 76</td><td>{share:.1f} %</td>" in text
    assert "figures from the batch result given, reach from the batch&#x27;s 76 starts" in text
    assert "from those of the batch&#x27;s 76 starts it can stand on" in text
    assert "P(arrived within 2 turns)" in text
    assert "species: human, cow, boat;" in text


def test_species_pairs_count_the_pairs_only_one_can_reach(demo_batch_report):
    _, batch, text = demo_batch_report
    reach = {}
    for species in SPECIES:
        rows = batch.rows("demo.geojson", species)
        order = np.lexsort((rows["to"], rows["from"]))
        reach[species] = rows["reachable"][order][(rows["from"] != rows["to"])[order]]
    for a, b in itertools.combinations(SPECIES, 2):
        only_a, only_b = int((reach[a] & ~reach[b]).sum()), int((reach[b] & ~reach[a]).sum())
        assert re.search(f"<td>{a}</td><td>{b}</td><td>[0-9.]+</td><td>{only_a:,}</td><td>{only_b:,}</td>", text)
    assert "count the pairs only one of the two can reach (in any number of turns)" in text


@pytest.fixture(scope="module")
def places_batch(tmp_path_factory):
    """The batch of the report's own question: from the named places to every Eido."""
    starts = tuple(e for _, e in named_places(eidomap.load(DEMO)))
    return _batch_here(Query((DEMO,), actors=("human", "horse", "cow", "boat"), starts=starts, turns=2),
                       tmp_path_factory.mktemp("report") / "places")


@pytest.fixture(scope=shared("module"))
def places_report():
    """The demo map, a human's, a horse's, a cow's and a boat's actors, and their report over 2 turns from memory."""
    m = eidomap.load(DEMO)
    actors = [actor_from_spec(m, s, "1d6") for s in ("human", "horse", "cow", "boat")]
    return m, actors, _undrawn(m, actors, turns=2)


def test_the_batch_and_memory_give_the_same_numbers_for_the_same_question(places_batch, places_report):
    m, actors, mem = places_report
    batch = _undrawn(m, actors, batch=load_batch(places_batch))
    for section in ("turns", "unreachable", "species-pairs"):
        assert _tables(batch, section) == _tables(mem, section)
    assert "reach from the 5 named places" in mem and "reach from the batch&#x27;s 5 starts" in batch


def test_a_species_that_cannot_stand_on_a_start_is_said_so(report_file):
    text = report_file.read_text()
    assert "<td>boat</td><td>0 of 5</td><td>cannot stand on any start</td>" in text and "100.0 %" not in text
    assert "<td>human</td><td>5 of 5</td>" in text
    assert "from those of the 5 named places it can stand on" in text
    assert "<th>species</th><th>starts it can stand on</th><th>(start, Eido) pairs it cannot reach</th>" in text


def test_the_report_names_the_eido_standing_for_each_named_place(report_file, untagged_report):
    m = eidomap.load(DEMO)
    text = report_file.read_text()
    for label, e in named_places(m):  # tagged: the Eido's display name, then its id
        assert f"{label} ({e})" in text
    m, actors, text = untagged_report
    for label, e in named_places(m, actors):  # a region: its name, the Eido's id and its display name
        assert f"{label} ({e}) &ldquo;{m.display_names[e]}&rdquo;" in text


@pytest.fixture(scope="module")
def untagged_demo(tmp_path_factory) -> Path:
    """The demo map with no Eido tagged ``poi``."""
    folder = tmp_path_factory.mktemp("untagged")
    doc = json.loads(Path(DEMO).read_text(encoding="utf-8"))
    for f in doc["features"]:
        f["properties"].pop("poi", None)
    (folder / "demo.geojson").write_text(json.dumps(doc), encoding="utf-8")
    shutil.copy(Path(DEMO).with_name("demo-catalog.toml"), folder)
    return folder / "demo.geojson"


@pytest.fixture(scope=shared("module"))
def untagged_report(untagged_demo):
    """The untagged demo map, a human's, a horse's and a cow's actors, and their report: the same for the tests
    that read it."""
    m = eidomap.load(untagged_demo)
    walkers = [actor_from_spec(m, s, "1d6") for s in ("human", "horse", "cow")]
    return m, walkers, _undrawn(m, walkers)


def test_the_demo_names_its_ports_its_village_and_its_fountains(places_report):
    """Each species that walks gets turns between them: the demo's report compares places, not a cliff."""
    m, _, text = places_report
    ids = {e for _, e in named_places(m)}
    assert ids == {"porto-norte", "porto-sur", "aldea-do-cabo", "carballeira", "chousa"}
    feats = json.loads(Path(DEMO).read_text(encoding="utf-8"))["features"]
    eidos = {f["id"]: shapely.geometry.shape(f["geometry"]) for f in feats if f["properties"]["kind"] == "eido"}
    for f in feats:
        if f["properties"]["kind"] == "fountain":
            point = shapely.geometry.shape(f["geometry"])
            assert {e for e, g in eidos.items() if g.contains(point)} <= ids, f["id"]
    rows = dict(re.findall(r"<tr><td>(\w+)</td><td>([^<]+)</td>", _tables(text, "turns")[0]))
    assert rows == {"human": rows["human"], "horse": rows["horse"], "cow": rows["cow"], "boat": "-"}
    assert "-" not in (rows["human"], rows["horse"], rows["cow"])
    assert "No Eido of this map is tagged" not in text  # tagged: nothing to say about naming them


def test_an_untagged_map_picks_places_every_species_can_stand_on_and_says_how_to_name_them(untagged_report):
    m, walkers, text = untagged_report
    places = named_places(m, walkers)
    assert [label for label, _ in places] == ["norte", "sur"]
    terrain = dict(zip(m.eido_ids, m.terrains, strict=True))
    for who in ("human", "horse", "cow"):
        assert _can_stand(m, who, [e for _, e in places]).all(), (who, [terrain[e] for _, e in places])
    assert "No Eido of this map is tagged as a named place" in text
    assert 'give their Eidos the property &quot;poi&quot;: true' in text
    # a human and a boat: the Sur's lake suits both; the Norte has no water, so the place is one of the human's
    places = dict(named_places(m, [actor_from_spec(m, s, "1d6") for s in ("human", "boat")]))
    assert places["sur"] == "lagoa-do-faro" and _can_stand(m, "human", [places["norte"]]).all()


def test_untagged_places_are_where_the_actors_stand_nearest_the_middle_of_their_region(make_map):
    """A cliff in the middle of a region stands for it only for whom can climb it; the rule: ``named_places``."""
    cliff = make_map([eido(f"e{k}", "rocky_cliff" if k == 1 else "meadow", square(k, 0), region="west")
                      for k in range(3)])
    human, horse = (actor_from_spec(cliff, s, "1d6") for s in ("human", "horse"))
    assert named_places(cliff) == [("west", "e1")]
    assert named_places(cliff, [human]) == [("west", "e1")]
    assert named_places(cliff, [human, horse]) in ([("west", "e0")], [("west", "e2")])
    plain = make_map([eido(f"e{k}", "rocky_cliff" if k % 2 else "meadow", square(k, 0)) for k in range(30)])
    spread = named_places(plain, [horse])
    assert len(spread) == 12 and all(int(e[1:]) % 2 == 0 for _, e in spread)


def test_report_refuses_a_batch_of_another_map_version(demo_batch, tmp_path):
    changed = tmp_path / "demo.geojson"
    changed.write_bytes(Path(DEMO).read_bytes() + b"\n")
    shutil.copy(Path(DEMO).with_name("demo-catalog.toml"), tmp_path)
    m = eidomap.load(changed)
    with pytest.raises(RequestError, match=r"another version of demo\.geojson"):
        build_report(m, [actor_from_spec(m, "human", "1d6")], batch=load_batch(demo_batch))


def test_cli_report_errors_are_one_line(capsys, tmp_path):
    assert main(["report", DEMO, "--species", "dragon", "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown species 'dragon'" in err
    assert main(["report", DEMO, "--batch", str(tmp_path), "-o", str(tmp_path / "r.html")]) == 2
    assert "not the result folder of an eidomap batch" in capsys.readouterr().err


def test_report_renders_in_headless_chromium(report_file, tmp_path, browser):
    with borrowed_page(browser, 1200, 900) as (page, requests):  # (a context of the planner's tests, offline)
        page.goto(report_file.as_uri())
        for key in SECTIONS:
            assert page.locator(f"section#{key} h2").is_visible()
        images = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth,"
                               " i.getBoundingClientRect().width, i.closest('section').id])")
        assert {s for *_, s in images} == set(SECTIONS)
        assert all(done and natural > 0 and shown > 0 for done, natural, shown, _ in images)
        shot = tmp_path / "report.png"
        page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    assert all(u.startswith(("file:", "data:")) for u in requests)


def test_a_map_read_from_no_file_is_refused_in_a_sentence():
    """The report names the map's file and SHA-256: a map made in memory (from GeoDataFrames) has neither."""
    m = eidomap.load(eidomap.demo_map_path())
    made = eidomap.from_geodataframe(m.to_geodataframe("eidos"), catalog=m.catalog)
    with pytest.raises(RequestError, match="read from a file"):
        build_report(made, [actor_from_spec(m, "human", "1d6")])


def test_long_names_lay_the_figures_out_without_a_warning(tmp_path, capsys):
    """Species named at length (and in a script the font lacks): each figure writes a name of 30 characters at
    most, keeping its two ends, and nothing but the line saying what was written reaches the terminal."""
    names = ["a-species-whose-name-runs-on-" * 6 + k for k in ("west", "east")] + ["\u6f22\u5b57" * 20]
    costs = "{ meadow = 1, scrub = 2, forest = 3, sea = 5, lake = 3, marsh = 3, rocks = 3, mountain = 4 }"
    catalog = tmp_path / "long.toml"
    catalog.write_text("".join(f'[species."{n}"]\nvmv = 0\ncosts = {costs}\n' for n in names), encoding="utf-8")
    out = tmp_path / "report.html"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = main(["report", DEMO, "--catalog", str(catalog), "--species", ",".join(["human", *names]),
                     "-o", str(out)])
    said = capsys.readouterr()
    assert code == 0 and said.err == "" and said.out.startswith("wrote ")
    assert names[0] in out.read_text()  # the tables name them whole


def test_a_figure_whose_labels_leave_no_room_is_laid_out_as_drawn():
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    from eidomap.pages.report import _data_uri

    fig = Figure(figsize=(1, 1), layout="constrained")
    fig.add_subplot().set_yticks([0], ["x" * 300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _data_uri(fig, "svg").startswith("data:image/svg+xml;base64,")
    assert not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)


def test_a_figure_is_laid_out_once_as_it_is_drawn(monkeypatch):
    """The constrained layout runs as the figure is drawn, not once more before (to see whether it can)."""
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    from eidomap.pages.report import _data_uri

    runs = []
    execute = ConstrainedLayoutEngine.execute
    monkeypatch.setattr(ConstrainedLayoutEngine, "execute", lambda self, fig: runs.append(fig) or execute(self, fig))
    fig = Figure(figsize=(3, 2), layout="constrained")
    fig.add_subplot().set_yticks([0, 1], ["a label", "another"])
    assert _data_uri(fig, "png").startswith("data:image/png;base64,") and runs == [fig]


def test_each_picture_of_the_report_is_the_kind_its_data_uri_says(report_file):
    """A browser draws an image by its data URI's type: an SVG is said image/svg+xml, a PNG image/png."""
    import base64

    images = re.findall(r'<img src="data:(image/[a-z+]+);base64,([^"]+)"', report_file.read_text())
    assert len(images) == 4 and {mime for mime, _ in images} == {"image/svg+xml", "image/png"}
    for mime, data in images:
        head = base64.b64decode(data)[:8]
        assert head == b"\x89PNG\r\n\x1a\n" if mime == "image/png" else head.startswith(b"<?xml")


def test_the_unreachable_chart_is_a_bar_a_species_high_with_its_axis_named(report_file):
    """The chart of unreachable shares grows a bar a species (0.35 in each, 1.2 in for the axes), not a fixed size,
    and its axis says what the bars count."""
    import base64

    text = re.search(r'<section id="unreachable">(.*?)</section>', report_file.read_text(), re.S)[1]
    svg = base64.b64decode(re.search(r'<img src="data:image/svg\+xml;base64,([^"]+)"', text)[1]).decode()
    height = float(re.search(r'<svg[^>]* height="([0-9.]+)pt"', svg)[1])
    assert abs(height - (0.35 * len(SPECIES) + 1.2) * 72) < 0.2 * 72 * (0.35 * len(SPECIES) + 1.2)
    assert "<!-- % of (start, Eido) pairs it cannot reach -->" in svg  # (matplotlib writes each text in a comment)


def test_a_report_of_no_species_is_refused_in_a_sentence():
    with pytest.raises(RequestError, match=r"^the report needs at least one species$"):
        build_report(eidomap.load(DEMO), [])
