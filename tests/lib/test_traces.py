"""Spot traces: reading (and refusing) them, fitting them, replaying schedules on them.

Every number is checked against an independent computation: the raw files parsed here
with the csv module, SciPy's own censored fitting and Kaplan-Meier, Poisson tail sums
solved by a root finder, hand-worked small traces, brute force over every candidate
interval, and synthetic traces drawn from the simulator's processes with known parameters.
"""

import collections
import doctest
import hashlib
import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.optimize import brentq, minimize, minimize_scalar

import spotmath as sm
import spotmath.traces
import spotmath.traces.fitting
import spotmath.traces.replay
from spotmath.inputs import InputError
from spotmath.traces import Trace, read_group_sizes, read_trace, write_trace
from spotmath.traces.fitting import (
    co_preemption,
    fit_trace,
    fit_weibull,
    preemptions_needed,
    rate_interval,
    survival_curve,
)
from spotmath.traces.replay import (
    GRID_STEP,
    best_fixed_interval,
    bulk_fraction,
    fit_bulk_fraction,
    gang_periods,
    replay,
    replay_local_rate,
    useful_compute,
)
from spotmath.traces.synthetic import synthetic_trace

EC2 = ["p3-trace.csv", "g4dn-trace.csv"]


def test_doctests_of_the_trace_modules_run():
    for module in (spotmath.traces.reading, spotmath.traces.fitting, spotmath.traces.replay):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0, module.__name__


# -- the data: copied unchanged, with its licence --------------------------------------------
def test_copied_traces_match_the_recorded_checksums_and_keep_the_licence(traces_folder):
    readme = (traces_folder / "README.md").read_text()
    recorded = dict((name, digest) for digest, name in
                    re.findall(r"^([0-9a-f]{64})  (\S+)$", readme, flags=re.M))
    assert set(recorded) == {p.name for p in traces_folder.iterdir() if p.is_file()} - {
        "README.md"}
    for name, digest in recorded.items():
        assert hashlib.sha256((traces_folder / name).read_bytes()).hexdigest() == digest, name
    assert "MIT License" in (traces_folder / "LICENSE").read_text()
    # line endings kept as published
    assert b"\r\n" in (traces_folder / "p3-trace.csv").read_bytes()


@pytest.mark.parametrize("name", EC2)
def test_bamboo_traces_read_as_published(name, bamboo, traces_folder):
    trace = read_trace(traces_folder / name)  # the format is detected
    lifetimes, preempted = bamboo.raw_bamboo(name)
    assert len(trace.up) == lifetimes.size and trace.preemptions == preempted.sum()
    assert sorted(trace.lifetimes) == pytest.approx(sorted(lifetimes), abs=1e-12)
    assert trace.node_hours == pytest.approx(lifetimes.sum(), rel=1e-12)
    assert trace.resolution == pytest.approx(1 / 60)
    assert read_trace(traces_folder / name, "bamboo").node_hours == trace.node_hours


def test_documented_format_round_trip_and_row_order(tmp_path):
    trace = synthetic_trace(preemption_rate=0.4, pool_size=6, hours=50, seed=4)
    back = read_trace(write_trace(trace, tmp_path / "t.csv"))
    assert np.array_equal(back.preempted, trace.preempted)
    for field in ("up", "down"):
        assert np.allclose(getattr(back, field), getattr(trace, field), rtol=1e-15, atol=0)
    # Rows in any order give the same trace.
    lines = (tmp_path / "t.csv").read_text().splitlines()
    shuffled = [lines[0]] + list(np.random.default_rng(1).permutation(lines[1:]))
    (tmp_path / "s.csv").write_text("\n".join(shuffled) + "\n")
    again = read_trace(tmp_path / "s.csv")
    assert np.array_equal(np.sort(again.down), np.sort(back.down))
    assert again.preemptions == trace.preemptions


