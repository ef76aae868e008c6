"""Errors speak the caller's language: a library call names its Python parameters, the command line its flags.

Each case is one mistake made twice: through the Python API (the message names the parameter, ``rolls=...``,
``executor must be``, and no flag) and through the command line (exit 2, one line, the flag of the command that
ran, as it always said it).
"""

from __future__ import annotations

import pickle
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import eidomap
from eidomap.answers import grid as d20
from eidomap.answers import overland
from eidomap.answers.analysis import load_batch
from eidomap.answers.batch import Query, run_batch
from eidomap.answers.batch.job import prepare
from eidomap.answers.routing import reach, route
from eidomap.base.errors import EidomapError, RequestError
from eidomap.cli import build_parser, flags, main
from eidomap.io.svg import read_svg
from eidomap.io.tiled import import_tiled
from eidomap.model.generate import generate_map
from eidomap.pages.explore import parse_bbox
from eidomap.pages.planner import grid_planner, planner
from eidomap.rules.d20.speeds import party
from eidomap.rules.eido import actor
from eidomap.search import policy
from eidomap.validate.fix import fix_map

DEMO = str(eidomap.demo_map_path())
OVERLAND = eidomap.bundled_map_path("d20-overland.geojson")
DATA = Path(__file__).resolve().parents[1] / "data"
GAP = DATA / "validate" / "gap.geojson"
A_FLAG = re.compile(r"(?<![\w-])-(-[a-z]|o )")
SVG_LAVA = b'<svg xmlns="http://www.w3.org/2000/svg"><rect id="v" width="1" height="1" data-terrain="lava"/></svg>'


@dataclass
class Case:
    """``python(tmp, monkeypatch)`` returns the message a library call gives (raised or returned) and the
    command line ``argv`` (``{tmp}`` for the folder) says ``cli`` in its one line."""

    python: Callable
    says: tuple[str, ...]
    argv: tuple[str, ...] = ()
    cli: str = ""


def _raised(call) -> str:
    with pytest.raises(EidomapError) as info:
        call()
    return str(info.value)


def _batch(tmp, **kw):
    return Query(maps=(DEMO,), **({"actors": ("human",), "starts": ("a-foz",)} | kw))


def _not_empty(tmp) -> Path:
    (tmp / "o").mkdir(exist_ok=True)
    (tmp / "o" / "notes.txt").write_text("mine\n")
    return tmp / "o"


def _no_dask(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)


def _small_policy(monkeypatch) -> None:
    monkeypatch.setattr(policy, "MAX_POLICY_NODES", 5)


def _lava(tmp) -> Path:
    (tmp / "b.svg").write_bytes(SVG_LAVA)
    return tmp / "b.svg"


def _tiled_beside(tmp) -> tuple[Path, Path, Path]:
    """A Tiled board whose terrains come from a catalog that is not beside the map written."""
    (tmp / "cat").mkdir(exist_ok=True)
    (tmp / "out").mkdir(exist_ok=True)
    cat = tmp / "cat" / "lava.toml"
    cat.write_text('[terrains]\nlava = { medium = "land", label = "Lava" }\n')
    return DATA / "tiled" / "board.tmj", tmp / "out" / "b.geojson", cat


