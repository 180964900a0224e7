"""Preempted by your own cluster: a training gang in a shared GPU pool.

A pool of G GPUs serves high-priority requests (inference replicas, production jobs): they
arrive as a Poisson stream of rate α, each takes g GPUs for a mean of h hours, and each
preempts training when fewer than g GPUs are free.  Because high-priority work ignores
training, the count k of requests in service is Erlang's loss chain on 0 … K, K = ⌊G/g⌋
(a request that finds K in service is turned away).  A training gang of N GPUs runs
whenever N GPUs are left to it: while k ≤ k* = ⌊(G − N)/g⌋.  It is preempted by an arrival
at k = k*, and re-admitted when k falls back to k*.

Every number here is iterated level by level from the derivations of
:mod:`spotmath.model.derivations` (section 11: ``erlang-b-step``,
``pool-preemption-rate``, ``pool-up-share``, ``passage-down-step``, ``passage-mean-step``,
``passage-second-moment-step``, ``pool-restart-time``; ``readmission-wait`` is the tests'
second route to the wait) through the generated numerics;
the tests check them against the chain's generator solved as a matrix and against the
event simulator :mod:`spotmath.model.simulate_cluster`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.stats

from ..inputs import InputError, check_parameters
from . import _generated
from .numerics import optimal_interval, optimal_waste

__all__ = ["SharedPool", "GangInPool", "MAX_POOL_GPUS", "NEVER_RATE", "gang_in_pool",
           "up_time_hazard", "matching_weibull"]

#: The largest pool the chain is iterated for (one step a level).
MAX_POOL_GPUS = 100_000

#: A preemption rate per up hour below this (once in 10⁹⁶ years) is taken as never.
NEVER_RATE = 1e-100


@dataclass(frozen=True)
class SharedPool:
    """A pool of ``gpus`` GPUs and its high-priority load.

    Attributes
    ----------
    gpus : int
        G, GPUs in the pool.
    hp_rate : float
        α, high-priority requests a hour.
    hp_hold : float
        h, their mean holding time, hours.
    hp_gpus : int
        g, GPUs each request takes.
    """

    gpus: int
    hp_rate: float
    hp_hold: float
    hp_gpus: int

    @classmethod
    def checked(cls, gpus, hp_rate, hp_hold, hp_gpus) -> SharedPool:
        """The pool, each value checked (text with units accepted: ``'6/h'``, ``'20min'``).

        Raises
        ------
        InputError
            A value out of its domain, a request larger than the pool, or a pool of more
            than :data:`MAX_POOL_GPUS`.
        """
        gpus, hp_rate, hp_hold, hp_gpus = check_parameters(
            scalar=True, gpus=gpus, hp_rate=hp_rate, hp_hold=hp_hold, hp_gpus=hp_gpus)
        if gpus > MAX_POOL_GPUS:
            raise InputError(f"gpus: at most {MAX_POOL_GPUS:,} GPUs, got {gpus:,}")
        if hp_gpus > gpus:
            raise InputError(f"hp_gpus: a request of {hp_gpus} GPUs never fits a pool of "
                             f"{gpus}")
        return cls(gpus, hp_rate, hp_hold, hp_gpus)

    @property
    def load(self) -> float:
        """ρ = αh, the high-priority load in requests (Erlangs)."""
        return self.hp_rate * self.hp_hold

    @property
    def top(self) -> int:
        """K = ⌊G/g⌋, the most requests in service at once."""
        return self.gpus // self.hp_gpus

    def star(self, gang_size: int) -> int:
        """k* = ⌊(G − N)/g⌋: the most requests in service with a gang of N up."""
        return (self.gpus - gang_size) // self.hp_gpus

    def gang_size(self, gang_size) -> int:
        """N, checked: a whole number of GPUs that fits the pool.

        Raises
        ------
        InputError
            Not a whole number of GPUs, or more than the pool's.
        """
        (gang_size,) = check_parameters(gang_size=gang_size)
        if gang_size > self.gpus:
            raise InputError(f"gang_size: a gang of {gang_size} GPUs never fits a pool of "
                             f"{self.gpus}")
        return gang_size

    def erlang_b(self) -> np.ndarray:
        """Erlang's B at 0 … K servers and this load, level by level [erlang-b-step]."""
        b = np.ones(self.top + 1)
        for k in range(1, self.top + 1):
            b[k] = _generated.erlang_b_step(b[k - 1], self.hp_rate, self.hp_hold, k)
        return b

    def stationary(self) -> np.ndarray:
        """The share of time with 0 … K requests in service [erlang-stationary].

        P(k) is the chance of at most k, times the chance of k given at most k, which is
        Erlang's B at k servers (the chain cut at k is Erlang's chain on 0 … k):
        P(k) = U(k) B(k), with U(k) [pool-up-share] computed in logarithms.
        """
        b, top = self.erlang_b(), self.top
        at_most = np.array([math.exp(_generated.pool_log_up_share(
            b[top], b[k], top, k, self.hp_rate, self.hp_hold)) for k in range(top + 1)])
        return at_most * b


