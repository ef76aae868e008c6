"""Several tokens on the board page (issue 48, 9), in headless Chromium.

Up to 8 tokens, each with its own actor and start, race to one goal: each route in its own colour, a legend row
per token, and P(each arrives first) and P(a tie) under the dice -- the numbers of
``eidomap.answers.analysis.race`` over each token's ``eidomap.route(...).p_by_turn``.  The page's race function
itself is held to Python's on golden answers in Node (``tests/planner/race.test.cjs``).  On the battle page there
are no dice: each token's rounds are ``eidomap.answers.grid.route``'s and the race is analysis.race of certain arrivals.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import PAGE_GUARD, guarded

from eidomap.answers.analysis import race
from eidomap.answers.routing import route
from eidomap.pages.planner import grid_planner, planner
from eidomap.rules.eido import actor

LOCAL = ("file:", "data:", "blob:", "about:")


@pytest.fixture
def opened(browser):
    """Open a page file (with a ``#`` plan) offline; its errors and any request off the machine fail the test."""
    contexts, errors, asked = [], [], []

    def open_page(path: Path, hash: str = ""):
        context = guarded(browser.new_context(offline=True, viewport={"width": 1200, "height": 800}))
        context.route("**/*", lambda r: (asked.append(r.request.url), r.continue_() if r.request.url.startswith(LOCAL)
                                         else r.abort()))
        contexts.append(context)
        page = guarded(context.new_page())
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri() + hash)
        page.wait_for_function("() => window.eidomap !== undefined", timeout=PAGE_GUARD)
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert errors == [] and [u for u in asked if not u.startswith(LOCAL)] == []


def _click(page, where: str) -> None:
    page.mouse.click(*page.evaluate("(w) => eidomap.point(w)", where))


def _python_race(m, got: dict) -> tuple[list, list, float]:
    """Each token's P(arrived by turn k) as eidomap.route gives it, and analysis.race of them."""
    dists = []
    for t in got["tokens"]:
        o = t["o"]
        who = actor(m.catalog, o["species"], mount=o.get("mount"), dice=o.get("dice", "1d6"))
        dists.append(list(route(m, t["from"], got["to"], who, partial=o["partial"]).p_by_turn))
    first_a, tie, *rest = race(*dists)
    return dists, [first_a, *rest], tie


def _same(got: dict, m) -> None:
    dists, first, tie = _python_race(m, got)
    for t, want, p in zip(got["tokens"], dists, first, strict=True):
        assert len(t["p_by_turn"]) == len(want)
        assert all(abs(a - b) <= 1e-9 for a, b in zip(t["p_by_turn"], want, strict=True))
        assert abs(t["first"] - p) <= 1e-9, (t, p)
    assert abs(got["tie"] - tie) <= 1e-9