BATCH = ("batch", DEMO, "--species", "human", "--from", "a-foz", "--out", "{tmp}/o", "--quiet")
CASES = {
    "policy-too-big": Case(
        lambda tmp, mp: _small_policy(mp) or _raised(lambda: route(eidomap.load(DEMO), "porto-norte", "aldea-do-cabo",
                                                                   partial="forbid")),
        ("give rolls=..., or use the debt rule (partial='carry')",),
        ("route", DEMO, "--from", "porto-norte", "--to", "aldea-do-cabo", "--species", "human", "--partial", "forbid"),
        "give --rolls, or use the debt rule (--partial carry)"),
    "policy-too-much-work": Case(
        lambda tmp, mp: _raised(lambda: policy.forbid_reach_by_turn(
            eidomap.load(DEMO).network, np.ones(eidomap.load(DEMO).network.n_edges), [0], np.arange(3),
            np.array([1.0, 2.0]), np.array([0.5, 0.5]), 4, max_work=1)),
        ("turns=4 under partial='forbid' would need",)),
    "executor": Case(lambda tmp, mp: _raised(lambda: run_batch(_batch(tmp), tmp / "o", executor="slurm")),
                     ("executor must be 'local', 'dask' or 'serial', got 'slurm'",)),
    "workers": Case(lambda tmp, mp: _raised(lambda: run_batch(_batch(tmp), tmp / "o", workers=0)),
                    ("workers must be a whole number of at least 1, got 0",),
                    (*BATCH, "--workers", "0"), "--workers must be a whole number of at least 1, got 0"),
    "dask-missing": Case(lambda tmp, mp: _no_dask(mp) or _raised(lambda: run_batch(_batch(tmp), tmp / "o",
                                                                                     executor="dask")),
                         ("executor='dask' needs Dask",), (*BATCH, "--executor", "dask"),
                         '--executor dask needs Dask: pip install "eidomap[dask]"'),
    "chunk": Case(lambda tmp, mp: _raised(lambda: prepare(_batch(tmp, chunk=0), tmp / "o")),
                  ("chunk must be a whole number of at least 1, got 0",),
                  (*BATCH, "--chunk", "0"), "--chunk must be a whole number of at least 1, got 0"),
    "turns": Case(lambda tmp, mp: _raised(lambda: prepare(_batch(tmp, turns=-1), tmp / "o")),
                  ("turns must be a whole number from 0 to 1,000, got -1",),
                  (*BATCH, "--turns", "-1"), "--turns must be a whole number from 0 to 1,000, got -1"),
    "format": Case(lambda tmp, mp: _raised(lambda: prepare(_batch(tmp, format="xls"), tmp / "o")),
                   ("format must be 'parquet' or 'csv', got 'xls'",)),
    "no-species": Case(lambda tmp, mp: _raised(lambda: prepare(_batch(tmp, actors=()), tmp / "o")),
                       ("give at least one species with actors=..., or 'all'",)),
    "no-starts": Case(lambda tmp, mp: _raised(lambda: prepare(_batch(tmp, starts=()), tmp / "o")),
                      ("give at least one Eido id with starts=..., or 'all'",),
                      ("batch", DEMO, "--species", "human", "--from", ",", "--out", "{tmp}/o", "--quiet"),
                      "give at least one Eido id with --from, or 'all'"),
    "no-targets": Case(lambda tmp, mp: _raised(lambda: prepare(_batch(tmp, targets=()), tmp / "o")),
                       ("give at least one Eido id with targets=..., or 'all'",)),
    "out-not-empty": Case(lambda tmp, mp: _raised(lambda: run_batch(_batch(tmp), _not_empty(tmp), workers=1)),
                          ("holds no eidomap batch; use another folder as out=...",),
                          ("batch", DEMO, "--species", "human", "--from", "a-foz", "--out", "{tmp}/full", "--quiet"),
                          "holds no eidomap batch; use another folder as --out"),
    "fix-where": Case(lambda tmp, mp: _raised(lambda: fix_map(GAP)),
                      ("give either an output file (out=...) or in_place=True",)),
    "fix-over-itself": Case(lambda tmp, mp: _raised(lambda: fix_map(GAP, GAP)), ("(use in_place=True,",)),
    "fix-in-place-not-geojson": Case(
        lambda tmp, mp: _raised(lambda: fix_map(tmp / "m.fgb", in_place=True)),
        ("give a GeoJSON output file (out=...)",), ("fix", "{tmp}/m.fgb", "--in-place"),
        "give a GeoJSON output file (--out) for this map"),
    "fix-leaves-a-big-gap": Case(lambda tmp, mp: fix_map(GAP, tmp / "f.geojson")[0].left[0].message,
                                 ("see max_gap=...)",), ("fix", str(GAP), "-o", "{tmp}/f.geojson"),
                                 "see --max-gap-area)."),
    "bbox": Case(lambda tmp, mp: _raised(lambda: parse_bbox("1,2,0,0")), ("bbox must be x0,y0,x1,y1",),
                 ("plot", DEMO, "--html", "{tmp}/m.html", "--bbox", "1,2,0,0"), "--bbox must be x0,y0,x1,y1"),
    "svg-terrain": Case(lambda tmp, mp: read_svg(SVG_LAVA)[1][0], ("(pass catalog=... with it)",),
                        ("import-svg", "{tmp}/b.svg", "-o", "{tmp}/b.geojson"), "(pass --catalog with it)"),
    "tiled-catalog-elsewhere": Case(
        lambda tmp, mp: import_tiled(*_tiled_beside(tmp))[1][-1],
        ("pass catalog='",), ("import-tiled", str(DATA / "tiled" / "board.tmj"), "-o", "{tmp}/out/b.geojson",
                              "--catalog", "{tmp}/cat/lava.toml"),
        "pass --catalog {tmp}/cat/lava.toml when you use it"),
    "towing": Case(lambda tmp, mp: _raised(lambda: party(towed_by="heavy-horse")),
                   ("(vehicle=...)",)),
}


