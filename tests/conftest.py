"""Shared helpers: small hand-drawn maps written to a temporary folder."""

from __future__ import annotations

import gc
import json
import os
import shutil
import sys
from contextlib import contextmanager
from fnmatch import fnmatch
from pathlib import Path

import pytest
from hypothesis import settings

import eidomap
from eidomap.cli import main

#: Hypothesis profiles: on CI (``CI`` set) the examples are derandomized -- the same every run, so a red CI is
#: reproducible -- and as many as here (the suite has one time budget, 150 s on 2 cores, wherever it runs);
#: elsewhere they are random and a failure prints the blob that replays it.
#: ``EIDOMAP_HYPOTHESIS=mutation`` (set by ``python -m benchmarks.mutation``): the
#: same examples for every mutant and the clean run, no example database.
PROFILE = os.environ.get("EIDOMAP_HYPOTHESIS") or ("ci" if os.environ.get("CI") else "dev")
#: No profile has a deadline: an example that takes a few milliseconds alone takes a second on a loaded machine, and
#: hypothesis would call that a failure (every ``@settings`` here says ``deadline=None`` too).
settings.register_profile("dev", print_blob=True, deadline=None)
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("mutation", derandomize=True, database=None, deadline=None)
settings.load_profile(PROFILE)


if PROFILE == "mutation":
    def _forget_eidomap_caches() -> None:
        for name, module in list(sys.modules.items()):
            if name.startswith("eidomap"):
                for value in list(vars(module).values()):
                    getattr(value, "cache_clear", lambda: None)()

    def pytest_sessionstart(session) -> None:
        """mutmut runs each mutant in a fork of the process that ran the clean tests: what that run cached
        (eidomap's ``functools`` caches, the test modules' maps) would hand a mutant the clean code's answers.
        Forget it all, so that each mutant computes its own."""
        tests = str(Path(__file__).resolve().parent)
        _forget_eidomap_caches()
        for name, module in list(sys.modules.items()):
            if not name.startswith("eidomap") and name != "conftest" and str(
                    getattr(module, "__file__", "") or "").startswith(tests):
                del sys.modules[name]  # imported again at collection, with empty caches

    def pytest_collection_modifyitems(config, items) -> None:
        """The page tests drive Chromium (the ``browser`` fixture): a browser started for each mutant, and what
        they check beyond the Python that builds the page is the page scripts, mutated by StrykerJS instead."""
        pages = [item for item in items if "browser" in getattr(item, "fixturenames", ())]
        if pages:
            config.hook.pytest_deselected(items=pages)
            items[:] = [item for item in items if "browser" not in getattr(item, "fixturenames", ())]

    @pytest.fixture(autouse=True)
    def _fresh_eidomap_caches() -> None:
        """Each test fills eidomap's caches itself: mutmut's statistics tie a function to the tests that call
        it, and a function behind a cache (the d20 tables, the dice laws) is otherwise called by the first
        test only -- its mutants then run that one test, whatever the others check."""
        _forget_eidomap_caches()
