"""Node positions by id, for :meth:`eidomap.Map.find`: the first few look-ups by scanning the ids, the rest by an index.

A cold route asks for two nodes by id (where it starts and where it ends).
An index of every id -- a dict of a million entries on a million-Eido map,
and, for a map from its cache, the million ids made Python strings first --
costs more than those two look-ups: a scan of the ids
(:meth:`~eidomap.model.map.MapSource.scan`, one pass in C over the record's
ids or the cache's array) answers them.  A map asked for more ids than
:data:`~eidomap.base.settings.SCANS` indexes them all once and answers the rest from the index: the
same answers either way.
"""

from __future__ import annotations

from collections.abc import Callable

from eidomap.base import settings


class IdLookup:
    """Node positions by id: the first :data:`~eidomap.base.settings.SCANS` look-ups by ``scan``, the rest from an
    index.

    ``scan(key, pousas)`` is the source's one pass over its ids
    (:meth:`~eidomap.model.map.MapSource.scan`).  The index is built from the
    ids :meth:`find` is given, when first needed (the map's own lists: not a
    second copy of them).

    >>> ids = ["a", "b"]
    >>> lookup = IdLookup(lambda key, pousas: ids.index(key) if key in ids else None)
    >>> asked = ["b", "x"] * settings.SCANS
    >>> [lookup.find(key, False, lambda: ids, lambda: []) for key in asked] == [1, None] * settings.SCANS
    True
    """

    def __init__(self, scan: Callable[[str, bool], int | None]):
        self._scan = scan
        self._scans = 0
        self._eidos: dict[str, int] | None = None
        self._pousas: dict[str, int] | None = None

    def find(self, key: str, pousas: bool, eido_ids: Callable[[], list[str]],
             pousa_ids: Callable[[], list[str]]) -> int | None:
        """Node position of Eido ``key`` (with ``pousas``: of the Eido or Pousa), or None; ``eido_ids()`` and
        ``pousa_ids()`` give the ids to index, in node order, once the scans are spent."""
        if self._eidos is None and self._scans < settings.SCANS:
            self._scans += 1
            return self._scan(key, pousas)
        if self._eidos is None:
            self._eidos = {e: k for k, e in enumerate(eido_ids())}
        k = self._eidos.get(key)
        if k is not None or not pousas:
            return k
        if self._pousas is None:
            n = len(eido_ids())
            self._pousas = {p: n + k for k, p in enumerate(pousa_ids())}
        return self._pousas.get(key)
