"""Safe file access for map files and the files a map refers to.

Map files are untrusted: a file a map names (its catalog, a cache) is looked
up beside the map and never outside its folder, and every read is bounded.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from eidomap.base import params
from eidomap.base.errors import MapError, RequestError
from eidomap.base.names import shown

#: Largest map file eidomap reads (bytes).
MAX_MAP_BYTES = 2 * 1024**3
#: Largest catalog or other small side file (bytes).
MAX_SIDE_FILE_BYTES = 1024**2


def read_bounded(path: str | os.PathLike, limit: int,
                 error: Callable[[Path, None, str], Exception] = MapError) -> bytes:
    """Read a whole file, refusing one larger than ``limit`` bytes."""
    p = Path(path)
    if "\x00" in str(p):
        raise error(p, None, "is not a file name (it holds a NUL character)")
    try:
        size = p.stat().st_size
        if not p.is_file():
            raise error(p, None, "is not a regular file")
        if size > limit:
            raise error(p, None, f"is {size:,} bytes, larger than the {limit:,}-byte limit")
        with open(p, "rb") as fh:  # read what stat says and a byte more (not limit + 1: read() allocates that)
            data = fh.read(min(size, limit) + 1)
    except OSError as exc:
        raise error(p, None, f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > size:
        raise error(p, None, "grew while it was read (is something still writing it?)")
    return data


def stat_stamp(st: os.stat_result) -> str:
    """What tells a file from its next version without reading it: device, inode, size, modification and change
    times (``os.stat``)."""
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def parse_toml(data: bytes) -> dict:
    """A TOML document (UTF-8, a byte-order mark allowed); ValueError saying what is wrong with it."""
    try:
        return tomllib.loads(data.decode("utf-8-sig"))
    except RecursionError:
        raise ValueError("nested too deeply") from None


def beside(map_path: str | os.PathLike, name: object, what: str) -> Path:
    """Resolve ``name`` (from inside a map) to a file in the map's own folder.

    Only a plain file name or a relative path that stays inside the map's
    folder is accepted: no absolute paths, no ``..``, no symlink escapes.
    """
    folder = Path(map_path).resolve().parent
    if not isinstance(name, str) or not name or "\x00" in name:
        raise MapError(map_path, None, f"the {what} must be a file name, got {name!r}")
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts:
        raise MapError(map_path, None, f"the {what} {name!r} must be a file beside the map")
    target = (folder / rel).resolve()
    if not target.is_relative_to(folder):
        raise MapError(map_path, None, f"the {what} {name!r} points outside the map's folder")
    if not target.is_file():
        raise MapError(map_path, None, f"the {what} {name!r} is not a file beside the map")
    return target


def catalog_to_carry(map_path: str | os.PathLike, meta: dict, out: str | os.PathLike) -> tuple[Path, bytes] | None:
    """The catalog a map names, to write beside ``out`` so that the map written there reads as ``map_path`` does.

    ``(where it goes, its bytes)``; None when the map names no catalog, or
    ``out`` is in the map's folder, or the same catalog is already there.
    """
    name = meta.get("catalog")
    if name is None:
        return None
    src = beside(map_path, name, "catalog")
    dst = Path(out).parent / name
    if dst.resolve() == src:
        return None
    data = read_bounded(src, MAX_SIDE_FILE_BYTES)
    there = os.lstat(dst) if os.path.lexists(dst) else None
    if there and stat.S_ISREG(there.st_mode) and there.st_size == len(data) and dst.read_bytes() == data:
        return None
    return dst, data


#: What an output path that is not a regular file is, by its ``lstat`` mode (a symbolic link is told apart first).
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def replaceable(path: str | os.PathLike) -> int | None:
    """The permission bits of the regular file at ``path``, or None when nothing is there: what a write may replace.

    Anything else at ``path`` -- a directory, a FIFO, a device, a socket, or a
    symbolic link (to anything, even a regular file, or to nothing) -- is
    refused with a :class:`FileExistsError` naming ``path``: a write never
    follows a link, nor replaces what is not a file of its own.  Read with
    ``lstat``, so a link's target is never opened.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    if stat.S_ISREG(st.st_mode):
        return stat.S_IMODE(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.stat(path).st_mode
        except OSError:
            what = "a symbolic link to nothing"
        else:
            what = "a symbolic link to " + next((w for test, w in _KINDS if test(target)), "a file")
    else:
        what = next((w for test, w in _KINDS if test(st.st_mode)), "not a regular file")
    raise FileExistsError(errno.EEXIST, f"is {what}; eidomap writes a new file or replaces a regular file, nothing"
                                        " else: choose another output", str(path))


def need_folder(path: str | os.PathLike) -> Path:
    """``path`` as a :class:`~pathlib.Path`, when the folder it would be written in exists.

    Parameters
    ----------
    path : str or os.PathLike
        A file to write.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    RequestError
        Its folder does not exist (eidomap makes no folder but a batch's result): one sentence naming ``path``
        and the folder, where writing through a temporary file would otherwise name the temporary file.

    See Also
    --------
    open_atomic : Writes a file whose folder this checked.

    Examples
    --------
    >>> need_folder("nowhere/map.geojson")
    Traceback (most recent call last):
    ...
    eidomap.base.errors.RequestError: nowhere/map.geojson: the folder '...nowhere' does not exist
    """
    p = Path(path)
    if not p.absolute().parent.is_dir():
        raise RequestError(f"{path}: the folder {str(p.absolute().parent)!r} does not exist")
    return p


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (see :func:`open_atomic`)."""
    with open_atomic(path) as fh:
        fh.write(data)


@contextmanager
def open_atomic(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary file to write piece by piece that appears at ``path`` only when complete.

    It is a temporary file in the same folder, renamed over ``path`` when the
    block ends (and removed if it raises).  Only a new path or a regular file
    is written (:func:`replaceable`, checked before and again just before the
    rename): a directory, FIFO, device or symbolic link at ``path`` is left as
    it is.  The file gets the permissions a plain ``open(path, "w")`` would
    give a regular file (those of the file it replaces, else the user's umask),
    not the owner-only mode of a temporary file.  Its data reach the disk
    before the rename, so a crash leaves the old file or the new one, never an
    empty one; a failure (a full disk) leaves the old file and no temporary
    one, and its error names ``path``.
    """
    p = Path(path)
    replaceable(p)
    need_folder(p)  # (else the error would name the temporary file, which nobody asked for)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent or ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        mode = replaceable(p)  # again: the write may have taken long
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, p)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = str(p)
        raise


