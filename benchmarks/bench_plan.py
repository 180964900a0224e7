"""Does `spotmath plan` answer at once? Its wall time against importing NumPy and SciPy.

Run:  python benchmarks/bench_plan.py [--rounds 15]

Alternates, in one run, `spotmath plan --json` and `python -c "import numpy,
scipy.special, scipy.optimize"` as fresh processes (what a user's shell does), and reports
both medians and their ratio; the numeric functions are generated ahead of time
(`spotmath/model/_generated.py`), so the plan should cost little more than the imports it
needs.  It also checks that neither the plan nor `import spotmath` imports SymPy.  Not a
test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

PLAN = [sys.executable, "-m", "spotmath", "plan", "--json"]
IMPORTS = [sys.executable, "-c", "import numpy, scipy.special, scipy.optimize"]
NO_SYMPY = [sys.executable, "-c", "import sys, spotmath; spotmath.make_plan(0.25, 1/6, "
            "1/60, 0.6, 8, notice=1/30, notice_share=0.9, persist=0.05); "
            "sys.exit('sympy' in sys.modules)"]


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    subprocess.run(NO_SYMPY, check=True)  # exits 1 if SymPy was imported
    wall(PLAN), wall(IMPORTS)  # warm the file cache
    plan, imports = [], []
    for _ in range(rounds):
        plan.append(wall(PLAN))
        imports.append(wall(IMPORTS))
    p, i = statistics.median(plan), statistics.median(imports)
    print(f"spotmath plan --json: median {p:.3f} s over {rounds} runs")
    print(f"import numpy, scipy.special, scipy.optimize: median {i:.3f} s")
    print(f"ratio: {p / i:.2f} (no SymPy imported by the plan or by import spotmath)")


if __name__ == "__main__":
    main()
