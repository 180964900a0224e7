"""The numbers against independent computations: hand-worked values, an independent
numeric minimiser and root finder, a small simulation, and monotonicity properties."""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.optimize import brentq, minimize_scalar

import spotmath as sm

RATE, RESTART, COST, DISCOUNT = 0.25, 10 / 60, 1 / 60, 0.6  # the book's defaults


# -- independent statements of the models (typed from the issue, not from the library) --------
def segment_time(rate, interval, cost, restart, preemptible=True):
    if preemptible:
        return math.exp(rate * restart) * math.expm1(rate * (interval + cost)) / rate
    return math.expm1(rate * (interval + cost)) * (1 / rate + restart)


def waste_exact(rate, interval, cost, restart, preemptible=True):
    return 1 - interval / segment_time(rate, interval, cost, restart, preemptible)


def waste_first(rate, interval, cost, restart):
    return cost / interval + rate * (interval / 2 + restart)


def golden_minimum(function, low, high, digits=40):
    """Bounded golden-section minimiser in mpmath: locates a minimum to ~1e-25 relative."""
    mp.mp.dps = digits
    low, high = mp.mpf(low), mp.mpf(high)
    ratio = (mp.sqrt(5) - 1) / 2
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    fa, fb = function(a), function(b)
    while high - low > mp.mpf(10) ** (-28) * high:
        if fa < fb:
            high, b, fb = b, a, fa
            a = high - ratio * (high - low)
            fa = function(a)
        else:
            low, a, fa = a, b, fb
            b = low + ratio * (high - low)
            fb = function(b)
    return (low + high) / 2


# -- the worked check from the issue ----------------------------------------------------------
def test_worked_example_intervals():
    assert sm.young_interval(RATE, COST) * 60 == pytest.approx(21.9089, abs=1e-4)  # 21.9 min
    assert sm.exact_interval(RATE, COST) * 60 == pytest.approx(21.25, abs=0.005)  # ≈ 21.25 min
    assert sm.daly_interval(RATE, COST) * 60 == pytest.approx(21.25, abs=0.005)


@pytest.mark.parametrize("minutes, percent", [(15, 7.29), (60, 16.67), (240, 54.17)])
def test_worked_example_first_order_waste_without_checkpoint_cost(minutes, percent):
    waste = sm.waste_fraction(RATE, minutes / 60, 0, RESTART, model="first-order")
    assert round(100 * waste, 2) == percent


def test_waste_accepts_unit_strings():
    assert sm.waste_fraction("6/d", "1h", 0, "10min", model="first-order") == pytest.approx(1 / 6)


# -- exact optimum against a bounded numeric minimiser of E/T ---------------------------------
@given(rate=st.floats(1e-3, 20), cost=st.floats(1e-4, 2))
def test_exact_optimum_matches_numeric_minimiser(rate, cost):
    def overhead(interval):  # E/T up to a constant factor, same in both restart variants
        return mp.expm1(mp.mpf(rate) * (interval + mp.mpf(cost))) / interval

    best = golden_minimum(overhead, 0, 1 / mp.mpf(rate))
    assert sm.exact_interval(rate, cost) == pytest.approx(float(best), rel=1e-9)


def test_exact_optimum_matches_scipy_minimiser_of_full_waste():
    """A second, coarser witness: SciPy's bounded minimiser on the full exact waste."""
    for rate, cost, restart in [(0.25, 1 / 60, 1 / 6), (2.0, 0.1, 0.5), (0.01, 0.5, 1.0)]:
        for variant in (True, False):
            found = minimize_scalar(lambda t: waste_exact(rate, t, cost, restart, variant),
                                    bounds=(1e-6, 1 / rate), method="bounded",
                                    options={"xatol": 1e-10})
            assert sm.exact_interval(rate, cost) == pytest.approx(found.x, rel=1e-5)


