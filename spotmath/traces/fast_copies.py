"""Where a gang's fast copies die: the event rate λ and the loss chance p from a trace.

Two-level checkpoints (:mod:`spotmath.model.two_level`) need the rate of preemption events
that hit the gang and the chance p that an event destroys the fast copies.  On a pool
trace both are measured, not assumed:

1. The gang of N walks through the pool by the rules of :mod:`spotmath.traces.replay`
   (:func:`~spotmath.traces.replay.gang_walk`); each interruption is a preemption event.
2. An event takes the held instances preempted at that moment and every held instance
   preempted within the restart window of the last one taken (the fast restart R₁, while
   the copies are read): the copies must survive until the restart has read them.  Later
   interruptions inside that window belong to the same event.
3. The fast copies sit in disjoint groups of m nodes (``group``; m = 2 is a pairwise
   backup, m = 1 a copy on the node's own disk), placed at random: a node's copy is lost
   when its whole group is taken.  An event that takes k of the N nodes destroys some
   copy with chance q(k) = Σ_{j≥1} (−1)^{j+1} C(N/m, j) C(N − jm, k − jm) / C(N, k)
   (inclusion–exclusion over the groups wholly taken).
4. λ = events / hours the gang held its instances (a Poisson interval); p = the mean of
   q(k) over the events, with a Wilson interval over the events.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.special import ndtri

from ..inputs import InputError, check_gang_size, check_parameters
from ..model import two_level
from .fitting import LEVEL, rate_interval
from .reading import Trace
from .replay import gang_walk

__all__ = ["FastCopyFit", "FastCopyReplay", "loss_chance", "fit_fast_copies",
           "replay_fast_copies"]


def loss_chance(taken: int, gang_size: int, group: int) -> float:
    """q(k): the chance that ``taken`` of ``gang_size`` nodes include a whole group of ``group``.

    The groups are a random partition of the gang into groups of ``group`` nodes.

    Parameters
    ----------
    taken : int
        Nodes an event takes, 0 ≤ k ≤ N.
    gang_size : int
        The gang, N ≥ 1, a multiple of ``group``.
    group : int
        Nodes holding each fast copy, m ≥ 1.

    Returns
    -------
    float
        The chance, in [0, 1].

    Raises
    ------
    InputError
        A group that does not divide the gang, or k outside [0, N].

    Examples
    --------
    >>> loss_chance(2, 4, 2)  # {a, b} or {c, d} among the C(4, 2) = 6 pairs
    0.3333333333333333
    >>> loss_chance(1, 8, 1), loss_chance(3, 8, 4)
    (1.0, 0.0)
    """
    gang_size = check_gang_size("gang_size", gang_size)
    group = check_gang_size("level1_group", group, what="a whole number of nodes")
    if gang_size % group:
        raise InputError(f"level1_group: {group} does not divide the gang of {gang_size} nodes")
    if not 0 <= taken <= gang_size:
        raise InputError(f"taken: {taken} is not between 0 and the gang's {gang_size} nodes")
    groups = gang_size // group
    total = sum((-1) ** (j + 1) * math.comb(groups, j) * math.comb(gang_size - j * group,
                                                                  taken - j * group)
                for j in range(1, min(groups, taken // group) + 1))
    return total / math.comb(gang_size, taken)


@dataclass(frozen=True)
class FastCopyFit:
    """A gang's preemption events on a trace and the chance they take its fast copies.

    ``event_rate`` λ per gang-hour held (``held_hours``), ``level1_loss`` p; ``taken``
    holds each event's count of instances taken (k), ``loss_chances`` its q(k).
    """

    trace: str
    gang_size: int
    group: int
    window_h: float
    events: int
    held_hours: float
    event_rate: float
    event_rate_ci95: tuple[float, float]
    level1_loss: float | None
    level1_loss_ci95: tuple[float, float] | None
    taken: tuple[int, ...]
    loss_chances: tuple[float, ...]

    def as_dict(self) -> dict:
        """Plain JSON-ready values (pairs as lists)."""
        return {key: list(value) if isinstance(value, tuple) else value
                for key, value in asdict(self).items()}


def _wilson(share: float, count: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's score interval for a share observed over ``count`` trials."""
    z = float(ndtri(1 - (1 - level) / 2))
    centre = (share + z * z / (2 * count)) / (1 + z * z / count)
    half = z * math.sqrt(share * (1 - share) / count + z * z / (4 * count * count)) / (
        1 + z * z / count)
    return max(0.0, centre - half), min(1.0, centre + half)


