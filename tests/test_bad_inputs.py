"""The hostile-input corpus (tests/bad_inputs/cases.toml): every case one clean error, or a clean acceptance.

A file case is read through the Python API (the expected error class, the
phrase, and the file named in the message) and through the command line (exit
2, one line on stderr, no traceback: the same message).  An argument set runs
the command line twice: as given (its exit code and its one line) and with
``--debug`` (the traceback ends with the expected error class).
"""

from __future__ import annotations

import builtins
import errno
import json
import os
import shutil
import tomllib
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import DEMO, ROOT

import eidomap
import eidomap.io.files
from eidomap import d20, errors
from eidomap.analysis import load_batch
from eidomap.catalog import load_catalog
from eidomap.cli import main
from eidomap.io.tiled import import_tiled, import_tiled_grid

HERE = Path(__file__).resolve().parent / "bad_inputs"
CASES = tomllib.loads((HERE / "cases.toml").read_text())["case"]
#: Each reader: its Python call (path, scratch folder) and its command line.
READERS = {
    "map": (lambda p, tmp: eidomap.load(p), lambda p, tmp: ["info", p]),
    "catalog": (lambda p, tmp: load_catalog(p), lambda p, tmp: ["species", "--catalog", p]),
    "tiled": (lambda p, tmp: import_tiled(p, tmp / "out.geojson"),
              lambda p, tmp: ["import-tiled", p, "-o", tmp / "o.geojson"]),
    "tiled-grid": (lambda p, tmp: import_tiled_grid(p, tmp / "out.txt"),
                   lambda p, tmp: ["import-tiled", p, "--grid", "-o", tmp / "o.txt"]),
    "grid": (lambda p, tmp: d20.load_grid(p), lambda p, tmp: ["d20", "reach", p, "--at", "0,0", "--speed", "30"]),
    "batch": (lambda p, tmp: load_batch(p).table, lambda p, tmp: ["report", DEMO, "--batch", p, "-o", tmp / "r.html"]),
}


def _refuse_open(error: int):
    """An ``open`` that fails on the corpus file as if it vanished or lost its permissions after ``stat``."""
    real = builtins.open

    def fake(file, *args, **kwargs):
        if Path(str(file)).parent == HERE:
            raise OSError(error, os.strerror(error), str(file))
        return real(file, *args, **kwargs)

    return fake


def _million_vertices(p: Path) -> None:
    """An Eido of 1,000,001 positions (written as text: json.dumps takes seconds over a million lists)."""
    ring = ",".join(f"[{i},0]" for i in range(999_999)) + ",[500,10],[0,0]"
    head = ('{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "big", "properties":'
            ' {"kind": "eido", "terrain": "meadow"}, "geometry": {"type": "Polygon", "coordinates": [[')
    p.write_text(head + ring + "]]}}]}")


def _record(edit):
    """A spoiler that rewrites the folder's ``_batch.json`` as ``edit(record)`` leaves it."""

    def spoil(folder: Path) -> None:
        record = json.loads((folder / "_batch.json").read_text())
        edit(record)
        (folder / "_batch.json").write_text(json.dumps(record))

    return spoil


def _without_proof(path: Path) -> None:
    t = pq.read_table(path)
    pq.write_table(t.replace_schema_metadata({k: v for k, v in t.schema.metadata.items() if k != b"eidomap_part"}),
                   path)


#: How a real batch folder (``make = "batch:NAME"``; ``batch-csv:`` for CSV parts) is spoilt, by name.
BATCH_SPOILS = {
    "part-missing": lambda f: (f / "part-000001.parquet").unlink(),
    "part-garbage": lambda f: (f / "part-000000.parquet").write_bytes(b"PAR1 this is not a parquet file PAR1"),
    "part-copied-over-another": lambda f: shutil.copy(f / "part-000000.parquet", f / "part-000001.parquet"),
    "part-without-proof": lambda f: _without_proof(f / "part-000000.parquet"),
    "turns-changed": _record(lambda r: r["query"].update(turns=3)),
    "dice-changed": _record(lambda r: r["query"].update(dice="2d4")),
    "turns-a-billion": _record(lambda r: r["query"].update(turns=10**9)),
    "actors-a-number": _record(lambda r: r["query"].update(actors=5)),
    "dice-a-number": _record(lambda r: r["query"].update(dice=6)),
    "maps-a-string": _record(lambda r: r.update(maps="demo.geojson")),
    "map-a-list": _record(lambda r: r.update(maps=[["demo.geojson"]])),
    "map-sha256-a-number": _record(lambda r: r["maps"][0].update(sha256=1)),
    "record-200000-deep": lambda f: (f / "_batch.json").write_text("[" * 200_000 + "]" * 200_000),
    "csv-part-cut-short": lambda f: (f / "part-000001.csv").write_text(
        "".join((f / "part-000001.csv").read_text().splitlines(keepends=True)[:2])),
    "csv-id-changed": lambda f: (f / "part-000000.csv").write_text(
        (f / "part-000000.csv").read_text().replace('"porto-norte"', '"porto-nortf"')),
}


