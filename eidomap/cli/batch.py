"""Commands for analysts: ``batch`` (every answer, at scale, into Parquet) and ``report`` (an HTML page)."""

from __future__ import annotations

import argparse
import sys

from eidomap.base.modes import Executor, Partial
from eidomap.base.names import one_line, plural, shown
from eidomap.cli._common import command, load_map, map_args


def _names(text: str) -> tuple[str, ...] | str:
    """``"all"`` or the comma-separated names."""
    return "all" if text.strip() == "all" else tuple(x.strip() for x in text.split(",") if x.strip())


def _rule_args(p) -> None:
    p.add_argument("--turns", type=int, default=3, metavar="K", help="P(arrived within k turns) for k = 1..K"
                   " (default 3)")
    p.add_argument("--partial", choices=Partial.words(), default=Partial.CARRY.value,
                   help="carry the debt (Eido rules, default) or forbid partial steps (exact policy: small maps)")
    p.add_argument("--dice", metavar="NdM+K", help="the roll each turn (default: the map's rules'; Eido: 1d6)")
    p.add_argument("--catalog", metavar="FILE", help="terrain/species catalog (TOML) laid over the default")
    p.add_argument("--tolerance", type=float, metavar="T", help="drawing tolerance for shared borders")


@command("batch", "for every species, start and target: least PtMv, expected turns, P(arrived within k turns),"
                  " on a process pool or a Dask cluster, into a resumable Parquet dataset",
         example="eidomap batch maps/demo.geojson --species all --from all --out result")
def _batch_args(p):
    p.add_argument("maps", nargs="+", metavar="MAP", help="GeoJSON maps")
    p.add_argument("--species", required=True, metavar="S,...|all",
                   help="species of the catalog, 'all', or actors: species@mount, species+companion")
    p.add_argument("--from", dest="starts", required=True, metavar="IDS|all", help="start Eidos (or Pousas), or all")
    p.add_argument("--to", dest="targets", default="all", metavar="IDS|all", help="target Eidos (default all)")
    _rule_args(p)
    p.add_argument("--out", required=True, metavar="RESULT", help="the result folder (created; resumed if it holds"
                   " this batch)")
    p.add_argument("--format", choices=("parquet", "csv"), default="parquet", help="one file per chunk (default"
                   " parquet)")
    p.add_argument("--executor", choices=Executor.words(), default=Executor.LOCAL.value,
                   help='a process pool here (default), Dask (pip install "eidomap[dask]"), or this process, one'
                        ' chunk after another (a small batch)')
    p.add_argument("--scheduler", metavar="ADDRESS", help="with --executor dask: join this cluster (default: start"
                   " a LocalCluster)")
    p.add_argument("--workers", type=int, metavar="N", help="processes (local, or the LocalCluster); default: cores")
    p.add_argument("--chunk", type=int, metavar="N", help="starts per chunk (targets under forbid or with 8 times"
                   " fewer targets than starts); default from the map's size")
    p.add_argument("--cache", action="store_true", help="keep each map's compiled graph in a cache file beside it")
    p.add_argument("--yes", action="store_true", help=f"go on without asking when the result would be larger than"
                   f" {_size(CONFIRM_BYTES)} (asked on a terminal, refused otherwise)")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no estimate (there is no bar when stderr is"
                   " not a terminal)")


#: A result estimated larger than this (bytes) is written only with --yes or a "y" at the terminal.
CONFIRM_BYTES = 10**9


def _size(n: float) -> str:
    """``1.5 GB``, ``67 GB``, ``840 kB``."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.2g} {unit}" if n < 10 * scale else f"{n / scale:,.0f} {unit}"
    return f"{n:.0f} bytes"


def _duration(seconds: float) -> str:
    """``40 s``, ``12 min``, ``8.1 hours``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} hours"


def _confirm(args: argparse.Namespace):
    """What ``batch`` does with the estimate after the first chunk: say it, and above :data:`CONFIRM_BYTES` ask
    (on a terminal) or refuse (elsewhere) unless --yes."""
    from eidomap.base.errors import RequestError

    def confirm(e) -> bool:
        if not e.left:  # the first chunk was the last
            return True
        if not args.quiet:
            print(f"eidomap: {e.rows:,} rows in {plural(e.chunks, 'chunk')}; the first chunk ({e.first_rows:,} rows)"
                  f" took {e.first_seconds:.1f} s and {_size(e.first_bytes)}: about {_size(e.bytes)} in all, and"
                  f" {_duration(e.seconds)} more on {plural(e.workers, 'worker')}", file=sys.stderr, flush=True)
        if e.bytes <= CONFIRM_BYTES or args.yes:
            return True
        if not sys.stdin.isatty():
            raise RequestError(f"{shown(args.out)}: the result would be about {_size(e.bytes)}"
                               f" ({e.rows:,} rows), more than the {_size(CONFIRM_BYTES)} written without --yes: run"
                               " it again with --yes, or ask for fewer rows (--to a few targets, fewer --from or"
                               " --species)")
        print(f"write about {_size(e.bytes)} into {shown(args.out)}? [y/N] ", end="", file=sys.stderr,
              flush=True)
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    return confirm