# -- issue 45 (items 6, 7, 10, 15): a wrong type from Python is a RequestError naming the parameter and what it
# takes (eidomap/base/params.py), not a TypeError, AttributeError or ValueError from deep inside ------------------
BATTLE = eidomap.bundled_map_path("d20-battle.txt")
PATH_TAKES = "must be a file path (str or os.PathLike), got"
SQUARE_TAKES = "must be a square: two whole numbers (row, column), got"


def _refused(param: str, call: Callable) -> Callable:
    """A case's ``python``: the message of the :class:`RequestError` ``call()`` raises, which is about ``param``."""
    def said(tmp, mp) -> str:
        with pytest.raises(RequestError) as info:
            call()
        assert info.value.param == param, str(info.value)
        return str(info.value)

    return said


def _catalog():
    return eidomap.load(DEMO).catalog


def _grid():
    return d20.load_grid(BATTLE)


def _route(**kw):
    return route(eidomap.load(DEMO), "bouza-vella", "porto-norte", "human", **kw)


WRONG_TYPES = {
    "actor-party-none": Case(_refused("party", lambda: actor(_catalog(), "human", party=None)),
                             ("party must be a list of species names, got None",)),
    "actor-party-one-name": Case(_refused("party", lambda: actor(_catalog(), "human", party="cow")),
                                 ("party must be a list of species names (not one str), got 'cow'",)),
    "actor-mount-a-list": Case(_refused("mount", lambda: actor(_catalog(), "human", mount=["horse"])),
                               ("mount must be a species name (the one ridden), got ['horse']",)),
    "load-a-number": Case(_refused("path", lambda: eidomap.load(3)), (f"path {PATH_TAKES} 3",)),
    "load-bytes": Case(_refused("path", lambda: eidomap.load(b"x")), (f"path {PATH_TAKES} b'x'",)),
    "load-catalog-a-dict": Case(_refused("catalog", lambda: eidomap.load(DEMO, catalog={})),
                                ("catalog must be a Catalog or a file path (str or os.PathLike), got {}",)),
    "planner-title-a-number": Case(_refused("title", lambda: planner(eidomap.load(DEMO), title=5)),
                                   ("title must be text (the page's title), got 5",)),
    "grid-planner-none": Case(_refused("grid", lambda: grid_planner(None)),
                              ("grid must be a Grid or a file path (str or os.PathLike), got None",)),
    "d20-reach-square-as-text": Case(_refused("at", lambda: d20.reach(_grid(), "13,0", 30)),
                                     (f"at {SQUARE_TAKES} '13,0'",)),
    "d20-route-goal-none": Case(_refused("goal", lambda: d20.route(_grid(), (13, 0), None, 30)),
                                (f"goal {SQUARE_TAKES} None",)),
    "d20-load-grid-none": Case(_refused("path", lambda: d20.load_grid(None)), (f"path {PATH_TAKES} None",)),
    "d20-grid-from-ragged-rows": Case(_refused("flags", lambda: d20.grid_from_array([[0, 0], [0]])),
                                      ("flags must be a 2-D array of whole numbers (rows of one length), got"
                                       " [[0, 0], [0]]",)),
    "load-batch-none": Case(_refused("path", lambda: load_batch(None)), (f"path {PATH_TAKES} None",)),
    "explore-route-as-text": Case(_refused("route", lambda: eidomap.load(DEMO).explore(route="x")),
                                  ("route must be a Route, got 'x'",)),
    # item 10: a square is two whole numbers, as a speed is (not truncated: (13.5, 0) is not (13, 0))
    "d20-square-of-a-half": Case(_refused("at", lambda: d20.reach(_grid(), (13.5, 0), 30)),
                                 (f"at {SQUARE_TAKES} (13.5, 0)",)),
    "d20-square-of-bools": Case(_refused("at", lambda: d20.reach(_grid(), (True, False), 30)),
                                (f"at {SQUARE_TAKES} (True, False)",)),
    "d20-route-start-of-a-half": Case(_refused("start", lambda: d20.route(_grid(), (13.5, 0), (8, 15), 30)),
                                      (f"start {SQUARE_TAKES} (13.5, 0)",)),
    "d20-target-of-a-half": Case(_refused("target", lambda: d20.reach(_grid(), (4, 12), 30, mode="charge",
                                                                      target=(2.5, 19))),
                                 (f"target {SQUARE_TAKES} (2.5, 19)",)),
    "d20-allies-of-a-half": Case(_refused("allies", lambda: d20.reach(_grid(), (13, 0), 30, allies=[(12.5, 1)])),
                                 ("allies must be a list of squares, each two whole numbers (row, column), got"
                                  " (12.5, 1) in [(12.5, 1)]",)),
    # item 15: one rule for whole numbers (Python and NumPy integers, never bools or floats) and for lists
    "rolls-a-float": Case(_refused("rolls", lambda: _route(rolls=[3.0])),
                          ("rolls must be a list of whole numbers (the results of turns 1, 2, ...), got 3.0 in"
                           " [3.0]",)),
    "rolls-a-bool": Case(_refused("rolls", lambda: _route(rolls=[True])), ("got True in [True]",)),
    "rolls-none": Case(_refused("rolls", lambda: _route(rolls=[None])), ("got None in [None]",)),
    "reach-roll-a-float": Case(_refused("roll", lambda: reach(eidomap.load(DEMO), "porto-sur", roll=3.0)),
                               ("roll must be a whole number, got 3.0",)),
    "overland-speed-a-bool": Case(_refused("speed", lambda: overland.travel(eidomap.load(OVERLAND), "greenfield",
                                                                            "kingsbridge", speed=True)),
                                  ("speed must be a number above 0 and at most 1,000, got True",)),
    # item 6: a negative seed, in one line
    "generate-seed-negative": Case(_refused("seed", lambda: generate_map(10, seed=-1)),
                                   ("seed must be a whole number from 0 to 18,446,744,073,709,551,615, got -1",),
                                   ("generate", "{tmp}/g.geojson", "--eidos", "10", "--seed", "-1"),
                                   "--seed must be a whole number from 0 to 18,446,744,073,709,551,615, got -1"),
    "generate-too-few-eidos": Case(_refused("n_eidos", lambda: generate_map(2)),
                                   ("n_eidos must be a whole number from 3 to 1,000,000, got 2",),
                                   ("generate", "{tmp}/g.geojson", "--eidos", "2"),
                                   "--eidos must be a whole number from 3 to 1,000,000, got 2"),
}
CASES |= WRONG_TYPES


