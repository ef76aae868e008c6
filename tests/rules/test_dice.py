"""The dice of the Eido rules: budgets and their bounds."""

from __future__ import annotations

import pytest

from eidomap.base.errors import RequestError
from eidomap.rules.dice import MAX_MODIFIER, Dice


def test_a_dice_modifier_is_bounded_however_the_dice_are_made():
    assert Dice.parse(f"1d6+{MAX_MODIFIER}").high == 6 + MAX_MODIFIER
    assert Dice.parse(f"1d6-{MAX_MODIFIER}").plus == -MAX_MODIFIER
    for text in (f"1d6+{MAX_MODIFIER + 1}", "1d6+100000000", "1d6-" + "9" * 5000):
        with pytest.raises(RequestError, match="a modifier within ±100,000"):
            Dice.parse(text)
    with pytest.raises(RequestError, match="dice '1d6\\+1000000000'"):
        Dice(1, 6, 10**9)
