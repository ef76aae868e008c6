"""Running a batch: the chunks still to do, on a local process pool or on Dask, with a progress bar.

Both executors run the same function on the same chunks; the worker writes
each chunk's file itself, so only a row count comes back (on a cluster the
output folder must be on storage every worker sees).  The :class:`Job` --
the compiled networks and cost tables -- reaches each worker once: as the
process pool's initializer argument, or scattered to every Dask worker.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import signal
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import CancelledError, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from eidomap.answers.batch import store
from eidomap.answers.batch.job import Chunk, Job, Query, prepare, run_chunk
from eidomap.base import params, progress
from eidomap.base.errors import EidomapError, RequestError
from eidomap.base.modes import Executor
from eidomap.base.names import shown

if TYPE_CHECKING:
    import distributed

#: Where a batch may run (:class:`~eidomap.base.modes.Executor`'s values).
EXECUTORS = tuple(Executor)
#: How many times the local pool is started again after a worker died.
RESTARTS = 3
DASK_HINT = 'executor=\'dask\' needs Dask: pip install "eidomap[dask]"'

Work = Callable[[Job, Chunk], int]


class BatchError(EidomapError):
    """The batch could not finish (workers kept dying); what is done is kept for the next run."""


@dataclass
class Summary:
    """What a run did: chunks computed now and found done before, rows, seconds.

    Attributes
    ----------
    out : str
        The result folder.
    chunks : int
        The batch's chunks.
    done_before : int
        The chunks found finished (a resumed run).
    computed : int
        The chunks computed now.
    rows : int
        The batch's rows.
    rows_now : int
        The rows computed now.
    seconds : float
        The run's time.
    """

    out: str
    chunks: int
    done_before: int
    computed: int
    rows: int
    rows_now: int
    seconds: float

    @property
    def rows_per_second(self) -> float:
        """The rows computed now per second of the run."""
        return self.rows_now / self.seconds if self.seconds > 0 else 0.0


class _Progress:
    """Chunks done, rows per second and time left (tqdm) on a terminal; nothing otherwise."""

    def __init__(self, total: int, initial: int, show: bool | None):
        self.rows = 0
        self.t0 = time.perf_counter()
        self.bar = progress.bar(total, initial=initial, unit="chunk", show=show, delay=0)

    def update(self, rows: int) -> None:
        self.rows += rows
        rate = self.rows / max(time.perf_counter() - self.t0, 1e-9)
        self.bar.set_postfix_str(f"{rate:,.0f} rows/s", refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


@dataclass(frozen=True)
class Estimate:
    """A batch's size and time, from its first chunk (computed alone, here): what ``run_batch(confirm=...)`` is
    shown.

    Attributes
    ----------
    rows, chunks : int
        The whole batch's rows and chunks.
    left : int
        The rows still to compute after the first chunk.
    first_rows : int
        The first chunk's rows.
    first_bytes : int
        Its size on disk.
    first_seconds : float
        The time it took.
    workers : int
        The workers the rest will run on.
    """

    rows: int
    chunks: int
    left: int
    first_rows: int
    first_bytes: int
    first_seconds: float
    workers: int

    @property
    def bytes(self) -> float:
        """The whole output's size on disk, at the first chunk's bytes per row."""
        return self.first_bytes / max(self.first_rows, 1) * self.rows

    @property
    def seconds(self) -> float:
        """The time still to spend, at the first chunk's rows per second on each worker (start-up aside)."""
        return self.first_seconds / max(self.first_rows, 1) * self.left / self.workers


class Declined(EidomapError):
    """The batch was not confirmed after its first chunk: nothing of it is kept in a folder it created."""


