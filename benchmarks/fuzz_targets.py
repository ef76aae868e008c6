"""The fuzz targets: each takes bytes and must end in an answer or a clean eidomap error.

A target writes the bytes where eidomap would find a user's file (a scratch
folder), runs the reader (and what follows a successful read), and checks the
project's promises about what comes out: only :class:`eidomap.EidomapError`
escapes, its message is one line naming the file, and what one reader writes
the next reads back.  Anything else raises :class:`Finding`.
:mod:`benchmarks.fuzz` drives the targets with atheris or hypothesis; the test
suite runs each for a few seconds (tests/test_fuzz.py).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import shutil
import struct
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import shapely

import eidomap
from eidomap.answers import grid as d20
from eidomap.answers.routing import route
from eidomap.base.errors import EidomapError, EidomapWarning
from eidomap.cli import build_parser, main
from eidomap.io import arrays
from eidomap.io.readers import read_map
from eidomap.io.svg import import_svg
from eidomap.io.tiled import import_tiled, import_tiled_grid
from eidomap.model.cache import path_for
from eidomap.record.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
#: Files the targets' inputs name (the demo map's catalog, the command lines' files), copied into the scratch folder.
CLI_FILES = {"demo.geojson": "maps/demo.geojson", "demo-catalog.toml": "maps/demo-catalog.toml",
             "battle.txt": "maps/d20-battle.txt", "overland.geojson": "maps/d20-overland.geojson",
             "board.tmj": "tests/data/tiled/board.tmj", "grid.tmx": "tests/data/tiled/grid.tmx"}
#: Commands the command-line target runs; the others (pictures, batch, generate...) are only parsed.
CLI_RUNS = {"info", "neighbors", "species", "route", "reach", "validate", "fix", "import-tiled", "d20"}
CLI_SEEDS = [
    "info demo.geojson --json", "neighbors demo.geojson portela", "species --catalog demo-catalog.toml",
    "route demo.geojson --from bouza-vella --to porto-norte --species human --rolls 3,5,2,6",
    "route demo.geojson --from agra-de-riba --to porto-norte --species human --mount horse --dice 2d6+1",
    "route demo.geojson --from cr-4 --to porto-sur --species human --partial forbid --json",
    "reach demo.geojson --from porto-sur --species human --turns 3",
    "reach demo.geojson --from porto-sur --species human --rolls 4,2,6",
    "validate demo.geojson --species human,boat --ignore corner-contact",
    "fix demo.geojson -o fixed.geojson", "import-tiled board.tmj -o board.geojson",
    "import-tiled grid.tmx --grid -o grid.txt",
    "d20 reach battle.txt --at 13,0 --speed 30 --mode double", "d20 route battle.txt --from 13,0 --to 8,15 --json",
    "d20 reach battle.txt --at 4,10 --speed 30 --mode charge --target 2,19 --blocked 1,1;2,2",
    "d20 travel overland.geojson --from greenfield --to kingsbridge --speed 30",
    "d20 speed 30 --json", "d20 mount-speed pony --load heavy", "d20 vessel keelboat --downstream --float",
    "d20 march --hours 10 --con-mod 2", "d20 hustle --hours 3 --mount", "d20 chase --speeds 30,30 --dex-mods 2,1",
    "generate --eidos 100 --seed 1 big.geojson", "plot demo.geojson --png x.png", "batch demo.geojson --out r",
]


class Finding(AssertionError):
    """An input broke a promise: a traceback, a message that is not one line, a file that does not read back."""


@dataclass
class Target:
    """A fuzz target: ``run(folder, data)`` and the seed inputs to start from."""

    run: Callable[[Path, bytes], None]
    seeds: Callable[[], list[bytes]]


def _clean_error(exc: EidomapError, path: Path) -> None:
    text = str(exc)
    if "\n" in text or not text.strip():
        raise Finding(f"{type(exc).__name__} message is not one line: {text!r}")
    if str(path) not in text and path.name not in text:
        raise Finding(f"{type(exc).__name__} message does not name {path.name}: {text!r}")


@contextlib.contextmanager
def _expect_clean(path: Path):
    """Let through only eidomap errors that are one line naming ``path``."""
    try:
        yield
    except EidomapError as exc:
        _clean_error(exc, path)


def _files(*names: str) -> Callable[[], list[bytes]]:
    return lambda: [(ROOT / n).read_bytes() for n in names]


def _bad_inputs(suffix: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted((ROOT / "tests" / "bad_inputs").glob(f"*{suffix}"))
            if p.stat().st_size < 100_000]


def geojson(folder: Path, data: bytes) -> None:
    """Load a map strictly, build its network; a map that loads saves and loads back the same."""
    _restore(folder)  # the catalog the demo map names
    p = folder / "map.geojson"
    p.write_bytes(data)
    with _expect_clean(p):
        m = eidomap.load(p)
        m.info()
        out = folder / "saved.geojson"
        m.save(out)
        back = eidomap.load(out)
        if back.eido_ids != m.eido_ids or back.terrains != m.terrains:
            raise Finding("a saved map does not load back with the same Eidos")


def lanes(folder: Path, data: bytes) -> None:
    """Read a map with the standard library's reader and with msgspec's: the same map and problems, or one error."""
    _restore(folder)
    p = folder / "map.geojson"
    p.write_bytes(data)
    seen = []
    for lane in ("json", "msgspec"):
        try:
            read, problems = read_map(p, reader=lane)
        except EidomapError as exc:
            _clean_error(exc, p)
            seen.append(str(exc))
            continue
        md = read.record
        layers = [(getattr(md, k).ids, getattr(md, k).index.tolist(), shapely.to_wkb(getattr(md, k).geoms).tolist())
                  for k in ("eidos", "roads", "pousas", "fountains", "streams", "rivers")]
        seen.append((layers, md.terrain.tolist(), md.regions, md.eido_names, md.pousa_road.tolist(), problems,
                     read.document.left_out, read.document.members))
    if seen[0] != seen[1]:
        raise Finding("the two GeoJSON readers disagree")


def catalog(folder: Path, data: bytes) -> None:
    """Load a catalog over the default one and build its cost table."""
    p = folder / "catalog.toml"
    p.write_bytes(data)
    with _expect_clean(p):
        load_catalog(p).cost_table()


def tiled(folder: Path, data: bytes) -> None:
    """Import a Tiled map (by its first byte, TMX or JSON) as a map and as a grid; each output reads back."""
    p = folder / ("board.tmx" if data.lstrip()[:1] == b"<" else "board.tmj")
    p.write_bytes(data)
    with _expect_clean(p):
        import_tiled(p, folder / "imported.geojson")
        with _expect_clean(folder / "imported.geojson"):
            eidomap.load(folder / "imported.geojson")
    with _expect_clean(p):
        grid, _ = import_tiled_grid(p, folder / "imported.txt")
        back = d20.load_grid(folder / "imported.txt")
        if back.shape != grid.shape or (back.flags != grid.flags).any():
            raise Finding("an imported grid does not read back the same")


def svg(folder: Path, data: bytes) -> None:
    """Import an SVG board; the map written reads back (an import never writes what a load refuses)."""
    p = folder / "board.svg"
    p.write_bytes(data)
    with _expect_clean(p):
        import_svg(p, folder / "imported.geojson")
        with _expect_clean(folder / "imported.geojson"):
            eidomap.load(folder / "imported.geojson")


#: Numbers that break arithmetic, as text: zeros and signs, angles, the readers' bound (±1e15) and past it, the
#: doubles' ends, infinities and NaN, tiny ones, integers past 2^53, 32 and 64 bits, and past Python's 4,300 digits.
NUMBERS = ("0", "-0", "1", "-1", "0.5", "2", "10", "90", "180", "270", "360", "-90", "1e-9", "1e-300", "5e-324",
           "999999999999999", "1e15", "-1e15", "1.0000000000000002e15", "1e16", "1e17", "1e300", "-1e300", "1e308",
           "1.7976931348623157e308", "1e309", "-1e999", "1e999", "NaN", "Infinity", "-Infinity", "9007199254740993",
           "268435455", "268435456", "4294967295", "4294967296", "9223372036854775808", "1" + "0" * 30, "1" * 5000)
#: How a value no JSON holds is written in SVG or TMX text (the JSON spellings of NaN and infinity are Python's).
_AS_TEXT = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}


def _numbers(data: bytes, as_text: bool):
    """Numbers for the slots of a template, one after the other, from the fuzzer's bytes (then "1" each).

    A byte below 248 picks one of :data:`NUMBERS`; otherwise the next 8 bytes are a double (its ``repr``).
    """
    k = 0
    while True:
        if k >= len(data):
            yield "1"
            continue
        pick = data[k]
        k += 1
        if pick < 248 or k + 8 > len(data):
            text = NUMBERS[pick % len(NUMBERS)]
        else:
            x = struct.unpack("<d", data[k : k + 8])[0]
            k += 8
            text = repr(x) if x == x and abs(x) != float("inf") else {"nan": "NaN", "inf": "Infinity",
                                                                      "-inf": "-Infinity"}[repr(x)]
        yield _AS_TEXT.get(text, text) if as_text else text


#: An SVG board whose every number is a slot: the viewBox, transforms of each kind, lines, curves and an arc, a
#: rectangle, a circle (a Pousa), a nested viewport.
SVG_TEMPLATE = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="{} {} {} {}" width="{}" height="{}">'
    '<g transform="translate({} {}) scale({} {}) rotate({} {} {})">'
    '<path id="a" data-terrain="meadow" transform="skewX({}) skewY({})"'
    ' d="M{} {} L{} {} C{} {} {} {} {} {} Q{} {} {} {} A{} {} {} 0 1 {} {} Z"/>'
    '<rect id="b" data-terrain="sea" transform="matrix({} {} {} {} {} {})" x="{}" y="{}" width="{}" height="{}"/>'
    '<polygon id="c" data-terrain="forest" points="{} {} {} {} {} {}"/></g>'
    '<g id="roads"><path id="r" d="M{} {} L{} {}"/><circle id="p" cx="{}" cy="{}" r="{}"/></g>'
    '<svg x="{}" y="{}" width="{}" height="{}" viewBox="{} {} {} {}"><rect id="d" data-terrain="meadow"'
    ' width="{}" height="{}"/></svg></svg>')


def _filled(template: str, data: bytes, as_text: bool) -> bytes:
    """``template`` with its slots filled with the numbers the bytes give (:func:`_numbers`)."""
    numbers = _numbers(data, as_text)
    return template.format(*(next(numbers) for _ in range(template.count("{}")))).encode()


def svg_numbers(folder: Path, data: bytes) -> None:
    """:func:`svg` on a board whose numbers come from the bytes (:data:`SVG_TEMPLATE`)."""
    svg(folder, _filled(SVG_TEMPLATE, data, as_text=True))


#: A Tiled map (JSON) whose every number is a slot: its size, a layer's offsets, a rectangle, a rotated polygon, a
#: road with a Pousa, map and object properties, and a tile layer (its size, ids, tileset ids) for the grid import.
TILED_TEMPLATE = (
    '{{"type": "map", "width": {}, "height": {}, "tilewidth": {}, "tileheight": {}, "properties": ['
    '{{"name": "units_per_mile", "type": "float", "value": {}}}], "tilesets": [{{"firstgid": {}, "name": "t",'
    ' "tiles": [{{"id": {}, "properties": [{{"name": "d20", "type": "string", "value": "difficult"}}]}}]}}],'
    ' "layers": [{{"type": "objectgroup", "name": "E", "offsetx": {}, "offsety": {}, "objects": ['
    '{{"id": {}, "name": "a", "type": "meadow", "x": {}, "y": {}, "width": {}, "height": {}, "rotation": {},'
    ' "properties": [{{"name": "w", "type": "float", "value": {}}}]}},'
    '{{"id": 2, "name": "b", "type": "forest", "x": {}, "y": {}, "rotation": {},'
    ' "polygon": [{{"x": {}, "y": {}}}, {{"x": {}, "y": {}}}, {{"x": {}, "y": {}}}]}},'
    '{{"id": 3, "name": "r", "type": "road", "x": {}, "y": {},'
    ' "polyline": [{{"x": {}, "y": {}}}, {{"x": {}, "y": {}}}]}},'
    '{{"id": 4, "type": "pousa", "point": true, "x": {}, "y": {}}}]}},'
    '{{"type": "tilelayer", "name": "T", "width": 2, "height": 2, "data": [{}, {}, {}, {}]}}]}}')


def tiled_numbers(folder: Path, data: bytes) -> None:
    """:func:`tiled` on a map whose numbers come from the bytes (:data:`TILED_TEMPLATE`)."""
    tiled(folder, _filled(TILED_TEMPLATE, data, as_text=False))


def _number_seeds(ordinary: str) -> Callable[[], list[bytes]]:
    """A template's seeds: its ``ordinary`` numbers (a board that imports whole), the readers' bound in every slot,
    and the palette in order."""
    plain = bytes(NUMBERS.index(t) for t in ordinary.split())
    return lambda: [plain, bytes([NUMBERS.index("1e15")]) * 80, bytes(range(len(NUMBERS))) * 3]


SVG_ORDINARY = ("0 0 10 10 10 10  0 0 1 1 0 0 0  0 0  0 0 2 0 2 1 2 2 1 2 0.5 2 0 1 1 1 0 0 0.5  1 0 0 1 0 0 2 2 1 1"
                "  2 0 10 0 10 2  0 10 10 10 2 10 0.5  2 2 2 2 0 0 10 10 10 10")
TILED_ORDINARY = "10 10 10 10 1 1 0  0 0  1 0 0 10 10 0 0.5  10 0 0 0 0 10 0 10 10  0 10 0 0 10 0  2 10  1 1 0 1"


def grid(folder: Path, data: bytes) -> None:
    """Read a battle grid; on a small one, search every square reachable from the top-left corner."""
    p = folder / "battle.txt"
    p.write_bytes(data)
    with _expect_clean(p):
        g = d20.load_grid(p)
        if g.flags.size <= 400:
            with contextlib.suppress(EidomapError):  # a wall in the corner is a clean refusal
                d20.reach(g, (0, 0), 30, mode="double")


def _sealed(data: bytes) -> bytes:
    """An array file's bytes with the checksum they would have been written with: what its checks see past the CRC."""
    if not data.startswith(arrays.MAGIC) or len(data) < len(arrays.MAGIC) + arrays.CHECKSUM:
        return data
    body = data[: -arrays.CHECKSUM]
    return body + arrays.checksum(body).to_bytes(arrays.CHECKSUM, "little")


