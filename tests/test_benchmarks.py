"""Smoke test of the benchmark suite: it runs, writes its report, and eidomap agrees with every peer.

Never asserts a timing: only the shape of the JSON and Markdown reports and the
agreement of every comparison.  ``python -m benchmarks --smoke`` runs every
workload on a 300-Eido map with one timed run of each measurement, no warm-up, and as few child processes as
its checks need (about 15 CPU-seconds; its timeout is a hang guard, far above that).
"""

from __future__ import annotations

import doctest
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import hang_guard

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import WORKLOADS, dice, harness, planner, query, search  # noqa: E402

FAMILIES = {"topology", "robustness", "one source, min PtMv", "turns (forbid)", "dice reachability", "analyst batch",
            "batch scale", "end to end", "memory", "start-up", "d20 route", "d20 travel", "map read", "route query",
            "generate", "planner page", "stages", "validate", "forbid route"}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench")
    out = folder / "smoke.json"
    # maps, caches and the report under a temporary folder: nothing written into the repository
    p = subprocess.run([sys.executable, "-m", "benchmarks", "--smoke", "--out", str(out), "--data", str(folder)],
                       cwd=ROOT, capture_output=True, text=True, timeout=hang_guard(90), check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(out.read_text()), out.with_suffix(".md").read_text()


def test_report_shape(smoke):
    report, _ = smoke
    assert report["mode"] == "smoke" and report["ok"] is True and report["errors"] == []
    assert {"cpu", "cores", "memory_gib", "versions"} <= set(report["machine"])
    pages = {"planner page"} if planner.available() else set()  # the pages need a Chromium to open in
    assert {r["workload"] for r in report["rows"]} == FAMILIES - {"planner page"} | pages
    for r in report["rows"]:
        assert {"workload", "size", "case", "seconds", "peer", "ratio", "bar", "verdict", "agree"} <= set(r)
        assert r["verdict"].split()[0] in {"PASS", "MISS", "INFO"}
        if r["peer"] is not None and r["table"] == "speed":
            assert r["seconds"] > 0 and r["peer_seconds"] > 0
            assert math.isclose(r["ratio"], r["seconds"] / r["peer_seconds"])
        if r["bar"] is not None and r["verdict"].startswith("MISS"):
            assert r["ratio"] > r["bar"]


def test_eidomap_agrees_with_every_peer(smoke):
    report, _ = smoke
    compared = [r for r in report["rows"] if r["agree"] is not None]
    assert len(compared) >= 10
    assert [r for r in compared if r["agree"] is not True] == []
    robust = [r for r in report["rows"] if r["workload"] == "robustness" and r["case"] == "eidomap"]
    assert robust and all(r["extra"]["found"] == 1.0 and r["extra"]["false"] == 0 for r in robust)


def test_markdown_lists_every_row(smoke):
    report, md = smoke
    assert md.startswith("# eidomap benchmarks (smoke")
    assert "| Workload | Eidos | Case | eidomap (s) | Peer |" in md
    table_lines = [line for line in md.splitlines() if line.startswith("| ") and not line.startswith("| Workload")
                   and not line.startswith("| Eidos")]
    assert len(table_lines) == len(report["rows"])


def test_harness_doctests():
    assert doctest.testmod(harness).failed == 0
    assert doctest.testmod(query).failed == 0


def test_probe_runs_the_eidomap_of_another_checkout(tmp_path):
    """``probe.py --at DIR eidomap ...`` runs DIR's eidomap (the issue's baseline commit), not this one."""
    (tmp_path / "eidomap").mkdir()
    (tmp_path / "eidomap" / "__init__.py").write_text("")
    (tmp_path / "eidomap" / "cli.py").write_text("def main(argv):\n    print('other checkout', argv)\n    return 3\n")
    r = harness.probe(["--at", tmp_path, "eidomap", "route", "x"])
    assert r.returncode == 3
    assert r.stdout.splitlines()[0] == "other checkout ['route', 'x']"


def test_probe_counts_the_memory_of_child_processes(tmp_path):
    """A command's peak RSS includes its children's (eidomap's helper process): ``RUSAGE_CHILDREN`` cannot tell."""
    (tmp_path / "spawner.py").write_text(
        "import subprocess, sys\n"
        "def spawn(mib):\n"
        "    code = f'import time; b = b\"x\" * ({mib} << 20); time.sleep(1)'\n"
        "    subprocess.run([sys.executable, '-c', code], check=True)\n")
    r = harness.probe(["--at", tmp_path, "call", "spawner:spawn", "300"]).check("spawner")
    assert r.children_peak_mib > 250
    assert r.info["peak_mib"] < 250  # the probe itself holds none of it
    assert r.peak_mib == r.info["peak_mib"] + r.children_peak_mib


def test_parse_sizes_and_verdicts():
    assert harness.parse_sizes("2000, 10k,1.5M") == [2000, 10_000, 1_500_000]
    with pytest.raises(ValueError):
        harness.parse_sizes("ten")
    assert harness.verdict(1.0, 1.2, True) == "PASS"
    assert harness.verdict(0.1, 1.2, False) == "FAIL (disagrees)"
    assert harness.verdict(2.4, 1.2, True) == "MISS (2.00x over)"
    assert harness.verdict(None, None, True) == "INFO"
    assert set(WORKLOADS) == {"topology", "dijkstra", "turns", "dice", "batch", "batch_scale", "endtoend", "memory",
                              "query", "startup", "d20", "planner", "formats", "generate", "stages", "validate",
                              "forbid"}


def test_python_peers_match_eidomap_on_a_line():
    """The benchmark's own Python searches agree with eidomap's on a graph small enough to check by hand."""
    from eidomap.search.turns import earliest_labels

    # 0 -> 1 -> 2 -> 3, costs 4, 3, 5; budget 6 a turn, steps must fit (forbid)
    indptr = np.array([0, 1, 2, 3, 3])
    dst = np.array([1, 2, 3])
    w = np.array([4.0, 3.0, 5.0])
    turns = search.heapq_forbid(indptr, dst, w, 0, 6)
    assert turns.tolist() == [0, 1, 2, 3]
    ref = earliest_labels(indptr, dst.astype(np.int64), w, 0, np.array([6.0]), True, False)[1]
    assert ref.tolist() == turns.tolist()
    # debt rule, rolls 2, 2, 6: step 1 (cost 4) starts in turn 1, is paid in turn 2; step 2 starts in turn 3
    assert dice.arrival_turns(indptr.tolist(), dst.tolist(), w.tolist(), 0, [2, 2, 6], [1, 2, 3]) == {1: 1, 2: 3, 3: 3}
