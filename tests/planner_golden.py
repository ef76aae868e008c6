"""The planner pages' golden questions and answers, from eidomap itself.

The page scripts (``eidomap/data/planner/*.js``) answer as ``eidomap route --json`` / ``reach --json`` and
``eidomap d20 route --json`` / ``d20 reach --json`` do, in the words ``eidomap route`` and ``d20 reach/route``
print, and refuse what they refuse with the same message.  Their tests in Node (``tests/planner/``, run by
``tests/pages/test_planner.py`` and so by ``.ci/run``) read the files this script writes in ``tests/data/planner/``:
each page (its HTML without its scripts: the controls and the data the scripts read), questions asked of it,
and what Python answers -- the dictionary ``--json`` prints (``as_dict``), the printed words, or the message of
the refusal -- so that the two languages agree by construction.  ``tests/pages/test_planner.py`` checks that the
committed files are what eidomap answers today; after a change of the rules or of a message::

    python tests/planner_golden.py

writes them again.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import inspect
import io
import json
import random
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "planner"
#: The seed of the random questions: fixed, so that the files only change when an answer does.
SEED = 44


def _script_free(html: str) -> str:
    """The page without its scripts (the Node tests load the scripts from eidomap/data/planner/ themselves)."""
    return re.sub(r"<script(?: id=\"[\w-]+\")?>\n.*?\n</script>\n", "", html, flags=re.S)


def _json(obj):
    return json.loads(json.dumps(obj))  # what --json prints, read back


@contextlib.contextmanager
def _compiled():
    """Every search compiled (numba's twins), whatever its size.  The battle grids' answers run so: most of their
    questions are walks small enough for the plain-Python twin by default, and asked there they took 5.5 CPU-s
    against 0.7 compiled (with the runs through stops, compiled by default, needed either way: 26 s all in Python).
    The twins answer alike (tests/rules/d20/test_grid.py::test_compiled_and_python_searches_agree)."""
    from eidomap.base import settings

    above = settings.COMPILE_ABOVE
    settings.COMPILE_ABOVE = 0
    try:
        yield
    finally:
        settings.COMPILE_ABOVE = above


@contextlib.contextmanager
def _folder():
    """A temporary folder made the current one: maps are named by their file names, as the pages name them."""
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        yield Path(tmp)


def _printed(fn, *args) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(*args)
    return out.getvalue()


# -- the Eido page --------------------------------------------------------------------------------------------
#: A strip of four Eidos whose species pay up to 1,000,000 PtMv a step, for the answers only such costs give.
TINY_CATALOG = """
[terrains.bog]
label = "Bog"
medium = "land"
[species.human]
vmv = 0
costs = { meadow = 1, bog = 1000000 }
[species.snail]
vmv = 0
costs = { meadow = 3 }
"""


def _tiny_map(folder: Path):
    import eidomap

    features = []
    names = {1: "e1", 3: "Third"}  # one named as its id: the words say the id once
    for k, terrain in enumerate(["meadow", "meadow", "bog", "meadow", "meadow"]):
        ring = [[k, 0], [k + 1, 0], [k + 1, 1], [k, 1], [k, 0]]
        props = {"kind": "eido", "terrain": terrain} | ({"name": names[k]} if k in names else {})
        features.append({"type": "Feature", "id": f"e{k}", "properties": props,
                         "geometry": {"type": "Polygon", "coordinates": [ring]}})
    (folder / "tiny.toml").write_text(TINY_CATALOG)
    doc = {"type": "FeatureCollection", "eidomap": {"format": 1, "catalog": "tiny.toml"}, "features": features}
    (folder / "tiny.geojson").write_text(json.dumps(doc))
    return eidomap.load("tiny.geojson")


def _eido_result(m, op: str, start, goal, o: dict):
    """What eidomap answers the page's question (``o``: the options the page takes, the command line's names): the
    answer (a Route, a Reach...), or the refusal's message."""
    from eidomap.answers.routing import reach, reach_rolls, route
    from eidomap.base.errors import RequestError
    from eidomap.rules.eido import actor

    try:
        who = actor(m.catalog, o.get("species", "human"), mount=o.get("mount"), party=o.get("with", ()),
                    dice=o.get("dice", "1d6"))
        partial = o.get("partial", "carry")
        if op == "route":
            return route(m, start, goal, who, via=o.get("via", ()), debt=o.get("debt", 0), rolls=o.get("rolls"),
                         partial=partial)
        if "rolls" in o:
            return reach_rolls(m, start, who, rolls=o["rolls"], partial=partial)
        return reach(m, start, who, roll=o.get("roll"), turns=o.get("turns"), partial=partial)
    except RequestError as exc:
        return str(exc)


def _eido_answer(m, op: str, start, goal, o: dict) -> dict:
    """:func:`_eido_result` as ``--json`` prints it (a refusal: its error)."""
    answer = _eido_result(m, op, start, goal, o)
    return {"error": answer} if isinstance(answer, str) else _json(answer.as_dict())


def _route_words(m, route) -> str:
    """What ``eidomap route`` prints of ``route`` (:func:`_eido_result`'s, of a route the rules answer)."""
    from eidomap.cli.plan import _Names, _print_route

    return _printed(_print_route, route, _Names(m))


def _random_eido_questions(m, n: int, rng: random.Random) -> list[dict]:
    """``n`` random questions: routes with and without rolls, reaches of a roll, of K turns and of rolls."""
    from eidomap.rules.eido import actor

    species = list(m.catalog.species)
    nodes = m.eido_ids + m.pousa_ids
    out = []
    for _ in range(n):
        o: dict = {"species": rng.choice(species), "partial": rng.choice(["carry", "carry", "forbid"])}
        if rng.random() < 0.2:
            o["mount"] = rng.choice(species)
        if rng.random() < 0.2:
            o["with"] = rng.sample(species, rng.randint(1, 2))
        if rng.random() < 0.2:
            o["dice"] = rng.choice(["2d6", "1d4+1", "1d6-2", "1d8", "3d4"])
        dice = actor(m.catalog, "human", dice=o.get("dice", "1d6")).dice
        rolls = [rng.randint(dice.low, dice.high) for _ in range(rng.randint(0, 12))]
        if rng.random() < 0.03:
            rolls.append(dice.high + 1)  # out of the dice's range: both say so
        q = {"op": "route", "from": rng.choice(nodes), "to": rng.choice(nodes), "o": o}
        kind = rng.random()
        if kind < 0.55:
            o["rolls"] = rolls
        elif kind >= 0.75:
            q["op"] = "reach"
            if kind < 0.85:
                o["roll"] = rng.randint(dice.low, dice.high)
            elif kind < 0.93:
                o["turns"] = rng.randint(1, 4)
            else:
                o["rolls"] = rolls[:6]
        out.append(q)
    return out


