"""The output folder of a batch: one file per finished chunk, a record of the query, resuming.

The folder holds ``_batch.json`` (the query, each map's SHA-256 and catalog,
the number of chunks and rows: written before any chunk) and
``part-NNNNNN.parquet`` (or ``.csv``), one per finished chunk, written to a
temporary name and renamed, so that a file under its final name is whole.
Readers that list a folder (``pandas.read_parquet``, ``pyarrow.dataset``)
skip names starting with ``_`` or ``.``: the record, the lock and temporary
files.  Every Parquet file also carries the query, the map's SHA-256 and
catalog and the eidomap version in its schema metadata (key ``eidomap``).

>>> chunk_name(7, "parquet")
'part-000007.parquet'
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..errors import RequestError
from ..io.files import write_atomic

__all__ = ["FORMATS", "RECORD", "chunk_name", "chunk_table", "finished", "is_record", "open_folder", "read_tables",
           "write_chunk"]

FORMATS = ("parquet", "csv")
RECORD = "_batch.json"
_LOCK = ".lock"
_TMP = ".tmp"


def chunk_name(index: int, fmt: str) -> str:
    return f"part-{index:06d}.{fmt}"


def _labels(value: str, n: int):
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([value]))


def _ids(ids: np.ndarray, codes: np.ndarray):
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(codes.astype(np.int32), pa.array(ids.tolist(), pa.string()))


def chunk_table(map_name: str, actor: str, start_ids: np.ndarray, target_ids: np.ndarray, block,
                metadata: bytes):
    """The rows of a block (start-major) as an Arrow table; ids dictionary-encoded, nulls where unreachable."""
    import pyarrow as pa

    ns, nt = len(start_ids), len(target_ids)
    n = ns * nt
    ok = block.reachable.ravel()
    missing = ~ok
    cols = {
        "map": _labels(map_name, n),
        "actor": _labels(actor, n),
        "from": _ids(start_ids, np.repeat(np.arange(ns), nt)),
        "to": _ids(target_ids, np.tile(np.arange(nt), ns)),
        "reachable": pa.array(ok),
        "cost": pa.array(block.cost.ravel(), mask=missing),
        "expected_turns": pa.array(block.expected.ravel(), mask=missing),
    }
    for k, p in enumerate(block.p, start=1):
        cols[f"p_{k}"] = pa.array(p.ravel())
    return pa.table(cols).replace_schema_metadata({"eidomap": metadata})


def write_chunk(path: Path, table, fmt: str) -> None:
    """Write a chunk's file through a temporary name in the same folder, then rename it."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=_TMP, dir=path.parent)
    os.close(fd)
    try:
        if fmt == "csv":
            plain = pa.table({f.name: c.cast(pa.string()) if pa.types.is_dictionary(f.type) else c
                              for f, c in zip(table.schema, table.columns, strict=True)})
            pacsv.write_csv(plain, tmp)
        else:
            pq.write_table(table, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _difference(old: dict, new: dict) -> str | None:
    """What differs between two records, in words (None when the same batch)."""
    for key, value in new["query"].items():
        if old.get("query", {}).get(key) != value:
            return f"{key} {old.get('query', {}).get(key)!r} there, {value!r} now"
    for a, b in zip(old.get("maps", []), new["maps"], strict=False):
        for key in ("sha256", "catalog", "actors"):
            if a.get(key) != b[key]:
                return f"{b['file']} has another {'content' if key == 'sha256' else key} than when it was started"
    return None


@contextmanager
def open_folder(out, record: dict):
    """Create the output folder or check that it holds this very batch; locked while the batch runs.

    A folder holding another batch, or other files, is refused with one line
    (:class:`RequestError`).  Temporary files a run left behind (a chunk
    half-written when it was stopped) are removed: those chunks are redone.
    """
    folder = Path(out)
    rec_path = folder / RECORD
    if folder.exists() and not folder.is_dir():
        raise RequestError(f"{out}: exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        if rec_path.is_file():
            try:
                old = json.loads(rec_path.read_text())
            except (OSError, ValueError):
                raise RequestError(f"{out}: {RECORD} cannot be read; use another --out folder") from None
            diff = _difference(old, record)
            if diff is not None:
                raise RequestError(f"{out}: holds a different batch ({diff}); use another --out folder or delete it")
        elif any(not p.name.startswith(".") for p in folder.iterdir()):
            raise RequestError(f"{out}: is not empty and holds no eidomap batch; use another --out folder")
        else:
            write_atomic(rec_path, json.dumps(record, indent=1, sort_keys=True).encode())
        for tmp in folder.glob(f".part-*{_TMP}"):
            tmp.unlink(missing_ok=True)
        yield folder


@contextmanager
def _locked(folder: Path):
    """An exclusive lock on the folder (a second run into it at the same time is refused)."""
    try:
        import fcntl
    except ImportError:  # not on POSIX: no lock
        yield
        return
    with open(folder / _LOCK, "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise RequestError(f"{folder}: another batch is writing into this folder right now") from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def finished(folder: Path, chunks, fmt: str) -> set[int]:
    """The chunks whose files are there and whole (a Parquet footer giving the expected rows)."""
    import pyarrow.parquet as pq

    done = set()
    for c in chunks:
        path = folder / chunk_name(c.index, fmt)
        if not path.is_file():
            continue
        if fmt == "parquet":
            try:
                if pq.read_metadata(path).num_rows != c.rows:
                    continue
            except (OSError, ValueError):
                continue
        done.add(c.index)
    return done


def is_record(record) -> bool:
    """``record`` has the shape of a ``_batch.json`` (read from a folder, it is checked like any input)."""
    if not isinstance(record, dict) or not isinstance(record.get("query"), dict):
        return False
    counts = [record.get("chunks"), record.get("rows"), record["query"].get("turns")]
    whole = all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts)
    return whole and record["query"].get("format") in FORMATS


def read_tables(folder: Path, record: dict) -> list:
    """The Arrow tables of the finished chunk files, in chunk order; a damaged one is a :class:`RequestError`."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    fmt = record["query"]["format"]
    out = []
    for k in range(record["chunks"]):
        path = folder / chunk_name(k, fmt)
        if not path.is_file():
            continue
        try:
            if fmt == "parquet":
                out.append(pq.read_table(path))
            else:
                types = {"from": pa.string(), "to": pa.string(), "map": pa.string(), "actor": pa.string()}
                out.append(pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(column_types=types)))
        except (OSError, ValueError) as exc:  # pyarrow's errors: ArrowIOError, ArrowInvalid
            raise RequestError(f"{path}: is not a readable {fmt} chunk ({exc}); delete it and run the batch"
                               " again to redo it") from None
    return out
