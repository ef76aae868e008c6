"""``python -m benchmarks.mutation``: mutation testing of the planner (issues 17 and 28), not run in CI.

Runs mutmut 3 (``pip install mutmut``) over ``eidomap/search/``, ``eidomap/rules/``,
``eidomap/answers/routing.py``, ``eidomap/model/topology.py`` and ``eidomap/model/network.py`` (:data:`PARTS`)
with the tests of those modules; what is mutated and
which tests run is ``[tool.mutmut]`` in pyproject.toml.  mutmut copies the
project into ``mutants/`` (git-ignored) and keeps every result there, so a run
can be resumed, and the mutants a change of the tests may have killed rerun
with ``--again``.

* **numba**: mutmut routes every mutated function through a Python trampoline,
  which numba cannot compile; the mutants run with ``NUMBA_DISABLE_JIT=1``, so
  the ``@njit`` twins (:mod:`eidomap.base.compiled`) are the same Python
  functions, mutated like the rest.
* **Hypothesis** runs the ``mutation`` profile of tests/conftest.py: derandomized
  (the same examples for every mutant) and without an example database.
* **Sample**: the whole set is several thousand mutants, hours on this machine;
  ``--sample N`` runs a seeded simple random sample of ``N`` mutants of all five
  parts, and the report gives the score with its 95 % interval, in all and by part.
* **Equivalent mutants** (benchmarks/mutation_equivalent.toml, each with the line
  it writes and why) change no behaviour a test could see; the report scores
  with and without them, and calls stale an entry whose mutant now writes
  another line (mutmut renumbers the mutants of a function that changed).

Usage::

    python -m benchmarks.mutation --sample 300           # sample, run, report (nice 10, one process)
    python -m benchmarks.mutation --again                # rerun the sample's survivors (after new tests)
    python -m benchmarks.mutation --report               # the report of what has run
    mutmut show NAME                                      # the diff of one mutant

>>> wilson(45, 50, population=1000)
(0.789, 0.954)
>>> part("eidomap.rules.d20.grid.x_parse_grid__mutmut_3"), source("eidomap.search.turns.xǁTǁf__mutmut_1")
('eidomap/rules/', 'eidomap/search/turns.py')
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .harness import ROOT, machine

MUTANTS = ROOT / "mutants"
#: The sampled mutant names of the last ``--sample`` run.
SAMPLE = MUTANTS / "sample.txt"
#: The parts mutated (issues 17 and 28), in report order.
PARTS = ("eidomap/search/", "eidomap/rules/", "eidomap/answers/routing.py", "eidomap/model/topology.py",
         "eidomap/model/network.py")
#: mutmut's exit codes: killed (1, 3 -- a test failed or pytest broke), timeout, no covering test.
KILLED, TIMEOUT, NO_TESTS = {1, 3}, {24, -24, 36, 152, 255}, {5, 33}
#: The equivalent mutants, each with the line it writes and why it changes nothing a test can see.
EQUIVALENT_FILE = Path(__file__).with_name("mutation_equivalent.toml")


@dataclass(frozen=True)
class Equivalent:
    """A mutant judged equivalent: the line it writes (``mutmut show``'s "+" line, stripped) and why."""

    line: str
    reason: str


def equivalents(path: Path = EQUIVALENT_FILE) -> dict[str, Equivalent]:
    """The mutants of ``path`` by name, a reason given by key read from its ``[reasons]``."""
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    reasons = doc.get("reasons", {})
    return {name: Equivalent(e["line"], reasons.get(e["reason"], e["reason"])) for name, e in doc["mutants"].items()}


def written(name: str) -> list[str]:
    """The lines mutant ``name`` writes in its function (the "+" lines of ``mutmut show``, stripped)."""
    shown = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=ROOT, capture_output=True, text=True,
                           check=False).stdout
    return [x[1:].strip() for x in shown.splitlines() if x.startswith("+") and not x.startswith("+++")]


def source(name: str) -> str:
    """The file a mutant name belongs to (``pkg.mod.x_func__mutmut_3`` or ``pkg.mod.xǁClassǁmeth__mutmut_3``)."""
    module = name.split(".x_")[0] if ".x_" in name else name.split(".xǁ")[0]
    return module.replace(".", "/") + ".py"


def part(name: str) -> str:
    """Which of :data:`PARTS` a mutant is in."""
    return next(p for p in PARTS if source(name).startswith(p))


