"""Preemption notice and asynchronous checkpoints: derivations, numbers, simulator, plan.

Every number of the full model is checked against something computed differently: the
SymPy results against each other (two renewal arguments) and against today's model at
q = 0 and P = 0; the optimum against a brute-force minimiser; the waste against the
simulator (both implementations of the rules); the plan against a search by hand.
"""

import json
import math

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import minimize_scalar

import spotmath as sm
from spotmath.inputs import InputError
from spotmath.model import _full_model, numerics
from spotmath.model import derivations as D
from spotmath.model.simulate import simulate, simulate_reference

pytestmark = pytest.mark.derives  # SymPy: run first, together (tests/conftest.py)

RATE, COST, RESTART = 0.25, 1 / 60, 1 / 6


# -- the derivations --------------------------------------------------------------------------
@pytest.mark.parametrize("preemptible", [True, False])
def test_no_notice_and_blocking_writes_give_back_todays_model_exactly(preemptible):
    full = D.waste_notice(preemptible)
    for expression, _ in full.args:  # both branches (T ≥ C_n and T < C_n)
        today = expression.subs({D.q_n: 0, D.P: 0})
        assert sp.simplify(today - D.waste_exact(preemptible)) == 0


@pytest.mark.parametrize("preemptible", [True, False])
def test_two_renewal_arguments_for_asynchronous_writes_agree(preemptible):
    """W solved from its own renewal equation is e^{λP}E, and 1 − T/W is the cycle model's
    waste at q = 0."""
    interval_time = D.async_interval_time(preemptible)
    assert sp.simplify(interval_time - sp.exp(D.lam * D.P) * D.segment_time(preemptible)) == 0
    cycle_model = D.waste_notice(preemptible).args[0][0].subs(D.q_n, 0)
    assert sp.simplify(1 - D.T / interval_time - cycle_model) == 0


def test_first_order_model_reduces_and_its_optimum_is_sympys_own():
    w1 = D.waste_first_order_notice()
    assert sp.simplify(w1.subs({D.q_n: 0, D.P: 0}) - D.waste_first_order_with_checkpoint()) == 0
    assert sp.simplify(D.first_order_notice_interval().subs(D.q_n, 0) - D.young_interval()) == 0
    values = {D.lam: 0.3, D.C: 0.02, D.R: 0.1, D.q_n: 0.7, D.C_n: 0.01, D.P: 0.05}
    (root,) = sp.solve(sp.diff(w1.subs(values), D.T), D.T)
    assert float(root) == pytest.approx(float(D.first_order_notice_interval().subs(values)),
                                        rel=1e-14)
    assert numerics.optimal_interval(0.3, 0.02, notice_share=0.7, notice_write=0.01, persist=0.05,
                               model="first-order") == pytest.approx(float(root), rel=1e-14)


def test_slope_factor_is_the_derivative_of_g():
    g, slope = D.notice_optimality_condition()
    length = D.T + D.C
    assert sp.simplify(sp.diff(g, D.T) - sp.exp(D.lam * length) * slope) == 0
    assert sp.Poly(slope, D.T).degree() == 1


@pytest.mark.parametrize("preemptible", [True, False])
def test_waste_floor_is_the_limit_of_long_intervals(preemptible):
    for share in (0.3, 1.0):
        floor = numerics.waste_floor(RATE, RESTART, notice_share=share, notice_write=0.05,
                               restart_preemptible=preemptible)
        far = numerics.waste_fraction(RATE, 200.0, COST, RESTART, notice_share=share,
                                notice_write=0.05, persist=0.1,
                                restart_preemptible=preemptible)
        assert far == pytest.approx(floor, rel=1e-12)
    restart_time = (math.expm1(RATE * RESTART) / RATE if preemptible else RESTART)
    assert numerics.waste_floor(RATE, RESTART, notice_share=1.0, notice_write=0.05,
                          restart_preemptible=preemptible) == pytest.approx(
        1 - math.exp(-RATE * 0.05) / (1 + RATE * restart_time), rel=1e-14)


def test_very_long_intervals_give_the_floor_not_nan():
    """The longest intervals the library computes with (1e100 h) give the floor."""
    far = numerics.waste_fraction(RATE, np.array([1e3, 1e5, 1e100]), COST, RESTART,
                            notice_share=0.5, notice_write=COST, persist=0.1)
    floor = numerics.waste_floor(RATE, RESTART, notice_share=0.5, notice_write=COST)
    np.testing.assert_allclose(far, floor, rtol=1e-13)


