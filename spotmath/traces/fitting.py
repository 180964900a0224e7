"""What a spot trace says about preemptions: the rate, the lifetimes' shape, reclaims together.

From the lifetimes of a :class:`~spotmath.traces.Trace` (complete: ended by a preemption;
censored: still up when observation stopped):

* the preemption rate per node-hour, λ = preemptions / node-hours up (the Poisson maximum
  likelihood, [observed-rate]), with the exact 95% interval of a Poisson count
  (Garwood's chi-square form);
* the Weibull shape k and scale σ by maximum likelihood *with right-censoring*
  ([weibull-likelihood], maximised over σ in closed form, [weibull-scale-mle], then over k
  on the profile [weibull-profile-likelihood]), the profile-likelihood 95% interval of k,
  and the likelihood-ratio test of k = 1 (is the trace Poisson at all?);
* co-preemption: the share of preemptions with another instance's preemption at most a
  window apart, next to the share expected if instances were preempted independently at
  the fitted rate ([interrupted-fraction] over the other instances' hours in the window);
* the Kaplan–Meier survival curve of the lifetimes, to set against the fits.

A lifetime recorded as 0 (up and preempted in the same clock tick) lies somewhere in
(0, tick]; the Weibull fit takes it as half a tick, and says how many there were.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import cache

import numpy as np
from scipy.special import chdtrc, gammaincinv

from ..inputs import InputError, check_duration, check_number, check_parameters
from ..model import _generated
from ..model.calibration import interrupted_fraction
from ..model.numerics import optimal_interval
from .reading import Trace

__all__ = ["Fit", "WeibullFit", "fit_trace", "fit_weibull", "rate_interval",
           "co_preemption", "survival_curve", "preemptions_needed", "in_standard_errors",
           "LEVEL"]

#: Confidence level of every interval here.
LEVEL = 0.95
#: Shapes searched for the Weibull fit: a trace that leaves k outside is refused.
_SHAPES = (1e-3, 1e3)


@cache
def _chi2_quantile(probability: float, dof: float) -> float:
    """The chi-squared quantile, as ``scipy.stats.chi2.ppf`` computes it (without importing
    scipy.stats, which takes half a second)."""
    return 2 * float(gammaincinv(dof / 2, probability))


def rate_interval(count: int, exposure: float, level: float = LEVEL) -> tuple[float, float]:
    """Exact confidence interval of a Poisson rate: ``count`` events in ``exposure`` hours.

    Garwood's chi-square form, (χ²_{α/2}(2m)/2X, χ²_{1−α/2}(2m + 2)/2X), per hour; the
    lower end is 0 when no event was seen.

    References
    ----------
    ``garwood1936``.

    Examples
    --------
    >>> low, high = rate_interval(10, 40.0)
    >>> round(low, 4), round(high, 4)
    (0.1199, 0.4598)
    """
    alpha = 1 - level
    low = _chi2_quantile(alpha / 2, 2 * count) / (2 * exposure) if count > 0 else 0.0
    return float(low), float(_chi2_quantile(1 - alpha / 2, 2 * count + 2) / (2 * exposure))


@dataclass(frozen=True)
class WeibullFit:
    """A censored Weibull fit: shape k (with its interval), scale σ in hours, and the
    likelihood-ratio test of k = 1 (``p_value_poisson``: small means not Poisson)."""

    shape: float
    shape_ci95: tuple[float, float]
    scale_h: float
    p_value_poisson: float
    zero_lifetimes: int


def fit_weibull(lifetimes: np.ndarray, preempted: np.ndarray, tick: float = 0.0
                ) -> WeibullFit:
    """Maximum-likelihood Weibull fit of right-censored lifetimes (hours).

    Parameters
    ----------
    lifetimes : array of float
        Lifetimes in hours, >= 0.
    preempted : array of bool
        True where the lifetime ended in a preemption, False where it is censored.
    tick : float, optional
        The clock tick of the record, hours; a complete lifetime of 0 is taken as tick/2.

    Returns
    -------
    WeibullFit

    Raises
    ------
    InputError
        If fewer than two lifetimes are complete, or the lifetimes do not bound the shape
        within [0.001, 1000].

    References
    ----------
    ``lawless2002`` (censored likelihood and profile intervals).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> fit = fit_weibull(2.0 * rng.weibull(0.7, 4000), np.ones(4000, bool))
    >>> round(fit.shape, 2), fit.shape_ci95[0] < 0.7 < fit.shape_ci95[1]
    (0.7, True)
    """
    from scipy.optimize import brentq, minimize_scalar  # on first use (model.solving)

    lifetimes = np.asarray(lifetimes, dtype=float)
    preempted = np.asarray(preempted, dtype=bool)
    zero = preempted & (lifetimes == 0)
    if np.any(zero) and not tick > 0:
        raise InputError("lifetimes: a complete lifetime of 0 needs the record's clock tick "
                         "to be bounded")
    lifetimes = np.where(zero, tick / 2, lifetimes)
    count = int(np.count_nonzero(preempted))
    if count < 2:
        raise InputError(f"lifetimes: {count} preemption{'s' if count != 1 else ''} "
                         "(a Weibull shape needs at least 2, with different lifetimes)")
    if np.ptp(lifetimes[preempted]) == 0:
        raise InputError(f"lifetimes: the {count} preemptions all came at the same age, "
                         f"{lifetimes[preempted][0]:g} h (a Weibull shape needs at least 2 "
                         "different lifetimes)")
    # The shape does not depend on the unit of time: work in units of the longest lifetime
    # (so t^k cannot overflow), and scale back at the end.
    unit = float(lifetimes.max())
    scaled = lifetimes[lifetimes > 0] / unit
    logs = np.log(scaled)
    log_sum = float(np.sum(np.log(lifetimes[preempted] / unit)))
    profile = _generated.weibull_profile_log_likelihood

    def loglik(shape: float) -> float:
        return float(profile(shape, count, np.sum(np.exp(shape * logs)), log_sum))

    best = minimize_scalar(lambda x: -loglik(math.exp(x)), method="bounded",
                           bounds=tuple(math.log(b) for b in _SHAPES),
                           options={"xatol": 1e-10})
    shape, top = math.exp(best.x), -best.fun
    cut = top - _chi2_quantile(LEVEL, 1) / 2

    def above(x: float) -> float:
        return loglik(x) - cut

    if above(_SHAPES[0]) > 0 or above(_SHAPES[1]) > 0:
        raise InputError(f"lifetimes: the {count} preemptions do not bound the Weibull shape "
                         f"within [{_SHAPES[0]:g}, {_SHAPES[1]:g}]")
    low = brentq(above, _SHAPES[0], shape, xtol=1e-12, rtol=1e-12)
    high = brentq(above, shape, _SHAPES[1], xtol=1e-12, rtol=1e-12)
    scale = unit * float(_generated.weibull_scale_mle(shape, count, np.sum(np.exp(shape * logs))))
    p_value = float(chdtrc(1, max(2 * (top - loglik(1.0)), 0.0)))  # chi-squared, 1 dof
    return WeibullFit(shape=shape, shape_ci95=(low, high), scale_h=scale,
                      p_value_poisson=p_value, zero_lifetimes=int(np.count_nonzero(zero)))


def _window(trace: Trace, window: float) -> tuple[float, float]:
    """How far before and after a recorded preemption the true times of others "together"
    with it lie: events at most ``window`` apart *as recorded*, on the trace's tick."""
    tick = trace.resolution
    if tick == 0:
        return window, window
    whole = math.floor(window / tick + 1e-9) * tick  # the recorded gaps that count
    return whole, whole + tick


