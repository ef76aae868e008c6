"""``eidomap d20 reach`` and ``eidomap d20 route``: tactical movement on a battle grid."""

from __future__ import annotations

import argparse

from eidomap.base.names import plural
from eidomap.cli._common import command, emit, wrote
from eidomap.cli.plan import whole


def _grid_args(p, modes) -> None:
    p.add_argument("grid", metavar="GRID", help="a battle grid: one character a square (see docs/d20.md)")
    p.add_argument("--speed", type=whole, required=True, metavar="FT", help="speed in feet (a multiple of 5)")
    p.add_argument("--mode", choices=modes, default="move", help="the round's movement (default: move)")
    p.add_argument("--heavy-armor", action="store_true", help="runs at three times speed, not four")
    p.add_argument("--flying", action="store_true", help="ignores difficult terrain")
    p.add_argument("--fatigued", action="store_true", help="a fatigued character: can neither run nor charge")
    p.add_argument("--blocked", metavar="R,C;R,C", default="", help="squares held by enemies (never passed)")
    p.add_argument("--allies", metavar="R,C;R,C", default="", help="squares held by allies (passed, never ended in)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--png", metavar="OUT", help="also draw the answer (PNG or SVG by suffix)")


def _under_way_args(p, so: str) -> None:
    """``--used`` and ``--odd-diagonals``: a round already under way (``used=``, ``odd_diagonals=``)."""
    p.add_argument("--used", type=whole, default=0, metavar="FT",
                   help=f"feet of this round's movement already used: {so}")
    p.add_argument("--odd-diagonals", action="store_true",
                   help="an odd number of diagonals is among the --used feet (the next diagonal costs 10 ft)")


def _options(args: argparse.Namespace) -> dict:
    from eidomap.record.grid import parse_squares

    return {"mode": args.mode, "heavy_armor": args.heavy_armor, "flying": args.flying, "fatigued": args.fatigued,
            "allies": parse_squares(args.allies, "--allies"), "enemies": parse_squares(args.blocked, "--blocked")}


def _mode(args: argparse.Namespace) -> str:
    """The round's mode as the answer says it: a run in heavy armour is at three times the speed ("run x3")."""
    return f"{args.mode} x3" if args.mode == "run" and args.heavy_armor else args.mode


def _picture(args: argparse.Namespace, grid, answer) -> None:
    if args.png:
        from eidomap.plot import save_grid_png

        save_grid_png(grid, answer, args.png)
        wrote(args.png, args)


@command("reach", "every square a character can reach this round on a battle grid, with its cost in feet",
         group="d20")
def _reach_args(p):
    _grid_args(p, ("move", "double", "run", "charge", "step"))
    p.add_argument("--at", required=True, metavar="R,C", help="the character's square (row,column from 0)")
    p.add_argument("--target", metavar="R,C", help="a charge ends next to this square")
    _under_way_args(p, "the round goes on from --at with the rest (the feet listed are moved from --at)")


@_reach_args
def cmd_reach(args: argparse.Namespace) -> int:
    from eidomap.answers.grid import load_grid, reach
    from eidomap.record.grid import format_square, parse_square

    grid = load_grid(args.grid)
    target = parse_square(args.target, "--target") if args.target else None
    r = reach(grid, parse_square(args.at, "--at"), args.speed, target=target, used=args.used,
              odd_diagonals=args.odd_diagonals, **_options(args))
    if args.json:
        emit(r.as_dict())
    else:
        print(f"{plural(len(r.feet), 'square')} reachable from {format_square(r.start)} this round"
              f" (speed {args.speed} ft, {_mode(args)}: up to {r.mover.budget * 5} ft)")
        if r.used:
            print(f"  {r.used} ft of this round already used: up to {r.mover.step_budget * 5 - r.used} ft more,"
                  f" step by step")
        for ft in sorted(set(r.feet.values())):
            squares = [format_square(s) for s, f in r.feet.items() if f == ft]
            print(f"  {ft:>4} ft: {' '.join(squares)}")
        if r.full_round:
            print("  only by the full-round 5-ft move (a full-round action, 5 ft): "
                  + " ".join(format_square(s) for s in r.full_round))
        if r.why:
            print(f"  no charge: {r.why}")
    _picture(args, grid, r)
    return 0


@command("route", "the fewest rounds (then feet) between two squares of a battle grid", group="d20",
         example="eidomap d20 route maps/d20-battle.txt --from 13,0 --to 8,15 --speed 30 --via 5,5 --used 15")
def _route_args(p):
    _grid_args(p, ("move", "double", "run"))
    p.add_argument("--from", dest="start", required=True, metavar="R,C", help="start square")
    p.add_argument("--to", dest="goal", required=True, metavar="R,C", help="goal square")
    p.add_argument("--via", metavar="R,C;R,C", default="",
                   help="squares to pass in this order on the way (a round goes on past a stop)")
    _under_way_args(p, "round 1 goes on with the rest")
    p.epilog += ("\n\n--json: 'legs' are the legs through the --via stops (from, to, squares, feet, and the round the"
                 " leg's end is reached in); 'used' the feet of round 1 already used.")


@_route_args
def cmd_route(args: argparse.Namespace) -> int:
    from eidomap.answers.grid import load_grid, route
    from eidomap.record.grid import format_square, parse_square, parse_squares

    grid = load_grid(args.grid)
    r = route(grid, parse_square(args.start, "--from"), parse_square(args.goal, "--to"), args.speed,
              via=parse_squares(args.via, "--via"), used=args.used, odd_diagonals=args.odd_diagonals,
              **_options(args))
    if args.json:
        emit(r.as_dict())
    elif r.rounds is None:  # (not reachable)
        print(f"no way from {format_square(r.start)} to {format_square(r.goal)}" + (f": {r.why}" if r.why else ""))
    else:
        print(f"{format_square(r.start)} -> {format_square(r.goal)}: {plural(r.rounds, 'round')}, {r.feet} ft"
              f" (speed {args.speed} ft, {_mode(args)})")
        if r.via:
            print("  via " + " ".join(format_square(s) for s in r.via))
        if r.used:
            print(f"  {r.used} ft of round 1 already used")
        if r.via:
            for k, part in enumerate(r.via_legs, start=1):
                print(f"  leg {k}: {format_square(part.start)} -> {format_square(part.goal)}:"
                      f" {plural(part.squares, 'square')}, {part.feet} ft, there in round {part.round}")
        for leg in r.legs:
            print(f"  round {leg.round:>3}: {leg.action:<15} {' '.join(format_square(s) for s in leg.squares)}"
                  f"  ({leg.feet} ft)")
    _picture(args, grid, r)
    return 0 if r.reachable else 1
