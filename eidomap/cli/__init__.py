"""The ``eidomap`` command line: one module per job, all registered here.

Exit codes: 0 success; 1 a clean negative answer (goal unreachable, map has
errors); 2 bad input or bad arguments, argparse's usage errors included (one
line on stderr naming the file, the feature and what is wrong; never a
traceback); 3 an internal error, a bug of eidomap's (one line too; ``--debug``
shows the traceback of any error); 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from .._version import __version__
from ..errors import EidomapError, EidomapWarning, RequestError

if TYPE_CHECKING:
    from ..model import Map

#: A subcommand's argument setup, and the subcommand (its exit code).
_Setup = Callable[[argparse.ArgumentParser], None]
_Command = Callable[[argparse.Namespace], int]

__all__ = ["command", "emit", "field_names", "fields", "html_args", "load_map", "main", "map_args", "plural",
           "refuse_replacing", "write_html", "wrote"]

Entry = tuple[Callable, Callable, str, str | None]
DEBUG_HELP = "on an error, show the traceback too"
COMMANDS: dict[str, Entry] = {}
#: Command groups (``eidomap d20 reach ...``): group -> (help, its commands).
GROUPS: dict[str, tuple[str, dict[str, Entry]]] = {
    "d20": ("the d20 movement rules: a tactical battle grid, overland travel", {}),
}


def command(name: str, help_: str, group: str | None = None,
            example: str | None = None) -> Callable[[_Setup], Callable[[_Command], _Command]]:
    """Register ``fn(args) -> int`` as a subcommand whose arguments ``setup`` adds.

    With ``group``, the command is ``eidomap GROUP NAME`` (a group of :data:`GROUPS`);
    ``example`` is a command line shown at the end of its ``--help``.
    """
    table = COMMANDS if group is None else GROUPS[group][1]

    def wrap(setup: _Setup) -> Callable[[_Command], _Command]:
        def register(fn: _Command) -> _Command:
            table[name] = (setup, fn, help_, example)
            return fn

        return register

    return wrap


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, like every other error, and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def one_line(text: str) -> str:
    """``text`` with its line breaks (from a file name, an argument) written as ``\\n``: an error is one line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def _add_commands(sub, table) -> None:
    for name, (setup, fn, help_, example) in table.items():
        p = sub.add_parser(name, help=help_, description=help_, epilog=example and f"example:\n  {example}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        setup(p)
        if name not in FOLDER_OUTPUTS and any(a.dest in OUTPUTS for a in p._actions):
            p.add_argument("--force", action="store_true", help="replace an output file that exists (a regular"
                                                                " file: never a folder, link, FIFO or device)")
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP)
        p.set_defaults(func=fn)


def plural(n: int, word: str) -> str:
    """``"1 step"``, ``"3 steps"``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def emit(obj: object) -> None:
    """Print a JSON answer."""
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def map_args(p: argparse.ArgumentParser, catalog: bool = True) -> None:
    p.add_argument("map", help="a map: GeoJSON, GeoPackage, Shapefile, FlatGeobuf or GeoParquet"
                               " (see docs/map-format.md)")
    if catalog:
        p.add_argument("--catalog", metavar="FILE", help="terrain/species catalog (TOML) laid over the default")
    p.add_argument("--tolerance", type=float, metavar="T",
                   help="drawing tolerance for shared borders (default: 1e-9 of the map's larger side)")
    fields(p)


def fields(p: argparse.ArgumentParser) -> None:
    """``--terrain-field`` and ``--id-field``: the columns of a table map."""
    p.add_argument("--terrain-field", default="terrain", metavar="COL",
                   help="the terrain column of a GeoPackage, Shapefile, FlatGeobuf or GeoParquet map (default terrain)")
    p.add_argument("--id-field", default="id", metavar="COL", help="the id column of such a map (default id)")


def field_names(args: argparse.Namespace) -> dict:
    """The ``terrain_field`` and ``id_field`` keywords of :func:`eidomap.load` from the parsed arguments, and the
    reader's from the environment (:func:`read_options`)."""
    return {"terrain_field": args.terrain_field, "id_field": args.id_field, **read_options()}


def read_options() -> dict:
    """The ``reader``, ``helper`` and ``pause_gc`` keywords of :func:`eidomap.load`: the command line reads with
    msgspec unless ``EIDOMAP_READER=json``, shares a big map with a helper process unless ``EIDOMAP_HELPER=0``,
    and pauses the garbage collector while it reads a map and builds its graph (it owns its process)."""
    return {"reader": "json" if os.environ.get("EIDOMAP_READER", "").lower() == "json" else None,
            "helper": os.environ.get("EIDOMAP_HELPER", "") != "0", "pause_gc": True}


def html_args(p: argparse.ArgumentParser) -> None:
    """``--html OUT.html`` and ``--bbox``: an interactive map (:func:`eidomap.plot.explore.explore`)."""
    p.add_argument("--html", metavar="OUT.html", help="also write an interactive map: one HTML file that opens"
                                                      " offline (needs eidomap[explore])")
    p.add_argument("--bbox", metavar="X0,Y0,X1,Y1", help="the interactive map shows only this part of the map")


def write_html(args: argparse.Namespace, m: Map, **layers: Any) -> None:
    """Write ``--html`` when asked: ``m`` with ``layers`` (route, reach, problems), then say so."""
    if not getattr(args, "html", None):
        return
    from ..plot.explore import explore, parse_bbox

    bbox = parse_bbox(args.bbox) if args.bbox else None
    explore(m, bbox=bbox, **layers).save(args.html)
    wrote(args.html, args)


