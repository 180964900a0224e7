"""The exact up-time law's renewal, the requests' start delays and one pool or two: each
against a numeric integral or a closed form, and against the event simulator."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.integrate
import scipy.linalg
import scipy.stats

from spotmath.inputs import InputError
from spotmath.model import _generated
from spotmath.model.cluster import SharedPool, gang_in_pool
from spotmath.model.cluster_renewal import best_interval, kept_share
from spotmath.model.pool_choice import one_pool_or_two, start_delays
from spotmath.model.simulate_cluster import simulate_pool

MINUTE, SECOND = 1 / 60, 1 / 3600

#: (pool, gang, interval, write, start-up, grace): no notice, a grace shorter than a
#: write, a grace that fits one, writes on notice only, g = 1, no start-up.
KEPT = [((64, 2.0, 2.0, 8), 16, 20 * MINUTE, MINUTE, 0.1, 0.0),
        ((64, 2.0, 2.0, 8), 16, 20 * MINUTE, MINUTE, 0.1, 30 * SECOND),
        ((64, 2.0, 2.0, 8), 16, 20 * MINUTE, MINUTE, 0.1, 2 * MINUTE),
        ((64, 2.0, 2.0, 8), 16, math.inf, MINUTE, 0.1, 2 * MINUTE),
        ((32, 12.0, 2.0, 1), 5, 15 * MINUTE, 3 * MINUTE, 0.0, 0.0),
        ((48, 3.0, 3.0, 4), 10, 30 * MINUTE, 2 * MINUTE, 0.05, 0.0)]

#: (pool, gang, headroom, grace): none needed, one request's room, two, a long grace.
DELAYS = [((128, 4.0, 2.0, 8), 16, 0, 30 * SECOND), ((128, 4.0, 2.0, 8), 16, 8, 30 * SECOND),
          ((256, 8.0, 2.0, 8), 16, 8, 30 * SECOND), ((128, 4.0, 2.0, 8), 16, 16, 0.1)]


#: Bonferroni over the comparisons of this file against the simulator (1% in all).
Z = scipy.stats.norm.ppf(1 - 0.01 / (2 * (len(KEPT) + 3 * len(DELAYS) + 3)))


def _agrees(values, expected):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / math.sqrt(values.size)
    return abs(values.mean() - expected) <= Z * se + 1e-12


def _survival(pool, gang):
    """S(t) of the up time, from the generator built here."""
    q = np.zeros((gang.star + 1, gang.star + 1))
    levels = np.arange(gang.star + 1)
    q[levels[:-1], levels[:-1] + 1] = pool.hp_rate
    q[levels[1:], levels[1:] - 1] = levels[1:] / pool.hp_hold
    q -= np.diag(q.sum(axis=1) + np.where(levels == gang.star, pool.hp_rate, 0.0))
    start = np.zeros(gang.star + 1)
    start[-1] = 1.0
    return lambda t: float(start @ scipy.linalg.expm(q * max(t, 0.0)) @ np.ones(gang.star + 1))


def _kept_by_integral(pool, gang, interval, write, startup, grace):
    """The same expectation by quadrature of the survival, cycle by cycle (no closed-form
    geometric sum): the independent route."""
    survival = _survival(pool, gang)
    cycle, kept, j = interval + write, 0.0, 0
    while True:
        if grace > 0 and grace >= write:
            piece = scipy.integrate.quad(survival, startup + j * cycle,
                                         startup + j * cycle + interval)[0]
        else:
            piece = interval * survival(startup + (j + 1) * cycle - grace)
        kept += piece
        j += 1
        if piece < 1e-13:
            return kept / (gang.up_time_mean + gang.readmission_wait)


@pytest.mark.parametrize("case", [c for c in KEPT if math.isfinite(c[2])])
def test_the_closed_form_is_the_cycle_by_cycle_integral(case):
    (G, alpha, h, g), N, interval, write, startup, grace = case
    pool = SharedPool.checked(G, alpha, h, g)
    gang = gang_in_pool(pool, N)
    assert kept_share(pool, gang, interval, write, startup, grace) == pytest.approx(
        _kept_by_integral(pool, gang, interval, write, startup, grace), rel=1e-7)


@pytest.mark.parametrize("case", KEPT)
def test_the_simulator_keeps_what_the_exact_law_says(case):
    (G, alpha, h, g), N, interval, write, startup, grace = case
    pool = SharedPool.checked(G, alpha, h, g)
    gang = gang_in_pool(pool, N)
    runs = [simulate_pool(pool, [N], hours=3000, interval=interval, checkpoint_cost=write,
                          startup=startup, grace=grace, seed=seed) for seed in range(10)]
    expected = kept_share(pool, gang, interval, write, startup, grace)
    assert _agrees([1 - run.waste() for run in runs], expected)


def test_the_rate_model_is_off_where_the_exact_law_is_not():
    """At the rate model's own interval, λ_c with exponential up times misses the
    simulator by more than ten standard errors; the exact law does not: the reason it
    exists."""
    (G, alpha, h, g), N, _, write, startup, _ = KEPT[4]
    pool = SharedPool.checked(G, alpha, h, g)
    gang = gang_in_pool(pool, N)
    interval = gang.interval(write)
    runs = [simulate_pool(pool, [N], hours=3000, interval=interval, checkpoint_cost=write,
                          startup=startup, seed=seed) for seed in range(10)]
    kept = np.array([1 - run.waste() for run in runs])
    se = kept.std(ddof=1) / math.sqrt(kept.size)
    assert abs(1 - gang.waste(write, startup) - kept.mean()) > 10 * se
    assert _agrees(kept, kept_share(pool, gang, interval, write, startup))


def test_the_best_interval_beats_a_grid_and_notice_never_writes():
    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    gang = gang_in_pool(pool, 16)
    interval, kept = best_interval(pool, gang, MINUTE, 0.1)
    grid = np.geomspace(interval / 3, interval * 3, 301)
    shares = [kept_share(pool, gang, t, MINUTE, 0.1) for t in grid]
    assert kept >= max(shares) - 1e-12
    assert abs(grid[int(np.argmax(shares))] / interval - 1) < 0.02
    assert best_interval(pool, gang, MINUTE, 0.1, 2 * MINUTE)[0] == math.inf


def test_a_gang_nearly_always_up_keeps_a_positive_wait_and_its_bound():
    """A gang preempted about once in 10¹² hours: its wait is the chain's downward passage
    (where 1 − U is lost to rounding), equal to the absorption time solved as a matrix,
    and the kept share is T/τ of the time up."""
    pool = SharedPool.checked(400, 260.0, 1.0, 1)
    gang = gang_in_pool(pool, 8)
    assert 0 < gang.preemption_rate < 1e-9 and gang.up_share > 1 - 1e-12
    levels = np.arange(gang.star + 1, pool.top + 1)  # the down set, absorbed at k*
    q = np.diag(-(levels / pool.hp_hold + np.where(levels < pool.top, pool.hp_rate, 0.0)))
    q[np.arange(levels.size - 1), np.arange(1, levels.size)] = pool.hp_rate
    q[np.arange(1, levels.size), np.arange(levels.size - 1)] = levels[1:] / pool.hp_hold
    absorption = np.linalg.solve(-q, np.ones(levels.size))[0]
    assert gang.readmission_wait == pytest.approx(absorption, rel=1e-10)
    kept = kept_share(pool, gang, 0.5, MINUTE)
    assert kept == pytest.approx(0.5 / (0.5 + MINUTE), rel=1e-12)


@pytest.mark.parametrize("setting", [(64, 2.0, 2.0, 8, 16), (32, 12.0, 2.0, 1, 5),
                                     (48, 3.0, 3.0, 4, 10)])
def test_the_downward_passage_is_the_renewal_reward_wait(setting):
    G, alpha, h, g, N = setting
    gang = gang_in_pool(SharedPool.checked(G, alpha, h, g), N)
    assert gang.readmission_wait == pytest.approx(
        _generated.readmission_wait(gang.up_share, gang.preemption_rate), rel=1e-10)


@pytest.mark.parametrize("case", DELAYS)
def test_the_simulator_waits_and_starts_as_the_chain_on_levels_and_victims_says(case):
    (G, alpha, h, g), N, headroom, grace = case
    pool = SharedPool.checked(G, alpha, h, g)
    turned_away, waits, p99 = start_delays(pool, N, headroom, grace)
    runs = [simulate_pool(pool, [N] * ((G - headroom) // N), hours=4000, grace=grace,
                          headroom=headroom, seed=seed) for seed in range(8)]
    assert _agrees([run.waiting_share() for run in runs], waits)
    assert _agrees([run.turned_away / run.requests for run in runs], turned_away)
    if 0 < p99 < grace:  # the p99: 1% start later than it (or never), run by run
        assert _agrees([((run.delays > p99).sum() + run.turned_away) / run.requests
                        for run in runs], 0.01)
    else:  # 0: at most 1% wait at all; the grace: more than 1% wait all of it
        late = [((run.delays >= grace - 1e-12).sum() + run.turned_away) / run.requests
                for run in runs]
        assert (np.mean(late) > 0.01) == (p99 == grace)


@pytest.mark.parametrize("overflow", ["queue", "drop"])
def test_the_delay_chain_cut_below_the_load_gives_what_the_whole_chain_gives(
        monkeypatch, overflow):
    """A load of 400 requests of one GPU: the chain of start delays runs on the levels
    where the requests' stationary law holds more than 10⁻¹⁸, not from 0; run from 0 (the
    cut's lowest level forced to 0), every share and the p99 are the same."""
    from spotmath.model import pool_choice

    pool = SharedPool.checked(600, 400.0, 1.0, 1, overflow=overflow)
    stationary, bottom, top = pool_choice._levels(pool, 30 * SECOND)
    assert 200 < bottom < 400 < top < 600
    cut = [start_delays(pool, 8, headroom, 30 * SECOND) for headroom in (0, 40, 80)]
    whole = pool_choice._levels

    def from_zero(pool, grace):
        top = whole(pool, grace)[2]
        return pool_choice._with_line(pool)[:top + 1], 0, top

    monkeypatch.setattr(pool_choice, "_levels", from_zero)
    for headroom, delays in zip((0, 40, 80), cut):
        assert start_delays(pool, 8, headroom, 30 * SECOND) == pytest.approx(
            delays, rel=1e-9, abs=1e-15)


