"""Commands about the map itself: info, neighbors, generate."""

from __future__ import annotations

import argparse

from eidomap.base.names import plural, shown
from eidomap.cli._common import command, emit, load_map, map_args


# -- info, neighbors -----------------------------------------------------------
@command("info", "counts of Eidos by terrain, adjacent pairs, roads, Pousas, fountains, streams, components",
         example="eidomap info maps/demo.geojson")
def _info_args(p):
    map_args(p)
    p.add_argument("--json", action="store_true", help="print JSON")


@_info_args
def cmd_info(args: argparse.Namespace) -> int:
    info = load_map(args).info()
    if args.json:
        emit(info)
        return 0
    print(f"{shown(info['name'])} ({info['rules']} rules)")
    regions = f" in {plural(info['regions'], 'region')}" if info["regions"] else ""
    print(f"  {plural(info['eidos'], 'Eido')}{regions}")
    terrains = {shown(t): c for t, c in info["terrains"].items()}
    width = max(map(len, terrains), default=0) + 2
    for t, c in terrains.items():
        print(f"    {t:<{width}} {c}")
    for key, word in (("adjacent_pairs", "adjacent pair"), ("roads", "road"), ("pousas", "Pousa"),
                      ("fountains", "fountain"), ("streams", "stream"), ("components", "connected part")):
        print(f"  {plural(info[key], word)}")
    print(f"  movement graph: {plural(info['nodes'], 'node')}, {plural(info['edges'], 'edge')}")
    return 0


@command("neighbors", "the Eidos adjacent to one Eido, or every adjacent pair",
         example="eidomap neighbors maps/demo.geojson portela")
def _neighbors_args(p):
    map_args(p)
    p.add_argument("id", nargs="?", help="an Eido id (default: every pair)")
    p.add_argument("--json", action="store_true", help="print JSON")


@_neighbors_args
def cmd_neighbors(args: argparse.Namespace) -> int:
    m = load_map(args)
    if args.id is not None:
        out = m.neighbors(args.id)
        if args.json:
            emit(out)
        else:
            print("\n".join(shown(i) for i in out))
        return 0
    pairs = m.pairs()
    if args.json:
        emit([list(p) for p in pairs])
    else:
        said = {i: shown(i) for i in m.eido_ids}  # (each id once: a million-Eido map has 3 million pairs)
        print("\n".join(f"{said[a]}\t{said[b]}" for a, b in pairs))
    return 0


# -- generate ------------------------------------------------------------------
@command("generate", "write a reproducible synthetic map (Voronoi Eidos, roads, fountains)",
         example="eidomap generate --eidos 100000 --seed 1 big.geojson")
def _generate_args(p):
    p.add_argument("out", help="output GeoJSON file")
    p.add_argument("--eidos", type=int, required=True, metavar="N", help="number of Eidos (3 to 1,000,000)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")


@_generate_args
def cmd_generate(args: argparse.Namespace) -> int:
    from eidomap.io.tables import check_map_suffix
    from eidomap.model.generate import write_generated

    check_map_suffix(args.out, tables=False)
    write_generated(args.out, args.eidos, args.seed)
    print(f"wrote {shown(args.out)}: {args.eidos} Eidos (seed {args.seed})")
    return 0
