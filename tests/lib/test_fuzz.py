"""Odd strings for every option of the commands: an answer, or one line and exit 2.

Each value goes to one option of `plan`, `fit`, `replay` or `deadline` (the others at
their defaults): the command either answers, with finite numbers only in its JSON, or
refuses in one line naming what is wrong, with exit status 2. Never a traceback.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

COMMANDS = {
    "plan": (["plan", "--json"],
             ["--mtbf", "--rate", "--restart", "--checkpoint", "--discount", "--gang-size",
              "--notice", "--notice-share", "--persist", "--level1", "--level1-restart",
              "--level1-loss", "--compute", "--deadline", "--state", "--write-bandwidth",
              "--snapshot-bandwidth"]),
    "fit": (["fit", "{trace}", "--json"],
            ["--window", "--gang-size", "--restart", "--checkpoint", "--discount",
             "--level1-group"]),
    "replay": (["replay", "{trace}", "--json"],
               ["--interval", "--gang-size", "--restart", "--checkpoint"]),
    "deadline": (["deadline", "--trace", "{pool}", "--json", "--compute", "2h",
                  "--deadline", "4h", "--policy", "greedy"],
                 ["--gang-size", "--changeover", "--discount", "--tick", "--start-tick"]),
}
#: Options that need a partner to mean anything: given with one, so the value is what is
#: tried.
PARTNERS = {"--notice-share": ["--notice", "2min"], "--level1-restart": ["--level1", "5s"],
            "--level1-loss": ["--level1", "5s"], "--level1": ["--level1-loss", "0.3"],
            "--compute": ["--deadline", "10h"], "--deadline": ["--compute", "6h"],
            "--notice": ["--notice-share", "0.5"],
            "--state": ["--write-bandwidth", "1GB/s"], "--write-bandwidth": ["--state", "13GB"],
            "--snapshot-bandwidth": ["--state", "13GB", "--write-bandwidth", "1GB/s"]}


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    return True


@pytest.mark.parametrize("command", list(COMMANDS))
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_odd_values_get_an_answer_or_one_line(cli, traces_folder, odd_values, command,
                                              data):
    base, options = COMMANDS[command]
    option = data.draw(st.sampled_from(options), label="option")
    value = data.draw(odd_values, label="value")
    files = {"{trace}": str(traces_folder / "p3-trace.csv"),
             "{pool}": str(traces_folder / "v100x1-east1c.txt")}
    arguments = [files.get(item, item) for item in base]
    arguments += PARTNERS.get(option, []) + [f"{option}={value}"]
    done = cli(*arguments)
    assert done.returncode in (0, 2), (arguments, done.stderr)
    if done.returncode == 2:
        assert done.stderr.startswith(f"spotmath {command}: error: "), (arguments,
                                                                         done.stderr)
        assert done.stderr.count("\n") == 1, (arguments, done.stderr)
    else:
        assert _finite(json.loads(done.stdout)), (arguments, done.stdout)
