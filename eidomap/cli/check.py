"""Commands for designers checking a map: validate, fix, import-tiled."""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

from eidomap.base.errors import EidomapError, RequestError
from eidomap.base.names import plural, shown
from eidomap.cli._common import (
    command,
    emit,
    explained,
    field_names,
    flags,
    html_args,
    map_args,
    one_line,
    read_options,
    write_html,
    wrote,
)
from eidomap.validate.formats import where as _at


def _check_args(p, *, near_help: str, inlet_help: str):
    """The map and distance options of validate and fix; returns the group of their output options (``--json``)."""
    map_args(p)
    p.add_argument("--near-miss", type=float, metavar="D", help=near_help)
    p.add_argument("--inlet", type=float, metavar="W", help=inlet_help)
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    return output


def _summary(path, report) -> str:
    if not report.problems:
        return f"{shown(path)}: no problems"
    return f"{shown(path)}: {plural(len(report.errors), 'error')}, {plural(len(report.warnings), 'warning')}"


def _line(p) -> str:
    return f"{p.severity}: {p.code}: {one_line(p.message)}{_at(p)}"


#: More warnings of one code than this are told in one line (``--json`` lists them all).
_GROUPED = 5
#: How a number of warnings of each code is called.
_MANY = {"near-miss": "near-misses", "inlet": "inlets", "corner-contact": "corner contacts",
         "isolated": "isolated Eidos", "pousa-junction": "Pousas where three or more Eidos meet",
         "road-outside": "roads leaving the board", "unreachable": "species that cannot reach every Eido"}


def _lines(problems, report) -> list[str]:
    """One line per problem (of ``report``), but many warnings of one code in one line (with a hint when it fits).

    Problems that follow from another (``caused_by``) are told in their cause's line.
    """
    shown = [p for p in problems if p.caused_by is None]
    many = Counter(p.code for p in shown if p.severity == "warning")
    out, told = [], set()
    for p in shown:
        if p.severity != "warning" or many[p.code] <= _GROUPED:
            out.append(_line(p))
        elif p.code not in told:
            told.add(p.code)
            hint = " (the board is a square grid?)" if p.code == "corner-contact" and report.board.square_grid else ""
            out.append(f"warning: {p.code}: {many[p.code]} {_MANY.get(p.code, p.code)}{hint}; the first:"
                       f" {one_line(p.message)}{_at(p)} -- --json lists them all, --ignore {p.code} hides them")
    return out


def _codes(text: str | None) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()] if text else []


# -- validate ------------------------------------------------------------------
#: What validate prints: lines for people, JSON for scripts, SARIF 2.1.0 and GitHub workflow annotations for CI.
FORMATS = ("text", "json", "sarif", "github")


@command("validate", "report every problem of a map (overlaps, gaps, near-misses, Pousas off their road...)"
                     " with a code, a severity and a location; exit 1 when there are errors",
         example="eidomap validate my-map.geojson --species human,boat --ignore corner-contact --png problems.png")
def _validate_args(p):
    output = _check_args(p, near_help="report borders running within D of each other without touching"
                                       " (default: 1e-3 of the map's larger side, at most 1e-2 of a typical Eido)",
                         inlet_help="report slits up to W wide that run in from outside the board between two Eidos"
                                    " (default: 1e-1 of a typical Eido)")
    output.add_argument("--format", choices=FORMATS, help="print the problems as text (the default), JSON (as"
                                                          " --json), SARIF 2.1.0 or GitHub workflow annotations,"
                                                          " each on the map file's line of its feature")
    p.add_argument("more", nargs="*", metavar="MAP", help="more maps, each checked on its own (as pre-commit passes"
                                                          " them); exit 2 when one cannot be read, else 1 when one"
                                                          " has errors")
    p.add_argument("--watch", action="store_true", help="keep checking the map: on every save print the problems"
                                                        " it brought and those it fixed; Ctrl-C stops")
    p.add_argument("--species", metavar="S,...", help="also report the Eidos each of these species cannot reach")
    p.add_argument("--select", metavar="CODE,...", help="report only problems of these codes (docs/validation.md)")
    p.add_argument("--ignore", metavar="CODE,...", help="do not report problems of these codes, e.g. corner-contact"
                                                        " on a board of squares")
    p.add_argument("--png", metavar="OUT", help="also draw the map with every problem marked (PNG or SVG by suffix)")
    html_args(p)


