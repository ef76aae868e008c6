"""Commands for planning movement: species, route, reach."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from eidomap.base.modes import Partial
from eidomap.base.names import number, plural, shown
from eidomap.base.params import MAX_DIGITS, read_whole
from eidomap.cli._common import command, emit, html_args, load_map, map_args, write_html, wrote

if TYPE_CHECKING:
    from eidomap.model.map import Map

#: How each kind of step reads in an itinerary ("" for a plain border crossing).
STEP_WORDS = {
    "border": "",
    "road": "along the road",
    "board": "onto the road",
    "board_adjacent": "onto the road from next door",
    "alight": "off the road",
    "teleport": "teleport",
    "stream": "up the stream",
    "road_eido": "along the road",
}


# -- species -------------------------------------------------------------------
@command("species", "show the species catalog as loaded", example="eidomap species --catalog maps/demo-catalog.toml")
def _species_args(p):
    p.add_argument("--catalog", metavar="FILE", help="catalog (TOML) laid over the default")
    p.add_argument("--json", action="store_true", help="print JSON")


@_species_args
def cmd_species(args: argparse.Namespace) -> int:
    from eidomap.record.catalog import load_catalog

    cat = load_catalog(args.catalog)
    if args.json:
        emit(cat.as_dict())
        return 0
    names = cat.terrain_names
    used = [t for t in names if any(t in s.costs for s in cat.species.values())]
    heads = [shown(t) for t in used]
    width = [max(len(t), 4) for t in heads]
    name_w = max(len("species"), *(len(shown(s)) for s in cat.species)) + 1
    print(f"{'species':<{name_w}}{'VMv':>4} {'road':>5}  " + " ".join(f"{t:>{w}}" for t, w in zip(heads, width,
                                                                                               strict=True)))
    for s in cat.species.values():
        road = "eido" if s.road_style == "eido" else ("-" if s.road_cost is None else f"{s.road_cost:g}")
        costs = " ".join(f"{s.costs[t]:>{w}g}" if t in s.costs else f"{'-':>{w}}" for t, w in zip(used, width,
                                                                                                   strict=True))
        gifts = f"  [{', '.join(sorted(s.gifts))}]" if s.gifts else ""
        print(f"{shown(s.name):<{name_w}}{s.vmv:>4} {road:>5}  {costs}{gifts}")
    print("'-': impassable (no road: cannot use roads); sample values unless your catalog says otherwise")
    if any(s.road_style == "eido" for s in cat.species.values()):
        print("road 'eido': follows a road Eido by Eido instead of Pousa by Pousa, paying the terrain's cost"
              " (or its road_eido_cost) for each Eido")
    return 0


# -- route, reach ----------------------------------------------------------------
def _actor_args(p, *, goal: bool = False) -> None:
    p.add_argument("--from", dest="start", required=True, metavar="A", help="start: an Eido or Pousa id")
    if goal:
        p.add_argument("--to", dest="goal", required=True, metavar="B", help="goal: an Eido or Pousa id")
    p.add_argument("--species", required=True, metavar="S", help="who moves (a species of the catalog)")
    map_args(p)
    p.add_argument("--mount", metavar="M", help="ride this animal or vehicle (its VMv and costs)")
    p.add_argument("--with", dest="party", metavar="X,Y", help="travel alongside these (slowest pace)")
    p.add_argument("--gift", action="append", default=[], metavar="G", help="give the unit a gift (teleport)")
    p.add_argument("--vmv", type=int, metavar="K", help="override the VMv of the one who moves")
    p.add_argument("--dice", metavar="NdM+K", help="the roll each turn (default: the map's rules'; Eido: 1d6)")
    p.add_argument("--partial", choices=Partial.words(), default=Partial.CARRY.value,
                   help="a step that does not fit the points left: carry the debt (Eido rules, default)"
                        " or wait for the next turn (forbid)")


def _output_args(p, what: str) -> None:
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--png", metavar="OUT", help=f"also draw {what} (PNG or SVG by suffix)")
    html_args(p)
    p.add_argument("--cache", action="store_true",
                   help="keep the compiled graph in a cache file beside the map (keyed by the map's hash)")


def _ints(text: str, what: str) -> list[int]:
    from eidomap.base.errors import RequestError

    values = [read_whole(x) for x in text.split(",")]  # an empty item ("3,,5", "") is no roll: refused
    if None in values:
        raise RequestError(f"{what} must be whole numbers separated by commas, got {text!r}")
    return values  # type: ignore[return-value]


def whole(text: str) -> int:
    """An option's whole number, written as the planner pages read one (:func:`~eidomap.base.params.read_whole`)."""
    value = read_whole(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"must be a whole number (at most {MAX_DIGITS} digits 0-9), got {text!r}")
    return value


