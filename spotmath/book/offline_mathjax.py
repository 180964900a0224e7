"""Sphinx extension: the book serves its own MathJax, so equations render with no network.

MathJax 3 comes from the `django-static-mathjax` distribution (static files only, no Django),
which installs a `mathjax` package holding MathJax's `es5` build.  The build copies the parts
the book uses into `_static/mathjax/es5` and points Sphinx's `mathjax_path` at them, for the
normal build and for `spotmath book` editions alike.
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["MATHJAX_PATH", "mathjax_source", "setup"]

MATHJAX_PATH = "mathjax/es5/tex-chtml.js"


def mathjax_source() -> Path:
    """The installed MathJax `es5` folder."""
    import mathjax

    return Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"


def _configure(app, config) -> None:
    config.mathjax_path = MATHJAX_PATH


def _copy(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "mathjax" / "es5"
    shutil.copytree(mathjax_source(), target, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("sre", "*-full*", "*svg*", "mml-*",
                                                  "node-main.js"))


def setup(app):
    app.connect("config-inited", _configure)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
