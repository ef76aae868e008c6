"""Workload 5: the analyst's batch -- expected turns between 1,000 Eidos for 10 species.

eidomap: :func:`eidomap.answers.analysis.expected_turns_matrix` once per species (the 9
species of the default catalog and a human travelling with a cow: 10
weightings).  Peer: csgraph's Dijkstra from the same 1,000 Eidos
(``dijkstra(csr, indices=...)``) for each of the 10 weightings, on CSRs built
beforehand.  Bar: within 1.5x.

Agreement: the pairs eidomap finds unreachable are exactly those csgraph does,
and for sampled pairs (5 in each of 10 rows, per species) the expected turns
recomputed here from csgraph's costs (the debt rule's arrival threshold, then
``sum_k P(S_k < threshold)`` under the dice) equal eidomap's.

The workload runs in a child process under an address-space limit
(:data:`LIMIT_GIB`), so that a workload that needs more memory than the machine
can spare fails alone instead of swapping out the other engineers' jobs; a
smoke run's (100 Eidos of its 300-Eido map) runs in its own process.
"""

from __future__ import annotations

import resource
import time

import numpy as np

from .harness import Config, Context, Row, probe, size_label

__all__ = ["ACTORS", "LIMIT_GIB", "PLACES", "child", "expected_turns_from_costs", "measure", "run", "sizes"]

#: Eidos of the batch, by mode (the issue's 1,000 in a full run; fewer to keep quick runs quick).
PLACES = {"full": 1000, "quick": 300, "smoke": 100}
#: The 10 weightings: species, or (species, companions).
ACTORS = ("human", "horse", "dog", "cow", "cart", "boat", "bird", "marino", "oestrimio", ("human", ("cow",)))
#: Address-space limit of the child process (GiB).
LIMIT_GIB = 6
#: Largest map the batch runs on: the peer's answer alone is 1,000 x nodes x 8 bytes per species.
MAX_EIDOS = 200_000


def sizes(cfg: Config) -> list[int]:
    return [n for n in cfg.sizes if n <= MAX_EIDOS]


def _actors(catalog):
    from eidomap.rules.eido import actor

    out = []
    for spec in ACTORS:
        sp, party = (spec, ()) if isinstance(spec, str) else spec
        out.append(actor(catalog, sp, party=party))
    return out


def _pmf(dice, vmv: int) -> np.ndarray:
    """P(budget = b), b = 0, 1, ...: ``n`` dice of ``sides`` faces + plus + VMv, at least 0."""
    p = np.ones(1)
    for _ in range(dice.n):
        p = np.convolve(p, np.full(dice.sides, 1.0 / dice.sides))
    low = dice.n + dice.plus + vmv
    out = np.zeros(max(low + len(p), 1))
    for k, q in enumerate(p):
        out[max(low + k, 0)] += q
    return out


def expected_turns_from_costs(costs_from_s: np.ndarray, into_src: np.ndarray, into_w: np.ndarray,
                              pmf: np.ndarray) -> float:
    """Expected turns to step into a node, from the costs of a Dijkstra and the edges into it.

    The debt rule: a step of cost ``c > 0`` from ``u`` starts once the rolls add
    up to more than the cost of ``u`` (a point must be left); a free step once
    they reach it.  The threshold is the least of these over the edges in,
    and ``E[turns] = sum_k P(S_k < threshold)`` (at least 1).
    """
    du = costs_from_s[into_src]
    ok = np.isfinite(du) & np.isfinite(into_w)
    if not ok.any():
        return float("inf")
    need = np.where(into_w[ok] > 1e-9, np.floor(du[ok] + 1e-9) + 1, np.ceil(du[ok] - 1e-9))
    theta = int(need.min())
    total, mass = 0.0, np.zeros(max(theta, 1))
    mass[0] = 1.0
    while mass.sum() > 1e-16:
        total += mass.sum()
        mass = np.convolve(mass, pmf)[:theta]
    return max(total, 1.0)


def child(path: str, mode: str, seed: str) -> dict:
    """In a child process, under the address-space limit: :func:`measure`."""
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_GIB * 2**30, resource.RLIM_INFINITY))
    return measure(path, mode, seed)


