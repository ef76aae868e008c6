"""A non-editable install (the README's Quick start: ``pip install .``) has what the README and notebooks open;
an install without an optional extra imports, reads and plans, and says which extra a job needs.

The wheel is built from a copy of the sources (nothing written into the checkout) and installed without its
dependencies into a folder put first on ``PYTHONPATH``: the dependencies are this environment's, the eidomap
imported is the wheel's (the checkout's ``maps/`` out of its reach).  pip builds in its own environment, from
its cache or PyPI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import DEMO, ROOT, hang_guard

#: What ships in maps/: each is opened from the installed package.
BUNDLED = sorted(p.name for p in (ROOT / "maps").iterdir() if p.suffix in (".geojson", ".toml", ".txt"))

CHECK = """
import sys
from pathlib import Path

import eidomap
from eidomap.record.catalog import load_catalog
from eidomap.answers.grid import load_grid
from eidomap.answers.overland import travel
from eidomap.answers.routing import route

site = Path(sys.argv[1]).resolve()
assert Path(eidomap.__file__).resolve().is_relative_to(site), eidomap.__file__
for name in sys.argv[2:]:
    path = eidomap.bundled_map_path(name)
    assert path.is_relative_to(site), path
    {".geojson": eidomap.load, ".toml": load_catalog, ".txt": load_grid}[path.suffix](path)
m = eidomap.load(eidomap.demo_map_path())
print(route(m, "bouza-vella", "porto-norte", "human", rolls=[3, 5, 2, 6]).arrival_turn)
print(len(travel(eidomap.load(eidomap.bundled_map_path("d20-overland.geojson")), "greenfield", "kingsbridge").days))
from eidomap.pages.planner import grid_planner  # the pages' scripts ship as package data
battle = grid_planner(eidomap.bundled_map_path("d20-battle.txt"))
print("EidoPlanner" in m.planner().html and "GridPlanner" in battle.html)
# last, ``python -m eidomap route ...`` from the install: its exit ends this process (eidomap.cli.run)
import runpy

sys.argv = ["eidomap", "route", str(site / "eidomap" / "maps" / "demo.geojson"), "--from", "bouza-vella", "--to",
            "porto-norte", "--species", "human", "--rolls", "3,5,2,6"]
