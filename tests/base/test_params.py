"""A caller's parameters checked once, at the boundary, with one set of helpers (eidomap/base/params.py).

The helpers' rules (a whole number is a Python or NumPy integer, never a bool or a float; a list of names is
not a str; a path is not bytes; a square is two whole numbers...), then the sweep: every public function of
the API reference, called with a wrong type for each of its parameters in turn, answers a ``RequestError``
(or the ``MapError`` of a file it cannot read) naming what it takes -- never a bare ``TypeError``,
``AttributeError`` or ``ValueError`` from deep inside.
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from conftest import DEMO, ROOT
from matplotlib.figure import Figure

import eidomap
from eidomap.base import params
from eidomap.base.errors import EidomapError, RequestError
from eidomap.cli import build_parser, flags

# -- the helpers ---------------------------------------------------------------------------------------------


def _said(call) -> RequestError:
    with pytest.raises(RequestError) as info:
        call()
    return info.value


@pytest.mark.parametrize("value", [1, np.int8(1), np.int64(1), np.uint64(1), 10**30])
def test_a_whole_number_is_a_python_or_numpy_integer(value):
    got = params.whole(value, "n")
    assert got == value and type(got) is int


@pytest.mark.parametrize("value", [True, False, np.True_, 1.0, np.float64(1.0), Fraction(1), "1", None, [1]])
def test_a_whole_number_is_never_a_bool_a_float_or_text(value):
    exc = _said(lambda: params.whole(value, "turns", 0, 5))
    assert exc.param == "turns" and str(exc) == f"turns must be a whole number from 0 to 5, got {value!r}"


@pytest.mark.parametrize(("value", "low", "high", "says"), [
    (0, 1, None, "of at least 1"), (4, None, 3, "of at most 3"), (4, 1, 3, "from 1 to 3"),
    (-1, 0, 10_000, "from 0 to 10,000")])
def test_a_whole_number_out_of_range_is_refused_naming_the_range(value, low, high, says):
    said = str(_said(lambda: params.whole(value, "n", low, high)))
    assert said == f"n must be a whole number {says}, got {value}"


def test_a_list_of_whole_numbers_names_the_first_wrong_one():
    assert params.wholes((np.int64(3), 1), "rolls", 1, 6) == [3, 1]
    for rolls in ([3.0], [True], [None], [1, 7]):
        said = str(_said(lambda r=rolls: params.wholes(r, "rolls", 1, 6, what="rolls of 1d6")))
        assert said == f"rolls must be a list of rolls of 1d6 from 1 to 6, got {rolls[-1]!r} in {rolls!r}"
    assert "not one str" in str(_said(lambda: params.wholes("36", "rolls")))


@pytest.mark.parametrize("value", [0.5, 3, np.float32(2.5), Fraction(1, 3), np.int64(7)])
def test_a_number_is_any_finite_real_as_a_float(value):
    got = params.real(value, "x")
    assert type(got) is float and got == float(value)


@pytest.mark.parametrize("value", [True, np.True_, math.inf, -math.inf, math.nan, np.float64("nan"), 10**400, "1",
                                   None, 1j])
def test_a_number_is_never_a_bool_an_infinity_nan_or_text(value):
    assert str(_said(lambda: params.real(value, "spacing", above=0))).startswith("spacing must be a positive number")


def test_a_number_out_of_range_names_the_range():
    assert str(_said(lambda: params.real(0, "x", above=0, high=5))) == "x must be a number above 0 and at most 5, got 0"
    assert str(_said(lambda: params.real(-1, "x", 0, 1e15))) == "x must be a number from 0 to 1e+15, got -1"
    assert params.real(0, "x", 0) == 0.0 and params.real(5, "x", high=5) == 5.0


def test_numbers_are_a_list_of_finite_reals_each_a_plain_python_number():
    got = params.reals(np.array([0.5, 1]), "p", 0, 1) + params.reals([np.int64(1), Fraction(1, 2)], "p", 0, 1)
    assert got == [0.5, 1.0, 1, 0.5] and [type(v) for v in got] == [float, float, int, float]
    for bad in ([0.5, "x"], [0.5, math.nan], [[0.5], [1]], "0.5", [True], 3, [2.0]):
        said = str(_said(lambda b=bad: params.reals(b, "p", 0, 1)))
        assert said.startswith("p must be a list of numbers from 0 to 1")


def test_a_str_is_not_a_list_of_names():
    assert params.names(["cow"], "party") == ("cow",) and params.names(iter(("a", "b")), "party") == ("a", "b")
    assert str(_said(lambda: params.names("cow", "party", "species names"))) == \
        "party must be a list of species names (not one str), got 'cow'"
    assert str(_said(lambda: params.names(None, "party"))) == "party must be a list of names, got None"
    assert str(_said(lambda: params.names(["cow", 3], "party"))) == "party must be a list of names, got 3 in ['cow', 3]"


def test_a_path_is_text_or_a_path_like_never_bytes():
    assert params.path("m.geojson", "path") == "m.geojson" and params.path(Path("m"), "path") == Path("m")

    class BytesPath(os.PathLike):
        def __fspath__(self):
            return b"m.geojson"

    for bad in (b"m.geojson", 3, None, BytesPath(), {}):
        assert str(_said(lambda b=bad: params.path(b, "path"))).startswith(
            "path must be a file path (str or os.PathLike), got ")
    assert str(_said(lambda: params.path([], "catalog", "a Catalog"))) == \
        "catalog must be a Catalog or a file path (str or os.PathLike), got []"


@pytest.mark.parametrize("value", [(13.5, 0), (True, False), "13,0", "13", (1, 2, 3), (1,), None, 13,
                                   np.array([1.0, 2.0]), (np.float64(1), 0)])
def test_a_square_is_two_whole_numbers(value):
    exc = _said(lambda: params.square(value, "at"))
    assert str(exc).startswith("at must be a square: two whole numbers (row, column), got ") and exc.param == "at"


def test_squares_are_pairs_of_whole_numbers():
    assert params.square(np.array([3, 4]), "at") == (3, 4) and params.square([np.int32(1), 2], "at") == (1, 2)
    assert params.squares([(1, 2), np.array([3, 4])], "allies") == [(1, 2), (3, 4)]
    for bad in ([(1.5, 2)], [(True, 2)], "12", [None], 5):
        assert str(_said(lambda b=bad: params.squares(b, "allies"))).startswith("allies must be a list of squares")


def test_a_switch_is_a_bool():
    assert params.flag(np.False_, "guided") is False
    for bad in (1, 0, "yes", None):
        assert str(_said(lambda b=bad: params.flag(b, "guided"))) == f"guided must be True or False, got {bad!r}"


def test_a_wrong_value_is_shown_short_and_on_one_line():
    said = str(_said(lambda: params.text(["a\n::error::x"] * 10**6, "title")))
    assert "\n" not in said and len(said) < 200 and said.endswith(", ...]")


def test_the_command_line_writes_its_flag_for_the_parameter():
    args = build_parser().parse_args(["d20", "reach", "g.txt", "--at", "0,0", "--speed", "30"])
    exc = _said(lambda: params.square("13,0", "at"))
    assert flags(str(exc), args, exc.param).startswith("--at must be a square")


# -- the sweep -----------------------------------------------------------------------------------------------
OVERLAND = ROOT / "maps" / "d20-overland.geojson"
BATTLE = ROOT / "maps" / "d20-battle.txt"
TILED = ROOT / "tests" / "data" / "tiled"


class Wrong:
    """A value of no type any parameter of eidomap takes."""

    def __repr__(self) -> str:
        return "<wrong>"


@dataclass
class World:
    """What a good call is made of: maps, a grid, answers, a batch folder (each made once, when first asked)."""

    tmp: Path

    @cached_property
    def m(self):
        return eidomap.load(DEMO)

    @cached_property
    def overland(self):
        return eidomap.load(OVERLAND)

    @cached_property
    def grid(self):
        return eidomap.answers.grid.load_grid(BATTLE)

    @cached_property
    def route(self):
        return eidomap.answers.routing.route(self.m, "bouza-vella", "porto-norte")

    @cached_property
    def reach(self):
        return eidomap.answers.routing.reach(self.m, "porto-sur", turns=2)

    @cached_property
    def grid_reach(self):
        return eidomap.answers.grid.reach(self.grid, (13, 0), 30)

    @cached_property
    def grid_route(self):
        return eidomap.answers.grid.route(self.grid, (13, 0), (8, 15), 30)

    @cached_property
    def travel(self):
        return eidomap.answers.overland.travel(self.overland, "greenfield", "kingsbridge")

    @cached_property
    def actor(self):
        from eidomap.rules.actors import resolve_actor

        return resolve_actor(self.m, "human")

    @cached_property
    def md(self):
        from eidomap.io.readers import read_map

        return read_map(DEMO)[0]

    @cached_property
    def batch(self) -> Path:
        from eidomap.answers.batch import Query
        from eidomap.answers.batch.job import prepare, run_chunk
        from eidomap.answers.batch.store import open_folder

        folder = self.tmp / "batch"
        job, chunks, record = prepare(Query((str(DEMO),), actors=("human",), starts=("porto-sur",), turns=2),
                                      folder)
        with open_folder(folder, record):
            for c in chunks:
                run_chunk(job, c)
        return folder

    @property
    def ax(self):
        """New axes, on a figure of their own (not pyplot's: nothing to close)."""
        return Figure().add_subplot()

    @cached_property
    def drawn(self):
        return eidomap.plot.plot_map(self.m, self.ax).figure

    def out(self, name: str) -> Path:
        return self.tmp / name

    @staticmethod
    def rule_set(name: str, registered: bool):
        """A copy of the Eido rule set named ``name``, registered or not (as the good call needs it)."""
        if name in eidomap.record.rulesets.names():
            eidomap.record.rulesets.unregister(name)
        copy = replace(eidomap.record.rulesets.get("eido"), name=name)
        if registered:
            eidomap.record.rulesets.register(copy)
        return copy


@dataclass
class Call:
    """A good call of a public function: its arguments by name (from the world); ``extra``: wrong values to try
    beside the generic ones, by parameter; ``keep``: parameters not swept, each with why; ``says``: the word a
    message uses for a parameter that is not its own name."""

    good: Callable[[World], dict]
    extra: dict[str, tuple] = field(default_factory=dict)
    keep: dict[str, str] = field(default_factory=dict)
    says: dict[str, str] = field(default_factory=dict)


#: A rule set's name is what a map's ``rules`` says: the message names it so.
RULES = {"name": "rules"}


SQUARE_WRONGS = ((13.5, 0), (True, False), "13,0", (13,))
SWEPT: dict[str, Call] = {
    # eidomap
    "eidomap.bundled_map_path": Call(lambda w: {"name": "demo.geojson"}),
    "eidomap.explore": Call(lambda w: {"m": w.m}, {"route": ("x",), "reach": ("x",), "problems": ("x",)}),
    "eidomap.model.frames.from_geodataframe": Call(lambda w: {"eidos": w.m.to_geodataframe()}),
    "eidomap.model.frames.to_geodataframe": Call(lambda w: {"m": w.m}),
    "eidomap.pages.planner.eido_data": Call(lambda w: {"m": w.m}),
    "eidomap.pages.planner.grid_data": Call(lambda w: {"grid": w.grid}),
    "eidomap.pages.report.named_places": Call(lambda w: {"m": w.m}),
    "eidomap.load": Call(lambda w: {"path": DEMO}, {"catalog": ({},)}),
    "eidomap.load_catalog": Call(lambda w: {}),
    # eidomap.answers.routing
    "eidomap.answers.routing.plan_table": Call(lambda w: {"a": w.actor, "carry": True}),
    "eidomap.answers.routing.plan_weights": Call(lambda w: {"m": w.m, "a": w.actor, "carry": True}),
    "eidomap.answers.routing.reach": Call(lambda w: {"m": w.m, "start": "porto-sur", "turns": 2}),
    "eidomap.answers.routing.reach_rolls": Call(lambda w: {"m": w.m, "start": "porto-sur", "rolls": [3]},
                                        {"rolls": ([3.0], [True], [None])}),
    "eidomap.answers.routing.route": Call(lambda w: {"m": w.m, "start": "bouza-vella", "goal": "porto-norte"},
                                  {"rolls": ([3.0], [True], [None], "36")}),
    "eidomap.answers.routing.weight": Call(lambda w: {"m": w.m}),
    # eidomap.answers.analysis
    "eidomap.answers.analysis.bottlenecks": Call(lambda w: {"m": w.m, "top": 2, "sample": 3}),
    "eidomap.answers.analysis.expected_turns_matrix": Call(lambda w: {"m": w.m,
                                                                      "places": ["porto-sur", "porto-norte"]}),
    "eidomap.answers.analysis.load_batch": Call(lambda w: {"path": w.batch}),
    "eidomap.answers.analysis.race": Call(lambda w: {"p_a": [0.5, 1.0], "p_b": [1.0]}),
    # eidomap.answers.grid
    "eidomap.answers.grid.grid_from_array": Call(lambda w: {"flags": [[0, 0], [0, 0]]}, {"flags": ([[0, 0], [0]],)}),
    "eidomap.answers.grid.load_grid": Call(lambda w: {"path": BATTLE}),
    "eidomap.answers.grid.parse_grid": Call(lambda w: {"text": "..\n.."}),
    "eidomap.answers.grid.reach": Call(lambda w: {"grid": w.grid, "at": (13, 0), "speed": 30},
                              {"at": SQUARE_WRONGS, "target": SQUARE_WRONGS, "allies": ([(1.5, 0)], (1, 2))}),
    "eidomap.answers.grid.route": Call(lambda w: {"grid": w.grid, "start": (13, 0), "goal": (8, 15), "speed": 30},
                              {"start": SQUARE_WRONGS, "goal": (*SQUARE_WRONGS, None), "enemies": ([(1.5, 0)],)}),
    # eidomap.answers.overland
    "eidomap.answers.overland.chase": Call(lambda w: {"speeds": [30, 20]}),
    "eidomap.answers.overland.example_map_path": Call(lambda w: {}),
    "eidomap.answers.overland.forced_march": Call(lambda w: {"hours": 10}),
    "eidomap.answers.overland.hustle": Call(lambda w: {"hours": 2}),
    "eidomap.answers.overland.mount_speed": Call(lambda w: {"kind": "light-horse"}),
    "eidomap.answers.overland.speed_table": Call(lambda w: {"speed": 30}),
    "eidomap.answers.overland.travel": Call(lambda w: {"m": w.overland, "start": "greenfield", "goal": "kingsbridge"},
                                    {"party": ("30",)}),
    "eidomap.answers.overland.vessel_speed": Call(lambda w: {"kind": "keelboat"}),
    # eidomap.plot
    "eidomap.plot.eido_paths": Call(lambda w: {"geoms": w.m.geometries[:2]}),
    "eidomap.plot.picture_format": Call(lambda w: {"path": "a.png"}),
    "eidomap.plot.plot_compare": Call(lambda w: {"m": w.m, "start": "porto-sur", "actors": ["human"]}),
    "eidomap.plot.plot_grid_reach": Call(lambda w: {"grid": w.grid, "reach": w.grid_reach, "ax": w.ax}),
    "eidomap.plot.plot_grid_route": Call(lambda w: {"grid": w.grid, "route": w.grid_route, "ax": w.ax}),
    "eidomap.plot.plot_map": Call(lambda w: {"m": w.m, "ax": w.ax}, {"labels": ("abc",)}),
    "eidomap.plot.plot_problems": Call(lambda w: {"m_or_md": w.m, "problems": [], "ax": w.ax}),
    "eidomap.plot.plot_reach": Call(lambda w: {"m": w.m, "reach": w.reach, "ax": w.ax}),
    "eidomap.plot.plot_route": Call(lambda w: {"m": w.m, "route": w.route, "ax": w.ax}),
    "eidomap.plot.plot_travel": Call(lambda w: {"m": w.overland, "result": w.travel, "ax": w.ax}),
    "eidomap.plot.reach.reach_kind": Call(lambda w: {"reach": w.reach}),
    "eidomap.plot.save_figure": Call(lambda w: {"ax_or_fig": w.drawn, "path": w.out("a.png")}),
    "eidomap.plot.save_grid_png": Call(lambda w: {"grid": w.grid, "answer": w.grid_reach, "path": w.out("g.png")}),
    "eidomap.plot.save_map_png": Call(lambda w: {"m": w.m, "path": w.out("m.png")}),
    "eidomap.plot.save_problems_png": Call(lambda w: {"m_or_md": w.m, "problems": [], "path": w.out("p.png")}),
    "eidomap.plot.save_reach_png": Call(lambda w: {"m": w.m, "reach": w.reach, "path": w.out("r.png")}),
    "eidomap.plot.save_route_png": Call(lambda w: {"m": w.m, "route": w.route, "path": w.out("r.png")}),
    "eidomap.plot.save_travel_png": Call(lambda w: {"m": w.overland, "result": w.travel, "path": w.out("t.png")}),
    # eidomap.validate.checks, eidomap.validate.fix
    "eidomap.validate.checks.validate": Call(lambda w: {"source": DEMO}, {"species": ("human",)}),
    "eidomap.validate.fix.fix_map": Call(lambda w: {"path": DEMO, "out": w.out("f.geojson")}),
    "eidomap.validate.fix.fix_geometries": Call(lambda w: {"md": w.md}),
    # eidomap.answers.batch
    "eidomap.answers.batch.actor_from_spec": Call(lambda w: {"m": w.m, "spec": "human", "dice": "1d6"}),
    "eidomap.answers.batch.run_batch": Call(
        lambda w: {"query": eidomap.answers.batch.Query((str(DEMO),), actors=("human",), starts=("porto-sur",)),
                   "out": w.out("b"), "workers": 1, "progress": False}),
    # eidomap.record.rulesets
    "eidomap.record.rulesets.get": Call(lambda w: {"name": "eido"}, says=RULES),
    "eidomap.record.rulesets.names": Call(lambda w: {}),
    "eidomap.record.rulesets.require": Call(lambda w: {"name": "eido", "question": "route", "where": "m"},
                                     keep={"where": "what to name in the message: any object, shown"}, says=RULES),
    "eidomap.record.rulesets.register": Call(lambda w: {"rule_set": w.rule_set("sweep_register", False)}),
    "eidomap.record.rulesets.unregister": Call(lambda w: {"name": w.rule_set("sweep_unregister", True).name},
                                               says=RULES),
    # eidomap.rules.actors
    "eidomap.rules.actors.resolve_actor": Call(lambda w: {"m": w.m, "who": "human", "question": "reach"}),
    # eidomap.rules.eido
    "eidomap.rules.eido.actor": Call(lambda w: {"catalog": w.m.catalog, "species": "human"},
                                     {"party": ("cow", None), "mount": (["horse"],), "vmv": (2.0,)}),
    "eidomap.rules.eido.species_table": Call(lambda w: {"catalog": w.m.catalog,
                                                        "sp": w.m.catalog.species["human"]}),
    # eidomap.io's readers and writers
    "eidomap.io.readers.read_map": Call(lambda w: {"path": DEMO}, keep={"options": "checked by ReadOptions"}),
    "eidomap.io.readers.formats": Call(lambda w: {}),
    "eidomap.io.geojson.read_geojson": Call(lambda w: {"path": DEMO}),
    "eidomap.io.geojson.write_geojson": Call(lambda w: {"md": w.md, "path": w.out("w.geojson")}),
    "eidomap.io.geojson.dumps_geojson": Call(lambda w: {"md": w.md}),
    "eidomap.io.grid.read_grid": Call(lambda w: {"path": BATTLE}),
    "eidomap.io.grid.parse_grid": Call(lambda w: {"text": "..\n.."}),
    "eidomap.io.tiled.read_tiled": Call(lambda w: {"data": (TILED / "board.tmj").read_bytes()}),
    "eidomap.io.tiled.read_tiled_grid": Call(lambda w: {"data": (TILED / "grid.tmj").read_bytes()}),
    "eidomap.io.tiled.import_tiled": Call(lambda w: {"source": TILED / "board.tmj", "out": w.out("t.geojson")}),
    "eidomap.io.tiled.import_tiled_grid": Call(lambda w: {"source": TILED / "grid.tmj", "out": w.out("t.txt")}),
    "eidomap.io.svg.read_svg": Call(lambda w: {"data": b'<svg xmlns="http://www.w3.org/2000/svg"/>'}),
    "eidomap.io.svg.import_svg": Call(lambda w: {"source": ROOT / "tests" / "data" / "svg" / "board.svg",
                                                 "out": w.out("s.geojson")}),
    # beyond the reference's modules: the pages, the report, the generator, the Map's own methods
    "eidomap.pages.planner.planner": Call(lambda w: {"m": w.m}),
    "eidomap.pages.planner.grid_planner": Call(lambda w: {"grid": w.grid}),
    "eidomap.pages.report.build_report": Call(lambda w: {"m": w.m, "actors": [w.actor]}),
    "eidomap.pages.report.write_report": Call(lambda w: {"m": w.m, "path": w.out("r.html"), "actors": [w.actor]},
                                        keep={"kw": "build_report's, swept there"}),
    "eidomap.model.generate.generate_map": Call(lambda w: {"n_eidos": 10}, {"seed": (-1,)}),
    "eidomap.model.generate.write_generated": Call(lambda w: {"path": w.out("g.geojson"), "n_eidos": 10},
                                                   {"seed": (-1,)}),
    "eidomap.Map.explore": Call(lambda w: {"self": w.m}, {"route": ("x",), "bbox": ("0,0,1,1",)}),
    "eidomap.Map.find": Call(lambda w: {"self": w.m, "node_id": "castro"}),
    "eidomap.Map.graph_for": Call(lambda w: {"self": w.m}),
    "eidomap.Map.index": Call(lambda w: {"self": w.m, "eido_id": "castro"}),
    "eidomap.Map.neighbors": Call(lambda w: {"self": w.m, "eido_id": "castro"}),
    "eidomap.Map.node_index": Call(lambda w: {"self": w.m, "node_id": "castro"}),
    "eidomap.Map.planner": Call(lambda w: {"self": w.m}, {"title": (5,)}),
    "eidomap.Map.save": Call(lambda w: {"self": w.m, "path": w.out("s.geojson")}),
    "eidomap.Map.to_geodataframe": Call(lambda w: {"self": w.m}),
    "eidomap.Map.weighted_graph": Call(lambda w: {"self": w.m, "weights": np.ones(w.m.network.n_edges)}),
}
#: Public functions the sweep leaves out, and why.
NOT_SWEPT = {
    **{f"eidomap.validate.checks.{n}": "the validation's measure of a geometry array it read and checked" for n in (
        "inlet_width", "max_gap_area", "near_miss_distance", "typical_size")},
    "eidomap.demo_map_path": "no parameter",
}
#: The functions the sweep must cover: those of the API reference (docs/_ext/api_pages.py), the pages, the report
#: and the generator, the functions the other layers call with a caller's values (the actor, its costs, a page's
#: data, a picture's format), and the Map's methods.
EXTRA = ("eidomap.pages.planner.planner", "eidomap.pages.planner.grid_planner", "eidomap.pages.report.build_report",
         "eidomap.pages.report.write_report", "eidomap.model.generate.generate_map",
         "eidomap.model.generate.write_generated", "eidomap.rules.actors.resolve_actor",
         "eidomap.answers.routing.plan_table", "eidomap.answers.routing.plan_weights",
         "eidomap.pages.planner.eido_data", "eidomap.pages.planner.grid_data", "eidomap.plot.reach.reach_kind")


def _public() -> dict[str, Callable]:
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import api_pages
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    out: dict[str, Callable] = {}
    # (the root's names last: a function the root offers from a module with a page is swept once, by its module)
    for module_name in sorted(api_pages.MODULES, key=lambda m: m == "eidomap"):
        module = importlib.import_module(module_name)
        for name in module.__all__:
            if inspect.isfunction(obj := getattr(module, name)) and obj not in out.values():
                out[f"{module_name}.{name}"] = obj
    for dotted in (*api_pages.IO_NAMES, *EXTRA):
        module_name, name = dotted.rsplit(".", 1)
        out[dotted] = getattr(importlib.import_module(module_name), name)
    for name, obj in vars(eidomap.Map).items():
        if not name.startswith("_") and inspect.isfunction(obj) and len(inspect.signature(obj).parameters) > 1:
            out[f"eidomap.Map.{name}"] = obj
    return out


PUBLIC = _public()


def test_the_sweep_covers_every_public_function():
    assert sorted(set(PUBLIC) - set(SWEPT) - set(NOT_SWEPT)) == []
    assert sorted(set(SWEPT) - set(PUBLIC)) == []


def _wrongs(annotation: str, extra: tuple) -> list:
    """The wrong values tried for a parameter: an object of no type eidomap takes, the near misses of its type
    (a bool or a float for a whole number, a number for text, bytes for a path, ...), and ``extra``."""
    kinds = {k.strip() for k in str(annotation).replace("Optional[", "").split("|")} - {"None"}
    out: list = [Wrong()]
    if kinds <= {"int"}:
        out += [True, 2.0, "3"]
    elif kinds <= {"float", "int", "Fraction"}:
        out += [True, "3", math.nan]
    elif kinds <= {"str"}:
        out += [5, b"x"]
    elif kinds <= {"bool"}:
        out += ["yes", 1]
    if any("PathLike" in k for k in kinds):
        out += [b"x", 3]
    if kinds & {"Iterable[str]", "Sequence[str]"}:
        out += ["abc", [5]]
    return out + list(extra)


def _cases():
    for name, call in SWEPT.items():
        sig = inspect.signature(PUBLIC[name])
        for p in sig.parameters.values():
            if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) or p.name == "self" or p.name in call.keep:
                continue
            yield pytest.param(name, p.name, id=f"{name.removeprefix('eidomap.')}-{p.name}")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    yield World(tmp_path_factory.mktemp("sweep"))
    for name in ("sweep_register", "sweep_unregister"):  # (the rule sets the good calls registered)
        if name in eidomap.record.rulesets.names():
            eidomap.record.rulesets.unregister(name)


