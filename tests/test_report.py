"""eidomap report: one self-contained HTML file, its sections and figures, opened in headless Chromium."""

from __future__ import annotations

import itertools
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import eido, shared, square

import eidomap
from eidomap.analysis import load_batch
from eidomap.batch import Query, actor_from_spec, run_batch
from eidomap.cli import main
from eidomap.errors import RequestError
from eidomap.report import SECTIONS, build_report, named_places

DEMO = str(eidomap.demo_map_path())
SPECIES = ("human", "cow", "boat")


@pytest.fixture(scope="module")
def demo_batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "batch"
    run_batch(Query((DEMO,), actors=SPECIES, turns=2), out, workers=1, progress=False)
    return out


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


def test_report_from_a_batch_counts_its_rows_from_the_starts_each_species_can_stand_on(demo_batch, tmp_path):
    m = eidomap.load(DEMO)
    batch = load_batch(demo_batch)
    actors = [actor_from_spec(m.catalog, s, "1d6") for s in SPECIES]
    text = build_report(m, actors, batch=batch)
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
    assert main(["report", DEMO, "--batch", str(demo_batch), "-o", str(tmp_path / "r.html")]) == 0
    assert "species: human, cow, boat;" in (tmp_path / "r.html").read_text()


def test_species_pairs_count_the_pairs_only_one_can_reach(demo_batch):
    m = eidomap.load(DEMO)
    batch = load_batch(demo_batch)
    text = build_report(m, [actor_from_spec(m.catalog, s, "1d6") for s in SPECIES], batch=batch)
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
    out = tmp_path_factory.mktemp("report") / "places"
    starts = tuple(e for _, e in named_places(eidomap.load(DEMO)))
    run_batch(Query((DEMO,), actors=("human", "horse", "cow", "boat"), starts=starts, turns=2), out, workers=1,
              progress=False)
    return out


def test_the_batch_and_memory_give_the_same_numbers_for_the_same_question(places_batch):
    m = eidomap.load(DEMO)
    actors = [actor_from_spec(m.catalog, s, "1d6") for s in ("human", "horse", "cow", "boat")]
    batch, mem = build_report(m, actors, batch=load_batch(places_batch)), build_report(m, actors, turns=2)
    for section in ("turns", "unreachable", "species-pairs"):
        assert _tables(batch, section) == _tables(mem, section)
    assert "reach from the 2 named places" in mem and "reach from the batch&#x27;s 2 starts" in batch


def test_a_species_that_cannot_stand_on_a_start_is_said_so(report_file):
    text = report_file.read_text()
    assert "<td>boat</td><td>0 of 2</td><td>cannot stand on any start</td>" in text and "100.0 %" not in text
    assert "<th>species</th><th>starts it can stand on</th><th>(start, Eido) pairs it cannot reach</th>" in text
    assert "<td>human</td><td>2 of 2</td>" in text
    assert "from those of the 2 named places it can stand on" in text


def test_the_report_names_the_eido_standing_for_each_named_place(report_file):
    m = eidomap.load(DEMO)
    text = report_file.read_text()
    for label, e in named_places(m):
        assert f"{label} ({e}) &ldquo;{m.display_names[e]}&rdquo;" in text


def test_report_refuses_a_batch_of_another_map_version(demo_batch, tmp_path):
    changed = tmp_path / "demo.geojson"
    changed.write_bytes(Path(DEMO).read_bytes() + b"\n")
    shutil.copy(Path(DEMO).with_name("demo-catalog.toml"), tmp_path)
    m = eidomap.load(changed)
    with pytest.raises(RequestError, match=r"another version of demo\.geojson"):
        build_report(m, [actor_from_spec(m.catalog, "human", "1d6")], batch=load_batch(demo_batch))


def test_cli_report_errors_are_one_line(capsys, tmp_path):
    assert main(["report", DEMO, "--species", "dragon", "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown species 'dragon'" in err
    assert main(["report", DEMO, "--batch", str(tmp_path), "-o", str(tmp_path / "r.html")]) == 2
    assert "not the result folder of an eidomap batch" in capsys.readouterr().err


def test_report_renders_in_headless_chromium(report_file, tmp_path, browser):
    requests = []
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        page.on("request", lambda r: requests.append(r.url))
        page.goto(report_file.as_uri())
        for key in SECTIONS:
            assert page.locator(f"section#{key} h2").is_visible()
        images = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth,"
                               " i.getBoundingClientRect().width, i.closest('section').id])")
        assert {s for *_, s in images} == set(SECTIONS)
        assert all(done and natural > 0 and shown > 0 for done, natural, shown, _ in images)
        shot = tmp_path / "report.png"
        page.screenshot(path=str(shot), full_page=True)
    finally:
        page.close()
    assert shot.stat().st_size > 10_000
    assert all(u.startswith(("file:", "data:")) for u in requests)


def test_a_map_read_from_no_file_is_refused_in_a_sentence():
    """The report names the map's file and SHA-256: a map made in memory (from GeoDataFrames) has neither."""
    m = eidomap.load(eidomap.demo_map_path())
    made = eidomap.from_geodataframe(m.to_geodataframe("eidos"), catalog=m.catalog)
    with pytest.raises(RequestError, match="read from a file"):
        build_report(made, [actor_from_spec(m.catalog, "human", "1d6")])


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
