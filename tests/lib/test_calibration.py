"""Calibration and fleet helpers against independent computations: typed formulas, a
numeric root, a numeric maximum of the likelihood."""

import json
import math
from pathlib import Path

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


@given(rates, st.integers(1, 4096), st.one_of(st.just(0.0), st.floats(1e-150, 1)),
       st.one_of(st.just(0.0), st.floats(1e-150, 2)))
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


# -- a plan from the state's size ------------------------------------------------------
GPU_DATA = Path(__file__).resolve().parents[2] / "book" / "data" / "gpu"


def _plan_json(cli, *flags):
    done = cli("plan", "--json", *flags)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _same(one, other, keys):
    for key in keys:
        if isinstance(other[key], float):
            assert one[key] == pytest.approx(other[key], rel=1e-12), key
        else:
            assert one[key] == other[key], key


def test_a_plan_from_the_state_is_the_plan_at_state_over_bandwidth(cli):
    from spotmath.model.plan import PLAN_KEYS

    by_size = _plan_json(cli, "--state", "13.2GB", "--write-bandwidth", "1.2GB/s")
    typed = 13.2e9 / 1.2e9 / 3600  # C = S/B, hours, typed here
    by_time = _plan_json(cli, "--checkpoint", repr(typed))
    _same(by_size, by_time, PLAN_KEYS)
    assert by_size["state"] == {"state_bytes": 13.2e9,
                                "write_bandwidth_bytes_per_s": 1.2e9,
                                "snapshot_bandwidth_bytes_per_s": None}


def test_an_asynchronous_plan_from_the_state_is_checkpoint_and_persist(cli):
    from spotmath.model.plan import PLAN_KEYS

    by_size = _plan_json(cli, "--state", "12GiB", "--write-bandwidth", "500MB/s",
                         "--snapshot-bandwidth", "55GB/s")
    state = 12 * 2**30
    snapshot, durable = state / 55e9 / 3600, state / 500e6 / 3600
    by_time = _plan_json(cli, "--checkpoint", repr(snapshot), "--persist", repr(durable))
    _same(by_size, by_time, PLAN_KEYS)


@pytest.mark.parametrize("flags, message", [
    (["--state", "13GB"], "--state: needs --write-bandwidth too"),
    (["--write-bandwidth", "1GB/s"], "--write-bandwidth: needs --state too"),
    (["--snapshot-bandwidth", "9GB/s", "--state", "1GB"], "--state: needs "
                                                          "--write-bandwidth too"),
    (["--snapshot-bandwidth", "9GB/s"], "--snapshot-bandwidth: needs --state too"),
    (["--state", "13GB", "--write-bandwidth", "1GB/s", "--checkpoint", "1min"],
     "--checkpoint: give it, or --state with --write-bandwidth, not both"),
    (["--state", "13GB", "--write-bandwidth", "1GB/s", "--snapshot-bandwidth", "9GB/s",
      "--persist", "1min"], "--persist: give it, or --snapshot-bandwidth"),
    (["--state", "13", "--write-bandwidth", "1GB/s"], "--state: not a size: '13'"),
    (["--state", "13GB", "--write-bandwidth", "1GB"], "--write-bandwidth: not a bandwidth"),
    (["--state", "0GB", "--write-bandwidth", "1GB/s"], "--state: must be a size > 0"),
])
def test_a_plan_from_the_state_refuses_in_one_line(cli, flags, message):
    done = cli("plan", *flags)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_the_state_of_the_measured_models_is_twelve_bytes_a_parameter():
    """fp32 weights with AdamW: the Trainer's measured checkpoints hold 12 bytes a
    parameter, to within their small files (config, scheduler, RNG state)."""
    from spotmath.model.calibration import state_bytes

    data = json.loads((GPU_DATA / "checkpoint_costs_h200.json").read_text())
    for name in ("hf_trainer_125M", "hf_trainer_1.1B"):
        measured = data[name]
        assert state_bytes(measured["params"]) == pytest.approx(
            measured["checkpoint_bytes"], rel=1e-3), name
    with pytest.raises(InputError, match="setup"):
        state_bytes(1e9, "fp8")


@pytest.mark.parametrize("bandwidths, name", [
    (("1e-300B/s",), "write_bandwidth"), (("1e-3B/s",), "write_bandwidth"),
    (("1GB/s", "1e-300B/s"), "snapshot_bandwidth")])
def test_a_write_longer_than_any_duration_is_refused_naming_the_bandwidth(bandwidths, name):
    """A bandwidth that makes the write outlast 10⁶ hours, or overflow a double, is refused
    before the division, as --checkpoint refuses such a write."""
    from spotmath.inputs import InputError
    from spotmath.model.calibration import checkpoint_from_state

    with pytest.raises(InputError, match=f"^{name}: 1.32e\\+10 bytes at .* longer than "
                                         "1e\\+06 hours"):
        checkpoint_from_state("13.2GB", *bandwidths)
    assert checkpoint_from_state("13.2GB", "1e2B/s")[0] < 1e6  # within the bound
