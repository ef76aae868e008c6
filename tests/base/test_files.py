"""Nothing lost: every writer through a temporary file and a rename, interrupted writes, no input written over.

Lossless round trips are in io/test_geojson.py; cache files that are corrupted or
truncated in test_cache.py (ignored and rebuilt, never trusted); ``fix --in-place``
keeping a backup in test_fix.py.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import DEMO, ROOT, collection, strip

import eidomap
from eidomap.cli import main


def _copy_inputs(folder: Path) -> None:
    for src in (DEMO, ROOT / "maps" / "demo-catalog.toml", ROOT / "maps" / "d20-battle.txt",
                ROOT / "maps" / "d20-overland.geojson", ROOT / "tests" / "data" / "svg" / "board.svg",
                ROOT / "tests" / "data" / "svg" / "legend.toml",
                ROOT / "tests" / "data" / "tiled" / "board.tmj", ROOT / "tests" / "data" / "tiled" / "grid.tmj",
                ROOT / "tests" / "data" / "validate" / "near-miss.geojson"):
        shutil.copy(src, folder / src.name)


#: Every command that writes a file: its arguments (OUT is the file written) -- maps, fixes, pictures, reports,
#: imports, conversions.  Batch results and caches are written by their own writers (below).
WRITERS = {
    "fix": ["fix", "near-miss.geojson", "-o", "OUT.geojson"],
    "convert-geojson": ["convert", "demo.geojson", "OUT.geojson"],
    "convert-gpkg": ["convert", "demo.geojson", "OUT.gpkg"],
    "generate": ["generate", "--eidos", "5", "OUT.geojson"],
    "import-tiled": ["import-tiled", "board.tmj", "-o", "OUT.geojson"],
    "import-tiled-grid": ["import-tiled", "grid.tmj", "--grid", "-o", "OUT.txt"],
    "plot-png": ["plot", "demo.geojson", "--png", "OUT.png"],
    "route-svg": ["route", "demo.geojson", "--from", "bouza-vella", "--to", "porto-norte", "--species", "human",
                  "--png", "OUT.svg"],
    "d20-reach-png": ["d20", "reach", "d20-battle.txt", "--at", "13,0", "--speed", "30", "--png", "OUT.png"],
    "d20-travel-png": ["d20", "travel", "d20-overland.geojson", "--from", "heath", "--to", "ridge", "--speed", "30",
                       "--png", "OUT.png"],
    "report": ["report", "demo.geojson", "--species", "human", "-o", "OUT.html"],
    "validate-png": ["validate", "near-miss.geojson", "--png", "OUT.png"],
    "plot-html": ["plot", "near-miss.geojson", "--html", "OUT.html"],
    "import-svg": ["import-svg", "board.svg", "--legend", "legend.toml", "-o", "OUT.geojson"],
}


def _out(argv: list[str]) -> str:
    return next(a for a in argv if a.startswith("OUT."))


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    _copy_inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_no_writer_writes_over_a_file_unless_forced_and_each_writes_a_temporary_file_then_renames(
        name, workdir, monkeypatch, capsys):
    """Refused before any work when the output exists; with ``--force``, written whole beside it and renamed over
    it (one run of each writer checks both: each run is a whole command)."""
    argv = WRITERS[name]
    out = (workdir / _out(argv)).absolute()
    out.write_bytes(b"ORIGINAL")
    before = {p.name: p.read_bytes() for p in workdir.iterdir()}
    assert main(argv) == 2
    assert capsys.readouterr().err == (f"eidomap: {out.name}: exists; eidomap does not write over a file unless"
                                       " told: choose another name, or pass --force to replace it\n")
    assert {p.name: p.read_bytes() for p in workdir.iterdir()} == before  # refused before any work
    renames = []
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        renames.append((Path(src).absolute(), Path(dst).absolute()))
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    assert main([*argv, "--force"]) == 0
    assert out.is_file() and out.stat().st_size > 0 and out.read_bytes() != b"ORIGINAL"
    # from a temporary file in the output's folder (or in a temporary folder there: a Shapefile's several files)
    assert any(dst == out and src != out and out.parent in (src.parent, src.parent.parent) for src, dst in renames)
    capsys.readouterr()


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_an_output_in_a_folder_that_does_not_exist_is_one_line_naming_both(name, workdir, capsys):
    """Not the temporary file beside it, which nobody asked for; and nothing is made."""
    out = _out(WRITERS[name])
    argv = [a.replace(out, f"missing/{out}") for a in WRITERS[name]]
    before = sorted(p.name for p in workdir.iterdir())
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"eidomap: missing/{out}: the folder {str(workdir / 'missing')!r} does not exist\n", err
    assert sorted(p.name for p in workdir.iterdir()) == before


def test_every_command_that_writes_a_file_takes_force(capsys):
    from eidomap.cli import OUTPUTS, build_parser

    def commands(parser, path=()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from commands(sub, (*path, name))
        yield path, {a.dest for a in parser._actions}

    writers = {path: dests for path, dests in commands(build_parser()) if dests & set(OUTPUTS)}
    assert {("generate",), ("convert",), ("import-svg",), ("import-tiled",), ("fix",), ("report",), ("plot",),
            ("route",), ("reach",), ("validate",), ("d20", "reach"), ("d20", "travel")} <= set(writers)
    assert {path for path, dests in writers.items() if "force" not in dests} == {("batch",)}  # a folder it resumes


def test_writes_refuse_what_is_not_a_regular_file_and_leave_it_as_it_was(tmp_path):
    from eidomap.base.files import write_atomic

    fifo, link, target = tmp_path / "fifo", tmp_path / "link", tmp_path / "target"
    os.mkfifo(fifo)
    target.write_bytes(b"ORIGINAL")
    link.symlink_to(target)
    devnull = tmp_path / "null"
    devnull.symlink_to(os.devnull)
    for p, what in ((fifo, "a FIFO"), (link, "a symbolic link to a file"), (tmp_path, "a directory"),
                    (devnull, "a symbolic link to a device")):
        with pytest.raises(FileExistsError, match=f"is {what};") as exc:
            write_atomic(p, b"NEW")
        assert exc.value.filename == str(p)
    assert fifo.is_fifo() and os.readlink(link) == str(target) and target.read_bytes() == b"ORIGINAL"
    assert os.readlink(devnull) == os.devnull
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link", "null", "target"]  # no temporary file


def _fail_at_rename(monkeypatch, error: BaseException) -> None:
    def replace(src, dst, *args, **kwargs):
        raise error

    monkeypatch.setattr(os, "replace", replace)


@pytest.mark.parametrize("name", ["fix", "convert-gpkg", "import-tiled-grid", "report"])  # each way of writing
def test_a_write_interrupted_before_the_rename_leaves_the_original(name, workdir, monkeypatch, capsys):
    argv = [*WRITERS[name], "--force"]
    out = workdir / _out(argv)
    out.write_bytes(b"ORIGINAL")
    before = sorted(p.name for p in workdir.iterdir())
    _fail_at_rename(monkeypatch, OSError(errno.EIO, "Input/output error"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Input/output error" in err and "Traceback" not in err
    assert out.read_bytes() == b"ORIGINAL"
    assert sorted(p.name for p in workdir.iterdir()) == before  # no temporary file left behind


class _FullDisk:
    """A file object whose writes fail as on a full disk."""

    def __init__(self, fd: int):
        os.close(fd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("name", ["fix", "convert-geojson", "import-tiled", "plot-png"])
def test_a_full_disk_leaves_the_original_and_says_so_in_one_line(name, workdir, monkeypatch, capsys):
    argv = [*WRITERS[name], "--force"]
    out = workdir / _out(argv)
    out.write_bytes(b"ORIGINAL")
    before = sorted(p.name for p in workdir.iterdir())
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _FullDisk(fd))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"eidomap: {out.name}: No space left on device\n"
    assert out.read_bytes() == b"ORIGINAL" and sorted(p.name for p in workdir.iterdir()) == before


def test_a_batch_chunk_interrupted_before_its_rename_leaves_no_chunk(tmp_path, monkeypatch):
    import pyarrow as pa

    from eidomap.answers.batch.store import write_chunk

    path = tmp_path / "part-000000.parquet"
    _fail_at_rename(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        write_chunk(path, pa.table({"a": [1, 2]}), "parquet", {})
    assert list(tmp_path.iterdir()) == []  # resumed runs redo it: nothing half-written is taken for done


def test_a_cache_interrupted_before_its_rename_is_skipped_and_the_old_one_kept(tmp_path, monkeypatch):
    from eidomap.model import cache

    p = tmp_path / "m.geojson"
    p.write_text(json.dumps(collection(strip(["meadow", "forest"]))))
    cache.path_for(p).write_bytes(b"OLD")
    _fail_at_rename(monkeypatch, OSError(errno.EIO, "Input/output error"))
    with pytest.warns(eidomap.EidomapWarning, match=r"eidomap-cache: cannot be written \(Input/output error\)"):
        m = eidomap.load(p, cache=True)
    assert m.network.node_ids.tolist()[:2] == ["e0", "e1"]  # the answer comes anyway; the cache is only skipped
    assert cache.path_for(p).read_bytes() == b"OLD" and len(list(tmp_path.iterdir())) == 2


@pytest.mark.parametrize(("argv", "what"), [
    (["convert", "demo.geojson", "demo.geojson"], "map"),
    (["report", "demo.geojson", "--species", "human", "-o", "demo.geojson"], "map"),
    (["plot", "demo.geojson", "--catalog", "demo-catalog.toml", "--png", "demo-catalog.toml"], "catalog"),
    (["fix", "demo.geojson", "-o", "./demo.geojson"], "map"),
    (["report", "demo.geojson", "-o", "demo-catalog.toml", "--force"], "catalog of the map"),  # named in the map
    (["import-tiled", "board.tmj", "-o", "board.tmj"], "source"),
    (["d20", "reach", "d20-battle.txt", "--at", "13,0", "--speed", "30", "--png", "d20-battle.txt"], "grid"),
])
def test_no_command_writes_over_its_input(argv, what, workdir, capsys):
    before = {p.name: p.read_bytes() for p in workdir.iterdir()}
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"is the {what} this command reads" in err
    assert {p.name: p.read_bytes() for p in workdir.iterdir()} == before
