"""Shared machinery of the benchmark suite: timing, child processes, maps, the report.

* **Time** is the median of several ``time.perf_counter`` runs after one
  warm-up run (:func:`timed`); long workloads get fewer runs so that a
  measurement stays within a time budget, and the number of runs is recorded.
* **Peak memory** is the peak resident set size of a *child process* that
  runs the workload, which reports its own ``VmHWM`` as it ends
  (:mod:`benchmarks.probe`).  Not ``ru_maxrss`` (from ``os.wait4`` or
  ``RUSAGE_CHILDREN``): on Linux that also counts the pages the parent held
  when it forked, so a child of a big benchmark process would inherit its
  size.  RSS, not ``tracemalloc``: the bar is about what the machine has to
  hold, and GEOS and numba allocate outside Python's tracked heap.
* **Agreement**: every comparison row says whether eidomap and the peer gave the
  same answer; a row that disagrees is a FAIL whatever its timings.
* **Report**: rows are written as JSON and as a Markdown table (:class:`Report`).

>>> parse_sizes("10k,100k,1M")
[10000, 100000, 1000000]
>>> verdict(0.5, 1.2, True)
'PASS'
>>> verdict(0.3, 0.2, True)
'MISS (1.50x over)'
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

__all__ = [
    "DATA",
    "RESULTS",
    "ROOT",
    "SEED",
    "ChildRun",
    "Config",
    "Context",
    "MapFile",
    "Report",
    "Row",
    "Timing",
    "eidomap_command",
    "ensure_cells",
    "ensure_map",
    "from_tests",
    "machine",
    "missing",
    "parse_sizes",
    "probe",
    "run_child",
    "size_label",
    "timed",
    "verdict",
    "write_cache",
]

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data"
RESULTS = ROOT / "benchmarks" / "results"

#: Seed of every generated map and cell set.
SEED = 1


@dataclass
class Config:
    """What to run: the sizes (Eidos), the mode and where to put things."""

    sizes: list[int]
    mode: str = "full"  # "full", "quick" or "smoke"
    only: tuple[str, ...] = ()
    seed: int = SEED
    data: Path = DATA
    #: seconds one measurement may take (warm-up excluded) before fewer runs are made
    budget: float = 20.0
    max_runs: int = 7
    #: a checkout of an older commit (the issue's baseline) that the cold route query is timed against, if given
    baseline: Path | None = None

    @property
    def small(self) -> bool:
        """Quick or smoke: fewer runs and samples."""
        return self.mode != "full"

    @property
    def most_runs(self) -> int:
        """The most timed runs of one measurement: :attr:`max_runs` in a full run, 3 in a quick one, 1 in a smoke run
        (the test suite's: its times are not judged, only that every workload runs and agrees)."""
        return {"full": self.max_runs, "quick": 3}.get(self.mode, 1)


def parse_sizes(text: str) -> list[int]:
    """``"10k,100k,1M"`` -> ``[10000, 100000, 1000000]``."""
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        m = re.fullmatch(r"(\d+(?:\.\d+)?)([km]?)", part)
        if not m:
            raise ValueError(f"size {part!r} is not a number like 2000, 10k or 1M")
        out.append(round(float(m.group(1)) * {"": 1, "k": 1_000, "m": 1_000_000}[m.group(2)]))
    return out


def size_label(n: int | None) -> str:
    """``100000`` -> ``"100k"``, ``1000000`` -> ``"1M"``."""
    if n is None:
        return "-"
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1_000 and n % 1_000 == 0:
        return f"{n // 1_000}k"
    return str(n)


# -- timing ---------------------------------------------------------------------
@dataclass
class Timing:
    """Median seconds of ``runs`` timed calls, every run, and the last result."""

    seconds: float
    runs: list[float]
    warmup: float | None
    value: object = None


#: A quick call is timed more often: as many runs as fit in ``FAST_SECONDS``, up to ``FAST_RUNS`` (the medians of
#: the quick report's sub-millisecond rows moved by 30-100 % from one run to the next on three runs each)
FAST_SECONDS = 0.05
FAST_RUNS = 100


def timed(fn: Callable[[], object], cfg: Config, *, warmup: bool = True, runs: int | None = None) -> Timing:
    """Median wall time of ``fn()`` over several runs after a warm-up run.

    The number of runs is ``runs`` if given, else as many as fit in
    ``cfg.budget`` seconds judged from the first call (at least 1, at most
    ``cfg.most_runs``, or as many as fit in :data:`FAST_SECONDS` up to :data:`FAST_RUNS` for a quick call outside
    a smoke run).  With
    ``warmup=False`` (for calls of many seconds, where nothing is left to
    warm) the first call is one of the timed runs -- and in a smoke run, whose
    times are not judged (only that each workload runs and agrees).
    """
    cap = cfg.most_runs
    warmup = warmup and cfg.mode != "smoke"
    times: list[float] = []
    t0 = time.perf_counter()
    value = fn()
    first = time.perf_counter() - t0
    if not warmup:
        times.append(first)
    if runs is None:
        if cfg.mode != "smoke":  # (a call of a millisecond or less: three runs sample the machine, not the call)
            cap = max(cap, min(FAST_RUNS, int(FAST_SECONDS // max(first, 1e-9))))
        runs = int(max(1, min(cap, cfg.budget // max(first, 1e-9))))
    while len(times) < runs:
        value = None
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return Timing(statistics.median(times), times, first if warmup else None, value)


# -- child processes ------------------------------------------------------------------
PROBE = ROOT / "benchmarks" / "probe.py"


@dataclass
class ChildRun:
    """A finished child process: wall seconds, output, exit code."""

    seconds: float
    stdout: str
    stderr: str
    returncode: int

    def check(self, what: str) -> ChildRun:
        if self.returncode != 0:
            tail = self.stderr.strip().splitlines()[-5:]
            raise RuntimeError(f"{what} exited {self.returncode}: " + " | ".join(tail))
        return self

    @property
    def info(self) -> dict:
        """The last line of stdout as JSON (what :mod:`benchmarks.probe` prints)."""
        return json.loads(self.stdout.strip().splitlines()[-1])

    @property
    def peak_mib(self) -> float | None:
        """Peak RSS of the command: the child's own (``VmHWM``; see :mod:`benchmarks.probe`) plus its children's."""
        own = self.info.get("peak_mib")
        return None if own is None else own + self.children_peak_mib

    @property
    def children_peak_mib(self) -> float:
        """The sum of the peak RSS of the child's own child processes (eidomap's helper process), MiB."""
        return self.info.get("children_peak_mib") or 0.0


def run_child(argv: list[str], env: dict | None = None, timeout: float = 7200.0) -> ChildRun:
    """Run ``argv`` in the repository folder; its wall time, output and exit code.

    The child may cache bytecode, as an installed package has it compiled: a
    shell that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise have eidomap
    compile its sources on every start (the peers' come compiled with them).
    """
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    t0 = time.perf_counter()
    p = subprocess.run(argv, check=False, capture_output=True, env={**base, **(env or {})}, cwd=ROOT,
                       timeout=timeout)
    seconds = time.perf_counter() - t0
    return ChildRun(seconds, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), p.returncode)


def probe(args: list[str], env: dict | None = None, timeout: float = 7200.0) -> ChildRun:
    """``python benchmarks/probe.py ARGS``: a command in a fresh process, with its peak RSS (see there)."""
    return run_child([sys.executable, str(PROBE), *map(str, args)], env=env, timeout=timeout)


def write_cache(path: Path, writer: list, cfg: Config) -> None:
    """The cache beside the map at ``path`` written (a workload's set-up, not timed): by the command ``writer`` (for
    :func:`probe`: ``eidomap ... --cache``) in a child, so that this process stays lean on a big map; in a smoke
    run, whose map is small, by ``eidomap.load(path, cache=True)`` here -- what the command runs (one process
    start-up fewer)."""
    if cfg.mode == "smoke":
        import eidomap

        eidomap.load(path, cache=True)
    else:
        probe(writer).check("cache writer")


def missing(*modules: str) -> list[str]:
    """Which of ``modules`` are not installed (a peer that is absent is left out, with a note)."""
    from importlib.util import find_spec

    return [m for m in modules if find_spec(m) is None]


def from_tests(module: str):
    """A helper module of ``tests/`` (an oracle, a comparison), imported as the test suite imports it."""
    import importlib

    sys.path.insert(0, str(ROOT / "tests"))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.pop(0)


def eidomap_command() -> list[str]:
    """The ``eidomap`` console script of this environment (``python -m eidomap`` if absent)."""
    script = Path(sys.executable).with_name("eidomap")
    if script.is_file():
        return [str(script)]
    found = shutil.which("eidomap")
    return [found] if found else [sys.executable, "-m", "eidomap"]


# -- maps -----------------------------------------------------------------------
@dataclass
class MapFile:
    """A generated map file and two land Eidos far apart (first and last in the file)."""

    path: Path
    eidos: int
    start: str
    goal: str


_EIDO = re.compile(rb'"id":"([^"]+)","properties":\{"kind":"eido","terrain":"([a-z_]+)"')


def ensure_map(n: int, cfg: Config) -> MapFile:
    """The map of ``n`` Eidos (seed ``cfg.seed``) in ``cfg.data``; written with ``eidomap generate`` if absent (in a
    smoke run, whose map is small, by the function it runs, here: one process start-up fewer; the generate workload
    runs the command, and checks that it writes the same bytes)."""
    cfg.data.mkdir(parents=True, exist_ok=True)
    path = cfg.data / f"map-{size_label(n)}-s{cfg.seed}.geojson"
    side = path.with_suffix(".ids.json")
    if not path.is_file():
        side.unlink(missing_ok=True)
        if cfg.mode == "smoke":
            from eidomap.model.generate import write_generated

            write_generated(path, n, cfg.seed, show=False)
        else:
            run_child([*eidomap_command(), "generate", "--eidos", str(n), "--seed", str(cfg.seed), str(path)],
                      timeout=7200).check(f"eidomap generate --eidos {n}")
    if side.is_file():
        ids = json.loads(side.read_text())
        if ids.get("bytes") == path.stat().st_size:
            return MapFile(path, n, ids["start"], ids["goal"])
    from eidomap.model.generate import LAND

    land = [m.group(1).decode() for m in _EIDO.finditer(path.read_bytes()) if m.group(2).decode() in LAND]
    side.write_text(json.dumps({"start": land[0], "goal": land[-1], "bytes": path.stat().st_size}))
    return MapFile(path, n, land[0], land[-1])


def ensure_cells(n: int, cfg: Config) -> np.ndarray:
    """``eidomap.model.generate.voronoi_cells(n, default_rng(seed), side=sqrt(n) * 10)``, kept as a ``.npz``.

    These are exactly the Eidos of the generated map of the same size and
    seed (the generator draws them first).  The coordinates are stored with
    their ring and polygon offsets (no pickle) and rebuilt with Shapely.
    """
    import shapely

    cfg.data.mkdir(parents=True, exist_ok=True)
    path = cfg.data / f"cells-{size_label(n)}-s{cfg.seed}.npz"
    if path.is_file():
        with np.load(path, allow_pickle=False) as z:
            return shapely.from_ragged_array(shapely.GeometryType.POLYGON, z["coords"],
                                             (z["ring_offsets"], z["poly_offsets"]))
    from eidomap.model.generate import voronoi_cells

    cells = voronoi_cells(n, np.random.default_rng(cfg.seed), side=float(np.sqrt(n) * 10.0))
    if np.all(shapely.get_type_id(cells) == shapely.GeometryType.POLYGON):
        _, coords, (ring_off, poly_off) = shapely.to_ragged_array(cells)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, coords=coords, ring_offsets=ring_off, poly_offsets=poly_off)
        tmp.replace(path)
    return cells


class Context:
    """What the workloads share during a run: the config, the report, the loaded map."""

    def __init__(self, cfg: Config, report: Report):
        self.cfg = cfg
        self.report = report
        self._map: tuple[int, object] | None = None
        self._probed: dict[tuple, ChildRun] = {}

    def map_file(self, n: int) -> MapFile:
        return ensure_map(n, self.cfg)

    def map(self, n: int):
        """``eidomap.load`` of the generated map of ``n`` Eidos (one size kept at a time).

        Loaded with ``cache=True``: the compiled graph is kept beside the map,
        so that later runs skip topology (the in-process workloads time the
        searches, not the loading).
        """
        if self._map is None or self._map[0] != n:
            import eidomap

            self._map = None
            self._map = (n, eidomap.load(self.map_file(n).path, cache=True))
        return self._map[1]

    def forget(self) -> None:
        self._map = None

    def route_probe(self, args: list) -> ChildRun:
        """:func:`probe` of an ``eidomap route MAP ...`` command; in a smoke run (its times not judged), a command
        already run with the map's cache in the same state (present or not) gives that run again: the end to end,
        memory, query and stages workloads run the same commands, which print and import the same each time."""
        if self.cfg.mode != "smoke":
            return probe(args)
        from eidomap.model.cache import path_for

        key = (*map(str, args), path_for(args[2]).exists())
        if key not in self._probed:
            self._probed[key] = probe(args)
        return self._probed[key]


# -- verdicts and the report ------------------------------------------------------
def verdict(ratio: float | None, bar: float | None, agree: bool | None, failed: str | None = None) -> str:
    """PASS, MISS (by how much), FAIL (an error, or a disagreement) or INFO (no bar)."""
    if failed:
        return f"FAIL ({failed})"
    if agree is False:
        return "FAIL (disagrees)"
    if bar is None or ratio is None:
        return "INFO"
    if ratio <= bar:
        return "PASS"
    return f"MISS ({ratio / bar:.2f}x over)"


@dataclass
class Row:
    """One measurement: eidomap (and a peer, a ratio and a bar when there is one).

    ``ratio`` is eidomap's time over the peer's (below 1: eidomap is faster);
    ``bar`` is the largest ratio the issue allows.  A row without a peer (a
    memory limit) puts its measured value over the limit in ``score``.  A row
    whose eidomap side could not run says why in ``failed``.
    ``table`` is the section of the Markdown report: ``speed``, ``robustness``
    or ``measure``.
    """

    workload: str
    size: int | None
    case: str
    seconds: float | None
    peer: str | None = None
    peer_seconds: float | None = None
    bar: float | None = None
    bar_text: str | None = None
    agree: bool | None = None
    detail: str = ""
    peak_mib: float | None = None
    table: str = "speed"
    runs: int | None = None
    score: float | None = None
    failed: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        """eidomap's time over the peer's; for a row without a peer, ``score`` (value over its limit)."""
        if self.seconds is None or not self.peer_seconds:
            return self.score
        return self.seconds / self.peer_seconds

    @property
    def verdict(self) -> str:
        return verdict(self.ratio, self.bar, self.agree, self.failed)

    def as_dict(self) -> dict:
        out = asdict(self)
        out["ratio"] = self.ratio
        out["verdict"] = self.verdict
        return out


class Report:
    """The rows of a run, its notes, and the machine it ran on."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.rows: list[Row] = []
        self.notes: list[str] = []
        self.errors: list[str] = []
        self.started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        self.machine = machine()
        self._t0 = time.perf_counter()

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        ratio = f" ratio {row.ratio:.3f}" if row.ratio is not None else ""
        secs = "-" if row.seconds is None else f"{row.seconds:.4f}s"
        print(f"  [{row.workload} {size_label(row.size)}] {row.case}: {secs}{ratio} {row.verdict}"
              f"{' ' + row.detail if row.detail else ''}", file=sys.stderr, flush=True)
        return row

    def note(self, text: str) -> None:
        self.notes.append(text)
        print(f"  note: {text}", file=sys.stderr, flush=True)

    @property
    def ok(self) -> bool:
        """No disagreement, no eidomap failure and no workload that crashed."""
        return not self.errors and all(r.agree is not False and not r.failed for r in self.rows)

    def as_dict(self) -> dict:
        return {
            "started": self.started,
            "seconds": round(time.perf_counter() - self._t0, 1),
            "mode": self.cfg.mode,
            "sizes": self.cfg.sizes,
            "only": list(self.cfg.only),
            "seed": self.cfg.seed,
            "machine": self.machine,
            "ok": self.ok,
            "rows": [r.as_dict() for r in self.rows],
            "notes": self.notes,
            "errors": self.errors,
        }

    def write(self, json_path: Path) -> tuple[Path, Path]:
        """Write the JSON and, beside it, the Markdown (same name, ``.md``)."""
        json_path = Path(json_path)
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(self.as_dict(), indent=1, default=_jsonable) + "\n")
        md_path = json_path.with_suffix(".md")
        md_path.write_text(self.markdown())
        return json_path, md_path

    def markdown(self) -> str:
        m = self.machine
        lines = [
            f"# eidomap benchmarks ({self.cfg.mode}, {self.started})",
            "",
            (f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB RAM, {m['os']};"
             f" Python {m['python']}; load average at start {m['load_average']}."),
            "Versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + ".",
            f"eidomap at commit {m['eidomap_commit'] or '?'}"
            + (f" with uncommitted changes in {', '.join(m['eidomap_uncommitted'])}." if m["eidomap_uncommitted"]
               else " (no uncommitted changes under eidomap/)."),
            "",
            ("Ratio = eidomap's time / the peer's (below 1: eidomap is faster). Bar = the largest ratio"
             " issue 6 allows. Times are medians of the runs shown (eidomap's/the peer's where they differ),"
             " after a warm-up."),
            "",
        ]
        speed = [r for r in self.rows if r.table == "speed"]
        if speed:
            lines += [
                "| Workload | Eidos | Case | eidomap (s) | Peer | Peer (s) | Ratio | Bar | Verdict | Agreement"
                " | Runs |",
                "|---|---|---|---:|---|---:|---:|---|---|---|---:|",
            ]
            lines += [
                f"| {r.workload} | {size_label(r.size)} | {r.case} | {_s(r.seconds)} | {r.peer or '-'}"
                f" | {_s(r.peer_seconds)} | {_ratio(r.ratio)} | {r.bar_text or '-'} | {r.verdict}"
                f" | {_agree(r)} | {_runs(r)} |"
                for r in speed
            ]
            lines.append("")
        rob = [r for r in self.rows if r.table == "robustness"]
        if rob:
            lines += [
                "Robustness: every second cell `shapely.segmentize`d; truth = the pairs of the clean map.",
                "",
                "| Eidos | Method | Time (s) | True pairs found | False pairs | Verdict |",
                "|---|---|---:|---:|---:|---|",
            ]
            lines += [
                f"| {size_label(r.size)} | {r.case} | {_s(r.seconds)} | {r.extra['found'] * 100:.2f} %"
                f" | {r.extra['false']} | {_robust(r)} |"
                for r in rob
            ]
            lines.append("")
        meas = [r for r in self.rows if r.table == "measure"]
        if meas:
            lines += ["| Workload | Eidos | Measure | Time (s) | Peak RSS (MiB) | Bar | Verdict | Notes |",
                      "|---|---|---|---:|---:|---|---|---|"]
            lines += [
                f"| {r.workload} | {size_label(r.size)} | {r.case} | {_s(r.seconds)}"
                f" | {'-' if r.peak_mib is None else f'{r.peak_mib:,.0f}'} | {r.bar_text or '-'}"
                f" | {r.verdict} | {r.detail or ''} |"
                for r in meas
            ]
            lines.append("")
        if self.notes:
            lines += ["Notes:", ""] + [f"* {n}" for n in self.notes] + [""]
        if self.errors:
            lines += ["Errors:", ""] + [f"* {e}" for e in self.errors] + [""]
        return "\n".join(lines)


def _s(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def _ratio(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.3f}" if x < 0.1 else f"{x:.2f}"


def _runs(r: Row) -> str:
    """eidomap's runs, and the peer's when they differ."""
    peer = r.extra.get("peer_runs")
    if isinstance(peer, list) and r.runs and len(peer) != r.runs:
        return f"{r.runs}/{len(peer)}"
    return str(r.runs or "-")


def _robust(r: Row) -> str:
    """eidomap must find every true pair and no false one; the peers are measured, not judged."""
    if r.failed:
        return r.verdict
    return {True: "PASS", False: "**FAIL**", None: "-"}[r.agree]


def _agree(r: Row) -> str:
    mark = {True: "yes", False: "**NO**", None: "-"}[r.agree]
    return f"{mark}: {r.detail}" if r.detail else mark


def _jsonable(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, Path):
        return str(x)
    raise TypeError(f"not JSON: {type(x)}")


def _git(*args: str, cwd: Path = ROOT) -> str:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def commit_of(checkout: Path) -> str:
    """The short commit a checkout is at ("unknown" if git cannot tell)."""
    return _git("rev-parse", "--short", "HEAD", cwd=checkout) or "unknown"


def machine() -> dict:
    """CPU, cores, memory, OS, Python, the versions of eidomap and its peers, and the code's git state."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    except (ValueError, OSError):
        mem = float("nan")
    versions = {}
    for mod in ("eidomap", "numpy", "scipy", "shapely", "numba", "networkx", "rustworkx", "igraph",
                "libpysal", "geopandas", "pyogrio"):
        try:
            versions[mod] = version(mod)
        except PackageNotFoundError:
            versions[mod] = "absent"
    return {
        "eidomap_commit": _git("rev-parse", "--short", "HEAD"),
        "eidomap_uncommitted": [line[3:] for line in _git("status", "--porcelain", "--", "eidomap").splitlines()],
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(mem, 1),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "load_average": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "versions": versions,
    }