def test_derivations_are_named_and_print():
    for name in ("notice-waste", "notice-first-order", "notice-first-order-optimum",
                 "async-interval-time", "notice-waste-floor", "notice-optimality"):
        assert name in D.NAMES
        assert D.derivation(name).latex()


# -- the numbers --------------------------------------------------------------------------------
def test_full_waste_at_q0_p0_is_todays_waste():
    """The full model's own arithmetic (not the dispatch, which answers with today's
    functions at q = 0 and P = 0) gives today's waste there."""
    intervals = np.geomspace(0.01, 20, 60)
    for model in numerics.MODELS:
        for preemptible in (True, False):
            ours = _full_model.waste(RATE, intervals, COST, RESTART, model=model,
                                     restart_preemptible=preemptible)
            today = numerics.waste_fraction(RATE, intervals, COST, RESTART, model=model,
                                     restart_preemptible=preemptible)
            np.testing.assert_allclose(ours, today, rtol=1e-12)


def brute_force_optimum(rate, cost, share, write, persist):
    """A dense log grid, then a bounded Brent minimiser around the best grid point."""
    grid = np.geomspace(max(persist, 1e-4 / rate), 250 / rate, 20001)
    waste = numerics.waste_fraction(rate, grid, cost, 0.0, notice_share=share, notice_write=write,
                              persist=persist)
    i = int(np.argmin(waste))
    low, high = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    found = minimize_scalar(
        lambda t: numerics.waste_fraction(rate, t, cost, 0.0, notice_share=share,
                                    notice_write=write, persist=persist),
        bounds=(low, high), method="bounded", options={"xatol": 1e-10 * high})
    return found.x, found.fun


@pytest.mark.parametrize("share", [0.1, 0.5, 0.9, 0.97])
@pytest.mark.parametrize("rate, cost, write, persist", [
    (0.25, 1 / 60, 1 / 60, 0.0), (0.25, 1 / 60, 0.1, 0.05), (2.0, 0.05, 0.02, 0.1),
    (0.01, 0.5, 0.25, 1.0), (1.0, 0.002, 0.3, 0.0),
])
def test_exact_optimum_against_brute_force(rate, cost, write, persist, share):
    ours = numerics.optimal_interval(rate, cost, notice_share=share, notice_write=write,
                               persist=persist)
    best_t, best_waste = brute_force_optimum(rate, cost, share, write, persist)
    if math.isinf(ours):  # no periodic checkpoint: nothing on the grid beats the floor
        floor = numerics.waste_floor(rate, 0.0, notice_share=share, notice_write=write)
        assert floor <= best_waste + 1e-13
        return
    ours_waste = numerics.waste_fraction(rate, ours, cost, 0.0, notice_share=share,
                                   notice_write=write, persist=persist)
    assert ours_waste <= best_waste + 1e-13
    # the waste is flat at the optimum: the interval is pinned to about √(1e-13/curvature)
    assert ours == pytest.approx(best_t, rel=1e-4)


def test_no_periodic_checkpoint_when_every_notice_arrives():
    assert math.isinf(numerics.optimal_interval(RATE, COST, notice_share=1.0, notice_write=COST))
    assert math.isinf(numerics.optimal_interval(RATE, COST, notice_share=1.0, model="first-order"))
    waste = numerics.optimal_waste(RATE, COST, RESTART, notice_share=1.0, notice_write=COST)
    assert waste == numerics.waste_floor(RATE, RESTART, notice_share=1.0, notice_write=COST)
    # and the waste keeps falling towards that floor
    curve = numerics.waste_fraction(RATE, np.geomspace(0.05, 50, 200), COST, RESTART,
                              notice_share=1.0, notice_write=COST)
    assert np.all(np.diff(curve) < 0) and np.all(curve > waste)


def test_optimum_grows_with_the_share_and_waste_grows_with_persist():
    shares = np.linspace(0, 0.99, 34)
    optima = [numerics.optimal_interval(RATE, COST, notice_share=q, notice_write=COST)
              for q in shares]
    assert np.all(np.diff(optima) > 0)
    persists = np.linspace(0, 0.3, 16)
    for share in (0.0, 0.5, 0.9):
        at_fixed = [numerics.waste_fraction(RATE, 0.4, COST, RESTART, notice_share=share,
                                      notice_write=COST, persist=p) for p in persists]
        at_best = [numerics.optimal_waste(RATE, COST, RESTART, notice_share=share,
                                    notice_write=COST, persist=p) for p in persists]
        assert np.all(np.diff(at_fixed) > 0) and np.all(np.diff(at_best) > 0)


