"""How long does `spotmath deadline --starts 300` take on a long trace?  One run.

Run:  python benchmarks/bench_deadlines.py

A 20,000-tick trace (10-minute ticks, 139 days) drawn from a two-state Markov chain (spot
stays with probability 0.97 a tick, stays away with 0.9), 300 start ticks, a 48 h job due
in 60 h, a 12-minute changeover: every policy from every start, the policies timed one at
a time and all together (the model policy's solves cached across starts as in
`compare_starts`).  Prints seconds per policy, the total, and the mean costs.  Target
(issue #20): all five policies in at most 10 s on 2 cores.  Then each policy in checkpoint
mode from 30 starts (a 1-minute write at the exact optimal interval).
"""

from __future__ import annotations

import time

import numpy as np

from spotmath.traces.deadline_model import AvailabilityModel, markov_availability
from spotmath.traces.deadlines import POLICIES, Availability, compare_starts


def main() -> None:
    chain = AvailabilityModel(stay_up=0.97, stay_down=0.9, transitions=0)
    spot = markov_availability(chain, 20_000, seed=2)
    trace = Availability("markov", 1 / 6, spot.astype(np.int64))
    job = ("48h", "60h", "12min", 0.68)
    for policy in POLICIES:
        start = time.perf_counter()
        compare_starts(trace, *job, starts=300, seed=1, policies=[policy])
        print(f"{policy:<17} {time.perf_counter() - start:6.2f} s")
    start = time.perf_counter()
    summary = compare_starts(trace, *job, starts=300, seed=1)
    print(f"{'all five':<17} {time.perf_counter() - start:6.2f} s (target 10 s)")
    for policy in POLICIES:
        row = summary.row(policy)
        gap = "" if row["gap_closed"] is None else f", gap closed {row['gap_closed']:.0%}"
        print(f"  {policy:<17} mean cost {row['cost']:.2f}{gap}")
    # checkpoint mode: a 1-minute write at the exact optimal interval, 30 starts
    print("checkpoint mode (--interval auto --checkpoint 1min), 30 starts:")
    for policy in POLICIES:
        start = time.perf_counter()
        row = compare_starts(trace, *job, starts=30, seed=1, policies=[policy],
                             interval="auto", checkpoint="1min").row(policy)
        print(f"  {policy:<17} {time.perf_counter() - start:6.2f} s, mean cost "
              f"{row['cost']:.2f}")


if __name__ == "__main__":
    main()