@dataclass(frozen=True)
class GangInPool:
    """What the pool's load does to a gang of ``gang_size`` GPUs.

    Attributes
    ----------
    gang_size : int
        N, GPUs the gang needs.
    star : int
        k*, the most requests in service with the gang up (K or more: never preempted).
    preemption_rate : float
        λ_c, preemptions per hour the gang is up (0 when never preempted, or below
        :data:`NEVER_RATE`).
    up_share : float
        U, the share of time the gang is up.
    readmission_wait : float
        W, mean hours from a preemption to re-admission.
    up_time_mean : float
        Mean hours from an admission to the next preemption (``math.inf`` when never).
    up_time_cv : float or None
        Its coefficient of variation (None when never preempted); 1 would be Poisson.
    """

    gang_size: int
    star: int
    preemption_rate: float
    up_share: float
    readmission_wait: float
    up_time_mean: float
    up_time_cv: float | None

    @property
    def never_preempted(self) -> bool:
        """The gang fits beside every request the pool can hold."""
        return self.preemption_rate == 0.0

    def restart_time(self, startup: float) -> float:
        """Expected hours from a preemption until training runs again [pool-restart-time].

        The wait W, then a start-up of ``startup`` hours that a preemption may interrupt
        (at λ_c, as if up times were exponential), each interruption a new wait:
        ``math.inf`` when e^{λ_c R} overflows (a start-up preemptions never let finish).
        """
        (startup,) = check_parameters(scalar=True, restart_time=startup)
        if self.never_preempted:
            return startup
        return float(_generated.pool_restart_time(self.preemption_rate, startup,
                                                  self.readmission_wait))

    def interval(self, checkpoint_cost: float, grace: float = 0.0) -> float:
        """The exact optimal interval at λ_c, hours (``math.inf`` when never preempted, or
        when writes on notice in the grace period do better than any periodic write).

        A grace period that fits a write is the book's notice, acted on at every
        preemption (:func:`spotmath.optimal_interval` with a notice share of 1).
        """
        checkpoint_cost, grace = check_parameters(scalar=True, checkpoint_cost=checkpoint_cost,
                                                  grace=grace)
        if self.never_preempted:
            return math.inf
        return float(optimal_interval(self.preemption_rate, checkpoint_cost,
                                      **_notice(checkpoint_cost, grace)))

    def waste(self, checkpoint_cost: float, startup: float, grace: float = 0.0) -> float:
        """The exact waste per hour, up or waiting, at :meth:`interval`.

        The restart model that stops the preemption clock during a restart, with the
        restart :meth:`restart_time` (the wait and any preempted start-ups are in it).
        """
        checkpoint_cost, grace = check_parameters(scalar=True, checkpoint_cost=checkpoint_cost,
                                                  grace=grace)
        if self.never_preempted:
            return 0.0
        restart = self.restart_time(startup)
        if math.isinf(restart):  # the start-up is never finished: nothing is computed
            return 1.0
        return float(optimal_waste(self.preemption_rate, checkpoint_cost, restart,
                                   restart_preemptible=False,
                                   **_notice(checkpoint_cost, grace)))


def _notice(checkpoint_cost: float, grace: float) -> dict:
    """The notice options of a grace period: every preemption, when a write fits in it."""
    if grace > 0 and checkpoint_cost <= grace:
        return {"notice_share": 1.0, "notice_write": checkpoint_cost}
    return {}


