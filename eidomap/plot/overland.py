"""Deprecated name of :mod:`eidomap.plot.travel` (issue 29)."""

from eidomap._moved import alias_module

alias_module(__name__, "eidomap.plot.travel")
