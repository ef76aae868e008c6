"""Workload *planner* (issue 30): the planner pages in headless Chromium -- their size and the time a click takes.

For generated boards of 1,000, 10,000 and 50,000 Eidos (a full run; 1,000 and 10,000 in a
quick one; a smoke run's own map, 300): the page built (:func:`eidomap.pages.planner.planner`),
its size, opened in Debian's Chromium through playwright, then route clicks between random
Eidos with the page's default controls (a human on foot, the debt rule, no rolls: the
cheapest route and the arrival distribution under the dice) -- the time from the click to
the answer computed, written and drawn, measured by the page (``window.eidomap.lastMs``),
median of the clicks -- and one click of "this turn" (where a roll of 4 can end it) and of
"within 3 turns" (the heat map) from the first land Eido of the file.  The routes clicked
are checked against :func:`eidomap.answers.routing.route` (the same JSON, floats within 1e-9).  And
the battle grid (1,000 x 1,000 squares in a full run, 300 x 300 quick, 30 x 30 smoke;
``benchmarks.d20.battle_grid``): this round's reach from its centre, a double move at 30
ft, clicked, then the route from there to a corner, checked against :func:`eidomap.answers.grid.reach`
and :func:`eidomap.answers.grid.route`.

The hover preview (issue 48): with a start clicked, the pointer moved over random Eidos (squares of
the grid) one after the other; the page's own time from the pointer's move to the route drawn and
summed up (``window.eidomap.previewMs``: the frame it waits for, the question, the drawing), median
of the moves, each preview checked against a click's answer (``eidomap.route``).

Bars: a 10,000-Eido page at most 15 MB, its route click at most 200 ms (median) and its hover
preview at most 50 ms (median); the 1,000 x 1,000 grid's reach at most 1 s.
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from .harness import Config, Context, Row, ensure_map, from_tests, missing

__all__ = ["available", "run", "sizes"]

#: Boards (Eidos) by mode (a smoke run: the map it already made), and the clicks timed on each.
BOARDS = {"full": (1_000, 10_000, 50_000), "quick": (1_000, 10_000), "smoke": ()}
CLICKS = {"full": 15, "quick": 9, "smoke": 3}
#: Side of the battle grid by mode.
SIDES = {"full": 1_000, "quick": 300, "smoke": 30}
#: The bars: page size, median route click and median hover preview at 10,000 Eidos, the grid's reach at 1,000 x 1,000.
PAGE_MB, CLICK_S, HOVER_S, GRID_S = 15.0, 0.2, 0.05, 1.0
#: Pointer moves timed for the hover preview, by mode.
HOVERS = {"full": 30, "quick": 20, "smoke": 3}
#: How long any wait of a page (the browser's start, a navigation, a locator) may take before it is called hung
#: (milliseconds): a hang guard, far above a run on a loaded machine -- playwright's own 30 s is not (the smoke
#: run is in the test suite).
GUARD_MS = 600_000
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"


def sizes(cfg: Config) -> list[None]:
    return [None]


class _Page:
    """A page file opened in the workload's browser, offline; :meth:`open` opens another in its tab."""

    def __init__(self, browser, path: Path):
        self.context = browser.new_context(offline=True, viewport={"width": 1280, "height": 860})
        self.context.set_default_timeout(GUARD_MS)
        self.context.set_default_navigation_timeout(GUARD_MS)
        self.page = self.context.new_page()
        self.open(path)

    def open(self, path: Path) -> _Page:
        """Open ``path`` in this tab (the pointer moved off the page first: no hover carried into the next)."""
        self.page.mouse.move(0, 0)
        t0 = time.perf_counter()
        self.page.goto(path.as_uri())
        self.page.wait_for_function("() => window.eidomap !== undefined", timeout=GUARD_MS)
        self.opened = time.perf_counter() - t0
        return self

    def click(self, where) -> float:
        """Click where ``where`` is drawn; the page's own time for the answer, in seconds."""
        self.page.mouse.click(*self.page.evaluate("(w) => eidomap.point(w)", where))
        return self.page.evaluate("() => eidomap.lastMs") / 1000

    def hover(self, where) -> tuple[float, dict]:
        """Point at ``where`` (its preview drawn: a hang guard, no time limit); the page's time and the preview."""
        self.page.mouse.move(*self.page.evaluate("(w) => eidomap.point(w)", where))
        self.page.wait_for_function("""() => { const s = eidomap.state(), p = eidomap.preview();
          return p !== null && !p.working && p.to === (s.hover ?? s.cursor); }""", timeout=GUARD_MS)
        return self.page.evaluate("() => eidomap.previewMs") / 1000, self.page.evaluate("() => eidomap.preview()")

    def hovers(self, targets: list, ask: str) -> tuple[list[float], int]:
        """The preview's times over ``targets``, and how many previews differ from ``ask`` (a click's answer)."""
        times, wrong = [], 0
        for where in targets:
            seconds, seen = self.hover(where)
            times.append(seconds)
            want = self.run(ask, [self.run("() => eidomap.state()"), seen["to"]])
            wrong += {k: seen["route"].get(k) for k in want} != want  # (the preview keeps more: its turn ends)
        return times, wrong

    def run(self, script: str, arg=None):
        return self.page.evaluate(script, arg)

    def close(self) -> None:
        self.context.close()


