"""A shared pool at any load and size, and every gang in it: the chain's sums in
logarithms against the same sums in 50-digit arithmetic, the moments solved for all levels
against the recursions run level by level, the up-time law against the whole chain and the
dense matrix exponential, every rank against the event simulator, and the command's
answers and refusals."""

from __future__ import annotations

import itertools
import json
import math
import re

import mpmath
import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
import scipy.sparse
import scipy.stats
import sympy as sp

from spotmath.inputs import InputError
from spotmath.model import _generated
from spotmath.model import cluster as cluster_module
from spotmath.model import derivations as D
from spotmath.model.cluster import SharedPool, gang_in_pool, law_size, up_time_law
from spotmath.model.cluster_renewal import NEGLIGIBLE_UP, best_interval, kept_share, ranks
from spotmath.model.numerics import optimal_interval
from spotmath.model.pool_choice import _waiting, one_pool_or_two, start_delays
from spotmath.model.simulate_cluster import simulate_pool

MINUTE, SECOND = 1 / 60, 1 / 3600


def exact_chain(gpus, alpha, hold, request, gang_size):
    """Rate, up share, wait and mean up time from the stationary sums in 50 digits:
    π_j = ρ^j/j!, summed as they are, nothing in logarithms."""
    with mpmath.workdps(50):
        rho = mpmath.mpf(alpha) * mpmath.mpf(hold)
        top, star = gpus // request, (gpus - gang_size) // request
        weights = [rho**j / mpmath.factorial(j) for j in range(top + 1)]
        below, above = mpmath.fsum(weights[:star + 1]), mpmath.fsum(weights[star + 1:])
        rate = alpha * weights[star] / below
        return {"rate": float(rate), "up": float(below / (below + above)),
                "wait": float(above / (alpha * weights[star])), "mean": float(1 / rate)}


#: Light loads whose Erlang B underflowed (NaN tracebacks before), and heavy ones.
LOADS = [(256, 2.0, 1.0, 1, 256), (256, 2.0, 1.0, 1, 250), (480, 20.0, 2.0, 1, 400),
         (600, 20.0, 1.0, 1, 570), (512, 20.0, 1.5, 8, 256), (4096, 1800.0, 2.0, 1, 2500),
         (2000, 1900.0, 1.0, 1, 50), (64, 1e-4, 1.0, 1, 64)]


@pytest.mark.parametrize("setting", LOADS)
def test_the_chain_in_logarithms_is_its_sums_in_fifty_digits(setting):
    gang = gang_in_pool(SharedPool.checked(*setting[:4]), setting[4])
    exact = exact_chain(*setting)
    assert gang.preemption_rate == pytest.approx(exact["rate"], rel=1e-9)
    assert gang.up_share == pytest.approx(exact["up"], rel=1e-9)
    assert gang.readmission_wait == pytest.approx(exact["wait"], rel=1e-9)
    assert gang.up_time_mean == pytest.approx(exact["mean"], rel=1e-9)


def test_the_light_load_of_the_report_is_up_nearly_always():
    """600 GPUs, 1-GPU requests at 20/h for 1 h, a gang of 570: up while at most 30 run,
    P(k ≤ 30) = 98.7%, a 5.91 h mean up time and a 4.8 min wait (it printed 0.0%)."""
    gang = gang_in_pool(SharedPool.checked(600, 20.0, 1.0, 1), 570)
    assert round(gang.up_share, 3) == 0.987
    assert round(gang.up_time_mean, 2) == 5.91
    assert round(gang.readmission_wait * 60, 1) == 4.8


def test_erlangs_b_in_logarithms_is_its_recursion_and_stays_finite_below_it():
    pool = SharedPool.checked(400, 2.0, 1.0, 1)
    b = 1.0
    for k in range(1, 121):  # the derived step, level by level, while it is a double
        b = _generated.erlang_b_step(b, 2.0, 1.0, k)
        assert math.exp(pool.log_erlang_b()[k]) == pytest.approx(b, rel=1e-12)
    assert b < 1e-150 and np.all(np.isfinite(pool.log_erlang_b()))
    with mpmath.workdps(50):  # at the top, 10⁻⁶⁶⁰, far below a double
        weights = [mpmath.mpf(2) ** j / mpmath.factorial(j) for j in range(401)]
        exact = float(mpmath.log(weights[400] / mpmath.fsum(weights)))
    assert pool.log_erlang_b()[400] == pytest.approx(exact, rel=1e-12)


def test_the_moments_for_every_level_are_the_recursions_run_level_by_level():
    """[passage-mean-step] and [passage-second-moment-step] are linear in the level
    below with coefficient k/(αh) = π_{k−1}/π_k (SymPy), which is what lets the pool
    solve them for all levels at once; run one level at a time they agree."""
    for step, below in ((D.passage_mean_step(), D.m_below),
                        (D.passage_second_moment_step(), D.s_below)):
        assert sp.simplify(sp.diff(step, below) - D.level / (D.alpha * D.hold)) == 0
        assert sp.diff(step, below, 2) == 0
    pool = SharedPool.checked(300, 12.0, 2.5, 1)
    means, seconds = pool._passage_moments
    mean = second = 0.0
    for k in range(121):
        second = _generated.passage_second_moment_step(second, mean, 12.0, 2.5, k)
        mean = _generated.passage_mean_step(mean, 12.0, 2.5, k)
        assert means[k] == pytest.approx(mean, rel=1e-12)
        assert seconds[k] == pytest.approx(second, rel=1e-12)


def test_the_wait_from_the_sums_is_the_downward_passage_level_by_level():
    """[readmission-wait-sums] against [passage-down-step] run from the top."""
    pool = SharedPool.checked(120, 9.0, 3.0, 2)
    wait = pool.hp_hold / pool.top
    for k in range(pool.top - 1, 14, -1):
        wait = _generated.passage_down_step(wait, 9.0, 3.0, k)
    gang = gang_in_pool(pool, 120 - 2 * 14)  # k* = 14: the wait is d_15
    assert gang.readmission_wait == pytest.approx(wait, rel=1e-12)


def dense_survival(pool, star, ages):
    """S(t) = e_{k*} exp(Qt) 1 with SciPy's dense matrix exponential: the route the law
    replaced."""
    levels = np.arange(star + 1)
    q = np.zeros((star + 1, star + 1))
    q[levels[:-1], levels[:-1] + 1] = pool.hp_rate
    q[levels[1:], levels[1:] - 1] = levels[1:] / pool.hp_hold
    q -= np.diag(q.sum(axis=1) + np.where(levels == star, pool.hp_rate, 0.0))
    return np.array([scipy.linalg.expm(q * age)[-1].sum() for age in ages])


@pytest.mark.parametrize("setting", [(64, 2.0, 2.0, 8, 16), (512, 20.0, 1.5, 8, 64),
                                     (300, 100.0, 1.0, 1, 170), (256, 2.0, 1.0, 1, 250)])
