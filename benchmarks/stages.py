"""Issue 31, item 2: a cold route on the largest map, stage by stage, each beside its floor, and the bars.

``python -m benchmarks.stages MAP START`` (what the workload runs, in a fresh
process) reads the map as ``eidomap route`` does -- the msgspec lane, the
helper process, the garbage collector paused, the features' text let go --
and times each stage; then, in the same process, the floor of each: the
library calls the stage cannot do without, on the same data.

* read the bytes: ``Path.read_bytes``;
* decode: one msgspec pass over the file into its features with the
  coordinates left as text (the numbers are not parsed: below any reader);
* build the polygons: ``shapely.from_ragged_array`` of every Eido, and
  their validity on two threads at its cheapest: GEOS's ``shapely.is_valid``,
  or, for a polygon of one ring, eidomap's compiled check of its ring
  (:func:`eidomap.record.rings.surely_simple`, ten times faster, used by a read
  where numba is already loaded), whichever is less;
* adjacency: one ``np.sort`` of a 64-bit key per boundary segment, beside
  ``shapely.get_coordinates`` of the polygons;
* network: one ``np.sort`` of an int64 key per edge, and the Pousas' Eidos
  (one ``STRtree`` of the Eidos and a query);
* search: one SciPy csgraph Dijkstra on the same CSR.

The workload (``--only stages``) adds a row per stage (INFO: a floor is not a
peer) and the two bars of the item on the whole command, timed in a fresh
process as ``eidomap route`` with peak RSS (:mod:`benchmarks.probe`): at most
12 s and 2 GiB.  A smoke run (the test suite's: its times are not judged)
measures the stages in its own process instead of a fresh one.
"""

from __future__ import annotations

import json
import sys
import time

from .harness import Config, Context, Row, run_child

__all__ = ["COLD_S", "LIMIT_MIB", "run", "sizes"]

#: The item's bars on the largest map: a cold route (the ``fast`` extra) in seconds, its peak RSS.
COLD_S, LIMIT_MIB = 12.0, 2 * 1024


def sizes(cfg: Config) -> list[int]:
    return [max(cfg.sizes)]


def _runs(cfg: Config) -> int:
    return {"full": 3}.get(cfg.mode, 1)


