"""The synthetic-map generator: the streaming writer gives the same bytes as the document it replaced.

The hashes below are of ``write_map(generate_map(n, seed))`` as written before
the generator streamed (commit 65b76b1): the new writer, and the document
``generate_map`` still returns, must give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from eidomap.model import generate
from eidomap.model.generate import generate_map, voronoi_cells, write_generated, write_map
from eidomap.model.topology import adjacency

BEFORE = {
    (3, 0): "52ec8afc7f1cebba5d229e56da8f919586148d8de12ac11cb459a78d65df715c",
    (5, 1): "fb4e9f39b09e26b135ecd96d1888927774d998f9a6faea61a5038e0951963044",
    (50, 0): "c288621483e1f14de223b038867333209dd48c444177f7c316d0f5a13bb50017",
    (200, 1): "2c73cf4471bc952d77f9381925b23b5d91c96895a703bf69e6a76b249866c5c5",
    (1000, 7): "dc2b31fbd946098945c7b5c556a344f343dc9e1abe5ec6131a3bc72695457cc7",
    (5000, 3): "2dc262fffbaaf568653c524f17be01d3d125b6c4bf5ad70948568596143bc120",
}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(("n", "seed"), sorted(BEFORE))
def test_same_bytes_as_before(tmp_path, n, seed):
    path = tmp_path / "g.geojson"
    write_generated(path, n, seed, show=False)
    assert sha(path.read_bytes()) == BEFORE[n, seed]
    write_map(generate_map(n, seed), tmp_path / "doc.geojson")
    assert sha((tmp_path / "doc.geojson").read_bytes()) == BEFORE[n, seed]


#: ``write_generated(n, seed)`` before its memory was cut (issue 31): the Voronoi sites were a GEOS multipoint,
#: the cells clipped all at once, the Eidos written 50,000 at a time.
BEFORE_LEAN = {
    (10, 4): "3af75341b0c06edd55cd4ce593bb0742367568cd3e505cf2fd14fb918c43b0d4",
    (300, 2): "2b6d1782104669abe453c3e0b857e4862dcc73193218fea1479ecc827177d8d9",
    (2000, 5): "d92938105177bd098cd822e8dddad8e2e849556f63232d07fdad20d62d920293",
}


@pytest.mark.parametrize(("n", "seed"), sorted(BEFORE_LEAN))
@pytest.mark.parametrize("chunks", [None, (7, 97)])
def test_lean_writer_same_bytes(tmp_path, monkeypatch, n, seed, chunks):
    """The cells clipped in pieces (a cell chunk of 7: many pieces, a last one short), the same bytes."""
    if chunks:
        monkeypatch.setattr(generate, "CELL_CHUNK", chunks[0])
        monkeypatch.setattr(generate, "CHUNK", chunks[1])
    path = tmp_path / "g.geojson"
    write_generated(path, n, seed, show=False)
    assert sha(path.read_bytes()) == BEFORE_LEAN[n, seed]


@pytest.mark.parametrize("seed", range(4))
def test_stream_equals_document(tmp_path, monkeypatch, seed):
    """Several chunks (a small CHUNK), the document's bytes."""
    monkeypatch.setattr(generate, "CHUNK", 97)
    path = tmp_path / "g.geojson"
    write_generated(path, 700 + seed, seed, show=False)
    assert path.read_bytes() == json.dumps(generate_map(700 + seed, seed), separators=(",", ":")).encode()


def test_clip_is_the_overlay():
    """The array shortcut gives the geometries ``shapely.intersection`` gives, vertex for vertex."""
    for seed, side in ((0, 1.0), (1, 100.0), (2, 3000.0)):
        rng = np.random.default_rng(seed)
        pts = rng.uniform(0, side, (2000, 2))
        box = shapely.box(0, 0, side, side)
        vor = shapely.get_parts(shapely.voronoi_polygons(shapely.multipoints(pts), extend_to=box, ordered=True))
        got = generate._clip(vor, box, side)
        want = shapely.intersection(vor, box)
        assert all(np.array_equal(shapely.get_coordinates(a), shapely.get_coordinates(b))
                   for a, b in zip(got, want, strict=True))


#: ``write_generated(n, seed)`` with the cells built in bands of ``BAND_SITES`` sites (issue 31).
BANDED = {
    (3000, 2, 700): "561b259ca796164700beb6033a65beeef2d34ab304cf7b05d091e7020e3c1344",
    (1200, 9, 100): "19b70cead4f8f223d9f6e01830f0f8e63c513663f1c9d5b144dd3609bfb62c35",
}


