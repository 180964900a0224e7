"""A gang in a shared pool: the derivations against the chain solved as a matrix, and both
against the event simulator."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
import scipy.integrate
import scipy.linalg
import scipy.stats
import sympy as sp

from spotmath.inputs import InputError, duration_text
from spotmath.model import derivations as D
from spotmath.model.cluster import SharedPool, gang_in_pool, up_time_hazard
from spotmath.model.simulate_cluster import simulate_pool

pytestmark = pytest.mark.derives  # SymPy: run first, together (tests/conftest.py)

#: (G, α, h, g, N): g > 1 and g = 1, N a multiple of g and not, light and heavy loads.
SETTINGS = [(64, 2.0, 2.0, 8, 16), (16, 2.0, 1.0, 4, 8), (32, 12.0, 2.0, 1, 5),
            (48, 3.0, 3.0, 4, 10), (24, 8.0, 1.0, 2, 7), (40, 0.5, 4.0, 8, 12)]


def chain_by_matrix(G, alpha, h, g, N):
    """The chain's generator solved with linear algebra, independently of the derivations:
    the stationary law (null space), the flow out of the up set, and the first passage
    from k* to k* + 1 as a phase-type law (moments from the inverse sub-generator)."""
    top, star = G // g, (G - N) // g
    levels = np.arange(top + 1)
    Q = np.zeros((top + 1, top + 1))
    Q[levels[:-1], levels[:-1] + 1] = alpha
    Q[levels[1:], levels[1:] - 1] = levels[1:] / h
    Q -= np.diag(Q.sum(axis=1))
    pi = scipy.linalg.null_space(Q.T)[:, 0]
    pi /= pi.sum()
    up = pi[:star + 1].sum()
    flow = alpha * pi[star]
    S = Q[:star + 1, :star + 1].copy()
    start = np.zeros(star + 1)
    start[-1] = 1
    inverse = np.linalg.inv(-S)
    mean = start @ inverse @ np.ones(star + 1)
    second = 2 * start @ inverse @ inverse @ np.ones(star + 1)
    return {"rate": flow / up, "up": up, "wait": (1 - up) / flow, "mean": mean,
            "cv": math.sqrt(second / mean**2 - 1)}


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_derived_numbers_are_the_chain_solved_as_a_matrix(setting):
    G, alpha, h, g, N = setting
    gang = gang_in_pool(SharedPool.checked(G, alpha, h, g), N)
    exact = chain_by_matrix(*setting)
    assert gang.preemption_rate == pytest.approx(exact["rate"], rel=1e-8)
    assert gang.up_share == pytest.approx(exact["up"], rel=1e-8)
    assert gang.readmission_wait == pytest.approx(exact["wait"], rel=1e-7)
    assert gang.up_time_mean == pytest.approx(exact["mean"], rel=1e-8)
    assert gang.up_time_mean == pytest.approx(1 / gang.preemption_rate, rel=1e-10)
    assert gang.up_time_cv == pytest.approx(exact["cv"], rel=1e-7)
    assert gang.up_time_cv > 1  # not Poisson: a decreasing hazard


def test_sympys_sum_is_erlangs_b_times_the_arrival_rate():
    """The derivation's own form, the sum over the up levels, evaluated by SymPy."""
    G, alpha, h, g, N = SETTINGS[3]
    gang = gang_in_pool(SharedPool.checked(G, alpha, h, g), N)
    rate = D.pool_preemption_rate().subs({D.alpha: alpha, D.hold: h,
                                          D.star_level: gang.star}).doit()
    assert float(sp.N(rate, 30)) == pytest.approx(gang.preemption_rate, rel=1e-12)
    assert D.erlang_stationary().subs(D.level, 0) == sp.Symbol("pi_0", positive=True)


def test_the_hazard_starts_at_the_arrival_rate_falls_and_integrates_to_the_mean():
    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    gang = gang_in_pool(pool, 16)
    ages = np.linspace(0, 12, 25)
    hazard = up_time_hazard(pool, gang, ages)
    assert hazard[0] == pytest.approx(2.0)
    assert np.all(np.diff(hazard) < 0)
    # survival from the hazard, integrated, is the mean up time
    grid = np.linspace(0, 400, 8001)
    survival = np.exp(-scipy.integrate.cumulative_trapezoid(
        up_time_hazard(pool, gang, grid), grid, initial=0))
    assert scipy.integrate.trapezoid(survival, grid) == pytest.approx(gang.up_time_mean,
                                                                     rel=2e-3)


