"""Two-level checkpoints: a fast copy a preemption may take with it, and a durable one.

The rules are those of :mod:`spotmath.model.derivations` (section 10), in short: preemption
events hit the job as a Poisson process of rate λ (for a gang, the gang's rate); each one,
independently with chance p (``level1_loss``), destroys the fast copies.  The job computes
n segments of T (``interval``); segments 1..n−1 end with a fast write C₁
(``level1_cost``), the n-th with a durable write C (``checkpoint_cost``), which is also a
fast copy.  An event that spares the fast copies rolls back to the last write of either
level and restarts in R₁ (``level1_restart``); one that destroys them rolls back to the
last durable write and restarts in R (``restart_time``).  p = 1 with n = 1 is the exact
model of :mod:`spotmath.model.numerics`, exactly.

The optimum over whole n and continuous T is found by a search that cannot miss it
(:func:`optimum`): for each n the expected period time E₁ is convex in T, so the waste has
one minimum in T, the root of the generated condition h(T) = T ∂E₁/∂T − E₁; and a lower
bound on the waste that never falls as n grows (from the binomial series of the derived
E₁, :func:`_bound`) says where larger n can no longer win.  Times in hours, rates per hour.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..docs import fill_doc
from ..inputs import InputError, check_parameters
from . import _generated
from ._full_model import LONGEST
from .intervals import exact_interval
from .solving import Number, as_output, check_model

__all__ = ["Pattern", "waste", "best_interval", "optimum", "first_order_optimum",
           "loss_break_even", "check_persist", "MOST_SEGMENTS", "REFUSALS"]

#: The refusals the plan and the page share, written once (``{name}`` is the parameter;
#: the page fills the same templates).
REFUSALS = {
    "persist_protected": "{name}: asynchronous durable writes with two levels are derived "
                         "for preemptible restarts only",
    "no_interval": "{name}: no optimal interval within 300 mean times between events (the "
                   "writes cost too much for this rate)",
    "loss_zero": "{name}: must be above 0 for an optimum (with fast copies never lost, a "
                 "durable write never pays)",
    "loss_too_small": "{name}: {loss:g} is too small: the best pattern would write a "
                      "durable copy less often than every {most:,} writes",
    "never_completes": "{name}: at {rate:g} events per hour a durable write of {durable:g} h "
                       "or a restart almost never completes: the waste is 100%",
    "gang_never_completes": "{name}: a gang of {gang:,} is preempted {rate:g} times per "
                            "hour, and at that rate a durable write of {durable:g} h or a "
                            "restart almost never completes: the waste is 100%",
}

#: The search refuses patterns with more fast segments per durable write than this (a
#: fast copy so rarely lost that durable writes almost never pay).
MOST_SEGMENTS = 1_000_000


@dataclass(frozen=True)
class Pattern:
    """A two-level checkpoint pattern and its waste.

    ``interval`` hours of compute between writes, a durable write every ``level2_every``
    writes (the others fast), and the exact waste of the pattern.
    """

    interval: float
    level2_every: int
    waste: float

    @property
    def level2_interval(self) -> float:
        """Compute between durable writes, hours."""
        return self.interval * self.level2_every


def _f_waste(model: str, preemptible: bool) -> Callable:
    if model == "first-order":
        return _generated.waste_first_order_two_level
    return (_generated.waste_two_level_preemptible if preemptible
            else _generated.waste_two_level_protected)


def _f_period(preemptible: bool, lossy: bool) -> Callable:
    """E₁; ``lossy``: its branch for p > 0 alone (the same numbers there, without the
    p = 0 branch NumPy's select would compute as well)."""
    if lossy:
        return (_generated.two_level_period_time_lossy_preemptible if preemptible
                else _generated.two_level_period_time_lossy_protected)
    return (_generated.two_level_period_time_preemptible if preemptible
            else _generated.two_level_period_time_protected)


def _f_condition(preemptible: bool, lossy: bool) -> Callable:
    """h(T); ``lossy``: its branch for p > 0 alone, as for :func:`_f_period`."""
    if lossy:
        return (_generated.two_level_condition_lossy_preemptible if preemptible
                else _generated.two_level_condition_lossy_protected)
    return (_generated.two_level_condition_preemptible if preemptible
            else _generated.two_level_condition_protected)


def _f_rollback(preemptible: bool) -> Callable:
    return (_generated.two_level_rollback_chance_preemptible if preemptible
            else _generated.two_level_rollback_chance_protected)


@fill_doc
def waste(
    preemption_rate: ArrayLike, interval: ArrayLike, level2_every: int, *,
    level1_cost: ArrayLike, checkpoint_cost: ArrayLike, level1_restart: ArrayLike,
    restart_time: ArrayLike, level1_loss: float, model: str = "exact",
    restart_preemptible: bool = True, persist: float = 0.0,
) -> Number:
    """Share of wall time not spent on kept compute, with two checkpoint levels.

    Exact: 1 − nT/E₁ [two-level-waste]; first order: ((n − 1)C₁ + C)/(nT)
    + (1 − p)λ(T/2 + R₁) + pλ(nT/2 + R) [two-level-first-order].  With asynchronous
    durable writes (``persist`` P > 0): 1 − nT/E_P, E_P = e^{pλP}E₁
    [two-level-persist-period], and pλP more at first order
    [two-level-persist-first-order].

    Parameters
    ----------
    preemption_rate : array_like
        [[event_rate]]
    interval : array_like
        [[level1_interval]]
    level2_every : int
        [[level2_every]]
    level1_cost : array_like
        [[level1_cost]]
    checkpoint_cost : array_like
        [[level2_cost]]
    level1_restart : array_like
        [[level1_restart]]
    restart_time : array_like
        [[level2_restart]]
    level1_loss : float
        [[level1_loss]]
    model : {"exact", "first-order"}, optional
        [[model]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]
    persist : float, optional
        [[level2_persist]]

    Returns
    -------
    float or numpy.ndarray
        The waste, a fraction.
        Scalars give a float, arrays an array (inputs broadcast).

    Raises
    ------
    InputError
        [[bad_value]]; a persist time longer than nT, or with protected restarts.

    References
    ----------
    ``benoit2017`` (first order).

    Examples
    --------
    With p = 1 and n = 1 this is the single-level exact waste:

    >>> from spotmath.model import numerics
    >>> one = waste(0.5, 1.0, 1, level1_cost=0.01, checkpoint_cost=0.05,
    ...             level1_restart=0.03, restart_time=0.1, level1_loss=1.0)
    >>> bool(abs(one - numerics.waste_fraction(0.5, 1.0, 0.05, 0.1)) < 1e-15)
    True
    """
    rate, interval, fast, durable, fast_restart, restart, every, loss = _checked(
        preemption_rate, interval, level1_cost, checkpoint_cost, level1_restart,
        restart_time, level1_loss, level2_every=level2_every, scalar=False)
    model, preemptible = check_model(model), bool(restart_preemptible)
    persist = check_persist(persist, preemptible, np.min(every * interval))
    if persist > 0:
        function = (_generated.waste_first_order_two_level_persist if model == "first-order"
                    else _generated.waste_two_level_persist)
        values = function(rate, interval, fast, durable, fast_restart, restart, loss, every,
                          persist)
    else:
        values = _f_waste(model, preemptible)(rate, interval, fast, durable, fast_restart,
                                              restart, loss, every)
    return as_output(_overflow_is_total(values, rate, interval, every, fast, durable,
                                        fast_restart, restart))


@fill_doc
def check_persist(persist: float | str, preemptible: bool, shortest_period: float) -> float:
    """The persist time P of asynchronous durable writes, checked for two levels.

    The one check of the plan, the model and the simulator: P ≥ 0, within the compute
    between durable writes (nT ≥ P, to a relative 1e-12), and only with preemptible
    restarts, for which the model is derived [two-level-persist-period].

    Parameters
    ----------
    persist : float or str
        [[level2_persist]]
    preemptible : bool
        [[restart_preemptible]]
    shortest_period : float
        The least compute between durable writes nT, hours (``math.inf``: not known yet).

    Returns
    -------
    float
        P, hours.

    Raises
    ------
    InputError
        [[bad_value]]; P > 0 with protected restarts, or P longer than nT.

    Examples
    --------
    >>> check_persist("3min", True, 0.5)
    0.05
    """
    (persist,) = check_parameters(scalar=True, persist=persist)
    if persist > 0 and not preemptible:
        raise InputError(REFUSALS["persist_protected"].format(name="persist"))
    if persist > shortest_period * (1 + 1e-12):  # P = nT given as decimals may round up
        raise InputError(f"persist: {persist:g} h is longer than the compute between durable "
                         f"writes (nT = {shortest_period:g} h); a snapshot must be durable "
                         "before the next one")
    return persist


def _overflow_is_total(values, rate, interval, every, fast, durable, fast_restart,
                       restart) -> np.ndarray:
    """The waste where the period time overflows double precision: 1.

    There e^{λ(...)} passes 1e300 and the printed formula can meet ∞ − ∞ or 0·∞ (a NaN)
    where the waste is 1 to double precision: E₁ is at least the time to run the longest
    stretch the period needs without an event.  A NaN anywhere else is an error.
    """
    values = np.asarray(values, dtype=float)
    missing = np.isnan(values)
    if not missing.any():
        return values
    stretch = rate * (every * interval + (every - 1) * fast + durable
                      + np.maximum(fast_restart, restart))
    overflowed = np.broadcast_to(stretch > 700, values.shape)
    if (missing & ~overflowed).any():
        raise ArithmeticError("the two-level waste is NaN away from overflow")
    return np.where(missing, 1.0, values)


def _checked(rate, interval, fast, durable, fast_restart, restart, loss, *, level2_every,
             scalar: bool) -> list:
    values = check_parameters(
        scalar=scalar, preemption_rate=rate, interval=interval, level1_cost=fast,
        checkpoint_cost=durable, level1_restart=fast_restart, restart_time=restart)
    every, loss = check_parameters(scalar=True, level2_every=level2_every, level1_loss=loss)
    return [*values, every, loss]


@dataclass(frozen=True)
class _Setting:
    """Checked scalars of one optimisation, and the generated functions it uses."""

    rate: float
    fast: float
    durable: float
    fast_restart: float
    restart: float
    loss: float
    preemptible: bool
    persist: float = 0.0

    def arguments(self, interval, every) -> tuple:
        return (self.rate, interval, self.fast, self.durable, self.fast_restart,
                self.restart, self.loss, every)

    def period(self, interval, every):
        return _f_period(self.preemptible, self.loss > 0)(*self.arguments(interval, every))

    def condition(self, interval, every):
        return _f_condition(self.preemptible, self.loss > 0)(*self.arguments(interval, every))


def _setting(preemption_rate, level1_cost, checkpoint_cost, level1_restart, restart_time,
             level1_loss, restart_preemptible, persist=0.0) -> _Setting:
    rate, fast, durable, fast_restart, restart = check_parameters(
        scalar=True, preemption_rate=preemption_rate, level1_cost=level1_cost,
        checkpoint_cost=checkpoint_cost, level1_restart=level1_restart,
        restart_time=restart_time)
    (loss,) = check_parameters(scalar=True, level1_loss=level1_loss)
    if durable <= 0:
        raise InputError("checkpoint_cost: must be above 0 for an optimum (a free durable "
                         "write is best written continuously)")
    preemptible = bool(restart_preemptible)
    return _Setting(rate, fast, durable, fast_restart, restart, loss, preemptible,
                    check_persist(persist, preemptible, math.inf))


def _best_intervals(setting: _Setting, every: np.ndarray) -> np.ndarray:
    """The optimal T for each n in ``every``: the root of h, found for all n at once.

    h(T) = T ∂E₁/∂T − E₁ increases in T (E₁ is convex in T) from −E₁(0) < 0, so its root
    is bracketed within a factor of two by halving or doubling from 1/λ, then found by
    the Illinois variant of false position (the bracket kept, the stale end's value
    halved when the same end moves twice, a bisection wherever the secant is not
    strictly inside and every fourth step) until the bracket is four ulps wide; with
    asynchronous durable writes, at least P/n.  Where the printed h overflows (∞ − ∞,
    far past the root, where E₁ has grown beyond 1e300) its NaN counts as above the root;
    where it is NaN even at T = 0 (the period overflows at every interval) the T is NaN.
    """
    result = np.full(every.shape, np.nan)
    solvable = setting.condition(np.zeros(every.shape), every) < 0  # h(0) = −E₁(0)
    if solvable.any():
        result[solvable] = _roots(setting, every[solvable])
    # E₁/(nT) falls before the root and rises after it: kept to nT ≥ P, the best T is
    # the root or P/n.
    return np.maximum(result, setting.persist / every)


def _roots(setting: _Setting, every: np.ndarray) -> np.ndarray:
    """The root of h for each n (h(0) < 0 for each), as :func:`_best_intervals` says."""
    longest = LONGEST / setting.rate
    high = np.full(every.shape, 1.0 / setting.rate)
    at_high = setting.condition(high, every)
    low, at_low = high / 2, setting.condition(high / 2, every)
    for _ in range(1100):  # the root below 1/λ: halve until below it
        above = ~(at_low < 0)
        if not above.any():
            break
        high, at_high = np.where(above, low, high), np.where(above, at_low, at_high)
        low = np.where(above, low / 2, low)
        at_low = np.where(above, setting.condition(low, every), at_low)
    for _ in range(200):  # the root above 1/λ: double until above it
        below = at_high < 0
        if not below.any():
            break
        if (high[below] >= longest).any():
            raise InputError(REFUSALS["no_interval"].format(name="preemption_rate"))
        low, at_low = np.where(below, high, low), np.where(below, at_high, at_low)
        high = np.where(below, np.minimum(high * 2, longest), high)
        at_high = np.where(below, setting.condition(high, every), at_high)
    moved = np.zeros(every.shape, dtype=np.int8)  # the end that moved last: -1 low, 1 high
    for step in range(1000):
        open_ = high - low > 4 * np.spacing(high)
        if not open_.any():
            break
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            secant = high - at_high * (high - low) / (at_high - at_low)
        # every fourth step a bisection, so the bracket at least halves every four
        inside = (secant > low) & (secant < high) & (step % 4 != 3)
        middle = np.where(inside, secant, (low + high) / 2)
        value = setting.condition(middle, every)
        root = open_ & (value == 0)
        up = open_ & ~(value < 0) & ~root
        down = open_ & (value < 0)
        high, at_high = np.where(up | root, middle, high), np.where(up, value, at_high)
        low, at_low = np.where(down | root, middle, low), np.where(down, value, at_low)
        at_low = np.where(up & (moved == 1), at_low / 2, at_low)
        at_high = np.where(down & (moved == -1), at_high / 2, at_high)
        moved = np.where(up, 1, np.where(down, -1, moved)).astype(np.int8)
    return high


@fill_doc
def best_interval(
    preemption_rate: float, level2_every: int, *, level1_cost: float, checkpoint_cost: float,
    level1_restart: float, restart_time: float, level1_loss: float,
    restart_preemptible: bool = True, persist: float = 0.0,
) -> float:
    """The exact optimal interval T for a given n: the root of h(T) [two-level-optimality],
    or P/n if that is longer (asynchronous durable writes).

    Parameters
    ----------
    preemption_rate : float
        [[event_rate]]
    level2_every : int
        [[level2_every]]
    level1_cost : float
        [[level1_cost]]
    checkpoint_cost : float
        [[level2_cost_positive]]
    level1_restart : float
        [[level1_restart]]
    restart_time : float
        [[level2_restart]]
    level1_loss : float
        [[level1_loss]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]
    persist : float, optional
        [[level2_persist]]

    Returns
    -------
    float
        The interval T, hours.

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    With n = 1 and p = 1 it is the single-level exact optimum:

    >>> from spotmath.model import numerics
    >>> best = best_interval(0.5, 1, level1_cost=0.01, checkpoint_cost=0.05,
    ...                      level1_restart=0.03, restart_time=0.1, level1_loss=1.0)
    >>> bool(abs(best / numerics.exact_interval(0.5, 0.05) - 1) < 1e-12)
    True
    """
    setting = _setting(preemption_rate, level1_cost, checkpoint_cost, level1_restart,
                       restart_time, level1_loss, restart_preemptible, persist)
    (every,) = check_parameters(scalar=True, level2_every=level2_every)
    if every > 1 and setting.fast <= 0:
        raise InputError("level1_cost: must be above 0 for an optimum with fast writes")
    best = float(_best_intervals(setting, np.array([every]))[0])
    if math.isnan(best):
        raise InputError("preemption_rate: the two-level period overflows at every "
                         "interval (the writes and restarts are too long for this "
                         "rate): no optimal interval")
    return best


def _ratios(setting: _Setting, every: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The best T for each n and the least E₁/(nT) there (1/(1 − waste))."""
    intervals = _best_intervals(setting, every)
    with np.errstate(over="ignore"):
        return intervals, setting.period(intervals, every) / (every * intervals)


def _bound(setting: _Setting, every: int, chance: float) -> float:
    """A lower bound on E₁/(nT) over every T, for n ≥ 2, nondecreasing in n.

    With x = cλ, Θ ≥ 1/λ, u₁ ≥ λ(T + C₁) ≥ λT, u₂ ≥ λ(T + C) and
    (1 + cu₁)^{n−1}(1 + cu₂) − 1 ≥ (1 + cu₁)^{n−1} − 1 + cu₂, the binomial series gives

        E₁/(nT) ≥ 1 + A/T + S(T),  S(T) = ((1 + xT)^{n−1} − 1 − (n − 1)xT)/(xnT),

    A = ((n − 1)C₁ + C)/n.  S(T) = Σ_{j≥2} C(n−1, j)(xT)^{j−1}/n grows with n term by
    term, and A is replaced by its least value over n' ≥ n (C₁ when C ≥ C₁), so the
    minimum over T (of a convex function of T) never falls as n grows.  It is found to
    a tolerance far below the margin of one part in a million kept below it.
    """
    x = chance * setting.rate
    writes = (setting.fast if setting.durable >= setting.fast
              else ((every - 1) * setting.fast + setting.durable) / every)

    def excess(log_interval: float) -> float:
        interval = math.exp(log_interval)
        grown = math.expm1(min((every - 1) * math.log1p(x * interval), 700.0))
        return writes / interval + (grown - (every - 1) * x * interval) / (
            x * every * interval)

    return 1 + (1 - 1e-6) * _least_over_intervals(excess, setting.rate)


def _tail_bound(setting: _Setting, every: int, chance: float,
                target: float = -math.inf) -> float:
    """A lower bound on E₁/(n'T) over every T and every n' ≥ n = ``every``.

    With Θ ≥ 1/λ, a = 1 + cu₁ and b = 1 + cu₂, E₁/(n'T) ≥ (a^{n'−1}b − 1)/(cλn'T).  As
    a^{n'−1} ≥ a^{n−1}(1 + (n' − n)log a), (a^{n'−1}b − 1)/n' is at least K/n' + L with
    L = a^{n−1}b log a: monotone in n', so at least the smaller of its value at n' = n,
    q = (a^{n−1}b − 1)/n, and its limit L.  Both q and L are convex in T (a and b are
    log-convex) and not below 0 at T = 0, so q/T and L/T each have one minimum in T,
    found to a tolerance far below the margin of one part in a million kept below it.
    Unlike :func:`_bound` it keeps the durable write's exponential, which matters where
    the waste is high.  Where the first of the two, with its margin, is already below
    ``target``, it is returned alone (the bound, no larger, is below it too): the search
    asks only whether the bound reaches its best ratio.
    """
    rate, fast, durable = setting.rate, setting.fast, setting.durable

    def logs(log_interval: float) -> tuple[float, float, float]:
        interval = math.exp(log_interval)
        log_a = math.log1p(chance * math.expm1(rate * (interval + fast)))
        log_b = math.log1p(chance * math.expm1(rate * (interval + durable)))
        return interval, log_a, min((every - 1) * log_a + log_b, 700.0)

    def at_n(log_interval: float) -> float:
        interval, _, grown = logs(log_interval)
        return math.expm1(grown) / (every * chance * rate * interval)

    def limit(log_interval: float) -> float:
        interval, log_a, grown = logs(log_interval)
        return math.exp(grown) * log_a / (chance * rate * interval)

    least_at_n = _least_over_intervals(at_n, rate)
    if (1 - 1e-6) * least_at_n < target:
        return (1 - 1e-6) * least_at_n
    return (1 - 1e-6) * min(least_at_n, _least_over_intervals(limit, rate))


def _least_over_intervals(function: Callable[[float], float], rate: float) -> float:
    """The least value of a function of log T with one minimum, T from 1e-9 to
    :data:`LONGEST` mean times between events, to 1e-10 in log T (the bounds above)."""
    from scipy.optimize import minimize_scalar  # on first use (spotmath.model.solving)

    bounds = (math.log(1e-9 / rate), math.log(LONGEST / rate))
    found = minimize_scalar(function, bounds=bounds, method="bounded",
                            options={"xatol": 1e-10})
    return float(found.fun)


def _rollback_chance(setting: _Setting) -> float:
    return float(_f_rollback(setting.preemptible)(setting.rate, setting.fast_restart,
                                                  setting.loss))


#: Up to this n the search takes the doubling's n as its last candidate: the n below it
#: are solved at once (:func:`_roots`), in less time than the bounds that would narrow
#: it down.  Beyond it, bisection narrows it.
_NARROWED_ABOVE = 256


def _last_candidate(setting: _Setting, best_ratio: float) -> int:
    """An n ≥ 2 where a lower bound on every n' ≥ n reaches ``best_ratio``: no n from
    there on can beat it.  Doubling, then (above :data:`_NARROWED_ABOVE`) bisection
    keeping such an n at the top (the smallest one where :func:`_bound` is the deciding
    bound, which grows with n).  Any such n gives the same optimum: each n is solved on
    its own, and none from it on can beat it.  (The page's JavaScript, which solves each
    n alone, always narrows it.)"""
    chance = _rollback_chance(setting)
    if chance < 1e-250:  # the bounds' cλnT underflows to 0; n would be astronomical
        raise InputError(REFUSALS["loss_too_small"].format(
            name="level1_loss", loss=setting.loss, most=MOST_SEGMENTS))

    def reaches(every: int) -> bool:
        return (_bound(setting, every, chance) >= best_ratio
                or _tail_bound(setting, every, chance, best_ratio) >= best_ratio)

    high = 2
    while not reaches(high):
        if high > MOST_SEGMENTS:
            raise InputError(REFUSALS["loss_too_small"].format(
                name="level1_loss", loss=setting.loss, most=MOST_SEGMENTS))
        high *= 2
    if high <= _NARROWED_ABOVE:
        return high
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high


@fill_doc
def optimum(
    preemption_rate: float, *, level1_cost: float, checkpoint_cost: float,
    level1_restart: float, restart_time: float, level1_loss: float,
    restart_preemptible: bool = True, persist: float = 0.0,
) -> Pattern:
    """The exact optimal pattern: whole n and continuous T of least waste.

    For each n the optimal T is the root of h [two-level-optimality]; n runs from 1 up to
    the first n whose lower bound on the waste reaches the best waste found among n = 1
    and the first-order optimum's neighbours (:func:`first_order_optimum`).  The bound,
    from the derived period time, grows with n, so no larger n can do better.  The
    search also ends where a second bound, on every larger n, reaches it
    (:func:`_tail_bound`).  Among equal wastes the smallest n.  Asynchronous durable
    writes multiply the period by e^{pλP}, the same for every pattern
    [two-level-persist-period]: the search is the same, each T kept to nT ≥ P (a bound
    for all T is one for these).

    Parameters
    ----------
    preemption_rate : float
        [[event_rate]]
    level1_cost : float
        [[level1_cost_positive]]
    checkpoint_cost : float
        [[level2_cost_positive]]
    level1_restart : float
        [[level1_restart]]
    restart_time : float
        [[level2_restart]]
    level1_loss : float
        Chance p that an event destroys the fast copies, 0 < p ≤ 1.
    restart_preemptible : bool, optional
        [[restart_preemptible]]
    persist : float, optional
        [[level2_persist]]

    Returns
    -------
    Pattern
        The interval T, every how many writes one is durable, and the exact waste.  Where
        the waste is 1 to double precision for every pattern (E₁/(nT) ≥ 2⁵³), n = 1 at
        the single-level exact interval, waste 1.

    Raises
    ------
    InputError
        [[bad_value]]; a zero fast write or loss (no finite optimum); a durable write or
        restart that overflows the period time (the waste is 100%).

    References
    ----------
    ``benoit2017``.

    Examples
    --------
    >>> best = optimum(0.5, level1_cost=5 / 3600, checkpoint_cost=3 / 60,
    ...                level1_restart=2 / 60, restart_time=5 / 60, level1_loss=0.3)
    >>> best.level2_every > 1
    True
    """
    setting = _setting(preemption_rate, level1_cost, checkpoint_cost, level1_restart,
                       restart_time, level1_loss, restart_preemptible, persist)
    return _searched(setting, _started(setting))


def _started(setting: _Setting) -> np.ndarray:
    """The least E₁/(nT) of the search's first candidates: n = 1 first, then the first-order
    optimum's neighbours.  Refuses free fast writes, fast copies never lost, and a period
    that overflows at every pattern."""
    if setting.fast <= 0:
        raise InputError("level1_cost: must be above 0 for an optimum (free fast writes "
                         "are best written continuously)")
    if setting.loss <= 0:
        raise InputError(REFUSALS["loss_zero"].format(name="level1_loss"))
    start = [1.0]
    if setting.loss < 1 and setting.durable > setting.fast:
        fast, durable = first_order_optimum(
            setting.rate, level1_cost=setting.fast, checkpoint_cost=setting.durable,
            level1_loss=setting.loss)
        guess = durable / fast
        start += [float(max(1, math.floor(guess))), float(max(1, math.ceil(guess)))]
    if not math.isfinite(float(setting.period(0.0, 1.0))):
        raise InputError(REFUSALS["never_completes"].format(
            name="preemption_rate", rate=setting.rate, durable=setting.durable))
    return _ratios(setting, np.array(start))[1]


def _searched(setting: _Setting, started: np.ndarray) -> Pattern:
    """The optimum, from the first candidates' ratios (:func:`_started`)."""
    if not started.min() < 2.0**53:  # the waste is 1 to double precision for any pattern
        return Pattern(max(float(exact_interval(setting.rate, setting.durable)),
                           setting.persist), 1, 1.0)
    last = _last_candidate(setting, float(started.min()))
    every = np.arange(1, last, dtype=float)
    intervals, ratios = _ratios(setting, every)
    best = int(np.argmin(ratios))
    if setting.persist == 0:
        return Pattern(float(intervals[best]), int(every[best]), float(1 - 1 / ratios[best]))
    interval, every = float(intervals[best]), int(every[best])
    return Pattern(interval, every, float(waste(
        setting.rate, interval, every, level1_cost=setting.fast,
        checkpoint_cost=setting.durable, level1_restart=setting.fast_restart,
        restart_time=setting.restart, level1_loss=setting.loss, persist=setting.persist)))


@fill_doc
def first_order_optimum(
    preemption_rate: float, *, level1_cost: float, checkpoint_cost: float,
    level1_loss: float,
) -> tuple[float, float]:
    """The first-order optimum with n continuous: (T, nT) [two-level-first-order-optimum].

    √(2C₁/((1 − p)λ)) and √(2(C − C₁)/(pλ)): one Young's interval per level, at the rate
    of the events it must survive and the extra cost of its write.

    Parameters
    ----------
    preemption_rate : float
        [[event_rate]]
    level1_cost : float
        [[level1_cost_positive]]
    checkpoint_cost : float
        Durable write C > C₁, hours.
    level1_loss : float
        Chance p that an event destroys the fast copies, 0 < p < 1.

    Returns
    -------
    tuple of float
        Compute between writes and between durable writes, hours.

    Raises
    ------
    InputError
        [[bad_value]]; C ≤ C₁ or p outside (0, 1).

    References
    ----------
    ``benoit2017``.

    Examples
    --------
    >>> fast, durable = first_order_optimum(0.5, level1_cost=0.01, checkpoint_cost=0.05,
    ...                                     level1_loss=0.5)
    >>> round(fast, 4), round(durable, 4)
    (0.2828, 0.5657)
    """
    rate, fast, durable = check_parameters(
        scalar=True, preemption_rate=preemption_rate, level1_cost=level1_cost,
        checkpoint_cost=checkpoint_cost)
    (loss,) = check_parameters(scalar=True, level1_loss=level1_loss)
    if not 0 < loss < 1:
        raise InputError(f"level1_loss: must be strictly between 0 and 1 for a first-order "
                         f"optimum, got {loss:g}")
    if not 0 < fast < durable:
        raise InputError("level1_cost: must be above 0 and below checkpoint_cost for a "
                         "first-order optimum")
    return (float(_generated.two_level_first_order_fast(rate, fast, loss)),
            float(_generated.two_level_first_order_durable(rate, fast, durable, loss)))


@fill_doc
def loss_break_even(
    preemption_rate: float, *, level1_cost: float, checkpoint_cost: float,
    level1_restart: float, restart_time: float, restart_preemptible: bool = True,
    persist: float = 0.0,
) -> float:
    """The chance p above which fast writes between durable ones stop paying.

    Above it the optimum writes every checkpoint durably (n = 1; the durable write's own
    fast copy still serves the fast restarts); below it some n > 1 has less waste.  At
    p = 0 a durable write only costs, so n = 2 beats n = 1 whenever C₁ < C; at p = 1 a
    fast write only costs, so n = 1 wins.  Bisection on p of whether :func:`optimum`
    chooses n > 1.  With asynchronous durable writes fast ones can pay even when they
    cost as much as the snapshot: they come more often than every P.

    Parameters
    ----------
    preemption_rate : float
        [[event_rate]]
    level1_cost : float
        [[level1_cost_positive]]
    checkpoint_cost : float
        [[level2_cost_positive]]
    level1_restart : float
        [[level1_restart]]
    restart_time : float
        [[level2_restart]]
    restart_preemptible : bool, optional
        [[restart_preemptible]]
    persist : float, optional
        [[level2_persist]]

    Returns
    -------
    float
        The break-even chance, to 1e-6; 0.0 when fast writes never pay (a fast write
        costs no less than a durable one and the best single-level interval is at least
        P, or the waste is 1 for every pattern).

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> p = loss_break_even(0.5, level1_cost=5 / 3600, checkpoint_cost=3 / 60,
    ...                     level1_restart=2 / 60, restart_time=5 / 60)
    >>> 0 < p < 1
    True
    """
    setting = _setting(preemption_rate, level1_cost, checkpoint_cost, level1_restart,
                       restart_time, 1.0, restart_preemptible, persist)
    if setting.fast >= setting.durable:
        # Then a pattern (n, T) never beats (1, T): its writes cost no less and its
        # rollbacks go no less far.  So fast writes can pay only where n = 1's best
        # interval, the single-level one whatever p, is shorter than P.
        blocking = _Setting(**dict(vars(setting), persist=0.0))
        if _best_intervals(blocking, np.array([1.0]))[0] >= setting.persist:
            return 0.0

    def fast_pays(loss: float) -> bool:
        at = _Setting(**dict(vars(setting), loss=loss))
        try:
            started = _started(at)
            # a first candidate with fast writes beating n = 1 settles it: the optimum,
            # no worse than that candidate, has n > 1 too (the search is then not needed)
            if started.min() < 2.0**53 and np.any(started[1:] < started[0]):
                return True
            return _searched(at, started).level2_every > 1
        except InputError as error:  # so rarely lost that n passes MOST_SEGMENTS
            if error.name != "level1_loss":
                raise
            return True

    low, high = 0.0, 1.0
    while high - low > 1e-6:
        middle = (low + high) / 2
        if fast_pays(middle):
            low = middle
        else:
            high = middle
    return 0.0 if low == 0 else (low + high) / 2
