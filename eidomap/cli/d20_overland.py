"""``eidomap d20 ...``: the overland half of the d20 movement chapter.

speed, travel, mount-speed, vessel, march, hustle, chase.
"""

from __future__ import annotations

import argparse
import re

from eidomap.base.names import plural, shown
from eidomap.cli._common import command, emit, load_map, map_args, wrote
from eidomap.cli.plan import _ints


def _parse(kind, text: str, what: str):
    from eidomap.base.errors import RequestError

    try:
        return kind(text)
    except ValueError:
        raise RequestError(f"{what} must be {'a whole number' if kind is int else 'a number'}, got {text!r}") from None


def _whole(text: str, what: str) -> int:
    return _parse(int, text, what)


def _real(text: str, what: str) -> float:
    return _parse(float, text, what)


def _json_flag(p) -> None:
    p.add_argument("--json", action="store_true", help="print JSON")


def _negatives(p) -> None:
    """Read ``--dex-mods -1,3`` and ``--con-mod -2`` as values: argparse takes an argument that starts with
    ``-`` for an option unless it looks like a negative number, and ``-1,3`` does not; these commands have
    no option that looks like one."""
    p._negative_number_matcher = re.compile(r"^-\d+(\.\d*)?(,\s*-?\d+(\.\d*)?)*$")


def _load(p) -> None:
    p.add_argument("--load", metavar="LOAD",
                   help="heavy (the mount's loaded row) or the weight it carries, such as 300lb (Table 7-9's range)")


def _show(answer, args: argparse.Namespace, text: str) -> int:
    if args.json:
        emit(answer.as_dict())
    else:
        print(text)
    return 0


def _miles(x) -> str:
    return f"{float(x):g} mi"


# -- speed ----------------------------------------------------------------------------
@command("speed", "Table 7-6 for any speed: per round, minute, hour and day", group="d20")
def _speed_args(p):
    p.add_argument("speed", help="speed in feet (such as 30)")
    p.add_argument("--con", metavar="N", help="Constitution score: the rounds a run can last (local scale)")
    _json_flag(p)


@_speed_args
def cmd_speed(args: argparse.Namespace) -> int:
    from eidomap.answers.overland import speed_table

    con = None if args.con is None else _whole(args.con, "--con")
    t = speed_table(_real(args.speed, "the speed"), con)
    d = t.as_dict()
    lines = [f"speed {d['speed']} ft"]
    for scale, unit in (("round", "ft"), ("minute", "ft"), ("hour", "mi"), ("day", "mi")):
        cells = "  ".join(f"{mode} {v:g} {unit}" for mode, v in d[scale].items())
        lines.append(f"  1 {scale:<7} {cells}")
    if con is not None:
        lines.append(f"  can run {con} rounds without rest (Constitution {con})")
    return _show(t, args, "\n".join(lines))


# -- mounts and vessels -------------------------------------------------------------------
@command("mount-speed", "a mount's (or the cart's) row of Table 7-9", group="d20")
def _mount_args(p):
    p.add_argument("kind", help="light-horse, heavy-horse, pony, riding-dog or cart")
    _load(p)
    _json_flag(p)


@_mount_args
def cmd_mount_speed(args: argparse.Namespace) -> int:
    from eidomap.answers.overland import mount_speed

    r = _translated(lambda: mount_speed(args.kind, args.load), {"load must": "--load must"})
    return _show(r, args, f"{r.label}: {_miles(r.per_hour)} an hour, {_miles(r.per_day)} a day")


@command("vessel", "a vessel's speed an hour and a day, with the river rules of Table 7-9", group="d20")
def _vessel_args(p):
    p.add_argument("kind", help="raft, keelboat, rowboat, sailing-ship, warship, longship or galley")
    way = p.add_mutually_exclusive_group()
    way.add_argument("--downstream", action="store_true", help="going downstream: add the current")
    way.add_argument("--upstream", action="store_true",
                     help="going upstream: rafts, keelboats and rowboats are towed, not rowed, against a current")
    p.add_argument("--current", metavar="MPH", help="the river's current in miles an hour (default 3)")
    p.add_argument("--float", dest="guided", action="store_true",
                   help="someone guides it: float 14 more hours a day (with --downstream)")
    _json_flag(p)


