"""Monte Carlo witness for the formulas: simulate jobs on spot, preemption by preemption.

A job has ``work`` hours of useful compute.  From each checkpoint it computes for the
interval T, writes a checkpoint of C, and so on (the last segment may be shorter, and it
writes a final checkpoint too).  A preemption destroys the work since the last checkpoint;
then a restart of R brings the job back to that checkpoint.

Preemption processes (all times in hours):

* each of the gang's ``gang_size`` nodes is preempted independently, with inter-preemption
  times of mean 1/((1 − ρ)λ): exponential (Poisson) or Weibull of shape k
  (``weibull_shape``; k < 1 bursty, k > 1 wear-out).  A preempted node is replaced by a new
  one whose clock starts at the preemption;
* bulk reclaims (``bulk_fraction`` ρ): a Poisson process of rate ρλ takes the whole gang at
  once and replaces every node.  A gang's rate lies between λ (ρ = 1) and Nλ (ρ = 0);
* ``restart_preemptible``: a restart can itself be preempted (it then starts again), as in
  the exact model's default; otherwise the preemption clocks stand still during a restart;
* ``notice``, ``notice_share`` q, ``notice_write`` C_n: a share q of preemptions (drawn
  independently for each) comes with a notice.  If C_n ≤ notice and the job is computing at
  such a preemption, it wrote an on-notice checkpoint in the last C_n before it, so it loses
  only that write (or the compute since the last checkpoint, if shorter) and the restart.
  Every other preemption (unannounced, or during a periodic write or a restart) rolls back
  to the last durable checkpoint, as the exact model's rules say
  (:mod:`spotmath.model.derivations`, section 9);
* ``persist`` P (≤ T): a checkpoint is durable P after its blocking write C, while the next
  interval computes; a preemption rolling back within P of a write loses the interval
  before it too.  The job is done when its last write ends (its persist is not waited for).

:func:`simulate` is vectorised over jobs with NumPy (each round handles the next
preemption of every unfinished job, skipping the segments in between in closed form);
:func:`simulate_reference` is the readable plain-Python event loop with the same rules,
kept as the reference the fast one is tested against.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from ..docs import fill_doc
from ..inputs import InputError, check_parameters

__all__ = ["Simulation", "Segment", "Timeline", "PoolTimeline", "SEGMENT_KINDS",
           "exposure", "simulate",
           "simulate_reference", "timeline", "gap_scale", "waste_curve", "curve_break_even"]

_DONE = 1e-9  # work left below this fraction of an interval counts as finished


#: What a job does in a stretch of its timeline: useful compute, a periodic write, compute
#: (and any write under way) a preemption destroyed, a restart, an on-notice write, and a
#: write becoming durable (``persist``: it overlaps the compute after the write).
SEGMENT_KINDS = ("compute", "checkpoint", "lost", "restart", "notice-write", "persist")


@dataclass(frozen=True)
class Segment:
    """A stretch of a job's timeline, hours from its start."""

    start: float
    end: float
    kind: str


@dataclass(frozen=True)
class Timeline:
    """One job's run: what it did when, and when each preemption came.

    ``segments`` tile ``[0, wall_time]`` in order, except ``persist`` ones, which overlap
    the compute after a write; ``preemptions`` are ``(time, node)``, node ``-1`` for a
    bulk reclaim of the whole gang of ``gang_size``.
    """

    segments: tuple[Segment, ...]
    preemptions: tuple[tuple[float, int], ...]
    wall_time: float
    gang_size: int

    def total(self, kind: str) -> float:
        """Hours spent on ``kind`` (one of :data:`SEGMENT_KINDS`)."""
        return sum(s.end - s.start for s in self.segments if s.kind == kind)


