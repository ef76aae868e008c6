"""Run one command in a fresh process and report how it went, as the last line of stdout.

    python benchmarks/probe.py eidomap ARGS...           # eidomap.cli.main(ARGS), like the console script
    python benchmarks/probe.py call MODULE:FUNC ARGS...  # FUNC(*ARGS)
    python benchmarks/probe.py --at DIR eidomap ARGS...  # the eidomap of the checkout DIR (another commit)

The exit code is the command's.  The last line is JSON: what ``FUNC``
returned (a dict), the exit code, the peak resident set size of this
process (``VmHWM`` of ``/proc/self/status``: the high-water mark of the memory
of *this* program, which starts afresh at ``exec``, unlike ``ru_maxrss``, which
on Linux also counts the pages the parent had when it forked), the sum of the
peaks of its child processes (eidomap's helper process; their ``VmHWM``, polled
every 0.2 s, for ``RUSAGE_CHILDREN`` has the same flaw) and which heavy
packages were imported.  Run as a file, so that it imports nothing but what the
command imports (not the ``benchmarks`` package).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
from pathlib import Path

HEAVY = ("networkx", "matplotlib", "numba", "pandas", "geopandas", "libpysal", "scipy.sparse.csgraph")


def peak_rss_mib(pid: str = "self") -> float | None:
    """``VmHWM`` of process ``pid`` (this one by default) in MiB (None where ``/proc`` is not there)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


class Children(threading.Thread):
    """Polls the peak RSS of this process's children while the command runs: ``peaks``, MiB by pid."""

    def __init__(self, every: float = 0.2):
        super().__init__(daemon=True)
        self.every, self.peaks, self.done = every, {}, threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.every):
            self.poll()

    def poll(self) -> None:
        me = os.getpid()
        try:
            pids = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
        except OSError:
            return
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat", "rb") as fh:  # "pid (name) state ppid ...": ppid after the name
                    ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            peak = peak_rss_mib(pid) if ppid == me else None
            if peak is not None:
                self.peaks[pid] = max(self.peaks.get(pid, 0.0), peak)

    def stop(self) -> float:
        """Stop polling; the sum of the children's peaks (MiB)."""
        self.done.set()
        self.join()
        return sum(self.peaks.values())


def main(argv: list[str]) -> int:
    out: dict = {}
    if argv[:1] == ["--at"] and len(argv) >= 3:
        sys.path.insert(0, str(Path(argv[1]).resolve()))
        argv = argv[2:]
    children = Children()
    children.start()
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
    out.update(peak_mib=peak_rss_mib(), children_peak_mib=children.stop(),
               imported=[m for m in HEAVY if m in sys.modules])
    print(json.dumps(out))
    return out["rc"]


if __name__ == "__main__":
    # run as a file: drop this folder from the path (its modules are not
    # top-level packages) and put the repository there, for ``call benchmarks.X:f``
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    rc = main(sys.argv[1:])
    mp = sys.modules.get("multiprocessing")
    if "distributed" in sys.modules or (mp is not None and mp.active_children()):  # (as eidomap.cli.run)
        sys.exit(rc)
    sys.stdout.flush()
    os._exit(rc)  # as the eidomap program ends (eidomap.cli.run): without taking the objects apart one by one
