"""Two-level checkpoints: the derivation's reductions, the exact waste against an
independent Markov-chain solve and a simulation of the rules, the optimum against brute
force, and the inputs' messages."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from spotmath.inputs import InputError
from spotmath.model import derivations as D
from spotmath.model import numerics, two_level
from spotmath.model.plan import make_plan
from spotmath.model.simulate_two_level import simulate_two_level

pytestmark = pytest.mark.derives  # SymPy: run first, together (tests/conftest.py)

lam, T, C, R, C1, R1, p, n = D.lam, D.T, D.C, D.R, D.C1, D.R1, D.p_loss, D.n2


def _plain(expression: sp.Expr) -> sp.Expr:
    """expm1 and log1p as exp and log, for SymPy to simplify."""
    return expression.rewrite(sp.exp).rewrite(sp.log)


def _same(left: sp.Expr, right: sp.Expr) -> bool:
    difference = sp.powsimp(sp.expand(_plain(left) - _plain(right)), force=True)
    return sp.simplify(sp.expand_log(difference, force=True)) == 0


def _branch(period: sp.Piecewise, loss_is_zero: bool) -> sp.Expr:
    (zero, _), (general, _) = period.args
    return zero if loss_is_zero else general


# -- the derivation ---------------------------------------------------------------------
@pytest.mark.parametrize("preemptible", [True, False])
def test_every_event_durable_and_one_segment_is_the_single_level_model(preemptible):
    period = _branch(D.two_level_period_time(preemptible), False).subs({p: 1, n: 1})
    assert _same(period, D.segment_time(preemptible))


@pytest.mark.parametrize("preemptible", [True, False])
def test_fast_copies_never_lost_is_the_single_level_model_at_the_fast_level(preemptible):
    zero = _branch(D.two_level_period_time(preemptible), True)
    single = D.segment_time(preemptible)
    # Every write fast (C₁ = C): n segments of today's model with C₁ and R₁.
    assert _same(zero.subs(C, C1), n * single.subs({C: C1, R: R1}))
    # One segment: today's model with the durable write and the fast restart.
    assert _same(zero.subs(n, 1), single.subs(R, R1))


@pytest.mark.parametrize("variant", ["preemptible", "protected"])
def test_the_branch_for_a_loss_above_zero_is_the_piecewise_to_the_last_bit(variant):
    """The optimum's search calls the generated p > 0 branch alone (NumPy's select would
    compute both): the same numbers as the Piecewise, NaN and ∞ where it has them, over
    intervals from a microsecond to past the period's overflow."""
    from spotmath.model import _generated as G

    rng = np.random.default_rng(7)
    finite = beyond = 0
    for _ in range(40):
        rate, fast, durable, fast_restart, restart = np.exp(rng.uniform(-4, 2, 5))
        loss, every = rng.uniform(1e-6, 1), np.arange(1.0, 200.0)
        intervals = np.geomspace(1e-6, 5e3 / rate, every.size)
        arguments = (rate, intervals, fast, durable, fast_restart, restart, loss, every)
        for name in ("two_level_period_time", "two_level_condition"):
            piecewise = getattr(G, f"{name}_{variant}")(*arguments)
            lossy = getattr(G, f"{name}_lossy_{variant}")(*arguments)
            assert np.array_equal(piecewise, lossy, equal_nan=True), name
            finite += np.isfinite(lossy).sum()
            beyond += (~np.isfinite(lossy)).sum()
    assert finite > 1000 and beyond > 100


@pytest.mark.parametrize("preemptible", [True, False])
def test_the_general_branch_tends_to_the_loss_free_one(preemptible):
    period = D.two_level_period_time(preemptible)
    point = {lam: sp.Rational(1, 2), T: 1, C1: sp.Rational(1, 50), C: sp.Rational(1, 10),
             R1: sp.Rational(1, 20), R: sp.Rational(1, 5), n: 5}
    zero = float(_branch(period, True).subs(point))
    near = float(sp.N(_branch(period, False).subs(point | {p: sp.Rational(1, 10**12)}), 30))
    assert near == pytest.approx(zero, rel=1e-10)