def run(ctx: Context, n: int) -> None:
    from eidomap.model.cache import path_for

    mf = ctx.map_file(n)
    ctx.forget()
    path_for(mf.path).unlink(missing_ok=True)
    runs = _runs(ctx.cfg)
    if ctx.cfg.mode == "smoke":  # its times not judged: measured here, on a map this process reads afresh (one
        stages = [measure(str(mf.path), mf.start)]  # start-up fewer: ~0.9 CPU-s of imports and numba's code)
    else:
        stages = [run_child([sys.executable, "-m", "benchmarks.stages", str(mf.path), mf.start]).check(
            "stages child").info for _ in range(runs)]
    cold = [ctx.route_probe(["eidomap", "route", mf.path, "--from", mf.start, "--to", mf.goal, "--species", "human"])
            .check("route child") for _ in range(runs)]
    rep = ctx.report
    for stage in stages[0]:
        ours = sorted(s[stage]["eidomap"] for s in stages)[runs // 2]
        floor = sorted(s[stage]["floor"] for s in stages)[runs // 2]
        rep.add(Row("stages", n, f"cold route: {stage}", ours, stages[0][stage]["what"], floor, None, None, True,
                    "the floor is a lower bound on this machine, not a peer", runs=runs))
    seconds = sorted(r.seconds for r in cold)[runs // 2]
    peak = max(r.peak_mib for r in cold)
    detail = f"runs {', '.join(f'{r.seconds:.1f}' for r in cold)} s; peak RSS {peak:,.0f} MiB" + (
        f" (helper process {max(r.children_peak_mib for r in cold):,.0f})" if any(r.children_peak_mib for r in cold)
        else "")
    bar = 1.0 if n >= 1_000_000 else None  # the item's bars are on the million-Eido map
    rep.add(Row("stages", n, "cold route, msgspec reader (child)", seconds, bar=bar, bar_text=f"≤ {COLD_S:g} s",
                score=seconds / COLD_S, agree=all(r.info["rc"] == 0 for r in cold), peak_mib=peak, table="measure",
                detail=detail, runs=runs))
    rep.add(Row("stages", n, "cold route, peak RSS (child)", seconds, bar=bar, bar_text="≤ 2 GiB",
                score=peak / LIMIT_MIB, agree=True, peak_mib=peak, table="measure", detail=detail, runs=runs))


def _clock(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _rings_checked(coords, offsets, polys):
    """Which of ``polys`` (ragged ``coords``, ``offsets``) are valid, told as a read where numba runs tells it
    (the builder's ``_valid``: a one-ring polygon by the compiled check of its ring, the rest by GEOS)."""
    import numpy as np

    from eidomap.io import builder

    ring_at, poly_at = (np.asarray(o, np.int64) for o in offsets)
    part_rings = np.diff(poly_at)
    n = len(part_rings)
    flat = builder._Flat(coords, np.diff(ring_at), part_rings, part_rings, np.ones(n, np.int64), np.zeros(n, bool))
    return builder._valid(flat, ring_at[:-1], np.arange(n), polys)


def measure(path: str, start: str) -> dict:
    """Each stage of a cold route on ``path`` from ``start`` and its floor: ``{stage: {eidomap, floor, what}}``."""
    from pathlib import Path

    import msgspec
    import numpy as np
    import shapely
    from scipy.sparse.csgraph import dijkstra as csgraph_dijkstra

    import eidomap
    from eidomap.base.arrays import in_threads
    from eidomap.base.settings import twin
    from eidomap.record.rings import surely_simple
    from eidomap.rules.eido import actor
    from eidomap.search.weighted import dijkstra

    out: dict = {}
    read, m = _clock(lambda: eidomap.load(path, helper=True, pause_gc=True, document=False))
    adjacency, _ = _clock(lambda: m.adjacency)
    network, net = _clock(lambda: m.network)
    costs = actor(m.catalog, "human").costs
    source = m.node_index(start)
    search, _ = _clock(lambda: dijkstra(net, costs, source))

    t_bytes, data = _clock(Path(path).read_bytes)

    geometry = msgspec.defstruct("Geometry", [("type", str), ("coordinates", msgspec.Raw)])
    feature = msgspec.defstruct("Feature", [("geometry", geometry | None, None), ("properties", dict | None, None)])
    collection = msgspec.defstruct("Collection", [("features", list[feature])])  # type: ignore[valid-type]
    t_json, _ = _clock(lambda: msgspec.json.decode(data, type=collection))
    data = b""  # (let the file's bytes go before the next floors)
    geoms = m.record.eidos.geoms
    _, coords, offsets = shapely.to_ragged_array(geoms)
    t_poly, polys = _clock(lambda: shapely.from_ragged_array(shapely.GeometryType.POLYGON, coords, offsets))
    t_geos, _ = _clock(lambda: in_threads(shapely.is_valid, polys))
    # (numba's machine code loaded first, on no polygon: the route's search loads it in any case)
    twin(surely_simple, 0, compiled=True)(coords[:0], np.zeros(0, np.int64), np.zeros(0, np.int64))
    t_rings, _ = _clock(lambda: _rings_checked(coords, offsets, polys))
    t_valid = min(t_geos, t_rings)
    t_coords, xy = _clock(lambda: shapely.get_coordinates(geoms))
    keys = np.random.default_rng(0).integers(0, 2**63, len(xy), dtype=np.int64)
    t_sort, _ = _clock(lambda: np.sort(keys))
    edge_keys = np.random.default_rng(1).integers(0, 2**63, len(net.dst), dtype=np.int64)
    t_edges, _ = _clock(lambda: np.sort(edge_keys))
    t_tree, tree = _clock(lambda: shapely.STRtree(geoms))
    t_query, _ = _clock(lambda: tree.query(m.record.pousas.geoms, predicate="intersects"))
    csr = net.csr(costs)
    t_search, _ = _clock(lambda: csgraph_dijkstra(csr, indices=source))
    out["read"] = {"eidomap": read, "floor": t_bytes + t_json + t_poly + t_valid,
                   "what": "read_bytes + msgspec pass (coordinates as text) + from_ragged_array + validity (2 threads)"}
    out["adjacency"] = {"eidomap": adjacency, "floor": t_coords + t_sort,
                        "what": "get_coordinates + np.sort of a key per segment"}
    out["network"] = {"eidomap": network, "floor": t_edges + t_tree + t_query,
                      "what": "np.sort of a key per edge + STRtree of the Eidos + the Pousas' query"}
    out["search"] = {"eidomap": search, "floor": t_search, "what": "scipy csgraph Dijkstra, same CSR"}
    parts = {"read the bytes": t_bytes, "msgspec pass": t_json, "from_ragged_array": t_poly, "is_valid": t_geos,
             "ring check": t_rings}
    out["read"]["what"] += " (" + ", ".join(f"{k} {v:.2f} s" for k, v in parts.items()) + ")"
    return out


if __name__ == "__main__":
    print(json.dumps(measure(*sys.argv[1:3])))