@_validate_args
def cmd_validate(args: argparse.Namespace) -> int:
    from eidomap.validate.checks import checked_codes

    fmt = "json" if args.json else args.format or "text"
    maps = [args.map, *args.more]
    if len(maps) > 1 and (args.png or args.html or args.watch):
        raise RequestError("--png, --html and --watch take one map: give one MAP")
    if args.watch and (fmt != "text" or args.png or args.html):
        raise RequestError("--watch prints text as the map is saved: not with --json, --format, --png or --html")
    args.json = fmt != "text"  # stdout carries an answer for a program: 'wrote OUT' goes to stderr
    for option in ("ignore", "select"):  # an unknown code is told once, not once per map
        checked_codes(_codes(getattr(args, option)), option)
    if args.png:
        from eidomap.plot import picture_format

        picture_format(args.png)  # a bad suffix fails before the map is read
    if args.watch:
        return _watch(args)
    checked, worst = [], 0
    for path in maps:
        try:
            report = _validated(args, path)
        except (EidomapError, OSError) as exc:
            if len(maps) == 1 and fmt in ("text", "json"):
                raise
            said = one_line(explained(exc, args)[1])
            _unreadable(args, fmt, path, said)
            checked.append((path, said))
            worst = 2
            continue
        checked.append((path, report))
        worst = max(worst, 1 if report.errors else 0)
        _tell(fmt, path, report)
        _draw(args, report)
    if fmt == "json":
        emit(report.as_dict() if len(maps) == 1 else _json_of(checked))  # (one map: read, or it raised)
    elif fmt == "sarif":
        from eidomap.validate.formats import sarif_log

        emit(sarif_log(checked))
    return worst


def _validated(args: argparse.Namespace, path, show: bool | None = None):
    from eidomap.validate.checks import validate

    return validate(path, catalog=args.catalog, tolerance=args.tolerance, near_miss=args.near_miss,
                    inlet=args.inlet, species=_codes(args.species), ignore=_codes(args.ignore),
                    select=_codes(args.select), show=show, **field_names(args))


def _tell(fmt: str, path, report) -> None:
    """Print what ``validate`` found on one map, as ``fmt`` asks (JSON and SARIF are printed once, at the end)."""
    if fmt == "text":
        print("\n".join([*_lines(report.problems, report), _summary(path, report)]))
    elif fmt == "github":
        from eidomap.validate.formats import github_annotations

        print("\n".join([*github_annotations(path, report), _summary(path, report)]))


def _draw(args: argparse.Namespace, report) -> None:
    """``--png`` and ``--html``: the map with its problems marked."""
    if args.png:
        from eidomap.plot import save_problems_png

        save_problems_png(report.data, report.problems, args.png)
        wrote(args.png, args)
    if args.html:
        from eidomap.plot.problems import as_map

        write_html(args, as_map(report.data), problems=report.problems)


def _unreadable(args: argparse.Namespace, fmt: str, path, said: str) -> None:
    """Say that one of several maps cannot be read (one line on stderr; an annotation too for GitHub), and go on."""
    if getattr(args, "debug", False):
        traceback.print_exc()
    print(f"eidomap: {said}", file=sys.stderr)
    if fmt == "github":
        from eidomap.validate.formats import file_annotation

        print(file_annotation(path, said))


def _json_of(checked) -> dict:
    """The JSON of several maps: the totals, and each map's report (or why it cannot be read)."""
    reports = [r for _, r in checked if not isinstance(r, str)]
    return {"errors": sum(len(r.errors) for r in reports), "warnings": sum(len(r.warnings) for r in reports),
            "maps": [{"map": str(path)} | ({"error": r} if isinstance(r, str) else r.as_dict())
                     for path, r in checked]}


