"""Issue 15: one route query on the largest map, cold (each GeoJSON reader) and warm (the cache present).

Each query is ``eidomap route MAP --from A --to B --species human`` in a
fresh process (:mod:`benchmarks.probe`), wall time and peak RSS:

* cold, no cache: the msgspec reader (``eidomap[fast]``) against the standard
  library's (``EIDOMAP_READER=json``), alternated, in the same run; with
  ``--baseline DIR`` (a checkout of the issue's baseline commit 121c072) also
  against that commit's route, alternated with them (bar 0.4x); without it, at
  1M Eidos, against the 35 s of the baseline's own run (a figure of another
  run and machine, so compare with care);
* warm, ``--cache`` with the cache beside the map: against ``python -c "import
  numpy, scipy.sparse.csgraph"`` plus one csgraph Dijkstra from the start on
  the same network (bar 2x; at 1M Eidos also at most 3 s).

Agreement: every query prints the same answer.
"""

from __future__ import annotations

import sys

from .endtoend import median_runs
from .harness import Config, Context, Row, commit_of, run_child, timed, write_cache

__all__ = ["BASELINE_1M_S", "route_of", "run", "sizes"]

#: The cold 1M route of the issue's baseline run (commit 121c072, results/full-121c072.md).
BASELINE_1M_S = 35.5
#: The issue's bars: cold against the baseline, warm against the imports and one Dijkstra, warm at 1M.
COLD_BAR, WARM_BAR, WARM_1M_S = 0.4, 2.0, 3.0
READERS = ("msgspec", "json")


def sizes(cfg: Config) -> list[int]:
    return [max(cfg.sizes)]


def _runs(cfg: Config) -> int:
    """3 runs of each query in a full run; 5 against the baseline, whose 0.4 bar a VM's swings of a third can flip."""
    return {"full": 5 if cfg.baseline else 3}.get(cfg.mode, 1)