@dataclass(frozen=True)
class PoolTimeline:
    """Several instances, each with its own segments (a replayed window of a pool).

    ``rows[i]`` are the segments of instance ``names[i]``, ``preemptions[i]`` the times it
    was preempted, all hours from the window's start; the window lasts ``length`` hours.
    """

    names: tuple[str, ...]
    rows: tuple[tuple[Segment, ...], ...]
    preemptions: tuple[tuple[float, ...], ...]
    length: float

    def total(self, kind: str) -> float:
        """Hours spent on ``kind`` over every instance."""
        return sum(s.end - s.start for row in self.rows for s in row if s.kind == kind)


@dataclass(frozen=True)
class Simulation:
    """Per-job results of a simulation (arrays of length ``jobs``; times in hours)."""

    work: float
    wall_time: np.ndarray
    preemptions: np.ndarray
    rework: np.ndarray  # compute lost to preemptions
    restarts: np.ndarray  # time spent restarting
    checkpoints: np.ndarray  # time spent writing checkpoints
    segments: int  # segment attempts simulated (completed or cut short), all jobs

    @property
    def jobs(self) -> int:
        return len(self.wall_time)

    def mean(self, field: str) -> tuple[float, float]:
        """Mean over jobs of ``field`` and its standard error."""
        values = np.asarray(getattr(self, field), dtype=float)
        return float(values.mean()), float(values.std(ddof=1) / math.sqrt(len(values)))

    def waste(self) -> tuple[float, float]:
        """Long-run waste 1 − work/E[wall time], with its standard error (delta method).

        This is the renewal-reward quantity the exact model predicts: a ratio of means, not
        the mean of per-job ratios.
        """
        mean, error = self.mean("wall_time")
        return 1 - self.work / mean, self.work * error / mean**2

    def lost(self) -> dict[str, tuple[float, float]]:
        """Mean time lost per job by cause, with standard errors."""
        return {cause: self.mean(cause) for cause in ("rework", "restarts", "checkpoints")}


#: Refuse a simulation expected to take more than this many preemptions per job: each
#: round of the vectorised loop handles one preemption of every unfinished job.
MAX_PREEMPTIONS_PER_JOB = 200_000


def _checked(**values):
    names = ("preemption_rate", "interval", "checkpoint_cost", "restart_time", "work", "jobs",
             "gang_size", "weibull_shape", "bulk_fraction", "notice", "seed", "notice_share",
             "persist")
    checked = dict(zip(names, check_parameters(scalar=True, **{n: values[n] for n in names})))
    write = values["notice_write"]
    checked["notice_write"] = (checked["checkpoint_cost"] + checked["persist"] if write is None
                               else check_parameters(scalar=True, notice_write=write)[0])
    if checked["persist"] > checked["interval"]:
        raise InputError(f"persist: {checked['persist']:g} h is longer than the interval "
                         f"{checked['interval']:g} h (only one checkpoint may be in flight)")
    # The share of preemptions an on-notice write saves: none without a notice that fits.
    fits = checked["notice"] > 0 and checked["notice_write"] <= checked["notice"]
    checked["share"] = checked["notice_share"] if fits else 0.0
    hazard = exposure(**{n: checked[n] for n in names[:4] + names[6:9]})
    segments = math.ceil(checked["work"] / checked["interval"])
    expected = segments * math.expm1(min(hazard, 700.0))
    if expected > MAX_PREEMPTIONS_PER_JOB:
        raise InputError(
            f"interval: {checked['interval']:g} h is too long for this gang's preemptions: "
            f"each job would suffer about {expected:.2g} preemptions before finishing; "
            "shorten the interval or the work")
    return checked


