"""The README's and the guide's examples run as written, in order, on a fresh checkout, and draw what they say.

Each page (README.md, then each page of docs/ with examples) is run in its own temporary copy of what the
examples read from a checkout (:data:`COPIED`), its blocks in the page's order:

* each line of a ```sh block is a command (the comment after ``#`` is not).  ``eidomap ...`` runs in this process
  through :func:`eidomap.cli.main`, the function the ``eidomap`` program runs (a process for each would cost a
  second of imports each); its words are split as the shell splits them, and a word with ``*``, ``?`` or ``[``
  is expanded as the shell would.  ``A && B`` runs B when A succeeded.  Any other command runs in ``bash``.
* its exit code must be 0, or N when its comment says ``exit code N``.
* each ```python block is executed in one namespace per page (a block may use the names of the blocks before
  it, as a reader's session does), with matplotlib's Agg backend; :data:`CHECKS` then looks at what some of them
  drew.

What the test does not run, each said where it stands:

* ``pip install ...`` and ``python -m pip install ...``: the suite runs in the environment it tests, where
  eidomap and its test extra are installed already (``pip install . && eidomap route ...`` runs the route).
* a line whose comment holds ``[not run by the tests: WHY]`` -- the suite itself, the site's build, a command
  that runs until Ctrl-C --, or a whole block whose first line is such a comment (the mutation run's minutes).
  :data:`NOT_RUN` lists each, so that a new one is a decision taken here, not a comment slipped into a page.

The README's examples write into ``out/`` (its ``mkdir -p out``; ``.gitignore`` lists it); the pages of docs/
say so too and run with ``out/`` made.  Each run then checks that nothing was written or changed outside
``out/``.
"""

from __future__ import annotations

import glob
import hashlib
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import pytest
from conftest import hang_guard

from eidomap.cli import main

ROOT = Path(__file__).resolve().parent.parent
#: What a page's examples read from the checkout (copied into the temporary folder they run in).
COPIED = ("maps", "tests/data")
#: Where the examples write.
OUT = "out"
#: The pages whose examples run: the README, then the guide's pages that hold ```sh or ```python blocks.
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")
                              if re.search(r"^```(sh|python)\n", p.read_text(encoding="utf-8"), re.M))]
#: The marker of an example not run, and why.
SKIP = re.compile(r"\[not run by the tests: ([^]]+)\]")
#: Every example not run: (page, the start of its line) -> why.  A marker in a page must be listed here.
NOT_RUN = {
    ("README.md", "python -m pip install -e \".[test,docs]\" && python -m pytest"): "it is the tests",
    ("docs/index.md", "python -m pip install -e \".[test,docs]\" && python -m pytest"): "it is the tests",
    ("README.md", "python -m pip install -e \".[docs]\" && python -m sphinx"): "tests/test_docs.py builds the site",
    ("README.md", "eidomap validate --watch"): "it runs until Ctrl-C",
    ("docs/validation.md", "eidomap validate --watch"): "it runs until Ctrl-C",
    ("docs/reliability.md", "python -m pip install mutmut"): "a mutation run takes minutes to hours",
    ("docs/reliability.md", "python -m benchmarks.mutation --sample 300 --seed 28"): "a mutation run takes"
                                                                                      " minutes to hours",
    ("docs/reliability.md", "(cd tools/stryker && npm ci)"): "a mutation run takes minutes to hours",
    ("docs/reliability.md", "python -m benchmarks.mutation --sample 300    # seed 44"): "a mutation run takes hours",
    ("docs/design.md", "from eidomap.io.builder import MapBuilder"): "a sketch; test_record.py runs such a format",
    ("docs/plotting.md", "import time, eidomap"): "it times a 100,000-Eido map",
}
PIP = re.compile(r"^(python -m )?pip install\b")


@dataclass
class Block:
    """A fenced block of a page: its language, its first line's number, its text."""

    lang: str
    line: int
    text: str


def blocks(page: str) -> list[Block]:
    """The page's ```sh and ```python blocks, in order."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return [Block(m[1], text.count("\n", 0, m.start()) + 1, m[2])
            for m in re.finditer(r"^```(sh|python)\n(.*?)^```", text, re.M | re.S)]


def comment_of(line: str) -> tuple[str, str]:
    """A shell line split into its command and its comment (a ``#`` starting a word, outside quotes)."""
    quote = None
    for k, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (k == 0 or line[k - 1].isspace()):
            return line[:k].rstrip(), line[k + 1:].strip()
    return line.rstrip(), ""


def skipped(page: str, command: str, comment: str) -> bool:
    """Whether a command is marked not run (by its line's comment, or its block's first line); a mark must be
    listed in :data:`NOT_RUN`."""
    if not SKIP.search(comment):
        return False
    assert any(p == page and command.startswith(start) for p, start in NOT_RUN), \
        f"{page}: {command!r} is marked not run, but NOT_RUN does not list it"
    return True


def block_skipped(page: str, block: Block) -> bool:
    """A block whose first line is a comment holding the mark is not run at all."""
    lines = block.text.splitlines()
    return len(lines) > 1 and lines[0].startswith("#") and skipped(page, lines[1], lines[0])


def expected_code(comment: str) -> int:
    found = re.search(r"\bexit code (\d+)\b", comment)
    return int(found[1]) if found else 0


def words(command: str) -> list[str]:
    """The command's words as the shell makes them, a glob expanded (sorted, as bash sorts it)."""
    out = []
    for w in shlex.split(command):
        matches = sorted(glob.glob(w)) if any(c in w for c in "*?[") else []
        out += matches or [w]
    return out


def run_command(command: str, capsys) -> tuple[int, str]:
    """One command (no ``&&``): its exit code and what it said."""
    if PIP.match(command):
        return 0, "(installed already)"
    argv = words(command)
    if argv[0] == "eidomap":
        capsys.readouterr()
        code = main(argv[1:])
        out, err = capsys.readouterr()
        return code, out[-2000:] + err[-2000:]
    assert not re.search(r"[|;<>`$]", command), f"{command!r}: write it with && only, or teach this test"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=hang_guard(20))
    return done.returncode, done.stdout[-2000:] + done.stderr[-2000:]


