"""Commands for designers checking a map: validate, fix, import-tiled."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from . import command, emit, field_names, html_args, map_args, read_options, write_html, wrote


def _check_args(p, *, near_help: str, inlet_help: str) -> None:
    map_args(p)
    p.add_argument("--near-miss", type=float, metavar="D", help=near_help)
    p.add_argument("--inlet", type=float, metavar="W", help=inlet_help)
    p.add_argument("--json", action="store_true", help="print JSON")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _summary(path, report) -> str:
    if not report.problems:
        return f"{path}: no problems"
    return f"{path}: {_count(len(report.errors), 'error')}, {_count(len(report.warnings), 'warning')}"


def _line(p) -> str:
    return f"{p.severity}: {p.code}: {p.message}{_at(p)}"


def _at(p) -> str:
    return "" if p.location is None else f" (at {p.location[0]:.6g}, {p.location[1]:.6g})"


#: More warnings of one code than this are told in one line (``--json`` lists them all).
_GROUPED = 5
#: How a number of warnings of each code is called.
_MANY = {"near-miss": "near-misses", "inlet": "inlets", "corner-contact": "corner contacts",
         "isolated": "isolated Eidos", "pousa-junction": "Pousas where three or more Eidos meet",
         "road-outside": "roads leaving the board", "unreachable": "species that cannot reach every Eido"}


def _lines(report) -> list[str]:
    """One line per problem, but many warnings of one code in one line (with a hint when it fits).

    Problems that follow from another (``caused_by``) are told in their cause's line.
    """
    shown = [p for p in report.problems if p.caused_by is None]
    many = Counter(p.code for p in shown if p.severity == "warning")
    out, told = [], set()
    for p in shown:
        if p.severity != "warning" or many[p.code] <= _GROUPED:
            out.append(_line(p))
        elif p.code not in told:
            told.add(p.code)
            hint = " (the board is a square grid?)" if p.code == "corner-contact" and report.board.square_grid else ""
            out.append(f"warning: {p.code}: {many[p.code]} {_MANY.get(p.code, p.code)}{hint}; the first: {p.message}"
                       f"{_at(p)} -- --json lists them all, --ignore {p.code} hides them")
    return out


def _codes(text: str | None) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()] if text else []


# -- validate ------------------------------------------------------------------
@command("validate", "report every problem of a map (overlaps, gaps, near-misses, Pousas off their road...)"
                     " with a code, a severity and a location; exit 1 when there are errors",
         example="eidomap validate my-map.geojson --species human,boat --ignore corner-contact --png problems.png")
def _validate_args(p):
    _check_args(p, near_help="report borders running within D of each other without touching"
                              " (default: 1e-3 of the map's larger side, at most 1e-2 of a typical Eido)",
                inlet_help="report slits up to W wide that run in from outside the board between two Eidos"
                           " (default: 1e-1 of a typical Eido)")
    p.add_argument("--species", metavar="S,...", help="also report the Eidos each of these species cannot reach")
    p.add_argument("--select", metavar="CODE,...", help="report only problems of these codes (docs/validation.md)")
    p.add_argument("--ignore", metavar="CODE,...", help="do not report problems of these codes, e.g. corner-contact"
                                                        " on a board of squares")
    p.add_argument("--png", metavar="OUT", help="also draw the map with every problem marked (PNG or SVG by suffix)")
    html_args(p)


@_validate_args
def cmd_validate(args) -> int:
    from ..validate import validate

    species = _codes(args.species)
    if args.png:
        from ..plot import picture_format

        picture_format(args.png)  # a bad suffix fails before the map is read
    report = validate(args.map, catalog=args.catalog, tolerance=args.tolerance, near_miss=args.near_miss,
                      inlet=args.inlet, species=species, ignore=_codes(args.ignore), select=_codes(args.select),
                      show=None, **field_names(args))
    if args.json:
        emit(report.as_dict())
    else:
        print("\n".join([*_lines(report), _summary(args.map, report)]))
    if args.png:
        from ..plot import plot_problems, save_figure

        save_figure(plot_problems(report.data, report.problems), args.png)
        wrote(args.png, args)
    if args.html:
        from ..plot.problems import _as_map

        write_html(args, _as_map(report.data), problems=report.problems)
    return 1 if report.errors else 0


# -- fix -------------------------------------------------------------------------
@command("fix", "snap near-miss borders together and close small gaps; write the result (never over the input)"
                " and validate it", example="eidomap fix my-map.geojson -o fixed.geojson")
def _fix_args(p):
    _check_args(p, near_help="snap borders running within D of each other (default as for validate);"
                              " no vertex moves farther than D",
                inlet_help="close inlets up to W wide by snapping one side onto the other (default as for"
                           " validate)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("-o", "--out", metavar="OUT", help="write the fixed map here")
    where.add_argument("--in-place", action="store_true", help="replace MAP, keeping the original as MAP.bak")
    p.add_argument("--max-gap-area", type=float, metavar="A", help="close gaps no larger than this area"
                                                       " (default: (1e-2 of the larger side)², at most a quarter"
                                                       " of the median Eido area)")


@_fix_args
def cmd_fix(args) -> int:
    from ..fix import fix_map
    from ..io.tables import check_map_suffix

    if args.out:
        check_map_suffix(args.out, tables=False)
    result, report = fix_map(args.map, args.out, in_place=args.in_place, catalog=args.catalog,
                             tolerance=args.tolerance, near_miss=args.near_miss, inlet=args.inlet,
                             max_gap=args.max_gap_area, show=None, **read_options())
    out = args.map if args.in_place else args.out
    written = len(result.changed) > 0
    if args.json:
        emit(result.as_dict() | {"output": str(out) if written else None, "validation": report.as_dict()})
        return 1 if report.errors else 0
    for c in result.changes:
        print(f"changed: {c.message}")
    for c in result.left:
        print(f"left: {c.message}")
    if written:
        saved = f" (the original is in {args.map}.bak)" if args.in_place else ""
        print(f"wrote {out}{saved}: {_count(len(result.changes), 'change')}")
        print(f"validated {_summary(out, report)}")
    else:
        print(f"{args.map}: nothing to change; {'' if args.in_place else f'{out} '}not written")
    for p in report.errors:
        print(f"error left: {p.code}: {p.message}{_at(p)}")
    if written and "catalog" in report.data.meta and Path(out).resolve().parent != Path(args.map).resolve().parent:
        print(f"eidomap: note: {out} names the catalog {report.data.meta['catalog']!r}, which is beside {args.map};"
              " copy it beside the output", file=sys.stderr)
    return 1 if report.errors else 0  # errors remain, whether or not something was written


# -- import-tiled --------------------------------------------------------------
@command("import-tiled", "turn a Tiled map (.tmj/.json or .tmx) into an eidomap GeoJSON map (or a d20 grid)",
         example="eidomap import-tiled board.tmx -o board.geojson")
def _import_args(p):
    p.add_argument("source", metavar="MAP", help="a Tiled map: JSON (.tmj, .json) or TMX (.tmx)")
    p.add_argument("-o", "--out", metavar="OUT", required=True, help="the GeoJSON map to write")
    p.add_argument("--catalog", metavar="FILE", help="catalog (TOML) whose terrains the objects may name")
    p.add_argument("--grid", action="store_true",
                   help="write a d20 battle grid (text) from the tile layers whose tiles carry a 'd20' property")


@_import_args
def cmd_import_tiled(args) -> int:
    from ..io.tables import check_map_suffix
    from ..io.tiled import import_tiled, import_tiled_grid

    if args.grid:
        grid, warnings = import_tiled_grid(args.source, args.out)
        for w in warnings:
            print(f"eidomap: warning: {w}", file=sys.stderr)
        rows, cols = grid.shape
        print(f"wrote {args.out}: a battle grid of {rows} x {cols} squares (use it with: eidomap d20 reach"
              f" {args.out} --at R,C --speed 30)")
        return 0

    check_map_suffix(args.out, tables=False)
    doc, warnings = import_tiled(args.source, args.out, catalog=args.catalog)
    for w in warnings:
        print(f"eidomap: warning: {w}", file=sys.stderr)
    counts = Counter(f["properties"]["kind"] for f in doc["features"])
    parts = ", ".join(_count(counts[k], w) for k, w in (("eido", "Eido"), ("road", "road"), ("pousa", "Pousa"),
                                                         ("fountain", "fountain"), ("stream", "stream")))
    print(f"wrote {args.out}: {parts}; {_count(len(warnings), 'warning')} (check it with: eidomap validate"
          f" {args.out})")
    return 0
