"""The dice of the Eido rules: budgets and their bounds."""

from __future__ import annotations

import pytest

from eidomap.base.errors import RequestError
from eidomap.base.params import read_whole
from eidomap.rules.dice import MAX_MODIFIER, Dice


def test_a_dice_modifier_is_bounded_however_the_dice_are_made():
    assert Dice.parse(f"1d6+{MAX_MODIFIER}").high == 6 + MAX_MODIFIER
    assert Dice.parse(f"1d6-{MAX_MODIFIER}").plus == -MAX_MODIFIER
    for text in (f"1d6+{MAX_MODIFIER + 1}", "1d6+100000000", "1d6-" + "9" * 5000):
        with pytest.raises(RequestError, match="a modifier within ±100,000"):
            Dice.parse(text)
    with pytest.raises(RequestError, match="dice '1d6\\+1000000000'"):
        Dice(1, 6, 10**9)


@pytest.mark.parametrize("text", ["1d\u0666", "\u0661d6", "1d\uff16", "2d6+\u0663", "\u00a01d6"])
def test_dice_are_written_in_the_digits_0_to_9_as_the_planner_pages_read_them(text):
    # issue 44, item 9: an Arabic-Indic or full-width digit was read as its value here and refused on the page
    with pytest.raises(RequestError, match="is not of the form NdM\\+K"):
        Dice.parse(text)


def test_a_number_typed_is_at_most_twelve_digits_0_to_9():
    assert [read_whole(t) for t in ["7", " -12\t", "+0", "000000000001", "999999999999"]] == [7, -12, 0, 1, 10**12 - 1]
    for text in ["\u0663", "\uff13", "1_000", "3.0", "", "0x10", "1000000000000", "0000000000001", "\u00a03"]:
        assert read_whole(text) is None, text
    assert Dice.parse("1d6+000000000001").plus == 1  # twelve digits, not counting the sign
    with pytest.raises(RequestError, match="a modifier within ±100,000"):
        Dice.parse("1d6+0000000000001")
