"""The modes a caller chooses among, as enums checked once where they come in.

Each mode is a :class:`~enum.StrEnum`: a member is its text (``Partial.CARRY
== "carry"``, and JSON writes it as ``"carry"``), so a caller may pass either.
The public function that takes one turns it into its member with
:meth:`Mode.checked` -- the one place a bad value is refused, naming the
parameter -- and passes the member (or what it means: :attr:`Partial.carry`)
on; nothing below checks it again.

>>> Partial.checked("forbid", "partial"), Partial.checked(Partial.CARRY, "partial").carry
(<Partial.FORBID: 'forbid'>, True)
>>> Partial.checked("debt", "partial")
Traceback (most recent call last):
...
eidomap.base.errors.RequestError: partial must be 'carry' or 'forbid', got 'debt'
"""

from __future__ import annotations

from enum import StrEnum
from typing import Self

from eidomap.base.params import one_of

__all__ = ["Executor", "Lane", "Mode", "Partial", "RoadStyle"]


class Mode(StrEnum):
    """A mode: its members' values are the words a caller may pass."""

    @classmethod
    def words(cls) -> tuple[str, ...]:
        """The words a caller may pass, in order (the command line's ``choices``).

        Returns
        -------
        tuple of str
            Each member's value.

        See Also
        --------
        checked : a value as a member, or the error naming these words.

        Examples
        --------
        >>> Executor.words()
        ('local', 'dask', 'serial')
        """
        return tuple(m.value for m in cls)

    @classmethod
    def checked(cls, value: object, param: str) -> Self:
        """``value`` as a member of the mode, checked once where it comes in.

        Parameters
        ----------
        value : object
            What the caller passed: a member or its word (``"carry"``).
        param : str
            The parameter's name, for the message.

        Returns
        -------
        Mode
            The member; a :class:`~eidomap.base.errors.RequestError` naming ``param`` and the words allowed when
            ``value`` is none of them.

        Examples
        --------
        >>> Partial.checked("forbid", "partial") is Partial.FORBID
        True
        """
        return cls(one_of(value, param, cls.words()))


class Partial(Mode):
    """What becomes of a step that does not fit the points left in a turn (docs/rules.md): its cost is carried
    as a debt into the next turn (the rule), or the step is not started (the house rule)."""

    CARRY = "carry"
    FORBID = "forbid"

    @property
    def carry(self) -> bool:
        """True under the debt rule."""
        return self is Partial.CARRY


class RoadStyle(Mode):
    """How a species uses roads: hopping from Pousa to Pousa, or (oestrimios) Eido by Eido along the road."""

    POUSA = "pousa"
    EIDO = "eido"


class Lane(Mode):
    """What finds and decodes a GeoJSON map's features: the standard library's ``json`` (the plain reader, which
    reads as the format says) or msgspec (the fast lane, ``eidomap[fast]``: :mod:`eidomap.io.fast`)."""

    JSON = "json"
    MSGSPEC = "msgspec"


class Executor(Mode):
    """Where a batch's chunks run: a local pool of processes, Dask, or this process, one chunk after another (a
    small batch, which a pool's start-up would outlast, or a debugger)."""

    LOCAL = "local"
    DASK = "dask"
    SERIAL = "serial"