def test_the_restart_time_is_a_simulated_wait_and_preemptible_start_up():
    rng = np.random.default_rng(3)
    rate, startup, wait = 0.8, 0.5, 0.3
    gang = gang_in_pool(SharedPool.checked(16, 2.0, 1.0, 4), 8)
    gang = type(gang)(8, gang.star, rate, gang.up_share, wait, 1 / rate, 1.0)
    totals = np.zeros(100_000)
    going = np.ones(totals.size, dtype=bool)
    while going.any():
        totals[going] += rng.exponential(wait, going.sum())
        hit = rng.exponential(1 / rate, going.sum())
        totals[going] += np.minimum(hit, startup)
        going[np.flatnonzero(going)[hit >= startup]] = False
    se = totals.std() / math.sqrt(totals.size)
    assert abs(totals.mean() - gang.restart_time(startup)) < 4 * se


def _replicas(setting, hold="exponential", reps=12, hours=1500.0):
    G, alpha, h, g, N = setting
    pool = SharedPool.checked(G, alpha, h, g)
    return [simulate_pool(pool, [N], hours=hours, hold=hold, hold_cv=2.0, seed=seed)
            for seed in range(reps)]


def _agrees(values, expected, z):
    values = np.asarray(values)
    se = values.std(ddof=1) / math.sqrt(values.size)
    return abs(values.mean() - expected) <= z * se + 1e-12


#: Bonferroni over the settings and the three quantities (two-sided, 1% in all).
Z = scipy.stats.norm.ppf(1 - 0.01 / (2 * 3 * (len(SETTINGS) + 2)))


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_simulator_witnesses_rate_time_up_and_wait(setting):
    G, alpha, h, g, N = setting
    gang = gang_in_pool(SharedPool.checked(G, alpha, h, g), N)
    runs = _replicas(setting)
    assert _agrees([run.gangs[0].preemption_rate for run in runs], gang.preemption_rate, Z)
    assert _agrees([run.up_share() for run in runs], gang.up_share, Z)
    assert _agrees([np.mean(run.gangs[0].down_spells) for run in runs],
                   gang.readmission_wait, Z)
    spells = np.concatenate([run.gangs[0].up_spells for run in runs])
    assert spells.std() / spells.mean() > 1.1  # the simulator's up times: CV > 1 too


@pytest.mark.parametrize("hold", ["deterministic", "lognormal"])
def test_rate_time_up_and_wait_do_not_depend_on_the_holding_law_but_the_cv_does(hold):
    """Insensitivity (M/G/c/c): the same mean holding time gives the same rate, share and
    wait; the up time's law is not insensitive, so its CV moves."""
    setting = SETTINGS[0]
    G, alpha, h, g, N = setting
    gang = gang_in_pool(SharedPool.checked(G, alpha, h, g), N)
    runs = _replicas(setting, hold=hold, reps=16)
    assert _agrees([run.gangs[0].preemption_rate for run in runs], gang.preemption_rate, Z)
    assert _agrees([run.up_share() for run in runs], gang.up_share, Z)
    assert _agrees([np.mean(run.gangs[0].down_spells) for run in runs],
                   gang.readmission_wait, Z)
    spells = np.concatenate([run.gangs[0].up_spells for run in runs])
    assert abs(spells.std() / spells.mean() - gang.up_time_cv) > 0.15


def test_a_gang_that_fits_beside_every_request_is_never_preempted():
    pool = SharedPool.checked(68, 2.0, 2.0, 8)
    gang = gang_in_pool(pool, 4)
    assert gang.never_preempted and gang.up_share == 1.0 and gang.up_time_cv is None
    assert gang.interval(1 / 60) == math.inf and gang.waste(1 / 60, 0.1) == 0.0
    run = simulate_pool(pool, [4], hours=500, seed=1)
    assert run.gangs[0].preemptions == 0


def test_the_rate_jumps_where_the_gang_crosses_a_multiple_of_the_request():
    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    rates = [gang_in_pool(pool, n).preemption_rate for n in range(1, 65)]
    assert len(set(rates[:8])) == 1 and rates[8] > rates[7]  # N = 1 … 8 share k* = 7
    assert all(b >= a for a, b in zip(rates, rates[1:]))


