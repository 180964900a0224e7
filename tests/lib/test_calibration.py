"""Calibration and fleet helpers against independent computations: typed formulas, a
numeric root, a numeric maximum of the likelihood."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import brentq, minimize_scalar

import spotmath as sm
from spotmath.inputs import InputError

rates = st.floats(1e-5, 20)
hours = st.floats(1e-2, 1e4)
fractions = st.floats(1e-6, 0.999)


@given(fractions, hours)
def test_bucket_rate_is_the_root_of_the_interrupted_fraction(fraction, exposure):
    root = brentq(lambda r: -math.expm1(-r * exposure) - fraction, 1e-12, 1e4, xtol=1e-300,
                  rtol=1e-14)
    assert sm.rate_from_interrupted_fraction(fraction, exposure) == pytest.approx(root, rel=1e-9)


@given(rates, hours)
def test_interrupted_fraction_is_one_minus_survival(rate, exposure):
    assert sm.interrupted_fraction(rate, exposure) == pytest.approx(
        -math.expm1(-rate * exposure), rel=1e-12, abs=1e-300)


@given(st.integers(1, 10_000), st.floats(1, 1e5), st.floats(1, 1e4))
def test_observed_rate_maximises_the_poisson_likelihood(count, units, window):
    def minus_log_likelihood(log_rate):
        mean = math.exp(log_rate) * units * window
        return mean - count * math.log(mean)
    best = minimize_scalar(minus_log_likelihood, bounds=(-40, 10), method="bounded",
                           options={"xatol": 1e-12})
    assert math.log(sm.observed_rate(count, units, window)) == pytest.approx(best.x, abs=1e-5)


def test_the_llama3_count_as_a_per_gpu_mtbf():
    # 419 failures on 16,384 GPUs in 54 days: 16,384 × 54 × 24 / 419 GPU-hours per failure.
    assert 1 / sm.observed_rate(419, 16384, 54 * 24) == pytest.approx(16384 * 54 * 24 / 419)


def test_checkpoint_write_time_in_hours():
    # 70e9 parameters × 14 bytes at 2 GB/s: 490 s.
    assert sm.checkpoint_write_time(70e9, 14, 2e9) * 3600 == pytest.approx(490)
    assert np.allclose(sm.checkpoint_write_time(np.array([7e9, 70e9]), 14, 2e9) * 3600,
                       [49, 490])


@given(rates, st.integers(1, 4096), st.floats(0, 1), st.floats(0, 2))
def test_elastic_waste_typed(rate, size, pause, restart):
    assert sm.elastic_waste(rate, size, pause, restart) == pytest.approx(
        rate * (2 * size * pause + restart), rel=1e-12, abs=1e-300)


def test_useful_hour_price():
    assert sm.useful_hour_price(0.2, 0.6) == pytest.approx(0.4 / 0.8)
    assert sm.useful_hour_price(0.0) == 1.0  # on-demand, no waste
    assert sm.useful_hour_price(0.1, 0.4, 0.8) == pytest.approx(0.6 / (0.8 * 0.9))


@pytest.mark.parametrize("call, message", [
    (lambda: sm.rate_from_interrupted_fraction(1.0, 24),
     "interrupted_fraction: must be a fraction strictly"),
    (lambda: sm.rate_from_interrupted_fraction(0.2, 0), "exposure: must be"),
    (lambda: sm.observed_rate(-1, 10, 24), "count: must be a count >= 0"),
    (lambda: sm.observed_rate(3, 0, 24), "units: must be a number of units > 0"),
    (lambda: sm.observed_rate(3, 10, "a week"), "window: not a duration"),
    (lambda: sm.checkpoint_write_time(7e9, 14, 0), "bandwidth: must be a bandwidth > 0"),
    (lambda: sm.checkpoint_write_time("big", 14, 1e9), "parameter_count: must be"),
    (lambda: sm.elastic_waste(0.25, 0, 0.01, 0.1), "gang_size: must be"),
    (lambda: sm.useful_hour_price(1.0, 0.6), "waste: must be a waste fraction in [0, 1)"),
    (lambda: sm.useful_hour_price(0.1, 1.0), "price_discount: must be a discount in [0, 1)"),
    (lambda: sm.useful_hour_price(0.1, 0.4, 0), "utilization: must be a fraction in (0, 1]"),
])
def test_bad_input_gets_a_one_line_error(call, message):
    with pytest.raises(InputError) as info:
        call()
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)
