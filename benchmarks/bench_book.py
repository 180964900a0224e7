"""How long do a clean book build and `spotmath book` take?  Ratios from one run.

Run:  python benchmarks/bench_book.py

Measures, one after the other on this machine, each from an empty output folder:

1. the README's build, `jupyter-book build . -W -n --keep-going`: every chapter is
   executed afresh, on all cores at once (`spotmath/book/executing.py`);
2. the same build with MyST-NB's `execute_notebooks: force` (one chapter at a time),
   the way the book used to build: the reference for the ratio;
3. `spotmath book --out ...` with the default parameters (papermill, then the HTML).

Prints the three wall times and the ratios of 1 and 3 to 2.  Not a test: timings depend
on the machine (benchmarks/README.md records one run).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command[:3])} failed:\n{result.stdout[-2000:]}"
                 f"{result.stderr[-2000:]}")
    return time.perf_counter() - start


def main() -> None:
    jupyter_book = str(BIN / "jupyter-book")
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        serial_config = scratch / "serial.yml"
        config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
        config["execute"]["execute_notebooks"] = "force"
        serial_config.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        build = [jupyter_book, "build", str(ROOT), "-W", "-n", "--keep-going", "-q"]
        parallel = wall(build + ["--path-output", str(scratch / "parallel")])
        serial = wall(build + ["--path-output", str(scratch / "serial"),
                               "--config", str(serial_config)])
        edition = wall([str(BIN / "spotmath"), "book", "--out", str(scratch / "edition")])
    cores = os.cpu_count()
    print(f"clean build, chapters in parallel ({cores} cores): {parallel:.1f} s")
    print(f"clean build, one chapter at a time (execute_notebooks: force): {serial:.1f} s")
    print(f"spotmath book (default parameters): {edition:.1f} s")
    print(f"ratios to the one-at-a-time build: build {parallel / serial:.2f}, "
          f"spotmath book {edition / serial:.2f}")


if __name__ == "__main__":
    main()