def test_most_recently_admitted_first_makes_the_young_gang_the_victim():
    """Two gangs, one request's worth of room: under 'recent' the gang admitted last goes
    first, so short up spells are likelier than 'random' makes them."""
    pool = SharedPool.checked(32, 2.0, 1.0, 8)
    spells = {}
    for victim in ("recent", "random"):
        runs = [simulate_pool(pool, [8, 8], hours=1500, victim=victim, seed=s)
                for s in range(4)]
        spells[victim] = np.concatenate([run.gangs[i].up_spells for run in runs
                                         for i in (0, 1)])
    cv = {victim: values.std() / values.mean() for victim, values in spells.items()}
    assert cv["recent"] > cv["random"] + 0.1


@pytest.mark.parametrize("hold, grace, interval", [("exponential", 0.0, None),
                                                   ("lognormal", 0.3, 0.5),
                                                   ("deterministic", 0.0, 0.25)])
def test_a_full_pool_turns_arrivals_away_as_one_by_one(monkeypatch, hold, grace, interval):
    """Where every request's place is taken the simulator draws the arrivals' gaps in
    blocks: the same run, to the last number and event, as turning them away one by one
    (each gap drawn alone, as for an arrival admitted)."""
    import pickle

    from spotmath.model import simulate_cluster

    def one_by_one(self, at, event):
        while True:
            self.turned_away += at >= self.warm
            at += self.mean_gap * self.draw()
            if at >= event or at >= self.end:
                return at

    pool = SharedPool.checked(16, "40/h", "30min", 4)  # 20 requests at once on average, 4 fit
    kwargs = dict(hours=300, warmup=5, hold=hold, hold_cv=1.5, grace=grace,
                  interval=interval, checkpoint_cost=0.02, startup=0.1, log=True)
    for seed in range(3):
        runs = [simulate_pool(pool, [8, 4], seed=seed, **kwargs)]
        with monkeypatch.context() as patch:
            patch.setattr(simulate_cluster._Pool, "turned_away_until", one_by_one)
            runs.append(simulate_pool(pool, [8, 4], seed=seed, **kwargs))
        assert runs[0].turned_away > 1000
        assert pickle.dumps(runs[0]) == pickle.dumps(runs[1])  # every field and event


@pytest.mark.parametrize("hold", ["exponential", "deterministic"])
def test_draws_in_blocks_run_as_draws_one_at_a_time(monkeypatch, hold):
    """Where only exponential gaps and holds are drawn the simulator draws them in
    blocks: the same run, to the last number and event, as drawing each from the
    generator when it is needed (as runs with other laws do)."""
    import pickle

    from spotmath.model import simulate_cluster

    pool = SharedPool.checked(16, "6/h", "30min", 4)  # full at times: arrivals turned away
    kwargs = dict(hours=300, warmup=5, hold=hold, grace=0.1, interval=0.5,
                  checkpoint_cost=0.02, startup=0.1, log=True)
    for seed in range(3):
        runs = [simulate_pool(pool, [8, 4, 4], seed=seed, **kwargs)]
        with monkeypatch.context() as patch:
            patch.setattr(simulate_cluster, "_Exponentials", simulate_cluster._OneByOne)
            runs.append(simulate_pool(pool, [8, 4, 4], seed=seed, **kwargs))
        assert runs[0].turned_away > 10 and runs[0].gangs[2].preemptions > 10
        assert pickle.dumps(runs[0]) == pickle.dumps(runs[1])  # every field and event


def test_the_blocks_hand_out_the_draws_one_at_a_time_would_give():
    """A call, or a run taken and skipped, gives the next standard exponentials of the
    generator, across the ends of blocks; m times one is NumPy's draw of mean m."""
    from spotmath.model.simulate_cluster import _Exponentials

    blocks, alone = _Exponentials(np.random.default_rng(4), block=5), np.random.default_rng(4)
    for count in (1, 3, 1, 7, 12, 1, 2, 40):
        taken = blocks.take(count)
        if count % 2:  # used one at a time
            got = [blocks() for _ in range(count)]
            assert got == taken.tolist()
        else:
            blocks.skip(count)
            got = taken.tolist()
        assert [2.5 * value for value in got] == [float(alone.exponential(2.5))
                                                  for _ in range(count)]


