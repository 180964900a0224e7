"""Running the book's chapters with other parameters, and reading back their glued numbers.

A chapter is an executed notebook in ``book/`` with one cell tagged ``parameters``
(papermill) and headline numbers stored with MyST-NB's ``glue``.  papermill only *warns*
about a parameter the notebook does not declare; :func:`run_chapter` refuses it, and checks
every value with :func:`spotmath.inputs.check_book_parameters` before anything executes.
Values are handed to papermill as data, never pasted into code by this module.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..inputs import InputError, closest_name
from . import BOOK, ROOT
from .parameters import check_book_parameters

__all__ = ["ROOT", "BOOK", "KERNEL_STARTS", "KERNEL_ARGUMENTS", "KERNEL_FOLDER", "RESULT",
           "RESET", "GC_THRESHOLDS", "KeptKernel", "chapter_paths", "declared_parameters",
           "execute", "glued", "run_chapter"]

if TYPE_CHECKING:
    import nbformat



def chapter_paths(root: Path = ROOT) -> list[Path]:
    """The chapter notebooks named in ``_toc.yml``, in reading order."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        names += [entry["file"] for entry in part.get("chapters", [])]
    return [root / f"{name}.ipynb" for name in names if (root / f"{name}.ipynb").exists()]


def declared_parameters(notebook: Path) -> dict[str, Any]:
    """The parameters a notebook declares in its ``parameters`` cell, with their defaults."""
    import papermill

    found = papermill.inspect_notebook(str(notebook))
    return {name: ast.literal_eval(spec["default"]) for name, spec in found.items()}


def glued(notebook: Path | nbformat.NotebookNode) -> dict[str, Any]:
    """The values a notebook stored with ``glue``, by name (numbers, strings, None).

    Figures and other objects without a literal ``text/plain`` form are left out.
    """
    import nbformat

    if not isinstance(notebook, nbformat.NotebookNode):
        notebook = nbformat.read(str(notebook), as_version=4)
    values = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook", {})
            name, prefix = record.get("name"), record.get("mime_prefix", "")
            text = output.get("data", {}).get(f"{prefix}text/plain")
            if name and text is not None:
                try:
                    values[name] = ast.literal_eval(text)
                except (ValueError, SyntaxError):
                    continue
    return values


def run_chapter(source: Path, output: Path, parameters: dict[str, Any],
                cwd: Path | None = None, declared: dict[str, Any] | None = None,
                kernel: Any = None) -> dict[str, Any]:
    """Execute ``source`` with ``parameters`` into ``output``; return its glued values.

    Refuses, before executing anything, a parameter the chapter does not declare and any
    value that fails the book's checks (an :class:`InputError` naming it).  ``declared``
    may pass in :func:`declared_parameters` of ``source`` when the caller has it already;
    ``kernel``, a running kernel to reuse (:func:`execute`).
    """

    if declared is None:
        declared = declared_parameters(source)
    unknown = sorted(set(parameters) - set(declared))
    if unknown:
        raise InputError(f"{unknown[0]}: not a parameter of {source.name}"
                         f"{closest_name(unknown[0], declared)}; it takes: "
                         f"{', '.join(declared)}")
    check_book_parameters(**parameters)
    execute(source, output, parameters, cwd=cwd or source.parent, kernel=kernel)
    return glued(output)


#: How often a chapter's kernel is started when it dies before answering.
KERNEL_STARTS = 3
#: What a kernel started here is told: keep its history in memory, as nbclient tells the
#: kernels it starts itself (the chapters' code does not belong in the reader's IPython
#: history, ~/.ipython, which would grow by the whole book's code at every build).
KERNEL_ARGUMENTS = ["--HistoryManager.hist_file=:memory:"]
#: The environment variable naming the folder in which :func:`_start_kernel` makes each
#: kernel's folder of sockets (the executor's own, which it removes when it is done, even
#: after a worker was stopped before it could; default: the system's temporary folder).
KERNEL_FOLDER = "SPOTMATH_KERNEL_FOLDER"
#: The prefix of a worker's result lines (its other output is the kernel's chatter).
RESULT = "spotmath-chapter-result "
#: Run in a worker's kernel before each chapter: what a fresh kernel would have (no names
#: of the chapter before, a new history session counting from 1, matplotlib's defaults and
#: no figures, the chapter's folder), while the modules stay imported: most of a fresh
#: kernel's start, and most of the time a short chapter takes.  The outputs are those of
#: a fresh kernel, byte for byte.  A chapter that changed an imported module's state would
#: change the next chapter's outputs: the stored outputs, made this way, would then differ
#: from a fresh kernel's, which nbval (each chapter in a fresh kernel) reports.
#: What the chapters before left imported (NumPy, SciPy, matplotlib, spotmath: hundreds of
#: thousands of objects) is then frozen out of Python's cyclic garbage collections, which
#: would walk it all again at each full one (:data:`GC_THRESHOLDS`).
RESET = """get_ipython().reset(new_session=True)
import gc as _gc, os as _os, matplotlib as _mpl, matplotlib.pyplot as _plt
_os.chdir({cwd!r}); _plt.close("all"); _mpl.rcdefaults()
_gc.collect(); _gc.freeze(); _gc.set_threshold(*{thresholds!r})
del _gc, _os, _mpl, _plt
"""
#: Python's garbage-collection thresholds in a process that keeps what it imported to its
#: end (a worker's kernel after :data:`RESET`, the build's Sphinx): the first generation
#: collected every 10,000 allocations rather than 700.  Only when unreachable cycles are
#: freed changes, never an output.
GC_THRESHOLDS = (10_000, 10, 10)


