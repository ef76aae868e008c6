"""Issue 15: one route query on the largest map, cold (each GeoJSON reader) and warm (the cache present).

Each query is ``eidomap route MAP --from A --to B --species human`` in a
fresh process (:mod:`benchmarks.probe`), wall time and peak RSS:

* cold, no cache: the msgspec reader (``eidomap[fast]``) against the standard
  library's (``EIDOMAP_READER=json``), alternated, in the same run; at 1M
  Eidos also against the issue's baseline, the 35 s of the run of commit
  121c072 (bar 0.4x; a figure of another run, so compare with care);
* warm, ``--cache`` with the cache beside the map: against ``python -c "import
  numpy, scipy.sparse.csgraph"`` plus one csgraph Dijkstra from the start on
  the same network (bar 2x; at 1M Eidos also at most 3 s).

Agreement: every query prints the same answer.
"""

from __future__ import annotations

import sys

from .endtoend import median_runs
from .harness import Config, Context, Row, run_child, timed

__all__ = ["BASELINE_1M_S", "run", "sizes"]

#: The cold 1M route of the issue's baseline run (commit 121c072, results/full-121c072.md).
BASELINE_1M_S = 35.5
#: The issue's bars: cold against the baseline, warm against the imports and one Dijkstra, warm at 1M.
COLD_BAR, WARM_BAR, WARM_1M_S = 0.4, 2.0, 3.0
READERS = ("msgspec", "json")


def sizes(cfg: Config) -> list[int]:
    return [max(cfg.sizes)]


def _runs(cfg: Config) -> int:
    return {"full": 3}.get(cfg.mode, 1)


def _peer(ctx: Context, path, start: str, runs: int) -> tuple[float, float, float]:
    """The peer of the warm query: ``python -c "import numpy, scipy.sparse.csgraph"`` and one csgraph Dijkstra."""
    from scipy.sparse.csgraph import dijkstra

    import eidomap
    from eidomap.rules.eido import actor

    imports = sorted(run_child([sys.executable, "-c", "import numpy, scipy.sparse.csgraph"]).check("imports").seconds
                     for _ in range(runs))[runs // 2]
    m = eidomap.load(path, cache=True)
    csr = m.network.csr(actor(m.catalog, "human").table)
    s = m.node_index(start)
    search = timed(lambda: dijkstra(csr, directed=True, indices=s), ctx.cfg).seconds
    return imports + search, imports, search


def run(ctx: Context, n: int) -> None:
    from eidomap.cache import path_for

    mf = ctx.map_file(n)
    ctx.forget()
    runs = _runs(ctx.cfg)
    query = ["eidomap", "route", mf.path, "--from", mf.start, "--to", mf.goal, "--species", "human"]
    path_for(mf.path).unlink(missing_ok=True)
    cold = {reader: [] for reader in READERS}
    for _ in range(runs):  # alternated: both readers see the same load
        for reader, out in cold.items():
            out.append(median_runs(query, 1, env={"EIDOMAP_READER": reader}))
    median_runs([*query, "--cache"], 1)  # writes the cache
    warm = median_runs([*query, "--cache"], runs)
    peer, imports, search = _peer(ctx, mf.path, mf.start, runs)
    answers = {warm.answer, *(r.answer for rs in cold.values() for r in rs)}
    same = len(answers) == 1 and warm.last.info["rc"] == 0
    agree = "same output" if same else "the answers differ"
    secs = {reader: sorted(r.seconds for r in rs)[len(rs) // 2] for reader, rs in cold.items()}
    peaks = {reader: max(r.peak_mib for r in rs) for reader, rs in cold.items()}
    rep = ctx.report
    rep.add(Row("route query", n, "cold, msgspec reader (child)", secs["msgspec"], "cold, standard-library reader",
                secs["json"], None, None, same,
                f"{agree}; peak RSS {peaks['msgspec']:,.0f} vs {peaks['json']:,.0f} MiB",
                peak_mib=peaks["msgspec"], runs=runs,
                extra={"runs_s": [r.seconds for r in cold["msgspec"]], "peer_runs": [r.seconds for r in cold["json"]]}))
    if n == 1_000_000:
        for reader in READERS:
            rep.add(Row("route query", n, f"cold, {reader} reader (child)", secs[reader],
                        "issue 15 baseline (commit 121c072, another run)", BASELINE_1M_S, COLD_BAR,
                        f"≤ {COLD_BAR} (≤ {COLD_BAR * BASELINE_1M_S:.1f} s)", same,
                        f"{agree}; peak RSS {peaks[reader]:,.0f} MiB"
                        f" (< 3 GiB: {'yes' if peaks[reader] < 3072 else 'NO'})",
                        peak_mib=peaks[reader], runs=runs))
    rep.add(Row("route query", n, "warm, --cache present (child)", warm.seconds,
                "python -c 'import numpy, scipy.sparse.csgraph' + 1 csgraph Dijkstra", peer, WARM_BAR,
                f"≤ {WARM_BAR:g}", same, f"{agree}; imports {imports:.2f} s + Dijkstra {search:.3f} s",
                peak_mib=warm.peak_mib, runs=runs, extra={"runs_s": warm.runs}))
    if n == 1_000_000:
        rep.add(Row("route query", n, "warm, --cache present (child)", warm.seconds, bar=1.0,
                    bar_text=f"≤ {WARM_1M_S:g} s", score=warm.seconds / WARM_1M_S, agree=same, peak_mib=warm.peak_mib,
                    table="measure", detail=f"{agree}; runs {', '.join(f'{t:.2f}' for t in warm.runs)} s"))
    path_for(mf.path).unlink(missing_ok=True)
