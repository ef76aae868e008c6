"""The layered movement graph and its compiled CSR form, and generated maps."""

from __future__ import annotations

import argparse
import json
from collections import Counter

import numpy as np
import pytest
import shapely
from conftest import DEMO, eido, feature, pousa, road, square, strip
from hypothesis import given, settings
from hypothesis import strategies as st

import eidomap
from eidomap.base.errors import MapError, RequestError
from eidomap.cli import main
from eidomap.model import network as graph
from eidomap.model.generate import voronoi_cells
from eidomap.model.network import HUB, KINDS, road_crossings
from eidomap.model.topology import adjacency


@pytest.fixture
def small(make_map):
    """meadow | rocks | rocky_cliff | meadow, with a road along it, two fountains and a stream."""
    feats = strip(["meadow", "rocks", "rocky_cliff", "meadow"])
    feats += [road("r", [[0.5, 0.5], [3.5, 0.5]]), pousa("r", [0.5, 0.5], "p0"), pousa("r", [2.0, 0.5], "p1"),
              pousa("r", [3.5, 0.5], "p2")]
    feats += [feature("fountain", "Point", [0.2, 0.8], "f0"), feature("fountain", "Point", [3.8, 0.8], "f1")]
    feats += [feature("stream", "LineString", [[3.2, 0.2], [0.2, 0.2]], "s")]
    return make_map(feats)


def edges_of(m, kind: str) -> set[tuple[str, str]]:
    return {(u, v) for u, v, d in m.graph.edges(data=True) if d["kind"] == kind}


def test_layers(small):
    layers = Counter(d["layer"] for _, d in small.graph.nodes(data=True))
    assert layers == {"eido": 4, "pousa": 3, "hub": 1}


def test_edge_kinds(small):
    assert edges_of(small, "border") == {("e0", "e1"), ("e1", "e0"), ("e1", "e2"), ("e2", "e1"), ("e2", "e3"),
                                          ("e3", "e2")}
    assert edges_of(small, "road") == {("p0", "p1"), ("p1", "p0"), ("p1", "p2"), ("p2", "p1")}
    assert edges_of(small, "board") == {("e0", "p0"), ("e1", "p1"), ("e2", "p1"), ("e3", "p2")}
    assert edges_of(small, "alight") == {(v, u) for u, v in edges_of(small, "board")}
    assert edges_of(small, "board_adjacent") == {("e1", "p0"), ("e0", "p1"), ("e3", "p1"), ("e2", "p2")}
    assert edges_of(small, "teleport") == {("e0", HUB), ("e3", HUB)}
    assert edges_of(small, "teleport_exit") == {(HUB, "e0"), (HUB, "e3")}
    assert edges_of(small, "stream") == {("e0", "e3")}  # mouth -> source
    assert edges_of(small, "road_eido") == edges_of(small, "border")


def test_edges_carry_the_terrain_they_enter(small):
    g = small.graph
    for _, v, d in g.edges(data=True):
        if d["kind"] in ("border", "alight", "teleport_exit", "stream", "road_eido"):
            assert d["terrain"] == g.nodes[v]["terrain"]
        if d["kind"] == "teleport":
            assert d["terrain"] is None
    assert {d["terrain"] for u, v, d in g.edges(data=True) if d["kind"] == "board_adjacent" and v == "p1"} == {
        "rocks", "rocky_cliff"}


def test_networkx_and_csr_never_disagree(small):
    net = small.network
    names = net.node_ids
    compiled = Counter(
        (names[s], names[d], KINDS[k], net.terrain_names[t] if t >= 0 else None)
        for s, d, k, t in zip(net.src, net.dst, net.kind, net.terrain, strict=True))
    nx_edges = Counter((u, v, d["kind"], d["terrain"]) for u, v, d in small.graph.edges(data=True))
    assert compiled == nx_edges
    assert np.all(np.diff(net.indptr) >= 0) and net.indptr[-1] == net.n_edges


def test_parallel_edges_reduce_to_the_cheapest(small):
    net = small.network
    w = np.arange(net.n_edges, dtype=float)[::-1].copy()
    pw = net.pair_weights(w)
    src = net.src
    for k, start in enumerate(net.pair_start):
        same = np.flatnonzero((src == src[start]) & (net.dst == net.dst[start]))
        assert pw[k] == w[same].min()


