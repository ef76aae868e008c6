"""Workload 9: a map read from FlatGeobuf and GeoParquet against the same map read from GeoJSON (issue 14).

eidomap's lenient read with every check -- :func:`eidomap.io.readers.read_map`,
what ``eidomap.load`` and ``validate`` run before topology -- of the generated
map in each format.  The FlatGeobuf and GeoParquet copies are written once,
beside the GeoJSON, by ``eidomap convert``'s writer.  Agreement: the same Eido
ids, terrains and geometries (exactly), and no problem in either read.

Besides the wall times of the row, the least CPU time (``time.process_time``)
of three reads of each is recorded: on a machine shared with other jobs it
moves much less than the wall time.
"""

from __future__ import annotations

import time

import numpy as np

from .harness import Config, Context, Row, missing, timed

__all__ = ["FORMATS", "MAX_EIDOS", "run", "sizes"]

#: Largest map of this workload (the issue asks for 100,000 Eidos).
MAX_EIDOS = 200_000
#: The table formats read, by suffix.
FORMATS = {".fgb": "FlatGeobuf", ".parquet": "GeoParquet"}


def sizes(cfg: Config) -> list[int]:
    return [n for n in cfg.sizes if n <= MAX_EIDOS]


def _cpu(fn, runs: int = 3) -> float:
    """The least CPU seconds of ``runs`` calls."""
    best = float("inf")
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def run(ctx: Context, n: int) -> None:
    absent = missing("pyogrio", "pyarrow")
    if absent:
        ctx.report.note(f"{', '.join(absent)} not installed: the map read workload is left out")
        return
    import shapely

    from eidomap.io.geojson import read_geojson
    from eidomap.io.readers import read_map
    from eidomap.io.tables import write_table_map

    mf = ctx.map_file(n)
    base = timed(lambda: read_geojson(mf.path), ctx.cfg)
    md0, p0 = base.value
    base_cpu = _cpu(lambda: read_geojson(mf.path))
    for suffix, name in FORMATS.items():
        path = mf.path.with_suffix(suffix)
        if not path.is_file() or path.stat().st_mtime < mf.path.stat().st_mtime:
            write_table_map(md0, path)
        t = timed(lambda path=path: read_map(path), ctx.cfg)
        md, p = t.value
        cpu = _cpu(lambda path=path: read_map(path))
        a, b = md0.record, md.record
        agree = (b.eidos.ids == a.eidos.ids and np.array_equal(b.terrain, a.terrain)
                 and bool(shapely.equals_exact(b.eidos.geoms, a.eidos.geoms, 0.0).all()) and not p and not p0)
        size = path.stat().st_size / 2**20
        ctx.report.add(Row("map read", n, f"read_map of the {name} copy", t.seconds, "read_geojson of the GeoJSON map",
                           base.seconds, 1 / 3, "≤ 1/3 (3x faster)", agree,
                           f"{len(b.eidos):,} Eidos, same ids, terrains and geometries; {name} {size:,.0f} MiB,"
                           f" GeoJSON {mf.path.stat().st_size / 2**20:,.0f} MiB; least CPU time {cpu:.2f} s vs"
                           f" {base_cpu:.2f} s (ratio {cpu / base_cpu:.2f})", runs=len(t.runs),
                           extra={"runs_s": t.runs, "peer_runs": base.runs, "cpu_s": cpu, "peer_cpu_s": base_cpu}))