def gang_in_pool(pool: SharedPool, gang_size) -> GangInPool:
    """A gang's preemption rate, time up, wait for re-admission and up-time law.

    Parameters
    ----------
    pool : SharedPool
        The pool and its high-priority load.
    gang_size : int
        N, GPUs the gang needs (at most the pool's).

    Returns
    -------
    GangInPool

    Raises
    ------
    InputError
        ``gang_size`` not a whole number of GPUs, or larger than the pool.

    References
    ----------
    A. K. Erlang, "Solution of some problems in the theory of probabilities of
    significance in automatic telephone exchanges", 1917.  R. W. Wolff, "Poisson arrivals
    see time averages", Operations Research 30 (1982).

    Examples
    --------
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> gang = gang_in_pool(pool, 16)
    >>> gang.star, round(gang.preemption_rate, 3), round(gang.up_share, 3)
    (6, 0.234, 0.909)
    """
    gang_size = pool.gang_size(gang_size)
    star, top = pool.star(gang_size), pool.top
    if star >= top:
        return GangInPool(gang_size, star, 0.0, 1.0, 0.0, math.inf, None)
    b = pool.erlang_b()
    alpha, hold = pool.hp_rate, pool.hp_hold
    rate = float(_generated.pool_preemption_rate(b[star], alpha))
    if rate < NEVER_RATE:  # the up-time moments would overflow a double
        return GangInPool(gang_size, star, 0.0, 1.0, 0.0, math.inf, None)
    share = math.exp(_generated.pool_log_up_share(b[top], b[star], top, star, alpha, hold))
    wait = pool.hp_hold / top  # d_K: at the top arrivals are turned away
    for k in range(top - 1, star, -1):
        wait = _generated.passage_down_step(wait, alpha, hold, k)
    mean, second = 0.0, 0.0
    for k in range(star + 1):
        # the second moment's step needs the level below's mean, so it goes first
        second = _generated.passage_second_moment_step(second, mean, alpha, hold, k)
        mean = _generated.passage_mean_step(mean, alpha, hold, k)
    cv = math.sqrt(max(second / mean**2 - 1.0, 0.0))
    return GangInPool(gang_size, star, rate, share, float(wait), float(mean), cv)


def up_time_hazard(pool: SharedPool, gang: GangInPool, ages) -> np.ndarray:
    """The preemption rate of a gang at each age since its admission, per hour.

    The up time is the chain's first passage from k* to k* + 1, a phase-type law with the
    chain's generator on 0 … k* (a new gang starts at k*): its hazard is α times the chance
    of being at k* at that age, given it is still up.  It starts at α and falls towards
    λ_c-like values as the chain drifts down: a decreasing hazard, as a Weibull shape
    below 1.

    Parameters
    ----------
    pool : SharedPool
    gang : GangInPool
    ages : array_like
        Hours since admission, ≥ 0.

    Returns
    -------
    numpy.ndarray
        Per hour (zeros when the gang is never preempted).

    Raises
    ------
    InputError
        A negative or non-finite age.

    Examples
    --------
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> up_time_hazard(pool, gang_in_pool(pool, 16), [0.0, 4.0]).round(3).tolist()
    [2.0, 0.121]
    """
    (ages,) = check_parameters(age=np.atleast_1d(ages))
    if gang.never_preempted:
        return np.zeros(ages.shape)
    generator = _sub_generator(pool, gang.star)
    start = np.zeros(gang.star + 1)
    start[-1] = 1.0
    hazard = np.empty(ages.shape)
    for i, age in enumerate(ages):
        where = start @ scipy.linalg.expm(generator * age)
        hazard[i] = pool.hp_rate * where[-1] / where.sum()
    return hazard


def matching_weibull(gang: GangInPool) -> tuple[float, float]:
    """The Weibull law with the up time's mean and coefficient of variation.

    The real-preemptions chapter fits Weibull shapes to traces; this is the Weibull a fit
    would find if it matched the pool's first two moments: shape k from the CV (below 1
    when the CV is above 1, a falling hazard), scale σ from the mean, σΓ(1 + 1/k).

    Parameters
    ----------
    gang : GangInPool
        A gang that is preempted.

    Returns
    -------
    tuple of float
        (shape k, scale σ in hours).

    Raises
    ------
    InputError
        A gang never preempted, or a CV outside what a Weibull of shape 0.05 to 50 has.

    Examples
    --------
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> shape, scale = matching_weibull(gang_in_pool(pool, 16))
    >>> round(shape, 2), round(scale, 2)
    (0.61, 2.9)
    """
    if gang.never_preempted:
        raise InputError("gang_size: a gang never preempted has no up-time law to match")

    def cv(shape: float) -> float:
        law = scipy.stats.weibull_min(shape)
        return float(law.std() / law.mean())

    low, high = 0.05, 50.0
    if not cv(high) <= gang.up_time_cv <= cv(low):
        raise InputError(f"gang_size: an up-time CV of {gang.up_time_cv:.3g} is outside "
                         "the Weibull shapes 0.05 to 50")
    shape = scipy.optimize.brentq(lambda k: cv(k) - gang.up_time_cv, low, high, xtol=1e-12)
    return float(shape), float(gang.up_time_mean / scipy.stats.weibull_min(shape).mean())


def _sub_generator(pool: SharedPool, star: int) -> np.ndarray:
    """The chain's generator on the gang's up levels 0 … k*, the exit at k* left out."""
    levels = np.arange(star + 1)
    generator = np.diag(-(pool.hp_rate + levels / pool.hp_hold))
    generator[levels[:-1], levels[:-1] + 1] = pool.hp_rate
    generator[levels[1:], levels[1:] - 1] = levels[1:] / pool.hp_hold
    return generator
