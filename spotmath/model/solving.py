"""What the model's functions share: its two models, how results come back, and the root
finders of the scalar solvers.

Two models: ``"exact"`` is the renewal-reward model of Poisson preemptions (the default),
``"first-order"`` the λ(T/2 + R) + C/T approximation.  Vectorised functions return a
float for scalar input and an array otherwise (:func:`as_output`).  The solvers bracket a
root by doubling or halving and finish with SciPy's ``brentq`` to 4 ulp (relative).

SciPy's optimisers are imported where they are first called, here and in the library's
other solvers: ``scipy.optimize`` is much of a command's start, and a command that solves
nothing (``spotmath derive``, a refused value, a trace that does not read) need not wait
for it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..inputs import check_choice

__all__ = ["MODELS", "Number", "as_output", "check_model", "root_up", "root_down",
           "snap_whole"]

#: The models, the first the default.
MODELS = ("exact", "first-order")

#: What the vectorised functions return: a float for scalar input, else an array.
Number = float | NDArray[np.float64]


def as_output(value: ArrayLike) -> Number:
    """A plain float for a scalar result, an array otherwise."""
    array = np.asarray(value, dtype=float)
    return float(array) if array.ndim == 0 else array


def check_model(model: str) -> str:
    """One of :data:`MODELS`, or an :class:`~spotmath.inputs.InputError` naming ``model``."""
    return check_choice("model", model, MODELS)


def root_up(function: Callable[[float], float], low: float, high: float) -> float:
    """Root of an increasing ``function`` with function(low) < 0, doubling ``high`` as needed.

    Raises :class:`ArithmeticError` when no sign change is found before ``high`` overflows.
    """
    from scipy.optimize import brentq  # on first use (see the module's docstring)

    for _ in range(2000):
        if not math.isfinite(high):
            break
        if function(high) >= 0:
            return brentq(function, low, high, xtol=1e-300, rtol=4 * np.finfo(float).eps)
        low, high = high, high * 2
    raise ArithmeticError("no sign change found while bracketing a root")


def root_down(function: Callable[[float], float], low: float, high: float,
              floor: float = 0.0) -> float:
    """Root of a decreasing ``function`` with function(high) < 0, halving ``low`` as needed.

    ``low`` never goes below ``floor`` (where the caller knows the function is >= 0).
    """
    from scipy.optimize import brentq  # on first use (see the module's docstring)

    for _ in range(2000):
        if function(low) >= 0:
            return brentq(function, low, high, xtol=1e-300, rtol=4 * np.finfo(float).eps)
        low, high = max(low / 2, floor), low
    raise ArithmeticError("no sign change found while bracketing a root")


def snap_whole(value: float) -> float:
    """A real gang size within 1e-9 (relative) of a whole number is that number.

    Rounding in the last digits must not move a break-even gang across an integer.
    """
    nearest = round(value)
    return float(nearest) if abs(value - nearest) <= 1e-9 * max(1.0, abs(value)) else value