@_vessel_args
def cmd_vessel(args: argparse.Namespace) -> int:
    from eidomap.answers.overland import vessel_speed
    from eidomap.base.errors import RequestError
    from eidomap.rules.d20.speeds import vessel_row

    if args.guided and not args.downstream:
        raise RequestError("--float carries a craft downstream only: add --downstream")
    current = None if args.current is None else _real(args.current, "--current")
    r = vessel_speed(args.kind, args.downstream, current, args.guided, args.upstream)
    if r.per_hour is None:
        assert r.towed is not None  # (what cannot be rowed upstream is towed)
        row = vessel_row(args.kind)  # (towed as a cart goes, never faster than the craft's own row: say which)
        read = "its own row, poled or towed" if row.towed and r.towed[0] == row.per_hour else "read as a cart or wagon"
        text = (f"{args.kind} upstream: cannot be rowed against the current; towed by draft animals from the bank"
                f" ({read}): {_miles(r.towed[0])} an hour, {_miles(r.towed[1])} a day")
    else:
        way = " downstream" if args.downstream else " upstream" if args.upstream else ""
        text = f"{args.kind}{way}: {_miles(r.per_hour)} an hour, {_miles(r.per_day)} a day"
        if way and not vessel_row(args.kind).river:
            text += (" (a ship sails a river both ways at its own speed: the current is for rafts, keelboats and"
                     " rowboats)")
    return _show(r, args, text)


# -- fatigue ---------------------------------------------------------------------------------
def _fatigue_args(p, march: bool) -> None:
    p.add_argument("--hours", required=True, metavar="H", help="hours of the day (at most 24)")
    if march:
        p.add_argument("--con-mod", default="0", metavar="M", help="Constitution modifier (default 0)")
        p.add_argument("--hp", metavar="N", help="hit points: the chances that the damage reaches them (staggered;"
                                                    " a mount disabled) and exceeds them (unconscious)")
        _negatives(p)
    p.add_argument("--mount", action="store_true", help="a mount: lethal damage (and forced-march checks fail)")
    _json_flag(p)


def _odds(args: argparse.Namespace, what: str, compute) -> int:
    """Print (or emit) the fatigue odds ``compute(hours)`` for ``--hours``."""
    hours = _whole(args.hours, "--hours")
    r = _translated(lambda: compute(hours), {"march must": "--hours must", "hustle must": "--hours must",
                                             "hit points must": "--hp must"})
    spent = f"{plural(hours, 'hour')} of {what}"
    if r.lethal:  # "A mount also becomes fatigued when it takes any damage from hustling or a forced march"
        lines = [f"{spent}, a mount: P(fatigued) = {r.p_fatigued:.4f} (any damage tires a mount),"
                 f" expected lethal damage {r.expected_damage:.3f}"]
    else:
        lines = [f"{spent}: P(fatigued) = {r.p_fatigued:.4f}, expected nonlethal damage"
                 f" {r.expected_damage:.3f}"]
    if r.hp is not None:
        points = f"{r.hp} hit point{'' if r.hp == 1 else 's'}"
        lines += [f"  P({r.at_hp} or worse: the damage reaches {points}) = {r.p_staggered:.4f}",
                  f"  P(unconscious: the damage exceeds {points}) = {r.p_unconscious:.4f}"]
    if len(r.damage) > 1:  # (one certain outcome is the summary line again)
        lines += [f"  {k:>3} damage: {p:.4f}" for k, p in r.damage.items()]
    return _show(r, args, "\n".join(lines))


@command("march", "a forced march: exact odds of fatigue and the damage distribution", group="d20")
def _march_args(p):
    _fatigue_args(p, march=True)


@_march_args
def cmd_march(args: argparse.Namespace) -> int:
    from eidomap.answers.overland import forced_march

    con_mod = _whole(args.con_mod, "--con-mod")
    hp = None if args.hp is None else _whole(args.hp, "--hp")
    return _odds(args, "marching", lambda hours: forced_march(hours, con_mod, args.mount, hp))


@command("hustle", "hustling for some hours: the damage and fatigue", group="d20")
def _hustle_args(p):
    _fatigue_args(p, march=False)


