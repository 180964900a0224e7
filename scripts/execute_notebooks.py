"""Re-execute every chapter in place and normalise its metadata: one step after a change.

    python scripts/execute_notebooks.py            # all chapters in _toc.yml
    python scripts/execute_notebooks.py book/gangs.ipynb

Each chapter runs top to bottom with its default parameters, by the book's one executor
(:func:`spotmath.book.executing.execute_chapters`: a ``python3`` kernel of the current
environment, reset before each chapter to what a fresh one has, from the chapter's
folder, one chapter per core at a time).
Afterwards only what nbval and the book need is kept: no execution timings or papermill
records, a fixed kernelspec, no interpreter version, so a re-run on another machine
changes nothing unless a result changed.  Nothing is written back unless every chapter
succeeded.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spotmath.book.chapters import chapter_paths  # noqa: E402
from spotmath.book.executing import (  # noqa: E402
    ChapterFailed,
    execute_chapters,
    with_source_metadata,
)

KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def normalise(notebook: nbformat.NotebookNode) -> None:
    notebook.metadata = nbformat.from_dict({
        "kernelspec": KERNELSPEC,
        "language_info": {"name": "python"},
    })
    for cell in notebook.cells:
        for key in ("execution", "ExecuteTime", "papermill"):
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            for output in cell.outputs:
                output.get("metadata", {}).pop("execution", None)
    nbformat.validator.normalize(notebook)


def main(arguments: list[str]) -> int:
    paths = [Path(a).resolve() for a in arguments] or chapter_paths()
    with tempfile.TemporaryDirectory(prefix="spotmath-executed-") as scratch:
        jobs = {path: (Path(scratch) / f"{number}-{path.name}", {})
                for number, path in enumerate(paths)}
        try:
            execute_chapters(jobs, progress=lambda line, final=True: print(line))
        except ChapterFailed as error:
            print(error, file=sys.stderr)
            return 1
        for path, (output, _) in jobs.items():
            notebook = with_source_metadata(output, path)
            normalise(notebook)
            nbformat.write(notebook, path)
            print(f"{path.relative_to(ROOT)}: executed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
