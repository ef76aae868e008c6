"""What every page eidomap writes shares: where it may be written, how it is written, how a notebook shows it.

>>> html_path("route.html").name
'route.html'
>>> framed("<p>a & b</p>", height=100)
'<iframe srcdoc="&lt;p&gt;a &amp; b&lt;/p&gt;" style="width: 100%; height: 100px; border: none;"></iframe>'
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Protocol

from eidomap.base.errors import RequestError
from eidomap.base.files import need_folder, write_atomic
from eidomap.base.names import shown


class Page(Protocol):
    """A page: anything that gives its whole HTML text."""

    def to_html(self) -> str: ...


def framed(page: str, height: int = 720) -> str:
    """A whole page as a notebook shows it: an isolated frame (its scripts apart from the notebook's)."""
    page = html.escape(page, quote=True)
    return f'<iframe srcdoc="{page}" style="width: 100%; height: {height}px; border: none;"></iframe>'


def html_path(path: str | os.PathLike) -> Path:
    """``path`` as a page to write: ``.html`` or ``.htm``, in a folder that exists; else :class:`RequestError`."""
    p = Path(path)
    if p.suffix.lower() not in (".html", ".htm"):
        raise RequestError(f"{shown(path)}: a page is written as .html, got {p.suffix or 'no suffix'!r}")
    return need_folder(p)


def save_html(page: Page, path: str | os.PathLike) -> None:
    """Write ``page`` as one self-contained HTML file, atomically, in a folder that exists (:func:`html_path`)."""
    write_atomic(html_path(path), page.to_html().encode("utf-8"))
