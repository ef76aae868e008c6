"""The d20 rules as a rule set (:mod:`eidomap.record.rulesets`): an overland map's regions and roads.

A d20 overland map's network has its borders and its roads followed Eido by
Eido (``road_eido``): a road is followed, not hopped from Pousa to Pousa (the
journey itself is planned on a mesh of the roads, rivers and regions:
:mod:`eidomap.answers.overland`), and a road has a class (Table 7-9's highway, road or
trail).  Its answer is the
journey (``travel``).  The battle grid is a file of its own
(:mod:`eidomap.io.grid`), not a map, drawn for these rules
(:attr:`Grid.rules <eidomap.record.grid.Grid.rules>`): its answers -- where a
character gets this round, the way in rounds, the grid's planner page -- are
``grid``, asked of this rule set as a map's are of its own
(:mod:`eidomap.answers.grid`).
"""

from __future__ import annotations

from eidomap.record.record import ROAD_CLASSES
from eidomap.record.rulesets import RuleSet

#: The edge kinds of a d20 map's network.
KINDS = ("border", "road_eido")
#: The d20 rules (registered by :mod:`eidomap` as ``"d20"``).
RULE_SET = RuleSet("d20", KINDS, answers=frozenset({"travel", "grid"}),
                   road_classes=ROAD_CLASSES)