else:
    def pytest_configure(config) -> None:
        """Compile eidomap's sources to byte code once, before the xdist workers start (and rewrite the test
        modules once: :func:`_rewrite_tests_ahead`).

        With ``PYTHONDONTWRITEBYTECODE`` set (as on CI) nothing is cached, and every process the suite starts
        -- each worker, notebook kernel, batch worker, Dask worker, command child -- compiled the modules it
        imports anew. The benchmark smoke run's children write this byte code anyway (benchmarks.harness.run_child:
        an installed package comes compiled), but only when that test's turn comes. Python checks each file
        against its source's time and size before using it; under the ``mutation`` profile mutmut rewrites the
        sources in place, so nothing is compiled ahead there.
        """
        if not hasattr(config, "workerinput"):  # (a worker: its controller did it)
            import compileall

            compileall.compile_dir(Path(eidomap.__file__).parent, quiet=2)
            if config.getoption("dist", "no") != "no":
                _rewrite_tests_ahead(config)

    def _rewrite_tests_ahead(config) -> None:
        """Rewrite the test modules' asserts once, before the xdist workers start, into pytest's own cache.

        Each worker collects the whole suite, and pytest rewrites every test module it imports (a quarter of a
        worker's collection, ~2.4 CPU-s) and caches the rewritten code only when byte code may be written:
        with ``PYTHONDONTWRITEBYTECODE`` set, both workers rewrote all of them, every run. Written here, a worker
        reads them (pytest reads its cache whatever that variable says; a cached module is checked against its
        source's hash). The functions are pytest's own, not an API: without them the workers rewrite, as before.
        """
        try:
            from _pytest.assertion.rewrite import (
                PYC_TAIL,
                _read_pyc,
                _rewrite_test,
                _write_pyc,
                assertstate_key,
                get_cache_dir,
                try_makedirs,
            )
        except ImportError:
            return
        state = config.stash.get(assertstate_key, None)
        if state is None:  # (--assert=plain: nothing is rewritten)
            return
        patterns = ["conftest.py", *config.getini("python_files")]
        todo = []
        for fn in sorted(Path(__file__).resolve().parent.rglob("*.py")):
            cache = get_cache_dir(fn)
            pyc = cache / (fn.name[:-3] + PYC_TAIL)
            if (any(fnmatch(fn.name, p) for p in patterns) and try_makedirs(cache)
                    and _read_pyc(fn, pyc) is None):
                todo.append((fn, pyc))
        # every other module in a forked copy of this process: the workers are not started yet, and the second
        # core would idle through these seconds (a pyc is written whole or not at all: pytest's own atomic write)
        child = os.fork() if len(todo) > 1 and hasattr(os, "fork") else -1
        try:
            for fn, pyc in todo if child < 0 else todo[child == 0::2]:
                source_hash, co = _rewrite_test(fn, config)
                _write_pyc(state, co, source_hash, pyc)
        finally:
            if child == 0:  # (what the copy did not write, a worker rewrites)
                os._exit(0)
        if child > 0:
            os.waitpid(child, 0)

    def pytest_collection_modifyitems(config, items) -> None:
        """The files of the long tests (:data:`LONG_FIRST`) run first, whole and in their order; the rest after.

        xdist's ``worksteal`` hands each worker a contiguous half of the collection and lets an idle worker take
        the back half of the other's queue, test by test: a long test (the site's build, the benchmark smoke
        run, a notebook kernel) met near the end kept one worker busy while the other's core idled, 5-10 s of a
        run. Run first, they are done while short tests are left to share. Whole files move, so a module's
        fixtures are still set up once, and the page tests stay on one worker (one Chromium).
        """
        rank = {name: i for i, name in enumerate(LONG_FIRST)}

        def first(item) -> int:
            path = item.nodeid.split("::", 1)[0]  # (relative to the rootdir, the checkout)
            return next((rank[p] for p in rank if path == p or path.startswith(p + "/")), len(rank))

        items.sort(key=first)  # (stable: the order within each group is pytest's)


def pytest_collectstart(collector) -> None:
    """What is built so far (modules imported, tests collected) is left out of the cyclic collector's full passes.

    Each full pass walks every object it tracks, and a worker holds the whole suite (every test module, numpy,
    pandas, Matplotlib, hypothesis, numba): 14 full passes took ~1.1 CPU-s of a whole collection. Frozen
    (``gc.freeze``), those objects are never walked again; nothing is lost but the cycles among them that
    become garbage later, and a collection makes none worth the walks.
    """
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem) -> None:
    """After a test file's last test (its module's fixtures torn down), its garbage is collected and what is left
    frozen (:func:`pytest_collectstart`): the full passes of the next file's tests then walk only what they made.
    The collector's time in the routing, overland, search and d20 tests, in one process: 4.1-4.8 -> ~2.2 s."""
    if nextitem is None or nextitem.path != item.path:
        gc.collect()
        gc.freeze()


