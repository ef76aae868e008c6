"""A helper process for the fast lane: batches of a big map worked on a second core.

Most of the fast lane's work on a batch of Eidos (decoding it, scanning its
coordinates, parsing its numbers) depends on nothing but the batch's text and
holds the GIL.  On a machine with two cores or more, a helper process
(``python -m eidomap.io.fast.geojson``, which :func:`serve` runs) takes batches from the back of the file
while the reader takes them from the front, so each batch is worked on once, by
whichever gets to it first; the reader still files every batch itself, in file
order.  They speak over pipes in frames of ``(batch, length)`` and bytes: the
reader sends a batch's text, the helper answers with what
:func:`eidomap.io.fast.geojson.worked` makes of it (msgpack: texts and arrays,
nothing executed or unpickled).  Should the helper not start, die or answer
anything unexpected, the reader works on its batches itself.  The helper runs
only when asked (``eidomap.load(..., helper=True)``; the command line asks
unless ``EIDOMAP_HELPER=0``).
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

try:
    import fcntl
except ImportError:  # (Windows has no fcntl: the pipes stay as they are)
    fcntl = None  # type: ignore[assignment]

#: A frame's head: the batch and the length of what follows.
_HEAD = struct.Struct("<qq")
#: Batches sent to the helper and not yet answered: one worked on, one waiting in the pipe.
IN_FLIGHT = 2
#: The longest frame either side accepts.
MAX_FRAME = 1 << 31
#: The capacity asked for each pipe (where the system lets a pipe be widened: Linux, up to
#: ``/proc/sys/fs/pipe-max-size``, 1 MiB by default).  The reader's threads that send a batch's text and read
#: the answer wait for the GIL after each write or read, and the reader's main thread, busy filing batches, gives
#: it up every 5 ms (Python's switch interval): through the default 64 KiB a batch's 5.6 MB went in about 90
#: writes, up to half a second, and the helper waited on its texts; through 1 MiB, in six.
PIPE_BYTES = 1 << 20


def available() -> bool:
    """Whether a helper may run: two cores or more, a Python to start."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores >= 2 and bool(sys.executable)


def _command() -> list[str]:
    return [sys.executable, "-m", "eidomap.io.fast.geojson"]


def _environment() -> dict[str, str]:
    """The reader's environment, with this eidomap first on the path: the helper runs the reader's code."""
    here = str(Path(__file__).resolve().parents[2])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)}


def _widen(*pipes) -> None:
    """Ask for :data:`PIPE_BYTES` of capacity in each pipe; where it cannot be had, the pipe stays as it is."""
    if not hasattr(fcntl, "F_SETPIPE_SZ"):
        return
    for pipe in pipes:
        try:
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:  # a system limit below PIPE_BYTES
            pass


class Pair:
    """Batches ``0 .. n-1`` shared between the reader (from the front) and a helper (from the back).

    ``Pair(start)`` starts the helper (if ``start`` and :func:`available`), so
    that it gets ready while the reader finds the batches; :meth:`share` hands
    it their number and ``text_of(k)``, batch ``k``'s text; :meth:`take`
    tells the reader, batch by batch in order, to work on it (None) or gives
    what the helper made of it.  Use as a context manager: leaving it stops
    the helper.
    """

    def __init__(self, start: bool = True):
        self.cond = threading.Condition()
        self.front = self.back = 0  # the reader's batches are below front, the helper's from back
        self.answers: dict[int, bytes] = {}
        self.sent: set[int] = set()  # not yet answered
        self.failed = False
        self.threads: list[threading.Thread] = []
        self.proc = None
        if start and available():
            try:
                self.proc = subprocess.Popen(_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.DEVNULL, env=_environment())
            except OSError:
                pass
            if self.proc is not None:
                _widen(self.proc.stdin, self.proc.stdout)

    def share(self, n: int, text_of: Callable[[int], bytes | bytearray]) -> None:
        """Share batches ``0 .. n-1`` with the helper, if it started."""
        self.back = n
        if self.proc is None:
            return
        self.text_of = text_of
        for work in (self._send, self._receive):
            t = threading.Thread(target=work, daemon=True)
            t.start()
            self.threads.append(t)

    def __enter__(self) -> Pair:
        return self

    def __exit__(self, *exc) -> None:
        self._fail()  # nothing more to send
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            for t in self.threads:
                t.join()
            for stream in filter(None, (self.proc.stdin, self.proc.stdout)):
                try:
                    stream.close()
                except OSError:
                    pass

    def take(self, k: int) -> bytes | None:
        """Batch ``k``: None for the reader to work on, else the helper's answer (waited for)."""
        with self.cond:
            if k < self.back:
                self.front = k + 1
                return None
            while k not in self.answers and not self.failed:
                self.cond.wait()
            return self.answers.pop(k, None)

    def _fail(self) -> None:
        with self.cond:
            self.failed = True
            self.cond.notify_all()

    def _send(self) -> None:
        assert self.proc is not None and self.proc.stdin is not None  # (started by share, with a helper and its pipes)
        try:
            while True:
                with self.cond:
                    while len(self.sent) >= IN_FLIGHT and not self.failed:
                        self.cond.wait()
                    if self.failed or self.back - 1 < self.front:
                        break
                    self.back -= 1
                    k = self.back
                    self.sent.add(k)
                text = self.text_of(k)
                self.proc.stdin.write(_HEAD.pack(k, len(text)))
                self.proc.stdin.write(text)
                self.proc.stdin.flush()
        except (OSError, ValueError):
            self._fail()
        finally:
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    def _receive(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None  # (started by share, with a helper and its pipes)
        try:
            while True:
                k, body = _read_frame(self.proc.stdout)
                with self.cond:
                    if k not in self.sent:
                        raise ValueError(f"an answer for batch {k}, not asked for")
                    self.sent.remove(k)
                    self.answers[k] = body
                    self.cond.notify_all()
        except (OSError, ValueError, EOFError):
            self._fail()


def _read_frame(stream) -> tuple[int, bytes]:
    head = stream.read(_HEAD.size)
    if len(head) < _HEAD.size:
        raise EOFError
    k, n = _HEAD.unpack(head)
    if not 0 <= n <= MAX_FRAME:
        raise ValueError(f"a frame of {n} bytes")
    body = stream.read(n)
    if len(body) < n:
        raise EOFError
    return k, body


def serve(work: Callable[[bytes], bytes]) -> None:
    """The helper: each batch's text in, ``work`` of it out (:func:`~eidomap.io.fast.geojson.worked`), until the input
    ends."""
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    try:
        while True:
            k, text = _read_frame(inp)
            answer = work(text)
            out.write(_HEAD.pack(k, len(answer)))
            out.write(answer)
            out.flush()
    except (EOFError, BrokenPipeError, ValueError):
        pass
