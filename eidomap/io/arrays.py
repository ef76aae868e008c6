"""Named arrays and a JSON header in one file, read back in one pass without unpickling anything.

The layout: :data:`MAGIC`; the header's length (8 bytes, little-endian); the
header, UTF-8 JSON (the caller's fields and, under ``"arrays"``, each array's
name, dtype, shape and offset); then the arrays' bytes, each at a multiple of
:data:`ALIGN` bytes from the start of the data; last, the CRC-32 of everything
before it (4 bytes, little-endian).  Only little-endian numbers, booleans and text
(``<U``) are stored.  A read takes the file as untrusted: only a regular file is
opened, the checksum is checked before anything else is used (a mismatch is a
:class:`Damaged` error), every field of the header is checked, and text arrays are
checked to hold code points only.

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
import stat
import zlib
from collections.abc import Mapping
from typing import BinaryIO

import numpy as np

#: The format's first bytes (version 2: with the checksum at the end; a file of version 1 is not read).
MAGIC = b"\x93eidomap-arrays-2\n"
#: Each array starts at a multiple of this many bytes from the start of the data.
ALIGN = 64
#: Largest header a read accepts (bytes).
MAX_HEADER_BYTES = 1 << 24
_DTYPE = re.compile(r"\|b1|\|[iu]1|<[iu][248]|<f8|<U[1-9][0-9]{0,3}")
_LENGTH = 8
#: Bytes of the checksum at the end of the file.
CHECKSUM = 4


class Damaged(ValueError):
    """A file of this format whose bytes are not those written: its checksum does not match."""


def checksum(data: bytes | memoryview, crc: int = 0) -> int:
    """The CRC-32 of ``data`` (any buffer), continuing ``crc``.

    A CRC catches every burst of up to 32 flipped bits and all but one in 2**32
    other damages.  It is no seal against someone who rewrites the file on
    purpose (they can write a matching checksum, whatever the function), and at
    about 2 GB/s it costs a tenth of a 1M-Eido cache's load.
    """
    return zlib.crc32(data, crc)


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
    pieces: list[bytes | memoryview] = [head + bytes(_padding(len(head)))]
    for a in stored:
        pieces += [a.data, bytes(_padding(a.nbytes))]
    crc = 0
    for piece in pieces:
        fh.write(piece)
        crc = checksum(piece, crc)
    fh.write(crc.to_bytes(CHECKSUM, "little"))


def read_header(fh: BinaryIO | mmap.mmap) -> dict:
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


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading if it is a regular file; ValueError, without opening it, if it is not.

    A FIFO would block the read for ever, a device may act on being opened, a
    directory is no file: each is told by ``stat`` and left alone.  (Opened
    without blocking, then checked again, in case it was swapped in between.)
    """
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError("not a regular file")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    fh = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        fh.close()
        raise ValueError("not a regular file")
    return fh


def read(path: str | os.PathLike, limit: int) -> tuple[dict, dict[str, np.ndarray]]:
    """The header and the arrays of a file :func:`write` wrote, at most ``limit`` bytes; ValueError if it is not one.

    Only a regular file is opened (:func:`open_regular`).  The file is mapped
    into memory (read-only; on Linux its pages mapped at once), its checksum
    checked (:class:`Damaged` if it does not match), and the arrays are views of
    it: nothing is copied.  A file is only ever replaced whole
    (``open_atomic``), so a mapping never sees it change.
    """
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise ValueError(f"{size:,} bytes, more than {limit:,}")
        if fh.read(len(MAGIC)) != MAGIC:
            raise ValueError("not an eidomap array file")
        mapped = _map(fh)
    data = np.frombuffer(mapped, np.uint8)
    size -= CHECKSUM
    if size < len(MAGIC) or checksum(data[:size].data) != int.from_bytes(data[size:].tobytes(), "little"):
        raise Damaged("its checksum does not match its contents")
    header = read_header(mapped)  # from the bytes just checked, not from the file again
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
