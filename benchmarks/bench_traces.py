"""Speed of reading, fitting and replaying a spot trace of 100,000 lifetimes, in one run.

Run:  python benchmarks/bench_traces.py

The trace is drawn by the simulator (a pool of 100 instances at 0.5 preemptions per hour,
observed for 2,000 hours), written in the documented CSV format and read back.  The
generated formulas are built once on a small trace first, so the times are those of a
warm library.  Each step is set against a reference computed in the same run: SciPy's own
censored Weibull fit, and a plain-Python loop over the lifetimes for the replay; the
results must agree, and the script checks that too.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats

from spotmath.traces import read_trace, write_trace
from spotmath.traces.fitting import fit_trace, fit_weibull
from spotmath.traces.replay import best_fixed_interval, replay
from spotmath.traces.synthetic import synthetic_trace

INTERVAL, COST, RESTART = 0.5, 1 / 60, 1 / 6


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def python_replay(lifetimes, preempted) -> float:
    """The single-node replay as a plain loop, one lifetime at a time."""
    paid = useful = 0.0
    for lifetime, done in zip(lifetimes.tolist(), preempted.tolist()):
        if not done:
            continue
        paid += lifetime
        segments = math.floor(max(lifetime - RESTART, 0.0) / (INTERVAL + COST) + 1e-9)
        useful += INTERVAL * segments
    return 1 - useful / paid


def main() -> None:
    small = synthetic_trace(preemption_rate=0.5, pool_size=5, hours=50, seed=1)
    fit_trace(small)  # build the generated formulas once
    replay(small, INTERVAL, COST, RESTART, gang_size=2)
    trace = synthetic_trace(preemption_rate=0.5, pool_size=100, hours=2000, seed=2)
    with tempfile.TemporaryDirectory() as folder:
        path = write_trace(trace, Path(folder) / "trace.csv")
        trace, read_seconds = timed(read_trace, path)
    print(f"trace: {len(trace.up):,} lifetimes, {trace.preemptions:,} preemptions")
    print(f"read and check the CSV:  {read_seconds:6.3f} s")

    fit, fit_seconds = timed(fit_trace, trace)
    data = stats.CensoredData(uncensored=trace.lifetimes[trace.preempted],
                              right=trace.lifetimes[~trace.preempted])
    (shape, _, _), scipy_seconds = timed(stats.weibull_min.fit, data, floc=0)
    weibull, weibull_seconds = timed(fit_weibull, trace.lifetimes, trace.preempted)
    print(f"fit (rate, Weibull with interval and test, co-preemption): "
          f"{fit_seconds:6.3f} s")
    print(f"  of which the Weibull fit: {weibull_seconds:.3f} s, against SciPy's censored "
          f"fit (no interval) {scipy_seconds:.3f} s: {scipy_seconds / weibull_seconds:.1f}x; "
          f"shapes {weibull.shape:.6f} and {shape:.6f}")

    result, replay_seconds = timed(replay, trace, INTERVAL, COST, RESTART)
    reference, loop_seconds = timed(python_replay, trace.lifetimes, trace.preempted)
    assert abs(result.waste - reference) < 1e-12
    print(f"replay one interval:     {replay_seconds:6.3f} s, against a Python loop "
          f"{loop_seconds:.3f} s: {loop_seconds / replay_seconds:.0f}x (same waste)")
    print(f"fit and replay together: {fit_seconds + replay_seconds:6.3f} s")
    gang, gang_seconds = timed(replay, trace, INTERVAL, COST, RESTART, gang_size=8)
    print(f"replay a gang of 8:      {gang_seconds:6.3f} s "
          f"({gang.interruptions:,} interruptions)")
    (best, _), scan_seconds = timed(best_fixed_interval, trace, COST, RESTART)
    print(f"scan for the best fixed interval: {scan_seconds:.3f} s (best {60 * best:.1f} min, "
          f"grid of relative step 0.001)")
    assert np.isfinite(fit.weibull_shape)


if __name__ == "__main__":
    main()
