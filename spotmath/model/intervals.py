"""The optimal checkpoint interval: Young's, Daly's and the exact one (Lambert W).

Printed from the derivations (:mod:`spotmath.model._generated`); the exact optimum is
polished by Newton steps on the derived optimality condition.  Times in hours, rates per
hour; vectorised (inputs broadcast).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ..docs import fill_doc
from ..inputs import check_parameters
from . import _generated
from .solving import Number, as_output

__all__ = ["young_interval", "daly_interval", "exact_interval"]


def _f_interval(kind: str) -> Callable:
    return {"young": _generated.young_interval, "daly": _generated.daly_interval,
            "exact": _generated.exact_interval_lambert}[kind]


def _f_optimality() -> tuple[Callable, Callable]:
    """The exact optimality condition g(x, c) and its derivative in x."""
    return _generated.optimality_condition, _generated.optimality_condition_slope


@fill_doc
def young_interval(preemption_rate: ArrayLike, checkpoint_cost: ArrayLike) -> Number:
    """Young's optimal compute interval T* = √(2C/λ), hours.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    checkpoint_cost : array_like
        Time a checkpoint write blocks training, C, hours (C > 0 where an optimum is sought).

    Returns
    -------
    float or numpy.ndarray
        The interval, hours.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    References
    ----------
    ``young1974``.

    Examples
    --------
    >>> round(young_interval(0.25, 1 / 60) * 60, 2)  # minutes
    21.91
    """
    rate, cost = check_parameters(preemption_rate=preemption_rate, checkpoint_cost=checkpoint_cost)
    return as_output(_f_interval("young")(rate, cost))


@fill_doc
def daly_interval(preemption_rate: ArrayLike, checkpoint_cost: ArrayLike) -> Number:
    """Daly's higher-order optimal interval, hours.

    √(2C/λ) − 2C/3 + (√2/18)C^{3/2}λ^{1/2} while C < 2/λ, else 1/λ: the series of the
    exact optimum in √(λC), to third order.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    checkpoint_cost : array_like
        Time a checkpoint write blocks training, C, hours (C > 0 where an optimum is sought).

    Returns
    -------
    float or numpy.ndarray
        The interval, hours.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    References
    ----------
    ``daly2006``.

    Examples
    --------
    >>> round(daly_interval(0.25, 1 / 60) * 60, 2)  # minutes
    21.25
    """
    rate, cost = check_parameters(preemption_rate=preemption_rate, checkpoint_cost=checkpoint_cost)
    return as_output(_f_interval("daly")(rate, cost))


@fill_doc
def exact_interval(preemption_rate: ArrayLike, checkpoint_cost: ArrayLike) -> Number:
    """The exact optimal interval under Poisson preemptions, hours.

    T* = (1 + W₀(−e^{−λC−1}))/λ minimises E/T in both restart variants.  Near λC → 0 the
    argument of W₀ sits at the branch point −1/e, where rounding −e^{−λC−1} to a float costs
    about 1e-16/(2λC) in relative accuracy; so where λC < 1e-3 the start value is Daly's
    series instead, and three Newton steps on the derived optimality condition
    λC + x + log(1 − x) = 0 (x = λT, evaluated with log1p) bring either start value to full
    precision.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    checkpoint_cost : array_like
        Time a checkpoint write blocks training, C, hours (C > 0 where an optimum is sought).

    Returns
    -------
    float or numpy.ndarray
        The interval, hours.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    References
    ----------
    ``daly2006``, ``bougeret2011``.

    Examples
    --------
    >>> round(exact_interval(0.25, 1 / 60) * 60, 2)  # minutes
    21.25
    """
    rate, cost = check_parameters(preemption_rate=preemption_rate, checkpoint_cost=checkpoint_cost)
    return as_output(_exact_interval(rate, cost))


def _exact_interval(rate: ArrayLike, cost: ArrayLike) -> np.ndarray:
    """:func:`exact_interval` of values already checked (the pool's ranks start a search
    from it for each of hundreds of gangs)."""
    rate, cost = np.broadcast_arrays(np.asarray(rate, float), np.asarray(cost, float))
    lam_c = rate * cost
    with np.errstate(divide="ignore", invalid="ignore"):
        start = np.where(lam_c < 1e-3, _f_interval("daly")(rate, cost),
                         np.real(_f_interval("exact")(rate, cost))) * rate
        g, dg = _f_optimality()
        x = start
        for _ in range(3):
            step = g(x, lam_c) / dg(x, lam_c)
            x = np.where((x > 0) & (x < 0.5) & np.isfinite(step), x - step, x)
    return x / rate
