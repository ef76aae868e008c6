"""The progress bar of the long commands: tqdm on stderr when it is a terminal, nothing otherwise.

tqdm is a dependency of eidomap; it is imported only when a bar is shown.
A bar appears after :data:`DELAY` seconds, so a quick run prints nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

#: Seconds a job runs before its bar appears.
DELAY = 2.0


class _Silent:
    """The bar when none is shown: every call does nothing."""

    def update(self, n: int = 1) -> None:
        pass

    def set_description_str(self, desc: str) -> None:
        pass

    def set_postfix_str(self, s: str, refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass


def bar(total: int, *, unit: str, desc: str | None = None, show: bool | None = None, initial: int = 0,
        delay: float | None = None) -> Any:
    """A progress bar of ``total`` ``unit``\\ s on stderr.

    ``show``: True or False forces it; None (the default) shows it when stderr
    is a terminal.  ``delay``: seconds before it appears (default
    :data:`DELAY`).  Returns a ``tqdm`` (``update``, ``set_description_str``,
    ``set_postfix_str``, ``close``) or an object with the same calls doing
    nothing.
    """
    if not (sys.stderr.isatty() if show is None else show):
        return _Silent()
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit=unit, desc=desc, file=sys.stderr, dynamic_ncols=True,
                smoothing=0.1, delay=DELAY if delay is None else delay)


@contextmanager
def steps(names: Sequence[str], show: bool | None = None) -> Iterator[Callable[[str], None]]:
    """A bar over a job's named steps; call what it yields with each next step's name as it starts.

    >>> with steps(("reading", "checking"), show=False) as step:
    ...     step("checking")
    """
    b = bar(len(names), unit="step", desc=names[0], show=show)
    try:
        def step(name: str) -> None:
            b.update(1)
            b.set_description_str(name)

        yield step
        b.update(1)
    finally:
        b.close()
