"""Deprecated name (issue 29): the squares are :mod:`eidomap.rules.d20.squares`, the grid text file
:mod:`eidomap.io.battle_grid`; this module serves the names of both."""

from eidomap._moved import moved
from eidomap.io import battle_grid as _file
from eidomap.rules.d20 import squares as _squares

moved(__name__, "eidomap.rules.d20.squares and eidomap.io.battle_grid")
__all__ = sorted({*_squares.__all__, *_file.__all__})
globals().update({name: getattr(_file if name in _file.__all__ else _squares, name) for name in __all__})
