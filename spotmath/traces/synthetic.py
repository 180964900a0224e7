"""Spot traces drawn from known processes, with known parameters.

What the trace tools must find when the truth is known: a pool of instance slots whose
lifetimes are Weibull (exponential by default) at a known rate, with pool-wide bulk
reclaims at a known share, observed for a known time (:func:`synthetic_trace`); and
availability that alternates between spells of spot and outages of Weibull lengths
(:func:`spell_availability`), shaped like a published zone's (:data:`ZONES`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gamma

from ..inputs import InputError, check_duration, check_parameters, check_seed
from ..model.simulate import gap_scale
from .deadlines.availability import Availability
from .reading import Trace

__all__ = ["synthetic_trace", "ZONES", "weibull_shape_from", "spell_availability"]

#: Spells of spot and outages in five zones of the SkyPilot spot traces' two-month V100
#: availability files (``availability/1-node/aws-02-15-2023``, 195-s ticks, a value the
#: instances available [skytraces]_), hours, spells completed inside each file: mean and
#: median of the spells of spot, then of the outages.  Measured for this project on the
#: files read as published (issue 32); the files carry no licence, so they are not here.
ZONES = {
    "us-east-1a": (0.72, 0.33, 3.55, 0.54),
    "us-east-1c": (1.48, 0.49, 1.64, 0.54),
    "us-east-1f": (2.18, 0.54, 1.52, 0.49),
    "us-east-2a": (5.51, 0.87, 1.81, 0.38),
    "us-west-2b": (9.75, 1.25, 1.10, 0.38),
}


def weibull_shape_from(mean: float, median: float) -> float:
    """The Weibull shape whose median over its mean is ``median / mean``.

    median/mean = (ln 2)^(1/k) / Γ(1 + 1/k) grows with the shape k (to 1 as k → ∞), so
    one shape fits each ratio below 1.

    Examples
    --------
    >>> round(weibull_shape_from(1.0, math.log(2)), 6)  # the exponential
    1.0
    """
    mean = float(check_duration("mean", mean, scalar=True))
    median = float(check_duration("median", median, scalar=True))
    ratio = median / mean
    if not 0.01 < ratio < 0.99:
        raise InputError(f"median: {median:g} over the mean {mean:g} must be between 0.01 "
                         f"and 0.99 for a Weibull shape, got {ratio:.3g}")

    from scipy.optimize import brentq  # on first use (spotmath.model.solving says why)

    def gap(k: float) -> float:
        return math.log(2) ** (1 / k) / gamma(1 + 1 / k) - ratio

    return float(brentq(gap, 0.05, 50.0, xtol=1e-12))


def spell_availability(spells: tuple[float, float, float, float], hours: float,
                       tick: float, seed: int, name: str = "spells") -> Availability:
    """Availability that alternates spells of spot and outages of Weibull lengths.

    Each spell's length is drawn from the Weibull of its kind's mean and median
    (:func:`weibull_shape_from`) and rounded to whole ticks (at least one); the trace
    starts in a spell of spot or an outage in proportion to their means, and a count is 1
    in a tick of spot, 0 otherwise.

    Parameters
    ----------
    spells : tuple of float
        Mean and median of the spells of spot, then of the outages, hours (as
        :data:`ZONES`).
    hours : float
        The trace's length, hours.
    tick : float
        Hours.
    seed : int
        Seed of NumPy's random generator.
    name : str, optional
        The trace's name.

    Returns
    -------
    Availability

    Examples
    --------
    >>> trace = spell_availability(ZONES["us-west-2b"], 1080, 195 / 3600, seed=1)
    >>> len(trace), bool(0.8 < trace.spot().mean() < 0.95)
    (19938, True)
    """
    up_mean, up_median, down_mean, down_median = spells
    hours, tick = check_parameters(scalar=True, hours=hours, tick=tick)
    ticks = int(hours / tick)
    if not 1 <= ticks <= 10**7:
        raise InputError(f"hours: {hours:g} h is {ticks} ticks of {tick:g} h; from 1 to "
                         f"10 million ticks")
    draw = []
    for mean, median in ((up_mean, up_median), (down_mean, down_median)):
        shape = weibull_shape_from(mean, median)
        draw.append((shape, mean / gamma(1 + 1 / shape)))
    rng = np.random.default_rng(check_seed("seed", seed))
    counts = np.zeros(ticks, dtype=np.int64)
    spot = bool(rng.random() < up_mean / (up_mean + down_mean))
    at = 0
    while at < ticks:
        shape, scale = draw[0 if spot else 1]
        length = max(1, round(scale * rng.weibull(shape) / tick))
        if spot:
            counts[at:at + length] = 1
        at += length
        spot = not spot
    return Availability(name, float(tick), counts)


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
