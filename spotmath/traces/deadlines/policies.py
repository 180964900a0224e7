"""Running the policies: one start, every policy, many starts compared.

:func:`run_policy` runs one policy from the first tick of a window, :func:`run_policies`
every policy from one start of a trace and :func:`compare_starts` from many (a
:class:`Summary`); :func:`run_job` is the driver under all three.  Checkpoint mode's
interval may be ``'auto'``: :func:`auto_interval`, the exact optimum at the rate the
trace's spells of spot end.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...docs import fill_doc
from ...inputs import (
    InputError,
    check_choice,
    check_gang_size,
    check_parameters,
    check_seed,
)
from ...model.intervals import exact_interval
from .availability import Availability
from .model_policy import (
    AvailabilityModel,
    checkpoint_model_policy,
    checkpoint_spell_law_policy,
    completed_spells,
    fit_availability,
    model_policy,
    spell_ages,
    spell_law_policy,
)
from .omniscient import omniscient_schedule, omniscient_schedules
from .rules import (
    Choice,
    Job,
    Run,
    following,
    greedy,
    on_demand,
    simulate_checkpointed,
    simulate_job,
    uniform_progress,
)
from .stints import TOLERANCE, Checkpoints

__all__ = ["POLICIES", "ONLINE", "SMALL_GAP", "run_policy", "run_job", "run_policies",
           "compare_starts", "compare_slack", "start_ticks", "Summary", "auto_interval",
           "resolve_interval", "spell_end_rate"]

#: The policies, in the order they are reported.
POLICIES = ("on-demand", "greedy", "uniform-progress", "omniscient", "model")
#: The policies that see only the past, and so run under the Safety Net.
ONLINE = ("greedy", "uniform-progress", "model")
#: A greedy-to-optimum gap smaller than this share of on-demand's cost is no gap.
SMALL_GAP = 0.01


@fill_doc
def run_policy(policy: str, spot: np.ndarray, tick: float | str, compute: float | str,
               deadline: float | str, changeover: float | str, discount: float | str,
               billing: str = "tick", history: np.ndarray | None = None,
               interval: float | str | None = None, checkpoint: float | str = 0.0
               ) -> Run | None:
    """Run one policy from the first tick of ``spot``.

    Times are hours, or text such as ``'10min'``.

    Parameters
    ----------
    policy : {'on-demand', 'greedy', 'uniform-progress', 'omniscient', 'model'}
    spot : numpy.ndarray of bool
        Spot available in each tick, from the start (:meth:`Availability.spot`).  Ticks
        beyond its end have no spot.
    tick : float or str
        [[job_tick]]
    compute : float or str
        [[job_compute]]
    deadline : float or str
        [[job_deadline]]
    changeover : float or str
        [[job_changeover]]
    discount : float or str
        [[job_discount]]
    billing : {'tick', 'second'}, optional
        [[job_billing]]
    history : numpy.ndarray of bool, optional
        Spot available in the ticks before the start: what the ``model`` policy is fitted
        to (:func:`~spotmath.traces.deadlines.model_policy.fit_availability`; none: its prior).
    interval : float or str, optional
        [[job_interval]]
        Default None: the paper's model, progress kept across preemptions.
    checkpoint : float or str, optional
        [[job_write]]
        Default 0.

    Returns
    -------
    Run or None
        None when no policy can meet the deadline (on-demand from the start finishes
        after it).

    Raises
    ------
    InputError
        A bad value (named).

    Examples
    --------
    >>> import numpy as np
    >>> spot = np.array([True] * 6 + [False] * 30)
    >>> run = run_policy("greedy", spot, "1h", "8h", "12h", "0.2h", 0.6)
    >>> run.met, round(run.cost, 3), run.changeovers
    (True, 5.4, 2)
    """
    check_choice("policy", policy, POLICIES)
    job = Job.checked(compute, deadline, changeover, discount, tick, billing)
    spot = np.asarray(spot, dtype=bool)
    checkpoints = _checkpoints(interval, checkpoint)
    return run_job(job, spot, policy, None if history is None else np.asarray(history, bool),
                checkpoints=checkpoints)


def _checkpoints(interval, checkpoint) -> Checkpoints | None:
    """Checkpoint mode's settings, checked (None without an interval)."""
    if interval is None:
        return None
    interval, checkpoint = check_parameters(scalar=True, interval=interval,
                                            checkpoint_cost=checkpoint)
    return Checkpoints(float(interval), float(checkpoint))


