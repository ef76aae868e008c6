"""eidomap's benchmark suite: every workload of issue 6, side by side with its peers.

``python -m benchmarks [--quick | --smoke] [--sizes 10k,100k,1M] [--only NAME,...]
[--out benchmarks/results/NAME.json]`` generates the maps it needs (fixed
seeds, into ``benchmarks/data/``, reused when present), runs each workload on
the same data for eidomap and its peers in the same process (or in child
processes where the workload is a process: end to end, memory, start-up),
checks that they agree, and writes a JSON file and a Markdown table beside it.
See ``benchmarks/README.md``.

>>> sorted(WORKLOADS)[:3]
['batch', 'dice', 'dijkstra']
"""

from __future__ import annotations

import traceback
from collections.abc import Callable

from . import (
    batch,
    batch_scale,
    d20,
    dice,
    endtoend,
    forbid,
    formats,
    generate,
    memory,
    planner,
    query,
    search,
    stages,
    startup,
    topology,
    validate,
)
from .harness import Config, Context, Report

__all__ = ["WORKLOADS", "run"]

#: name -> (sizes it runs at, the function that runs it at one size), in running order.
WORKLOADS: dict[str, tuple[Callable, Callable]] = {
    "topology": (topology.sizes, topology.run),
    "dijkstra": (search.sizes, search.run_dijkstra),
    "turns": (search.sizes, search.run_turns),
    "dice": (dice.sizes, dice.run),
    "batch": (batch.sizes, batch.run),
    "batch_scale": (batch_scale.sizes, batch_scale.run),
    "endtoend": (endtoend.sizes, endtoend.run),
    "memory": (memory.sizes, memory.run),
    "query": (query.sizes, query.run),
    "stages": (stages.sizes, stages.run),
    "startup": (startup.sizes, startup.run),
    "d20": (d20.sizes, d20.run),
    "planner": (planner.sizes, planner.run),
    "forbid": (forbid.sizes, forbid.run),
    "formats": (formats.sizes, formats.run),
    "generate": (generate.sizes, generate.run),
    "validate": (validate.sizes, validate.run),
}


def run(cfg: Config) -> Report:
    """Run the selected workloads, size by size (smallest first); a workload that crashes is reported."""
    import sys
    import time

    report = Report(cfg)
    ctx = Context(cfg, report)
    names = [w for w in WORKLOADS if not cfg.only or w in cfg.only]
    plan = [(n, w) for n in sorted(cfg.sizes) for w in names if n in WORKLOADS[w][0](cfg)]
    plan += [(None, w) for w in names if None in WORKLOADS[w][0](cfg)]
    for n, name in plan:
        label = f"{name} {'' if n is None else n}".strip()
        print(f"[{label}]", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            WORKLOADS[name][1](ctx, n)
        except Exception as exc:  # one workload failing must not lose the others' results
            report.errors.append(f"{name} at {n}: {type(exc).__name__}: {exc}")
            traceback.print_exc()
        print(f"[{label}: {time.perf_counter() - t0:.1f} s]", file=sys.stderr, flush=True)
    ctx.forget()
    return report