def cache(folder: Path, data: bytes) -> None:
    """Take the bytes (their checksum made right) as the demo map's cache: a load uses it or ignores it, and a
    route on what loads answers.  (Bit flips the checksum catches are the ``cacheflip`` target's.)"""
    _restore(folder)
    p = folder / "demo.geojson"
    path_for(p).write_bytes(_sealed(data))
    with _expect_clean(p), warnings.catch_warnings():
        warnings.simplefilter("ignore", EidomapWarning)
        m = eidomap.load(p, cache=True)
        with contextlib.suppress(EidomapError):  # a cache may name other Eidos or terrains: a clean refusal
            route(m, m.eido_ids[0], m.eido_ids[-1], "human")


@functools.cache
def _demo_cache() -> tuple[bytes, dict]:
    """The demo map's cache as a load writes it, and what a load without a cache answers (the reference)."""
    with tempfile.TemporaryDirectory() as tmp:
        _restore(Path(tmp))
        p = Path(tmp) / "demo.geojson"
        eidomap.load(p, cache=True).network  # noqa: B018  (builds and writes the cache)
        return path_for(p).read_bytes(), _answers(eidomap.load(p))


def _answers(m) -> dict:
    """What a query of the map gets: the compiled arrays, the names, the tolerance, two routes."""
    net = m.network
    routes = [route(m, a, b, "human", rolls=[4, 2, 6, 3]).as_dict() for a, b in (("bouza-vella", "porto-norte"),
                                                                               ("porto-sur", "carballeira"))]
    return {"arrays": {k: v.tolist() for k, v in net.arrays().items()}, "names": m.display_names,
            "tolerance": m.tolerance, "terrains": m.terrains, "routes": routes}


