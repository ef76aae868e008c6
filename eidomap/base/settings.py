"""Which twin of a search runs: the plain-Python function or its numba-compiled copy.

Each search of this package is written once, as plain Python over arrays;
:mod:`eidomap.base.compiled` compiles the same source with numba.  Importing
it imports numba and loads the machine code from numba's cache (about half a
second; a few seconds when it must compile), so the Python twin answers
sooner on a small input and the compiled one on a large input: past
:data:`COMPILE_ABOVE` steps the compiled twin runs, unless the caller chose.

The other thresholds of the package's tuning live here too, one place to
read and to change them: each decides, by the size of the input, which of two
ways that give the same answer runs -- SciPy or the compiled Dial search, numpy
or compiled loops, GEOS or a compiled ring check, one process or a helper, a
scan of the ids or an index.  The modules read them when they run
(``settings.DIAL_ABOVE``), so setting one (a benchmark, a test) moves the
switch everywhere at once.  The bounds that refuse an input (``MAX_...``) are
not tuning: they stay beside their rule.

>>> from eidomap.search.turns import earliest_labels
>>> twin(earliest_labels, 100) is earliest_labels
True
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast

#: Steps a search may try (the edges of a network; eight a square of a battle grid) past which its compiled
#: twin runs by default.
COMPILE_ABOVE = 20_000

#: Edges past which :func:`eidomap.search.weighted.dijkstra` runs the compiled Dial search by default (the
#: searches of one call together).  Below, a search is a few milliseconds to a tenth of a second either way, and
#: importing numba (about half a second from its cache) would cost more than the search saves: SciPy answers.
DIAL_ABOVE = 4_000_000

#: Edges (the searches of one call together) up to which :func:`eidomap.search.weighted.dijkstra` searches in Python
#: (Dial's buckets, about a microsecond an edge) while SciPy's csgraph is not imported (:func:`scipy_graphs_loaded`):
#: its import takes about 0.15 s, half of what ``eidomap route`` on a small map takes in all.
PYTHON_DIAL_UP_TO = 5_000

#: Coordinates (or segments) past which the compiled loops of :mod:`eidomap.model.borders` find the segments and
#: their exact pairs (:mod:`eidomap.model.topology`): below, numpy's passes take less time than importing numba
#: (about 0.35 s) saves.
LOOPS_ABOVE = 1_500_000

#: Land cells times roads past which the roads' breadth-first searches of :mod:`eidomap.model.generate` run
#: compiled by numba (about 1M Eidos: 600,000 land cells, 500 roads, 3e8).  Below (200,000 Eidos: 1.3e7), SciPy's
#: breadth-first order is about as fast overall -- numba's import takes the half second its searches would save
#: -- and numba's import and compiled code, 114 MiB, would be a third of a 200,000-Eido map's memory.
COMPILE_ROADS_ABOVE = 50_000_000

#: Fewest land cells of a board whose road searches the map generator (:mod:`eidomap.model.generate`) runs in
#: threads: below it they run one after another, and starting the threads cost more than they saved (270 maps of
#: 4-12 Eidos: 1.07-1.31 -> 0.85-1.10 CPU-s; 5,000 Eidos: no sooner).
SEARCH_THREADS_FROM = 5_000

#: Fewest Eidos of a map whose road crossings :func:`eidomap.model.network.build_network` works out on a thread
#: beside the rest: below it starting the thread cost more than it saved (maps of 30 to 1,000 Eidos: 3.3-5.7 ->
#: 2.2-5.5 CPU-ms a network, and no sooner).
CROSSINGS_THREAD_FROM = 5_000

#: One-ring polygons past which the map builder (:mod:`eidomap.io.builder`) tells their rings simple without GEOS
#: (:func:`eidomap.record.rings.surely_simple`, compiled: about 0.1 µs a ring against GEOS's 0.8), when compiled
#: code already runs in the process (:func:`loaded`: the table reads' WKB walk, a search): loading numba for it
#: alone would take half a second, GEOS's time for about a million polygons on two cores, and in the middle of a
#: big read its 120 MiB would add to the read's peak.
SURE_ABOVE = 10_000

#: Bytes of WKB polygons past which a table map's rows are walked by the compiled twins of :mod:`eidomap.io.wkb`
#: (:meth:`eidomap.io.ragged.Shapes.from_wkb`).  Below, the plain walk (about 0.13 µs a byte: 0.12 s for 1,000
#: polygons of 50 vertices) ends before numba's import and the walk's load would (0.4-0.6 s; 0.1-0.3 s where numba
#: already runs): the demo as a GeoPackage read in 1 ms instead of 0.6 s.
WKB_ABOVE = 1 << 20

#: Maps this large (bytes) or larger are read by the fast GeoJSON lane with a helper process
#: (:mod:`eidomap.io.fast.helper`), when asked and where one may run: below, starting the process costs more than
#: the second core saves.
HELPER_BYTES = 64 << 20

#: Maps this large (bytes) or larger have their Eidos' coordinates read by the compiled pass
#: (:mod:`eidomap.io.fast.coordtext`), by the fast lane's reader as by a helper process.  Numba's import and load
#: cost the reader about half a second, and the pass saves about 20 ms a batch (16,384 Eidos, some 5.6 MiB of
#: map): it pays from about 25 batches -- the more so as a big map's adjacency loads numba next anyway
#: (:mod:`eidomap.model.borders`).  A helper process reads them so on any map (it loads numba on a thread while
#: the reader finds the features).
COMPILED_BYTES = 192 << 20

#: Id look-ups :meth:`eidomap.Map.find` answers by scanning the ids (:mod:`eidomap.model.lookup`) before it
#: indexes every id: a cold route asks for two, and a scan (one pass in C) costs far less than an index of a
#: million ids; a map asked for more pays for the index once.
SCANS = 8

F = TypeVar("F", bound=Callable[..., Any])


def twin(fn: F, steps: int, compiled: bool | None = None) -> F:
    """``fn``, or its compiled twin (:func:`eidomap.base.compiled.compiled`).

    ``compiled`` True or False chooses; None takes the compiled twin when the
    search may try more than :data:`COMPILE_ABOVE` steps.
    """
    if not (steps > COMPILE_ABOVE if compiled is None else compiled):
        return fn
    from eidomap.base.compiled import compiled as _compile

    return cast(F, _compile(fn))


def scipy_graphs_loaded() -> bool:
    """Whether SciPy's csgraph is imported in this process: until it is, a search of a small network
    (:data:`PYTHON_DIAL_UP_TO`) and the tie rule's levels (:func:`eidomap.search.ties.tight_levels`) do without it."""
    return sys.modules.get("scipy.sparse.csgraph") is not None


def loaded() -> bool:
    """Whether compiled twins already run in this process: numba is imported and its cache open, so one more
    loads in milliseconds instead of half a second."""
    return "eidomap.base.compiled" in sys.modules