def fit_fast_copies(trace: Trace, gang_size: int, group: int,
                    level1_restart: float | str) -> FastCopyFit:
    """The gang's event rate and the chance an event takes its fast copies, on a trace.

    Parameters
    ----------
    trace : Trace
        A pool trace (:func:`spotmath.traces.read_trace`).
    gang_size : int
        The gang, N ≥ 1, a multiple of ``group``.
    group : int
        Nodes holding each fast copy, m ≥ 1 (2: a pairwise backup).
    level1_restart : float or str
        The restart from a fast copy R₁ ≥ 0, hours or text such as ``'2min'``: the window
        in which further preemptions join an event.

    Returns
    -------
    FastCopyFit
        λ with its 95% Poisson interval, p with its 95% Wilson interval (None without
        events), and each event's k and q(k).

    Raises
    ------
    InputError
        A bad value, a group that does not divide the gang, or a gang the pool never holds.

    Examples
    --------
    >>> from spotmath.traces.synthetic import synthetic_trace
    >>> pool = synthetic_trace(preemption_rate=0.25, pool_size=4, hours=200,
    ...                        bulk_fraction=0.3, seed=2)
    >>> fit = fit_fast_copies(pool, 4, 2, 0.0)
    >>> 0 < fit.level1_loss < 1
    True
    """
    return _walked(trace, gang_size, group, level1_restart)[0]


def _walked(trace: Trace, gang_size: int, group: int, level1_restart: float | str
            ) -> tuple[FastCopyFit, list, list]:
    """The fit, and the gang's periods and events it rests on (one walk for both the
    fit and a replay)."""
    gang_size = check_gang_size("gang_size", gang_size)
    group = check_gang_size("level1_group", group, what="a whole number of nodes")
    loss_chance(0, gang_size, group)  # checks that the group divides the gang
    (window,) = check_parameters(scalar=True, level1_restart=level1_restart)
    periods, _ = gang_walk(trace, gang_size)
    if not periods:
        raise InputError(f"gang_size: {trace.name} never has {gang_size} instances up at once "
                         f"(at most {trace.most_up})")
    held_hours = sum(end - start for start, end, _, _ in periods)
    if held_hours <= 0:
        raise InputError(f"gang_size: {trace.name} holds a gang of {gang_size} for no time at all")
    found = _events(trace, periods, window)
    taken = [len(gone) for _, _, gone in found]
    chances = [loss_chance(k, gang_size, group) for k in taken]
    events = len(taken)
    loss = float(np.mean(chances)) if events else None
    fit = FastCopyFit(
        trace=trace.name, gang_size=gang_size, group=group, window_h=window, events=events,
        held_hours=float(held_hours), event_rate=events / held_hours,
        event_rate_ci95=rate_interval(events, held_hours),
        level1_loss=loss, level1_loss_ci95=None if loss is None else _wilson(loss, events),
        taken=tuple(taken), loss_chances=tuple(chances))
    return fit, periods, found


