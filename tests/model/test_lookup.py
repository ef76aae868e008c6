"""Node positions by id (eidomap.model.lookup): the first few look-ups scan the ids, the rest use one index."""

from __future__ import annotations

from eidomap.base.settings import SCANS
from eidomap.model.lookup import IdLookup

EIDOS, POUSAS = ["a", "b", "c"], ["p", "q"]


def _scan(key: str, pousas: bool) -> int | None:
    ids = EIDOS + POUSAS if pousas else EIDOS
    return ids.index(key) if key in ids else None


def test_a_map_scans_for_its_first_ids_and_indexes_them_all_once_for_the_rest():
    """A cold route's two look-ups never make the index (a million ids); the ninth does, once, from the map's own
    lists, and answers as the scan did."""
    scanned, listed = [], []
    lookup = IdLookup(lambda key, pousas: scanned.append(key) or _scan(key, pousas))

    def find(key: str, pousas: bool) -> int | None:
        return lookup.find(key, pousas, lambda: listed.append("eidos") or EIDOS,
                           lambda: listed.append("pousas") or POUSAS)

    asked = [("c", False), ("q", True), ("q", False), ("x", True), ("a", True), ("p", True)]
    answers = [_scan(key, pousas) if key in EIDOS or pousas else None for key, pousas in asked]
    assert [find(key, pousas) for key, pousas in asked * SCANS] == answers * SCANS
    assert len(scanned) == SCANS and "pousas" in listed
    listed.clear()
    assert [find(key, pousas) for key, pousas in asked] == answers and listed == []  # (indexed once)