def test_asynchronous_write_leaves_the_optimum_where_the_blocking_part_puts_it():
    plain = float(numerics.exact_interval(RATE, COST))
    for persist in (0.0, 0.1, 0.3):
        assert numerics.optimal_interval(RATE, COST, persist=persist) == plain
    # ... unless P is longer, then T = P
    assert numerics.optimal_interval(RATE, COST, persist=0.5, shortest=0.5) == 0.5


def test_interval_shorter_than_persist_is_refused():
    with pytest.raises(InputError, match=r"^interval: 0.1 h is shorter than the persist"):
        numerics.waste_fraction(RATE, 0.1, COST, RESTART, persist=0.2)


def test_break_even_ends_are_roots_and_unbounded_when_the_floor_pays():
    low, high = numerics.break_even_intervals(RATE, COST, RESTART, 0.3, notice_share=0.2,
                                        notice_write=COST, persist=0.02)
    for end in (low, high):
        assert numerics.waste_fraction(RATE, end, COST, RESTART, notice_share=0.2,
                                 notice_write=COST, persist=0.02) == pytest.approx(0.3, rel=1e-9)
    assert numerics.break_even_intervals(RATE, COST, RESTART, 0.6, notice_share=0.5)[1] == math.inf
    assert numerics.break_even_intervals(RATE, COST, RESTART, 0.05, notice_share=0.2) is None


@pytest.mark.parametrize("share, persist", [(0.5, 0.0), (0.9, 0.05), (0.0, 0.1)])
def test_max_gang_size_against_a_search(share, persist):
    discount = 0.6
    found = numerics.max_gang_size(RATE, COST, RESTART, discount, notice_share=share,
                             notice_write=COST, persist=persist)
    pays = [numerics.optimal_waste(size * RATE, COST, RESTART, notice_share=share,
                             notice_write=COST, persist=persist) < discount
            for size in range(1, 60)]
    assert pays.index(False) == found  # sizes 1..found pay, found + 1 does not


# -- the simulator --------------------------------------------------------------------------------
LONG = 400  # intervals per job: the start and end of a job bias the waste by O(1/LONG)
GRID = [(q, p) for q in (0.0, 0.5, 0.9, 1.0) for p in (0.0, 0.4, 0.8)]


@pytest.mark.parametrize("preemptible", [True, False])
@pytest.mark.parametrize("share, persist", GRID)
def test_simulation_agrees_with_the_exact_full_model(share, persist, preemptible, z_limit):
    rate, interval, cost, restart, write = 0.5, 0.8, 0.05, 0.25, 0.1
    sim = simulate(preemption_rate=rate, interval=interval, checkpoint_cost=cost,
                   restart_time=restart, work=LONG * interval, jobs=600, notice=0.2,
                   notice_share=share, notice_write=write, persist=persist,
                   restart_preemptible=preemptible, seed=int(100 * share + 10 * persist))
    waste, error = sim.waste()
    exact = numerics.waste_fraction(rate, interval, cost, restart, notice_share=share,
                              notice_write=write, persist=persist,
                              restart_preemptible=preemptible)
    assert abs(waste - exact) < z_limit(2 * len(GRID)) * error, (waste, exact, error)


def test_finite_job_with_asynchronous_writes_matches_its_exact_expectation(z_limit):
    """A job of k intervals, from a restart to its last write: E + (k − 1)e^{λP}E."""
    rate, interval, cost, restart, persist, k = 0.5, 1.0, 0.05, 0.2, 0.6, 10
    sim = simulate(preemption_rate=rate, interval=interval, checkpoint_cost=cost,
                   restart_time=restart, work=k * interval, jobs=20000, persist=persist,
                   seed=21)
    segment = sm.segment_time(rate, interval, cost, restart)
    expected = segment * (1 + (k - 1) * math.exp(rate * persist))
    mean, error = sim.mean("wall_time")
    assert abs(mean - expected) < z_limit() * error


