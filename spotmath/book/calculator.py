"""Sphinx extension: the in-page calculator's scripts, served from the book itself.

The "Your numbers" page loads them from ``_static/spotmath/``, in the order of
:data:`spotmath.web.SCRIPTS`: the hand-written ports of the Python modules and the page's
interface, and the files :mod:`spotmath.web.codegen` prints from Python (``formulas.js``,
``data.js``).
Nothing is fetched from anywhere else, so the page works from ``file://`` and offline.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..web import SCRIPTS, WEB

__all__ = ["SCRIPTS", "WEB", "setup"]


def _copy(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "spotmath"
    target.mkdir(parents=True, exist_ok=True)
    for name in SCRIPTS:
        shutil.copy(WEB / name, target / name)


def setup(app):
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