def wrote(path: str, args: argparse.Namespace) -> None:
    """Say which file was written: on stdout, or on stderr when stdout carries JSON."""
    print(f"wrote {path}", file=sys.stderr if getattr(args, "json", False) else sys.stdout)


def load_map(args: argparse.Namespace) -> Map:
    from ..model import load

    m = load(args.map, catalog=getattr(args, "catalog", None), tolerance=args.tolerance,
             cache=getattr(args, "cache", False), **field_names(args))
    # the catalog the map names inside itself is an input too
    refuse_overwriting_inputs(args, tuple((s, "catalog of the map") for s in m.catalog.sources
                                          if not s.startswith("eidomap:")))
    return m


def build_parser() -> argparse.ArgumentParser:
    from . import batch, check, d20_overland, d20_tactical, formats, maps, pictures, plan  # noqa: F401  (register their commands)

    parser = Parser(
        prog="eidomap",
        description="Movement and pathfinding on tabletop-game maps made of regions (Eidos).",
        epilog="exit codes: 0 done; 1 no answer (an unreachable goal, a map with errors); 2 bad input or"
               " arguments; 3 an internal error; 130 interrupted",
    )
    parser.add_argument("--version", action="version", version=f"eidomap {__version__}")
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_commands(sub, COMMANDS)
    for group, (help_, table) in GROUPS.items():
        if table:
            g = sub.add_parser(group, help=help_, description=help_)
            g.set_defaults(group_parser=g)
            _add_commands(g.add_subparsers(dest="subcommand", metavar="COMMAND"), table)
    return parser


#: Arguments naming the files a command reads, and those naming the files it writes.
INPUTS = ("map", "grid", "source", "catalog", "legend")
OUTPUTS = ("out", "png", "html")
#: Commands whose ``--out`` is a folder they fill and resume (not a file written whole): no ``--force``.
FOLDER_OUTPUTS = ("batch",)


def refuse_overwriting_inputs(args: argparse.Namespace, read: tuple[tuple[str, str], ...] = ()) -> None:
    """:class:`RequestError` when an output argument names one of the command's input files (or
    one of ``read``: ``(file, what it is)`` pairs found on the way, such as the catalog a map names).

    No command writes over what it reads (``fix --in-place`` does, when told, keeping a backup).
    """
    inputs = {Path(v).resolve(): k for k in INPUTS if isinstance(v := getattr(args, k, None), str)}
    inputs.update((Path(v).resolve(), what) for v, what in read)
    for k in OUTPUTS:
        out = getattr(args, k, None)
        if isinstance(out, str) and Path(out).resolve() in inputs:
            raise RequestError(f"{out}: is the {inputs[Path(out).resolve()]} this command reads; eidomap never"
                               " writes over its input: choose another output file")


def refuse_replacing(args: argparse.Namespace, extra: tuple[str, ...] = ()) -> None:
    """:class:`RequestError` when an output of the command (or one of ``extra``: files it writes beside them)
    exists, unless ``--force``; even then, only a regular file is replaced (:func:`eidomap.io.files.replaceable`).

    Commands without ``--force`` write no file of their own (``batch`` fills a folder it resumes).  ``fix
    --in-place`` replaces its map on purpose (keeping a backup): a regular file only.
    """
    from ..io.files import replaceable

    force = getattr(args, "force", None)
    if force is None:
        return
    for out in [v for k in OUTPUTS if isinstance(v := getattr(args, k, None), str)] + list(extra):
        if not force and os.path.lexists(out):
            raise RequestError(f"{out}: exists; eidomap does not write over a file unless told: choose another"
                               " name, or pass --force to replace it")
        replaceable(out)
    if getattr(args, "in_place", False):
        replaceable(args.map)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    if any("\x00" in a for a in (sys.argv[1:] if argv is None else argv)):
        parser.error("an argument holds a NUL character")
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        shown = getattr(args, "group_parser", parser)
        shown.print_help()
        print(f"{shown.prog}: no command given: choose one of the list above", file=sys.stderr)
        return 2
    try:
        refuse_overwriting_inputs(args)
        refuse_replacing(args)
        with warnings.catch_warnings():
            warnings.showwarning = _warning_line(warnings.showwarning)
            return args.func(args)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("eidomap: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # every error is one line; --debug adds the traceback
        if args.debug:
            traceback.print_exc()
        code, said = _said(exc)
        print(f"eidomap: {one_line(said)}", file=sys.stderr)
        return code


def _warning_line(show: Callable) -> Callable:
    """``warnings.showwarning`` that prints eidomap's own warnings as one line, ``eidomap: warning: ...``."""

    def shown(message, category, filename, lineno, file=None, line=None):
        if not issubclass(category, EidomapWarning):
            return show(message, category, filename, lineno, file, line)
        print(f"eidomap: warning: {one_line(str(message))}", file=sys.stderr)

    return shown


def _said(exc: Exception) -> tuple[int, str]:
    """The exit code and the one line for an error: 2 for the user's, 3 for eidomap's own."""
    if isinstance(exc, EidomapError):
        return 2, str(exc)
    if isinstance(exc, OSError):
        return 2, f"{exc.filename or ''}: {exc.strerror or exc}"
    return 3, (f"internal error ({type(exc).__name__}: {exc}); please report it with the output of"
               " the same command with --debug")

