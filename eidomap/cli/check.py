"""Commands for designers checking a map: validate, fix, import-tiled."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from . import command, emit, field_names, html_args, map_args, write_html


def _check_args(p, *, near_help: str) -> None:
    map_args(p)
    p.add_argument("--near-miss", type=float, metavar="D", help=near_help)
    p.add_argument("--json", action="store_true", help="print JSON")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _summary(path, report) -> str:
    if not report.problems:
        return f"{path}: no problems"
    return f"{path}: {_count(len(report.errors), 'error')}, {_count(len(report.warnings), 'warning')}"


def _line(p) -> str:
    at = "" if p.location is None else f" (at {p.location[0]:.6g}, {p.location[1]:.6g})"
    return f"{p.severity}: {p.code}: {p.message}{at}"


# -- validate ------------------------------------------------------------------
@command("validate", "report every problem of a map (overlaps, gaps, near-misses, Pousas off their road...)"
                     " with a code, a severity and a location; exit 1 when there are errors")
def _validate_args(p):
    _check_args(p, near_help="report borders running within D of each other without touching"
                              " (default: 1e-3 of the map's larger side, at most 1e-2 of a typical Eido)")
    p.add_argument("--species", metavar="S,...", help="also report the Eidos each of these species cannot reach")
    p.add_argument("--png", metavar="OUT", help="also draw the map with every problem marked (PNG or SVG by suffix)")
    html_args(p)


@_validate_args
def cmd_validate(args) -> int:
    from ..validate import validate

    species = [s.strip() for s in args.species.split(",") if s.strip()] if args.species else []
    if args.png:
        from ..plot import picture_format

        picture_format(args.png)  # a bad suffix fails before the map is read
    report = validate(args.map, catalog=args.catalog, tolerance=args.tolerance, near_miss=args.near_miss,
                      species=species, **field_names(args))
    if args.json:
        emit(report.as_dict())
    else:
        for p in report.problems:
            print(_line(p))
        print(_summary(args.map, report))
    if args.png:
        from ..plot import plot_problems, save_figure

        save_figure(plot_problems(report.data, report.problems), args.png)
    if args.html:
        from ..plot import _as_map

        write_html(args, _as_map(report.data), problems=report.problems)
    return 1 if report.errors else 0


# -- fix -------------------------------------------------------------------------
@command("fix", "snap near-miss borders together and close small gaps; write the result (never over the input)"
                " and validate it")
def _fix_args(p):
    _check_args(p, near_help="snap borders running within D of each other (default as for validate);"
                              " no vertex moves farther than D")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("-o", "--out", metavar="OUT", help="write the fixed map here")
    where.add_argument("--in-place", action="store_true", help="replace MAP, keeping the original as MAP.bak")
    p.add_argument("--max-gap-area", type=float, metavar="A", help="close gaps no larger than this area"
                                                       " (default: (1e-2 of the larger side)², at most a quarter"
                                                       " of the median Eido area)")


@_fix_args
def cmd_fix(args) -> int:
    from ..fix import fix_map

    result, report = fix_map(args.map, args.out, in_place=args.in_place, catalog=args.catalog,
                             tolerance=args.tolerance, near_miss=args.near_miss, max_gap=args.max_gap_area)
    out = args.map if args.in_place else args.out
    if args.json:
        body = result.as_dict()
        body["output"] = None if report is None else str(out)
        body["validation"] = None if report is None else report.as_dict()
        emit(body)
    else:
        for c in result.changes:
            print(f"changed: {c.message}")
        for c in result.left:
            print(f"left: {c.message}")
        if report is None:
            print(f"{args.map}: nothing to change; not written")
        else:
            saved = f" (the original is in {args.map}.bak)" if args.in_place else ""
            print(f"wrote {out}{saved}: {_count(len(result.changes), 'change')}")
            print(f"validated {_summary(out, report)}")
    if report is not None and "catalog" in report.data.meta and Path(out).resolve().parent != \
            Path(args.map).resolve().parent:
        print(f"eidomap: note: {out} names the catalog {report.data.meta['catalog']!r}, which is beside {args.map};"
              " copy it beside the output", file=sys.stderr)
    return 1 if report is not None and report.errors else 0


# -- import-tiled --------------------------------------------------------------
@command("import-tiled", "turn a Tiled map (.tmj/.json or .tmx) into an eidomap GeoJSON map")
def _import_args(p):
    p.add_argument("source", metavar="MAP", help="a Tiled map: JSON (.tmj, .json) or TMX (.tmx)")
    p.add_argument("-o", "--out", metavar="OUT", required=True, help="the GeoJSON map to write")
    p.add_argument("--catalog", metavar="FILE", help="catalog (TOML) whose terrains the objects may name")


@_import_args
def cmd_import_tiled(args) -> int:
    from ..io.tiled import import_tiled

    doc, warnings = import_tiled(args.source, args.out, catalog=args.catalog)
    for w in warnings:
        print(f"eidomap: warning: {w}", file=sys.stderr)
    counts = Counter(f["properties"]["kind"] for f in doc["features"])
    parts = ", ".join(_count(counts[k], w) for k, w in (("eido", "Eido"), ("road", "road"), ("pousa", "Pousa"),
                                                         ("fountain", "fountain"), ("stream", "stream")))
    print(f"wrote {args.out}: {parts}; {_count(len(warnings), 'warning')} (check it with: eidomap validate"
          f" {args.out})")
    return 0
