"""numpydoc's docstring template, compiled once per build instead of once per docstring.

numpydoc (1.11) makes a new Jinja environment for every docstring it formats and loads its
``numpydoc_docstring.rst`` template into it: Jinja parses and compiles the template anew each time (788 times in
this site's build, about a tenth of the build's CPU). The template and its loader (the builder's template path,
then numpydoc's own folder) are the same for every docstring of a build, so the environment numpydoc makes keeps
the first compiled template of each name and hands it back; the text each docstring becomes is unchanged.
"""

from __future__ import annotations

from typing import ClassVar

from jinja2.sandbox import SandboxedEnvironment
from numpydoc import docscrape_sphinx


class _TemplatesOnce(SandboxedEnvironment):
    """numpydoc's environment, whose templates are compiled by the first of them and shared by the rest."""

    compiled: ClassVar[dict] = {}

    def get_template(self, name, parent=None, globals=None):
        key = (name, parent)
        if globals or key not in self.compiled:  # (numpydoc passes neither parent nor globals)
            template = super().get_template(name, parent, globals)
            if globals:
                return template
            self.compiled[key] = template
        return self.compiled[key]


def _forget(app, *_) -> None:
    _TemplatesOnce.compiled.clear()  # a build's templates (its templates_path) are not the next one's


def setup(app):
    docscrape_sphinx.SandboxedEnvironment = _TemplatesOnce
    app.connect("builder-inited", _forget)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
