"""The answers' layer as a whole (issue 47, item 5): every result is a frozen dataclass built once, holding plain
Python numbers -- ``int``, ``float`` and ``bool``, never a NumPy scalar nor a ``Fraction`` -- in its fields and
in the lists, dicts and tuples they hold, whatever NumPy numbers the caller passed in."""

from __future__ import annotations

import dataclasses
import enum
import inspect
from collections.abc import Callable

import numpy as np
import pytest
from conftest import MapFactory, collection, eido, feature

import eidomap
from eidomap.answers import grid, overland, routing

#: The modules whose functions answer with these results.
ANSWERS = (routing, grid, overland)
#: What a result's field may hold besides numbers and containers of them.
PLAIN = (str, type(None))


def found_in(value: object, where: str = "") -> list[str]:
    """Where ``value`` (a result) holds something other than plain Python data: a NumPy scalar or array, a
    ``Fraction``..., or a dataclass that is not frozen (``where``: the path so far, as ``.turns[0].budget``)."""
    if type(value) in (int, float, bool) or isinstance(value, PLAIN) or isinstance(value, enum.Enum):
        return []
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        wrong = [] if type(value).__dataclass_params__.frozen else [f"{where or 'the result'}: a"  # type: ignore[attr-defined]
                                                                     f" {type(value).__name__} that is not frozen"]
        return wrong + [w for f in dataclasses.fields(value) for w in found_in(getattr(value, f.name),
                                                                               f"{where}.{f.name}")]
    if isinstance(value, dict):
        return [w for k, v in value.items()
                for w in found_in(k, f"{where}[key {k!r}]") + found_in(v, f"{where}[{k!r}]")]
    if isinstance(value, list | tuple):
        return [w for i, v in enumerate(value) for w in found_in(v, f"{where}[{i}]")]
    return [f"{where}: a {type(value).__module__}.{type(value).__name__}"]


def _answers() -> list[tuple[str, Callable[[MapFactory], object]]]:
    """Real answers of every kind, asked with NumPy numbers where a caller may pass them."""
    demo = eidomap.demo_map_path()
    battle = eidomap.bundled_map_path("d20-battle.txt")
    roll, rolls, turns = np.int64(4), np.array([3, 5, 2, 6, 4, 4, 1, 6]), np.int32(3)

    def m():
        return eidomap.load(demo)

    def g():
        return grid.load_grid(battle)

    def om():
        return eidomap.load(overland.example_map_path())

    def islands(make_map):  # two islands, a creek on one: a keelboat does not cross the sea between them
        box = [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]
        far = [[[20, 0], [30, 0], [30, 10], [20, 10], [20, 0]]]
        return eidomap.load(make_map.path(collection(
            [eido("isle", "plains", box), eido("far", "plains", far),
             feature("river", "LineString", [[0, 5], [10, 5]], "creek", current=3)], rules="d20", units_per_mile=1)))

    return [
        ("route with rolls", lambda mk: routing.route(m(), "porto-norte", "aldea-do-cabo", "human", rolls=rolls)),
        ("route under the dice", lambda mk: routing.route(m(), "porto-norte", "aldea-do-cabo", "human")),
        ("route under forbid", lambda mk: routing.route(m(), "porto-norte", "aldea-do-cabo", "human",
                                                         partial="forbid")),
        ("route with rolls under forbid", lambda mk: routing.route(m(), "bouza-vella", "porto-norte", "human",
                                                                rolls=rolls[:2], partial="forbid")),
        ("route to where one is", lambda mk: routing.route(m(), "porto-norte", "porto-norte", "human")),
        ("route with no way", lambda mk: routing.route(m(), "porto-norte", "porto-sur", "horse")),
        ("route beyond the horizon", lambda mk: routing.route(m(), "porto-norte", "aldea-do-cabo", "human",
                                                           max_turns=np.int64(1))),
        ("reach with a roll", lambda mk: routing.reach(m(), "porto-sur", "human", roll=roll)),
        ("reach within turns", lambda mk: routing.reach(m(), "porto-sur", "human", turns=turns)),
        ("reach within turns under forbid", lambda mk: routing.reach(m(), "porto-sur", "human", turns=turns,
                                                                  partial="forbid")),
        ("reach with rolls", lambda mk: routing.reach_rolls(m(), "porto-sur", "human", rolls=rolls[:3])),
        ("grid reach", lambda mk: grid.reach(g(), np.array([13, 0]), np.int64(30), heavy_armor=np.bool_(False))),
        ("grid reach, a 5-foot step", lambda mk: grid.reach(g(), (13, 0), 30, mode="step")),
        ("grid reach, a charge", lambda mk: grid.reach(g(), (9, 18), 30, mode="charge", target=np.array([2, 19]))),
        ("grid route", lambda mk: grid.route(g(), np.array([13, 0]), np.array([8, 15]), np.int64(30))),
        ("grid route, running", lambda mk: grid.route(g(), (13, 0), (0, 21), 30, mode="run")),
        ("grid route, full-round moves", lambda mk: grid.route(grid.parse_grid("....\n.dd.\n...."), (0, 0), (2, 3), 5)),
        ("grid route to where one is", lambda mk: grid.route(g(), (13, 0), (13, 0), 30)),
        ("speed table", lambda mk: overland.speed_table(np.float64(25), con=np.int64(14))),
        ("speed table, a third", lambda mk: overland.speed_table(np.float64(10 / 3))),
        ("mount speed", lambda mk: overland.mount_speed("pony", load=np.float64(200))),
        ("vessel speed", lambda mk: overland.vessel_speed("keelboat", downstream=True, guided=True,
                                                       current=np.float64(3))),
        ("vessel speed, towed", lambda mk: overland.vessel_speed("raft", upstream=True)),
        ("forced march", lambda mk: overland.forced_march(np.int64(10), con_mod=np.int64(2), hp=np.int64(5))),
        ("hustle", lambda mk: overland.hustle(np.int64(3), mount=np.bool_(True))),
        ("chase", lambda mk: overland.chase(np.array([30, 30]), np.array([2, 1]))),
        ("chase, fatigued", lambda mk: overland.chase([np.float64(20), 30], fatigued=[np.bool_(False), True])),
        ("long chase", lambda mk: overland.chase([30, 20.5], long=True)),
        ("travel", lambda mk: overland.travel(om(), "greenfield", "kingsbridge", speed=np.int64(30),
                                           hustle=np.int64(1), forced_march=np.int64(1))),
        ("travel by boat", lambda mk: overland.travel(om(), "greypeaks", "greenfield", vehicle="keelboat",
                                                      guided=True)),
        ("travel from a point", lambda mk: overland.travel(om(), om().positions[om().find("heath")], "ridge",
                                                        mount="light-horse")),
        ("travel with no way", lambda mk: overland.travel(islands(mk), "0,5", "far", vehicle="keelboat")),
    ]


