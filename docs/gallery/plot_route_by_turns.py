"""
A route by turns
================

A PC on foot plans the way from the Bouza Vella to the northern port on the demo map, knowing the rolls of the
next turns (3, 5, 2, 6): each turn's movement points are the roll plus the species' VMv, and a step that costs
more than what is left is taken on credit, a debt paid from the next turn (:doc:`/rules`).
"""

import eidomap
from eidomap.plot import plot_route

m = eidomap.load(eidomap.demo_map_path())
r = eidomap.route(m, "bouza-vella", "porto-norte", "human", rolls=[3, 5, 2, 6])

for turn in r.turns:
    steps = ", ".join(f"{s.node} ({s.cost:g})" for s in turn.steps) or "-"
    print(f"turn {turn.turn}: roll {turn.roll}, {turn.budget:g} PtMv: {steps}; ends in {turn.end}, "
          f"debt {turn.debt_after:g}")

# %%
# The same route drawn: each turn's end is numbered on the map.
ax = plot_route(m, r, zoom=True)
ax.set_title(f"bouza-vella to porto-norte on foot: {r.arrival_turn} turns, {r.total_cost:g} PtMv")
