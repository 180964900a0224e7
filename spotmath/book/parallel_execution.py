"""Sphinx extension: execute every chapter afresh on each build, all cores at once.

MyST-NB executes notebooks one after another while Sphinx reads them.  With
``execute_notebooks: cache`` in ``_config.yml`` it looks each notebook up in a
jupyter-cache first.  This extension fills that cache just before Sphinx reads:

- every notebook is re-read on every build (``env-get-outdated``), so a change to the
  ``spotmath`` library, which no notebook hash sees, is never missed;
- before reading (``env-before-read-docs``) the cache is emptied and the notebooks are
  executed by jupyter-cache's ``local-parallel`` executor (one process per core, each
  notebook in its own kernel, in its own folder);
- MyST-NB then finds every notebook in the cache.  A notebook that failed is not in the
  cache, so MyST-NB executes it once more and reports its error as usual.

With any other execution mode the extension does nothing.
"""

from __future__ import annotations

import logging as stdlib_logging
import shutil
from pathlib import Path

from sphinx.util import logging

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
    from jupyter_cache import get_cache
    from jupyter_cache.executors import load_executor

    notebooks = _notebooks(app, docnames)
    if not notebooks:
        return
    folder = Path(env.mystnb_config.execution_cache_path)
    shutil.rmtree(folder, ignore_errors=True)  # safe: the build's own cache, under _build
    cache = get_cache(folder)
    for name in notebooks:
        cache.add_nb_to_project(str(env.doc2path(name)))
    LOGGER.info("executing %d notebooks in parallel", len(notebooks))
    # jupyter-cache sends multiprocessing's log to stderr at its logger's level: warnings.
    quiet = stdlib_logging.getLogger(f"{__name__}.executor")
    quiet.setLevel(stdlib_logging.WARNING)
    executor = load_executor("local-parallel", cache=cache, logger=quiet)
    result = executor.run_and_cache(
        timeout=env.mystnb_config.execution_timeout,
        allow_errors=env.mystnb_config.execution_allow_errors,
    )
    LOGGER.info("executed %d notebooks; %d failed (MyST-NB re-runs them and reports)",
                len(result.succeeded), len(result.errored))


def setup(app):
    app.connect("env-get-outdated", _all_notebooks)
    app.connect("env-before-read-docs", _execute)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