def auto_interval(availability: Availability, checkpoint: float | str, gang_size: int = 1
                  ) -> float:
    """The exact optimal interval at the rate the gang's spot spells end in the trace.

    The rate is spells ended (spot followed by none) per hour of spot; the interval is
    :func:`spotmath.model.numerics.exact_interval` at that rate.

    Raises
    ------
    InputError
        A trace in which no spell of spot ends (no rate to plan for).
    """
    (checkpoint,) = check_parameters(scalar=True, checkpoint_cost=checkpoint)
    if checkpoint <= 0:
        raise InputError("checkpoint_cost: 'auto' balances the write against what a "
                         "preemption takes back; a write of 0 has no such optimum: give "
                         "a write > 0, or an interval")
    rate = spell_end_rate(availability, gang_size)
    if rate == 0:
        raise InputError(f"interval: no spell of spot ends in {availability.name}: no rate "
                         "to choose an interval for (give one)")
    return float(exact_interval(rate, checkpoint))


def resolve_interval(availability: Availability, interval: float | str | None,
                     checkpoint: float | str, gang_size: int = 1) -> float | str | None:
    """``interval`` as given, or :func:`auto_interval` where it is ``'auto'``."""
    if isinstance(interval, str) and interval.strip() == "auto":
        return auto_interval(availability, checkpoint, gang_size)
    return interval


def spell_end_rate(availability: Availability, gang_size: int = 1) -> float:
    """Spells of spot that end (spot followed by none) per hour of spot; 0 if none do."""
    spot = availability.spot(gang_size)
    ends = int(np.count_nonzero(spot[:-1] & ~spot[1:]))
    hours = float(np.count_nonzero(spot)) * availability.tick
    return ends / hours if ends else 0.0


def _model_choice(job: Job, history: np.ndarray | None, known=None,
                  checkpoints: Checkpoints | None = None, hours: np.ndarray | None = None,
                  dated: bool = False, plan: tuple[float, float] | None = None,
                  prior: Sequence[tuple[np.ndarray, np.ndarray]] = ()) -> Choice:
    """The model policy: planning with the ``known`` two-state chain where one is given
    (the true chain of a synthetic trace), else with a :class:`~spotmath.traces.deadlines.
    model_policy.SpellLaw` fitted to ``history`` (on the clock of ``hours``, the time
    of each tick of the history and of the job, where there is one), with the spells of
    ``prior`` (other traces' spot and times before the start) as its fit's prior, or,
    without, with the two-state chain fitted to it where the history holds fewer than
    :data:`LAW_SPELLS` completed spells of spot or of outage; in checkpoint mode with
    its writes and rollbacks.  Without checkpoints, ``plan`` (the least and the most
    compute, hours) has the programme solved for the most and serve every job down to
    the least."""
    least, most = (None, job.compute) if plan is None or checkpoints is not None else plan
    if least is not None and not least - TOLERANCE <= job.compute <= most + TOLERANCE:
        raise InputError(f"plan: a programme for {least:g} to {most:g} h of compute does "
                         f"not serve a job of {job.compute:g} h")
    history = np.zeros(0, dtype=bool) if history is None else np.asarray(history, bool)
    if known is None and not prior and min(
            completed_spells(history).size,
            completed_spells(history, available=False).size) < LAW_SPELLS:
        known = fit_availability(history)
    if known is not None:
        policy = model_policy(known, job.tick, most, job.deadline, job.changeover,
                              job.discount, job.billing, least) if checkpoints is None else \
            checkpoint_model_policy(known, job.tick, job.compute, job.deadline,
                                    job.changeover, job.discount, checkpoints.interval,
                                    checkpoints.write, job.billing)
    else:
        clock = None if hours is None else np.asarray(hours)
        past, start = (None, None) if clock is None else (
            clock[:history.size], float(clock[history.size]))
        policy = spell_law_policy(
            history, job.tick, most, job.deadline, job.changeover, job.discount,
            job.billing, past, start, dated, least, prior) if checkpoints is None else \
            checkpoint_spell_law_policy(
                history, job.tick, job.compute, job.deadline, job.changeover, job.discount,
                checkpoints.interval, checkpoints.write, job.billing, past, start, dated,
                prior)
    # the spell's age, ticks it has lasted before this one, as the job sees the ticks go
    # by (the simulators ask at every tick, in order); a chain's policy has no use for it
    seen = {"tick": -1, "available": bool(history[-1]) if history.size else None,
            "age": float(spell_ages(history)[-1]) if history.size else 0.0}

    def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
        if i != seen["tick"]:
            seen["age"] = seen["age"] + 1 if available == seen["available"] else 0.0
            seen["tick"], seen["available"] = i, available
        left = math.floor((job.deadline - t) / policy.tick + TOLERANCE)
        state = policy.state_of(kind, left_over, since, writing) if checkpoints is not None \
            else policy.state_of(kind, job.changeover, left_over, policy.tick)
        return policy.choose(left, job.compute - progress, state, available,
                             seen["age"] * job.tick / policy.tick)
    return choose