def test_a_node_may_come_up_again_and_open_lifetimes_are_censored(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("time_s,node,event\n0,a,up\n600,a,preempted\n900,a,up\n0,b,up\n"
                    "1200,b,end\n1800,c,up\n3600,c,preempted\n")
    trace = read_trace(path)
    assert trace.node == ("a", "b", "a", "c")
    assert list(trace.lifetimes * 3600) == [600, 1200, 2700, 1800]  # a's second: to 3600 s
    assert list(trace.preempted) == [True, False, False, True]
    assert trace.nodes == 3 and trace.resolution == pytest.approx(1 / 60)


TIME_RANGE = "time must be a number from 0 to 3.6e+09 s (1e+06 hours)"
BAD_TRACES = [
    ("", "t.csv: empty file (expected the header time_s,node,event)"),
    ("time_s,node,event\n", "t.csv: no events after the header"),
    ("0,a,up\n", "t.csv:1: missing header time_s,node,event"),
    ("time_s,node,event\n0,a,up\n60,a,lost\n", "t.csv:3: unknown event 'lost'"),
    ("time_s,node,event\n0,a,up\n60,b,preempted\n",
     "t.csv:3: node 'b' is preempted at 60 s but was not up"),
    ("time_s,node,event\n0,a,up\n60,a,up\n", "t.csv:3: node 'a' is up again at 60 s while "
                                             "already up (since line 2)"),
    ("time_s,node,event\n-5,a,up\n", f"t.csv:2: {TIME_RANGE}, got '-5'"),
    ("time_s,node,event\nsoon,a,up\n", f"t.csv:2: {TIME_RANGE}, got 'soon'"),
    ("time_s,node,event\nnan,a,up\n", f"t.csv:2: {TIME_RANGE}, got 'nan'"),
    ("time_s,node,event\n4e9,a,up\n", f"t.csv:2: {TIME_RANGE}, got '4e9'"),
    ("time_s,node,event\n0,a\n", "t.csv:2: expected 3 fields time_s,node,event, got 2"),
    ("time_s,node,event\n0,,up\n", "t.csv:2: empty node id"),
    ("time_s,node,event\n0,a,up\n30,b,end\n", "t.csv:3: node 'b' ends at 30 s but was "
                                              "not up"),
    ("time_s,node,event\n0.5,a,up\n0.5,a,preempted\n",
     "t.csv:3: node 'a' is preempted at 0.5 s, the time it came up"),
]


@pytest.mark.parametrize("text, message", BAD_TRACES)
def test_bad_traces_get_one_line_naming_file_and_line(text, message, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(InputError) as error:
        read_trace(path)
    assert str(error.value).startswith(message), str(error.value)
    assert "\n" not in str(error.value)


def test_bad_bamboo_rows_and_forced_formats(tmp_path):
    path = tmp_path / "b.csv"
    path.write_text("0,add,node1\n60000,remove,node1\n60000,drop,node2\n")
    with pytest.raises(InputError, match=r"^b.csv:3: unknown event 'drop' \(use add, remove\)"):
        read_trace(path)
    with pytest.raises(InputError, match=r"^b.csv:1: missing header"):
        read_trace(path, "spotmath")
    with pytest.raises(InputError, match=r"^trace_format: must be one of spotmath, bamboo"):
        read_trace(path, "csv")


@pytest.mark.parametrize("rows", [
    ["60,a,preempted", "60,a,up"],  # the order an exporter sorting by time may well use
    ["60,a,up", "60,a,preempted"],
])
def test_rows_at_one_time_are_taken_in_the_order_the_rules_give(rows, tmp_path):
    """At one time, a node that is up ends before it comes up again; a node that is not
    up comes up before it ends (a lifetime of one clock tick, at most)."""
    path = tmp_path / "t.csv"
    path.write_text("\n".join(["time_s,node,event", "0,a,up", *rows, "120,a,end",
                               "180,b,up", "180,b,preempted", "240,b,up", "240,b,end"]) + "\n")
    trace = read_trace(path)
    assert trace.node == ("a", "a", "b", "b")
    assert list(trace.up * 60) == [0, 1, 3, 4] and list(trace.down * 60) == [1, 2, 3, 4]
    assert list(trace.preempted) == [True, False, True, False]
    (tmp_path / "u.csv").write_text(path.read_text().replace("180,b,up\n180,b,preempted",
                                                             "180,b,preempted\n180,b,up"))
    swapped = read_trace(tmp_path / "u.csv")
    assert swapped.node == trace.node and np.array_equal(swapped.down, trace.down)


def test_a_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufefftime_s,node,event\r\n0,a,up\r\n60,a,preempted\r\n".encode())
    trace = read_trace(path)
    assert trace.preemptions == 1 and trace.node_hours == pytest.approx(1 / 60)


def _outcome(read, path, raw):
    """A reader's trace as plain data, or the message it raised."""
    try:
        trace = read(path, raw)
    except InputError as error:
        return str(error)
    if trace is None:
        return None
    return (trace.node, trace.up.tolist(), trace.down.tolist(), trace.preempted.tolist(),
            trace.start, trace.end, trace.resolution)


@settings(max_examples=300)
@given(st.lists(st.tuples(st.sampled_from([0, 60, 120, 180, 90.5, 7200]),
                          st.sampled_from(["a", "b", "c"]),
                          st.sampled_from(["up", "up", "preempted", "end", "gone"])),
                min_size=1, max_size=12),
       st.booleans())
def test_the_numpy_reader_gives_what_the_row_by_row_reader_gives(rows, bamboo):
    """On any small trace, valid or not: the same trace, or (on a problem) no answer, so
    that the row-by-row reader names the line."""
    from spotmath.traces.reading import _read_quickly, _read_slowly

    words = {"up": "add", "preempted": "remove", "end": "end", "gone": "gone"}
    if bamboo:
        lines = [f"{time * 1000:g},{words[event]},{node}" for time, node, event in rows]
    else:
        lines = ["time_s,node,event"] + [f"{time:g},{node},{event}" for time, node, event in rows]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.csv"
        path.write_text("\n".join(lines) + "\n")
        slow = _outcome(lambda p, raw: _read_slowly(p, raw, None), path, path.read_bytes())
        quick = _outcome(lambda p, raw: _read_quickly(p, None), path, None)
    if isinstance(slow, str):
        assert quick is None, (slow, quick)
    else:
        assert quick in (slow, None)
        ties = collections.Counter((time, node) for time, node, _ in rows)
        if max(ties.values()) < 3:  # the only valid files the NumPy reader leaves alone
            assert quick == slow


def test_the_numpy_reader_reads_a_large_trace_as_the_row_by_row_reader(tmp_path):
    from spotmath.traces.reading import _read_quickly, _read_slowly

    trace = synthetic_trace(preemption_rate=0.5, pool_size=30, hours=400, seed=8)
    path = write_trace(trace, tmp_path / "big.csv")
    quick = _outcome(lambda p, raw: _read_quickly(p, None), path, None)
    assert quick is not None
    assert quick == _outcome(lambda p, raw: _read_slowly(p, raw, None), path,
                             path.read_bytes())


def test_a_bad_trace_on_the_command_line_is_one_line_and_exit_2(tmp_path, cli):
    path = tmp_path / "t.csv"
    path.write_text("time_s,node,event\n0,a,up\n60,a,gone\n")
    for command in ("fit", "replay"):
        result = subprocess.run([sys.executable, "-m", "spotmath", command, str(path)],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.splitlines() == [
            f"spotmath {command}: error: t.csv:3: unknown event 'gone' (use up, preempted, end)"]
    result = cli("fit", str(tmp_path / "missing.csv"))
    assert result.returncode == 2 and "missing.csv: cannot read the trace" in result.stderr


# -- the GCP group-size logs -----------------------------------------------------------------
def test_group_size_logs_against_a_parse_here(traces_folder):
    for name in ("v100x1-east1c.txt", "a100x1-east1b.txt"):
        sizes = read_group_sizes(traces_folder / name)
        values = [int(line.rsplit(",", 1)[1])
                  for line in (traces_folder / name).read_text().splitlines()]
        runs = [v for i, v in enumerate(values) if i == 0 or v != values[i - 1]]
        assert list(sizes.sizes) == runs
        assert sizes.losses == sum(max(a - b, 0) for a, b in zip(runs, runs[1:]))
        assert sizes.drops.max() == max(a - b for a, b in zip(runs, runs[1:]))
        assert 0 < sizes.node_hours <= max(runs) * sizes.end


@pytest.mark.parametrize("text, message", [
    ("", "g.txt: empty file"),
    ("2021-12-10, 13:00:00\n", "g.txt:1: expected 3 fields date, time, size, got 2"),
    ("2021-13-10, 13:00:00, 5\n", "g.txt:1: not a date and time"),
    ("2021-12-10, 13:00:00, -5\n", "g.txt:1: size must be a whole number >= 0, got '-5'"),
    ("2021-12-10, 13:00:00, 5\n2021-12-10, 12:00:00, 4\n",
     "g.txt:2: the size changes to 4 at 12:00:00, before the change on line 1"),
])
def test_bad_group_size_logs(text, message, tmp_path):
    (tmp_path / "g.txt").write_text(text)
    with pytest.raises(InputError) as error:
        read_group_sizes(tmp_path / "g.txt")
    assert str(error.value).startswith(message), str(error.value)


# -- fitting ----------------------------------------------------------------------------------
def poisson_interval_by_root_finding(count, exposure):
    """The exact interval from Poisson tail sums, solved here (not the chi-square form)."""
    lower = brentq(lambda lam: stats.poisson.sf(count - 1, lam * exposure) - 0.025,
                   1e-12, 10 * count / exposure + 10)
    upper = brentq(lambda lam: stats.poisson.cdf(count, lam * exposure) - 0.025,
                   1e-12, 10 * count / exposure + 10)
    return lower, upper


@pytest.mark.parametrize("count, exposure", [(1, 3.0), (10, 40.0), (167, 273.1), (5000, 9e3)])
def test_rate_interval_equals_poisson_tail_sums(count, exposure):
    assert rate_interval(count, exposure) == pytest.approx(
        poisson_interval_by_root_finding(count, exposure), rel=1e-8)
    assert rate_interval(0, 5.0) == (0.0, pytest.approx(-math.log(0.025) / 5.0, rel=1e-12))


def typed_loglik(shape, scale, lifetimes, preempted):
    """Censored Weibull log-likelihood, typed here: log f for complete, log S for censored."""
    z = (lifetimes / scale) ** shape
    return float(np.sum(np.log(shape / scale) + (shape - 1) * np.log(lifetimes[preempted] / scale))
                 - np.sum(z))


@pytest.mark.parametrize("name", EC2)
def test_weibull_fit_of_the_published_traces_against_scipy(name, bamboo):
    lifetimes, preempted = bamboo.raw_bamboo(name)
    fit = fit_weibull(lifetimes, preempted)
    shape, scale = bamboo.scipy_weibull(lifetimes, preempted)
    assert fit.shape == pytest.approx(shape, rel=1e-4)
    assert fit.scale_h == pytest.approx(scale, rel=1e-4)
    # the profile interval: at each end the best log-likelihood over the scale (maximised
    # here numerically) is 1.92 below the maximum
    top = typed_loglik(fit.shape, fit.scale_h, lifetimes, preempted)
    for end in fit.shape_ci95:
        best = minimize_scalar(lambda s: -typed_loglik(end, math.exp(s), lifetimes, preempted),
                               bounds=(-5, 5), method="bounded", options={"xatol": 1e-10})
        assert top + best.fun == pytest.approx(stats.chi2.ppf(0.95, 1) / 2, abs=1e-6)
    # the test of k = 1 against the exponential fit written out here
    rate = preempted.sum() / lifetimes.sum()
    exponential = preempted.sum() * math.log(rate) - rate * lifetimes.sum()
    assert fit.p_value_poisson == pytest.approx(
        stats.chi2.sf(2 * (top - exponential), 1), rel=1e-6)


@pytest.mark.parametrize("shape", [0.5, 1.0, 2.5])
def test_weibull_fit_against_a_direct_two_parameter_maximisation(shape):
    trace = synthetic_trace(preemption_rate=0.3, pool_size=12, hours=300,
                            weibull_shape=shape, seed=8)
    fit = fit_weibull(trace.lifetimes, trace.preempted)
    lifetimes, preempted = trace.lifetimes, trace.preempted
    best = minimize(lambda p: -typed_loglik(math.exp(p[0]), math.exp(p[1]), lifetimes,
                                            preempted),
                    x0=[0.0, 1.0], method="Nelder-Mead",
                    options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
    assert fit.shape == pytest.approx(math.exp(best.x[0]), rel=1e-5)
    assert fit.scale_h == pytest.approx(math.exp(best.x[1]), rel=1e-5)
    assert fit.shape_ci95[0] < shape < fit.shape_ci95[1]


def test_intervals_cover_the_truth_95_percent_of_the_time():
    """Coverage by simulation: 300 small synthetic traces with known λ and k."""
    rate_hits = shape_hits = 0
    repeats = 300
    for seed in range(repeats):
        trace = synthetic_trace(preemption_rate=0.5, pool_size=8, hours=15,
                                weibull_shape=0.7, seed=1000 + seed)
        fit = fit_weibull(trace.lifetimes, trace.preempted)
        shape_hits += fit.shape_ci95[0] <= 0.7 <= fit.shape_ci95[1]
        poisson = synthetic_trace(preemption_rate=0.5, pool_size=8, hours=15, seed=5000 + seed)
        low, high = rate_interval(poisson.preemptions, poisson.node_hours)
        rate_hits += low <= 0.5 <= high
    # three and a half binomial standard errors around 95%, a little more on the
    # conservative side for the exact (Garwood) interval
    spread = 3.5 * math.sqrt(0.95 * 0.05 / repeats)
    assert 0.95 - spread <= shape_hits / repeats <= 0.95 + spread
    assert 0.95 - spread <= rate_hits / repeats <= 0.995


def test_fit_recovers_shapes_and_rejects_poisson_only_when_it_should():
    bursty = fit_trace(synthetic_trace(preemption_rate=0.5, pool_size=20, hours=200,
                                       weibull_shape=0.6, seed=3))
    assert bursty.weibull_shape_ci95[0] < 0.6 < bursty.weibull_shape_ci95[1]
    assert bursty.weibull_shape_p_value < 1e-6
    poisson = fit_trace(synthetic_trace(preemption_rate=0.5, pool_size=20, hours=200, seed=3))
    low, high = poisson.preemption_rate_ci95
    assert low < 0.5 < high and poisson.weibull_shape_ci95[0] < 1 < poisson.weibull_shape_ci95[1]
    assert poisson.mtbf_ci95_h == pytest.approx((1 / high, 1 / low))


def test_kaplan_meier_against_scipy():
    trace = synthetic_trace(preemption_rate=0.5, pool_size=10, hours=30, weibull_shape=0.8,
                            seed=2)
    times, survival = survival_curve(trace.lifetimes, trace.preempted)
    data = stats.CensoredData(uncensored=trace.lifetimes[trace.preempted],
                              right=trace.lifetimes[~trace.preempted])
    assert survival == pytest.approx(stats.ecdf(data).sf.evaluate(times), abs=1e-12)


def tick_trace(rows):
    """A trace from (up, down, preempted) rows given in minutes, on a one-minute clock."""
    rows = np.array(rows, dtype=float)
    return sm.traces.Trace("t", tuple(f"n{i}" for i in range(len(rows))), rows[:, 0] / 60,
                           rows[:, 1] / 60, rows[:, 2].astype(bool), 0.0,
                           float(rows[:, 1].max()) / 60, 1 / 60)


def test_co_preemption_by_hand():
    # Preemptions at minutes 10, 11 and 30: the first two are within a minute.
    trace = tick_trace([[0, 10, 1], [0, 11, 1], [0, 30, 1], [0, 40, 0]])
    observed, independent = co_preemption(trace, 1 / 60)
    assert observed == pytest.approx(2 / 3)
    rate = 3 / ((10 + 11 + 30 + 40) / 60)
    # With a one-minute tick, events recorded within one minute of the preemption at 10
    # happened at true times in [9, 12): the others are up 2 + 3 + 3 minutes there; for
    # the one at 11, [10, 13): 0 + 3 + 3; for the one at 30, [29, 32): only the last, 3.
    exposures = {10: 2 + 3 + 3, 11: 0 + 3 + 3, 30: 3}  # minutes of other instances
    expected = np.mean([1 - math.exp(-rate * minutes / 60) for minutes in exposures.values()])
    assert independent == pytest.approx(expected, rel=1e-12)
    assert co_preemption(tick_trace([[0, 10, 0]]), 1 / 60) == (None, None)


def test_co_preemption_poisson_matches_independence_and_bulk_exceeds_it():
    poisson = fit_trace(synthetic_trace(preemption_rate=0.5, pool_size=30, hours=300, seed=6),
                        "2min")
    error = math.sqrt(0.25 / poisson.preemptions) * 3  # generous: events are not independent
    assert abs(poisson.co_preemption_share - poisson.co_preemption_share_independent) < error
    # Half the preemptions come in bulk (all 30 at once): with a short window, where few
    # would meet by chance, more than half have a companion.
    bulk = fit_trace(synthetic_trace(preemption_rate=0.5, pool_size=30, hours=300,
                                     bulk_fraction=0.5, seed=6), "10s")
    assert bulk.co_preemption_share > 0.5 > 0.1 > bulk.co_preemption_share_independent
    # the verdict's statistic: the excess in binomial standard errors, computed here
    for fit in (poisson, bulk):
        q = fit.co_preemption_share_independent
        assert fit.co_preemption_z == pytest.approx(
            (fit.co_preemption_share - q) / math.sqrt(q * (1 - q) / fit.preemptions))
    assert bulk.co_preemption_z > 3 > abs(poisson.co_preemption_z)


def test_a_fits_hazard_is_what_its_shape_interval_says():
    """Weibull pools drawn with k = 1/2, 1 and 2: falling, constant, rising."""
    for shape, hazard in ((0.5, "falling"), (1.0, "constant"), (2.0, "rising")):
        fit = fit_trace(synthetic_trace(preemption_rate=0.5, pool_size=30, hours=300,
                                        weibull_shape=shape, seed=7))
        low, high = fit.weibull_shape_ci95
        assert fit.hazard == hazard, (shape, low, high)
        assert (low <= 1 <= high) == (hazard == "constant")


def test_fit_refuses_a_trace_without_preemptions(tmp_path, traces_folder):
    path = tmp_path / "quiet.csv"
    path.write_text("time_s,node,event\n0,a,up\n3600,a,end\n")
    with pytest.raises(InputError, match=r"^quiet.csv: no preemptions in 1 node-hours"):
        fit_trace(read_trace(path))
    with pytest.raises(InputError, match=r"^window: must be a duration > 0"):
        fit_trace(read_trace(traces_folder / "p3-trace.csv"), "-1min")


def test_preemptions_needed_against_gamma_quantiles():
    rate, cost = 0.25, 1 / 60

    def spread(count):  # the interval's ends from gamma quantiles, optimum by minimiser
        low = stats.gamma.ppf(0.025, count) / (count / rate)
        high = stats.gamma.ppf(0.975, count + 1) / (count / rate)

        def optimum(lam):
            return minimize_scalar(
                lambda t: math.expm1(lam * (t + cost)) / t if t > 0 else math.inf,
                bounds=(1e-4, 50 / lam), method="bounded", options={"xatol": 1e-12}).x
        middle = optimum(rate)
        return max(optimum(low) / middle - 1, 1 - optimum(high) / middle)

    needed = preemptions_needed(rate, cost)
    assert spread(needed) <= 0.1 + 1e-6 and spread(needed - 1) > 0.1 - 1e-6


# -- replay -----------------------------------------------------------------------------------
def test_replay_of_a_hand_worked_trace(tmp_path, cli):
    # Lifetimes of 6, 60, 150 and 42 minutes (all preempted) and one censored; T = 30 min,
    # C = 6 min, R = 12 min.  Useful: 0 (shorter than R), 30 (48 min → one segment of 36),
    # 90 (138 → three), 0 (30 < 36).  Paid: 258 minutes.
    path = tmp_path / "hand.csv"
    path.write_text("time_s,node,event\n0,a,up\n360,a,preempted\n0,b,up\n3600,b,preempted\n"
                    "0,c,up\n9000,c,preempted\n0,d,up\n2520,d,preempted\n0,e,up\n9000,e,end\n")
    result = replay(read_trace(path), "30min", "6min", "12min")
    assert result.lifetimes_used == 4 and result.censored == 1
    assert result.paid_hours == pytest.approx(258 / 60)
    assert result.useful_hours == pytest.approx(120 / 60)
    assert result.waste == pytest.approx(1 - 120 / 258)
    assert result.poisson_waste == pytest.approx(sm.waste_fraction(
        4 / ((6 + 60 + 150 + 42 + 150) / 60), 0.5, 0.1, 0.2))
    cli = json.loads(cli("replay", str(path), "--interval", "30min", "--checkpoint", "6min",
                         "--restart", "12min", "--json").stdout)
    assert cli["waste"] == result.waste and cli["lifetimes_used"] == 4
    assert {"waste", "lifetimes_used", "censored", "paid_hours", "useful_hours",
            "poisson_waste"} <= set(cli)


def test_a_write_ending_at_the_preemption_counts():
    # 10 min restart + 20 min compute + 1 min write = 31 min exactly, on the minute clock
    assert useful_compute(np.array([31 / 60]), 20 / 60, 1 / 60, 10 / 60)[0] == \
        pytest.approx(20 / 60)
    assert useful_compute(np.array([30 / 60]), 20 / 60, 1 / 60, 10 / 60)[0] == 0


@pytest.mark.parametrize("interval, cost, restart", [
    (0.5, 1 / 60, 1 / 6), (2.0, 0.1, 0.5), (0.1, 0.0, 0.0)])
def test_replayed_poisson_trace_matches_the_exact_model(interval, cost, restart):
    """The replay engine's main check: Poisson lifetimes give the exact model's waste."""
    trace = synthetic_trace(preemption_rate=0.25, pool_size=100, hours=2000, seed=9)
    result = replay(trace, interval, cost, restart)
    assert abs(result.waste - result.poisson_waste) < 4 * result.waste_standard_error
    assert result.waste_standard_error < 0.01


def test_the_waste_standard_error_matches_the_spread_across_traces():
    wastes, errors = [], []
    for seed in range(40):
        trace = synthetic_trace(preemption_rate=0.5, pool_size=10, hours=100, seed=300 + seed)
        result = replay(trace, 0.5, 1 / 60, 1 / 6)
        wastes.append(result.waste)
        errors.append(result.waste_standard_error)
    assert np.std(wastes, ddof=1) == pytest.approx(np.mean(errors), rel=0.3)


def test_local_rate_schedule_with_shape_one_is_young_fixed_interval():
    trace = synthetic_trace(preemption_rate=0.5, pool_size=20, hours=200, seed=12)
    cost, restart = 1 / 60, 1 / 6
    local = replay_local_rate(trace, 1.0, 2.0, cost, restart)
    fixed = replay(trace, math.sqrt(2 * cost * 2.0), cost, restart)  # Young at λ = 1/σ
    assert local.useful_hours == pytest.approx(fixed.useful_hours, rel=1e-9)
    assert local.interval_h is None and local.poisson_waste is None


def test_local_rate_schedule_beats_young_on_bursty_lifetimes():
    """With k = 0.5 the hazard falls fast: short intervals early, long ones later."""
    trace = synthetic_trace(preemption_rate=0.5, pool_size=200, hours=400,
                            weibull_shape=0.5, seed=13)
    fit = fit_weibull(trace.lifetimes, trace.preempted)
    cost, restart = 1 / 60, 1 / 6
    local = replay_local_rate(trace, fit.shape, fit.scale_h, cost, restart)
    young = replay(trace, sm.young_interval(trace.preemptions / trace.node_hours, cost), cost,
                   restart)
    assert local.waste < young.waste - 3 * young.waste_standard_error
    assert local.waste < best_fixed_interval(trace, cost, restart)[1]  # every fixed interval


def test_local_rate_schedule_without_a_restart_when_the_hazard_starts_at_zero():
    """k > 1 and R = 0: h(0) = 0, so the first interval is the τ₀ with √(2C/h(τ₀)) = τ₀,
    found here by a root finder on the hazard; the replay saves exactly what a schedule
    starting with τ₀ and then following √(2C/h(a)) saves (a plain loop, typed here)."""
    from scipy.optimize import brentq

    shape, scale, cost = 2.0, 1.0, 1 / 60

    def hazard(age):
        return shape / scale * (age / scale) ** (shape - 1)

    first = brentq(lambda tau: tau - math.sqrt(2 * cost / hazard(tau)), 1e-9, 100)
    lifetimes = np.array([0.5, 1.0, 2.0, 3.0])
    trace = Trace(name="hand", node=("a", "b", "c", "d"), up=np.zeros(4), down=lifetimes,
                  preempted=np.ones(4, dtype=bool), start=0.0, end=3.0, resolution=0.0)
    result = replay_local_rate(trace, shape, scale, cost, 0.0)
    useful = 0.0
    for life in lifetimes:
        age, step = 0.0, first
        while age + step + cost <= life:
            useful += step
            age += step + cost
            step = math.sqrt(2 * cost / hazard(age))
    assert result.useful_hours == pytest.approx(useful, rel=1e-12)
    assert result.useful_hours > 0


def test_best_fixed_interval_against_every_candidate():
    """The useful work T·Σ⌊u/(T + C)⌋ peaks where some T + C = u/j: brute force over them."""
    trace = synthetic_trace(preemption_rate=1.0, pool_size=6, hours=20, seed=21)
    cost, restart = 1 / 30, 1 / 12
    running = np.clip(trace.lifetimes[trace.preempted] - restart, 0, None)
    candidates = np.unique([u / j - cost for u in running for j in range(1, 400)
                            if u / j - cost > 0])
    useful = [t * np.floor(running / (t + cost) + 1e-9).sum() for t in candidates]
    exact_best = max(useful)
    interval, waste = best_fixed_interval(trace, cost, restart)
    found = (1 - waste) * trace.lifetimes[trace.preempted].sum()
    assert exact_best * (1 - GRID_STEP) - 1e-12 <= found <= exact_best + 1e-12
    assert replay(trace, interval, cost, restart).waste == pytest.approx(waste, rel=1e-12)


def test_useful_work_by_counting_equals_the_direct_sum():
    """Σ T·⌊u/(T + C) + ε⌋ found by binary searches over the sorted running times is the
    direct sum over every u, count for count, on clock-tick times and exact divisors."""
    from spotmath.traces.replay import _EDGE, _useful_at

    rng = np.random.default_rng(5)
    for seed in range(25):
        trace = synthetic_trace(preemption_rate=float(rng.uniform(0.1, 3)),
                                pool_size=int(rng.integers(1, 40)),
                                hours=float(rng.uniform(5, 200)), seed=seed)
        running = np.round(np.clip(trace.lifetimes[trace.preempted]
                                   - rng.uniform(0, 0.3), 0, None) * 60) / 60
        cost = float(rng.choice([1 / 60, 0.5 / 60, 0.05]))
        grid = np.geomspace(0.001, max(running.max(), 0.01), 200)
        grid = np.r_[grid, running[running > cost][:20] / 3 - cost]
        grid = grid[grid > 0]
        direct = [t * np.floor(running / (t + cost) + _EDGE).sum() for t in grid]
        assert np.array_equal(_useful_at(grid, running, cost), direct), seed


def test_when_no_lifetime_outlasts_a_restart_no_interval_is_best(tmp_path, cli):
    path = tmp_path / "short.csv"
    path.write_text("time_s,node,event\n0,a,up\n300,a,preempted\n0,b,up\n420,b,preempted\n")
    trace = read_trace(path)
    assert best_fixed_interval(trace, 1 / 60, 1 / 6) == (None, 1.0)  # 5 and 7 min < R + C
    result = cli("replay", str(path), "--scan")
    assert result.returncode == 0
    assert "none: no lifetime outlasts the restart and one write" in result.stdout
    values = json.loads(cli("replay", str(path), "--scan", "--json").stdout)
    assert values["best_interval_h"] is None and values["best_waste"] == 1.0


def test_a_trace_too_small_for_a_shape_still_gives_its_rate(tmp_path, cli):
    """One preemption: the rate and its exact interval exist, the shape does not; two at
    the same age: the message says so; lifetimes of no length: no rate at all."""
    one = tmp_path / "one.csv"
    one.write_text("time_s,node,event\n0,a,up\n3600,a,preempted\n0,b,up\n7200,b,end\n")
    fit = fit_trace(read_trace(one))
    assert fit.preemption_rate == pytest.approx(1 / 3)
    assert fit.preemption_rate_ci95 == pytest.approx(rate_interval(1, 3.0))
    assert fit.weibull_shape is None and fit.weibull_shape_ci95 is None
    assert fit.weibull_note.startswith("1 preemption (a Weibull shape needs at least 2")
    text = cli("fit", str(one))
    assert text.returncode == 0 and "Weibull shape k       not fitted: 1 preemption" \
        in text.stdout and "the plan at the fitted rate" in text.stdout
    values = json.loads(cli("fit", str(one), "--json").stdout)
    assert values["weibull_shape"] is None and values["plan"]["exact_interval_h"] > 0
    same = tmp_path / "same.csv"
    same.write_text("time_s,node,event\n0,a,up\n3600,a,preempted\n0,b,up\n"
                    "3600,b,preempted\n")
    assert "the 2 preemptions all came at the same age, 1 h" in \
        fit_trace(read_trace(same)).weibull_note
    empty = tmp_path / "zero.csv"
    empty.write_text("time_s,node,event\n0,a,up\n0,a,preempted\n60,b,up\n60,b,preempted\n")
    for command in ("fit", "replay"):
        result = cli(command, str(empty))
        assert result.returncode == 2 and result.stderr.splitlines() == [
            f"spotmath {command}: error: zero.csv: its 2 lifetimes add up to 0 hours (every "
            "instance ended on the clock tick it came up): there is no rate to fit"]


# -- gangs --------------------------------------------------------------------------------------
def test_gang_rules_on_a_hand_worked_pool():
    # minutes: a 0-30 preempted, b 0-50 preempted, c 10-90 censored, d 40-90 censored,
    # e 55-60 preempted.
    pool = tick_trace([[0, 30, 1], [0, 50, 1], [10, 90, 0], [40, 90, 0], [55, 60, 1]])
    periods = gang_periods(pool, 2)
    # a+b (longest up) until a goes at 30; b+c until b goes at 50; c+d until the end (40
    # minutes, censored).  e is never needed.
    assert list(periods.lengths * 60) == pytest.approx([30, 20, 40])
    assert list(periods.interrupted) == [True, True, False]
    assert list(periods.lost) == [1, 1, 0] and periods.waiting_hours == 0
    three = gang_periods(pool, 3)
    # a, b, c from 10 to 30; then b, c, d from 40 (10 minutes waiting) to 50; then c, d, e
    # from 55 (5 minutes waiting) to 60; then c, d alone until the end (30 minutes).
    assert list(three.lengths * 60) == pytest.approx([20, 10, 5])
    assert three.waiting_hours * 60 == pytest.approx(10 + 10 + 5 + 30)
    with pytest.raises(InputError, match=r"^gang_size: t never has 6 instances up at once "
                       r"\(at most 3\)"):
        replay(pool, 0.5, 1 / 60, 1 / 6, gang_size=6)


def test_replay_names_the_option_typed_and_what_fits(cli, traces_folder):
    """#53-9: `replay TRACE --gang-size 200` said ``gang_size:``; it names --gang-size and
    the most instances the pool ever had up at once (32 on p3-trace.csv, counted here)."""
    trace = read_trace(traces_folder / "p3-trace.csv")
    events = sorted([(t, -1) for t in trace.up] + [(t, 1) for t in trace.down])
    up = most = 0
    for _, step in events:  # at equal times ups first, as Trace.most_up counts
        up -= step
        most = max(most, up)
    assert most == 32 == trace.most_up
    for extra in ([], ["--scan"]):
        done = cli("replay", str(traces_folder / "p3-trace.csv"), "--gang-size", "200", *extra)
        assert done.returncode == 2 and done.stderr == (
            "spotmath replay: error: --gang-size: p3-trace.csv never has 200 instances up at "
            "once (at most 32)\n")
    helped = cli("fit", "--help")  # #53-11: a description is not %-formatted
    assert "95% interval" in helped.stdout and "%%" not in helped.stdout


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_gangs_on_synthetic_pools_are_hit_at_the_bulk_gang_rate(rho):
    rate = 0.25
    trace = synthetic_trace(preemption_rate=rate, pool_size=32, hours=3000,
                            bulk_fraction=rho, seed=31)
    gangs = []
    for size in (2, 4, 8, 16):
        result = replay(trace, 0.5, 1 / 60, 1 / 6, gang_size=size)
        low, high = result.gang_rate_ci95
        assert low < (size * (1 - rho) + rho) * rate < high, size  # typed, not generated
        assert result.waiting_hours == 0
        gangs.append((size, result.interruptions, result.held_hours))
    fitted = fit_bulk_fraction(trace.preemptions / trace.node_hours, gangs)
    assert fitted == pytest.approx(rho, abs=0.06)
    assert bulk_fraction(rate, 8, (8 * (1 - rho) + rho) * rate) == pytest.approx(rho, abs=1e-12)


def test_gang_replay_of_the_published_pools_is_slower_than_n_lambda(traces_folder):
    """What the chapter states: the largest gangs are hit less often than Nλ."""
    for name in EC2:
        trace = read_trace(traces_folder / name)
        result = replay(trace, 0.1, 1 / 60, 1 / 6, gang_size=8)
        assert result.gang_rate_ci95[1] < result.model_rate
        assert result.gang_rate_against_model == "below"
        assert result.instances_per_interruption > 1


def test_a_replays_gap_to_the_model_in_standard_errors():
    """z is (replayed − model)/s.e.; a gang's rate is 'about' Nλ where its interval holds
    it; a single node has no gang verdict."""
    trace = synthetic_trace(preemption_rate=0.25, pool_size=32, hours=3000, seed=31)
    single = replay(trace, 0.5, 1 / 60, 1 / 6)
    assert single.model_gap_z == pytest.approx(
        (single.waste - single.poisson_waste) / single.waste_standard_error)
    assert abs(single.model_gap_z) < 4  # Poisson lifetimes: the model holds
    assert single.gang_rate_against_model is None
    gang = replay(trace, 0.5, 1 / 60, 1 / 6, gang_size=4)
    low, high = gang.gang_rate_ci95
    assert low < gang.model_rate < high and gang.gang_rate_against_model == "about"


def test_cli_fit_and_replay_json(tmp_path, cli, traces_folder):
    path = str(traces_folder / "p3-trace.csv")
    fit = json.loads(cli("fit", path, "--json").stdout)
    for key in ("nodes", "preemptions", "censored", "node_hours", "preemption_rate",
                "preemption_rate_ci95", "mtbf_h", "weibull_shape", "weibull_shape_ci95",
                "weibull_scale_h", "co_preemption_share", "co_preemption_share_independent",
                "window_s"):
        assert key in fit, key
    assert fit["preemptions"] == 167 and fit["window_s"] == 60
    plan = json.loads(cli("plan", "--rate", repr(fit["preemption_rate"]), "--json").stdout)
    assert fit["plan"] == plan
    low, high = fit["interval_at_rate_ci95_h"]
    assert low < plan["recommended_interval_h"] < high
    text = cli("fit", path, "--window", "2min")
    assert text.returncode == 0 and "co-preemption (120 s)" in text.stdout
    scan = json.loads(cli("replay", path, "--scan", "--json").stdout)
    assert scan["interval_h"] == pytest.approx(plan["exact_interval_h"], rel=1e-12)
    assert {"best_interval_h", "best_waste", "model_interval_h"} <= set(scan)
    assert scan["best_waste"] <= scan["model_interval_waste"]
    gang = json.loads(cli("replay", path, "--gang-size", "4", "--json").stdout)
    assert gang["gang_size"] == 4
    assert gang["model_rate"] == pytest.approx(4 * fit["preemption_rate"])
    bad = cli("replay", path, "--gang-size", "0")
    assert bad.returncode == 2 and bad.stderr.startswith("spotmath replay: error: --gang-size:")


def test_a_replayed_window_is_the_replay_lifetime_by_lifetime(traces_folder):
    """The window's segments are the single-node replay's: each lifetime inside it has
    T·⌊(L − R)/(T + C)⌋ of compute, typed here, a restart of R, and ends in lost work
    where it was preempted; the rows are the first instances up."""
    import math

    from spotmath.traces import read_trace
    from spotmath.traces.replay import replayed_window

    trace = read_trace(traces_folder / "p3-trace.csv")
    T, C, R = 0.5, 1 / 60, 1 / 6
    window = replayed_window(trace, T, C, R, hours=6, instances=8)
    assert len(window.names) == 8
    for name, row, hits in zip(window.names, window.rows, window.preemptions):
        (index,) = [i for i, node in enumerate(trace.node) if node == name]
        up, down = trace.up[index] - trace.start, trace.down[index] - trace.start
        if down <= 6:
            compute = sum(s.end - s.start for s in row if s.kind == "compute")
            assert compute == pytest.approx(T * math.floor((down - up - R) / (T + C) + 1e-9))
            assert row[0].kind == "restart" and row[0].end - row[0].start == pytest.approx(R)
            assert row[-1].end == pytest.approx(down)
            if trace.preempted[index]:
                assert row[-1].kind in ("lost", "checkpoint") and hits == (pytest.approx(down),)
        assert all(a.end <= b.start + 1e-12 for a, b in zip(row, row[1:]))


# -- availability in spells shaped like a published zone's -------------------------------

def test_a_weibull_shape_is_found_from_its_median_over_its_mean():
    import math

    from spotmath.traces.synthetic import weibull_shape_from

    for shape in (0.4, 0.6, 1.0, 2.5):
        mean, median = math.gamma(1 + 1 / shape), math.log(2) ** (1 / shape)
        assert weibull_shape_from(mean, median) == pytest.approx(shape, rel=1e-9)
    with pytest.raises(InputError, match="^median: 2 over the mean 1 must be"):
        weibull_shape_from(1, 2)


def test_spells_drawn_for_a_zone_have_its_means_and_medians():
    """Spells counted back from the drawn ticks (those completed inside the trace) have
    the zone's means and medians, within what rounding to ticks and sampling allow."""
    import itertools

    from spotmath.traces.synthetic import ZONES, spell_availability

    tick = 195 / 3600
    for zone in ("us-east-1a", "us-west-2b"):
        trace = spell_availability(ZONES[zone], 20_000, tick, seed=3, name=zone)
        runs = [(key, len(list(group))) for key, group in itertools.groupby(trace.spot())]
        for kind, (mean, median) in zip((True, False), np.reshape(ZONES[zone], (2, 2))):
            hours = np.array([n for key, n in runs[1:-1] if key == kind]) * tick
            assert hours.mean() == pytest.approx(mean, rel=0.12), (zone, kind)
            assert np.median(hours) == pytest.approx(median, rel=0.15, abs=tick), (zone, kind)
        share = ZONES[zone][0] / (ZONES[zone][0] + ZONES[zone][2])
        assert trace.spot().mean() == pytest.approx(share, abs=0.04)


@pytest.mark.parametrize("command", [["fit"], ["replay", "--interval", "1h"]])
def test_a_device_or_folder_is_refused_before_it_is_read(cli, tmp_path, command):
    """/dev/zero was read until memory ran out; a folder said only 'Is a directory'."""
    for path, name in (("/dev/zero", "zero"), (str(tmp_path), tmp_path.name)):
        done = cli(*command, path)
        assert done.returncode == 2, done.stdout
        assert done.stderr.count("\n") == 1
        assert f"error: {name}: not a regular file" in done.stderr, done.stderr


def test_a_trace_of_lives_is_the_trace_its_file_reads_as(tmp_path):
    """trace_of_lives against read_trace on the same rows written by hand: the same
    lifetimes, ends and censoring; a kill count that fits no launches is refused."""
    from spotmath.traces.reading import read_trace, trace_of_lives

    path = tmp_path / "lives.csv"
    path.write_text("time_s,node,event\n0.0,run,up\n30.5,run,preempted\n40.0,run,up\n"
                    "90.25,run,preempted\n100.0,run,up\n")
    by_hand, built = read_trace(path), trace_of_lives([0.0, 40.0, 100.0], [30.5, 90.25])
    for field in ("up", "down", "preempted"):
        assert np.array_equal(getattr(by_hand, field), getattr(built, field)), field
    assert (by_hand.start, by_hand.end, by_hand.resolution) == \
        (built.start, built.end, built.resolution)
    assert built.preemptions == 2 and built.censored == 1
    with pytest.raises(InputError, match=r"^lives\.csv: 3 kills for 1 launches"):
        trace_of_lives([0.0], [1.0, 2.0, 3.0])
