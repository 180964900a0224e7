"""Running the book's chapters with other parameters, and reading back their glued numbers.

A chapter is an executed notebook in ``book/`` with one cell tagged ``parameters``
(papermill) and headline numbers stored with MyST-NB's ``glue``.  papermill only *warns*
about a parameter the notebook does not declare; :func:`run_chapter` refuses it, and checks
every value with :func:`spotmath.inputs.check_book_parameters` before anything executes.
Values are handed to papermill as data, never pasted into code by this module.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..inputs import InputError, closest_name
from . import BOOK, ROOT
from .parameters import check_book_parameters

__all__ = ["ROOT", "BOOK", "KERNEL_STARTS", "KERNEL_DIED", "chapter_paths",
           "declared_parameters", "execute", "glued", "run_chapter"]

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
        raise InputError(f"{unknown[0]}: not a parameter of {source.name}"
                         f"{closest_name(unknown[0], declared)}; it takes: "
                         f"{', '.join(declared)}")
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


def _main(argv: list[str]) -> int:
    """``python -m spotmath.book.chapters SOURCE OUTPUT PARAMETERS_JSON``: one chapter."""
    import json

    from papermill.exceptions import PapermillExecutionError

    source, output, parameters = Path(argv[0]), Path(argv[1]), json.loads(argv[2])
    try:
        run_chapter(source, output, parameters, cwd=Path.cwd())
    except InputError as error:
        print(error, file=sys.stderr)
        return 2
    except PapermillExecutionError as error:  # the chapter's own error, in one line
        print(f"{error.ename}: {' '.join(str(error.evalue).split())}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
