"""The one way the book's chapters are executed: side by side, a worker per core.

Three callers, one mechanism:

- the HTML build (:mod:`spotmath.book.parallel_execution`, a Sphinx extension) executes
  every chapter with its defaults and hands the results to MyST-NB's cache;
- ``spotmath book`` (:mod:`spotmath.book.edition`) executes every chapter with the
  reader's parameters into the edition's folder;
- ``python scripts/execute_notebooks.py`` executes chapters with their defaults and writes
  the outputs back into ``book/`` (the stored outputs nbval compares).

One worker per core, ``python -m spotmath.book.chapters --serve``, runs the chapters sent
to it one at a time (papermill, parameters checked first) in one ``python3`` kernel that it
keeps between them and resets before each (:data:`spotmath.book.chapters.RESET`): a fresh
kernel and its imports cost about 1.5 s a chapter, more than most chapters compute.  The
largest chapters go first.  The workers' output is captured, so the kernels' start-up
chatter stays out of the terminal.  The processes run in their own sessions:
:meth:`Processes.stop_all` stops every one still running (a worker's kernel exits with it).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import nbformat

__all__ = ["ChapterFailed", "Processes", "THREAD_VARIABLES", "execute_chapters", "last_line",
           "one_thread_each", "with_source_metadata"]

#: ``progress(line, final=True)``: told how far a run got; a line with ``final`` false may
#: be overwritten by the next.
Progress = Callable[..., None]


class ChapterFailed(RuntimeError):
    """A chapter failed; the message is one line naming it and its error."""


class Processes:
    """Child processes, each started in its own session, stopped together."""

    def __init__(self) -> None:
        self.running: list[subprocess.Popen] = []

    def start(self, command: list[str], cwd: Path, stdin: Any = subprocess.DEVNULL,
              stdout: Any = None, env: dict[str, str] | None = None
              ) -> tuple[subprocess.Popen, Any]:
        """Start ``command`` in ``cwd`` (with ``env``, default this process's environment);
        its output (its error output, where ``stdout`` is given) goes to a temporary
        file."""
        output = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        process = subprocess.Popen(command, cwd=cwd, stdout=stdout or output, stderr=output,
                                   stdin=stdin, text=True, start_new_session=True, env=env)
        self.running.append(process)
        return process, output

    def collect(self, process: subprocess.Popen, output: Any) -> str:
        """What a finished process printed; it is no longer tracked."""
        self.running.remove(process)
        output.seek(0)
        text = output.read()
        output.close()
        return text

    def stop_all(self) -> None:
        """Terminate every process still running (a chapter's kernel exits with it)."""
        for process in self.running:
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + 10
        for process in self.running:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.running.clear()


#: The variables that set how many threads the linear algebra libraries (OpenBLAS, its
#: OpenMP builds, MKL) start in a process.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_thread_each() -> dict[str, str]:
    """This process's environment, with one linear-algebra thread where none is set.

    The workers run chapters side by side, one per core: a chapter's NumPy and SciPy
    starting a thread per core on top of that would oversubscribe the cores, and
    OpenBLAS's threads wait for work by spinning (the cluster chapter ran four times
    slower so, beside two busy processes on two cores).  A variable the reader has set
    is kept.

    Examples
    --------
    >>> one_thread_each()["OPENBLAS_NUM_THREADS"] in (os.environ.get("OPENBLAS_NUM_THREADS"), "1")
    True
    """
    return {**{name: "1" for name in THREAD_VARIABLES}, **os.environ}


#: What :func:`last_line` says of output with nothing meaningful in it.
NO_MESSAGE = "failed without a message"


def last_line(text: str) -> str:
    """The last meaningful line of a child's output (its error), without kernel chatter."""
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and "Parent appears to have exited" not in line]
    return lines[-1] if lines else NO_MESSAGE


def execute_chapters(jobs: dict[Path, tuple[Path, dict[str, Any]]],
                     cwd: Path | None = None, *, processes: Processes | None = None,
                     progress: Progress | None = None, keep_going: bool = False) -> dict[Path, str]:
    """Execute chapters side by side, one worker per core (at least two).

    Parameters
    ----------
    jobs : dict
        ``{source: (output, parameters)}``: each chapter notebook, where its executed copy
        goes, and the parameters papermill gives it (``{}``: its defaults, no cell
        injected).
    cwd : Path, optional
        The folder every chapter runs in (where it finds ``data/``); default: each
        chapter's own folder.
    processes : Processes, optional
        Tracks the children, so that a caller can stop them (default: a new one, stopped
        when this returns or raises).
    progress : callable, optional
        Told, one line per change, the chapters done, the time elapsed, an estimate of what
        remains and the chapters running (default: nothing is said).
    keep_going : bool, optional
        Run every chapter whatever fails (default False: the first failure stops the rest).

    Returns
    -------
    dict
        ``{source: one line}`` for each chapter that failed (empty when all succeeded).

    Raises
    ------
    ChapterFailed
        Without ``keep_going``, at the first chapter that fails.
    """
    from .chapters import KERNEL_FOLDER

    own = processes is None
    processes = processes or Processes()
    start, done = time.monotonic(), 0
    running: dict[_Worker, Path] = {}
    failed: dict[Path, str] = {}

    def report() -> None:
        if progress is None:
            return
        elapsed = time.monotonic() - start
        left = len(jobs) - done
        estimate = f", about {elapsed / done * left:.0f} s left" if done and left else ""
        bar = "#" * done + "." * left
        names = ", ".join(path.stem for path in running.values())
        progress(f"[{bar}] {done}/{len(jobs)} chapters, {elapsed:.0f} s{estimate}"
                 + (f" (running: {names})" if names else ""), final=False)

    # the largest notebooks first (they hold the most output, which is where the time goes),
    # so the last chapter to finish is a short one
    pending = sorted(jobs, key=lambda path: path.stat().st_size, reverse=True)
    answers: queue.Queue[tuple[_Worker, str | None]] = queue.Queue()
    home = cwd or pending[0].parent
    # the workers' kernels keep their sockets in here, removed at the end whatever happened
    environment = {**one_thread_each(), KERNEL_FOLDER: tempfile.mkdtemp(prefix="spotmath-")}
    idle: list[_Worker] = []
    try:
        idle += [_Worker(processes, answers, home, environment)
                 for _ in range(min(len(jobs), max(2, os.cpu_count() or 2)))]
        while pending or running:
            while pending and idle:
                worker, path = idle.pop(), pending.pop(0)
                output, parameters = jobs[path]
                worker.send({"source": str(path), "output": str(output),
                             "parameters": parameters, "cwd": str(cwd or path.parent)})
                running[worker] = path
            report()
            worker, line = answers.get()
            path = running.pop(worker)
            done += 1
            if line is None:  # the worker itself died: its output says why
                message = worker.stop()
                if pending:  # a new one for the chapters left
                    idle.append(_Worker(processes, answers, home, environment))
            else:
                result = json.loads(line)
                message = result["message"] if result["code"] else None
                idle.append(worker)
            if message is not None:
                failed[path] = f"chapter {path.stem} failed: {message}"
                if not keep_going:
                    raise ChapterFailed(failed[path])
        report()
    finally:
        for worker in idle:
            worker.finish()
        for worker in idle:
            worker.wait()
        if own:
            processes.stop_all()
        # the folder of the kernels' socket folders, whatever happened
        shutil.rmtree(environment[KERNEL_FOLDER], ignore_errors=True)  # safe: mkdtemp above
    return failed


class _Worker:
    """A ``python -m spotmath.book.chapters --serve`` process: chapters are sent to it one
    at a time; each answer (or None when it has died) goes to ``answers``."""

    def __init__(self, processes: Processes, answers: queue.Queue, cwd: Path,
                 environment: dict[str, str]) -> None:
        from .chapters import RESULT

        self.process, self.output = processes.start(
            [sys.executable, "-m", "spotmath.book.chapters", "--serve"], cwd,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment)
        self.processes = processes

        def listen() -> None:
            for line in self.process.stdout:
                if line.startswith(RESULT):
                    answers.put((self, line[len(RESULT):]))
            answers.put((self, None))

        threading.Thread(target=listen, daemon=True).start()

    def send(self, job: dict[str, Any]) -> None:
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()

    def finish(self) -> None:
        """No more chapters: the worker shuts its kernel down and exits."""
        if self.process.poll() is None:
            self.process.stdin.close()

    def wait(self, seconds: float = 10) -> None:
        """Give a finished worker time to shut its kernel down (stop_all ends it after)."""
        try:
            self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            pass

    def stop(self) -> str:
        """Why the worker exited: the signal that killed it, or else the last line it
        printed, or its status.  (A killed worker's last line says nothing of its death:
        it may be a client thread's note about the kernel messages the kill cut short.)"""
        code = self.process.wait()
        said = last_line(self.processes.collect(self.process, self.output))
        if code < 0:
            return f"its worker was killed ({signal.Signals(-code).name})"
        if said != NO_MESSAGE:
            return said
        return f"its worker exited with status {code}"


def with_source_metadata(executed: Path, source: Path) -> nbformat.NotebookNode:
    """The executed copy of ``source`` with the source's notebook and cell metadata.

    papermill records its run in the metadata (start and end times, status, parameters);
    without them an executed copy run with the defaults (no cell injected) has the cells and
    metadata of its source plus outputs, so MyST-NB's cache recognises it and a re-run
    changes nothing but results.
    """
    import nbformat

    notebook = nbformat.read(executed, as_version=4)
    original = nbformat.read(source, as_version=4)
    if [cell.source for cell in notebook.cells] != [cell.source for cell in original.cells]:
        raise ChapterFailed(f"{executed.name}: its cells are not those of {source}")
    notebook.metadata = original.metadata
    for cell, before in zip(notebook.cells, original.cells):
        cell.metadata = before.metadata
    return notebook
