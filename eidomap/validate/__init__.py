"""Checks: validation of a map and its fixes, and the ways their findings are written.

``board`` (the Eidos' geometry against each other), ``features`` (Pousas, roads,
fountains and streams on them), ``reach`` (each species' reach), gathered by
:mod:`.checks` (:func:`~eidomap.validate.checks.validate`, its report); :mod:`.fix`
(the safe fixes), :mod:`.formats` (SARIF and GitHub annotations),
:mod:`.watch` (``eidomap validate --watch``).

May import: :mod:`eidomap.search`, :mod:`eidomap.rules`, :mod:`eidomap.model`,
:mod:`eidomap.io`, :mod:`eidomap.record`, :mod:`eidomap.base`.

>>> import eidomap
>>> eidomap.validate(eidomap.demo_map_path()).errors
[]
"""