def _events(trace: Trace, periods: list, window: float
            ) -> list[tuple[float, list[int], list[int]]]:
    """The gang's preemption events: (time, the instances held then, those it takes).

    An event takes the held instances preempted at an interruption and every one
    preempted within ``window`` of the last taken; interruptions inside that window
    belong to it (module docstring, step 2).
    """
    slack = 1e-9 * max(1.0, abs(trace.end))
    found, until = [], -math.inf
    for _, end, held, hit in periods:
        if not hit or end <= until + slack:
            continue  # censored, or part of the event before
        later = sorted((trace.down[i], i) for i in held if trace.preempted[i]
                       and trace.down[i] > end)
        last, gone = end, list(hit)
        for down, i in later:
            if down > last + window + slack:
                break
            last = down
            gone.append(i)
        found.append((float(end), list(held), gone))
        until = last + window
    return found


@dataclass(frozen=True)
class FastCopyReplay:
    """A two-level schedule replayed on a pool with its real instances (hours).

    ``waste`` is 1 − kept compute / hours the gang held its instances; ``model_waste`` the
    exact model's at the fitted event rate and share (``fit``).
    """

    trace: str
    gang_size: int
    group: int
    interval_h: float
    level2_every: int
    events: int
    copies_lost: int
    held_hours: float
    kept_hours: float
    waste: float
    model_waste: float | None
    fit: FastCopyFit

    def as_dict(self) -> dict:
        """Plain JSON-ready values (the fit nested)."""
        values = {key: value for key, value in asdict(self).items() if key != "fit"}
        return dict(values, fit=self.fit.as_dict())


