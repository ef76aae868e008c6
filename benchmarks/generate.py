"""Workload 10 (issue 15): ``eidomap generate`` on the largest map, its time and peak memory.

A child process (:mod:`benchmarks.probe`) runs ``eidomap generate --eidos N
--seed S OUT`` (the streaming writer) and reports its wall time and peak RSS;
the bars: 1,000,000 Eidos in at most 60 s and 2 GiB (smaller maps: measured,
INFO); from 200,000 Eidos on, a peak RSS of at most :data:`FILE_TIMES` the file
written (issue 31; smaller maps: INFO), beside the fixed cost of the same
command on 10 Eidos (the imports, numba's code, Arrow's kernels) in the same run.  The file must be the
suite's map of the same size and seed byte for byte (that one may have been
written by an earlier eidomap: the output has not changed).  Up to
:data:`DOCUMENT_MAX` Eidos the generator as it was, which built the whole
document before writing it (``write_map(generate_map(N, S), OUT)``), runs too,
for comparison (INFO; in a smoke run in this process, not a child); at 1M it took 380 s of CPU and 8.8 GiB.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from pathlib import Path

from .harness import Config, Context, Row, probe

__all__ = ["DOCUMENT_MAX", "FILE_TIMES", "LIMIT_MIB", "LIMIT_S", "document", "run", "sizes"]

#: The bars on 1,000,000 Eidos: seconds and peak RSS.
LIMIT_S = 60.0
LIMIT_MIB = 2 * 1024
#: The bar on the peak RSS from 200,000 Eidos on, in times the size of the file written.
FILE_TIMES = 3.0
#: Largest map the document-building generator runs on (it needs about 9 KiB an Eido).
DOCUMENT_MAX = 100_000


def sizes(cfg: Config) -> list[int]:
    return [max(cfg.sizes)]


def document(n: str, seed: str, out: str) -> dict:
    """The generator before streaming: the whole document, then one write (run in a child by the probe)."""
    from eidomap.model.generate import generate_map, write_map

    write_map(generate_map(int(n), int(seed)), out)
    return {}


def _sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 24), b""):
            h.update(block)
    return h.hexdigest()


def run(ctx: Context, n: int) -> None:
    cfg = ctx.cfg
    suite_map = ctx.map_file(n).path
    ctx.forget()
    with tempfile.TemporaryDirectory(dir=cfg.data) as tmp:
        out = Path(tmp) / "g.geojson"
        r = probe(["eidomap", "generate", "--eidos", n, "--seed", cfg.seed, out]).check("eidomap generate")
        same = _sha(out) == _sha(suite_map)
        file_mib = out.stat().st_size / 2**20
        detail = f"{'same bytes as' if same else 'differs from'} the suite's map ({file_mib:,.0f} MiB)"
        out.unlink()
        fixed = "not measured in a smoke run"  # (a child process the suite's run need not start)
        if cfg.mode != "smoke":
            ten = probe(["eidomap", "generate", "--eidos", 10, "--seed", cfg.seed, out]).check("generate, 10 Eidos")
            out.unlink()
            fixed = f"{ten.peak_mib:,.0f} MiB = {ten.peak_mib / file_mib:.1f}x the file"
        lean = n >= 200_000
        ctx.report.add(Row("generate", n, "eidomap generate (child): peak RSS / file written", r.seconds,
                           bar=FILE_TIMES if lean else None, bar_text=f"≤ {FILE_TIMES:g}x the file from 200k",
                           score=r.peak_mib / file_mib, agree=same, peak_mib=r.peak_mib, table="measure",
                           detail=f"{r.peak_mib:,.0f} MiB for a {file_mib:,.0f} MiB file; fixed cost (10 Eidos, same"
                                  f" run) {fixed}; see benchmarks/README.md, Generate, for each stage's floor")),
        full = n >= 1_000_000  # the bars are for a million Eidos; smaller maps are measured (INFO)
        for case, score, text in (("time", r.seconds / LIMIT_S, f"≤ {LIMIT_S:g} s"),
                                  ("peak RSS", r.peak_mib / LIMIT_MIB, f"≤ {LIMIT_MIB / 1024:g} GiB")):
            ctx.report.add(Row("generate", n, f"eidomap generate (child): {case}", r.seconds,
                               bar=1.0 if full else None, bar_text=text if full else None, score=score,
                               agree=same, peak_mib=r.peak_mib, table="measure", detail=detail))
        if n <= DOCUMENT_MAX:
            if cfg.mode == "smoke":  # (in this process: one start-up fewer; a smoke run's memory is not judged)
                t0 = time.perf_counter()
                document(n, cfg.seed, out)
                seconds, peak, where = time.perf_counter() - t0, None, "here"
            else:
                d = probe(["call", "benchmarks.generate:document", n, cfg.seed, out]).check("document generator")
                seconds, peak, where = d.seconds, d.peak_mib, "child"
            memory = "" if peak is None else f", {peak / r.peak_mib:.1f}x the memory"
            ctx.report.add(Row("generate", n, f"the generator before streaming ({where}, INFO)", seconds,
                               agree=_sha(out) == _sha(suite_map), peak_mib=peak, table="measure",
                               detail=f"{seconds / r.seconds:.1f}x the time{memory} of the streaming writer;"
                                      " same bytes"))