def shared(scope: str):
    """A fixture's scope: ``scope`` (module, session), but each test's own under the ``mutation`` profile.

    mutmut ties a function to the tests that call it: a fixture shared by several tests is set up in the
    first one only, and the mutants of what it calls would run that test alone, whatever the others check
    (the caches' trouble again).
    """
    return (lambda fixture_name, config: "function") if PROFILE == "mutation" else scope


#: How many times its time on a quiet machine a wait may take before a test calls it hung: the suite runs on 2
#: cores beside other work (load average 14, a second copy of the suite), where a step can take ten times as long.
SLOWDOWN = 30
#: The shortest hang guard (seconds): a command that takes a second alone may wait minutes for a busy core.
MIN_GUARD = 600.0


def hang_guard(quiet_seconds: float) -> float:
    """The timeout (seconds) of a wait that takes ``quiet_seconds`` on a quiet machine: a guard against a hang.

    Never a time limit: far above the slowest run one can expect on a loaded machine
    (:data:`SLOWDOWN` times the quiet run, at least :data:`MIN_GUARD`), so that only a process,
    a page or a line that never comes fails the test.

    >>> hang_guard(1), hang_guard(90)
    (600.0, 2700.0)
    """
    return max(MIN_GUARD, float(SLOWDOWN * quiet_seconds))


ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "maps" / "demo.geojson"
#: The files and folders holding the suite's long tests (each several CPU-seconds, most in a child process or a
#: browser), longest first: run before the rest (:func:`pytest_collection_modifyitems`).
LONG_FIRST = ("tests/pages", "tests/test_docs.py", "tests/test_notebooks.py", "tests/test_benchmarks.py",
              "tests/test_install.py", "tests/test_examples.py", "tests/test_bad_inputs.py")
#: Debian's Chromium, which the page tests drive through playwright (no browser is downloaded).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"


def rewrite_cache(path: Path, **changes) -> None:
    """Rewrite a map's cache file with some header fields or arrays changed (to see it refused).

    A change may be a function of the old value.
    """
    from eidomap.io import arrays

    header, found = arrays.read(path, 1 << 30)
    found = {name: a.copy() for name, a in found.items()}  # (views of the file about to be written over)
    for name, value in changes.items():
        held = header if name in header else found
        held[name] = value(held[name]) if callable(value) else value
    with open(path, "wb") as fh:
        arrays.write(fh, header, found)


def square(x: float, y: float, size: float = 1.0) -> list:
    """Polygon coordinates of an axis-aligned square with lower-left corner (x, y)."""
    return [[[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]]]


def feature(kind: str, geometry_type: str, coords, fid=None, **props) -> dict:
    f = {"type": "Feature"}
    if fid is not None:
        f["id"] = fid
    f["properties"] = {"kind": kind, **props}
    f["geometry"] = {"type": geometry_type, "coordinates": coords}
    return f


def eido(fid: str, terrain: str, coords, **props) -> dict:
    return feature("eido", "Polygon", coords, fid, terrain=terrain, **props)


def road(fid: str, coords) -> dict:
    return feature("road", "LineString", coords, fid)


def pousa(road_id: str, xy, fid=None) -> dict:
    return feature("pousa", "Point", list(xy), fid, road=road_id)


def collection(features, **meta) -> dict:
    doc = {"type": "FeatureCollection", "features": list(features)}
    if meta:
        doc["eidomap"] = {"format": 1, **meta}
    return doc


def strip(terrains, y: float = 0.0, prefix: str = "e") -> list[dict]:
    """A row of unit squares ``e0, e1, ...`` with the given terrains."""
    return [eido(f"{prefix}{k}", t, square(k, y)) for k, t in enumerate(terrains)]


def road_round_a_forest() -> list[dict]:
    """e0 (meadow) borders e1 (scrub: 2 PtMv for a human); a road leaves e0 at Pousa p0, goes through p1 in the
    forest above both and comes down at p2 in e1: from e0 to e1, three 1-PtMv road steps, then off for free."""
    return [eido("e0", "meadow", square(0, 0)), eido("e1", "scrub", square(1, 0)),
            eido("x", "forest", [[[0, 1], [2, 1], [2, 2], [0, 2], [0, 1]]]),
            road("r", [[0.5, 0.5], [1.0, 1.5], [1.5, 0.5]]), pousa("r", (0.5, 0.5), "p0"),
            pousa("r", (1.0, 1.5), "p1"), pousa("r", (1.5, 0.5), "p2")]