def test_numpy_integers_are_whole_numbers_where_python_integers_are():
    m, cat = eidomap.load(DEMO), _catalog()
    a, b = actor(cat, "human", vmv=np.int64(2)), actor(cat, "human", vmv=2)
    assert type(a.vmv) is int and a.vmv == b.vmv == 2 and np.array_equal(a.table, b.table)
    assert _route(max_turns=np.int64(5)).p_by_turn == _route(max_turns=5).p_by_turn
    assert _route(rolls=np.array([3, 4])).arrival_turn == _route(rolls=[3, 4]).arrival_turn
    assert d20.reach(_grid(), np.array([13, 0]), np.int64(30)).feet == d20.reach(_grid(), (13, 0), 30).feet
    land = eidomap.load(OVERLAND)
    trip = overland.travel(land, "greenfield", "kingsbridge", speed=np.int64(30), party=[np.int32(20)])
    assert trip.miles == overland.travel(land, "greenfield", "kingsbridge", speed=30, party=[20]).miles
    assert reach(m, "porto-sur", roll=np.uint8(4)).debt == reach(m, "porto-sur", roll=4).debt


@pytest.mark.parametrize("name", CASES)
def test_a_python_caller_reads_the_parameters_it_passed(name, tmp_path, monkeypatch):
    (tmp_path / "m.fgb").write_bytes(b"")
    _not_empty(tmp_path)
    said = CASES[name].python(tmp_path, monkeypatch)
    for phrase in CASES[name].says:
        assert phrase in said
    assert not A_FLAG.search(said), said


