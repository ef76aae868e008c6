"""Comparing two JSON answers as the planner pages' checks do (tests/pages/test_planner.py, benchmarks/planner.py)."""

from __future__ import annotations


def differs(got, want, path: str = "") -> str | None:
    """Where ``got`` differs from ``want`` (JSON values, keys in the same order; numbers within 1e-9), or None."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or list(got) != list(want):
            return f"{path}: keys {list(got) if isinstance(got, dict) else got!r} != {list(want)}"
        return next((d for k in want if (d := differs(got[k], want[k], f"{path}.{k}"))), None)
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return f"{path}: {got!r} != {want!r}"
        return next((d for k in range(len(want)) if (d := differs(got[k], want[k], f"{path}[{k}]"))), None)
    number = (int, float)
    if isinstance(want, number) and not isinstance(want, bool):
        ok = isinstance(got, number) and not isinstance(got, bool) and abs(got - want) <= 1e-9
    else:
        ok = got == want and type(got) is type(want)
    return None if ok else f"{path}: {got!r} != {want!r}"