@fill_doc
def exposure(
    preemption_rate: float, interval: float, checkpoint_cost: float, restart_time: float,
    gang_size: int = 1, weibull_shape: float = 1.0, bulk_fraction: float = 0.0,
) -> float:
    """Cumulative hazard of one attempt at restart + interval + write, from fresh nodes.

    N(1 − ρ)(L/s)^k + ρλL with L = R + T + C and s the Weibull scale of a node's gaps;
    e^{exposure} estimates the attempts a segment needs (exactly so for Poisson).

    Parameters
    ----------
    preemption_rate : float
        Preemptions per node-hour, λ > 0 (the mean rate also for Weibull gaps).
    interval : float
        [[interval]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    restart_time : float
        [[restart_time]]
    gang_size : int, optional
        [[gang_size]]
    weibull_shape : float, optional
        Shape k of each node's gaps (default 1: Poisson).
    bulk_fraction : float, optional
        Share ρ of pool-wide reclaims (default 0).

    Returns
    -------
    float
        The cumulative hazard (dimensionless).

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> round(exposure(0.25, 1.0, 1 / 60, 1 / 6), 4)  # λ(R + T + C)
    0.2958
    """
    length = restart_time + interval + checkpoint_cost
    node_rate = (1 - bulk_fraction) * preemption_rate
    nodes = gang_size * (length / _gap_scale(node_rate, weibull_shape)) ** weibull_shape \
        if node_rate > 0 else 0.0
    return nodes + bulk_fraction * preemption_rate * length


def gap_scale(rate: float, shape: float) -> float:
    """The Weibull scale σ whose gaps have mean 1/rate: σΓ(1 + 1/k) = 1/λ [weibull-mean].

    Parameters
    ----------
    rate : float
        Preemptions per hour, λ > 0 (one over the mean gap).
    shape : float
        The Weibull shape k > 0 (1: exponential gaps).

    Returns
    -------
    float
        The scale σ, hours.

    Raises
    ------
    InputError
        Not a positive rate or shape.

    Examples
    --------
    >>> gap_scale(0.25, 1.0), round(gap_scale(0.25, 2.0), 4)
    (4.0, 4.5135)
    """
    rate, shape = check_parameters(scalar=True, preemption_rate=rate, weibull_shape=shape)
    return _gap_scale(rate, shape)


def _gap_scale(rate: float, shape: float) -> float:
    """:func:`gap_scale` for checked values (the simulators call it per event)."""
    return 1 / (rate * math.gamma(1 + 1 / shape))


