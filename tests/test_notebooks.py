"""The notebooks run top to bottom in a fresh kernel, and are committed with their outputs."""

from __future__ import annotations

import base64
import struct
import sys
from pathlib import Path

import pytest
from conftest import DEMO, ROOT

import eidomap
from eidomap.answers.routing import route

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
sys.path.insert(0, str(NOTEBOOKS))

from run_all import execute  # noqa: E402  (the runner the notebooks are committed with)

#: Outputs whose bytes are the plotting libraries' own (a PNG, an SVG, a page with BokehJS inlined): a new
#: matplotlib or Bokeh changes them whatever eidomap does, so they are compared by kind, not to the byte.
LIBRARY_BYTES = ("image/", "text/html", "application/javascript", "application/vnd.")


def _said(cells) -> list:
    """What each code cell shows, the library-made bytes replaced by their kind.

    A cell's consecutive prints to one stream are one text, as Jupyter shows
    them: the kernel sends what is printed when it flushes (every 0.2 s), so
    on a busy machine one ``print`` may arrive as two outputs, its text and
    its newline (a full run once split notebook 03's first count so).
    """
    out = []
    for c in cells:
        if c.cell_type != "code":
            continue
        before = None
        for o in c.outputs:
            data = o.get("data", {})
            said = (o.output_type, o.get("name"), o.get("text"),
                    {k: (k if k.startswith(LIBRARY_BYTES) else v) for k, v in data.items()})
            if o.output_type == "stream" and before is not None and before[:2] == said[:2]:
                out[-1] = before = (*said[:2], before[2] + said[2], {})
                continue
            out.append(said)
            before = said if o.output_type == "stream" else None
    return out


def _png_sizes(cells) -> list[tuple[int, int]]:
    """The width and height (pixels, from its header) of each PNG the cells show."""
    pngs = [base64.b64decode(o["data"]["image/png"]) for c in cells if c.cell_type == "code" for o in c.outputs
            if "image/png" in o.get("data", {})]
    return [struct.unpack(">II", png[16:24]) for png in pngs]


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_runs_and_says_what_is_committed(path, tmp_path):
    nb = execute(path)  # raises CellExecutionError, naming the cell, on any error
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    # the text a clean run prints is the committed text (run_all.py writes no random id and no timing, so on
    # the versions it was run with a clean run leaves the file unchanged to the byte)
    saved = nbformat.read(path, as_version=4).cells
    again, committed = _said(nb.cells), _said(saved)
    # a picture's bytes are the plotting library's, its size the figure's (issue 46: not the extent of its text)
    assert _png_sizes(nb.cells) == _png_sizes(saved), f"{path.name}: a picture of another size than committed"
    if again != committed:
        first = next((k for k, (a, b) in enumerate(zip(committed, again, strict=False)) if a != b), len(committed))
        pytest.fail(f"{path.name}: a clean run changes output {first}: run 'python notebooks/run_all.py"
                    f" {path.name}' and commit it (or make its output the same on every run)")


def test_a_figure_is_saved_at_its_own_size_whatever_its_text(tmp_path):
    """Issue 46: notebook 04 was saved with a picture 791 pixels wide that came out 832 on another machine: Jupyter
    crops a figure to the extent of its text, which the fonts change.  The runner's figures are figsize x dpi, their
    text laid out inside (a title wider than the figure, a legend beside the axes)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots(figsize=(4, 2), dpi=50)\n"
        "ax.plot([0, 1], label='a line')\n"
        "ax.set_title('a title wider than the figure it is drawn in, ' * 2)\n"
        "ax.legend(loc='upper left', bbox_to_anchor=(1, 1));")])
    path = tmp_path / "figure.ipynb"
    nbformat.write(nb, path)
    ran = execute(path)
    assert [o.output_type for o in ran.cells[0].outputs] == ["display_data"]  # (no warning printed)
    assert _png_sizes(ran.cells) == [(200, 100)]


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


def _outputs(name: str) -> str:
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    return "\n".join(o.get("text", "") + "".join(o.get("data", {}).get("text/markdown", "")) +
                     "".join(o.get("data", {}).get("text/plain", ""))
                     for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_notebooks_show_the_numbers_the_library_gives():
    m = eidomap.load(DEMO)
    cheapest = route(m, "porto-norte", "chousa", "human").cheapest_cost
    assert f"| 1 | {cheapest} |" in _outputs("02-reachability.ipynb")  # the first of the k cheapest ways
    rider = route(m, "porto-norte", "porto-sur", "horse")
    assert not rider.reachable
    d20 = _outputs("04-d20-tactical-and-overland.ipynb")
    assert "7/20" in d20 or "0.35" in d20  # hour 9 of a forced march at Con +2 fails with probability 7/20
