"""The witness for a shared pool: an event simulator of high-priority requests and gangs.

The rules (all times in hours):

* high-priority requests arrive as a Poisson stream of rate α; one that finds K = ⌊G/g⌋ in
  service is turned away, or, where the pool's ``overflow`` is ``"queue"``, waits in line
  and takes the place of the next request to end (its wait is its start delay); any other
  claims g GPUs at once, preempting training gangs (one
  at a time, by ``victim`` order) until its g and ``headroom`` more are unclaimed, and
  holds its claim for a time of mean h from its arrival: exponential, deterministic, or
  lognormal (``hold``, ``hold_cv``);
* ``victim`` ``"recent"``: the most recently admitted gang goes first (Kueue's order among
  equals); ``"random"``: any up gang with equal chance;
* a preempted gang waits; when a request ends, waiting gangs are admitted first come,
  first served, each that fits and leaves ``headroom`` GPUs free;
* ``grace``: a preempted gang keeps its GPUs for the grace period (the scheduler's
  ``terminationGracePeriodSeconds``, Slurm's ``GraceTime``); a request starts when g GPUs
  are free of claims, up gangs and gangs still in their grace (first come, first served),
  so it waits at most the grace; when a write fits in the grace the gang writes all it has
  computed when told (the book's notice); otherwise it keeps only the writes that end by
  the kill;
* training, when ``interval`` is given: each admission starts with ``startup`` hours, then
  cycles of ``interval`` compute and a write of ``checkpoint_cost`` (``math.inf``: no
  periodic write, only on notice); a preemption loses the compute since the last write.

Statistics start after ``warmup`` hours (the chain starts empty).
"""

from __future__ import annotations

import collections
import heapq
import math
from dataclasses import dataclass, field

import numpy as np

from ..inputs import InputError, check_choice, check_parameters, check_positive
from .cluster import SharedPool
from .simulate import PoolTimeline, Segment

__all__ = ["PoolEvent", "GangRecord", "PoolRun", "HOLDS", "VICTIMS", "simulate_pool",
           "pool_timeline"]

#: Holding-time laws of the high-priority requests, each of mean h.
HOLDS = ("exponential", "deterministic", "lognormal")
#: Which up gang a request preempts first.
VICTIMS = ("recent", "random")


@dataclass(frozen=True)
class PoolEvent:
    """One line of the log: a gang admitted, preempted (told to stop), or a write done."""

    time: float
    gang: int
    kind: str  # "admit", "preempt", "write"


@dataclass
class GangRecord:
    """One gang's statistics after the warm-up."""

    size: int
    up_hours: float = 0.0
    preemptions: int = 0
    up_spells: list[float] = field(default_factory=list)
    down_spells: list[float] = field(default_factory=list)
    kept: float = 0.0  # compute kept, hours
    segments: list[Segment] = field(default_factory=list)  # with ``log``: what it did when

    @property
    def preemption_rate(self) -> float:
        """Preemptions per up hour."""
        return self.preemptions / self.up_hours if self.up_hours else 0.0


@dataclass(frozen=True)
class PoolRun:
    """A run: each gang's record, the log, and the high-priority requests' start delays."""

    gangs: list[GangRecord]
    hours: float  # after the warm-up
    log: list[PoolEvent]
    delays: np.ndarray  # hours each admitted request waited: for a grace, or in line
    turned_away: int
    #: the up spells of each rank, whichever gang held it: the j-th the spells of gangs
    #: admitted j-th of those up (no down spells; size the gangs' when all are one size)
    ranks: list[GangRecord] = field(default_factory=list)

    def up_share(self, gang: int = 0) -> float:
        """The share of the measured hours the gang was up."""
        return self.gangs[gang].up_hours / self.hours

    def waste(self, gang: int = 0) -> float:
        """1 − compute kept per measured hour (up or waiting)."""
        return 1.0 - self.gangs[gang].kept / self.hours

    @property
    def requests(self) -> int:
        """Requests that arrived after the warm-up, admitted or turned away (those still
        in line at the end are left out)."""
        return len(self.delays) + self.turned_away

    def waiting_share(self) -> float:
        """The share of requests that waited for a gang's grace to end."""
        return float((self.delays > 0).sum() / self.requests)

    def start_quantile(self, quantile: float = 0.99) -> float:
        """Hours within which ``quantile`` of the requests started (``math.inf`` when more
        than 1 − ``quantile`` were turned away: they never start)."""
        delays = np.concatenate([self.delays, np.full(self.turned_away, np.inf)])
        return float(np.quantile(delays, quantile, method="inverted_cdf"))


