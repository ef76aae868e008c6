"""Fuzz eidomap's readers and command line: ``python benchmarks/fuzz.py --minutes N``.

Each target (:mod:`benchmarks.fuzz_targets`) runs for N minutes in child
processes, with atheris (coverage-guided libFuzzer) when it is installed,
otherwise with hypothesis generating mutants of the seed files.  A child counts
the inputs it tried and records each finding once by signature (exception type
and innermost eidomap line), with the first input that showed it; an input
that runs longer than ``--hang`` seconds is a hang, one that makes the child
use more than ``--rss-mb`` is killed as out of memory, and the child is
restarted on the time left.  A child that has grown past half of ``--rss-mb``
between inputs (atheris keeps what the inputs compared: 300 MB a minute on SVG
text) ends and a fresh one takes the time left, from the corpus on disk.  The
figures go to ``--out`` (JSON per target) and to stdout as a Markdown table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # fuzz this checkout, whatever eidomap is installed

OUT = ROOT / "benchmarks" / "results" / "fuzz"
STATS_EVERY = 1.0
#: The least time left (seconds) for which the driver starts a child: its start-up (the imports) takes about half
#: a second of it.
LEAST_CHILD_SECONDS = 1.0
#: The targets of :data:`benchmarks.fuzz_targets.TARGETS` (named here: a child must not import eidomap before atheris
#: instruments it).
NAMES = ("geojson", "lanes", "catalog", "tiled", "svg", "svg-numbers", "tiled-numbers", "grid", "cli", "cache",
         "cacheflip", "batchresume", "gpkg-text", "fgb-text", "geoarrow", "fgbflip")


class Hang(Exception):
    """An input ran longer than the hang limit."""


class Child:
    """One fuzzing process: runs inputs, counts them and writes its figures to ``stats``."""

    def __init__(self, name: str, stats: Path, artifacts: Path, hang: float, recycle_mb: float = math.inf):
        from benchmarks.fuzz_targets import TARGETS

        self.name, self.target = name, TARGETS[name]
        self.stats, self.artifacts, self.hang, self.recycle_mb = stats, artifacts, hang, recycle_mb
        self.folder = Path(tempfile.mkdtemp(prefix=f"eidomap-fuzz-{name}-"))
        self.execs, self.findings, self.written = 0, {}, 0.0
        self.started = time.monotonic()
        signal.signal(signal.SIGALRM, self._alarm)

    def _alarm(self, *_):
        raise Hang(f"ran longer than {self.hang:g} s")

    def one(self, data: bytes) -> None:
        """Run one input; record what it broke."""
        from benchmarks.fuzz_targets import describe

        self.current, self.since = data, time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, self.hang)
        try:
            self.target.run(self.folder, data)
        except Exception as exc:  # every escape is a finding
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.record("hang" if isinstance(exc, Hang) else describe(exc), str(exc), data)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        self.execs += 1
        self.since = None
        if time.monotonic() - self.written > STATS_EVERY:
            self.save()
            if _resident_mb() > self.recycle_mb:  # grown between inputs (atheris keeps what the inputs compared):
                shutil.rmtree(self.folder, ignore_errors=True)  # a fresh child takes the time left, from the
                os._exit(0)  # corpus on disk, before the limit is near (else every input then fails to allocate)

    def record(self, signature: str, message: str, data: bytes) -> None:
        seen = self.findings.setdefault(signature, {"count": 0})
        seen["count"] += 1
        if seen["count"] == 1:
            self.artifacts.mkdir(parents=True, exist_ok=True)
            example = self.artifacts / f"{self.name}-{hashlib.sha1(data).hexdigest()[:12]}"
            example.write_bytes(data)
            seen.update(example=os.path.relpath(example, ROOT), message=message[:300])
            self.save()

    def save(self) -> None:
        self.written = time.monotonic()
        tmp = self.stats.with_suffix(".tmp")
        tmp.write_text(json.dumps({"execs": self.execs, "findings": self.findings}))
        os.replace(tmp, self.stats)

    def watchdog(self) -> None:
        """Kill the process when one input is stuck where the alarm cannot reach (inside C code)."""
        while True:
            time.sleep(1.0)
            since = getattr(self, "since", None)
            if since is not None and time.monotonic() - since > 3 * self.hang:
                self.record("hang (stuck in C code)", f"ran longer than {3 * self.hang:g} s", self.current)
                os._exit(77)

    def run(self, seconds: float, engine: str, corpus: Path) -> None:
        threading.Thread(target=self.watchdog, daemon=True).start()
        seeds = self.target.seeds()
        try:
            if engine == "atheris":
                self._atheris(seconds, seeds, corpus)
            else:
                self._hypothesis(seconds, seeds)
        finally:
            self.save()
            shutil.rmtree(self.folder, ignore_errors=True)

    def _atheris(self, seconds: float, seeds: list[bytes], corpus: Path) -> None:
        import atheris

        corpus.mkdir(parents=True, exist_ok=True)
        self.artifacts.mkdir(parents=True, exist_ok=True)
        for s in seeds:
            (corpus / hashlib.sha1(s).hexdigest()).write_bytes(s)
        atheris.Setup([sys.argv[0], f"-max_total_time={int(seconds)}", "-timeout=0", "-rss_limit_mb=0",
                       "-max_len=65536", f"-artifact_prefix={self.artifacts}/", str(corpus)], self.one)
        atheris.Fuzz()

    def _hypothesis(self, seconds: float, seeds: list[bytes]) -> None:
        from hypothesis import HealthCheck, Phase, given, settings

        from benchmarks.fuzz_targets import mutants

        @settings(max_examples=200, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(mutants(seeds))
        def batch(data):
            self.one(data)

        end = time.monotonic() + seconds
        while time.monotonic() < end:
            batch()


def _resident_mb() -> float:
    """This process's resident memory (MiB)."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _limit_memory(mb: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))