def _actor(m: Map, args: argparse.Namespace, question: str):
    """Who moves, made by the map's rule set for ``question``: the options given on the command line only, so that
    a rule set whose actor takes none answers ``--species`` alone and refuses the others by their flags."""
    from eidomap.rules.actors import resolve_actor

    party = [x.strip() for x in args.party.split(",") if x.strip()] if args.party else []
    options = {"mount": args.mount, "party": party or None, "gifts": args.gift or None, "vmv": args.vmv,
               "dice": args.dice}
    return resolve_actor(m, args.species, question, **{k: v for k, v in options.items() if v is not None})


class _Names:
    """Nodes as a player reads them: Pousas marked, the map's display names beside ids."""

    def __init__(self, m: Map):
        self.names = m.display_names
        self.pousas = set(m.pousa_ids)

    def __call__(self, node: str) -> str:
        said = shown(node)
        if node in self.pousas:
            return f"Pousa {said}"
        name = self.names.get(node)
        if not name or name == node:
            return said
        return f'{said} "{name}"' if shown(name) == name else f"{said} {shown(name, quoted=True)}"


def _step(s, name) -> str:
    words = STEP_WORDS.get(s.kind, s.kind)
    return f"{name(s.node)} ({words + ', ' if words else ''}{number(s.cost)})"


def _shown_steps(steps) -> list:
    """The steps as a player sees them: a teleport into the hub and out of it is one step."""
    out: list = []
    for s in steps:
        if s.kind == "teleport_exit" and out and out[-1].kind == "teleport":
            out[-1] = type(s)(s.node, "teleport", out[-1].cost + s.cost)
        else:
            out.append(s)
    return out


def _print_route(r, name) -> None:
    dice = f"{r.dice}{'+' + str(r.vmv) if r.vmv else ''}"
    print(f"Route {name(r.start)} -> {name(r.goal)} for {shown(r.actor)}"
          f" ({dice} a turn, {'debt carried' if r.partial == 'carry' else 'no partial steps'})")
    if r.via:
        print("  via " + ", ".join(map(name, r.via)))
    if r.debt:
        print(f"  a debt of {number(r.debt)} PtMv carried into turn 1, paid before any step")
    if not r.reachable:
        print(f"  the goal cannot be reached: {r.reason}")
        return
    steps = _shown_steps(r.path[1:])
    print(f"  this route: {number(r.total_cost)} PtMv in {plural(len(steps), 'step')}"
          f" (cheapest possible: {number(r.cheapest_cost)} PtMv)")
    if r.via:
        _print_legs(r, name)
    if r.turns:
        print(f"  {'turn':>4} {'roll':>4} {'budget':>6} {'spent':>5} {'lost':>4} {'debt':>4}  steps -> end of turn")
        for t in r.turns:
            taken = ", ".join(_step(s, name) for s in _shown_steps(t.steps)) or "-"
            print(f"  {t.turn:>4} {t.roll:>4} {number(t.budget):>6} {number(t.spent):>5} {number(t.lost):>4}"
                  f" {number(t.debt_after):>4}  {taken} -> {name(t.end)}")
        if r.arrival_turn is None:
            print(f"  not there after the {plural(len(r.turns), 'roll')} given")
        elif r.crossed_turn is None:
            print(f"  arrives in turn {r.arrival_turn}, still crossing it after the rolls given")
        elif r.crossed_turn != r.arrival_turn:
            print(f"  arrives in turn {r.arrival_turn}, finishes crossing it in turn {r.crossed_turn}")
        else:
            print(f"  arrives in turn {r.arrival_turn}")
        return
    print("  path: " + " -> ".join([name(r.path[0].node), *(_step(s, name) for s in steps)]))
    if not steps:
        print("  already there")
        return
    worst = "unbounded" if r.worst_turns is None else r.worst_turns
    print(f"  turns to arrive: best {r.best_turns}, expected {r.expected_turns:.3f}, worst {worst}")
    odds = [(k, p) for k, p in enumerate(r.p_by_turn, start=1) if p > 0]
    sure = [i for i, (_, p) in enumerate(odds) if p >= 0.9995]
    odds = odds[: sure[0] + 1] if sure else odds
    cells = [f"{k}:{p:.3f}" for k, p in odds]
    print("  P(arrived by turn k): " + "  ".join(cells[:24]) + ("  ..." if len(cells) > 24 else ""))


def _print_legs(r, name) -> None:
    """A route's legs through its stops, one a line: where it goes, its PtMv and, with rolls, the turn it is there."""
    at = 1
    for k, leg in enumerate(r.legs, start=1):
        when = "" if leg.arrival_turn is None else f", there in turn {leg.arrival_turn}"
        steps = _shown_steps(r.path[at : at + leg.steps])
        at += leg.steps
        print(f"  leg {k}: {name(leg.start)} -> {name(leg.goal)}: {number(leg.cost)} PtMv in"
              f" {plural(len(steps), 'step')}{when}")