@_hustle_args
def cmd_hustle(args: argparse.Namespace) -> int:
    from eidomap.answers.overland import hustle

    return _odds(args, "hustling", lambda hours: hustle(hours, args.mount))


# -- chase -------------------------------------------------------------------------------------
@command("chase", "the chance that the quarry (listed first) escapes", group="d20")
def _chase_args(p):
    p.add_argument("--speeds", required=True, metavar="Q,C,...", help="speeds in feet, the quarry first")
    mods = p.add_mutually_exclusive_group()
    mods.add_argument("--dex-mods", metavar="Q,C,...", help="Dexterity modifiers (a chase of a few rounds)")
    mods.add_argument("--con-mods", metavar="Q,C,...", help="Constitution modifiers (a long chase, with --long)")
    p.add_argument("--long", action="store_true", help="a long overland chase: opposed Constitution checks")
    p.add_argument("--fatigued", metavar="N,N", nargs="?", const="1",
                   help="the fatigued sides by their place in --speeds (alone, or 1: the quarry): they cannot run"
                        " (a double move a round) and take -2 off their Dexterity checks")
    p.add_argument("--heavy-armor", metavar="N,N", nargs="?", const="1",
                   help="the sides in heavy armour by their place in --speeds (alone, or 1: the quarry): they run"
                        " at x3, not x4")
    _json_flag(p)
    _negatives(p)


def _sides(text: str | None, n: int, flag: str) -> list[bool] | None:
    """``--fatigued 1,3``: one flag a side of ``n`` (None without the option)."""
    from eidomap.base.errors import RequestError

    if not text:
        return None
    chosen = _ints(text, flag)
    if any(not 1 <= k <= n for k in chosen):
        raise RequestError(f"{flag} names sides by their place in --speeds, 1 to {n}, got {text!r}")
    return [k + 1 in chosen for k in range(n)]


@_chase_args
def cmd_chase(args: argparse.Namespace) -> int:
    from eidomap.answers.overland import chase
    from eidomap.base.errors import RequestError

    if args.long and args.dex_mods:
        raise RequestError("a long chase is settled by Constitution checks: give --con-mods, not --dex-mods")
    if args.con_mods and not args.long:
        raise RequestError("Constitution checks settle long chases: add --long, or give --dex-mods")
    text = args.con_mods or args.dex_mods
    speeds = _ints(args.speeds, "--speeds")
    fatigued = _sides(args.fatigued, len(speeds), "--fatigued")
    heavy = _sides(args.heavy_armor, len(speeds), "--heavy-armor")
    r = _translated(lambda: chase(speeds, None if text is None else _ints(text, "the modifiers"), args.long,
                                  fatigued, heavy), {"speeds must": "--speeds must"})
    tired = "" if not any(fatigued or ()) or args.long else " (with the fatigue penalty)"
    if r.feet is None:
        moved = ""
    else:
        how = ["a run x4" if not any(heavy or ()) else "a run x4, x3 in heavy armour"]
        how += ["a double move when fatigued"] if any(fatigued or ()) else []
        moved = f", a round {[_feet(f) for f in r.feet]} ft ({'; '.join(how)})"
    return _show(r, args, f"speeds {r.speeds} (quarry first){moved}, opposed {r.check} checks {r.mods}{tired}:"
                          f" P(quarry escapes) = {r.p_escape:.4f}")


def _feet(x: float) -> int | float:
    return int(x) if x == int(x) else x


# -- travel ------------------------------------------------------------------------------------
@command("travel", "the overland journey that arrives first (day, then hour) on a d20 map, and its day-by-day"
                   " plan", group="d20")
