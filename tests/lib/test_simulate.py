"""The simulator against the exact model, and the fast simulator against the reference.

Tolerances are multiples of the standard errors computed from the samples themselves.
The multiple is not tuned: it is the two-sided normal quantile that keeps the chance of any
false alarm in a family of m comparisons at 0.1% (Bonferroni), 3.3 for a single comparison
and 4.3 for the 72 points of the Poisson grid.  Seeds are fixed, so every run checks the
same samples.
"""

import itertools
import math

import numpy as np
import pytest

import spotmath as sm
from spotmath.inputs import InputError
from spotmath.model.simulate import simulate, simulate_reference

SEGMENTS = 10  # jobs of ten whole segments: E[wall] = 10 E exactly for Poisson preemptions


GRID = list(itertools.product([0.1, 0.5, 1.5], [0.0, 0.05, 0.3], [0.005, 0.05]))


def check_against_exact(sim, rate, interval, cost, restart, preemptible, allowed):
    """The simulated mean wall time within ``allowed`` standard errors of the exact one."""
    expected = SEGMENTS * sm.segment_time(rate, interval, cost, restart,
                                          restart_preemptible=preemptible)
    mean, error = sim.mean("wall_time")
    assert abs(mean - expected) < allowed * error, (mean, expected, error)


@pytest.mark.parametrize("preemptible", [True, False])
@pytest.mark.parametrize("lam_t, lam_r, lam_c", GRID)
def test_poisson_simulation_agrees_with_exact_model(lam_t, lam_r, lam_c, preemptible, z_limit):
    rate = 0.5
    interval, restart, cost = lam_t / rate, lam_r / rate, lam_c / rate
    seed = int(1000 * lam_t + 100 * lam_r + 10_000 * lam_c) + preemptible
    sim = simulate(preemption_rate=rate, interval=interval, checkpoint_cost=cost,
                   restart_time=restart, work=SEGMENTS * interval, jobs=3000,
                   restart_preemptible=preemptible, seed=seed)
    family = 2 * len(GRID)
    check_against_exact(sim, rate, interval, cost, restart, preemptible, z_limit(family))
    waste, error = sim.waste()
    exact = sm.waste_fraction(rate, interval, cost, restart, restart_preemptible=preemptible)
    assert abs(waste - exact) < z_limit(family) * error


def test_time_adds_up_per_job():
    sim = simulate(preemption_rate=1.0, interval=0.7, checkpoint_cost=0.05, restart_time=0.2,
                   work=9.5, jobs=2000, gang_size=3, weibull_shape=0.7, bulk_fraction=0.3,
                   seed=5)
    parts = sim.work + sim.rework + sim.restarts + sim.checkpoints
    assert np.allclose(sim.wall_time, parts, rtol=1e-12)
    # 9.5 h of work in 0.7 h intervals: 14 segments, so at least 14 writes
    assert np.all(sim.checkpoints >= 14 * 0.05 - 1e-12)


CONFIGURATIONS = {
    "poisson": {},
    "protected restart": {"restart_preemptible": False},
    "weibull bursty": {"weibull_shape": 0.6},
    "weibull wear-out": {"weibull_shape": 2.5},
    "gang with bulk": {"gang_size": 4, "bulk_fraction": 0.5},
    "notice": {"notice": 0.1},
    "uneven last segment": {"work": 7.3},
}


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_vectorised_agrees_with_reference(name, z_limit):
    kwargs = dict(preemption_rate=0.6, interval=0.8, checkpoint_cost=0.05, restart_time=0.25,
                  work=8.0, jobs=4000)
    kwargs.update(CONFIGURATIONS[name])
    fast = simulate(seed=11, **kwargs)
    slow = simulate_reference(seed=12, **kwargs)
    fields = ("wall_time", "preemptions", "rework", "restarts", "checkpoints")
    limit = z_limit(len(fields) * len(CONFIGURATIONS))
    for field in fields:
        (a, ea), (b, eb) = fast.mean(field), slow.mean(field)
        # a constant field (every write, say) may differ only by rounding in its last digits
        assert abs(a - b) <= limit * math.hypot(ea, eb) + 1e-12 * abs(a), (name, field, a, b)


def test_weibull_shape_one_is_poisson(z_limit):
    """The reference draws Weibull variates of shape 1 (no exponential shortcut)."""
    rate, interval, cost, restart = 0.5, 1.0, 0.05, 0.2
    sim = simulate_reference(preemption_rate=rate, interval=interval, checkpoint_cost=cost,
                             restart_time=restart, work=SEGMENTS * interval, jobs=6000,
                             weibull_shape=1.0, seed=3)
    check_against_exact(sim, rate, interval, cost, restart, True, z_limit())


