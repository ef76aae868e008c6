"""
A battle grid
=============

The d20 (3.5) tactical rules on the bundled battle grid (5-ft squares; walls, difficult terrain, allies): every
square a character of speed 30 reaches with a double move, in feet, and the fewest rounds to a far square.
"""

import matplotlib.pyplot as plt

import eidomap
from eidomap.answers.grid import reach, route
from eidomap.plot import plot_grid_reach, plot_grid_route

grid = eidomap.load_grid(eidomap.bundled_map_path("d20-battle.txt"))
double = reach(grid, (13, 0), 30, mode="double")
trip = route(grid, (13, 0), (8, 14), 30)
print(f"{len(double.feet)} squares within a double move; the route takes {trip.rounds} rounds, {trip.feet} ft")

# %%
# This round's reach (left) and the route round by round (right).
fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), layout="constrained")
plot_grid_reach(grid, double, axes[0])
plot_grid_route(grid, trip, axes[1])
