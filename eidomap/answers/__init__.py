"""Answers: routes and reachability, analyses, batches, and the d20 answers.

:mod:`.routing` (``route``, ``reach``: the Eido rules' questions),
:mod:`.analysis` (races, bottlenecks, batch results), :mod:`.batch` (many
questions in parallel, resumable), :mod:`.grid` (the d20 battle grid's reach and
route), :mod:`.overland` (d20 journeys, speeds, fatigue, chases).

May import: every layer below it -- :mod:`eidomap.validate`, :mod:`eidomap.search`,
:mod:`eidomap.rules`, :mod:`eidomap.model`, :mod:`eidomap.io`, :mod:`eidomap.record`,
:mod:`eidomap.base`.
"""