def test_a_choice_spends_at_most_its_budget_on_delay_chains():
    """Each chain's work is taken from the choice's budget; past it, one line."""
    from spotmath.model.pool_choice import DelayBudget

    pool = SharedPool.checked(256, 8.0, 2.0, 8)
    budget = DelayBudget(1_000)
    start_delays(pool, 16, 8, 30 * SECOND, budget)
    assert 0 < budget.left < 1_000
    with pytest.raises(InputError, match=r"^grace: the start delays over a grace of 30 s "
                       "at each headroom the search tries take more than this command "
                       "runs"):
        start_delays(pool, 16, 8, 30 * SECOND, DelayBudget(1.0))


def test_two_pools_size_inference_by_erlangs_b_from_the_poisson_law():
    pool = SharedPool.checked(256, 8.0, 2.0, 8)
    choice = one_pool_or_two(pool, 16, MINUTE, 0.1, 30 * SECOND, 10 * SECOND)
    load = pool.load

    def erlang_b(servers):  # B = P(X = c)/P(X ≤ c), X Poisson(ρ)
        return scipy.stats.poisson.pmf(servers, load) / scipy.stats.poisson.cdf(servers, load)

    servers = choice.two.inference_gpus // 8
    assert erlang_b(servers) <= 0.01 < erlang_b(servers - 1)
    assert choice.two.turned_away == pytest.approx(erlang_b(servers), rel=1e-10)
    assert choice.two.training_per_day == 24 * 16 * ((256 - 8 * servers) // 16)


def test_one_pool_is_the_ranks_and_the_least_headroom_that_keeps_the_target():
    pool = SharedPool.checked(256, 8.0, 2.0, 8)
    choice = one_pool_or_two(pool, 16, MINUTE, 0.1, 30 * SECOND, 10 * SECOND)
    one, none = choice.one_kept, choice.one
    assert none.headroom == 0 and none.p99_start == 30 * SECOND  # half the requests wait
    assert one.headroom > 0 and one.p99_start <= 10 * SECOND
    less = start_delays(pool, 16, one.headroom - 8, 30 * SECOND)[2]
    assert less > 10 * SECOND
    ranks = [gang_in_pool(pool, j * 16 + one.headroom) for j in range(1, one.gangs + 1)]
    kept = sum(best_interval(pool, gang, MINUTE, 0.1, 30 * SECOND)[1] for gang in ranks)
    assert one.training_per_day == pytest.approx(24 * 16 * kept)
    assert choice.verdict == "one pool" and choice.gain > 0.5


def test_training_a_day_falls_as_the_headroom_grows():
    """What the verdict's bound rests on (PoolChoice.verdict): every headroom keeps at most
    what none keeps.  30 pools drawn at random (requests of 1 to 8 GPUs, gangs of 2 to
    32, with and without failures and a notice), the training each headroom keeps
    summed over its ranks as the simulator's gangs are (the test above), at every
    headroom in GPUs, including those that are no whole number of requests or gangs."""
    from spotmath.model.cluster_renewal import ranks

    rng = np.random.default_rng(51)
    for _ in range(30):
        request = int(rng.choice([1, 2, 3, 4, 8]))
        gang_size = int(rng.choice([2, 4, 6, 16, 32]))
        gpus = int(rng.integers(max(gang_size, request) * 3, 160))
        load = float(rng.uniform(0.1, 0.7)) * (gpus // request)
        pool = SharedPool.checked(gpus, load, 1.0, request)
        grace = float(rng.choice([0.0, 30 * SECOND, 2 * MINUTE]))
        failures = float(rng.choice([0.0, 1e-4]))
        kept = [sum(rank.kept for rank in ranks(pool, gang_size, MINUTE, 0.1, grace,
                                                headroom=headroom, failures=failures))
                for headroom in range(gpus - gang_size + 1)]
        assert all(later <= earlier * (1 + 1e-12) for earlier, later in zip(kept, kept[1:])), (
            gpus, request, gang_size, load, grace, failures)


@pytest.mark.parametrize("one_kept, one, untried, verdict", [
    (1_100.0, 1_200.0, 0, "one pool"), (1_100.0, 1_200.0, 5, "one pool"),
    (900.0, 1_200.0, 0, "two pools"), (900.0, 950.0, 5, "two pools"),
    (900.0, 1_200.0, 5, "not decided"), (0.0, 1_000.0, 5, "two pools")])
def test_the_verdict_is_not_decided_only_where_a_headroom_not_tried_could_turn_it(
        one_kept, one, untried, verdict):
    """Two pools keep 1,000 GPU-hours a day: one pool wins where its headroom keeps more;
    two pools win where one pool with no headroom, which keeps the most any headroom can,
    keeps no more; else, with offsets not tried, it is not decided."""
    from dataclasses import replace

    from spotmath.model.pool_choice import PoolChoice

    pool = SharedPool.checked(256, 8.0, 2.0, 8)
    choice = one_pool_or_two(pool, 16, MINUTE, 0.1, 30 * SECOND, 10 * SECOND)
    made = PoolChoice(replace(choice.two, training_per_day=1_000.0),
                      replace(choice.one, training_per_day=one),
                      replace(choice.one_kept, training_per_day=one_kept), 10 * SECOND,
                      untried)
    assert made.verdict == verdict
    assert made.most_gain == pytest.approx(one / 1_000 - 1)


def test_the_ranks_are_the_simulators_gangs_preempted_most_recent_first():
    """Several gangs at one interval: the sum over ranks j of the gang with a threshold of
    jN + H GPUs is what the simulator's gangs keep together."""
    pool = SharedPool.checked(128, 4.0, 2.0, 8)
    headroom, interval, write, startup = 8, 0.3, MINUTE, 0.1
    ranks = (128 - headroom) // 16
    model = sum(kept_share(pool, gang_in_pool(pool, j * 16 + headroom), interval, write,
                           startup) for j in range(1, ranks + 1))
    runs = [simulate_pool(pool, [16] * ranks, hours=3000, interval=interval,
                          checkpoint_cost=write, startup=startup, headroom=headroom,
                          seed=seed) for seed in range(8)]
    assert _agrees([sum(g.kept for g in run.gangs) / run.hours for run in runs], model)


def test_a_load_the_whole_pool_cannot_carry_is_refused():
    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    with pytest.raises(InputError, match=r"^hp_rate: a load of 4 requests turns away 3\.0%"):
        one_pool_or_two(pool, 16, MINUTE, 0.1)
    large = SharedPool.checked(4000, 4100.0, 1.0, 1, overflow="drop")  # not 4.1e+03
    with pytest.raises(InputError, match=r"^hp_rate: a load of 4,100 requests turns away"):
        one_pool_or_two(large, 16, MINUTE, 0.1)


def test_the_command_prints_the_verdict_of_the_library(cli):
    done = cli("cluster", "--gpus", "256", "--hp-rate", "8/h", "--hp-hold", "2h",
               "--hp-gpus", "8", "--gang-size", "16", "--grace", "30s", "--start-target", "10s",
               "--restart", "6min", "--hp-overflow", "drop", "--failure-mtbf", "none",
               "--json")
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout)
    pool = SharedPool.checked(256, 8.0, 2.0, 8)
    choice = one_pool_or_two(pool, 16, MINUTE, 0.1, 30 * SECOND, 10 * SECOND)
    assert values["one_pool_training_per_day"] == choice.one_kept.training_per_day
    assert values["two_pools_training_per_day"] == choice.two.training_per_day
    assert values["one_pool_headroom_gpus"] == choice.one_kept.headroom
    assert values["verdict"] == "one pool"
    gang = gang_in_pool(pool, 16)
    interval, kept = best_interval(pool, gang, MINUTE, 0.1, 30 * SECOND)
    assert values["recommended_interval_h"] == interval
    assert values["waste"] == 1 - kept
    text = cli("cluster", "--gpus", "64", "--hp-rate", "2/h", "--hp-hold", "2h",
               "--hp-gpus", "8", "--gang-size", "16", "--hp-overflow", "drop")
    assert text.returncode == 0
    assert "one pool or two    not answered: a load of 4 requests turns away" in text.stdout
    lined = cli("cluster", "--gpus", "64", "--hp-rate", "2/h", "--hp-hold", "2h",
                "--hp-gpus", "8", "--gang-size", "16")
    assert "one pool or two    not answered: a load of 4 requests keeps waiting in line " \
        "5.9% of them" in lined.stdout


def test_a_pool_of_thousands_of_requests_answers_every_rank(cli):
    """4,096 GPUs in requests of one (the dense law stopped at 500 levels): every rank of
    64 gangs and one pool or two, each rank the library's own."""
    from spotmath.model.cluster import GPU_FAILURE_MTBF_H
    from spotmath.model.cluster_renewal import ranks

    big = cli("cluster", "--gpus", "4096", "--hp-rate", "1800/h", "--hp-hold", "2h",
              "--gang-size", "64", "--json")  # with the default failures, Llama 3's
    assert big.returncode == 0 and big.stderr == "", big.stderr
    values = json.loads(big.stdout)
    assert values["verdict"] in ("one pool", "two pools")
    expected = ranks(SharedPool.checked(4096, 1800.0, 2.0, 1, "queue"), 64, MINUTE, 1 / 6,
                     30 * SECOND, failures=1 / GPU_FAILURE_MTBF_H)
    assert len(values["gangs"]) == len(expected) == 64
    for got, rank in zip(values["gangs"], expected):
        assert got["rank"] == rank.rank and got["state"] == rank.state
        assert got["up_share"] == rank.gang.up_share
        assert got["waste"] == 1 - rank.kept


def test_a_light_load_keeps_every_rank_below_all_of_its_hours():
    """At a tenth of the pool's GPUs the lowest ranks are preempted once in ages: their
    kept shares stay at most 1 and fall rank by rank (the dense sums would not), and one
    pool never keeps more than every GPU's day."""
    pool = SharedPool.checked(256, 0.8, 2.0, 8)
    kept = [best_interval(pool, gang_in_pool(pool, 16 * j), MINUTE, 0.1, 30 * SECOND)[1]
            for j in range(1, 17)]
    assert all(0 <= share <= 1 for share in kept)
    assert all(a >= b - 1e-12 for a, b in zip(kept, kept[1:]))
    choice = one_pool_or_two(pool, 16, MINUTE, 0.1, 30 * SECOND, 10 * SECOND)
    assert choice.one_kept.training_per_day <= 24 * 256



def test_the_local_rate_schedule_is_youngs_interval_at_each_ages_hazard():
    """Write by write: each interval √(2C/h(a)) at the hazard of its age, the compute kept
    the sum of the intervals whose write ends before the kill, by S(t) built here."""
    from spotmath.model.cluster import up_time_hazard
    from spotmath.model.cluster_renewal import local_rate_schedule

    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    gang = gang_in_pool(pool, 16)
    write, startup, grace = MINUTE, 0.1, 20 * SECOND
    schedule = local_rate_schedule(pool, gang, write, startup, grace)
    survival = _survival(pool, gang)
    age, kept = startup, 0.0
    for j in range(100_000):
        hazard = float(up_time_hazard(pool, gang, [age])[0])
        interval = math.sqrt(2 * write / hazard)
        if j < len(schedule.intervals):
            assert interval == pytest.approx(schedule.intervals[j], rel=1e-9)
        piece = interval * survival(age + interval + write - grace)
        kept, age = kept + piece, age + interval + write
        if piece < 1e-12:
            break
    assert schedule.kept_share == pytest.approx(
        kept / (gang.up_time_mean + gang.readmission_wait), rel=1e-6)
    best = best_interval(pool, gang, write, startup, grace)[1]
    assert schedule.kept_share > best  # a falling hazard: the schedule gains
    assert np.all(np.diff(schedule.intervals) > 0)  # and writes less often with age


def test_the_floor_is_all_but_the_waits_and_start_ups_and_limits_bracket_the_discount():
    from spotmath.model.cluster_renewal import gang_limits, waste_floor

    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    gang = gang_in_pool(pool, 16)
    tail = scipy.integrate.quad(_survival(pool, gang), 0.1, np.inf, limit=500)[0]
    assert waste_floor(pool, gang, 0.1) == pytest.approx(
        1 - tail / (gang.up_time_mean + gang.readmission_wait), rel=1e-6)
    largest, never = gang_limits(pool, MINUTE, 0.1, 0.0, 0.6)
    waste = {n: 1 - best_interval(pool, gang_in_pool(pool, n), MINUTE, 0.1)[1]
             for n in range(1, 65)}
    floor = {n: waste_floor(pool, gang_in_pool(pool, n), 0.1) for n in range(1, 65)}
    assert largest == max(n for n in waste if waste[n] < 0.6)  # a scan, not a bisection
    assert never == min(n for n in floor if floor[n] >= 0.6)


def test_the_weibull_with_the_up_times_moments():
    from spotmath.model.cluster import matching_weibull

    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    gang = gang_in_pool(pool, 16)
    shape, scale = matching_weibull(gang)
    law = scipy.stats.weibull_min(shape, scale=scale)
    assert law.mean() == pytest.approx(gang.up_time_mean, rel=1e-9)
    assert law.std() / law.mean() == pytest.approx(gang.up_time_cv, rel=1e-9)
    assert shape < 1  # CV above 1: a falling hazard
    with pytest.raises(InputError, match="never preempted"):
        matching_weibull(gang_in_pool(SharedPool.checked(68, 0.1, 1.0, 8), 4))


def test_the_timeline_is_the_log_segment_by_segment():
    from spotmath.model.simulate_cluster import pool_timeline

    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    run = simulate_pool(pool, [16, 16, 16, 16], hours=30, warmup=0, interval=0.5,
                        checkpoint_cost=MINUTE, startup=0.1, seed=3, log=True)
    timeline = pool_timeline(run, gangs=[3, 2])
    assert timeline.names == ("gang 4 (16 GPUs)", "gang 3 (16 GPUs)")
    for row, gang in zip(timeline.rows, (3, 2)):
        starts = [s.start for s in row]
        assert starts == sorted(starts)
        assert all(a.end <= b.start + 1e-9 for a, b in zip(row, row[1:]))  # no overlap
        preempts = [e.time for e in run.log if e.gang == gang and e.kind == "preempt"]
        lost_ends = [s.end for s in row if s.kind == "lost"]
        starting = [t for t in preempts if any(  # preempted in a start-up: nothing lost
            s.kind == "restart" and s.start < t <= s.end + 1e-9 for s in row)]
        assert sorted(lost_ends + starting) == pytest.approx(preempts)  # lost to the kill
        written = sum(s.end - s.start for s in row if s.kind == "checkpoint")
        writes = [e for e in run.log if e.gang == gang and e.kind == "write"]
        assert written == pytest.approx(MINUTE * len(writes))
    with pytest.raises(InputError, match="gangs: an index from 0 to 3"):
        pool_timeline(run, gangs=[4])


def test_each_design_says_the_gpus_no_gang_fits_in_and_a_load_time_delays_every_start():
    """Gangs of 32 in two pools' 56 training GPUs leave 24 over; a replica's load time
    is added to every start, and the headroom is the least that keeps the rest of the
    target; a load time over the target is refused."""
    pool = SharedPool.checked(256, 8.0, 2.0, 8)
    plain = one_pool_or_two(pool, 32, MINUTE, 0.1, 30 * SECOND, 10 * SECOND)
    two, one = plain.two, plain.one_kept
    assert two.idle_gpus == two.training_gpus - 32 * two.gangs == 24
    assert one.idle_gpus == 256 - one.headroom - 32 * one.gangs
    loaded = one_pool_or_two(pool, 32, MINUTE, 0.1, 30 * SECOND, 10 * SECOND,
                             load_time=4 * SECOND)
    assert loaded.two.p99_start == pytest.approx(4 * SECOND)
    assert loaded.one_kept.p99_start == pytest.approx(
        start_delays(pool, 32, loaded.one_kept.headroom, 30 * SECOND)[2] + 4 * SECOND)
    assert loaded.one_kept.p99_start <= 10 * SECOND
    assert start_delays(pool, 32, loaded.one_kept.headroom - 8, 30 * SECOND)[2] > 6 * SECOND
    with pytest.raises(InputError, match="start_target: a replica takes 20 s to load"):
        one_pool_or_two(pool, 32, MINUTE, 0.1, 30 * SECOND, 10 * SECOND,
                        load_time=20 * SECOND)


def test_a_headroom_searched_in_steps_too_coarse_to_decide_says_so(cli):
    """Gangs of 557 GPUs in 64-GPU requests: the headrooms one chain answers are
    lcm(64, 557) = 35,648 GPUs apart, the first that keeps the target leaves training
    nothing, and the other 556 offsets cost more than the command runs.  This said
    "two pools: -100%"; one pool with no headroom keeps more than two pools, so a
    headroom not tried may turn it: not decided, with both gains."""
    argv = ["cluster", "--gpus", "100000", "--hp-gpus", "64", "--hp-rate", "600/h",
            "--hp-hold", "2h", "--gang-size", "557", "--grace", "30s", "--start-target",
            "10s"]
    values = json.loads(cli(*argv, "--json").stdout)
    assert values["one_pool_untried_offsets"] == 556
    assert values["one_pool_training_per_day"] < values["two_pools_training_per_day"] \
        < values["one_pool_no_headroom_training_per_day"]
    assert values["verdict"] == "not decided"
    most = values["one_pool_no_headroom_training_per_day"] / \
        values["two_pools_training_per_day"] - 1
    [line] = [line for line in cli(*argv).stdout.splitlines()
              if line.startswith("verdict ")]
    assert line == ("verdict            not decided: -100% training a day behind the "
                    f"headroom tried; one not tried could give up to {most:+.0%} (what one "
                    "pool keeps with no headroom), the p99 start within 10 s")


def test_the_verdict_is_also_given_at_the_gang_size_that_packs_two_pools(cli):
    """Gangs of 32 leave 24 of two pools' 56 training GPUs over: the command compares
    the designs again at gangs of 28, the divisor of 56 nearest 32, as the library
    does."""
    done = cli("cluster", "--gpus", "256", "--hp-rate", "8/h", "--hp-hold", "2h",
               "--hp-gpus", "8", "--gang-size", "32", "--start-target", "10s",
               "--restart", "6min", "--hp-overflow", "drop", "--failure-mtbf", "none",
               "--json")
    values = json.loads(done.stdout)
    assert values["two_pools_idle_gpus"] == 24 and values["packed_gang_size"] == 28
    pool = SharedPool.checked(256, 8.0, 2.0, 8)
    packed = one_pool_or_two(pool, 28, MINUTE, 0.1, 30 * SECOND, 10 * SECOND)
    assert packed.two.idle_gpus == 0
    assert values["packed_verdict"] == packed.verdict
    assert values["packed_gain"] == packed.gain
    even = json.loads(cli("cluster", "--gpus", "256", "--hp-rate", "8/h", "--hp-hold",
                          "2h", "--hp-gpus", "8", "--gang-size", "8", "--json").stdout)
    assert even["two_pools_idle_gpus"] == 0 and even["packed_gang_size"] is None


@pytest.mark.parametrize("setting, gang_size", [((256, 8.0, 2.0, 8), 16),
                                                 ((4096, 128.0, 2.0, 8), 64)])
def test_the_first_run_is_the_one_the_search_makes_first(monkeypatch, setting, gang_size):
    """first_run says the steps, states and work of the chain one pool or two runs first
    (no headroom, the search's first stretch of rooms), where that run is whole."""
    from spotmath.model import pool_choice

    runs = []
    together = pool_choice._waiting_together
    monkeypatch.setattr(pool_choice, "_waiting_together", lambda pool, gang, asked, *rest: (
        runs.extend(asked), together(pool, gang, asked, *rest))[1])
    pool = SharedPool.checked(*setting)
    one_pool_or_two(pool, gang_size, MINUTE, 0.1, 30 * SECOND, 10 * SECOND)
    headroom, above = runs[0]
    assert headroom == 0
    _, serving, _, counts, _, _, steps, work = pool_choice._chain(pool, gang_size, 0,
                                                                  30 * SECOND, above)
    assert pool_choice.first_run(pool, gang_size, 30 * SECOND) == (
        steps, serving.size * counts, work)
    assert work < pool_choice.MAX_DELAY_WORK


def test_a_packed_comparison_whose_first_run_is_too_long_is_not_begun(cli, monkeypatch):
    """100,000 GPUs in 1-GPU requests and gangs of 8: two pools leave 3 GPUs over, and
    gangs of 3 would pack them, but the first start-delay run of their search is more
    than a run may take.  The command says so without running any of it (it ran one run
    cut short, 1.5 s, then refused the next)."""
    from spotmath.model import pool_choice

    pool = SharedPool.checked(100_000, 40_000.0, 1.0, 1, "queue")  # as the command's
    steps, states, work = pool_choice.first_run(pool, 3, 30 * SECOND)
    assert work > pool_choice.MAX_DELAY_WORK
    said = cli("cluster", "--gpus", "100000", "--hp-gpus", "1", "--hp-rate", "40000/h",
               "--hp-hold", "1h", "--gang-size", "8", "--grace", "30s", "--start-target",
               "10s").stdout.splitlines()
    assert said[-1] == ("packed gangs       gangs of 3 GPUs fill two pools' training GPUs "
                        "exactly; not compared: its start delays over a grace of 30 s take "
                        f"{steps:,} steps of a chain of {states:,} states at first, more "
                        "than this command runs beside the design asked for")
    from spotmath.cli import cluster as command

    monkeypatch.setattr(pool_choice, "one_pool_or_two", lambda *args: pytest.fail("run"))
    two = type("Design", (), {"training_gpus": 59_523, "idle_gpus": 3})()
    found = command._packed(type("Choice", (), {"two": two})(), pool, 8,
                            (MINUTE, 0.1, 30 * SECOND, 10 * SECOND, 0.0, 0.0))
    assert found == (3, f"its start delays over a grace of 30 s take {steps:,} steps of a "
                        f"chain of {states:,} states at first, more than this command runs "
                        "beside the design asked for")
