"""`spotmath fit`, `replay` and `replay --scan` on a trace of a million rows, against an
earlier version of spotmath, in one run: wall time and peak memory of each command.

Run:  python benchmarks/bench_trace_commands.py [--baseline REV] [--rows N]

The trace is drawn by the simulator (250 instance slots at 0.5 preemptions per hour, about
a million rows) and written in the documented CSV format.  Each command runs as the reader
runs it, a process of its own, three times; the best time and its peak resident memory
are kept.  The baseline is the library as it was at git revision REV (default: the one
before the NumPy reader and the scan by counting, 7419a8a), unpacked beside this checkout
with `git archive`; both must print the same answers, and the script checks that too.
Targets on two cores: fit and replay at most 1.5 s each, the scan 3 s, 250 MB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {"fit": ["fit"], "replay": ["replay"], "replay --scan": ["replay", "--scan"]}


def measure(python_path: Path, arguments: list[str], rounds: int = 3) -> tuple[float, float,
                                                                                 str]:
    """Best wall time (s), its peak memory (MB) and the output of `spotmath ARGUMENTS`."""
    environment = dict(os.environ, PYTHONPATH=str(python_path))
    best = (float("inf"), 0.0, "")
    for _ in range(rounds):
        start = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "spotmath", *arguments],
                                   stdout=subprocess.PIPE, env=environment, cwd=python_path)
        output = process.stdout.read().decode()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        assert os.waitstatus_to_exitcode(status) == 0, arguments
        if seconds < best[0]:
            best = (seconds, usage.ru_maxrss / 1024, output)
    return best


def unpack(revision: str, folder: Path) -> Path:
    """The ``spotmath`` package as it was at ``revision``, unpacked into ``folder``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "spotmath"],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="7419a8a", help="git revision to compare with")
    parser.add_argument("--hours", type=float, default=4000,
                        help="hours the pool is observed (4000: about a million rows)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from spotmath.traces import write_trace
    from spotmath.traces.synthetic import synthetic_trace

    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        trace = synthetic_trace(preemption_rate=0.5, pool_size=250, hours=args.hours, seed=3)
        path = write_trace(trace, folder / "trace.csv")
        rows = sum(1 for _ in path.open()) - 1
        baseline = unpack(args.baseline, folder / "baseline")
        print(f"trace: {rows:,} rows, {len(trace.up):,} lifetimes; baseline {args.baseline}")
        print(f"{'command':<16}{'now':>9}{'baseline':>11}{'ratio':>8}{'memory now':>13}"
              f"{'baseline':>11}")
        for name, arguments in COMMANDS.items():
            now = measure(ROOT, [*arguments, str(path)])
            before = measure(baseline, [*arguments, str(path)])
            same = now[2] == before[2]
            print(f"{name:<16}{now[0]:>8.2f}s{before[0]:>10.2f}s{before[0] / now[0]:>7.1f}x"
                  f"{now[1]:>10.0f} MB{before[1]:>8.0f} MB"
                  + ("" if same else "   (outputs differ: see below)"))
            if not same:
                changed = [(a, b) for a, b in zip(now[2].splitlines(),
                                                   before[2].splitlines()) if a != b]
                for a, b in changed[:5]:
                    print(f"    now:      {a}\n    baseline: {b}")


if __name__ == "__main__":
    main()
