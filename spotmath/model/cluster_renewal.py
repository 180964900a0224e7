"""A gang's compute kept in a shared pool, from the exact law of its up times.

Every admission finds the chain at k* (a gang is re-admitted when k falls back to k*), so
the gang's up and down spells form a renewal process and the share of hours whose compute
is kept is, by renewal–reward,

    E[compute kept in an up spell] / (E[up time] + W),

with W the mean wait for re-admission [readmission-wait] and the up time U the chain's
first passage from k* to k* + 1: a phase-type law with survival S(t) = e_{k*} exp(Qt) 1,
Q the chain's generator on the levels 0 … k* (:func:`spotmath.model.cluster.up_time_hazard`
draws its hazard).  Each spell starts with ``startup`` hours a, then cycles of T hours of
compute and a write of C (τ = T + C):

* a grace period s shorter than a write is no notice: the compute kept is T for each
  write that ends by the kill, U + s, so E = T Σ_{j≥1} S(a + jτ − s);
* a grace period that fits a write (s ≥ C) is the book's notice: the gang writes what it
  has when told, so E = Σ_{j≥0} ∫ S(t) dt over its compute phases [a + jτ, a + jτ + T].

Both sums are geometric in M = exp(Qτ) and are taken in closed form (one linear solve).
:class:`~spotmath.model.cluster.GangInPool` prices the same gang at its rate λ_c as if U
were exponential; this module does not, and the event simulator
(:mod:`spotmath.model.simulate_cluster`) is the witness of both.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg
import scipy.optimize

from ..inputs import InputError, check_parameters
from .cluster import GangInPool, SharedPool, _sub_generator

__all__ = ["MAX_EXACT_LEVELS", "kept_share", "best_interval"]

#: The most levels 0 … k* the exact up-time law is computed for (dense matrices).
MAX_EXACT_LEVELS = 500

#: Below this λ_c·(a + τ) a gang is preempted so rarely that the kept share is T/τ times
#: its time up, to within λ_c·(a + τ) (and the geometric sums are ill-conditioned).
_RARE = 1e-9


def kept_share(pool: SharedPool, gang: GangInPool, interval, checkpoint_cost,
               startup=0.0, grace=0.0) -> float:
    """The share of hours, up or waiting, whose compute a gang keeps.

    Parameters
    ----------
    pool : SharedPool
        The pool and its high-priority load.
    gang : GangInPool
        The gang, from :func:`~spotmath.model.cluster.gang_in_pool`.
    interval : float or str
        T, hours of compute between writes (``math.inf``: write on notice only, which
        needs a grace that fits a write).
    checkpoint_cost : float or str
        C, hours a write takes.
    startup : float or str, optional
        a, hours from an admission to the first step (default 0).
    grace : float or str, optional
        s, the grace period, hours (default 0); s ≥ C makes it a notice.

    Returns
    -------
    float
        Compute kept per hour, in [0, 1).  1 − it is the waste the simulator measures.

    Raises
    ------
    InputError
        A bad value, an infinite interval without a grace that fits a write, or a gang
        up at more than :data:`MAX_EXACT_LEVELS` levels.

    References
    ----------
    M. F. Neuts, *Matrix-Geometric Solutions in Stochastic Models*, 1981 (phase-type
    laws).  S. M. Ross, *Stochastic Processes*, 2nd ed., 1996, §3.6 (renewal–reward).

    Examples
    --------
    >>> from spotmath.model.cluster import gang_in_pool
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> round(kept_share(pool, gang_in_pool(pool, 16), "20min", "1min", "6min"), 3)
    0.82
    """
    notice_only = interval is not None and not isinstance(interval, str) and \
        math.isinf(interval) and interval > 0
    checkpoint_cost, startup, grace = check_parameters(
        scalar=True, checkpoint_cost=checkpoint_cost, restart_time=startup, grace=grace)
    notice = grace > 0 and grace >= checkpoint_cost
    if notice_only:
        if not notice:
            raise InputError("interval: writing on notice only needs a grace period that "
                             "fits a write (grace >= checkpoint_cost)")
        interval = math.inf
    else:
        (interval,) = check_parameters(scalar=True, interval=interval)
    if gang.never_preempted:
        return 1.0 if notice_only else interval / (interval + checkpoint_cost)
    if gang.star + 1 > MAX_EXACT_LEVELS:
        raise InputError(f"gang_size: the exact up-time law is computed for gangs up at "
                         f"most {MAX_EXACT_LEVELS} levels; this one is up at "
                         f"{gang.star + 1} (0 … {gang.star} requests in service)")
    cycle = interval + checkpoint_cost
    mean_up = gang.up_time_mean
    if gang.preemption_rate * (startup + (0.0 if notice_only else cycle)) < _RARE:
        # preempted less than once in 10⁹ cycles: the bound, not the ill-posed sums
        return gang.up_share * (1.0 if notice_only else interval / cycle)
    q = _sub_generator(pool, gang.star)
    start = np.zeros(gang.star + 1)
    start[-1] = 1.0
    ones = np.ones(gang.star + 1)
    if notice_only:
        # ∫_a^∞ S = e_{k*} exp(Qa) (−Q)⁻¹ 1
        kept = start @ scipy.linalg.expm(q * startup) @ np.linalg.solve(-q, ones)
    else:
        left = np.eye(gang.star + 1) - scipy.linalg.expm(q * cycle)
        if notice:
            # Σ_j e exp(Q(a + jτ)) ∫_0^T exp(Qt) dt 1, ∫_0^T exp(Qt) dt = Q⁻¹(exp(QT) − I)
            phase = np.linalg.solve(q, scipy.linalg.expm(q * interval) @ ones - ones)
            kept = start @ scipy.linalg.expm(q * startup) @ np.linalg.solve(left, phase)
        else:
            # T Σ_{j≥1} e exp(Q(a + jτ − s)) 1; a + τ − s > 0 because s < C
            kept = interval * (start @ scipy.linalg.expm(q * (startup + cycle - grace))
                               @ np.linalg.solve(left, ones))
    return float(kept / (mean_up + gang.readmission_wait))


def best_interval(pool: SharedPool, gang: GangInPool, checkpoint_cost, startup=0.0,
                  grace=0.0) -> tuple[float, float]:
    """The interval that keeps the most compute under the exact up-time law, and that share.

    With a grace that fits a write, every preemption is written on notice and a periodic
    write only costs: the answer is ``math.inf`` (never write periodically).  Otherwise
    Brent's method on log T, within a factor 30 of the rate model's optimum
    (:meth:`GangInPool.interval <spotmath.model.cluster.GangInPool.interval>`).

    Parameters
    ----------
    pool, gang, checkpoint_cost, startup, grace
        As for :func:`kept_share`.

    Returns
    -------
    tuple of float
        The interval, hours (``math.inf`` on notice or when never preempted), and
        :func:`kept_share` at it.

    Raises
    ------
    InputError
        As :func:`kept_share`; a write of 0 hours has no optimum (write all the time).

    Examples
    --------
    >>> from spotmath.model.cluster import gang_in_pool
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> interval, kept = best_interval(pool, gang_in_pool(pool, 16), "1min", "6min")
    >>> round(interval * 60, 1), round(kept, 3)
    (26.1, 0.822)
    """
    checkpoint_cost, startup, grace = check_parameters(
        scalar=True, checkpoint_cost=checkpoint_cost, restart_time=startup, grace=grace)
    if gang.never_preempted or (grace > 0 and grace >= checkpoint_cost):
        if gang.never_preempted and not (grace > 0 and grace >= checkpoint_cost):
            return math.inf, gang.up_share
        return math.inf, kept_share(pool, gang, math.inf, checkpoint_cost, startup, grace)
    if checkpoint_cost == 0:
        raise InputError("checkpoint_cost: a write of 0 hours has no optimal interval "
                         "(write continuously)")
    guess = math.log(gang.interval(checkpoint_cost, grace))
    found = scipy.optimize.minimize_scalar(
        lambda log_t: -kept_share(pool, gang, math.exp(log_t), checkpoint_cost, startup,
                                  grace),
        bounds=(guess - math.log(30), guess + math.log(30)), method="bounded",
        options={"xatol": 1e-6})
    return math.exp(found.x), -float(found.fun)
