"""Deprecated name of :mod:`eidomap.rules.d20.speeds` (issue 29)."""

from eidomap._moved import alias_module

alias_module(__name__, "eidomap.rules.d20.speeds")
