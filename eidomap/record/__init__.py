"""The map record: what a map holds, whatever file it came from.

The record itself (:mod:`.record`: Eidos, roads, Pousas, fountains, streams,
rivers), its catalog of terrains and species (:mod:`.catalog`), the geometry of
the drawing (:mod:`.geometry`: the tolerance, lines; :mod:`.rings`: simple
rings without GEOS) and the rule sets a map may be drawn for
(:mod:`.rulesets`).

May import: :mod:`eidomap.base`.
"""
