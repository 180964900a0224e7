"""Measure your own checkpoint write C, its time to durable P and the restart R, on your GPU
and your storage, and print the `spotmath plan` commands with them.

Run (PyTorch and a CUDA GPU needed; spotmath itself does not need PyTorch):

    python benchmarks/measure_checkpoint.py --params 1.1B --dir /your/checkpoint/disk

It builds a model of about ``--params`` parameters (a stack of square linear layers, fp32),
takes one AdamW step so the optimizer holds its state, and then measures, ``--repeats``
times each:

* blocking: ``torch.save`` of model and optimizer to ``--dir`` (what a training loop that
  saves in line is blocked for), and durable: the same plus ``os.fsync``;
* snapshot: the state copied to pinned host memory (what an asynchronous save blocks
  for at best) and the snapshot's write to ``--dir`` with ``fsync`` (its P);
* restart: loading that checkpoint back onto the GPU and taking one step (a fresh
  process would also pay its imports and start-up: add them, as the book's measurements
  in ``book/data/gpu/`` show, about 16 s in their sandbox).

It prints the medians and two commands: a blocking plan
(``spotmath plan --checkpoint C --restart R``) and an asynchronous one
(``--checkpoint snapshot --persist P``).  ``tests/lib/test_measure_checkpoint.py`` tests
the parsing and the printed commands without PyTorch.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

#: Multipliers of a parameter count written with a suffix: 125M, 1.1B, 7e9.
SUFFIXES = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def parse_count(text: str) -> float:
    """A parameter count: ``'125M'``, ``'1.1B'``, ``'7e9'``.

    >>> parse_count("1.1B"), parse_count("125m"), parse_count("7e9")
    (1100000000.0, 125000000.0, 7000000000.0)
    """
    cleaned = text.strip().lower()
    scale = SUFFIXES.get(cleaned[-1:], None)
    number = cleaned[:-1] if scale is not None else cleaned
    try:
        value = float(number) * (scale or 1.0)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a parameter count: {text!r} (use 125M, 1.1B or 7e9)") from None
    if not math.isfinite(value) or value < 1e3:
        raise argparse.ArgumentTypeError(f"not a parameter count: {text!r} (at least 1k)")
    return value


def seconds_text(seconds: float) -> str:
    """A duration as `spotmath plan` reads it: seconds, 3 significant digits.

    >>> seconds_text(13.812), seconds_text(0.2431)
    ('13.8s', '0.243s')
    """
    return f"{seconds:.3g}s"


def plan_commands(measured: dict[str, float]) -> list[str]:
    """The two `spotmath plan` commands for the medians measured (seconds): blocking
    writes, and asynchronous ones (the snapshot blocks, the write to storage persists).

    >>> for line in plan_commands({"blocking": 13.8, "durable": 19.8, "snapshot": 0.24,
    ...                            "snapshot_write": 11.0, "restart": 25.1}):
    ...     print(line)
    spotmath plan --checkpoint 19.8s --restart 25.1s
    spotmath plan --checkpoint 0.24s --persist 11s --restart 25.1s
    """
    restart = seconds_text(measured["restart"])
    return [f"spotmath plan --checkpoint {seconds_text(measured['durable'])} "
            f"--restart {restart}",
            f"spotmath plan --checkpoint {seconds_text(measured['snapshot'])} "
            f"--persist {seconds_text(measured['snapshot_write'])} --restart {restart}"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--params", type=parse_count, default=parse_count("125M"),
                        help="model parameters, e.g. 125M or 1.1B (default 125M)")
    parser.add_argument("--dir", type=Path, default=Path("."),
                        help="folder on the storage checkpoints go to (default here)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of each (default 3)")
    return parser


def _fsync(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def _to_host(value):
    """Every tensor of a nested state copied to pinned host memory (the snapshot)."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", non_blocking=True).pin_memory() \
            if value.is_cuda else value
    if isinstance(value, dict):
        return {key: _to_host(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(item) for item in value)
    return value


def measure(params: float, folder: Path, repeats: int) -> dict[str, float]:
    """The medians, seconds (imports PyTorch; needs a CUDA GPU)."""
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("measure_checkpoint: no CUDA GPU here; run it where you train")
    width = 4096
    layers = max(1, round(params / (width * width + width)))
    model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(layers)]).cuda()
    optimizer = torch.optim.AdamW(model.parameters())
    batch = torch.randn(8, width, device="cuda")

    def step() -> None:
        optimizer.zero_grad()
        model(batch).square().mean().backward()
        optimizer.step()
        torch.cuda.synchronize()

    step()
    path = folder / "measure_checkpoint.pt"
    times: dict[str, list[float]] = {k: [] for k in
                                     ("blocking", "durable", "snapshot", "snapshot_write",
                                      "restart")}
    for _ in range(repeats):
        state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
        started = time.perf_counter()
        torch.save(state, path)
        times["blocking"].append(time.perf_counter() - started)
        _fsync(path)
        times["durable"].append(time.perf_counter() - started)
        started = time.perf_counter()
        snapshot = _to_host(state)
        torch.cuda.synchronize()
        times["snapshot"].append(time.perf_counter() - started)
        started = time.perf_counter()
        torch.save(snapshot, path)
        _fsync(path)
        times["snapshot_write"].append(time.perf_counter() - started)
        started = time.perf_counter()
        loaded = torch.load(path, map_location="cuda")
        model.load_state_dict(loaded["model"])
        optimizer.load_state_dict(loaded["optimizer"])
        step()
        times["restart"].append(time.perf_counter() - started)
    path.unlink(missing_ok=True)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    measured = measure(args.params, args.dir, args.repeats)
    for name, seconds in measured.items():
        print(f"{name:<16}{seconds_text(seconds)}")
    print("\n".join(plan_commands(measured)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