def test_bulk_fraction_one_is_a_single_nodes_rate(z_limit):
    rate, interval, cost, restart = 0.5, 1.0, 0.05, 0.2
    sim = simulate(preemption_rate=rate, interval=interval, checkpoint_cost=cost,
                   restart_time=restart, work=SEGMENTS * interval, jobs=6000, gang_size=16,
                   bulk_fraction=1.0, seed=4)
    check_against_exact(sim, rate, interval, cost, restart, True, z_limit())


def test_independent_gang_is_n_lambda_and_bulk_lies_between(z_limit):
    rate, interval, cost, restart, nodes = 0.1, 0.5, 0.02, 0.1, 8
    kwargs = dict(preemption_rate=rate, interval=interval, checkpoint_cost=cost,
                  restart_time=restart, work=SEGMENTS * interval, jobs=6000, gang_size=nodes)
    independent = simulate(seed=6, **kwargs)
    check_against_exact(independent, nodes * rate, interval, cost, restart, True, z_limit())
    half = simulate(bulk_fraction=0.5, seed=7, **kwargs)
    check_against_exact(half, (nodes * 0.5 + 0.5) * rate, interval, cost, restart, True, z_limit())


def test_notice_longer_than_checkpoint_leaves_only_rework_from_writes():
    """Every notice arrives: only a preemption during a periodic write rolls back."""
    kwargs = dict(preemption_rate=0.5, interval=1.0, checkpoint_cost=1 / 60, restart_time=0.2,
                  work=10.0, jobs=3000, seed=8)
    with_notice = simulate(notice=2 / 60, **kwargs)
    assert with_notice.preemptions.sum() > 0
    # writes take 1/61 of the time: few jobs are preempted during one
    rolled_back = with_notice.rework[with_notice.rework > 1e-9]
    assert 0 < rolled_back.size < 0.1 * with_notice.jobs
    too_short = simulate(notice=0.5 / 60, **kwargs)  # notice shorter than the write
    assert too_short.rework.mean() > 0.1
    without = simulate(**kwargs)
    assert with_notice.waste()[0] < without.waste()[0]


@pytest.mark.parametrize("name, value, message", [
    ("weibull_shape", 0, "weibull_shape: must be a number > 0"),
    ("weibull_shape", -1.5, "weibull_shape: must be a number > 0"),
    ("bulk_fraction", 1.2, "bulk_fraction: must be a fraction in [0, 1]"),
    ("bulk_fraction", -0.1, "bulk_fraction: must be a fraction in [0, 1]"),
    ("notice", -1, "notice: must be a duration >= 0"),
    ("jobs", 0, "jobs: must be a whole number of jobs >= 1"),
    ("seed", -3, "seed: must be a whole number >= 0"),
    ("work", 0, "work: must be a duration > 0"),
])
@pytest.mark.parametrize("function", [simulate, simulate_reference])
def test_bad_input_is_refused(function, name, value, message):
    kwargs = dict(preemption_rate=0.5, interval=1.0, checkpoint_cost=0.01, restart_time=0.1,
                  work=5.0, jobs=10)
    kwargs[name] = value
    with pytest.raises(InputError) as info:
        function(**kwargs)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("function", [simulate, simulate_reference])
def test_hopeless_jobs_are_refused_instead_of_running_forever(function):
    with pytest.raises(InputError, match=r"^interval: 12 h is too long for this gang's "
                                         r"preemptions: each job would"):
        function(preemption_rate=0.25, interval=12, checkpoint_cost=0.01, restart_time=0.1,
                 work=100, jobs=10, gang_size=64, bulk_fraction=0.5)


def test_wear_out_preemptions_are_guarded_too():
    """Weibull k = 3: a 72-hour segment on a 24-hour MTBF almost never survives."""
    with pytest.raises(InputError, match=r"^interval: 72 h is too long"):
        simulate(preemption_rate=1 / 24, interval=72, checkpoint_cost=0.01, restart_time=0.25,
                 work=72 * 30, jobs=10, weibull_shape=3.0)


def test_units_are_accepted():
    sim = simulate(preemption_rate="6/d", interval="30min", checkpoint_cost="30s",
                   restart_time="10min", work="5h", notice="2min", jobs=50, seed=1)
    assert sim.work == 5.0 and sim.mean("rework")[0] < 0.1


# -- the event log (timelines) ---------------------------------------------------------------