@pytest.mark.parametrize(("n", "seed", "band"), sorted(BANDED))
def test_banded_map_same_bytes(tmp_path, monkeypatch, n, seed, band):
    """A map whose cells are built in bands: the bytes it was first written with, the document's too."""
    monkeypatch.setattr(generate, "BAND_SITES", band)
    path = tmp_path / "g.geojson"
    write_generated(path, n, seed, show=False)
    assert sha(path.read_bytes()) == BANDED[n, seed, band]
    assert path.read_bytes() == json.dumps(generate_map(n, seed), separators=(",", ":")).encode()


def _cells_at_once(n: int, seed: int, side: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pts = rng.uniform(0, side, (n, 2))
    box = shapely.box(0, 0, side, side)
    return shapely.intersection(shapely.get_parts(shapely.voronoi_polygons(shapely.multipoints(pts), extend_to=box,
                                                                          ordered=True)), box)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 200), seed=st.integers(0, 2**32 - 1), band=st.integers(1, 120),
       margin=st.floats(0.01, 6.0), side=st.sampled_from([1.0, 100.0, 3000.0]))
def test_cells_built_in_bands_are_the_whole_diagrams(n, seed, band, margin, side):
    """Cells built band by band, whatever the band and its first margin (too thin ones are widened), are the
    cells of one diagram of all the sites, clipped to the board, in the sites' order.

    (Up to 200 sites: with bands of 1 to 120 sites that is still one band to 200, end bands and inner ones, thin
    margins widened many times; a board of 400 took three times as long, most of it one-site bands rebuilt.)"""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generate, "BAND_SITES", band)
        mp.setattr(generate, "BAND_MARGIN", margin)
        got = voronoi_cells(n, np.random.default_rng(seed), side)
    want = _cells_at_once(n, seed, side)
    assert shapely.equals_exact(shapely.normalize(got), shapely.normalize(want), tolerance=1e-12 * side).all()


def test_a_thin_margin_is_widened(monkeypatch):
    """A first margin far too thin for the cells: the bands are built again wider, to the same cells."""
    built = []
    diagram = generate._diagram
    monkeypatch.setattr(generate, "_diagram", lambda pts, box: built.append(len(pts)) or diagram(pts, box))
    monkeypatch.setattr(generate, "BAND_SITES", 50)
    monkeypatch.setattr(generate, "BAND_MARGIN", 0.001)
    got = voronoi_cells(500, np.random.default_rng(3), 100.0)
    assert len(built) > 10  # (10 bands, some built more than once)
    assert shapely.equals_exact(shapely.normalize(got), shapely.normalize(_cells_at_once(500, 3, 100.0)),
                                tolerance=1e-10).all()


@pytest.mark.parametrize(("n", "seed", "band", "chunk"), [(3, 0, None, None), (500, 1, None, None),
                                                           (2000, 2, None, 700), (3000, 4, 400, None)])
def test_adjacency_from_rings(monkeypatch, n, seed, band, chunk):
    """The board's adjacency, from its ring arrays, is ``adjacency`` of its cells (built in bands or not, clipped
    a chunk of cells at a time or at once)."""
    if band:
        monkeypatch.setattr(generate, "BAND_SITES", band)
    if chunk:
        monkeypatch.setattr(generate, "CELL_CHUNK", chunk)
    board, _ = generate._board(n, seed)
    got = generate._adjacency(board)
    want = adjacency(voronoi_cells(n, np.random.default_rng(seed), float(np.sqrt(n) * 10)))
    for field in ("i", "j", "length"):
        assert np.array_equal(getattr(got, field), getattr(want, field))
    assert got.overlaps == want.overlaps


def _scipy_roads(adj, land, n_roads, rng):
    """The roads as the generator made them before: SciPy's unweighted Dijkstra from every start."""
    n = len(land)
    both = land[adj.i] & land[adj.j]
    g = coo_matrix((np.ones(both.sum()), (adj.i[both], adj.j[both])), shape=(n, n)).tocsr()
    cells = np.flatnonzero(land)
    starts = rng.choice(cells, size=min(n_roads, len(cells)), replace=False)
    dist, pred = dijkstra(g, directed=False, indices=starts, return_predecessors=True, unweighted=True)
    roads = []
    for k, s in enumerate(starts):
        reach = np.flatnonzero(np.isfinite(dist[k]))
        if len(reach) < 3:
            continue
        far = reach[dist[k][reach] >= np.quantile(dist[k][reach], 0.8)]
        path = [int(rng.choice(far))]
        while path[-1] != s:
            path.append(int(pred[k][path[-1]]))
        if len(path) >= 3:
            roads.append(path[::-1])
    return roads


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize(("n", "seed"), [(400, 0), (3000, 1), (8000, 2)])
def test_roads_are_scipys(n, seed, compiled):
    """The breadth-first roads, compiled by numba or by SciPy's breadth-first order, are the roads SciPy's
    Dijkstra gave, to the cell."""
    cells = voronoi_cells(n, np.random.default_rng(seed), float(np.sqrt(n) * 10))
    adj = adjacency(cells)
    land = np.random.default_rng(seed).random(n) < 0.7
    xy = shapely.get_coordinates(shapely.point_on_surface(cells))
    want = _scipy_roads(adj, land, 30, np.random.default_rng(seed))
    assert generate._roads(adj, land, xy, 30, np.random.default_rng(seed), compiled=compiled) == want
    assert len(want) > 20


