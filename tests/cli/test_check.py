"""The checking commands (validate, fix, import-tiled): what they print and the pictures they write."""

from __future__ import annotations

import json

import pytest
from conftest import DEMO, run


@pytest.mark.parametrize("option", ["--png", "--html"])
def test_validate_says_which_picture_it_wrote(tmp_path, capsys, option):
    path = DEMO.parent.parent / "tests" / "data" / "validate" / "overlap.geojson"
    pic = tmp_path / f"problems.{'png' if option == '--png' else 'html'}"
    code, out, err = run(["validate", path, option, pic], capsys)
    assert code == 1 and out.endswith(f"1 error, 0 warnings\nwrote {pic}\n") and pic.stat().st_size > 0
    code, out, err = run(["validate", path, option, pic, "--json", "--force"], capsys)
    assert json.loads(out)["errors"] == 1 and err == f"wrote {pic}\n"
