"""The ``eidomap`` command line: one module per job, all registered here.

Exit codes: 0 success; 1 a clean negative answer (goal unreachable, map has
errors); 2 bad input or bad arguments, argparse's usage errors included (one
line on stderr naming the file, the feature and what is wrong; never a
traceback); 3 an internal error, a bug of eidomap's (one line too; ``--debug``
shows the traceback of any error); 130 interrupted.

May import: every layer of eidomap below it (the command line is the top of the package but its root).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
import warnings
from functools import cache

from eidomap.base.errors import EidomapWarning
from eidomap.base.version import __version__
from eidomap.cli._common import (  # noqa: F401  (OUTPUTS, flags, read_options: the command line's, for its tests)
    COMMANDS,
    DEBUG_HELP,
    GROUPS,
    OUTPUTS,
    Parser,
    add_commands,
    explained,
    flags,
    one_line,
    read_options,
    refuse_overwriting_inputs,
    refuse_replacing,
    warning_line,
)


def build_parser() -> argparse.ArgumentParser:
    from eidomap.cli import (  # noqa: F401  (register their commands)
        batch,
        check,
        d20_grid,
        d20_overland,
        formats,
        maps,
        pictures,
        plan,
    )

    parser = Parser(
        prog="eidomap",
        description="Movement and pathfinding on tabletop-game maps made of regions (Eidos).",
        epilog="exit codes: 0 done; 1 no answer (an unreachable goal, a map with errors); 2 bad input or"
               " arguments; 3 an internal error; 130 interrupted",
    )
    parser.add_argument("--version", action="version", version=f"eidomap {__version__}")
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_commands(sub, COMMANDS)
    for group, (help_, table) in GROUPS.items():
        if table:
            g = sub.add_parser(group, help=help_, description=help_)
            g.set_defaults(group_parser=g)
            add_commands(g.add_subparsers(dest="subcommand", metavar="COMMAND"), table)
    return parser


@cache
def _parser() -> argparse.ArgumentParser:
    """The parser :func:`main` reads with, built once a process: a build takes about 8 ms (mostly argparse's
    look-ups of its translations), and a caller that runs many commands (a test suite, a notebook) paid it for
    each; reading arguments changes nothing in it but the arguments it was last given."""
    return build_parser()


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    if any("\x00" in a for a in (sys.argv[1:] if argv is None else argv)):
        parser.error("an argument holds a NUL character")
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the (sub)command that was given them, with its help
        said_by = getattr(args, "command_parser", getattr(args, "group_parser", parser))
        said_by.error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "func", None):
        shown = getattr(args, "group_parser", parser)
        shown.print_help()
        print(f"{shown.prog}: no command given: choose one of the list above", file=sys.stderr)
        return 2
    try:
        refuse_overwriting_inputs(args)
        refuse_replacing(args)
        with warnings.catch_warnings():
            warnings.showwarning = warning_line(warnings.showwarning, args)
            warnings.simplefilter("always", EidomapWarning)  # each one a line, whatever filters the caller set
            return args.func(args)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("eidomap: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # every error is one line; --debug adds the traceback
        if args.debug:
            traceback.print_exc()
        code, said = explained(exc, args)
        print(f"eidomap: {one_line(said)}", file=sys.stderr)
        return code


def run() -> None:
    """The ``eidomap`` program: :func:`main`, then the process ends without taking its objects apart one by one.

    A million-Eido map is millions of objects (Shapely's geometries, ids,
    arrays); freeing them as the interpreter exits took a third of a second
    after the answer was out.  By then every file the command wrote is closed
    (each in its own ``with``) and eidomap registers no exit handler; the
    standard streams are flushed here.  After a Dask run, or with worker
    processes still alive (a batch whose workers died), the interpreter exits
    as usual: the exit handlers of Dask and of :mod:`multiprocessing` end what
    they started.
    """
    code = main()
    mp = sys.modules.get("multiprocessing")
    if "distributed" in sys.modules or (mp is not None and mp.active_children()):
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe, a closed stream: nothing more can be said on it
            pass
    os._exit(code)