def bundled_map_path(name: str) -> Path:
    """Path of a map (or grid, or catalog) shipped with eidomap.

    Installed as package data (``eidomap/maps/``); in a source checkout or an editable install,
    ``maps/<name>``.

    Parameters
    ----------
    name : str
        ``demo.geojson``, ``demo-catalog.toml``, ``d20-overland.geojson`` or ``d20-battle.txt``.

    Returns
    -------
    Path
        The file.

    Raises
    ------
    FileNotFoundError
        When no such file is installed (or ``name`` is a path, not a file name).

    See Also
    --------
    demo_map_path : The demo map's.
    eidomap.answers.overland.example_map_path : The overland map's.

    Examples
    --------
    >>> bundled_map_path("d20-battle.txt").name
    'd20-battle.txt'
    """
    here = Path(__file__).resolve().parents[1]  # (eidomap/, where the maps are installed)
    if Path(params.text(name, "name", "text (a file name)")).name == name:
        for candidate in (here / "maps" / name, here.parent / "maps" / name):
            if candidate.is_file():
                return candidate
    raise FileNotFoundError(f"the map {shown(name)} is not installed with this copy of eidomap")


def demo_map_path() -> Path:
    """Path of the bundled demo map (``maps/demo.geojson`` in a source checkout).

    Returns
    -------
    Path
        The demo map, *Illas das Marabillas*: 76 Eidos, two roads, three fountains.

    See Also
    --------
    bundled_map_path : The other bundled maps.
    load : Read it.

    Examples
    --------
    >>> import eidomap
    >>> eidomap.load(eidomap.demo_map_path()).name
    'Illas das Marabillas (demo)'
    """
    return bundled_map_path("demo.geojson")