def test_exact_optimum_is_vectorised():
    rates = np.array([0.01, 0.25, 4.0])
    costs = np.array([[1 / 3600], [1 / 60], [1.0]])
    grid = sm.exact_interval(rates, costs)
    assert grid.shape == (3, 3)
    for i, cost in enumerate(costs[:, 0]):
        for j, rate in enumerate(rates):
            assert grid[i, j] == sm.exact_interval(rate, cost)


def test_daly_is_closer_to_exact_than_young():
    for rate, cost in [(0.25, 1 / 60), (1.0, 0.1), (4.0, 0.05)]:
        exact = sm.exact_interval(rate, cost)
        daly, young = sm.daly_interval(rate, cost), sm.young_interval(rate, cost)
        assert abs(daly - exact) < abs(young - exact)
    assert sm.daly_interval(0.5, 5.0) == 2.0  # C >= 2M: Daly's T* = M


# -- the exact model against a simulation -----------------------------------------------------
@pytest.mark.parametrize("preemptible", [True, False])
def test_segment_time_matches_a_simulation(preemptible):
    """Simulate attempts at T + C (and at R, when the restart can be preempted)."""
    rng = np.random.default_rng(20261202)
    rate, interval, cost, restart = 1.0, 0.8, 0.1, 0.3
    jobs = 100_000
    total = np.zeros(jobs)
    pending = np.ones(jobs, dtype=bool)
    need = np.full(jobs, interval + cost)  # what must run uninterrupted next
    while pending.any():
        draw = rng.exponential(1 / rate, size=jobs)
        done = pending & (draw >= need)
        failed = pending & ~done
        total += np.where(done, need, 0) + np.where(failed, draw, 0)
        if preemptible:  # the restart must itself run uninterrupted, then the segment
            need = np.where(failed, restart + interval + cost, need)
        else:
            total += np.where(failed, restart, 0)
        pending = failed
    expected = sm.segment_time(rate, interval, cost, restart, restart_preemptible=preemptible)
    error = total.std(ddof=1) / math.sqrt(jobs)
    assert abs(total.mean() - expected) < 4 * error


def test_lost_work_exact_matches_a_simulation():
    rng = np.random.default_rng(7)
    rate, interval = 0.5, 3.0
    times = rng.exponential(1 / rate, size=400_000)
    inside = times[times < interval]
    error = inside.std(ddof=1) / math.sqrt(inside.size)
    assert abs(inside.mean() - sm.lost_work(rate, interval)) < 4 * error
    assert sm.lost_work(rate, interval, "first-order") == interval / 2


# -- break-even against an independent root finder --------------------------------------------
@pytest.mark.parametrize("model", ["first-order", "exact"])
@pytest.mark.parametrize("cost", [0.0, 1 / 60, 0.2])
def test_break_even_intervals_against_brentq(model, cost):
    def excess(interval):
        if model == "exact":
            return waste_exact(RATE, interval, cost, RESTART) - DISCOUNT
        return waste_first(RATE, interval, cost, RESTART) - DISCOUNT

    low, high = sm.break_even_intervals(RATE, cost, RESTART, DISCOUNT, model=model)
    middle = max(math.sqrt(2 * cost / RATE), 1e-3)  # Young's interval pays here
    assert high == pytest.approx(brentq(excess, middle, 100.0, xtol=1e-14), rel=1e-10)
    if cost == 0:
        assert low == 0
    else:
        assert low == pytest.approx(brentq(excess, 1e-9, middle, xtol=1e-16), rel=1e-9)
    assert sm.break_even_interval(RATE, cost, RESTART, DISCOUNT, model=model) == high


def test_break_even_intervals_at_the_defaults():
    # First order with C = 0: T = 2(d/λ − R) = 2(2.4 − 1/6) h
    high = sm.break_even_interval(RATE, 0, RESTART, DISCOUNT, model="first-order")
    assert high == pytest.approx(2 * (DISCOUNT / RATE - RESTART), rel=1e-14)
    # the first-order formula overstates the loss, so the exact break-even is longer
    assert sm.break_even_interval(RATE, COST, RESTART, DISCOUNT) > \
        sm.break_even_interval(RATE, COST, RESTART, DISCOUNT, model="first-order")