def test_protected_restarts_roll_back_with_chance_p_and_restart_in_the_mean():
    assert D.two_level_rollback_chance(False) == p
    assert sp.simplify(D.two_level_recovery_scale(False) - (1 / lam + (1 - p) * R1 + p * R)) == 0


def test_the_first_order_optimum_is_young_at_each_level():
    fast, durable = D.two_level_first_order_optimum()
    assert sp.simplify(fast - D.young_interval().subs(lam, (1 - p) * lam).subs(C, C1)) == 0
    assert sp.simplify(durable**2 - 2 * (C - C1) / (p * lam)) == 0


# -- the exact waste against an independent solve ---------------------------------------
def test_exact_waste_equals_a_markov_chain_solve(two_level_typed):
    rng = np.random.default_rng(7)
    for _ in range(300):
        rate = rng.uniform(0.05, 3)
        values = dict(level1_cost=rng.uniform(0, 0.2), checkpoint_cost=rng.uniform(0, 0.5),
                      level1_restart=rng.uniform(0, 0.3), restart_time=rng.uniform(0, 0.6))
        if rng.random() < 0.2:
            values["level1_cost"] = values["checkpoint_cost"]
        interval = rng.uniform(0.01, 1.0) / rate
        loss = float(rng.choice([0.0, 1.0, rng.uniform()]))
        every = int(rng.integers(1, 12))
        preemptible = bool(rng.integers(2))
        got = two_level.waste(rate, interval, every, level1_loss=loss,
                              restart_preemptible=preemptible, **values)
        period = two_level_typed(rate, interval, every, *values.values(), loss, preemptible)
        want = 1 - every * interval / period
        assert got == pytest.approx(want, rel=1e-12, abs=1e-14)


def test_the_waste_is_vectorised_over_intervals():
    values = dict(level1_cost=0.01, checkpoint_cost=0.05, level1_restart=0.03,
                  restart_time=0.1, level1_loss=0.4)
    many = two_level.waste(0.5, [0.2, 0.5, 1.0], 3, **values)
    assert isinstance(many, np.ndarray)
    assert many.tolist() == [two_level.waste(0.5, t, 3, **values) for t in (0.2, 0.5, 1.0)]


# -- the exact waste against a simulation of the rules ----------------------------------
SIMULATED = [  # (interval, n, C₁, C, R₁, R, p, restart preemptible)
    (0.3, 1, 0.02, 0.08, 0.05, 0.2, 0.0, True),
    (0.3, 4, 0.02, 0.08, 0.05, 0.2, 0.0, True),
    (0.3, 4, 0.02, 0.08, 0.05, 0.2, 0.3, True),
    (0.3, 4, 0.02, 0.08, 0.05, 0.2, 1.0, True),
    (0.3, 1, 0.02, 0.08, 0.05, 0.2, 1.0, True),
    (0.5, 3, 0.08, 0.08, 0.1, 0.1, 0.5, True),
    (0.3, 4, 0.02, 0.08, 0.05, 0.2, 0.3, False),
    (0.3, 4, 0.02, 0.08, 0.05, 0.2, 1.0, False),
    (0.2, 8, 0.01, 0.1, 0.3, 0.4, 0.7, True),
]


@pytest.mark.parametrize("case", SIMULATED)
def test_exact_waste_agrees_with_a_simulation_of_the_rules(case, z_limit):
    interval, every, fast, durable, fast_restart, restart, loss, preemptible = case
    values = dict(level1_cost=fast, checkpoint_cost=durable, level1_restart=fast_restart,
                  restart_time=restart, level1_loss=loss, restart_preemptible=preemptible)
    run = simulate_two_level(preemption_rate=1.0, interval=interval, level2_every=every, periods=4,
                   jobs=1500, seed=11, **values)
    mean, error = run.waste()
    exact = two_level.waste(1.0, interval, every, **values)
    assert abs(mean - exact) <= z_limit(len(SIMULATED)) * error


