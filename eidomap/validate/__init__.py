"""Checks: validation of a map and its fixes, and the ways their findings are written.

:mod:`.checks` (the board, feature and reach checks: :func:`validate`),
:mod:`.fix` (the safe fixes), :mod:`.formats` (SARIF and GitHub annotations),
:mod:`.watch` (``eidomap validate --watch``).

May import: :mod:`eidomap.search`, :mod:`eidomap.rules`, :mod:`eidomap.model`,
:mod:`eidomap.io`, :mod:`eidomap.record`, :mod:`eidomap.base`.

>>> import eidomap
>>> eidomap.validate(eidomap.demo_map_path()).errors
[]
"""

