"""
An overland journey
===================

The d20 overland rules on the bundled overland map: the same trip from the Grey Peaks to Greenfield on foot and
by a keelboat someone guides down the river (floating through the night), each planned day by day.
"""

import matplotlib.pyplot as plt

import eidomap
from eidomap.plot import plot_travel

m = eidomap.load(eidomap.bundled_map_path("d20-overland.geojson"))
trips = {
    "on foot": eidomap.travel(m, "greypeaks", "greenfield", speed=30),
    "keelboat, guided": eidomap.travel(m, "greypeaks", "greenfield", vehicle="keelboat", guided=True),
}
for name, t in trips.items():
    print(f"{name}: {t.miles:.1f} miles in {len(t.days)} day(s):", ", ".join(f"{d.miles:.1f} mi" for d in t.days))

# %%
# Each journey on the map, its days told apart.
fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), layout="constrained")
for ax, (name, t) in zip(axes, trips.items(), strict=True):
    plot_travel(m, t, ax)
    ax.set_title(name)