#: The fewest completed spells of spot, and of outage, a history must hold for the model
#: policy to fit the spells' law by age and hour to it; with fewer it fits the two-state
#: chain, whose two chances a short history can still pin down.
LAW_SPELLS = 20


def run_job(job: Job, spot: np.ndarray, policy: str, history: np.ndarray | None = None,
            known: AvailabilityModel | None = None, checkpoints: Checkpoints | None = None,
            others: dict[str, Run | None] | None = None, optimum=None,
            budget_share: float = 1.0, hours: np.ndarray | None = None,
            dated: bool = False, plan: tuple[float, float] | None = None,
            prior: Sequence[tuple[np.ndarray, np.ndarray]] = ()) -> Run | None:
    """One policy's run of a checked job: the driver under every function here.

    Parameters
    ----------
    job : Job
        The job (:meth:`Job.checked <spotmath.traces.deadlines.rules.Job.checked>`).
    spot : numpy.ndarray of bool
        Spot available in each tick from the start; none after its end.
    policy : str
        One of :data:`POLICIES`.
    history : numpy.ndarray of bool, optional
        Spot in the ticks before the start, which the model policy is fitted to.
    known : AvailabilityModel, optional
        The model the model policy plans with instead of fitting one (a fit made
        already, or the true chain of a synthetic trace).
    checkpoints : Checkpoints, optional
        Checkpoint mode (default None: progress kept).
    others : dict, optional
        Runs of other policies on the same job and spot, whose costs bound the
        optimum's search in checkpoint mode.
    optimum : tuple, optional
        The omniscient schedule, where it was found already
        (:func:`~spotmath.traces.deadlines.omniscient.omniscient_schedules`).
    budget_share : float, optional
        Checkpoint mode: the share of the optimum's search budget this run may use
        (default 1; :func:`compare_starts` divides it among its starts).
    hours : numpy.ndarray, optional
        The clock the model policy plans by: the time of each tick of the history and
        then of the job, hours (:meth:`Availability.hours_of`); None: no clock.
    dated : bool, optional
        Whether ``hours`` are dates (UTC hours since 1970-01-01).
    plan : tuple of float, optional
        The least and the most compute, hours, of the jobs due at this deadline that the
        model policy's programme serves (default: this job's alone; without
        checkpoints): one programme answers them all.  A job outside them is refused.
    prior : sequence of (history, hours), optional
        Other traces' spot before the start and the time of each of their ticks, whose
        spells the model policy takes as its fit's prior
        (:func:`~spotmath.traces.deadlines.model_policy.others_prior`; default none).

    Returns
    -------
    Run or None
        None when no policy can meet the deadline.

    Examples
    --------
    >>> import numpy as np
    >>> job = Job.checked("8h", "12h", "0.2h", 0.6, "1h")
    >>> spot = np.array([True] * 6 + [False] * 30)
    >>> round(run_job(job, spot, "omniscient").cost, 3)
    5.4
    """
    if not job.feasible(checkpoints):
        return None

    def run(choose: Choice, safety_net: bool) -> Run:
        if checkpoints is None:
            return simulate_job(job, spot, policy, choose, safety_net)
        return simulate_checkpointed(job, checkpoints, spot, policy, choose, safety_net)

    if policy == "model":
        return run(_model_choice(job, history, known, checkpoints, hours, dated, plan,
                                 prior), safety_net=True)
    if policy == "omniscient":
        bound = math.inf
        if checkpoints is not None:  # the online policies meet the deadline: the
            # cheapest schedule known to meet it bounds the search
            others = dict(others or {})
            for name, rule in (("greedy", greedy), ("uniform-progress", uniform_progress)):
                if others.get(name) is None:
                    others[name] = run(rule(job), safety_net=True)
            bound = min((done.cost for done in others.values()
                         if done is not None and done.met), default=math.inf)
        found = optimum or omniscient_schedule(spot, job.tick, job.compute, job.deadline,
                                               job.changeover, job.discount, job.billing,
                                               checkpoints=checkpoints, bound=bound,
                                               budget_share=budget_share)
        if found is None:  # on-demand from the start meets it: the search must find one
            raise RuntimeError("no optimal schedule found for a feasible deadline")
        return run(following(found[0]), safety_net=False)
    choose = {"on-demand": on_demand, "greedy": greedy,
              "uniform-progress": uniform_progress}[policy](job)
    return run(choose, safety_net=policy in ONLINE)


