"""Fast numbers from the derivations: generated, vectorised, and root finding on top.

Every formula here is generated ahead of time from :mod:`spotmath.model.derivations` with
``sympy.lambdify`` (after SymPy's C99 rewrites, so ``exp(x) − 1`` becomes ``expm1`` and
``log(1 + x)`` becomes ``log1p``) into :mod:`spotmath.model._generated` (see
:mod:`spotmath.model.codegen`); nothing is retyped, and nothing here runs SymPy.  All inputs pass
through :func:`spotmath.inputs.check_parameters`.

Units: times in hours, rates per hour.  Vectorised functions accept NumPy arrays (they
broadcast) and return floats for scalar input.  The break-even and gang-size solvers are
scalar.

Two models: ``"exact"`` is the renewal-reward model of Poisson preemptions (the default),
``"first-order"`` the λ(T/2 + R) + C/T approximation.  For the exact model,
``restart_preemptible=True`` (the default) lets a restart be preempted too, as it can for a
spot gang whose replacement nodes are spot as well (Daly's variant);
``restart_preemptible=False`` treats the restart as protected.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ..docs import fill_doc
from ..inputs import InputError, check_number, check_parameters
from . import _full_model, _generated
from ._full_model import no_periodic_share, waste_floor
from .intervals import daly_interval, exact_interval, young_interval
from .solving import MODELS, Number, as_output, check_model, root_down, root_up, snap_whole

__all__ = [
    "MODELS",
    "lost_work",
    "segment_time",
    "waste_fraction",
    "young_interval",
    "daly_interval",
    "exact_interval",
    "optimal_interval",
    "optimal_waste",
    "relative_price",
    "effective_discount",
    "break_even_intervals",
    "break_even_interval",
    "break_even_preemption_rate",
    "break_even_restart_time",
    "break_even_discount",
    "gang_rate",
    "gang_survival",
    "max_gang_size",
    "never_on_spot_gang_size",
    "waste_floor",
    "no_periodic_share",
    "REFUSALS",
]

#: The refusal to price spot at a waste of 100% or more, written once (the page fills it).
REFUSALS = {
    "unpriced": "{name}: must be a fraction in [0, 1) to price spot, got {value:g} (at 100% "
                "no hour is useful; a first-order waste of 100% or more means the "
                "approximation has broken down: use the exact model)",
}


def _full_options(notice_share: float, notice_write: float | None,
                  persist: float) -> dict | None:
    """The full model's options when a notice share or a persist time is given, else None:
    with neither, the full model is today's (its formulas reduce to these), so today's
    functions answer, number for number."""
    share, persist = check_parameters(scalar=True, notice_share=notice_share, persist=persist)
    if share == 0 and persist == 0:
        return None
    return {"notice_share": share, "notice_write": notice_write, "persist": persist}


# -- the generated functions, by model and restart variant ------------------------------------
#: Below this λT the exact loss is taken from its series (``lost-work-series``, to λ³):
#: 1/λ − T/(e^{λT} − 1) subtracts two numbers near 1/λ, and loses about 2ε/(λT) of its
#: precision (a λT of 1e-15 gave half the loss); at 0.01 the series and the closed form
#: are both within 3e-14 of the loss to 50 digits (mpmath).
SERIES_BELOW = 0.01


def _lost_work_exact(rate, interval):
    """[lost-work-exact], from its series where λT is small (:data:`SERIES_BELOW`)."""
    small = rate * interval < SERIES_BELOW
    return np.where(small, _generated.lost_work_series(rate, interval),
                    _generated.lost_work_exact(rate, interval))


def _f_lost_work(model: str) -> Callable:
    return _lost_work_exact if model == "exact" else _generated.lost_work_first_order


def _f_segment_time(preemptible: bool) -> Callable:
    return _generated.segment_time_preemptible if preemptible else _generated.segment_time_protected


def _f_waste(model: str, preemptible: bool) -> Callable:
    if model == "exact":
        return (_generated.waste_exact_preemptible if preemptible
                else _generated.waste_exact_protected)
    return _generated.waste_first_order


def _f_free_checkpoint_limit(model: str, preemptible: bool) -> Callable:
    if model == "exact":
        return (_generated.free_limit_exact_preemptible if preemptible
                else _generated.free_limit_exact_protected)
    return _generated.free_limit_first_order


def _f_break_even_first_order() -> dict[str, Callable]:
    return {
        "shortest": _generated.break_even_shortest_first_order,
        "longest": _generated.break_even_longest_first_order,
        "rate": _generated.break_even_rate_first_order,
        "restart": _generated.break_even_restart_first_order,
    }


def _f_break_even_restart_exact(preemptible: bool) -> Callable:
    return (_generated.break_even_restart_exact_preemptible if preemptible
            else _generated.break_even_restart_exact_protected)


def _f_gang() -> dict[str, Callable]:
    return {"rate": _generated.gang_rate, "survival": _generated.gang_survival,
            "max_first_order": _generated.max_gang_first_order}


def _f_never_on_spot(model: str, preemptible: bool) -> Callable:
    if model == "exact":
        return (_generated.never_on_spot_exact_preemptible if preemptible
                else _generated.never_on_spot_exact_protected)
    return _generated.never_on_spot_first_order


# -- vectorised formulas ----------------------------------------------------------------------
@fill_doc
def lost_work(preemption_rate: ArrayLike, interval: ArrayLike, model: str = "exact") -> Number:
    """Expected compute lost per preemption, hours.

    First order: T/2.  Exact (Poisson preemptions, conditioned on one landing in the
    interval): 1/λ − T/(e^{λT} − 1), slightly less than T/2.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    interval : array_like
        [[interval]]
    model : {"exact", "first-order"}, optional
        Exact conditional mean (default) or T/2.

    Returns
    -------
    float or numpy.ndarray
        Hours of compute lost per preemption.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    References
    ----------
    ``young1974`` (the T/2 argument), ``daly2006`` (the exact mean).

    Examples
    --------
    >>> round(lost_work(0.25, 1.0), 4), lost_work(0.25, 1.0, model="first-order")
    (0.4792, 0.5)
    """
    rate, interval = check_parameters(preemption_rate=preemption_rate, interval=interval)
    rate, interval = np.broadcast_arrays(np.asarray(rate, float), np.asarray(interval, float))
    return as_output(_f_lost_work(check_model(model))(rate, interval))


@fill_doc
def segment_time(
    preemption_rate: ArrayLike, interval: ArrayLike, checkpoint_cost: ArrayLike = 0.0,
    restart_time: ArrayLike = 0.0, *, restart_preemptible: bool = True,
) -> Number:
    """Exact expected wall time to complete T hours of compute and a C-hour write.

    Restart preemptible (default): E = e^{λR}(e^{λ(T+C)} − 1)/λ.
    Restart protected: E = (e^{λ(T+C)} − 1)(1/λ + R).

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    interval : array_like
        [[interval]]
    checkpoint_cost : array_like, optional
        Time a checkpoint write blocks training, C ≥ 0, hours (default 0).
    restart_time : array_like, optional
        Preemption to computing again, R ≥ 0, hours (default 0).
    restart_preemptible : bool, optional
        [[restart_preemptible]]

    Returns
    -------
    float or numpy.ndarray
        Expected wall time E, hours (at least T + C).
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]; a segment so long at so high a rate that its expected time
        overflows (it almost never completes).

    References
    ----------
    ``daly2006``.

    Examples
    --------
    >>> round(segment_time(0.25, 1.0, 1 / 60, 1 / 6), 4)
    1.2068
    """
    rate, interval, cost, restart = check_parameters(
        preemption_rate=preemption_rate, interval=interval, checkpoint_cost=checkpoint_cost,
        restart_time=restart_time)
    with np.errstate(over="ignore"):
        expected = _f_segment_time(bool(restart_preemptible))(rate, interval, cost, restart)
    if not np.all(np.isfinite(expected)):  # e^{λ(T + C + R)} beyond any float
        rates, intervals, times = np.broadcast_arrays(rate, interval, expected)
        first = np.flatnonzero(~np.isfinite(times))[0]
        raise InputError(f"interval: at {rates.flat[first]:g} preemptions per hour a "
                         f"segment of {intervals.flat[first]:g} h (with its write and "
                         "restart) almost never completes: its expected time overflows")
    return as_output(expected)


@fill_doc
def waste_fraction(
    preemption_rate: ArrayLike, interval: ArrayLike, checkpoint_cost: ArrayLike = 0.0,
    restart_time: ArrayLike = 0.0, *, model: str = "exact", restart_preemptible: bool = True,
    notice_share: float = 0.0, notice_write: float | None = None, persist: float = 0.0,
) -> Number:
    """Share of wall time not spent on useful compute.

    First order: C/T + λ(T/2 + R), which may exceed 1 where the approximation has broken
    down.  Exact: 1 − T/E with E from :func:`segment_time`.  With a notice share or a
    persist time, the full model's waste [notice-waste] (first order:
    [notice-first-order]); the rate is then a single number, every interval at least P.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    interval : array_like
        [[interval]]
    checkpoint_cost : array_like, optional
        Time a checkpoint write blocks training, C ≥ 0, hours (default 0).
    restart_time : array_like, optional
        Preemption to computing again, R ≥ 0, hours (default 0).
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]
    notice_share : float, optional
        [[notice_share]]
    notice_write : float, optional
        [[notice_write]]
    persist : float, optional
        [[persist]]

    Returns
    -------
    float or numpy.ndarray
        The waste w, a fraction.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    References
    ----------
    ``young1974``, ``daly2006``.

    Examples
    --------
    >>> round(waste_fraction(0.25, 21.2 / 60, 1 / 60, 1 / 6), 4)
    0.1257
    >>> waste_fraction(0.25, [0.25, 1.0], model="first-order")
    array([0.03125, 0.125  ])
    """
    full = _full_options(notice_share, notice_write, persist)
    if full is not None:
        return _full_model.waste(preemption_rate, interval, checkpoint_cost, restart_time,
                                 model=model, restart_preemptible=restart_preemptible, **full)
    rate, interval, cost, restart = check_parameters(
        preemption_rate=preemption_rate, interval=interval, checkpoint_cost=checkpoint_cost,
        restart_time=restart_time)
    function = _f_waste(check_model(model), bool(restart_preemptible))
    return as_output(function(rate, interval, cost, restart))


@fill_doc
def optimal_interval(
    preemption_rate: ArrayLike, checkpoint_cost: ArrayLike, model: str = "exact", *,
    notice_share: float = 0.0, notice_write: float | None = None, persist: float = 0.0,
    shortest: float = 0.0,
) -> Number:
    """The model's optimal interval: exact (Lambert W) or first order (Young), hours.

    With a notice share or a persist time, the full model's optimum over T ≥ ``shortest``:
    ``math.inf`` when no periodic checkpoint beats none at all (the notice does the work);
    first order √(2C/((1 − q)λ)) [notice-first-order-optimum], exact on the derived
    condition [notice-optimality].  The rate and write are then single numbers.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    checkpoint_cost : array_like
        Time a checkpoint write blocks training, C, hours (C > 0 where an optimum is sought).
    model : {"exact", "first-order"}, optional
        :func:`exact_interval` (default) or :func:`young_interval`.
    notice_share : float, optional
        [[notice_share]]
    notice_write : float, optional
        [[notice_write]]
    persist : float, optional
        [[persist]]
    shortest : float, optional
        The shortest interval allowed, hours (default 0).

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
    ``young1974``, ``daly2006``.

    Examples
    --------
    >>> round(optimal_interval(0.25, 1 / 60, model="first-order") * 60, 2)
    21.91
    """
    full = _full_options(notice_share, notice_write, persist)
    if full is not None:
        return _full_model.optimum(preemption_rate, checkpoint_cost, model=model,
                                   shortest=shortest, **full)
    (shortest,) = check_parameters(scalar=True, persist=shortest)
    if check_model(model) == "exact":
        best = exact_interval(preemption_rate, checkpoint_cost)
    else:
        best = young_interval(preemption_rate, checkpoint_cost)
    return as_output(np.maximum(best, shortest)) if shortest > 0 else best


@fill_doc
def optimal_waste(
    preemption_rate: ArrayLike, checkpoint_cost: ArrayLike, restart_time: ArrayLike = 0.0, *,
    model: str = "exact", restart_preemptible: bool = True, notice_share: float = 0.0,
    notice_write: float | None = None, persist: float = 0.0,
) -> Number:
    """The waste fraction at the model's optimal interval.

    With a notice share or a persist time, at the full model's recommended interval (at
    least P), or its floor without periodic checkpoints where none beats that.

    With C = 0 the optimum is to checkpoint continuously (T → 0), and the waste is its
    limit: λR (first order), 1 − e^{−λR} (preemptible restart) or λR/(1 + λR).

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    checkpoint_cost : array_like
        Time a checkpoint write blocks training, C ≥ 0, hours (default 0).
    restart_time : array_like, optional
        Preemption to computing again, R ≥ 0, hours (default 0).
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]
    notice_share : float, optional
        [[notice_share]]
    notice_write : float, optional
        [[notice_write]]
    persist : float, optional
        [[persist]]

    Returns
    -------
    float or numpy.ndarray
        The waste at the optimum, a fraction.
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
    >>> round(optimal_waste(0.25, 1 / 60, 1 / 6), 4)
    0.1257
    >>> round(optimal_waste(0.25, 0, 1 / 6), 4)  # free checkpoints: 1 - exp(-λR)
    0.0408
    """
    full = _full_options(notice_share, notice_write, persist)
    if full is not None:
        return _full_model.optimum_waste(preemption_rate, checkpoint_cost, restart_time,
                                         model=model,
                                         restart_preemptible=restart_preemptible, **full)
    rate, cost, restart = check_parameters(
        preemption_rate=preemption_rate, checkpoint_cost=checkpoint_cost,
        restart_time=restart_time)
    rate, cost, restart = np.broadcast_arrays(
        *(np.asarray(v, float) for v in (rate, cost, restart)))
    free = _f_free_checkpoint_limit(check_model(model), bool(restart_preemptible))(rate, restart)
    paid = cost > 0
    result = np.array(free, dtype=float)
    if np.any(paid):
        interval = optimal_interval(rate[paid], cost[paid], model)
        result[paid] = waste_fraction(rate[paid], interval, cost[paid], restart[paid],
                                      model=model, restart_preemptible=restart_preemptible)
    return as_output(result)


def relative_price(waste: ArrayLike, spot_discount: ArrayLike) -> Number:
    """Spot's price per useful hour relative to on-demand: (1 − d)/(1 − w).

    Equivalently (1 − d)·E/T.  Spot pays while this is below 1, that is while the waste w
    is below the discount d.

    Parameters
    ----------
    waste : array_like
        The waste fraction w, in [0, 1).
    spot_discount : float
        Spot's discount against on-demand, d, strictly between 0 and 1.

    Returns
    -------
    float or numpy.ndarray
        The ratio of prices per useful hour (on-demand = 1).
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        A discount out of range, or a waste outside [0, 1): a first-order waste of 100% or
        more has no meaningful price.

    Examples
    --------
    >>> round(relative_price(0.1256, 0.6), 4)
    0.4575
    """
    (discount,) = check_parameters(spot_discount=spot_discount)
    waste = np.asarray(check_number("waste", waste, minimum=-math.inf, allow_minimum=False,
                                    expected="a waste fraction (a number or an array)"))
    if np.any(~np.isfinite(waste)) or np.any(waste < 0) or np.any(waste >= 1):
        bad = waste[~np.isfinite(waste) | (waste < 0) | (waste >= 1)].flat[0]
        raise InputError(REFUSALS["unpriced"].format(name="waste", value=bad))
    return as_output((1 - discount) / (1 - waste))


def effective_discount(waste: float, spot_discount: float) -> float | None:
    """Spot's discount per useful hour: 1 − (1 − d)/(1 − w); None when w ≥ 1.

    Spot pays while this is above 0.  At a waste of 100% (or a first-order waste beyond
    it) no hour is useful, so a useful hour has no price: the result is None, never a
    number that would look like one.

    Parameters
    ----------
    waste : float
        The waste fraction w, ≥ 0 (values of 1 and more give None).
    spot_discount : float
        Spot's discount against on-demand, d, strictly between 0 and 1.

    Returns
    -------
    float or None

    Raises
    ------
    InputError
        A discount out of range, or a waste that is negative or not a number.

    Examples
    --------
    >>> round(effective_discount(0.1256, 0.6), 4), effective_discount(1.0, 0.6)
    (0.5425, None)
    """
    waste = check_number("waste", waste, minimum=0.0, allow_minimum=True,
                         expected="a waste fraction >= 0", scalar=True)
    check_parameters(scalar=True, spot_discount=spot_discount)
    return None if waste >= 1 else 1 - float(relative_price(waste, spot_discount))


@fill_doc
def break_even_intervals(
    preemption_rate: float, checkpoint_cost: float, restart_time: float, spot_discount: float,
    *, model: str = "exact", restart_preemptible: bool = True, notice_share: float = 0.0,
    notice_write: float | None = None, persist: float = 0.0,
) -> tuple[float, float] | None:
    """The range of intervals over which spot pays, or None if none does.

    Spot pays while its waste is below the discount d.  The waste is lowest at the optimal
    interval; checkpointing more often (C/T) or less often (lost work) raises it, so the
    intervals that pay form one range.  First order: the roots of C/T + λ(T/2 + R) = d in
    closed form.  Exact: roots bracketed from the optimum, then Brent's method to
    4 ulp (relative).  With a notice share or a persist time, the full model's: the
    longest is ``math.inf`` when even no periodic checkpoint pays, the shortest at least P.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    restart_time : float
        [[restart_time]]
    spot_discount : float
        [[spot_discount]]
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]
    notice_share : float, optional
        [[notice_share]]
    notice_write : float, optional
        [[notice_write]]
    persist : float, optional
        [[persist]]

    Returns
    -------
    tuple of float or None
        (shortest, longest) interval in hours; the shortest is 0 when C = 0.  None when even
        the optimal interval wastes at least the discount.

    Raises
    ------
    InputError
        [[bad_value]]

    References
    ----------
    ``daly2006``.

    Examples
    --------
    >>> low, high = break_even_intervals(0.25, 1 / 60, 1 / 6, 0.6)
    >>> round(low * 3600, 1), round(high, 2)  # seconds, hours
    (43.2, 6.18)
    >>> break_even_intervals(2.0, 1 / 60, 1.0, 0.6) is None
    True
    """
    full = _full_options(notice_share, notice_write, persist)
    if full is not None:
        return _full_model.paying_intervals(preemption_rate, checkpoint_cost, restart_time,
                                            spot_discount, model=model,
                                            restart_preemptible=restart_preemptible, **full)
    rate, cost, restart, discount = check_parameters(
        scalar=True, preemption_rate=preemption_rate, checkpoint_cost=checkpoint_cost,
        restart_time=restart_time, spot_discount=spot_discount)
    model = check_model(model)
    if optimal_waste(rate, cost, restart, model=model,
                     restart_preemptible=restart_preemptible) >= discount:
        return None
    if model == "first-order":
        functions = _f_break_even_first_order()
        return (float(functions["shortest"](rate, cost, restart, discount)),
                float(functions["longest"](rate, cost, restart, discount)))

    def excess(interval: float) -> float:
        return waste_fraction(rate, interval, cost, restart, model=model,
                              restart_preemptible=restart_preemptible) - discount

    best = exact_interval(rate, cost) if cost > 0 else 1e-9 / rate
    high = root_up(excess, best, 2 * best)
    low = root_down(excess, best / 2, best) if cost > 0 else 0.0
    return low, high


@fill_doc
def break_even_interval(
    preemption_rate: float, checkpoint_cost: float, restart_time: float, spot_discount: float,
    *, model: str = "exact", restart_preemptible: bool = True,
) -> float | None:
    """The longest interval at which spot still pays, or None if none does.

    The upper end of :func:`break_even_intervals`: checkpoint less often than this and spot
    costs more per useful hour than on-demand.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    restart_time : float
        [[restart_time]]
    spot_discount : float
        [[spot_discount]]
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]

    Returns
    -------
    float or None
        Hours; None when no interval pays.

    Raises
    ------
    InputError
        [[bad_value]]

    References
    ----------
    ``daly2006``.

    Examples
    --------
    >>> round(break_even_interval(0.25, 1 / 60, 1 / 6, 0.6), 2)
    6.18
    >>> round(break_even_interval(0.25, 1 / 60, 1 / 6, 0.6, model="first-order"), 2)
    4.44
    """
    found = break_even_intervals(preemption_rate, checkpoint_cost, restart_time, spot_discount,
                                 model=model, restart_preemptible=restart_preemptible)
    return None if found is None else found[1]


@fill_doc
def break_even_preemption_rate(
    interval: float, checkpoint_cost: float, restart_time: float, spot_discount: float,
    *, model: str = "exact", restart_preemptible: bool = True,
) -> float | None:
    """The preemption rate at which spot stops paying, or None if it never pays.

    Spot pays for rates below it.  First order in closed form; exact: a bracketed root.

    Parameters
    ----------
    interval : float
        [[interval]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    restart_time : float
        [[restart_time]]
    spot_discount : float
        [[spot_discount]]
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]

    Returns
    -------
    float or None
        Preemptions per node-hour; None when even with no preemptions the checkpoint writes
        alone (C/(T + C) exact, C/T first order) use up the discount.

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> round(1 / break_even_preemption_rate(21.2 / 60, 1 / 60, 1 / 6, 0.6), 2)  # MTBF, h
    0.42
    """
    interval, cost, restart, discount = check_parameters(
        scalar=True, interval=interval, checkpoint_cost=checkpoint_cost,
        restart_time=restart_time, spot_discount=spot_discount)
    if check_model(model) == "first-order":
        rate = float(_f_break_even_first_order()["rate"](interval, cost, restart, discount))
        return rate if rate > 0 else None
    if cost / (interval + cost) >= discount:
        return None

    def excess(rate: float) -> float:
        return waste_fraction(rate, interval, cost, restart, model=model,
                              restart_preemptible=restart_preemptible) - discount

    tiny = 1e-12 / (interval + cost + restart)
    return root_up(excess, tiny, 1 / (interval + cost + restart))


@fill_doc
def break_even_restart_time(
    preemption_rate: float, interval: float, checkpoint_cost: float, spot_discount: float,
    *, model: str = "exact", restart_preemptible: bool = True,
) -> float | None:
    """The restart time at which spot stops paying, or None if it never pays.

    Closed form in both models (solved by SymPy).

    Parameters
    ----------
    preemption_rate : float
        [[preemption_rate]]
    interval : float
        [[interval]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    spot_discount : float
        [[spot_discount]]
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]

    Returns
    -------
    float or None
        Hours; None when even an instant restart leaves the waste at or above the discount.

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> round(break_even_restart_time(0.25, 21.2 / 60, 1 / 60, 0.6), 2)
    3.29
    """
    rate, interval, cost, discount = check_parameters(
        scalar=True, preemption_rate=preemption_rate, interval=interval,
        checkpoint_cost=checkpoint_cost, spot_discount=spot_discount)
    if check_model(model) == "first-order":
        restart = _f_break_even_first_order()["restart"](rate, interval, cost, discount)
    else:
        if waste_fraction(rate, interval, cost, 0.0, restart_preemptible=restart_preemptible) \
                >= discount:
            return None
        restart = _f_break_even_restart_exact(bool(restart_preemptible))(rate, interval, cost,
                                                                         discount)
    restart = float(restart)
    return restart if restart >= 0 else None


@fill_doc
def break_even_discount(
    preemption_rate: float, interval: float, checkpoint_cost: float, restart_time: float,
    *, model: str = "exact", restart_preemptible: bool = True,
) -> float | None:
    """The smallest spot discount at which spot pays: the waste fraction itself.

    Parameters
    ----------
    preemption_rate : float
        [[preemption_rate]]
    interval : float
        [[interval]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    restart_time : float
        [[restart_time]]
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]

    Returns
    -------
    float or None
        A fraction; None where the first-order waste reaches 100% (no discount pays).

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> round(break_even_discount(0.25, 21.2 / 60, 1 / 60, 1 / 6), 4)
    0.1257
    """
    check_parameters(scalar=True, preemption_rate=preemption_rate, interval=interval,
                     checkpoint_cost=checkpoint_cost, restart_time=restart_time)
    waste = float(waste_fraction(preemption_rate, interval, checkpoint_cost, restart_time,
                                 model=model, restart_preemptible=restart_preemptible))
    return waste if waste < 1 else None


# -- gangs ------------------------------------------------------------------------------------
@fill_doc
def gang_rate(preemption_rate: ArrayLike, gang_size: int) -> Number:
    """Preemption rate of a synchronous gang of N independent nodes: Nλ.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    gang_size : int
        Nodes in the synchronous gang, N ≥ 1.

    Returns
    -------
    float or numpy.ndarray
        Preemptions of the gang per hour.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> gang_rate(0.25, 8)
    2.0
    """
    rate, size = check_parameters(preemption_rate=preemption_rate, gang_size=gang_size)
    return as_output(_f_gang()["rate"](rate, size))


@fill_doc
def gang_survival(preemption_rate: ArrayLike, gang_size: int, interval: ArrayLike) -> Number:
    """Probability that no node of the gang is preempted within T hours: e^{−NλT}.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    gang_size : int
        Nodes in the synchronous gang, N ≥ 1.
    interval : array_like
        [[interval]]

    Returns
    -------
    float or numpy.ndarray
        A probability.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> round(gang_survival(0.25, 8, 0.5), 4)
    0.3679
    """
    rate, size, interval = check_parameters(
        preemption_rate=preemption_rate, gang_size=gang_size, interval=interval)
    return as_output(_f_gang()["survival"](rate, size, interval))


@fill_doc
def never_on_spot_gang_size(
    preemption_rate: float, restart_time: float, spot_discount: float, *,
    model: str = "exact", restart_preemptible: bool = True,
) -> int | None:
    """The smallest gang for which spot never pays, even with free, instant checkpoints.

    With C = 0 and T → 0 only the restarts are lost: waste NλR (first order),
    1 − e^{−NλR} (restart preemptible) or NλR/(1 + NλR) (protected).  The gang size where
    this reaches d is d/(λR), −ln(1 − d)/(λR) and d/((1 − d)λR), rounded up.

    Parameters
    ----------
    preemption_rate : float
        [[preemption_rate]]
    restart_time : float
        [[restart_time]]
    spot_discount : float
        [[spot_discount]]
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]

    Returns
    -------
    int or None
        Nodes; None if R = 0 (then no gang is too large in this model).

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> never_on_spot_gang_size(0.25, 1 / 6, 0.6)
    22
    >>> never_on_spot_gang_size(0.25, 1 / 6, 0.6, model="first-order")
    15
    """
    rate, restart, discount = check_parameters(
        scalar=True, preemption_rate=preemption_rate, restart_time=restart_time,
        spot_discount=spot_discount)
    if rate * restart == 0:  # R = 0, or λR below the smallest float: no size overflows
        return None
    size = float(_f_never_on_spot(check_model(model), bool(restart_preemptible))(rate, restart,
                                                                             discount))
    if not math.isfinite(size):  # R so small that the gang size overflows a float
        return None
    return max(1, math.ceil(snap_whole(size)))


@fill_doc
def max_gang_size(
    preemption_rate: float, checkpoint_cost: float, restart_time: float, spot_discount: float,
    *, model: str = "exact", restart_preemptible: bool = True, notice_share: float = 0.0,
    notice_write: float | None = None, persist: float = 0.0,
) -> int | None:
    """The largest synchronous gang for which spot still pays at its optimal interval.

    The gang is preempted at Nλ and checkpoints at the optimum for that rate.  First order:
    √(2NλC) + NλR = d solved in closed form; exact: the exact waste at the exact optimum, a
    bracketed root in N.

    Parameters
    ----------
    preemption_rate : array_like
        [[preemption_rate]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    restart_time : float
        [[restart_time]]
    spot_discount : float
        [[spot_discount]]
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]
    notice_share : float, optional
        [[notice_share]]
    notice_write : float, optional
        [[notice_write]]
    persist : float, optional
        [[persist]]

    Returns
    -------
    int or None
        Nodes; 0 if even one node does not pay; None if no gang is too large (C = R = 0).

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> max_gang_size(0.25, 1 / 60, 1 / 6, 0.6)
    13
    """
    full = _full_options(notice_share, notice_write, persist)
    if full is not None:
        return _full_model.largest_gang(preemption_rate, checkpoint_cost, restart_time,
                                        spot_discount, model=model,
                                        restart_preemptible=restart_preemptible, **full)
    rate, cost, restart, discount = check_parameters(
        scalar=True, preemption_rate=preemption_rate, checkpoint_cost=checkpoint_cost,
        restart_time=restart_time, spot_discount=spot_discount)
    model = check_model(model)
    if cost == 0:
        never = never_on_spot_gang_size(rate, restart, discount, model=model,
                                        restart_preemptible=restart_preemptible)
        return None if never is None else never - 1
    if model == "first-order":
        size = float(_f_gang()["max_first_order"](rate, cost, restart, discount))
    else:
        def excess(gang_rate_: float) -> float:
            return optimal_waste(gang_rate_, cost, restart, model=model,
                                 restart_preemptible=restart_preemptible) - discount

        if excess(rate) >= 0:  # one node does not pay: the root is at most λ, the answer 0
            return 0
        size = root_up(excess, rate, 2 * rate) / rate
    if not math.isfinite(size):  # C and R so small that the size overflows
        return None
    return max(0, math.ceil(snap_whole(size)) - 1)
