"""benchmarks/measure_checkpoint.py without PyTorch: its parsing and the commands it
prints, which `spotmath plan` must accept as printed."""

from __future__ import annotations

import argparse
import doctest
import importlib.util
import json
import shlex
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "measure_checkpoint.py"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("measure_checkpoint", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_it_imports_without_pytorch_and_its_examples_run(script):
    """Imported in a process of its own (the training adapters' tests load PyTorch into
    this one), it loads no PyTorch; its examples run here."""
    import subprocess

    code = ("import importlib.util, sys; "
            f"spec = importlib.util.spec_from_file_location('m', {str(SCRIPT)!r}); "
            "spec.loader.exec_module(importlib.util.module_from_spec(spec)); "
            "assert 'torch' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    result = doctest.testmod(script, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted >= 3


@pytest.mark.parametrize("text", ["", "12x", "nan", "1e400", "100", "-5M"])
def test_a_bad_count_is_one_line(script, text):
    with pytest.raises(argparse.ArgumentTypeError, match="not a parameter count"):
        script.parse_count(text)


def test_the_printed_commands_run_and_plan_the_measured_times(script, cli):
    measured = {"blocking": 13.8, "durable": 19.8, "snapshot": 0.24,
                "snapshot_write": 11.0, "restart": 25.1}
    blocking, asynchronous = script.plan_commands(measured)
    for line, checkpoint, persist in ((blocking, 19.8, 0.0), (asynchronous, 0.24, 11.0)):
        done = cli(*shlex.split(line)[1:], "--json")
        assert done.returncode == 0, done.stderr
        plan = json.loads(done.stdout)
        assert plan["checkpoint_cost_h"] * 3600 == pytest.approx(checkpoint)
        assert plan["persist_h"] * 3600 == pytest.approx(persist)
        assert plan["restart_time_h"] * 3600 == pytest.approx(25.1)
