"""The pages and the text of a PDF that Chromium prints (``page.pdf()``), read without a PDF library.

Chromium's PDFs (Skia) draw text in Type0 fonts whose glyph codes a ``/ToUnicode`` map turns back into text;
the content streams are Flate-compressed.  This reads what a test needs: how many pages, and the text of each,
in the order it is drawn (the lines of a paragraph one after the other; no spaces are promised between words).
"""

from __future__ import annotations

import re
import zlib

_OBJECT = re.compile(rb"(\d+) 0 obj\s*")
_REF = re.compile(rb"/(\w+) (\d+) 0 R")
_TEXT = re.compile(rb"/(\w+) [\d.]+ Tf|<([0-9A-Fa-f]*)> ?Tj|\[(.*?)\] ?TJ", re.S)


def _objects(pdf: bytes) -> dict[int, tuple[bytes, bytes]]:
    """Each object: its dictionary's text and its stream, inflated (``b""`` without one).  A stream is read by its
    ``/Length`` (its bytes may hold anything), the objects one after the other."""
    found = {}
    at = 0
    while m := _OBJECT.search(pdf, at):
        start, end = m.end(), pdf.index(b"endobj", m.end())
        stream = pdf.find(b"stream", start, end)
        if stream < 0:
            found[int(m.group(1))] = (pdf[start:end], b"")
            at = end
            continue
        head = pdf[start:stream]
        first = stream + len(b"stream") + (2 if pdf[stream + 6 : stream + 8] == b"\r\n" else 1)
        data = pdf[first : first + int(re.search(rb"/Length (\d+)(?! 0 R)", head).group(1))]
        found[int(m.group(1))] = (head, zlib.decompress(data) if b"/FlateDecode" in head else data)
        at = pdf.index(b"endobj", first + len(data))
    return found


def _cmap(text: bytes) -> dict[int, str]:
    """A ``/ToUnicode`` map: glyph code -> text."""
    out: dict[int, str] = {}
    hexes = lambda s: [int(h, 16) for h in re.findall(rb"<([0-9A-Fa-f]+)>", s)]  # noqa: E731
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", text, re.S):
        pairs = re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block)
        out.update((int(a, 16), bytes.fromhex(b.decode()).decode("utf-16-be")) for a, b in pairs)
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", text, re.S):
        for lo, hi, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]+>|\[.*?\])", block, re.S):
            lo, hi = int(lo, 16), int(hi, 16)
            if dst.startswith(b"["):
                out.update((lo + k, chr(v)) for k, v in enumerate(hexes(dst)))
            else:
                first = hexes(dst)[0]
                out.update((lo + k, chr(first + k)) for k in range(hi - lo + 1))
    return out


def pdf_pages(pdf: bytes) -> list[str]:
    """The text of each page of ``pdf``, in page order as the pages are listed."""
    objects = _objects(pdf)
    fonts = {}  # font object -> its glyph codes' text
    for num, (head, _) in objects.items():
        unicode = re.search(rb"/ToUnicode (\d+) 0 R", head)
        if b"/Type /Font" in head and unicode:
            fonts[num] = _cmap(objects[int(unicode.group(1))][1])
    names: dict[bytes, int] = {}
    for head, _ in objects.values():
        for block in re.findall(rb"/Font\s*<<(.*?)>>", head, re.S):
            names.update((n, int(r)) for n, r in _REF.findall(block))
    pages = []
    for head, _ in objects.values():
        if not re.search(rb"/Type /Page\b(?!s)", head):
            continue
        contents = re.search(rb"/Contents (\d+) 0 R", head)
        stream = objects[int(contents.group(1))][1] if contents else b""
        cmap: dict[int, str] = {}
        text = []
        for font, one, many in _TEXT.findall(stream):
            if font:
                cmap = fonts.get(names.get(font, -1), {})
                continue
            for h in [one] if one or not many else re.findall(rb"<([0-9A-Fa-f]*)>", many):
                text.extend(cmap.get(int(h[k:k + 4], 16), "") for k in range(0, len(h), 4))
        pages.append("".join(text))
    return pages
