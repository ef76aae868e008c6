"""The commands that write maps in other formats (eidomap/cli/formats.py): what they say beside what they write.
The formats themselves are tested in tests/io/."""

from __future__ import annotations

import shutil

from conftest import DEMO, run

CATALOG = DEMO.with_name("demo-catalog.toml")


def test_convert_with_a_catalog_given_warns_when_the_catalog_the_map_names_is_not_beside_the_output(tmp_path, capsys):
    out = tmp_path / "demo.gpkg"
    code, said, err = run(["convert", DEMO, out, "--catalog", CATALOG], capsys)
    assert code == 0 and said.startswith(f"wrote {out}: 76 Eidos")
    assert err == (f"eidomap: warning: the map names the catalog 'demo-catalog.toml', which is beside {DEMO}:"
                   f" copy it beside {out}\n")
    shutil.copy(CATALOG, tmp_path / CATALOG.name)  # beside the output now: nothing to say
    code, _, err = run(["convert", DEMO, tmp_path / "again.gpkg", "--catalog", CATALOG], capsys)
    assert code == 0 and err == ""