def _random_via_questions(m, n: int, rng: random.Random) -> list[dict]:
    """``n`` random routes through stops (issue 48): one to three Eidos or Pousas (the start, the goal, one twice
    now and then), a debt carried in under the debt rule, with rolls and without."""
    species = list(m.catalog.species)
    nodes = m.eido_ids + m.pousa_ids
    out = []
    for _ in range(n):
        o: dict = {"species": rng.choice(["human", "human", *species]),
                   "partial": rng.choice(["carry", "carry", "forbid"])}
        start, goal = rng.choice(nodes), rng.choice(nodes)
        o["via"] = [rng.choice([*nodes, start, goal]) for _ in range(rng.randint(1, 3))]
        if o["partial"] == "carry" and rng.random() < 0.5:
            o["debt"] = rng.randint(1, 8)
        if rng.random() < 0.6:
            o["rolls"] = [rng.randint(1, 6) for _ in range(rng.randint(1, 14))]
        out.append({"op": "route", "from": start, "to": goal, "o": o})
    return out


#: Routes through stops and with a debt carried in, chosen for what they show (issue 48), and what is refused.
VIA_CHOSEN = [
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"via": ["monte-louro", "laxes"], "debt": 2,
                                                                     "rolls": [3, 5, 2, 6, 4, 4]}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"via": ["monte-louro"], "debt": 2}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"via": ["agra-de-baixo"], "rolls": [6, 6]}},
    {"op": "route", "from": "castro", "to": "castro", "o": {"debt": 7, "rolls": [3, 2, 4]}},
    {"op": "route", "from": "castro", "to": "castro", "o": {"debt": 7}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"via": ["bouza-vella", "laxes", "laxes",
                                                                              "porto-norte"]}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"via": ["castro"], "partial": "forbid"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"via": ["porto-sur"], "species": "horse"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"debt": -1}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"debt": 1000001}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"debt": 1.5}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"debt": True}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"debt": 2, "partial": "forbid"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"via": "castro"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"via": [3]}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"via": ["castro"] * 101}},
    {"map": "tiny", "op": "route", "from": "e0", "to": "e1", "o": {"dice": "1d1", "debt": 1000000}},
    {"map": "tiny", "op": "route", "from": "e0", "to": "e4", "o": {"via": ["e1", "e3"], "rolls": [1, 1, 1]}},
]