def execute(source: Path, output: Path, parameters: dict[str, Any], cwd: Path,
            kernel: Any = None) -> None:
    """papermill's ``execute_notebook``, in ``kernel`` or in a kernel of its own.

    ``kernel`` is a worker's running kernel (a ``jupyter_client`` KernelManager), reset
    with :data:`RESET` first; without one a kernel is started for this chapter
    (:func:`_start_kernel`) and shut down after it.
    """
    import papermill

    arguments = dict(parameters=dict(parameters), progress_bar=False, cwd=str(cwd),
                     request_save_on_cell_execute=False)
    if kernel is not None:
        _run_code(kernel, RESET.format(cwd=str(cwd), thresholds=GC_THRESHOLDS))
        try:
            papermill.execute_notebook(str(source), str(output), km=kernel, **arguments)
        finally:
            _stop_clients(kernel)
        return
    kernel = _start_kernel(cwd)
    try:
        papermill.execute_notebook(str(source), str(output), km=kernel, **arguments)
    finally:
        _stop_clients(kernel)
        _shut_down(kernel)


def _stop_clients(kernel: Any) -> None:
    """Stop the channels of the clients papermill made of ``kernel`` for a chapter.

    nbclient stops its client's channels only for a kernel it started itself; of a
    kernel it is given, it leaves them open: a heartbeat thread and about sixteen sockets
    a chapter, until a worker that runs a few hundred chapters passes ZeroMQ's thousand
    sockets ("Too many open files").  :func:`_start_kernel` makes the manager remember
    every client it makes.
    """
    clients = getattr(kernel, "spotmath_clients", [])
    while clients:
        clients.pop().stop_channels()


def _start_kernel(cwd: Path) -> Any:
    """A running ``python3`` kernel in ``cwd`` that has answered.

    The kernel talks over Unix sockets in a folder of its own (jupyter_client's ``ipc``
    transport), not over TCP ports: jupyter_client picks free ports before the kernel
    binds them, and a kernel started at the same moment elsewhere (chapters and nbval
    run side by side) could take one first.  A kernel that still dies before it answers
    has run nothing, so it is started again, up to :data:`KERNEL_STARTS` times.  Its
    clients are asynchronous, as those nbclient makes for a kernel of its own: a
    blocking one would wait on the kernel's output for ever once the kernel has died,
    where nbclient's asynchronous wait notices the death.  :func:`_shut_down` stops it
    and removes its folder.
    """
    import os
    import tempfile

    from jupyter_client.manager import KernelManager

    for attempt in range(1, KERNEL_STARTS + 1):
        folder = tempfile.mkdtemp(prefix="spotmath-k-",
                                  dir=os.environ.get(KERNEL_FOLDER) or None)
        if len(folder) > _SOCKET_PATH - len("/s-65535"):  # a socket's path is short
            os.rmdir(folder)  # safe: the empty folder mkdtemp made just now
            folder = tempfile.mkdtemp(prefix="spotmath-k-", dir="/tmp")
        kernel = KernelManager(kernel_name="python3", transport="ipc",
                               ip=str(Path(folder) / "s"),
                               client_class="jupyter_client.asynchronous.AsyncKernelClient")
        kernel.spotmath_folder = folder
        kernel.spotmath_clients = []  # what _stop_clients stops
        kernel.client = functools.partial(_remembered_client, kernel, kernel.client)
        kernel.start_kernel(cwd=str(cwd), extra_arguments=KERNEL_ARGUMENTS)
        client = _blocking_client(kernel)
        client.start_channels()
        try:
            client.wait_for_ready(timeout=60)
        except RuntimeError:
            _shut_down(kernel)
            if attempt == KERNEL_STARTS:
                raise
            continue
        finally:
            client.stop_channels()
        return kernel