def cacheflip(folder: Path, data: bytes) -> None:
    """Flip bits of the demo map's real cache (each 4 bytes of input name one bit): a load must answer exactly as
    without the cache -- the cache used whole, or rejected and rebuilt."""
    pristine, want = _demo_cache()
    flipped = bytearray(pristine)
    for k in range(0, min(len(data), 32) - 3, 4):
        bit = int.from_bytes(data[k: k + 4], "little") % (8 * len(flipped))
        flipped[bit // 8] ^= 1 << (bit % 8)
    _restore(folder)
    p = folder / "demo.geojson"
    path_for(p).write_bytes(bytes(flipped))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EidomapWarning)
        got = _answers(eidomap.load(p, cache=True))
    if got != want:
        raise Finding("a cache with flipped bits answered otherwise than the map: "
                      + ", ".join(k for k in want if got[k] != want[k]))


#: The batch the ``batchresume`` target damages: the demo map, two actors, three starts, a part per start.
RESUME_QUERY = {"actors": ("human", "cow"), "starts": ("porto-norte", "porto-sur", "carballeira"), "turns": 2,
                "chunk": 1}


#: Characters of the path of the folder the ``batchresume`` target's map is copied to.  A Parquet part holds the path
#: of the map's catalog (in its metadata), and a damage's position is taken modulo the part's length: with the map
#: where the checkout lies, the same recorded input flipped another byte in a checkout at another path (issue 46: the
#: footer's schema there, nothing that mattered here).  The folder's path padded to this length, a part has one
#: length and layout wherever the checkout and the temporary folder lie, and a damage lands on the same byte.
MAP_PATH_CHARS = 200