ASKED = _answers()


def result_types() -> set[type]:
    """The dataclasses the answering modules offer (their ``__all__``), and those they hold."""
    out = set()
    for module in ANSWERS:
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and obj.__module__ == module.__name__:
                out.add(obj)
    return out


def types_in(value: object) -> set[type]:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {type(value)} | {t for f in dataclasses.fields(value) for t in types_in(getattr(value, f.name))}
    if isinstance(value, dict):
        return {t for v in value.values() for t in types_in(v)}
    if isinstance(value, list | tuple):
        return {t for v in value for t in types_in(v)}
    return set()


@pytest.mark.parametrize(("asked", "answer"), ASKED, ids=[name for name, _ in ASKED])
def test_a_result_is_frozen_and_holds_plain_python_numbers(asked, answer, make_map):
    result = answer(make_map)
    assert found_in(result) == []
    first = dataclasses.fields(result)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, first, getattr(result, first))


def test_every_result_type_is_walked_on_a_real_answer(make_map):
    """Each result dataclass of routing, grid and overland (and Step, Turn, Round, Day inside them) is met by
    :func:`test_a_result_is_frozen_and_holds_plain_python_numbers`: a new result type gets an answer there."""
    met = {t for _, answer in ASKED for t in types_in(answer(make_map))}
    assert sorted(t.__name__ for t in result_types() - met) == []


def test_the_walk_finds_numpy_scalars_fractions_and_unfrozen_results():
    from fractions import Fraction

    @dataclasses.dataclass
    class Loose:
        x: object

    @dataclasses.dataclass(frozen=True)
    class Held:
        x: object

    assert found_in(Held({"a": [1, (2.0, True)], "b": None})) == []
    assert found_in(Held([np.float64(0.0)])) == [".x[0]: a numpy.float64"]  # (a float, to isinstance)
    assert found_in(Held({"k": (1, np.int64(2))})) == [".x['k'][1]: a numpy.int64"]
    assert found_in(Held({np.int32(1): 3})) == [".x[key np.int32(1)]: a numpy.int32"]
    assert found_in(Held(Fraction(1, 3))) == [".x: a fractions.Fraction"]
    assert found_in(Held(np.zeros(2))) == [".x: a numpy.ndarray"]
    assert found_in(Loose(1)) == ["the result: a Loose that is not frozen"]


def test_what_json_prints_of_an_answer_is_plain_data_too(make_map):
    """``as_dict`` is what ``--json`` prints."""
    for name, answer in ASKED:
        assert found_in(answer(make_map).as_dict()) == [], name
