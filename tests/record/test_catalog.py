"""The catalog's cost tables (eidomap/record/catalog.py); its TOML's rules and refusals are tested with the Eido rules
(tests/rules/test_eido.py) and the hostile-input corpus."""

from __future__ import annotations

import math

import numpy as np
from conftest import DEMO

from eidomap.record.catalog import load_catalog


def test_the_cost_table_holds_a_row_per_species_in_catalog_order_and_a_column_per_terrain_code():
    cat = load_catalog(DEMO.with_name("demo-catalog.toml"))
    table = cat.cost_table()
    assert table.shape == (len(cat.species), len(cat.terrains)) and table.dtype == np.float64
    for row, species in zip(table, cat.species.values(), strict=True):
        assert np.array_equal(row, cat.cost_row(species))
    human = table[list(cat.species).index("human")]
    assert human[cat.terrain_code("meadow")] == 1 and human[cat.terrain_code("sea")] == 5
    assert math.isinf(human[cat.terrain_code("air")])  # a terrain left out of its costs is impassable