def test_no_break_even_when_spot_never_pays():
    assert sm.break_even_intervals(4.0, 0.1, 0.5, 0.3) is None
    assert sm.break_even_intervals(4.0, 0.1, 0.5, 0.3, model="first-order") is None


@pytest.mark.parametrize("model", ["first-order", "exact"])
@pytest.mark.parametrize("variant", [True, False])
def test_break_even_rate_restart_and_discount_are_consistent(model, variant):
    interval = 1.0

    def w(rate, restart):
        if model == "exact":
            return waste_exact(rate, interval, COST, restart, variant)
        return waste_first(rate, interval, COST, restart)

    kwargs = {"model": model, "restart_preemptible": variant}
    rate = sm.break_even_preemption_rate(interval, COST, RESTART, DISCOUNT, **kwargs)
    assert w(rate, RESTART) == pytest.approx(DISCOUNT, rel=1e-10)
    restart = sm.break_even_restart_time(RATE, interval, COST, DISCOUNT, **kwargs)
    assert w(RATE, restart) == pytest.approx(DISCOUNT, rel=1e-10)
    discount = sm.break_even_discount(RATE, interval, COST, RESTART, **kwargs)
    assert discount == pytest.approx(w(RATE, RESTART), rel=1e-12)


def test_break_even_none_cases():
    # checkpoint writes alone use up the discount: no rate or restart time pays
    assert sm.break_even_preemption_rate(0.1, 0.2, 0.0, 0.6) is None
    assert sm.break_even_preemption_rate(0.1, 0.2, 0.0, 0.6, model="first-order") is None
    assert sm.break_even_restart_time(0.25, 0.1, 0.2, 0.6) is None
    assert sm.break_even_discount(10.0, 4.0, 0.0, 0.0, model="first-order") is None


def test_waste_saturates_without_overflow_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sm.waste_fraction(10.0, 100.0, 1.0, 1.0) == 1.0
        # #53-8: a public function answers with a finite number or refuses
        with pytest.raises(sm.InputError, match="^interval: at 10 preemptions per hour a "
                           "segment of 100 h .* almost never completes"):
            sm.segment_time(10.0, 100.0)


def test_relative_price_and_effective_discount():
    assert sm.relative_price(0.0, 0.6) == pytest.approx(0.4)
    assert sm.relative_price(0.6, 0.6) == pytest.approx(1.0)  # break-even: waste = discount
    with pytest.raises(ValueError, match="^waste: must be a fraction in"):
        sm.relative_price(1.2, 0.6)


# -- gangs ------------------------------------------------------------------------------------
def test_gang_rate_and_survival():
    assert sm.gang_rate(0.25, 8) == 2.0
    assert sm.gang_survival(0.25, 8, 0.5) == pytest.approx(math.exp(-1.0))
    rng = np.random.default_rng(3)
    first = rng.exponential(1 / 0.25, size=(200_000, 8)).min(axis=1)
    assert (first > 0.5).mean() == pytest.approx(math.exp(-1.0), abs=4 * math.sqrt(0.25 / 200_000))


def test_never_on_spot_at_the_defaults():
    # λR = 1/24: first order d/(λR) = 14.4 → 15; preemptible −ln(0.4)·24 = 21.99 → 22;
    # protected d/((1−d)λR) = 36 exactly: a gang of 36 breaks even, so it does not pay.
    assert sm.never_on_spot_gang_size(RATE, RESTART, DISCOUNT, model="first-order") == 15
    assert sm.never_on_spot_gang_size(RATE, RESTART, DISCOUNT) == 22
    assert sm.never_on_spot_gang_size(RATE, RESTART, DISCOUNT, restart_preemptible=False) == 36
    assert sm.never_on_spot_gang_size(RATE, 0, DISCOUNT) is None


