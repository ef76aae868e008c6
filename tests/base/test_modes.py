"""The vocabularies a caller chooses among are modes (eidomap.base.modes.Mode): the public function takes a member
or its word, checks it once where it comes in -- a bad word is refused naming the parameter and the words allowed
-- and works with the member inside."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import DEMO

import eidomap
from eidomap.answers.batch import Query, TableFormat
from eidomap.answers.batch.job import prepare
from eidomap.answers.grid import load_grid
from eidomap.answers.grid import reach as grid_reach
from eidomap.base.errors import RequestError
from eidomap.base.modes import Lane, Mode
from eidomap.io.readers import read_map
from eidomap.model.frames import FeatureLayer, to_geodataframe
from eidomap.plot.parts import ReachValue
from eidomap.plot.reach import reach_kind
from eidomap.record import rulesets
from eidomap.record.catalog import Medium, Terrain
from eidomap.record.rulesets import Question, RuleSet
from eidomap.rules.d20.grid import Pace
from eidomap.rules.d20.speeds import Way, multiplier

BATTLE = eidomap.bundled_map_path("d20-battle.txt")


def _answering(question: Any) -> list[str]:
    """The bundled rule sets that answer ``question``."""
    out = []
    for name in ("eido", "d20"):
        try:
            rulesets.require(name, question, "map.geojson")
        except RequestError as exc:
            if not str(exc).startswith("map.geojson: the map is drawn for"):
                raise
        else:
            out.append(name)
    return out


@dataclass(frozen=True)
class Vocabulary:
    """A mode, the parameter that takes it, and an answer of a public function asked with a value of it."""

    mode: type[Mode]
    param: str
    ask: Callable[[Any], Any]
    members: tuple[Mode, ...] = ()

    def __str__(self) -> str:
        return self.mode.__name__


VOCABULARIES = [
    Vocabulary(Lane, "reader", lambda v: read_map(DEMO, reader=v)[0].record.eidos.ids, (Lane.JSON,)),
    Vocabulary(FeatureLayer, "layer", lambda v: list(to_geodataframe(eidomap.load(DEMO), v).id)),
    Vocabulary(Pace, "mode", lambda v: grid_reach(load_grid(BATTLE), (13, 0), 30, mode=v).feet),
    Vocabulary(ReachValue, "value", lambda v: reach_kind(eidomap.reach(eidomap.load(DEMO), "porto-sur", "cow", roll=4),
                                                         v), (ReachValue.DEBT,)),
    Vocabulary(TableFormat, "format", lambda v: prepare(Query((str(DEMO),), starts=("porto-sur",), format=v),
                                                        "never-written")[0].format),
    Vocabulary(Medium, "medium", lambda v: (Terrain("reef", v).mode, type(Terrain("reef", v).medium))),
    Vocabulary(Question, "question", _answering),
    Vocabulary(Question, "answers", lambda v: RuleSet("probe", ("border",), answers={v}).answers),
    Vocabulary(Way, "way", lambda v: [multiplier("hills", v, vehicle) for vehicle in (False, True)]),
]


@pytest.mark.parametrize("vocabulary", VOCABULARIES, ids=str)
def test_a_mode_is_taken_as_its_member_or_its_word(vocabulary):
    for member in vocabulary.members or tuple(vocabulary.mode):
        assert vocabulary.ask(member) == vocabulary.ask(member.value), member


@pytest.mark.parametrize("vocabulary", VOCABULARIES, ids=str)
def test_another_word_is_refused_naming_the_parameter_and_the_words(vocabulary):
    words = [f"'{w}'" for w in vocabulary.mode.words()]
    said = f"{vocabulary.param} must be {', '.join(words[:-1])} or {words[-1]}, got 'nope'"
    with pytest.raises(RequestError, match=f"^{re.escape(said)}$"):
        vocabulary.ask("nope")


def test_what_is_checked_is_held_as_the_member():
    """Checked once where it comes in, a word is the member from there on: nothing below checks it again."""
    from eidomap.io.readers import ReadOptions
    from eidomap.rules.d20.grid import Mover

    assert ReadOptions(reader="json").reader is Lane.JSON
    assert Mover(30, "run").mode is Pace.RUN
    assert Terrain("reef", "water").medium is Medium.WATER
    assert RuleSet("probe", ("border",), answers={"route"}).answers == {Question.ROUTE}
    assert all(type(q) is Question for q in rulesets.get("eido").answers)
    job = prepare(Query((str(DEMO),), starts=("porto-sur",), format="csv"), "never-written")[0]
    assert job.format is TableFormat.CSV
