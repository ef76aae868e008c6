"""Execute the notebooks in place, so that they are committed with fresh outputs.

    python notebooks/run_all.py                 # every notebook of this folder
    python notebooks/run_all.py 02-reachability.ipynb

Each notebook runs top to bottom in a fresh "python3" kernel, from this folder
(as the test suite runs them); an error stops the run and leaves the file as it
was.  Cell timings are not recorded, so that a re-run changes only what changed.
A figure is drawn at its own size (``figsize`` times ``dpi``, its contents laid
out within it by matplotlib's constrained layout), not cropped to the extent of
its text as Jupyter's inline backend crops it: the fonts of a machine change that
extent, and a picture saved on one machine came out 41 pixels wider on another.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
#: Seconds a cell may run, and the kernel take to start: a guard against a hang, far above the slowest run on a
#: loaded machine (a cell takes seconds; nbclient's own 60 s for a kernel's start is too short there).
TIMEOUT = 600
#: The kernel's options: errors only in its log (its start-up notes, such as running over TCP on this machine,
#: are not the notebook's output), and figures of a fixed size.
KERNEL = ["--IPKernelApp.log_level=ERROR", '--InlineBackend.print_figure_kwargs={"bbox_inches": None}',
          '--InlineBackend.rc={"figure.constrained_layout.use": True}']


def execute(path: Path):
    """The notebook at ``path``, run top to bottom (raises ``CellExecutionError`` on an error), in a kernel with
    the options of :data:`KERNEL`."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, kernel_name="python3", timeout=TIMEOUT, startup_timeout=TIMEOUT, record_timing=False,
                   extra_arguments=KERNEL, resources={"metadata": {"path": str(HERE)}}).execute()
    return nb


def run(path: Path) -> None:
    nbformat.write(execute(path), path)


def main(names: list[str]) -> None:
    paths = [HERE / n for n in names] if names else sorted(HERE.glob("*.ipynb"))
    for path in paths:
        print(f"running {path.name}", flush=True)
        run(path)


if __name__ == "__main__":
    main(sys.argv[1:])
