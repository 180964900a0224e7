"""Speed of the vectorised simulator against the plain-Python reference, in one run.

Run:  python benchmarks/bench_simulate.py

Both simulate the book's default job (MTBF 4 h, restart 10 min, 1-minute checkpoint
writes at the exact optimal interval, 100 hours of work, restarts preemptible).  A
"segment" is one attempt at an interval of compute plus its checkpoint, completed or cut
short.  The two must agree statistically; the script checks that too.
"""

from __future__ import annotations

import math
import time

import spotmath as sm
from spotmath.model.simulate import simulate, simulate_reference

RATE, RESTART, COST, WORK = 0.25, 10 / 60, 1 / 60, 100.0


def run(function, jobs: int, seed: int):
    start = time.perf_counter()
    result = function(preemption_rate=RATE, interval=sm.exact_interval(RATE, COST),
                      checkpoint_cost=COST, restart_time=RESTART, work=WORK, jobs=jobs,
                      seed=seed)
    return result, time.perf_counter() - start


def main() -> None:
    run(simulate, 100, 0)  # warm up NumPy
    fast, fast_seconds = run(simulate, 50_000, 1)
    slow, slow_seconds = run(simulate_reference, 2_000, 2)
    fast_rate, slow_rate = fast.segments / fast_seconds, slow.segments / slow_seconds
    (a, ea), (b, eb) = fast.mean("wall_time"), slow.mean("wall_time")
    z = abs(a - b) / math.hypot(ea, eb)
    print(f"vectorised: {fast.segments:,} segments in {fast_seconds:.2f} s = "
          f"{fast_rate:,.0f} segments/s")
    print(f"reference:  {slow.segments:,} segments in {slow_seconds:.2f} s = "
          f"{slow_rate:,.0f} segments/s")
    print(f"speed-up: {fast_rate / slow_rate:.0f}x")
    print(f"mean wall time: vectorised {a:.3f} h, reference {b:.3f} h "
          f"({z:.1f} standard errors apart)")


if __name__ == "__main__":
    main()
