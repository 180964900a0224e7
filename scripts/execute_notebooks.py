"""Re-execute every chapter in place and normalise its metadata: one step after a change.

    python scripts/execute_notebooks.py            # all chapters in _toc.yml
    python scripts/execute_notebooks.py book/gangs.ipynb

Each notebook runs top to bottom in a fresh `python3` kernel (the current environment),
from `book/`, with the default parameters; one notebook per core at a time.
Afterwards only what nbval and the book need is
kept: no execution timings, a fixed kernelspec, no interpreter version, so a re-run on
another machine changes nothing unless a result changed.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spotmath.book.chapters import chapter_paths  # noqa: E402

KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def normalise(notebook: nbformat.NotebookNode) -> None:
    notebook.metadata = nbformat.from_dict({
        "kernelspec": KERNELSPEC,
        "language_info": {"name": "python"},
    })
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("ExecuteTime", None)
        if cell.cell_type == "code":
            for output in cell.outputs:
                output.get("metadata", {}).pop("execution", None)
    nbformat.validator.normalize(notebook)


def execute(path: Path) -> float:
    start = time.perf_counter()
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    normalise(notebook)
    nbformat.write(notebook, path)
    return time.perf_counter() - start


def main(arguments: list[str]) -> int:
    paths = [Path(a).resolve() for a in arguments] or chapter_paths()
    with ProcessPoolExecutor(min(len(paths), os.cpu_count() or 1)) as pool:
        for path, seconds in zip(paths, pool.map(execute, paths)):
            print(f"{path.relative_to(ROOT)}: executed in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