def wilson(k: int, n: int, population: int | None = None, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson interval of a proportion ``k / n``, its half-width narrowed by the finite-population
    correction when the ``n`` were drawn without replacement from ``population`` (exact when all were).

    >>> wilson(60, 60, population=911)
    (0.941, 1.0)
    """
    if n == 0:
        return 0.0, 1.0
    p = k / n
    if population is not None and n >= population:
        return round(p, 3), round(p, 3)
    fpc = math.sqrt((population - n) / (population - 1)) if population else 1.0
    denom = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom * fpc
    return round(max(0.0, min(p, mid - half)), 3), round(min(1.0, max(p, mid + half)), 3)  # it holds p


def results() -> dict[str, int | None]:
    """Every mutant's exit code (``None``: not run), from mutmut's files under ``mutants/``."""
    out: dict[str, int | None] = {}
    for meta in sorted(MUTANTS.glob("eidomap/**/*.py.meta")):
        out |= json.loads(meta.read_text())["exit_code_by_key"]
    return out


def status(code: int | None) -> str:
    if code is None:
        return "not run"
    if code in KILLED:
        return "killed"
    if code in TIMEOUT:
        return "timeout"
    if code in NO_TESTS:
        return "no tests"
    return "survived" if code == 0 else f"other ({code})"


def draw(names: list[str], size: int, seed: int) -> list[str]:
    """A seeded simple random sample of ``size`` of the mutants ``names`` (all of them when fewer), sorted:
    every mutant of the five parts equally likely, so the pooled score is the whole set's estimate."""
    pool = sorted(names)
    return sorted(random.Random(seed).sample(pool, min(size, len(pool))))


def mutmut(names: list[str]) -> int:
    """``mutmut run`` on ``names`` (all when empty), niced, one worker, numba off."""
    env = os.environ | {"NUMBA_DISABLE_JIT": "1", "EIDOMAP_HYPOTHESIS": "mutation", "PYTHONPATH": str(MUTANTS)}
    cmd = ["nice", "-n", "10", sys.executable, "-m", "mutmut", "run", "--max-children", "1", *names]
    return subprocess.run(cmd, cwd=ROOT, env=env, check=False).returncode


def _row(label: str, group: list[str], total: int, codes: dict[str, int | None], equivalent: set[str]) -> str:
    """One row of the report: counts, the score with its 95 % interval, and the score without the
    ``equivalent`` mutants (its interval takes the part to hold as many equivalents as the sample)."""
    count = Counter(status(codes[n]) for n in group)
    ran = len(group) - count["not run"]
    caught = count["killed"] + count["timeout"]
    if not ran:
        return f"| {label} | 0 ({total}) | | | | | - | - |"
    low, high = wilson(caught, ran, total)
    rest = ran - len(equivalent.intersection(group))
    low2, high2 = wilson(caught, rest, round(total * rest / ran))
    return (f"| {label} | {ran} ({total}) | {count['killed']} | {count['timeout']} | {count['survived']} |"
            f" {count['no tests']} | {caught / ran:.1%} ({low:.0%}-{high:.0%}) |"
            f" {caught / rest:.1%} ({low2:.0%}-{high2:.0%}) |")


def report(names: list[str]) -> str:
    """Markdown: per part and per file, the mutants run and the score (killed or timed out, over all run).

    A survivor is equivalent when :data:`EQUIVALENT_FILE` names it and it still writes the line judged;
    one that writes another line (its function changed, mutmut renumbered its mutants) is stale.
    """
    codes = results()
    chosen = [n for n in names if n in codes]
    survivors = [n for n in chosen if status(codes[n]) in ("survived", "no tests")]
    judged = equivalents()
    stale = {n for n in survivors if n in judged and judged[n].line not in written(n)}
    equivalent = {n for n in survivors if n in judged} - stale
    lines = ["| part / file | mutants run (of) | killed | timeout | survived | no tests | score (95 % CI) |"
             " without equivalents |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for key, labels in ((part, PARTS), (source, sorted({source(n) for n in codes} - set(PARTS)))):
        for label in labels:
            group = [n for n in chosen if key(n) == label]
            lines.append(_row(label, group, sum(key(n) == label for n in codes), codes, equivalent))
    lines.append(_row("all", chosen, len(codes), codes, equivalent))
    lines += ["", f"Survivors ({len(survivors)}, {len(equivalent)} equivalent):"]
    for n in survivors:
        note = (f" -- equivalent: {judged[n].reason}" if n in equivalent else
                f" -- STALE: judged for the line {judged[n].line!r}, judge again" if n in stale else "")
        lines.append(f"* {n}: {status(codes[n])}{note}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.mutation", description=__doc__.split("\n")[0])
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--sample", type=int, metavar="N", help="run N random mutants of the five parts (default: all)")
    mode.add_argument("--again", action="store_true", help="rerun the survivors of the last sample")
    mode.add_argument("--report", action="store_true", help="only print the report of what has run")
    p.add_argument("--seed", type=int, default=28, help="seed of the sample (default 28, the issue)")
    args = p.parse_args(argv)
    names: list[str] = []
    if not (MUTANTS / "eidomap").is_dir() and not args.report:  # mutmut makes the mutants on its first run
        mutmut(["no-such-mutant*"])
    if args.sample:
        names = draw(list(results()), args.sample, args.seed)
        SAMPLE.write_text("\n".join(names) + "\n")
    elif args.again or args.report:
        names = SAMPLE.read_text().split() if SAMPLE.is_file() else list(results())
    if args.again:
        for wanted in (("survived", "no tests", "not run"), ("not run",)):  # a change of [tool.mutmut] makes
            codes = results()  # mutmut forget every result: what the first run did not run, the second does
            rerun = [n for n in names if status(codes[n]) in wanted]
            if rerun:  # (no names would run every mutant)
                mutmut(rerun)
    elif not args.report:
        mutmut(names)
    info = machine()
    print(f"mutmut on {info['cpu']} ({info['cores']} cores), commit {info['eidomap_commit']}\n")
    print(report(names or list(results())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