@pytest.fixture(scope="session")
def demo_batches(tmp_path_factory) -> dict[str, Path]:
    """A real batch of the demo map in each format: a human, from two places to every Eido, one chunk each."""
    from eidomap.batch import Query
    from eidomap.batch.job import prepare, run_chunk
    from eidomap.batch.store import open_folder

    out = {}
    for fmt in ("parquet", "csv"):
        folder = tmp_path_factory.mktemp("batch") / fmt
        job, chunks, record = prepare(Query((DEMO,), actors=("human",), starts=("porto-norte", "porto-sur"), turns=2,
                                            chunk=1, format=fmt), folder)
        with open_folder(folder, record):
            for c in chunks:
                run_chunk(job, c)
        out[fmt] = folder
    return out


def _path(case: dict, tmp: Path, monkeypatch, request) -> Path:
    """The case's file, made as ``make`` says."""
    make = case.get("make")
    if make and make.startswith("batch"):  # a real batch folder, spoilt
        p = tmp / case["file"]
        shutil.copytree(request.getfixturevalue("demo_batches")["csv" if make.startswith("batch-csv") else "parquet"],
                        p)
        BATCH_SPOILS[make.partition(":")[2]](p)
        return p
    if make in (None, "vanish", "unreadable"):
        if make:
            error = errno.ENOENT if make == "vanish" else errno.EACCES
            monkeypatch.setattr(eidomap.io.files, "open", _refuse_open(error), raising=False)
        return HERE / case["file"]
    p = tmp / case["file"]
    if make == "directory":
        p.mkdir()
    elif make == "dangling":
        p.symlink_to(tmp / "nowhere")
    elif make == "million-vertices":
        _million_vertices(p)
    return p


def _run(argv, capsys) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


FILES = [c for c in CASES if "file" in c]
ARGS = [c for c in CASES if "args" in c]


def test_the_corpus_is_big_and_every_file_is_used():
    assert len(CASES) >= 50 and len({c["name"] for c in CASES}) == len(CASES)
    named = {c["file"] for c in FILES} | {Path(a).name for c in ARGS for a in c["args"] if a.startswith("{here}")}
    assert {p.name for p in HERE.iterdir()} - {"cases.toml"} <= named


@pytest.mark.parametrize("case", FILES, ids=[c["name"] for c in FILES])
def test_hostile_file(case, tmp_path, monkeypatch, capsys, request):
    call, argv = READERS[case["read"]]
    p = _path(case, tmp_path, monkeypatch, request)
    code, out, err = _run(argv(p, tmp_path), capsys)
    if not case["error"]:  # accepted (with warnings, maybe)
        call(p, tmp_path)
        assert code == 0 and "Traceback" not in err
        return
    with pytest.raises(getattr(errors, case["error"])) as exc:
        call(p, tmp_path)
    said = str(exc.value)
    assert case["says"] in said and str(p) in said and "\n" not in said
    assert code == 2 and out == "" and err == f"eidomap: {said}\n"


def _make_output(kind: str, p: Path) -> None:
    """Something other than a new path or a regular file where a command writes: never a real device touched
    (``/dev/null`` only as a link's target)."""
    if kind == "directory":
        p.mkdir()
    elif kind == "fifo":
        os.mkfifo(p)
    elif kind == "file":
        p.write_bytes(b"ORIGINAL")
    else:  # link-to-fifo, link-to-dev-null, link-to-file, dangling-link
        target = {"link-to-dev-null": Path(os.devnull), "dangling-link": p.with_name("nowhere")}.get(
            kind, p.with_name("target"))
        if kind == "link-to-fifo":
            os.mkfifo(target)
        elif kind == "link-to-file":
            target.write_bytes(b"ORIGINAL")
        p.symlink_to(target)


def _state(p: Path) -> tuple:
    """What is at ``p``, without following a link or opening a FIFO: its kind, the link's target, a file's bytes."""
    st = os.lstat(p)
    link = os.readlink(p) if os.path.islink(p) else None
    return st.st_mode, link, p.read_bytes() if p.is_file() and link is None else None


@pytest.mark.parametrize("case", ARGS, ids=[c["name"] for c in ARGS])
def test_hostile_arguments(case, tmp_path, capsys):
    names = {"demo": DEMO, "battle": ROOT / "maps" / "d20-battle.txt", "here": HERE, "tmp": tmp_path}
    if any("{demo_in_tmp}" in a for a in case["args"]):  # the demo map (and its catalog) in a folder of the test's
        for src in (DEMO, DEMO.with_name("demo-catalog.toml")):
            shutil.copy(src, tmp_path / src.name)
        names["demo_in_tmp"] = tmp_path / DEMO.name
    argv = [a.format(**{k: str(v) for k, v in names.items()}) for a in case["args"]]
    if "output" in case:  # a path the command writes, made as `make` says: left as it was
        _make_output(case["make"], tmp_path / case["output"])
        before = _state(tmp_path / case["output"])
    code, out, err = _run(argv, capsys)
    assert code == case["exit"] and case["says"] in out + err and "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("eidomap")
    if "output" in case:
        assert _state(tmp_path / case["output"]) == before
        assert not [q.name for q in tmp_path.iterdir() if q.name.endswith(".tmp")]  # no temporary file left
    if case["error"] not in ("", "usage"):
        code, _, err = _run(["--debug", *argv], capsys)
        where = "" if hasattr(builtins, case["error"]) else "eidomap.errors."
        assert code == 2 and err.startswith("Traceback") and f"\n{where}{case['error']}: " in err
