"""Run one command in a fresh process and report how it went, as the last line of stdout.

    python benchmarks/probe.py eidomap ARGS...           # eidomap.cli.main(ARGS), like the console script
    python benchmarks/probe.py call MODULE:FUNC ARGS...  # FUNC(*ARGS)

The exit code is the command's.  The last line is JSON: what ``FUNC``
returned (a dict), the exit code, the peak resident set size of this
process (``VmHWM`` of ``/proc/self/status``: the high-water mark of the memory
of *this* program, which starts afresh at ``exec``, unlike ``ru_maxrss``, which
on Linux also counts the pages the parent had when it forked) and which heavy
packages were imported.  Run as a file, so that it imports nothing but what the
command imports (not the ``benchmarks`` package).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

HEAVY = ("networkx", "matplotlib", "numba", "pandas", "geopandas", "libpysal")


def peak_rss_mib() -> float | None:
    """``VmHWM`` of this process in MiB (None where ``/proc`` is not there)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def main(argv: list[str]) -> int:
    out: dict = {}
    if argv[:1] == ["eidomap"]:
        from eidomap.cli import main as eidomap_main

        out["rc"] = eidomap_main(argv[1:])
    elif argv[:1] == ["call"] and len(argv) >= 2:
        module, func = argv[1].split(":")
        out.update(getattr(importlib.import_module(module), func)(*argv[2:]) or {})
        out.setdefault("rc", 0)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.flush()
    out.update(peak_mib=peak_rss_mib(), imported=[m for m in HEAVY if m in sys.modules])
    print(json.dumps(out))
    return out["rc"]


if __name__ == "__main__":
    # run as a file: drop this folder from the path (its modules are not
    # top-level packages) and put the repository there, for ``call benchmarks.X:f``
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    sys.exit(main(sys.argv[1:]))
