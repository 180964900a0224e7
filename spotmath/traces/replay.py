"""Replaying checkpoint schedules on a spot trace: the waste the trace would really have cost.

Single node (what every number means)
    Every complete lifetime in the trace is one paid up-period of an endless job.  It starts
    with a restart of R, then runs segments of T compute each followed by a C write; the
    compute of every completed segment (its write done by the preemption) is useful,
    everything else in the lifetime (the restart, the writes, the partial segment cut by
    the preemption) is waste.  A lifetime shorter than R is all waste.  Censored lifetimes
    are left out and counted.  Realised waste = 1 − useful hours / paid hours.  Under
    Poisson preemptions this is the exact model with a preemptible restart [exact-waste].

Gangs (``gang_size`` = N on a pool trace)
    A synchronous gang of N holds N instances of the pool and runs while it holds them all:

    1. it starts at the trace's start, or as soon as N instances are up;
    2. it takes the instances that have been up longest (ties: the trace's order), and
       after an interruption keeps its survivors and fills up the same way;
    3. it is interrupted when any instance it holds is preempted; every instance of the
       pool preempted at that moment is gone, and the gang restarts at once if N
       instances are up, or waits (unpaid) until they are;
    4. a held instance whose observation ends (censored) ends the gang's period
       uncounted: the period is censored like a lifetime.

    Each period the gang holds its N instances is then a lifetime of the gang, replayed with
    the single-node rules above (paid and useful hours are node-hours: N per gang-hour).

Age-dependent schedules
    :func:`replay_local_rate` checkpoints each instance at the local-rate intervals
    τ(a) = √(2C/h(a)) [local-rate-interval] of a fitted Weibull hazard h, a the instance's
    age at the start of each segment (Ling, Mi and Lin 2001).  With no restart and k > 1
    the hazard at age 0 is 0; the first interval is then τ₀ = (2Cσ^k/k)^{1/(k+1)}
    [local-rate-first-interval], the one whose local-rate interval at its end is itself.

Everything here is NumPy over the lifetimes, apart from the gang's walk through the trace
(one step per interruption).  Times in hours.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import asdict, dataclass

import numpy as np

from ..inputs import InputError, check_gang_size, check_parameters
from ..model import _generated, numerics
from ..model.simulate import PoolTimeline, Segment
from ..model.solving import as_output
from .fitting import in_standard_errors, rate_interval
from .reading import Trace

__all__ = ["Replay", "GangPeriods", "gang_periods", "gang_walk", "replay", "replay_local_rate",
           "replayed_window",
           "best_fixed_interval", "useful_compute", "bulk_gang_rate", "bulk_fraction",
           "fit_bulk_fraction", "GRID_STEP"]

#: Relative spacing of the interval grid of :func:`best_fixed_interval`.
GRID_STEP = 1e-3
#: A write that ends this close to a preemption (as a share of a segment, or of the
#: lifetime for age-dependent schedules) counts as done: clock ticks make ties common.
_EDGE = 1e-9


def useful_compute(lifetimes: np.ndarray, interval: float, checkpoint_cost: float,
                   restart_time: float) -> np.ndarray:
    """Compute saved by checkpoints in each lifetime: T·⌊(L − R)/(T + C)⌋, hours.

    Examples
    --------
    >>> useful_compute(np.array([0.1, 1.0, 2.5]), 0.5, 0.1, 0.2)
    array([0. , 0.5, 1.5])
    """
    running = np.clip(np.asarray(lifetimes, float) - restart_time, 0.0, None)
    segments = np.floor(running / (interval + checkpoint_cost) + _EDGE)
    return interval * segments


def replayed_window(trace: Trace, interval: float | str, checkpoint_cost: float | str,
                    restart_time: float | str, *, start: float | None = None,
                    hours: float | str = 6.0, instances: int = 8):
    """The single-node replay of a window of the trace, segment by segment, per instance.

    Each lifetime of the first ``instances`` instances up in the window is replayed by the
    rules of :func:`replay`: a restart, then compute and writes in turn; the partial
    segment a preemption cuts is lost work, and a lifetime still up when observation
    stops is drawn as compute to its end.

    Parameters
    ----------
    trace : Trace
    interval, checkpoint_cost, restart_time : float or str
        T, C and R, hours or text such as ``'30min'``.
    start : float, optional
        The window's start, hours on the trace's clock (default its first time).
    hours : float or str, optional
        The window's length (default 6 hours).
    instances : int, optional
        At most this many instances, the first to come up in the window (default 8).

    Returns
    -------
    spotmath.model.simulate.PoolTimeline
        A row per instance (its id), times from the window's start.
    """
    interval, cost, restart, hours = check_parameters(
        scalar=True, interval=interval, checkpoint_cost=checkpoint_cost,
        restart_time=restart_time, hours=hours)
    instances = check_gang_size("instances", instances, what="a whole number of instances")
    begin = trace.start if start is None else float(start)
    end = begin + hours
    inside = (trace.up < end) & (trace.down > begin)
    order = np.argsort(trace.up[inside], kind="stable")
    shown: list[str] = []
    for node in np.asarray(trace.node, dtype=object)[inside][order]:
        if node not in shown and len(shown) < instances:
            shown.append(node)
    rows: dict[str, list] = {node: [] for node in shown}
    hits: dict[str, list] = {node: [] for node in shown}
    for node, up, down, preempted in zip(trace.node, trace.up, trace.down, trace.preempted):
        if node not in rows or up >= end or down <= begin:
            continue
        segments = rows[node]

        def add(kind, a, b):
            a, b = max(a, begin), min(b, end)
            if b > a:
                segments.append(Segment(a - begin, b - begin, kind))

        add("restart", up, min(up + restart, down))
        done = int(useful_compute(np.array([down - up]), interval, cost, restart)[0]
                   / interval + 0.5)
        t = up + restart
        for _ in range(done):
            add("compute", t, t + interval)
            add("checkpoint", t + interval, t + interval + cost)
            t += interval + cost
        if t < down:
            add("lost" if preempted else "compute", t, down)
        if preempted and begin <= down < end:
            hits[node].append(float(down - begin))
    return PoolTimeline(names=tuple(str(node) for node in shown),
                        rows=tuple(tuple(sorted(rows[n], key=lambda s: s.start))
                                   for n in shown),
                        preemptions=tuple(tuple(hits[n]) for n in shown),
                        length=hours)


@dataclass(frozen=True)
class GangPeriods:
    """The periods a gang of ``gang_size`` held all its instances (hours; see the module)."""

    gang_size: int
    lengths: np.ndarray
    interrupted: np.ndarray  # False: censored
    lost: np.ndarray  # instances preempted at each interruption
    waiting_hours: float


def gang_periods(trace: Trace, gang_size: int) -> GangPeriods:
    """Walk a gang of ``gang_size`` through a pool trace by the rules of the module docstring.

    Examples
    --------
    >>> from spotmath.traces import Trace
    >>> pool = Trace("p", ("a", "b", "c"), np.array([0.0, 0.0, 1.0]),
    ...              np.array([2.0, 5.0, 5.0]), np.array([True, False, False]),
    ...              0.0, 5.0, 0.0)
    >>> periods = gang_periods(pool, 2)
    >>> periods.lengths, periods.interrupted, periods.waiting_hours
    (array([2., 3.]), array([ True, False]), 0.0)
    """
    size = check_gang_size("gang_size", gang_size)
    periods, waiting = gang_walk(trace, size)
    return GangPeriods(gang_size=size,
                       lengths=np.array([end - start for start, end, _, _ in periods],
                                        dtype=float),
                       interrupted=np.array([bool(hit) for *_, hit in periods], dtype=bool),
                       lost=np.array([len(hit) for *_, hit in periods], dtype=int),
                       waiting_hours=float(waiting))


def gang_walk(trace: Trace, gang_size: int
              ) -> tuple[list[tuple[float, float, list[int], list[int]]], float]:
    """The gang's periods by the rules of the module docstring, with identities.

    Returns each period as (start, end, the trace indices of the instances held, those
    of the held instances preempted at its end: none for a censored period), and the
    hours spent waiting for capacity.
    """
    size = check_gang_size("gang_size", gang_size)
    order = np.lexsort((np.arange(trace.up.size), trace.up))  # longest up first
    up, down, preempted = trace.up[order], trace.down[order], trace.preempted[order]
    periods = []
    waiting, now, admitted = 0.0, trace.start, 0
    free: list[int] = []  # heap of up, unheld instances, longest up first
    held: list[int] = []
    while True:
        while admitted < up.size and up[admitted] <= now:
            if down[admitted] > now:
                heapq.heappush(free, admitted)
            admitted += 1
        held = [i for i in held if down[i] > now]
        while len(held) < size and free:
            i = heapq.heappop(free)
            if down[i] > now:
                held.append(i)
        if len(held) < size:  # wait for capacity (holding the survivors)
            if admitted == up.size:
                waiting += trace.end - now
                break
            waiting += up[admitted] - now
            now = up[admitted]
            continue
        first = min(down[i] for i in held)
        hit = [i for i in held if down[i] == first and preempted[i]]
        periods.append((float(now), float(first), [int(order[i]) for i in held],
                        [int(order[i]) for i in hit]))
        if not hit and first >= trace.end:
            break
        now = first
    return periods, float(waiting)


@dataclass(frozen=True)
class Replay:
    """The realised waste of a schedule on a trace, next to the exact Poisson model.

    ``preemption_rate`` is the trace's rate per node-hour; ``model_rate`` the rate the
    exact model is evaluated at: λ for one node, Nλ for a gang (independent nodes);
    ``poisson_waste_gang_rate`` is the exact model at the gang's measured rate instead.
    Hours are node-hours.  The gang fields are None for a single node.
    """

    trace: str
    schedule: str
    interval_h: float | None
    checkpoint_cost_h: float
    restart_time_h: float
    gang_size: int | None
    waste: float
    waste_standard_error: float
    lifetimes_used: int
    censored: int
    paid_hours: float
    useful_hours: float
    preemption_rate: float
    model_rate: float
    poisson_waste: float | None
    interruptions: int | None = None
    gang_rate: float | None = None
    gang_rate_ci95: tuple[float, float] | None = None
    instances_per_interruption: float | None = None
    waiting_hours: float | None = None
    held_hours: float | None = None
    poisson_waste_gang_rate: float | None = None

    @property
    def model_gap_z(self) -> float | None:
        """The replayed waste minus the exact model's, in the replay's standard errors
        (:func:`~spotmath.traces.fitting.in_standard_errors`); None without a model."""
        if self.poisson_waste is None:
            return None
        return in_standard_errors(self.waste - self.poisson_waste,
                                  self.waste_standard_error)

    @property
    def gang_rate_against_model(self) -> str | None:
        """Where the gang's 95% interval of interruptions per hour held lies against the
        model's rate Nλ: ``'below'``, ``'above'`` or ``'about'`` (it holds Nλ); None for
        a single node or a gang never interrupted."""
        if self.gang_rate_ci95 is None or not self.interruptions:
            return None
        low, high = self.gang_rate_ci95
        return "below" if high < self.model_rate else \
            "above" if low > self.model_rate else "about"

    def as_dict(self) -> dict:
        """Plain JSON-ready values (pairs as lists)."""
        return {key: list(value) if isinstance(value, tuple) else value
                for key, value in asdict(self).items()}


def _lifetimes(trace: Trace, gang_size: int | None) -> tuple[np.ndarray, np.ndarray, dict]:
    """Complete lifetimes (of the gang, for ``gang_size``), censored ones, and gang fields."""
    if gang_size is None:
        return trace.lifetimes[trace.preempted], trace.lifetimes[~trace.preempted], {}
    periods = gang_periods(trace, gang_size)
    held = float(periods.lengths.sum())
    count = int(periods.interrupted.sum())
    if held == 0:
        raise InputError(f"gang_size: {trace.name} never has {periods.gang_size} instances up at "
                         f"once (at most {trace.most_up})")
    extra = {"interruptions": count, "gang_rate": count / held,
             "gang_rate_ci95": rate_interval(count, held),
             "instances_per_interruption": (float(periods.lost[periods.interrupted].mean())
                                            if count else None),
             "waiting_hours": periods.waiting_hours, "held_hours": held}
    return (periods.lengths[periods.interrupted], periods.lengths[~periods.interrupted],
            extra)


def _realised(paid: np.ndarray, useful: np.ndarray) -> tuple[float, float]:
    """Waste 1 − Σuseful/Σpaid and its standard error, lifetimes taken as independent."""
    ratio = useful.sum() / paid.sum()
    count = paid.size
    spread = np.sqrt(np.sum((useful - ratio * paid) ** 2) * count / max(count - 1, 1))
    return float(1 - ratio), float(spread / paid.sum())


def _checked(trace: Trace, interval, checkpoint_cost, restart_time, gang_size):
    checks = {"checkpoint_cost": checkpoint_cost, "restart_time": restart_time}
    if interval is not None:
        checks["interval"] = interval
    values = dict(zip(checks, check_parameters(scalar=True, **checks)))
    size = None if gang_size is None else check_gang_size("gang_size", gang_size)
    if trace.preemptions == 0:
        raise InputError(f"{trace.name}: no preemptions: nothing to replay")
    return values, size


def _result(trace: Trace, schedule: str, interval: float | None, cost: float, restart: float,
            size: int | None, complete: np.ndarray, censored: np.ndarray, useful: np.ndarray,
            extra: dict) -> Replay:
    if complete.size == 0 or complete.sum() == 0:
        raise InputError(f"{trace.name}: no complete lifetime of positive length to replay")
    waste, error = _realised(complete, useful)
    rate = trace.preemption_rate
    model_rate = rate * (size or 1)
    poisson = (None if interval is None else
               float(numerics.waste_fraction(model_rate, interval, cost, restart)))
    if interval is not None and extra.get("interruptions"):
        extra = dict(extra, poisson_waste_gang_rate=float(
            numerics.waste_fraction(extra["gang_rate"], interval, cost, restart)))
    scale = size or 1
    return Replay(trace=trace.name, schedule=schedule, interval_h=interval,
                  checkpoint_cost_h=cost, restart_time_h=restart, gang_size=size, waste=waste,
                  waste_standard_error=error, lifetimes_used=int(complete.size),
                  censored=int(censored.size), paid_hours=scale * float(complete.sum()),
                  useful_hours=scale * float(useful.sum()), preemption_rate=rate,
                  model_rate=model_rate, poisson_waste=poisson, **extra)


def replay(trace: Trace, interval: float | str, checkpoint_cost: float | str,
           restart_time: float | str, gang_size: int | None = None) -> Replay:
    """Replay a fixed checkpoint interval on a trace (rules in the module docstring).

    Parameters
    ----------
    trace : Trace
        The lifetimes, from :func:`spotmath.traces.read_trace`.
    interval : float or str
        Compute between checkpoints T, hours (or '30min').
    checkpoint_cost : float or str
        Blocking time of one write C, hours (or '1min').
    restart_time : float or str
        Time from a preemption to computing again R, hours (or '10min').
    gang_size : int, optional
        Replay a synchronous gang of this many instances on the pool; by default every
        lifetime is one paid up-period of a single-node job.

    Returns
    -------
    Replay

    Raises
    ------
    InputError
        A bad value (naming it), a trace without preemptions, or a pool that never has
        ``gang_size`` instances up at once.

    References
    ----------
    ``daly2006`` (the exact model ``poisson_waste`` is compared with).

    Examples
    --------
    >>> from spotmath.traces.synthetic import synthetic_trace
    >>> trace = synthetic_trace(preemption_rate=0.25, pool_size=50, hours=2000, seed=5)
    >>> result = replay(trace, "30min", "1min", "10min")
    >>> abs(result.waste - result.poisson_waste) < 3 * result.waste_standard_error
    True
    """
    values, size = _checked(trace, interval, checkpoint_cost, restart_time, gang_size)
    T, C, R = values["interval"], values["checkpoint_cost"], values["restart_time"]
    complete, censored, extra = _lifetimes(trace, size)
    return _result(trace, "fixed", T, C, R, size, complete, censored,
                   useful_compute(complete, T, C, R), extra)


def _local_rate_ends(shape: float, scale: float, cost: float, restart: float,
                     horizon: float) -> tuple[np.ndarray, np.ndarray]:
    """Ages at which each write of the local-rate schedule ends, and the compute saved by
    then, up to ``horizon`` hours of age."""
    if cost == 0:
        raise InputError("checkpoint_cost: must be > 0 for the local-rate schedule (with "
                         "free writes its intervals are all 0)")
    if horizon / cost > 1e6:
        raise InputError(f"checkpoint_cost: {cost:g} h is too short for lifetimes of "
                         f"{horizon:g} h (over a million writes each)")
    local = _generated.local_rate_interval
    ends, saved = [], [0.0]
    age = restart
    while age <= horizon:
        if age == 0 and shape > 1:  # no hazard at age 0: the self-consistent first interval
            step = float(_generated.local_rate_first_interval(cost, scale, shape))
        else:
            step = float(local(cost, scale, shape, age))
        age += step + cost
        ends.append(age)
        saved.append(saved[-1] + step)
    return np.array(ends), np.array(saved)


def replay_local_rate(trace: Trace, shape: float, scale: float, checkpoint_cost: float | str,
                      restart_time: float | str, gang_size: int | None = None) -> Replay:
    """Replay the age-dependent local-rate schedule of a Weibull hazard on a trace.

    Segment j starts at the instance's age a_j (a_0 = R, the restart) and computes for
    τ(a_j) = √(2C/h(a_j)) [local-rate-interval], then writes for C; its compute is useful if
    the write ends before the preemption.  With k = 1 this is the fixed Young interval.
    With R = 0 and k > 1 the first interval is τ₀ [local-rate-first-interval].  For a gang
    the age is the gang period's (its restart ends at R).

    References
    ----------
    ``ling2001``.

    Examples
    --------
    >>> from spotmath.traces.synthetic import synthetic_trace
    >>> trace = synthetic_trace(preemption_rate=0.5, pool_size=20, hours=500,
    ...                         weibull_shape=0.5, seed=2)
    >>> early = replay_local_rate(trace, 0.5, 1.0, "1min", "10min")
    >>> early.schedule
    'local-rate, Weibull k = 0.5, scale 1 h'
    """
    shape, scale = check_parameters(scalar=True, weibull_shape=shape, weibull_scale=scale)
    values, size = _checked(trace, None, checkpoint_cost, restart_time, gang_size)
    C, R = values["checkpoint_cost"], values["restart_time"]
    complete, censored, extra = _lifetimes(trace, size)
    ends, saved = _local_rate_ends(shape, scale, C, R, float(complete.max(initial=0.0)))
    done = np.searchsorted(ends, complete * (1 + _EDGE), side="right")
    return _result(trace, f"local-rate, Weibull k = {shape:.3g}, scale {scale:.3g} h", None,
                   C, R, size, complete, censored, saved[done], extra)


def _useful_at(grid: np.ndarray, running: np.ndarray, cost: float) -> np.ndarray:
    """Σ T·⌊u/(T + C) + ε⌋ over the running times u, for every interval T of ``grid``.

    ⌊x⌋ = Σ_{k≥1} [x ≥ k], so the sum is T·Σ_k #{u : ⌊u/s + ε⌋ ≥ k} with s = T + C: one
    binary search per k in the sorted running times, where k runs to the largest u/s,
    instead of one pass over every u; the same floating-point predicate decides each
    count, so the result is the direct sum's, to the last bit of every count.
    """
    ordered = np.sort(running)
    size = ordered.size
    if size == 0:
        return np.zeros(grid.size)
    longest = ordered[-1]
    useful = np.empty(grid.size)
    for j, interval in enumerate(grid.tolist()):
        step = interval + cost
        most = int(math.floor(longest / step + _EDGE))
        if most > size // 8:  # as many levels as lifetimes: the direct sum is cheaper
            useful[j] = interval * np.floor(ordered / step + _EDGE).sum()
            continue
        levels = np.arange(1, most + 1, dtype=float)
        first = np.searchsorted(ordered, (levels - _EDGE) * step)
        # The first u with ⌊u/s + ε⌋ ≥ k, to the last bit: move across the few values
        # that rounding of (k − ε)s may have put on the wrong side.
        while True:
            inside = first < size
            late = inside.copy()
            late[inside] = np.floor(ordered[first[inside]] / step + _EDGE) < levels[inside]
            early = first > 0
            early[early] = np.floor(ordered[first[early] - 1] / step + _EDGE) >= levels[early]
            if not (late.any() or early.any()):
                break
            first = first + late - early
        useful[j] = interval * float(np.sum(size - first))
    return useful


def best_fixed_interval(trace: Trace, checkpoint_cost: float | str,
                        restart_time: float | str, gang_size: int | None = None
                        ) -> tuple[float | None, float]:
    """The fixed interval with the least replayed waste on the trace, and that waste.

    Searched from a hundredth of the exact optimum at the trace's rate (or of the longest
    lifetime, if shorter) to the longest lifetime.  When no lifetime outlasts its restart
    and one write, no interval saves anything: the result is ``(None, 1.0)``.  Moving T
    down to a grid point T/r just below it never loses a completed
    segment, so the useful work there is at least 1/r of T's.  A coarse grid (r = 1.01)
    therefore rules out every bracket whose left point falls below 1/1.01 of the coarse
    best; the rest are searched on a fine grid (r = 1 + :data:`GRID_STEP`), whose best
    useful work is within a factor 1/(1 + GRID_STEP) of the best over all intervals.

    Examples
    --------
    >>> from spotmath.traces.synthetic import synthetic_trace
    >>> trace = synthetic_trace(preemption_rate=0.25, pool_size=50, hours=2000, seed=5)
    >>> interval, waste = best_fixed_interval(trace, "1min", "10min")
    >>> bool(0.2 < interval < 0.6)
    True
    """
    values, size = _checked(trace, None, checkpoint_cost, restart_time, gang_size)
    C, R = values["checkpoint_cost"], values["restart_time"]
    if C == 0:
        raise InputError("checkpoint_cost: must be > 0 to search an interval (with free "
                         "writes the best is to checkpoint continuously)")
    complete, _, _ = _lifetimes(trace, size)
    running = np.clip(complete - R, 0.0, None)
    high = float(running.max(initial=0.0)) - C
    if high <= 0:  # no lifetime outlasts its restart and one write: nothing is ever saved
        return None, 1.0
    rate = trace.preemption_rate * (size or 1)
    low = min(0.01 * float(numerics.exact_interval(rate, C)), high / 100)
    coarse_step = 10 * GRID_STEP
    coarse = np.geomspace(low, high, int(math.ceil(math.log(high / low) / coarse_step)) + 1)
    useful = _useful_at(coarse, running, C)
    open_ = np.nonzero(useful[:-1] * (1 + coarse_step) >= useful.max())[0]
    fine = np.unique(np.concatenate([coarse] + [
        np.geomspace(coarse[i], coarse[i + 1],
                     int(math.ceil(math.log(coarse[i + 1] / coarse[i]) / GRID_STEP)) + 1)
        for i in open_]))
    useful = _useful_at(fine, running, C)
    best = int(np.argmax(useful))
    return float(fine[best]), float(1 - useful[best] / complete.sum())


def bulk_gang_rate(preemption_rate: float, gang_size, bulk_fraction: float):
    """A gang's preemption rate when a share ρ of reclaims takes the whole gang:
    (N(1 − ρ) + ρ)λ per hour [bulk-gang-rate]; ``gang_size`` may be an array.

    Examples
    --------
    >>> bulk_gang_rate(0.5, 4, 0.5)
    1.25
    """
    rate, fraction = check_parameters(scalar=True, preemption_rate=preemption_rate,
                                      bulk_fraction=bulk_fraction)
    sizes = np.asarray(gang_size)
    for size in sizes.flat:
        check_gang_size("gang_size", size)
    return as_output(_generated.bulk_gang_rate(rate, sizes.astype(float), fraction))


def bulk_fraction(preemption_rate: float, gang_size: int, gang_rate: float) -> float:
    """The bulk share ρ at which a gang of N is interrupted at ``gang_rate``:
    (Nλ − r)/((N − 1)λ) [bulk-fraction].  Outside [0, 1] the bulk model cannot explain it.

    Examples
    --------
    >>> bulk_fraction(0.5, 4, 1.25)
    0.5
    """
    rate, size = check_parameters(scalar=True, preemption_rate=preemption_rate,
                                  gang_size=gang_size)
    if size < 2:
        raise InputError("gang_size: a bulk share needs a gang of 2 or more")
    (measured,) = check_parameters(scalar=True, gang_rate=gang_rate)
    return float(_generated.bulk_fraction(rate, size, measured))


def fit_bulk_fraction(preemption_rate: float, gangs: list[tuple[int, int, float]]) -> float:
    """The bulk share ρ in [0, 1] that best explains gangs' interruption counts.

    ``gangs`` holds (N, interruptions, held hours) per gang size; each count is taken as
    Poisson with mean hours·(N(1 − ρ) + ρ)λ [bulk-gang-rate], and the joint likelihood is
    maximised over ρ (the counts come from one trace, so this is a summary, not a test).

    Examples
    --------
    >>> round(fit_bulk_fraction(0.5, [(4, 125, 100.0), (8, 225, 100.0)]), 3)
    0.5
    """
    from scipy.optimize import minimize_scalar

    (rate,) = check_parameters(scalar=True, preemption_rate=preemption_rate)
    sizes = np.array([check_gang_size("gang_size", size) for size, _, _ in gangs], float)
    counts = np.array([count for _, count, _ in gangs], float)
    hours = np.array([held for _, _, held in gangs], float)
    if not np.any(sizes > 1):
        raise InputError("gang_size: fitting a bulk share needs a gang of 2 or more")
    def minus_loglik(rho: float) -> float:
        mean = hours * _generated.bulk_gang_rate(rate, sizes, rho)
        return float(np.sum(mean - counts * np.log(mean)))

    found = minimize_scalar(minus_loglik, bounds=(0.0, 1.0), method="bounded",
                            options={"xatol": 1e-10})
    ends = [0.0, 1.0]
    return float(min([found.x, *ends], key=minus_loglik))