def test_a_logged_run_tiles_its_wall_time_and_its_totals_match():
    record = []
    run = simulate_two_level(preemption_rate=1.5, interval=0.3, level2_every=4, level1_cost=0.02,
                   checkpoint_cost=0.08, level1_restart=0.05, restart_time=0.2,
                   level1_loss=0.4, periods=3, jobs=20, seed=5, record=record)
    for job, timeline in enumerate(record):
        ends = [s.start for s in timeline.segments[1:]]
        assert [s.end for s in timeline.segments[:-1]] == pytest.approx(ends)
        assert timeline.segments[0].start == 0
        assert timeline.segments[-1].end == pytest.approx(run.wall_time[job])
        assert timeline.total("compute") == pytest.approx(run.work)
        assert timeline.total("lost") == pytest.approx(run.rework[job])
        writes = timeline.total("checkpoint") + timeline.total("fast-checkpoint")
        assert writes == pytest.approx(run.checkpoints[job])
        restarts = timeline.total("restart") + timeline.total("fast-restart")
        assert restarts == pytest.approx(run.restarts[job])
        assert len(timeline.preemptions) == run.preemptions[job]


HAND = dict(preemption_rate=1.0, interval=1.0, level2_every=2, level1_cost=0.1,
            checkpoint_cost=0.2, level1_restart=0.3, restart_time=0.5, level1_loss=0.5,
            periods=1, jobs=1)


@pytest.mark.parametrize("events, want", [
    # The fast copy serves: redo the second segment only.
    ([(1.5, False)], [(0, 1, "compute"), (1, 1.1, "fast-checkpoint"), (1.1, 1.5, "lost"),
                      (1.5, 1.8, "fast-restart"), (1.8, 2.8, "compute"),
                      (2.8, 3.0, "checkpoint")]),
    # The copies are gone: the first segment and its fast write are lost too.
    ([(1.5, True)], [(0, 1, "lost"), (1, 1.1, "lost"), (1.1, 1.5, "lost"),
                     (1.5, 2.0, "restart"), (2.0, 3.0, "compute"),
                     (3.0, 3.1, "fast-checkpoint"), (3.1, 4.1, "compute"),
                     (4.1, 4.3, "checkpoint")]),
    # A fast restart hit by an event that takes the copies moves to the durable one.
    ([(1.5, False), (1.6, True)], [(0, 1, "lost"), (1, 1.1, "lost"), (1.1, 1.5, "lost"),
                                   (1.5, 1.6, "fast-restart"), (1.6, 2.1, "restart"),
                                   (2.1, 3.1, "compute"), (3.1, 3.2, "fast-checkpoint"),
                                   (3.2, 4.2, "compute"), (4.2, 4.4, "checkpoint")]),
    # An event during a durable restart starts it again.
    ([(0.5, True), (0.7, False)], [(0, 0.5, "lost"), (0.5, 0.7, "restart"),
                                   (0.7, 1.2, "restart"), (1.2, 2.2, "compute"),
                                   (2.2, 2.3, "fast-checkpoint"), (2.3, 3.3, "compute"),
                                   (3.3, 3.5, "checkpoint")]),
])
def test_hand_worked_runs(events, want):
    record = []
    run = simulate_two_level(events=events, record=record, **HAND)
    (timeline,) = record
    got = [(s.start, s.end, s.kind) for s in timeline.segments]
    assert [kind for *_, kind in got] == [kind for *_, kind in want]
    assert np.allclose([g[:2] for g in got], [w[:2] for w in want])
    assert run.wall_time[0] == pytest.approx(want[-1][1])


def test_protected_restarts_ignore_events_inside_them():
    record = []
    simulate_two_level(events=[(1.5, False), (1.6, True)], record=record, restart_preemptible=False,
             **HAND)
    kinds = [s.kind for s in record[0].segments]
    assert kinds == ["compute", "fast-checkpoint", "lost", "fast-restart", "compute",
                     "checkpoint"]


# -- the optimum ------------------------------------------------------------------------
SETTINGS = [  # rate, C₁, C, R₁, R, p
    (1.0, 5 / 3600, 3 / 60, 2 / 60, 5 / 60, 0.01),
    (1.0, 5 / 3600, 3 / 60, 2 / 60, 5 / 60, 0.3),
    (1.0, 5 / 3600, 3 / 60, 2 / 60, 5 / 60, 0.9),
    (0.25, 0.01, 0.05, 0.02, 0.2, 0.5),
    (2.0, 0.02, 0.03, 0.05, 0.05, 0.2),
    (0.5, 0.05, 0.02, 0.01, 0.1, 0.1),  # the fast write costs more: n = 1
]


