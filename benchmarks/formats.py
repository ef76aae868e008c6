"""Workload 9: a map read from GeoPackage, FlatGeobuf and GeoParquet against the same map read from GeoJSON
(issues 14 and 31).

eidomap's lenient read with every check -- :func:`eidomap.io.readers.read_map`,
what ``eidomap.load`` and ``validate`` run before topology -- of the generated
map in each format.  The table copies are written once, beside the GeoJSON, by
``eidomap convert``'s writer.  The peer is the GeoJSON read's msgspec lane
(the standard library's when msgspec is not installed: the row says so); the
bar, issue 31's, is half its time on maps of 100,000 Eidos or more (INFO
below).  Agreement: the same Eido ids, terrains and geometries (exactly),
and no problem in either read.

The two reads of a row are timed in turns (GeoJSON, table, table, GeoJSON,
...), so a change of load on a shared machine falls on both, and so does a
collection that comes every other read; each clock covers a read, not the
freeing of the map it replaces.  Besides the wall times of
the row, the least CPU time (``time.process_time``) of three reads of each is
recorded: on a machine shared with other jobs it moves much less than the
wall time.  From three more reads of each, the row also says how much of each
read was Python's cyclic collector (watched through ``gc.callbacks``, never
paused) and the ratio with it taken out of both: a full collection traverses
every Shapely object the process holds, the maps read before included, so it
costs both reads alike and pulls the ratio toward 1.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable

import numpy as np

from .harness import Config, Context, Row, Timing, missing

__all__ = ["BAR", "BAR_FROM", "FORMATS", "MAX_EIDOS", "run", "sizes"]

#: Largest map of this workload (the issue asks for 100,000 Eidos).
MAX_EIDOS = 200_000
#: The table formats read, by suffix.
FORMATS = {".gpkg": "GeoPackage", ".fgb": "FlatGeobuf", ".parquet": "GeoParquet"}
#: The largest ratio to the GeoJSON read issue 31 allows a table read, on maps of :data:`BAR_FROM` Eidos or more
#: (the issue's 100,000; on smaller maps a GeoPackage's SQLite opens, 2.3 ms a layer, are most of the read: INFO).
BAR = 0.5
BAR_FROM = 100_000


def sizes(cfg: Config) -> list[int]:
    return [n for n in cfg.sizes if n <= MAX_EIDOS]


def _cpu(fn, runs: int = 3) -> float:
    """The least CPU seconds of ``runs`` calls (each map freed after its clock stopped)."""
    best = float("inf")
    for _ in range(runs):
        t0 = time.process_time()
        value = fn()
        best = min(best, time.process_time() - t0)
        del value
    return best


def _collected(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall seconds of one call of ``fn`` and the seconds Python's cyclic collector ran inside it (its
    ``gc.callbacks``: the collector is watched, never paused)."""
    spent, began = [0.0], [0.0]

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            spent[0] += time.perf_counter() - began[0]

    gc.callbacks.append(watch)
    try:
        t0 = time.perf_counter()
        value = fn()
        seconds = time.perf_counter() - t0
        del value  # (freeing the map read is not reading it)
        return seconds, spent[0]
    finally:
        gc.callbacks.remove(watch)


def _order(turn: int) -> tuple[int, int]:
    """Which read comes first in ``turn`` (0: the peer's, 1: ours): each in turn, so that the second read of a
    turn is the first of the next (see :func:`_in_turns`)."""
    return (0, 1) if turn % 2 == 0 else (1, 0)


def _collector_share(peer: Callable[[], object], ours: Callable[[], object], runs: int = 3) -> dict[str, float]:
    """Median wall and collector seconds of ``peer()`` and ``ours()`` called in turns, and their ratio with the
    collector's time taken out of both: what the row's ratio is made of."""
    calls: tuple[list[tuple[float, float]], list[tuple[float, float]]] = ([], [])
    for turn in range(runs):
        for k in _order(turn):
            calls[k].append(_collected((peer, ours)[k]))
    (pw, pg), (ow, og) = ((statistics.median(w for w, _ in c), statistics.median(g for _, g in c)) for c in calls)
    return {"peer_s": pw, "peer_gc_s": pg, "ours_s": ow, "ours_gc_s": og, "ratio_without_gc": (ow - og) / (pw - pg)}