@fill_doc
def run_policies(availability: Availability, compute: float | str, deadline: float | str,
                 changeover: float | str, discount: float | str, *,
                 policies: Sequence[str] = POLICIES, start_tick: int = 0, gang_size: int = 1,
                 billing: str = "tick", interval: float | str | None = None,
                 checkpoint: float | str = 0.0, others: Sequence[Availability] = ()
                 ) -> dict[str, Run | None]:
    """Every policy from one start tick of a trace.

    Times are hours, or text such as ``'48h'``.

    Parameters
    ----------
    availability : Availability
    compute : float or str
        [[job_compute]]
    deadline : float or str
        [[job_deadline]]
    changeover : float or str
        [[job_changeover]]
    discount : float or str
        [[job_discount]]
    policies : sequence of str, optional
        Default: all of :data:`POLICIES`.
    start_tick : int, optional
        The tick the job starts at (default 0).
    gang_size : int, optional
        The gang: spot only in ticks with at least this many instances (default 1).
    billing : {'tick', 'second'}, optional
        [[job_billing]]
    interval : float, str or None, optional
        Checkpoint mode (as :func:`run_policy`); ``'auto'``: :func:`auto_interval`.
    checkpoint : float or str, optional
        The write's blocking time in checkpoint mode.
    others : sequence of Availability, optional
        Other traces of the same days (other zones of the same cloud), dated as this one
        and on its tick: the model policy takes their spells before the start as its
        fit's prior (:func:`~spotmath.traces.deadlines.model_policy.others_prior`;
        default none).

    Returns
    -------
    dict
        ``{policy: Run}`` (a Run is None for every policy when none can meet the
        deadline).

    Raises
    ------
    InputError
        A bad value, an unknown policy, a start tick outside the trace, or other traces
        that are not dated or not on this trace's tick.
    """
    return _run_policies(availability, compute, deadline, changeover, discount,
                         policies=policies, start_tick=start_tick, gang_size=gang_size,
                         billing=billing, interval=interval, checkpoint=checkpoint,
                         others=_checked_others(availability, others))