def _values(setting):
    rate, fast, durable, fast_restart, restart, loss = setting
    return rate, dict(level1_cost=fast, checkpoint_cost=durable,
                      level1_restart=fast_restart, restart_time=restart, level1_loss=loss)


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("preemptible", [True, False])
def test_the_optimum_beats_brute_force_over_n_and_a_fine_interval_grid(setting, preemptible):
    rate, values = _values(setting)
    best = two_level.optimum(rate, restart_preemptible=preemptible, **values)
    grid = np.geomspace(1e-3, 20, 20_000) / rate
    brute = min((float(two_level.waste(rate, grid, every, restart_preemptible=preemptible,
                                       **values).min()), every)
                for every in range(1, 3 * best.level2_every + 20))
    assert best.waste <= brute[0] + 1e-12
    assert best.waste == pytest.approx(brute[0], abs=1e-7)
    assert best.level2_every == brute[1]
    assert best.waste == pytest.approx(two_level.waste(
        rate, best.interval, best.level2_every, restart_preemptible=preemptible, **values),
        rel=1e-15)


@pytest.mark.parametrize("setting", SETTINGS[:4])
def test_the_best_interval_for_each_n_is_a_minimum_of_the_waste(setting):
    rate, values = _values(setting)
    for every in (1, 2, 7):
        best = two_level.best_interval(rate, every, **values)
        at = two_level.waste(rate, best, every, **values)
        for step in (1e-4, 1e-2):
            assert at <= two_level.waste(rate, best * (1 + step), every, **values)
            assert at <= two_level.waste(rate, best * (1 - step), every, **values)


def test_one_segment_and_every_event_durable_is_the_exact_optimum():
    values = dict(level1_cost=0.01, checkpoint_cost=0.05, level1_restart=0.03,
                  restart_time=0.1, level1_loss=1.0)
    best = two_level.optimum(0.5, **values)
    assert best.level2_every == 1
    assert best.interval == pytest.approx(numerics.exact_interval(0.5, 0.05), rel=1e-12)
    assert best.waste == pytest.approx(numerics.optimal_waste(0.5, 0.05, 0.1), rel=1e-12)


@pytest.mark.parametrize("setting", SETTINGS[:5])
def test_first_order_optimum_minimises_the_first_order_waste(setting):
    rate, values = _values(setting)
    values.pop("level1_restart"), values.pop("restart_time")
    fast, durable = two_level.first_order_optimum(rate, **values)
    c1, c2, loss = values["level1_cost"], values["checkpoint_cost"], values["level1_loss"]

    def first_order(x):  # typed again: ((n − 1)C₁ + C)/(nT) + the events' T-terms
        interval, period = np.exp(x)
        every = period / interval
        return (((every - 1) * c1 + c2) / period + (1 - loss) * rate * interval / 2
                + loss * rate * period / 2)

    found = minimize(first_order, np.log([fast * 1.3, durable * 0.8]), method="Nelder-Mead",
                     options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 4000})
    assert np.exp(found.x) == pytest.approx([fast, durable], rel=1e-4)


def test_the_break_even_loss_separates_fast_writes_from_none(separates_at_break_even):
    rate, values = _values(SETTINGS[1])
    values.pop("level1_loss")
    separates_at_break_even(rate, values, np.linspace(0.01, 0.99, 50))


def test_a_fast_write_no_cheaper_than_a_durable_one_never_pays():
    assert two_level.loss_break_even(0.5, level1_cost=0.05, checkpoint_cost=0.05,
                                     level1_restart=0.01, restart_time=0.1) == 0.0