def _travel_args(p):
    map_args(p)
    p.add_argument("--from", dest="start", required=True, metavar="A",
                   help="a region id (its representative point) or x,y in map units")
    p.add_argument("--to", dest="goal", required=True, metavar="B", help="a region id or x,y")
    p.add_argument("--speed", default="30", metavar="FT", help="walking speed in feet (default 30)")
    p.add_argument("--party", metavar="FT,FT,...", help="speeds of the other walkers (the slowest sets the pace)")
    p.add_argument("--mount", metavar="KIND", help="everyone rides: light-horse, heavy-horse, pony, riding-dog")
    _load(p)
    p.add_argument("--vehicle", metavar="KIND", help="cart (on land) or a ship for the rivers (keelboat, rowboat...)")
    p.add_argument("--boat-at", metavar="X,Y", help="where the ship lies, on a river (default: where the journey"
                                                    " starts)")
    p.add_argument("--towed-by", metavar="KIND", help="draft animal that tows the boat upstream from the bank")
    p.add_argument("--float", dest="guided", action="store_true", help="rowed craft float 14 more hours downstream")
    p.add_argument("--hustle", default="0", metavar="H",
                   help="hours hustled at the start of each day (not the day after one that ends fatigued)")
    p.add_argument("--forced-march", default="0", metavar="H", help="hours marched beyond 8 each day")
    p.add_argument("--con-mod", default="0", metavar="M", help="Constitution modifier for the forced march")
    p.add_argument("--spacing", metavar="MI", help="travel-mesh spacing in miles (default: map side / 64)")
    _json_flag(p)
    p.add_argument("--png", metavar="OUT", help="also draw the journey (PNG or SVG by suffix)")
    _negatives(p)


@_travel_args
def cmd_travel(args: argparse.Namespace) -> int:
    from eidomap.answers.overland import travel

    if args.png:
        from eidomap.plot import picture_format

        picture_format(args.png)
    m = load_map(args)
    t = _translated(lambda: travel(
        m, args.start, args.goal, speed=_real(args.speed, "--speed"),
        party=_ints(args.party, "--party") if args.party else (), mount=args.mount, load=args.load,
        vehicle=args.vehicle, towed_by=args.towed_by, hustle=_whole(args.hustle, "--hustle"),
        forced_march=_whole(args.forced_march, "--forced-march"), con_mod=_whole(args.con_mod, "--con-mod"),
        guided=args.guided, spacing=None if args.spacing is None else _real(args.spacing, "--spacing"),
        boat_at=args.boat_at), _TRAVEL_FLAGS)
    if args.json:
        emit(t.as_dict())
    elif not t.reachable:
        print(f"{shown(t.start)} -> {shown(t.goal)}: no way there")
    else:
        print(f"{shown(t.start)} -> {shown(t.goal)}: {t.miles:.1f} miles in {t.hours:.2f}"
              f" hours of travel, arriving on day {t.arrival[0]} after {t.arrival[1]:.2f} hours")
        for d in t.days:
            means = ", ".join(f"{how} {h:.2f} h {mi:.2f} mi" for how, (h, mi) in d.by.items())
            print(f"  day {d.day}: {d.hours:5.2f} h {d.miles:6.2f} mi -> ({d.end[0]:.1f}, {d.end[1]:.1f})  [{means}]")
        if t.boat is not None:
            (x0, y0), (x1, y1) = t.boat
            print(f"  the {args.vehicle} lay at ({x0:.1f}, {y0:.1f}); it is left at ({x1:.1f}, {y1:.1f})")
        if t.fatigue:
            f = t.fatigue
            print(f"  expected {'lethal' if f['lethal'] else 'nonlethal'} damage {f['expected_damage']:.2f},"
                  f" P(fatigued) {f['p_fatigued']:.4f}")
    if args.png:
        from eidomap.plot import save_travel_png

        save_travel_png(m, t, args.png)
        wrote(args.png, args)
    return 0 if t.reachable else 1


#: What the messages of :func:`eidomap.answers.overland.travel` call its parameters, and the flags they are.
_TRAVEL_FLAGS = {"boat_at": "--boat-at", "spacing must": "--spacing must", "load must": "--load must",
                 "hustle must": "--hustle must", "forced march must": "--forced-march must"}


def _translated(call, flags: dict[str, str]):
    """``call()``, its :class:`RequestError` saying the command's flags where the library names its parameters."""
    from eidomap.base.errors import RequestError

    try:
        return call()
    except RequestError as exc:
        said = str(exc)
        for name, flag in flags.items():  # (a word the message already writes as a flag stays as it is)
            said = re.sub(rf"(?<![\w-]){re.escape(name)}", flag, said)
        if said == str(exc):
            raise
        raise RequestError(said) from None
