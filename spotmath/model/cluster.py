"""Preempted by your own cluster: a training gang in a shared GPU pool.

A pool of G GPUs serves high-priority requests (inference replicas, production jobs): they
arrive as a Poisson stream of rate α, each takes g GPUs for a mean of h hours, and each
preempts training when fewer than g GPUs are free.  Because high-priority work ignores
training, the count k of requests in service is Erlang's loss chain on 0 … K, K = ⌊G/g⌋
(a request that finds K in service is turned away), or, where requests wait in line as
Kueue and Slurm keep them, the M/M/K chain, which is the same below K and adds the line's
weight above it (``queue-weight``, ``queue-tail``, ``erlang-c``).  A training gang of N
GPUs runs whenever N GPUs are left to it: while k ≤ k* = ⌊(G − N)/g⌋.  It is preempted by
an arrival at k = k*, and re-admitted when k falls back to k*.

Every number here comes from the derivations of :mod:`spotmath.model.derivations`
(section 11) through the generated numerics: the stationary law's weights in logarithms
(``erlang-log-weight``), summed in logarithms into Erlang's B, the rate
(``pool-preemption-rate``), the up share (``pool-up-share``) and the wait
(``readmission-wait-sums``), so that no level of a pool of 100,000 GPUs under- or
overflows; the up time's moments from the first-step recursions
(``passage-mean-step``, ``passage-second-moment-step``), solved for every level at once;
and the up time's whole law (:class:`UpTimeLaw`) from the chain's generator.  The tests
check them against the generator solved as a matrix, against the recursions run level by
level, and against the event simulator :mod:`spotmath.model.simulate_cluster`.
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize
from threadpoolctl import ThreadpoolController

from ..inputs import InputError, check_choice, check_gang_size, check_parameters, count_text
from . import _generated
from .numerics import optimal_interval, optimal_waste

__all__ = ["SharedPool", "GangInPool", "UpTimeLaw", "MAX_POOL_GPUS", "NEVER_RATE",
           "PRACTICALLY_NEVER_H", "gang_in_pool", "up_time_law", "up_time_laws",
           "law_levels", "law_size", "laws_work", "up_time_hazard", "matching_weibull",
           "OVERFLOWS", "GPU_FAILURE_MTBF_H"]

#: The largest pool answered.
MAX_POOL_GPUS = 100_000

#: A preemption rate per up hour below this (once in 10⁹⁶ years) is taken as never.
NEVER_RATE = 1e-100

#: The least load αh computed with (besides none): below it the moments' steps, which
#: divide by (αh)², leave a double's range, and requests never overlap in any case.
MIN_LOAD = 1e-100

#: A gang whose mean up time is longer than this (hours: 114 years) is never preempted in
#: practice: what it would lose is a few parts in a million of its hours.
PRACTICALLY_NEVER_H = 1e6

#: Hours between hardware failures of one GPU, from Llama 3's pre-training (``llama3``,
#: §3.3.4): 419 unexpected interruptions of a job on 16,384 H100 GPUs in 54 days, each
#: GPU's share of them; a test reads the three figures from book/data/published_figures.csv.
GPU_FAILURE_MTBF_H = 16_384 * 54 * 24 / 419

_GPUS = "a whole number of GPUs"

#: What becomes of a request that finds every place taken (:class:`SharedPool`).
OVERFLOWS = ("drop", "queue")


@dataclass(frozen=True)
class SharedPool:
    """A pool of ``gpus`` GPUs and its high-priority load.

    Attributes
    ----------
    gpus : int
        G, GPUs in the pool.
    hp_rate : float
        α, high-priority requests a hour (0: none, and no gang is ever preempted).
    hp_hold : float
        h, their mean holding time, hours.
    hp_gpus : int
        g, GPUs each request takes.
    overflow : {'drop', 'queue'}
        What becomes of a request that finds all K = ⌊G/g⌋ places taken: turned away
        (Erlang's loss chain), or kept waiting in line, first come first served, as
        Kueue and Slurm keep pending workloads (the M/M/K chain; its load must be below
        K).  Gangs are up only below K, so their rate and up-time law are the same
        either way; their up share and wait are not.
    """

    gpus: int
    hp_rate: float
    hp_hold: float
    hp_gpus: int
    overflow: str = "drop"

    @classmethod
    def checked(cls, gpus, hp_rate, hp_hold, hp_gpus, overflow="drop") -> SharedPool:
        """The pool, each value checked (text with units accepted: ``'6/h'``, ``'20min'``).

        Raises
        ------
        InputError
            A value out of its domain, a request larger than the pool, a pool of more
            than :data:`MAX_POOL_GPUS`, a load below :data:`MIN_LOAD`, or a line that
            would grow without end (a load of K or more requests, kept waiting).
        """
        overflow = check_choice("overflow", overflow, OVERFLOWS)
        gpus, hp_rate, hp_hold, hp_gpus = check_parameters(
            scalar=True, gpus=gpus, hp_rate=hp_rate, hp_hold=hp_hold, hp_gpus=hp_gpus)
        if gpus > MAX_POOL_GPUS:
            raise InputError(f"gpus: at most {MAX_POOL_GPUS:,} GPUs, got {count_text(gpus)}")
        if hp_gpus > gpus:
            raise InputError(f"hp_gpus: a request of {count_text(hp_gpus, 'GPU')} never "
                             f"fits a pool of {gpus:,}")
        if 0 < hp_rate * hp_hold < MIN_LOAD:
            raise InputError(f"hp_hold: a load (hp_rate × hp_hold) of at least {MIN_LOAD:g} "
                             f"requests, or no requests at all (hp_rate 0); got "
                             f"{hp_rate * hp_hold:.3g}")
        places = gpus // hp_gpus
        if overflow == "queue" and hp_rate * hp_hold >= places:
            raise InputError(f"hp_rate: a load (hp_rate × hp_hold) of "
                             f"{hp_rate * hp_hold:.3g} requests needs more than the pool's "
                             f"{places:,} places: kept waiting, their line would grow "
                             "without end (fewer requests, or overflow 'drop')")
        return cls(gpus, hp_rate, hp_hold, hp_gpus, overflow)

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
        gang_size = check_gang_size("gang_size", gang_size, what=_GPUS)
        if gang_size > self.gpus:
            raise InputError(f"gang_size: a gang of {count_text(gang_size, 'GPU')} never "
                             f"fits a pool of {self.gpus:,}")
        return gang_size

    @functools.cached_property
    def log_weights(self) -> np.ndarray:
        """log π_k at k = 0 … K [erlang-log-weight], up to a constant (the largest is 0).

        Without requests (α = 0) the chain never leaves 0: log π is 0 there, −∞ above.
        """
        if self.hp_rate == 0:
            return np.concatenate(([0.0], np.full(self.top, -np.inf)))
        weights = _generated.erlang_log_weight(self.hp_rate, self.hp_hold,
                                               np.arange(self.top + 1, dtype=float))
        return weights - weights.max()

    @functools.cached_property
    def _log_at_most(self) -> np.ndarray:
        """log Σ_{j≤k} π_j at each k (log-sum-exp, level by level)."""
        return np.logaddexp.accumulate(self.log_weights)

    @functools.cached_property
    def _log_line(self) -> float:
        """log Σ_{m≥1} π_{K+m}, the weight of the requests' line [queue-tail] (−∞ when
        they are turned away, or there are none)."""
        if self.overflow == "drop" or self.hp_rate == 0:
            return -math.inf
        return float(_generated.pool_log_queue_tail(self.log_weights[-1], self.hp_rate,
                                                    self.hp_hold, self.top))

    @functools.cached_property
    def _log_total(self) -> float:
        """log of the whole stationary weight, the line's included."""
        return float(np.logaddexp(self._log_at_most[-1], self._log_line))

    @functools.cached_property
    def _log_above(self) -> np.ndarray:
        """log Σ_{j>k} π_j at each k, the line's weight included (−∞ at K when dropped)."""
        from_top = np.logaddexp.accumulate(self.log_weights[::-1])[::-1]
        return np.logaddexp(np.concatenate((from_top[1:], [-np.inf])), self._log_line)

    def log_erlang_b(self) -> np.ndarray:
        """log B_k at 0 … K servers and this load: π_k over Σ_{j≤k} π_j, in logarithms
        (the definition behind [erlang-b-step]; a B of 10⁻⁴⁰⁰ is a logarithm of −921)."""
        return self._log_erlang_b.copy()

    @functools.cached_property
    def _log_erlang_b(self) -> np.ndarray:
        return self.log_weights - self._log_at_most

    def erlang_b(self) -> np.ndarray:
        """Erlang's B at 0 … K servers and this load (0 where it is below a double's
        range)."""
        return np.exp(self.log_erlang_b())

    def stationary(self) -> np.ndarray:
        """The share of time with 0 … K requests in service [erlang-stationary] (at K,
        with or without a line [queue-weight])."""
        weights = self.log_weights.copy()
        weights[-1] = np.logaddexp(weights[-1], self._log_line)
        return np.exp(weights - self._log_total)

    def overflow_share(self) -> float:
        """The share of requests that find every place taken: turned away (Erlang's B at
        K places) or kept waiting in line [erlang-c]."""
        if self.hp_rate == 0:
            return 0.0
        b_top = math.exp(self._log_erlang_b[-1])
        if self.overflow == "drop":
            return b_top
        return float(_generated.erlang_c(b_top, self.hp_rate, self.hp_hold, self.top))

    def line_wait(self, share: float = 0.01) -> float:
        """Hours that all but ``share`` of the requests wait in line at most (0 when they
        are turned away instead, or fewer than ``share`` wait) [queue-wait-quantile]."""
        waiting = self.overflow_share() if self.overflow == "queue" else 0.0
        if waiting <= share:
            return 0.0
        return float(_generated.queue_wait_quantile(waiting, share, self.hp_rate,
                                                    self.hp_hold, self.top))

    @functools.cached_property
    def _passage_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """The mean and second moment of the passage from k to k + 1, at every k.

        Each first-step recursion [passage-mean-step], [passage-second-moment-step] is
        linear in its value one level below, with coefficient π_{k−1}/π_k = k/(αh) (a
        test holds SymPy's derivative to it): x_k = (π_{k−1}/π_k) x_{k−1} + c_k, so
        π_k x_k = Σ_{j≤k} π_j c_j, with c_k the step from x_{k−1} = 0.  The sums are
        taken in logarithms, for all levels at once; the tests run the recursions level
        by level against them.
        """
        levels = np.arange(self.top + 1, dtype=float)
        alpha, hold = self.hp_rate, self.hp_hold
        mean = self._recurrence(_generated.passage_mean_step(0.0, alpha, hold, levels))
        below = np.concatenate(([0.0], mean[:-1]))
        with np.errstate(over="ignore"):  # only gangs never preempted reach an overflow
            steps = _generated.passage_second_moment_step(0.0, below, alpha, hold, levels)
        return mean, self._recurrence(steps)

    def _recurrence(self, steps: np.ndarray) -> np.ndarray:
        """x_k with π_k x_k = Σ_{j≤k} π_j c_j for positive steps c_k (see
        :attr:`_passage_moments`)."""
        weights = self.log_weights
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            return np.exp(np.logaddexp.accumulate(weights + np.log(steps)) - weights)


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
    star = pool.star(gang_size)
    return GangInPool(gang_size, star, *_up_at_most(pool, star))