def fuzz(name: str, seconds: float, engine: str, work: Path, args) -> dict:
    """Fuzz one target for ``seconds`` (children restarted after a hang or a crash); its figures."""
    total = {"target": name, "engine": engine, "seconds": seconds, "execs": 0, "findings": {}, "restarts": 0}
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > LEAST_CHILD_SECONDS:
        stats = work / f"{name}.stats.json"
        stats.unlink(missing_ok=True)
        cmd = [sys.executable, __file__, "--child", name, "--seconds", str(left), "--engine", engine,
               "--stats", str(stats), "--artifacts", str(args.out / "findings"), "--hang", str(args.hang),
               "--corpus", str(work / f"{name}-corpus"), "--rss-mb", str(args.rss_mb)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                              preexec_fn=lambda: _limit_memory(args.rss_mb))
        got = json.loads(stats.read_text()) if stats.is_file() else {"execs": 0, "findings": {}}
        total["execs"] += got["execs"]
        for sig, f in got["findings"].items():
            total["findings"].setdefault(sig, {**f, "count": 0})["count"] += f["count"]
        if proc.returncode not in (0, 77):  # died: out of memory, a crash in C code
            tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
            total["findings"].setdefault(f"child died ({proc.returncode})", {"count": 0, "message": tail})["count"] += 1
        if proc.returncode != 0:
            total["restarts"] += 1
    total["per_second"] = round(total["execs"] / seconds, 1)
    return total


def machine() -> str:
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").is_file() else ""
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}, {platform.system()}"


def table(results: list[dict]) -> str:
    rows = ["| target | engine | minutes | inputs tried | inputs/s | findings | restarts |",
            "|---|---|---:|---:|---:|---|---:|"]
    for r in results:
        found = "; ".join(f"{sig} x{f['count']}" for sig, f in r["findings"].items()) or "none"
        rows.append(f"| {r['target']} | {r['engine']} | {r['seconds'] / 60:g} | {r['execs']:,} | {r['per_second']:g}"
                    f" | {found} | {r['restarts']} |")
    return "\n".join(rows)


def _engine(asked: str) -> str:
    if asked != "auto":
        return asked
    try:
        import atheris  # noqa: F401
    except ImportError:
        return "hypothesis"
    return "atheris"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks/fuzz.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=1.0, help="per target (default 1)")
    p.add_argument("--target", default=",".join(NAMES), help=f"comma-separated, among {', '.join(NAMES)}")
    p.add_argument("--engine", choices=("auto", "atheris", "hypothesis"), default="auto")
    p.add_argument("--hang", type=float, default=10.0, help="seconds after which an input is a hang (default 10)")
    p.add_argument("--rss-mb", type=int, default=2048, help="memory limit of a child (default 2048)")
    p.add_argument("--out", type=Path, default=OUT, help="where the figures and the findings' inputs go")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--seconds", type=float, help=argparse.SUPPRESS)
    p.add_argument("--stats", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--artifacts", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        if args.engine == "atheris":  # coverage of eidomap: instrument it before anything imports it
            import atheris

            with atheris.instrument_imports(include=["eidomap"]):
                import eidomap.cli  # noqa: F401
                from benchmarks import fuzz_targets  # noqa: F401
        Child(args.child, args.stats, args.artifacts, args.hang, args.rss_mb / 2).run(args.seconds, args.engine,
                                                                                        args.corpus)
        return 0
    names = [n.strip() for n in args.target.split(",") if n.strip()]
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        p.error(f"unknown target {unknown[0]!r}")
    engine = _engine(args.engine)
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="eidomap-fuzz-") as work:
        for name in names:
            r = fuzz(name, args.minutes * 60, engine, Path(work), args)
            r["machine"] = machine()
            (args.out / f"{name}.json").write_text(json.dumps(r, indent=1) + "\n")
            results.append(r)
            print(table([r]).splitlines()[-1], flush=True)
    print(table(results))
    return 1 if any(r["findings"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
