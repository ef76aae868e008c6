"""Exceptions raised by eidomap.

Every error a user can cause (a bad map, catalog or request) is an
:class:`EidomapError` whose message is one line naming the file, the feature
and what is wrong.  The command line prints that line and exits non-zero.
What a message quotes from a file or an argument is written by
``eidomap.base.names.shown``, and a message is one line whatever it quotes
(``eidomap.base.names.one_line``).

Errors speak the caller's language: a message names a parameter of the call
as Python spells it -- ``name=value`` (``name=...`` when no value is meant)
anywhere in the message, or ``name`` as the message's first word when the
error says what is wrong with that parameter (``param``).  The command line
writes its flags in their place (:func:`eidomap.cli.flags`), so a Python caller
reads ``give rolls=..., or use the debt rule (partial='carry')`` and the command
line ``give --rolls, or use the debt rule (--partial carry)``.
"""

from __future__ import annotations

from eidomap.base.names import one_line, shown

__all__ = ["CatalogError", "EidomapError", "EidomapWarning", "MapError", "RequestError"]


class EidomapError(ValueError):
    """Base class of every user-facing eidomap error.

    Attributes
    ----------
    param : str or None
        The parameter the error is about, named as the message's first word.
    """

    param: str | None = None


class MapError(EidomapError):
    """A map file cannot be read or does not follow the map format.

    Attributes
    ----------
    path : str or None
        The file.
    feature : str or None
        The feature's id, or ``#index`` when it has none.
    reason : str
        What is wrong, as one sentence.
    """

    def __init__(self, path: object, feature: str | None, reason: str) -> None:
        self.path = None if path is None else str(path)
        self.feature = feature
        self.reason = reason
        where = [p for p in (self.path and shown(self.path), feature and f"feature {feature}") if p]
        super().__init__(one_line(": ".join([*where, reason])))


class CatalogError(EidomapError):
    """A terrain/species catalog is malformed or names something unknown."""

    def __init__(self, path: object, entry: str | None, reason: str) -> None:
        self.path = None if path is None else str(path)
        self.entry = entry
        self.reason = reason
        where = [p for p in (self.path and shown(self.path), entry) if p]
        super().__init__(one_line(": ".join([*where, reason])))


class RequestError(EidomapError):
    """A query names an unknown Eido or species, or asks something impossible.

    ``param``: the parameter the message is about, its first word
    (``RequestError(f"workers must be ..., got {workers!r}", param="workers")``).
    """

    def __init__(self, message: str, *, param: str | None = None) -> None:
        if param is not None and message.partition(" ")[0] != param:
            raise ValueError(f"the message should start with the parameter {param!r}: {message!r}")
        self.param = param
        super().__init__(one_line(message))


class EidomapWarning(UserWarning):
    """Something eidomap set aside and worked around (a damaged cache): the answer stands; the command line
    prints it as one line."""
