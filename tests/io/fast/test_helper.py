"""The fast lane's helper process (eidomap/io/fast/helper.py): its side of the pipes, run in the test's process; the
reader with a helper is tested in tests/io/fast/test_geojson.py."""

from __future__ import annotations

import io
import struct
import sys
from types import SimpleNamespace

from eidomap.io.fast import helper


def _frames(*batches: tuple[int, bytes]) -> bytes:
    return b"".join(struct.pack("<qq", k, len(text)) + text for k, text in batches)


def test_the_helper_answers_each_batch_in_a_frame_of_its_number_until_its_input_ends(monkeypatch):
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=io.BytesIO(_frames((7, b"abc"), (2, b""), (9, b"xy")))))
    monkeypatch.setattr(sys, "stdout", SimpleNamespace(buffer=out))
    helper.serve(lambda text: text[::-1] + b"!")
    assert out.getvalue() == _frames((7, b"cba!"), (2, b"!"), (9, b"yx!"))


def test_the_helper_stops_at_a_frame_cut_short_or_too_long(monkeypatch):
    for cut in (_frames((1, b"ok"), (2, b"abcdef"))[:-2], _frames((1, b"ok")) + struct.pack("<qq", 2, -1)):
        out = io.BytesIO()
        monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=io.BytesIO(cut)))
        monkeypatch.setattr(sys, "stdout", SimpleNamespace(buffer=out))
        helper.serve(bytes.upper)
        assert out.getvalue() == _frames((1, b"OK"))
