"""The array helpers against NumPy's and a brute force's answers (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from eidomap.base.arrays import in_parts, in_threads, join, stable_argsort, unique_inverse

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


def test_in_parts_runs_one_part_on_the_calling_thread_and_raises_a_parts_error():
    """One part is computed on the caller's own thread (a thread started while another holds the GIL waits up to
    the switch interval to start); a part's error is the call's."""
    import threading

    import pytest

    seen = []

    def which(part: np.ndarray) -> np.ndarray:
        seen.append(threading.current_thread() is threading.main_thread())
        if (part < 0).any():
            raise ValueError("a negative value")
        return part

    in_parts(which, np.arange(8), least=2)
    assert seen.count(True) == 1
    with pytest.raises(ValueError, match="a negative value"):
        in_parts(which, np.r_[np.arange(7), -1], least=2)
    with pytest.raises(ValueError, match="a negative value"):
        in_parts(which, np.r_[-1, np.arange(7)], least=2)