@fill_doc
def simulate(
    *, preemption_rate: float, interval: float, checkpoint_cost: float, restart_time: float,
    work: float, jobs: int = 1000, gang_size: int = 1, weibull_shape: float = 1.0,
    bulk_fraction: float = 0.0, notice: float = 0.0, notice_share: float = 1.0,
    notice_write: float | None = None, persist: float = 0.0,
    restart_preemptible: bool = True, seed: int = 0,
) -> Simulation:
    """Simulate independent jobs on spot, preemption by preemption; vectorised over jobs.

    No formula is inside: each job computes in intervals of T, writes checkpoints, and is
    preempted by its nodes' gap processes (Weibull, mean 1/λ) and pool-wide reclaims; the
    rules for a notice and asynchronous writes are those of the module docstring.

    Parameters
    ----------
    preemption_rate : float
        Preemptions per node-hour, λ > 0 (the mean rate also for Weibull gaps).
    interval : float
        [[interval]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    restart_time : float
        [[restart_time]]
    work : float
        Compute each job must complete, hours (> 0).
    jobs : int, optional
        Independent jobs to simulate (default 1000).
    gang_size : int, optional
        [[gang_size]]
    weibull_shape : float, optional
        [[weibull_shape]]
    bulk_fraction : float, optional
        [[bulk_fraction]]
    notice : float, optional
        [[notice]]
    notice_share : float, optional
        [[simulated_notice_share]]
    notice_write : float, optional
        [[simulated_notice_write]]
    persist : float, optional
        [[simulated_persist]]
    restart_preemptible : bool, optional
        [[simulated_restart_preemptible]]
    seed : int, optional
        [[seed]]

    Returns
    -------
    Simulation
        Per-job wall times, preemption counts and lost time; ``waste()`` gives the
        long-run waste with its standard error.

    Raises
    ------
    InputError
        [[bad_value]]

    References
    ----------
    ``daly2006`` (the model the Poisson case must reproduce).

    Examples
    --------
    >>> run = simulate(preemption_rate=0.25, interval=21.2 / 60, checkpoint_cost=1 / 60,
    ...                restart_time=1 / 6, work=100.0, jobs=200, seed=1)
    >>> waste, error = run.waste()
    >>> bool(abs(waste - 0.1257) < 4 * error)  # the exact model's waste, within 4 errors
    True
    """
    p = _checked(**locals())
    rate, T, C, R = (p["preemption_rate"], p["interval"], p["checkpoint_cost"],
                     p["restart_time"])
    n_jobs, nodes, shape, rho = p["jobs"], p["gang_size"], p["weibull_shape"], p["bulk_fraction"]
    share, write, persist = p["share"], p["notice_write"], p["persist"]
    rng = np.random.default_rng(p["seed"])

    # With exponential gaps the first of N node clocks is itself exponential at N times the
    # rate, and replacing a node changes nothing (memoryless): one clock per job suffices.
    # Other shapes need a clock per node.
    clock_count = 1 if shape == 1 else nodes
    node_rate, bulk_rate = (1 - rho) * rate * nodes / clock_count, rho * rate
    node_scale = _gap_scale(node_rate, shape) if node_rate > 0 else math.inf

    def node_gaps(size) -> np.ndarray:
        if node_rate == 0:
            return np.full(size, np.inf)
        return node_scale * (rng.exponential(1.0, size) if shape == 1 else
                             rng.weibull(shape, size))

    def bulk_gaps(size) -> np.ndarray:
        return rng.exponential(1 / bulk_rate, size) if bulk_rate > 0 else np.full(size, np.inf)

    # The jobs still running, in the order of their index, and their state; a job that
    # finishes is written to the results and dropped, so every array operation below
    # runs over the running jobs alone (``everyone``: all of them, without an index).
    ids = np.arange(n_jobs)
    clocks = node_gaps((n_jobs, clock_count))  # absolute time of each clock's next preemption
    bulk = bulk_gaps(n_jobs)  # absolute time of each job's next bulk reclaim
    t = np.zeros(n_jobs)
    left = np.full(n_jobs, p["work"])
    preemptions = np.zeros(n_jobs, dtype=np.int64)
    rework, restarts, writes = np.zeros(n_jobs), np.zeros(n_jobs), np.zeros(n_jobs)
    results = {name: np.zeros_like(values) for name, values in (
        ("wall", t), ("preemptions", preemptions), ("rework", rework),
        ("restarts", restarts), ("writes", writes))}
    segments = 0
    everyone = slice(None)

    def first_clock(idx: np.ndarray | slice) -> np.ndarray:
        return clocks[idx, 0] if clock_count == 1 else clocks[idx].min(axis=1)

    def next_preemption(idx: np.ndarray | slice) -> np.ndarray:
        """A new array (not a view of the clocks, which preempt changes)."""
        clock = first_clock(idx)
        return np.minimum(clock, bulk[idx]) if bulk_rate > 0 else clock.copy()

    def preempt(idx: np.ndarray | slice, at: np.ndarray) -> None:
        """Replace what was preempted at time ``at`` in jobs ``idx``."""
        preemptions[idx] += 1
        if idx is everyone and (bulk_rate > 0 or clock_count > 1):
            idx = np.arange(at.size)  # the cases below pick jobs by index
        single, at_single = idx, at  # without pool-wide reclaims, each is a node's
        if bulk_rate > 0:
            by_bulk = bulk[idx] <= first_clock(idx)
            whole, at_whole = idx[by_bulk], at[by_bulk]
            single, at_single = idx[~by_bulk], at[~by_bulk]
            if whole.size:
                clocks[whole] = at_whole[:, None] + node_gaps((whole.size, clock_count))
                bulk[whole] = at_whole + bulk_gaps(whole.size)
        if at_single.size:
            node = 0 if clock_count == 1 else clocks[single].argmin(axis=1)
            clocks[single, node] = at_single + node_gaps(at_single.size)

    def restart() -> None:
        """Restart every running job (each just preempted at its t)."""
        if not restart_preemptible:  # clocks stand still while restarting
            clocks[...] += R
            bulk[...] += R
            restarts[...] += R
            t[...] += R
            return
        # a restart completes in R, or is preempted in turn and starts again from then
        nxt = next_preemption(everyone)
        hit = nxt < t + R
        restarts[...] += np.where(hit, nxt - t, R)
        t[...] = np.where(hit, nxt, t + R)
        pending = np.flatnonzero(hit)  # (few: from here on, by index)
        while pending.size:
            preempt(pending, t[pending])
            nxt = next_preemption(pending)
            hit = nxt < t[pending] + R
            ok, again = pending[~hit], pending[hit]
            restarts[ok] += R
            t[ok] += R
            restarts[again] += nxt[hit] - t[again]
            t[again] = nxt[hit]
            pending = again

    while ids.size:
        P = next_preemption(everyone)
        count = np.ceil(left / T - _DONE)  # segments to go, the last possibly shorter
        finish = P >= t + left + count * C
        if finish.any():
            done = ids[finish]
            results["wall"][done] = t[finish] + (left[finish] + count[finish] * C)
            results["writes"][done] = writes[finish] + count[finish] * C
            for name, values in (("preemptions", preemptions), ("rework", rework),
                                 ("restarts", restarts)):
                results[name][done] = values[finish]
            segments += int(count[finish].sum())
            going = ~finish
            ids, clocks, bulk, t, left, P, count = (
                values[going] for values in (ids, clocks, bulk, t, left, P, count))
            preemptions, rework, restarts, writes = (
                values[going] for values in (preemptions, rework, restarts, writes))
            if not ids.size:
                break

        u = P - t
        full = np.minimum(np.floor(u / (T + C)), count - 1)  # segments completed before P
        offset = u - full * (T + C)  # time into the interrupted segment
        saves, kept, on_notice, rolled = False, 0.0, 0.0, 0.0
        if share > 0:  # announced while computing: the on-notice write took the last C_n
            length = np.where(full < count - 1, T, left - (count - 1) * T)  # its compute
            saves = (offset < length) & (rng.random(ids.size) < share)
            kept = np.where(saves, np.maximum(offset - write, 0.0), 0.0)
            on_notice = np.where(saves, np.minimum(offset, write), 0.0)
        if persist > 0:  # any other within P of a write rolls back the interval before it
            rolled = np.where((full >= 1) & (offset < persist) & np.logical_not(saves), T, 0.0)
        writes += full * C + on_notice
        rework += offset - on_notice - kept + rolled
        left = left - full * T - kept + rolled
        segments += int(full.sum()) + ids.size
        t = P
        preempt(everyone, P)
        restart()

    return Simulation(p["work"], results["wall"], results["preemptions"], results["rework"],
                      results["restarts"], results["writes"], segments)