#: Questions chosen for what they show (issue 44, items 8 and 9: what the command line refuses, the page refuses
#: with the same message), each on the demo map unless it names another.
EIDO_CHOSEN = [
    # dice that never give a point: no turn moves
    {"op": "route", "from": "bouza-vella", "to": "carballeira", "o": {"dice": "1d1-1"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d2-2", "partial": "forbid"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d2-2", "rolls": [0, 0]}},
    {"op": "reach", "from": "bouza-vella", "o": {"dice": "1d1-1", "roll": 0}},
    {"op": "reach", "from": "bouza-vella", "o": {"dice": "1d2-2", "turns": 3}},
    {"op": "reach", "from": "bouza-vella", "o": {"dice": "1d2-2", "turns": 3, "partial": "forbid"}},
    {"op": "reach", "from": "bouza-vella", "o": {"dice": "1d1-1", "rolls": [0]}},
    {"op": "route", "from": "bouza-vella", "to": "carballeira", "o": {"dice": "1d1-3", "species": "horse"}},
    {"op": "route", "from": "bouza-vella", "to": "carballeira", "o": {"dice": "1d1-4", "species": "horse"}},
    {"op": "route", "from": "bouza-vella", "to": "carballeira", "o": {"dice": "1d1-3", "mount": "horse"}},
    {"op": "route", "from": "bouza-vella", "to": "carballeira", "o": {"dice": "1d2-1", "with": ["cow"]}},
    # the dice's bounds and their message
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6+100000"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6+100001"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6-100001"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6-100000"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6+999999999999"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6+1000000000000"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6+000000000001"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6+0000000000001"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "0000000000001d6"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d0000000000006"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d0"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d1001"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d1000"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "0d6"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "101d6"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d0+07"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": " 2 D 6 - 1 "}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "d8"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "2d6-0"}},
    # digits of other scripts, other blanks, other text: refused as not NdM+K, quoted as Python quotes them
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d\u0666"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "\u0661d6"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d\uff16"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "\u00a01d6"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6\u2028"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6'"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6'\""}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6\\"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d6\t\n"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "\U0001f3b2"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": ""}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1.5d6"}},
    # the other choices
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"species": "dragon"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"mount": "dragon"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"with": ["cow", "dragon"]}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"partial": "wait"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"rolls": "35"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"rolls": [3, 7]}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"rolls": []}},
    {"op": "route", "from": "bouza-vella", "to": "bouza-vella", "o": {}},
    {"op": "route", "from": "bouza-vella", "to": "bouza-vella", "o": {"rolls": [2]}},
    {"op": "route", "from": "bouza-vella", "to": "porto-sur", "o": {"species": "horse"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-sur", "o": {"species": "horse", "rolls": [1, 2]}},
    {"op": "route", "from": "porto-sur", "to": "xesteira", "o": {"species": "boat"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"species": "cart", "partial": "forbid"}},
    {"op": "route", "from": "bouza-vella", "to": "porto-norte", "o": {"dice": "1d2", "partial": "forbid"}},
    {"op": "route", "from": "bouza-vella", "to": "carballeira", "o": {"partial": "forbid"}},
    {"op": "reach", "from": "bouza-vella", "o": {"roll": 7}},
    {"op": "reach", "from": "bouza-vella", "o": {"roll": 0}},
    {"op": "reach", "from": "bouza-vella", "o": {"turns": 0}},
    {"op": "reach", "from": "bouza-vella", "o": {"turns": 10001}},
    {"op": "reach", "from": "bouza-vella", "o": {"turns": 10000}},
    {"op": "reach", "from": "bouza-vella", "o": {"turns": 1, "partial": "forbid", "dice": "3d1000"}},
    {"op": "reach", "from": "bouza-vella", "o": {"rolls": "3"}},
    {"op": "reach", "from": "bouza-vella", "o": {"rolls": [3, 9]}},
    {"op": "reach", "from": "bouza-vella", "o": {"roll": 2, "partial": "wait"}},
    {"op": "reach", "from": "cr-2", "o": {"roll": 3}},
    {"op": "reach", "from": "bouza-vella", "o": {"roll": 3, "species": "marino"}},
    # a goal further than 10,000 turns of the highest roll: not reachable, as the horizon says
    {"map": "tiny", "op": "route", "from": "e0", "to": "e4", "o": {"dice": "1d1"}},
    {"map": "tiny", "op": "route", "from": "e0", "to": "e4", "o": {"dice": "1d100"}},
    {"map": "tiny", "op": "route", "from": "e0", "to": "e2", "o": {"dice": "1d1"}},
    {"map": "tiny", "op": "route", "from": "e0", "to": "e1", "o": {"dice": "1d1"}},
    {"map": "tiny", "op": "route", "from": "e4", "to": "e3", "o": {"dice": "1d1"}},
    {"map": "tiny", "op": "route", "from": "e4", "to": "e3", "o": {"rolls": [1, 1]}},
    {"map": "tiny", "op": "route", "from": "e0", "to": "e4", "o": {"dice": "1d1", "partial": "forbid"}},
    {"map": "tiny", "op": "route", "from": "e0", "to": "e4", "o": {"species": "snail"}},
    {"map": "tiny", "op": "route", "from": "e0", "to": "e1", "o": {"species": "snail", "partial": "forbid",
                                                                    "dice": "1d2"}},
    {"map": "tiny", "op": "reach", "from": "e0", "o": {"turns": 2, "partial": "forbid"}},
    {"map": "tiny", "op": "reach", "from": "e0", "o": {"roll": 6}},
]


#: Routes under the debt rule whose cheapest way is not the one that arrives soonest (docs/rules.md, "Which route is
#: drawn under the debt rule"): from toxo-bravo the one drawn (16 PtMv) starts its step into the goal with 11 PtMv
#: paid, the cheapest (13) steps in with 13 -- without rolls, with rolls that run out before the goal, through a
#: stop and with a debt carried in; from laxes a step of 5 PtMv into it arrives in turn 1 whatever the roll.
SOONEST_CHOSEN = [
    {"op": "route", "from": "toxo-bravo", "to": "penedo-do-corvo", "o": {}},
    {"op": "route", "from": "toxo-bravo", "to": "penedo-do-corvo", "o": {"rolls": [3, 2, 4]}},
    {"op": "route", "from": "toxo-bravo", "to": "penedo-do-corvo", "o": {"via": ["pedregal"], "debt": 2}},
    {"op": "route", "from": "toxo-bravo", "to": "penedo-do-corvo", "o": {"via": ["pedregal"], "debt": 2,
                                                                         "rolls": [6, 1]}},
    {"op": "route", "from": "laxes", "to": "penedo-do-corvo", "o": {}},
]


def _policy_limits() -> list[dict]:
    """The forbid policy's bounds and their messages, at sizes a page script is asked in Node (synthetic networks)."""
    from types import SimpleNamespace

    from eidomap.base.errors import RequestError
    from eidomap.search import policy

    out = []
    try:
        policy.within_turn_pairs(SimpleNamespace(n_nodes=policy.MAX_POLICY_NODES + 1), None, 6)
    except RequestError as exc:
        out.append({"nodes": policy.MAX_POLICY_NODES + 1, "error": str(exc)})
    for nodes, columns, what in [(10_226, 10_000, "targets"), (4473, 4472, "targets"), (4472, 4472, "targets"),
                                 (20_000, 1999, "budgets")]:
        try:
            policy._check_cells(nodes, columns, what)
            out.append({"nodes": nodes, "columns": columns, "what": what, "error": None})
        except RequestError as exc:
            out.append({"nodes": nodes, "columns": columns, "what": what, "error": str(exc)})
    return out


def _pairs_bound(m) -> dict:
    """The pairs the forbid policy holds for a human on the demo (1d6, turns under forbid), and eidomap's message
    when its bound is one less (the Node test lowers the page's bound to both)."""
    from eidomap.answers.routing import plan_weights
    from eidomap.base.errors import RequestError
    from eidomap.rules.eido import actor
    from eidomap.search import policy

    w = plan_weights(m, actor(m.catalog, "human"), carry=False)
    held = len(policy.within_turn_pairs(m.network, w, 6.0)[0])
    bound = policy.MAX_POLICY_PAIRS
    try:
        policy.MAX_POLICY_PAIRS = held - 1
        policy.within_turn_pairs(m.network, w, 6.0)
    except RequestError as exc:
        return {"pairs": held, "error": str(exc)}
    finally:
        policy.MAX_POLICY_PAIRS = bound
    raise AssertionError("the bound below the pairs held refuses nothing")


def eido_golden() -> dict:
    import eidomap
    from eidomap.pages.planner import planner

    with _folder() as folder:
        for name in ("demo.geojson", "demo-catalog.toml"):
            shutil.copy(ROOT / "maps" / name, folder / name)
        maps = {"demo": eidomap.load("demo.geojson"), "tiny": _tiny_map(folder)}
        rng = random.Random(SEED)
        chosen = [*EIDO_CHOSEN, *SOONEST_CHOSEN]
        questions = [dict(q, map=q.get("map", "demo")) for q in chosen]
        questions += [dict(q, map="demo") for q in _random_eido_questions(maps["demo"], 300, rng)]
        questions += [dict(q, map=q.get("map", "demo")) for q in VIA_CHOSEN]
        questions += [dict(q, map="demo") for q in _random_via_questions(maps["demo"], 150, random.Random(SEED + 48))]
        routes_said = 0  # the words of every chosen route and of the first 60 random ones
        for i, q in enumerate(questions):
            m = maps[q["map"]]
            answer = _eido_result(m, q["op"], q["from"], q.get("to"), q["o"])  # (one search, for the words too)
            q["want"] = {"error": answer} if isinstance(answer, str) else _json(answer.as_dict())
            said = q["op"] == "route" and "error" not in q["want"] and q["o"].get("rolls") != []  # (no --rolls '')
            if said and (i < len(chosen) or routes_said < 60 or "via" in q["o"] or "debt" in q["o"]):
                q["text"] = _route_words(m, answer)
                routes_said += i >= len(chosen)
        pages = {name: _script_free(planner(m).html) for name, m in maps.items()}
        pairs = _pairs_bound(maps["demo"])
    return {"pages": pages, "questions": questions, "policy_limits": _policy_limits(), "pairs_bound": pairs}


# -- the battle-grid page ----------------------------------------------------------------------------------------
#: Grids drawn for what they show, in the grid file's characters (docs/d20.md).
GRIDS = {
    # a move fits where the diagonal would need the full-round 5-ft move (issue 44, item 13: grid.js:327)
    "corner.txt": "..\n.B\n",
    # the only square next door is an ally's, in difficult terrain: no full-round move ends there (grid.js:504)
    "ally.txt": ".d\n..\n",
    "line.txt": "......\n.d....\n......\n..#...\n......\n",
}


def _grid_answer(grid, op: str, start, goal, o: dict) -> dict:
    from eidomap.answers.grid import reach, route
    from eidomap.base.errors import RequestError

    kw = {k: o[k] for k in ("mode", "heavy_armor", "flying", "fatigued") if k in o}
    kw["allies"] = [tuple(s) for s in o.get("allies", ())]
    kw["enemies"] = [tuple(s) for s in o.get("enemies", ())]
    try:
        if op == "route":
            on = {k: o[k] for k in ("used", "odd_diagonals") if k in o}
            via = [tuple(s) for s in o.get("via", ())]
            return _json(route(grid, start, goal, o.get("speed", 30), via=via, **on, **kw).as_dict())
        target = o.get("target")
        on = {k: o[k] for k in ("used", "odd_diagonals") if k in o}
        return _json(reach(grid, start, o.get("speed", 30), target=target, **on, **kw).as_dict())
    except RequestError as exc:
        return {"error": str(exc)}


def _grid_words(path: str, op: str, start, goal, o: dict) -> str:
    """What ``eidomap d20 reach`` / ``d20 route`` prints for the question (the command run on its parsed arguments)."""

    square = ",".join
    argv = ["d20", op, path, "--speed", str(o.get("speed", 30)), "--mode", o.get("mode", "move")]
    argv += ["--at", square(map(str, start))] if op == "reach" else ["--from", square(map(str, start)), "--to",
                                                                       square(map(str, goal))]
    argv += ["--heavy-armor"] * bool(o.get("heavy_armor")) + ["--flying"] * bool(o.get("flying"))
    argv += ["--fatigued"] * bool(o.get("fatigued"))
    for flag, side in (("--allies", "allies"), ("--blocked", "enemies")):
        if o.get(side):
            argv += [flag, ";".join(square(map(str, s)) for s in o[side])]
    if o.get("target"):
        argv += ["--target", square(map(str, o["target"]))]
    if o.get("via"):
        argv += ["--via", ";".join(square(map(str, s)) for s in o["via"])]
    argv += ["--used", str(o.get("used", 0))] * bool(o.get("used")) + ["--odd-diagonals"] * bool(o.get("odd_diagonals"))
    args = _parser().parse_args(argv)
    return _printed(args.func, args)


def _question(value):
    """A battle-grid search's argument as :func:`_searched_once` compares it: a grid by its source, squares and
    occupants; a square or a list of them as a tuple; a mode by its word (``"run"`` is ``Pace.RUN``)."""
    from eidomap.record.grid import Grid

    if isinstance(value, Grid):
        return ("grid", value.source, value.flags.shape, value.flags.tobytes(), value.occupant.tobytes())
    if isinstance(value, list | tuple):
        return tuple(_question(v) for v in value)
    if isinstance(value, enum.Enum):
        return value.value
    return int(value) if isinstance(value, np.integer) else value


@contextlib.contextmanager
def _searched_once():
    """The battle grid's ``route`` and ``reach`` remembered by their question while the goldens are written: the
    words of a question (``eidomap d20 route``, run by :func:`_grid_words`) are printed from the answer its JSON
    was written from (:func:`_grid_answer`), as the Eido page's words are (:func:`_route_words`), instead of a
    second search -- the routes through stops took a tenth of the golden test searched twice.  A question is every
    argument, the defaults filled in (:func:`_question`): one that differs in any is searched; a refusal is not
    remembered."""
    from eidomap.answers import grid

    def remembered(fn):
        signature, answers = inspect.signature(fn), {}

        @functools.wraps(fn)
        def search(*args, **kw):
            asked = signature.bind(*args, **kw)
            asked.apply_defaults()
            key = _question(tuple(asked.arguments.items()))
            if key not in answers:
                answers[key] = fn(*args, **kw)
            return answers[key]

        return search

    searches = {"route": grid.route, "reach": grid.reach}
    try:
        for name, fn in searches.items():
            setattr(grid, name, remembered(fn))
        yield
    finally:
        for name, fn in searches.items():
            setattr(grid, name, fn)


@functools.cache
def _parser():
    from eidomap.cli import build_parser

    return build_parser()


def _random_grid_questions(grid, n: int, rng: random.Random, stops: bool = False) -> list[dict]:
    rows, cols = grid.shape
    free = [[r, c] for r in range(rows) for c in range(cols) if not grid.flags[r, c] & 8 and not grid.occupant[r, c]]
    out = []
    for _ in range(n):
        o: dict = {"speed": rng.choice([5, 10, 15, 20, 30, 40]), "heavy_armor": rng.random() < 0.3,
                   "flying": rng.random() < 0.3, "fatigued": rng.random() < 0.1}
        for side in ("allies", "enemies"):
            if rng.random() < 0.4:
                o[side] = [rng.choice(free) for _ in range(rng.randint(1, 4))]
        q = {"op": "route" if stops else rng.choice(["route", "reach"]), "from": rng.choice(free),
             "to": rng.choice(free), "o": o}
        if q["op"] == "route":
            o["mode"] = rng.choice(["move", "double", "run"])
            if stops and rng.random() < 0.6:  # through stops (issue 48), some of them any square, walls too
                o["via"] = [rng.choice(free) if rng.random() < 0.9 else [rng.randrange(rows), rng.randrange(cols)]
                            for _ in range(rng.randint(1, 3))]
            if stops and rng.random() < 0.4:  # a round under way: feet of it already used, an odd diagonal among them
                o["used"] = 5 * rng.randint(0, o["speed"] // 5 * (1 if o["mode"] == "move" else 2))
                o["odd_diagonals"] = o["used"] > 0 and rng.random() < 0.4
        else:
            o["mode"] = rng.choice(["move", "double", "run", "charge", "step"])
            if o["mode"] == "charge" and rng.random() < 0.6:
                o["target"] = q["to"]
        out.append(q)
    return out


GRID_CHOSEN = [
    {"grid": "corner.txt", "op": "route", "from": [0, 0], "to": [1, 1], "o": {"speed": 25}},
    {"grid": "corner.txt", "op": "route", "from": [0, 0], "to": [1, 1], "o": {"speed": 5}},
    {"grid": "corner.txt", "op": "reach", "from": [0, 0], "o": {"speed": 5}},
    {"grid": "ally.txt", "op": "reach", "from": [0, 0], "o": {"speed": 5, "allies": [[0, 1]]}},
    {"grid": "ally.txt", "op": "reach", "from": [0, 0], "o": {"speed": 5}},
    {"grid": "ally.txt", "op": "reach", "from": [0, 0], "o": {"speed": 5, "flying": True}},
    {"grid": "ally.txt", "op": "route", "from": [0, 0], "to": [1, 1], "o": {"speed": 5, "allies": [[0, 1]]}},
    {"grid": "ally.txt", "op": "route", "from": [0, 0], "to": [0, 1], "o": {"speed": 5, "allies": [[0, 1]]}},
    {"grid": "ally.txt", "op": "route", "from": [0, 0], "to": [0, 1], "o": {"speed": 5, "enemies": [[0, 1]]}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 10, "mode": "run"}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 10, "mode": "run", "heavy_armor": True}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [4, 5], "o": {"speed": 10, "mode": "run",
                                                                          "heavy_armor": True}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 10, "mode": "charge", "target": [2, 3]}},
    {"grid": "line.txt", "op": "reach", "from": [4, 0], "o": {"speed": 10, "mode": "charge", "target": [4, 2]}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 10, "mode": "charge", "target": [0, 5]}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 10, "mode": "charge", "target": [0, 1]}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "mode": "step"}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 5, "mode": "step"}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "mode": "run", "fatigued": True}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "mode": "fly"}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "mode": "toString"}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "mode": "__proto__"}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "mode": ""}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [1, 1], "o": {"speed": 30, "mode": "charge"}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [1, 1], "o": {"speed": 30, "mode": "constructor"}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 7}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 1005}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 0}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "target": [1, 1]}},
    {"grid": "line.txt", "op": "reach", "from": [3, 2], "o": {"speed": 30}},
    {"grid": "line.txt", "op": "reach", "from": [5, 0], "o": {"speed": 30}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "allies": [[0, 0]]}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "enemies": [[3, 2]]}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "allies": [[9, 9]]}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "mode": "charge", "target": [3, 2]}},
    {"grid": "line.txt", "op": "reach", "from": [0, 0], "o": {"speed": 30, "mode": "charge", "target": [7, 2]}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [3, 2], "o": {"speed": 30}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 9], "o": {"speed": 30}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 0], "o": {"speed": 30}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 1], "o": {"speed": 5}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 3], "o": {"speed": 5, "mode": "double"}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 5], "o": {"speed": 5, "mode": "run"}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [4, 5], "o": {"speed": 5}},
    {"grid": "d20-battle.txt", "op": "reach", "from": [4, 12], "o": {"speed": 30, "mode": "charge",
                                                                     "target": [2, 19]}},
    {"grid": "d20-battle.txt", "op": "reach", "from": [13, 0], "o": {"speed": 30, "mode": "double"}},
    {"grid": "d20-battle.txt", "op": "route", "from": [13, 0], "to": [0, 21], "o": {"speed": 30, "mode": "double"}},
    {"grid": "d20-battle.txt", "op": "route", "from": [13, 0], "to": [0, 21], "o": {"speed": 30, "mode": "run",
                                                                                   "heavy_armor": True}},
    {"grid": "d20-battle.txt", "op": "reach", "from": [8, 5], "o": {"speed": 5}},
    # through stops and from a round under way (issue 48), on the bundled grid under another name (the battle page's
    # own test, grid_page.test.cjs, clicks the questions of d20-battle.txt, and sets no stops)
    {"grid": "chapel.txt", "op": "route", "from": [13, 0], "to": [8, 15],
     "o": {"speed": 30, "via": [[5, 5], [2, 12]], "used": 15}},
    {"grid": "chapel.txt", "op": "route", "from": [13, 0], "to": [8, 15], "o": {"speed": 30, "via": [[5, 5]]}},
    {"grid": "chapel.txt", "op": "route", "from": [13, 0], "to": [13, 0], "o": {"speed": 30, "via": [[10, 5]]}},
    {"grid": "chapel.txt", "op": "route", "from": [13, 0], "to": [13, 0], "o": {"speed": 30, "via": [[13, 0]]}},
    {"grid": "chapel.txt", "op": "route", "from": [13, 0], "to": [0, 21], "o": {"speed": 30, "mode": "run",
                                                                                   "via": [[13, 10], [13, 10]]}},
    {"grid": "chapel.txt", "op": "route", "from": [13, 0], "to": [0, 21], "o": {"speed": 30, "mode": "run",
                                                                                   "used": 20}},
    {"grid": "chapel.txt", "op": "route", "from": [13, 0], "to": [8, 15], "o": {"speed": 30, "used": 5,
                                                                                   "odd_diagonals": True}},
    {"grid": "chapel.txt", "op": "route", "from": [13, 0], "to": [8, 15], "o": {"speed": 30, "via": [[3, 5]]}},
    {"grid": "chapel.txt", "op": "route", "from": [13, 0], "to": [8, 15], "o": {"speed": 30, "via": [[7, 15]]}},
    {"grid": "chapel.txt", "op": "route", "from": [13, 0], "to": [8, 15], "o": {"speed": 30, "via": [[3, 5]],
                                                                                   "enemies": [[3, 5]]}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 1], "o": {"speed": 30, "via": [[0, 9]]}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 1], "o": {"speed": 30, "via": [[3, 2]]}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 1], "o": {"speed": 30, "via": [[0, 1]] * 101}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 1], "o": {"speed": 30, "used": 35}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 1], "o": {"speed": 30, "used": 12}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 1], "o": {"speed": 30, "odd_diagonals": True}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [0, 1], "o": {"speed": 30, "used": 30}},
    {"grid": "line.txt", "op": "route", "from": [0, 0], "to": [4, 5], "o": {"speed": 10, "mode": "run",
                                                                          "via": [[0, 4], [4, 0]]}},
]


