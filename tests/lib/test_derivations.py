"""Each derivation against an independent statement of the result.

The library derives; these tests type the published or hand-derived forms (from the papers
and the issue text) and check that SymPy's derivations agree with them, symbolically where
SymPy can decide it and at high precision (mpmath, 40 digits) where it cannot.
"""

import mpmath as mp
import pytest
import sympy as sp

from spotmath.model import derivations as D
from spotmath.model.derivations import C, N, R, T, d, lam

pytestmark = pytest.mark.derives  # SymPy: run first, together (tests/conftest.py)


def same(a, b):
    return sp.simplify(a - b) == 0


def test_lost_work_first_order_is_half_the_interval():
    assert D.lost_work_first_order() == T / 2


def test_lost_work_exact_matches_published_form_and_tends_to_half_interval():
    published = 1 / lam - T / (sp.exp(lam * T) - 1)
    assert same(D.lost_work_exact(), published)
    assert sp.limit(D.lost_work_exact(), lam, 0) == T / 2
    # and the next term: T/2 − λT²/12, the first-order formula's bias
    series = sp.series(D.lost_work_exact(), lam, 0, 2).removeO()
    assert same(series, T / 2 - lam * T**2 / 12)


def test_first_order_waste():
    assert same(D.waste_first_order(), lam * (T / 2 + R))
    assert same(D.waste_first_order_with_checkpoint(), C / T + lam * (T / 2 + R))


def test_young_and_its_waste():
    assert same(D.young_interval(), sp.sqrt(2 * C / lam))
    assert same(D.young_waste(), sp.sqrt(2 * lam * C) + lam * R)


def test_exact_segment_times_match_published_forms():
    protected = (sp.exp(lam * (T + C)) - 1) * (1 / lam + R)
    daly = sp.exp(lam * R) * (sp.exp(lam * (T + C)) - 1) / lam
    assert same(D.segment_time_protected_restart(), protected)
    assert same(D.segment_time_preemptible_restart(), daly)
    assert same(D.waste_exact(True), 1 - T / daly)


def test_exact_segment_times_tend_to_no_preemption_limit():
    for variant in (True, False):
        assert same(sp.limit(D.segment_time(variant), lam, 0), T + C)


def test_exact_optimum_is_the_lambert_w_form():
    published = (1 + sp.LambertW(-sp.exp(-lam * C - 1))) / lam
    assert same(D.exact_interval(), published)


def test_optimality_condition_and_lambert_w_agree_at_high_precision():
    mp.mp.dps = 40
    g = sp.lambdify((D.x, D.c), D.exact_optimality_condition(), "mpmath")
    for cost in ("1e-8", "1e-4", "0.01", "1", "10"):
        c = mp.mpf(cost)
        x = 1 + mp.lambertw(-mp.exp(-1 - c))
        assert abs(g(x.real, c)) < mp.mpf(10) ** -30


def test_daly_series_equals_published_daly_2006():
    mtbf = 1 / lam
    published = sp.sqrt(2 * C * mtbf) * (
        1 + sp.Rational(1, 3) * sp.sqrt(C / (2 * mtbf)) + sp.Rational(1, 9) * (C / (2 * mtbf))
    ) - C
    series = D.daly_interval().args[0][0]
    assert same(sp.expand(published), series)
    assert D.daly_interval().args[1][0] == 1 / lam  # Daly: T* = M once C >= 2M


def test_exact_optimum_reduces_to_young_as_lambda_c_vanishes():
    # Symbolic: the leading term of the series solution of the exact condition is Young's.
    a1, _, _ = D.daly_series_coefficients()
    assert same(a1 * sp.sqrt(lam * C) / lam, D.young_interval())
    # Numeric, on the Lambert W form itself: the ratio to Young tends to 1 like 1 − √(2λC)/3.
    mp.mp.dps = 50
    for c in (mp.mpf("1e-6"), mp.mpf("1e-10"), mp.mpf("1e-14")):
        ratio = (1 + mp.lambertw(-mp.exp(-1 - c)).real) / mp.sqrt(2 * c)
        assert abs(ratio - (1 - mp.sqrt(2 * c) / 3)) < 10 * c


def test_first_order_break_even_roots_solve_the_equation():
    low, high = D.break_even_intervals_first_order()
    for root in (low, high):
        assert same(D.waste_first_order_with_checkpoint().subs(T, root), d)
    assert same(sp.expand(low * high), sp.expand(2 * C / lam))  # Vieta: product = 2C/λ


def test_first_order_break_even_rate_and_restart():
    waste = C / T + lam * (T / 2 + R)
    assert same(waste.subs(lam, D.break_even_rate_first_order()), d)
    assert same(waste.subs(R, D.break_even_restart_first_order()), d)


@pytest.mark.parametrize("variant", [True, False])
def test_exact_break_even_restart_solves_exact_waste(variant):
    waste = D.waste_exact(variant).subs(R, D.break_even_restart_exact(variant))
    point = {lam: sp.Rational(1, 3), T: sp.Rational(3, 2), C: sp.Rational(1, 30),
             d: sp.Rational(1, 2)}
    assert abs(sp.N(waste.subs(point), 30) - sp.Rational(1, 2)) < 1e-25