def simulate_pool(pool: SharedPool, gangs, *, hours, warmup=None, hold: str = "exponential",
                  hold_cv: float = 1.0, victim: str = "recent", grace=0.0, headroom=0,
                  interval=None, checkpoint_cost=0.0, startup=0.0, failures=0.0,
                  seed: int = 0, log: bool = False) -> PoolRun:
    """Simulate the pool with training gangs of the given sizes, event by event.

    Parameters
    ----------
    pool : SharedPool
        The pool and its high-priority load.
    gangs : sequence of int
        GPUs of each training gang.
    hours : float or str
        Hours measured after the warm-up.
    warmup : float or str, optional
        Hours simulated first and not measured (default 20 holding times).
    hold : {'exponential', 'deterministic', 'lognormal'}, optional
        The requests' holding-time law, mean ``pool.hp_hold``.
    hold_cv : float, optional
        The lognormal's coefficient of variation (default 1).
    victim : {'recent', 'random'}, optional
        Which up gang a request preempts first.
    grace : float or str, optional
        Grace period of a preempted gang, hours (default 0).
    headroom : int, optional
        GPUs training leaves free for requests (default 0).
    interval : float, str or sequence, optional
        Training's compute between writes, hours (``math.inf``: writes on notice only):
        one for all, or one for each rank, the j-th for an up spell whose gang was the
        j-th of those up at its admission (with the most recent preempted first a gang
        keeps that rank until it is preempted); without it no compute is counted.
    checkpoint_cost, startup : float or str, optional
        Training's write and its start-up after each admission (or failure), hours.
    failures : float or str, optional
        Hardware failures per GPU-hour up (default 0): a gang of N fails at N times it
        while up, drawn from a generator of its own; each loses what was not written and
        starts the gang again where it is (not drawn in the log's timeline).
    seed : int, optional
        Seed of NumPy's generator.
    log : bool, optional
        Keep every admission, preemption and write (default False).

    Returns
    -------
    PoolRun

    Raises
    ------
    InputError
        A bad value, or a gang larger than the pool.

    Examples
    --------
    >>> pool = SharedPool.checked(16, "2/h", "1h", 4)
    >>> run = simulate_pool(pool, [8], hours=200, seed=1)
    >>> run.gangs[0].preemptions > 0
    True
    """
    hold = check_choice("hold", hold, HOLDS)
    victim = check_choice("victim", victim, VICTIMS)
    sizes = [pool.gang_size(size) for size in gangs]
    measured, grace, headroom, checkpoint_cost, startup, seed = check_parameters(
        scalar=True, hours=hours, grace=grace, headroom=headroom,
        checkpoint_cost=checkpoint_cost, restart_time=startup, seed=seed)
    warm = 20 * pool.hp_hold if warmup is None else check_parameters(
        scalar=True, warmup=warmup)[0]
    if interval is not None:
        each = list(interval) if isinstance(interval, (list, tuple, np.ndarray)) \
            else [interval] * len(sizes)
        if len(each) != len(sizes):
            raise InputError(f"interval: one for every rank ({len(sizes)}) or one for all, "
                             f"got {len(each)}")
        interval = [_interval(value) for value in each]
    hold_cv = check_positive("hold_cv", hold_cv)
    (failures,) = check_parameters(scalar=True, failure_rate=failures)
    rng = np.random.default_rng(seed)
    run = _Pool(pool, sizes, warm, warm + measured, hold, hold_cv, victim, grace, headroom,
                interval, checkpoint_cost, startup, rng, log)
    run.failures, run.failure_draws = failures, np.random.default_rng([seed, 1])
    return run.run()


def _interval(value) -> float:
    """An interval checked, ``math.inf`` (writes on notice only) let through."""
    if isinstance(value, float) and math.isinf(value) and value > 0:
        return value
    return check_parameters(scalar=True, interval=value)[0]