def test_vectorised_and_reference_simulators_agree_on_the_new_rules(z_limit):
    kwargs = dict(preemption_rate=0.6, interval=0.8, checkpoint_cost=0.05, restart_time=0.25,
                  work=8.0, jobs=4000, notice=0.1, notice_share=0.6, notice_write=0.05,
                  persist=0.3)
    fast, slow = simulate(seed=31, **kwargs), simulate_reference(seed=32, **kwargs)
    fields = ("wall_time", "preemptions", "rework", "restarts", "checkpoints")
    for field in fields:
        (a, ea), (b, eb) = fast.mean(field), slow.mean(field)
        assert abs(a - b) <= z_limit(len(fields)) * math.hypot(ea, eb), (field, a, b)


def test_a_notice_too_short_for_the_write_changes_nothing():
    kwargs = dict(preemption_rate=0.5, interval=1.0, checkpoint_cost=0.05, restart_time=0.2,
                  work=10.0, jobs=500, seed=4)
    assert np.array_equal(simulate(notice=0.01, notice_share=1.0, **kwargs).wall_time,
                          simulate(**kwargs).wall_time)


def test_persist_longer_than_interval_is_refused():
    for function in (simulate, simulate_reference):
        with pytest.raises(InputError, match=r"^persist: 2 h is longer than the interval"):
            function(preemption_rate=0.5, interval=1.0, checkpoint_cost=0.05,
                     restart_time=0.2, work=5.0, jobs=10, persist=2.0)


# -- the plan -------------------------------------------------------------------------------------
def test_plan_without_the_new_options_is_unchanged():
    today = sm.make_plan(RATE, RESTART, COST, 0.6, 8)
    too_short = sm.make_plan(RATE, RESTART, COST, 0.6, 8, notice="10s", notice_share=1.0)
    old_keys = [key for key in today.as_dict() if not key.startswith(("notice", "persist"))]
    for key in old_keys:
        assert getattr(today, key) == getattr(too_short, key), key
    assert too_short.notice_effective is False
    assert today.first_order_interval_h == today.young_interval_h


def test_plan_json_has_the_new_keys_and_the_full_models_numbers(plan_json):
    values = plan_json("--notice", "2min", "--notice-share", "0.9", "--notice-write", "30s",
                       "--persist", "5min", "--gang-size", "4")
    gang = 4 * RATE
    full = dict(notice_share=0.9, notice_write=30 / 3600, persist=5 / 60)
    assert values["notice_h"] == pytest.approx(2 / 60)
    assert values["notice_share"] == 0.9 and values["notice_effective"] is True
    assert values["persist_h"] == pytest.approx(5 / 60)
    assert values["exact_interval_h"] == numerics.optimal_interval(gang, COST, **full)
    assert values["first_order_interval_h"] == pytest.approx(
        math.sqrt(2 * COST / (0.1 * gang)), rel=1e-14)
    assert values["young_interval_h"] == pytest.approx(math.sqrt(2 * COST / gang), rel=1e-14)
    assert values["waste_exact"] == numerics.waste_fraction(
        gang, values["recommended_interval_h"], COST, RESTART, **full)
    assert values["max_gang_size"] == numerics.max_gang_size(RATE, COST, RESTART, 0.6, **full)


def test_plan_with_every_notice_arriving_needs_no_periodic_checkpoint(cli, plan_json):
    values = plan_json("--notice", "2min", "--notice-share", "1")
    assert values["exact_interval_h"] is None and values["recommended_interval_h"] is None
    assert values["waste_exact"] == pytest.approx(
        1 - math.exp(-RATE * (COST + RESTART)), rel=1e-14)
    assert values["break_even_interval_h"] is None and values["verdict"] == "spot pays"
    assert values["break_even"] == "always"
    table = cli("plan", "--notice", "2min", "--notice-share", "1").stdout
    assert "only on notice" in table
    assert max(len(line) for line in table.splitlines()) <= 80


def test_plan_recommends_at_least_the_persist_time(plan_json):
    values = plan_json("--persist", "40min")
    assert values["exact_interval_h"] == pytest.approx(float(numerics.exact_interval(RATE, COST)))
    assert values["recommended_interval_h"] == pytest.approx(40 / 60)


def test_plan_table_says_what_the_notice_and_the_write_did(cli):
    table = " ".join(cli("plan", "--notice", "2min", "--notice-share", "0.5", "--persist",
                         "5min", "--notice-write", "1min").stdout.split())
    assert "on-notice write (1 min) fits" in table
    assert "without the notice" in table and "with blocking writes" in table
    useless = " ".join(cli("plan", "--notice", "30s", "--notice-share", "0.5").stdout.split())
    assert "does not fit in it: the notice saves nothing" in useless