def run_batch(query: Query, out: str | os.PathLike, *, executor: Executor | str = Executor.LOCAL,
              workers: int | None = None, scheduler: str | distributed.Client | None = None,
              progress: bool | None = None, cache: bool = False, work: Work = run_chunk,
              confirm: Callable[[Estimate], bool] | None = None) -> Summary:
    """Compute ``query`` into the folder ``out``, skipping the chunks already there.

    Run the same call again after an interruption: finished chunks are skipped, half-written ones redone, and
    the result is that of an uninterrupted run.  A different query into the same folder is refused.

    Parameters
    ----------
    query : Query
        The maps, actors, starts, targets and horizon.
    out : str or Path
        The result folder (created; resumed if it holds this batch).
    executor : {"local", "dask", "serial"}
        A process pool of ``workers`` processes, ``dask.distributed``, or this process, one chunk after another
        (no process started: for a small batch, which a pool's start-up would outlast, or a debugger).
    workers : int, optional
        Processes (local, or the ``LocalCluster`` started); default one per core.  Not used by ``"serial"``.
    scheduler : str or distributed.Client, optional
        With Dask: the cluster to join (default: start a ``LocalCluster``).
    progress : bool or None
        A progress bar on stderr (None: when it is a terminal).
    cache : bool
        Keep each map's compiled graph in a cache file beside it.
    work : callable
        What a worker does with a chunk (default: compute and write it).
    confirm : callable, optional
        Shown the :class:`Estimate` after the first chunk, computed here; unless it returns True (or if it
        raises), the batch stops with :class:`Declined`, and a folder this call created is removed.

    Returns
    -------
    Summary
        What the run did.

    Raises
    ------
    RequestError
        For a query that cannot be run (no map, unknown species or places, turns out of range), ``workers``
        that is not a whole number >= 1, or a folder holding another query.
    BatchError
        When workers kept dying (what is done is kept: run it again).
    Declined
        When ``confirm`` did not return True.

    See Also
    --------
    eidomap.answers.analysis.load_batch : Read the result.
    eidomap.answers.analysis.expected_turns_matrix : Expected turns between a few places, in memory.

    Examples
    --------
    >>> import tempfile, eidomap
    >>> from pathlib import Path
    >>> out = Path(tempfile.mkdtemp()) / "result"
    >>> query = Query(maps=(str(eidomap.demo_map_path()),), actors=("human", "cow"), starts=("porto-sur",),
    ...               targets=("chousa", "porto-norte"))
    >>> run_batch(query, out, workers=1, progress=False).rows
    4
    >>> run_batch(query, out, workers=1, progress=False).computed  # run again: nothing left to do
    0
    """
    executor = Executor.checked(executor, "executor")
    workers, out = params.maybe(params.whole, workers, "workers", 1), params.path(out, "out")
    show, cache = params.maybe(params.flag, progress, "progress"), params.flag(cache, "cache")
    if scheduler is not None and not isinstance(scheduler, str) and not hasattr(scheduler, "submit"):
        raise params.refused("scheduler", "a scheduler's address (str) or a distributed.Client", scheduler)
    if not callable(work):
        raise params.refused("work", "a function (job, chunk) -> rows written", work)
    if confirm is not None and not callable(confirm):
        raise params.refused("confirm", "a function (Estimate) -> bool", confirm)
    if executor is Executor.DASK:
        _dask()  # say how to install it before any work
        if scheduler is None:
            start_fork_server()
    t0 = time.perf_counter()
    job, chunks, record = prepare(query, out, cache)
    workers = 1 if executor is Executor.SERIAL else workers or os.cpu_count() or 1
    new = not Path(out).exists()
    discard = False
    try:
        with store.open_folder(out, record) as folder:
            done = store.finished(folder, job.format, {c.index: job.identity(c) for c in chunks}, query.turns)
            todo = [c for c in chunks if c.index not in done]
            first = None
            if todo and confirm is not None:
                discard = new
                first = _estimate(job, todo, folder, workers, record, work)
                if confirm(first) is not True:
                    raise Declined(f"{shown(out)}: not started (nothing written)" if new
                                   else f"{shown(out)}: stopped after one more chunk (kept)")
                discard = False
            bar = _Progress(len(chunks), len(done) + (first is not None), show)
            try:
                rest = todo[1:] if first is not None else todo
                if rest:
                    runner = _RUNNERS[executor]
                    runner(job, rest, workers, scheduler, work, bar.update)
            finally:
                bar.close()
    except BaseException:
        if discard:  # (the lock released: the folder is ours alone)
            shutil.rmtree(out, ignore_errors=True)
        raise
    rows = sum(c.rows for c in chunks)
    return Summary(str(out), len(chunks), len(done), len(todo), rows, sum(c.rows for c in todo),
                   time.perf_counter() - t0)


