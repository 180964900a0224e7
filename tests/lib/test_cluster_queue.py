"""Requests kept waiting in line (the M/M/K chain), as Kueue and Slurm keep pending work:
the derivations against the chain's generator solved as a matrix, both against the event
simulator, and the command's choice of dropping or queueing."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.linalg
import scipy.stats
import sympy as sp

from spotmath.inputs import InputError
from spotmath.model import derivations as D
from spotmath.model.cluster import SharedPool, gang_in_pool, up_time_law
from spotmath.model.cluster_renewal import best_interval
from spotmath.model.pool_choice import one_pool_or_two, start_delays
from spotmath.model.simulate_cluster import simulate_pool

MINUTE, SECOND = 1 / 60, 1 / 3600

#: (G, α, h, g, N): a load near the places, a light one, g = 1, N not a multiple of g.
SETTINGS = [(64, 3.0, 2.0, 8, 16), (32, 12.0, 2.0, 1, 5), (48, 3.0, 3.0, 4, 10),
            (24, 8.0, 1.0, 2, 7)]


def queued_chain(G, alpha, h, g, N, line=600):
    """The M/M/K chain on n = 0 … K + line solved with linear algebra, independently of
    the derivations: the stationary law (a null space), the gang's up share and rate, its
    wait (an absorbing chain's mean time), and the requests' wait in line (a sum of
    Erlang laws over the line's places)."""
    top, star = G // g, (G - N) // g
    n = np.arange(top + line + 1)
    Q = np.zeros((n.size, n.size))
    Q[n[:-1], n[:-1] + 1] = alpha
    Q[n[1:], n[1:] - 1] = np.minimum(n[1:], top) / h
    Q -= np.diag(Q.sum(axis=1))
    pi = scipy.linalg.null_space(Q.T)[:, 0]
    pi /= pi.sum()
    up = pi[:star + 1].sum()
    down = Q[star + 1:, star + 1:]  # the down set, left for k* at rate (k* + 1)/h
    wait = np.linalg.solve(-down, np.ones(down.shape[0]))[0]

    def line_tail(t):  # a request finding n ≥ K waits for n − K + 1 departures at K/h
        places = n[top:] - top + 1
        return float(pi[top:] @ scipy.stats.gamma.sf(t, places, scale=h / top))

    return {"up": up, "rate": alpha * pi[star] / up, "wait": wait,
            "waiting": pi[top:].sum(), "line_tail": line_tail}


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_queued_chain_is_its_generator_solved_as_a_matrix(setting):
    G, alpha, h, g, N = setting
    pool = SharedPool.checked(G, alpha, h, g, "queue")
    gang = gang_in_pool(pool, N)
    exact = queued_chain(*setting)
    assert gang.up_share == pytest.approx(exact["up"], rel=1e-9)
    assert gang.preemption_rate == pytest.approx(exact["rate"], rel=1e-9)
    assert gang.readmission_wait == pytest.approx(exact["wait"], rel=1e-8)
    assert pool.overflow_share() == pytest.approx(exact["waiting"], rel=1e-9)
    for t in (0.1, 0.5, 2.0):  # [queue-wait]: P_W e^{−(K/h − α)t}
        tail = pool.overflow_share() * math.exp(-(pool.top / h - alpha) * t)
        assert tail == pytest.approx(exact["line_tail"](t), rel=1e-8)
    p99 = pool.line_wait(0.01)
    if p99 > 0:
        assert exact["line_tail"](p99) == pytest.approx(0.01, rel=1e-8)
    else:
        assert exact["waiting"] <= 0.01


def test_the_line_changes_the_up_share_and_the_wait_but_not_the_rate_or_the_law():
    drop = SharedPool.checked(64, 3.0, 2.0, 8, "drop")
    queue = SharedPool.checked(64, 3.0, 2.0, 8, "queue")
    dropped, queued = gang_in_pool(drop, 16), gang_in_pool(queue, 16)
    assert queued.preemption_rate == dropped.preemption_rate
    assert (queued.up_time_mean, queued.up_time_cv) == (dropped.up_time_mean,
                                                          dropped.up_time_cv)
    law_drop, law_queue = up_time_law(drop, 6), up_time_law(queue, 6)
    assert np.array_equal(law_drop.rates, law_queue.rates)
    assert queued.up_share < dropped.up_share
    assert queued.readmission_wait > dropped.readmission_wait
    assert best_interval(queue, queued, MINUTE, 0.1)[1] < best_interval(drop, dropped,
                                                                        MINUTE, 0.1)[1]


@pytest.mark.derives
def test_erlangs_c_is_derived_from_erlangs_b_and_the_line():
    """P_W = K B/(K − ρ + ρB), the textbook's Erlang C, and the line's weight sums."""
    k, rho, b = sp.symbols("K rho B", positive=True)
    textbook = k * b / (k - rho * (1 - b))
    derived = D.erlang_c().subs({D.top_level: k, D.b_top: b, D.alpha: rho / D.hold})
    assert sp.simplify(derived - textbook) == 0
    weights = [D.queue_weight().subs({D.queue_place: m, D.alpha: sp.Rational(3),
                                      D.hold: sp.Rational(1, 2), D.top_level: 4,
                                      D.weight_top: 1}) for m in range(1, 400)]
    tail = D.queue_tail().subs({D.alpha: 3, D.hold: sp.Rational(1, 2), D.top_level: 4,
                                D.weight_top: 1})
    assert float(sum(weights)) == pytest.approx(float(tail), rel=1e-12)


#: Bonferroni over the simulator comparisons of this file (1% in all).
Z = scipy.stats.norm.ppf(1 - 0.01 / (2 * 11))


def _agrees(values, expected):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / math.sqrt(values.size)
    return abs(values.mean() - expected) <= Z * se + 1e-12


def test_the_simulator_keeps_requests_in_line_as_the_chain_says():
    pool = SharedPool.checked(64, 3.0, 2.0, 8, "queue")
    gang = gang_in_pool(pool, 16)
    runs = [simulate_pool(pool, [16], hours=3000, seed=seed) for seed in range(10)]
    assert all(run.turned_away == 0 for run in runs)
    assert _agrees([run.up_share() for run in runs], gang.up_share)
    assert _agrees([run.gangs[0].preemption_rate for run in runs], gang.preemption_rate)
    assert _agrees([np.mean(run.gangs[0].down_spells) for run in runs],
                   gang.readmission_wait)
    assert _agrees([run.waiting_share() for run in runs], pool.overflow_share())
    p99 = pool.line_wait(0.01)
    assert p99 > 0
    assert _agrees([(run.delays > p99).mean() for run in runs], 0.01)


@pytest.mark.parametrize("rate, inside", [(4.0, True), (4.5, False)])
def test_start_delays_in_line_and_behind_graces_are_the_simulators(rate, inside):
    """A pool that keeps its requests in line, with gangs in their grace: the share that
    waits (in line or for a grace) and the p99 start delay against the simulator; the
    p99 within the grace, where both waits count, and past it, where only the line's
    does."""
    pool = SharedPool.checked(128, rate, 2.0, 8, "queue")
    grace = 0.1
    turned_away, waits, p99 = start_delays(pool, 16, 16, grace)
    assert turned_away == 0 and (0 < p99 < grace) == inside and p99 > 0
    runs = [simulate_pool(pool, [16] * 7, hours=4000, grace=grace, headroom=16, seed=seed)
            for seed in range(8)]
    assert _agrees([run.waiting_share() for run in runs], waits)
    assert _agrees([(run.delays > p99).sum() / run.requests for run in runs], 0.01)


def test_two_pools_in_line_are_sized_by_erlangs_c():
    pool = SharedPool.checked(256, 8.0, 2.0, 8, "queue")
    choice = one_pool_or_two(pool, 16, MINUTE, 0.1, 30 * SECOND, 10 * SECOND)
    load, servers = pool.load, choice.two.inference_gpus // 8

    def erlang_c(places):  # the textbook's, from the Poisson law's B
        b = scipy.stats.poisson.pmf(places, load) / scipy.stats.poisson.cdf(places, load)
        return places * b / (places - load * (1 - b))

    assert erlang_c(servers) <= 0.01 < erlang_c(servers - 1)
    assert choice.two.waits == pytest.approx(erlang_c(servers), rel=1e-10)
    assert choice.two.turned_away == 0


def test_a_load_the_places_cannot_carry_is_refused_when_kept_in_line():
    with pytest.raises(InputError, match="hp_rate: a load .* of 8 requests needs more "
                                         "than the pool's 8 places"):
        SharedPool.checked(64, 4.0, 2.0, 8, "queue")
    assert SharedPool.checked(64, 4.0, 2.0, 8, "drop").overflow_share() > 0
    with pytest.raises(InputError, match="overflow: "):
        SharedPool.checked(64, 1.0, 2.0, 8, "wait")


def test_the_command_keeps_requests_in_line_unless_told_to_drop_them(cli):
    argv = ["cluster", "--gpus", "64", "--hp-rate", "3/h", "--hp-hold", "2h", "--hp-gpus",
            "8", "--gang-size", "16", "--json"]
    queued = json.loads(cli(*argv).stdout)
    dropped = json.loads(cli(*argv, "--hp-overflow", "drop").stdout)
    pool = SharedPool.checked(64, 3.0, 2.0, 8, "queue")
    assert queued["overflow"] == "queue" and dropped["overflow"] == "drop"
    assert queued["hp_waiting"] == pool.overflow_share() and queued["turned_away"] == 0
    assert queued["hp_p99_wait_s"] == pool.line_wait() * 3600
    assert dropped["turned_away"] == SharedPool.checked(64, 3.0, 2.0, 8).overflow_share()
    assert queued["up_share"] == gang_in_pool(pool, 16).up_share < dropped["up_share"]
    text = cli(*argv[:-1]).stdout
    assert "of them wait in line for a place, the p99" in text
    refused = cli("cluster", "--gpus", "64", "--hp-rate", "4/h", "--hp-hold", "2h",
                  "--hp-gpus", "8")
    assert refused.returncode == 2 and "--hp-rate: a load" in refused.stderr
