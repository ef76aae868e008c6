"""
A reach heat map
================

Where can a cow get within three turns from the southern port, and how likely is it?
:func:`eidomap.reach`
gives the exact probability of having arrived in each Eido within ``turns`` turns, under the dice.
"""

import eidomap
from eidomap.plot import plot_reach

m = eidomap.load(eidomap.demo_map_path())
cow = eidomap.reach(m, "porto-sur", "cow", turns=3)

sure = sorted(e for e, p in cow.p_within.items() if p >= 0.999)
print(f"{len(sure)} Eidos certain within 3 turns:", ", ".join(sure))

# %%
# Each Eido coloured by P(arrived within 3 turns); white where the cow cannot go.
ax = plot_reach(m, cow)