def test_tokens_race_to_one_goal_with_the_numbers_of_analysis_race(opened, demo, tmp_path):
    """Four tokens -- a human (the plan), a dog, a cow placed by the keyboard, a boat that cannot reach the goal --
    race to one goal: the page's P(first) and P(tie) are analysis.race's; each route and legend row has its own
    colour; rolls typed leave the race under the dice; the link and a saved plan restore the tokens; Undo takes the
    last one back; x removes one."""
    planner(demo).save(tmp_path / "demo.html")
    p = opened(tmp_path / "demo.html")
    _click(p, "bouza-vella")
    _click(p, "porto-norte")
    assert p.evaluate("() => eidomap.race()") is None  # (one token: no race)
    for species, start in (("dog", "castro"), ("cow", None), ("boat", "a-foz")):
        p.select_option("#mover-species", species)
        if start is None:  # by the keyboard: Add mover, then on the board an arrow key and Enter
            p.mouse.move(0, 0)  # (off the board: the keyboard's cursor starts at token 1's start)
            p.focus("#add-mover")
            p.keyboard.press("Enter")
            assert p.evaluate("() => document.activeElement.id") == "map"
            p.keyboard.press("ArrowLeft")
            keyed = p.evaluate("() => eidomap.state().hover")
            p.keyboard.press("Enter")
        else:
            p.click("#add-mover")
            _click(p, start)
    got = p.evaluate("() => eidomap.race()")
    assert [(t["o"]["species"], t["from"]) for t in got["tokens"]] == [
        ("human", "bouza-vella"), ("dog", "castro"), ("cow", keyed), ("boat", "a-foz")]
    _same(got, demo)
    assert got["tokens"][2]["reachable"]
    boat = got["tokens"][3]
    assert not boat["reachable"] and boat["first"] == 0 and boat["p_by_turn"] == []
    assert got["tie"] > 0 and sum(t["first"] for t in got["tokens"]) + got["tie"] == pytest.approx(1)

    # a colour each: the legend's rows and the routes drawn (the board as an SVG: its lines' strokes)
    colors = [t["color"] for t in got["tokens"]]
    assert len(set(colors)) == 4
    rows = p.evaluate("""() => Array.from(document.querySelectorAll('#race tr'), (r) => Array.from(r.cells,
      (c) => c.textContent))""")
    assert [r[0].strip() for r in rows[1:]] == ["1", "2", "3", "4", "tie"]
    assert rows[4][3].startswith("cannot reach the goal") and rows[4][4] == "0.000"
    assert [r[-1] for r in rows[1:]] == [format(t["first"], ".3f") for t in got["tokens"]] + [format(got["tie"], ".3f")]
    swatches = p.evaluate("""() => Array.from(document.querySelectorAll('#race .swatch'),
      (s) => getComputedStyle(s).backgroundColor)""")
    assert swatches == [f"rgb({int(c[1:3], 16)}, {int(c[3:5], 16)}, {int(c[5:7], 16)})" for c in colors]
    with p.expect_download() as svg:
        p.click("#download-svg")
    ns = "{http://www.w3.org/2000/svg}"
    answer = next(g for g in ET.fromstring(Path(svg.value.path()).read_bytes()).findall(f"{ns}g")
                  if g.get("id") == "answer")
    assert {e.get("stroke") for e in answer.iter(f"{ns}path")} >= set(colors[:3])  # (the boat has no route)

    # Undo takes the last token back, Redo brings it again
    p.focus("#map")
    p.keyboard.press("Control+z")
    assert [t["from"] for t in p.evaluate("() => eidomap.race()")["tokens"]] == ["bouza-vella", "castro", keyed]
    p.keyboard.press("Control+Shift+z")
    assert p.evaluate("() => eidomap.race()") == got

    # rolls typed are token 1's itinerary; the race stays under the dice, and says so
    p.fill("#rolls", "3,5")
    p.dispatch_event("#rolls", "change")
    assert p.evaluate("() => eidomap.race()") == got
    assert "under the dice (the rolls typed" in p.text_content("#race caption")
    p.fill("#rolls", "")
    p.dispatch_event("#rolls", "change")

    # the link restores the tokens, and so does a saved plan
    plan, url = p.evaluate("() => [eidomap.plan(), location.href]")
    assert len(plan["movers"]) == 3 and "movers=" in url
    again = opened(Path(url.split("#")[0][len("file://"):]), "#" + url.split("#", 1)[1])
    assert again.evaluate("() => [eidomap.plan(), eidomap.race()]") == [plan, got]
    with p.expect_download() as saved:
        p.click("#save-plan")
    assert json.loads(Path(saved.value.path()).read_text())["movers"] == plan["movers"]
    p.click("#clear")
    assert p.evaluate("() => [eidomap.plan().movers, eidomap.race()]") == [[], None]
    p.set_input_files("#open-plan", saved.value.path())
    p.wait_for_function("() => eidomap.race() !== null")
    assert p.evaluate("() => eidomap.race()") == got

    # x removes a token, the focus staying on the list
    p.click('button[aria-label="remove token 2"]')
    fewer = p.evaluate("() => eidomap.race()")
    assert [(t["o"]["species"], t["from"]) for t in fewer["tokens"]] == [("human", "bouza-vella"), ("cow", keyed),
                                                                                ("boat", "a-foz")]
    assert p.evaluate("() => document.activeElement.getAttribute('aria-label')") == "remove token 2"
    _same(fewer, demo)


