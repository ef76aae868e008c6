"""The progress bar of generate, validate, fix and batch: on a terminal only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eidomap.base import progress
from eidomap.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "maps" / "demo.geojson"


def commands(tmp_path) -> list[list[str]]:
    return [["generate", "--eidos", "300", str(tmp_path / "g.geojson")],
            ["validate", str(DEMO)],
            ["fix", str(DEMO), "-o", str(tmp_path / "fixed.geojson")],
            ["batch", str(DEMO), "--species", "human", "--from", "porto-sur", "--out", str(tmp_path / "b"),
             "--workers", "1"]]


def test_silent_off_a_terminal(tmp_path, capsys):
    """With stderr no terminal, no command draws a bar (nor anything else on stderr)."""
    r = subprocess.run([sys.executable, "-m", "eidomap", *commands(tmp_path)[0]], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (r.returncode, r.stderr) == (0, "")
    for args in commands(tmp_path)[1:]:
        assert main(args) in (0, 1)
        assert capsys.readouterr().err == "", args[0]
    assert isinstance(progress.bar(10, unit="x"), progress._Silent)  # pytest's stderr is no terminal


@pytest.mark.parametrize("k", range(4))
def test_shown_on_a_terminal(tmp_path, monkeypatch, capsys, k):
    """On a terminal (here: stderr says it is one, and no delay) the same commands draw their bar."""
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    main(commands(tmp_path)[k])
    err = capsys.readouterr().err
    assert "|" in err and any(unit in err for unit in ("step", "Eido", "chunk")), err


def test_steps_count_every_step(monkeypatch, capsys):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    with progress.steps(("one", "two", "three"), show=True) as step:
        step("two")
        step("three")
    assert "3/3" in capsys.readouterr().err