def _estimate(job: Job, todo: list[Chunk], folder: Path, workers: int, record: dict, work: Work) -> Estimate:
    """Compute the first chunk of ``todo`` here, timed; the batch's :class:`Estimate` from it."""
    first = todo[0]
    t = time.perf_counter()
    rows = work(job, first)
    seconds = time.perf_counter() - t
    path = folder / store.chunk_name(first.index, job.format)
    size = sum(p.stat().st_size for p in (path, store.proof_path(path)) if p.is_file())
    left = sum(c.rows for c in todo[1:])
    return Estimate(record["rows"], record["chunks"], left, rows, size, seconds, min(workers, max(len(todo) - 1, 1)))


# -- serial: this process ----------------------------------------------------------------
def _run_serial(job: Job, todo: list[Chunk], _workers, _scheduler, work: Work, done: Callable) -> None:
    """Each chunk computed here, in order, as a pool's worker computes it."""
    for chunk in todo:
        done(work(job, chunk))


# -- local: a process pool ---------------------------------------------------------------
_JOB: Job | None = None


def _init(job: Job) -> None:
    global _JOB
    _JOB = job


def _local_task(work: Work, chunk: Chunk) -> int:
    assert _JOB is not None  # (set by the pool's initializer)
    return work(_JOB, chunk)


def _run_local(job: Job, todo: list[Chunk], workers: int, _scheduler, work: Work, done: Callable) -> None:
    """A pool of ``spawn``\\ ed processes; if one dies, the pool is started again on what is left."""
    ctx = multiprocessing.get_context("spawn")

    def one_round(todo: list[Chunk]) -> list[Chunk]:
        pool = ProcessPoolExecutor(min(workers, len(todo)), mp_context=ctx, initializer=_init, initargs=(job,))
        futures = {pool.submit(_local_task, work, c): c for c in todo}
        left: list[Chunk] = []
        try:
            _collect(futures, as_completed(futures), (BrokenProcessPool,), done, left)
        finally:
            pool.shutdown(wait=not left, cancel_futures=True)
        return left

    _in_rounds(todo, one_round)


def _collect(futures: dict, finished, lost: tuple[type[BaseException], ...], done: Callable, left: list) -> None:
    """Each finished future's rows to ``done``; the chunk of each one ``lost`` (its worker died) to ``left``."""
    for f in finished:
        try:
            rows = f.result()
        except lost:
            left.append(futures[f])
            continue
        done(rows)


def _in_rounds(todo: list[Chunk], one_round: Callable[[list[Chunk]], list[Chunk]]) -> None:
    """``one_round`` on the chunks, then again on those its dead workers left, up to :data:`RESTARTS` times more."""
    for _ in range(RESTARTS + 1):
        left = one_round(todo)
        if not left:
            return
        todo = sorted(left, key=lambda c: c.index)
    raise BatchError(f"workers died {RESTARTS + 1} times; {len(todo)} chunks are left: run the same command again"
                     " to resume")


# -- Dask -----------------------------------------------------------------------------
def _dask():
    try:
        import distributed
    except ImportError:
        raise RequestError(DASK_HINT) from None
    return distributed