def run(argv, capsys):
    """Run the command line on ``argv`` (paths and numbers as they are): its exit code, stdout and stderr."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


class MapFactory:
    """Write a document to a temporary file and load it."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.count = 0

    def path(self, doc: dict, name: str | None = None) -> Path:
        self.count += 1
        p = self.folder / (name or f"map{self.count}.geojson")
        p.write_text(json.dumps(doc))
        return p

    def __call__(self, features, catalog: str | None = None, **load_kw) -> eidomap.Map:
        meta = {}
        if catalog is not None:
            cat = self.folder / f"cat{self.count}.toml"
            cat.write_text(catalog)
            meta["catalog"] = cat.name
        return eidomap.load(self.path(collection(features, **meta)), **load_kw)


@pytest.fixture
def make_map(tmp_path) -> MapFactory:
    return MapFactory(tmp_path)


@pytest.fixture(scope=shared("session"))
def demo() -> eidomap.Map:
    if not DEMO.is_file():
        pytest.skip("the demo map is not drawn yet")
    return eidomap.load(DEMO)


#: The hang guard of every wait of a page test (milliseconds, as playwright counts): a page that opens in a second
#: alone, given as long as a command is (playwright's own default, 30 s, fails on a loaded machine).
PAGE_GUARD = 1000 * hang_guard(2)


def guarded(page_or_context):
    """A playwright page or browser context whose every wait (a navigation, a locator, a screenshot) is
    :data:`PAGE_GUARD`: a hang guard, not playwright's 30 s."""
    page_or_context.set_default_timeout(PAGE_GUARD)
    page_or_context.set_default_navigation_timeout(PAGE_GUARD)
    return page_or_context


#: The schemes a page test's page may ask for: its own file and what it makes itself (nothing from the network).
LOCAL = ("file:", "data:", "blob:", "about:")
#: The session's idle offline contexts (each with its page and the list of the lists recording its requests), by
#: their options (``has_touch``...).
_TABS: dict[tuple, list] = {}


def tab(browser, **options):
    """An idle offline context of ``options`` and its page, or new ones: the context, the page, the idle contexts to
    give them back to, and the list of the lists the context's route records its requests in (only local ones are
    served).  A new context and its renderer cost some 0.8 CPU-s of Chromium, a page going to another file 0.2."""
    idle = _TABS.setdefault((id(browser), *sorted(options.items())), [])
    if idle:
        context, page, holder = idle.pop()
        return context, page, idle, holder
    context = guarded(browser.new_context(offline=True, viewport={"width": 1200, "height": 800}, **options))
    holder: list[list[str]] = []

    def serve(r):
        for asked in holder:
            asked.append(r.request.url)
        return r.continue_() if r.request.url.startswith(LOCAL) else r.abort()

    context.route("**/*", serve)
    return context, guarded(context.new_page()), idle, holder


@contextmanager
def borrowed_page(browser, width: int, height: int):
    """The page of one of :func:`tab`'s offline contexts at a viewport of ``width`` x ``height``, and the list of
    the requests it makes; given back to the idle contexts after (the mouse off it), or closed if the test failed."""
    context, page, idle, holder = tab(browser)
    asked: list[str] = []
    holder.append(asked)
    if page.viewport_size != {"width": width, "height": height}:
        page.set_viewport_size({"width": width, "height": height})
    try:
        yield page, asked
    except BaseException:
        context.close()
        raise
    page.mouse.move(0, 0)
    holder.clear()
    idle.append((context, page, holder))


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every page test of the session (each test opens its own pages)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the page tests need playwright")
    if not Path(CHROMIUM).is_file():
        pytest.skip("no Chromium to run the pages in (apt-get install chromium; .ci/run installs it)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"],  # the system browser
                              timeout=PAGE_GUARD)
        yield b
        b.close()
