"""Spot traces drawn from the simulator's own preemption processes, with known parameters.

What the trace tools must find when the truth is known: a pool of instance slots whose
lifetimes are Weibull (exponential by default) at a known rate, with pool-wide bulk
reclaims at a known share, observed for a known time.
"""

from __future__ import annotations

import math

import numpy as np

from ..inputs import InputError, check_parameters
from ..model.simulate import gap_scale
from .reading import Trace

__all__ = ["synthetic_trace"]


def synthetic_trace(
    *, preemption_rate: float, pool_size: int, hours: float, weibull_shape: float = 1.0,
    bulk_fraction: float = 0.0, seed: int = 0,
) -> Trace:
    """A spot trace drawn from the simulator's own preemption processes, known parameters.

    A pool of ``pool_size`` instance slots is observed for ``hours``.  Each slot's instance
    lives for a Weibull time of shape ``weibull_shape`` and mean 1/((1 − ρ)λ) (exponential
    when the shape is 1); a Poisson process of bulk reclaims at ρλ (``bulk_fraction`` ρ)
    takes every instance of the pool at once.  A reclaimed instance is replaced at once by
    a new one; instances up at the end are censored there.  So each instance's hazard is
    λ when the shape is 1, and a gang of N instances is interrupted at (N(1 − ρ) + ρ)λ
    (derivation ``bulk-gang-rate``), as in :func:`simulate`.

    Parameters
    ----------
    preemption_rate : float
        Preemptions per instance-hour, λ > 0.
    pool_size : int
        Instance slots in the pool, ≥ 1.
    hours : float
        How long the pool is observed, hours (> 0).
    weibull_shape : float, optional
        Shape k of each instance's lifetime (default 1: Poisson).
    bulk_fraction : float, optional
        Share ρ of preemptions that are pool-wide reclaims, in [0, 1) (default 0).
    seed : int, optional
        Seed of NumPy's random generator (default 0).

    Returns
    -------
    Trace
        The same record :func:`spotmath.traces.read_trace` returns for a real trace.

    Raises
    ------
    InputError
        A value out of range (the message names it).

    Examples
    --------
    >>> trace = synthetic_trace(preemption_rate=0.25, pool_size=4, hours=100, seed=1)
    >>> trace.censored
    4
    """
    checked = check_parameters(scalar=True, preemption_rate=preemption_rate,
                               pool_size=pool_size, hours=hours, weibull_shape=weibull_shape,
                               bulk_fraction=bulk_fraction, seed=seed)
    rate, slots, horizon, shape, rho, seed = checked
    rng = np.random.default_rng(seed)
    node_rate = (1 - rho) * rate
    expected = slots * horizon * rate
    if expected > 5e7:
        raise InputError(f"hours: {horizon:g} h of {slots} instances at {rate:g}/h would "
                         f"hold about {expected:.2g} lifetimes; observe fewer")
    bulk_times = np.empty(0)
    if rho > 0:
        gaps = rng.exponential(1 / (rho * rate), int(2 * rho * rate * horizon + 50))
        bulk_times = np.cumsum(gaps)
        while bulk_times[-1] < horizon:
            more = np.cumsum(rng.exponential(1 / (rho * rate), bulk_times.size))
            bulk_times = np.concatenate([bulk_times, bulk_times[-1] + more])
        bulk_times = bulk_times[bulk_times < horizon]
    bulk_times = np.append(bulk_times, np.inf)
    scale = gap_scale(node_rate, shape) if node_rate > 0 else math.inf
    up, down, done, slot_of = [], [], [], []
    start = np.zeros(slots)
    slot_ids = np.arange(slots)
    while start.size:
        own = start + (scale * (rng.exponential(1.0, start.size) if shape == 1 else
                                rng.weibull(shape, start.size)) if node_rate > 0
                       else np.full(start.size, np.inf))
        # A lifetime too short to tell from 0 at this time is rounded up to the spacing
        # of floats there, as a clock of that precision would record it.
        own = np.maximum(own, np.nextafter(start, np.inf))
        bulk = bulk_times[np.searchsorted(bulk_times, start, side="right")]
        end = np.minimum(np.minimum(own, bulk), horizon)
        preempted = end < horizon
        up.append(start)
        down.append(end)
        done.append(preempted)
        slot_of.append(slot_ids)
        start, slot_ids = end[preempted], slot_ids[preempted]
    up, down = np.concatenate(up), np.concatenate(down)
    preempted, slot_of = np.concatenate(done), np.concatenate(slot_of)
    order = np.lexsort((slot_of, up))
    return Trace(name="synthetic", node=tuple(f"i{i}" for i in range(order.size)),
                 up=up[order], down=down[order], preempted=preempted[order], start=0.0,
                 end=float(horizon), resolution=0.0)
