"""How fast does `spotmath cluster` answer, from small pools to 100,000 GPUs?

Run:  python benchmarks/bench_cluster.py [--rounds 3] [--skip-chapter]

Three measurements, each from one run on this machine:

1. `spotmath cluster` (every rank and one pool or two) in a fresh process for pools of
   4,096 to 100,000 GPUs in requests of 1, 8 and 64 GPUs, ``--rounds`` times each: the
   least and the most wall seconds and the peak memory (the goal: at most 2 s and
   500 MB on two cores), or the one line that refuses;
2. the exact up-time law's kept share (`kept_share`, the spectral law built once, then
   one evaluation) against the route it replaced (dense matrix exponentials and a linear
   solve, `scipy.linalg.expm`) at 71 and 421 levels: the ratio, and that both agree;
3. the cluster chapter run by `jupyter execute` as a reader's kernel runs it, beside a
   busy process on another core, with the linear algebra's default threads and with one
   (the ratio: 1 means the chapter no longer depends on that setting).

Not a test: timings depend on the machine (benchmarks/README.md records one run).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.linalg
from bench_pool import best_of  # the least CPU time of some rounds

from spotmath.model import cluster
from spotmath.model.cluster import SharedPool, gang_in_pool
from spotmath.model.cluster_renewal import kept_share

ROOT = Path(__file__).resolve().parent.parent

#: (GPUs, GPUs a request, requests an hour, hours a request, gang): pools up to the
#: largest answered, about half of each held by requests; at 100,000 GPUs in 8-GPU
#: requests, gangs of one node (the most ranks and laws) and of three (24 GPUs leave
#: GPUs over in two pools, so the packed comparison runs too, at gangs of 22).
POOLS = [(4096, 8, 128, 2.0, 64), (20_000, 8, 600, 2.0, 256), (100_000, 64, 600, 2.0, 512),
         (100_000, 8, 3000, 2.0, 1024), (100_000, 8, 3000, 2.0, 64),
         (100_000, 8, 3000, 2.0, 24), (100_000, 8, 3000, 2.0, 8),
         (100_000, 1, 40_000, 1.0, 8)]


def command(pool: tuple) -> tuple[float, float, str]:
    """Wall seconds, peak memory (MB) and the last line of `spotmath cluster` on a pool."""
    gpus, request, rate, hold, gang = pool
    argv = [sys.executable, "-c", PEAK, "cluster", "--gpus", str(gpus), "--hp-gpus",
            str(request), "--hp-rate", f"{rate}/h", "--hp-hold", f"{hold}h", "--gang-size",
            str(gang), "--grace", "30s", "--start-target", "10s"]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    peak = int(done.stderr.rsplit("peak ", 1)[1])
    lines = [line.split("not answered: ")[1] for line in done.stdout.splitlines()
             if "not answered" in line]
    return seconds, peak / 1024, f"not answered: {lines[0]}" if lines else "answered"


#: The command in a process that says its peak memory (kB) on its last line of stderr.
PEAK = ("import resource, sys; from spotmath.cli import main; code = main(sys.argv[1:]); "
        "print('peak', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
        "sys.exit(code)")


def dense_kept(pool: SharedPool, star: int, interval: float, write: float,
               startup: float) -> float:
    """The kept share by dense matrix exponentials, as the law was computed before:
    T e_{k*} exp(Q(a + τ)) (I − exp(Qτ))⁻¹ 1 over E[U] + W."""
    levels = np.arange(star + 1)
    q = np.diag(-(pool.hp_rate + levels / pool.hp_hold))
    q[levels[:-1], levels[:-1] + 1] = pool.hp_rate
    q[levels[1:], levels[1:] - 1] = levels[1:] / pool.hp_hold
    cycle, ones = interval + write, np.ones(star + 1)
    kept = interval * (scipy.linalg.expm(q * (startup + cycle))[-1]
                       @ np.linalg.solve(np.eye(star + 1) - scipy.linalg.expm(q * cycle),
                                         ones))
    gang = gang_in_pool(pool, pool.gpus - star * pool.hp_gpus)
    return float(kept / (gang.up_time_mean + gang.readmission_wait))


def chapter(threads: str | None) -> float:
    """Seconds `jupyter execute` takes for the cluster chapter beside a busy process."""
    environment = dict(os.environ)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        environment.pop(name, None)
        if threads is not None:
            environment[name] = threads
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "jupyter", "execute",
                            f"--output={folder}/out.ipynb", str(ROOT / "book" / "cluster.ipynb")],
                           cwd=ROOT / "book", env=environment, capture_output=True,
                           check=True)
            return time.perf_counter() - start
    finally:
        busy.kill()
        busy.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-chapter", action="store_true")
    arguments = parser.parse_args()

    for pool in POOLS:  # each run --rounds times: the least and the most (a noisy machine)
        runs = [command(pool) for _ in range(arguments.rounds)]
        seconds = sorted(run[0] for run in runs)
        print(f"spotmath cluster {pool[0]:,} GPUs, requests of {pool[1]}, load "
              f"{pool[2] * pool[3]:,.0f}, gangs of {pool[4]}: {seconds[0]:.2f}-"
              f"{seconds[-1]:.2f} s over {len(runs)} runs, "
              f"{max(run[1] for run in runs):.0f} MB; {runs[-1][2]}")

    for gpus, load, star in ((128, 60.0, 70), (512, 380.0, 420)):
        pool = SharedPool.checked(gpus, load, 1.0, 1)
        gang = gang_in_pool(pool, gpus - star)

        def spectral(pool=pool, gang=gang):
            cluster._forget_laws()
            return kept_share(pool, gang, 0.3, 1 / 60, 0.1)

        new, ours = best_of(arguments.rounds, spectral)
        old, theirs = best_of(arguments.rounds,
                              lambda pool=pool, star=star: dense_kept(pool, star, 0.3, 1 / 60,
                                                                      0.1))
        if abs(ours / theirs - 1) > 1e-9:
            raise SystemExit(f"the kept shares differ: {ours} and {theirs}")
        print(f"kept share at {star + 1} levels: {new * 1e3:.1f} ms by the spectral law, "
              f"{old * 1e3:.1f} ms by dense exponentials (ratio {new / old:.3f}); the same "
              "share")

    if not arguments.skip_chapter:
        default, single = chapter(None), chapter("1")
        print(f"cluster chapter beside a busy process: {default:.1f} s with the default "
              f"threads, {single:.1f} s with one (ratio {default / single:.2f})")


if __name__ == "__main__":
    main()