def _map_copy(base: Path) -> Path:
    """The demo map and its catalog copied under ``base``, in a folder whose path is :data:`MAP_PATH_CHARS` long."""
    base = base.resolve()
    pad = MAP_PATH_CHARS - len(str(base)) - 1
    if pad < 1:
        raise RuntimeError(f"{base}: {len(str(base))} characters leave no room for the batch target's map folder"
                           f" ({MAP_PATH_CHARS} characters): set TMPDIR to a shorter path")
    folder = base / ("m" * pad)
    folder.mkdir()
    for name in ("demo.geojson", "demo-catalog.toml"):
        shutil.copyfile(ROOT / CLI_FILES[name], folder / name)
    return folder / "demo.geojson"


def _resume(out: Path, fmt: str, demo: Path, dice: str = "1d6"):
    from eidomap.answers.batch import Query, run_batch

    q = Query((str(demo),), format=fmt, dice=dice, **RESUME_QUERY)
    return run_batch(q, out, executor="serial", progress=False)  # (no pool to start for each input)


@functools.cache
def _batches(fmt: str, tmp: str) -> tuple[Path, Path, Path, object]:
    """The batch computed whole, the same chunks for another dice (parts of another query), the map they were
    computed on (a copy, in ``tmp``: :func:`_map_copy`) and the rows of the first."""
    from eidomap.answers.analysis import load_batch

    base = Path(tempfile.mkdtemp(prefix=f"eidomap-fuzz-batch-{fmt}-", dir=tmp))
    demo = _map_copy(base)
    _resume(base / "ref", fmt, demo)
    _resume(base / "other", fmt, demo, dice="2d4")
    return base / "ref", base / "other", demo, load_batch(base / "ref").table