@functools.lru_cache(maxsize=65_536)
def _up_at_most(pool: SharedPool, star: int) -> tuple:
    """Rate, up share, wait, mean up time and CV of any gang up at 0 … ``star``."""
    top = pool.top
    if star >= top or pool.hp_rate == 0:
        return 0.0, 1.0, 0.0, math.inf, None
    alpha = pool.hp_rate
    rate = float(_generated.pool_preemption_rate(math.exp(pool._log_erlang_b[star]), alpha))
    if rate < NEVER_RATE:  # the up-time moments would overflow a double
        return 0.0, 1.0, 0.0, math.inf, None
    share = math.exp(pool._log_at_most[star] - pool._log_total)  # [pool-up-share]
    # a gang almost never up may wait longer than a double holds: ∞
    with np.errstate(over="ignore"):
        wait = float(np.exp(_generated.pool_log_readmission_wait(
            pool._log_above[star], pool.log_weights[star], alpha)))
    means, seconds = pool._passage_moments
    mean, second = float(means[star]), float(seconds[star])
    cv = math.sqrt(max(second / mean**2 - 1.0, 0.0))
    return rate, share, wait, mean, cv


@dataclass(frozen=True)
class UpTimeLaw:
    """The exact law of a gang's up time, as a mixture of exponentials.

    The up time is the chain's first passage from k* to k* + 1, a phase-type law with the
    chain's generator Q on the levels 0 … k*.  A birth–death generator is symmetric once
    scaled by √π, so its eigenvalues −r_i are real and negative, and since only the top
    level leaves the set (at α), the density is α (e^{Qt})_{k*k*} = α Σ_i v_i² e^{−r_i t},
    v_i the last entries of the scaled generator's unit eigenvectors.  Integrated, the
    survival is S(t) = Σ_i w_i e^{−r_i t} with w_i = α v_i²/r_i ≥ 0, Σ w_i = 1: a mixture
    with positive weights, so every sum and integral of S below is a sum of positive
    terms, and every geometric sum over a cycle is taken in closed form.

    Attributes
    ----------
    rates : numpy.ndarray
        r_i, per hour, ascending.
    weights : numpy.ndarray
        w_i, summing to 1.
    lowest : int
        The lowest level followed (0: the whole chain; above 0, the chain below that level
        holds less than 10⁻¹⁷ of the time and is left out, see :func:`up_time_law`).
    """

    rates: np.ndarray
    weights: np.ndarray
    lowest: int

    @property
    def mean(self) -> float:
        """E[U] = ∫ S, hours."""
        return float(np.sum(self.weights / self.rates))

    @property
    def second_moment(self) -> float:
        """E[U²] = 2 ∫ t S(t) dt, hours²."""
        return float(2 * np.sum(self.weights / self.rates**2))

    def survival(self, ages) -> np.ndarray:
        """S(t), the chance an up spell lasts past each age (hours)."""
        ages = np.asarray(ages, dtype=float)
        return _weighted(np.exp(-np.multiply.outer(ages, self.rates)), self.weights)

    def hazard(self, ages) -> np.ndarray:
        """The preemption rate at each age since admission, per hour."""
        ages = np.asarray(ages, dtype=float)
        # relative to the slowest term, which stays: no 0/0 at ages where S underflows
        decay = np.exp(-np.multiply.outer(ages, self.rates - self.rates[0]))
        return _weighted(decay, self.weights * self.rates) / _weighted(decay, self.weights)

    def kept(self, startup: float, interval: float, write: float, grace: float,
             failures: float = 0.0) -> float:
        """The expected compute kept in an up spell, hours, with the gang's own failures.

        Each spell starts with ``startup`` a, then cycles of T = ``interval`` compute and
        a write of C (τ = T + C).  Failures come at φ = ``failures`` an hour the gang is
        up, as a Poisson stream apart from the chain: each loses what was not yet written
        and starts the gang again (a start-up, the cycles from the start) in the same
        place, so a spell is cut into segments, each begun at the admission or at a
        failure.  A segment ends at the next failure or at the preemption.  Term by term,
        S's term w e^{−rt} makes segments start at 1 + φ/r times (the admission, and
        φ ∫ e^{−rσ} dσ failures), each seeing an exponential preemption of rate r, so:

        * no notice (s < C): a write is kept when it ends before the next failure and by
          the kill, U + s: T Σ_{i≥1} e^{−φ(a+iτ)} e^{−r(a+iτ−s)};
        * a notice (s ≥ C): all compute before the preemption, if it comes first,
          (r/(r + φ)) Σ_i ∫ e^{−(r+φ)v} dv over the compute phases, and the writes made
          before a failure, if it comes first, T Σ_{i≥1} (φ/(r + φ)) e^{−(r+φ)(a+iτ)};
          with no periodic write (T = ∞), a failure loses everything.

        With φ = 0 these are :meth:`survival_sum` and :meth:`integral_sum`.
        """
        r, phi = self.rates, failures
        total, cycle = r + phi, interval + write
        scale = self.weights * (1.0 + phi / r)
        if grace > 0 and grace >= write:  # a notice
            if math.isinf(interval):
                each = r * np.exp(-total * startup) / total**2
            else:
                phases = (np.exp(-total * startup) * -np.expm1(-total * interval)
                          / (total * -np.expm1(-total * cycle)))
                writes = interval * phi / total * np.exp(-total * (startup + cycle)) \
                    / -np.expm1(-total * cycle)
                each = r / total * phases + writes
        else:  # a + τ − s > 0, as s < C
            each = interval * np.exp(-r * (startup + cycle - grace) - phi * (startup + cycle)) \
                / -np.expm1(-total * cycle)
        return float(np.sum(scale * each))

    def survival_sum(self, start: float, step: float) -> float:
        """Σ_{j≥0} S(start + j·step): S at every cycle's end, summed."""
        return float(np.sum(self.weights * np.exp(-self.rates * start)
                            / -np.expm1(-self.rates * step)))

    def integral_sum(self, start: float, length: float, step: float = math.inf) -> float:
        """Σ_{j≥0} ∫ S over [start + j·step, start + j·step + length]: the compute of every
        cycle's phase of that length (one phase when ``step`` is infinite)."""
        phase = self.weights * np.exp(-self.rates * start) * -np.expm1(-self.rates * length)
        if math.isinf(step):
            return float(np.sum(phase / self.rates))
        return float(np.sum(phase / (self.rates * -np.expm1(-self.rates * step))))


