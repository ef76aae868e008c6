"""Workload 1: rook adjacency of Voronoi maps, its speed and its robustness.

*Speed*: :func:`eidomap.model.topology.adjacency` against libpysal's
``Graph.build_contiguity(gdf, rook=True)`` and ``strict=True`` on the same
cells (``eidomap.model.generate.voronoi_cells``); the pairs must be identical.

*Robustness*: the same map with every second cell ``shapely.segmentize``\\ d
(:data:`SEGMENT` map units, on cells about 10 units wide): the new vertices sit
off the neighbour's line by rounding, as in maps drawn by hand.  For eidomap,
both libpysal modes, an exact shared-vertex-pair hash and a GEOS ``relate``
pass (:func:`exact_pairs`, :func:`relate_pairs`): the share of the clean map's
pairs found (the truth: GEOS ``relate`` on the clean map, which must also equal
eidomap's and libpysal's pairs there), the false pairs, and the time.

*Scale*: above :data:`PEER_MAX` Eidos only eidomap runs, in a child process,
for its time and peak RSS; its pairs are checked against the exact hash, which
is right on a clean Voronoi map.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import shapely

from .harness import (
    Config,
    Context,
    Row,
    Timing,
    ensure_cells,
    missing,
    probe,
    size_label,
    timed,
)
from .probe import peak_rss_mib

__all__ = [
    "PEER_MAX",
    "SEGMENT",
    "child_scale",
    "eidomap_adjacency",
    "exact_pairs",
    "libpysal_graph",
    "pair_keys",
    "relate_pairs",
    "run",
    "sizes",
]

#: Longest segment after ``shapely.segmentize`` on the robustness map (map units).
SEGMENT = 2.0
#: Largest map the libpysal and GEOS peers run on (they take minutes and GiBs beyond).
PEER_MAX = 200_000
#: The bars against libpysal, by ``strict``: (largest time ratio, as written).
FASTER = {False: (0.2, "≤ 0.2 (≥ 5x faster)"), True: (1 / 7, "≤ 0.143 (≥ 7x faster)")}


def sizes(cfg: Config) -> list[int]:
    return list(cfg.sizes)


def pair_keys(i: np.ndarray, j: np.ndarray, n: int) -> np.ndarray:
    """Sorted distinct keys ``min * n + max`` of unordered pairs ``i != j``."""
    i, j = np.asarray(i, np.int64), np.asarray(j, np.int64)
    keep = i != j
    i, j = i[keep], j[keep]
    return np.unique(np.minimum(i, j) * n + np.maximum(i, j))


def eidomap_adjacency(cells):
    from eidomap.model.topology import adjacency

    return adjacency(cells)


def eidomap_keys(adj, n: int) -> np.ndarray:
    return pair_keys(adj.i, adj.j, n)


def libpysal_graph(gdf, strict: bool):
    from libpysal.graph import Graph

    return Graph.build_contiguity(gdf, rook=True, strict=strict)


def libpysal_keys(g, n: int) -> np.ndarray:
    """Rook pairs of a ``libpysal.graph.Graph`` (isolates' self-loops dropped)."""
    adj = g.adjacency
    focal = adj.index.get_level_values(0).to_numpy()
    neighbor = adj.index.get_level_values(1).to_numpy()
    real = adj.to_numpy() > 0
    return pair_keys(focal[real], neighbor[real], n)


def exact_pairs(cells) -> np.ndarray:
    """Pairs of polygons whose boundaries have a segment in common, vertex for vertex.

    Every ring segment in canonical order (smaller endpoint first), as 32
    bytes; equal segments of two different polygons make a pair.  Misses
    T-junctions and vertices that differ by rounding.
    """
    n = len(cells)
    rings, owner = shapely.get_rings(cells, return_index=True)
    xy, ring = shapely.get_coordinates(rings, return_index=True)
    same = ring[1:] == ring[:-1]
    a, b = xy[:-1][same], xy[1:][same]
    who = owner[ring[:-1][same]]
    swap = (a[:, 0] > b[:, 0]) | ((a[:, 0] == b[:, 0]) & (a[:, 1] > b[:, 1]))
    seg = np.ascontiguousarray(np.where(swap[:, None], np.c_[b, a], np.c_[a, b]))
    key = seg.view(np.dtype((np.void, seg.dtype.itemsize * 4))).ravel()
    order = np.argsort(key, kind="stable")
    k = key[order]
    dup = np.flatnonzero(k[1:] == k[:-1])
    return pair_keys(who[order[dup]], who[order[dup + 1]], n)


def relate_pairs(cells) -> np.ndarray:
    """GEOS rook: ``STRtree`` ``touches`` candidates whose boundaries meet in a line."""
    tree = shapely.STRtree(cells)
    p, q = tree.query(cells, predicate="touches")
    keep = p < q
    p, q = p[keep], q[keep]
    line = shapely.relate_pattern(cells[p], cells[q], "F***1****")
    return pair_keys(p[line], q[line], len(cells))


def segmentized(cells) -> np.ndarray:
    """Every second cell's edges split into pieces of at most :data:`SEGMENT`."""
    out = cells.copy()
    out[::2] = shapely.segmentize(cells[::2], SEGMENT)
    return out


def _score(found: np.ndarray, truth: np.ndarray) -> dict:
    hit = np.isin(found, truth, assume_unique=True)
    return {"found": float(hit.sum() / len(truth)) if len(truth) else 1.0, "false": int((~hit).sum()),
            "pairs": len(found)}


def run(ctx: Context, n: int) -> None:
    if n > PEER_MAX:
        return _scale(ctx, n)
    cfg, rep = ctx.cfg, ctx.report
    cells = ensure_cells(n, cfg)
    truth = relate_pairs(cells)  # GEOS on the clean map: the pairs every method should find
    mine = _keys(timed(lambda: eidomap_adjacency(cells), cfg), eidomap_keys, n)
    clean = {"GEOS relate (STRtree touches + F***1****)": (timed(lambda: relate_pairs(cells), cfg), None, None)}
    absent = missing("geopandas", "libpysal")
    if absent:
        rep.note(f"{', '.join(absent)} not installed: the libpysal rows are left out")
    else:
        import geopandas as gpd

        gdf = gpd.GeoDataFrame(geometry=cells)
        for strict in (False, True):
            bar, text = FASTER[strict]
            clean[f"libpysal rook{' strict' if strict else ''}"] = (
                _keys(timed(lambda s=strict: libpysal_graph(gdf, s), cfg), libpysal_keys, n), bar, text)
    for peer, (t, bar, text) in clean.items():
        same = np.array_equal(mine.value, t.value)
        rep.add(Row("topology", n, "clean Voronoi map", mine.seconds, peer, t.seconds, bar, text, same,
                    f"{len(mine.value):,} pairs" + ("" if same else _diff(mine.value, t.value)),
                    runs=len(mine.runs), extra={"peer_runs": t.runs}))
    # robustness: the same map, every second cell segmentized
    seg = segmentized(cells)
    methods = {"eidomap": (lambda: eidomap_adjacency(seg), eidomap_keys)}
    if not absent:
        gseg = gpd.GeoDataFrame(geometry=seg)
        methods["libpysal rook"] = (lambda: libpysal_graph(gseg, False), libpysal_keys)
        methods["libpysal rook strict"] = (lambda: libpysal_graph(gseg, True), libpysal_keys)
    if not cfg.small:  # INFO rows, left to full runs (a quick run stays under two minutes)
        methods["exact vertex-pair hash"] = (lambda: exact_pairs(seg), None)
        methods["GEOS relate (STRtree touches + F***1****)"] = (lambda: relate_pairs(seg), None)
    times = {}
    for name, (fn, keys) in methods.items():
        t = _keys(timed(fn, cfg), keys, n)
        sc = _score(t.value, truth)
        times[name] = t
        perfect = sc["found"] == 1.0 and sc["false"] == 0
        rep.add(Row("robustness", n, name, t.seconds, agree=perfect if name == "eidomap" else None,
                    table="robustness", runs=len(t.runs), extra=sc,
                    detail=f"{sc['found'] * 100:.2f} % found, {sc['false']} false"))
    perfect = np.array_equal(times["eidomap"].value, truth)
    for name in ("libpysal rook", "libpysal rook strict"):
        if name not in times:
            continue
        bar, text = FASTER[name.endswith("strict")]
        peer_found = _score(times[name].value, truth)["found"]
        rep.add(Row("topology", n, f"segmentized map (every 2nd cell, {SEGMENT:g} units)", times["eidomap"].seconds,
                    name, times[name].seconds, bar, text, perfect,
                    f"eidomap = clean pairs{'' if perfect else ' NOT'}; peer finds {peer_found * 100:.1f} %",
                    runs=len(times["eidomap"].runs)))


def _keys(t: Timing, keys, n: int) -> Timing:
    """The timing with its value turned into pair keys (outside the timed call)."""
    if keys is not None:
        t.value = keys(t.value, n)
    return t


def _diff(a: np.ndarray, b: np.ndarray) -> str:
    only_a = np.setdiff1d(a, b, assume_unique=True)
    only_b = np.setdiff1d(b, a, assume_unique=True)
    return (f"; only eidomap: {len(only_a)} (first {only_a[:3].tolist()}),"
            f" only peer: {len(only_b)} (first {only_b[:3].tolist()})")


def _scale(ctx: Context, n: int) -> None:
    """eidomap alone on a big map, in a child: time, peak RSS, pairs checked by the exact hash."""
    ensure_cells(n, ctx.cfg)  # generated here, so that the child only loads it
    out = probe(["call", "benchmarks.topology:child_scale", n, ctx.cfg.seed, ctx.cfg.data]).check(
        f"topology child at {size_label(n)}").info
    ctx.report.add(Row("topology", n, "adjacency (child process)", out["seconds"], table="measure",
                       peak_mib=out["adjacency_peak_mib"], agree=out["agree"], runs=len(out["runs"]),
                       detail=f"{out['pairs']:,} pairs {'=' if out['agree'] else '!='} exact hash;"
                              f" RSS with the cells loaded {out['rss_before_mib']:,.0f} MiB;"
                              f" exact hash alone {out['exact_seconds']:.2f} s"))


def child_scale(n: str, seed: str, data: str) -> dict:
    """In a child process: load the cells, time eidomap's adjacency, check it.

    The peak RSS is read right after the adjacency runs (before the exact
    hash that checks it).
    """
    n = int(n)
    cfg = Config([n], seed=int(seed), data=Path(data))
    cells = ensure_cells(n, cfg)
    rss_before = _rss_mib()
    t = _keys(timed(lambda: eidomap_adjacency(cells), cfg, runs=1), eidomap_keys, n)
    peak = peak_rss_mib()
    t0 = time.perf_counter()
    exact = exact_pairs(cells)
    exact_s = time.perf_counter() - t0
    return {"seconds": t.seconds, "runs": t.runs, "pairs": len(t.value),
            "agree": bool(np.array_equal(t.value, exact)), "rss_before_mib": rss_before,
            "adjacency_peak_mib": peak, "exact_seconds": exact_s}


def _rss_mib() -> float:
    """Current resident set size of this process (Linux ``/proc/self/statm``)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
