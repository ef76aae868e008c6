"""The ``eidomap`` command line.

Exit codes: 0 success; 1 a clean negative answer (goal unreachable, map has
errors); 2 bad input (one line on stderr naming the file, the feature and what
is wrong; never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from ._version import __version__
from .errors import EidomapError

__all__ = ["main"]

COMMANDS: dict[str, tuple[Callable, Callable, str]] = {}


def command(name: str, help_: str):
    """Register ``fn(args) -> int`` as a subcommand whose arguments ``setup`` adds."""

    def wrap(setup):
        def register(fn):
            COMMANDS[name] = (setup, fn, help_)
            return fn

        return register

    return wrap


def emit(obj) -> None:
    """Print a JSON answer."""
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def _map_args(p: argparse.ArgumentParser, catalog: bool = True) -> None:
    p.add_argument("map", help="a GeoJSON map (see docs/map-format.md)")
    if catalog:
        p.add_argument("--catalog", metavar="FILE", help="terrain/species catalog (TOML) laid over the default")
    p.add_argument("--tolerance", type=float, metavar="T",
                   help="drawing tolerance for shared borders (default: 1e-9 of the map's larger side)")


def _load(args):
    from .model import load

    return load(args.map, catalog=getattr(args, "catalog", None), tolerance=args.tolerance,
                cache=getattr(args, "cache", False))


# -- info, neighbors -----------------------------------------------------------
@command("info", "counts of Eidos by terrain, adjacent pairs, roads, Pousas, fountains, streams, components")
def _info_args(p):
    _map_args(p)
    p.add_argument("--json", action="store_true", help="print JSON")


@_info_args
def cmd_info(args) -> int:
    info = _load(args).info()
    if args.json:
        emit(info)
        return 0
    print(f"{info['name']} ({info['rules']} rules)")
    print(f"  Eidos: {info['eidos']} in {info['regions']} regions")
    for t, c in info["terrains"].items():
        print(f"    {t:<12} {c}")
    for key in ("adjacent_pairs", "roads", "pousas", "fountains", "streams", "components"):
        print(f"  {key.replace('_', ' ')}: {info[key]}")
    print(f"  graph: {info['nodes']} nodes, {info['edges']} edges")
    return 0


@command("neighbors", "the Eidos adjacent to one Eido, or every adjacent pair")
def _neighbors_args(p):
    _map_args(p)
    p.add_argument("id", nargs="?", help="an Eido id (default: every pair)")
    p.add_argument("--json", action="store_true", help="print JSON")


@_neighbors_args
def cmd_neighbors(args) -> int:
    m = _load(args)
    if args.id is not None:
        out = m.neighbors(args.id)
        if args.json:
            emit(out)
        else:
            print("\n".join(out))
        return 0
    pairs = m.pairs()
    if args.json:
        emit([list(p) for p in pairs])
    else:
        print("\n".join(f"{a}\t{b}" for a, b in pairs))
    return 0


# -- generate ------------------------------------------------------------------
@command("generate", "write a reproducible synthetic map (Voronoi Eidos, roads, fountains)")
def _generate_args(p):
    p.add_argument("out", help="output GeoJSON file")
    p.add_argument("--eidos", type=int, required=True, metavar="N", help="number of Eidos (3 to 1,000,000)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")


@_generate_args
def cmd_generate(args) -> int:
    from .generate import generate_map, write_map

    if not 3 <= args.eidos <= 1_000_000:
        raise EidomapError(f"--eidos must be between 3 and 1,000,000, got {args.eidos}")
    write_map(generate_map(args.eidos, args.seed), args.out)
    print(f"wrote {args.out}: {args.eidos} Eidos (seed {args.seed})")
    return 0


# -- species -------------------------------------------------------------------
@command("species", "show the species catalog as loaded")
def _species_args(p):
    p.add_argument("--catalog", metavar="FILE", help="catalog (TOML) laid over the default")
    p.add_argument("--json", action="store_true", help="print JSON")


@_species_args
def cmd_species(args) -> int:
    from .catalog import load_catalog

    cat = load_catalog(args.catalog)
    if args.json:
        emit(cat.as_dict())
        return 0
    names = cat.terrain_names
    used = [t for t in names if any(t in s.costs for s in cat.species.values())]
    head = f"{'species':<11}{'VMv':>4} {'road':>5}  " + " ".join(f"{t[:7]:>7}" for t in used)
    print(head)
    for s in cat.species.values():
        road = "eido" if s.road_style == "eido" else ("-" if s.road_cost is None else f"{s.road_cost:g}")
        costs = " ".join(f"{s.costs[t]:>7g}" if t in s.costs else f"{'-':>7}" for t in used)
        gifts = f"  [{', '.join(sorted(s.gifts))}]" if s.gifts else ""
        print(f"{s.name:<11}{s.vmv:>4} {road:>5}  {costs}{gifts}")
    print("('-': impassable; sample values unless your catalog says otherwise)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="eidomap",
        description="Movement and pathfinding on tabletop-game maps made of regions (Eidos).",
    )
    parser.add_argument("--version", action="version", version=f"eidomap {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (setup, fn, help_) in COMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_)
        setup(p)
        p.set_defaults(func=fn)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except EidomapError as exc:
        print(f"eidomap: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("eidomap: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        print(f"eidomap: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
