"""Deprecated name of :mod:`eidomap.search.arrival` (issue 29)."""

from eidomap._moved import alias_module

alias_module(__name__, "eidomap.search.arrival")