def replay_fast_copies(
    trace: Trace, gang_size: int, group: int, *, interval: float | str | None = None,
    level2_every: int | None = None, level1_cost: float | str,
    checkpoint_cost: float | str, level1_restart: float | str, restart_time: float | str,
    seed: int = 0,
) -> FastCopyReplay:
    """Replay a two-level schedule on a pool: which copies died is read, not drawn.

    The gang of N walks through the pool (:func:`~spotmath.traces.replay.gang_walk`) and
    is hit by its events (:func:`fit_fast_copies`).  Its N places are split once into
    groups of m at random (``seed``); a new instance takes the place of one that was
    taken.  An event destroys the fast copies when it takes every instance of some group.
    Between events the gang's held hours run the schedule of
    :mod:`spotmath.model.two_level`: a restart (R after an event that destroyed the copies
    and at the start, R₁ otherwise; an event during it starts it again, R₁ becoming R if
    that event destroys the copies), then segments of T compute each ending with a fast
    write C₁, every n-th with a durable write C.  An event keeps every completed segment
    if the copies survive and only those up to the last durable write otherwise.
    Compute kept at the end of the trace counts as kept.  A held instance whose
    observation ends is replaced without an event.

    Parameters
    ----------
    trace : Trace
        A pool trace.
    gang_size : int
        The gang, N ≥ 1, a multiple of ``group``.
    group : int
        Nodes holding each fast copy, m ≥ 1.
    interval : float or str, optional
        Compute between writes T > 0, hours or text (default, with ``level2_every``: the
        exact optimum at the fitted rate and share, :func:`spotmath.model.two_level.optimum`).
    level2_every : int, optional
        A durable write every n-th write, n ≥ 1 (given with ``interval``).
    level1_cost : float or str
        Fast write C₁ ≥ 0.
    checkpoint_cost : float or str
        Durable write C ≥ 0.
    level1_restart : float or str
        Restart from a fast copy R₁ ≥ 0; also the window of an event.
    restart_time : float or str
        Restart from the durable copy R ≥ 0.
    seed : int, optional
        Seed of the random split into groups (default 0).

    Returns
    -------
    FastCopyReplay
        The replayed waste next to the exact model at the fitted rate and share.

    Raises
    ------
    InputError
        A bad value, a group that does not divide the gang, a gang the pool never holds,
        only one of ``interval`` and ``level2_every``, or neither where no event takes a
        copy (no optimum to default to).

    Examples
    --------
    >>> from spotmath.traces.synthetic import synthetic_trace
    >>> pool = synthetic_trace(preemption_rate=0.1, pool_size=4, hours=300, seed=3)
    >>> run = replay_fast_copies(pool, 4, 2, interval=0.5, level2_every=3,
    ...                          level1_cost=0.002, checkpoint_cost=0.05,
    ...                          level1_restart=0.02, restart_time=0.1)
    >>> 0 < run.waste < 1
    True
    """
    if (interval is None) != (level2_every is None):
        raise InputError("level2_every: goes with interval (or give neither for the optimum "
                         "at the fitted rate and share)")
    fit, periods, events = _walked(trace, gang_size, group, level1_restart)
    fast, durable, fast_restart, restart = check_parameters(
        scalar=True, level1_cost=level1_cost, checkpoint_cost=checkpoint_cost,
        level1_restart=level1_restart, restart_time=restart_time)
    if interval is None:
        if not fit.level1_loss:
            raise InputError(f"level1_group: no event on {trace.name} takes a fast copy, so "
                             "there is no optimum: give interval and level2_every")
        best = two_level.optimum(fit.event_rate, level1_loss=fit.level1_loss,
                                 level1_cost=fast, checkpoint_cost=durable,
                                 level1_restart=fast_restart, restart_time=restart)
        interval, level2_every = best.interval, best.level2_every
    (T,) = check_parameters(scalar=True, interval=interval)
    (every,) = check_parameters(scalar=True, level2_every=level2_every)
    (seed,) = check_parameters(scalar=True, seed=seed)
    split = np.random.default_rng(seed).permutation(fit.gang_size).reshape(-1, fit.group)
    groups = [set(int(member) for member in members) for members in split]
    # the gang's held stretches, and where each event falls in its held time
    held_at, clock = [], 0.0
    for start, end, _, _ in periods:
        held_at.append((start, end, clock))
        clock += end - start

    ends = [end for _, end, _ in held_at]  # in time order, as the walk found them

    def held_time(at: float) -> float:
        first = bisect.bisect_left(ends, at)  # the first stretch that ends at or after it
        if first == len(held_at):
            return clock
        start, _, before = held_at[first]
        return before + max(at - start, 0.0)

    place: dict[int, int] = {}
    kept = durable_kept = 0.0  # compute kept by either copy, and by the durable one
    since = 0  # segments completed since the last durable write
    state, now, lost_copies = "restart", 0.0, 0
    for at, held, gone in [*events, (None, None, None)]:
        until = clock if at is None else held_time(at)
        if held is not None:  # fill the places of the instances held now
            free = sorted(set(range(fit.gang_size)) - {place[i] for i in held if i in place})
            for i in held:
                if i not in place:
                    place[i] = free.pop(0)
        while now < until - 1e-12:  # run the schedule up to the event
            if state in ("restart", "fast-restart"):
                length = restart if state == "restart" else fast_restart
                if now + length > until:
                    break
                now, state = now + length, "compute"
                continue
            length = T + (durable if since == every - 1 else fast)
            if now + length > until:
                break
            now += length
            since += 1
            kept += T
            if since == every:
                since, durable_kept = 0, kept
        if at is None:
            break
        taken = {place[i] for i in gone if i in place}
        destroyed = any(members <= taken for members in groups)
        lost_copies += destroyed
        if destroyed:
            kept, since = durable_kept, 0
        # an event during R, or one that takes the copies: R; otherwise R₁ (again)
        state = "restart" if state == "restart" or destroyed else "fast-restart"
        now = until
        for i in gone:
            place.pop(i, None)
    waste = 1 - kept / clock  # the gang held its instances for some time (_walked)
    model = None
    if fit.level1_loss is not None:
        model = float(two_level.waste(fit.event_rate, T, every, level1_cost=fast,
                                      checkpoint_cost=durable, level1_restart=fast_restart,
                                      restart_time=restart, level1_loss=fit.level1_loss))
    return FastCopyReplay(trace=trace.name, gang_size=fit.gang_size, group=fit.group, interval_h=T,
                          level2_every=every, events=len(events), copies_lost=lost_copies,
                          held_hours=float(clock), kept_hours=float(kept),
                          waste=float(waste), model_waste=model, fit=fit)
