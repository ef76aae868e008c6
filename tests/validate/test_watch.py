"""validate --watch: each save of a map checked again, and only what it changed printed."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest
from conftest import DEMO, ROOT, collection, eido, hang_guard, square
from hypothesis import given, settings
from hypothesis import strategies as st

from eidomap.base.problems import Problem
from eidomap.cli import main
from eidomap.validate import watch
from eidomap.validate.watch import changes, saves, stamp

#: How long the watching process may take to answer one save (start-up included) before it is called hung: a
#: second or two alone.
PATIENCE = hang_guard(2)


# -- which problems a save brought and fixed ------------------------------------------------------------------
def _problem(code: str, features: tuple, n: int) -> Problem:
    return Problem(code, "error", features, None, f"Message {n}.")


problems = st.lists(st.builds(_problem, st.sampled_from(["gap", "overlap"]),
                              st.sampled_from([(), ("A",), ("A", "B")]), st.integers(0, 3)), max_size=8)


@settings(max_examples=60, deadline=None)
@given(problems, problems)
def test_changes_are_what_one_version_has_more_than_the_other(before, after):
    new, fixed = changes(before, after)

    def count(ps):  # a problem is its code and features, as many times as it is there: its message may change
        return Counter((p.code, p.features) for p in ps)

    assert count(new) == count(after) - count(before)
    assert count(fixed) == count(before) - count(after)
    assert all(any(p is q for q in after) for p in new) and all(any(p is q for q in before) for p in fixed)


def test_problems_that_follow_from_another_are_not_told():
    cause = Problem("unknown-terrain", "error", ("T",), None, "Feature T has unknown terrain.")
    hidden = Problem("gap", "error", (), (0.0, 0.0), "A gap.", caused_by="T")
    assert changes([], [cause, hidden]) == ([cause], [])
    assert changes([cause, hidden], []) == ([], [cause])


# -- when a save is seen ----------------------------------------------------------------------------------------
def test_a_save_is_seen_once_it_holds_still(tmp_path, monkeypatch):
    """Each look at the file is one step of a script: a save is told once the file held still for one look."""
    path = tmp_path / "m.geojson"
    path.write_text("0")

    def in_place(text):
        return lambda: path.write_text(text)

    def renamed(text):
        def save():
            (tmp_path / "new").write_text(text)
            os.replace(tmp_path / "new", path)
        return save

    script = iter([
        None,                  # 1: nothing happens
        in_place("11"),        # 2: written in place: changed ...
        None,                  # 3: ... and held still: told
        renamed("22"),         # 4: a new file renamed over it (same size)
        in_place("333"),       # 5: written again before it held still
        None,                  # 6: told once
        path.unlink,           # 7: deleted (an editor that deletes first) ...
        None,                  # 8: ... missing: nothing told
        renamed("4444"),       # 9: back
        None,                  # 10: told
    ])
    steps = []

    def look(seconds):
        steps.append(seconds)
        action = next(script)
        if action is not None:
            action()

    monkeypatch.setattr(watch.time, "sleep", look)
    seen = saves(path, stamp(path), interval=0.125)
    told = []
    for _ in range(3):
        stamped = next(seen)
        told.append((len(steps), path.read_text(), stamped == stamp(path)))
    assert told == [(3, "11", True), (6, "333", True), (10, "4444", True)]
    assert set(steps) == {0.125}


def test_the_stamp_of_a_missing_file_is_none(tmp_path):
    assert stamp(tmp_path / "nothing.geojson") is None


# -- the command, as a designer runs it beside their editor -----------------------------------------------------
@pytest.mark.parametrize("args", [["--json"], ["--format", "github"], ["--png", "p.png"]])
def test_watch_prints_text_only(tmp_path, capsys, args):
    code = main(["validate", "--watch", str(DEMO), *[str(tmp_path / a) if a.endswith(".png") else a for a in args]])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err == ("eidomap: --watch prints text as the map is saved: not with --json,"
                                               " --format, --png or --html\n")


def _board(overlap: bool) -> str:
    """Four squares in a row; with ``overlap``, the third reaches a quarter into the second."""
    cells = [eido(f"e{i}", "meadow", square(i, 0)) for i in range(4)]
    if overlap:
        cells[2] = eido("e2", "meadow", [[[1.75, 0], [3, 0], [3, 1], [1.75, 1], [1.75, 0]]])
    return json.dumps(collection(cells), indent=1)


class Watching:
    """``eidomap validate --watch MAP`` running in a process of its own, its lines read as they come."""

    def __init__(self, folder, name: str):
        # Ctrl-C as a terminal's: a suite started in the background by a non-interactive shell (``cmd &``) has
        # SIGINT ignored, the child would inherit that, Python would then install no KeyboardInterrupt handler,
        # and :meth:`stop`'s SIGINT would be lost (the test waited out its hang guard)
        self.proc = subprocess.Popen([sys.executable, "-m", "eidomap", "validate", "--watch", name], cwd=folder,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONPATH": str(ROOT)},
                                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def until(self, last: str) -> list[str]:
        """The lines printed up to the one starting with ``last``, waiting at most :data:`PATIENCE` seconds."""
        got, until = [], time.monotonic() + PATIENCE
        while not (got and got[-1].startswith(last)):
            try:
                line = self.lines.get(timeout=max(0.0, until - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no line starting with {last!r} within {PATIENCE} s; printed: {self.seen + got}")
            if line is None:
                pytest.fail(f"the watch ended; printed: {self.seen + got}")
            got.append(line)
        self.seen += got
        return got

    def stop(self) -> tuple[int, str]:
        """Ctrl-C: the exit code and what was said on stderr."""
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=PATIENCE), self.proc.stderr.read()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def test_watch_prints_what_each_save_brought_and_fixed(tmp_path):
    path = tmp_path / "board.geojson"
    path.write_text(_board(overlap=False))
    with Watching(tmp_path, path.name) as w:
        assert w.until("board.geojson: ") == ["watching board.geojson: every save is checked again; Ctrl-C stops",
                                              "board.geojson: no problems"]
        # saved as QGIS and Inkscape save: a new file renamed over the map
        (tmp_path / "board.tmp").write_text(_board(overlap=True))
        os.replace(tmp_path / "board.tmp", path)
        broke = w.until("board.geojson: ")
        assert broke[0].endswith(" board.geojson saved: 1 new, 0 fixed")
        assert broke[1:] == ["new: error: overlap: Eidos 'e1' and 'e2' overlap over an area of 0.25. (at 1.875, 0.5)",
                             "board.geojson: 1 error, 0 warnings"]
        # saved in place
        path.write_text(_board(overlap=False))
        mended = w.until("board.geojson: ")
        assert mended[0].endswith(" board.geojson saved: 0 new, 1 fixed")
        assert mended[1:] == ["fixed: error: overlap: Eidos 'e1' and 'e2' overlap over an area of 0.25."
                              " (at 1.875, 0.5)", "board.geojson: no problems"]
        code, err = w.stop()
        assert w.lines.get(timeout=PATIENCE) is None  # nothing more was printed
    assert code == 130 and err == "eidomap: stopped watching board.geojson\n"


def test_watch_tells_a_save_it_cannot_read_and_goes_on(tmp_path):
    path = tmp_path / "board.geojson"
    path.write_text(_board(overlap=True))
    with Watching(tmp_path, path.name) as w:
        assert w.until("board.geojson: ")[-1] == "board.geojson: 1 error, 0 warnings"
        path.write_text(_board(overlap=True)[:-5])  # cut short
        (cut,) = w.until("")
        assert re.fullmatch(r"\d\d:\d\d:\d\d board.geojson: is not valid JSON \(.*\)", cut)
        path.write_text(_board(overlap=False))  # told against the last version read
        mended = w.until("board.geojson: ")
        assert mended[0].endswith(" board.geojson saved: 0 new, 1 fixed") and mended[-1] == "board.geojson: no problems"
        code, _ = w.stop()
    assert code == 130


def test_a_path_that_cannot_be_looked_at_has_a_stamp_of_its_own(tmp_path):
    """A link to itself, a folder on the way that is a file: the stamp names the error, never raises."""
    loop = tmp_path / "loop.geojson"
    loop.symlink_to(loop.name)
    (tmp_path / "file").write_text("")
    stamps = {stamp(loop), stamp(tmp_path / "file" / "map.geojson")}
    assert len(stamps) == 2 and all(s is not None and len(s) == 1 for s in stamps)


def test_watch_tells_a_map_turned_into_a_link_loop_and_goes_on(tmp_path):
    """Every error opening the map is said as a folder's or a FIFO's is, and the next save read."""
    path = tmp_path / "board.geojson"
    path.write_text(_board(overlap=True))
    with Watching(tmp_path, path.name) as w:
        assert w.until("board.geojson: ")[-1] == "board.geojson: 1 error, 0 warnings"
        (tmp_path / "loop").symlink_to(path.name)
        os.replace(tmp_path / "loop", path)  # the map is now a link to itself
        (said,) = w.until("")
        assert re.fullmatch(r"\d\d:\d\d:\d\d board.geojson: cannot be read \(Too many levels of symbolic links\)",
                            said)
        path.unlink()
        path.write_text(_board(overlap=False))
        mended = w.until("board.geojson: ")
        assert mended[0].endswith(" board.geojson saved: 0 new, 1 fixed") and mended[-1] == "board.geojson: no problems"
        code, _ = w.stop()
    assert code == 130