class _Exponentials:
    """Standard exponential draws of a generator, drawn in blocks and handed out one at a
    time (a call) or a run at a time (:meth:`take`, then :meth:`skip` for those used), in
    the order drawing them one by one gives: a run that draws nothing else is the same
    to the last bit, in a fraction of the time.  (NumPy's draw of mean m is m times a
    standard one.)"""

    def __init__(self, rng: np.random.Generator, block: int = 4096):
        self.rng, self.block = rng, block
        self.values: list[float] = []
        self.used = 0

    def __call__(self) -> float:
        if self.used == len(self.values):
            self.values, self.used = self.rng.standard_exponential(self.block).tolist(), 0
        self.used += 1
        return self.values[self.used - 1]

    def take(self, count: int) -> np.ndarray:
        """The next ``count`` draws, not yet used (:meth:`skip` uses them)."""
        while len(self.values) - self.used < count:
            self.values = self.values[self.used:] + self.rng.standard_exponential(
                max(self.block, count)).tolist()
            self.used = 0
        return np.array(self.values[self.used:self.used + count])

    def skip(self, count: int) -> None:
        self.used += count


class _OneByOne:
    """Standard exponential draws made one at a time: where the run draws other laws from
    the same generator (lognormal holds, random victims) in between."""

    def __init__(self, rng: np.random.Generator):
        self.rng, self.state = rng, None

    def __call__(self) -> float:
        return float(self.rng.standard_exponential())

    def take(self, count: int) -> np.ndarray:
        self.state = self.rng.bit_generator.state
        return self.rng.standard_exponential(count)

    def skip(self, count: int) -> None:
        self.rng.bit_generator.state = self.state  # only the draws used are drawn
        self.rng.standard_exponential(count)


