"""The planner pages at the table (issue 48): the battle page played round by round, and a token dragged from
the start, in headless Chromium (the session's, ``conftest.browser``), offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import PAGE_GUARD, ROOT, guarded

from eidomap.answers.grid import load_grid
from eidomap.answers.grid import reach as grid_reach
from eidomap.answers.grid import route as grid_route
from eidomap.pages.planner import grid_planner

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


@pytest.fixture
def battle(browser, tmp_path):
    path = tmp_path / "battle.html"
    grid_planner(BATTLE).save(path)
    page = Opened(browser, path)
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
