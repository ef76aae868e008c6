"""The d20 movement rules (3.5 edition): the tactical battle grid, the chapter's tables, overland travel,
fatigue and chases.

A battle grid's squares are :mod:`eidomap.record.grid`'s (its file is read by
:mod:`eidomap.io.grid`); :mod:`.grid` turns a grid and a mover into arrays
(budgets, step costs, straight lines); :mod:`.tables` holds Tables 7-6,
7-8 and 7-9; :mod:`.speeds` (overland speeds), :mod:`.calendar`,
:mod:`.fatigue` and :mod:`.chase` the rest of the chapter.  docs/d20.md quotes
each rule and gives eidomap's reading.
"""

