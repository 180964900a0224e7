"""How much faster are the generated (lambdified) functions than evaluating SymPy with subs?

Run:  python benchmarks/bench_lambdify.py

Sweeps the exact waste fraction over a 1000 x 1000 grid of (preemption rate, interval) with
the vectorised function, evaluates the same SymPy expression with ``subs`` + ``evalf`` at a
sample of the grid's points, checks the two agree there, and reports both speeds and their
ratio, measured in this one run.  Not a test: timings depend on the machine.
"""

from __future__ import annotations

import time

import numpy as np

import spotmath as sm
from spotmath.model import derivations as D

CHECKPOINT_COST, RESTART_TIME = 1 / 60, 1 / 6  # hours: 1 min write, 10 min restart


def best_of(repeats: int, function) -> float:
    """The fastest of several wall-clock timings of ``function()``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    rates = np.linspace(0.01, 4.0, 1000)  # per hour
    intervals = np.linspace(1 / 60, 8.0, 1000)  # hours
    rate_grid, interval_grid = np.meshgrid(rates, intervals)
    sm.waste_fraction(0.25, 1.0, CHECKPOINT_COST, RESTART_TIME)  # build the function once

    grid_seconds = best_of(5, lambda: sm.waste_fraction(
        rate_grid, interval_grid, CHECKPOINT_COST, RESTART_TIME))
    per_point_fast = grid_seconds / rate_grid.size

    expression = D.waste_exact(True)
    rng = np.random.default_rng(0)
    picks = rng.integers(0, rate_grid.size, size=200)
    points = [(rate_grid.flat[i], interval_grid.flat[i]) for i in picks]

    def with_subs() -> list[float]:
        return [float(expression.subs({D.lam: rate, D.T: interval, D.C: CHECKPOINT_COST,
                                       D.R: RESTART_TIME}).evalf())
                for rate, interval in points]

    start = time.perf_counter()
    slow_values = with_subs()
    per_point_slow = (time.perf_counter() - start) / len(points)

    fast_values = sm.waste_fraction(np.array([p[0] for p in points]),
                                    np.array([p[1] for p in points]),
                                    CHECKPOINT_COST, RESTART_TIME)
    assert np.allclose(fast_values, slow_values, rtol=1e-12, atol=0), "the two disagree"

    print(f"lambdified, 1000 x 1000 grid:   {grid_seconds * 1e3:8.1f} ms "
          f"({per_point_fast * 1e9:.1f} ns per point)")
    print(f"SymPy subs + evalf, {len(points)} points: {per_point_slow * 1e3:8.3f} ms per point")
    print(f"speed-up of the generated function: {per_point_slow / per_point_fast:,.0f}x")


if __name__ == "__main__":
    main()
