"""Workload 9: ``eidomap batch`` at scale -- rows per second on 1 and 2 local workers and on Dask.

* **Board**: a generated board (1,000 Eidos in a full run), the 10 weightings
  of the analyst batch (:data:`benchmarks.batch.ACTORS`), all starts x all
  targets, P(within k) for k = 1..3: ``run_batch`` with the local executor on
  1 and on 2 worker processes (a smoke run: 2 against this process computing
  the chunks one by one), and on a 2-worker Dask ``LocalCluster``
  (processes, one thread each; not in smoke runs, where starting the cluster
  would be most of the time), started by eidomap and, again, already running
  (``--scheduler``).  Rows: 2 workers against 1 (bar: the 1.7x speed-up the
  issue asks, a time ratio of at most 1/1.7) and Dask, its start included,
  against the local pool (bar: at most 1.3x), judged in full runs only (on
  the smaller boards of quick runs start-up is most of the time: INFO rows);
  agreement: every chunk file holds the same table on all four.
* **Report**: ``eidomap report --batch`` on the 2-worker result against the
  same report computed in memory, each in a child process with its peak RSS
  (a measure: the batch's report reads every pair, the other only those from
  the named places; not in smoke runs).
* **Big map**: every start of one species (human) on the 100,000-Eido map,
  to 100 targets spread over it, on 2 local workers (full runs only).  With
  1,000 times more starts than targets the batch searches backwards from the
  targets (:func:`eidomap.search.weighted.backward_thresholds`).

Times are wall clock from the call to the result on disk, worker start-up
included (spawned processes import eidomap; Dask starts its cluster).  The
output goes to a temporary folder, removed afterwards.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from .batch import ACTORS
from .harness import Config, Context, Row, missing, probe, size_label

__all__ = ["BIG", "BOARD", "run", "sizes"]

#: Eidos of the board, by mode (a smoke run: the map it already made), and how many of the 10 weightings run on it.
BOARD = {"full": (1000, 10), "quick": (300, 10), "smoke": (None, 3)}
#: The big map (full runs only): Eidos, and targets spread over it.
BIG = (100_000, 100)
WORKERS = 2


def sizes(cfg: Config) -> list[None]:
    return [None]


def _spec(actor) -> str:
    return actor if isinstance(actor, str) else "+".join([actor[0], *actor[1]])


def _timed_batch(query, out: Path, **kw) -> tuple[float, object]:
    from eidomap.answers.batch import run_batch

    t0 = time.perf_counter()
    summary = run_batch(query, out, progress=False, **kw)
    return time.perf_counter() - t0, summary


def _same_files(a: Path, b: Path) -> bool:
    import pyarrow.parquet as pq

    files = sorted(p.name for p in a.glob("part-*.parquet"))
    return files == sorted(p.name for p in b.glob("part-*.parquet")) and all(
        pq.read_table(a / f).equals(pq.read_table(b / f)) for f in files)


def _on_running_cluster(query, out: Path) -> tuple[float, object]:
    """The batch on a 2-worker ``LocalCluster`` that is up already (``--scheduler``), timed from the call."""
    import distributed

    with distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(WORKERS)
        return _timed_batch(query, out, executor="dask", scheduler=client)


def _board_size(cfg: Config) -> int:
    """Eidos of the board: the mode's, or the smallest map of the run (a smoke run's: no other map generated)."""
    return BOARD[cfg.mode][0] or min(cfg.sizes)


def _board(ctx: Context, tmp: Path) -> None:
    import statistics

    from eidomap.answers.batch import Query

    n, n_actors = _board_size(ctx.cfg), BOARD[ctx.cfg.mode][1]
    mf = ctx.map_file(n)
    query = Query((str(mf.path),), actors=tuple(_spec(a) for a in ACTORS[:n_actors]), turns=3)
    dask = ctx.cfg.mode != "smoke" and not missing("distributed")
    runs = {"full": 3, "quick": 1, "smoke": 1}[ctx.cfg.mode]
    times: dict[str, list[float]] = {"one": [], "two": [], "dask": [], "running": []}
    smoke = ctx.cfg.mode == "smoke"
    one = "this process, chunk by chunk (serial)" if smoke else "local pool, 1 worker"
    for k in range(runs):  # alternated, so that a busy spell of the shared machine hits all four alike
        last = k == runs - 1
        for name, fn in (("one", lambda out: _timed_batch(query, out, **({"executor": "serial"} if smoke else
                                                                         {"workers": 1}))),
                         ("two", lambda out: _timed_batch(query, out, workers=WORKERS)),
                         ("dask", lambda out: _timed_batch(query, out, executor="dask", workers=WORKERS)),
                         ("running", lambda out: _on_running_cluster(query, out))):
            if name in ("dask", "running") and not dask:
                continue
            seconds, s = fn(tmp / f"{name}{k}")
            times[name].append(seconds)
            if not last:
                shutil.rmtree(tmp / f"{name}{k}")
    k = runs - 1
    full = ctx.cfg.mode == "full"  # the bars are for the 1,000-Eido board: on a smaller one start-up is most of it
    t1, t2 = statistics.median(times["one"]), statistics.median(times["two"])
    rows = s.rows
    case = f"{n:,} Eidos x {n_actors} species, all x all: {rows:,} rows in {s.chunks} chunks"
    ctx.report.add(Row("batch scale", n, f"local pool, 2 workers vs 1 ({case})", t2, one, t1,
                       *((1 / 1.7, "≤ 0.588 (≥ 1.7x)") if full else (None, None)),
                       _same_files(tmp / f"one{k}", tmp / f"two{k}"),
                       f"{rows / t2:,.0f} vs {rows / t1:,.0f} rows/s; speed-up {t1 / t2:.2f}x; identical files",
                       runs=runs, extra={"peer_runs": times["one"], "runs": times["two"]}))
    if ctx.cfg.mode != "smoke":  # two reports in child processes: seconds the smoke run (in the suite) need not spend
        _report(ctx, n, str(mf.path), query.actors, tmp / f"two{k}", case)
    if not dask:
        ctx.report.note("batch scale: no Dask row (smoke run, or dask.distributed not installed)")
        return
    td = statistics.median(times["dask"])
    ctx.report.add(Row("batch scale", n, f"Dask LocalCluster, 2 workers vs local pool, 2 workers ({case})", td,
                       "local pool, 2 workers", t2, *((1.3, "≤ 1.3") if full else (None, None)),
                       _same_files(tmp / f"two{k}", tmp / f"dask{k}"),
                       f"{rows / td:,.0f} rows/s (eidomap starts the cluster: included); identical files", runs=runs,
                       extra={"peer_runs": times["two"], "runs": times["dask"]}))
    tr = statistics.median(times["running"])
    ctx.report.add(Row("batch scale", n, f"Dask, the cluster already running (--scheduler), vs local pool, 2 workers"
                       f" ({case})", tr, "local pool, 2 workers", t2, None, None,
                       _same_files(tmp / f"two{k}", tmp / f"running{k}"),
                       f"{rows / tr:,.0f} rows/s (the workers' first task imports eidomap); identical files", runs=runs,
                       extra={"peer_runs": times["two"], "runs": times["running"]}))


def _report(ctx: Context, n: int, path: str, actors, result: Path, case: str) -> None:
    """``eidomap report --batch`` on the result (issue 27: it read every row of every actor, 5.3 GB at 3,000 Eidos),
    against the same report computed in memory; each in a child process, with its peak RSS."""
    batch = probe(["eidomap", "report", path, "--batch", result, "-o", result.parent / "report-batch.html"]
                  ).check("report --batch")
    memory = probe(["eidomap", "report", path, "--species", ",".join(actors), "-o",
                    result.parent / "report-memory.html"]).check("report in memory")
    ctx.report.add(Row("batch scale", n, f"report --batch on that result, child ({case})", batch.seconds,
                       "the same report computed in memory, child", memory.seconds, None, None, None,
                       f"peak {batch.peak_mib:,.0f} MiB; in memory {memory.seconds:.2f} s, {memory.peak_mib:,.0f} MiB"
                       " (from the named places only)", peak_mib=batch.peak_mib, table="measure", runs=1))


def _big(ctx: Context, tmp: Path) -> None:
    from eidomap.answers.batch import Query

    n, n_targets = BIG
    mf = ctx.map_file(n)
    m = ctx.map(n)
    step = len(m.eido_ids) // n_targets
    targets = tuple(m.eido_ids[::step][:n_targets])
    ctx.forget()
    query = Query((str(mf.path),), actors=("human",), targets=targets, turns=3)
    t, s = _timed_batch(query, tmp / "big", workers=WORKERS, cache=True)
    ctx.report.add(Row("batch scale", n, f"all {n:,} starts of one species x {n_targets} targets, 2 local workers:"
                       f" {s.rows:,} rows in {s.chunks} chunks", t, None, None, None, None, None,
                       f"{s.rows / t:,.0f} rows/s; {t / n * WORKERS * 1000:.1f} ms of a worker per start",
                       table="measure", runs=1))


def run(ctx: Context, _n) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="eidomap-batch-scale-"))
    try:
        _board(ctx, tmp)
        if ctx.cfg.mode == "full":
            _big(ctx, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        ctx.report.note(f"batch scale: worker start-up included; {size_label(_board_size(ctx.cfg))}-Eido board")
