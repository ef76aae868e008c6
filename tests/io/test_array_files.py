"""The cache's array files (eidomap/io/arrays.py): opening only a regular file, on any platform."""

from __future__ import annotations

import os

import pytest

from eidomap.io import arrays


@pytest.mark.parametrize("flags", [(), ("O_CLOEXEC",), ("O_NONBLOCK",), ("O_CLOEXEC", "O_NONBLOCK")])
def test_a_regular_file_opens_where_the_platform_lacks_the_flags_it_is_opened_with(tmp_path, monkeypatch, flags):
    """O_NONBLOCK and O_CLOEXEC are POSIX's (Windows has neither): where ``os`` lacks them, the file opens
    without them."""
    path = tmp_path / "a.bin"
    path.write_bytes(b"eidomap")
    for flag in flags:
        monkeypatch.delattr(os, flag, raising=False)
    with arrays.open_regular(path) as fh:
        assert fh.read() == b"eidomap"
    with pytest.raises(ValueError, match=r"^not a regular file$"):
        arrays.open_regular(tmp_path)
