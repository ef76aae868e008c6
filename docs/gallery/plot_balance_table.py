"""
A batch balance table
=====================

``eidomap batch`` computes, for every actor, start and target, the least PtMv, the expected turns and
P(arrived within k turns) into a resumable Parquet folder, on a process pool, a Dask cluster or, for a batch as small
as this one, in its own process (``--executor serial``); :func:`eidomap.answers.batch.run_batch` does the same from
Python and :func:`eidomap.answers.analysis.load_batch` reads the folder back. Here: from the two ports to every Eido,
for five species, the share each can reach and the expected turns where it can: a designer's first look at balance.
"""

import shutil
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import eidomap
from eidomap.answers.analysis import load_batch
from eidomap.answers.batch import Query, run_batch

demo = str(eidomap.demo_map_path())
species = ["human", "horse", "cow", "cart", "boat"]
out = Path(tempfile.mkdtemp()) / "balance"
# as `eidomap batch DEMO --species human,horse,cow,cart,boat --from porto-norte,porto-sur --out OUT --executor serial`
query = Query((demo,), actors=tuple(species), starts=("porto-norte", "porto-sur"))
summary = run_batch(query, out, executor="serial", progress=False)
print(f"{summary.rows} rows in {summary.chunks} chunks")
result = load_batch(out)

rows = []
for s in species:
    t = result.rows(Path(demo).name, s, ["reachable", "expected_turns"])
    reachable = np.asarray(t["reachable"])
    turns = np.asarray(t["expected_turns"], dtype=float)
    rows.append((s, reachable.mean(), np.nanmean(turns[reachable])))
shutil.rmtree(out.parent)
print(f"{'species':8} {'reaches':>8} {'mean expected turns':>20}")
for s, share, turns in rows:
    print(f"{s:8} {share:8.0%} {turns:20.2f}")

# %%
# The same table as bars: reach against speed.
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
ax.bar([s for s, *_ in rows], [share for _, share, _ in rows], color="#4c72b0")
for i, (_, share, turns) in enumerate(rows):
    ax.text(i, share + 0.02, f"{turns:.1f} turns", ha="center")
ax.set(ylabel="share of (port, Eido) pairs reachable", ylim=(0, 1.15), title="Who gets where from the ports")
