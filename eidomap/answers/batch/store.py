"""The output folder of a batch: one file per finished chunk, a record of the query, resuming.

The folder holds ``_batch.json`` (the query, each map's SHA-256 and catalog,
the number of chunks and rows: written before any chunk) and
``part-NNNNNN.parquet`` (or ``.csv``), one per finished chunk, written to a
temporary name and renamed, so that a file under its final name is whole.
Readers that list a folder (``pandas.read_parquet``, ``pyarrow.dataset``)
skip names starting with ``_`` or ``.``: the record, the lock, the CSV parts'
proofs and temporary files.  Every Parquet file also carries the query, the
map's SHA-256 and catalog and the eidomap version in its schema metadata (key
``eidomap``).

Each part proves what it holds with a *proof* (:func:`prove`): the digest of
its query (:func:`query_digest`: the record's query, maps and counts), its
chunk, map, actor and rows, and a digest of each column's values -- sealed by a
digest of all that.  A Parquet part carries it in its schema metadata (key
``eidomap_part``), a CSV part beside it (``_part-NNNNNN.csv.proof``).  Resuming
takes a part as done only when its proof is whole, names this query and this
chunk, its schema is the query's (:func:`part_schema`: the columns' names,
types and order) and every column matches its digest (:func:`finished`);
anything else is computed again.  A reader checks the proof and the schema of
every part against the record, and the digest of every column it reads
(:func:`proven_parts`, :func:`read_part`).  (A digest is of the values: text
read back as bytes has the same one, so the schema is checked on its own.)

>>> chunk_name(7, "parquet")
'part-000007.parquet'
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from eidomap.base.errors import RequestError
from eidomap.base.files import open_atomic, write_atomic
from eidomap.base.modes import Mode
from eidomap.base.names import shown

if TYPE_CHECKING:
    import pyarrow as pa

    from eidomap.answers.batch.kernels import Block



class TableFormat(Mode):
    """The files a batch writes, one a chunk: Parquet (columns, dictionary-encoded text) or CSV."""

    PARQUET = "parquet"
    CSV = "csv"


RECORD = "_batch.json"
_LOCK = ".lock"
_TMP = ".tmp"
#: The schema metadata key of a Parquet part's proof; the suffix of a CSV part's proof file.
PROOF = "eidomap_part"
_PROOF_SUFFIX = ".proof"
#: Largest record (``_batch.json``) or proof file read (bytes): each holds a catalog per map at most.
MAX_RECORD_BYTES = 64 << 20
#: Highest ``--turns`` (as :func:`eidomap.answers.batch.job.prepare` checks it).
MAX_TURNS = 1000
_PART = re.compile(r"part-([0-9]{6,12})\.(parquet|csv)")
#: The columns whose values are text (dictionary-encoded in Parquet).
TEXT = ("map", "actor", "from", "to")
#: Longest header line of a CSV part read to check its columns (bytes): names of at most 1,000 turns fit many times.
_MAX_HEADER = 1 << 16


def chunk_name(index: int, fmt: str) -> str:
    return f"part-{index:06d}.{fmt}"


def proof_path(path: Path) -> Path:
    """Where a CSV part's proof is written (beside it)."""
    return path.with_name(f"_{path.name}{_PROOF_SUFFIX}")


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def query_digest(record: dict) -> str:
    """SHA-256 of what defines a batch's parts: the record's query, maps (SHA-256, catalog, actors) and counts."""
    return hashlib.sha256(_canonical({k: record.get(k) for k in ("query", "maps", "chunks", "rows")})).hexdigest()


