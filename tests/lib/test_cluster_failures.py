"""Hardware failures of a gang in a shared pool: each loses what was not written and
starts the gang again in its place.  The closed form against the book's exact model where
the gang is never preempted, against a search over intervals, and against the event
simulator, which draws the failures spell by spell."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.optimize
import scipy.stats

import spotmath as sm
from spotmath.model.cluster import GPU_FAILURE_MTBF_H, SharedPool, gang_in_pool
from spotmath.model.cluster_renewal import best_interval, kept_share, ranks
from spotmath.model.simulate_cluster import simulate_pool

MINUTE, SECOND = 1 / 60, 1 / 3600
ROOT = Path(__file__).resolve().parents[2]


def test_the_default_failure_rate_is_llama_3s_published_figures():
    with open(ROOT / "book" / "data" / "published_figures.csv", newline="") as handle:
        figures = {row["name"]: float(row["value"]) for row in csv.DictReader(handle)}
    gpu_hours = figures["llama3_gpus"] * figures["llama3_window_days"] * 24
    assert GPU_FAILURE_MTBF_H == pytest.approx(gpu_hours / figures["llama3_unexpected"],
                                               rel=1e-12)


def test_a_gang_never_preempted_is_the_books_exact_model_at_its_failure_rate():
    """Only failures end its segments: the exact renewal model at N·f, whose optimum a
    numeric search over the exact waste finds too."""
    pool = SharedPool.checked(68, 2.0, 2.0, 8)
    gang = gang_in_pool(pool, 4)
    assert gang.never_preempted
    failures = 4 * 0.05
    interval, kept = best_interval(pool, gang, MINUTE, 0.1, 0.0, failures)
    found = scipy.optimize.minimize_scalar(
        lambda t: float(sm.waste_fraction(failures, t, MINUTE, 0.1)), bounds=(0.01, 5),
        method="bounded", options={"xatol": 1e-10})
    assert interval == pytest.approx(found.x, rel=1e-4)
    assert 1 - kept == pytest.approx(found.fun, rel=1e-9)


def test_without_failures_the_closed_form_is_the_one_without_them():
    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    gang = gang_in_pool(pool, 16)
    for interval, grace in ((0.4, 0.0), (0.4, 2 * MINUTE), (math.inf, 2 * MINUTE)):
        law = sm.model.cluster.up_time_law(pool, gang.star)
        with_none = law.kept(0.1, interval, MINUTE, grace, 0.0)
        if grace == 0:
            expected = interval * law.survival_sum(0.1 + interval + MINUTE, interval + MINUTE)
        else:
            expected = law.integral_sum(0.1, interval, interval + MINUTE)
        assert with_none == pytest.approx(expected, rel=1e-12)


def test_a_notice_does_not_cover_failures():
    """With a grace that fits a write and no failures, no periodic write is best; with
    failures a periodic one is, and it beats every interval of a grid."""
    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    gang = gang_in_pool(pool, 16)
    assert best_interval(pool, gang, MINUTE, 0.1, 2 * MINUTE)[0] == math.inf
    interval, kept = best_interval(pool, gang, MINUTE, 0.1, 2 * MINUTE, 0.5)
    assert math.isfinite(interval)
    grid = np.geomspace(interval / 4, interval * 4, 201)
    shares = [kept_share(pool, gang, t, MINUTE, 0.1, 2 * MINUTE, 0.5) for t in grid]
    assert kept >= max(shares) - 1e-12
    assert kept > kept_share(pool, gang, math.inf, MINUTE, 0.1, 2 * MINUTE, 0.5)


#: (interval, grace, failures per GPU-hour): no notice, a notice, notice only.
CASES = [(0.4, 0.0, 0.02), (0.4, 2 * MINUTE, 0.02), (math.inf, 2 * MINUTE, 0.01)]
#: Bonferroni over the comparisons with the simulator (1% in all).
Z = scipy.stats.norm.ppf(1 - 0.01 / (2 * len(CASES)))


@pytest.mark.parametrize("case", CASES)
def test_the_simulator_fails_gangs_as_the_closed_form_says(case):
    interval, grace, per_gpu = case
    pool = SharedPool.checked(64, 2.0, 2.0, 8)
    gang = gang_in_pool(pool, 16)
    expected = kept_share(pool, gang, interval, MINUTE, 0.1, grace, 16 * per_gpu)
    runs = np.array([1 - simulate_pool(pool, [16], hours=4000, interval=interval,
                                       checkpoint_cost=MINUTE, startup=0.1, grace=grace,
                                       failures=per_gpu, seed=seed).waste()
                     for seed in range(12)])
    se = runs.std(ddof=1) / math.sqrt(runs.size)
    assert abs(runs.mean() - expected) <= Z * se
    assert expected < kept_share(pool, gang, interval, MINUTE, 0.1, grace)  # they cost


def test_every_rank_fails_at_its_own_gangs_rate(cli):
    pool = SharedPool.checked(256, 8.0, 2.0, 8, "queue")
    every = ranks(pool, 32, MINUTE, 0.1, 30 * SECOND, failures=1e-4)
    for rank in every:
        if rank.interval is not None:
            assert (rank.interval, rank.kept) == best_interval(
                pool, rank.gang, MINUTE, 0.1, 30 * SECOND, 32e-4)
    values = json.loads(cli("cluster", "--gpus", "256", "--hp-rate", "8/h", "--hp-hold",
                            "2h", "--hp-gpus", "8", "--gang-size", "32", "--restart", "6min",
                            "--failure-mtbf", "10000h", "--json").stdout)
    assert values["gang_failures_per_up_hour"] == pytest.approx(32 / 10_000)
    assert [rank["waste"] for rank in values["gangs"]] == [1 - rank.kept for rank in every]
