"""Analyst tools: expected-turn matrices, races, bottlenecks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import eidomap.analysis as analysis
from eidomap.routing import route


def test_expected_turns_matrix_matches_single_routes(demo, monkeypatch):
    places = ["porto-norte", "porto-sur", "carballeira", "monte-pindo"]
    got = analysis.expected_turns_matrix(demo, places, "human")
    for (i, a), (j, b) in itertools.product(enumerate(places), repeat=2):
        r = route(demo, a, b, "human")
        want = 0.0 if a == b else (r.expected_turns if r.reachable else np.inf)
        assert got[i, j] == pytest.approx(want)
    monkeypatch.setattr(analysis, "BATCH_CELLS", 1)  # one source at a time
    assert np.array_equal(analysis.expected_turns_matrix(demo, places, "human"), got)


def test_race_matches_enumeration():
    p_a = np.array([0.2, 0.7, 1.0])
    p_b = np.array([0.5, 0.5, 0.9, 1.0])
    pa, pb = np.diff(np.r_[0, p_a]), np.diff(np.r_[0, p_b])
    first = sum(pa[i] * pb[j] for i in range(3) for j in range(4) if i < j)
    tie = sum(pa[i] * pb[i] for i in range(3))
    assert analysis.race(p_a, p_b) == pytest.approx((first, tie, 1 - first - tie))


def test_bottlenecks_are_eidos_ranked_by_betweenness(demo):
    top = analysis.bottlenecks(demo, "human", top=5)
    assert len(top) == 5 and all(e in demo.eido_ids for e, _ in top)
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)