class _Tabs:
    """Where the workload opens its pages: each in a browser context of its own, or in a smoke run (its times not
    judged) one after the other in one tab -- a renderer process fewer, ~0.5 CPU-s of Chromium's."""

    def __init__(self, browser, smoke: bool):
        self.browser, self.smoke, self.tab = browser, smoke, None

    def open(self, path: Path) -> _Page:
        if not self.smoke:
            return _Page(self.browser, path)
        if self.tab is None:
            self.tab = _Page(self.browser, path)
            return self.tab
        return self.tab.open(path)

    def done(self, page: _Page) -> None:
        """The workload is done with ``page``: its context closed, unless the next page opens in its tab."""
        if not self.smoke:
            page.close()

    def close(self) -> None:
        if self.tab is not None:
            self.tab.close()


def _same(got, want) -> bool:
    """JSON answers equal as the page tests compare them (tests/json_answers.py)."""
    return from_tests("json_answers").differs(got, want) is None


def _board(ctx: Context, tabs: _Tabs, n: int, folder: Path) -> None:
    import eidomap
    from eidomap.answers.routing import route
    from eidomap.pages.planner import planner

    cfg, rep = ctx.cfg, ctx.report
    mf = ensure_map(n, cfg)
    m = eidomap.load(mf.path, cache=True)
    t0 = time.perf_counter()
    page = planner(m)
    built = time.perf_counter() - t0
    path = folder / f"board-{n}.html"
    page.save(path)
    mb = path.stat().st_size / 1e6
    judged = n == 10_000
    rep.add(Row("planner page", n, "page size (MB), built by eidomap.pages.planner.planner", built, table="measure",
                bar=1.0 if judged else None, bar_text=f"≤ {PAGE_MB:g} MB" if judged else None,
                score=mb / PAGE_MB, detail=f"{mb:.2f} MB", runs=1))
    opened = tabs.open(path)
    rng = random.Random(cfg.seed)
    times, wrong, asked = [], [], []
    for _ in range(CLICKS[cfg.mode]):
        a, b = rng.sample(m.eido_ids, 2)
        opened.run("() => document.getElementById('clear').click()")
        opened.click(a)
        times.append(opened.click(b))
        asked.append(opened.run("() => eidomap.state()"))  # a click near a Pousa picks the Pousa
    for s in asked[:3]:
        got = opened.run("([a, b]) => eidomap.route(a, b)", [s["start"], s["goal"]])
        if not _same(got, json.loads(json.dumps(route(m, s["start"], s["goal"], "human").as_dict()))):
            wrong.append((s["start"], s["goal"]))
    click = statistics.median(times)
    rep.add(Row("planner page", n, "route click: the answer computed, written and drawn (median)", click,
                table="measure", bar=1.0 if judged else None,
                bar_text=f"≤ {CLICK_S * 1000:g} ms (median)" if judged else None, score=click / CLICK_S,
                agree=not wrong, runs=len(times),
                detail=f"page opened in {opened.opened:.2f} s; clicks {min(times) * 1000:.0f}-{max(times) * 1000:.0f}"
                       f" ms; {3 - len(wrong)} of 3 routes as eidomap.answers.routing.route"
                       + (f"; differ: {wrong}" if wrong else "")))
    opened.run("() => document.getElementById('clear').click()")
    opened.click(mf.start)
    start = opened.run("() => eidomap.state().start")  # (no preview at the start itself: a click there unsets it)
    others = [i for i in m.eido_ids if i != start]
    times, differ = opened.hovers(rng.sample(others, HOVERS[cfg.mode]), "([s, to]) => eidomap.route(s.start, to)")
    hover = statistics.median(times)
    rep.add(Row("planner page", n, "hover preview: the route to the Eido pointed at, drawn and summed up (median)",
                hover, table="measure", bar=1.0 if judged else None,
                bar_text=f"≤ {HOVER_S * 1000:g} ms (median)" if judged else None, score=hover / HOVER_S,
                agree=not differ, runs=len(times),
                detail=f"moves {min(times) * 1000:.0f}-{max(times) * 1000:.0f} ms; {len(times) - differ} of"
                       f" {len(times)} previews as a click's route"))
    for mode, field, value, what in (("turn", "#roll", "4", "this turn, a roll of 4"),
                                     ("within", "#turns", "3", "P(arrived within 3 turns)")):
        opened.page.check(f'input[name="mode"][value="{mode}"]')
        opened.page.fill(field, value)
        opened.page.dispatch_event(field, "change")
        seconds = opened.click(mf.start)  # a land Eido
        rep.add(Row("planner page", n, f"reach click: {what}", seconds, table="measure", runs=1,
                    detail=opened.run("() => document.getElementById('status').textContent")))
    tabs.done(opened)


