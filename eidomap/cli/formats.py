"""Commands that move maps between formats: convert, import-svg."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eidomap.base.errors import RequestError
from eidomap.base.names import one_line, plural, shown
from eidomap.cli._common import command, fields, flags, load_map, refuse_replacing


def _same_file(a, b) -> bool:
    pa, pb = Path(a), Path(b)
    return pb.exists() and pa.resolve() == pb.resolve()


def _catalog_note(meta: dict, source, out) -> None:
    """Warn when the output names a catalog that lies beside the source but not beside the output."""
    beside_out = Path(out).resolve().parent / str(meta.get("catalog"))
    if "catalog" in meta and Path(source).resolve().parent != beside_out.parent and not beside_out.is_file():
        print(f"eidomap: warning: the map names the catalog {shown(meta['catalog'], quoted=True)}, which is beside"
              f" {shown(source)}: copy it beside {shown(out)}", file=sys.stderr)


# -- convert ---------------------------------------------------------------------
@command("convert", "convert a map between GeoJSON, GeoPackage, Shapefile, FlatGeobuf and GeoParquet (by suffix),"
                    " keeping every id, kind and property",
         example="eidomap convert maps/demo.geojson demo.gpkg")
def _convert_args(p):
    p.add_argument("map", help="the map to read (any of these formats)")
    p.add_argument("out", help="the map to write: .geojson, .gpkg, .shp, .fgb or .parquet (the catalog the map"
                               " names is written beside it)")
    p.add_argument("--catalog", metavar="FILE", help="terrain/species catalog (TOML) laid over the default")
    fields(p)
    p.set_defaults(tolerance=None)


@_convert_args
def cmd_convert(args: argparse.Namespace) -> int:
    from eidomap.base.files import catalog_to_carry, write_atomic
    from eidomap.io.tables import check_map_suffix, write_map

    check_map_suffix(args.out)  # a format it does not write fails before the map is read
    if _same_file(args.map, args.out):
        raise RequestError(f"{shown(args.out)}: is the map being converted; choose another output file")
    m = load_map(args)
    # the catalog the map names goes beside the output, so that the map written reads as this one
    carry = None if args.catalog else catalog_to_carry(args.map, m.meta, args.out)
    if carry:
        refuse_replacing(args, (str(carry[0]),))
    notes = write_map(m.data, args.out)
    for n in notes:
        print(f"eidomap: note: {one_line(n)}", file=sys.stderr)
    if carry:
        write_atomic(*carry)
    else:
        _catalog_note(m.meta, args.map, args.out)
    md = m.record
    beside = f"; and {shown(carry[0])}, the catalog it names" if carry else ""
    print(f"wrote {shown(args.out)}: {plural(len(md.eidos), 'Eido')}, {plural(len(md.roads), 'road')},"
          f" {plural(len(md.pousas), 'Pousa')}, {plural(len(md.fountains), 'fountain')},"
          f" {plural(len(md.streams), 'stream')}{beside}")
    return 0


# -- import-svg --------------------------------------------------------------------
@command("import-svg", "turn an SVG board (Inkscape, Illustrator) into an eidomap GeoJSON map",
         example="eidomap import-svg board.svg -o board.geojson --legend legend.toml")
def _svg_args(p):
    p.add_argument("source", metavar="BOARD.svg", help="the drawing")
    p.add_argument("-o", "--out", metavar="OUT", required=True, help="the GeoJSON map to write")
    p.add_argument("--legend", metavar="FILE", help="TOML: [fill] colour -> terrain, [layers] layer name -> terrain")
    p.add_argument("--catalog", metavar="FILE", help="catalog (TOML) whose terrains the shapes may name")


@_svg_args
def cmd_import_svg(args: argparse.Namespace) -> int:
    from collections import Counter

    from eidomap.io.svg import import_svg
    from eidomap.io.tables import check_map_suffix
    from eidomap.validate.fix import snap_borders

    check_map_suffix(args.out, tables=False)
    doc, warnings = import_svg(args.source, args.out, legend=args.legend, catalog=args.catalog, snap=snap_borders)
    for w in warnings:
        print(f"eidomap: {'note' if w.startswith('snapped') else 'warning'}: {one_line(flags(w, args))}",
              file=sys.stderr)
    kinds = Counter(f["properties"]["kind"] for f in doc["features"])
    found = ", ".join(plural(n, {"eido": "Eido", "pousa": "Pousa"}.get(k, k)) for k, n in kinds.items()) or "nothing"
    out = shown(args.out)
    print(f"wrote {out}: {found}; check what the drawing still needs with: eidomap validate {out}")
    return 0