def measure(path: str, mode: str, seed: str) -> dict:
    """Time both sides and check that they agree."""
    from scipy.sparse.csgraph import dijkstra

    import eidomap
    from eidomap.answers.analysis import expected_turns_matrix

    from .harness import Config, timed

    cfg = Config([], mode=mode, budget=30.0 if mode == "full" else 4.0)
    m = eidomap.load(path, cache=True)
    net = m.network
    n_e = len(m.eido_ids)
    k = min(PLACES[mode], n_e)
    rng = np.random.default_rng(int(seed))
    idx = np.sort(rng.choice(n_e, k, replace=False))
    places = [m.eido_ids[i] for i in idx]
    actors = _actors(m.catalog)
    csrs = [net.csr(a.weights(net)) for a in actors]
    rows = np.sort(rng.choice(k, min(10, k), replace=False))  # rows of the peer's answer kept for the check
    out = {"places": k, "species": len(actors)}

    def peer_batch():
        # one (places x nodes) answer at a time: keep what the check needs, not 10 of them
        kept = []
        for c in csrs:
            d = dijkstra(c, directed=True, indices=idx)
            kept.append((d[:, idx], d[rows]))
        return kept

    peer = timed(peer_batch, cfg, warmup=False)
    out["peer_seconds"], out["peer_runs"] = peer.seconds, peer.runs
    try:
        mine = timed(lambda: [expected_turns_matrix(m, places, a) for a in actors], cfg, warmup=False)
    except MemoryError as exc:
        out["error"] = f"MemoryError under a {LIMIT_GIB} GiB address-space limit ({exc})"
        return out
    out["seconds"], out["runs"] = mine.seconds, mine.runs
    # agreement: unreachable pairs, then 5 reachable pairs in each kept row, recomputed from csgraph's costs
    src, dst = net.src, net.dst
    order = np.argsort(dst, kind="stable")
    starts = np.searchsorted(dst[order], np.arange(net.n_nodes + 1))
    bad, checked = [], 0
    for a, e_mat, (d_places, d_rows) in zip(actors, mine.value, peer.value, strict=True):
        reach = np.isfinite(d_places)
        if not np.array_equal(np.isfinite(e_mat), reach):
            bad.append(f"{a.name}: unreachable pairs differ ({int((np.isfinite(e_mat) != reach).sum())})")
            continue
        w = a.weights(net)
        pmf = _pmf(a.dice, a.vmv)
        for r, d_row in zip(rows, d_rows, strict=True):
            cols = np.flatnonzero(reach[r] & (np.arange(k) != r))
            for c in rng.choice(cols, min(5, len(cols)), replace=False) if len(cols) else []:
                into = order[starts[idx[c]] : starts[idx[c] + 1]]
                want = expected_turns_from_costs(d_row, src[into], w[into], pmf)
                checked += 1
                if not np.isclose(e_mat[r, c], want, rtol=1e-9, atol=1e-12):
                    bad.append(f"{a.name}: {places[r]} -> {places[c]}: eidomap {e_mat[r, c]!r},"
                               f" from csgraph {want!r}")
    out["agree"] = not bad
    out["checked"] = checked
    out["disagreements"] = bad[:5]
    return out


def run(ctx: Context, n: int) -> None:
    mf = ctx.map_file(n)
    ctx.forget()  # the child loads the map itself; free the parent's copy meanwhile
    t0 = time.perf_counter()
    if ctx.cfg.mode == "smoke":  # (its 100 x 300 Eidos measured here: one start-up fewer; memory not judged)
        out = {**measure(str(mf.path), ctx.cfg.mode, str(ctx.cfg.seed)), "peak_mib": None}
    else:
        out = probe(["call", "benchmarks.batch:child", mf.path, ctx.cfg.mode, ctx.cfg.seed]).check(
            f"batch child at {size_label(n)}").info
    case = f"{out['places']:,} Eidos x {out['species']} species"
    if "error" in out:
        ctx.report.add(Row("analyst batch", n, case, None, "scipy csgraph, all-pairs (same 10 weightings)",
                           out["peer_seconds"], 1.5, "≤ 1.5", None, out["error"], peak_mib=out["peak_mib"],
                           runs=0, failed="MemoryError"))
        return
    detail = (f"finite pattern = csgraph's; {out['checked']} sampled pairs recomputed from csgraph's costs"
              if out["agree"] else "; ".join(out["disagreements"]))
    ctx.report.add(Row("analyst batch", n, case, out["seconds"], "scipy csgraph, all-pairs (same 10 weightings)",
                       out["peer_seconds"], 1.5, "≤ 1.5", out["agree"], detail, peak_mib=out["peak_mib"],
                       runs=len(out["runs"]), extra={"peer_runs": out["peer_runs"],
                                                     "child_seconds": time.perf_counter() - t0}))
