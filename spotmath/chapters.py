"""Running the book's chapters with other parameters, and reading back their glued numbers.

A chapter is an executed notebook in ``book/`` with one cell tagged ``parameters``
(papermill) and headline numbers stored with MyST-NB's ``glue``.  papermill only *warns*
about a parameter the notebook does not declare; :func:`run_chapter` refuses it, and checks
every value with :func:`spotmath.inputs.check_book_parameters` before anything executes.
Values are handed to papermill as data, never pasted into code by this module.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import nbformat

from .inputs import InputError, check_book_parameters

__all__ = ["ROOT", "KERNEL_STARTS", "KERNEL_DIED", "chapter_paths", "declared_parameters",
           "execute", "glued", "make_edition", "read_parameters", "run_chapter"]

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"


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
                cwd: Path | None = None, declared: dict[str, Any] | None = None
                ) -> dict[str, Any]:
    """Execute ``source`` with ``parameters`` into ``output``; return its glued values.

    Refuses, before executing anything, a parameter the chapter does not declare and any
    value that fails the book's checks (an :class:`InputError` naming it).  ``declared``
    may pass in :func:`declared_parameters` of ``source`` when the caller has it already.
    """

    if declared is None:
        declared = declared_parameters(source)
    unknown = sorted(set(parameters) - set(declared))
    if unknown:
        raise InputError(f"{unknown[0]}: not a parameter of {source.name} "
                         f"(it takes: {', '.join(declared)})")
    check_book_parameters(**parameters)
    execute(source, output, parameters, cwd=cwd or source.parent)
    return glued(output)


#: How often a chapter's kernel is started when it dies before answering (a port race).
KERNEL_STARTS = 3
KERNEL_DIED = "Kernel died before replying to kernel_info"


def execute(source: Path, output: Path, parameters: dict[str, Any], cwd: Path) -> None:
    """papermill's ``execute_notebook`` in a fresh ``python3`` kernel, nothing checked.

    jupyter_client picks a kernel's TCP ports before the kernel binds them; a kernel
    started at the same moment (chapters run side by side) can take one, and the new
    kernel dies before it answers.  Nothing of the chapter has run then, so the kernel is
    started again, up to :data:`KERNEL_STARTS` times; any other error is raised at once.
    """
    import papermill

    for attempt in range(KERNEL_STARTS):
        try:
            papermill.execute_notebook(
                str(source), str(output), parameters=dict(parameters), kernel_name="python3",
                progress_bar=False, cwd=str(cwd))
            return
        except RuntimeError as error:
            if KERNEL_DIED not in str(error) or attempt == KERNEL_STARTS - 1:
                raise


def read_parameters(params_file: Path | None, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Parameters from a YAML mapping and NAME VALUE pairs (values read as YAML data)."""
    import yaml

    values: dict[str, Any] = {}
    if params_file is not None:
        try:
            loaded = yaml.safe_load(Path(params_file).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as error:
            raise InputError(f"--params: cannot read {params_file}: "
                             f"{' '.join(str(error).split())}") from None
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise InputError(f"--params: {params_file} must hold a mapping of name: value")
        values.update(loaded)
    for name, text in pairs:
        try:
            values[name] = yaml.safe_load(text)
        except yaml.YAMLError:
            values[name] = text  # not YAML: keep the string; validation names it
    return values


def make_edition(out: Path, parameters: dict[str, Any], *, force: bool = False,
                 root: Path = ROOT, progress=None) -> Path:
    """Execute every chapter with ``parameters`` and build the HTML book into ``out``.

    Everything is checked before anything runs: parameter names (each must be declared by
    at least one chapter), values, and that ``out`` is empty (unless ``force``).  The
    chapters are copied into ``out/source`` and executed there with papermill, each with the
    parameters it declares; ``book/`` itself is never written.  ``progress(line, final)``
    is told how far it got (a line that ``final`` false may be overwritten by the next).
    Returns the HTML folder.
    """
    import shutil
    import subprocess
    import sys

    import yaml

    if progress is None:
        def progress(line: str, final: bool = True) -> None:
            print(line, flush=True)
    chapters = chapter_paths(root)
    if not chapters:
        raise InputError(f"book: no chapters found under {root} (run from a spotmath checkout)")
    declared = {path: declared_parameters(path) for path in chapters}
    known = set().union(*declared.values())
    unknown = sorted(set(parameters) - known)
    if unknown:
        raise InputError(f"{unknown[0]}: not a parameter of any chapter "
                         f"(known: {', '.join(sorted(known))})")
    check_book_parameters(**parameters)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out: {out} exists and is not a folder")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise InputError(f"--out: {out} is not empty (use --force to replace it)")
        shutil.rmtree(out)
    source = out / "source"
    (source / "book").mkdir(parents=True)
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    config["execute"]["execute_notebooks"] = "off"  # papermill has executed them
    (source / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False),
                                        encoding="utf-8")
    shutil.copy(root / "_toc.yml", source / "_toc.yml")
    for extra in ("references.bib",):
        if (root / extra).exists():
            shutil.copy(root / extra, source / extra)
    if (root / "_static").is_dir():  # the book's stylesheet: the edition reads the same
        shutil.copytree(root / "_static", source / "_static")
    for path in (root / "book").iterdir():
        if path.suffix != ".ipynb" and path.is_file():
            shutil.copy(path, source / "book" / path.name)
        elif path.is_dir() and not path.name.startswith((".", "_")):
            shutil.copytree(path, source / "book" / path.name)
    jobs = {path: {k: v for k, v in parameters.items() if k in declared[path]}
            for path in chapters}
    _execute_all(jobs, source / "book", progress)
    progress("building the HTML book", final=False)
    command = (shutil.which("jupyter-book", path=str(Path(sys.executable).parent))
               or shutil.which("jupyter-book") or "jupyter-book")
    result = subprocess.run([command, "build", str(source), "--path-output", str(out)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError("jupyter-book build failed:\n" + result.stdout[-3000:]
                           + result.stderr[-3000:])
    html = out / "_build" / "html"
    progress(f"done: {html / 'index.html'}", final=True)
    return html


def _execute_all(jobs: dict[Path, dict[str, Any]], folder: Path, progress) -> None:
    """Execute the chapters into ``folder``, one per core at a time, each in its own process.

    Each runs ``python -m spotmath.chapters`` with its stderr captured, so the kernels'
    start-up chatter stays out of the reader's terminal; a chapter that fails stops the
    edition with its own error.  ``progress`` gets one line per change: chapters done,
    elapsed time, an estimate of what remains, and the chapters running.
    """
    import json
    import os
    import subprocess
    import sys
    import time
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    workers = max(2, os.cpu_count() or 2)
    start, done, running = time.monotonic(), 0, {}

    def run(path: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "spotmath.chapters", str(path),
             str(folder / path.name), json.dumps(jobs[path])],
            capture_output=True, text=True, cwd=folder)

    def report() -> None:
        elapsed = time.monotonic() - start
        left = len(jobs) - done
        estimate = f", about {elapsed / done * left:.0f} s left" if done and left else ""
        bar = "#" * done + "." * left
        names = ", ".join(path.stem for path in running.values())
        progress(f"[{bar}] {done}/{len(jobs)} chapters, {elapsed:.0f} s{estimate}"
                 + (f" (running: {names})" if names else ""), final=False)

    with ThreadPoolExecutor(workers) as pool:
        # the largest notebooks first (they hold the most output, which is where the time
        # goes), so the last chapter to finish is a short one
        pending = sorted(jobs, key=lambda path: path.stat().st_size, reverse=True)
        while pending or running:
            while pending and len(running) < workers:
                path = pending.pop(0)
                running[pool.submit(run, path)] = path
            report()
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                path = running.pop(future)
                result = future.result()
                if result.returncode != 0:
                    for other in running:
                        other.cancel()
                    lines = [line for line in result.stderr.splitlines()
                             if line.strip() and "Kernel is running over TCP" not in line]
                    raise RuntimeError(f"{path.stem}: execution failed:\n"
                                       + "\n".join(lines[-25:]))
                done += 1
    report()


def _main(argv: list[str]) -> int:
    """``python -m spotmath.chapters SOURCE OUTPUT PARAMETERS_JSON``: one chapter."""
    import json

    source, output, parameters = Path(argv[0]), Path(argv[1]), json.loads(argv[2])
    run_chapter(source, output, parameters, cwd=Path.cwd())
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(_main(sys.argv[1:]))
