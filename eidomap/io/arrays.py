"""Named arrays and a JSON header in one file, read back in one pass without unpickling anything.

The layout: :data:`MAGIC`; the header's length (8 bytes, little-endian); the
header, UTF-8 JSON (the caller's fields and, under ``"arrays"``, each array's
name, dtype, shape and offset); then the arrays' bytes, each at a multiple of
:data:`ALIGN` bytes from the start of the data.  Only little-endian numbers,
booleans and text (``<U``) are stored.  A read takes the file as untrusted: every
field of the header is checked, and text arrays are checked to hold code points only.

>>> import numpy as np, tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "a.bin"
>>> with open(path, "wb") as fh:
...     write(fh, {"answer": 42}, {"a": np.arange(3, dtype=np.int32), "t": np.array(["x", "yz"])})
>>> header, arrays = read(path, limit=1 << 20)
>>> header["answer"], arrays["a"].tolist(), arrays["t"].tolist()
(42, [0, 1, 2], ['x', 'yz'])
"""

from __future__ import annotations

import json
import mmap
import os
import re
from collections.abc import Mapping
from typing import BinaryIO

import numpy as np

__all__ = ["ALIGN", "MAGIC", "MAX_HEADER_BYTES", "read", "read_header", "write"]

MAGIC = b"\x93eidomap-arrays\n"
#: Each array starts at a multiple of this many bytes from the start of the data.
ALIGN = 64
#: Largest header a read accepts (bytes).
MAX_HEADER_BYTES = 1 << 24
_DTYPE = re.compile(r"\|b1|\|[iu]1|<[iu][248]|<f8|<U[1-9][0-9]{0,3}")
_LENGTH = 8


def _padding(n: int) -> int:
    return -n % ALIGN


def write(fh: BinaryIO, header: dict, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``header`` (JSON-able, without an ``"arrays"`` key) and ``arrays`` to a binary file."""
    stored, table, offset = [], [], 0
    for name, a in arrays.items():
        a = np.asarray(a, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
        a = a.astype(a.dtype.newbyteorder("<"), copy=False) if a.dtype.byteorder not in "<|" else a
        if not _DTYPE.fullmatch(a.dtype.str):
            raise TypeError(f"{name}: arrays of {a.dtype} cannot be stored")
        stored.append(a)
        table.append([name, a.dtype.str, list(a.shape), offset])
        offset += a.nbytes + _padding(a.nbytes)
    text = json.dumps({**header, "arrays": table}, separators=(",", ":")).encode()
    head = MAGIC + len(text).to_bytes(_LENGTH, "little") + text
    fh.write(head + bytes(_padding(len(head))))
    for a in stored:
        fh.write(a.data)
        fh.write(bytes(_padding(a.nbytes)))


def read_header(fh: BinaryIO) -> dict:
    """The header of a file :func:`write` wrote (its arrays' table checked); ValueError saying what is wrong."""
    start = fh.read(len(MAGIC) + _LENGTH)
    if len(start) < len(MAGIC) + _LENGTH or not start.startswith(MAGIC):
        raise ValueError("not an eidomap array file")
    size = int.from_bytes(start[len(MAGIC):], "little")
    if size > MAX_HEADER_BYTES:
        raise ValueError(f"a header of {size:,} bytes, more than {MAX_HEADER_BYTES:,}")
    text = fh.read(size)
    if len(text) < size:
        raise ValueError("the header is cut short")
    try:
        header = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ValueError("the header is not JSON") from None
    if not isinstance(header, dict):
        raise ValueError("the header is not an object")
    header["arrays"] = _table(header.get("arrays"))
    header["data_start"] = len(start) + size + _padding(len(start) + size)
    return header


def _table(table) -> dict[str, tuple[np.dtype, tuple[int, ...], int]]:
    """The arrays' entries ``[name, dtype, shape, offset]``, checked, by name."""
    if not isinstance(table, list):
        raise ValueError("the header lists no arrays")
    out = {}
    for entry in table:
        if not (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[0], str) and entry[0] not in out
                and isinstance(entry[1], str) and _DTYPE.fullmatch(entry[1]) and isinstance(entry[2], list)
                and len(entry[2]) <= 2 and all(_count(d) for d in entry[2]) and _count(entry[3])
                and entry[3] % ALIGN == 0):
            raise ValueError(f"a bad array entry {str(entry)[:80]}")
        out[entry[0]] = (np.dtype(entry[1]), tuple(entry[2]), entry[3])
    return out


def _count(x) -> bool:
    return type(x) is int and 0 <= x < 1 << 40


def read(path: str | os.PathLike, limit: int) -> tuple[dict, dict[str, np.ndarray]]:
    """The header and the arrays of a file :func:`write` wrote, at most ``limit`` bytes; ValueError if it is not one.

    The file is mapped into memory (read-only; on Linux its pages mapped at
    once) and the arrays are views of it: nothing is copied.  A file is only
    ever replaced whole (``open_atomic``), so a mapping never sees it change.
    """
    with open(path, "rb") as fh:
        header = read_header(fh)
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise ValueError(f"{size:,} bytes, more than {limit:,}")
        data = np.frombuffer(_map(fh), np.uint8)
    start = header.pop("data_start")
    arrays = {}
    for name, (dtype, shape, offset) in header.pop("arrays").items():
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if start + offset + nbytes > size:
            raise ValueError(f"array {name!r} runs past the end of the file")
        a = data[start + offset: start + offset + nbytes].view(dtype).reshape(shape)
        if dtype.kind == "U" and not _code_points(a):
            raise ValueError(f"array {name!r} holds text that is no Unicode")
        arrays[name] = a
    return header, arrays


def _map(fh: BinaryIO) -> mmap.mmap:
    """The whole file, mapped read-only (pre-faulted where the system can: one call, not a fault a page)."""
    if hasattr(mmap, "MAP_POPULATE"):
        return mmap.mmap(fh.fileno(), 0, flags=mmap.MAP_SHARED | mmap.MAP_POPULATE, prot=mmap.PROT_READ)
    return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


def _code_points(a: np.ndarray) -> bool:
    """Whether every character of a ``<U`` array is a Unicode scalar value (no surrogate, at most U+10FFFF)."""
    c = a.reshape(-1).view("<u4")
    return len(c) == 0 or (c.max() <= 0x10FFFF and not np.any(c - np.uint32(0xD800) < 0x800))  # wraps below D800
