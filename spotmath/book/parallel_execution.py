"""Sphinx extension: execute every chapter afresh on each build, all cores at once.

MyST-NB executes notebooks one after another while Sphinx reads them.  With
``execute_notebooks: cache`` in ``_config.yml`` it looks each notebook up in a
jupyter-cache first.  This extension fills that cache just before Sphinx reads:

- every notebook is re-read on every build (``env-get-outdated``), so a change to the
  ``spotmath`` library, which no notebook hash sees, is never missed;
- before reading (``env-before-read-docs``) the cache is emptied and the notebooks are
  executed with their default parameters by the book's one executor,
  :func:`spotmath.book.executing.execute_chapters` (a worker per core, each keeping one
  kernel reset before every chapter, each chapter in its own folder), and each executed
  copy is put in the cache;
- MyST-NB then finds every notebook in the cache.  A notebook that failed is not in the
  cache, so MyST-NB executes it once more and reports its error as usual.

With any other execution mode it executes nothing.  In every mode, once the chapters are
executed, what the build holds to its end is frozen out of Python's garbage collections
(:func:`_spare_the_collector`).
"""

from __future__ import annotations

import gc
import shutil
import tempfile
from pathlib import Path

from sphinx.util import logging

from .chapters import GC_THRESHOLDS
from .executing import execute_chapters, with_source_metadata

__all__ = ["setup"]

LOGGER = logging.getLogger(__name__)


def _executing(app) -> bool:
    return app.env.mystnb_config.execution_mode == "cache"


def _notebooks(app, docnames) -> list[str]:
    return sorted(name for name in docnames
                  if str(app.env.doc2path(name)).endswith(".ipynb"))


def _all_notebooks(app, env, added, changed, removed) -> list[str]:
    """Re-read every notebook: their outputs depend on code no notebook hash sees."""
    return _notebooks(app, env.found_docs) if _executing(app) else []


def _execute(app, env, docnames) -> None:
    if not _executing(app):
        return
    import nbformat
    from jupyter_cache import get_cache

    notebooks = [Path(env.doc2path(name)) for name in _notebooks(app, docnames)]
    if not notebooks:
        return
    folder = Path(env.mystnb_config.execution_cache_path)
    shutil.rmtree(folder, ignore_errors=True)  # safe: the build's own cache, under _build
    cache = get_cache(folder)
    LOGGER.info("executing %d notebooks in parallel", len(notebooks))
    with tempfile.TemporaryDirectory(prefix="spotmath-executed-") as scratch:
        jobs = {path: (Path(scratch) / f"{number}-{path.name}", {})
                for number, path in enumerate(notebooks)}
        failed = execute_chapters(jobs, keep_going=True)
        for path, (output, _) in jobs.items():
            if path not in failed:
                nbformat.write(with_source_metadata(output, path), output)
                cache.cache_notebook_file(str(output), uri=str(path))
    LOGGER.info("executed %d notebooks; %d failed (MyST-NB re-runs them and reports)",
                len(notebooks) - len(failed), len(failed))


def _spare_the_collector(app, env, docnames) -> None:
    """Freeze what the build holds to its end out of Python's cyclic garbage collections.

    Sphinx, docutils, MyST-NB and the theme are imported by now, and the executed
    chapters are in the cache: each full collection while Sphinx reads and writes would
    walk all of that again.  Frozen, the collector leaves it out, and collects less often
    (:data:`spotmath.book.chapters.GC_THRESHOLDS`).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def setup(app):
    app.connect("env-get-outdated", _all_notebooks)
    app.connect("env-before-read-docs", _execute)
    app.connect("env-before-read-docs", _spare_the_collector, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
