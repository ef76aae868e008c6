"""What the ``eidomap`` program sets for its own process (:mod:`eidomap.cli._process`), never a library call."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import DEMO


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_the_program_keeps_freed_heap_for_its_next_arrays():
    assert _run("from eidomap.cli._process import keep_freed_memory; print(keep_freed_memory())") == "True"


def test_only_the_program_sets_the_allocator_not_main(monkeypatch, capsys):
    from eidomap import cli
    from eidomap.cli import _process

    called = []
    monkeypatch.setattr(_process, "keep_freed_memory", lambda: called.append(1) or True)
    assert cli.main(["info", str(DEMO)]) == 0 and called == []  # (main: what tests and programs call in-process)
    monkeypatch.setattr(sys, "argv", ["eidomap", "info", str(DEMO)])
    assert cli.run() == 0 and called == [1]