def _in_turns(peer: Callable[[], object], ours: Callable[[], object], cfg: Config) -> tuple[Timing, Timing]:
    """Median wall times of ``peer()`` and ``ours()`` called in turns, after a warm-up call of each; as many
    turns as fit in the budget (at most ``cfg.most_runs``).

    A turn's second read is the next turn's first (peer, ours, ours, peer, peer, ...): a full collection
    comes once enough objects have outlived the last one, every other read or so here, and in a fixed order
    it fell on the second read of every turn, one side's.  The map a call replaces is freed before its clock
    starts: freeing a map (30 ms at 100k) is not reading one.  A smoke run (its times not judged) times the
    warm-up calls themselves."""
    first: list[float] = []
    values = []
    for fn in (peer, ours):
        t0 = time.perf_counter()
        values.append(fn())
        first.append(time.perf_counter() - t0)
    if cfg.mode == "smoke":
        a, b = (Timing(w, [w], None, v) for w, v in zip(first, values, strict=True))
        return a, b
    turns = int(max(1, min(cfg.most_runs, cfg.budget // max(sum(first), 1e-9))))
    runs: tuple[list[float], list[float]] = ([], [])
    for turn in range(turns):
        for k in _order(turn):
            values[k] = None
            t0 = time.perf_counter()
            values[k] = (peer, ours)[k]()
            runs[k].append(time.perf_counter() - t0)
    a, b = (Timing(statistics.median(r), r, w, v) for r, w, v in zip(runs, first, values, strict=True))
    return a, b


def run(ctx: Context, n: int) -> None:
    absent = missing("pyogrio", "pyarrow")
    if absent:
        ctx.report.note(f"{', '.join(absent)} not installed: the map read workload is left out")
        return
    import shapely

    from eidomap.io import geojson
    from eidomap.io.fast import geojson as fastjson
    from eidomap.io.readers import read_map
    from eidomap.io.tables import write_table_map

    mf = ctx.map_file(n)
    lane = "json" if missing("msgspec") else "msgspec"
    read_geojson = geojson.read_geojson if lane == "json" else fastjson.read_geojson  # (plain reader or fast lane)
    md0, p0 = read_geojson(mf.path)
    for suffix, name in FORMATS.items():
        path = mf.path.with_suffix(suffix)
        if not path.is_file() or path.stat().st_mtime < mf.path.stat().st_mtime:
            write_table_map(md0, path)
        base, t = _in_turns(lambda: read_geojson(mf.path), lambda path=path: read_map(path), ctx.cfg)
        md, p = t.value
        least = min(3, ctx.cfg.most_runs)  # (1 in a smoke run)
        base_cpu = _cpu(lambda: read_geojson(mf.path), least)
        cpu = _cpu(lambda path=path: read_map(path), least)
        share = _collector_share(lambda: read_geojson(mf.path), lambda path=path: read_map(path), least)
        a, b = md0.record, md.record
        agree = (b.eidos.ids == a.eidos.ids and np.array_equal(b.terrain, a.terrain)
                 and bool(shapely.equals_exact(b.eidos.geoms, a.eidos.geoms, 0.0).all()) and not p and not p0)
        size = path.stat().st_size / 2**20
        ctx.report.add(Row("map read", n, f"read_map of the {name} copy", t.seconds,
                           f"read_geojson ({lane} lane) of the GeoJSON map", base.seconds,
                           *((BAR, "≤ 0.5 (issue 31)") if n >= BAR_FROM else (None, None)),
                           agree,
                           f"{len(b.eidos):,} Eidos, same ids, terrains and geometries; {name} {size:,.0f} MiB,"
                           f" GeoJSON {mf.path.stat().st_size / 2**20:,.0f} MiB; least CPU time {cpu:.2f} s vs"
                           f" {base_cpu:.2f} s (ratio {cpu / base_cpu:.2f}); Python's collector"
                           f" {share['ours_gc_s']:.2f} of {share['ours_s']:.2f} s vs {share['peer_gc_s']:.2f} of"
                           f" {share['peer_s']:.2f} s, ratio {share['ratio_without_gc']:.2f} without it",
                           runs=len(t.runs),
                           extra={"runs_s": t.runs, "peer_runs": base.runs, "cpu_s": cpu, "peer_cpu_s": base_cpu,
                                  "collector": share}))
        del base, t, md, p, a, b  # (the next format's reads with only the first map held, as this one's were)
