"""The searches: plain functions over the compiled network's arrays (and their numba twins).

:mod:`.weighted` (cheapest PtMv: SciPy's Dijkstra or Dial's buckets,
:mod:`.dial`, :mod:`.buckets`), :mod:`.arrival` (the law of the arrival turn
under the dice), :mod:`.turns` and :mod:`.forbid` (labels turn by turn, under
both step rules), :mod:`.policy` (the best play under ``forbid``),
:mod:`.grid` (rounds on the d20 battle grid) and :mod:`.mesh` (d20 journeys
across regions).

May import: :mod:`eidomap.rules`, :mod:`eidomap.model`, :mod:`eidomap.record`, :mod:`eidomap.base`.
"""