@fill_doc
def simulate_reference(
    *, preemption_rate: float, interval: float, checkpoint_cost: float, restart_time: float,
    work: float, jobs: int = 1000, gang_size: int = 1, weibull_shape: float = 1.0,
    bulk_fraction: float = 0.0, notice: float = 0.0, notice_share: float = 1.0,
    notice_write: float | None = None, persist: float = 0.0,
    restart_preemptible: bool = True, seed: int = 0,
) -> Simulation:
    """The same simulation as a plain-Python event loop, one segment at a time (slow).

    It follows the same rules as :func:`simulate` and exists to check it.

    Parameters
    ----------
    preemption_rate : float
        Preemptions per node-hour, λ > 0 (the mean rate also for Weibull gaps).
    interval : float
        [[interval]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    restart_time : float
        [[restart_time]]
    work : float
        Compute each job must complete, hours (> 0).
    jobs : int, optional
        Independent jobs to simulate (default 1000).
    gang_size : int, optional
        [[gang_size]]
    weibull_shape : float, optional
        [[weibull_shape]]
    bulk_fraction : float, optional
        [[bulk_fraction]]
    notice : float, optional
        [[notice]]
    notice_share : float, optional
        [[simulated_notice_share]]
    notice_write : float, optional
        [[simulated_notice_write]]
    persist : float, optional
        [[simulated_persist]]
    restart_preemptible : bool, optional
        [[simulated_restart_preemptible]]
    seed : int, optional
        [[seed]]

    Returns
    -------
    Simulation
        As :func:`simulate`.

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> run = simulate_reference(preemption_rate=0.25, interval=0.5, checkpoint_cost=0.0,
    ...                          restart_time=0.0, work=5.0, jobs=50, seed=1)
    >>> bool(run.wall_time.min() >= 5.0)
    True
    """
    return _reference(_checked(**locals()), restart_preemptible)


