"""
A race
======

A rider sets out from the Carballeira and a walker from the northern port, both for the Chousa fountain. Each
arrival turn has a distribution under the dice; :func:`eidomap.answers.analysis.race` turns the two into the chance that
each arrives first, and of a tie.
"""

import matplotlib.pyplot as plt
import numpy as np

import eidomap
from eidomap.answers.analysis import race

m = eidomap.load(eidomap.demo_map_path())
GOAL = "chousa"
runners = {
    "rider from carballeira": eidomap.route(m, "carballeira", GOAL, eidomap.actor(m.catalog, "human", mount="horse")),
    "walker from porto-norte": eidomap.route(m, "porto-norte", GOAL, "human"),
}
rider, walker = runners.values()
first_rider, tie, first_walker = race(np.array(rider.p_by_turn), np.array(walker.p_by_turn))
print(f"P(rider first) = {first_rider:.3f}, P(same turn) = {tie:.3f}, P(walker first) = {first_walker:.3f}")

# %%
# P(arrived by turn k) for each: the race is decided where the curves part.
fig, ax = plt.subplots(figsize=(7, 3.5))
for name, r in runners.items():
    ax.step(np.arange(len(r.p_by_turn) + 1), [0.0, *r.p_by_turn], where="post", marker="o",
            label=f"{name} ({r.expected_turns:.2f} turns expected)")
ax.set(xlabel="turn", ylabel=f"P(in {GOAL} by this turn)", ylim=(0, 1.02), title="The race to the Chousa fountain")
ax.legend(loc="lower right")
ax.grid(alpha=0.3)
