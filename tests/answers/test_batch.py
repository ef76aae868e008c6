"""eidomap batch: the same answers as the in-memory analysis, on every executor, through failures and resumes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import sys
from concurrent.futures import CancelledError, ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import eidomap
from eidomap.answers import analysis
from eidomap.answers.analysis import expected_turns_matrix, load_batch
from eidomap.answers.batch import BatchError, Query, run_batch
from eidomap.answers.batch.job import run_chunk
from eidomap.answers.routing import reach, route
from eidomap.base.errors import RequestError
from eidomap.cli import main
from eidomap.model import cache

DEMO = str(eidomap.demo_map_path())
ACTORS = ("human", "cow", "human@horse+cow")
STARTS = ("porto-norte", "porto-sur", "carballeira", "monte-pindo", "bouza-vella")
QUERY = Query((DEMO,), actors=ACTORS, starts=STARTS, turns=4, chunk=2)


def lost_once(marker: str, error: str, job, chunk) -> int:
    """The first chunk ends, past Dask's own retries, as a task a dead worker took with it does (cancelled, or its
    worker killed)."""
    for attempt in range(3 if chunk.index == 0 else 0):  # the first run and Dask's 2 retries
        try:
            os.close(os.open(f"{marker}-{attempt}", os.O_CREAT | os.O_EXCL))
            break
        except FileExistsError:
            continue
    else:
        return run_chunk(job, chunk)
    if error == "cancelled":
        raise CancelledError("already forgotten")
    import distributed

    raise distributed.KilledWorker("chunk", SimpleNamespace(address="tcp://127.0.0.1:1"), 3)


def crash_once(marker: str, job, chunk) -> int:
    """The first task to run kills its own process (as the OOM killer or a lost machine would)."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return run_chunk(job, chunk)
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)
    return 0


def fail_from(index: int, job, chunk) -> int:
    """Chunks before ``index`` are done; the rest fail (an interrupted run)."""
    if chunk.index >= index:
        raise KeyboardInterrupt
    return run_chunk(job, chunk)


class _Threads(ThreadPoolExecutor):
    """The local pool's process pool stood in by threads, recording how it was asked to start its processes."""

    asked: ClassVar[list[str | None]] = []

    def __init__(self, workers, mp_context=None, initializer=None, initargs=()):
        self.asked.append(None if mp_context is None else mp_context.get_start_method())
        super().__init__(workers, initializer=initializer, initargs=initargs)


@contextmanager
def _threads_for_processes():
    """The local executor's pool in threads of this process: for the tests of what a batch computes, writes, checks
    and resumes -- the same code on either side of the pool -- without a fresh interpreter (~1 CPU-s) per pool.
    Processes stay in the tests about them: workers killed or interrupted, forbid in a worker, a failing chunk."""
    import eidomap.answers.batch.run as batch_run

    _Threads.asked.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batch_run, "ProcessPoolExecutor", _Threads)
        yield _Threads.asked