@_batch_args
def cmd_batch(args: argparse.Namespace) -> int:
    from eidomap.answers.batch import BatchError, Declined, Query, run_batch
    from eidomap.base.errors import RequestError

    if args.scheduler and args.executor != "dask":
        raise RequestError("--scheduler goes with --executor dask")
    query = Query(tuple(args.maps), _names(args.species), _names(args.starts), _names(args.targets), args.turns,
                  args.partial, args.dice, args.chunk, args.catalog, args.tolerance, args.format)
    try:
        s = run_batch(query, args.out, executor=args.executor, workers=args.workers, scheduler=args.scheduler,
                      progress=False if args.quiet else None, cache=args.cache, confirm=_confirm(args))
    except (BatchError, Declined) as exc:
        print(f"eidomap: {one_line(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("eidomap: interrupted; the chunks finished are kept: run the same command again to resume",
              file=sys.stderr)
        return 130
    print(_wrote(s))
    return 0


def _wrote(s) -> str:
    """What a batch run wrote, in one sentence: the result, then what this run computed (a resumed run: the chunks
    it found done apart).

    >>> from eidomap.answers.batch import Summary
    >>> print(_wrote(Summary("result", 9, 0, 9, 51_984, 51_984, 12.8)))
    wrote result: 51,984 rows in 9 chunks, computed in 12.8 s (4,061 rows/s)
    >>> print(_wrote(Summary("result", 9, 5, 4, 51_984, 23_104, 5.1)))
    wrote result: 51,984 rows in 9 chunks; 5 done before, the other 4 (23,104 rows) computed in 5.1 s (4,530 rows/s)
    >>> print(_wrote(Summary("result", 9, 9, 0, 51_984, 0, 0.2)))
    wrote result: 51,984 rows in 9 chunks, all done before
    """
    head = f"wrote {shown(s.out)}: {_rows(s.rows)} in {plural(s.chunks, 'chunk')}"
    if not s.computed:
        return f"{head}, all done before"
    took = f"computed in {s.seconds:.1f} s ({s.rows_per_second:,.0f} rows/s)"
    if not s.done_before:
        return f"{head}, {took}"
    return f"{head}; {s.done_before} done before, the other {s.computed} ({_rows(s.rows_now)}) {took}"


def _rows(n: int) -> str:
    return f"{n:,} row{'' if n == 1 else 's'}"


@command("report", "a balance report in one HTML file: turns between named places, what each species cannot"
                   " reach, bottlenecks, the species that differ most",
         example="eidomap report maps/demo.geojson --species human,horse,cow,boat -o report.html")
def _report_args(p):
    map_args(p)
    p.add_argument("--species", default="all", metavar="S,...|all", help="species or actors (default all; with"
                   " --batch, those of the batch)")
    p.add_argument("--batch", metavar="RESULT", help="take the numbers from this batch result")
    p.add_argument("--turns", type=int, default=3, metavar="K", help="the horizon of P(within K turns) (default 3;"
                   " with --batch, the batch's)")
    p.add_argument("--partial", choices=Partial.words(), default=Partial.CARRY.value, help="the partial-step rule")
    p.add_argument("--dice", metavar="NdM+K", help="the roll each turn (default: the map's rules'; Eido: 1d6; with"
                   " --batch, the batch's)")
    p.add_argument("-o", "--out", required=True, metavar="REPORT.html", help="the HTML file to write")


@_report_args
def cmd_report(args: argparse.Namespace) -> int:
    from eidomap.answers.analysis import load_batch
    from eidomap.answers.batch import actor_from_spec
    from eidomap.pages.report import write_report

    batch = load_batch(args.batch) if args.batch else None
    m = load_map(args, document=False)  # (and refuses -o naming the catalog the map names)
    specs = _names(args.species)
    partial, dice = args.partial, args.dice
    if batch is not None:
        q = batch.record["query"]
        partial, dice = q["partial"], q["dice"]
        if specs == "all" and q["actors"] != "all":
            specs = tuple(q["actors"])
    if specs == "all":
        specs = tuple(m.catalog.species)
    actors = [actor_from_spec(m, s, dice) for s in specs]
    write_report(m, args.out, actors, batch=batch, turns=args.turns, partial=partial)
    print(f"wrote {shown(args.out)}: {shown(m.name)}, {len(actors)} species")
    return 0
