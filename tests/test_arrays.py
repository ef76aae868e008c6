"""The array helpers against NumPy's and a brute force's answers (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from eidomap._arrays import in_parts, in_threads, join, stable_argsort, unique_inverse

_INTS = st.sampled_from([np.int8, np.int32, np.int64, np.uint16, np.uint64])


@settings(max_examples=200, deadline=None)
@given(_INTS.flatmap(lambda t: arrays(t, st.integers(0, 300))))
def test_stable_argsort_is_numpys_stable_argsort(x):
    assert np.array_equal(stable_argsort(x), np.argsort(x, kind="stable"))
    values, inverse = unique_inverse(x)
    assert np.array_equal(values, np.unique(x)) and np.array_equal(values[inverse], x)


@settings(max_examples=200, deadline=None)
@given(arrays(np.int64, st.integers(0, 60), elements=st.integers(-3, 40)),
       arrays(np.int64, st.integers(0, 60), elements=st.integers(-3, 40) | st.integers(-2**40, 2**40)))
def test_join_finds_every_equal_pair_in_order(ka, kb):
    ia, ib = join(ka, kb)
    brute = [(a, b) for a in range(len(ka)) for b in range(len(kb)) if ka[a] == kb[b]]
    assert list(zip(ia.tolist(), ib.tolist(), strict=True)) == brute


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, st.integers(0, 200), elements=st.floats(-1e6, 1e6)), st.integers(1, 50))
def test_in_parts_and_in_threads_give_the_whole_answer(x, least):
    assert np.array_equal(in_threads(np.negative, x, least=least), -x)
    parts = in_parts(np.negative, x, least=least)
    assert [first for first, _ in parts] == sorted(first for first, _ in parts) and parts[0][0] == 0
    assert sum(len(answer) for _, answer in parts) == len(x)