def dask_setup(worker) -> None:
    """Dask's preload hook, run in each worker of the ``LocalCluster`` eidomap starts: the worker ignores SIGINT.

    Ctrl-C at a terminal goes to the whole process group: each worker took it
    and printed asyncio tracebacks (65-95 lines) while eidomap was closing
    them anyway.  (It runs on the worker's event loop, in its main thread.)
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def start_fork_server() -> None:
    """Start :mod:`multiprocessing`'s fork server, unless it runs already, ignoring SIGINT.

    The workers of eidomap's own cluster are forked by it, and a fork server
    gives what it forks the handlers it started with: born ignoring SIGINT,
    they print nothing when Ctrl-C reaches the whole process group at a
    terminal, and eidomap alone handles it.  For the few milliseconds of that
    start (measured: 10), SIGINT is ignored here too -- a Ctrl-C then is lost,
    the next one is not; so it is called as a batch starts, not when the user
    waits for the cluster.  A fork server already running is used as it is
    (its workers ignore SIGINT once up: :func:`dask_setup`).
    """
    from multiprocessing import forkserver

    if threading.current_thread() is not threading.main_thread():  # (only the main thread sets handlers)
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, old)


@contextmanager
def _interrupt_deferred():
    """A Ctrl-C while the cluster starts is raised when this block ends -- the cluster made, and closed by the caller
    -- not in the middle of its start, which left a half-made cluster to an exit hook that printed a traceback."""
    import dask

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = []

    def hold(*_) -> None:
        pressed.append(True)

    old = signal.signal(signal.SIGINT, hold)
    try:
        with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
            yield
    except BaseException:
        if pressed:  # (a failure of the start that the Ctrl-C caused)
            raise KeyboardInterrupt from None
        raise
    finally:
        signal.signal(signal.SIGINT, old)
    if pressed:
        raise KeyboardInterrupt


#: Seconds the cluster eidomap started is given to close, after which its workers are killed.
CLOSE_SECONDS = 3


def _run_dask(job: Job, todo: list[Chunk], workers: int, scheduler, work: Work, done: Callable) -> None:
    """The chunks as tasks on a Dask cluster, the job scattered to every worker; what dead workers lose goes round
    again.

    A ``LocalCluster`` of eidomap's own logs only what is critical (eidomap
    handles workers that die and says what is left), its workers ignore
    SIGINT (forked by :func:`start_fork_server`'s server; :func:`dask_setup`
    for those started again after a death), and it is closed within
    :data:`CLOSE_SECONDS` when the run ends or is interrupted.
    """
    distributed = _dask()
    own = cluster = None
    try:
        if isinstance(scheduler, distributed.Client):
            client = scheduler
        elif scheduler:
            client = own = distributed.Client(scheduler)
        else:
            with _interrupt_deferred():
                # no dashboard: nobody is told its address, and it took 0.3-0.6 s of a 2-3 s start here; the
                # scheduler's HTTP server (health, metrics) on a free port of this machine's loopback, not on Dask's
                # 8787, where another cluster running made it warn on stderr
                cluster = distributed.LocalCluster(n_workers=min(workers, len(todo)), threads_per_worker=1,
                                                   processes=True, dashboard_address=None, preload=[__name__],
                                                   silence_logs=logging.CRITICAL,
                                                   scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
                client = own = distributed.Client(cluster)
        # a worker's death can lose tasks for good (a lost copy of the job, too many deaths): they go round again
        lost = (CancelledError, distributed.KilledWorker)

        def one_round(todo: list[Chunk]) -> list[Chunk]:
            shared = client.scatter(job, broadcast=True)
            run = uuid.uuid4().hex[:8]
            futures = {client.submit(work, shared, c, key=f"eidomap-batch-{run}-{c.index}", retries=2): c
                       for c in todo}
            left: list[Chunk] = []
            _collect(futures, distributed.as_completed(futures), lost, done, left)
            return left

        _in_rounds(todo, one_round)
    finally:
        # a close that cuts comms in flight: the scheduler's 'Closed comm ... lost dependencies' (critical) and
        # asyncio's 'Task exception was never retrieved', with their tracebacks
        with _quiet("distributed", "asyncio"):
            if own is not None:
                own.close(timeout=CLOSE_SECONDS)
            if cluster is not None:
                cluster.close(timeout=CLOSE_SECONDS)


#: What runs the chunks left, by executor: (job, chunks, workers, scheduler, work, done) -> None.
_RUNNERS = {Executor.LOCAL: _run_local, Executor.DASK: _run_dask, Executor.SERIAL: _run_serial}


@contextmanager
def _quiet(*names: str):
    """The loggers ``names`` (and those under them, through their handlers) say nothing in this block."""
    loggers = [logging.getLogger(n) for n in names]
    handlers = [(h, h.level) for lg in loggers for h in lg.handlers]
    was = [lg.disabled for lg in loggers]
    for lg in loggers:
        lg.disabled = True
    for h, _ in handlers:
        h.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, w in zip(loggers, was, strict=True):
            lg.disabled = w
        for h, level in handlers:
            h.setLevel(level)
