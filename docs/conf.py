"""Sphinx configuration of eidomap's documentation site.

Build it (warnings are errors, every cross-reference checked)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

``EIDOMAP_DOCS_GALLERY=0`` builds the gallery pages without running their scripts (no pictures), for a
quick look at the text; the test suite's build (tests/test_docs.py) runs them and checks their pictures.
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))  # the command-line reference and the API pages

import api_pages  # noqa: E402  (after the path: docs/_ext is not installed)

import eidomap  # noqa: E402

project = "eidomap"
copyright = "eidomap's authors"
release = eidomap.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",  # Markdown pages (MyST) and the notebooks, shown with their committed outputs
    "sphinx_gallery.gen_gallery",
    "cli_reference",  # docs/_ext: the command-line reference, from eidomap.cli.build_parser()
    "numpydoc_once",  # docs/_ext: numpydoc's template compiled once a build, not once a docstring
]

# -- pages --------------------------------------------------------------------------------------------------
root_doc = "index"
# the generated folders (notebooks/, auto_examples/, api/generated/: Sphinx reads them) are in .gitignore;
# sphinx-gallery writes a notebook beside each example, which is a download, not a page
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.ipynb"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
# "--executor" stays two hyphens and 'quotes' stay straight: option names and shell lines are quoted as typed
smartquotes = False
myst_heading_anchors = 3  # the pages link to each other's sections (#hostile-inputs)
myst_enable_extensions = ["colon_fence"]

# The notebooks live in notebooks/ (run by the test suite and notebooks/run_all.py); Sphinx reads sources only
# under docs/, so each build copies them in. They are shown with the outputs they were committed with: never run.
NOTEBOOKS = DOCS / "notebooks"
shutil.rmtree(NOTEBOOKS, ignore_errors=True)
NOTEBOOKS.mkdir()
for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
    # a notebook's link to a guide page (../docs/d20.md) points at the page beside it on the site
    (NOTEBOOKS / nb.name).write_text(nb.read_text(encoding="utf-8").replace("](../docs/", "](../"), encoding="utf-8")
nb_execution_mode = "off"

# -- API reference ------------------------------------------------------------------------------------------
# a page per public module, listing its __all__ (docs/_ext/api_pages.py), and autosummary's page per name
api_pages.write_pages(DOCS / "api" / "generated")
autosummary_generate = True
templates_path = ["_templates"]  # a class page shows its members
autodoc_typehints = "none"  # the numpydoc sections say each type in words; signatures stay short
# eidomap writes annotations, never ``# type:`` comments: autodoc need not parse each function's source for them
# (~0.4 CPU-s a build; and with typehints "none" they would not be shown)
autodoc_use_type_comments = False
autodoc_member_order = "bysource"
numpydoc_show_class_members = False  # each class page lists its members itself (autosummary's class template)
numpydoc_class_members_toctree = False

# -- cross-references: nitpicky, and what cannot resolve offline --------------------------------------------
nitpicky = True
# No intersphinx: CI may build offline, and a failed inventory download is a warning, so an error under -W.
# The names of other libraries and of the standard library then have no target here; they are ignored by
# package, not one by one, so that a broken reference to eidomap's own names still fails the build.
nitpick_ignore_regex = [
    # the standard library and Python's types
    (r"py:.*", r"(builtins\.)?(int|float|str|bool|bytes|dict|list|tuple|set|frozenset|object|None|callable)"),
    (r"py:.*", r"(os|pathlib|collections\.abc|typing|enum|argparse|io|concurrent\.futures|dataclasses)\..*"),
    (r"py:.*", r"(Path|PathLike|Iterable|Iterator|Sequence|Mapping|Callable|Any|Self|StrEnum|Enum)"),
    # the libraries eidomap is built on
    (r"py:.*", r"(numpy|np|scipy|shapely|networkx|nx|matplotlib|pyarrow|pandas|geopandas|bokeh|dask)(\..*)?"),
    (r"py:.*", r"(anywidget|traitlets|ipywidgets)(\..*)?"),  # (eidomap.PlannerWidget's base and its errors)
    (r"py:.*", r"(ndarray|MultiDiGraph|Axes|Figure|GeoDataFrame|DataFrame|Polygon|Geometry)"),
    # eidomap's own inner modules, which the site does not document (how eidomap works inside: docs/design.md);
    # a docstring may point a reader of the code at them
    (r"py:.*", r"eidomap\.(search|cli|answers|base|record|model|rules|validate|pages|plot|io)"),
    (r"py:.*", r"eidomap\.(search|cli|rules\.d20|_[a-z]+)(\..*)?"),
    (r"py:.*", r"eidomap\.base\.(arrays|compiled|files|names|params|progress|settings)(\..*)?"),
    (r"py:.*", r"eidomap\.record\.(record|catalog|geometry|rings|grid)(\..*)?"),
    (r"py:.*", r"eidomap\.model\.(map|network|topology|cache|borders|generate|lookup)(\..*)?"),
    (r"py:.*", r"eidomap\.io\.(document|fast|tables|features|jsontext|arrays|builder|ragged|wkb|readers\.(ReadOptions"
               r"|read|read_document|source_bytes))(\..*)?"),
    (r"py:.*", r"eidomap\.(answers\.batch\.(job|run|store|kernels)|validate\.(formats|watch)|pages\.html"
               r"|plot\.(placement|parts))(\..*)?"),
    # numpydoc's words for a type ("array of int, shape (n,)", "optional", "default ...")
    (r"py:.*", r"(optional|default.*|array.*|shape.*|of|or|and|\.\.\.)"),
]

# -- gallery ------------------------------------------------------------------------------------------------
# docs/gallery/plot_*.py, run on the bundled maps and shown with their pictures and printed output
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "plot_gallery": os.environ.get("EIDOMAP_DOCS_GALLERY", "1") != "0",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "min_reported_time": 5,
}

# -- HTML ---------------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"eidomap {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list[str] = []


# -- links to the repository's files ------------------------------------------------------------------------
# The guide's pages link to files of the repository outside docs/ (../benchmarks/README.md, ../maps/demo.geojson),
# which work on GitHub. MyST makes a download of a file that is not a page, but takes every Markdown file for a
# page; ``path:`` makes those downloads too, so the link still leads to the file.
MARKDOWN_LINK = re.compile(r"\]\(([^():#\s]+\.md)\)")


def _link_outside_markdown(app, docname, source):
    here = (DOCS / docname).parent

    def link(m: re.Match) -> str:
        outside = not (here / m.group(1)).resolve().is_relative_to(DOCS)
        return f"](path:{m.group(1)})" if outside else m.group(0)

    source[0] = MARKDOWN_LINK.sub(link, source[0])


# -- the garbage collector ---------------------------------------------------------------------------------
# sphinx-gallery runs a full garbage collection before each script (to measure its memory, which this site does not
# show), through everything the build holds by then: ~0.18 CPU-s a script.  What exists as the gallery starts
# (Sphinx, the theme, numba's types, eidomap) outlives the scripts: frozen, those collections skip it; thawed as
# soon as the gallery is written.  And the build makes doctrees by the hundred thousand nodes, each a cycle with
# its parent: at Python's default thresholds a full collection came every ~10 younger ones, ~20 of them walking the
# whole environment (3.1 CPU-s of a ~20 s build); one in 100 costs ~6 % more peak memory.  Restored when the
# build ends (the process may build again: sphinx-autobuild).
_THRESHOLDS = gc.get_threshold()


def _freeze_for_the_gallery(app):
    gc.freeze()


def _thaw_after_the_gallery(app):
    gc.unfreeze()


def _fewer_full_collections(app):
    gc.set_threshold(_THRESHOLDS[0], _THRESHOLDS[1], 100)


def _usual_collections(app, exception):
    gc.set_threshold(*_THRESHOLDS)


def setup(app):
    app.connect("source-read", _link_outside_markdown)
    app.connect("builder-inited", _fewer_full_collections, priority=400)
    app.connect("build-finished", _usual_collections)
    app.connect("builder-inited", _freeze_for_the_gallery, priority=400)  # (sphinx-gallery's runs at 500)
    app.connect("builder-inited", _thaw_after_the_gallery, priority=600)