@pytest.mark.parametrize("model", ["first-order", "exact"])
@pytest.mark.parametrize("cost, restart", [(1 / 60, 1 / 6), (0.1, 0.0), (1 / 120, 0.5)])
def test_max_gang_size_by_direct_search(model, cost, restart):
    """The largest paying gang, checked by minimising each gang's waste independently."""
    def best_waste(size):
        rate = size * RATE
        if model == "exact":
            found = minimize_scalar(lambda t: waste_exact(rate, t, cost, restart),
                                    bounds=(1e-8, 1 / rate), method="bounded",
                                    options={"xatol": 1e-12})
            return found.fun
        return math.sqrt(2 * rate * cost) + rate * restart

    size = sm.max_gang_size(RATE, cost, restart, DISCOUNT, model=model)
    assert size >= 1
    assert best_waste(size) < DISCOUNT <= best_waste(size + 1)


def test_max_gang_size_first_order_at_the_defaults():
    # √(2NλC) + NλR = 0.6 at N ≈ 8.15 (worked by hand from the quadratic in √(Nλ))
    root = ((-math.sqrt(2 * COST) + math.sqrt(2 * COST + 4 * RESTART * DISCOUNT))
            / (2 * RESTART)) ** 2 / RATE
    assert root == pytest.approx(8.1467, abs=1e-4)
    assert sm.max_gang_size(RATE, COST, RESTART, DISCOUNT, model="first-order") == 8


def test_max_gang_size_edge_cases():
    assert sm.max_gang_size(RATE, 0, 0, DISCOUNT) is None  # free checkpoints and restarts
    assert sm.max_gang_size(RATE, 0, RESTART, DISCOUNT) == 21  # one below never-on-spot
    assert sm.max_gang_size(10.0, 0.5, 0.5, 0.3) == 0  # not even one node pays


# -- properties -------------------------------------------------------------------------------
rates = st.floats(1e-3, 10)
intervals = st.floats(1e-3, 24)
# 0, or within what the library computes with (spotmath.inputs.COMPUTABLE: 5e-324 is refused)
costs = st.one_of(st.just(0.0), st.floats(1e-150, 1))
restarts = st.one_of(st.just(0.0), st.floats(1e-150, 2))
factors = st.floats(1.01, 10)
models = st.sampled_from(["first-order", "exact"])
variants = st.booleans()


def moderate(rate, interval, cost, restart, factor=1.0):
    """Keep λ(T + C + R) where a float can still tell the waste from 100%."""
    return rate * factor * (interval + cost + restart + 0.01 * factor) < 25


@given(rate=rates, interval=intervals, cost=costs, restart=restarts, factor=factors,
       model=models, variant=variants)
def test_waste_grows_with_rate_and_restart(rate, interval, cost, restart, factor, model, variant):
    assume(moderate(rate, interval, cost, restart, factor))
    kwargs = {"model": model, "restart_preemptible": variant}
    base = sm.waste_fraction(rate, interval, cost, restart, **kwargs)
    assert sm.waste_fraction(rate * factor, interval, cost, restart, **kwargs) > base
    assert sm.waste_fraction(rate, interval, cost, restart + 0.01 * factor, **kwargs) > base


@given(rate=rates, cost=st.floats(1e-4, 1), factor=factors, model=models)
def test_optimum_grows_with_cost_and_shrinks_with_rate(rate, cost, factor, model):
    base = sm.optimal_interval(rate, cost, model)
    assert sm.optimal_interval(rate, cost * factor, model) > base
    assert sm.optimal_interval(rate * factor, cost, model) < base


