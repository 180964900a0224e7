"""A real run log: a tiny GPT-2 trained by the Hugging Face Trainer with spotmath's
callback, killed (SIGKILL) at random times and relaunched until it finishes.

Run:  python benchmarks/train_run_log.py [--out book/data/training/run_log_tiny_gpt2.json]
      [--steps 3000] [--mean-life 6] [--seed 7]

Each life is a fresh process (tests/lib/training_scripts/hf_run.py: 2 layers of width 64 on
random tokens, on the CPU, each step slowed to 10 ms so that the run lasts a while); a
kill comes an exponential time after the life's first step (mean ``--mean-life`` seconds,
seeded), as a preemption would.  The callback's prior is one preemption in
``--mean-life`` seconds, weighted as five; what the job then learns, and the writes it
timed, are in the log, which is copied to ``--out`` (the book's calibration chapter reads
it).  Needs `pip install -r requirements-train.txt`; about a minute.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "lib" / "training_scripts" / "hf_run.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path,
                        default=ROOT / "book" / "data" / "training" / "run_log_tiny_gpt2.json")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--mean-life", type=float, default=6.0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if args.out.exists():
        raise SystemExit(f"{args.out} exists: this script writes only a file of its own")
    random = np.random.default_rng(args.seed)
    folder = Path(tempfile.mkdtemp())
    prior = f"{args.mean_life}s"
    command = [sys.executable, str(SCRIPT), str(folder), str(args.steps), "0.01", prior,
               prior, "5"]
    lives = 0
    while True:
        lives += 1
        running = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        log = folder / "spotmath-run-log.json"
        while not (log.exists() and len(json.loads(log.read_text())["lives"]) == lives):
            time.sleep(0.01)  # the life has begun (its first entry in the log)
        life = random.exponential(args.mean_life)
        try:
            running.wait(timeout=life)
            break  # finished before the kill
        except subprocess.TimeoutExpired:
            running.send_signal(signal.SIGKILL)
            running.wait()
            print(f"life {lives}: killed after {life:.1f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(log, args.out)
    print(f"{lives} lives; the log is {args.out}")


if __name__ == "__main__":
    main()
