"""Workload 7: the peak memory of a route query on the largest map, and no NetworkX.

A child process (:mod:`benchmarks.probe`) runs ``eidomap route MAP --from A
--to B --species human`` through ``eidomap.cli.main`` -- without the cache (read,
check, topology, compile, search), then with the cache beside the map -- and
reports its peak RSS (with the helper process's, if the reader started one) and
whether ``networkx`` was imported.  Bar: under 3 GiB on
1,000,000 Eidos; the NetworkX graph is built only when a user asks for it.
"""

from __future__ import annotations

from .harness import Config, Context, Row, write_cache

__all__ = ["LIMIT_MIB", "run", "sizes"]

#: The bar: peak RSS of a route query on 1,000,000 Eidos.
LIMIT_MIB = 3 * 1024


def sizes(cfg: Config) -> list[int]:
    return [max(cfg.sizes)]


def run(ctx: Context, n: int) -> None:
    from eidomap.model.cache import path_for

    mf = ctx.map_file(n)
    ctx.forget()
    argv = ["route", str(mf.path), "--from", mf.start, "--to", mf.goal, "--species", "human"]
    for case, extra in (("eidomap route, no cache (child)", []), ("eidomap route --cache, cache present (child)",
                                                                  ["--cache"])):
        if extra and not path_for(mf.path).exists():
            write_cache(mf.path, ["eidomap", *argv, *extra], ctx.cfg)
        r = ctx.route_probe(["eidomap", *argv, *extra]).check("route child")
        out = r.info
        nx_free = "networkx" not in out["imported"] and out["rc"] == 0
        imported = ", ".join(out["imported"]) or "none of networkx, matplotlib, numba, pandas, scipy.sparse.csgraph"
        ctx.report.add(Row(
            "memory", n, case, r.seconds, bar=1.0, bar_text="< 3 GiB", score=r.peak_mib / LIMIT_MIB,
            agree=nx_free, peak_mib=r.peak_mib, table="measure",
            detail=f"exit {out['rc']}; imported: {imported}" + ("" if nx_free else " -- NetworkX was imported")
            + (f"; with the helper process's {r.children_peak_mib:,.0f} MiB" if r.children_peak_mib else ""),
        ))