def _peer(ctx: Context, path, start: str, runs: int) -> tuple[float, float, float]:
    """The peer of the warm query: ``python -c "import numpy, scipy.sparse.csgraph"`` and one csgraph Dijkstra."""
    from scipy.sparse.csgraph import dijkstra

    import eidomap
    from eidomap.rules.eido import actor

    imports = sorted(run_child([sys.executable, "-c", "import numpy, scipy.sparse.csgraph"]).check("imports").seconds
                     for _ in range(runs))[runs // 2]
    m = eidomap.load(path, cache=True)
    csr = m.network.csr(actor(m.catalog, "human").costs)
    s = m.node_index(start)
    search = timed(lambda: dijkstra(csr, directed=True, indices=s), ctx.cfg).seconds
    return imports + search, imports, search


def route_of(answer: str) -> str:
    """A route's answer with each step of its path as place and cost: the words of a step changed since 121c072.

    >>> route_of("  path: e1 -> e2 (3) -> Pousa r@1 (onto the road from next door, 2)")
    '  path: e1 -> e2 3 -> r@1 2'
    >>> route_of("  path: e1 -> e2 (border 3) -> r@1 (board_adjacent 2)")
    '  path: e1 -> e2 3 -> r@1 2'
    """
    lines = []
    for line in answer.splitlines():
        head, sep, path = line.partition("path: ")
        lines.append(head + sep + " -> ".join(map(_step, path.split(" -> "))) if sep else line)
    return "\n".join(lines)


def _step(step: str) -> str:
    place, _, how = step.removeprefix("Pousa ").partition(" (")
    return f"{place} {how.rstrip(')').split()[-1]}" if how else place


def run(ctx: Context, n: int) -> None:
    from eidomap.model.cache import path_for

    mf = ctx.map_file(n)
    ctx.forget()
    runs = _runs(ctx.cfg)
    query = ["eidomap", "route", mf.path, "--from", mf.start, "--to", mf.goal, "--species", "human"]
    path_for(mf.path).unlink(missing_ok=True)
    commands = {reader: (query, {"EIDOMAP_READER": reader}) for reader in READERS}
    baseline = ctx.cfg.baseline
    if baseline is not None:
        commands["baseline"] = (["--at", baseline, *query], None)
    cold = {name: [] for name in commands}
    # a smoke run (its times not judged) takes the memory workload's run of the same command for the msgspec one,
    # when msgspec is the command line's own reader: one process start-up fewer
    from eidomap.io.fast.geojson import available

    shared = "msgspec" if ctx.cfg.mode == "smoke" and available() else None
    for _ in range(runs):  # alternated: every command sees the same load
        for name, (args, env) in commands.items():
            cold[name].append(median_runs(args, 1, ctx=ctx) if name == shared else median_runs(args, 1, env=env))
    write_cache(mf.path, [*query, "--cache"], ctx.cfg)
    warm = median_runs([*query, "--cache"], runs, ctx=ctx)
    peer, imports, search = _peer(ctx, mf.path, mf.start, runs)
    answers = {warm.answer, *(r.answer for name, rs in cold.items() if name != "baseline" for r in rs)}
    same = len(answers) == 1 and warm.last.info["rc"] == 0
    agree = "same output" if same else "the answers differ"
    if baseline is not None:
        then = {route_of(r.answer) for r in cold["baseline"]}
        same_then = same and then == {route_of(warm.answer)}
        agree_then = ("same output (the baseline's: the same steps and costs, worded as then)" if same_then
                      else "the answers differ (or differ from the baseline's)")
    secs = {name: sorted(r.seconds for r in rs)[len(rs) // 2] for name, rs in cold.items()}
    peaks = {name: max(r.peak_mib for r in rs) for name, rs in cold.items()}
    helper = {name: max(r.children_peak_mib for r in rs) for name, rs in cold.items()}
    memory = {name: f"{peaks[name]:,.0f} MiB" + (f" (helper process {helper[name]:,.0f})" if helper[name] else "")
              for name in cold}
    rep = ctx.report
    rep.add(Row("route query", n, "cold, msgspec reader (child)", secs["msgspec"], "cold, standard-library reader",
                secs["json"], None, None, same, f"{agree}; peak RSS {memory['msgspec']} vs {memory['json']}",
                peak_mib=peaks["msgspec"], runs=runs,
                extra={"runs_s": [r.seconds for r in cold["msgspec"]], "peer_runs": [r.seconds for r in cold["json"]]}))
    for reader in READERS if baseline is not None or n == 1_000_000 else ():
        if baseline is not None:
            peer_name, peer_s = f"cold, commit {commit_of(baseline)} (issue 15 baseline, this run)", secs["baseline"]
            peer_memory, agreed, said = f" vs {memory['baseline']}", same_then, agree_then
        else:
            peer_name, peer_s, peer_memory = "issue 15 baseline (commit 121c072, another run)", BASELINE_1M_S, ""
            agreed, said = same, agree
        bar = COLD_BAR if n == 1_000_000 else None  # the bar is on the 1M map
        rep.add(Row("route query", n, f"cold, {reader} reader (child)", secs[reader], peer_name, peer_s, bar,
                    bar and f"≤ {bar} (≤ {bar * peer_s:.1f} s)", agreed,
                    f"{said}; peak RSS {memory[reader]}{peer_memory}"
                    f"; < 3 GiB: {'yes' if peaks[reader] < 3072 else 'NO'}",
                    peak_mib=peaks[reader], runs=runs,
                    extra={"runs_s": [r.seconds for r in cold[reader]],
                           "peer_runs": [r.seconds for r in cold.get("baseline", ())]}))
    rep.add(Row("route query", n, "warm, --cache present (child)", warm.seconds,
                "python -c 'import numpy, scipy.sparse.csgraph' + 1 csgraph Dijkstra", peer, WARM_BAR,
                f"≤ {WARM_BAR:g}", same, f"{agree}; imports {imports:.2f} s + Dijkstra {search:.3f} s",
                peak_mib=warm.peak_mib, runs=runs, extra={"runs_s": warm.runs}))
    if n == 1_000_000:
        rep.add(Row("route query", n, "warm, --cache present (child)", warm.seconds, bar=1.0,
                    bar_text=f"≤ {WARM_1M_S:g} s", score=warm.seconds / WARM_1M_S, agree=same, peak_mib=warm.peak_mib,
                    table="measure", detail=f"{agree}; runs {', '.join(f'{t:.2f}' for t in warm.runs)} s"))
    path_for(mf.path).unlink(missing_ok=True)