def test_the_up_time_law_is_the_matrix_exponential_and_has_the_chains_moments(setting):
    pool = SharedPool.checked(*setting[:4])
    gang = gang_in_pool(pool, setting[4])
    law = up_time_law(pool, gang.star)
    ages = gang.up_time_mean * np.array([0.0, 0.01, 0.3, 1.0, 3.0])
    assert law.survival(ages) == pytest.approx(dense_survival(pool, gang.star, ages),
                                               rel=1e-8, abs=1e-300)
    assert law.weights.sum() == pytest.approx(1.0, rel=1e-12)
    assert np.all(law.weights >= 0) and np.all(law.rates > 0)
    assert law.mean == pytest.approx(gang.up_time_mean, rel=1e-12)
    assert math.sqrt(law.second_moment / law.mean**2 - 1) == pytest.approx(
        gang.up_time_cv, rel=1e-9)


def test_a_gang_preempted_once_in_a_century_keeps_its_moments():
    """Preempted once in 2·10⁴ hours among 5·10⁹ of the chain's events, where the
    slowest eigenvalue alone would be off by 10⁻⁶: the law still has the second moment of
    the recursions (its slowest term is set by the mean)."""
    pool = SharedPool.checked(2000, 100_000.0, 0.01, 1)
    gang = gang_in_pool(pool, 2000 - 1190)
    assert 1e4 < gang.up_time_mean < 1e6
    assert gang.up_time_mean * (pool.hp_rate + gang.star / pool.hp_hold) > 1e9
    law = up_time_law(pool, gang.star)
    cv = math.sqrt(law.second_moment / law.mean**2 - 1)
    assert cv == pytest.approx(gang.up_time_cv, rel=1e-9)


def test_a_large_chain_cut_far_below_its_load_is_the_whole_chain(monkeypatch):
    """Above WHOLE_CHAIN levels the law follows the chain from a level it (nearly) never
    reaches; forced to cut a chain small enough to follow whole, nothing moves."""
    pool = SharedPool.checked(1400, 400.0, 1.0, 1)
    gangs = [gang_in_pool(pool, 1400 - star) for star in (300, 380, 420, 460)]
    whole = [best_interval(pool, gang, MINUTE, 0.1) for gang in gangs]
    monkeypatch.setattr(cluster_module, "WHOLE_CHAIN", 0)
    cluster_module._forget_laws()
    try:
        assert all(up_time_law(pool, gang.star).lowest > 0 for gang in gangs)
        for gang, (interval, kept) in zip(gangs, whole):
            assert kept_share(pool, gang, interval, MINUTE, 0.1) == pytest.approx(
                kept, rel=1e-12)
    finally:
        cluster_module._forget_laws()


def test_every_rank_is_the_gang_of_its_threshold_and_is_named():
    pool = SharedPool.checked(512, 20.0, 1.5, 8)
    every = ranks(pool, 64, MINUTE, 10 * MINUTE, 30 * SECOND)
    assert [rank.rank for rank in every] == list(range(1, 9))
    for rank in every:
        gang = gang_in_pool(pool, 64 * rank.rank)
        assert rank.gang == gang
        if rank.interval is not None:
            assert (rank.interval, rank.kept) == best_interval(pool, gang, MINUTE,
                                                               10 * MINUTE, 30 * SECOND)
    assert [rank.state for rank in every] == ["preempted"] * 6 + ["almost never up"] * 2
    assert every[-1].gang.up_share < NEGLIGIBLE_UP and every[-1].interval is None
    assert every[-1].kept == 0.0
    assert [rank.gang for rank in ranks(pool, 64, MINUTE, gangs=3)] == \
        [rank.gang for rank in every[:3]]
    with pytest.raises(InputError, match="gangs: at most 8 gangs of 64 GPUs fit 512 GPUs"):
        ranks(pool, 64, MINUTE, gangs=9)


#: Bonferroni over the simulator comparisons of this file (1% in all).
Z = scipy.stats.norm.ppf(1 - 0.01 / (2 * (3 * 4 + 2)))


def _agrees(values, expected):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / math.sqrt(values.size)
    return abs(values.mean() - expected) <= Z * se + 1e-12


def test_the_simulator_runs_every_rank_at_its_own_interval_as_the_ranks_say():
    """Four gangs in one pool, the most recent preempted first, each up spell at the
    recommended interval of the rank its gang was admitted at: the spells of each rank,
    whichever gang held it, have its rate, up share and waste."""
    pool = SharedPool.checked(96, 4.0, 1.5, 8)
    every = ranks(pool, 24, MINUTE, 0.1)
    assert all(rank.state == "preempted" for rank in every)
    runs = [simulate_pool(pool, [24] * 4, hours=2500, interval=[r.interval for r in every],
                          checkpoint_cost=MINUTE, startup=0.1, seed=seed)
            for seed in range(8)]
    for j, rank in enumerate(every):
        assert _agrees([run.ranks[j].preemption_rate for run in runs],
                       rank.gang.preemption_rate)
        assert _agrees([run.ranks[j].up_hours / run.hours for run in runs],
                       rank.gang.up_share)
        assert _agrees([1 - run.ranks[j].kept / run.hours for run in runs], 1 - rank.kept)


def test_the_exponential_interval_wastes_what_the_exact_law_says_not_what_it_predicts():
    """The report's case: 512 GPUs, 8-GPU requests at 20/h for 1.5 h, a gang of 256, no
    grace.  The exact law's best interval (13.2 min) wastes 50.5%; the exponential's
    (7.2 min) predicts 61.9% and really wastes 51.7%, as the simulator measures."""
    pool = SharedPool.checked(512, 20.0, 1.5, 8)
    gang = gang_in_pool(pool, 256)
    interval, kept = best_interval(pool, gang, MINUTE, 10 * MINUTE)
    approximate = gang.interval(MINUTE)
    assert (round(interval * 60, 1), round(1 - kept, 3)) == (13.2, 0.505)
    assert round(approximate * 60, 1) == 7.2
    assert round(gang.waste(MINUTE, 10 * MINUTE), 3) == 0.619
    true = 1 - kept_share(pool, gang, approximate, MINUTE, 10 * MINUTE)
    assert round(true, 3) == 0.517
    for at, waste in ((interval, 1 - kept), (approximate, true)):
        runs = [simulate_pool(pool, [256], hours=3000, interval=at, checkpoint_cost=MINUTE,
                              startup=10 * MINUTE, seed=seed) for seed in range(8)]
        assert _agrees([run.waste() for run in runs], waste)


@pytest.mark.parametrize("setting", [(48, 6.0, 4, 8, 4, 0.02),  # an arrival takes a gang
                                     (96, 4.0, 12, 8, 40, 0.25),  # one or two
                                     (120, 3.0, 20, 8, 40, 0.25)])  # two or three
