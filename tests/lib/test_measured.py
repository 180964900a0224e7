"""The measured H200 run (book/data/gpu/): a training loop really killed at a published
trace's preemption times, replayed by `spotmath.traces.replay` at the interval, write and
restart it measured."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from spotmath.traces.reading import trace_of_lives
from spotmath.traces.replay import replay

DATA = Path(__file__).resolve().parents[2] / "book" / "data" / "gpu" / \
    "checkpoint_costs_h200.json"


def test_the_replay_keeps_what_the_killed_run_committed():
    """At the run's own interval (its mean compute between commits), mean write and mean
    restart, the replay's useful compute over the lives that ended equals the compute the
    run had committed by its last kill, to within one training step."""
    data = json.loads(DATA.read_text())
    run = data["killed_run_125M"]
    commits = run["commits"]
    last_kill = run["lives"][-2]["killed_s"]
    committed = max(c["compute_held_s"] for c in commits if c["at_s"] <= last_kill)
    held = [c["compute_held_s"] for c in commits]
    interval = float(np.mean(np.diff([0.0] + held[:-1])))  # the lives that ended
    write = float(np.mean([c["write_s"] for c in commits]))
    restart = float(np.mean(run["restart_s"]))
    lives = run["lives"]  # the last, still running at the horizon, is censored
    trace = trace_of_lives([life["launched_s"] for life in lives],
                           [life["killed_s"] for life in lives[:-1]])
    replayed = replay(trace, interval / 3600, write / 3600, restart / 3600)
    assert replayed.censored == 1 and replayed.lifetimes_used == len(run["lives"]) - 1
    step = data["hf_trainer_125M"]["step_s_median"]
    assert replayed.useful_hours * 3600 == pytest.approx(committed, abs=step)
    # most lives ended before their restart did: they kept nothing, as in the run
    short = [life for life in run["lives"][:-1]
             if life["killed_s"] - life["launched_s"] < restart]
    assert len(short) == len(run["lives"]) - 2
