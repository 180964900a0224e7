"""Monte Carlo witness for two-level checkpoints: the rules, event by event.

The rules are those of :mod:`spotmath.model.two_level` (and the derivations' section 10),
simulated directly rather than solved: preemption events arrive at rate λ in every phase
(Poisson; with ``restart_preemptible=False`` none lands in a restart); each destroys the
fast copies with chance p.  A job runs ``periods`` periods of n segments: compute T, then a
fast write C₁ (segments 1..n−1) or a durable write C (segment n).  An event that spares
the fast copies rolls back to the last completed write and restarts in R₁; one that
destroys them, or lands in a restart from the durable copy, rolls back to the last durable
write and restarts in R.  A job starts just after a durable write and ends with one, so
its wall time is a sum of independent period times, and the long-run waste is
1 − work/E[wall time] exactly (no edge effect).

With asynchronous durable writes (``persist`` P ≤ nT, preemptible restarts) the durable
write is a snapshot of C, a fast copy at once and durable P later; a rollback to the durable
level within those P hours goes back to the durable write before it, and the period just
completed is redone too.  The first period starts from a durable copy, the others from a
snapshot still persisting, and the job ends with its last snapshot: E[wall time] is
E₁ + (periods − 1)E_P, not periods · E_P.

Each job's run can be kept as a :class:`~spotmath.model.simulate.Timeline` (``record``):
compute, fast and durable writes, the work a rollback threw away (``lost``), and fast and
durable restarts, tiling the run.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from ..docs import fill_doc
from ..inputs import InputError, check_parameters
from .simulate import MAX_PREEMPTIONS_PER_JOB, Segment, Simulation, Timeline
from .two_level import check_persist

__all__ = ["simulate_two_level", "TWO_LEVEL_KINDS"]

#: The segment kinds of a two-level run, in the order a legend lists them (``persist``
#: segments overlap the run after a snapshot, as in :mod:`spotmath.model.simulate`).
TWO_LEVEL_KINDS = ("compute", "fast-checkpoint", "checkpoint", "lost", "fast-restart",
                   "restart", "persist")


@fill_doc
def simulate_two_level(
    *, preemption_rate: float, interval: float, level2_every: int, level1_cost: float,
    checkpoint_cost: float, level1_restart: float, restart_time: float, level1_loss: float,
    periods: int = 10, jobs: int = 1000, restart_preemptible: bool = True, seed: int = 0,
    record: list | None = None, events: list[tuple[float, bool]] | None = None,
    persist: float = 0.0,
) -> Simulation:
    """Simulate jobs under the two-level rules; their waste estimates the exact model's.

    Parameters
    ----------
    preemption_rate : float
        [[event_rate]]
    interval : float
        [[level1_interval]]
    level2_every : int
        [[level2_every]]
    level1_cost : float
        [[level1_cost]]
    checkpoint_cost : float
        [[level2_cost]]
    level1_restart : float
        [[level1_restart]]
    restart_time : float
        [[level2_restart]]
    level1_loss : float
        [[level1_loss]]
    periods : int, optional
        Periods (n segments ending with a durable write) each job runs (default 10).
    jobs : int, optional
        Independent jobs (default 1000).
    restart_preemptible : bool, optional
        [[restart_preemptible]]
    seed : int, optional
        Seed of Python's random generator, for reproducible runs (default 0).
    record : list, optional
        When given, each job's :class:`~spotmath.model.simulate.Timeline` is appended.
    events : list of (float, bool), optional
        A hand-worked run: exactly these events, hours from the start, each with whether
        it destroys the fast copies, and no others (one job; ``level1_loss`` unused).
    persist : float, optional
        [[level2_persist]]

    Returns
    -------
    Simulation
        Per job: wall time, events, compute and writes lost to rollbacks (``rework``),
        restarts, and writes of both levels (``checkpoints``).  ``work`` is
        periods · n · T.

    Raises
    ------
    InputError
        [[bad_value]]; a persist time longer than nT, or with protected restarts.

    Examples
    --------
    >>> run = simulate_two_level(preemption_rate=0.5, interval=0.25, level2_every=4,
    ...                level1_cost=0.01, checkpoint_cost=0.05, level1_restart=0.03,
    ...                restart_time=0.1, level1_loss=0.3, jobs=200, seed=1)
    >>> bool(run.wall_time.min() >= run.work)
    True
    """
    rate, T, fast, durable, fast_restart, restart = check_parameters(
        scalar=True, preemption_rate=preemption_rate, interval=interval,
        level1_cost=level1_cost, checkpoint_cost=checkpoint_cost,
        level1_restart=level1_restart, restart_time=restart_time)
    n, loss, count, runs, seed = check_parameters(
        scalar=True, level2_every=level2_every, level1_loss=level1_loss, periods=periods,
        jobs=jobs, seed=seed)
    persist = check_persist(persist, bool(restart_preemptible), n * T)
    rng = random.Random(seed)
    # A period must run n segments, and its durable write, without a D event: refuse a
    # run that would take more events than the reference simulator allows a job.
    expected = count * n * math.expm1(min(rate * n * (T + max(fast, durable)
                                                      + max(fast_restart, restart)), 700.0))
    if expected > MAX_PREEMPTIONS_PER_JOB:
        raise InputError(f"preemption_rate: at {rate:g} events per hour a job of {count} "
                         f"periods would take about {expected:.2g} events; shorten the "
                         "interval, the writes or the restarts")
    if events is not None:
        if runs != 1:
            raise InputError(f"jobs: a hand-worked run is one job, got {runs}")
        events = sorted((float(at), bool(destroys)) for at, destroys in events)
    fields = {k: [] for k in ("wall_time", "preemptions", "rework", "restarts",
                              "checkpoints")}
    attempts = 0
    for _ in range(runs):
        job = _Job(rng, rate, loss, bool(restart_preemptible), record is not None, events,
                   persist)
        period = segment = 0
        while period < count:
            attempts += 1
            if job.run(T, fast if segment < n - 1 else durable, last=segment == n - 1):
                segment += 1
                if segment == n:
                    period, segment = period + 1, 0
                continue
            back = job.recover(fast_restart, restart)
            if back != "segment":  # else the fast copy served: redo this segment
                period, segment = period - (back == "previous"), 0
        job.finish()
        fields["wall_time"].append(job.clock)
        fields["preemptions"].append(job.events)
        fields["rework"].append(job.lost)
        fields["restarts"].append(job.restarting)
        fields["checkpoints"].append(job.writing)
        if record is not None:
            record.append(Timeline(tuple(job.log), tuple((at, 0) for at in job.hits),
                                   job.clock, 1))
    arrays = {k: np.array(v, dtype=float) for k, v in fields.items()}
    return Simulation(count * n * T, segments=attempts, **arrays)


class _Job:
    """One job's clock, its next event, and what it has spent so far."""

    def __init__(self, rng: random.Random, rate: float, loss: float, preemptible: bool,
                 logged: bool, events: list[tuple[float, bool]] | None = None,
                 persist: float = 0.0) -> None:
        self.rng, self.rate, self.loss, self.preemptible = rng, rate, loss, preemptible
        self.fixed = None if events is None else iter(events)
        self.clock = 0.0
        self.takes = False  # does the next event take the fast copies (fixed events)?
        self.next_event = self._draw(0.0)
        self.events = 0
        self.lost = self.restarting = self.writing = 0.0
        self.logged = logged
        self.log: list[Segment] = []
        self.hits: list[float] = []
        self.since_durable: list[int] = []  # log entries kept only by fast copies
        self.kept = 0.0  # compute and fast writes kept only by fast copies, hours
        self.kept_writes = 0.0  # the fast writes among them
        self.destroyed = False  # did the last event take the fast copies?
        self.persist = persist
        self.persisting: _Persisting | None = None  # the last snapshot, not yet durable

    def _add(self, kind: str, start: float, end: float) -> int | None:
        if self.logged and end > start:
            self.log.append(Segment(start, end, kind))
            return len(self.log) - 1
        return None

    def _draw(self, after: float) -> float:
        """When the next event comes, the clock standing at ``after``."""
        if self.fixed is None:
            return after + self.rng.expovariate(self.rate)
        for at, takes in self.fixed:
            if at >= after:
                self.takes = takes
                return at
        return math.inf

    def _event(self) -> bool:
        """The event at ``next_event`` has come: count it; True if it takes the copies."""
        self.events += 1
        self.hits.append(self.next_event)
        self.clock = self.next_event
        takes = self.takes if self.fixed is not None else self.rng.random() < self.loss
        self.next_event = self._draw(self.clock)
        return takes

    def run(self, compute: float, write: float, *, last: bool) -> bool:
        """Compute and write one segment; False if an event cut it short."""
        start, end = self.clock, self.clock + compute + write
        if self.next_event >= end:
            entries = [self._add("compute", start, start + compute),
                       self._add("checkpoint" if last else "fast-checkpoint",
                                 start + compute, end)]
            self.clock = end
            self.writing += write
            if last and self.persist > 0:  # kept by the snapshot until it is durable
                self.persisting = _Persisting(
                    end + self.persist, self.since_durable + [e for e in entries if e],
                    self.kept + compute + write, self.kept_writes + write,
                    self._add("persist", end, end + self.persist))
            if last:
                self.since_durable, self.kept, self.kept_writes = [], 0.0, 0.0
            else:
                self.since_durable += [e for e in entries if e is not None]
                self.kept += compute + write
                self.kept_writes += write
            return True
        self._add("lost", start, self.next_event)
        self.lost += self.next_event - start
        self.destroyed = self._event()
        return False

    def _lose(self, entries: list[int], kept: float, writes: float) -> None:
        for index in entries:
            earlier = self.log[index]
            self.log[index] = Segment(earlier.start, earlier.end, "lost")
        self.lost += kept
        self.writing -= writes

    def _cut_persist(self, at: float) -> None:
        """The snapshot still persisting at ``at`` never will: its segment ends there."""
        index = self.persisting.entry
        if index is not None:
            self.log[index] = Segment(self.log[index].start, at, "persist")
        self.persisting = None

    def _roll_back_to_durable(self) -> bool:
        """The fast copies are gone: the compute and writes they kept are lost too, and
        the period before if its snapshot is still persisting (True then)."""
        self._lose(self.since_durable, self.kept, self.kept_writes)
        self.since_durable, self.kept, self.kept_writes = [], 0.0, 0.0
        if self.persisting is None:
            return False
        pending = self.persisting
        if self.clock >= pending.durable_at:
            self.persisting = None
            return False
        self._lose(pending.entries, pending.kept, pending.writes)
        self._cut_persist(self.clock)
        return True

    def finish(self) -> None:
        """The job ends with its last snapshot: the persist that starts there is not
        part of the run."""
        if self.persisting is not None and self.persisting.entry is not None:
            self.log.pop(self.persisting.entry)  # the last entry, added with the snapshot
        self.persisting = None

    def recover(self, fast_restart: float, restart: float) -> str:
        """Restart after the event that just came; from where the job goes on: the
        ``"segment"`` cut short (a fast copy served), the ``"period"``'s start (the durable
        copy), or the ``"previous"`` period's (the last snapshot was not durable yet)."""
        use_fast, previous = not self.destroyed, False
        while True:
            length, kind = (fast_restart, "fast-restart") if use_fast else (restart, "restart")
            if not use_fast:
                previous = self._roll_back_to_durable() or previous
            start = self.clock
            # protected restarts cannot be hit: the events' clock stands still meanwhile
            end = start + length if not self.preemptible else min(start + length,
                                                                    self.next_event)
            self._add(kind, start, end)
            self.restarting += end - start
            if end == start + length:
                self.clock = end
                if not self.preemptible:
                    self.next_event = self._draw(self.clock)
                return "segment" if use_fast else "previous" if previous else "period"
            if self._event():
                use_fast = False


@dataclass
class _Persisting:
    """A snapshot not yet durable: when it will be, and the period only it keeps (its log
    entries, compute and writes, and the writes among them, hours)."""

    durable_at: float
    entries: list[int]
    kept: float
    writes: float
    entry: int | None  # its persist segment in the log
