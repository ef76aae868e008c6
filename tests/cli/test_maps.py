"""The map commands (info, neighbors, generate): what they print."""

from __future__ import annotations

from conftest import DEMO, run


def test_info_counts_read_as_words(capsys):
    code, out, _ = run(["info", DEMO], capsys)
    assert code == 0 and "76 Eidos in 2 regions" in out and "23 Pousas" in out and "1 stream\n" in out
