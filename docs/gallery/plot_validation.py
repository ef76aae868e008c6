"""
A validation picture
====================

A designer's slip: one corner of an Eido dragged a little off the shared border, and a terrain misspelt.
:func:`eidomap.validate` finds every problem at once, each with a code, a severity and a place;
:func:`eidomap.plot.plot_problems` draws them on the map.
"""

import json
import shutil
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

import eidomap
from eidomap.plot import plot_problems

demo = eidomap.demo_map_path()
doc = json.loads(demo.read_text())
features = {f.get("id"): f for f in doc["features"]}
ring = features["castro"]["geometry"]["coordinates"][0]
ring[:] = [[490, 126] if p == [492, 125] else p for p in ring]  # a corner pulled off its neighbours
features["veiga"]["properties"]["terrain"] = "medow"  # a typo

work = Path(tempfile.mkdtemp())
shutil.copy(demo.with_name("demo-catalog.toml"), work)  # the catalog the map names
flawed = work / "flawed.geojson"
flawed.write_text(json.dumps(doc))

report = eidomap.validate(flawed)
for p in report.problems:
    if p.caused_by is None:
        print(f"{p.severity:7} {p.code:16} {p.message}")

# %%
# Every problem on the map, in its place.
fig, ax = plt.subplots(figsize=(9, 5.5), layout="constrained")
plot_problems(report.data, report, ax)
shutil.rmtree(work)
