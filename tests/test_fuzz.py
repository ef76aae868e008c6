"""Each fuzz target of benchmarks/fuzz.py for a few seconds: mutants of its seeds end in an answer or a clean error.

The long runs (``python benchmarks/fuzz.py --minutes 10``) and their figures are in
docs/reliability.md; here each target gets a fixed number of inputs, so that the
suite stays quick and a failure replays with the blob hypothesis prints.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile

import pytest
from conftest import ROOT, hang_guard
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(ROOT))

from benchmarks import fuzz, fuzz_targets
from benchmarks.fuzz_targets import TARGETS, mutants

#: Inputs per target: about two seconds each on a quiet machine.
BUDGET = {"geojson": 60, "lanes": 60, "catalog": 60, "tiled": 80, "svg": 40, "svg-numbers": 40, "tiled-numbers": 60,
          "grid": 80, "cli": 15, "cache": 60, "cacheflip": 20, "batchresume": 12, "gpkg-text": 30, "fgb-text": 40,
          "geoarrow": 80, "fgbflip": 30}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_fuzz_target_for_a_few_seconds(name, tmp_path):
    target = TARGETS[name]

    @settings(max_examples=BUDGET[name], deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(mutants(target.seeds()))
    def run(data):
        target.run(tmp_path, data)

    run()


#: The inputs the long runs of the cache and batch targets found (kept by benchmarks/fuzz.py), replayed.
FOUND = sorted((ROOT / "benchmarks" / "results" / "fuzz").glob("cache-batch*/findings/*-*"))


@pytest.fixture(scope="module")
def two_places(tmp_path_factory):
    """Two checkouts of the files the targets read, each with its temporary folder, at paths of different lengths."""
    places = []
    for name in ("a", "a-checkout-that-lies-much-deeper-than-the-other-one"):
        where = tmp_path_factory.mktemp(name)
        for file in fuzz_targets.CLI_FILES.values():
            (where / file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / file, where / file)
        (where / "tmp").mkdir()
        places.append(where)
    yield places
    fuzz_targets._batches.cache_clear()  # (their batches lie under the places)


@pytest.mark.parametrize("found", FOUND, ids=[p.name for p in FOUND])
def test_what_fuzzing_the_cache_and_the_batch_found_runs_clean(found, tmp_path, two_places, monkeypatch):
    """Parts damaged so that reading them raised pyarrow's or numpy's own errors (a renamed column, text that is no
    UTF-8, dictionary codes past its end, a schema of 128-bit integers): resume now computes them again.

    Issue 46: a part holds its map's catalog path, and a damage's position was taken modulo the part's length: in a
    checkout at another path a recorded input flipped another byte (the footer's schema), and failed there only.
    Each input runs with the checkout and the temporary folder at two paths of different lengths: the same damage,
    and a clean resume, at each."""
    name = found.name.rsplit("-", 1)[0]
    data = found.read_bytes()
    done = []
    for k, where in enumerate(two_places):
        monkeypatch.setattr(fuzz_targets, "ROOT", where)
        monkeypatch.setattr(tempfile, "tempdir", str(where / "tmp"))
        if name == "batchresume":
            done.append(fuzz_targets.damaged(tmp_path / f"damaged-{k}", data)[1:])
        (tmp_path / f"run-{k}").mkdir()
        TARGETS[name].run(tmp_path / f"run-{k}", data)
    assert done[0] == done[-1]


def test_the_driver_names_every_target_and_counts_inputs(tmp_path):
    assert set(fuzz.NAMES) == set(TARGETS)
    # --hang: a hang guard, not the long runs' 10 s (an input of a second, slowed by a loaded machine, is no finding);
    # half a second more than the least time the driver starts a child for: one child fuzzes for it
    minutes = (fuzz.LEAST_CHILD_SECONDS + 0.5) / 60
    assert fuzz.main(["--minutes", str(minutes), "--target", "grid", "--engine", "hypothesis", "--out", str(tmp_path),
                      "--hang", str(hang_guard(1))]) == 0
    figures = json.loads((tmp_path / "grid.json").read_text())
    assert figures["execs"] > 0 and figures["findings"] == {} and figures["engine"] == "hypothesis"


def test_a_map_is_read_under_a_1_gib_memory_limit():
    """Found by the first fuzzing run: every read asked ``read()`` for the 2 GiB limit, allocated at once."""
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); import eidomap;"
            f" print(len(eidomap.load({str(ROOT / 'maps' / 'demo.geojson')!r}).eido_ids))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=hang_guard(2),
                       check=False)
    assert p.returncode == 0 and p.stdout.strip() == "76", p.stderr[-500:]