def co_preemption(trace: Trace, window: float) -> tuple[float | None, float | None]:
    """Share of preemptions with another one at most ``window`` hours apart, observed and
    expected if instances were preempted independently at the trace's rate.

    Two preemptions are together when their *recorded* times are at most ``window`` apart
    (so events in the same tick always are).  Under independence, preemption i has a
    companion with probability 1 − e^{−λA_i} [interrupted-fraction], where A_i is the
    other instances' time up during the stretch of true time whose recorded preemptions
    would count as together with it: ±window, widened by one tick on a ticking clock.
    Both are None for a trace without preemptions.

    Examples
    --------
    >>> from spotmath.traces import Trace
    >>> trace = Trace("t", ("a", "b", "c"), np.zeros(3), np.array([1.0, 1.0, 3.0]),
    ...               np.ones(3, bool), 0.0, 3.0, 0.0)
    >>> co_preemption(trace, 1 / 60)[0]
    0.6666666666666666
    """
    window = check_duration("window", window, scalar=True)
    times = np.sort(trace.down[trace.preempted])
    if times.size == 0:
        return None, None
    slack = 1e-9 * max(1.0, float(np.max(np.abs(times))))
    counts = (np.searchsorted(times, times + window + slack, side="right")
              - np.searchsorted(times, times - window - slack, side="left"))
    observed = float(np.mean(counts > 1))
    rate = trace.preemption_rate
    before, after = _window(trace, window)
    # ∫ alive(s) ds as a piecewise-linear function of time, from every up and down.
    edges = np.concatenate([trace.up, trace.down])
    steps = np.concatenate([np.ones(trace.up.size), -np.ones(trace.down.size)])
    order = np.argsort(edges, kind="stable")
    edges, alive = edges[order], np.cumsum(steps[order])
    integral = np.concatenate([[0.0], np.cumsum(alive[:-1] * np.diff(edges))])

    def up_hours(at: np.ndarray) -> np.ndarray:
        return np.interp(at, edges, integral)

    ends = trace.down[trace.preempted]
    starts = trace.up[trace.preempted]
    low, high = ends - before, ends + after
    own = np.clip(np.minimum(ends, high) - np.maximum(starts, low), 0.0, None)
    others = np.clip(up_hours(high) - up_hours(low) - own, 0.0, None)
    chance = np.zeros(others.size)
    exposed = others > 0
    if np.any(exposed):
        chance[exposed] = interrupted_fraction(rate, others[exposed])
    return observed, float(np.mean(chance))


