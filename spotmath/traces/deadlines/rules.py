"""The rules of a deadline run, and the simulators that follow them tick by tick.

:func:`simulate_job` runs a policy's choices in the paper's model (progress kept across
preemptions), :func:`simulate_checkpointed` in checkpoint mode; both apply the Safety Net
of the online policies when asked.  A policy is a :data:`Choice`: :func:`greedy`,
:func:`uniform_progress` and :func:`on_demand` are the paper's, :func:`following` replays
a schedule (the omniscient one's, say).

The rules
---------
1. Time runs in ticks of the trace's clock, of ``tick`` hours.  At each tick boundary the
   job is idle, on spot, or on on-demand for the whole tick; spot can be chosen only in a
   tick the trace marks available.  A job on spot whose next tick is unavailable is
   preempted at that boundary and is idle there.
2. Every start of an instance of a type other than the one the job is on (idle to spot,
   idle to on-demand, spot to on-demand, on-demand to spot, a relaunch after a
   preemption) is a *changeover*: the first ``changeover`` hours of the new stint make no
   progress (they may span ticks).  Going idle is free.
3. Prices: on-demand 1 per hour, spot ``1 - discount`` per hour, so a cost is in
   on-demand hours.  Every tick on an instance is billed whole, the changeover and the
   tick in which the job finishes included (the paper's accounting); with
   ``billing="second"`` the finishing tick is billed only up to the finish.
4. Progress is kept across preemptions (the paper's model: the changeover covers the
   loss).  In checkpoint mode (an ``interval`` given) it is not: after every
   ``interval`` of compute a write of ``checkpoint`` hours (billed, no progress), a
   preemption back to the last completed write, and a switch the policy chooses first
   saves on the old instance (billed there), the next instance starting after
   max(changeover, write); the Safety Net then allows for the worst a preemption can
   take.
5. The job finishes the moment its progress reaches ``compute``; the deadline is met
   when that moment is at most ``deadline``.

Comparisons of times and amounts of work use a tolerance of
:data:`~spotmath.traces.deadlines.stints.TOLERANCE` hours.  The online policies run under
the Safety Net described in :mod:`spotmath.traces.deadlines`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...inputs import InputError, check_choice, check_discount, check_parameters
from ...model.simulate import Segment
from .stints import IDLE, KINDS, ON_DEMAND, SPOT, TOLERANCE, Checkpoints

__all__ = ["MAX_WINDOW_TICKS", "Run", "Job", "Choice", "greedy", "uniform_progress",
           "on_demand", "following", "simulate_job", "simulate_checkpointed"]

#: The most ticks a job's window may span (its deadline over the tick): every policy is
#: simulated tick by tick.
MAX_WINDOW_TICKS = 200_000


@dataclass(frozen=True)
class Run:
    """One run of a policy from one start.  Hours, and costs in on-demand hours.

    ``kinds`` holds what the job did in each tick (0 idle, 1 spot, 2 on-demand), up to the
    tick in which it finished; ``progress`` the work done at the end of each of those
    ticks.  ``spot_compute_h`` and ``on_demand_compute_h`` are the compute that counted
    (they add up to the job's); in checkpoint mode ``lost_compute_h`` is the compute
    preemptions took back and ``checkpoint_writes`` the writes made, periodic and on a
    chosen switch (both 0 in the paper's model).  The run also keeps its log
    (:meth:`segments`): ``preempted_ticks``, the ticks at whose start spot was taken, and
    in the paper's model ``changeover_h``, the changeover hours at the start of each tick,
    in checkpoint mode ``log``, the segments themselves.
    """

    policy: str
    cost: float
    finish_h: float
    met: bool
    spot_compute_h: float
    on_demand_compute_h: float
    spot_billed_h: float
    on_demand_billed_h: float
    changeovers: int
    preemptions: int
    kinds: np.ndarray = field(repr=False)
    progress: np.ndarray = field(repr=False)
    lost_compute_h: float = 0.0
    checkpoint_writes: int = 0
    changeover_h: np.ndarray | None = field(default=None, repr=False)
    preempted_ticks: tuple[int, ...] = field(default=(), repr=False)
    log: tuple[Segment, ...] | None = field(default=None, repr=False)

    def segments(self, tick: float) -> tuple[Segment, ...]:
        """The run as segments from its start to its finish, hours: ``idle``, and on an
        instance ``changeover`` then ``spot`` or ``on-demand`` compute, tick by tick
        (consecutive ones of a kind merged); they tile [0, finish].  In checkpoint mode
        also ``checkpoint`` (a periodic write) and ``lost`` (compute on spot that a
        preemption took back).

        Parameters
        ----------
        tick : float
            The availability's tick, hours (the run's own).
        """
        if self.log is not None:
            return self.log
        names = {IDLE: "idle", SPOT: "spot", ON_DEMAND: "on-demand"}
        pieces = []
        for i, (kind, setup) in enumerate(zip(self.kinds, self.changeover_h)):
            start, end = i * tick, float(min((i + 1) * tick, self.finish_h))
            if kind != IDLE and setup > 0:
                ready = float(min(start + setup, end))
                pieces.append(Segment(start, ready, "changeover"))
                start = ready
            pieces.append(Segment(start, end, names[int(kind)]))
        return _merged(pieces)

    def as_dict(self) -> dict[str, Any]:
        """The documented keys (``--json``)."""
        return {"cost": self.cost, "finish_h": self.finish_h, "met": self.met,
                "spot_compute_h": self.spot_compute_h,
                "on_demand_compute_h": self.on_demand_compute_h,
                "spot_billed_h": self.spot_billed_h,
                "on_demand_billed_h": self.on_demand_billed_h,
                "changeovers": self.changeovers, "preemptions": self.preemptions,
                "lost_compute_h": self.lost_compute_h,
                "checkpoint_writes": self.checkpoint_writes}


def _merged(pieces: Sequence[Segment]) -> tuple[Segment, ...]:
    """Segments without empty ones, consecutive ones of a kind joined."""
    merged: list[Segment] = []
    for piece in pieces:
        if piece.end <= piece.start:
            continue
        if merged and merged[-1].kind == piece.kind and merged[-1].end == piece.start:
            merged[-1] = Segment(merged[-1].start, piece.end, piece.kind)
        else:
            merged.append(piece)
    return tuple(merged)


@dataclass(frozen=True)
class Job:
    """A job with a deadline, checked: hours, and the discount a share of on-demand's price.

    Build one with :meth:`checked`, which takes text such as ``'48h'`` and refuses bad
    values in one line.
    """

    compute: float
    deadline: float
    changeover: float
    discount: float
    tick: float
    billing: str

    @classmethod
    def checked(cls, compute, deadline, changeover, discount, tick, billing="tick") -> Job:
        """The job, each value checked (hours, or text such as ``'10min'``).

        Raises
        ------
        InputError
            A bad value (named), or a window of more than :data:`MAX_WINDOW_TICKS` ticks.

        Examples
        --------
        >>> Job.checked("8h", "12h", "12min", 0.6, "1h")
        Job(compute=8.0, deadline=12.0, changeover=0.2, discount=0.6, tick=1.0, billing='tick')
        """
        compute, deadline, changeover, tick = check_parameters(
            scalar=True, compute=compute, deadline=deadline, changeover=changeover,
            tick=tick)
        if deadline / tick > MAX_WINDOW_TICKS:
            raise InputError(f"deadline: {deadline:g} h is {deadline / tick:.3g} ticks of "
                             f"{tick * 3600:.3g} s; at most {MAX_WINDOW_TICKS} fit: a tick "
                             f"of at least {deadline / MAX_WINDOW_TICKS * 3600:.3g} s, or a "
                             f"nearer deadline")
        discount = float(check_discount("discount", discount, scalar=True))
        check_choice("billing", billing, ("tick", "second"))
        return cls(float(compute), float(deadline), float(changeover), discount,
                   float(tick), billing)

    def feasible(self, checkpoints: Checkpoints | None = None) -> bool:
        """Whether on-demand from the start, finishing at changeover + compute (and, in
        checkpoint mode, its writes), meets the deadline: whether any policy can."""
        writes = 0.0 if checkpoints is None else checkpoints.write * checkpoints.writes(
            self.compute)
        return self.changeover + self.compute + writes <= self.deadline + TOLERANCE


#: ``choose(i, t, kind, changeover_left, progress, spot_available, since=0.0,
#: writing=0.0) -> kind``; in checkpoint mode the simulator also passes ``since``, the
#: compute since the last write, and ``writing``, the time a write under way still needs.
Choice = Callable[..., int]


def _safety_net(job: Job, want: int, t: float, kind: int, left_over: float,
                progress: float, available: bool) -> int:
    """The paper simulator's Safety Net, applied after a policy's own choice."""
    rest = job.compute - progress
    left = math.floor((job.deadline - t) / job.tick + TOLERANCE)
    need1 = math.ceil((rest + job.changeover) / job.tick - TOLERANCE)
    need2 = math.ceil((rest + 2 * job.changeover) / job.tick - TOLERANCE)
    if need2 >= left and kind in (IDLE, ON_DEMAND):
        want = ON_DEMAND
    if need1 >= left:
        if job.changeover <= TOLERANCE:
            want = SPOT if available else ON_DEMAND
        elif kind == SPOT and left_over <= TOLERANCE and available:
            want = SPOT
        else:
            want = ON_DEMAND
    return want


def greedy(job: Job) -> Choice:
    """Spot whenever available (staying on it until preempted), idle otherwise."""
    def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
        return SPOT if available else IDLE
    return choose


def uniform_progress(job: Job) -> Choice:
    """Spot whenever available; idle and behind the line ``t·compute/deadline``,
    on-demand; on on-demand, back to spot only when ahead of the line two changeovers
    on."""
    rate = job.compute / job.deadline

    def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
        if kind == ON_DEMAND:
            ahead = progress > rate * (t + 2 * job.changeover) + TOLERANCE
            return SPOT if available and ahead else ON_DEMAND
        if available:
            return SPOT
        return ON_DEMAND if progress < rate * t - TOLERANCE else IDLE
    return choose


def on_demand(job: Job) -> Choice:
    """On-demand throughout: the cost every other policy is measured against."""
    def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
        return ON_DEMAND
    return choose


def following(kinds: Sequence[int]) -> Choice:
    """``kinds[i]`` in tick ``i`` (a schedule found already), on-demand after its end."""
    def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
        return int(kinds[i]) if i < len(kinds) else ON_DEMAND
    return choose


def simulate_job(job: Job, spot: np.ndarray, policy: str, choose: Choice,
                 safety_net: bool) -> Run:
    """Run ``choose`` tick by tick under the rules, progress kept across preemptions (the
    paper's model; :func:`simulate_checkpointed` is checkpoint mode's).

    Parameters
    ----------
    job : Job
    spot : numpy.ndarray of bool
        Spot available in each tick from the start; none after its end.
    policy : str
        The name the run carries.
    choose : Choice
        What to run in each tick.
    safety_net : bool
        Whether the Safety Net overrides ``choose`` near the deadline (the online
        policies').

    Returns
    -------
    Run

    Examples
    --------
    >>> import numpy as np
    >>> job = Job.checked("8h", "12h", "0.2h", 0.6, "1h")
    >>> spot = np.array([True] * 6 + [False] * 30)
    >>> run = simulate_job(job, spot, "greedy", greedy(job), safety_net=True)
    >>> run.met, round(run.cost, 3), run.kinds.tolist()
    (True, 5.4, [1, 1, 1, 1, 1, 1, 0, 0, 0, 2, 2, 2])
    """
    tick, changeover = job.tick, job.changeover
    kind, left_over, progress = IDLE, 0.0, 0.0
    billed, done = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
    changeovers = preemptions = 0
    kinds, after, setups, taken = [], [], [], []
    limit = len(spot) + math.ceil((job.deadline + job.compute + changeover) / tick) + 2
    for i in range(limit):
        t = i * tick
        available = bool(spot[i]) if i < len(spot) else False
        if kind == SPOT and not available:
            kind, preemptions = IDLE, preemptions + 1
            taken.append(i)
        want = choose(i, t, kind, left_over, progress, available)
        if safety_net:
            want = _safety_net(job, want, t, kind, left_over, progress, available)
        if want == SPOT and not available:
            raise RuntimeError(f"{policy} chose spot in tick {i}, which has none")
        if want != kind and want != IDLE:
            changeovers += 1
            left_over = changeover
        kind = want
        kinds.append(kind)
        if kind == IDLE:
            after.append(progress)
            setups.append(0.0)
            continue
        work = max(0.0, tick - left_over)
        left_over = max(0.0, left_over - tick)
        setups.append(tick - work)
        if progress + work >= job.compute - TOLERANCE:
            used = (tick - work) + (job.compute - progress)
            billed[kind] += tick if job.billing == "tick" else used
            done[kind] += job.compute - progress
            after.append(job.compute)
            finish = t + used
            spot_price = 1 - job.discount
            return Run(policy=policy, cost=billed[ON_DEMAND] + spot_price * billed[SPOT],
                       finish_h=finish, met=finish <= job.deadline + TOLERANCE,
                       spot_compute_h=done[SPOT], on_demand_compute_h=done[ON_DEMAND],
                       spot_billed_h=billed[SPOT], on_demand_billed_h=billed[ON_DEMAND],
                       changeovers=changeovers, preemptions=preemptions,
                       kinds=np.asarray(kinds, dtype=np.int8),
                       progress=np.asarray(after), changeover_h=np.asarray(setups),
                       preempted_ticks=tuple(taken))
        progress += work
        billed[kind] += tick
        done[kind] += work
        after.append(progress)
    raise RuntimeError(f"{policy} did not finish within {limit} ticks")


def _on_demand_time(job: Job, checkpoints: Checkpoints, work: float) -> float:
    """Hours on-demand needs, from a switch now, to do ``work``: the changeover (or the
    save write on the old instance, if longer), the work and its writes."""
    return max(job.changeover, checkpoints.write) + work + checkpoints.write * \
        checkpoints.writes(work)


def _checkpoint_net(job: Job, checkpoints: Checkpoints, want: int, t: float, kind: int,
                    progress: float, durable: float) -> int:
    """The Safety Net in checkpoint mode, for the worst case.

    Spot, or idling, is allowed for the coming tick only if on-demand, started at the next
    boundary, could still finish by the deadline after the worst that tick can bring: a
    preemption there keeps only the durable progress of a spot stint that goes on (a
    chosen switch, to spot or to idle, first saves everything).
    """
    if want == ON_DEMAND:
        return want
    left = math.floor((job.deadline - t) / job.tick + TOLERANCE)
    kept = durable if (kind == SPOT and want == SPOT) else progress
    need = math.ceil(_on_demand_time(job, checkpoints, job.compute - kept) / job.tick
                     - TOLERANCE)
    return ON_DEMAND if need >= left else want


def simulate_checkpointed(job: Job, checkpoints: Checkpoints, spot: np.ndarray,
                           policy: str, choose: Choice, safety_net: bool) -> Run:
    """The rules with checkpoints: writes every ``interval`` of compute, a preemption
    back to the last completed write, a chosen switch saving first."""
    tick, changeover = job.tick, job.changeover
    interval, write = checkpoints.interval, checkpoints.write
    price = {SPOT: 1 - job.discount, ON_DEMAND: 1.0}
    kind, left_over = IDLE, 0.0
    progress = durable = 0.0          # all compute done; what the last write saved
    since = writing = 0.0             # compute since the last write; write time left
    billed, done = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
    extra = lost = 0.0                # cost of save writes; compute lost to preemptions
    changeovers = preemptions = writes = 0
    kinds, after, taken = [], [], []
    # the log: what each stretch of time was, and where the compute not yet written
    # starts in it (a preemption relabels that compute as lost)
    log: list[Segment] = []
    unsaved_from = 0
    limit = len(spot) + math.ceil((job.deadline + 2 * job.compute + changeover) / tick
                                  + job.compute / interval) + 4
    for i in range(limit):
        t = i * tick
        available = bool(spot[i]) if i < len(spot) else False
        if kind == SPOT and not available:  # back to the last completed write
            preemptions += 1
            taken.append(i)
            lost += progress - durable
            done[SPOT] -= progress - durable
            progress, since, writing, kind = durable, 0.0, 0.0, IDLE
            log[unsaved_from:] = [Segment(piece.start, piece.end, "lost")
                                  if piece.kind == "spot" else piece
                                  for piece in log[unsaved_from:]]
        want = choose(i, t, kind, left_over, progress, available, since=since,
                      writing=writing)
        if safety_net:
            want = _checkpoint_net(job, checkpoints, want, t, kind, progress, durable)
        if want == SPOT and not available:
            raise RuntimeError(f"{policy} chose spot in tick {i}, which has none")
        saved = False
        if want != kind and kind != IDLE and progress > durable + TOLERANCE:
            extra += price[kind] * write  # the save, on the old instance
            writes += 1
            durable, since, writing, saved = progress, 0.0, 0.0, True
        unsaved_from = len(log) if progress <= durable + TOLERANCE else unsaved_from
        if want != kind and want != IDLE:
            changeovers += 1
            left_over = max(changeover, write) if saved else changeover
            since = writing = 0.0
        kind = want
        kinds.append(kind)
        if kind == IDLE:
            after.append(progress)
            log.append(Segment(t, t + tick, "idle"))
            continue
        budget = tick
        spent = min(budget, left_over)
        left_over -= spent
        budget -= spent
        if spent > 0:
            log.append(Segment(t, t + spent, "changeover"))
        finished = None
        while budget > TOLERANCE and finished is None:
            now = t + tick - budget
            if writing > 0:
                spent = min(budget, writing)
                writing -= spent
                budget -= spent
                log.append(Segment(now, now + spent, "checkpoint"))
                if writing <= TOLERANCE:
                    writing, durable, since = 0.0, progress, 0.0
                    unsaved_from = len(log)
                continue
            step = min(budget, interval - since, job.compute - progress)
            progress += step
            since += step
            done[kind] += step
            budget -= step
            log.append(Segment(now, now + step, KINDS[kind]))
            if progress >= job.compute - TOLERANCE:
                finished = tick - budget
            elif since >= interval - TOLERANCE:
                writing = write
                writes += 1
                if write <= TOLERANCE:
                    writing, durable, since = 0.0, progress, 0.0
                    unsaved_from = len(log)
        if finished is not None:
            billed[kind] += tick if job.billing == "tick" else finished
            after.append(job.compute)
            finish = t + finished
            return Run(policy=policy,
                       cost=billed[ON_DEMAND] + price[SPOT] * billed[SPOT] + extra,
                       finish_h=finish, met=finish <= job.deadline + TOLERANCE,
                       spot_compute_h=done[SPOT], on_demand_compute_h=done[ON_DEMAND],
                       spot_billed_h=billed[SPOT], on_demand_billed_h=billed[ON_DEMAND],
                       changeovers=changeovers, preemptions=preemptions,
                       kinds=np.asarray(kinds, dtype=np.int8), progress=np.asarray(after),
                       lost_compute_h=lost, checkpoint_writes=writes,
                       preempted_ticks=tuple(taken), log=_merged(log))
        billed[kind] += tick
        after.append(progress)
    raise RuntimeError(f"{policy} did not finish within {limit} ticks")