def _grid(ctx: Context, tabs: _Tabs, folder: Path) -> None:
    from eidomap.answers.grid import grid_from_array
    from eidomap.answers.grid import reach as grid_reach
    from eidomap.answers.grid import route as grid_route
    from eidomap.pages.planner import grid_planner

    from .d20 import battle_grid

    cfg, rep = ctx.cfg, ctx.report
    side = SIDES[cfg.mode]
    grid = grid_from_array(battle_grid(side, cfg.seed))
    path = folder / f"grid-{side}.html"
    grid_planner(grid).save(path)
    opened = tabs.open(path)
    centre = f"{side // 2},{side // 2}"
    options = {"speed": 30, "mode": "double"}
    opened.page.select_option("#mode", "double")
    seconds = opened.click(centre)
    got = opened.run("([at, o]) => eidomap.reach(at, o)", [centre, options])
    want = json.loads(json.dumps(grid_reach(grid, (side // 2, side // 2), 30, mode="double").as_dict()))
    judged = side == 1_000
    rep.add(Row("planner page", side * side, f"battle grid {side:,} x {side:,}: reach click, double move at 30 ft",
                seconds, table="measure", bar=1.0 if judged else None, bar_text=f"≤ {GRID_S:g} s" if judged else None,
                score=seconds / GRID_S, agree=_same(got, want), runs=1,
                detail=f"{path.stat().st_size / 1e6:.2f} MB page opened in {opened.opened:.2f} s;"
                       f" {len(got['reachable'])} squares, as eidomap.answers.grid.reach"))
    corner = f"{side - 1},{side - 1}"  # the second click: the route there, round by round
    seconds = opened.click(corner)
    got = opened.run("([a, b, o]) => eidomap.route(a, b, o)", [centre, corner, options])
    want = json.loads(json.dumps(grid_route(grid, (side // 2, side // 2), (side - 1, side - 1), 30,
                                            mode="double").as_dict()))
    rep.add(Row("planner page", side * side, f"battle grid {side:,} x {side:,}: route click, centre to a corner,"
                " double moves", seconds, table="measure", agree=_same(got, want), runs=1,
                detail=f"{got['rounds']} rounds, {got['feet']} ft, as eidomap.answers.grid.route"))
    rng = random.Random(cfg.seed)
    free = [f"{r},{c}" for r, c in zip(*((grid.flags == 0) & (grid.occupant == 0)).nonzero(), strict=True)
            if f"{r},{c}" != centre]
    opened.run("() => document.getElementById('clear').click()")
    opened.click(centre)
    times, differ = opened.hovers(rng.sample(free, HOVERS[cfg.mode]),
                                  "([s, to]) => eidomap.route(s.from, to, { speed: 30, mode: 'double' })")
    hover = statistics.median(times)
    rep.add(Row("planner page", side * side, f"battle grid {side:,} x {side:,}: hover preview from the centre (median)",
                hover, table="measure", agree=not differ, runs=len(times),
                detail=f"moves {min(times) * 1000:.0f}-{max(times) * 1000:.0f} ms (a slow route: asked of a worker,"
                       f" the page says working); {len(times) - differ} of {len(times)} previews as a click's route"))
    tabs.done(opened)


def available() -> bool:
    """Whether the pages can be opened here: playwright installed and a Chromium to drive."""
    return not missing("playwright") and Path(CHROMIUM).is_file()


def run(ctx: Context, n: None) -> None:
    if not available():
        ctx.report.note("the planner pages need playwright and Chromium (apt-get install chromium): left out")
        return
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], timeout=GUARD_MS)
        tabs = _Tabs(browser, ctx.cfg.mode == "smoke")
        try:
            for size in BOARDS[ctx.cfg.mode] or ctx.cfg.sizes:
                _board(ctx, tabs, size, Path(tmp))
            _grid(ctx, tabs, Path(tmp))
            tabs.close()
        finally:
            browser.close()
