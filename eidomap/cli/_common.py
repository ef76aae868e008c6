"""What the ``eidomap`` commands share: registering a command, the options several take, writing and
refusing to replace files, and an error or a warning as one line in the flags of the command that ran.

The commands (one module per job) import from here; :mod:`eidomap.cli` builds the parser from them and runs
``main``.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from eidomap.base.errors import EidomapError, EidomapWarning, RequestError
from eidomap.base.names import did_you_mean, one_line, shown

if TYPE_CHECKING:
    from eidomap.model.map import Map

#: A subcommand's argument setup, and the subcommand (its exit code).
_Setup = Callable[[argparse.ArgumentParser], None]
_Command = Callable[[argparse.Namespace], int]

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
    """An argument parser whose usage errors are one line, like every other error, and exit 2: a command or a
    word it does not know with the nearest it knows, an option whose value begins with ``-`` with the way to
    write it (``--at=-1,0``)."""

    #: The arguments it was given (the error names the value after an option that found none).
    _given: tuple[str, ...] = ()

    def parse_known_args(self, args=None, namespace=None):
        self._given = tuple(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is not None and value not in action.choices:
            known = ", ".join(map(repr, action.choices))
            raise argparse.ArgumentError(action, f"invalid choice: {value!r}{did_you_mean(value, list(action.choices))}"
                                                 f" (choose from {known})")

    def error(self, message: str) -> NoReturn:
        found = re.fullmatch(r"argument (\S+): expected one argument", message)
        if found:  # (argparse reads a value that begins with '-', and is no negative number, as an option)
            names, given = found[1].split("/"), self._given
            value = next((v for k, v in itertools.pairwise(given) if k in names and v.startswith("-")), None)
            if value is not None:
                message += f" (a value that begins with '-' is written {names[-1]}={value})"
        self.exit(2, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def add_commands(sub, table) -> None:
    for name, (setup, fn, help_, example) in table.items():
        p = sub.add_parser(name, help=help_, description=help_, epilog=example and f"example:\n  {example}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        setup(p)
        if name not in FOLDER_OUTPUTS and any(a.dest in OUTPUTS for a in p._actions):
            p.add_argument("--force", action="store_true", help="replace an output file that exists (a regular"
                                                                " file: never a folder, link, FIFO or device)")
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP)
        p.set_defaults(func=fn, command_parser=p)


#: The characters JSON may hold unescaped that end a line for :meth:`str.splitlines`: escaped all the same.
_JSON_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def emit(obj: object) -> None:
    """Print a JSON answer: each of its lines a line of the JSON (no text of the map breaks one)."""
    print(json.dumps(obj, indent=2, ensure_ascii=False).translate(_JSON_BREAKS))


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
    """``--html OUT.html`` and ``--bbox``: an interactive map (:func:`eidomap.pages.explore.explore`)."""
    p.add_argument("--html", metavar="OUT.html", help="also write an interactive map: one HTML file that opens"
                                                      " offline (needs eidomap[explore])")
    p.add_argument("--bbox", metavar="X0,Y0,X1,Y1", help="the interactive map shows only this part of the map")


def write_html(args: argparse.Namespace, m: Map, **layers: Any) -> None:
    """Write ``--html`` when asked: ``m`` with ``layers`` (route, reach, problems), then say so."""
    if not getattr(args, "html", None):
        return
    from eidomap.pages.explore import explore, parse_bbox

    bbox = parse_bbox(args.bbox) if args.bbox else None
    explore(m, bbox=bbox, **layers).save(args.html)
    wrote(args.html, args)


def wrote(path: str, args: argparse.Namespace) -> None:
    """Say which file was written: on stdout, or on stderr when stdout carries JSON."""
    print(f"wrote {shown(path)}", file=sys.stderr if getattr(args, "json", False) else sys.stdout)


def load_map(args: argparse.Namespace, *, document: bool = True) -> Map:
    """The map of ``args.map``; ``document=False`` for a command that only asks questions of it (a big map's
    text let go once read: :func:`eidomap.load`)."""
    from eidomap.model.map import load

    m = load(args.map, catalog=getattr(args, "catalog", None), tolerance=args.tolerance,
             cache=getattr(args, "cache", False), document=document, **field_names(args))
    # the catalog the map names inside itself is an input too
    refuse_overwriting_inputs(args, tuple((s, "catalog of the map") for s in m.catalog.sources
                                          if not s.startswith("eidomap:")))
    return m


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
            raise RequestError(f"{shown(out)}: is the {inputs[Path(out).resolve()]} this command reads;"
                               " eidomap never writes over its input: choose another output file")


def refuse_replacing(args: argparse.Namespace, extra: tuple[str, ...] = ()) -> None:
    """:class:`RequestError` when an output of the command (or one of ``extra``: files it writes beside them)
    exists, unless ``--force``; even then, only a regular file is replaced (:func:`eidomap.base.files.replaceable`).

    Commands without ``--force`` write no file of their own (``batch`` fills a folder it resumes).  ``fix
    --in-place`` replaces its map on purpose (keeping a backup): a regular file only.
    """
    from eidomap.base.files import need_folder, replaceable

    force = getattr(args, "force", None)
    if force is None:
        return
    for out in [v for k in OUTPUTS if isinstance(v := getattr(args, k, None), str)] + list(extra):
        if not force and os.path.lexists(out):
            raise RequestError(f"{shown(out)}: exists; eidomap does not write over a file unless told:"
                               " choose another name, or pass --force to replace it")
        replaceable(out)
        need_folder(out)  # (before any work, as the two checks above)
    if getattr(args, "in_place", False):
        replaceable(args.map)


def warning_line(show: Callable, args) -> Callable:
    """``warnings.showwarning`` that prints eidomap's own warnings as one line, ``eidomap: warning: ...``, in the
    flags of the command ``args`` ran."""

    def show_line(message, category, filename, lineno, file=None, line=None):
        if not issubclass(category, EidomapWarning):
            return show(message, category, filename, lineno, file, line)
        print(f"eidomap: warning: {one_line(flags(str(message), args))}", file=sys.stderr)

    return show_line


#: Python parameters whose flag is not ``--`` + their name (``_`` as ``-``): parameter -> the flag's ``dest``.
PARAM_FLAGS = {"actors": "species", "max_gap": "max_gap_area", "n_eidos": "eidos", "gifts": "gift"}
#: ``name=value`` in a message: the value a literal (``...``, a string, a list or tuple, a number, a word).
_KEYWORD = re.compile(r"""(?<![\w.])([a-z_]+)="""
                      r"""(\.\.\.|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\[[^\]]*\]|\([^)]*\)|[\w.+-]+)""")


def flags(text: str, args, param: str | None = None) -> str:
    """``text`` (a library's message) with the Python parameters it names written as the flags of the command
    that ran (``args``, its parsed arguments): ``param`` (the message's first word) and ``name=...`` as the flag,
    ``name=True`` of a switch as the switch, ``name=value`` as the flag and the value.

    Names that are none of the command's flags stay as they are (see :mod:`eidomap.base.errors`).
    """
    parser = getattr(args, "command_parser", None)
    if parser is None:
        return text
    actions = {a.dest: a for a in parser._actions if a.option_strings}

    def action(name: str):
        return actions.get(PARAM_FLAGS.get(name, name))

    def keyword(match: re.Match) -> str:
        a, value = action(match[1]), match[2]
        if a is None or (a.nargs == 0 and value not in ("...", "True")):
            return match[0]
        flag = a.option_strings[-1]
        if a.nargs == 0 or value == "...":
            return flag
        if value[0] in "'\"":
            value = ast.literal_eval(value)
        elif value[0] in "[(":  # a list or tuple: comma-separated, as the command line takes it
            value = ",".join(v.strip().strip("'\"") for v in value[1:-1].split(","))
        return f"{flag} {value}"

    if param is not None and (a := action(param)) is not None and text.startswith(param):
        text = a.option_strings[-1] + text[len(param):]
    return _KEYWORD.sub(keyword, text)


def explained(exc: Exception, args=None) -> tuple[int, str]:
    """The exit code and the one line for an error (in the flags of the command ``args`` ran): 2 for the user's,
    3 for eidomap's own."""
    if isinstance(exc, EidomapError):
        return 2, flags(str(exc), args, exc.param)
    if isinstance(exc, OSError):
        return 2, f"{shown(exc.filename) if exc.filename else ''}: {exc.strerror or exc}"
    return 3, (f"internal error ({type(exc).__name__}: {exc}); please report it with the output of"
               " the same command with --debug")

