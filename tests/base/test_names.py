"""Names as users write them (eidomap/base/names.py): the suggestion an error adds for a name not known."""

from __future__ import annotations

from eidomap.base.names import did_you_mean


def test_did_you_mean_suggests_the_nearest_known_name_whatever_its_case():
    assert did_you_mean("Porto-Nort", ["bouza-vella", "porto-norte"]) == " (did you mean 'porto-norte'?)"


def test_did_you_mean_adds_nothing_when_no_known_name_is_near():
    """The error's sentence ends as it was: nothing is appended when no name is close (nor for no name)."""
    assert did_you_mean("zzqx", ["bouza-vella", "porto-norte"]) == ""
    assert did_you_mean("", ["porto-norte"]) == did_you_mean(None, ["porto-norte"]) == ""
