"""The interval inside the training loop, without a framework: the schedule's answers on an
injected clock against a numeric optimiser of the exact waste, C measured, λ learned from
the run log, notices, ranks, and the run log read as a trace."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

import spotmath as sm
from spotmath.inputs import InputError
from spotmath.traces.reading import read_trace
from spotmath.traces.run_log import Life, RunLog, Save, read_run_log, write_run_log
from spotmath.training import RUN_LOG_NAME, CheckpointSchedule
from spotmath.training.schedule import MIN_WRITE_S


class Clock:
    """Seconds since the epoch, moved by hand."""

    def __init__(self, now: float = 1_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def numeric_optimum(rate: float, cost: float) -> float:
    """The interval that minimises the exact waste, by a bounded search (no Lambert W)."""
    found = minimize_scalar(lambda t: float(sm.waste_fraction(rate, t, cost, 0.0)),
                            bounds=(cost / 100, 100 / rate), method="bounded",
                            options={"xatol": 1e-10})
    return found.x


def schedule(tmp_path, clock, **settings) -> CheckpointSchedule:
    settings = {"mtbf": "4h", "gang_size": 8, "checkpoint_cost": "30s", **settings}
    return CheckpointSchedule(tmp_path, clock=clock, **settings)


def run(plan: CheckpointSchedule, clock: Clock, steps: int, step_s: float, write_s: float
        ) -> list[int]:
    """A loop of ``steps`` steps of ``step_s`` seconds, each write ``write_s``; the steps
    saved after."""
    saved = []
    for step in range(1, steps + 1):
        clock.now += step_s
        if plan.should_save(step):
            plan.write_started()
            clock.now += write_s
            plan.write_ended(step)
            saved.append(step)
    return saved


def test_saves_are_spaced_at_the_exact_optimum_for_the_gangs_rate(tmp_path):
    """A prior held fixed (a weight of a billion preemptions) and writes of 30 s: each save
    comes at the first step whose training since the last write reaches the optimum that
    a numeric search of the exact waste finds for 8 nodes at one preemption in 4 hours."""
    clock = Clock()
    plan = schedule(tmp_path, clock, prior_preemptions=1e9)
    plan.start()
    optimum = numeric_optimum(8 / 4, 30 / 3600)
    assert plan.interval_h == pytest.approx(optimum, rel=1e-6)
    saved = run(plan, clock, 200, 10.0, 30.0)
    every = math.ceil(optimum * 3600 / 10.0)  # steps of 10 s
    assert saved == list(range(every, 201, every))
    assert plan.checkpoint_cost_h == pytest.approx(30 / 3600)


def test_c_is_the_median_of_the_latest_writes_without_the_first(tmp_path):
    clock = Clock()
    plan = schedule(tmp_path, clock, checkpoint_cost="2min")
    plan.start()
    assert plan.checkpoint_cost_h == pytest.approx(2 / 60)  # the guess, before any write
    for step, seconds in enumerate([90.0, 10.0, 12.0, 11.0, 50.0, 13.0, 14.0], start=1):
        plan.write_started()
        clock.now += seconds
        plan.write_ended(step)
    assert plan.checkpoint_cost_h * 3600 == pytest.approx(13.0)  # 12, 11, 50, 13, 14
    written = read_run_log(tmp_path / RUN_LOG_NAME).lives[0].saves
    assert [save.seconds for save in written] == [90.0, 10.0, 12.0, 11.0, 50.0, 13.0, 14.0]
    quick = schedule(tmp_path / "quick", clock)
    quick.start()
    for step in (1, 2):
        quick.write_started()
        quick.write_ended(step)  # the clock did not move
    assert quick.checkpoint_cost_h * 3600 == MIN_WRITE_S


def test_lambda_is_the_gamma_posterior_from_the_lives_in_the_log(tmp_path):
    """Three lives ran 2, 1 and 3 hours on a gang of 4; the first two did not say goodbye.
    The next start counts the third as preempted too: k = 3 in N·H = 24 node-hours, against
    a prior of 1/(4 h) weighted as 5 preemptions (20 node-hours): (5 + 3)/(20 + 24)."""
    hour = 3600.0
    lives = [Life(0.0, 2 * hour, 100, "preempted"), Life(2.1 * hour, 3.1 * hour, 150),
             Life(3.2 * hour, 6.2 * hour, 300)]
    lives[1].end = "running"
    write_run_log(RunLog(4, lives), tmp_path / RUN_LOG_NAME)
    clock = Clock(6.3 * hour)
    plan = schedule(tmp_path, clock, gang_size=4)
    plan.start(300)
    assert [life.end for life in plan.log.lives] == ["preempted"] * 3 + ["running"]
    assert plan.preemption_rate == pytest.approx((5 + 3) / (20 + 24))
    again = read_run_log(tmp_path / RUN_LOG_NAME)
    assert again.preemptions == 3 and again.lives[-1].start_s == 6.3 * hour
    with pytest.raises(InputError, match="gang_size: spotmath-run-log.json was kept for a "
                                         "gang of 4, this run is a gang of 8"):
        schedule(tmp_path, clock, gang_size=8).start()


def test_a_notice_saves_at_once_when_the_write_fits_in_it(tmp_path):
    clock = Clock()
    plan = schedule(tmp_path, clock, notice="2min")
    plan.start()
    assert math.isinf(plan.interval_h)  # every preemption noticed: write on notice only
    # then the floor of writing on notice only, 1 − e^{−NλC} with no restart [notice-waste-floor]
    assert plan.summary()["spotmath/expected_waste"] == pytest.approx(
        1 - math.exp(-2.0 * 30 / 3600), rel=1e-9)
    clock.now += 60
    assert not plan.should_save(1)
    plan.notice_received()
    assert plan.should_save(2)
    short = schedule(tmp_path / "short", clock, notice="20s")  # a write of 30 s does not fit
    short.start()
    assert short.interval_h == pytest.approx(numeric_optimum(2.0, 30 / 3600), rel=1e-6)
    short.notice_received()
    assert not short.should_save(1)


def test_rank_zero_decides_for_every_rank_and_alone_keeps_the_log(tmp_path):
    clock = Clock()
    answers = []

    def broadcast(answer):  # rank 0's answer, as torch.distributed would carry it
        answers.append(answer)
        return answers[0] if len(answers) % 2 == 0 else answer

    zero = schedule(tmp_path, clock, broadcast=broadcast, prior_preemptions=1e9)
    other = schedule(tmp_path / "one", clock, rank=1, broadcast=lambda a: answers[-1])
    zero.start(), other.start()
    clock.now += 3600
    assert zero.should_save(100) and other.should_save(100)
    assert (tmp_path / RUN_LOG_NAME).exists() and not (tmp_path / "one").exists()


@pytest.mark.parametrize("settings, message", [
    ({"mtbf": None}, "preemption_rate: give the prior as preemption_rate, as mtbf or as a "
                     "trace"),
    ({"preemption_rate": "0.25/h"}, "preemption_rate: give the prior"),
    ({"mtbf": "-4h"}, "mtbf"),
    ({"gang_size": 0}, "gang_size"),
    ({"checkpoint_cost": "soon"}, "checkpoint_cost"),
    ({"prior_preemptions": 0}, "prior_preemptions: must be a number > 0"),
    ({"notice": "-2min"}, "notice"),
    ({"notice_share": 1.5}, "notice_share")])
def test_bad_settings_are_refused_in_one_line(tmp_path, settings, message):
    with pytest.raises(InputError, match=message) as refused:
        schedule(tmp_path, Clock(), **settings)
    assert "\n" not in str(refused.value)


def test_a_fitted_trace_is_a_prior_weighted_as_its_preemptions(tmp_path):
    """The Bamboo p3 trace as the prior: its rate per node-hour, as much evidence as its
    preemptions; a run log as the prior gives one node's rate, the gang's over N."""
    pool = Path(__file__).resolve().parents[2] / "book" / "data" / "traces" / "p3-trace.csv"
    p3 = read_trace(pool)
    plan = schedule(tmp_path, Clock(), mtbf=None, trace=pool)
    assert plan.prior_rate == pytest.approx(p3.preemptions / p3.node_hours)
    assert plan.prior_preemptions == p3.preemptions
    hour = 3600.0
    log = RunLog(4, [Life(0.0, 2 * hour, 10, "preempted"), Life(2.5 * hour, 4.5 * hour)])
    (tmp_path / "old").mkdir()
    path = write_run_log(log, tmp_path / "old" / RUN_LOG_NAME)
    again = schedule(tmp_path / "new", Clock(), mtbf=None, trace=path, gang_size=4)
    assert again.prior_rate == pytest.approx(1 / 4 / 4) and again.prior_preemptions == 1


def test_the_heartbeat_keeps_the_last_sign_of_life(tmp_path):
    clock = Clock()
    plan = schedule(tmp_path, clock)
    plan.start()
    for step in range(1, 6):
        clock.now += 4.0
        plan.should_save(step)
    life = read_run_log(tmp_path / RUN_LOG_NAME).lives[0]
    assert (life.last_s - life.start_s, life.last_step) == (12.0, 3)  # every 10 s at most


def test_a_run_log_reads_as_the_gangs_lifetime_trace(tmp_path, cli):
    """Lives of 2, 3 and 5 hours, the first two preempted, the last still running: the
    trace has k = 2 in 10 gang-hours, and `spotmath fit` gives 0.2 an hour."""
    hour = 3600.0
    log = RunLog(8, [Life(0.0, 2 * hour, 10, "preempted", [Save(hour, 20.0, 5)]),
                     Life(2.5 * hour, 5.5 * hour, 30, "preempted"),
                     Life(6 * hour, 11 * hour, 80)])
    path = write_run_log(log, tmp_path / RUN_LOG_NAME)
    trace = read_trace(path)
    assert (trace.preemptions, trace.censored, trace.node_hours) == (2, 1, 10.0)
    assert trace.preemption_rate == pytest.approx(2 / 10)
    done = cli("fit", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["preemption_rate"] == pytest.approx(0.2)
    assert read_trace(path, "run-log").preemptions == 2
    said = [line for line in cli("fit", str(path)).stdout.splitlines()
            if line.startswith("a run log")]
    assert said == ["a run log             each lifetime is the whole gang's (N = 8): the "
                    "rate is the gang's, Nλ, one node's λ 0.025/h; the plan below is for "
                    "the gang as one node"]


@pytest.mark.parametrize("text, message", [
    ("{not json", ": not a run log (not JSON"),
    ('{"format": "other"}', ": not a run log (no \"format\""),
    ('{"format": "spotmath-run-log", "version": 2}', ": run log version 2 is not known"),
    ('{"format": "spotmath-run-log", "version": 1, "gang_size": 0, "lives": []}',
     ": gang_size must be a whole number >= 1"),
    ('{"format": "spotmath-run-log", "version": 1, "gang_size": 2, "lives": [{"start_s": 5,'
     ' "last_s": 1, "end": "running", "saves": []}]}', ", life 1: last_s 1 is before start_s 5"),
    ('{"format": "spotmath-run-log", "version": 1, "gang_size": 2, "lives": [{"start_s": 0,'
     ' "last_s": 1, "end": "killed", "saves": []}]}', ", life 1: end must be one of"),
    ('{"format": "spotmath-run-log", "version": 1, "gang_size": 2, "lives": [{"start_s": 0,'
     ' "last_s": 1, "end": "running", "saves": [{"at_s": 1}]}]}',
      ", life 1, save 1: a save holds at_s, seconds and step")])
def test_a_malformed_run_log_is_refused_naming_the_file_and_the_life(tmp_path, text, message):
    path = tmp_path / "log.json"
    path.write_text(text)
    with pytest.raises(InputError, match="^log.json" + message.replace("(", r"\(")):
        read_run_log(path)


def test_a_life_killed_before_its_first_step_is_a_preemption_of_no_length(tmp_path):
    """The real run's log (book/data/training/) holds one: it counts, and its length is
    known only to the heartbeat, the trace's clock tick."""
    log = RunLog(2, [Life(0.0, 600.0, 50, "preempted"), Life(700.0, 700.0, 50, "preempted"),
                     Life(800.0, 1400.0, 90)])
    trace = read_trace(write_run_log(log, tmp_path / RUN_LOG_NAME))
    assert (trace.preemptions, trace.resolution * 3600) == (2, 10.0)
    assert trace.node_hours == pytest.approx(1 / 3) and trace.lifetimes[1] == 0
    real = read_trace(Path(__file__).resolve().parents[2] / "book" / "data" / "training"
                      / "run_log_tiny_gpt2.json")
    assert (real.preemptions, real.censored, real.gang_size) == (7, 1, 1)
    assert np.count_nonzero(real.lifetimes == 0) == 1
