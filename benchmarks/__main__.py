"""``python -m benchmarks``: run the suite and write its JSON and Markdown report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import WORKLOADS, run
from .harness import DATA, RESULTS, Config, parse_sizes

DEFAULT_SIZES = {"full": "10k,100k,1M", "quick": "10k", "smoke": "300"}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="10k Eidos, fewer runs: under two minutes")
    mode.add_argument("--smoke", action="store_true",
                      help="300 Eidos, fewest runs, samples and child processes: what the test suite runs (seconds)")
    p.add_argument("--sizes", metavar="N,N", help="map sizes in Eidos, e.g. 10k,100k,1M (default by mode)")
    p.add_argument("--only", metavar="NAME,...", help=f"workloads to run, among {', '.join(WORKLOADS)}")
    p.add_argument("--out", metavar="FILE.json", help="report file (the .md goes beside it); by default a whole"
                   " full run writes benchmarks/results/latest.json; --quick, --smoke, --only and --sizes runs only"
                   " print their report (the committed results change only when asked)")
    p.add_argument("--data", metavar="DIR", default=str(DATA), help="where generated maps are kept")
    p.add_argument("--baseline", metavar="DIR", help="a checkout of issue 15's baseline commit (git worktree add DIR"
                   " 121c072): the cold route query on the largest map is timed against it, alternated, in this run")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    mode = "quick" if args.quick else "smoke" if args.smoke else "full"
    try:
        sizes = parse_sizes(args.sizes or DEFAULT_SIZES[mode])
    except ValueError as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2
    only = tuple(x.strip() for x in (args.only or "").split(",") if x.strip())
    unknown = [x for x in only if x not in WORKLOADS]
    if unknown or not sizes:
        print(f"benchmarks: unknown workload {unknown[0]!r} (known: {', '.join(WORKLOADS)})" if unknown
              else "benchmarks: no sizes given", file=sys.stderr)
        return 2
    # only a whole full run (every workload, the default sizes) replaces the committed latest.*
    whole = mode == "full" and not only and not args.sizes
    out = Path(args.out) if args.out else (RESULTS / "latest.json" if whole else None)
    # a quick run stays under two minutes: a measurement of more than a few seconds is made once after its warm-up
    budget = 20.0 if mode == "full" else 4.0
    baseline = Path(args.baseline) if args.baseline else None
    if baseline is not None and not (baseline / "eidomap" / "__init__.py").is_file():
        print(f"benchmarks: --baseline {baseline}: no eidomap checkout there", file=sys.stderr)
        return 2
    report = run(Config(sizes, mode=mode, only=only, data=Path(args.data), budget=budget, baseline=baseline))
    print(report.markdown())
    if out is not None:
        json_path, md_path = report.write(out)
        print(f"wrote {json_path} and {md_path}", file=sys.stderr)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