def _run_policies(availability, compute, deadline, changeover, discount, *, policies,
                  start_tick, gang_size, billing, interval, checkpoint, known=None,
                  optimum=None, budget_share=1.0, plan=None, others=()
                  ) -> dict[str, Run | None]:
    """:func:`run_policies`, the model policy planning with ``known`` when given (the
    fit of the history before ``start_tick``, made already, and solving for ``plan``,
    :func:`run_job`'s) and with the prior of ``others`` (checked), the omniscient one
    following ``optimum`` when given (its schedule, found already)."""
    for policy in policies:
        check_choice("policy", policy, POLICIES)
    job = Job.checked(compute, deadline, changeover, discount, availability.tick,
                          billing)
    if isinstance(start_tick, bool) or not isinstance(start_tick, (int, np.integer)) \
            or not 0 <= start_tick < len(availability):
        raise InputError(f"start_tick: must be a whole number from 0 to "
                         f"{len(availability) - 1} (the trace has {len(availability)} "
                         f"ticks), got {start_tick!r}")
    interval = resolve_interval(availability, interval, checkpoint, gang_size)
    checkpoints = _checkpoints(interval, checkpoint)
    spot = availability.spot(gang_size)
    hours = availability.hours_of(np.arange(start_tick + 1))  # the history's and the start's
    before = tuple(_before(other, hours[-1], gang_size) for other in others) \
        if "model" in policies else ()
    runs: dict[str, Run | None] = {}
    for policy in _optimum_last(policies):
        runs[policy] = run_job(job, spot[start_tick:], policy, spot[:start_tick], known=known,
                               checkpoints=checkpoints, others=runs, optimum=optimum,
                               budget_share=budget_share, hours=hours,
                               dated=availability.clock is not None, plan=plan,
                               prior=before)
    return {policy: runs[policy] for policy in policies}


def _checked_others(availability: Availability, others: Sequence[Availability]
                    ) -> tuple[Availability, ...]:
    """Other traces that can lend their spells to ``availability``'s fits: dated, as it
    is, so that each start's time says which of their ticks came before it, and on its
    tick (to 1%), so that a planning tick counts the same time in each."""
    others = tuple(others)
    for other in others:
        if not isinstance(other, Availability):
            raise InputError(f"others: give traces (Availability), got {type(other).__name__}")
        if availability.clock is None or other.clock is None:
            undated = availability.name if availability.clock is None else other.name
            raise InputError(f"others: {undated} has no dates, so its ticks cannot be put "
                             "on one clock with the other traces (a date column is needed)")
        if abs(other.tick / availability.tick - 1) > 0.01:
            raise InputError(f"others: {other.name} has a tick of {other.tick * 3600:.4g} s, "
                             f"{availability.name} {availability.tick * 3600:.4g} s (they must "
                             "be the same)")
    return others


