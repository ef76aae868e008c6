"""Deprecated name of :mod:`eidomap.search.rounds` (issue 29)."""

from eidomap._moved import alias_module

alias_module(__name__, "eidomap.search.rounds")