# -- inputs -----------------------------------------------------------------------------
@pytest.mark.parametrize("change, message", [
    ({"level1_loss": 1.5}, r"^level1_loss: must be a fraction in \[0, 1\]"),
    ({"level1_loss": "often"}, r"^level1_loss: "),
    ({"level1_cost": -1}, r"^level1_cost: "),
    ({"level1_restart": "5 parsecs"}, r"^level1_restart: "),
    ({"level1_loss": 0.0}, r"^level1_loss: must be above 0 for an optimum"),
    ({"level1_cost": 0.0}, r"^level1_cost: must be above 0 for an optimum"),
    ({"checkpoint_cost": 0.0}, r"^checkpoint_cost: must be above 0 for an optimum"),
    ({"level1_loss": 1e-9}, r"^level1_loss: 1e-09 is too small"),
    # so small that the bounds' cλnT underflowed: a ZeroDivisionError before
    ({"level1_loss": 1e-320}, r"^level1_loss: 9.99989e-321 is too small"),
])
def test_bad_inputs_get_one_line_naming_the_parameter(change, message):
    values = dict(level1_cost=0.01, checkpoint_cost=0.05, level1_restart=0.03,
                  restart_time=0.1, level1_loss=0.4) | change
    with pytest.raises(InputError, match=message):
        two_level.optimum(0.5, **values)


def test_a_zero_level2_every_is_refused():
    with pytest.raises(InputError, match="^level2_every: "):
        two_level.waste(0.5, 1.0, 0, level1_cost=0.01, checkpoint_cost=0.05,
                        level1_restart=0.03, restart_time=0.1, level1_loss=0.4)


# -- spotmath plan --level1 ---------------------------------------------------------------
LEVELS = ("--gang-size", "16", "--restart", "5min", "--checkpoint", "3min", "--level1", "5s",
          "--level1-restart", "2min")


def test_plan_json_adds_the_two_level_keys_after_the_plans(plan_json):
    from spotmath.model.plan import PLAN_KEYS, TWO_LEVEL_KEYS

    out = plan_json(*LEVELS, "--level1-loss", "30%")
    assert list(out) == PLAN_KEYS + TWO_LEVEL_KEYS
    single = plan_json(*LEVELS[:6])
    gang = 16 * 0.25
    values = dict(level1_cost=5 / 3600, checkpoint_cost=3 / 60, level1_restart=2 / 60,
                  restart_time=5 / 60)
    best = two_level.optimum(gang, level1_loss=0.3, **values)
    assert out["level2_every"] == best.level2_every
    assert out["level1_interval_h"] == best.interval == out["recommended_interval_h"]
    assert out["level2_interval_h"] == pytest.approx(best.interval * best.level2_every)
    assert out["waste_exact"] == best.waste
    assert out["waste_first_order"] == pytest.approx(two_level.waste(
        gang, best.interval, best.level2_every, level1_loss=0.3, model="first-order",
        **values))
    assert out["waste_level2_only"] == single["waste_exact"]
    assert out["effective_discount"] == pytest.approx(1 - 0.4 / (1 - best.waste))
    for key in ("exact_interval_h", "break_even_interval_h", "max_gang_size",
                "never_on_spot_gang_size"):  # durable writes alone
        assert out[key] == single[key]
    assert out["level1_interval_first_order_h"] == pytest.approx(
        math.sqrt(2 * values["level1_cost"] / (0.7 * gang)))


def test_plan_with_every_preemption_taking_the_fast_copies_is_the_durable_plan(plan_json):
    out = plan_json(*LEVELS, "--level1-loss", "1")
    single = plan_json(*LEVELS[:6])
    assert out["level2_every"] == 1 and out["level1_interval_first_order_h"] is None
    assert out["waste_exact"] == pytest.approx(single["waste_exact"], rel=1e-12)
    assert out["level1_interval_h"] == pytest.approx(single["exact_interval_h"], rel=1e-12)


def test_plan_table_says_what_the_fast_copies_do(cli):
    result = cli("plan", *LEVELS, "--level1-loss", "0.3")
    assert result.returncode == 0, result.stderr
    table = result.stdout
    words = " ".join(table.split())  # a long value wraps under itself
    for phrase in ("a fast write of 5 s", "9th write durable", "durable writes alone",
                   "fast copies", "fast writes pay", "first-order optimum"):
        assert phrase in words, phrase
    assert max(map(len, table.splitlines())) <= 80


