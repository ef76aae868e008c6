"""A non-editable install (the README's Quick start: ``pip install .``) has what the README and notebooks open.

The wheel is built from a copy of the sources (nothing written into the checkout) and installed without its
dependencies into a folder put first on ``PYTHONPATH``: the dependencies are this environment's, the eidomap
imported is the wheel's (the checkout's ``maps/`` out of its reach).  pip builds in its own environment, from
its cache or PyPI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from conftest import ROOT

#: What ships in maps/: each is opened from the installed package.
BUNDLED = sorted(p.name for p in (ROOT / "maps").iterdir() if p.suffix in (".geojson", ".toml", ".txt"))

CHECK = """
import sys
from pathlib import Path

import eidomap
from eidomap.catalog import load_catalog
from eidomap.d20 import load_grid
from eidomap.overland import travel
from eidomap.routing import route

site = Path(sys.argv[1]).resolve()
assert Path(eidomap.__file__).resolve().is_relative_to(site), eidomap.__file__
for name in sys.argv[2:]:
    path = eidomap.bundled_map_path(name)
    assert path.is_relative_to(site), path
    {".geojson": eidomap.load, ".toml": load_catalog, ".txt": load_grid}[path.suffix](path)
m = eidomap.load(eidomap.demo_map_path())
print(route(m, "bouza-vella", "porto-norte", "human", rolls=[3, 5, 2, 6]).arrival_turn)
print(len(travel(eidomap.load(eidomap.bundled_map_path("d20-overland.geojson")), "greenfield", "kingsbridge").days))
from eidomap.planner import grid_planner  # the pages' scripts ship as package data
battle = grid_planner(eidomap.bundled_map_path("d20-battle.txt"))
print("EidoPlanner" in m.planner().html and "GridPlanner" in battle.html)
"""


def _copy_sources(to: Path) -> None:
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.eidomap-cache")
    to.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, to / name)
    for folder in ("eidomap", "maps"):
        shutil.copytree(ROOT / folder, to / folder, ignore=skip)


def test_a_wheel_install_opens_every_bundled_map(tmp_path):
    assert {"demo.geojson", "demo-catalog.toml", "d20-overland.geojson", "d20-battle.txt"} <= set(BUNDLED)
    _copy_sources(tmp_path / "src")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--wheel-dir", tmp_path / "dist", tmp_path / "src"], check=True)
    (wheel,) = (tmp_path / "dist").glob("eidomap-*.whl")
    site = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", site, wheel], check=True)
    assert not list(site.glob("eidomap/maps/*.py"))  # the drawing's source stays in the checkout
    assert (site / "eidomap" / "py.typed").is_file()
    env = {**os.environ, "PYTHONPATH": str(site)}
    run = subprocess.run([sys.executable, "-c", CHECK, site, *BUNDLED], cwd=tmp_path, env=env, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["2", "3", "True"]
    demo = subprocess.run([sys.executable, "-m", "eidomap", "route", str(site / "eidomap" / "maps" / "demo.geojson"),
                           "--from", "bouza-vella", "--to", "porto-norte", "--species", "human", "--rolls", "3,5,2,6"],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert demo.returncode == 0 and "arrives in turn 2" in demo.stdout, demo.stderr


def test_ci_runs_ruff_and_mypy_before_the_tests_and_the_wheel_says_it_is_typed():
    """.ci/run fails on a lint or type error (set -e; each on its own line), before the README's test command;
    mypy's configuration is pyproject's, ``py.typed`` is package data (PEP 561)."""
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert "set -euo pipefail" in steps
    assert steps.index("ruff check .") < steps.index("python -m pytest")
    assert steps.index("mypy eidomap") < steps.index("python -m pytest")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["tool"]["mypy"]["packages"] == ["eidomap"]
    assert not project["tool"]["mypy"].get("strict")
    test_extra = " ".join(project["project"]["optional-dependencies"]["test"])
    assert "ruff>=" in test_extra and "mypy>=" in test_extra
    assert (ROOT / "eidomap" / "py.typed").is_file() and "py.typed" in project["tool"]["setuptools"]["package-data"][
        "eidomap"]
