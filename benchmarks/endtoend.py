"""Workload 6: ``eidomap route`` on a GeoJSON file, end to end, in a child process.

eidomap: ``eidomap route MAP --from A --to B --species human`` (read, check,
topology, compile, search; run by :mod:`benchmarks.probe` exactly as the console
script runs it, plus the report of its peak RSS) against a child that only reads the same file with
``geopandas.read_file(..., engine="pyogrio")`` and builds libpysal rook weights
of its Eidos.  Then the cache: the query with ``--cache`` when no cache exists
(it writes the cache beside the map) against the next one (which reads it).

Agreement: the libpysal child prints a digest of its pairs, compared with the
pairs of ``eidomap.load(MAP).adjacency`` (computed in another child); the
cached query must print exactly what the uncached one prints.  A smoke run (the
test suite's: its times are not judged) takes the first query with ``--cache``
for the query without it: it reads the map the same way, and writes the cache too.
"""

from __future__ import annotations

import hashlib
import statistics
from dataclasses import dataclass

import numpy as np

from .harness import ChildRun, Config, Context, Row, missing, probe

__all__ = ["MAX_EIDOS", "Runs", "eidomap_child", "median_runs", "pairs_digest", "peer_child", "run", "sizes"]

#: Largest map of this workload (the issue asks for 100,000 Eidos).
MAX_EIDOS = 200_000


def sizes(cfg: Config) -> list[int]:
    return [n for n in cfg.sizes if n <= MAX_EIDOS]


def _runs(cfg: Config) -> int:
    return 3 if cfg.mode == "full" else 1


def pairs_digest(i: np.ndarray, j: np.ndarray) -> dict:
    """Count and SHA-256 of the sorted pairs ``(min, max)`` of Eido positions."""
    i, j = np.asarray(i, np.int64), np.asarray(j, np.int64)
    keep = i != j
    key = np.unique(np.minimum(i[keep], j[keep]) * (1 << 32) + np.maximum(i[keep], j[keep]))
    return {"pairs": len(key), "sha256": hashlib.sha256(key.tobytes()).hexdigest()}


def peer_child(path: str) -> dict:
    """geopandas (pyogrio) read + libpysal rook weights of the Eidos: the pairs' digest."""
    import geopandas as gpd
    from libpysal.graph import Graph

    gdf = gpd.read_file(path, engine="pyogrio")
    eidos = gdf[gdf["kind"] == "eido"].reset_index(drop=True)
    g = Graph.build_contiguity(eidos, rook=True)
    adj = g.adjacency
    real = adj.to_numpy() > 0
    focal = adj.index.get_level_values(0).to_numpy()[real]
    neighbor = adj.index.get_level_values(1).to_numpy()[real]
    return pairs_digest(focal, neighbor)


def eidomap_child(path: str) -> dict:
    """eidomap's pairs of the same file, by Eido position."""
    import eidomap

    a = eidomap.load(path).adjacency
    return pairs_digest(a.i, a.j)


@dataclass
class Runs:
    """Probed runs of one command: median seconds, every run's seconds, the largest peak RSS, the last run.

    ``peak_mib`` counts the command's child processes (eidomap's helper), whose
    own largest peak is ``children_peak_mib``.
    """

    seconds: float
    runs: list[float]
    peak_mib: float
    last: ChildRun
    children_peak_mib: float = 0.0

    @property
    def answer(self) -> str:
        """What the command printed (without the probe's report line)."""
        return "\n".join(self.last.stdout.strip().splitlines()[:-1])


def median_runs(args: list, runs: int, before=None, env: dict | None = None, ctx: Context | None = None) -> Runs:
    """``runs`` runs of the command ``args`` (each after ``before()``); with ``ctx`` and no ``env``, a route command
    run through :meth:`Context.route_probe` (shared in a smoke run)."""
    out = []
    for _ in range(runs):
        if before:
            before()
        run = ctx.route_probe(args) if ctx is not None and env is None else probe(args, env=env)
        out.append(run.check(" ".join(map(str, args[:3]))))
    secs = [r.seconds for r in out]
    return Runs(statistics.median(secs), secs, max(r.peak_mib for r in out), out[-1],
                max(r.children_peak_mib for r in out))


def run(ctx: Context, n: int) -> None:
    mf = ctx.map_file(n)
    ctx.forget()
    query = ["eidomap", "route", mf.path, "--from", mf.start, "--to", mf.goal, "--species", "human"]
    runs = _runs(ctx.cfg)
    # a smoke run (its times not judged) takes the first query with --cache, which reads the map as this one does
    # and writes the cache, for the query without it: one process start-up fewer, the same outputs compared
    first = _first_cached(query, runs, ctx) if ctx.cfg.mode == "smoke" else None
    mine = first or median_runs(query, runs, ctx=ctx)
    absent = missing("geopandas", "libpysal", "pyogrio")
    if absent:
        ctx.report.note(f"{', '.join(absent)} not installed: the end-to-end peer is left out")
    else:
        _versus_libpysal(ctx, n, mf.path, mine, runs)
    _cache(ctx, n, query, mine, runs, first)


def _first_cached(query: list, runs: int, ctx: Context) -> Runs:
    """The query with ``--cache`` when no cache exists: it reads the map and writes the cache."""
    from eidomap.model.cache import path_for

    return median_runs([*query, "--cache"], runs, before=lambda: path_for(query[2]).unlink(missing_ok=True),
                       ctx=ctx)


def _versus_libpysal(ctx: Context, n: int, path, mine: Runs, runs: int) -> None:
    peer = median_runs(["call", "benchmarks.endtoend:peer_child", path], runs)
    ours = probe(["call", "benchmarks.endtoend:eidomap_child", path]).check("eidomap pairs child").info
    keys = ("pairs", "sha256")
    theirs, ours = {k: peer.last.info[k] for k in keys}, {k: ours[k] for k in keys}
    agree = ours == theirs and mine.last.info["rc"] == 0
    detail = (f"route exit 0; {ours['pairs']:,} pairs = libpysal's" if agree
              else f"route exit {mine.last.info['rc']}; eidomap {ours}, libpysal {theirs}")
    ctx.report.add(Row("end to end", n, "eidomap route (child) vs read_file + rook", mine.seconds,
                       "geopandas.read_file (pyogrio) + libpysal rook (child)", peer.seconds, 1.0, "≤ 1 (faster)",
                       agree, detail + f"; peak RSS {mine.peak_mib:,.0f} vs {peer.peak_mib:,.0f} MiB",
                       peak_mib=mine.peak_mib, runs=len(mine.runs),
                       extra={"runs_s": mine.runs, "peer_runs": peer.runs, "peer_peak_mib": peer.peak_mib}))


def _cache(ctx: Context, n: int, query: list, mine: Runs, runs: int, first: Runs | None = None) -> None:
    """The first query with ``--cache`` (it writes the cache; ``first`` if it ran already) against the next (it
    reads it)."""
    from eidomap.model.cache import path_for

    cache = path_for(query[2])
    first = first or _first_cached(query, runs, ctx)
    again = median_runs([*query, "--cache"], runs, ctx=ctx)
    same = first.answer == again.answer == mine.answer
    ctx.report.add(Row("end to end", n, "second query with --cache (reads the cache)", again.seconds,
                       "first query with --cache (writes the cache)", first.seconds, None, None, same,
                       ("same output as without the cache" if same else "the cached query printed something else")
                       + f"; cache {cache.stat().st_size / 2**20:,.1f} MiB", peak_mib=again.peak_mib,
                       runs=len(again.runs), extra={"peer_runs": first.runs}))
    cache.unlink(missing_ok=True)