@pytest.mark.parametrize("args, message", [
    (["--level1", "5s"], "--level1-loss: required with a fast write"),
    (["--level1-loss", "0.3"], "--level1-loss: given without a fast write (--level1); give "
                               "it too"),
    (["--level1-restart", "1min"], "--level1-restart: given without a fast write"),
    (["--level1", "5s", "--level1-loss", "1.3"], "--level1-loss: must be a fraction"),
    (["--level1", "5s", "--level1-loss", "0"], "--level1-loss: must be above 0"),
    (["--level1", "0", "--level1-loss", "0.3"], "--level1: must be a duration > 0"),
    (["--level1", "fast", "--level1-loss", "0.3"], "--level1: "),
    (["--level1", "5s", "--level1-loss", "0.3", "--level1-restart=-1s"],
     "--level1-restart: "),
    (["--level1", "5s", "--level1-loss", "0.3", "--persist", "1min", "--restart-variant",
      "protected"], "--persist: asynchronous durable writes with two levels are derived"),
    (["--level1", "5s", "--level1-loss", "0.3", "--notice", "2min", "--notice-share", "1"],
     "--level1: two-level checkpoints are not modelled with a notice yet"),
    (["--level1", "5s", "--level1-loss", "0.3", "--model", "first-order"],
     "--model: two-level checkpoints are planned with the exact model"),
])
def test_plan_refuses_bad_fast_levels_in_one_line(args, message, cli):
    result = cli("plan", *args)
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"spotmath plan: error: {message}"), line


def test_where_every_pattern_wastes_everything_the_optimum_says_so():
    values = dict(level1_cost=0.1 / 3600, level1_restart=0.1, restart_time=0.1,
                  level1_loss=0.3)
    best = two_level.optimum(10.0, checkpoint_cost=24.0, **values)
    assert (best.level2_every, best.waste) == (1, 1.0)
    assert best.interval == numerics.exact_interval(10.0, 24.0)
    assert two_level.loss_break_even(10.0, checkpoint_cost=24.0, level1_cost=0.1 / 3600,
                                     level1_restart=0.1, restart_time=0.1) == 0.0
    with pytest.raises(InputError, match="^preemption_rate: at 40 events per hour a "
                                         "durable write of 1 h or a restart almost never"):
        two_level.optimum(40.0, checkpoint_cost=1.0, **(values | {"restart_time": 24.0}))
    # a period that overflows at every interval has no best interval for any n (the
    # search once answered the smallest double there, as if it were an interval)
    overflowing = dict(level1_cost=1.0, checkpoint_cost=24.0, level1_restart=24.0,
                       restart_time=24.0, level1_loss=1.0)
    for every in (1, 2):
        with pytest.raises(InputError, match="^preemption_rate: the two-level period "
                                             "overflows at every interval"):
            two_level.best_interval(10240.0, every, **overflowing)


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_search_bound_is_below_every_n_and_never_falls(setting):
    """The optimum's stopping rule (private, but the proof rests on it): the bound is at
    most the least E₁/(nT) of each n and does not fall as n grows."""
    rate, values = _values(setting)
    loss = values.pop("level1_loss")
    state = two_level._setting(rate, values["level1_cost"], values["checkpoint_cost"],
                               values["level1_restart"], values["restart_time"], loss, True)
    chance = float(two_level._f_rollback(True)(rate, values["level1_restart"], loss))
    every = np.unique(np.geomspace(2, 400, 40).astype(int)).astype(float)
    _, least = two_level._ratios(state, every)
    bounds = [two_level._bound(state, int(n), chance) for n in every]
    assert all(b <= r for b, r in zip(bounds, least))
    assert all(later >= earlier for earlier, later in zip(bounds, bounds[1:]))


HIGH_WASTE = (4.64, 1.328 / 3600, 2246 / 3600, 45.6 / 3600, 16.3 / 3600, 0.3)