def _before(other: Availability, start: float, gang_size: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """Another trace's spot for the gang, and its times, in its ticks before ``start``
    (hours, on the dated clock :func:`_checked_others` asks of it)."""
    ticks = int(np.searchsorted(other.clock, start, side="left"))
    return other.spot(gang_size)[:ticks], other.clock[:ticks]


def _optimum_last(policies: Sequence[str]) -> list[str]:
    """The policies with the omniscient one last: the others' runs bound its search."""
    return sorted(policies, key=lambda policy: policy == "omniscient")


def start_ticks(availability: Availability, deadline: float | str, starts: int,
                seed: int) -> np.ndarray:
    """``starts`` start ticks drawn uniformly (seeded) among those leaving room for D.

    Raises
    ------
    InputError
        A trace shorter than the deadline, or bad counts.
    """
    (deadline,) = check_parameters(scalar=True, deadline=deadline)
    starts = check_gang_size("starts", starts, what="a whole number of starts")
    seed = check_seed("seed", seed)
    room = math.ceil(deadline / availability.tick - TOLERANCE)
    last = len(availability) - room
    if last < 0:
        raise InputError(f"deadline: {deadline:g} h is longer than the trace "
                         f"{availability.name} ({availability.hours:g} h)")
    return np.random.default_rng(seed).integers(0, last + 1, size=starts)


@dataclass(frozen=True)
class Summary:
    """Policies compared over many starts: means (and spreads) per policy."""

    starts: np.ndarray
    runs: dict[str, list[Run]]

    @classmethod
    def pooled(cls, summaries: Sequence[Summary]) -> Summary:
        """The starts of several summaries of the same policies (on several traces, say)
        as one summary: its means are over every start."""
        return cls(np.concatenate([summary.starts for summary in summaries]),
                   {policy: [run for summary in summaries for run in summary.runs[policy]]
                    for policy in summaries[0].runs})

    def row(self, policy: str) -> dict[str, Any]:
        """Means over the starts, ``cost_std``, ``cost_share`` and ``gap_closed``."""
        runs = self.runs[policy]
        cost = np.array([run.cost for run in runs])
        on_demand = np.array([run.cost for run in self.runs["on-demand"]]) \
            if "on-demand" in self.runs else None
        values = {key: float(np.mean([run.as_dict()[key] for run in runs]))
                  for key in ("cost", "finish_h", "met", "spot_compute_h",
                              "on_demand_compute_h", "spot_billed_h", "on_demand_billed_h",
                              "changeovers", "preemptions", "lost_compute_h",
                              "checkpoint_writes")}
        values["cost_std"] = float(cost.std(ddof=1)) if len(cost) > 1 else 0.0
        values["cost_share"] = (None if on_demand is None
                                else float(np.mean(cost / on_demand)))
        values["gap_closed"] = self.gap_closed(policy)
        return values

    def gap_closed(self, policy: str) -> float | None:
        """(greedy − policy)/(greedy − omniscient) of the mean costs.

        None for on-demand (the baseline every cost is read against), without greedy and
        omniscient among the policies, and when there is no gap to speak of: greedy
        within :data:`SMALL_GAP` of on-demand's mean cost (greedy's when on-demand was
        not run) of the optimum, where any share of it is noise.
        """
        if policy == "on-demand" or "greedy" not in self.runs \
                or "omniscient" not in self.runs:
            return None
        mean = {name: np.mean([run.cost for run in runs])
                for name, runs in self.runs.items()}
        gap = mean["greedy"] - mean["omniscient"]
        scale = mean.get("on-demand", mean["greedy"])
        if gap <= max(TOLERANCE, SMALL_GAP * scale):
            return None
        return float((mean["greedy"] - mean[policy]) / gap)


def compare_starts(availability: Availability, compute: float | str,
                   deadline: float | str, changeover: float | str,
                   discount: float | str, *, starts: int, seed: int,
                   policies: Sequence[str] = POLICIES, gang_size: int = 1,
                   billing: str = "tick", interval: float | str | None = None,
                   checkpoint: float | str = 0.0, others: Sequence[Availability] = ()
                   ) -> Summary | None:
    """Every policy from ``starts`` start ticks drawn by :func:`start_ticks`.

    ``interval``, ``checkpoint`` and ``others`` as :func:`run_policies` (``'auto'`` is
    chosen once, for the whole trace).  Returns None when no policy can meet the
    deadline.
    """
    others = _checked_others(availability, others)
    ticks = start_ticks(availability, deadline, starts, seed)
    interval = resolve_interval(availability, interval, checkpoint, gang_size)
    spot = availability.spot(gang_size)
    order = range(len(ticks))
    if "model" in policies:  # starts that plan with alike chains in turn: one solve each
        fits = [fit_availability(spot[:tick]) for tick in ticks]
        order = sorted(order, key=lambda n: (fits[n].stay_up, fits[n].stay_down))
    optima = [None] * len(ticks)
    if "omniscient" in policies and interval is None:
        optima = _optima(availability, spot, ticks, compute, deadline, changeover,
                         discount, billing)
    found: dict[int, dict[str, Run | None]] = {}
    for n in order:
        found[n] = _run_policies(availability, compute, deadline, changeover, discount,
                                 policies=policies, start_tick=int(ticks[n]), gang_size=gang_size,
                                 billing=billing, interval=interval, checkpoint=checkpoint,
                                 optimum=optima[n], budget_share=1 / len(ticks),
                                 others=others)
        if any(run is None for run in found[n].values()):
            return None
    runs = {policy: [found[n][policy] for n in range(len(ticks))] for policy in policies}
    return Summary(ticks, runs)


def _optima(availability: Availability, spot: np.ndarray, ticks: np.ndarray,
            compute, deadline, changeover, discount, billing: str) -> list:
    """The omniscient schedules from each of ``ticks``, found side by side (the paper's
    optima; None each where the job cannot be done)."""
    job = Job.checked(compute, deadline, changeover, discount, availability.tick, billing)
    if not job.feasible():
        return [None] * len(ticks)
    length = math.ceil(job.deadline / job.tick - TOLERANCE)  # start_ticks' room
    windows = np.stack([spot[tick:tick + length] for tick in ticks])
    return omniscient_schedules(windows, job.tick, job.compute, job.deadline,
                                job.changeover, job.discount, job.billing)


def compare_slack(availability: Availability, computes: Sequence[float | str],
                  deadline: float | str, changeover: float | str, discount: float | str,
                  *, starts: int, seed: int, policies: Sequence[str] = POLICIES,
                  gang_size: int = 1, billing: str = "tick",
                  others: Sequence[Availability] = ()) -> dict[float, Summary | None]:
    """Every policy from the same start ticks at each of several computes due at the
    same deadline: what :func:`compare_starts` gives at each, with the model policy
    solving one programme a start, for the most compute, that serves every other (a job
    with less compute is a state the larger job may reach, so its table holds theirs).

    Where the most compute moves the programme to a coarser planning tick
    (:func:`~spotmath.traces.deadlines.model_policy.planning_ticks`), the smaller jobs
    are planned on it too.  Without checkpoints; ``others`` as :func:`run_policies`.

    Returns
    -------
    dict
        Each compute, hours (in the order given) to its :class:`Summary`, or to None
        where no policy can meet the deadline with it.

    Raises
    ------
    InputError
        A bad value, or no computes.

    Examples
    --------
    >>> import numpy as np
    >>> from spotmath.traces.deadlines import Availability
    >>> pool = Availability("example", 0.5, np.tile([1, 1, 1, 1, 1, 0, 0, 1, 1, 0], 30))
    >>> swept = compare_slack(pool, ["4h", "6h"], "8h", "0.5h", 0.6, starts=3, seed=1)
    >>> [(compute, round(summary.row("omniscient")["cost_share"], 2))
    ...  for compute, summary in swept.items()]
    [(4.0, 0.75), (6.0, 0.92)]
    """
    checked = [check_parameters(scalar=True, compute=compute)[0] for compute in computes]
    if not checked:
        raise InputError("computes: give at least one compute, hours")
    others = _checked_others(availability, others)
    ticks = start_ticks(availability, deadline, starts, seed)
    spot = availability.spot(gang_size)
    optima = {compute: _optima(availability, spot, ticks, compute, deadline, changeover,
                               discount, billing) if "omniscient" in policies
              else [None] * len(ticks) for compute in checked}
    found: dict[float, list[dict[str, Run | None]]] = {compute: [] for compute in checked}
    for n, tick in enumerate(ticks):  # each start's programme once, for every compute
        for compute in checked:
            found[compute].append(_run_policies(
                availability, compute, deadline, changeover, discount, policies=policies,
                start_tick=int(tick), gang_size=gang_size, billing=billing, interval=None,
                checkpoint=0.0, optimum=optima[compute][n],
                plan=(min(checked), max(checked)), others=others))
    return {compute: None if any(run is None for runs in found[compute]
                                 for run in runs.values())
            else Summary(ticks, {policy: [runs[policy] for runs in found[compute]]
                                 for policy in policies})
            for compute in checked}