@pytest.mark.parametrize("seed", range(20))
def test_farthest_fifth_is_numpys_quantile(seed):
    """Where the farthest fifth starts in a breadth-first queue: the levels at or above ``np.quantile(.., 0.8)``;
    SciPy's breadth-first order gives the same levels, queue and answer."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    # a random tree plus a few chords: levels with gaps in their counts
    parent = np.array([int(rng.integers(0, k)) for k in range(1, n)])
    a = np.r_[np.arange(1, n), rng.integers(0, n, n // 4)]
    b = np.r_[parent, rng.integers(0, n, n // 4)]
    g = coo_matrix((np.ones(2 * len(a)), (np.r_[a, b], np.r_[b, a])), shape=(n, n)).tocsr()
    level, queue = np.full(n, -1), np.empty(n, np.int64)
    reached, far = generate._levels(g.indptr, g.indices, level, queue, 0)
    assert reached == n
    want = np.flatnonzero(level >= np.quantile(level.astype(float), 0.8))
    assert sorted(queue[far:reached].tolist()) == want.tolist()
    by_scipy, in_order = np.full(n, -1), np.empty(n, np.int64)
    assert generate._levels_by_scipy(g, by_scipy, in_order, 0) == (reached, far)
    assert by_scipy.tolist() == level.tolist() and in_order.tolist() == queue.tolist()


def test_floats_text_is_repr():
    x = np.array([0.0, -0.0, 5.0, -3.0, 1e-5, 9.99e-5, 1e-4, 0.30000000000000004, 1910.8850619643629, 2.5,
                  1e15, 123456789012345.6, 1e16, 1e22, -7.25e-7])
    assert generate._floats_text(x).to_pylist() == [repr(v) for v in x.tolist()]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=200))
def test_floats_text_is_repr_of_any_float(values):
    x = np.array(values)
    assert generate._floats_text(x).to_pylist() == [repr(v) for v in x.tolist()]


def test_the_writer_leaves_pandas_alone(tmp_path):
    """pyarrow imports pandas (42 MiB) on its first ``pa.array`` where pandas is installed: the writer builds its
    Arrow arrays from buffers, so a map is written without it."""
    pytest.importorskip("pandas")
    code = ("import sys; from eidomap.model.generate import write_generated; import pyarrow; "
            f"write_generated({str(tmp_path / 'g.geojson')!r}, 3000, 1, show=False); "
            "print('pandas' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_road_text_is_json():
    """Many roads of many lengths, with floats of every notation: the text of their features through ``json``."""
    rng = np.random.default_rng(0)
    xy = rng.uniform(-3, 3, (50, 2)) * 10.0 ** rng.integers(-8, 20, (50, 2))
    xy[:5] = np.floor(xy[:5])
    roads = [rng.integers(0, 50, int(k)).tolist() for k in rng.integers(1, 30, 40)]
    lines = generate._Lines(roads, np.empty(0, np.int64), [])
    want = b"".join(b"," + json.dumps(f, separators=(",", ":")).encode() for f in lines.road_features(xy))
    assert bytes(generate._road_text(roads, xy)) == want
    assert bytes(generate._road_text([], xy)) == b""


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    """The file appears only when complete: a failure half-way leaves no file and no temporary."""
    def boom(*_):
        raise RuntimeError("disk full")

    monkeypatch.setattr(generate, "_eido_text", boom)
    with pytest.raises(RuntimeError):
        write_generated(tmp_path / "g.geojson", 50, 0, show=False)
    assert os.listdir(tmp_path) == []


def test_a_small_boards_roads_are_searched_without_threads_and_as_with_them(monkeypatch):
    """Below :data:`~eidomap.base.settings.SEARCH_THREADS_FROM` land cells the road searches run one after another,
    no thread started (it cost a small map more than it saved); run in threads, the same map."""
    from eidomap.model import generate

    def no_thread(*_):
        raise AssertionError("a thread started for a board of a few cells")

    monkeypatch.setattr(generate, "ThreadPoolExecutor", no_thread)
    alone = [generate.generate_map(n, seed) for n, seed in ((12, 3), (40, 7))]
    monkeypatch.undo()
    monkeypatch.setattr(generate.settings, "SEARCH_THREADS_FROM", 0)  # (the package's settings)
    assert [generate.generate_map(n, seed) for n, seed in ((12, 3), (40, 7))] == alone
    assert any(f["properties"]["kind"] == "road" for f in alone[1]["features"])  # (roads were searched)