runpy.run_module("eidomap", run_name="__main__", alter_sys=True)
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
    site = tmp_path / "site"
    # pip install . (a wheel built in pip's own environment, then installed): one pip, not pip wheel + pip install.
    # The pip that installs setuptools into the build environment (a child, which reads pip's settings from the
    # environment, not from this command line) skips its check of that environment's requirements against every
    # package installed here -- ~1.5 of its ~3.5 CPU-s, for warnings at most, that nothing reads.  (The variable of
    # a --no-... option says whether to do it: 0 turns the check off, pypa/pip#5735; another meaning would cost time,
    # not change the wheel.)
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet", "install", "--no-deps",
                    "--target", site, tmp_path / "src"], check=True, env={**os.environ, "PIP_NO_WARN_CONFLICTS": "0"})
    assert [p.name for p in site.glob("eidomap-*.dist-info")] and (site / "eidomap" / "py.typed").is_file()
    assert not list(site.glob("eidomap/maps/*.py"))  # the drawing's source stays in the checkout
    env = {**os.environ, "PYTHONPATH": str(site)}
    run = subprocess.run([sys.executable, "-c", CHECK, site, *BUNDLED], cwd=tmp_path, env=env, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    said = run.stdout.splitlines()
    assert said[:3] == ["2", "3", "True"] and "arrives in turn 2" in "".join(said[3:]), run.stdout


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


#: Each optional extra of pyproject.toml, by the modules it brings that eidomap imports.  The ``geo`` extra's
#: pyarrow is a dependency of eidomap itself (the batch output), and pandas comes with geopandas or Dask.
EXTRAS = {"fast": ("msgspec",), "explore": ("bokeh",), "geo": ("geopandas", "pyogrio"),
          "dask": ("dask", "distributed"), "widget": ("anywidget",)}

WITHOUT = r'''
import importlib.abc
import sys
import tempfile

hidden = set(sys.argv[1].split(","))
demo, parquet, gpkg = sys.argv[2:5]


class NotInstalled(importlib.abc.MetaPathFinder):
    """The hidden packages as if they were not installed: importing one fails as a missing module does."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in hidden:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


assert not [m for m in sys.modules if m.partition(".")[0] in hidden], "imported before the test could hide it"
sys.meta_path.insert(0, NotInstalled())

import eidomap  # every public module, as the API reference lists them, and the command line
from eidomap import plot
from eidomap.answers import analysis
from eidomap.answers import batch
from eidomap.answers import grid as d20
from eidomap.validate import fix
from eidomap.base import modes
from eidomap.answers import overland
from eidomap.record import rulesets
from eidomap.validate import checks as validate  # noqa: F401
from eidomap.cli import main
from eidomap.base.errors import RequestError
from eidomap.io.fast import geojson as fastjson
from eidomap.answers.routing import reach, route

# the basic jobs, which need no extra: read a map (GeoJSON and GeoParquet), plan, reach, the command line, a picture
m = eidomap.load(demo)
print("route", route(m, "bouza-vella", "porto-norte", "human", rolls=[3, 5, 2, 6]).arrival_turn)
print("forbid", route(m, "bouza-vella", "porto-norte", "human", partial="forbid").best_turns)
print("reach", len(reach(m, "porto-sur", "human", roll=4).debt))
print("parquet", len(eidomap.load(parquet).eido_ids) == len(m.eido_ids))
print("cli", main(["route", demo, "--from", "bouza-vella", "--to", "porto-norte", "--species", "human",
                   "--rolls", "3,5,2,6"]))
print("plot", type(plot.plot_route(m, route(m, "bouza-vella", "porto-norte", "human"))).__name__)
print("msgspec", fastjson.available())
print("page", m.planner()._repr_html_().startswith("<iframe"))
exec("from eidomap import *", {})  # (every name of the root there, whatever is missing)


def needs(extra, job, error=RequestError):
    """A job that needs a hidden extra: refused, naming what to install."""
    try:
        job()
    except error as e:
        assert f'pip install "eidomap[{extra}]"' in str(e), str(e)
        print("needs", extra)
    else:
        raise AssertionError(f"ran without eidomap[{extra}]")


if "msgspec" in hidden:
    needs("fast", lambda: eidomap.load(demo, reader="msgspec"))
if "bokeh" in hidden:
    needs("explore", lambda: eidomap.explore(m))
if "geopandas" in hidden:
    needs("geo", lambda: m.to_geodataframe())
if "pyogrio" in hidden:
    needs("geo", lambda: eidomap.load(gpkg))
if "anywidget" in hidden:  # (a missing dependency: an ImportError, as Python says one)
    needs("widget", lambda: eidomap.PlannerWidget(m), ImportError)
    needs("widget", lambda: m.planner(widget=True), ImportError)
if "distributed" in hidden:
    # the local pool in threads of this process: its chunk computed behind the finder too (a spawned worker
    # imports afresh without it, and its ~0.7 CPU-s of imports checked nothing of the extra)
    from concurrent.futures import ThreadPoolExecutor
    from eidomap.answers.batch import run as batch_run

    class Threads(ThreadPoolExecutor):
        def __init__(self, workers, mp_context=None, initializer=None, initargs=()):
            super().__init__(workers, initializer=initializer, initargs=initargs)

    batch_run.ProcessPoolExecutor = Threads
    query = batch.Query(maps=(demo,), actors=("human",), starts=("porto-sur",), targets=("chousa",))
    print("batch", batch.run_batch(query, tempfile.mkdtemp() + "/local", workers=1, progress=False).rows)
    needs("dask", lambda: batch.run_batch(query, tempfile.mkdtemp() + "/dask", executor="dask", progress=False))
'''


@pytest.fixture(scope="module")
def table_maps(tmp_path_factory) -> tuple[Path, Path]:
    """The demo map as GeoParquet (read with pyarrow, which eidomap needs) and as a GeoPackage (pyogrio)."""
    from eidomap.cli import main

    folder = tmp_path_factory.mktemp("tables")
    for name in ("demo.parquet", "demo.gpkg"):
        assert main(["convert", str(DEMO), str(folder / name)]) == 0
    return folder / "demo.parquet", folder / "demo.gpkg"


#: The scenarios' runner: one interpreter imports the dependencies every scenario shares -- checking that none of
#: them so much as looks for a package that a scenario hides (else its state could depend on the scenario) -- and
#: forks a child per scenario, where eidomap is imported afresh behind that scenario's finder.  (An interpreter of its
#: own per scenario spent ~1.3 of its ~2 CPU-s importing the same numpy, numba, scipy and matplotlib; a child that
#: set up numba's typing, imported pyplot and, through ``from eidomap import *``, IPython and ipywidgets, ~0.2 more.)
FORKS = r'''
import importlib.abc
import json
import os
import sys
import traceback

scenarios, folder, without = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
hideable = {name for hidden in scenarios for name in hidden}
looked = []


class Looks(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in hideable:
            looked.append(name)


sys.meta_path.insert(0, Looks())
import matplotlib.figure, matplotlib.pyplot, numba, numpy, pyarrow.parquet, scipy.sparse.csgraph  # noqa: E401,F401
import shapely  # noqa: F401
from numba.core.registry import cpu_target

# numba's typing and target set up once, not by every child as it loads eidomap's first compiled function
cpu_target.typing_context.refresh()
cpu_target.target_context.refresh()
try:  # what the widget extra's anywidget imports (``from eidomap import *`` reaches it), not hidden by any scenario
    import IPython, ipywidgets  # noqa: E401,F401
except ImportError:
    pass
sys.meta_path.pop(0)
assert not looked and not [m for m in sys.modules if m.partition(".")[0] in hideable | {"eidomap"}], looked
for k, hidden in enumerate(scenarios):
    pid = os.fork()
    if pid == 0:
        for fd, name in ((1, "out"), (2, "err")):
            os.dup2(os.open(os.path.join(folder, f"{k}.{name}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        sys.argv = ["-c", ",".join(hidden), *sys.argv[4:]]
        code = 0
        try:
            exec(compile(without, "<without>", "exec"), {"__name__": "__main__"})
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
'''

SCENARIOS = {**EXTRAS, "geopandas": ("geopandas",), "pyogrio": ("pyogrio",),
             "none": (*(m for modules in EXTRAS.values() for m in modules), "pandas")}


@pytest.fixture(scope="module")
def scenarios(table_maps, tmp_path_factory) -> dict[str, tuple[int, str, str]]:
    """Each scenario's exit code, output and errors, run by :data:`FORKS`."""
    parquet, gpkg = table_maps
    folder = tmp_path_factory.mktemp("without")
    run = subprocess.run([sys.executable, "-c", FORKS, json.dumps(list(SCENARIOS.values())), folder, WITHOUT, DEMO,
                          parquet, gpkg], cwd=folder, capture_output=True, text=True,
                         timeout=hang_guard(5 * len(SCENARIOS)))
    assert run.returncode == 0, run.stderr
    codes = [int(line) for line in run.stdout.split()]
    assert len(codes) == len(SCENARIOS), run.stdout
    return {name: (code, (folder / f"{k}.out").read_text(), (folder / f"{k}.err").read_text())
            for k, (name, code) in enumerate(zip(SCENARIOS, codes, strict=True))}


@pytest.mark.parametrize("name", SCENARIOS)
def test_without_an_optional_extra_eidomap_imports_plans_and_names_what_to_install(name, scenarios):
    """Every extra is optional: with its packages not installed (a finder that refuses them, ahead of every
    other), ``import eidomap`` and its public modules work, the demo map is read from GeoJSON (the standard
    library's reader without msgspec) and GeoParquet, routes, reaches, the command line and a picture are made --
    and each job that needs the extra is refused, naming it (``pip install "eidomap[...]"``)."""
    hidden = SCENARIOS[name]
    code, out, err = scenarios[name]
    assert code == 0, err
    said = out.splitlines()
    assert said[:3] == ["route 2", "forbid 1", "reach 24"] and "parquet True" in said and "cli 0" in said
    assert "plot Axes" in said and ("msgspec False" in said) == ("msgspec" in hidden) and "page True" in said
    wanted = {f"needs {extra}" for extra, modules in EXTRAS.items() if set(modules) & set(hidden)}
    assert {line for line in said if line.startswith("needs")} == wanted
