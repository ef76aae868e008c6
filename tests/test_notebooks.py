"""The notebooks run top to bottom in a fresh kernel, and are committed with their outputs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
sys.path.insert(0, str(NOTEBOOKS))
from run_all import execute  # noqa: E402  (the runner the notebooks are committed with)


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_runs_and_a_clean_run_leaves_it_as_committed(path, tmp_path):
    nb = execute(path)  # raises CellExecutionError, naming the cell, on any error
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    again = tmp_path / path.name  # as run_all.py writes it: no random id, no timing, so git sees no change
    nbformat.write(nb, again)
    if again.read_bytes() != path.read_bytes():
        old = nbformat.read(path, as_version=4).cells
        first = next((k for k, (a, b) in enumerate(zip(old, nb.cells, strict=False)) if a != b), len(old))
        pytest.fail(f"{path.name}: a clean run changes cell {first}: run 'python notebooks/run_all.py"
                    f" {path.name}' and commit it (or make its output the same on every run)")


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_is_committed_with_its_outputs(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.execution_count is not None for c in code), "run notebooks/run_all.py"
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert any(o.output_type != "error" and "image/png" in o.get("data", {}) for c in code for o in c.outputs)


def test_there_are_notebooks():
    assert {"01-plan-a-route", "02-reachability", "03-validate-a-map", "04-d20-tactical-and-overland"} <= {
        p.stem for p in PATHS}
