"""The planner pages at the table (issue 48): the battle page played round by round, and a token dragged from
the start, in headless Chromium (the session's, ``conftest.browser``), offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import PAGE_GUARD, ROOT, guarded

from eidomap.answers.grid import load_grid
from eidomap.answers.grid import reach as grid_reach
from eidomap.answers.grid import route as grid_route
from eidomap.answers.routing import route
from eidomap.pages.planner import grid_planner, planner

BATTLE = ROOT / "maps" / "d20-battle.txt"
LOCAL = ("file:", "data:", "blob:", "about:")


class Opened:
    """A page in its own offline browser context (only local requests served); its script errors kept."""

    def __init__(self, browser, html_file: Path):
        self.context = guarded(browser.new_context(offline=True, viewport={"width": 1200, "height": 800}))
        self.context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(LOCAL) else r.abort())
        self.page = guarded(self.context.new_page())
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(html_file.as_uri())
        self.page.wait_for_function("() => window.eidomap !== undefined", timeout=PAGE_GUARD)

    def evaluate(self, script: str, arg=None):
        return self.page.evaluate(script, arg)

    def set(self, control: str, value: str) -> None:
        self.evaluate("([id, v]) => { const el = document.getElementById(id); el.value = v;"
                      " el.dispatchEvent(new Event('change', { bubbles: true })); }", [control, value])

    def close(self) -> None:
        assert self.errors == []
        self.context.close()


def _opened(browser, tmp_path, page, name: str) -> Opened:
    path = tmp_path / name
    page.save(path)
    return Opened(browser, path)


@pytest.fixture
def battle(browser, tmp_path):
    page = _opened(browser, tmp_path, grid_planner(BATTLE), "battle.html")
    yield page
    page.close()


def _sq(text: str) -> tuple[int, int]:
    r, c = text.split(",")
    return int(r), int(c)


def _history(page: Opened) -> list[list[str]]:
    return page.evaluate("() => Array.from(document.querySelectorAll('#history tr')).slice(1).map((tr) =>"
                         " Array.from(tr.cells, (c) => c.textContent))")


def test_a_battle_played_round_by_round_ends_where_d20_route_says(battle):
    """Issue 48, 3 (docs/d20.md, "Play mode"): each move takes the token along round 1 of ``d20 route --used
    USED`` from where it stands -- as many squares as typed, or the whole round --; the feet it moved are used
    (the plan and the squares shaded, ``d20 reach --used``, go on from them) until the round ends; End the round
    starts a fresh one; the history lists every move; Undo steps back a move; the journey arrives in the round
    ``d20 route`` says."""
    grid, start, goal = load_grid(BATTLE), (13, 0), (0, 21)
    whole = grid_route(grid, start, goal, 30)
    p = battle.page
    p.check("#play")
    battle.set("from", "13,0")
    battle.set("to", "0,21")
    assert battle.evaluate("() => eidomap.shown()") == whole.as_dict()
    assert battle.evaluate("() => eidomap.shade()") == grid_reach(grid, start, 30).as_dict()["reachable"]

    p.fill("#play-squares", "2")  # two squares of round 1, then the round goes on from them
    p.press("#play-squares", "Enter")
    seen = battle.evaluate("() => eidomap.journey()")
    here, used, odd = _sq(seen["at"]), seen["used"], seen["odd"]
    assert here == whole.path[2] and seen["round"] == 1 and 0 < used < 30
    rest = grid_route(grid, here, goal, 30, used=used, odd_diagonals=odd)
    assert (rest.rounds, used + rest.feet) == (whole.rounds, whole.feet)  # (the feet it moved: the plan's)
    assert battle.evaluate("() => eidomap.shown()") == rest.as_dict()
    assert battle.evaluate("() => eidomap.shade()") == grid_reach(grid, here, 30, used=used,
                                                                   odd_diagonals=odd).as_dict()["reachable"]
    assert _history(battle) == [["1", "2", str(used), "move so far", seen["at"], str(used)]]
    fresh = grid_route(grid, here, goal, 30)
    assert rest.legs[0].end != fresh.legs[0].end  # (the feet used make round 1 shorter than a fresh one)

    p.click("#play-end")  # the rest of round 1 spent on other actions: round 2 starts where the token is
    ended = battle.evaluate("() => eidomap.journey()")
    assert (ended["round"], ended["used"], ended["at"]) == (2, 0, seen["at"])
    assert _history(battle)[1] == ["1", "-", "0", "round ends", seen["at"], str(used)]
    assert battle.evaluate("() => eidomap.shown()") == fresh.as_dict()
    p.focus("#map")
    p.keyboard.press("Control+z")  # Undo: round 1 under way again
    assert battle.evaluate("() => [eidomap.journey().round, eidomap.journey().used, eidomap.plan().played]") == [
        1, used, "2"]

    rows = _history(battle)
    for _ in range(whole.rounds + 1):  # each round as far as the route takes it
        now = battle.evaluate("() => eidomap.journey()")
        if now["arrived"]:
            break
        plan = grid_route(grid, _sq(now["at"]), goal, 30, used=now["used"], odd_diagonals=now["odd"])
        leg = plan.legs[0]
        p.press("#play-squares", "Enter")
        end = f"{leg.end[0]},{leg.end[1]}"
        rows.append([str(now["round"]), str(len(leg.squares)), str(leg.feet), leg.action,
                     end + " (arrived)" * (leg.end == goal), str(now["used"] + leg.feet)])
        assert _history(battle) == rows and battle.evaluate("() => eidomap.journey().at") == end
    done = battle.evaluate("() => eidomap.journey()")
    assert done["arrived"] and done["at"] == "0,21" and int(rows[-1][0]) == whole.rounds
    assert "Arrived on 0,21 in round" in battle.evaluate("() => document.getElementById('status').textContent")
    p.focus("#map")
    p.keyboard.press("Control+z")
    assert battle.evaluate("() => eidomap.journey().arrived") is False
    p.keyboard.press("Control+Shift+z")
    assert battle.evaluate("() => eidomap.journey().arrived") is True


def _drag(page: Opened, to: str, target: str):
    """Press on the start's token and move to ``to`` (held), until the preview there is drawn (a hang guard)."""
    p = page.page
    p.mouse.move(*page.evaluate("() => eidomap.startPoint()"))
    p.mouse.down()
    p.mouse.move(*page.evaluate("(w) => eidomap.point(w)", to), steps=8)
    assert page.evaluate("() => { const s = eidomap.state(); return s.cursor ?? s.hover; }") == target  # (no pan)
    p.wait_for_function("(t) => { const v = eidomap.preview(); return v !== null && !v.working && v.to === t; }",
                        arg=target)
    return page.evaluate("() => eidomap.preview()")


