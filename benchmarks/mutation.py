"""``python -m benchmarks.mutation``: mutation testing of eidomap/ (issues 17, 28 and 44), not run in CI.

Runs mutmut 3 (``pip install mutmut``) over all of ``eidomap/``, reported by area (:data:`AREAS`), each
mutant against the tests that call its function; what is mutated and which tests run is ``[tool.mutmut]``
in pyproject.toml.  mutmut copies the project into ``mutants/`` (git-ignored) and keeps every result
there, so a run can be resumed, and the mutants a change of the tests may have killed rerun with
``--again``.

* **numba**: mutmut routes every mutated function through a Python trampoline,
  which numba cannot compile; the mutants run with ``NUMBA_DISABLE_JIT=1``, so
  the ``@njit`` twins (:mod:`eidomap.base.compiled`) are the same Python
  functions, mutated like the rest.
* **Hypothesis** runs the ``mutation`` profile of tests/conftest.py: derandomized
  (the same examples for every mutant) and without an example database.
* **Sample**: the whole set is tens of thousands of mutants, days on this machine;
  ``--sample N`` draws ``N`` of them, each area's share in proportion to its lines of code
  (:func:`code_lines`), a seeded simple random sample within each area (:func:`draw`), and keeps
  the names drawn in ``benchmarks/results/mutation-SEED-sample.txt``; ``--rerun`` runs that list
  again (on other code: after a merge), ``--again`` its mutants not killed.  The report gives the
  score with its 95 % interval, in all and by area.
* **Equivalent mutants** (benchmarks/mutation_equivalent.toml, each with the line
  it writes and why) change no behaviour a test could see; the report scores
  with and without them, and calls stale an entry whose mutant now writes
  another line (mutmut renumbers the mutants of a function that changed).

Usage::

    python -m benchmarks.mutation --sample 300           # draw (seed 44), run, report (nice 19, one process)
    python -m benchmarks.mutation --again                # rerun the sample's survivors (after new tests)
    python -m benchmarks.mutation --rerun                # run the kept sample again, every mutant (other code)
    python -m benchmarks.mutation --report               # the report of what has run
    mutmut show NAME                                      # the diff of one mutant

>>> wilson(45, 50, population=1000)
(0.789, 0.954)
>>> area("eidomap/rules/d20/grid.py"), area("eidomap/model/map.py")
('rules/', 'the rest')
>>> allocate(10, {"a": 50, "b": 30, "c": 20, "d": 1})
{'a': 5, 'b': 3, 'c': 2, 'd': 0}
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import math
import os
import random
import subprocess
import sys
import tokenize
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .harness import ROOT, machine

MUTANTS = ROOT / "mutants"
#: The seed of issue 44's sample.
SEED = 44
#: The areas of eidomap/ (issue 44: "the readers, batch, cache, validate ... each area in proportion to its
#: lines"), in report order: each a label and the paths it holds (a folder ends in "/"); the last, with none,
#: holds every module the others do not (the map, the catalog, the generator, the analyses...).
AREAS: dict[str, tuple[str, ...]] = {
    "io/": ("eidomap/io/",),
    "batch/": ("eidomap/answers/batch/",),
    "cache": ("eidomap/model/cache.py",),
    "validate, fix": ("eidomap/validate/", "eidomap/base/problems.py"),
    "search/": ("eidomap/search/",),
    "rules/": ("eidomap/rules/eido.py", "eidomap/rules/dice.py", "eidomap/rules/actors.py", "eidomap/rules/d20/",
               "eidomap/record/rulesets.py"),
    "d20": ("eidomap/answers/overland.py", "eidomap/answers/grid.py"),
    "routing": ("eidomap/answers/routing.py",),
    "topology": ("eidomap/model/topology.py", "eidomap/record/rings.py", "eidomap/model/borders.py"),
    "graph": ("eidomap/model/network.py",),
    "cli/": ("eidomap/cli/",),
    "plot/, report, planner": ("eidomap/plot/", "eidomap/pages/"),
    "the rest": (),
}
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
    """The file a mutant name belongs to (``pkg.mod.x_func__mutmut_3`` or ``pkg.mod.xǁClassǁmeth__mutmut_3``;
    mutmut names a package's ``__init__`` by the package).

    >>> source("eidomap.search.turns.xǁTǁf__mutmut_1"), source("eidomap.answers.batch.x_f__mutmut_2")
    ('eidomap/search/turns.py', 'eidomap/answers/batch/__init__.py')
    """
    module = (name.split(".x_")[0] if ".x_" in name else name.split(".xǁ")[0]).replace(".", "/")
    return f"{module}/__init__.py" if (ROOT / module).is_dir() else f"{module}.py"


def area(path: str) -> str:
    """The area of :data:`AREAS` a file of eidomap/ is in."""
    return next((label for label, paths in AREAS.items()
                 if any(path == p or (p.endswith("/") and path.startswith(p)) for p in paths)), "the rest")


def part(name: str) -> str:
    """The area a mutant is in."""
    return area(source(name))


def code_lines(path: Path) -> int:
    """The lines of ``path`` that hold code: not blank, not only a comment, not part of a docstring."""
    text = path.read_text(encoding="utf-8")
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    lines = {n for tok in tokenize.generate_tokens(io.StringIO(text).readline) if tok.type not in skip
             for n in range(tok.start[0], tok.end[0] + 1)}
    return len(lines - docstrings)


def area_lines() -> dict[str, int]:
    """Each area's lines of code (:func:`code_lines` of its modules)."""
    lines = dict.fromkeys(AREAS, 0)
    for path in (ROOT / "eidomap").rglob("*.py"):
        lines[area(path.relative_to(ROOT).as_posix())] += code_lines(path)
    return lines


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


def allocate(size: int, weights: dict[str, int]) -> dict[str, int]:
    """``size`` shared in proportion to ``weights``, to whole numbers by the largest remainders (ties by key)."""
    total = sum(weights.values())
    exact = {k: size * w / total for k, w in weights.items()}
    share = {k: math.floor(x) for k, x in exact.items()}
    for k in sorted(exact, key=lambda k: (share[k] - exact[k], k))[:size - sum(share.values())]:
        share[k] += 1
    return share


def draw(names: list[str], size: int, seed: int) -> list[str]:
    """A seeded sample of ``size`` of the mutants ``names``, stratified by area: each area's share of ``size``
    in proportion to its lines of code (:func:`area_lines`, :func:`allocate`; all of its mutants when it has
    fewer), and within an area a simple random sample, every mutant equally likely.  So the pooled score
    weighs each area by its lines, as a mutant drawn at a random line of eidomap/ would."""
    rng = random.Random(seed)
    chosen: list[str] = []
    for label, n in allocate(size, area_lines()).items():
        pool = sorted(m for m in names if part(m) == label)
        chosen += rng.sample(pool, min(n, len(pool)))
    return sorted(chosen)


def sample_file(seed: int) -> Path:
    """Where the names of the sample drawn with ``seed`` are kept (in the repository: a later run reruns them)."""
    return ROOT / "benchmarks" / "results" / f"mutation-{seed}-sample.txt"


def mutmut(names: list[str]) -> int:
    """``mutmut run`` on ``names`` (all when empty), niced, one worker, numba off."""
    env = os.environ | {"NUMBA_DISABLE_JIT": "1", "EIDOMAP_HYPOTHESIS": "mutation", "PYTHONPATH": str(MUTANTS)}
    cmd = ["nice", "-n", "19", sys.executable, "-m", "mutmut", "run", "--max-children", "1", *names]
    # (mutants/ on PYTHONPATH before it exists would be cached as no place to import from, for the whole run:
    # the tests would import the checkout's eidomap, unmutated)
    MUTANTS.mkdir(exist_ok=True)
    return subprocess.run(cmd, cwd=ROOT, env=env, check=False).returncode


def _row(label: str, lines: str, group: list[str], total: int, codes: dict[str, int | None],
         equivalent: set[str]) -> str:
    """One row of the report: counts, the score with its 95 % interval, and the score without the
    ``equivalent`` mutants (its interval takes the group to hold as many equivalents as the sample)."""
    count = Counter(status(codes[n]) for n in group)
    ran = len(group) - count["not run"]
    caught = count["killed"] + count["timeout"]
    if not ran:
        return f"| {label} | {lines} | 0 ({total:,}) | | | | | | - | - |"
    low, high = wilson(caught, ran, total)
    equal = len(equivalent.intersection(group))
    rest = ran - equal
    without = "-"  # (every mutant of the group run equivalent: no score without them)
    if rest:
        low2, high2 = wilson(caught, rest, round(total * rest / ran))
        without = f"{caught / rest:.1%} ({low2:.1%}-{high2:.1%})"
    other = ran - caught - count["survived"] - count["no tests"]
    return (f"| {label} | {lines} | {ran} ({total:,}) | {count['killed']} | {count['timeout']} |"
            f" {count['survived'] + other} | {count['no tests']} | {equal} |"
            f" {caught / ran:.1%} ({low:.0%}-{high:.0%}) | {without} |")


def report(names: list[str]) -> str:
    """Markdown: by area and by file, the mutants run and the score (killed or timed out, over all run), with
    and without the equivalent ones.

    A survivor is equivalent when :data:`EQUIVALENT_FILE` names it and it still writes the line judged;
    one that writes another line (its function changed, mutmut renumbered its mutants) is stale.
    """
    codes = results()
    chosen = [n for n in names if n in codes]
    gone = [n for n in names if n not in codes]
    survivors = [n for n in chosen if status(codes[n]) not in ("killed", "timeout", "not run")]
    judged = equivalents()
    stale = {n for n in survivors if n in judged and judged[n].line not in written(n)}
    equivalent = {n for n in survivors if n in judged} - stale
    lines = area_lines()
    table = ["| area / file | lines of code | mutants run (of) | killed | timeout | survived | no tests | equivalent |"
             " score (95 % CI) | without equivalents (95 % CI) |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for label in AREAS:
        table.append(_row(label, f"{lines[label]:,}", [n for n in chosen if part(n) == label],
                          sum(part(n) == label for n in codes), codes, equivalent))
    table.append(_row("**all of eidomap/**", f"{sum(lines.values()):,}", chosen, len(codes), codes, equivalent))
    for path in sorted({source(n) for n in chosen}):
        table.append(_row(path, f"{code_lines(ROOT / path):,}", [n for n in chosen if source(n) == path],
                          sum(source(n) == path for n in codes), codes, equivalent))
    if gone:
        table += ["", f"{len(gone)} of the names are no mutant of this code (their function went or has fewer):",
                  *(f"* {n}" for n in gone)]
    table += ["", f"Not killed ({len(survivors)}, {len(equivalent)} equivalent):"]
    for n in survivors:
        note = (f" -- equivalent: {judged[n].reason}" if n in equivalent else
                f" -- STALE: judged for the line {judged[n].line!r}, judge again" if n in stale else "")
        table.append(f"* {n}: {status(codes[n])}{note}")
    return "\n".join(table)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.mutation", description=__doc__.split("\n")[0])
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--sample", type=int, metavar="N", help="draw N mutants (stratified by lines), run and keep them")
    mode.add_argument("--rerun", action="store_true", help="run every mutant of the kept sample again")
    mode.add_argument("--again", action="store_true", help="rerun the mutants of the kept sample not killed")
    mode.add_argument("--report", action="store_true", help="only print the report of what has run")
    p.add_argument("--seed", type=int, default=SEED, help=f"seed of the sample (default {SEED}, the issue)")
    args = p.parse_args(argv)
    kept = sample_file(args.seed)
    if not args.report:  # mutmut makes the mutants of the code as it is now (and the statistics, the first time)
        mutmut(["no-such-mutant*"])
    names: list[str] = []
    if args.sample:
        names = draw(list(results()), args.sample, args.seed)
        kept.write_text("\n".join(names) + "\n")
    elif args.again or args.report or args.rerun:
        names = kept.read_text().split() if kept.is_file() else list(results())
    if args.again:
        for wanted in (("survived", "no tests", "not run"), ("not run",)):  # a change of [tool.mutmut] makes
            codes = results()  # mutmut forget every result: what the first run did not run, the second does
            rerun = [n for n in names if n in codes and status(codes[n]) in wanted]
            if rerun:  # (no names would run every mutant)
                mutmut(rerun)
    elif not args.report:
        mutmut([n for n in names if n in results()] if names else [])
    info = machine()
    print(f"mutmut on {info['cpu']} ({info['cores']} cores), commit {info['eidomap_commit']}\n")
    print(report(names or list(results())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