@pytest.mark.parametrize("setting", [*SETTINGS, HIGH_WASTE])
@pytest.mark.parametrize("preemptible", [True, False])
def test_the_tail_bound_is_below_every_larger_n(setting, preemptible):
    """The second stopping rule (private, as the first): at each n it is at most the least
    E₁/(n'T) of every n' ≥ n checked, near n and far beyond it."""
    rate, values = _values(setting)
    loss = values.pop("level1_loss")
    state = two_level._setting(rate, values["level1_cost"], values["checkpoint_cost"],
                               values["level1_restart"], values["restart_time"], loss,
                               preemptible)
    chance = two_level._rollback_chance(state)
    for n in (2, 7, 40, 300):
        later = np.unique(np.concatenate([np.arange(n, n + 60),
                                          np.geomspace(n, 100 * n, 30).astype(int)]))
        _, least = two_level._ratios(state, later.astype(float))
        bound = two_level._tail_bound(state, n, chance)
        assert bound <= least.min(), n
        # the search asks only whether it reaches a target: the same answer where the
        # first of its two minima, already below the target, is all it finds
        for target in (0.5 * bound, np.nextafter(bound, 0), bound, np.nextafter(bound, 2 * bound),
                       1.01 * bound, 2 * bound, least.min()):
            reached = two_level._tail_bound(state, n, chance, target) >= target
            assert reached == (bound >= target), (n, target)


def test_where_the_waste_is_high_the_search_ends_near_the_best_n():
    """A durable write of 37 min at 4.6 events per hour (waste about 95%): the binomial
    bound alone would search some 67,000 n; with the tail bound it stops within a few
    hundred, and the optimum (n = 69) is the brute force's."""
    rate, values = _values(HIGH_WASTE)
    best = two_level.optimum(rate, **values)
    state = two_level._setting(rate, *(values[k] for k in (
        "level1_cost", "checkpoint_cost", "level1_restart", "restart_time", "level1_loss")),
        True)
    _, least = two_level._ratios(state, np.array([1.0, float(best.level2_every)]))
    assert two_level._last_candidate(state, float(least.min())) < 1000
    every = np.arange(1, 3000, dtype=float)
    _, ratios = two_level._ratios(state, every)
    assert best.level2_every == every[np.argmin(ratios)] == 69


@pytest.mark.parametrize("preemptible", [True, False])
@pytest.mark.parametrize("every", [1, 2, 9])
def test_a_waste_beyond_double_precision_is_one_never_nan(preemptible, every):
    grid = np.geomspace(1e-6, 1.0, 7)
    got = two_level.waste(10240.0, grid, every, level1_cost=1.0, checkpoint_cost=24.0,
                          level1_restart=24.0, restart_time=24.0, level1_loss=1.0,
                          restart_preemptible=preemptible)
    assert got.tolist() == [1.0] * 7


@settings(max_examples=12, deadline=None)
@given(rate=st.floats(0.02, 2), nodes=st.integers(1, 32), restart=st.floats(1, 30),
       checkpoint=st.floats(0.2, 10), fast=st.floats(1, 60),
       fast_share=st.one_of(st.just(0.0), st.floats(1e-100, 1)),
       loss=st.floats(0.001, 0.99), preemptible=st.booleans())
def test_the_two_level_plan_never_recommends_worse_than_durable_writes_alone(
        rate, nodes, restart, checkpoint, fast, fast_share, loss, preemptible):
    """The plan prints the recommended pattern beside durable writes alone: with a fast
    restart no slower than the durable one (a slower one is refused), the recommendation
    is never the worse of the two (minutes and seconds as drawn)."""
    plan = make_plan(rate, f"{restart}min", f"{checkpoint}min", 0.6, gang_size=nodes,
                     restart_preemptible=preemptible, level1_cost=f"{fast}s",
                     level1_restart=f"{fast_share * restart}min", level1_loss=loss)
    assert plan.waste_exact <= plan.two_level["waste_level2_only"] * (1 + 1e-9)


def test_a_fast_restart_slower_than_the_durable_one_is_refused(cli):
    done = cli("plan", "--gang-size", "16", "--restart", "5min", "--checkpoint", "3min",
               "--level1", "5s", "--level1-restart", "10min", "--level1-loss", "0.3")
    assert done.returncode == 2
    assert done.stderr == ("spotmath plan: error: --level1-restart: a restart from a fast "
                           "copy (10 min) slower than the durable restart (5 min) never "
                           "pays: give one no slower, or plan durable writes alone\n")