def column_digest(column: pa.Array | pa.ChunkedArray) -> str:
    """A digest of a column's values as read back -- the same for a Parquet part and a CSV part of the same rows.

    Text as its distinct values in the order they first appear and each row's
    rank among them (dictionary-encoded or not: a pass over small integers, not
    over every string), numbers and booleans as little-endian values, nulls by
    a validity mask.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    text = pa.types.is_dictionary(col.type) or pa.types.is_string(col.type) or pa.types.is_large_string(col.type)
    h = hashlib.blake2b(digest_size=16)
    h.update(b"text" if text else str(col.type).encode())
    h.update(np.packbits(col.is_valid().to_numpy(zero_copy_only=False)).tobytes() if col.null_count else b"whole")
    if text and col.null_count == 0:
        coded = col if pa.types.is_dictionary(col.type) else pc.dictionary_encode(col)
        codes = coded.indices.to_numpy().astype(np.int64)
        first = pc.unique(coded.indices).to_numpy().astype(np.int64)  # in the order of first appearance
        rank = np.zeros(len(coded.dictionary), np.int64)
        rank[first] = np.arange(len(first))
        values = coded.dictionary.take(pa.array(first)).cast(pa.string())
        h.update(_canonical(values.to_pylist()))
        h.update(rank[codes].astype("<i4").tobytes())
    elif text:  # (nulls in text: only a damaged part has them)
        h.update(_canonical(col.cast(pa.string()).to_pylist()))
    else:
        values = (col.fill_null(False if pa.types.is_boolean(col.type) else 0) if col.null_count else col)
        values = values.to_numpy(zero_copy_only=False)
        h.update(values.astype(values.dtype.newbyteorder("<"), copy=False).tobytes())
    return h.hexdigest()


def prove(table: pa.Table, identity: dict) -> dict:
    """A part's proof: ``identity`` (query digest, chunk, map, actor, rows), each column's digest, and a seal."""
    body = {**identity, "columns": [[name, column_digest(table[name])] for name in table.column_names]}  # in order
    return {**body, "seal": _digest(_canonical(body))}


def _whole(proof) -> bool:
    """Whether ``proof`` has the shape :func:`prove` gives and its seal matches."""
    if not isinstance(proof, dict) or not isinstance(proof.get("columns"), list):
        return False
    body = {k: v for k, v in proof.items() if k != "seal"}
    kinds = {"query": str, "chunk": int, "map": str, "actor": str, "rows": int}
    return (all(type(proof.get(k)) is t for k, t in kinds.items())
            and all(isinstance(c, list) and len(c) == 2 and all(isinstance(x, str) for x in c)
                    for c in proof["columns"])
            and proof.get("seal") == _digest(_canonical(body)))


def read_proof(path: Path, fmt: str) -> dict | None:
    """The proof of a part file, if it has a whole one (None: missing, damaged, unsealed)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if fmt == TableFormat.PARQUET:
            meta = pq.read_schema(path).metadata or {}
            text = meta.get(PROOF.encode())
        else:
            side = proof_path(path)
            text = side.read_bytes() if side.is_file() and side.stat().st_size <= MAX_RECORD_BYTES else None
        proof = None if text is None else json.loads(text)
    except (OSError, ValueError, RecursionError, pa.ArrowException):
        return None
    return proof if _whole(proof) else None


def _labels(value: str, n: int):
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([value]))


def _ids(ids: np.ndarray, codes: np.ndarray):
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(codes.astype(np.int32), pa.array(ids.tolist(), pa.string()))


def part_schema(turns: int, fmt: str = TableFormat.PARQUET) -> pa.Schema:
    """The columns of every part of a batch of ``turns`` turns, in order, as a part of format ``fmt`` is read back.

    ``map``, ``actor``, ``from``, ``to`` (text: dictionary-encoded in Parquet,
    plain in CSV), ``reachable`` (bool), ``cost``, ``expected_turns`` and
    ``p_1`` ... ``p_K`` (64-bit floats).

    >>> part_schema(2).names
    ['map', 'actor', 'from', 'to', 'reachable', 'cost', 'expected_turns', 'p_1', 'p_2']
    >>> str(part_schema(2).field("actor").type), str(part_schema(2, "csv").field("actor").type)
    ('dictionary<values=string, indices=int32, ordered=0>', 'string')
    """
    import pyarrow as pa

    text = pa.dictionary(pa.int32(), pa.string()) if fmt == TableFormat.PARQUET else pa.string()
    return pa.schema([*((name, text) for name in TEXT), ("reachable", pa.bool_()),
                      *((name, pa.float64()) for name in ("cost", "expected_turns", *_p_names(turns)))])


def _p_names(turns: int) -> list[str]:
    return [f"p_{k}" for k in range(1, turns + 1)]


