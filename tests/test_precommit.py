"""The pre-commit hooks of .pre-commit-hooks.yaml: a map repository checks its maps on every commit."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, hang_guard

from eidomap.model.generate import generate_map, write_map

clientlib = pytest.importorskip("pre_commit.clientlib", reason="pre-commit is in the test extra")
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def test_the_hooks_are_a_valid_manifest():
    hooks = {h["id"]: h for h in clientlib.load_manifest(str(HOOKS))}
    assert set(hooks) == {"eidomap-validate", "eidomap-validate-system"}
    own, system = hooks["eidomap-validate"], hooks["eidomap-validate-system"]
    assert (own["language"], system["language"]) == ("python", "unsupported")
    for key in ("entry", "files", "args", "pass_filenames"):  # one check, however it is installed
        assert own[key] == system[key]
    assert own["entry"] == "eidomap validate"
    files = re.compile(own["files"])
    assert files.search("boards/north.geojson") and not files.search("package.json")


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def map_repo(tmp_path_factory) -> Path:
    """A designer's repository: a clean map and a flawed one (an Eido pushed into its neighbour), both added."""
    repo = tmp_path_factory.mktemp("maps")
    _git("init", "-q", cwd=repo)
    write_map(generate_map(40, seed=3), repo / "clean.geojson")
    doc = json.loads((repo / "clean.geojson").read_text())
    ring = doc["features"][0]["geometry"]["coordinates"][0]
    x0, y0, x1, y1 = (min(p[0] for p in ring), min(p[1] for p in ring), max(p[0] for p in ring),
                      max(p[1] for p in ring))
    doc["features"][0]["geometry"]["coordinates"] = [[[x0 - 2, y0 - 2], [x1 + 2, y0 - 2], [x1 + 2, y1 + 2],
                                                      [x0 - 2, y1 + 2], [x0 - 2, y0 - 2]]]
    (repo / "flawed.geojson").write_text(json.dumps(doc))
    _git("add", "clean.geojson", "flawed.geojson", cwd=repo)
    return repo


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory) -> Path:
    """A repository of this checkout's hook manifest alone, committed: what try-repo clones.

    The system hook runs the eidomap of this environment, first on PATH, and reads nothing of the repository
    it comes from but its manifest; try-repo of the checkout itself fetched its whole tree (13 MB, two thirds of
    each run's ~1.6 CPU-s) for each of the two runs.
    """
    repo = tmp_path_factory.mktemp("hooks")
    _git("init", "-q", cwd=repo)
    shutil.copy(HOOKS, repo / HOOKS.name)
    _git("add", HOOKS.name, cwd=repo)
    _git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "hooks", cwd=repo)
    return repo


def _try_hook(hooks: Path, repo: Path, *files: str) -> subprocess.CompletedProcess:
    """``pre-commit try-repo`` of the system hook of ``hooks`` (this checkout's manifest) on ``files``, offline
    and in a home of its own; the hook runs the eidomap of this environment, first on PATH."""
    home = repo.parent / f"{repo.name}-pre-commit"
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                                                                  os.environ.get("PATH", "")]),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hooks), "eidomap-validate-system",
                           "--files", *files], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=hang_guard(20))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_hook_passes_a_clean_map_and_fails_a_flawed_one(map_repo, hooks_repo):
    clean = _try_hook(hooks_repo, map_repo, "clean.geojson")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"eidomap validate\.+Passed", clean.stdout)
    flawed = _try_hook(hooks_repo, map_repo, "clean.geojson", "flawed.geojson")
    assert flawed.returncode == 1, flawed.stdout + flawed.stderr
    assert re.search(r"eidomap validate\.+Failed", flawed.stdout) and "exit code: 1" in flawed.stdout
    assert "clean.geojson: no problems" in flawed.stdout
    assert re.search(r"^flawed\.geojson: [1-9]\d* errors?, ", flawed.stdout, re.M)
    assert "error: overlap: Eidos 'e00' and " in flawed.stdout