def test_road_through_a_corner_is_no_road_eido_edge(make_map):
    feats = [eido("a", "rocks", square(0, 0)), eido("b", "rocks", square(1, 0)), eido("c", "rocks", square(0, 1)),
             eido("d", "rocks", square(1, 1)), road("diag", [[0.5, 0.5], [1.5, 1.5]])]
    m = make_map(feats)
    assert edges_of(m, "road_eido") == set()


def test_info_counts(small, capsys):
    info = small.info()
    assert info["eidos"] == 4 and info["pousas"] == 3 and info["fountains"] == 2 and info["streams"] == 1
    assert info["adjacent_pairs"] == 3 and info["components"] == 1 and info["roads"] == 1


def test_neighbors_cli_json(make_map, capsys):
    m = make_map(strip(["sea", "meadow", "forest"]))
    assert main(["neighbors", str(m.path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [["e0", "e1"], ["e1", "e2"]]
    assert main(["neighbors", str(m.path), "e1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == ["e0", "e2"]
    assert main(["neighbors", str(m.path), "zz"]) == 2
    assert "no Eido with id 'zz'" in capsys.readouterr().err


def test_generate_is_reproducible_and_loads(tmp_path, capsys):
    a, b, c = tmp_path / "a.geojson", tmp_path / "b.geojson", tmp_path / "c.geojson"
    assert main(["generate", "--eidos", "300", "--seed", "4", str(a)]) == 0
    assert main(["generate", "--eidos", "300", "--seed", "4", str(b)]) == 0
    assert main(["generate", "--eidos", "300", "--seed", "5", str(c)]) == 0
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()
    m = eidomap.load(a)
    info = m.info()
    assert info["eidos"] == 300 and info["roads"] >= 2 and info["pousas"] > 0 and info["fountains"] >= 2
    assert {"sea", "air"} <= set(info["terrains"]) and len(info["terrains"]) >= 7
    assert main(["generate", "--eidos", "2", str(a)]) == 2


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and eidomap.__version__ in capsys.readouterr().out
    from eidomap.cli import COMMANDS, GROUPS, build_parser

    parser = build_parser()
    commands = [([name], entry) for name, entry in COMMANDS.items()]
    commands += [([group, name], entry) for group, (_, table) in GROUPS.items() for name, entry in table.items()]
    for words, (_, _, summary, _) in commands:
        with pytest.raises(SystemExit) as exc:
            main([*words, "--help"])
        out = capsys.readouterr().out
        assert exc.value.code == 0
        assert out.startswith("usage: eidomap " + " ".join(words))
        assert " ".join(summary.split()[:4]) in " ".join(out.split())  # the command says what it does
    # every option of every command explains itself
    sub = parser._subparsers._group_actions[0].choices
    for name, p in sub.items():
        for action in p._actions:
            if not isinstance(action, argparse._SubParsersAction):  # a group's commands are checked above
                assert action.help, f"eidomap {name}: {action.option_strings or action.dest} has no help"


@settings(max_examples=30, deadline=None)
@given(n=st.integers(3, 25), seed=st.integers(0, 10_000), k=st.integers(2, 8))
def test_road_crossings_match_a_pairwise_oracle(n, seed, k):
    """A road crosses the border of A and B exactly where it meets their shared boundary."""
    rng = np.random.default_rng(seed)
    cells = voronoi_cells(n, rng, side=100.0)
    adj = adjacency(cells)
    road = shapely.linestrings(rng.uniform(1, 99, (k, 2)))
    a, b = road_crossings(np.array([road]), cells, adj.i * n + adj.j, 1e-9)
    got = set(zip(a.tolist(), b.tolist(), strict=True))
    want = set()
    for i, j in zip(adj.i.tolist(), adj.j.tolist(), strict=True):
        shared = shapely.intersection(shapely.boundary(cells[i]), shapely.boundary(cells[j]))
        if shapely.intersects(road, shared):
            want |= {(i, j), (j, i)}
    assert got == want


def test_a_small_maps_road_crossings_are_worked_out_in_line_and_as_on_a_thread(monkeypatch):
    """Below :data:`~eidomap.base.settings.CROSSINGS_THREAD_FROM` Eidos the roads' crossings (the oestrimios' steps)
    are worked out without starting a thread, which costs a small map more than it saves; worked out on the thread,
    the same network."""
    m = eidomap.load(DEMO)
    args = (m.record, m.adjacency, m.tolerance)

    def no_thread(*_):
        raise AssertionError("a thread started for a map of a few Eidos")

    monkeypatch.setattr(graph, "ThreadPoolExecutor", no_thread)
    inline = graph.build_network(*args)
    monkeypatch.undo()
    monkeypatch.setattr(graph.settings, "CROSSINGS_THREAD_FROM", 0)  # (the package's settings)
    threaded = graph.build_network(*args)
    assert np.count_nonzero(inline.kind == KINDS.index("road_eido")) > 0
    for name in ("indptr", "dst", "kind", "terrain", "src"):
        assert np.array_equal(getattr(inline, name), getattr(threaded, name)), name


def test_pair_weights_from_a_table_equal_those_from_edge_weights(small):
    from eidomap.rules.eido import actor

    net = small.network
    for species in small.catalog.species:
        a = actor(small.catalog, species)
        assert np.array_equal(net.pair_weights(a.costs), net.pair_weights(a.weights(net)))


def test_a_cost_table_is_told_from_edge_weights_by_its_type_not_its_shape(small):
    from eidomap.model.network import CostTable
    from eidomap.rules.eido import actor

    net, a = small.network, actor(small.catalog, "human")
    edges = np.arange(net.n_edges)
    assert np.array_equal(net.weights_of(edges, a.costs), a.weights(net))
    with pytest.raises(RequestError, match=r"^weights must be per edge \(shape \(n_edges,\)\) or a CostTable"):
        net.pair_weights(a.table)  # a bare table's shape is no cost table
    with pytest.raises(RequestError, match="per edge"):
        net.csr(a.weights(net)[None, None])
    with pytest.raises(ValueError, match="shape"):
        CostTable(a.table[:, :, None])
    with pytest.raises(ValueError, match="shape"):
        CostTable(a.table[1:])


def test_a_map_whose_edge_keys_would_overflow_is_refused_not_miscompiled(monkeypatch):
    monkeypatch.setattr(graph, "KEY_BITS", 20)  # as if the demo map had millions of features and thousands of terrains
    m = eidomap.load(DEMO)
    with pytest.raises(MapError, match=r"too many features \(.*\) for a catalog of .* terrains"):
        _ = m.network


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39), st.integers(0, len(KINDS) - 1),
                                              st.integers(-1, 4)), max_size=200), st.integers(1, 50))
def test_edges_read_back_a_chunk_at_a_time_are_the_edges_read_back_at_once(n, edges, chunk):
    nb, kb, tb = graph._key_bits(n, 5)
    keys = np.array([(((s % n << nb | d % n) << kb | k) << tb) | (t + 1) for s, d, k, t in edges], np.int64)
    args = (np.array([f"n{k}" for k in range(n)]), np.zeros(n, np.uint8), np.zeros(n, np.int32))
    whole = graph._compile(*args, keys.copy(), n, tuple("abcde"), np.zeros(6, np.int64))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(graph, "FIELD_CHUNK", chunk)
        chunked = graph._compile(*args, keys.copy(), n, tuple("abcde"), np.zeros(6, np.int64))
    for field in ("indptr", "dst", "kind", "terrain", "pair_indptr", "pair_dst", "pair_start"):
        a, b = getattr(whole, field), getattr(chunked, field)
        assert a.dtype == b.dtype and np.array_equal(a, b), field
    order = sorted(range(len(edges)), key=lambda e: keys[e])
    assert whole.dst.tolist() == [edges[e][1] % n for e in order]


def test_an_edge_order_is_trusted_exactly_when_it_is_a_permutation_sorting_the_edges_by_target():
    """A cache hands its edge order back (Network.sorts_by_target): every permutation of the edges that sorts them
    by target is one (the first edge, 0, among them), anything else is not."""
    n = 4
    nb, kb, tb = graph._key_bits(n, 1)
    keys = np.array([(((a << nb | b) << kb) << tb) | 1 for a, b in ((0, 1), (1, 2), (2, 0), (3, 1), (2, 3))],
                    np.int64)
    net = graph._compile(np.array(["a", "b", "c", "d"]), np.zeros(n, np.int8), np.zeros(n, np.int32), keys, n,
                         ("t",), np.zeros(len(graph.MAP_ERROR_CODES), np.int64))
    order = np.argsort(net.dst, kind="stable")
    assert net.sorts_by_target(order) and net.sorts_by_target(order.astype(np.uint16))
    ties = np.flatnonzero(np.diff(net.dst[order]) == 0)[0]  # two edges into one node: either order sorts them
    swapped = order.copy()
    swapped[[ties, ties + 1]] = swapped[[ties + 1, ties]]
    assert net.sorts_by_target(swapped)
    for bad in (order[::-1], order - 1, np.r_[order[:-1], order[0]], order[:-1], order.astype(float)):
        assert not net.sorts_by_target(bad)
