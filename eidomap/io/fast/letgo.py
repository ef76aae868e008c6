"""The let-go document: a map read without its features' text, which is read again from the file when asked.

A document keeps each feature's text for a lossless write and for a report
on a feature -- about the file's size of memory, kept for nothing by a
program that only asks questions of the map (the command line's ``route``,
``batch``, ``plan``).  Read with ``document=False``
(:func:`eidomap.io.readers.read_map`), a map lets that text go: the GeoJSON
reader as soon as the features are filed, before the record is built
(:class:`LetGo` in their place: about the file's size less at the read's
peak), and :func:`read_without_text` puts :class:`FileFeatures` in the
document, which reads the file again, in the same format, when a feature is
first asked for.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eidomap.base.errors import MapError, RequestError
from eidomap.base.files import stat_stamp

if TYPE_CHECKING:
    from eidomap.base.problems import Problem
    from eidomap.io.document import Features, MapData


class LetGo:
    """In a document's place of features whose text the reader let go
    (:func:`eidomap.io.fast.geojson.read_geojson` with ``keep_text=False``): how many there were, and an error for
    any one asked for."""

    def __init__(self, path: str | os.PathLike | None, count: int):
        self._path, self._count = path, count

    def __len__(self) -> int:
        return self._count

    def raw(self, i: int) -> str:
        raise RequestError(f"the features' text of {self._path} was let go once read (keep_text=False): read the"
                           " map again to write it or show a feature")

    def __getitem__(self, i: int) -> Any:
        return self.raw(i)


class FileFeatures:
    """A map file's features, read again from the file when one is first asked for.

    What a document read with ``document=False`` holds in place of its
    features' text: the file, its stamp before it was read (device, inode,
    size, modification and change times), how many features it had and how
    to read them again (``read()``: the document's features, read in the same
    format).  The first feature asked for reads the file again and keeps its
    features; a file changed since is a :class:`MapError` ("load it again").
    """

    def __init__(self, path: Path, stamp: str, count: int, read: Callable[[], Features]):
        self._path, self._stamp, self._count, self._read_again = path, stamp, count, read
        self._features: Features | None = None

    def _read(self) -> Features:
        if self._features is None:
            changed = MapError(self._path, None, "changed since it was read; load it again")
            if stamp_of(self._path) != self._stamp:
                raise changed
            features = self._read_again()
            if len(features) != self._count:
                raise changed
            self._features = features
        return self._features

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: int) -> Any:
        return self._read()[i]

    def raw(self, i: int) -> str:
        return self._read().raw(i)


def read_without_text(path: Path, read: Callable[[bool], tuple[MapData, list[Problem]]]
                      ) -> tuple[MapData, list[Problem]]:
    """``read(False)`` -- the map file ``path`` read, its features' text let go -- with :class:`FileFeatures` in
    its document, which ``read(True)`` (the file read with its document) reads again when asked."""
    before = stamp_of(path)
    md, problems = read(False)
    features = FileFeatures(path, before, len(md.document.features), lambda: read(True)[0].document.features)
    return replace(md, document=replace(md.document, features=features)), problems


def stamp_of(path: Path) -> str:
    """The file's stamp (:func:`~eidomap.base.files.stat_stamp`); empty when it cannot be read (the read names
    what is wrong with it)."""
    try:
        return stat_stamp(path.stat())
    except OSError:
        return ""