def test_the_simulator_logs_admissions_preemptions_and_writes_in_order():
    pool = SharedPool.checked(16, 2.0, 1.0, 4)
    run = simulate_pool(pool, [8], hours=50, warmup=0, interval=0.25,
                        checkpoint_cost=1 / 60, startup=0.1, seed=2, log=True)
    kinds = [event.kind for event in sorted(run.log, key=lambda e: e.time)]
    assert kinds[0] == "admit" and {"preempt", "write"} <= set(kinds)
    admits, preempts = kinds.count("admit"), kinds.count("preempt")
    assert admits - preempts in (0, 1)
    assert run.gangs[0].kept <= run.gangs[0].up_hours
    assert run.gangs[0].kept == pytest.approx(0.25 * kinds.count("write"))


@pytest.mark.parametrize("args, message", [
    ((64, "2/h", "2h", 65), "hp_gpus: a request of 65 GPUs never fits a pool of 64"),
    ((64, "-2", "2h", 8), "hp_rate: must be a rate >= 0"),
    ((64, "2", "1e-120", 8), "hp_hold: a load (hp_rate × hp_hold) of at least 1e-100"),
    ((64.5, "2", "2h", 8), "gpus: must be a whole number of GPUs"),
    ((10**6, "2", "2h", 8), "gpus: at most 100,000 GPUs"),
])
def test_a_bad_pool_is_one_line_naming_the_value(args, message):
    with pytest.raises(InputError, match=re.escape(message)):
        SharedPool.checked(*args)


def test_the_command_prints_the_librarys_numbers(cli):
    """The gang alone at its exact law's best interval (the recommendation), the
    exponential law's interval beside it with what it really wastes and what it
    predicts, and a row for every rank: each the library's own number."""
    from spotmath.cli.cluster import CLUSTER_KEYS, RANK_KEYS
    from spotmath.model.cluster_renewal import best_interval, kept_share, ranks

    done = cli("cluster", "--gpus", "64", "--hp-rate", "2/h", "--hp-hold", "2h",
               "--hp-gpus", "8", "--gang-size", "16", "--checkpoint", "1min", "--restart",
               "6min", "--failure-mtbf", "none", "--json")
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout)
    assert tuple(values) == CLUSTER_KEYS
    pool = SharedPool.checked(64, 2.0, 2.0, 8, "queue")  # the default: kept in line
    gang = gang_in_pool(pool, 16)
    grace = 30 / 3600  # the default: Kubernetes' terminationGracePeriodSeconds
    assert values["preemption_rate_per_up_hour"] == gang.preemption_rate
    assert values["up_share"] == gang.up_share
    assert values["readmission_wait_h"] == gang.readmission_wait
    assert values["up_time_cv"] == gang.up_time_cv
    interval, kept = best_interval(pool, gang, 1 / 60, 0.1, grace)
    assert values["recommended_interval_h"] == interval
    assert values["waste"] == 1 - kept
    approximate = gang.interval(1 / 60, grace)
    assert values["exponential_interval_h"] == approximate
    assert values["exponential_waste"] == 1 - kept_share(pool, gang, approximate, 1 / 60,
                                                         0.1, grace)
    assert values["exponential_waste"] > values["waste"]  # the exact law's is the best
    assert values["exponential_predicted_waste"] == gang.waste(1 / 60, 0.1, grace)
    every = ranks(pool, 16, 1 / 60, 0.1, grace)
    assert [tuple(rank) for rank in values["gangs"]] == [RANK_KEYS] * len(every) == \
        [RANK_KEYS] * 4
    assert [rank["recommended_interval_h"] for rank in values["gangs"]] == \
        [rank.interval for rank in every]
    assert values["gangs"][0]["waste"] == values["waste"]  # rank 1 is the gang alone
    text = cli("cluster", "--gpus", "64", "--hp-rate", "2/h", "--hp-hold", "2h",
               "--hp-gpus", "8", "--gang-size", "16", "--restart", "6min",
               "--failure-mtbf", "none")
    assert text.returncode == 0 and "re-admission wait" in text.stdout
    assert f"checkpoint every   {duration_text(interval)} (the best interval" in text.stdout


@pytest.mark.parametrize("flags, message", [
    (["--gang-size", "65"], "--gang-size: a gang of 65 GPUs never fits a pool of 64"),
    (["--hp-rate", "x"], "--hp-rate: "),
    (["--grace=-1s"], "--grace: "),
])
def test_the_command_refuses_in_one_line(cli, flags, message):
    base = {"--gpus": "64", "--hp-rate": "2/h", "--hp-hold": "2h", "--hp-gpus": "8"}
    given = {flag.split("=")[0] for flag in flags}
    argv = [item for flag, value in base.items() if flag not in given
            for item in (flag, value)]
    done = cli("cluster", *argv, *flags)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