def _reference(p: dict, restart_preemptible: bool, record: list | None = None,
               times: list[float] | None = None) -> Simulation:
    """The event loop of :func:`simulate_reference`; with ``record``, each job's
    :class:`Timeline` is appended to it; with ``times``, one node is preempted at exactly
    those times (hours from the start) and never again."""
    rate, T, C, R = (p["preemption_rate"], p["interval"], p["checkpoint_cost"],
                     p["restart_time"])
    shape, rho, nodes = p["weibull_shape"], p["bulk_fraction"], p["gang_size"]
    share, write, persist = p["share"], p["notice_write"], p["persist"]
    rng = random.Random(p["seed"])
    node_rate, bulk_rate = (1 - rho) * rate, rho * rate
    fixed = None if times is None else iter(sorted(times))

    def node_time(at: float) -> float:
        """When a node that came up at ``at`` is next preempted."""
        if fixed is not None:
            return max(next(fixed, math.inf), at)
        if node_rate == 0:
            return math.inf
        return at + rng.weibullvariate(_gap_scale(node_rate, shape), shape)

    def bulk_time(at: float) -> float:
        if fixed is not None or bulk_rate == 0:
            return math.inf
        return at + rng.expovariate(bulk_rate)

    results = {k: [] for k in ("wall_time", "preemptions", "rework", "restarts", "checkpoints")}
    segments = 0
    for _ in range(p["jobs"]):
        clocks = [node_time(0.0) for _ in range(nodes)]
        bulk = bulk_time(0.0)
        t, left, count = 0.0, p["work"], 0
        pending = False  # is the last write still persisting (made since the last restart)?
        lost = {"rework": 0.0, "restarts": 0.0, "checkpoints": 0.0}
        log: list[Segment] = []
        hits: list[tuple[float, int]] = []
        last_compute = None  # index in log of the last completed segment's compute

        def add(kind: str, start: float, end: float) -> None:
            if record is not None and end > start:
                log.append(Segment(start, end, kind))

        def preempt(at: float) -> None:
            nonlocal bulk, count
            count += 1
            if bulk <= min(clocks):
                hits.append((at, -1))
                clocks[:] = [node_time(at) for _ in range(nodes)]
                bulk = bulk_time(at)
            else:
                node = clocks.index(min(clocks))
                hits.append((at, node))
                clocks[node] = node_time(at)

        while left > _DONE * T:
            length = min(T, left)
            segments += 1
            P = min(min(clocks), bulk)
            if P >= t + length + C:  # the segment and its checkpoint complete
                add("compute", t, t + length)
                last_compute = len(log) - 1 if log and log[-1].kind == "compute" else None
                add("checkpoint", t + length, t + length + C)
                add("persist", t + length + C, t + length + C + persist)
                t += length + C
                left -= length
                lost["checkpoints"] += C
                pending = True
                continue
            offset = P - t
            if share > 0 and offset < length and rng.random() < share:  # announced, computing
                kept = max(offset - write, 0.0)
                lost["checkpoints"] += min(offset, write)
                lost["rework"] += offset - min(offset, write) - kept
                left -= kept
                add("compute", t, t + kept)
                add("notice-write", t + kept, t + kept + min(offset, write))
                add("lost", t + kept + min(offset, write), P)
            else:
                lost["rework"] += offset
                add("lost", t, P)
                if pending and offset < persist:  # the last write was not durable yet
                    lost["rework"] += T
                    left += T
                    if last_compute is not None:
                        earlier = log[last_compute]
                        log[last_compute] = Segment(earlier.start, earlier.end, "lost")
            pending = False
            last_compute = None
            for index, earlier in enumerate(log):  # a write still persisting never will
                if earlier.kind == "persist" and earlier.end > P:
                    log[index] = Segment(earlier.start, P, "persist")
            t = P
            preempt(P)
            while True:  # restart, possibly preempted itself
                if not restart_preemptible:
                    clocks[:] = [c + R for c in clocks]
                    bulk += R
                    add("restart", t, t + R)
                    t += R
                    lost["restarts"] += R
                    break
                P = min(min(clocks), bulk)
                if P >= t + R:
                    add("restart", t, t + R)
                    t += R
                    lost["restarts"] += R
                    break
                lost["restarts"] += P - t
                add("restart", t, P)
                t = P
                preempt(P)
        results["wall_time"].append(t)
        results["preemptions"].append(count)
        for cause, value in lost.items():
            results[cause].append(value)
        if record is not None:
            record.append(Timeline(tuple(log), tuple(hits), t, nodes))
    arrays = {k: np.array(v) for k, v in results.items()}
    return Simulation(p["work"], segments=segments, **arrays)


