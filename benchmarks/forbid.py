"""Workload *forbid* (issue 48, item 10): a route under ``forbid`` without rolls on the 10,000-Eido board.

The exact roll-by-roll policy (:mod:`eidomap.search.policy`): the route that arrives soonest on
average and the distribution of its arrival turn.  Random pairs of Eidos of the generated board
(10,000 Eidos in a full and a quick run; a smoke run's own map, 300), a human on foot with 1d6 (the
planner page's defaults): :func:`eidomap.answers.routing.route` with ``partial="forbid"`` after one
warm-up route (numba's code loaded), each pair's time the least of a few runs (what the route costs, not
what the machine's other work adds to one run), their median and the worst; then the same
questions answered by the planner page's script (``eidomap/data/planner/eido.js``) in Node
(``benchmarks/forbid_page.cjs``: the page built by :func:`eidomap.pages.planner.planner`, its data
read from it), as the first question for the actor and as a later one (the page keeps the last
actor's pairs of nodes within a turn's reach), checked against Python's answers (the same JSON,
floats within 1e-9).  No other
library answers this question: no peer; the bar is the issue's, 200 ms for every pair (the worst).
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from .harness import ROOT, Context, Row, ensure_map, from_tests, run_child

__all__ = ["run", "sizes"]

#: The board (Eidos) by mode (a smoke run: the map it already made), and the pairs timed on it.
BOARDS = {"full": (10_000,), "quick": (10_000,), "smoke": ()}
PAIRS = {"full": 100, "quick": 30, "smoke": 2}
#: The runs of each pair, of which the least is its time.
RUNS = {"full": 3, "quick": 3, "smoke": 1}
#: The bar: the slowest route of the pairs, seconds.
WORST_S = 0.2
#: How long the page script's run of every pair may take before it is called hung (seconds): a hang guard.
GUARD_S = 3600


def sizes(cfg) -> list[None]:
    return [None]


def _row(n: int, case: str, times: list[float], pairs: list, judged: bool, agree: bool | None = None,
         more: str = "") -> Row:
    worst = max(range(len(times)), key=times.__getitem__)
    median = statistics.median(times)
    return Row("forbid route", n, case, median, table="measure", runs=len(times), agree=agree,
               bar=1.0 if judged else None, bar_text=f"≤ {WORST_S * 1000:g} ms, the worst" if judged else None,
               score=times[worst] / WORST_S,
               detail=f"median {median * 1000:.0f} ms, worst {times[worst] * 1000:.0f} ms ({' to '.join(pairs[worst])})"
                      f" over {len(times)} pairs" + more)


def _board(ctx: Context, n: int, folder: Path) -> None:
    import eidomap
    from eidomap.answers.routing import route
    from eidomap.pages.planner import planner

    cfg, rep = ctx.cfg, ctx.report
    m = eidomap.load(ensure_map(n, cfg).path, cache=True)
    rng = random.Random(cfg.seed)
    pairs = [rng.sample(m.eido_ids, 2) for _ in range(PAIRS[cfg.mode] + 1)]
    warmup, pairs = pairs[0], pairs[1:]
    route(m, *warmup, partial="forbid")
    times, answers = [], []
    for a, b in pairs:
        runs = []
        for _ in range(RUNS[cfg.mode]):
            t0 = time.perf_counter()
            r = route(m, a, b, partial="forbid")
            runs.append(time.perf_counter() - t0)
        times.append(min(runs))
        answers.append(json.loads(json.dumps(r.as_dict())))
    judged = n == 10_000
    turns = [r["expected_turns"] for r in answers if r["expected_turns"] is not None]
    rep.add(_row(n, "route, partial='forbid', no rolls: eidomap.route", times, pairs, judged,
                 more=f"; expected turns {min(turns):.1f} to {max(turns):.1f}" if turns else ""))
    node = shutil.which("node")
    if node is None:
        rep.note("the page script's forbid routes need Node (apt-get install nodejs): left out")
        return
    page, asked = folder / f"board-{n}.html", folder / f"forbid-{n}.json"
    planner(m).save(page)
    asked.write_text(json.dumps({"warmup": warmup, "pairs": pairs, "runs": RUNS[cfg.mode],
                                 "options": {"partial": "forbid"}}))
    done = run_child([node, str(ROOT / "benchmarks" / "forbid_page.cjs"), str(page), str(asked)], timeout=GUARD_S)
    got = json.loads(done.check("node benchmarks/forbid_page.cjs").stdout)
    differs = from_tests("json_answers").differs
    for key, when in (("first", "the first question for the actor (its pairs within a turn's reach searched)"),
                      ("kept", "a later question (the pairs the page keeps from the question before)")):
        wrong = [f"{a} to {b}" for (a, b), g, w in zip(pairs, got[key]["answers"], answers, strict=True)
                 if differs(g, w)]
        rep.add(_row(n, f"route, partial: 'forbid', no rolls: the planner page's script (eido.js) in Node, {when}",
                     [ms / 1000 for ms in got[key]["ms"]], pairs, judged, agree=not wrong,
                     more=f"; {len(pairs) - len(wrong)} of {len(pairs)} answers as eidomap.route"
                          + (f"; differ: {wrong[:3]}" if wrong else "")))


def run(ctx: Context, n: None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for size in BOARDS[ctx.cfg.mode] or ctx.cfg.sizes:
            _board(ctx, size, Path(tmp))