@pytest.mark.parametrize("args, message", [
    (["--notice-share", "0.5"], "--notice-share: given without a notice"),
    (["--notice-write", "1min"], "--notice-write: given without a notice"),
    (["--notice", "2min"], "--notice-share: required with a notice"),
    (["--notice", "2min", "--notice-share", "1.5"], "--notice-share: must be a fraction"),
    (["--notice", "2min", "--notice-share", "x"], "--notice-share: must be a fraction"),
    (["--notice=-2min", "--notice-share", "1"], "--notice: must be a duration >= 0"),
    (["--persist", "5h"], "--persist: 5 h is not shorter than the mean time"),
    (["--persist", "1min", "--gang-size", "300"], "--persist: 1 min is not shorter"),
    (["--persist", "5x"], "--persist: unknown time unit"),
])
def test_bad_combinations_are_one_line_exit_2(args, message, cli):
    result = cli("plan", *args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"spotmath plan: error: {message}"), result.stderr
    assert result.stderr.count("\n") == 1


def test_json_is_strict(cli):
    out = cli("plan", "--json", "--notice", "1min", "--notice-share", "1").stdout
    json.loads(out)  # no NaN or Infinity: allow_nan=False would have failed
    assert "Infinity" not in out and "NaN" not in out


# -- found by comparing the page's calculator with the command on random inputs ----------
def test_optimum_is_never_shorter_than_the_bound_even_when_the_notice_write_is():
    """A notice write shorter than P used to offer a candidate below P (then refused)."""
    rate, cost, write, persist = 60 / 901.348, 4.12564 / 3600, 81.7351 / 3600, 1452.87 / 3600
    best = numerics.optimal_interval(rate, cost, notice_share=0.9, notice_write=write,
                               persist=persist, shortest=persist)
    assert best >= persist
    plan = sm.make_plan(rate, 451.03 / 3600, cost, 0.5, notice=163.287 / 3600,
                        notice_share=0.9, notice_write=write, persist=persist)
    assert plan.recommended_interval_h is None or plan.recommended_interval_h >= persist
    assert plan.max_gang_size is not None


def test_writes_that_never_complete_mean_checkpoint_on_notice_only():
    """λC far beyond LONGEST: the condition overflowed to NaN; no periodic write helps."""
    rate, cost = 4211 * 60 / 22.0, 391 / 3600  # a gang of 4211, MTBF 22 min per node
    assert rate * cost > _full_model.LONGEST
    assert math.isinf(numerics.optimal_interval(rate, cost, notice_share=1.0, notice_write=0.01))


def test_first_order_break_even_beyond_the_search_limit_is_found():
    """q = 1, first order: the waste C/T + λ(C_n + R) reaches d only beyond LONGEST/λ."""
    rate, cost, restart, write, d = 34 * 60 / 15.7174, 876.5 / 3600, 17.1 / 3600, 8.6 / 3600, 0.999
    low, high = numerics.break_even_intervals(rate, cost, restart, d, notice_share=1.0,
                                        notice_write=write, model="first-order")
    assert math.isinf(high) and low > _full_model.LONGEST / rate
    # the closed form: C/T + λ(C_n + R) = d
    assert low == pytest.approx(cost / (d - rate * (write + restart)), rel=1e-12)


def test_free_on_notice_writes_and_restarts_leave_no_gang_limit_when_1_minus_q_pays():
    """R = 0 and C_n = 0: a gang's optimal waste tends to 1 − q as it grows (it used to
    double the rate until it overflowed).  With 1 − q = 0.5 below d = 0.6 every gang pays:
    checked at rates up to a million times λ.  With 1 − q = 0.7 the limit is a number,
    where the waste crosses d."""
    free = {"notice_share": 0.5, "notice_write": 0.0}
    assert numerics.max_gang_size(0.25, 1 / 60, 0.0, 0.6, **free) is None
    for factor in (1e2, 1e4, 1e6):
        assert numerics.optimal_waste(0.25 * factor, 1 / 60, 0.0, **free) < 0.6
    some = {"notice_share": 0.3, "notice_write": 0.0}
    size = numerics.max_gang_size(0.25, 1 / 60, 0.0, 0.6, **some)
    assert size >= 1
    assert numerics.optimal_waste(0.25 * size, 1 / 60, 0.0, **some) < 0.6
    assert numerics.optimal_waste(0.25 * (size + 1), 1 / 60, 0.0, **some) >= 0.6