@fill_doc
def timeline(
    *, preemption_rate: float, interval: float, checkpoint_cost: float, restart_time: float,
    work: float, gang_size: int = 1, weibull_shape: float = 1.0, bulk_fraction: float = 0.0,
    notice: float = 0.0, notice_share: float = 1.0, notice_write: float | None = None,
    persist: float = 0.0, restart_preemptible: bool = True, seed: int = 0,
    preemption_times: list[float] | None = None,
) -> Timeline:
    """One job's run, segment by segment: the event log of :func:`simulate_reference`.

    The log is the run itself: the same loop, with the same rules and the same random
    numbers as ``simulate_reference(jobs=1, seed=seed, ...)``, records what it does.

    Parameters
    ----------
    preemption_rate : float
        Preemptions per node-hour, λ > 0.
    interval : float
        [[interval]]
    checkpoint_cost : float
        [[checkpoint_cost]]
    restart_time : float
        [[restart_time]]
    work : float
        Compute the job must complete, hours (> 0).
    gang_size : int, optional
        [[gang_size]]
    weibull_shape : float, optional
        [[weibull_shape]]
    bulk_fraction : float, optional
        [[bulk_fraction]]
    notice : float, optional
        [[notice]]
    notice_share : float, optional
        [[simulated_notice_share]]
    notice_write : float, optional
        [[simulated_notice_write]]
    persist : float, optional
        [[simulated_persist]]
    restart_preemptible : bool, optional
        [[simulated_restart_preemptible]]
    seed : int, optional
        [[seed]]
    preemption_times : list of float, optional
        Preempt one node at exactly these times, hours from the start, and at no other
        (a worked example; needs ``gang_size`` 1).

    Returns
    -------
    Timeline
        Segments that tile ``[0, wall_time]`` (``persist`` ones overlap what follows a
        write), and the preemptions with the node each came from.

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> run = timeline(preemption_rate=0.25, interval=1.0, checkpoint_cost=0.1,
    ...                restart_time=0.2, work=2.0, preemption_times=[1.5])
    >>> [(s.kind, round(s.start, 2), round(s.end, 2)) for s in run.segments]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('compute', 0.0, 1.0), ('checkpoint', 1.0, 1.1), ('lost', 1.1, 1.5),
     ('restart', 1.5, 1.7), ('compute', 1.7, 2.7), ('checkpoint', 2.7, 2.8)]
    """
    values = dict(locals(), jobs=1)
    times = values.pop("preemption_times")
    variant = values.pop("restart_preemptible")
    p = _checked(**values)
    if times is not None:
        if p["gang_size"] != 1 or p["bulk_fraction"] != 0:
            raise InputError("preemption_times: a worked example preempts one node "
                             "(gang_size 1, bulk_fraction 0)")
        for value in times:
            check_parameters(scalar=True, hours=value)
    record: list[Timeline] = []
    _reference(p, variant, record, times)
    return record[0]