def _warn_map_errors(m: Map) -> None:
    """One line on stderr when the map has errors the plan could route around."""
    found = m.map_errors()
    if found:
        total = sum(found.values())
        what = ", ".join(f"{c} {code}" for code, c in found.items())
        said = shown(m.path or m.name)
        print(f"eidomap: warning: {said} has {plural(total, 'validation error')} ({what}); run 'eidomap validate"
              f" {said}'", file=sys.stderr)


@command("route", "plan a route: turn-by-turn itinerary with --rolls, arrival distribution without",
         example="eidomap route maps/demo.geojson --from bouza-vella --to porto-norte --species human --rolls 3,5,2,6")
def _route_args(p):
    _actor_args(p, goal=True)
    p.add_argument("--via", metavar="A,B,...", help="stops to go through in this order (Eido or Pousa ids)")
    p.add_argument("--debt", type=whole, default=0, metavar="N",
                   help="PtMv still owed for the start (an Eido not finished last turn), paid before any step")
    p.add_argument("--rolls", metavar="R1,R2,...", help="the dice results of turns 1, 2, ... known in advance")
    _output_args(p, "the route")
    p.epilog += ("\n\n--json: p_by_turn[k-1] is P(arrived by turn k), so p_by_turn[0] is turn 1;"
                 "\n'reason' says why an unreachable goal cannot be reached; 'legs' are the legs through the"
                 " --via stops.")


@_route_args
def cmd_route(args: argparse.Namespace) -> int:
    from eidomap.answers.routing import route

    m = load_map(args, document=False)
    rolls = None if args.rolls is None else _ints(args.rolls, "--rolls")
    via = [] if args.via is None else args.via.split(",")  # (an empty stop, "a,,b": no such id, said so)
    r = route(m, args.start, args.goal, _actor(m, args, "route"), via=via, debt=args.debt, rolls=rolls,
              partial=args.partial)
    _warn_map_errors(m)
    if args.json:
        emit(r.as_dict())
    else:
        _print_route(r, _Names(m))
    if args.png:
        from eidomap.plot import save_route_png

        save_route_png(m, r, args.png)
        wrote(args.png, args)
    write_html(args, m, route=r, species=args.species)
    return 0 if r.reachable and (rolls is None or r.arrival_turn is not None) else 1


@command("reach", "where an actor can end this turn (--roll), the chance of arriving within K turns (--turns),"
                  " or the turn of first arrival with given rolls (--rolls)",
         example="eidomap reach maps/demo.geojson --from porto-sur --species human --turns 3")
def _reach_args(p):
    _actor_args(p)
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--roll", type=whole, metavar="R", help="this turn's roll")
    how.add_argument("--turns", type=whole, metavar="K", help="probability of arriving within K turns")
    how.add_argument("--rolls", metavar="R1,R2,...", help="turn of first arrival in every Eido with these rolls")
    _output_args(p, "the result")


@_reach_args
def cmd_reach(args: argparse.Namespace) -> int:
    from eidomap.answers.routing import reach, reach_rolls

    m = load_map(args, document=False)
    who = _actor(m, args, "reach")
    if args.rolls is not None:
        r = reach_rolls(m, args.start, who, rolls=_ints(args.rolls, "--rolls"), partial=args.partial)
    else:
        r = reach(m, args.start, who, roll=args.roll, turns=args.turns, partial=args.partial)
    _warn_map_errors(m)
    name = _Names(m)
    if args.json:
        emit(r.as_dict())
    elif args.roll is not None:
        print(f"{shown(r.actor)} from {name(r.start)} with a roll of {args.roll}:"
              f" {plural(len(r.debt), 'Eido')}")
        for eid, debt in sorted(r.debt.items(), key=lambda kv: (kv[1], kv[0])):
            print(f"  {name(eid)}" + (f"  (debt {number(debt)})" if debt else ""))
    elif args.turns is not None:
        print(f"{shown(r.actor)} from {name(r.start)}: P(arrived within {plural(args.turns, 'turn')})")
        width = max(map(len, map(name, r.p_within)), default=0)
        for eid, p in sorted(r.p_within.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {name(eid):<{width}}  {p:.4f}")
    else:
        print(f"{shown(r.actor)} from {name(r.start)}: turn of first arrival with rolls"
              f" {shown(args.rolls)}")
        width = max(map(len, map(name, r.arrival_turn)), default=0)
        for eid, t in sorted(r.arrival_turn.items(), key=lambda kv: (kv[1], kv[0])):
            print(f"  {name(eid):<{width}}  {t}")
    if args.png:
        from eidomap.plot import save_reach_png

        save_reach_png(m, r, args.png)
        wrote(args.png, args)
    write_html(args, m, reach=r, species=args.species)
    return 0
