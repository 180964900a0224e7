"""Sphinx extension: numbered references resolved with one read of each page they point to.

Sphinx 7.4 resolves every ``{numref}`` by loading the whole doctree of the page it points
to (``env.get_doctree``: unpickling the page, a chapter with all its outputs) to find the
target's kind (figure, table, equation) and its number: a chapter loaded again for each
reference to it.  Here, while the pages are written, each page's doctree is loaded once
for resolving them and kept, read only (the resolution looks a node up by its id and
reads its kind); every other use of ``get_doctree`` is Sphinx's own.  The cache is emptied
before each reading of the sources and when the build ends.
"""

from __future__ import annotations

from typing import Any

from sphinx.domains.std import StandardDomain

__all__ = ["NumberedReferences", "setup"]


class _Pages:
    """The build environment as a numbered reference's resolution sees it:
    ``get_doctree`` answered from ``doctrees``, everything else the environment's own."""

    def __init__(self, env: Any, doctrees: dict[str, Any]) -> None:
        self._env, self._doctrees = env, doctrees

    def get_doctree(self, docname: str) -> Any:
        if docname not in self._doctrees:
            self._doctrees[docname] = self._env.get_doctree(docname)
        return self._doctrees[docname]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)


#: Each page's doctree as loaded for resolving numbered references, by page.
_DOCTREES: dict[str, Any] = {}


class NumberedReferences(StandardDomain):
    """Sphinx's standard domain, resolving numbered references from :data:`_DOCTREES`."""

    def _resolve_numref_xref(self, env, fromdocname, builder, typ, target, node, contnode):
        return super()._resolve_numref_xref(_Pages(env, _DOCTREES), fromdocname, builder,
                                            typ, target, node, contnode)


def _forget(*_: Any) -> None:
    _DOCTREES.clear()


def setup(app):
    app.add_domain(NumberedReferences, override=True)
    app.connect("env-before-read-docs", _forget)
    app.connect("build-finished", _forget)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
