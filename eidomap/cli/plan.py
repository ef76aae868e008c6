"""Commands for planning movement: species, route, reach."""

from __future__ import annotations

from . import command, emit, load_map, map_args


# -- species -------------------------------------------------------------------
@command("species", "show the species catalog as loaded")
def _species_args(p):
    p.add_argument("--catalog", metavar="FILE", help="catalog (TOML) laid over the default")
    p.add_argument("--json", action="store_true", help="print JSON")


@_species_args
def cmd_species(args) -> int:
    from ..catalog import load_catalog

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


# -- route, reach ----------------------------------------------------------------
def _actor_args(p) -> None:
    p.add_argument("--from", dest="start", required=True, metavar="A", help="start Eido id")
    p.add_argument("--species", required=True, metavar="S", help="who moves (a species of the catalog)")
    p.add_argument("--vmv", type=int, metavar="K", help="override the VMv of the one who moves")
    p.add_argument("--mount", metavar="M", help="ride this animal or vehicle (its VMv and costs)")
    p.add_argument("--with", dest="party", metavar="X,Y", help="travel alongside these (slowest pace)")
    p.add_argument("--gift", action="append", default=[], metavar="G", help="give the unit a gift (teleport)")
    p.add_argument("--dice", default="1d6", metavar="NdM+K", help="the roll each turn (default 1d6)")
    p.add_argument("--partial", choices=("carry", "forbid"), default="carry",
                   help="a step that does not fit the points left: carry the debt (Eido rules, default)"
                        " or wait for the next turn (forbid)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--cache", action="store_true",
                   help="keep the compiled graph in a .npz beside the map (keyed by the map's hash)")


def _ints(text: str, what: str) -> list[int]:
    from ..errors import RequestError

    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise RequestError(f"{what} must be whole numbers separated by commas, got {text!r}") from None


def _actor(m, args):
    from ..rules.eido import actor

    party = [x.strip() for x in args.party.split(",") if x.strip()] if args.party else []
    return actor(m.catalog, args.species, mount=args.mount, party=party, gifts=args.gift, vmv=args.vmv,
                 dice=args.dice)


def _num(x: float) -> str:
    return f"{x:g}"


def _print_route(r) -> None:
    head = f"Route {r.start} -> {r.goal} for {r.actor} ({r.dice}{'+' + str(r.vmv) if r.vmv else ''} a turn"
    print(head + f", {'debt carried' if r.partial == 'carry' else 'no partial steps'})")
    if not r.reachable:
        print("  the goal cannot be reached")
        return
    print(f"  this route: {_num(r.total_cost)} PtMv in {len(r.path) - 1} steps"
          f" (cheapest possible: {_num(r.cheapest_cost)} PtMv)")
    if r.turns:
        print(f"  {'turn':>4} {'roll':>4} {'budget':>6} {'spent':>5} {'lost':>4} {'debt':>4}  steps -> end")
        for t in r.turns:
            steps = ", ".join(f"{s.node} ({s.kind} {_num(s.cost)})" for s in t.steps) or "-"
            print(f"  {t.turn:>4} {t.roll:>4} {_num(t.budget):>6} {_num(t.spent):>5} {_num(t.lost):>4}"
                  f" {_num(t.debt_after):>4}  {steps} -> {t.end}")
        if r.arrival_turn is None:
            print(f"  not there after the {len(r.turns)} rolls given")
        else:
            print(f"  arrives in turn {r.arrival_turn}" + (
                f", finishes crossing it in turn {r.crossed_turn}" if r.crossed_turn != r.arrival_turn else ""))
        return
    print("  path: " + " -> ".join(f"{s.node}" + (f" ({s.kind} {_num(s.cost)})" if s.kind != "start" else "")
                                  for s in r.path))
    worst = "unbounded" if r.worst_turns is None else r.worst_turns
    print(f"  turns to arrive: best {r.best_turns}, expected {r.expected_turns:.3f}, worst {worst}")
    shown = [(k, p) for k, p in enumerate(r.p_by_turn, start=1) if p > 0]
    sure = [i for i, (_, p) in enumerate(shown) if p >= 0.9995]
    shown = shown[: sure[0] + 1] if sure else shown
    cells = [f"{k}:{p:.3f}" for k, p in shown]
    print("  P(arrived by turn k): " + "  ".join(cells[:24]) + ("  ..." if len(cells) > 24 else ""))


@command("route", "plan a route: turn-by-turn itinerary with --rolls, arrival distribution without")
def _route_args(p):
    map_args(p)
    _actor_args(p)
    p.add_argument("--to", dest="goal", required=True, metavar="B", help="goal Eido id")
    p.add_argument("--rolls", metavar="R1,R2,...", help="the dice results of turns 1, 2, ... known in advance")
    p.add_argument("--png", metavar="OUT", help="also draw the route (PNG or SVG by suffix)")


@_route_args
def cmd_route(args) -> int:
    from ..routing import route

    m = load_map(args)
    rolls = _ints(args.rolls, "--rolls") if args.rolls else None
    r = route(m, args.start, args.goal, _actor(m, args), rolls=rolls, partial=args.partial)
    if args.json:
        emit(r.as_dict())
    else:
        _print_route(r)
    if args.png:
        from ..plot import save_route_png

        save_route_png(m, r, args.png)
    return 0 if r.reachable and (rolls is None or r.arrival_turn is not None) else 1


@command("reach", "where an actor can end this turn (--roll), or the chance of arriving within K turns (--turns)")
def _reach_args(p):
    map_args(p)
    _actor_args(p)
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--roll", type=int, metavar="R", help="this turn's roll")
    how.add_argument("--turns", type=int, metavar="K", help="probability of arriving within K turns")
    how.add_argument("--rolls", metavar="R1,R2,...", help="turn of first arrival in every Eido with these rolls")
    p.add_argument("--png", metavar="OUT", help="also draw the result (PNG or SVG by suffix)")


@_reach_args
def cmd_reach(args) -> int:
    from ..routing import reach, reach_rolls

    m = load_map(args)
    who = _actor(m, args)
    if args.rolls:
        r = reach_rolls(m, args.start, who, rolls=_ints(args.rolls, "--rolls"), partial=args.partial)
    else:
        r = reach(m, args.start, who, roll=args.roll, turns=args.turns, partial=args.partial)
    if args.json:
        emit(r.as_dict())
    elif args.roll is not None:
        print(f"{r.actor} from {r.start} with a roll of {args.roll}: {len(r.debt)} Eidos")
        for eid, debt in sorted(r.debt.items(), key=lambda kv: (kv[1], kv[0])):
            print(f"  {eid}" + (f"  (debt {_num(debt)})" if debt else ""))
    elif args.turns is not None:
        print(f"{r.actor} from {r.start}: P(arrived within {args.turns} turns)")
        for eid, p in sorted(r.p_within.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {eid:<20} {p:.4f}")
    else:
        print(f"{r.actor} from {r.start}: turn of first arrival with rolls {args.rolls}")
        for eid, t in sorted(r.arrival_turn.items(), key=lambda kv: (kv[1], kv[0])):
            print(f"  {eid:<20} {t}")
    if args.png:
        from ..plot import save_reach_png

        save_reach_png(m, r, args.png)
    return 0
