"""The old names of moved modules (issue 29, eidomap/_moved.py): the module they moved to, with a warning."""

from __future__ import annotations

import importlib
import sys

import pytest

#: Each old module name and the module it is now.
MOVED = {"eidomap.search.dice": "eidomap.search.arrival", "eidomap.search.grid": "eidomap.search.rounds",
         "eidomap.rules.d20.overland": "eidomap.rules.d20.speeds", "eidomap.plot.overland": "eidomap.plot.travel",
         "eidomap.plot.grid": "eidomap.plot.battle"}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_name_imports_the_module_it_moved_to_and_warns(old, monkeypatch):
    monkeypatch.delitem(sys.modules, old, raising=False)  # imported afresh, as by code written for the old name
    with pytest.warns(DeprecationWarning, match=rf"^{old} is now {MOVED[old]}; the old name will be removed$"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old]) is sys.modules[old]  # one module: patching one patches both