@fill_doc
def waste_curve(
    intervals, *, segments: int = 30, seed: int = 0, **kwargs,
) -> tuple[np.ndarray, np.ndarray]:
    """Simulated long-run waste, and its standard error, at each interval.

    Each point simulates jobs of ``segments`` whole intervals, with its own seed drawn from
    ``seed``, so a curve is reproducible and its points are independent.

    Parameters
    ----------
    intervals : array_like
        Compute intervals T, hours (each > 0).
    segments : int, optional
        Intervals of work per simulated job (default 30).
    seed : int, optional
        Seed from which each point's seed is drawn (default 0).
    **kwargs
        :func:`simulate`'s other arguments (not ``interval`` or ``work``).

    Returns
    -------
    waste, standard_error : numpy.ndarray
        One value per interval, fractions.

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> waste, error = waste_curve([0.25, 1.0], preemption_rate=0.25, checkpoint_cost=0.0,
    ...                            restart_time=0.0, jobs=100)
    >>> waste.shape, bool(waste[0] < waste[1])
    ((2,), True)
    """
    seeds = np.random.SeedSequence(seed).generate_state(len(intervals))
    points = [simulate(interval=float(t), work=segments * float(t), seed=int(s), **kwargs)
              .waste() for t, s in zip(intervals, seeds)]
    waste, error = zip(*points) if points else ((), ())
    return np.array(waste), np.array(error)


def curve_break_even(intervals, waste, spot_discount: float) -> float | None:
    """Where a simulated waste curve first reaches the discount past its minimum.

    The crossing is interpolated linearly in the logarithm of the interval between the
    last point below the discount and the first at or above it (the break-even of
    :func:`spotmath.model.numerics.break_even_interval`, read off a sampled curve).

    Parameters
    ----------
    intervals : array_like
        Increasing compute intervals T, hours.
    waste : array_like
        The waste at each, fractions (:func:`waste_curve`).
    spot_discount : float
        The discount against on-demand, in (0, 1).

    Returns
    -------
    float or None
        The break-even interval, hours; None where the curve stays below the discount
        past its minimum (or is empty).

    Raises
    ------
    InputError
        A discount outside (0, 1), or intervals and wastes of different lengths.

    Examples
    --------
    >>> round(curve_break_even([1.0, 2.0, 4.0], [0.3, 0.5, 0.7], 0.6), 6)
    2.828427
    >>> curve_break_even([1.0, 2.0], [0.3, 0.5], 0.6) is None
    True
    """
    (spot_discount,) = check_parameters(scalar=True, spot_discount=spot_discount)
    intervals, waste = np.asarray(intervals, dtype=float), np.asarray(waste, dtype=float)
    if intervals.shape != waste.shape:
        raise InputError(f"waste: one value per interval, got {waste.size} for "
                         f"{intervals.size} intervals")
    best = int(np.argmin(waste)) if waste.size else 0
    past = np.arange(len(waste)) > best
    above = np.nonzero((waste >= spot_discount) & past)[0]
    if not above.size:
        return None
    j = above[0]
    x0, x1 = np.log(intervals[j - 1]), np.log(intervals[j])
    share = (spot_discount - waste[j - 1]) / (waste[j] - waste[j - 1])
    return float(np.exp(x0 + share * (x1 - x0)))
