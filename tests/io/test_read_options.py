"""ReadOptions: what a caller may ask of a read, each field typed and checked once, where the options come in."""

from __future__ import annotations

import re

import pytest
from conftest import DEMO

from eidomap.base.errors import RequestError
from eidomap.base.modes import Lane
from eidomap.io.fast import geojson as fastjson
from eidomap.io.readers import ReadOptions, read_map


@pytest.mark.parametrize(("field", "value", "says"), [
    ("helper", "yes", "helper must be True or False, got 'yes'"),
    ("pause_gc", 1, "pause_gc must be True or False, got 1"),
    ("document", None, "document must be True or False, got None"),
    ("reader", "ujson", "reader must be 'json' or 'msgspec', got 'ujson'"),
    ("reader", 3, "reader must be 'json' or 'msgspec', got 3"),
    ("terrain_field", 3, "terrain_field must be text"),
    ("id_field", b"id", "id_field must be text"),
    ("catalog", 3, "catalog must be a Catalog or a file path"),
])
def test_each_read_option_is_refused_naming_its_field_and_what_it_takes(field, value, says):
    with pytest.raises(RequestError, match=f"^{re.escape(says)}") as caught:
        ReadOptions(**{field: value})
    assert caught.value.param == field
    with pytest.raises(RequestError, match=f"^{re.escape(says)}"):  # (before the map is read: the path is no map)
        read_map("no-such-map.geojson", **{field: value})


def test_an_unknown_read_option_is_refused_naming_it():
    with pytest.raises(RequestError, match=r"^helpers is not an option of a read"):
        ReadOptions.of({"helpers": True})


@pytest.mark.parametrize("reader", ["json", Lane.JSON, *(["msgspec", Lane.MSGSPEC] if fastjson.available() else [])])
def test_the_reader_is_its_lane_whether_given_as_a_lane_or_its_word(reader):
    options = ReadOptions(reader=reader)
    assert type(options.reader) is Lane and options.reader == reader
    assert read_map(DEMO, reader=reader)[0].record.eidos.ids[:1] == ("ceo-poente",)



def test_read_options_hold_what_was_checked():
    options = ReadOptions(terrain_field="kind", id_field="name", helper=True, pause_gc=True, document=False)
    assert (options.reader, options.terrain_field, options.id_field, options.helper, options.pause_gc,
            options.document) == (None, "kind", "name", True, True, False)