def _watch(args: argparse.Namespace) -> int:
    """Validate the map, then again on every save, printing the problems each save brought and fixed."""
    from eidomap.validate.watch import changes, saves, stamp

    path = args.map
    since = stamp(path)  # before the first reading: a save during it is seen
    report = _validated(args, path, show=False)
    _say([f"watching {shown(path)}: every save is checked again; Ctrl-C stops",
          *_lines(report.problems, report), _summary(path, report)])
    try:
        for _ in saves(path, since):
            when = time.strftime("%H:%M:%S")
            try:
                now = _validated(args, path, show=False)
            except (EidomapError, OSError) as exc:  # a save the reader refuses: said, and the next one awaited
                _say([f"{when} {one_line(explained(exc, args)[1])}"])
                continue
            new, fixed = changes(report.problems, now.problems)
            what = f"{len(new)} new, {len(fixed)} fixed" if new or fixed else "nothing new, nothing fixed"
            _say([f"{when} {shown(path)} saved: {what}", *(f"new: {line}" for line in _lines(new, now)),
                  *(f"fixed: {line}" for line in _lines(fixed, report)), _summary(path, now)])
            report = now
    except KeyboardInterrupt:  # the way to stop: the saves go on until then
        pass
    print(f"eidomap: stopped watching {shown(path)}", file=sys.stderr)
    return 130


def _say(lines: list[str]) -> None:
    print("\n".join(lines), flush=True)  # at once, also through a pipe


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
def cmd_fix(args: argparse.Namespace) -> int:
    from eidomap.io.tables import check_map_suffix
    from eidomap.validate.fix import fix_map

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
        print(f"changed: {one_line(c.message)}")
    for c in result.left:
        print(f"left: {one_line(flags(c.message, args))}")
    if written:
        saved = f" (the original is in {shown(f'{args.map}.bak')})" if args.in_place else ""
        print(f"wrote {shown(out)}{saved}: {plural(len(result.changes), 'change')}")
        print(f"validated {_summary(out, report)}")
    else:
        print(f"{shown(args.map)}: nothing to change;"
              f" {'' if args.in_place else f'{shown(out)} '}not written")
    for p in report.errors:
        print(f"error left: {p.code}: {one_line(p.message)}{_at(p)}")
    if (written and report.data is not None and "catalog" in report.data.meta
            and Path(out).resolve().parent != Path(args.map).resolve().parent):
        print(f"eidomap: note: {shown(out)} names the catalog {shown(report.data.meta['catalog'], quoted=True)},"
              f" which is beside {shown(args.map)};"
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
def cmd_import_tiled(args: argparse.Namespace) -> int:
    from eidomap.io.tables import check_map_suffix
    from eidomap.io.tiled import import_tiled, import_tiled_grid

    if args.grid:
        grid, warnings = import_tiled_grid(args.source, args.out)
        for w in warnings:
            print(f"eidomap: warning: {one_line(w)}", file=sys.stderr)
        rows, cols = grid.shape
        print(f"wrote {shown(args.out)}: a battle grid of {rows} x {cols} squares (use it with:"
              f" eidomap d20 reach {shown(args.out)} --at R,C --speed 30)")
        return 0

    check_map_suffix(args.out, tables=False)
    doc, warnings = import_tiled(args.source, args.out, catalog=args.catalog)
    for w in warnings:
        print(f"eidomap: warning: {one_line(flags(w, args))}", file=sys.stderr)
    counts = Counter(f["properties"]["kind"] for f in doc["features"])
    parts = ", ".join(plural(counts[k], w) for k, w in (("eido", "Eido"), ("road", "road"), ("pousa", "Pousa"),
                                                         ("fountain", "fountain"), ("stream", "stream")))
    print(f"wrote {shown(args.out)}: {parts}; {plural(len(warnings), 'warning')} (check it with:"
          f" eidomap validate {shown(args.out)})")
    return 0