@pytest.fixture
def in_threads():
    with _threads_for_processes() as asked:
        yield asked


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The query's batch on 2 workers (in threads: each test comparing a run in processes or on Dask to it is the
    check of those; this one is held to the in-memory analysis by :func:`test_same_as_in_memory_analysis`)."""
    out = tmp_path_factory.mktemp("batch") / "ref"
    with _threads_for_processes() as asked:
        summary = run_batch(QUERY, out, workers=2, progress=False)
    assert asked == ["spawn"]
    return out, summary, load_batch(out)


def _pivot(result, actor: str, column: str, targets) -> np.ndarray:
    """One column of the rows as a (starts x targets) matrix (nan where not asked)."""
    rows = result.rows("demo.geojson", actor)
    pos = {t: k for k, t in enumerate(targets)}
    i = np.array([STARTS.index(x) for x in rows["from"]])
    j = np.array([pos.get(x, -1) for x in rows["to"]])
    out = np.full((len(STARTS), len(targets)), np.nan)
    out[i[j >= 0], j[j >= 0]] = rows[column][j >= 0]
    return out


def test_rows_columns_and_metadata(reference):
    out, summary, result = reference
    n_e = len(eidomap.load(DEMO).eido_ids)
    assert summary.rows == result.table.num_rows == len(ACTORS) * len(STARTS) * n_e and result.complete
    assert result.table.column_names == ["map", "actor", "from", "to", "reachable", "cost", "expected_turns",
                                         "p_1", "p_2", "p_3", "p_4"]
    meta = json.loads(pq.read_schema(out / "part-000000.parquet").metadata[b"eidomap"])
    assert meta["map"]["sha256"] == cache.digest(DEMO) and meta["eidomap_version"] == eidomap.__version__
    assert meta["query"]["actors"] == list(ACTORS) and "human" in meta["map"]["catalog"]["species"]
    assert set(result.table["actor"].cast("string").to_pylist()) == set(ACTORS)  # spelt as asked: human@horse+cow
    unreachable = result.table.filter(result.table["reachable"].cast("int8").to_numpy() == 0)
    assert unreachable.num_rows > 0 and unreachable["cost"].null_count == unreachable.num_rows
    pd = pytest.importorskip("pandas")
    assert pd.read_parquet(out).shape == (summary.rows, 11)


def test_same_as_in_memory_analysis(reference):
    _, _, result = reference
    m = eidomap.load(DEMO)
    for actor in ("human", "cow"):
        got = _pivot(result, actor, "expected_turns", STARTS)
        want = expected_turns_matrix(m, STARTS, actor)
        assert np.array_equal(np.nan_to_num(got, nan=np.inf), want)
        p4 = _pivot(result, actor, "p_4", m.eido_ids)
        cost = _pivot(result, actor, "cost", m.eido_ids)
        for k, s in enumerate(STARTS[:2]):
            r = reach(m, s, actor, turns=4)
            assert p4[k] == pytest.approx([r.p_within[e] for e in m.eido_ids], abs=1e-12)
            for goal in STARTS:
                r = route(m, s, goal, actor)
                assert cost[k, m.index(goal)] == (r.cheapest_cost if r.reachable else np.nan) or not r.reachable


def test_backward_searches_give_the_forward_answers():
    """Few targets: searches from the targets (and the nodes just before them) equal one search per start."""
    from eidomap.answers.batch.job import actor_from_spec
    from eidomap.answers.batch.kernels import carry_block
    from eidomap.rules.dice import budget_pmf

    m = eidomap.load(DEMO)
    starts, targets = np.arange(len(m.eido_ids)), np.array([m.index(s) for s in STARTS])
    for spec in ("human", "bird", "oestrimio", "human@horse+cow"):
        a = actor_from_spec(m, spec, "2d4")
        pmf = budget_pmf(a.dice, a.vmv)
        f = carry_block(m.network, a.costs, pmf, starts, targets, 3)
        b = carry_block(m.network, a.costs, pmf, starts, targets, 3, backward=True)
        assert np.array_equal(f.cost, b.cost) and np.array_equal(f.expected, b.expected) and np.array_equal(f.p, b.p)


@contextmanager
def _dask_client(workers: int, processes: bool):
    """A client of a local Dask cluster of ``workers`` single-threaded workers (in processes or threads), both
    closed when the block ends: a cluster the client was only given outlives the client's close, and its worker
    processes idled (~6 CPU-s each) to the end of the session.  No dashboard (bokeh's import), and the scheduler's
    HTTP server on a free port (as eidomap's own cluster has it), not Dask's 8787."""
    distributed = pytest.importorskip("distributed")
    with (distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes, dashboard_address=None,
                                   scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}) as cluster,
          distributed.Client(cluster) as client):
        yield client


@pytest.fixture(scope="module")
def dask_threads():
    """One cluster of 2 workers in threads for the module's Dask tests that kill no process."""
    with _dask_client(2, processes=False) as client:
        yield client


def _on_dask(client, out: Path, **kwargs):
    """The query as a batch on ``client``'s cluster."""
    return run_batch(QUERY, out, executor="dask", scheduler=client, progress=False, **kwargs)


def test_dask_gives_identical_results(reference, tmp_path, dask_threads):
    _, _, result = reference
    summary = _on_dask(dask_threads, tmp_path / "dask")
    assert summary.computed == summary.chunks
    assert load_batch(tmp_path / "dask").table.equals(result.table)


def test_a_serial_batch_starts_no_process_and_gives_identical_results(reference, tmp_path, in_threads):
    """``executor="serial"`` computes every chunk in the calling process, in order: no pool asked for (the pool
    stood in by threads records any), and the same files as a pool's; its workers argument is not used."""
    _, _, result = reference
    summary = run_batch(QUERY, tmp_path / "serial", executor="serial", workers=2, progress=False)
    assert in_threads == [] and summary.computed == summary.chunks > 1
    assert load_batch(tmp_path / "serial").table.equals(result.table)


def test_a_killed_worker_and_the_run_still_completes_identically(reference, tmp_path):
    """The pool's worker process dies in its first chunk: the pool is broken, every chunk it had not finished goes
    round again on a new pool.  (One worker: a second one, killed with the broken pool, is the same case.)"""
    _, _, result = reference
    marker = tmp_path / "killed"
    summary = run_batch(QUERY, tmp_path / "out", workers=1, progress=False, work=partial(crash_once, str(marker)))
    assert marker.exists() and summary.computed == summary.chunks
    assert load_batch(tmp_path / "out").table.equals(result.table)


def test_a_killed_dask_worker_and_the_run_still_completes_identically(reference, tmp_path):
    """The cluster's one worker process dies: with it goes the only copy of the scattered job, Dask cancels every
    chunk, and the run completes only because eidomap sends them round again (on a worker the nanny restarts)."""
    _, _, result = reference
    marker = tmp_path / "killed"
    with _dask_client(1, processes=True) as client:
        _on_dask(client, tmp_path / "out", work=partial(crash_once, str(marker)))
    assert marker.exists()
    assert load_batch(tmp_path / "out").table.equals(result.table)


@pytest.mark.parametrize("error", ["cancelled", "killed"])
def test_a_task_a_dead_dask_worker_lost_goes_round_again(reference, tmp_path, error, dask_threads):
    """Dask may give up a task when its worker dies (a lost copy of the job: cancelled; too many deaths: killed)."""
    _, _, result = reference
    marker = tmp_path / "lost"
    _on_dask(dask_threads, tmp_path / "out", work=partial(lost_once, str(marker), error))
    assert Path(f"{marker}-2").exists()
    assert load_batch(tmp_path / "out").table.equals(result.table)


def test_resume_after_an_interruption_redoes_half_written_chunks(reference, tmp_path):
    _, summary, result = reference
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_batch(QUERY, out, workers=1, progress=False, work=partial(fail_from, 4))
    assert not load_batch(out, partial=True).complete
    with pytest.raises(RequestError, match=r"the batch is not finished: 5 of 9 parts are missing \(part-000004"):
        load_batch(out)
    done = sorted(p.name for p in out.glob("part-*.parquet"))
    assert done == [f"part-{k:06d}.parquet" for k in range(4)]
    # a chunk half-written when the run stopped, and a file truncated by a lost machine
    (out / ".part-000004.parquet.x1y2.tmp").write_bytes(b"PAR1 half")
    data = (out / "part-000001.parquet").read_bytes()
    (out / "part-000001.parquet").write_bytes(data[: len(data) // 2])
    with _threads_for_processes():  # (what is kept and redone is decided here; the interruption was a worker's)
        again = run_batch(QUERY, out, workers=1, progress=False)
    assert (again.done_before, again.computed) == (3, summary.chunks - 3)
    assert not list(out.glob(".part-*"))
    assert load_batch(out).table.equals(result.table)


def _rewrite_part(path: Path, edit) -> None:
    """Write a Parquet part again with ``edit(table, metadata)``'s table and metadata (a damage the file hides)."""
    t = pq.read_table(path)
    table, meta = edit(t, dict(t.schema.metadata))
    pq.write_table(table.replace_schema_metadata(meta), path)


def test_resume_redoes_every_part_that_fails_its_proof(reference, tmp_path, in_threads):
    """Issue 28: a part of another query copied in, another chunk's part, a value changed, a part without its proof:
    resume counted each as done from its row count alone."""
    import shutil

    from eidomap.answers.batch import store
    from eidomap.answers.batch.job import prepare

    ref, summary, result = reference
    out = tmp_path / "out"
    shutil.copytree(ref, out)
    other = tmp_path / "other"  # chunk 2 of the same batch but for another dice, computed here
    other.mkdir()
    job, chunks, _ = prepare(Query(QUERY.maps, QUERY.actors, QUERY.starts, turns=4, chunk=2, dice="2d4"), other)
    run_chunk(job, chunks[2])
    shutil.copy(other / "part-000002.parquet", out / "part-000002.parquet")
    shutil.copy(out / "part-000004.parquet", out / "part-000003.parquet")
    _rewrite_part(out / "part-000005.parquet",
                  lambda t, meta: (t.set_column(10, "p_4", pa.array(t["p_4"].to_numpy()[::-1].copy())), meta))
    _rewrite_part(out / "part-000006.parquet",
                  lambda t, meta: (t, {k: v for k, v in meta.items() if k != store.PROOF.encode()}))
    with pytest.raises(RequestError, match=r"part-000002\.parquet: was computed for another query than _batch.json"):
        load_batch(out)
    again = run_batch(QUERY, out, workers=1, progress=False)
    assert (again.done_before, again.computed) == (summary.chunks - 4, 4)
    assert load_batch(out).table.equals(result.table)


def test_a_part_whose_schema_differs_is_redone_by_resume_and_refused_by_load_batch(reference, tmp_path, in_threads):
    """Issue 46: a bit flipped in a part's Parquet footer read its ``actor`` column back as binary -- the same bytes,
    so the digest of its rows still matched: resume kept it, and the resumed batch's ``actor`` held ``b'human'``.
    Each part's schema (names, types, order) is checked against the query's before its rows are trusted."""
    import shutil

    ref, summary, result = reference
    out = tmp_path / "out"
    shutil.copytree(ref, out)
    binary = pa.dictionary(pa.int32(), pa.binary())
    _rewrite_part(out / "part-000001.parquet",
                  lambda t, meta: (t.set_column(1, "actor", t["actor"].cast(binary)), meta))
    _rewrite_part(out / "part-000004.parquet",  # two columns swapped, each with its values: the rows' digests match
                  lambda t, meta: (t.select(["map", "actor", "to", "from", *t.column_names[4:]]), meta))
    with pytest.raises(RequestError) as refused:
        load_batch(out)
    assert str(refused.value) == (f"{out / 'part-000001.parquet'}: its column 'actor' is"
                                  " dictionary<values=binary, indices=int32, ordered=0>, where this batch's parts"
                                  " hold dictionary<values=string, indices=int32, ordered=0> (damaged, or written"
                                  " by another eidomap); run the same eidomap batch command again to compute it"
                                  " again")
    again = run_batch(QUERY, out, workers=1, progress=False)
    assert (again.done_before, again.computed) == (summary.chunks - 2, 2)
    assert load_batch(out).table.equals(result.table)


def test_a_part_whose_schema_differs_is_refused_in_one_line_whatever_its_names(reference, tmp_path):
    """A part is a file like any other: the names in its schema (a column's, a type's fields) cannot break the line."""
    import shutil

    ref, _, _ = reference
    out = tmp_path / "out"
    shutil.copytree(ref, out)
    odd = pa.array([{"line\nbreak": 1}] * pq.read_metadata(out / "part-000002.parquet").num_rows)
    _rewrite_part(out / "part-000002.parquet", lambda t, meta: (t.set_column(1, "act\nor", odd), meta))
    with pytest.raises(RequestError) as refused:
        load_batch(out)
    assert "\n" not in str(refused.value) and str(refused.value).startswith(
        f"{out / 'part-000002.parquet'}: its column 2 is 'act\\nor', where this batch's parts have 'actor'")
    _rewrite_part(out / "part-000002.parquet", lambda t, meta: (t.rename_columns(
        ["actor" if n == "act\nor" else n for n in t.column_names]), meta))
    with pytest.raises(RequestError, match=r"its column 'actor' is 'struct<line\\nbreak: int64>', where") as refused:
        load_batch(out)
    assert "\n" not in str(refused.value)


def test_a_read_checks_the_digest_of_every_column_it_reads(reference, tmp_path):
    import shutil

    ref, _, _ = reference
    out = tmp_path / "out"
    shutil.copytree(ref, out)
    _rewrite_part(out / "part-000001.parquet",  # (human, starts 3-4): one value, the proof kept
                  lambda t, meta: (t.set_column(6, "expected_turns", pa.array(t["expected_turns"].to_numpy() + 1)),
                                   meta))
    batch = load_batch(out)  # the proofs are whole: what is damaged shows when read
    assert batch.rows("demo.geojson", "cow", ["p_4"])["p_4"].size == len(STARTS) * 76
    assert batch.rows("demo.geojson", "human", ["p_4"])["p_4"].size == len(STARTS) * 76  # that column is intact
    with pytest.raises(RequestError, match=r"part-000001\.parquet: column 'expected_turns' does not match its digest"):
        batch.rows("demo.geojson", "human", ["expected_turns"])
    with pytest.raises(RequestError, match="does not match its digest"):
        batch.table  # noqa: B018


def test_rows_read_only_the_columns_and_rows_asked_for(reference):
    _, _, result = reference
    every = result.rows("demo.geojson", "human")
    picked = result.rows("demo.geojson", "human", ["to", "p_2"], starts=STARTS[:2], targets=STARTS, loops=False)
    keep = np.isin(every["from"], STARTS[:2]) & np.isin(every["to"], STARTS) & (every["from"] != every["to"])
    assert list(picked) == ["to", "p_2"] and keep.sum() == 2 * (len(STARTS) - 1)
    assert np.array_equal(picked["to"], every["to"][keep]) and np.array_equal(picked["p_2"], every["p_2"][keep])
    assert result.rows("demo.geojson", "dragon", ["p_2"])["p_2"].size == 0


def test_a_different_query_into_the_same_folder_is_refused(reference, tmp_path):
    out, _, _ = reference
    with pytest.raises(RequestError, match=r"holds a different batch \(turns 4 there, 5 now\)"):
        run_batch(Query((DEMO,), actors=ACTORS, starts=STARTS, turns=5, chunk=2), out, workers=1, progress=False)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(RequestError, match="not empty and holds no eidomap batch"):
        run_batch(QUERY, tmp_path, workers=1, progress=False)


@pytest.mark.parametrize("here", [False, True], ids=["in a worker", "in this process"])
def test_forbid_matches_the_policy(tmp_path, here):
    m = eidomap.load(DEMO)
    places = ["porto-norte", "porto-sur", "carballeira"]
    q = Query((DEMO,), actors=("human",), starts=tuple(places), targets=tuple(places), turns=3, partial="forbid",
              chunk=2)
    if here:  # a worker's steps, in the test's process (where mutation testing sees what a chunk calls)
        from eidomap.answers.batch.job import prepare, run_chunk
        from eidomap.answers.batch.store import open_folder

        job, chunks, record = prepare(q, tmp_path / "f")
        with open_folder(tmp_path / "f", record):
            for chunk in chunks:
                run_chunk(job, chunk)
    else:
        run_batch(q, tmp_path / "f", workers=1, progress=False)
    rows = load_batch(tmp_path / "f").rows("demo.geojson", "human")
    want = expected_turns_matrix(m, places, "human", partial="forbid")
    for a, b, e, p3 in zip(rows["from"], rows["to"], rows["expected_turns"], rows["p_3"], strict=True):
        assert np.nan_to_num(e, nan=np.inf) == want[places.index(a), places.index(b)]
        assert p3 == pytest.approx(reach(m, a, "human", turns=3, partial="forbid").p_within[b], abs=1e-12)


def test_a_record_holds_turns_up_to_the_most_a_batch_takes(reference, tmp_path):
    """A batch takes 0 to 1,000 turns (Query.turns), and a _batch.json read from a folder -- checked like any
    input -- holds turns up to 1,000: one of 1,001 is no record of a batch."""
    from eidomap.answers.batch import store

    out, _, _ = reference
    record = json.loads((out / store.RECORD).read_text())
    for turns, fine in ((1000, True), (1001, False)):
        (tmp_path / str(turns)).mkdir()
        (tmp_path / str(turns) / store.RECORD).write_text(json.dumps({**record, "query": {**record["query"],
                                                                                          "turns": turns}}))
        if fine:
            assert store.read_record(tmp_path / str(turns))["query"]["turns"] == turns
        else:
            with pytest.raises(RequestError, match="is not the record of an eidomap batch"):
                store.read_record(tmp_path / str(turns))
    with pytest.raises(RequestError, match="turns must be a whole number from 0 to 1,000, got 1001"):
        run_batch(Query((DEMO,), actors=("human",), starts=("porto-sur",), turns=1001), tmp_path / "q", workers=1,
                  progress=False)


def fail_first(folder: str, job, chunk) -> int:
    """The first chunk fails at once; the others take a while.  Every chunk run leaves a mark in ``folder``."""
    import time

    Path(folder, f"ran-{chunk.index}").touch()
    if chunk.index == 0:
        raise RuntimeError("chunk 0 failed")
    time.sleep(0.2)  # (the failure is seen while the next chunk runs, not after the queue has moved on)
    return run_chunk(job, chunk)


def test_a_failing_chunk_stops_a_local_batch_without_running_the_queued_ones(tmp_path):
    """The error of a chunk ends the batch: the chunks still queued are cancelled, not run first.  The one process
    may have begun the next chunk and the pool's call queue hold two more: four of the fifteen at most run."""
    marks = tmp_path / "marks"
    marks.mkdir()
    query = Query((DEMO,), actors=ACTORS, starts=STARTS, turns=1, chunk=1)
    with pytest.raises(RuntimeError, match="chunk 0 failed"):
        run_batch(query, tmp_path / "out", workers=1, progress=False, work=partial(fail_first, str(marks)))
    ran = sorted(int(p.name.removeprefix("ran-")) for p in marks.iterdir())
    assert ran[0] == 0 and len(ran) <= 4 < len(ACTORS) * len(STARTS), ran


def test_workers_that_keep_dying_leave_a_resumable_result(tmp_path, monkeypatch):
    import eidomap.answers.batch.run as batch_run

    monkeypatch.setattr(batch_run, "RESTARTS", 0)
    with pytest.raises(BatchError, match="run the same command again"):
        run_batch(QUERY, tmp_path / "out", workers=1, progress=False,
                  work=partial(crash_once, str(tmp_path / "marker")))


# -- the command line ----------------------------------------------------------------------
def _cli(capsys, *argv) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_batch_csv_resume_and_errors(capsys, tmp_path, reference, in_threads):
    out = tmp_path / "csv"
    args = ["batch", DEMO, "--species", ",".join(ACTORS), "--from", ",".join(STARTS), "--turns", "4", "--chunk",
            "2", "--out", str(out), "--format", "csv", "--workers", "1", "--quiet"]
    rc, stdout, err = _cli(capsys, *args)
    assert rc == 0 and stdout.startswith(f"wrote {out}: 1,140 rows in 9 chunks, computed in ") and err == ""
    csv = load_batch(out)
    assert csv.complete and csv.table.column_names == reference[2].table.column_names
    for name in ("cost", "expected_turns", "p_4"):
        assert np.allclose(csv.table[name].to_numpy(zero_copy_only=False).astype(float),
                           reference[2].table[name].to_numpy(zero_copy_only=False).astype(float),
                           rtol=1e-15, equal_nan=True)
    rc, stdout, _ = _cli(capsys, *args)
    assert rc == 0 and stdout == f"wrote {out}: 1,140 rows in 9 chunks, all done before\n"
    # a part cut short at a line's end, a value changed: both were kept (a CSV part was never checked)
    cut = (out / "part-000002.csv").read_text().splitlines(keepends=True)
    (out / "part-000002.csv").write_text("".join(cut[: len(cut) // 2]))
    text = (out / "part-000005.csv").read_text()
    (out / "part-000005.csv").write_text(text.replace(",true,", ",false,", 1))
    with pytest.raises(RequestError, match=r"part-000002\.csv: holds \d+ rows, its proof 76 \(cut short"):
        load_batch(out).table  # noqa: B018
    rc, stdout, _ = _cli(capsys, *args)
    assert rc == 0 and stdout.startswith(f"wrote {out}: 1,140 rows in 9 chunks; 7 done before, the other 2 (152 rows)"
                                         " computed in ")
    assert load_batch(out).table.equals(csv.table)
    rc, _, err = _cli(capsys, *[a if a != "csv" else "parquet" for a in args])
    assert rc == 2 and err.count("\n") == 1 and "holds a different batch (format 'csv' there" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--species", "dragon", "--from", "all"], "unknown species 'dragon'"),
    (["--species", "human", "--from", "atlantis"], "no Eido or Pousa with id 'atlantis'"),
    (["--species", "human", "--from", "all", "--scheduler", "tcp://x:1"], "--scheduler goes with --executor dask"),
    (["--species", "human", "--from", "all", "--workers", "0"], "--workers must be a whole number"),
    (["--species", "human", "--from", "all", "--turns", "-1"], "--turns must be a whole number"),
])
def test_cli_batch_bad_input_is_one_line_and_exit_2(capsys, tmp_path, argv, message):
    rc, _, err = _cli(capsys, "batch", DEMO, *argv, "--out", str(tmp_path / "o"), "--quiet")
    assert rc == 2 and err.count("\n") == 1 and message in err and "Traceback" not in err


def test_cli_dask_without_dask_says_how_to_install_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    rc, _, err = _cli(capsys, "batch", DEMO, "--species", "human", "--from", "all", "--out", str(tmp_path / "o"),
                      "--executor", "dask")
    assert rc == 2 and err == 'eidomap: --executor dask needs Dask: pip install "eidomap[dask]"\n'
    assert not (tmp_path / "o").exists()


def test_a_batch_says_its_rows_size_and_time_after_its_first_chunk(capsys, tmp_path, monkeypatch, in_threads):
    """Issue 27: the README's big-map batch was 10^10 rows, about 67 GB and 8 hours, without a word."""
    from eidomap.cli import batch as cli_batch

    out = tmp_path / "big"
    args = ["batch", DEMO, "--species", "human,cow", "--from", ",".join(STARTS), "--chunk", "2", "--out", str(out),
            "--workers", "1"]
    monkeypatch.setattr(cli_batch, "CONFIRM_BYTES", 10_000)  # this batch is 'big'
    rc, stdout, err = _cli(capsys, *args)  # not a terminal, no --yes: refused, nothing written
    assert rc == 2 and stdout == "" and not out.exists()
    said, refused = err.splitlines()
    assert re.fullmatch(r"eidomap: 760 rows in 6 chunks; the first chunk \(152 rows\) took [0-9.]+ s and [0-9.]+ kB:"
                        r" about [0-9.]+ kB in all, and \d+ s more on 1 worker", said)
    size = float(re.search(r"about ([0-9.]+) kB", said).group(1))
    assert refused == (f"eidomap: {out}: the result would be about {size:g} kB (760 rows), more than the 10 kB written"
                       " without --yes: run it again with --yes, or ask for fewer rows (--to a few targets, fewer"
                       " --from or --species)")
    monkeypatch.setattr(sys, "stdin", _Terminal("n\n"))  # asked at a terminal: no
    rc, _, err = _cli(capsys, *args)
    assert rc == 1 and err.endswith(f"? [y/N] eidomap: {out}: not started (nothing written)\n") and not out.exists()
    monkeypatch.setattr(sys, "stdin", _Terminal("y\n"))
    rc, stdout, _ = _cli(capsys, *args)
    assert rc == 0 and stdout.startswith(f"wrote {out}: 760 rows in 6 chunks, computed in ")
    written = sum(p.stat().st_size for p in out.glob("part-*"))
    assert 0.5 < size * 1000 / written < 2  # the estimate is of the right size
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    rc, _, err = _cli(capsys, *args[:-2], "--out", str(tmp_path / "again"), "--yes", "--quiet")
    assert rc == 0 and err == ""


class _Terminal(io.StringIO):
    """Standard input at a terminal, with what the user types."""

    def isatty(self) -> bool:
        return True


def test_ctrl_c_on_a_dask_batch_is_one_line_and_every_process_of_the_cluster_ends(tmp_path):
    """Issue 27: 65-95 lines of Dask and asyncio tracebacks around the one line, up to 16 s to stop.

    SIGINT goes to the whole process group, as Ctrl-C at a terminal sends it, once chunks are being written.
    That the close is bounded is :func:`test_an_interrupted_dask_batch_gives_its_cluster_close_seconds_to_close`'s
    (no time is measured here: a few seconds alone, a minute on a loaded machine; the waits are hang guards).
    Another Dask cluster runs on this machine (Dask's port 8787 taken): its scheduler warned of it on stderr.
    """
    import socket
    import subprocess
    import time

    # (imported here, not with the module: a worker process that unpickles one of this module's functions --
    # crash_once, fail_first... -- imports the module, and conftest would bring it hypothesis, ~0.08 CPU-s a worker)
    from conftest import hang_guard

    pytest.importorskip("distributed")
    other = socket.socket()
    with contextlib.suppress(OSError):  # (taken already: by another cluster, as asked)
        other.bind(("127.0.0.1", 8787))
        other.listen()
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "eidomap", "batch", DEMO, "--species", "all", "--from", "all", "--chunk", "1",
            "--out", str(out), "--executor", "dask", "--workers", "2", "--quiet"]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + hang_guard(5)
        while not list(out.glob("part-*")) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert p.poll() is None, "the batch ended before it could be interrupted"
        os.killpg(p.pid, signal.SIGINT)
        sent = time.monotonic()
        _, err = p.communicate(timeout=hang_guard(5))
        while time.monotonic() - sent < hang_guard(5):  # every process of the group (the cluster's) gone
            try:
                os.killpg(p.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            pytest.fail("processes of the cluster outlived the batch")
    finally:
        other.close()
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130
    assert err.decode() == ("eidomap: interrupted; the chunks finished are kept: run the same command again to"
                            " resume\n")


def test_an_interrupted_dask_batch_gives_its_cluster_close_seconds_to_close(tmp_path, monkeypatch):
    """Issue 27: up to 16 s to stop after Ctrl-C, Dask's own waits: the client and the cluster eidomap started are
    closed with a timeout of ``CLOSE_SECONDS`` (then their workers are killed), on an interruption as at the end."""
    import eidomap.answers.batch.run as batch_run
    from eidomap.answers.batch.job import prepare

    pytest.importorskip("dask")
    closed = []

    class Cluster:
        def __init__(self, **kwargs):
            pass

        def close(self, timeout=None):
            closed.append(("cluster", timeout))

    class Client:
        def __init__(self, cluster):
            pass

        def scatter(self, job, broadcast):
            raise KeyboardInterrupt  # Ctrl-C as the job is shipped

        def close(self, timeout=None):
            closed.append(("client", timeout))

    monkeypatch.setattr(batch_run, "_dask", lambda: SimpleNamespace(LocalCluster=Cluster, Client=Client,
                                                                    KilledWorker=RuntimeError))
    job, chunks, _ = prepare(QUERY, tmp_path / "out")
    with pytest.raises(KeyboardInterrupt):
        batch_run._run_dask(job, chunks, 2, None, run_chunk, lambda rows: None)
    assert closed == [("client", batch_run.CLOSE_SECONDS), ("cluster", batch_run.CLOSE_SECONDS)]


def test_cli_help_shows_the_example(capsys):
    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    assert "eidomap batch maps/demo.geojson --species all --from all --out result" in capsys.readouterr().out


def test_parquet_rows_written_by_the_executor_are_in_chunk_order(reference):
    out, summary, _ = reference
    files = sorted(Path(out).glob("part-*.parquet"))
    assert len(files) == summary.chunks
    first = pq.read_table(files[0])
    assert first["actor"].cast("string")[0].as_py() == "human" and first["from"].cast("string")[0].as_py() == STARTS[0]


def test_a_batch_result_prints_in_a_few_lines_as_a_frame_does(reference, tmp_path):
    """Its query, its first rows under their columns and its size: not every cost and digest of the record."""
    out, summary, result = reference
    said = repr(result)
    lines = said.splitlines()
    assert len(said) < 2_000 and len(lines) == 9, said
    assert lines[0] == (f"BatchResult of {out} ({summary.chunks} of {summary.chunks} chunks): demo.geojson;"
                        f" {', '.join(ACTORS)}; from {', '.join(STARTS[:3])} and {len(STARTS) - 3} more to all;"
                        f" {QUERY.turns} turns, carry, the rules' dice")
    assert lines[1].split() == result.column_names
    for k, (line, row) in enumerate(zip(lines[2:7], result.table.slice(0, 5).to_pylist(), strict=True)):
        assert line.split()[:5] == [str(k), row["map"], row["actor"], row["from"], row["to"]]
    assert lines[7:] == ["...", f"[{summary.rows:,} rows x {len(result.column_names)} columns]"]
    partly = tmp_path / "partly"
    shutil.copytree(out, partly)
    next(partly.glob("part-000000.*")).unlink()
    assert ", not finished): " in repr(load_batch(partly, partial=True)).splitlines()[0]
    wide = analysis._preview(pa.table({f"p_{k}": [k / 3] for k in range(1, 31)}), more=False)
    assert wide[0].split() == [*(f"p_{k}" for k in range(1, 7)), "...", *(f"p_{k}" for k in range(25, 31))]
    assert wide[1].split() == ["0", "0.333333", *wide[1].split()[2:7], "...", *wide[1].split()[8:]]


def test_a_chunks_unreachable_pairs_have_a_null_cost_and_null_expected_turns():
    """Unreachable is no number: in the rows, its cost and expected turns are nulls (not inf, not NaN), and every
    reachable pair keeps its numbers; the probabilities are 0."""
    from eidomap.answers.batch.kernels import Block
    from eidomap.answers.batch.store import chunk_table

    block = Block(cost=np.array([[0.0, 7.5, np.inf]]), expected=np.array([[0.0, 2.0, np.inf]]),
                  p=np.array([[[1.0, 0.25, 0.0]], [[1.0, 1.0, 0.0]]]))
    table = chunk_table("m.geojson", "human", np.array(["a"]), np.array(["a", "b", "c"]), block, b"{}")
    assert table["reachable"].to_pylist() == [True, True, False]
    assert table["cost"].to_pylist() == [0.0, 7.5, None]
    assert table["expected_turns"].to_pylist() == [0.0, 2.0, None]
    assert table["p_2"].to_pylist() == [1.0, 1.0, 0.0] and table["to"].to_pylist() == ["a", "b", "c"]


@pytest.mark.parametrize("spoil", [
    lambda e: e.pop("sha256"), lambda e: e.update(file=3), lambda e: e.update(catalog="demo-catalog.toml"),
    lambda e: e.update(actors=["human", 2]), lambda e: e.update(actors="human")])
def test_a_record_whose_map_entry_lacks_a_field_or_has_one_of_another_type_is_no_record(reference, tmp_path, spoil):
    """Each map of a _batch.json names its file, SHA-256, catalog (a table) and actors (texts): a record where
    one is missing or of another type is refused as no record of a batch, whatever the others hold."""
    from eidomap.answers.batch import store

    out, _, _ = reference
    record = json.loads((out / store.RECORD).read_text())
    spoil(record["maps"][0])
    (tmp_path / store.RECORD).write_text(json.dumps(record))
    with pytest.raises(RequestError, match="is not the record of an eidomap batch"):
        store.read_record(tmp_path)


def test_a_batch_of_no_map_or_of_two_maps_of_one_file_name_is_refused_in_a_sentence(tmp_path):
    """The rows name each map by its file name: a query needs a map, and two of one name could not be told apart."""
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(DEMO, other)
    for maps, said in (((), "give at least one map"),
                       ((DEMO, str(other / Path(DEMO).name)),
                        "two maps have the same file name; the 'map' column could not tell them apart")):
        with pytest.raises(RequestError, match=rf"^{re.escape(said)}$"):
            run_batch(Query(maps, actors=("human",), starts=("porto-sur",)), tmp_path / "out", workers=1,
                      progress=False)


def test_local_workers_are_spawned_processes_never_forked(tmp_path, in_threads):
    """A local batch's workers start as fresh interpreters (``spawn``): a process forked from one whose threads hold
    locks (numba's, Dask's, a caller's) may wait on them for ever.  (The pool stood in by threads that record how
    it was asked to start its processes.)"""
    summary = run_batch(Query((DEMO,), actors=("human",), starts=("porto-sur",), turns=2), tmp_path / "out",
                        workers=2, progress=False)
    assert in_threads and set(in_threads) == {"spawn"} and summary.rows > 0
