"""Calibration and fleet helpers: rates from published figures, checkpoint costs from state
size, and prices per useful hour.

Like :mod:`spotmath.model.numerics`, every formula is generated from
:mod:`spotmath.model.derivations` (names in brackets; see :mod:`spotmath.model.codegen`) and every
input passes through
:func:`spotmath.inputs.check_parameters`.  Times in hours, rates per hour.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..docs import fill_doc
from ..inputs import MAX_HOURS, WORDS, InputError, check_choice, check_parameters, check_size
from . import _generated
from .solving import Number, as_output

__all__ = [
    "interrupted_fraction",
    "rate_from_interrupted_fraction",
    "observed_rate",
    "checkpoint_write_time",
    "checkpoint_from_state",
    "STATE_BYTES_PER_PARAMETER",
    "state_bytes",
    "elastic_waste",
    "useful_hour_price",
    "SECONDS_PER_HOUR",
]

SECONDS_PER_HOUR = 3600.0


@fill_doc
def interrupted_fraction(preemption_rate: ArrayLike, exposure: ArrayLike) -> Number:
    """Share of instances running H hours that are interrupted: F = 1 − e^{−λH}.

    Parameters
    ----------
    preemption_rate : array_like
        Preemptions per instance-hour, λ > 0.
    exposure : array_like
        Hours each instance runs, H > 0.

    Returns
    -------
    float or numpy.ndarray
        The interrupted share F, a fraction.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    Notes
    -----
    Derivation ``interrupted-fraction`` (``spotmath derive interrupted-fraction``): Poisson
    preemptions at λ per hour.

    References
    ----------
    ``awsSpotAdvisor`` (interruption-frequency buckets).

    Examples
    --------
    >>> round(interrupted_fraction(0.25, 4.0), 4)
    0.6321
    """
    rate, hours = check_parameters(preemption_rate=preemption_rate, exposure=exposure)
    return as_output(_generated.interrupted_fraction(rate, hours))


@fill_doc
def rate_from_interrupted_fraction(interrupted_fraction: ArrayLike, exposure: ArrayLike) -> Number:
    """Preemption rate at which a share F of instances running H hours is interrupted.

    λ = −log(1 − F)/H.  This is how a monthly interruption-frequency bucket turns into a
    rate, *given* how long the instances ran; the bucket alone does not say.

    Parameters
    ----------
    interrupted_fraction : array_like
        The interrupted share F, strictly between 0 and 1.
    exposure : array_like
        Hours each instance runs, H > 0.

    Returns
    -------
    float or numpy.ndarray
        Preemptions per instance-hour.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    Notes
    -----
    Derivation ``bucket-rate``, the inverse of :func:`interrupted_fraction`.

    References
    ----------
    ``awsSpotAdvisor``.

    Examples
    --------
    >>> round(1 / rate_from_interrupted_fraction(0.05, 730), 1)  # MTBF of a 5% bucket, hours
    14231.9
    """
    fraction, hours = check_parameters(interrupted_fraction=interrupted_fraction,
                                       exposure=exposure)
    return as_output(_generated.bucket_rate(fraction, hours))


@fill_doc
def observed_rate(count: ArrayLike, units: ArrayLike, window: ArrayLike) -> Number:
    """Failures per unit-hour from a published count: λ = m/(nτ).

    The maximum-likelihood rate of a Poisson count of ``count`` failures (m) among ``units``
    units (n: GPUs or nodes) over ``window`` hours (τ).

    Parameters
    ----------
    count : array_like
        Failures observed, m ≥ 0.
    units : array_like
        Units observed, n > 0.
    window : array_like
        Hours observed, τ > 0.

    Returns
    -------
    float or numpy.ndarray
        Failures per unit-hour.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    Notes
    -----
    Derivation ``observed-rate``.

    References
    ----------
    ``llama3``, ``kokolis2025`` (the published counts the book uses).

    Examples
    --------
    >>> observed_rate(10, 100, 50.0)
    0.002
    """
    failures, units_, hours = check_parameters(count=count, units=units, window=window)
    return as_output(_generated.observed_rate(failures, units_, hours))


@fill_doc
def checkpoint_write_time(parameter_count: ArrayLike, bytes_per_parameter: ArrayLike,
                          bandwidth: ArrayLike) -> Number:
    """Hours to write the state of p parameters at B bytes per second: C = qp/B.

    Parameters
    ----------
    parameter_count : array_like
        Parameters in the checkpointed state, p > 0.
    bytes_per_parameter : array_like
        Checkpointed bytes per parameter, q > 0 (weights and optimizer state: 14 for mixed
        precision with Adam).
    bandwidth : array_like
        Write bandwidth, B > 0, bytes per *second*, as storage is quoted.

    Returns
    -------
    float or numpy.ndarray
        The write time C, hours.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]; a write longer than :data:`~spotmath.inputs.MAX_HOURS` (named
        ``bandwidth``).

    Notes
    -----
    Derivation ``checkpoint-write``.

    References
    ----------
    ``rajbhandari2020`` (bytes per parameter).

    Examples
    --------
    >>> round(checkpoint_write_time(7e9, 14, 2e9) * 60, 3)  # minutes
    0.817
    """
    count, per, rate = check_parameters(parameter_count=parameter_count,
                                        bytes_per_parameter=bytes_per_parameter,
                                        bandwidth=bandwidth)
    with np.errstate(over="ignore"):
        hours = _generated.checkpoint_write_time(count, per, rate * SECONDS_PER_HOUR)
    if np.any(~(np.asarray(hours) <= MAX_HOURS)):  # as every duration: at most MAX_HOURS
        counts, pers, rates, times = np.broadcast_arrays(count, per, rate, hours)
        first = np.flatnonzero(~(times <= MAX_HOURS))[0]
        raise InputError(WORDS["long_write"].format(
            name="bandwidth", size=counts.flat[first] * pers.flat[first],
            rate=rates.flat[first], hours=MAX_HOURS))
    return as_output(hours)


def checkpoint_from_state(state, write_bandwidth, snapshot_bandwidth=None
                          ) -> tuple[float, float]:
    """The blocking write C and the time P until it is durable, from the state's size.

    A blocking write takes the state to storage: C = S/B_write, P = 0.  An asynchronous
    one first copies it to host memory, which blocks training for C = S/B_snapshot, and
    then writes it to storage behind the training, durable after P = S/B_write (the
    ``persist`` of :func:`spotmath.optimal_interval`).  Both are [checkpoint-write] with
    the state as its bytes.

    Parameters
    ----------
    state : float or str
        S, the checkpoint's bytes: a number, or text such as ``'13.2GB'``.
    write_bandwidth : float or str
        B_write, bytes a second to durable storage (``'1.2GB/s'``).
    snapshot_bandwidth : float or str, optional
        B_snapshot, bytes a second to host memory (``'55GB/s'``): an asynchronous write.

    Returns
    -------
    tuple of float
        (C, P), hours.

    Raises
    ------
    InputError
        A size or bandwidth that is not one, or not above 0, or a write longer than
        :data:`~spotmath.inputs.MAX_HOURS`.

    References
    ----------
    The measured H200 figures in ``book/data/gpu/``: a 13.2 GB state, 1.18 GB/s to disk
    with fsync, 55 GB/s to pinned host memory.

    Examples
    --------
    >>> c, p = checkpoint_from_state("13.2GB", "1.2GB/s")
    >>> round(c * 3600, 1), p
    (11.0, 0.0)
    >>> c, p = checkpoint_from_state("13.2GB", "1.2GB/s", "55GB/s")
    >>> round(c * 3600, 2), round(p * 3600, 1)
    (0.24, 11.0)
    """
    size = check_size("state", state)
    durable = _write_hours(size, "write_bandwidth", write_bandwidth)
    if snapshot_bandwidth is None:
        return durable, 0.0
    return _write_hours(size, "snapshot_bandwidth", snapshot_bandwidth), durable


def _write_hours(size: float, name: str, bandwidth) -> float:
    """[checkpoint-write] for a state of ``size`` bytes at a checked ``bandwidth``, within
    the bounds of every duration (:data:`~spotmath.inputs.MAX_HOURS`): a write longer than
    that is refused naming the bandwidth, before dividing by it could overflow."""
    rate = check_size(name, bandwidth, per_second=True)
    if math.log(size) - math.log(rate * 3600) > math.log(MAX_HOURS):
        raise InputError(WORDS["long_write"].format(name=name, size=size, rate=rate,
                                                    hours=MAX_HOURS))
    return float(checkpoint_write_time(size, 1.0, rate))


#: Bytes a checkpoint holds per parameter, by training set-up: weights alone in bf16;
#: fp32 weights with AdamW's two fp32 moments (4 + 8, the measured Trainer checkpoints of
#: ``book/data/gpu/``); bf16 weights with an fp32 master copy and AdamW (2 + 4 + 8:
#: ZeRO's 16 bytes of mixed-precision Adam less the 2 of the gradients, which a
#: checkpoint does not keep; ``rajbhandari2020``).
STATE_BYTES_PER_PARAMETER = {"weights-bf16": 2.0, "fp32-adamw": 12.0, "mixed-adamw": 14.0}


def state_bytes(parameter_count, setup: str = "fp32-adamw") -> float:
    """The checkpoint's bytes for a model of ``parameter_count`` parameters.

    Parameters
    ----------
    parameter_count : float
        Parameters of the model, > 0.
    setup : {'weights-bf16', 'fp32-adamw', 'mixed-adamw'}, optional
        What the checkpoint holds (:data:`STATE_BYTES_PER_PARAMETER`); default fp32
        weights with AdamW.

    Returns
    -------
    float
        Bytes.

    Raises
    ------
    InputError
        A count that is not above 0, or an unknown set-up.

    Examples
    --------
    >>> state_bytes(1.1e9) / 1e9, state_bytes(7e9, "mixed-adamw") / 1e9
    (13.2, 98.0)
    """
    (count,) = check_parameters(scalar=True, parameter_count=parameter_count)
    setup = check_choice("setup", setup, tuple(STATE_BYTES_PER_PARAMETER))
    return float(count * STATE_BYTES_PER_PARAMETER[setup])


@fill_doc
def elastic_waste(preemption_rate: ArrayLike, gang_size: int, rendezvous: ArrayLike,
                  restart_time: ArrayLike) -> Number:
    """First-order waste of an elastic job of N replicas: λ(2NP + R).

    Each preemption pauses all replicas twice (leave, rejoin) for P hours and the
    replacement takes R to start; no work is rolled back.

    Parameters
    ----------
    preemption_rate : array_like
        Preemptions per node-hour, λ > 0.
    gang_size : int
        Replicas, N ≥ 1.
    rendezvous : array_like
        Pause per membership change, P ≥ 0, hours.
    restart_time : array_like
        Time for a replacement to start, R ≥ 0, hours.

    Returns
    -------
    float or numpy.ndarray
        The waste, a fraction (first order: may exceed 1 where it breaks down).
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    Notes
    -----
    Derivation ``elastic-waste``.

    References
    ----------
    ``thorpe2023`` (elastic training on preemptible instances).

    Examples
    --------
    >>> round(elastic_waste(0.25, 8, 1 / 60, 1 / 6), 4)
    0.1083
    """
    rate, size, pause, restart = check_parameters(
        preemption_rate=preemption_rate, gang_size=gang_size, rendezvous=rendezvous,
        restart_time=restart_time)
    return as_output(_generated.elastic_waste(rate, size, pause, restart))


@fill_doc
def useful_hour_price(waste: ArrayLike, price_discount: ArrayLike = 0.0,
                      utilization: ArrayLike = 1.0) -> Number:
    """Price of a useful hour, on-demand list price = 1: (1 − g)/(a(1 − w)).

    Parameters
    ----------
    waste : array_like
        Waste fraction w, in [0, 1).
    price_discount : array_like, optional
        g: 0 for on-demand (default), the spot discount for spot, the commitment discount
        for reserved capacity; a fraction in [0, 1).
    utilization : array_like, optional
        a: the share of paid hours that run jobs, in (0, 1] (default 1, for capacity bought
        only while used).

    Returns
    -------
    float or numpy.ndarray
        Price per useful hour relative to on-demand's list price.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    Notes
    -----
    Derivation ``useful-hour-price``.

    Examples
    --------
    >>> round(useful_hour_price(0.1257, 0.6), 4)  # spot at the book's defaults
    0.4575
    >>> round(useful_hour_price(0.0, 0.4, utilization=0.8), 4)  # reserved, 80% busy
    0.75
    """
    wasted, discount, used = check_parameters(waste=waste, price_discount=price_discount,
                                              utilization=utilization)
    return as_output(_generated.useful_hour_price(wasted, discount, used))