class _Pool:
    """The event loop's state."""

    def __init__(self, pool, sizes, warm, end, hold, hold_cv, victim, grace, headroom,
                 interval, checkpoint_cost, startup, rng, log):
        self.pool, self.sizes, self.warm, self.end = pool, sizes, warm, end
        self.hold, self.victim, self.grace, self.rng = hold, victim, grace, rng
        self.headroom = headroom
        self.sigma = math.sqrt(math.log1p(hold_cv**2))
        self.intervals, self.write, self.startup = interval, checkpoint_cost, startup
        self.records = [GangRecord(size) for size in sizes]
        one_size = sizes[0] if len(set(sizes)) == 1 else 0
        self.rank_records = [GangRecord(one_size) for _ in sizes]
        self.rank_of: dict[int, int] = {}  # gang: its rank since its admission, from 1
        self.log: list[PoolEvent] | None = [] if log else None
        self.up: dict[int, float] = {}  # gang: admitted at
        self.up_gpus = 0  # the GPUs of the gangs in self.up
        # (killed at, GPUs) of the gangs in their grace, in the order of their kills: one
        # grace for all, so the order they were stopped in
        self.leaving: collections.deque[tuple[float, int]] = collections.deque()
        self.waiting: list[tuple[float, int]] = [(0.0, gang) for gang in range(len(sizes))]
        self.least_waiting = min(sizes, default=math.inf)  # the smallest gang waiting
        self.gone: dict[int, float] = {}  # gang: killed at (the log's waits start there)
        self.delays: list[float] = []
        self.turned_away = 0
        self.line: collections.deque[float] = collections.deque()
        self.failures, self.failure_draws = 0.0, rng  # per GPU-hour, and their generator
        self.mean_gap = 1 / pool.hp_rate  # hours between requests, on average
        only_exponential = hold != "lognormal" and victim == "recent"
        self.draw = _Exponentials(rng) if only_exponential else _OneByOne(rng)

    def holding(self) -> float:
        """A deterministic or lognormal holding time (:meth:`run` draws exponential ones as
        standard draws times the mean)."""
        mean = self.pool.hp_hold
        if self.hold == "deterministic":
            return mean
        return float(mean * self.rng.lognormal(-self.sigma**2 / 2, self.sigma))

    def run(self) -> PoolRun:
        # One pass an event, millions of times: the count of requests in service is a
        # local, and the rarer steps (preempting, admitting, a start behind gangs in their
        # grace) are methods.  A request's end at the same time as an arrival comes first.
        ends: list[float] = []  # when the requests in service end: a heap
        end, warm, top, hp = self.end, self.warm, self.pool.top, self.pool.hp_gpus
        draw, mean_gap, delays = self.draw, self.mean_gap, self.delays
        # a holding time is hold_mean × holding()
        hold_mean, holding = ((self.pool.hp_hold, draw) if self.hold == "exponential"
                              else (1.0, self.holding))
        pop, push = heapq.heappop, heapq.heappush
        claimable = self.pool.gpus - self.headroom  # what requests and gangs may claim
        crowded = claimable - hp  # claims above it make room for a request
        in_service = 0
        line = self.line  # requests waiting for a place (their arrivals), when kept
        queued = self.pool.overflow == "queue"
        self.admit(0.0, in_service)
        arrival = mean_gap * draw()
        while True:
            if ends and ends[0] <= arrival:
                at = pop(ends)
                if at >= end:
                    break
                if line:  # the first in line takes the place: training is not involved
                    since = line.popleft()
                    if since >= warm:
                        delays.append(at - since)
                    push(ends, at + hold_mean * holding())
                    continue
                in_service -= 1
                if claimable - in_service * hp - self.up_gpus >= self.least_waiting:
                    self.admit(at, in_service)
                continue
            at = arrival
            if at >= end:
                break
            if in_service >= top:  # full: in line, or turned away until a request ends
                if queued:
                    line.append(at)
                    arrival = at + mean_gap * draw()
                else:
                    arrival = self.turned_away_until(at, ends[0])
                continue
            if in_service * hp + self.up_gpus > crowded and self.up:
                self.preempt(at, in_service)
            delay = self.start_delay(at, in_service) if self.leaving else 0.0
            in_service += 1
            if at >= warm:
                delays.append(delay)
            push(ends, at + hold_mean * holding())
            arrival = at + mean_gap * draw()
        for gang, since in list(self.up.items()):
            self.stop(gang, since, self.end, self.end, finished=False)
        return PoolRun(self.records, self.end - self.warm, self.log or [],
                       np.array(self.delays), self.turned_away, self.rank_records)

    def free(self, in_service: int) -> int:
        return self.pool.gpus - in_service * self.pool.hp_gpus - self.up_gpus

    def preempt(self, at: float, in_service: int) -> None:
        """Stop up gangs, by victim order, until a request's g GPUs and the headroom are
        unclaimed; each waits from ``at`` and holds its GPUs through its grace."""
        while self.free(in_service) < self.pool.hp_gpus + self.headroom and self.up:
            gang = self.choose_victim()
            since = self.up.pop(gang)
            self.up_gpus -= self.sizes[gang]
            self.stop(gang, since, at, at + self.grace, finished=True)
            self.waiting.append((at, gang))
            self.least_waiting = min(self.least_waiting, self.sizes[gang])
            self.leaving.append((at + self.grace, self.sizes[gang]))

    def turned_away_until(self, at: float, event: float) -> float:
        """Arrivals from ``at`` while every request's place is taken: each is turned away,
        and nothing else changes, until one comes at or after the next queued ``event`` or
        the end; that one's time.  The gaps are taken in blocks (far less time where a
        pool stays full for many arrivals), only those used drawn."""
        mean_gap, block = self.mean_gap, 64
        while True:
            times = np.add.accumulate(np.concatenate(([at], mean_gap * self.draw.take(block))))
            past = np.flatnonzero((times[1:] >= event) | (times[1:] >= self.end))
            handled = block if past.size == 0 else int(past[0]) + 1
            self.turned_away += int(np.count_nonzero(times[:handled] >= self.warm))
            self.draw.skip(handled)
            if past.size == 0:
                at, block = float(times[-1]), min(4 * block, 65536)
                continue
            return float(times[handled])

    def start_delay(self, at: float, in_service: int) -> float:
        """Hours until g GPUs are free of claims, up gangs and gangs in their grace (this
        request's claim not yet made); the gangs leave in the order of their kills (those
        killed at once in any order: the delay is the same)."""
        leaving = self.leaving
        while leaving and leaving[0][0] <= at:  # gone by now
            leaving.popleft()
        short = self.pool.hp_gpus - self.free(in_service) + sum(size for _, size in leaving)
        delay = 0.0
        for kill, size in leaving:
            if short <= 0:
                break
            short -= size
            delay = kill - at
        return delay

    def choose_victim(self) -> int:
        if self.victim == "random":
            return list(self.up)[int(self.rng.integers(len(self.up)))]
        # the most recently admitted, the highest index among those admitted together:
        # the gangs up are kept in the order of their admissions, so they are the last
        latest, chosen = self.up[next(reversed(self.up))], -1
        for gang in reversed(self.up):
            if self.up[gang] < latest:
                break
            chosen = max(chosen, gang)
        return chosen

    def admit(self, at: float, in_service: int) -> None:
        """Admit the waiting gangs, first come first served, each that fits."""
        self.waiting.sort()
        still, least = [], math.inf  # the gangs left waiting, and the smallest of them
        room = self.free(in_service) - self.headroom
        for since, gang in self.waiting:
            size = self.sizes[gang]
            if size <= room:
                room -= size
                self.up[gang] = at
                self.up_gpus += size
                self.rank_of[gang] = len(self.up)
                if since < at and since >= self.warm:
                    self.records[gang].down_spells.append(at - since)
                if self.log is not None:
                    self.log.append(PoolEvent(at, gang, "admit"))
                    if gang in self.gone and self.gone[gang] < at:
                        self.records[gang].segments.append(
                            Segment(self.gone[gang], at, "idle"))
            else:
                still.append((since, gang))
                least = min(least, size)
        self.waiting, self.least_waiting = still, least

    def stop(self, gang: int, since: float, notice: float, kill: float,
             finished: bool) -> None:
        """Account an up spell from ``since``: told to stop at ``notice``, gone at
        ``kill`` (the grace after it); ``finished`` False for a spell cut by the end."""
        record = self.records[gang]
        rank = self.rank_of.pop(gang)
        start = max(since, self.warm)
        for held in (record, self.rank_records[rank - 1]):
            if kill > start:
                held.up_hours += min(kill, self.end) - start
            if finished and notice >= self.warm:
                held.preemptions += 1
                if since >= self.warm:
                    held.up_spells.append(notice - since)
        if self.log is not None and finished:
            self.log.append(PoolEvent(notice, gang, "preempt"))
        if self.log is not None:
            self.gone[gang] = kill
            record.segments.extend(self.spell_segments(rank, since, notice, kill, finished))
        if self.intervals is not None:
            kept = self.account_compute(gang, rank, since, notice, kill)
            record.kept += kept
            self.rank_records[rank - 1].kept += kept

    def spell_segments(self, rank: int, since: float, notice: float, kill: float,
                       finished: bool) -> list[Segment]:
        """What an up spell at ``rank`` did, for the timeline: the start-up, the written
        cycles, then the lost tail, or the tail written on notice (a spell cut by the end:
        computed)."""
        if self.intervals is None:
            return [Segment(since, kill, "compute")]
        interval = self.intervals[rank - 1]
        on_notice = finished and self.grace > 0 and self.write <= self.grace
        end = notice if on_notice else kill
        out, at = [], min(since + self.startup, end)
        if at > since:
            out.append(Segment(since, at, "restart"))
        while at < end:
            computed = at + interval
            if computed + self.write <= end + 1e-12:  # a whole cycle, written
                out += [Segment(at, computed, "compute"),
                        Segment(computed, computed + self.write, "checkpoint")]
                at = computed + self.write
            elif not on_notice:
                out.append(Segment(at, end, "lost" if finished else "compute"))
                at = end
            elif computed >= end:  # computing at the notice: written on it
                out += [Segment(at, end, "compute"),
                        Segment(end, end + self.write, "notice-write")]
                at = end
            else:  # writing at the notice: the write ends within the grace
                out += [Segment(at, computed, "compute"),
                        Segment(computed, computed + self.write, "checkpoint")]
                at = end
        return out

    def account_compute(self, gang: int, rank: int, since: float, notice: float,
                        kill: float) -> float:
        """Compute kept after the warm-up by an up spell at ``rank`` from ``since``, told
        to stop at ``notice``, gone at ``kill``.  With failures the spell is cut at each
        failure before the notice into segments, each from a start-up, each keeping the
        writes it ended (a failure between the notice and the kill ends the spell then;
        one after a notice that a write fits in changes nothing)."""
        on_notice = self.grace > 0 and self.write <= self.grace and kill > notice
        interval, kept, start = self.intervals[rank - 1], 0.0, since
        if self.failures > 0:
            mean_gap = 1 / (self.failures * self.sizes[gang])
            while True:
                failed = start + mean_gap * self.failure_draws.standard_exponential()
                if failed >= (notice if on_notice else kill):
                    break
                if failed >= notice:  # in the grace, no write on notice: killed now
                    kill = failed
                    break
                kept += self.segment_kept(gang, interval, start, failed, failed, False)
                start = failed
        return kept + self.segment_kept(gang, interval, start, notice, kill, on_notice)

    def segment_kept(self, gang: int, interval: float, since: float, notice: float,
                     kill: float, on_notice: bool) -> float:
        """Compute kept after the warm-up from a start-up at ``since`` until ``kill``: all
        it computed by the ``notice`` when ``on_notice`` (a write fits in the grace), else
        the cycles whose write ends by ``kill``."""
        cycle = interval + self.write

        def done_by(at: float) -> tuple[float, int]:
            """Compute done by ``at`` and the periodic writes ended by then."""
            working = max(at - since - self.startup, 0.0)
            if math.isinf(cycle):
                return working, 0
            whole = math.floor(working / cycle + 1e-12)
            return whole * interval + min(working - whole * cycle, interval), whole

        computed, whole = done_by(notice if on_notice else kill)
        kept = 0.0
        for j in range(whole):
            at = since + self.startup + (j + 1) * cycle
            if self.log is not None:
                self.log.append(PoolEvent(at, gang, "write"))
            if not on_notice:
                kept += interval if at >= self.warm else 0.0
        if on_notice and notice >= self.warm:
            kept += computed - (done_by(self.warm)[0] if since < self.warm else 0.0)
            if self.log is not None:
                self.log.append(PoolEvent(notice + self.write, gang, "write"))
        return kept