def _schema_difference(found: pa.Schema, want: pa.Schema) -> str | None:
    """The first way a part's columns differ from ``want``'s (names, order, types), in words; None when the same."""
    for k, (f, w) in enumerate(zip(found, want, strict=False)):
        if f.name != w.name:
            return f"its column {k + 1} is {f.name!r}, where this batch's parts have {w.name!r}"
        if f.type != w.type:  # (a type names its fields: text of the file, its line breaks escaped)
            return f"its column {f.name!r} is {shown(str(f.type))}, where this batch's parts hold {w.type}"
    if len(found) != len(want):
        return f"it has {len(found):,} columns, where this batch's parts have {len(want):,}"
    return None


def _check_schema(path: Path, found: pa.Schema, want: pa.Schema) -> None:
    """A :class:`RequestError` naming the file and its first column that is not the query's."""
    differs = _schema_difference(found, want)
    if differs is not None:
        raise RequestError(f"{shown(path)}: {differs} (damaged, or written by another eidomap); run the same eidomap"
                           " batch command again to compute it again")


def _csv_header(path: Path) -> list[str]:
    """The column names of a CSV part's header line (read alone: the rows are not parsed)."""
    import csv

    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        line = fh.readline(_MAX_HEADER)
    return next(csv.reader([line]), [])


def _csv_schema(names: Sequence[str], want: pa.Schema) -> pa.Schema:
    """A CSV part's columns as the reader types them: each name of ``want`` as ``want`` says (the reader is told the
    types), any other name untyped."""
    import pyarrow as pa

    known = set(want.names)
    return pa.schema([(name, want.field(name).type if name in known else pa.null()) for name in names])


def chunk_table(map_name: str, actor: str, start_ids: np.ndarray, target_ids: np.ndarray, block: Block,
                metadata: bytes) -> pa.Table:
    """The rows of a block (start-major) as an Arrow table of :func:`part_schema`; ids dictionary-encoded, nulls
    where unreachable."""
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
    for name, p in zip(_p_names(len(block.p)), block.p, strict=True):
        cols[name] = pa.array(p.ravel())
    return pa.table(cols, schema=part_schema(len(block.p))).replace_schema_metadata({"eidomap": metadata})


