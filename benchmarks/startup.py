"""Workload 8: start-up -- a route on the demo map, end to end, against bare imports.

eidomap: ``eidomap route maps/demo.geojson --from A --to B --species human``
(the console script, a fresh process each time).  Peer: ``python -c "import
numpy, shapely, scipy.sparse.csgraph"``.  The two are run alternately, after one
warm-up each, and the medians compared; bar: within 1.5x.  Agreement: the route
exits 0 and imports neither networkx nor matplotlib, nor SciPy's csgraph (a small
map's route searches without it: :data:`eidomap.base.settings.PYTHON_DIAL_UP_TO`).  A smoke run (the test
suite's: its times are not judged) runs each once, with no warm-up, and times
the route the probe of its imports runs.

The demo map is used once ``maps/README.md`` names a route on it (``--from A --to
B`` with ids of the map); until then a small generated map stands in, and the
row says which map it ran on.
"""

from __future__ import annotations

import json
import re
import statistics
import sys

from .harness import (
    ROOT,
    Config,
    Context,
    MapFile,
    Row,
    eidomap_command,
    ensure_map,
    probe,
    run_child,
)

__all__ = ["STAND_IN_EIDOS", "demo_route", "run", "sizes"]

#: Size of the generated map used while the demo map has not landed.
STAND_IN_EIDOS = 100
PEER = "import numpy, shapely, scipy.sparse.csgraph"


def sizes(cfg: Config) -> list[None]:
    return [None]


def _runs(cfg: Config) -> int:
    return {"full": 9, "quick": 3, "smoke": 1}[cfg.mode]


def demo_route() -> tuple[MapFile, str] | None:
    """The demo map and the route its README shows (ids and species), when both are there and the ids exist."""
    demo, readme = ROOT / "maps" / "demo.geojson", ROOT / "maps" / "README.md"
    if not (demo.is_file() and readme.is_file()):
        return None
    route = None
    for line in readme.read_text().splitlines():
        start, goal = re.search(r"--from[ =]+([\w@.-]+)", line), re.search(r"--to[ =]+([\w@.-]+)", line)
        species = re.search(r"--species[ =]+([\w-]+)", line)
        if "route" in line and start and goal:
            route = start.group(1), goal.group(1), species.group(1) if species else "human"
            break
    if route is None:
        return None
    start, goal, species = route
    try:
        doc = json.loads(demo.read_text())
        ids = {str(f.get("id", f.get("properties", {}).get("id"))) for f in doc.get("features", [])}
    except (OSError, ValueError):
        return None
    return (MapFile(demo, len(ids), start, goal), species) if {start, goal} <= ids else None


def run(ctx: Context, n: None) -> None:
    cfg = ctx.cfg
    demo = demo_route()
    which = "demo map"
    if demo is None:
        mf, species = ensure_map(STAND_IN_EIDOS, cfg), "human"
        which = f"generated {STAND_IN_EIDOS}-Eido map (the demo map has not landed)"
        ctx.report.note(f"start-up ran on a {which}")
    else:
        mf, species = demo
    args = ["route", str(mf.path), "--from", mf.start, "--to", mf.goal, "--species", species]
    query = [*eidomap_command(), *args]
    peer = [sys.executable, "-c", PEER]
    bare = [sys.executable, "-c", "pass"]
    smoke = cfg.mode == "smoke"  # its times are not judged: no warm-up, and the probe's route is the one timed
    for argv in () if smoke else (query, peer, bare):  # warm-up: file cache, byte code
        run_child(argv)
    mine, theirs, empty = [], [], []
    for _ in range(0 if smoke else _runs(cfg)):
        mine.append(run_child(query))
        theirs.append(run_child(peer).check("bare imports"))
        empty.append(run_child(bare))
    probed = probe(["eidomap", *args])
    imported = probed.check("start-up probe").info["imported"]
    if smoke:
        mine, theirs, empty = [probed], [run_child(peer).check("bare imports")], [run_child(bare)]
    rc = {r.returncode for r in mine}
    clean = rc == {0} and not {"networkx", "matplotlib", "scipy.sparse.csgraph"} & set(imported)
    med = statistics.median
    ctx.report.add(Row(
        "start-up", None, f"eidomap route on the {which}", med(r.seconds for r in mine),
        f"python -c \"{PEER}\"", med(r.seconds for r in theirs), 1.5, "≤ 1.5", clean,
        f"exit {sorted(rc)}; imported: {', '.join(imported) or 'no networkx/matplotlib/numba/pandas'};"
        f" python -c pass {med(r.seconds for r in empty):.3f} s",
        runs=len(mine), extra={"runs_s": [r.seconds for r in mine], "peer_runs": [r.seconds for r in theirs],
                               "map": str(mf.path.relative_to(ROOT)), "start": mf.start, "goal": mf.goal,
                               "species": species},
    ))