def pool_timeline(run: PoolRun, until: float | None = None, gangs=None) -> PoolTimeline:
    """A logged run's gangs, one row each, for the book's timeline drawing.

    Parameters
    ----------
    run : PoolRun
        A run of :func:`simulate_pool` with ``log=True``, ``warmup=0`` and an
        ``interval`` (times are hours from the run's start).
    until : float, optional
        Hours to keep (default: the whole run).
    gangs : sequence of int, optional
        Which gangs, by index, in the order to draw them (default all).

    Returns
    -------
    spotmath.model.simulate.PoolTimeline
        Each gang's start-ups (``restart``), compute, writes, lost work, writes on notice
        and waits (``idle``), and its preemptions, from the run's own log.

    Raises
    ------
    InputError
        A run without a log, or a negative ``until``.

    Examples
    --------
    >>> pool = SharedPool.checked(16, "2/h", "1h", 4)
    >>> run = simulate_pool(pool, [8, 4], hours=24, warmup=0, interval=0.5,
    ...                     checkpoint_cost=1 / 60, seed=1, log=True)
    >>> pool_timeline(run, until=12).names
    ('gang 1 (8 GPUs)', 'gang 2 (4 GPUs)')
    """
    if not run.log:
        raise InputError("run: simulate_pool(..., log=True) keeps what a timeline draws")
    length = run.hours if until is None else min(
        check_parameters(scalar=True, hours=until)[0], run.hours)
    chosen = list(range(len(run.gangs)) if gangs is None else gangs)
    records = [run.gangs[_gang_index(gang, len(run.gangs))] for gang in chosen]
    rows = tuple(tuple(Segment(s.start, min(s.end, length), s.kind) for s in record.segments
                       if s.start < length) for record in records)
    hits = tuple(tuple(e.time for e in run.log if e.gang == gang and e.kind == "preempt"
                       and e.time <= length) for gang in chosen)
    names = tuple(f"gang {gang + 1} ({record.size} GPUs)"
                  for gang, record in zip(chosen, records))
    return PoolTimeline(names, rows, hits, length)


def _gang_index(gang, count: int) -> int:
    """A gang's index, 0 … count − 1."""
    if isinstance(gang, bool) or not isinstance(gang, (int, np.integer)) \
            or not 0 <= gang < count:
        raise InputError(f"gangs: an index from 0 to {count - 1}, got {gang!r}")
    return int(gang)