def _weighted(terms: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Σ_i terms[..., i] weights[i], without BLAS: a matrix-vector product of this size
    wakes BLAS's threads, which spin on a busy machine (a reader's kernel that does not
    keep to one thread ran the cluster chapter ten times slower so)."""
    return np.einsum("...i,i->...", terms, weights)


#: Chains of up to this many levels are followed whole; above it, from the level a spell
#: falls below less than once in :data:`RARE` spells (see :func:`up_time_law`).
WHOLE_CHAIN = 200
#: A spell that falls below the lowest level followed is this rare, at most.
RARE = 1e-12
#: Shifts a decade of the rates of the space the law is projected on (see
#: :class:`_Space`): with 5, the law's sums agree with the chain's to about
#: 10⁻¹¹ of its mean in pools of up to 100,000 GPUs (the tests hold them to 10⁻⁹).
SHIFTS_PER_DECADE = 5
#: The lowest shift, in units of 1/h: a decade below the chain's second slowest rate,
#: which is at least 1/h (see :class:`_Space`).
LOWEST_SHIFT = 0.1


def _lowest_level(pool: SharedPool, star: int) -> int:
    """The lowest level an up spell of a gang up at 0 … k* is followed from.

    By renewal–reward, the spells that step below a level L are at most as many as the
    steps from L to L − 1 in a spell, E[U] (L/h) π_L / Σ_{j≤k*} π_j on average: the
    chain's flow down from L per up hour, times the hours a spell lasts.  Below the load
    that grows with L, so L is found by halving: the highest level up to min(k*, ρ)
    where it is at most :data:`RARE`.
    """
    if star + 1 <= WHOLE_CHAIN:
        return 0
    spell = math.log(pool._passage_moments[0][star]) - pool._log_at_most[star]

    def rare(level: int) -> bool:
        return (spell + math.log(level / pool.hp_hold) + pool.log_weights[level]
                <= math.log(RARE))

    low, high = 0, min(star, math.floor(pool.load))  # rare(low) (level 0: no step down)
    if high < 1 or rare(high):
        return high
    while high - low > 1:  # rare(low), not rare(high)
        middle = (low + high) // 2
        low, high = (middle, high) if rare(middle) else (low, middle)
    return low


#: The laws of a pool are computed in blocks of this many consecutive k*: the first of a
#: block whose chain is longer than its vectors from the chain, each next from the one
#: below (:func:`_block_laws`).  A law is the same whichever laws are asked for with it.
STAR_BLOCK = 64


@functools.lru_cache(maxsize=4096)
def _block_lowest(pool: SharedPool, block: int) -> int:
    """The lowest level the laws of a block of k* follow their chains from: the least of
    the k*'s own (:func:`_lowest_level`), so that each follows its spells at least as far
    down as it needs, and the chain of each k* is that of the one below with one more
    level on top."""
    first = block * STAR_BLOCK
    return min(_lowest_level(pool, star)
               for star in range(first, min(first + STAR_BLOCK, pool.top)))


def law_levels(pool: SharedPool, star: int) -> int:
    """How many levels :func:`up_time_law` follows for a gang up at 0 … ``star``."""
    return star + 1 - _block_lowest(pool, star // STAR_BLOCK)


def _shift_count(pool: SharedPool) -> int:
    """How many shifts the space of each of a pool's laws has (see :func:`_law_shifts`)."""
    high = 2.0 * (pool.hp_rate + pool.top / pool.hp_hold)
    return max(2, math.ceil(math.log10(high * pool.hp_hold / LOWEST_SHIFT)
                            * SHIFTS_PER_DECADE) + 1)