#: This round's reach from a round under way (issue 48: the battle page's play mode), and what is refused.
REACH_UNDER_WAY = [
    {"grid": "chapel.txt", "op": "reach", "from": [13, 0], "o": {"speed": 30, "used": 20}},
    {"grid": "chapel.txt", "op": "reach", "from": [13, 0], "o": {"speed": 30, "mode": "run", "used": 20}},
    {"grid": "chapel.txt", "op": "reach", "from": [13, 0], "o": {"speed": 30, "mode": "double", "used": 60}},
    {"grid": "chapel.txt", "op": "reach", "from": [10, 5], "o": {"speed": 30, "used": 5, "odd_diagonals": True}},
    {"grid": "chapel.txt", "op": "reach", "from": [13, 0], "o": {"speed": 30, "mode": "charge", "used": 10}},
    {"grid": "chapel.txt", "op": "reach", "from": [13, 0], "o": {"speed": 30, "mode": "step", "used": 5}},
    {"grid": "chapel.txt", "op": "reach", "from": [13, 0], "o": {"speed": 30, "mode": "double", "used": 65}},
    {"grid": "chapel.txt", "op": "reach", "from": [13, 0], "o": {"speed": 30, "used": 12}},
    {"grid": "chapel.txt", "op": "reach", "from": [13, 0], "o": {"speed": 30, "odd_diagonals": True}},
]


