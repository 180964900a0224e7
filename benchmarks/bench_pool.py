"""How fast are the shared-pool simulator and the two-level optimum's search?

Run:  python benchmarks/bench_pool.py [--rounds 3]

Two ratios, each from one run on this machine (the best of ``--rounds`` CPU times):

1. the shared-pool simulator (`spotmath.model.simulate_cluster.simulate_pool`) on a mix
   of pools like the tests' and the cluster chapter's (holding laws, grace, headroom,
   writes, one gang and several), with its exponential draws taken in blocks against the
   same runs drawing each from the generator when it is needed (what it does where a
   lognormal hold or a random victim draws in between): the runs must be the same to the
   last bit; prints requests simulated a second;
2. the two-level break-even loss (`spotmath.model.two_level.loss_break_even`, a bisection
   over the loss with a search over patterns at each step) with the period and condition
   evaluated through their generated branch for p > 0 against the Piecewise functions
   (NumPy's select computes both branches): the answers must be the same.

Not a test: timings depend on the machine (benchmarks/README.md records one run).
"""

from __future__ import annotations

import argparse
import pickle
import time
from unittest import mock

from spotmath.model import _generated, codegen, simulate_cluster, two_level
from spotmath.model.cluster import SharedPool

#: (pool, gangs, options): the settings the pool's tests and chapter run, shortened.
POOLS = [
    (SharedPool.checked(64, "6/h", "2h", 4), [16], dict(hours=3000)),
    (SharedPool.checked(64, "6/h", "2h", 4), [16], dict(hours=3000, interval=0.5,
                                                       checkpoint_cost=0.02)),
    (SharedPool.checked(64, "12/h", "1h", 4), [16] * 3, dict(hours=2000, grace=0.05,
                                                            headroom=4)),
    (SharedPool.checked(16, "40/h", "30min", 4), [8, 4], dict(hours=1000, grace=0.1,
                                                             interval=0.25,
                                                             checkpoint_cost=0.02)),
    (SharedPool.checked(32, "8/h", "1h", 2), [8, 8], dict(hours=3000, hold="deterministic")),
]

#: (rate, options) of two-level plans: fast copies of seconds, durable writes of minutes.
LEVELS = [
    (rate, dict(level1_cost=fast / 3600, checkpoint_cost=durable / 60,
                level1_restart=2 / 60, restart_time=restart / 60,
                restart_preemptible=preemptible))
    for rate in (0.25, 2.0) for fast, durable, restart in ((5, 3, 5), (20, 10, 15))
    for preemptible in (True, False)]


def best_of(rounds: int, run) -> tuple[float, object]:
    """The least CPU time of ``rounds`` calls, and what the first returned."""
    times, first = [], None
    for round_ in range(rounds):
        start = time.process_time()
        result = run()
        times.append(time.process_time() - start)
        if round_ == 0:
            first = result
    return min(times), first


def pools() -> list[bytes]:
    return [pickle.dumps(simulate_cluster.simulate_pool(pool, gangs, seed=seed, **options))
            for pool, gangs, options in POOLS for seed in range(3)]


def break_evens() -> list[float]:
    return [two_level.loss_break_even(rate, **options) for rate, options in LEVELS]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds

    blocks, runs = best_of(rounds, pools)
    with mock.patch.object(simulate_cluster, "_Exponentials", simulate_cluster._OneByOne):
        alone, same = best_of(rounds, pools)
    if runs != same:
        raise SystemExit("the pool's runs differ with draws one at a time")
    requests = sum(len(pickle.loads(run).delays) + pickle.loads(run).turned_away
                   for run in runs)
    print(f"pool simulator: {blocks:.2f} s with draws in blocks, {alone:.2f} s one at a time "
          f"(ratio {blocks / alone:.2f}); {requests / blocks / 1e6:.2f} million requests "
          f"a second; the same {len(runs)} runs")

    lossy, answers = best_of(rounds, break_evens)
    piecewise = {name: getattr(_generated, name.replace("_lossy", ""))
                 for name in codegen.LOSSY}
    with mock.patch.multiple(_generated, **piecewise):
        whole, same = best_of(rounds, break_evens)
    if answers != same:
        raise SystemExit("the break-even losses differ with the Piecewise functions")
    print(f"two-level break-even loss: {lossy:.2f} s through the branch for p > 0, "
          f"{whole:.2f} s through the Piecewise (ratio {lossy / whole:.2f}); the same "
          f"{len(answers)} answers")


if __name__ == "__main__":
    main()