def _law_shifts(pool: SharedPool) -> np.ndarray:
    """The shifts σ (per hour) of the space :func:`up_time_law` projects a chain on:
    σ_j = σ_0·10^{j/s}, s = :data:`SHIFTS_PER_DECADE`, from σ_0 = :data:`LOWEST_SHIFT`/h
    to the first at or above 2(α + K/h), a bound on the fastest rate of any of the
    pool's chains (Gershgorin).  One grid for every k* of a pool, so that each law can be
    computed from the one below."""
    steps = np.arange(_shift_count(pool)) / SHIFTS_PER_DECADE
    return LOWEST_SHIFT / pool.hp_hold * 10.0**steps


#: The most arrivals α E[U] in a mean up time a law is computed for.  A chain that long
#: reaches far above the load, and its factorisation from the lowest level
#: (:class:`_Factors`) grows each rounding by about α E[U] (each level above the load
#: multiplies it by the level over the load); at 10¹⁶ and more it fails.  Up to this
#: bound are all the laws the renewal model uses (E[U] ≤ :data:`PRACTICALLY_NEVER_H` at
#: α ≤ 10⁶/h; beyond it up times are taken as exponential at the rate), and the tests
#: hold laws up to 4·10¹⁰ to their chains' matrix exponentials.
MAX_LAW_ARRIVALS = 1e12
#: The vectors of the space besides the shifts': e, A e, A⁻¹e, A⁻²e and A⁻³e.
_OWN_VECTORS = 5


