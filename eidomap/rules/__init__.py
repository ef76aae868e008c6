"""The rule sets: who moves and what each step costs.

:mod:`.eido` (the Eido rules: actors and their cost tables, the rule set),
:mod:`.dice` (a turn's roll), :mod:`.d20` (the d20 movement chapter: the
battle grid's moves, its tables, overland speeds, fatigue, chases).

May import: :mod:`eidomap.model`, :mod:`eidomap.io`, :mod:`eidomap.record`, :mod:`eidomap.base`.
"""