def test_dragging_the_start_previews_the_route_under_the_pointer_and_the_release_fixes_the_goal(battle, browser, demo,
                                                                                                  tmp_path):
    """Issue 48, 1: a press on the start's token that drags shows the route to the square (Eido, Pousa) under the
    pointer while it moves -- the hover's preview -- with no goal fixed and the board not panned; the release fixes
    the goal there; a drag that ends where it began changes nothing; a finger drags as a mouse does."""
    p, grid = battle.page, load_grid(BATTLE)
    p.select_option("#mode", "double")
    battle.set("from", "13,0")
    where = battle.evaluate("() => eidomap.point('6,10')")
    seen = _drag(battle, "6,10", "6,10")
    assert seen["route"] == grid_route(grid, (13, 0), (6, 10), 30, mode="double").as_dict()
    assert battle.evaluate("() => eidomap.state().to") is None  # (held: nothing fixed yet)
    p.mouse.up()
    assert battle.evaluate("() => [eidomap.state().from, eidomap.state().to, eidomap.point('6,10')]") == [
        "13,0", "6,10", where]
    assert battle.evaluate("() => eidomap.shown()") == grid_route(grid, (13, 0), (6, 10), 30, mode="double").as_dict()
    _drag(battle, "3,3", "3,3")  # away and back to the start: nothing changes
    p.mouse.move(*battle.evaluate("() => eidomap.startPoint()"), steps=4)
    p.mouse.up()
    assert battle.evaluate("() => [eidomap.state().from, eidomap.state().to, eidomap.plan().to]") == [
        "13,0", "6,10", "6,10"]
    touch = battle.context.new_cdp_session(p)  # a finger: pointer events of the touch kind
    (x, y), (u, v) = battle.evaluate("() => [eidomap.startPoint(), eidomap.point('0,21')]")
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 7):
        touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
            {"x": x + (u - x) * k / 6, "y": y + (v - y) * k / 6}]})
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    assert battle.evaluate("() => [eidomap.state().from, eidomap.state().to]") == ["13,0", "0,21"]

    board = _opened(browser, tmp_path, planner(demo), "demo.html")  # the board page: the same gesture
    try:
        board.page.mouse.click(*board.evaluate("() => eidomap.point('bouza-vella')"))
        seen = _drag(board, "porto-norte", "porto-norte")
        assert board.evaluate("() => eidomap.state().goal") is None
        board.page.mouse.up()
        assert board.evaluate("() => [eidomap.state().start, eidomap.state().goal]") == ["bouza-vella", "porto-norte"]
        want = route(demo, "bouza-vella", "porto-norte", "human").as_dict()
        assert {k: seen["route"][k] for k in ("path", "total_cost")} == {k: want[k] for k in ("path", "total_cost")}
    finally:
        board.close()