@pytest.mark.parametrize("name", [k for k, c in CASES.items() if c.argv])
def test_the_command_line_reads_its_flags_where_python_reads_parameters(name, tmp_path, monkeypatch, capsys):
    case = CASES[name]
    (tmp_path / "m.fgb").write_bytes(b"")
    _not_empty(tmp_path).rename(tmp_path / "full")
    _lava(tmp_path)
    _tiled_beside(tmp_path)
    _small_policy(monkeypatch)
    _no_dask(monkeypatch)
    cli = case.cli.replace("{tmp}", str(tmp_path))
    code = main([a.replace("{tmp}", str(tmp_path)) for a in case.argv])
    out, err = capsys.readouterr()
    said = [line for line in (out + err).splitlines() if cli in line]
    assert len(said) == 1, out + err
    assert cli not in case.python(tmp_path, monkeypatch)  # the same mistake from Python reads otherwise
    assert "=..." not in said[0] and "='" not in said[0]
    if code == 2:  # an error: one line
        assert err.count("\n") == 1 and err.startswith("eidomap: ") and out == ""


def _args(*argv):
    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize(("argv", "text", "param", "said"), [
    (("fix", "m.geojson", "--in-place"), "give out=... or in_place=True", None, "give --out or --in-place"),
    (("fix", "m.geojson", "--in-place"), "close it (max_gap=12.5)", None, "close it (--max-gap-area 12.5)"),
    (("batch", "m", "--species", "all", "--from", "all", "--out", "o"), "with actors=..., starts=[1, 2]", None,
     "with --species, --from 1,2"),
    (("batch", "m", "--species", "all", "--from", "all", "--out", "o"), "workers must be; the workers", "workers",
     "--workers must be; the workers"),
    (("import-tiled", "b.tmj", "-o", "x.geojson"), "pass catalog='C:\\\\my maps\\\\it\\'s.toml' here", None,
     "pass --catalog C:\\my maps\\it's.toml here"),
    (("plot", "m.geojson", "--html", "x.html"), "a part (bbox=(x0, y0, x1, y1))", None, "a part (--bbox x0,y0,x1,y1)"),
    # names the command has no flag for, a word that is a flag's name but not written as a keyword, a lone '='
    (("plot", "m.geojson", "--html", "x.html"), "m.plot(rolls=...) has a bbox; x=", None,
     "m.plot(rolls=...) has a bbox; x="),
    (("fix", "m.geojson", "--in-place"), "in_place=False", None, "in_place=False"),
])
def test_flags_write_the_parameters_as_the_command_spells_them(argv, text, param, said):
    assert flags(text, _args(*argv), param) == said


def test_a_request_error_about_a_parameter_starts_with_its_name_and_keeps_it_through_pickle():
    exc = pickle.loads(pickle.dumps(RequestError("workers must be at least 1, got 0", param="workers")))
    assert exc.param == "workers" and str(exc) == "workers must be at least 1, got 0"
    with pytest.raises(ValueError, match="should start with the parameter 'chunk'"):
        RequestError("give chunk=...", param="chunk")
