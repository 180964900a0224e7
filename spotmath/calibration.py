"""Calibration and fleet helpers: rates from published figures, checkpoint costs from state
size, and prices per useful hour.

Like :mod:`spotmath.numerics`, every formula is generated from
:mod:`spotmath.derivations` (names in brackets; see :mod:`spotmath.codegen`) and every
input passes through
:func:`spotmath.inputs.check_parameters`.  Times in hours, rates per hour.
"""

from __future__ import annotations

from collections.abc import Callable

from . import _generated as G
from .inputs import check_parameters
from .numerics import Number, _out

__all__ = [
    "interrupted_fraction",
    "rate_from_interrupted_fraction",
    "observed_rate",
    "checkpoint_write_time",
    "elastic_waste",
    "useful_hour_price",
    "SECONDS_PER_HOUR",
]

SECONDS_PER_HOUR = 3600.0


def _f() -> dict[str, Callable]:
    return {
        "fraction": G.interrupted_fraction,
        "bucket": G.bucket_rate,
        "observed": G.observed_rate,
        "write": G.checkpoint_write_time,
        "elastic": G.elastic_waste,
        "price": G.useful_hour_price,
    }


def interrupted_fraction(preemption_rate: Number, exposure: Number) -> Number:
    """Share of instances running ``exposure`` hours that are interrupted: F = 1 − e^{−λH}.

    [interrupted-fraction]  Poisson preemptions at λ per hour.
    """
    rate, hours = check_parameters(preemption_rate=preemption_rate, exposure=exposure)
    return _out(_f()["fraction"](rate, hours))


def rate_from_interrupted_fraction(interrupted_fraction: Number, exposure: Number) -> Number:
    """Preemption rate (per hour) at which a share F of instances running H hours is
    interrupted: λ = −log(1 − F)/H.  [bucket-rate]

    This is how a monthly interruption-frequency bucket turns into a rate, *given* how long
    the instances ran; the bucket alone does not say.
    """
    fraction, hours = check_parameters(interrupted_fraction=interrupted_fraction,
                                       exposure=exposure)
    return _out(_f()["bucket"](fraction, hours))


def observed_rate(count: Number, units: Number, window: Number) -> Number:
    """Failures per unit-hour from a published count: λ = m/(nτ).  [observed-rate]

    ``count`` failures (m) among ``units`` units (n: GPUs or nodes) over ``window`` hours
    (τ); the maximum-likelihood rate of a Poisson count.
    """
    failures, units_, hours = check_parameters(count=count, units=units, window=window)
    return _out(_f()["observed"](failures, units_, hours))


def checkpoint_write_time(parameter_count: Number, bytes_per_parameter: Number,
                          bandwidth: Number) -> Number:
    """Hours to write the state of ``parameter_count`` parameters: C = qp/B.  [checkpoint-write]

    ``bytes_per_parameter`` (q) is the checkpointed state per parameter; ``bandwidth`` (B)
    is in bytes per *second*, as storage is quoted.
    """
    count, per, rate = check_parameters(parameter_count=parameter_count,
                                        bytes_per_parameter=bytes_per_parameter,
                                        bandwidth=bandwidth)
    return _out(_f()["write"](count, per, rate * SECONDS_PER_HOUR))


def elastic_waste(preemption_rate: Number, gang_size: int, rendezvous: Number,
                  restart_time: Number) -> Number:
    """First-order waste of an elastic job of N replicas: λ(2NP + R).  [elastic-waste]

    Each preemption pauses all replicas twice (leave, rejoin) for ``rendezvous`` hours (P)
    and the replacement takes ``restart_time`` (R) to start; no work is rolled back.
    """
    rate, size, pause, restart = check_parameters(
        preemption_rate=preemption_rate, gang_size=gang_size, rendezvous=rendezvous,
        restart_time=restart_time)
    return _out(_f()["elastic"](rate, size, pause, restart))


def useful_hour_price(waste: Number, price_discount: Number = 0.0,
                      utilization: Number = 1.0) -> Number:
    """Price of a useful hour, on-demand list price = 1: (1 − g)/(a(1 − w)).
    [useful-hour-price]

    ``price_discount`` g is 0 for on-demand, the spot discount for spot, the commitment
    discount for reserved capacity; ``utilization`` a is the share of paid hours that run
    jobs (1 for capacity bought only while used).
    """
    wasted, discount, used = check_parameters(waste=waste, price_discount=price_discount,
                                              utilization=utilization)
    return _out(_f()["price"](wasted, discount, used))