def _reach_under_way_questions(grids: dict) -> list[dict]:
    """The chosen questions of :data:`REACH_UNDER_WAY` and random ones, with their own seed (the other questions
    stay as they were)."""
    rng = random.Random(SEED + 48)
    out = [dict(q) for q in REACH_UNDER_WAY]
    for name in ("chapel.txt", "random.txt"):
        for q in _random_grid_questions(grids[name], 60, rng):
            o = q["o"]
            o.pop("target", None)
            o["mode"] = rng.choice(["move", "double", "run"])
            o["used"] = 5 * rng.randint(0, o["speed"] // 5 * (1 if o["mode"] == "move" else 2))
            o["odd_diagonals"] = o["used"] > 0 and rng.random() < 0.4
            out.append({"grid": name, "op": "reach", "from": q["from"], "o": o})
    return out


def _random_grid():
    from eidomap.answers.grid import grid_from_array

    rng = np.random.default_rng(SEED)
    u = rng.random((12, 16))
    flags = np.where(u < 0.12, 8, np.where(u < 0.4, rng.integers(1, 8, (12, 16)), 0))
    occupant = np.where((rng.random((12, 16)) < 0.05) & (flags < 8), rng.integers(1, 3, (12, 16)), 0)
    return grid_from_array(flags, occupant, "random.txt")


def grid_golden() -> dict:
    from eidomap.answers.grid import load_grid
    from eidomap.pages.planner import grid_planner

    with _folder() as folder, _searched_once():
        shutil.copy(ROOT / "maps" / "d20-battle.txt", folder / "d20-battle.txt")
        shutil.copy(ROOT / "maps" / "d20-battle.txt", folder / "chapel.txt")
        for name, text in GRIDS.items():
            (folder / name).write_text(text)
        grids = {name: load_grid(name) for name in [*GRIDS, "d20-battle.txt", "chapel.txt"]}
        grids["random.txt"] = _random_grid()
        rng = random.Random(SEED)
        questions = [dict(q) for q in GRID_CHOSEN]
        questions += [dict(q, grid="d20-battle.txt") for q in _random_grid_questions(grids["d20-battle.txt"], 60, rng)]
        questions += [dict(q, grid="random.txt") for q in _random_grid_questions(grids["random.txt"], 60, rng)]
        questions += [dict(q, grid=name) for name in ("chapel.txt", "random.txt")  # through stops, a round under way
                      for q in _random_grid_questions(grids[name], 50, rng, stops=True)]
        questions += _reach_under_way_questions(grids)
        for i, q in enumerate(questions):  # the words of every chosen question and of 20 random ones
            grid = grids[q["grid"]]
            # (the straight lines of a run's or a charge's reach stay in Python: milliseconds there, where compiling
            # them, lines_from, cost 3 CPU-s on a fresh checkout)
            straight = q["op"] == "reach" and q["o"].get("mode") in ("run", "charge")
            with contextlib.nullcontext() if straight else _compiled():
                q["want"] = _grid_answer(grid, q["op"], q["from"], q.get("to"), q["o"])
                said = i < len(GRID_CHOSEN) + 20 or q["grid"] == "chapel.txt"
                if q["grid"] != "random.txt" and "error" not in q["want"] and said:
                    q["text"] = _grid_words(q["grid"], q["op"], q["from"], q.get("to"), q["o"])
        pages = {name: _script_free(grid_planner(grid).html) for name, grid in grids.items()}
    return {"pages": pages, "questions": questions}


# -- ties: questions with several routes as good (issue 47, item 7) ------------------------------------------------
#: A board of meadows with scrubs (2 PtMv for a human: as dear as two meadows), rows of squares ``r{row}c{col}``;
#: and a smaller one with a road along its second row (a Pousa in each square: boarding, the road and alighting
#: for free against the meadows, as cheap in other steps).
TIE_BOARDS = {"board": (5, 6, {(1, 2), (2, 4), (3, 1)}, False), "roads": (4, 5, set(), True)}
#: Battle grids of many ways as good: open, and with difficult squares and an ally.
TIE_GRIDS = {"open.txt": [".......", ".......", ".......", ".......", "......."],
             "rough.txt": [".......", "..d....", ".d..a..", "....d..", "......."]}


def _board(rows: int, cols: int, scrub: set, road: bool) -> dict:
    features = [{"type": "Feature", "id": f"r{r}c{c}",
                 "properties": {"kind": "eido", "terrain": "scrub" if (r, c) in scrub else "meadow"},
                 "geometry": {"type": "Polygon",
                              "coordinates": [[[c, -r], [c + 1, -r], [c + 1, 1 - r], [c, 1 - r], [c, -r]]]}}
                for r in range(rows) for c in range(cols)]
    if road:
        line = [[c + 0.5, -0.5] for c in range(cols)]
        features.append({"type": "Feature", "id": "road", "properties": {"kind": "road"},
                         "geometry": {"type": "LineString", "coordinates": line}})
        features += [{"type": "Feature", "id": f"p{c}", "properties": {"kind": "pousa", "road": "road"},
                      "geometry": {"type": "Point", "coordinates": xy}} for c, xy in enumerate(line)]
    return {"type": "FeatureCollection", "features": features}


def tie_maps(folder: Path) -> tuple[dict, dict]:
    """The tie boards (loaded) and battle grids (as rows of characters), their files written in ``folder``."""
    import eidomap

    maps = {}
    for name, (rows, cols, scrub, road) in TIE_BOARDS.items():
        (folder / f"{name}.geojson").write_text(json.dumps(_board(rows, cols, scrub, road)))
        maps[name] = eidomap.load(folder / f"{name}.geojson")
    for name, rows in TIE_GRIDS.items():
        (folder / name).write_text("\n".join(rows) + "\n")
    return maps, TIE_GRIDS


#: The tie questions: every pair of the corners and a few more, with and without rolls, carry and forbid.
TIE_ROLLS = [[3, 1, 4, 1, 5, 2], [2, 2, 2, 2, 2, 2, 2], [6, 6], [1, 1, 1]]


def _tie_questions() -> list[dict]:
    out = []
    for name, (rows, cols, _, _) in TIE_BOARDS.items():
        corners = [f"r{r}c{c}" for r in (0, rows - 1) for c in (0, cols - 1)]
        pairs = [(a, b) for a in corners for b in corners if a != b]
        pairs += [(f"r{rows // 2}c0", f"r{rows // 2}c{cols - 1}"), ("r1c1", f"r{rows - 2}c{cols - 2}"),
                  ("r0c0", f"r{rows // 2}c{cols // 2}")]
        if TIE_BOARDS[name][3]:  # on and off the road: alighting for free, or boarding, as cheap as the meadows
            pairs += [("p0", "r1c3"), ("r1c0", "p3"), ("p1", f"r0c{cols - 1}"), (f"r{rows - 1}c0", f"p{cols - 1}")]
        for k, (a, b) in enumerate(pairs):
            out.append({"map": name, "op": "route", "from": a, "to": b, "o": {}})
            out.append({"map": name, "op": "route", "from": a, "to": b, "o": {"species": "dog"}})
            for partial in ("carry", "forbid"):
                out.append({"map": name, "op": "route", "from": a, "to": b,
                            "o": {"partial": partial, "rolls": TIE_ROLLS[k % len(TIE_ROLLS)]}})
            if k % 3 == 0:
                out.append({"map": name, "op": "route", "from": a, "to": b, "o": {"partial": "forbid"}})
    for name, rows in TIE_GRIDS.items():
        h, w = len(rows), len(rows[0])
        pairs = [([0, 0], [h - 1, w - 1]), ([h - 1, 0], [0, w - 1]), ([h // 2, 0], [h // 2, w - 1]),
                 ([0, w - 1], [h - 1, 1])]
        for a, b in pairs:
            for speed, mode in ((5, "move"), (10, "move"), (15, "double"), (20, "move"), (30, "double")):
                out.append({"grid": name, "op": "route", "from": a, "to": b, "o": {"speed": speed, "mode": mode}})
            out.append({"grid": name, "op": "route", "from": a, "to": b, "o": {"speed": 5, "mode": "run"}})
    return out


def ties_golden() -> dict:
    from eidomap.answers.grid import load_grid
    from eidomap.pages.planner import grid_planner, planner

    with _folder() as folder:
        maps, _ = tie_maps(Path("."))
        grids = {name: load_grid(name) for name in TIE_GRIDS}
        questions = _tie_questions()
        for q in questions:
            if "grid" in q:
                q["want"] = _grid_answer(grids[q["grid"]], q["op"], q["from"], q["to"], q["o"])
            else:
                q["want"] = _eido_answer(maps[q["map"]], q["op"], q["from"], q["to"], q["o"])
        pages = {name: _script_free(planner(m).html) for name, m in maps.items()}
        pages |= {name: _script_free(grid_planner(grid).html) for name, grid in grids.items()}
        del folder
    return {"pages": pages, "questions": questions}


# -- what both pages share: Python's number formats, its repr, the numbers a person types -----------------------
def common_golden() -> dict:
    from eidomap.base.errors import RequestError
    from eidomap.base.params import read_whole
    from eidomap.cli.plan import _ints

    rng = random.Random(SEED)
    xs = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 0.125, 0.0005, 0.00015, 1e-5, 123456.5, 999999.5, 9999995.0, 1e16,
          1.0000000000000002, 0.1, 0.7, 2.675, 1e-320, 5e-324, 1.7976931348623157e308, 12345678.5, 9.995, 0.9995,
          0.99949999, 19.0, 1e20, 123456789012.0, float("inf"), float("-inf"), float("nan")]
    xs += [rng.uniform(-1000, 1000) for _ in range(40)]
    xs += [10 ** rng.uniform(-12, 25) * rng.choice([1, -1]) for _ in range(40)]
    xs += [rng.randint(0, 10 ** 6) / 8 for _ in range(20)]
    formats = []
    for x in xs:
        f = {"x": x if np.isfinite(x) else str(x)}
        f["fixed"] = [format(x, f".{p}f") for p in range(7)]
        f["sci"] = [format(x, f".{p}e") for p in range(7)]
        f["g"] = format(x, "g")
        f["g10"] = format(x, ",.10g")
        formats.append(f)
    texts = ["", "a", "it's", 'say "hi"', "it's \"both\"", "back\\slash", "tab\there", "line\nbreak", "\r",
             "\x00\x1f\x7f", "\x85\xa0\xad", "caf\u00e9", "\u0663", "\u2028\u2029\u200b", "\ufeff", "\ud7ff",
             "\ue000", "\U0001f3b2", "\U000e0001", "\u0378", "\U0010ffff", " ", "\u3000"]
    reprs = [{"text": t, "repr": repr(t)} for t in texts]
    wholes = []
    for t in ["3", " 3 ", "+3", "-3", "-0", "007", "1_000", "3.0", "", " ", "3 4", "\u0663", "\uff13", "\u00a03",
              "3\n", "\t-12\v", "999999999999", "-999999999999", "1000000000000", "0000000000001", "+-3", "0x10",
              "1e3", "\u0663\u0664"]:
        wholes.append({"text": t, "value": read_whole(t)})
    rolls = []
    for t in ["3,5,2", " 3 , 5 ", "3,,5", "3,5,", ",3", "3;5", "\u0663,\u0664", "3,x", "-1,+2", "0", "1_0",
              "999999999999", "9999999999999"]:
        try:
            rolls.append({"text": t, "value": _ints(t, "rolls")})
        except RequestError as exc:
            rolls.append({"text": t, "error": str(exc)})
    return {"formats": formats, "reprs": reprs, "wholes": wholes, "rolls": rolls}


# -- the race of several tokens to one goal (issue 48, 9): analysis.race, ported to common.js ------------------------
def _random_distribution(rng: random.Random) -> list[float]:
    """A P(arrived by turn k): never arriving ([]), sure by some turn, short of 1, flat stretches, ties of 0s."""
    kind = rng.random()
    if kind < 0.1:
        return []
    if kind < 0.2:
        return [1.0] * rng.randint(1, 3)
    n = rng.randint(1, 14)
    p = sorted(rng.choice([0.0, rng.random(), rng.random(), 1.0 if k == n - 1 else rng.random()]) for k in range(n))
    if rng.random() < 0.5:
        p[-1] = 1.0
    return p


def _race_routes(m, rng: random.Random) -> list[dict]:
    """Races on the demo map: 2 to 8 tokens of random species (a boat on land cannot arrive), starts and dice, one
    goal, carry and forbid -- each token's P(arrived by turn k) as ``route`` gives it, and the race of them."""
    from eidomap.answers.analysis import race
    from eidomap.answers.routing import route
    from eidomap.rules.eido import actor

    species = list(m.catalog.species)
    nodes = m.eido_ids + m.pousa_ids
    out = []
    for n in [2, 3, 4, 5, 6, 7, 8] * 3:
        goal, partial = rng.choice(nodes), rng.choice(["carry", "forbid"])
        movers = []
        for _ in range(n):
            o = {"species": rng.choice(["human", *species]), "partial": partial}
            if rng.random() < 0.25:
                o["dice"] = rng.choice(["2d6", "1d4+1", "1d8"])
            # (now and then a token already on the goal: it arrives before any turn)
            movers.append({"from": goal if rng.random() < 0.08 else rng.choice(nodes), "o": o})
        routes = [route(m, t["from"], goal, actor(m.catalog, t["o"]["species"], dice=t["o"].get("dice", "1d6")),
                        partial=partial) for t in movers]
        dists = [list(r.p_by_turn) for r in routes]
        first_a, tie, *rest = race(*routes)  # (the routes: one already there is told from one that cannot arrive)
        out.append({"to": goal, "movers": movers, "dists": dists, "first": [first_a, *rest], "tie": tie})
    return out


def race_golden() -> dict:
    """``analysis.race`` on random distributions of 2 to 8 actors, and on the routes of races on the demo map."""
    import eidomap
    from eidomap.answers.analysis import race

    rng = random.Random(SEED + 9)
    randoms = []
    for k in range(60):
        dists = [_random_distribution(rng) for _ in range(2 + k % 7)]
        first_a, tie, *rest = race(*dists)
        randoms.append({"dists": dists, "first": [first_a, *rest], "tie": tie})
    m = eidomap.load(ROOT / "maps" / "demo.geojson")
    return {"random": randoms, "routes": _race_routes(m, rng)}


def golden() -> dict[str, dict]:
    """Each golden file's name and content."""
    return {"eido.json": eido_golden(), "grid.json": grid_golden(), "common.json": common_golden(),
            "ties.json": ties_golden(), "race.json": race_golden()}


def write(files: dict[str, dict]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (OUT / name).write_text(json.dumps(content, ensure_ascii=False, indent=None, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    files = golden()
    write(files)
    print(f"wrote {', '.join(str(OUT / n) for n in files)}")