def test_gang_rate_and_survival():
    assert D.gang_rate() == N * lam
    assert same(D.gang_survival(), sp.exp(-N * lam * T))


def test_max_gang_first_order_solves_young_waste():
    waste = sp.sqrt(2 * N * lam * C) + N * lam * R
    point = {lam: sp.Rational(1, 4), C: sp.Rational(1, 60), R: sp.Rational(1, 6),
             d: sp.Rational(3, 5)}
    value = sp.N(waste.subs(N, D.max_gang_first_order()).subs(point), 30)
    assert abs(value - sp.Rational(3, 5)) < 1e-25
    # with no restart cost the answer is d²/(2λC)
    assert same(D.max_gang_first_order().subs(R, 0), d**2 / (2 * lam * C))


def test_never_on_spot_in_all_three_models():
    assert same(D.never_on_spot_gang("first-order"), d / (lam * R))
    q = sp.Symbol("q", positive=True)  # 1 − d, positive since d < 1
    exact = sp.expand_log(D.never_on_spot_gang("exact", True).subs(d, 1 - q), force=True)
    assert same(exact, -sp.log(q) / (lam * R))
    assert same(D.never_on_spot_gang("exact", False), d / ((1 - d) * lam * R))


def test_unknown_derivation_is_refused():
    with pytest.raises(ValueError, match="^derivation: must be one of"):
        D.derivation("yung")


# -- calibration and fleet ------------------------------------------------------------------
@pytest.mark.parametrize("name, typed", [
    ("interrupted-fraction", 1 - sp.exp(-D.lam * D.H)),
    ("bucket-rate", -sp.log(1 - D.F) / D.H),
    ("observed-rate", D.m / (D.n * D.tau)),
    ("checkpoint-write", D.p * D.q / D.B),
    ("elastic-waste", D.lam * (2 * D.N * D.P + D.R)),
    ("useful-hour-price", (1 - D.g) / (D.a * (1 - D.w))),
])
def test_calibration_derivations_equal_their_typed_forms(name, typed):
    derived = D.derivation(name).rhs
    assert sp.simplify(derived - typed) == 0 or all(
        abs(complex(sp.N((derived - typed).subs(point)))) < 1e-12
        for point in ({D.F: sp.Rational(1, 10), D.H: 24}, {D.F: sp.Rational(9, 10), D.H: 1}))


def test_bucket_rate_inverts_the_interrupted_fraction():
    fraction = D.derivation("interrupted-fraction").rhs
    rate = D.derivation("bucket-rate").rhs
    assert sp.simplify(fraction.subs(D.lam, rate) - D.F) == 0


# -- real preemptions: Weibull lifetimes, the local-rate rule, bulk reclaims ----------------
def test_weibull_hazard_mean_and_local_rate_interval_match_typed_forms():
    k, sigma, t = D.k, D.sigma, D.t
    hazard = (k / sigma) * (t / sigma) ** (k - 1)  # the textbook Weibull hazard
    assert same(D.weibull_hazard(), hazard)
    assert same(D.weibull_mean(), sigma * sp.gamma(1 + 1 / k))
    # Ling, Mi and Lin's local rule: Young's interval at the local hazard
    assert same(D.local_rate_interval() ** 2, 2 * C / hazard)
    assert same(D.local_rate_interval().subs(k, 1), sp.sqrt(2 * C * sigma))
    # the first interval from age 0: its own local-rate interval at its end
    first = D.local_rate_first_interval()
    gap = first**2 - 2 * C / hazard.subs(t, first)  # SymPy leaves the powers unsimplified
    Q = sp.Rational
    for values in ({C: Q(1, 100), sigma: 2, k: Q(3, 2)}, {C: Q(3, 10), sigma: Q(1, 2), k: 4},
                   {C: Q(1, 10**4), sigma: 9, k: Q(101, 100)}):
        assert abs(gap.subs(values).evalf(40)) < 1e-30
    assert same(first.subs(k, 1), sp.sqrt(2 * C * sigma))


def test_censored_weibull_likelihood_and_its_profile():
    k, sigma, m, G, Lam = D.k, D.sigma, D.m, D.G, D.Lsum
    typed = m * sp.log(k) - m * k * sp.log(sigma) + (k - 1) * Lam - G / sigma**k
    assert same(D.weibull_log_likelihood(), typed)
    assert same(D.weibull_scale_mle(), (G / m) ** (1 / k))
    profile = m * sp.log(k) - m * sp.log(G / m) + (k - 1) * Lam - m
    assert same(sp.expand_log(D.weibull_profile_log_likelihood() - profile, force=True), 0)


def test_bulk_gang_rate_and_fraction():
    rho, r = D.rho, D.r
    assert same(D.bulk_gang_rate(), (N * (1 - rho) + rho) * lam)
    assert same(D.bulk_gang_rate().subs(rho, 0), D.gang_rate())  # independent: Nλ
    assert same(D.bulk_gang_rate().subs(rho, 1), lam)  # every reclaim takes the gang
    assert same(D.bulk_fraction(), (N * lam - r) / ((N - 1) * lam))
