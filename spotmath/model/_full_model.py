"""The full model, behind :mod:`spotmath.model.numerics`: a notice and asynchronous writes.

The public functions of :mod:`spotmath.model.numerics` (``waste_fraction``,
``optimal_interval``, ``optimal_waste``, ``break_even_intervals``, ``max_gang_size``) take
the options ``notice_share``, ``notice_write`` and ``persist``; with a notice share or a
persist time they call the functions here, which hold the full model's arithmetic.
``waste_floor`` and ``no_periodic_share`` are the full model's own, and numerics offers
them under the same names.

The rules are those of :mod:`spotmath.model.derivations` (section 9), in short: preemptions are
Poisson at λ; a share q of them (``notice_share``) comes with a notice that the job acts
on, writing an on-notice checkpoint of C_n (``notice_write``) that ends at the reclaim, so
such a preemption costs C_n and the restart; the others, and any preemption during a
snapshot or a restart, roll back to the last durable checkpoint.  A periodic checkpoint
blocks for C and becomes durable P (``persist``) later, while the next interval computes
(so T ≥ P); an unannounced preemption within P of a snapshot loses the interval before it
too.  q = 0 and P = 0 is the model of :mod:`spotmath.model.numerics`, exactly.

Every formula is generated from the derivations; the optimum is found on the derived
condition g(T) = 0, whose slope factor ℓ(T) is linear in T, so the roots of g are
bracketed by monotonicity (see :func:`optimal_interval`).  Times in hours, rates per hour.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..docs import fill_doc
from ..inputs import InputError, check_choice, check_parameters
from . import _generated
from .intervals import exact_interval
from .solving import MODELS, Number, as_output, root_down, root_up, snap_whole

__all__ = ["waste", "waste_floor", "optimum", "optimum_waste", "paying_intervals",
           "largest_gang", "no_periodic_share", "LONGEST", "NEGLIGIBLE"]

#: Intervals beyond this many mean times between preemptions (λT > 300) are not searched:
#: there the waste is within e^{−300} of its limit without periodic checkpoints.
LONGEST = 300.0

#: A periodic checkpoint that lowers the waste by less than this (a share of wall time, at
#: the level of rounding) is not recommended: the answer is then "only on notice".
NEGLIGIBLE = 1e-12


def _f_waste(model: str, preemptible: bool) -> Callable:
    if model == "exact":
        return (_generated.waste_notice_preemptible if preemptible
                else _generated.waste_notice_protected)
    return _generated.waste_first_order_notice


def _f_floor(preemptible: bool) -> Callable:
    return (_generated.notice_waste_floor_preemptible if preemptible
            else _generated.notice_waste_floor_protected)


def _f_condition() -> tuple[Callable, Callable, Callable]:
    """g(T)e^{−λ(T+C)} (same sign as g, no overflow) and the coefficients of ℓ = αT + β."""
    return _generated.notice_condition, _generated.notice_slope_alpha, _generated.notice_slope_beta


def _checked(preemption_rate, checkpoint_cost, notice_share, notice_write, persist):
    """Checked values; ``notice_write`` None means C + P (the time to a durable checkpoint)."""
    rate, cost, share, persist = check_parameters(
        scalar=True, preemption_rate=preemption_rate, checkpoint_cost=checkpoint_cost,
        notice_share=notice_share, persist=persist)
    write = cost + persist if notice_write is None else check_parameters(
        scalar=True, notice_write=notice_write)[0]
    return rate, cost, share, write, persist


def waste(
    preemption_rate: float, interval: Number, checkpoint_cost: float,
    restart_time: Number, *, notice_share: float = 0.0,
    notice_write: float | None = None, persist: float = 0.0, model: str = "exact",
    restart_preemptible: bool = True,
) -> Number:
    """Share of wall time not spent on useful compute, with a notice and asynchronous writes.

    ``interval`` must be at least ``persist`` (one save in flight).  Exact: 1 minus the
    renewal-reward useful share [notice-waste]; first order: C/T + (1 − q)λ(T/2 + R + P)
    + qλ(C_n + R) [notice-first-order].  ``notice_write`` defaults to C + P.  ``interval``
    and ``restart_time`` may be arrays.
    """
    rate, cost, share, write, persist = _checked(preemption_rate, checkpoint_cost,
                                                 notice_share, notice_write, persist)
    interval, restart = check_parameters(interval=interval, restart_time=restart_time)
    if np.any(np.asarray(interval) < persist):
        shown = float(np.min(interval))
        raise InputError(f"interval: {shown:g} h is shorter than the persist time "
                         f"{persist:g} h (only one checkpoint may be in flight)")
    model = check_choice("model", model, MODELS)
    function = _f_waste(model, bool(restart_preemptible))
    with np.errstate(invalid="ignore"):  # e^{λT}/(e^{λT} − 1) is ∞/∞ beyond λT ≈ 709
        waste = function(rate, interval, cost, restart, share, write, persist)
    if model == "exact":  # there the waste equals its limit to double precision
        floor = _f_floor(bool(restart_preemptible))(rate, restart, share, write)
        waste = np.where(rate * (np.asarray(interval) + cost) > LONGEST, floor, waste)
    return as_output(waste)


@fill_doc
def waste_floor(
    preemption_rate: float, restart_time: float, *, notice_share: float,
    notice_write: float, model: str = "exact", restart_preemptible: bool = True,
) -> float:
    """The waste without periodic checkpoints (T → ∞): the floor when every notice arrives.

    Exact: 1 − qe^{−λC_n}/(1 + λR̄) [notice-waste-floor]; first order: λ(C_n + R) when
    q = 1 and infinite otherwise (each unannounced preemption would lose T/2).

    Parameters
    ----------
    preemption_rate : float
        [[preemption_rate]]
    restart_time : float
        [[restart_time]]
    notice_share : float
        [[notice_share]]
    notice_write : float
        [[notice_write]]
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]

    Returns
    -------
    float
        The waste, a fraction (``math.inf`` in the first-order model with q < 1).

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> round(waste_floor(0.25, 1 / 6, notice_share=1.0, notice_write=1 / 60), 4)
    0.0448
    """
    rate, restart, share, write = check_parameters(
        scalar=True, preemption_rate=preemption_rate, restart_time=restart_time,
        notice_share=notice_share, notice_write=notice_write)
    if check_choice("model", model, MODELS) == "first-order":
        return rate * (write + restart) if share == 1 else math.inf
    return float(_f_floor(bool(restart_preemptible))(rate, restart, share, write))


def _monotone_root(g: Callable[[float], float], low: float, high: float) -> float | None:
    """The root of a monotone ``g`` in [low, high], or None if it keeps one sign there."""
    from scipy.optimize import brentq  # on first use (spotmath.model.solving says why)

    g_low, g_high = g(low), g(high)
    if g_low == 0:
        return low
    if g_low * g_high > 0:
        return None
    return brentq(g, low, high, xtol=1e-300, rtol=4 * np.finfo(float).eps)


def _stationary_maxima(rate: float, cost: float, share: float, write: float,
                       persist: float, start: float) -> list[float]:
    """Every local maximum of the useful share in T ≥ ``start`` (≥ C_n), by g's roots.

    g'(T) = e^{λ(T+C)}ℓ(T) with ℓ linear [notice-optimality], so g is monotone on each
    side of ℓ's root T_ℓ; each piece holds at most one root of g, found by bisection.  A
    root where g falls through zero is a maximum of the share.
    """
    g_f, alpha_f, beta_f = _f_condition()
    args = (cost, share, write, persist)

    def g(interval: float) -> float:
        return float(g_f(rate, interval, *args))

    with np.errstate(invalid="ignore"):  # inf − inf where λ(C + P) overflows a double
        alpha, beta = float(alpha_f(rate, *args)), float(beta_f(rate, *args))
    end = LONGEST / rate
    if start >= end:  # no interval left to search
        return []
    edges = [start]
    # ℓ = αT + β turns once, at −β/α; coefficients that overflowed give no turn to split at
    if math.isfinite(alpha) and math.isfinite(beta) and alpha != 0 \
            and start < -beta / alpha < end:
        edges.append(-beta / alpha)
    edges.append(end)
    maxima = []
    for low, high in zip(edges, edges[1:]):
        root = _monotone_root(g, low, high)
        if root is not None and g(low) > 0 >= g(high):
            maxima.append(root)
    return maxima


def optimum(
    preemption_rate: float, checkpoint_cost: float, *, notice_share: float = 0.0,
    notice_write: float | None = None, persist: float = 0.0, model: str = "exact",
    shortest: float = 0.0,
) -> float:
    """The interval (hours) that minimises the full model's waste over T ≥ ``shortest``.

    ``math.inf`` when no periodic checkpoint beats none at all by more than
    :data:`NEGLIGIBLE` (the notice does the work).
    First order: √(2C/((1 − q)λ)) [notice-first-order-optimum], inf when q = 1.  Exact: the
    best of the stationary maxima of the useful share (:func:`_stationary_maxima`), the
    optimum below C_n (today's exact optimum, where no on-notice write fits), the bound
    ``shortest``, and T → ∞.  With q = 0 it is today's exact optimum, at any P.
    """
    rate, cost, share, write, persist = _checked(preemption_rate, checkpoint_cost,
                                                 notice_share, notice_write, persist)
    (shortest,) = check_parameters(scalar=True, persist=shortest)
    if check_choice("model", model, MODELS) == "first-order":
        if share == 1:
            return math.inf
        return max(float(_generated.first_order_notice_interval(rate, cost, share)), shortest)
    plain = float(exact_interval(rate, cost))
    if share == 0:
        return max(plain, shortest)
    if rate * cost > LONGEST:  # a periodic write would almost never complete (waste 1)
        return math.inf
    candidates = [shortest] if shortest > 0 else []
    if plain < write and shortest <= write:  # the optimum where no on-notice write fits
        candidates.append(min(max(plain, shortest), write))
    start = max(write, shortest)
    candidates += [start] if start > 0 else []
    candidates += _stationary_maxima(rate, cost, share, write, persist, start)
    if not candidates:  # the share rises all the way: no periodic checkpoint
        return math.inf
    function = _f_waste("exact", True)
    wastes = [float(function(rate, c, cost, 0.0, share, write, persist)) for c in candidates]
    best = int(np.argmin(wastes))
    floor = float(_f_floor(True)(rate, 0.0, share, write))
    return math.inf if floor <= wastes[best] + NEGLIGIBLE else candidates[best]


def optimum_waste(
    preemption_rate: float, checkpoint_cost: float, restart_time: float, *,
    notice_share: float = 0.0, notice_write: float | None = None, persist: float = 0.0,
    model: str = "exact", restart_preemptible: bool = True,
) -> float:
    """The waste at the recommended interval: the optimum, at least P (inf: the floor)."""
    rate, cost, share, write, persist = _checked(preemption_rate, checkpoint_cost,
                                                 notice_share, notice_write, persist)
    best = optimum(rate, cost, notice_share=share, notice_write=write,
                            persist=persist, model=model, shortest=persist)
    variant = {"model": model, "restart_preemptible": restart_preemptible}
    if math.isinf(best):
        return waste_floor(rate, restart_time, notice_share=share, notice_write=write,
                           **variant)
    return waste(rate, best, cost, restart_time, notice_share=share,
                          notice_write=write, persist=persist, **variant)


def paying_intervals(
    preemption_rate: float, checkpoint_cost: float, restart_time: float,
    spot_discount: float, *, notice_share: float = 0.0, notice_write: float | None = None,
    persist: float = 0.0, model: str = "exact", restart_preemptible: bool = True,
) -> tuple[float, float] | None:
    """The intervals over which spot pays, (shortest, longest), or None if none does.

    Both ends are roots of waste = d on either side of the recommended interval; the
    longest is ``math.inf`` when even no periodic checkpoint at all pays (the waste floor
    is below d), and the shortest is at least P.
    """
    rate, cost, share, write, persist = _checked(preemption_rate, checkpoint_cost,
                                                 notice_share, notice_write, persist)
    (discount,) = check_parameters(scalar=True, spot_discount=spot_discount)
    full = {"notice_share": share, "notice_write": write, "persist": persist}
    variant = {"model": model, "restart_preemptible": restart_preemptible}
    if optimum_waste(rate, cost, restart_time, **full, **variant) >= discount:
        return None

    def excess(interval: float) -> float:
        return waste(rate, interval, cost, restart_time, **full, **variant) - discount

    best = optimum(rate, cost, **full, model=model, shortest=persist)
    floor = waste_floor(rate, restart_time, notice_share=share, notice_write=write,
                        **variant)
    if math.isinf(best):  # the waste falls towards the floor: pays from some T on
        best = LONGEST / rate
        for _ in range(2000):  # first order: C/T may keep it above d that far out
            if excess(best) < 0:
                break
            best *= 2
    high = math.inf if floor < discount else root_up(excess, best, 2 * best)
    if excess(max(persist, 1e-12 / rate)) < 0:
        return max(persist, 0.0), high
    # waste(P) >= d here, so the shortest paying interval lies in [P, best]
    return root_down(excess, max(best / 2, persist), best, floor=persist), high


def largest_gang(
    preemption_rate: float, checkpoint_cost: float, restart_time: float,
    spot_discount: float, *, notice_share: float = 0.0, notice_write: float | None = None,
    persist: float = 0.0, model: str = "exact", restart_preemptible: bool = True,
) -> int | None:
    """The largest gang for which spot pays at its recommended interval (full model).

    A bracketed root in the gang's rate of optimal waste = d; 0 if one node does not pay,
    None if no gang is too large (free on-notice writes and restarts with 1 − q ≤ d).
    """
    rate, cost, share, write, persist = _checked(preemption_rate, checkpoint_cost,
                                                 notice_share, notice_write, persist)
    (discount,) = check_parameters(scalar=True, spot_discount=spot_discount)
    full = {"notice_share": share, "notice_write": write, "persist": persist,
            "model": model, "restart_preemptible": restart_preemptible}

    def excess(gang_rate: float) -> float:
        return optimum_waste(gang_rate, cost, restart_time, **full) - discount

    if excess(rate) >= 0:
        return 0
    (restart,) = check_parameters(scalar=True, restart_time=restart_time)
    if write == 0 and restart == 0:
        # Free on-notice writes and restarts: as the gang's rate grows the waste tends to
        # its floor's limit, 1 − q (exact; first order: 0 with q = 1, else unbounded).
        limit = 1 - share if model == "exact" else 0.0 if share == 1 else math.inf
        if limit <= discount:
            return None  # every gang pays, however large
    try:
        size = root_up(excess, rate, 2 * rate) / rate
    except ArithmeticError:  # no gang rate is too high (free writes and restarts)
        return None
    if not math.isfinite(size):
        return None
    return max(0, math.ceil(snap_whole(size)) - 1)


@fill_doc
def no_periodic_share(
    preemption_rate: float, checkpoint_cost: float, *, notice_write: float,
    persist: float = 0.0, model: str = "exact",
) -> float:
    """The smallest notice share q from which no periodic checkpoint beats none at all.

    From this share on the job should checkpoint only on notice.  First order: 1 (only a
    perfect notice makes the periodic checkpoint useless there).  Exact: bisection on q of
    whether the optimal interval is finite (the optimum grows with q and diverges at this
    share).  Near it the periodic checkpoint's gain is at the level of rounding, so the
    share is meaningful to about 1e-3, and bisection stops at 1e-6.

    Parameters
    ----------
    preemption_rate : float
        [[preemption_rate]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    notice_write : float
        [[notice_write]]
    persist : float, optional
        [[persist]]
    model : {"exact", "first-order"}, optional
        [[model]]

    Returns
    -------
    float
        The share q, in (0, 1].

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> 0.99 < no_periodic_share(0.25, 1 / 60, notice_write=1 / 60) < 1
    True
    """
    rate, cost, _, write, persist = _checked(preemption_rate, checkpoint_cost, 0.0,
                                             notice_write, persist)
    if check_choice("model", model, MODELS) == "first-order":
        return 1.0

    def periodic(share: float) -> bool:
        return math.isfinite(optimum(rate, cost, notice_share=share,
                                              notice_write=write, persist=persist))

    low, high = 0.0, 1.0  # periodic checkpoints pay at q = 0 and not at q = 1
    while high - low > 1e-6:
        middle = (low + high) / 2
        low, high = (middle, high) if periodic(middle) else (low, middle)
    return high