def test_a_worked_timeline_with_fixed_preemptions():
    """T = 1 h, C = 0.1 h, R = 0.2 h, 2 h of work, preemptions at 1.5 h and 1.6 h (the
    second during the restart): compute, write, the 0.4 h since the write lost, a restart
    cut short and a full one, then the second segment and its write."""
    from spotmath.model.simulate import timeline

    run = timeline(preemption_rate=0.25, interval=1.0, checkpoint_cost=0.1,
                   restart_time=0.2, work=2.0, preemption_times=[1.5, 1.6])
    got = [(s.kind, round(s.start, 9), round(s.end, 9)) for s in run.segments]
    assert got == [("compute", 0, 1), ("checkpoint", 1, 1.1), ("lost", 1.1, 1.5),
                   ("restart", 1.5, 1.6), ("restart", 1.6, 1.8), ("compute", 1.8, 2.8),
                   ("checkpoint", 2.8, 2.9)]
    assert run.preemptions == ((1.5, 0), (1.6, 0)) and run.wall_time == pytest.approx(2.9)


def test_a_write_not_yet_durable_is_lost_with_its_interval():
    """Asynchronous writes: a preemption 0.1 h after a write, within its persist of
    0.3 h, loses the interval before the write too: its compute becomes lost."""
    from spotmath.model.simulate import timeline

    run = timeline(preemption_rate=0.25, interval=1.0, checkpoint_cost=0.1,
                   restart_time=0.2, work=2.0, persist=0.3, preemption_times=[1.2])
    kinds = [(s.kind, round(s.start, 9), round(s.end, 9)) for s in run.segments]
    assert kinds[:5] == [("lost", 0, 1), ("checkpoint", 1, 1.1), ("persist", 1.1, 1.2),
                         ("lost", 1.1, 1.2), ("restart", 1.2, 1.4)]
    assert run.total("compute") == pytest.approx(2.0)


@pytest.mark.parametrize("seed", range(12))
def test_a_timeline_tiles_its_run_and_adds_up_to_what_the_run_reports(seed):
    from spotmath.model.simulate import timeline

    rng = np.random.default_rng(seed)
    kwargs = dict(preemption_rate=float(rng.choice([0.1, 0.5, 2.0])),
                  interval=float(rng.choice([0.2, 0.5, 1.0])),
                  checkpoint_cost=float(rng.choice([0.0, 0.02, 0.1])),
                  restart_time=float(rng.choice([0.0, 0.1, 0.3])), work=5.0,
                  gang_size=int(rng.choice([1, 3])), weibull_shape=float(rng.choice([0.7, 1])),
                  bulk_fraction=float(rng.choice([0.0, 0.5])),
                  notice=float(rng.choice([0.0, 0.05])), notice_share=0.7,
                  persist=float(rng.choice([0.0, 0.1])),
                  restart_preemptible=bool(rng.integers(2)), seed=seed)
    run = timeline(**kwargs)
    variant = kwargs.pop("restart_preemptible")
    reference = simulate_reference(jobs=1, restart_preemptible=variant, **kwargs)
    tiles = [s for s in run.segments if s.kind != "persist"]
    assert tiles[0].start == 0.0
    assert all(a.end == pytest.approx(b.start, abs=1e-12) for a, b in zip(tiles, tiles[1:]))
    assert tiles[-1].end == pytest.approx(run.wall_time)
    assert run.wall_time == pytest.approx(reference.wall_time[0])
    assert len(run.preemptions) == reference.preemptions[0]
    assert run.total("lost") == pytest.approx(reference.rework[0], abs=1e-9)
    assert run.total("restart") == pytest.approx(reference.restarts[0], abs=1e-9)
    assert run.total("checkpoint") + run.total("notice-write") == pytest.approx(
        reference.checkpoints[0], abs=1e-9)
    assert run.total("compute") == pytest.approx(kwargs["work"], abs=1e-9)


def test_a_curves_break_even_is_the_crossing_of_a_log_linear_waste():
    """On a waste that is exactly linear in log T the interpolated crossing is exact:
    w = 0.1 + 0.2 ln T reaches 0.6 at T = e^2.5; a curve that dips first is read past its
    minimum, one that never reaches the discount has none."""
    from spotmath.model.simulate import curve_break_even

    intervals = np.geomspace(0.5, 40, 9)
    waste = 0.1 + 0.2 * np.log(intervals)
    assert curve_break_even(intervals, waste, 0.6) == pytest.approx(math.exp(2.5), rel=1e-12)
    dipping = np.array([0.9, 0.2, 0.3, 0.7])  # above the discount only before its minimum
    assert curve_break_even([1.0, 2.0, 3.0, 4.0], dipping, 0.6) == pytest.approx(
        math.exp(np.log(3) + 0.75 * (np.log(4) - np.log(3))), rel=1e-12)
    assert curve_break_even(intervals, waste / 10, 0.6) is None
    assert curve_break_even([], [], 0.6) is None
