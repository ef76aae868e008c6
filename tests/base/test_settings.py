"""eidomap.base.settings: the one place of the package's tuning -- the thresholds that choose, by an input's size,
between two ways to the same answer (SciPy or compiled code, one process or a helper, a scan or an index)."""

from __future__ import annotations

import ast
import re

from conftest import ROOT

import eidomap
from eidomap.base import settings
from eidomap.model.lookup import IdLookup
from eidomap.search.turns import earliest_labels

SETTINGS = ROOT / "eidomap" / "base" / "settings.py"


def _thresholds() -> list[str]:
    return [n for n in vars(settings) if re.fullmatch(r"[A-Z][A-Z_]+", n)]


def test_every_threshold_says_what_it_decides_and_why_that_value():
    """Issue 47: "six size and compile thresholds live in six modules".  Each is here, with a ``#:`` comment."""
    lines = SETTINGS.read_text().splitlines()
    for node in ast.parse(SETTINGS.read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in _thresholds():
            assert lines[node.lineno - 2].startswith("#:"), node.targets[0].id
    assert {"COMPILE_ABOVE", "DIAL_ABOVE", "LOOPS_ABOVE", "COMPILE_ROADS_ABOVE", "SURE_ABOVE", "HELPER_BYTES",
            "COMPILED_BYTES", "SCANS"} <= set(_thresholds())


def test_no_module_keeps_a_threshold_of_its_own():
    """A threshold of the tuning is defined once, in settings, and read from there when it is used -- never a
    module's copy, which a change of the setting would not reach."""
    names = set(_thresholds())
    found = []
    for path in (ROOT / "eidomap").rglob("*.py"):
        if path == SETTINGS:
            continue
        for node in ast.parse(path.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, ast.AnnAssign) else []
            found += [f"{path.relative_to(ROOT)}: {t.id}" for t in targets
                      if isinstance(t, ast.Name) and (t.id in names or t.id.endswith("_ABOVE"))
                      and not (path.name == "grid.py" and t.id == "COMPILE_ABOVE")]  # (the grid's, in squares)
            found += [f"{path.relative_to(ROOT)}: from settings import {a.name}" for a in getattr(node, "names", [])
                      if isinstance(node, ast.ImportFrom) and node.module == "eidomap.base.settings"
                      and a.name in names]
    assert found == []


def test_a_setting_changed_at_run_time_moves_the_switch(monkeypatch):
    """The modules read a threshold when they run: setting it (a benchmark, a test) changes what runs."""
    monkeypatch.setattr(settings, "COMPILE_ABOVE", 10)
    assert settings.twin(earliest_labels, 100) is not earliest_labels
    monkeypatch.setattr(settings, "COMPILE_ABOVE", 1000)
    assert settings.twin(earliest_labels, 100) is earliest_labels
    for scans in (0, 3):
        monkeypatch.setattr(settings, "SCANS", scans)
        assert _lookups(5) == (scans, 1)


def _lookups(n: int) -> tuple[int, int]:
    """How many of ``n`` look-ups of an id scanned the ids, and how many times the ids were indexed."""
    scanned, indexed = [], []
    lookup = IdLookup(lambda key, pousas: scanned.append(key) or 0)
    for _ in range(n):
        lookup.find("a", False, lambda: indexed.append(1) or ["a"], list)
    return len(scanned), len(indexed)


def test_a_big_map_switch_answers_the_same_either_way(monkeypatch):
    """The thresholds choose a way, not an answer: the demo map's route with every switch thrown either way."""
    m = eidomap.load(eidomap.demo_map_path())
    start, goal = m.eido_ids[0], m.eido_ids[-1]
    answers = []
    for value in (0, 1 << 62):
        for name in ("DIAL_ABOVE", "COMPILE_ABOVE"):
            monkeypatch.setattr(settings, name, value)
        answers.append(eidomap.route(m, start, goal, "human", rolls=[3, 5, 2, 6]))
    assert answers[0] == answers[1]