#: The longest path a Unix socket may have: 103 characters on macOS (107 on Linux).
_SOCKET_PATH = 103


def _remembered_client(kernel: Any, make: Any, **options: Any) -> Any:
    """``kernel.client()``, remembered for :func:`_stop_clients`."""
    client = make(**options)
    kernel.spotmath_clients.append(client)
    return client


def _shut_down(kernel: Any) -> None:
    """Stop a kernel of :func:`_start_kernel` and remove the folder of its sockets."""
    import shutil

    kernel.shutdown_kernel(now=True)
    shutil.rmtree(kernel.spotmath_folder, ignore_errors=True)  # safe: _start_kernel's mkdtemp


def _blocking_client(kernel: Any) -> Any:
    """A blocking client of ``kernel`` (whose own clients are asynchronous) that asks the
    kernel's manager whether the kernel lives: whether its process runs.  A client without
    a manager asks the heartbeat, and a kernel still starting on a loaded machine can miss
    a beat (a second) while its answer is late: that would read as a death."""
    return kernel.blocking_client()


def _run_code(kernel: Any, code: str) -> None:
    """Run ``code`` in ``kernel``, outside its history; raise if it fails."""
    client = _blocking_client(kernel)
    client.start_channels()
    try:
        reply = client.execute_interactive(code, store_history=False, timeout=60,
                                           output_hook=lambda message: None)
    finally:
        client.stop_channels()
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"resetting the kernel failed: {reply['content'].get('evalue')}")


def _one_line(error: BaseException) -> tuple[int, str]:
    """A chapter's failure as (exit status, one line)."""
    from papermill.exceptions import PapermillExecutionError

    if isinstance(error, InputError):
        return 2, str(error)
    if isinstance(error, PapermillExecutionError):  # the chapter's own error
        return 1, f"{error.ename}: {' '.join(str(error.evalue).split())}"
    return 1, f"{type(error).__name__}: {' '.join(str(error).split())}"


class KeptKernel:
    """One kernel kept between chapters, reset before each (:data:`RESET`): a chapter run
    in it makes the outputs a fresh kernel makes, without a kernel's start and imports.

    Started at the first chapter; after a chapter that fails (but for a parameter
    refused before anything ran) it is shut down, its state unknown, and the next chapter
    starts a fresh one.  :meth:`close` shuts it down.
    """

    def __init__(self) -> None:
        self.kernel: Any = None

    def run(self, source: Path, output: Path, parameters: dict[str, Any],
            cwd: Path | None = None) -> dict[str, Any]:
        """:func:`run_chapter` in the kept kernel."""
        cwd = cwd or source.parent
        if self.kernel is not None and not self.kernel.is_alive():
            self.close()
        if self.kernel is None:
            self.kernel = _start_kernel(cwd)
        try:
            return run_chapter(source, output, parameters, cwd=cwd, kernel=self.kernel)
        except InputError:
            raise
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        """Shut the kernel down, if one is running."""
        if self.kernel is not None:
            _shut_down(self.kernel)
            self.kernel = None


def _serve(jobs: Any, reply: Any) -> int:
    """``python -m spotmath.book.chapters --serve``: a worker of the executor.

    Reads one job a line, ``{"source", "output", "parameters", "cwd"}`` as JSON, runs it
    with :func:`run_chapter` in a kernel kept alive between chapters (reset before each,
    started again after one that broke it), and answers each with one line,
    :data:`RESULT` and ``{"code", "message"}`` (0 and "" when it succeeded).
    """
    import json

    kept = KeptKernel()
    try:
        for line in jobs:
            job = json.loads(line)
            code, message = 0, ""
            try:
                kept.run(Path(job["source"]), Path(job["output"]), job["parameters"],
                         cwd=Path(job["cwd"]))
            except Exception as error:  # noqa: BLE001 - every failure is the chapter's line
                code, message = _one_line(error)
            reply(RESULT + json.dumps({"code": code, "message": message}))
    finally:
        kept.close()
    return 0


def _main(argv: list[str]) -> int:
    """``python -m spotmath.book.chapters SOURCE OUTPUT PARAMETERS_JSON``: one chapter,
    in a fresh kernel; ``--serve``: a worker (:func:`_serve`)."""
    import json

    from papermill.exceptions import PapermillExecutionError

    if argv == ["--serve"]:
        return _serve(sys.stdin, lambda line: print(line, flush=True))
    source, output, parameters = Path(argv[0]), Path(argv[1]), json.loads(argv[2])
    try:
        run_chapter(source, output, parameters, cwd=Path.cwd())
    except (InputError, PapermillExecutionError) as error:
        code, message = _one_line(error)
        print(message, file=sys.stderr)
        return code
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