def test_battle_tokens_race_exactly_the_fewest_rounds_of_d20_route_first(opened, tmp_path):
    """On the battle page (no dice) four tokens of different speeds race to one goal: each one's rounds and feet are
    eidomap.answers.grid.route's, and P(first) and P(tie) are analysis.race of their certain arrivals (0 before the
    round, 1 from it); the link restores the tokens; Undo takes the last one back."""
    from eidomap.answers import grid

    battle = Path(__file__).resolve().parents[2] / "maps" / "d20-battle.txt"
    grid_planner(battle).save(tmp_path / "battle.html")
    p = opened(tmp_path / "battle.html")
    _click(p, "13,0")
    _click(p, "0,21")
    assert p.evaluate("() => eidomap.race()") is None  # (one token: no race)
    movers = (("13,1", "20", "move"), ("6,5", "40", "double"), ("12,21", "60", "run"))
    for n, (start, speed, mode) in enumerate(movers, 2):
        p.click("#add-mover")
        _click(p, start)
        for field, value in ((f"token {n}'s speed (ft)", speed), (f"token {n}'s movement", mode)):
            sel = f'[aria-label="{field}"]'
            p.select_option(sel, value) if field.endswith("movement") else p.fill(sel, value)
            p.dispatch_event(sel, "change")
    got = p.evaluate("() => eidomap.race()")
    assert [(t["from"], t["o"]["speed"], t["o"]["mode"]) for t in got["tokens"]] == [
        ("13,0", 30, "move"), ("13,1", 20, "move"), ("6,5", 40, "double"), ("12,21", 60, "run")]
    dists = []
    for t in got["tokens"]:
        o = t["o"]
        want = grid.route(battle, [int(v) for v in t["from"].split(",")], (0, 21), o["speed"], mode=o["mode"],
                          heavy_armor=o["heavy_armor"], flying=o["flying"])
        assert want.rounds and (t["rounds"], t["feet"]) == (want.rounds, want.feet)
        dists.append([0.0] * (want.rounds - 1) + [1.0])
        assert t["p_by_turn"] == dists[-1]
    first_a, tie, *rest = race(*dists)
    assert [t["first"] for t in got["tokens"]] == [first_a, *rest] and got["tie"] == tie
    assert len({t["rounds"] for t in got["tokens"]}) > 1 and sum(t["first"] for t in got["tokens"]) + tie == 1
    rows = p.evaluate("""() => Array.from(document.querySelectorAll('#race tr'),
      (r) => r.cells[r.cells.length - 1].textContent)""")
    assert rows[1:] == [format(t["first"], ".3f") for t in got["tokens"]] + [format(tie, ".3f")]

    # the link restores the tokens; Undo takes the last one back
    plan, url = p.evaluate("() => [eidomap.plan(), location.href]")
    assert len(plan["movers"]) == 3 and "movers=" in url
    again = opened(Path(url.split("#")[0][len("file://"):]), "#" + url.split("#", 1)[1])
    assert again.evaluate("() => [eidomap.plan(), eidomap.race()]") == [plan, got]
    p.focus("#map")  # (token 4 was placed with token 1's speed and movement, then given its own: a change each)
    for last in ((60, "move"), (30, "move")):
        p.keyboard.press("Control+z")
        assert [(t["o"]["speed"], t["o"]["mode"]) for t in p.evaluate("() => eidomap.race()")["tokens"]][3] == last
    p.keyboard.press("Control+z")
    assert [t["from"] for t in p.evaluate("() => eidomap.race()")["tokens"]] == ["13,0", "13,1", "6,5"]