def law_size(pool: SharedPool, star: int) -> tuple[int, int]:
    """(n, m): the levels :func:`up_time_law` follows for a gang up at 0 … ``star``, and
    the vectors it projects them on (at most n)."""
    levels = law_levels(pool, star)
    return levels, min(levels, _shift_count(pool) + _OWN_VECTORS)


def laws_work(pool: SharedPool, stars) -> float:
    """The work :func:`up_time_laws` does for the laws of ``stars`` (none kept), in units
    of about 3.5·10⁻⁸ s: n·m for the chain of n levels of each block's first law
    projected on its m vectors, 3,000 for each step up a block to its last law asked
    for, and 4,000 for each law's eigenvalues (measured on the machines the book is built
    on: ``benchmarks/README.md``)."""
    stars, vectors = set(stars), _shift_count(pool) + _OWN_VECTORS
    blocks: dict[int, int] = {}
    for star in stars:
        blocks[star // STAR_BLOCK] = max(blocks.get(star // STAR_BLOCK, -1), star)
    work = 4_000.0 * len(stars)
    for block, last in blocks.items():
        lowest = _block_lowest(pool, block)
        first = max(block * STAR_BLOCK, lowest + vectors)  # the first from its vectors
        if last >= first:
            work += (first + 1 - lowest) * vectors + 3_000.0 * (last - first)
    return work


#: The most laws kept (by pool and k*), the first computed forgotten first: the command's
#: table of ranks and its designs ask for the same laws.
MAX_KEPT_LAWS = 4096
_kept_laws: dict[tuple[SharedPool, int], UpTimeLaw] = {}
_kept_lock = threading.Lock()


def _forget_laws() -> None:
    """Forget every law kept (after a change to the constants a law is computed with)."""
    with _kept_lock:
        _kept_laws.clear()
    _block_lowest.cache_clear()


def up_time_law(pool: SharedPool, star: int) -> UpTimeLaw:
    """The law of the up time of a gang up at 0 … ``star`` requests in service.

    The chain's generator on the up levels, scaled by √π to a symmetric tridiagonal
    matrix A, gives the law: its rates are the eigenvalues of −A, and its weights the
    squared last entries of the unit eigenvectors, as :class:`UpTimeLaw` says.  The law
    is that of A projected on a space of a few dozen vectors that holds what the law's
    sums need (:class:`_Space`), so a chain of thousands of levels costs what one of a
    few dozen would, and the law keeps the chain's mean and second moment to the last
    digits.

    In a large pool an up spell hardly ever reaches levels far below k*: above
    :data:`WHOLE_CHAIN` levels the chain is followed from a lowest level L
    (:func:`_lowest_level`, the least of its block of :data:`STAR_BLOCK` k*) and held
    there (it cannot step below), and a spell that never steps below L is the same in
    both chains.  The tests hold the law to the chain's matrix exponential and its
    moments, and the cut law to the whole chain's.  Laws are kept once computed;
    :func:`up_time_laws` computes many at once.

    Parameters
    ----------
    pool : SharedPool
    star : int
        k*, the most requests in service with the gang up (below K).

    Returns
    -------
    UpTimeLaw

    Raises
    ------
    InputError
        A gang never preempted (k* at K, or no requests), or one whose mean up time sees
        more than :data:`MAX_LAW_ARRIVALS` arrivals on a chain longer than its vectors:
        the chain reaches so far above the load that the factorisation from its lowest
        level would keep too few digits (such a gang's up times are taken as exponential
        at its rate, as :func:`~spotmath.model.cluster_renewal.best_interval` takes
        them; a chain taken whole needs no factorisation).

    References
    ----------
    A. Ruhe, "Rational Krylov sequence methods for eigenvalue computation", *Linear
    Algebra and its Applications* 58 (1984), 391–405.  G. H. Golub and G. Meurant,
    *Matrices, Moments and Quadrature with Applications*, Princeton University Press,
    2010 (a quadratic form e^T f(A) e as a quadrature over A's eigenvalues).

    Examples
    --------
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> law = up_time_law(pool, 6)
    >>> round(law.mean, 3), round(float(law.survival(0.0)), 12)
    (4.268, 1.0)
    """
    law = _kept_laws.get((pool, star))  # kept: a search asks for it at every step
    return up_time_laws(pool, [star])[star] if law is None else law


def up_time_laws(pool: SharedPool, stars) -> dict[int, UpTimeLaw]:
    """The up-time laws of many k* at once, each the law :func:`up_time_law` gives.

    The laws of a block of :data:`STAR_BLOCK` consecutive k* are computed together
    (:func:`_block_laws`): each from the one below, in what a chain of a few dozen levels
    costs.  The table of a pool of 100,000 GPUs needs about a thousand laws.

    Parameters
    ----------
    pool : SharedPool
    stars : iterable of int
        The k*, each below K.

    Returns
    -------
    dict
        The law of each k*.

    Raises
    ------
    InputError
        A gang never preempted (k* at K, or no requests), or one whose mean up time
        sees more than :data:`MAX_LAW_ARRIVALS` arrivals on a chain longer than its
        vectors.

    Examples
    --------
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> laws = up_time_laws(pool, [5, 6])
    >>> laws[6] is up_time_law(pool, 6), round(laws[5].mean, 3)  # kept, hours
    (True, 2.512)
    """
    stars = sorted({int(star) for star in stars})
    if any(pool.hp_rate == 0 or not 0 <= star < pool.top for star in stars):
        raise InputError("gang_size: a gang never preempted has no up-time law")
    seldom = []
    for star in stars:
        levels, vectors = law_size(pool, star)  # a chain taken whole is not factorised
        if vectors < levels and pool.hp_rate * pool._passage_moments[0][star] > \
                MAX_LAW_ARRIVALS:
            seldom.append(star)
    if seldom:
        raise InputError(f"gang_size: a gang up while at most {seldom[0]:,} requests run "
                         f"sees more than {MAX_LAW_ARRIVALS:.0e} arrivals in a mean up time: "
                         "its up-time law is not computed (the ranks take its up times as "
                         "exponential at its rate)")
    with _kept_lock:
        found = {star: _kept_laws[pool, star] for star in stars if (pool, star) in _kept_laws}
    blocks: dict[int, list[int]] = {}
    for star in stars:
        if star not in found:
            blocks.setdefault(star // STAR_BLOCK, []).append(star)
    computed = {}
    for block, wanted in blocks.items():
        computed.update(_block_laws(pool, block, wanted))
    with _kept_lock:
        _kept_laws.update(((pool, star), law) for star, law in computed.items())
        while len(_kept_laws) > MAX_KEPT_LAWS:
            del _kept_laws[next(iter(_kept_laws))]
    return found | computed


def _block_laws(pool: SharedPool, block: int, wanted: list[int]) -> dict[int, UpTimeLaw]:
    """The laws of the k* in ``wanted`` (ascending), all of one block of
    :data:`STAR_BLOCK` k*.

    Every chain of the block starts at the block's lowest level (:func:`_block_lowest`),
    and the chain of k* + 1 is that of k* with one level on top.  A chain no longer than
    its vectors is taken whole; the first longer one is projected on its vectors
    (:meth:`_Space.of_chain`), and each next one's space from the one below's
    (:meth:`_Space.step`), so the law of every k* of the block comes from the same steps,
    whichever are asked for.
    """
    alpha, hold = pool.hp_rate, pool.hp_hold
    lowest = _block_lowest(pool, block)
    down = np.arange(lowest, wanted[-1] + 1) / hold
    down[0] = 0.0  # at level 0 nothing leaves; at a cut above 0, the chain is held
    diagonal, off = -(alpha + down), np.sqrt(alpha * down[1:])
    count = _shift_count(pool)
    factors = functools.cache(lambda: _Factors(diagonal, off, _law_shifts(pool)))
    laws, space, asked = {}, None, set(wanted)
    with _one_thread():
        for star in range(block * STAR_BLOCK, wanted[-1] + 1):
            level = star - lowest  # the chain's top, counted from its lowest level
            if level < count + _OWN_VECTORS:  # taken whole
                if star in asked:
                    whole = np.eye(level + 1)
                    laws[star] = _spectral_law(pool, star, lowest,
                                               _times(diagonal[:level + 1], off[:level], whole),
                                               whole[-1])
                continue
            if space is None:
                space = _Space.of_chain(diagonal[:level + 1], off[:level], factors(), count)
            else:
                space = space.step(diagonal[level], off[level - 1], factors(), level)
            if star in asked:
                laws[star] = _spectral_law(pool, star, lowest, space.projected, space.top)
    return laws


def _spectral_law(pool: SharedPool, star: int, lowest: int, projected: np.ndarray,
                  top: np.ndarray) -> UpTimeLaw:
    """The law of k* from the projection V^T A V of its chain on an orthonormal basis V
    whose top-level row is ``top``: the projection's eigenvalues stand for A's, and the
    squares of ``top`` times its unit eigenvectors for the v_i² (see
    :class:`UpTimeLaw`)."""
    alpha = pool.hp_rate
    values, vectors = np.linalg.eigh(projected)
    rates = -values[::-1]
    weights = alpha * (top @ vectors)[::-1] ** 2 / rates
    # The eigenvalues are exact to about 10⁻¹⁶ of the largest, so the slowest rate of a
    # gang preempted seldom (10⁻⁶ of the largest and less) is not.  Its term is set by
    # the two sums the law must keep, Σ w_i = S(0) = 1 and Σ w_i/r_i = E[U], the mean of
    # [passage-mean-step], from the other terms: where the slowest term carries most of
    # the mean, no digits cancel.
    mean, rest = pool._passage_moments[0][star], np.sum(weights[1:] / rates[1:])
    if rest < mean / 2:
        weights[0] = 1.0 - weights[1:].sum()
        rates[0] = weights[0] / (mean - rest)
    return UpTimeLaw(rates, weights, lowest)


class _Factors:
    """The LDLᵀ factorisations of −(A − σI) for σ = 0 and each shift, A a chain's
    symmetric tridiagonal generator (LAPACK's pttrf; −(A − σI) is positive definite, as
    the chain leaves at its top and σ ≥ 0).  Those of A's leading blocks, the chains of
    smaller k* from the same level, are their leading parts.

    Attributes
    ----------
    pivots : numpy.ndarray
        D's diagonal for σ = 0, by level.
    ratios : numpy.ndarray
        b_i/d_i = −l_i > 0 for σ = 0 and each shift (rows), by level (l the unit lower
        factor's subdiagonal, b A's, d D's diagonal).
    """

    def __init__(self, diagonal: np.ndarray, off: np.ndarray, shifts: np.ndarray):
        self.ratios = np.empty((shifts.size + 1, diagonal.size - 1))
        for row, shift in enumerate(np.concatenate([[0.0], shifts])):
            pivots, lower, info = scipy.linalg.lapack.dpttrf(shift - diagonal, -off)
            if info != 0:  # −(A − σI) is positive definite: not so only by a bug
                raise ArithmeticError(f"tridiagonal factorisation failed (pttrf info {info})")
            if row == 0:
                self.pivots, self._lower = pivots, lower
            self.ratios[row] = -lower

    def solve(self, size: int, right: np.ndarray) -> np.ndarray:
        """−A⁻¹ b on the leading block of ``size`` levels (σ = 0)."""
        solution, info = scipy.linalg.lapack.dpttrs(self.pivots[:size],
                                                    self._lower[:size - 1], right)
        if info != 0:
            raise ArithmeticError(f"tridiagonal solve failed (pttrs info {info})")
        return solution

    def last_columns(self, size: int) -> np.ndarray:
        """(A − σI)⁻¹e for σ = 0 and each shift, on the leading block of ``size`` levels,
        each scaled to 1 at the top level, as columns.

        −(A − σI) = L D Lᵀ, and e is the block's top level, so L⁻¹e = e and the solution
        x of Lᵀ x = e/d_n has x_i = −l_i x_{i+1}: the products of the ratios b_i/d_i from
        the top level down (positive: no digits cancel, and entries far from the top fall
        smoothly to 0 rather than overflow)."""
        products = np.ones((self.ratios.shape[0], size))
        products[:, :-1] = np.cumprod(self.ratios[:, :size - 1][:, ::-1], axis=1)[:, ::-1]
        return products.T


@dataclass(frozen=True)
class _Space:
    """The space a law of k* is projected on: its chain's vectors e, A e, A⁻¹e, A⁻²e,
    A⁻³e and (A − σI)⁻¹e for each shift σ (e the top level; each of the last scaled to 1
    there), as an orthonormal basis V that is not kept, only what the next k* needs.

    The law's sums are all quadratic forms e^T f(A) e of functions f smooth over A's
    eigenvalues (Σ_i v_i² f(λ_i)).  The eigenvalues and the squared top-level entries of
    the projection V^T A V's unit eigenvectors are a quadrature that is exact for every
    f in the span of 1/(λ − σ) and their products, and near it for a smooth f.  The
    shifts, geometric over the rates the chain has, make it so for the exponentials the
    sums are made of; the powers of A⁻¹ catch the slowest two rates however slow (the
    symmetric generator of the chain on 0 … ∞ has 0, −1/h, −2/h … as its eigenvalues, A
    is a block of it held at its lowest level, and by interlacing at most two of A's
    eigenvalues lie above −1/h), and make the law's mean and second moment the chain's.

    Attributes
    ----------
    projected : numpy.ndarray
        V^T A V.
    top : numpy.ndarray
        V's top-level row (V^T e).
    coordinates : numpy.ndarray
        The vectors in the basis: the columns C of V C, in the order above.

    References
    ----------
    A. Ruhe, "Rational Krylov sequence methods for eigenvalue computation", *Linear
    Algebra and its Applications* 58 (1984), 391–405.  G. H. Golub and G. Meurant,
    *Matrices, Moments and Quadrature with Applications*, Princeton University Press,
    2010.
    """

    projected: np.ndarray
    top: np.ndarray
    coordinates: np.ndarray

    @classmethod
    def of_chain(cls, diagonal: np.ndarray, off: np.ndarray, factors: _Factors,
                 count: int) -> _Space:
        """The space of a chain longer than its vectors, from the vectors themselves: each
        a tridiagonal solve or a product along a factorisation (:class:`_Factors`), then
        Householder's QR."""
        size = diagonal.size
        vectors = np.empty((size, count + _OWN_VECTORS))
        last = factors.last_columns(size)
        vectors[:, 0] = 0.0
        vectors[-1, 0] = 1.0
        vectors[:, 1] = _times(diagonal, off, vectors[:, 0])
        vectors[:, 2] = last[:, 0]  # A⁻¹e, A⁻²e, A⁻³e, up to their signs
        vectors[:, 3] = factors.solve(size, vectors[:, 2])
        vectors[:, 4] = factors.solve(size, vectors[:, 3])
        vectors[:, _OWN_VECTORS:] = last[:, 1:]
        norms = np.linalg.norm(vectors, axis=0)
        basis, triangle = scipy.linalg.qr(vectors / norms, mode="economic",
                                          check_finite=False)
        projected = basis.T @ _times(diagonal, off, basis)
        return cls((projected + projected.T) / 2, basis[-1].copy(), triangle * norms)

    def step(self, diagonal: float, off: float, factors: _Factors, level: int) -> _Space:
        """The space of the chain with one more level on top (``level``, counted from the
        lowest; A's diagonal there, and ``off`` between it and the level below).

        Each of the new chain's vectors is the old chain's vector, or a sum of them, below
        the new level and a number on it (for (A − σI)⁻¹e the old one times b/d at the
        old top, as the products of :class:`_Factors` run; for A⁻²e and A⁻³e, solved by
        the new level's row, a sum of the old A⁻³e, A⁻²e and A⁻¹e): in the basis V ⊕ e_new
        they are m + 1 numbers each.  Their QR there, G R, gives the new basis (V ⊕ 1) G,
        its projection G^T [[V^T A V, b V^T e], [b e^T V, a]] G and its top row, G's last,
        in m³ steps whatever the chain's length.
        """
        old, pivot_below, pivot = self.coordinates, factors.pivots[level - 1], \
            factors.pivots[level]
        ratios = factors.ratios[:, level - 1]  # σ = 0, then the shifts
        ratio = ratios[0]
        size = old.shape[1]
        new = np.zeros((size + 1, size))
        new[-1, 0] = 1.0  # e
        new[:-1, 1], new[-1, 1] = off * self.top, diagonal  # A e
        new[:-1, 2], new[-1, 2] = ratio * old[:, 2], 1.0  # A⁻¹e
        first = self.top @ old[:, 3]  # A⁻²e, then A⁻³e, at the old top
        second = self.top @ old[:, 4]
        top_first = (1.0 + off * ratio * first) / pivot
        share = off * top_first / pivot_below
        new[:-1, 3], new[-1, 3] = ratio * old[:, 3] + share * old[:, 2], top_first
        top_second = (top_first + off * (ratio * second + share * first)) / pivot
        new[:-1, 4] = ratio * old[:, 4] + share * old[:, 3] + \
            off * top_second / pivot_below * old[:, 2]
        new[-1, 4] = top_second
        new[:-1, _OWN_VECTORS:], new[-1, _OWN_VECTORS:] = ratios[1:] * old[:, _OWN_VECTORS:], 1.0
        basis, triangle = _qr(new)
        grown = np.empty((size + 1, size + 1))
        grown[:-1, :-1], grown[:-1, -1], grown[-1, :-1] = self.projected, off * self.top, \
            off * self.top
        grown[-1, -1] = diagonal
        projected = basis.T @ grown @ basis
        return _Space((projected + projected.T) / 2, basis[-1].copy(), triangle)


def _qr(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The thin QR of a tall matrix by LAPACK's geqrf and orgqr, as
    ``scipy.linalg.qr(matrix, mode="economic")`` gives it (the same numbers), without its
    checks and copies: a step of :class:`_Space` is a QR of a few dozen rows, which they
    made twice as long."""
    factored, reflectors, _, info = scipy.linalg.lapack.dgeqrf(matrix)
    if info != 0:
        raise ArithmeticError(f"QR failed (geqrf info {info})")
    triangle = np.triu(factored[:matrix.shape[1]])
    basis, _, info = scipy.linalg.lapack.dorgqr(factored, reflectors)
    if info != 0:
        raise ArithmeticError(f"QR failed (orgqr info {info})")
    return basis, triangle


@functools.cache
def _threadpools() -> ThreadpoolController:
    """The BLAS and OpenMP libraries this process has loaded (looked up once)."""
    return ThreadpoolController()


def _one_thread():
    """A context in which BLAS and LAPACK run on one thread.

    The law's products and factorisations are of a few thousand rows by a few dozen
    columns: on one thread they take about half the time they take on two, and on a
    machine with a busy core far less, since BLAS's threads spin waiting for one another
    (a reader's kernel that does not keep to one thread ran the cluster chapter five
    times slower so; ``benchmarks/bench_cluster.py`` measures it).
    """
    return _threadpools().limit(limits=1, user_api="blas")


def _times(diagonal: np.ndarray, off: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """A x for the symmetric tridiagonal A, for a vector or each column of a matrix."""
    if vectors.ndim == 2:
        diagonal, off = diagonal[:, None], off[:, None]
    product = diagonal * vectors
    product[:-1] += off * vectors[1:]
    product[1:] += off * vectors[:-1]
    return product


def up_time_hazard(pool: SharedPool, gang: GangInPool, ages) -> np.ndarray:
    """The preemption rate of a gang at each age since its admission, per hour.

    The up time is the chain's first passage from k* to k* + 1 (:func:`up_time_law`): its
    hazard is α times the chance of being at k* at that age, given it is still up.  It
    starts at α and falls towards λ_c-like values as the chain drifts down: a decreasing
    hazard, as a Weibull shape below 1.

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
    return up_time_law(pool, gang.star).hazard(ages)


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
    import scipy.stats  # a third of a second to import: only here

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