def survival_curve(lifetimes: np.ndarray, preempted: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Kaplan–Meier estimate of the chance to be still up at each complete lifetime.

    Returns the distinct complete lifetimes (hours) and the survival just after each.
    Censored lifetimes count as at risk up to and including their own length.

    Examples
    --------
    >>> survival_curve(np.array([1.0, 2.0, 3.0]), np.array([True, False, True]))
    (array([1., 3.]), array([0.66666667, 0.        ]))
    """
    lifetimes = np.asarray(lifetimes, dtype=float)
    preempted = np.asarray(preempted, dtype=bool)
    times, deaths = np.unique(lifetimes[preempted], return_counts=True)
    ordered = np.sort(lifetimes)
    at_risk = ordered.size - np.searchsorted(ordered, times, side="left")
    return times, np.cumprod(1 - deaths / at_risk)


@dataclass(frozen=True)
class Fit:
    """What :func:`fit_trace` finds in a trace.  Times in hours, rates per node-hour.

    The Weibull fields are None when the trace cannot fit a shape (fewer than two
    preemptions at different ages, say); ``weibull_note`` then says why.
    """

    trace: str
    nodes: int
    lifetimes: int
    preemptions: int
    censored: int
    node_hours: float
    duration_h: float
    resolution_s: float
    preemption_rate: float
    preemption_rate_ci95: tuple[float, float]
    mtbf_h: float
    mtbf_ci95_h: tuple[float, float | None]
    weibull_shape: float | None
    weibull_shape_ci95: tuple[float, float] | None
    weibull_scale_h: float | None
    weibull_shape_p_value: float | None
    zero_lifetimes: int
    co_preemption_share: float
    co_preemption_share_independent: float
    window_s: float
    weibull_note: str = ""

    @property
    def co_preemption_z(self) -> float:
        """How far the co-preemption share lies above independence's, in standard errors.

        The standard error is the binomial one of a share of ``preemptions`` events each
        with another within the window at the independent share's chance,
        √(q(1 − q)/preemptions) with q = ``co_preemption_share_independent``
        (:func:`in_standard_errors`).
        """
        q = self.co_preemption_share_independent
        return in_standard_errors(self.co_preemption_share - q,
                                  math.sqrt(q * (1 - q) / self.preemptions))

    @property
    def hazard(self) -> str | None:
        """What the Weibull shape's 95% interval says of the hazard: ``'falling'`` (the
        interval below 1), ``'rising'`` (above 1) or ``'constant'`` (it holds 1: Poisson
        preemptions are not ruled out); None without a Weibull fit."""
        if self.weibull_shape_ci95 is None:
            return None
        low, high = self.weibull_shape_ci95
        return "falling" if high < 1 else "rising" if low > 1 else "constant"

    def as_dict(self) -> dict:
        """Plain JSON-ready values (pairs as lists)."""
        return {key: list(value) if isinstance(value, tuple) else value
                for key, value in asdict(self).items()}


def in_standard_errors(gap: float, error: float) -> float:
    """``gap / error``; without spread (``error`` 0), 0 where the gap is 0, else ±∞.

    Examples
    --------
    >>> in_standard_errors(0.5, 0.25), in_standard_errors(0.0, 0.0)
    (2.0, 0.0)
    >>> in_standard_errors(-0.1, 0.0)
    -inf
    """
    if error > 0:
        return gap / error
    return 0.0 if gap == 0 else math.copysign(math.inf, gap)


def fit_trace(trace: Trace, window: float | str = "60s") -> Fit:
    """Fit the preemptions of a trace: rate, Weibull shape, co-preemption.

    Parameters
    ----------
    trace : Trace
        Lifetimes from :func:`spotmath.traces.read_trace`.
    window : float or str, optional
        Preemptions at most this far apart count as together (hours, or '60s').

    Returns
    -------
    Fit

    Raises
    ------
    InputError
        If the trace has no preemption, or no time up: no rate to fit.  Too few
        preemptions for a shape leave the Weibull fields None, with a note.

    References
    ----------
    ``thorpe2023`` (the published traces), ``lawless2002``.

    Examples
    --------
    >>> from spotmath.traces.synthetic import synthetic_trace
    >>> trace = synthetic_trace(preemption_rate=0.5, pool_size=20, hours=400, seed=3)
    >>> fit = fit_trace(trace)
    >>> low, high = fit.preemption_rate_ci95
    >>> bool(low < 0.5 < high)
    True
    """
    window = check_duration("window", window, scalar=True)
    if trace.preemptions == 0:
        raise InputError(f"{trace.name}: no preemptions in {trace.node_hours:g} node-hours: "
                         "there is no rate to fit")
    rate = trace.preemption_rate
    try:
        weibull = fit_weibull(trace.lifetimes, trace.preempted, trace.resolution)
        note = ""
    except InputError as error:  # the rate stands; only the shape is out of reach
        weibull, note = None, error.detail
    low, high = rate_interval(trace.preemptions, trace.node_hours)
    share, independent = co_preemption(trace, window)
    return Fit(
        trace=trace.name, nodes=trace.nodes, lifetimes=len(trace.up),
        preemptions=trace.preemptions, censored=trace.censored, node_hours=trace.node_hours,
        duration_h=trace.end - trace.start, resolution_s=trace.resolution * 3600,
        preemption_rate=rate, preemption_rate_ci95=(low, high), mtbf_h=1 / rate,
        mtbf_ci95_h=(1 / high, 1 / low if low > 0 else None),
        weibull_shape=weibull and weibull.shape,
        weibull_shape_ci95=weibull and weibull.shape_ci95,
        weibull_scale_h=weibull and weibull.scale_h,
        weibull_shape_p_value=weibull and weibull.p_value_poisson,
        zero_lifetimes=int(np.count_nonzero(trace.preempted & (trace.lifetimes == 0))),
        co_preemption_share=share, co_preemption_share_independent=independent,
        window_s=window * 3600, weibull_note=note)


def preemptions_needed(preemption_rate: float, checkpoint_cost: float,
                       precision: float = 0.1, *, model: str = "exact") -> int:
    """Preemptions a trace must hold before the optimal interval is known to ±``precision``.

    The fewest m for which the model's optimal interval at both ends of the rate's 95%
    interval (m preemptions at the same rate, :func:`rate_interval`) lies within
    ±``precision`` of the interval at the rate itself.  For ``preemption_rate`` pass the
    rate the job sees (a gang's Nλ).

    Examples
    --------
    >>> preemptions_needed(0.25, 1 / 60)
    123
    """
    rate, cost = check_parameters(scalar=True, preemption_rate=preemption_rate,
                                  checkpoint_cost=checkpoint_cost)
    precision = check_number("precision", precision, minimum=0.0, allow_minimum=False,
                             maximum=1.0, expected="a fraction strictly between 0 and 1",
                             scalar=True)
    middle = float(optimal_interval(rate, cost, model))

    def spread(count: int) -> float:
        low, high = rate_interval(count, count / rate)
        at_low = float(optimal_interval(low, cost, model)) if low > 0 else math.inf
        return max(at_low / middle - 1, 1 - float(optimal_interval(high, cost, model)) / middle)

    fewest, most = 1, 2
    while spread(most) > precision:
        fewest, most = most, 2 * most
    if spread(fewest) <= precision:
        return fewest
    while most - fewest > 1:  # spread(fewest) > precision >= spread(most)
        middle_count = (fewest + most) // 2
        fewest, most = ((middle_count, most) if spread(middle_count) > precision
                        else (fewest, middle_count))
    return most