def damaged(folder: Path, data: bytes) -> tuple[Path, str, list[str]]:
    """A finished batch copied into ``folder`` and damaged as the bytes say (see :func:`batchresume`): its folder,
    its format, and each damage done, in words (a position is a byte of the file)."""
    from eidomap.answers.batch import store

    fmt = "csv" if data[:1] and data[0] % 2 else "parquet"
    ref, other, _, _ = _batches(fmt, tempfile.gettempdir())
    out = folder / "batch"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(ref, out)
    parts = sorted(out.glob(f"part-*.{fmt}"))
    done = []
    for k in range(1, min(len(data), 33) - 3, 4):
        kind, which, at = data[k] % 8, data[k + 1] % len(parts), int.from_bytes(data[k + 2: k + 4], "little")
        part = parts[which]
        body = part.read_bytes() if part.exists() else b""
        if kind == 0:
            part.unlink(missing_ok=True)
            done.append(f"{part.name} deleted")
        elif kind == 1:
            part.write_bytes(body[: at % (len(body) + 1)])
            done.append(f"{part.name} cut to {at % (len(body) + 1)} of {len(body)} bytes")
        elif kind == 2 and body:
            flipped = bytearray(body)
            flipped[at % len(body)] ^= 1 << (data[k] // 8 % 8)
            part.write_bytes(bytes(flipped))
            done.append(f"{part.name}: bit {data[k] // 8 % 8} of byte {at % len(body)} of {len(body)} flipped")
        elif kind == 3 and parts[at % len(parts)].exists() and parts[at % len(parts)] != part:
            shutil.copy(parts[at % len(parts)], part)
            done.append(f"{parts[at % len(parts)].name} copied over {part.name}")
        elif kind == 4:
            shutil.copy(other / part.name, part)
            if fmt == "csv":
                shutil.copy(store.proof_path(other / part.name), store.proof_path(part))
            done.append(f"another query's {part.name} copied over it")
        elif kind == 5:
            proof = store.proof_path(part) if fmt == "csv" else part
            text = proof.read_bytes() if proof.exists() else b""
            spot = text.rfind(b'"seal"') if text else -1
            if spot >= 0:  # a character of the proof changed (CSV: the file beside; Parquet: the footer's copy)
                proof.write_bytes(text[:spot + 9] + bytes([text[spot + 9] ^ 1]) + text[spot + 10:])
                done.append(f"{proof.name}: byte {spot + 9} of {len(text)} (the seal) changed")
        elif kind == 6:
            part.write_bytes(bytes(data[k:]) * 7)
            done.append(f"{part.name} replaced by {len(data[k:]) * 7} bytes of garbage")
        else:
            store.proof_path(part).unlink(missing_ok=True)
            done.append(f"{part.name}'s proof file deleted")
    return out, fmt, done


def batchresume(folder: Path, data: bytes) -> None:
    """Damage a finished batch's parts as the bytes say, then resume it: the result must be the uninterrupted one.

    The first byte picks the format; then each 4 bytes are one damage (kind, part, and a position): a part
    deleted, cut short, a bit flipped, another part or another query's part copied over it, its proof lost or
    damaged, garbage in its place.
    """
    from eidomap.answers.analysis import load_batch

    out, fmt, _ = damaged(folder, data)
    _, _, demo, want = _batches(fmt, tempfile.gettempdir())
    try:
        _resume(out, fmt, demo)
        got = load_batch(out).table
    except EidomapError as exc:
        raise Finding(f"resuming a damaged batch failed: {exc}") from None
    if not got.equals(want):
        raise Finding("a resumed batch differs from the uninterrupted one")


def _cache_seeds() -> list[bytes]:
    """The demo map's cache, as a load writes it."""
    return [_demo_cache()[0]]


def _argv(data: bytes) -> list[str]:
    return [a for a in data.decode("utf-8", "replace").split(" ") if a]


def _restore(folder: Path) -> None:
    for name, src in CLI_FILES.items():
        dst = folder / name
        if not dst.is_file() or dst.stat().st_size != (ROOT / src).stat().st_size:
            shutil.copyfile(ROOT / src, dst)


def cli(folder: Path, data: bytes) -> None:
    """Run an argument list (words split at spaces) in ``folder``: exit 0, 1 or 2, and one line on exit 2."""
    argv = _argv(data)
    _restore(folder)
    parse_only = not argv or argv[0] not in CLI_RUNS or any(a.startswith(("--png", "--html")) for a in argv)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if parse_only:
                build_parser().parse_args(argv)
                code = 0
            else:
                code = main(argv)
        except SystemExit as exc:  # argparse: --help, --version, a usage error
            code = exc.code
    said = err.getvalue()
    if code not in (0, 1, 2, 130) or "Traceback" in said:
        raise Finding(f"eidomap {' '.join(argv)!r} exited {code!r}: {said.strip()[-300:]}")
    if code == 2 and said.count("\n") != 1:
        raise Finding(f"eidomap {' '.join(argv)!r} exited 2 with {said.count(chr(10))} lines: {said[-300:]!r}")


# -- issue 45: the text of GeoPackage and FlatGeobuf maps, GeoArrow position layouts -------------------------
#: The texts of the table map the ``gpkg-text`` and ``fgb-text`` targets write, each a slot the bytes fill: layer
#: names, ids, terrains, a column's name and a value, an Eido's and a road's names, a Pousa's road, the map's name.
TEXT_SLOTS = (b"eidos", b"roads", b"eido-a", b"eido-b", b"road-r", b"pousa-p", b"meadow", b"forest", b"colour",
              b"rojo", b"Prado Alto", b"Camino Real", b"Mapa Fuzz")


def _square(x: float) -> list:
    return [[[x, 0], [x + 1, 0], [x + 1, 1], [x, 1], [x, 0]]]


@functools.cache
def _text_template(suffix: str) -> bytes:
    """The table map (by ``suffix``) of :data:`TEXT_SLOTS`, as eidomap writes it: two Eidos, a road, a Pousa."""
    from eidomap.io.tables import write_table_map

    feats = [{"type": "Feature", "id": "eido-a", "properties": {"kind": "eido", "terrain": "meadow",
                                                                "name": "Prado Alto", "colour": "rojo"},
              "geometry": {"type": "Polygon", "coordinates": _square(0)}},
             {"type": "Feature", "id": "eido-b", "properties": {"kind": "eido", "terrain": "forest"},
              "geometry": {"type": "Polygon", "coordinates": _square(1)}},
             {"type": "Feature", "id": "road-r", "properties": {"kind": "road", "name": "Camino Real"},
              "geometry": {"type": "LineString", "coordinates": [[0.5, 0.5], [1.5, 0.5]]}},
             {"type": "Feature", "id": "pousa-p", "properties": {"kind": "pousa", "road": "road-r"},
              "geometry": {"type": "Point", "coordinates": [0.5, 0.5]}}]
    doc = {"type": "FeatureCollection", "eidomap": {"format": 1, "name": "Mapa Fuzz"}, "features": feats}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"template{suffix}"
        write_table_map(read_map(None, data=json.dumps(doc).encode())[0], path)
        return path.read_bytes()


def with_texts(template: bytes, data: bytes) -> bytes:
    """``template`` with every occurrence of each slot's text (:data:`TEXT_SLOTS`, in turn) put as the next bytes
    of ``data``, as many as the text has (the file's structure stays whole: a string's length is written before
    it); a slot past the data keeps its text."""
    texts, k = {}, 0
    for slot in TEXT_SLOTS:
        if k + len(slot) > len(data):
            break
        texts[slot] = data[k : k + len(slot)]
        k += len(slot)
    if not texts:
        return template
    found = re.compile(b"|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True)))
    return found.sub(lambda m: texts[m.group()], template)  # (all at once: a text put is never put over again)


def _text_seeds() -> list[bytes]:
    """The slots' own texts (the map as written), each with a Latin-1 letter, and the map's name escaping a lone
    surrogate in its JSON."""
    plain = b"".join(TEXT_SLOTS)
    return [plain, b"".join(t[:-1] + b"\xe9" for t in TEXT_SLOTS), plain.replace(b"Mapa Fuzz", b"Ma\\ud800z"),
            plain.replace(b"Prado Alto", "Prado Alt\u00f3".encode()[:10])]


def _table_text(suffix: str) -> Callable[[Path, bytes], None]:
    """A target: the table map of :data:`TEXT_SLOTS` in the format of ``suffix``, its texts the bytes
    (:func:`with_texts`: any bytes, UTF-8 or not); a map that loads saves as GeoJSON and loads back the same (its
    Eidos, terrains and the name its metadata gives: a map whose metadata GDAL cannot read is named after its
    file, which the saved map is not)."""

    def run(folder: Path, data: bytes) -> None:
        p = folder / f"map{suffix}"
        p.write_bytes(with_texts(_text_template(suffix), data))
        with _expect_clean(p):
            m = eidomap.load(p)
            m.info()
            out = folder / "saved.geojson"
            m.save(out)
            back = eidomap.load(out)
            if (back.eido_ids, back.terrains, back.meta.get("name")) != (m.eido_ids, m.terrains, m.meta.get("name")):
                raise Finding("a table map saved as GeoJSON does not load back the same")

    return run


@functools.cache
def _demo_table(suffix: str) -> bytes:
    """The demo map as eidomap writes it in the table format of ``suffix``."""
    with tempfile.TemporaryDirectory() as tmp:
        _restore(Path(tmp))
        path = Path(tmp) / f"demo{suffix}"
        from eidomap.io.tables import write_table_map

        write_table_map(eidomap.load(Path(tmp) / "demo.geojson").data, path)
        return path.read_bytes()


def fgbflip(folder: Path, data: bytes) -> None:
    """Flip bits of the demo map as FlatGeobuf (each 4 bytes of input name one bit): the map loads, answers a
    route, or is refused in one line (the probe of issue 45: 1 of 80 random flips was a UnicodeDecodeError)."""
    flipped = bytearray(_demo_table(".fgb"))
    for k in range(0, min(len(data), 32) - 3, 4):
        bit = int.from_bytes(data[k : k + 4], "little") % (8 * len(flipped))
        flipped[bit // 8] ^= 1 << (bit % 8)
    _restore(folder)  # (its catalog)
    p = folder / "demo.fgb"
    p.write_bytes(bytes(flipped))
    with _expect_clean(p):
        m = eidomap.load(p)
        m.info()
        with contextlib.suppress(EidomapError):  # (a flip may take away an Eido or a species' terrain)
            route(m, m.eido_ids[0], m.eido_ids[-1], "human")


#: What the ``geoarrow`` target draws its positions' numbers as (the first byte's pick).
_NUMBER_TYPES = ("float64", "float32", "int64", "int32", "int16", "uint8", "uint32")
#: The names a position struct's fields are drawn from: GeoArrow's, and others.
_FIELD_NAMES = ("x", "y", "z", "m", "a", "X", "xy", "y ")


def geoarrow(folder: Path, data: bytes) -> None:
    """A GeoParquet map of one GeoArrow polygon, a rectangle, its positions laid out as the bytes say: a struct of
    2 to 4 fields named from :data:`_FIELD_NAMES` in any order, or a fixed-size list of 2 to 4 numbers; numbers of
    any of :data:`_NUMBER_TYPES`; some null (a coordinate or a whole position).

    Read by name (x and y first in a list), the map must be the rectangle; a struct not naming x and y (and
    optionally z, m) alone, or a null where x or y is read, must be refused in one line.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    b = list(data[:16]) + [0] * max(16 - len(data), 0)
    struct_layout, number, size = b[0] % 2 == 0, _NUMBER_TYPES[b[1] % len(_NUMBER_TYPES)], 2 + b[2] % 3
    names = [_FIELD_NAMES[v % len(_FIELD_NAMES)] for v in b[3 : 3 + size]] if struct_layout else []
    scale = 1 + b[7] % 9
    values = {"x": [0, 2 * scale, 2 * scale, 0, 0], "y": [0, 0, scale, scale, 0]}
    columns = [values.get(n, [7] * 5) for n in names] if struct_layout else \
        [values["x"], values["y"], *([[7] * 5] * (size - 2))]
    null_field, null_at, whole = b[8] % 8, b[9] % 5, b[10] % 4 == 3  # (a field past them: no null)
    if null_field < size:
        columns[null_field] = [None if k == null_at else v for k, v in enumerate(columns[null_field])]
    mask = pa.array([whole and k == b[11] % 5 for k in range(5)])
    if struct_layout:
        points = pa.StructArray.from_arrays([pa.array(c, number) for c in columns], names, mask=mask)
    else:
        flat = [c[k] for k in range(5) for c in columns]
        points = pa.FixedSizeListArray.from_arrays(pa.array(flat, number), size, mask=mask)
    ring = pa.ListArray.from_arrays(pa.array([0, 5], pa.int32()), points)
    geo = {"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "polygon"}}}
    p = folder / "arrow.parquet"
    pq.write_table(pa.table({"id": ["a"], "terrain": ["meadow"], "geometry": pa.ListArray.from_arrays(
        pa.array([0, 1], pa.int32()), ring)}).replace_schema_metadata({"geo": json.dumps(geo)}), p)
    named = len(set(names)) == len(names) and {"x", "y"} <= set(names) <= {"x", "y", "z", "m"}
    read = [names.index(n) for n in ("x", "y")] if named else [0, 1]
    nulls = whole or (null_field in read and null_field < size)
    try:
        m = eidomap.load(p)
    except EidomapError as exc:
        _clean_error(exc, p)
        if (struct_layout and not named) or nulls:
            return
        raise Finding(f"a rectangle of GeoArrow {names or size} ({number}) was refused: {exc}") from None
    if struct_layout and not named:
        raise Finding(f"a struct of fields {names} was read")
    if nulls:
        raise Finding(f"a null coordinate ({number}) was read as {shapely.get_coordinates(m.geometries).tolist()}")
    got = {tuple(xy) for xy in shapely.get_coordinates(m.geometries).tolist()}
    if got != {(float(x), float(y)) for x, y in zip(values["x"], values["y"], strict=True)}:
        raise Finding(f"a rectangle of GeoArrow {names or size} ({number}) was read as {sorted(got)}")


#: A struct <x, y>, <y, x>, <z, x, y>, <a, b>; a list of 2 and 3; an integer null; a null position.
GEOARROW_SEEDS = [bytes([0, 0, 0, 0, 1, 0, 0, 2, 7]), bytes([0, 0, 0, 1, 0, 0, 0, 2, 7]),
                  bytes([0, 0, 1, 2, 0, 1, 0, 2, 7]), bytes([0, 0, 0, 4, 5, 0, 0, 2, 7]),
                  bytes([1, 0, 0, 0, 0, 0, 0, 2, 7]), bytes([1, 3, 1, 0, 0, 0, 0, 2, 7]),
                  bytes([0, 3, 0, 0, 1, 0, 0, 2, 0, 2]), bytes([0, 2, 0, 0, 1, 0, 0, 2, 7, 0, 3, 3])]


TARGETS: dict[str, Target] = {
    "geojson": Target(geojson, lambda: [*_files("maps/demo.geojson", "tests/data/validate/overlap.geojson",
                                                 "tests/data/validate/pousa-off-road.geojson")(),
                                        *_bad_inputs(".geojson")]),
    "lanes": Target(lanes, lambda: [*_files("maps/demo.geojson", "tests/data/validate/pousa-off-road.geojson")(),
                                    *_bad_inputs(".geojson")]),
    "catalog": Target(catalog, lambda: [*_files("maps/demo-catalog.toml", "eidomap/data/catalog.toml")(),
                                        *_bad_inputs(".toml")]),
    "tiled": Target(tiled, lambda: [*_files("tests/data/tiled/board.tmj", "tests/data/tiled/board.tmx",
                                            "tests/data/tiled/grid.tmj", "tests/data/tiled/grid.tmx")(),
                                    *_bad_inputs(".tmj"), *_bad_inputs(".tmx")]),
    "svg": Target(svg, lambda: [*_files("tests/data/svg/board.svg")(), *_bad_inputs(".svg")]),
    "svg-numbers": Target(svg_numbers, _number_seeds(SVG_ORDINARY)),
    "tiled-numbers": Target(tiled_numbers, _number_seeds(TILED_ORDINARY)),
    "grid": Target(grid, lambda: [*_files("maps/d20-battle.txt", "tests/data/d20/battle.txt",
                                          "tests/data/d20/bad-legend.txt")(), *_bad_inputs(".txt")]),
    "cli": Target(cli, lambda: [s.encode() for s in CLI_SEEDS]),
    "cache": Target(cache, _cache_seeds),
    "cacheflip": Target(cacheflip, lambda: [bytes(range(k, k + 8)) for k in (0, 97, 200)]),
    "batchresume": Target(batchresume, lambda: [bytes([f, *range(k, k + 12)]) for f in (0, 1) for k in (0, 9, 77)]),
    "gpkg-text": Target(_table_text(".gpkg"), _text_seeds),
    "fgb-text": Target(_table_text(".fgb"), _text_seeds),
    "geoarrow": Target(geoarrow, lambda: list(GEOARROW_SEEDS)),
    "fgbflip": Target(fgbflip, lambda: [bytes(range(k, k + 8)) for k in (0, 97, 200)]),
}


def mutate(seed: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    """``seed`` with each ``(position, length, text)`` edit applied: cut ``length`` bytes there, put ``text``."""
    b = bytearray(seed)
    for pos, cut, text in edits:
        at = pos % (len(b) + 1)
        b[at : at + cut] = text
    return bytes(b)


def mutants(seeds: list[bytes]):
    """A hypothesis strategy: the seeds with a few random edits, or random bytes."""
    from hypothesis import strategies as st

    edit = st.tuples(st.integers(0, 1 << 20), st.integers(0, 32), st.binary(max_size=32))
    return st.one_of(st.builds(mutate, st.sampled_from(seeds), st.lists(edit, max_size=8)), st.binary())


def describe(exc: BaseException) -> str:
    """A finding's signature: its type and the innermost eidomap line it came from."""
    tb, where = exc.__traceback__, "?"
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if "eidomap" in name or "benchmarks" in name:
            where = f"{Path(name).name}:{tb.tb_lineno}"
        tb = tb.tb_next
    return f"{type(exc).__name__} at {where}"
