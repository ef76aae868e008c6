"""The paths the other tests do not take: cache rejections, the command line's error branches,
``python -m eidomap``, the reader's error branches, the notebooks' key numbers."""

from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import numpy as np
import pytest
from conftest import DEMO, ROOT, collection, feature, strip

import eidomap
from eidomap import cache
from eidomap.cli import main
from eidomap.errors import MapError
from eidomap.routing import route


def _cached_map(tmp_path):
    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(strip(["meadow", "forest", "meadow"]))))
    assert eidomap.load(p, cache=True).network.n_nodes  # builds the network and writes the cache
    return p, cache.path_for(p)


def _rewrite(cpath, **changes):
    with np.load(cpath) as z:
        arrays = dict(z)
    arrays.update(changes)
    np.savez(cpath, **arrays)


@pytest.mark.parametrize("spoil", [
    lambda p, c: c.write_bytes(c.read_bytes()[: len(c.read_bytes()) // 2]),  # truncated
    lambda p, c: c.write_bytes(b"not an npz at all"),  # garbage
    lambda p, c: _rewrite(c, digest=np.array("0" * 64)),  # another map's
    lambda p, c: _rewrite(c, tolerance=np.array(0.5)),  # another tolerance
    lambda p, c: _rewrite(c, indptr=np.array([0, 5])),  # inconsistent arrays
    lambda p, c: _rewrite(c, in_order=np.zeros(3, np.int64)),  # a wrong edge order: recomputed, not trusted
    lambda p, c: p.write_text(p.read_text().replace('"forest"', '"marsh"')),  # the map changed under it
], ids=["truncated", "garbage", "digest", "tolerance", "arrays", "order", "map-changed"])
def test_every_bad_cache_is_ignored_and_rebuilt(tmp_path, spoil):
    p, cpath = _cached_map(tmp_path)
    spoil(p, cpath)
    fresh = eidomap.load(p)
    cached = eidomap.load(p, cache=True)
    assert np.array_equal(cached.network.dst, fresh.network.dst)
    assert np.array_equal(cached.network.in_order, fresh.network.in_order)
    assert route(cached, "e0", "e2", "human").total_cost == route(fresh, "e0", "e2", "human").total_cost


def test_python_dash_m_eidomap_runs_the_command_line():
    p = subprocess.run([sys.executable, "-m", "eidomap", "info", str(DEMO), "--json"], capture_output=True,
                       text=True, cwd=ROOT, timeout=120, check=False)
    assert p.returncode == 0 and json.loads(p.stdout)["eidos"] == 76


@pytest.mark.parametrize(("error", "code", "said"), [
    (BrokenPipeError(), 0, ""),
    (KeyboardInterrupt(), 130, "eidomap: interrupted"),
    (FileNotFoundError(2, "No such file or directory", "gone.geojson"), 2, "gone.geojson: No such file or directory"),
    (TypeError("a bug\nover two lines"), 3, "internal error (TypeError: a bug\\nover two lines); please report"),
])
def test_command_line_error_branches(monkeypatch, capsys, error, code, said):
    from eidomap.cli import plan

    def boom(args):
        raise error

    monkeypatch.setattr(plan, "load_map", boom)
    assert main(["route", str(DEMO), "--from", "a", "--to", "b", "--species", "human"]) == code
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and err.count("\n") == (1 if said else 0)


def test_debug_shows_the_traceback_above_the_line(monkeypatch, capsys):
    from eidomap.cli import plan

    def boom(args):
        raise TypeError("a bug")

    monkeypatch.setattr(plan, "load_map", boom)
    assert main(["route", str(DEMO), "--from", "a", "--to", "b", "--species", "human", "--debug"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and 'raise TypeError("a bug")' in err
    assert err.splitlines()[-1].startswith("eidomap: internal error (TypeError: a bug)")


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage: eidomap" in capsys.readouterr().out


@pytest.mark.parametrize(("doc", "said"), [
    ([1, 2], "not a GeoJSON FeatureCollection"),
    ({"type": "FeatureCollection", "features": [7]}, "not a GeoJSON Feature"),
    ({"type": "FeatureCollection", "features": [feature("eido", "Point", [0, 0], "p", terrain="meadow")]},
     "Polygon"),
    ({"type": "FeatureCollection", "features": [feature("eido", "Polygon", [[[0, 0], [1, 0], [1, 1], [0, 0]]],
                                                        "e", terrain="forrest")]}, "did you mean 'forest'"),
    ({"type": "FeatureCollection", "features": [feature(None, "Polygon", [[[0, 0], [1, 0], [1, 1], [0, 0]]],
                                                        "e")]}, "has no 'kind' property"),
])
def test_reader_error_branches_are_one_clear_error(tmp_path, doc, said):
    p = tmp_path / "bad.geojson"
    p.write_text(json.dumps(doc))
    with pytest.raises(MapError) as exc:
        eidomap.load(p)
    assert said in str(exc.value) and str(p) in str(exc.value)


def _outputs(name: str) -> str:
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    return "\n".join(o.get("text", "") + "".join(o.get("data", {}).get("text/markdown", "")) +
                     "".join(o.get("data", {}).get("text/plain", ""))
                     for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_notebooks_show_the_numbers_the_library_gives():
    m = eidomap.load(DEMO)
    cheapest = route(m, "porto-norte", "chousa", "human").cheapest_cost
    assert f"| 1 | {cheapest} |" in _outputs("02-reachability.ipynb")  # the first of the k cheapest ways
    rider = route(m, "porto-norte", "porto-sur", "horse")
    assert not rider.reachable
    d20 = _outputs("04-d20-tactical-and-overland.ipynb")
    assert "7/20" in d20 or "0.35" in d20  # hour 9 of a forced march at Con +2 fails with probability 7/20