@pytest.mark.parametrize("name", SWEPT)
def test_each_good_call_of_the_sweep_is_good(name, world):
    """The sweep's wrong values are refused for being wrong: the call they change succeeds as it is."""
    PUBLIC[name](**SWEPT[name].good(world))
    plt.close("all")  # (plot_compare draws on a pyplot figure of its own)


@pytest.mark.parametrize(("name", "param"), list(_cases()))
def test_a_wrong_type_for_any_parameter_is_named_not_a_bare_python_error(name, param, world):
    fn, call = PUBLIC[name], SWEPT[name]
    good = call.good(world)
    annotation = inspect.signature(fn).parameters[param].annotation
    for wrong in _wrongs(annotation, call.extra.get(param, ())):
        args = good | {param: wrong}
        try:
            fn(**args)
        except EidomapError as exc:
            assert "\n" not in str(exc)
            word = call.says.get(param, param)
            assert exc.param == param or re.search(rf"(?<![\w.]){word}\b", str(exc)), \
                f"{name}({param}={wrong!r}) said: {exc}"
            continue
        except Exception as exc:  # (what the sweep is here to find)
            pytest.fail(f"{name}({param}={wrong!r}) raised {type(exc).__name__}: {exc}")
        pytest.fail(f"{name}({param}={wrong!r}) was accepted")
