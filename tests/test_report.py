"""eidomap report: one self-contained HTML file, its sections and figures, opened in headless Chromium."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import eido, square

import eidomap
from eidomap.analysis import load_batch
from eidomap.batch import Query, actor_from_spec, run_batch
from eidomap.cli import main
from eidomap.errors import RequestError
from eidomap.report import SECTIONS, build_report, named_places

DEMO = str(eidomap.demo_map_path())
SPECIES = ("human", "cow", "boat")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def demo_batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "batch"
    run_batch(Query((DEMO,), actors=SPECIES, turns=2), out, workers=1, progress=False)
    return out


@pytest.fixture(scope="module")
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


def test_report_from_a_batch_uses_its_rows(demo_batch, tmp_path):
    m = eidomap.load(DEMO)
    batch = load_batch(demo_batch)
    actors = [actor_from_spec(m.catalog, s, "1d6") for s in SPECIES]
    text = build_report(m, actors, batch=batch)
    rows = batch.rows("demo.geojson", "cow")
    off = rows["from"] != rows["to"]
    share = 100 * (1 - rows["reachable"][off].mean())
    assert f"<td>cow</td><td>{share:.1f} %</td>" in text
    assert "figures the batch result given" in text and "P(arrived within 2 turns)" in text
    # the same numbers as computed in memory from the named places (the batch has every pair)
    mem = build_report(m, actors, turns=2)
    table = re.compile(r'<section id="turns">.*?(<table>.*?</table>)', re.S)
    assert table.search(text).group(1) == table.search(mem).group(1)
    assert main(["report", DEMO, "--batch", str(demo_batch), "-o", str(tmp_path / "r.html")]) == 0
    assert "species: human, cow, boat;" in (tmp_path / "r.html").read_text()


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


def test_report_renders_in_headless_chromium(report_file, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's)")
    requests = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
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
            browser.close()
    assert shot.stat().st_size > 10_000
    assert all(u.startswith(("file:", "data:")) for u in requests)