def test_the_start_delay_chain_by_uniformisation_is_the_matrix_exponential(setting):
    """The chain on (level, gangs in their grace) run by uniformisation against the
    same chain's generator exponentiated densely, with more counts than it needs; in the
    last two, requests larger than a gang, so that an arrival preempts several, and a
    headroom that needs five or six graces to block (the chain's own counts hold the
    moves past its last)."""
    gpus, alpha, request, gang_size, headroom, grace = setting
    pool = SharedPool.checked(gpus, alpha, 1.0, request)
    waiting = _waiting(pool, gang_size, headroom, grace)
    top, counts = pool.top, gpus // gang_size + 2
    levels = np.arange(top + 1)
    up = np.clip((gpus - headroom - request * levels) // gang_size, 0,
                 (gpus - headroom) // gang_size)
    generator = np.zeros(((top + 1) * counts,) * 2)
    for k in range(top + 1):
        for c in range(counts):
            if k < top:
                generator[k * counts + c, (k + 1) * counts
                          + min(c + up[k] - up[k + 1], counts - 1)] += alpha
            if k > 0:
                generator[k * counts + c, (k - 1) * counts + c] += k / 1.0
    generator -= np.diag(generator.sum(axis=1))
    start = np.zeros((top + 1) * counts)
    start[::counts] = pool.stationary()
    free = gpus - request * levels[:, None] - gang_size * (up[:, None] + np.arange(counts))
    blocked = ((free < request) & (levels < top)[:, None]).ravel()
    assert max(up[:-1] - up[1:]) == math.ceil(request / gang_size)
    assert waiting(grace) > waiting(grace / 4) > waiting(0.0)  # the graces count
    for window in (0.0, grace / 4, grace):
        after = start @ scipy.linalg.expm(generator * window)
        assert waiting(window) == pytest.approx(after[blocked].sum(), rel=1e-10, abs=1e-15)


def test_the_p99_falls_with_the_headroom_within_an_offset_but_not_across_offsets():
    """Gangs of 32 in a pool of 1-GPU requests: adding 32 GPUs of headroom only adds a
    grace to every level's block, so the p99 falls; adding fewer moves the levels where
    gangs are preempted, and it can rise again (a boundary moves onto the load's mode)."""
    pool = SharedPool.checked(227, 218.29, 0.5, 1, overflow="drop")
    p99 = [start_delays(pool, 32, headroom, 30 * SECOND)[2] for headroom in range(72)]
    for offset in range(32):
        steps = p99[offset::32]
        assert all(later <= earlier + 1e-12 for earlier, later in zip(steps, steps[1:]))
    assert p99[22] > p99[4] + 4 * SECOND  # 14.6 s against 9.5 s


@pytest.mark.parametrize("setting", [((499, 200.0, 1.0, 1), 8, 40), ((400, 40.0, 1.0, 3), 8, 6),
                                     ((1024, 20.0, 2.0, 8), 16, 10),
                                     ((1200, 60.0, 1.0, 6), 4, 8),
                                     ((2000, 400.0, 1.0, 1), 8, 12)])
def test_one_run_answers_the_headrooms_a_period_apart_as_each_its_own_chain(setting):
    """Adding lcm(g, N) GPUs of headroom takes the same number of gangs from every level:
    one run at H with j further graces blocking gives, for each window, what the chain
    run at H + j·lcm(g, N) gives."""
    from spotmath.model import pool_choice

    (gpus, alpha, hold, request), gang_size, above = setting
    pool = SharedPool.checked(gpus, alpha, hold, request)
    period, beyond = pool_choice._period(pool, gang_size)
    assert period * request == math.lcm(request, gang_size)
    assert beyond * gang_size == math.lcm(request, gang_size)
    for base in (0, request * (period // 2)):  # at 0, requests larger than a gang may
        # block with no grace at all (f(n) < 0), and more headroom changes that too
        reach = min(above, pool_choice._serves(pool, gang_size, base, 30 * SECOND))
        assert reach >= 2
        run = _waiting(pool, gang_size, base, 30 * SECOND, above=reach)
        for step in range(reach + 1):
            own = _waiting(pool, gang_size, base + step * period * request, 30 * SECOND)
            for window in (0.0, 5 * SECOND, 30 * SECOND):
                assert run(window, above=step) == pytest.approx(own(window), rel=1e-9,
                                                                abs=1e-15)


@pytest.mark.parametrize("cores", [1, 2])
def test_runs_stepped_together_give_each_runs_own_numbers_to_the_bit(monkeypatch, cores):
    """Several runs stepped as one block (on one thread, or two blocks on two) give each
    run exactly what it gives alone: each state's sum has the same terms in the same
    order; and their work is spent from the budget once, before they run."""
    from spotmath.model import pool_choice

    pool = SharedPool.checked(2000, 400.0, 1.0, 1)
    runs = [(1, 3), (2, 0), (5, 7), (12, 2)]
    monkeypatch.setattr(pool_choice, "_cores", lambda: cores)
    budget = pool_choice.DelayBudget()
    together = pool_choice._waiting_together(pool, 8, runs, 30 * SECOND, budget)
    works = [pool_choice._chain(pool, 8, headroom, 30 * SECOND, above)[-1]
             for headroom, above in runs]
    assert pool_choice.MAX_CHOICE_WORK - budget.left == pytest.approx(sum(works))
    for (headroom, above), run in zip(runs, together):
        alone = _waiting(pool, 8, headroom, 30 * SECOND, above=above)
        assert run.masses.shape == (alone.masses.shape[0], above + 1)
        assert np.array_equal(run.masses, alone.masses) and run.fastest == alone.fastest
    with pytest.raises(InputError, match=r"^grace: the start delays over a grace of 30 s "):
        pool_choice._waiting_together(pool, 8, runs, 30 * SECOND,
                                      pool_choice.DelayBudget(sum(works) * 0.99))


def test_a_run_answers_no_headroom_past_where_a_gang_is_up_at_every_level():
    """Past the headroom that leaves the chain's top level no gang, more headroom takes
    fewer gangs there: a run's reach ends before it."""
    from spotmath.model import pool_choice

    pool = SharedPool.checked(400, 40.0, 1.0, 3)
    top = min(pool_choice._levels(pool, 30 * SECOND)[2], pool.top)
    serves = pool_choice._serves(pool, 8, 0, 30 * SECOND)
    apart = pool_choice._period(pool, 8)[0] * 3
    assert serves == 5  # levels up to 40 + about 7 standard deviations
    assert 400 - serves * apart - 3 * top >= 0 > 400 - (serves + 1) * apart - 3 * top
    assert pool_choice._serves(SharedPool.checked(64, 6.0, 1.0, 4), 8, 0, 30 * SECOND) == 0


@pytest.mark.parametrize("setting", [((499, 200.0, 1.0, 1), 8, 5 * SECOND, "queue"),
                                     ((400, 40.0, 1.0, 3), 8, 5 * SECOND, "queue"),
                                     ((1200, 60.0, 1.0, 6), 4, 10 * SECOND, "queue"),
                                     ((2000, 400.0, 1.0, 1), 8, 20 * SECOND, "queue"),
                                     ((128, 4.0, 2.0, 8), 16, 0.0, "queue"),
                                     ((227, 218.29, 0.5, 1), 32, 10 * SECOND, "drop"),
                                     ((465, 172.15, 0.5, 1), 32, 5 * SECOND, "queue"),
                                     ((137, 118.31, 0.5, 1), 32, 0.0, "queue"),
                                     ((351, 139.99, 1.0, 1), 32, 0.0, "drop")])
def test_the_choices_headroom_is_the_least_by_scanning(setting):
    """The choice searches each offset from a multiple of lcm(g, N) on runs that answer
    many headrooms: the headroom it keeps is the least of a scan of every room, also
    where the p99 rises and falls again with the headroom (the last four; in the last,
    halving over every headroom, as the search did before, finds 31 GPUs, the least is
    5)."""
    (gpus, alpha, hold, request), gang_size, target, overflow = setting
    pool = SharedPool.checked(gpus, alpha, hold, request, overflow=overflow)
    choice = one_pool_or_two(pool, gang_size, MINUTE, 0.1, 30 * SECOND, target)
    scanned = next(m for m in range(pool.top + 1) if start_delays(
        pool, gang_size, m * request, 30 * SECOND)[2] <= target)
    assert choice.one_kept.headroom == scanned * request and choice.untried == 0


def test_random_pools_choose_the_least_headroom_of_a_scan():
    """200 pools drawn at random (requests of 1 to 8 GPUs, gangs of 2 to 32, loads of 5%
    to 60% of the requests that fit, both ways of overflow, targets of 0 to 20 s): the
    headroom each choice keeps is the least of a scan of every room."""
    rng = np.random.default_rng(2026)
    chosen = 0
    while chosen < 200:
        request = int(rng.choice([1, 2, 3, 4, 6, 8]))
        gang_size = int(rng.choice([2, 4, 8, 16, 32]))
        gpus = int(rng.integers(max(gang_size, request) * 4, 300))
        hold = float(rng.choice([0.5, 1.0, 2.0]))
        load = float(rng.uniform(0.05, 0.6)) * (gpus // request)
        pool = SharedPool.checked(gpus, load / hold, hold, request,
                                  overflow=str(rng.choice(["queue", "drop"])))
        target = float(rng.choice([0, 2, 5, 10, 20])) * SECOND
        try:
            choice = one_pool_or_two(pool, gang_size, MINUTE, 0.1, 30 * SECOND, target)
        except InputError:  # a load no design carries at the p99
            continue
        scanned = next(m for m in range(pool.top + 1) if start_delays(
            pool, gang_size, m * request, 30 * SECOND)[2] <= target)
        assert (choice.one_kept.headroom, choice.untried) == (scanned * request, 0), (
            gpus, request, gang_size, load, hold, pool.overflow, target)
        chosen += 1


def _recorded_choice(pool, gang_size, target):
    """A pool's choice (grace 30 s), with the runs of each call that steps chains and the
    work of each spend, in order."""
    from spotmath.model import pool_choice

    rounds, spent = [], []
    real_together, real_spend = pool_choice._waiting_together, pool_choice.DelayBudget.spend

    def together(pool, gang_size, runs, grace, budget=None):
        rounds.append(list(runs))
        return real_together(pool, gang_size, runs, grace, budget)

    def spend(self, work, grace):
        real_spend(self, work, grace)
        spent.append(work)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pool_choice, "_waiting_together", together)
        patch.setattr(pool_choice.DelayBudget, "spend", spend)
        choice = pool_choice.one_pool_or_two(pool, gang_size, MINUTE, 0.1, 30 * SECOND,
                                             target)
    return choice, rounds, spent


def test_the_largest_pool_gives_its_headroom_in_whole_gangs_when_refining_costs_more():
    """100,000 GPUs in requests of 1 and gangs of 8: one run answers the headrooms 8 GPUs
    apart from 0 (about twice the victims of a grace as graces).  Refining it GPU by GPU
    would need more than :data:`MAX_REFINE_WORK`, so no other offset is run, the seven
    are counted untried, and the headroom kept is the least multiple of 8 GPUs that keeps
    the target."""
    from spotmath.model import pool_choice

    pool = SharedPool.checked(100_000, 40_000.0, 1.0, 1)
    victims = pool_choice._victims(pool, 8, 30 * SECOND)
    assert victims == pytest.approx(40_000 * 30 * SECOND / 8, rel=1e-6)  # 1 in 8 arrivals
    choice, rounds, spent = _recorded_choice(pool, 8, 10 * SECOND)
    assert rounds == [[(0, math.ceil(2 * victims + 8))]] and len(spent) == 1
    kept = choice.one_kept.headroom
    assert choice.untried == 7 and kept % 8 == 0
    assert pool_choice._refining_work(pool, 8, 30 * SECOND, 8, kept) \
        > pool_choice.MAX_REFINE_WORK
    assert 0 < kept and choice.one_kept.p99_start <= 10 * SECOND
    assert start_delays(pool, 8, kept - 8, 30 * SECOND)[2] > 10 * SECOND


def test_a_refinement_within_its_budget_tries_every_offset_and_spends_no_more_than_it_said():
    """20,000 GPUs in requests of 1 and gangs of 8: refining costs less than
    :data:`MAX_REFINE_WORK`, so the other seven offsets' first runs, up to the headroom
    offset 0 found, are stepped together and answer their whole search; they spend no
    more than :func:`_refining_work` said; and below the headroom kept every offset's last
    room fails (so every room of it does)."""
    from spotmath.model import pool_choice

    pool = SharedPool.checked(20_000, 8_000.0, 1.0, 1)
    estimates = []
    real_estimate = pool_choice._refining_work

    def estimate(*args):
        estimates.append(real_estimate(*args))
        return estimates[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pool_choice, "_refining_work", estimate)
        choice, rounds, spent = _recorded_choice(pool, 8, 10 * SECOND)
    assert [base for base, _ in rounds[1]] == list(range(1, 8))  # the others at once
    assert len(rounds) == 2 and len(spent) == 2  # no offset needed a second run
    assert spent[1] <= estimates[0] <= pool_choice.MAX_REFINE_WORK
    kept = choice.one_kept.headroom
    assert choice.untried == 0 and choice.one_kept.p99_start <= 10 * SECOND
    for offset in range(8):
        below = kept - 1 - (kept - 1 - offset) % 8  # the offset's last room below kept
        assert start_delays(pool, 8, below, 30 * SECOND)[2] > 10 * SECOND, offset


def test_a_second_run_of_an_offset_starts_where_the_first_stopped_answering():
    """100,000 GPUs in requests of 1 and gangs of 64: offset 0's first run answers 19
    rooms beyond its own, and all of them fail; the next run starts at the first room
    still in doubt, not above it, and answers the stretch in which the least room that
    keeps the target lies."""
    pool = SharedPool.checked(100_000, 40_000.0, 1.0, 1)
    choice, rounds, _ = _recorded_choice(pool, 64, 10 * SECOND)
    [(base, above)], [(second, further)] = rounds[:2]
    assert base == 0 and second == (above + 1) * 64
    kept = choice.one_kept.headroom
    assert second <= kept <= second + further * 64 and kept % 64 == 0


def test_a_choice_past_its_budget_says_how_many_offsets_it_did_not_try(cli, monkeypatch):
    """With a budget for the first offset's run alone, the others are not tried, and the
    command says so after the one-pool line."""
    from spotmath.model import pool_choice

    pool = SharedPool.checked(2000, 400.0, 1.0, 1)
    reach = math.ceil(2 * pool_choice._victims(pool, 8, 30 * SECOND) + 8)
    first = pool_choice._chain(pool, 8, 0, 30 * SECOND, reach)[-1]
    monkeypatch.setattr(pool_choice, "MAX_CHOICE_WORK", first * 1.01)
    done = cli("cluster", "--gpus", "2000", "--hp-gpus", "1", "--hp-rate", "400/h",
               "--hp-hold", "1h", "--gang-size", "8", "--grace", "30s", "--start-target",
               "5s")
    assert done.returncode == 0, done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("  one pool ")]
    assert re.search(r"; a less headroom may keep the target too: "
                     r"[1-7] of the 8 offsets of headroom from a multiple of 8 GPUs were not "
                     r"tried \(more than this command runs\)$", line), line


LIGHT = [["--gpus", "256", "--hp-gpus", "1", "--hp-rate", "2/h", "--hp-hold", "1h"],
         ["--gpus", "480", "--hp-gpus", "1", "--hp-rate", "20/h", "--hp-hold", "2h",
          "--grace", "30s"],
         ["--gpus", "64", "--hp-rate", "1e-4/h", "--hp-hold", "1h"],
         ["--gpus", "600", "--hp-gpus", "1", "--hp-rate", "20/h", "--hp-hold", "1h",
          "--gang-size", "570"],
         ["--gpus", "499", "--hp-gpus", "1", "--hp-rate", "200/h", "--hp-hold", "1h",
          "--gang-size", "8", "--grace", "30s", "--start-target", "5s"],
         ["--gpus", "64", "--hp-rate", "0/h", "--hp-hold", "1h", "--gang-size", "16"]]


@pytest.mark.parametrize("argv", LIGHT)
def test_light_loads_and_no_load_answer_without_a_warning(cli, argv):
    done = cli("cluster", *argv)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "nan" not in done.stdout.lower() and "verdict" in done.stdout
    values = json.loads(cli("cluster", *argv, "--json").stdout)
    assert values["up_share"] > 0 and values["waste"] < 1


def test_the_light_load_prints_the_gang_up_nearly_always(cli):
    done = cli("cluster", *LIGHT[3])
    assert "time up            98.7%" in done.stdout


def test_no_load_is_never_preempted(cli):
    done = cli("cluster", *LIGHT[5])
    assert "never preempted    there are no high-priority requests" in done.stdout
    values = json.loads(cli("cluster", *LIGHT[5], "--failure-mtbf", "none", "--json").stdout)
    assert values["state"] == "never preempted" and values["recommended_interval_h"] is None
    assert values["waste"] == 0


def test_the_table_has_a_row_a_rank_and_names_the_runs_that_are_not_gangs(cli):
    done = cli("cluster", "--gpus", "512", "--hp-gpus", "8", "--hp-rate", "20/h",
               "--hp-hold", "1.5h", "--gang-size", "64")
    lines = done.stdout.splitlines()
    table = lines[lines.index(next(line for line in lines if "rank" in line
                                   and "waste" in line)) + 1:]
    rows = table[:table.index(next(line for line in table if line.startswith("one pool")))]
    assert [row.split()[0] for row in rows] == ["1", "2", "3", "4", "5", "6", "7–8"]
    assert "almost never up" in rows[-1]
    values = json.loads(cli("cluster", "--gpus", "512", "--hp-gpus", "8", "--hp-rate",
                            "20/h", "--hp-hold", "1.5h", "--gang-size", "64", "--gangs",
                            "3", "--json").stdout)
    assert [rank["rank"] for rank in values["gangs"]] == [1, 2, 3]


def test_a_gang_in_the_way_of_requests_is_not_said_to_fit_beside_them(cli):
    """4,096 GPUs hold 512 requests of 8: a gang of 32 is up while at most 508 run, so it
    does not fit beside every request; it is in their way too seldom to count."""
    done = cli("cluster", "--gpus", "4096", "--hp-gpus", "8", "--hp-rate", "8/h",
               "--hp-hold", "2h", "--gang-size", "32")
    assert "fits beside" not in done.stdout
    assert "never preempted    a request finds it in the way less than once in" in done.stdout
    fits = cli("cluster", "--gpus", "68", "--hp-gpus", "8", "--hp-rate", "8/h",
               "--hp-hold", "2h", "--gang-size", "4", "--hp-overflow", "drop")
    assert "it fits beside every request the pool holds at once" in fits.stdout


def test_magnitudes_beyond_sense_are_said_in_words(cli):
    done = cli("cluster", "--gpus", "256", "--hp-gpus", "1", "--hp-rate", "2/h",
               "--hp-hold", "1h")
    assert "never preempted in practice (less than once in 114 years)" in done.stdout
    assert not any(len(word) > 12 and word.replace(".", "").isdigit()
                   for word in done.stdout.split())
    assert "e+31" not in done.stdout  # nor 4.17e+31 d: beyond 114 years, in words
    # nor one GPU's mean time between failures as 2.11e+03 d, nor a rank's mean up time
    assert "one GPU in 5.78 years" in done.stdout and "e+" not in done.stdout
    large = cli("cluster", "--gpus", "3000", "--hp-gpus", "2", "--hp-rate", "1000/h",
                "--hp-hold", "1h", "--gang-size", "64")
    assert "high-priority load 1,000 requests of 2 GPUs" in large.stdout  # not 1e+03
    assert "e+" not in large.stdout


def test_durations_beyond_any_schedule_are_said_in_words():
    """#53-11: an interval of 3.56e31 h printed as 35569014564316698865987491987456.00 h,
    then as 1.48e+30 d; beyond MAX_HOURS it is 'never in practice', and up to it a number
    of years."""
    from spotmath.inputs import MAX_HOURS, duration_text

    assert duration_text(3.56e31) == "never in practice (over 114 years)"
    assert duration_text(MAX_HOURS) == "114 years"  # the longest said as a number


@pytest.mark.parametrize("flags, message", [
    (["--hp-rate", "-5/h"], "--hp-rate: must be a rate >= 0 per hour"),
    (["--hp-rate=-5/h"], "--hp-rate: must be a rate >= 0 per hour"),
    (["--gpus", "-64"], "--gpus: must be a whole number of GPUs >= 1"),
    (["--gang-size", "12.5"], "--gang-size: must be a whole number of GPUs >= 1"),
    (["--gangs", "9"], "--gangs: at most 8 gangs of 8 GPUs fit 64 GPUs"),
    (["--hp-hold", "1e-120"], "--hp-hold: a load (--hp-rate × --hp-hold) of at least"),
    (["--checkpoint", "0"], "--checkpoint: a write of 0 hours has no optimal interval"),
    (["--gpus=1e308"], "--gpus: must be a whole number of GPUs of at most 2**53, got '1e308'"),
    (["--gpus=1e15"], "--gpus: at most 100,000 GPUs, got 1e+15"),
    (["--gang-size", "1e308"],
     "--gang-size: must be a whole number of GPUs of at most 2**53, got '1e308'"),
    (["--gang-size", "1e15"], "--gang-size: a gang of 1e+15 GPUs never fits a pool of 64"),
])
def test_the_command_refuses_in_one_line_naming_the_option(cli, flags, message):
    base = {"--gpus": "64", "--hp-rate": "2/h", "--hp-hold": "2h", "--hp-gpus": "8",
            "--gang-size": "8"}
    given = {flag.split("=")[0] for flag in flags[::2] if flag.startswith("--")}
    argv = [item for flag, value in base.items() if flag not in given
            for item in (flag, value)]
    done = cli("cluster", *argv, *flags)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_a_pool_of_the_largest_size_in_one_gpu_requests_answers_every_gang(cli):
    """100,000 GPUs, 1-GPU requests at a load of 40,000 and gangs of 8: 326 ranks need
    laws of up to 3,106 levels, and every gang is answered; so is one pool or two, its
    headroom in whole gangs (refining it GPU by GPU costs more than the command runs)."""
    done = cli("cluster", "--gpus", "100000", "--hp-gpus", "1", "--hp-rate", "40000/h",
               "--hp-hold", "1h", "--gang-size", "8", "--grace", "30s", "--start-target",
               "10s", "--json")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    values = json.loads(done.stdout)
    gangs = values["gangs"]
    assert len(gangs) == 12_500
    preempted = [gang for gang in gangs if gang["state"] == "preempted"]
    assert len(preempted) > 200
    assert all(0 < gang["recommended_interval_h"] < math.inf and 0 < gang["waste"] < 1
               for gang in preempted)
    assert values["one_pool_p99_start_s"] <= 10 and values["one_pool_headroom_gpus"] > 0
    assert values["one_pool_untried_offsets"] == 7
    # two pools keep more than one behind the headroom tried, but less than one pool
    # with no headroom: a headroom of the offsets not tried could turn the verdict
    assert values["one_pool_training_per_day"] < values["two_pools_training_per_day"] \
        < values["one_pool_no_headroom_training_per_day"]
    assert values["verdict"] == "not decided"
    assert values["one_pool_headroom_gpus"] % 8 == 0


def test_two_threads_asking_for_the_same_ranks_compute_each_law_once(monkeypatch):
    """The command asks for the pool's ranks on one thread while its one-pool design,
    on another, asks for the same ranks with no headroom and for the same gangs behind a
    headroom of whole gangs: each law is computed once (it computed every one twice, and
    a pool of 100,000 GPUs in 8-GPU requests and gangs of 8 took 3.6 s, not 2.6 s)."""
    import concurrent.futures

    from spotmath.model import cluster_renewal

    pool = SharedPool.checked(3000, 121.0, 2.0, 8)  # a pool no other test asks about
    computed = []
    block_laws = cluster_module._block_laws
    monkeypatch.setattr(cluster_module, "_block_laws", lambda pool, block, wanted: (
        computed.extend(wanted), block_laws(pool, block, wanted))[1])
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as threads:
        found = list(threads.map(lambda headroom: ranks(pool, 8, 1 / 60, 0.1, 0.0,
                                                        headroom=headroom), [0, 0, 64]))
    stars = cluster_renewal._lawful(cluster_renewal._rank_gangs(pool, 8, 375, 0))
    assert len(stars) > 150
    assert sorted(computed) == sorted(stars)
    assert found[0] == found[1] and found[2] == [
        cluster_renewal.Rank(rank.rank - 8, rank.gang, rank.interval, rank.kept)
        for rank in found[0][8:]]


def test_a_pool_of_the_largest_size_answers(cli):
    """100,000 GPUs, requests of 64 GPUs and gangs of 512 (the most a pool may have)."""
    done = cli("cluster", "--gpus", "100000", "--hp-gpus", "64", "--hp-rate", "600/h",
               "--hp-hold", "2h", "--gang-size", "512", "--json")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    values = json.loads(done.stdout)
    assert len(values["gangs"]) == 195
    with pytest.raises(InputError, match="gpus: at most 100,000 GPUs"):
        SharedPool.checked(100_001, 600.0, 2.0, 64)


def cut_chain(pool, star, lowest):
    """The symmetric tridiagonal A of the chain on lowest … k*, held at its lowest level,
    and its unscaled generator Q, as the law's docstring defines them."""
    alpha, hold = pool.hp_rate, pool.hp_hold
    down = np.arange(lowest, star + 1) / hold
    down[0] = 0.0
    diagonal, off = -(alpha + down), np.sqrt(alpha * down[1:])
    generator = scipy.sparse.diags(
        [down[1:], diagonal, np.full(star - lowest, alpha)], [-1, 0, 1], format="csr")
    return diagonal, off, generator


#: Chains of about 200 to 3,100 levels: 1-GPU requests at a load of 40,000 and 800,
#: 8-GPU requests at 6,000, each with ranks below, at and far above the load.
LARGE_CHAINS = [((100_000, 40_000.0, 1.0, 1), (38_608, 39_784, 40_600, 41_208)),
                ((100_000, 3000.0, 2.0, 8), (5_724, 5_852, 6_150, 6_470)),
                ((2000, 800.0, 1.0, 1), (728, 800, 870))]


@pytest.mark.parametrize("setting, stars", LARGE_CHAINS)
def test_a_large_chains_law_is_its_matrix_exponential_and_keeps_its_moments(setting,
                                                                              stars):
    """The law projected on a few dozen vectors against the cut chain's own generator,
    exp(Qt) applied by SciPy's expm_multiply (no eigenvalues), at ages up to a mean up
    time or 2,000 of the chain's fastest steps; its mean and second moment against the
    recursions."""
    import scipy.sparse.linalg

    pool = SharedPool.checked(*setting)
    for star in stars:
        law = up_time_law(pool, star)
        assert law.rates.size < 100 < star + 1 - law.lowest
        generator = cut_chain(pool, star, law.lowest)[2]
        fastest = 2 * (pool.hp_rate + star / pool.hp_hold)  # expm_multiply's steps
        ages = np.array([1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0]) * min(
            pool._passage_moments[0][star], 2e3 / fastest)
        ones = np.ones(star + 1 - law.lowest)
        exact = [scipy.sparse.linalg.expm_multiply(generator * age, ones)[-1]
                 for age in ages]
        assert law.survival(ages) == pytest.approx(exact, rel=1e-9, abs=1e-12)
        assert law.mean == pytest.approx(pool._passage_moments[0][star], rel=1e-12)
        assert law.second_moment == pytest.approx(pool._passage_moments[1][star],
                                                  rel=1e-9)


def test_laws_computed_together_are_the_laws_computed_one_at_a_time(monkeypatch):
    """up_time_laws computes the laws of a block of STAR_BLOCK k* from one chain, each
    from the one below: each law is the one its k* gives alone, to the bit, and a block's
    chain is factorised once for all its laws, not once a law."""
    pool = SharedPool.checked(100_000, 3000.0, 2.0, 8)
    stars = range(5_700, 6_400, 13)
    made = []
    factors = cluster_module._Factors
    monkeypatch.setattr(cluster_module, "_Factors",
                        lambda *args: (made.append(args[0].size), factors(*args))[1])
    cluster_module._forget_laws()
    together = cluster_module.up_time_laws(pool, stars)
    blocks = {star // cluster_module.STAR_BLOCK for star in stars}
    assert len(made) == len(blocks) == 11
    cluster_module._forget_laws()
    for star in stars:
        alone = up_time_law(pool, star)
        assert alone is not together[star]
        assert np.array_equal(alone.rates, together[star].rates)
        assert np.array_equal(alone.weights, together[star].weights)
        assert alone.lowest == together[star].lowest == star + 1 - law_size(pool, star)[0]
    assert len(made) == len(blocks) + len(stars)


def test_the_laws_work_counts_the_chains_and_steps_the_laws_take(monkeypatch):
    """laws_work (what MAX_RANKS_WORK bounds) counts n·m for each chain projected from
    its vectors, 3,000 for each step and 4,000 for each law: here against the chains and
    steps up_time_laws takes for laws in three blocks, one law alone in its block."""
    pool = SharedPool.checked(100_000, 3000.0, 2.0, 8)
    stars = {5_700, 5_710, 5_750, 6_300, 6_390}
    chains, steps = [], []
    space = cluster_module._Space
    of_chain, step = space.of_chain, space.step
    monkeypatch.setattr(space, "of_chain", classmethod(
        lambda cls, diagonal, *rest: (chains.append(diagonal.size), of_chain(diagonal,
                                                                             *rest))[1]))
    monkeypatch.setattr(space, "step", lambda self, *rest: (steps.append(1),
                                                            step(self, *rest))[1])
    cluster_module._forget_laws()
    cluster_module.up_time_laws(pool, stars)
    vectors = law_size(pool, 5_700)[1]
    assert len(chains) == 3 and len(steps) > 100
    assert cluster_module.laws_work(pool, stars) == \
        sum(chains) * vectors + 3_000 * len(steps) + 4_000 * len(stars)
    cluster_module._forget_laws()


def test_a_gang_up_for_more_than_a_trillion_arrivals_has_its_law_refused():
    """A pool of 2,000 GPUs at a load of 500 requests: a gang up while at most 700 run is
    preempted once in 3.6·10¹⁴ hours, 1.8·10¹⁷ arrivals, and its chain reaches so far
    above the load that its factorisation from the lowest level fails (ptsv and pttrf
    raised ArithmeticError there, and at 800 to 1,500).  The law is refused in one line
    naming the gang; its hazard too; its best interval is the exact optimum at its rate,
    as the ranks give.  Every law the ranks use is within the bound."""
    from spotmath.model.cluster import MAX_LAW_ARRIVALS, PRACTICALLY_NEVER_H, up_time_hazard

    assert PRACTICALLY_NEVER_H * 1e6 <= MAX_LAW_ARRIVALS  # E[U] and α at their most
    pool = SharedPool.checked(2000, 500.0, 1.0, 1)
    for star in (700, 800, 1_000, 1_500):
        assert pool.hp_rate * pool._passage_moments[0][star] > MAX_LAW_ARRIVALS
        with pytest.raises(InputError, match=rf"^gang_size: a gang up while at most "
                           rf"{star:,} requests run sees more than 1e\+12 arrivals in a "
                           r"mean up time: its up-time law is not computed"):
            up_time_law(pool, star)
    gang = gang_in_pool(pool, 2000 - 700)
    with pytest.raises(InputError, match="^gang_size: "):
        up_time_hazard(pool, gang, [0.0, 1.0])
    interval, _ = best_interval(pool, gang, MINUTE, 0.1, 0.0, 1e-4)
    assert interval == pytest.approx(
        float(optimal_interval(gang.preemption_rate + 1e-4, MINUTE)), rel=1e-12)
    with pytest.raises(InputError, match="^gang_size: "):
        cluster_module.up_time_laws(pool, [600, 700])
    tiny = SharedPool.checked(64, 1e-6, 1.0, 8)  # a chain of 8 levels, taken whole
    assert tiny.hp_rate * tiny._passage_moments[0][7] > MAX_LAW_ARRIVALS
    assert up_time_law(tiny, 7).mean == pytest.approx(tiny._passage_moments[0][7],
                                                      rel=1e-9)


def test_a_steps_qr_is_scipys_to_the_bit():
    """A step's QR calls LAPACK itself, as scipy.linalg.qr does: the same numbers."""
    rng = np.random.default_rng(7)
    for rows in (8, 24, 35, 61):
        matrix = rng.random((rows, rows - 1)) * 10.0 ** rng.uniform(-8, 8, (rows, rows - 1))
        basis, triangle = cluster_module._qr(matrix)
        theirs = scipy.linalg.qr(matrix, mode="economic", check_finite=False)
        assert np.array_equal(basis, theirs[0]) and np.array_equal(triangle, theirs[1])


@pytest.mark.parametrize("setting, stars", [((100_000, 3000.0, 2.0, 8), (5_759, 6_143)),
                                            ((100_000, 40_000.0, 1.0, 1), (39_039, 41_215)),
                                            ((512, 20.0, 1.5, 8), (63,))])
def test_a_space_stepped_up_a_block_is_the_space_of_its_own_chain(setting, stars):
    """Each law of a block comes from the one below by one step (the last k* of a block
    by 63): the projection and top row the steps reach give the law the chain's own
    vectors give (of_chain on that chain), its sums the same to 10⁻¹¹ of the mean."""
    pool = SharedPool.checked(*setting)
    count = cluster_module._shift_count(pool)
    for star in stars:
        assert star % cluster_module.STAR_BLOCK == cluster_module.STAR_BLOCK - 1
        law = up_time_law(pool, star)
        diagonal, off, _ = cut_chain(pool, star, law.lowest)
        factors = cluster_module._Factors(diagonal, off, cluster_module._law_shifts(pool))
        space = cluster_module._Space.of_chain(diagonal, off, factors, count)
        direct = cluster_module._spectral_law(pool, star, law.lowest, space.projected,
                                              space.top)
        assert law.rates.size == direct.rates.size == count + 5
        mean = pool._passage_moments[0][star]
        for case in itertools.product((0.0, 0.1), (MINUTE, 0.5, 3.0), (MINUTE, 0.1),
                                      (0.0, 0.2), (0.0, 0.05)):
            assert law.kept(*case) == pytest.approx(direct.kept(*case), abs=1e-11 * mean)
        assert law.survival([1e-4, 0.01, 1.0]) == pytest.approx(
            direct.survival([1e-4, 0.01, 1.0]), abs=1e-11)


def test_a_large_chains_sums_are_those_of_its_whole_spectrum():
    """Every sum the renewal model takes of the projected law against the same sum of the
    law from all the eigenvalues and eigenvectors LAPACK computes (with the slowest term
    set by the mean, as the law does), over starts, intervals, writes, notices and
    failures: the same to 10⁻⁹ of the mean up time."""
    pool = SharedPool.checked(100_000, 3000.0, 2.0, 8)
    for star in (5_724, 5_852, 6_150):
        law = up_time_law(pool, star)
        diagonal, off, _ = cut_chain(pool, star, law.lowest)
        values, vectors = scipy.linalg.eigh_tridiagonal(diagonal, off)
        rates = -values[::-1]
        weights = pool.hp_rate * vectors[-1, ::-1] ** 2 / rates
        mean = pool._passage_moments[0][star]
        rest = np.sum(weights[1:] / rates[1:])
        if rest < mean / 2:
            weights[0] = 1.0 - weights[1:].sum()
            rates[0] = weights[0] / (mean - rest)
        whole = cluster_module.UpTimeLaw(rates, weights, law.lowest)
        for startup, interval, write, grace, failures in itertools.product(
                (0.0, 0.1), (MINUTE / 2, 0.1, 3.0, 20.0), (10 * SECOND, MINUTE, 0.1),
                (0.0, 30 * SECOND, 0.2), (0.0, 0.05)):
            assert law.kept(startup, interval, write, grace, failures) == pytest.approx(
                whole.kept(startup, interval, write, grace, failures), abs=1e-9 * mean)


def test_more_shifts_move_no_sum_of_the_law(monkeypatch):
    """Twice the shifts a decade, and a lowest shift ten times lower: the law's sums move
    by less than 10⁻¹⁰ of the mean up time, so the space already holds what they need."""
    pool = SharedPool.checked(100_000, 40_000.0, 1.0, 1)
    cases = list(itertools.product((0.0, 0.1), (MINUTE, 0.5, 3.0), (MINUTE, 0.1),
                                   (0.0, 0.2), (0.0, 0.05)))
    stars = (38_800, 39_472, 40_208, 41_208)
    sums = {star: [up_time_law(pool, star).kept(*case) for case in cases] for star in stars}
    monkeypatch.setattr(cluster_module, "SHIFTS_PER_DECADE", 10)
    monkeypatch.setattr(cluster_module, "LOWEST_SHIFT", 0.01)
    cluster_module._forget_laws()
    try:
        for star in stars:
            finer = [up_time_law(pool, star).kept(*case) for case in cases]
            assert finer == pytest.approx(sums[star],
                                          abs=1e-10 * pool._passage_moments[0][star])
    finally:
        cluster_module._forget_laws()


@pytest.mark.parametrize("setting, stars", LARGE_CHAINS)
def test_at_most_two_of_a_cut_chains_rates_are_slower_than_one_over_the_hold(setting,
                                                                             stars):
    """What the lowest shift rests on (interlacing with the chain on 0 … ∞, whose rates
    are 0, 1/h, 2/h …): below 1/h the cut chain has at most two rates, which the powers
    of A⁻¹ in the space catch."""
    pool = SharedPool.checked(*setting)
    for star in stars:
        diagonal, off, _ = cut_chain(pool, star, cluster_module._lowest_level(pool, star))
        values = scipy.linalg.eigvalsh_tridiagonal(diagonal, off)
        assert np.sum(-values < (1 - 1e-9) / pool.hp_hold) <= 2


def test_a_rank_preempted_less_than_once_in_a_million_hours_writes_at_the_exact_optimum():
    """Its up times are taken as exponential at λ_c, so its best interval is the book's
    exact optimum at λ_c + φ: a numeric search of its kept share agrees where the share
    still moves, and where it is 1 to the last digits the answer is that optimum, not
    the point a search of rounding would stop at."""
    from spotmath.model.numerics import optimal_interval

    pool = SharedPool.checked(100_000, 40_000.0, 1.0, 1)
    every = ranks(pool, 8, MINUTE, 0.1, 10 * SECOND, failures=1e-7)
    rare = [rank for rank in every if rank.state == "never preempted in practice"]
    rates = [rank.gang.preemption_rate for rank in rare]
    assert min(rates) < 1e-30 and max(rates) > 1e-8
    for rank in rare:
        both = rank.gang.preemption_rate + 8e-7
        assert rank.interval == float(optimal_interval(both, MINUTE))
    moving = max(rare, key=lambda rank: rank.gang.preemption_rate)
    found = scipy.optimize.minimize_scalar(
        lambda log_t: -kept_share(pool, moving.gang, math.exp(log_t), MINUTE, 0.1,
                                  10 * SECOND, 8e-7),
        bounds=(math.log(moving.interval) - 3, math.log(moving.interval) + 3),
        method="bounded", options={"xatol": 1e-7})
    assert math.exp(found.x) == pytest.approx(moving.interval, rel=1e-4)
    assert moving.kept == pytest.approx(-found.fun, rel=1e-13)


@pytest.mark.parametrize("setting, gang_size, headroom", [
    ((100_000, 40_000.0, 1.0, 1, "queue"), 3, 0),
    ((100_000, 40_000.0, 1.0, 1, "queue"), 8, 346),
    ((100_000, 3000.0, 2.0, 8), 64, 0),
    ((512, 20.0, 1.5, 8), 64, 0),
    ((480, 20.0, 2.0, 1, "queue"), 8, 30),
    ((499, 200.0, 1.0, 1, "queue"), 8, 0),
    ((256, 0.0, 1.0, 1), 8, 0)])
def test_the_work_of_the_ranks_is_counted_over_the_laws_ranks_computes(setting, gang_size,
                                                                       headroom):
    """The ranks' work, from the pool's arrays at once, counts the laws of exactly the
    k* that the ranks built one by one need: a pool of 100,000 GPUs in gangs of 3 has
    33,333 ranks and 871 such laws."""
    from spotmath.model import cluster_renewal

    pool = SharedPool.checked(*setting)
    count = (pool.gpus - headroom) // gang_size
    built = cluster_renewal._lawful(cluster_renewal._rank_gangs(pool, gang_size, count,
                                                                headroom))
    assert cluster_renewal._lawful_stars(pool, gang_size, count, headroom) == built
    assert cluster_renewal.ranks_work(pool, gang_size, headroom) == \
        cluster_renewal._work(pool, built, count)
