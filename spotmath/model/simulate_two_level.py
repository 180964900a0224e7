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

Each job's run can be kept as a :class:`~spotmath.model.simulate.Timeline` (``record``):
compute, fast and durable writes, the work a rollback threw away (``lost``), and fast and
durable restarts, tiling the run.
"""

from __future__ import annotations

import math
import random

import numpy as np

from ..docs import fill_doc
from ..inputs import InputError, check_parameters
from .simulate import MAX_PREEMPTIONS_PER_JOB, Segment, Simulation, Timeline

__all__ = ["simulate", "TWO_LEVEL_KINDS"]

#: The segment kinds of a two-level run, in the order a legend lists them.
TWO_LEVEL_KINDS = ("compute", "fast-checkpoint", "checkpoint", "lost", "fast-restart",
                   "restart")


@fill_doc
def simulate(
    *, preemption_rate: float, interval: float, level2_every: int, level1_cost: float,
    checkpoint_cost: float, level1_restart: float, restart_time: float, level1_loss: float,
    periods: int = 10, jobs: int = 1000, restart_preemptible: bool = True, seed: int = 0,
    record: list | None = None, events: list[tuple[float, bool]] | None = None,
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

    Returns
    -------
    Simulation
        Per job: wall time, events, compute and writes lost to rollbacks (``rework``),
        restarts, and writes of both levels (``checkpoints``).  ``work`` is
        periods · n · T.

    Raises
    ------
    InputError
        [[bad_value]]

    Examples
    --------
    >>> run = simulate(preemption_rate=0.5, interval=0.25, level2_every=4,
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
        job = _Job(rng, rate, loss, bool(restart_preemptible), record is not None, events)
        for _ in range(count):
            segment = 0
            while segment < n:
                write = fast if segment < n - 1 else durable
                attempts += 1
                if job.run(T, write, last=segment == n - 1):
                    segment += 1
                    continue
                if job.recover(fast_restart, restart):
                    continue  # the fast copy served: redo this segment
                segment = 0
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
                 logged: bool, events: list[tuple[float, bool]] | None = None) -> None:
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

    def _roll_back_to_durable(self) -> None:
        """The fast copies are gone: the compute and writes they kept are lost too."""
        for index in self.since_durable:
            earlier = self.log[index]
            self.log[index] = Segment(earlier.start, earlier.end, "lost")
        self.lost += self.kept
        self.writing -= self.kept_writes
        self.since_durable, self.kept, self.kept_writes = [], 0.0, 0.0

    def recover(self, fast_restart: float, restart: float) -> bool:
        """Restart after the event that just came; True if from the fast copy."""
        use_fast = not self.destroyed
        while True:
            length, kind = (fast_restart, "fast-restart") if use_fast else (restart, "restart")
            if not use_fast:
                self._roll_back_to_durable()
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
                return use_fast
            if self._event():
                use_fast = False