@given(rate=rates, interval=intervals, cost=costs, restart=restarts, variant=variants)
def test_exact_waste_is_a_fraction_and_below_first_order(rate, interval, cost, restart, variant):
    assume(moderate(rate, interval, cost, restart))
    exact = sm.waste_fraction(rate, interval, cost, restart, restart_preemptible=variant)
    assert 0 < exact < 1
    if variant is False:  # the protected restart: exact waste ≤ first-order waste
        assert exact <= sm.waste_fraction(rate, interval, cost, restart, model="first-order") \
            * (1 + 1e-12)


@given(rate=rates, cost=st.floats(1e-4, 1), restart=restarts, model=models,
       discount=st.floats(0.05, 0.95))
def test_max_gang_is_below_never_on_spot(rate, cost, restart, model, discount):
    largest = sm.max_gang_size(rate, cost, restart, discount, model=model)
    never = sm.never_on_spot_gang_size(rate, restart, discount, model=model)
    if never is not None:
        assert largest < never


def test_max_gang_size_when_even_one_node_does_not_pay():
    """A tiny discount: the old bracket spanned twelve decades and brentq ran out of
    iterations (a traceback from `spotmath plan`).  Against a direct check of N = 1."""
    rate, cost, restart, d = 60 / 4537.42, 4.85766 / 3600, 139.519 / 3600, 0.001
    assert sm.optimal_waste(rate, cost, restart) >= d  # one node does not pay
    assert sm.max_gang_size(rate, cost, restart, d) == 0
    # and where one node pays, the answer is the last N whose optimal waste is below d
    size = sm.max_gang_size(rate, cost, 0.0, 0.02)
    assert sm.optimal_waste(size * rate, cost, 0.0) < 0.02 <= sm.optimal_waste(
        (size + 1) * rate, cost, 0.0)


def test_effective_discount_is_none_where_no_hour_is_useful():
    for waste, discount in ((0.0, 0.6), (0.1256, 0.6), (0.59, 0.6), (0.9, 0.3)):
        assert sm.effective_discount(waste, discount) == pytest.approx(
            1 - (1 - discount) / (1 - waste), rel=1e-15)  # typed: 1 − (1 − d)/(1 − w)
    assert sm.effective_discount(1.0, 0.6) is None
    assert sm.effective_discount(24.0, 0.6) is None  # a first-order waste far beyond 100%
    with pytest.raises(sm.InputError, match=r"^waste: must be a waste fraction >= 0"):
        sm.effective_discount(-0.1, 0.6)
    with pytest.raises(sm.InputError, match=r"^spot_discount: "):
        sm.effective_discount(0.1, 1.0)


def test_lost_work_stays_finite_for_intervals_many_mtbfs_long():
    """1/λ − T/(e^{λT} − 1) tends to 1/λ; printed as one fraction it gave ∞/∞ = NaN."""
    assert sm.lost_work(10.0, 1e5 / 60) == pytest.approx(0.1, rel=1e-15)
    assert sm.lost_work(0.25, 4000.0) == pytest.approx(4.0, rel=1e-15)
    assert np.all(np.isfinite(sm.lost_work(1.0, np.geomspace(1e-3, 1e6, 50))))


def test_lost_work_keeps_its_precision_at_small_rates():
    """1/λ − T/(e^{λT} − 1) subtracts two numbers near 1/λ: at λT = 1e-15 it gave half
    the loss (0.125 h of a 0.5-hour interval), silently.  Against mpmath at 50 digits,
    from λT = 1e-30 to 20, the loss is now within 1e-13."""
    import mpmath

    products = np.geomspace(1e-30, 20, 400)
    got = sm.lost_work(products, 1.0)
    with mpmath.workdps(50):
        for product, value in zip(products, got):
            x = mpmath.mpf(float(product))
            true = float(1 / x - 1 / mpmath.expm1(x))
            assert abs(value - true) <= 1e-13 * true, (product, value, true)
    assert sm.lost_work(1e-15, 0.5) == pytest.approx(0.25, rel=1e-14)