def run_sh(page: str, block: Block, capsys) -> None:
    if block_skipped(page, block):
        return
    for k, line in enumerate(block.text.splitlines()):
        command, comment = comment_of(line)
        if not command or skipped(page, command, comment):
            continue
        parts = [p.strip() for p in command.split(" && ")]
        for n, part in enumerate(parts):
            code, said = run_command(part, capsys)
            want = expected_code(comment) if n == len(parts) - 1 else 0
            assert code == want, f"{page}:{block.line + 1 + k}: {part}\nexit code {code}, not {want}:\n{said}"


def run_python(page: str, block: Block, namespace: dict) -> None:
    if block_skipped(page, block):
        return
    exec(compile(block.text, f"{page}:{block.line + 1}", "exec"), namespace)
    for (p, start), check in CHECKS.items():
        if p == page and block.text.startswith(start):
            check(namespace)


def _plotting_first_example(ns: dict) -> None:
    """docs/plotting.md: the picture saved holds the labels asked for and the route, on one figure."""
    import matplotlib.pyplot as plt

    ax = ns["ax"]
    labels = {t.get_text() for t in ax.texts if t.get_gid() == "label"}
    assert {"porto-norte", "porto-sur"} <= labels, labels
    assert any(c.get_gid() == "route" for c in [*ax.collections, *ax.lines]), "no route drawn"
    assert plt.get_fignums() == [ax.figure.number], "the route went to another figure than the labels"
    assert Path(OUT, "route.png").stat().st_size > 10_000


def _ecosystem_frames(ns: dict) -> None:
    """docs/ecosystem.md: the GeoDataFrames hold the map, and the map made from them is the same map."""
    assert len(ns["eidos"]) == len(ns["m"].eido_ids) and ns["m2"].eido_ids == ns["m"].eido_ids


def _readme_explore(ns: dict) -> None:
    """README.md: the interactive map is one HTML file with BokehJS inside (tests/pages/test_explore.py opens such
    pages offline), and the frames make the same map."""
    page = Path(OUT, "explore.html").read_text(encoding="utf-8")
    assert "Bokeh" in page and len(page) > 500_000 and "<script src=" not in page
    assert ns["m2"].eido_ids == ns["m"].eido_ids


#: What some Python examples must have drawn or made: (page, the start of its first line) -> a check of its
#: namespace once it ran.
CHECKS = {
    ("docs/plotting.md", "import eidomap"): _plotting_first_example,
    ("README.md", "view = m.explore("): _readme_explore,
    ("docs/ecosystem.md", "from eidomap.answers.routing import reach"): _ecosystem_frames,
}


def digests(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` but ``out/``, by its path: its SHA-256."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*")
            if p.is_file() and p.relative_to(folder).parts[0] != OUT}


@pytest.mark.parametrize("page", PAGES)
def test_every_example_runs_as_written_and_writes_only_into_out(page, tmp_path, capsys, monkeypatch):
    for part in COPIED:
        shutil.copytree(ROOT / part, tmp_path / part)
    if page != "README.md":  # (the README makes it: its first example that writes)
        (tmp_path / OUT).mkdir()
    monkeypatch.chdir(tmp_path)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.close("all")  # (figures an earlier test of this worker left open are not the page's: its checks count them)
    before = digests(tmp_path)
    namespace: dict = {"__name__": "__main__"}
    try:
        for block in blocks(page):
            if block.lang == "sh":
                run_sh(page, block, capsys)
            else:
                run_python(page, block, namespace)
    finally:
        plt.close("all")
    after = digests(tmp_path)
    changed = sorted(p for p in after.keys() | before.keys() if after.get(p) != before.get(p))
    assert changed == [], f"{page}: its examples wrote outside {OUT}/: {changed}"


def test_every_example_not_run_is_marked_where_it_stands():
    """Each entry of NOT_RUN is a marked line of its page, or the first line of a marked block."""
    for (page, start), why in NOT_RUN.items():
        lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
        assert any(ln.startswith(start) and (SKIP.search(comment_of(ln)[1]) or SKIP.search(lines[k - 1]))
                   for k, ln in enumerate(lines)), (page, start, why)