def write_chunk(path: Path, table: pa.Table, fmt: str, proof: dict) -> None:
    """Write a chunk's file with its proof through a temporary name in the same folder, then rename it.

    A CSV part's proof is written first, beside it: a proof without its part
    proves nothing, a part without its proof is computed again.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    text = json.dumps(proof, sort_keys=True).encode()
    if fmt == TableFormat.CSV:
        write_atomic(proof_path(path), text)
    with open_atomic(path) as fh:  # a temporary '.part-...tmp' beside it, renamed when whole
        if fmt == TableFormat.CSV:
            plain = pa.table({f.name: c.cast(pa.string()) if pa.types.is_dictionary(f.type) else c
                              for f, c in zip(table.schema, table.columns, strict=True)})
            pacsv.write_csv(plain, fh)
        else:
            pq.write_table(table.replace_schema_metadata({**(table.schema.metadata or {}), PROOF.encode(): text}), fh)


def _difference(old: dict, new: dict) -> str | None:
    """What differs between two records, in words (None when the same batch)."""
    for key, value in new["query"].items():
        if old["query"].get(key) != value:
            return f"{key} {old['query'].get(key)!r} there, {value!r} now"
    for a, b in zip(old["maps"], new["maps"], strict=False):
        for key in ("sha256", "catalog", "actors"):
            if a.get(key) != b[key]:
                return f"{b['file']} has another {'content' if key == 'sha256' else key} than when it was started"
    for key in ("chunks", "rows"):  # the same query cut into other chunks (another eidomap): parts would not fit
        if old[key] != new[key]:
            return f"{old[key]:,} {key} there, {new[key]:,} now"
    return None


def _count(x, high: int | None = None) -> bool:
    return type(x) is int and x >= 0 and (high is None or x <= high)


def _names(x) -> bool:
    """``"all"`` or a list of names."""
    return x == "all" or (isinstance(x, list) and all(isinstance(n, str) for n in x))


def _map_entry(e) -> bool:
    return (isinstance(e, dict) and isinstance(e.get("file"), str) and isinstance(e.get("sha256"), str)
            and isinstance(e.get("catalog"), dict) and isinstance(e.get("actors"), list)
            and all(isinstance(a, str) for a in e["actors"]))


def is_record(record: object) -> bool:
    """``record`` has the shape of a ``_batch.json`` (read from a folder, it is checked like any input).

    Every field a reader or a resume uses, of its type: the query (maps,
    actors, starts, targets, turns up to :data:`MAX_TURNS`, rule, dice (None:
    the rule set's), format), one entry per map (file, SHA-256, catalog, actors), the numbers
    of chunks and rows.
    """
    if not isinstance(record, dict) or not isinstance(q := record.get("query"), dict):
        return False
    maps = record.get("maps")
    return (_count(record.get("chunks")) and _count(record.get("rows")) and _count(q.get("turns"), MAX_TURNS)
            and q.get("format") in TableFormat.words() and q.get("partial") in ("carry", "forbid")
            and isinstance(q.get("dice", 0), str | None)  # (None: the rule set's dice)
            and all(_names(q.get(k)) for k in ("actors", "starts", "targets"))
            and isinstance(q.get("maps"), list) and all(isinstance(m, str) for m in q["maps"])
            and isinstance(maps, list) and len(maps) == len(q["maps"]) and all(_map_entry(e) for e in maps))


def read_record(folder: Path) -> dict:
    """The record of the batch in ``folder``, checked (:func:`is_record`); a :class:`RequestError` saying why not."""
    path = folder / RECORD
    try:
        if not path.is_file() or path.stat().st_size > MAX_RECORD_BYTES:
            raise ValueError
        record = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        raise RequestError(f"{shown(folder)}: not the result folder of an eidomap batch (no readable"
                           f" {RECORD})") from None
    if not is_record(record):
        raise RequestError(f"{shown(path)}: is not the record of an eidomap batch (an object with the query, its"
                           " rule, dice, format and turns, an entry per map, and the numbers of chunks and rows)")
    return record


@contextmanager
def open_folder(out: str | os.PathLike, record: dict) -> Iterator[Path]:
    """Create the output folder or check that it holds this very batch; locked while the batch runs.

    A folder holding another batch, or other files, is refused with one line
    (:class:`RequestError`).  Temporary files a run left behind (a chunk
    half-written when it was stopped) are removed: those chunks are redone.
    """
    folder = Path(out)
    rec_path = folder / RECORD
    if folder.exists() and not folder.is_dir():
        raise RequestError(f"{shown(out)}: exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        if rec_path.is_file():
            try:
                old = read_record(folder)
            except RequestError as exc:
                raise RequestError(f"{exc}; use another folder as out=...") from None
            diff = _difference(old, record)
            if diff is not None:
                raise RequestError(f"{shown(out)}: holds a different batch ({diff}); use another folder as"
                                   " out=..., or delete it")
        elif any(not p.name.startswith(".") for p in folder.iterdir()):
            raise RequestError(f"{shown(out)}: is not empty and holds no eidomap batch; use another folder as out=...")
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
            raise RequestError(f"{shown(folder)}: another batch is writing into this folder right now") from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def finished(folder: Path, fmt: str, identities: dict[int, dict], turns: int) -> set[int]:
    """The chunks whose parts are there and proven: a whole proof naming ``identities[chunk]``, the schema of a
    batch of ``turns`` turns (:func:`part_schema`), every column matching.

    Each part is read whole once; a part that fails (another query's, another
    chunk's, damaged, cut short, without its proof, other columns) is left to be
    computed again.
    """
    done = set()
    for index, want in identities.items():
        path = folder / chunk_name(index, fmt)
        proof = read_proof(path, fmt) if path.is_file() else None
        if proof is None or any(proof[k] != v for k, v in want.items()):
            continue
        try:
            read_part(path, fmt, proof, turns)
        except RequestError:
            continue
        done.add(index)
    return done


def proven_parts(folder: Path, record: dict) -> dict[int, tuple[Path, dict]]:
    """The part files of a batch folder, by chunk, each with its proof and its schema checked against ``record``.

    A part that proves another query or chunk, or nothing, or whose columns
    are not the query's (:func:`part_schema`: names, types, order) is a
    :class:`RequestError` (run the batch again: it is computed again).  Only
    the files there are looked at: a record's counts bound nothing.  (Each
    part's footer, or a CSV part's header line, is read: not its rows.)
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    fmt, digest = record["query"]["format"], query_digest(record)
    want = part_schema(record["query"]["turns"], fmt)
    out = {}
    for path in sorted(folder.iterdir()):
        found = _PART.fullmatch(path.name)
        if found is None or found.group(2) != fmt:
            continue
        index = int(found.group(1))
        redo = "; run the same eidomap batch command again to compute it again"
        proof = read_proof(path, fmt) if path.is_file() else None
        if proof is None:
            if fmt == TableFormat.PARQUET:  # say first when it is no Parquet file at all
                try:
                    pq.read_schema(path)
                except (OSError, ValueError, pa.ArrowException) as exc:
                    raise _unreadable(path, fmt, exc) from None
            raise RequestError(f"{shown(path)}: carries no whole proof of its query (damaged, or written by another"
                               f" eidomap){redo}")
        if proof["query"] != digest:
            raise RequestError(f"{shown(path)}: was computed for another query than {RECORD} records{redo}")
        if proof["chunk"] != index or index >= record["chunks"] or path.name != chunk_name(index, fmt):
            raise RequestError(f"{shown(path)}: is not the part its name says (its proof names chunk"
                               f" {proof['chunk']} of {record['chunks']}){redo}")
        try:
            found = pq.read_schema(path) if fmt == TableFormat.PARQUET else _csv_schema(_csv_header(path), want)
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise _unreadable(path, fmt, exc) from None
        _check_schema(path, found, want)
        out[index] = (path, proof)
    return out


def _unreadable(path: Path, fmt: str, exc: Exception) -> RequestError:
    return RequestError(f"{shown(path)}: is not a readable {fmt} chunk ({exc}); delete it and run the batch again"
                        " to redo it")


def read_part(path: Path, fmt: str, proof: dict, turns: int, columns: Sequence[str] | None = None) -> pa.Table:
    """The ``columns`` (default all) of a part as an Arrow table, each checked against the digest its proof gives.

    A part that cannot be read, whose columns are not those of a batch of
    ``turns`` turns (:func:`part_schema`: names, types, order -- checked
    before any row is read), or a column that does not match its digest, is
    a :class:`RequestError` naming the file.  Parquet reads only the columns
    asked for; CSV parses the file (and keeps those columns).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    want = part_schema(turns, fmt)
    digests = dict(proof["columns"])
    names = want.names if columns is None else list(columns)
    try:
        if fmt == TableFormat.PARQUET:
            part = pq.ParquetFile(path)
            _check_schema(path, part.schema_arrow, want)
            table = part.read(columns=names)
        else:  # (the reader is told each column's type: a column of whole numbers is still one of floats)
            table = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(
                column_types={f.name: f.type for f in want}))
            _check_schema(path, table.schema, want)
            table = table.select(names)
    except RequestError:
        raise
    except (OSError, ValueError, KeyError, pa.ArrowException) as exc:  # ArrowIOError, ArrowInvalid, ArrowKeyError...
        raise _unreadable(path, fmt, exc) from None
    redo = "run the same eidomap batch command again to compute it again"
    if table.num_rows != proof["rows"]:
        raise RequestError(f"{shown(path)}: holds {table.num_rows:,} rows, its proof {proof['rows']:,} (cut short or"
                           f" damaged); {redo}")
    for name in [n for n in digests if n in names] + [n for n in names if n not in digests]:  # in the file's order
        try:
            same = digests.get(name) == column_digest(table[name])
        except (ValueError, IndexError, pa.ArrowException):  # values of no digest: text no UTF-8, codes past the end
            same = False
        if not same:
            raise RequestError(f"{shown(path)}: column {name!r} does not match its digest (the file was damaged);"
                               f" {redo}")
    return table
