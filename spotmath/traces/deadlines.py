"""Deadlines: when a job that must finish by a date should fall back to on-demand.

A job needs ``compute`` hours of work and must finish by ``deadline`` hours after it
starts.  Spot runs only when an availability trace says so; on-demand is always there.
The policies are those of Wu et al., "Can't Be Late" (NSDI 2024) [wu2024]_, run by the
rules below, which every function here follows.

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

Comparisons of times and amounts of work use a tolerance of :data:`TOLERANCE` hours.

Policies
--------
At a tick boundary ``t`` (hours from the start): ``left`` = ⌊(deadline − t)/tick⌋ ticks,
``need1`` = ⌈(C + δ)/tick⌉ and ``need2`` = ⌈(C + 2δ)/tick⌉ ticks, with ``C`` the compute
still to do and ``δ`` the changeover (the paper simulator's rounding).

``on-demand``
    On-demand from the start: the cost every other policy is measured against.
``greedy``
    Spot whenever available (staying on it until preempted), idle otherwise.
``uniform-progress``
    With the line ep(t) = t·compute/deadline: spot whenever available, even when behind;
    idle and behind (progress < ep(t)) → on-demand; on on-demand, stay there unless spot
    is available and progress > ep(t + 2δ) (there is no move from on-demand to idle).
``omniscient``
    The exact offline optimum on the trace: the least cost that meets the deadline and,
    among schedules of that cost, the earliest finish (:func:`omniscient_schedule`; in
    checkpoint mode by the search of :mod:`spotmath.traces.checkpoint_optimum`).
``model``
    This book's: the least expected cost under a two-state Markov model of availability
    fitted to the trace before the start (:mod:`spotmath.traces.deadline_model`; in
    checkpoint mode it plans with the writes and what a preemption takes back).

The online policies (greedy, uniform-progress, model) apply, after their own choice, the
*Safety Net* of the paper's simulator: if ``need2 ≥ left`` and the job is idle or on
on-demand, on-demand; then, if ``need1 ≥ left``, stay on spot if the job is on a spot
stint whose changeover is over, otherwise on-demand (with no changeover: spot if
available, otherwise on-demand).

Availability traces
-------------------
:func:`read_availability` reads the five of :data:`AVAILABILITY_FORMATS`: the JSON traces
published with Can't Be Late (``{"metadata": {"gap_seconds": g}, "data": [...]}``, one
value per tick: "the number of available instances at a specific tick", as the
spot-traces repository defines it [skytraces]_, so 0 means no spot and a gang of ``N`` has
spot in a tick whose value is at least ``N``; the paper's simulator negates its own
copies, a convention of that code, not of the data), a CSV file ``time_s,available``
(instances available in the tick, one row per tick, evenly spaced), the group-size logs of
:func:`~spotmath.traces.read_group_sizes` (the fewest instances in the pool during each
tick) and the instance traces of :func:`~spotmath.traces.read_trace` in either of its
formats, ``spotmath`` and ``bamboo`` (the instances up for the whole of each tick).

References
----------
.. [wu2024] Z. Wu, W.-L. Chiang, Z. Mao, Z. Yang, E. Friedman, S. Shenker, I. Stoica,
   "Can't Be Late: Optimizing Spot Instance Savings under Deadlines", USENIX NSDI 2024.
.. [skytraces] SkyPilot, "Spot Traces" (the data of [wu2024]_), README, "Data
   Description": https://github.com/skypilot-org/spot-traces
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..docs import fill_doc
from ..inputs import (
    InputError,
    check_choice,
    check_discount,
    check_gang_size,
    check_parameters,
    check_seed,
    parse_number,
    rate_from_mtbf,
)
from ..model.intervals import exact_interval
from ..model.simulate import Segment
from .checkpoint_optimum import checkpoint_schedule
from .deadline_model import (
    AvailabilityModel,
    checkpoint_model_policy,
    fit_availability,
    markov_availability,
    model_policy,
)
from .reading import read_file, read_group_sizes, read_trace
from .stints import IDLE, KINDS, ON_DEMAND, SPOT, TOLERANCE, Checkpoints

__all__ = ["POLICIES", "ONLINE", "AVAILABILITY_FORMATS", "TOLERANCE", "SMALL_GAP",
           "Availability",
           "Run", "Summary", "read_availability", "availability_from_trace",
           "availability_from_sizes", "run_policy",
           "omniscient_schedule", "run_policies", "compare_starts", "start_ticks",
           "Expected", "spell_model", "expected_costs", "model_expected_cost",
           "spot_pays_from", "Checkpoints", "auto_interval",
           "resolve_interval", "spell_end_rate"]

#: The policies, in the order they are reported.
POLICIES = ("on-demand", "greedy", "uniform-progress", "omniscient", "model")
#: The policies that see only the past, and so run under the Safety Net.
ONLINE = ("greedy", "uniform-progress", "model")
#: The availability formats :func:`read_availability` reads.
AVAILABILITY_FORMATS = ("cbl-json", "csv", "group-sizes", "spotmath", "bamboo")
#: The tick instance traces are cut into when none is given, hours (10 minutes).
DEFAULT_TICK = 1 / 6
#: A greedy-to-optimum gap smaller than this share of on-demand's cost is no gap.
SMALL_GAP = 0.01
#: The CSV header of :func:`read_availability`'s own format.
CSV_HEADER = "time_s,available"


# --------------------------------------------------------------------------- traces

@dataclass(frozen=True)
class Availability:
    """Spot instances available in each tick of a trace.

    ``counts[i]`` instances can run for the whole of tick ``i``, which starts ``i * tick``
    hours after the trace's start.
    """

    name: str
    tick: float
    counts: np.ndarray

    def __len__(self) -> int:
        return len(self.counts)

    @property
    def hours(self) -> float:
        """The trace's length, hours."""
        return len(self.counts) * self.tick

    def spot(self, nodes: int = 1) -> np.ndarray:
        """Ticks in which a gang of ``nodes`` can run on spot (at least that many up)."""
        return self.counts >= check_gang_size("nodes", nodes)

    def check_gang(self, nodes: int) -> int:
        """``nodes``, where the trace has that many available in some tick.

        Raises
        ------
        InputError
            A gang larger than the trace ever holds: it would never run on spot (every
            policy would run on on-demand throughout, which is no question of policy).
        """
        nodes = check_gang_size("nodes", nodes)
        most = int(self.counts.max()) if self.counts.size else 0
        if nodes > most:
            raise InputError(f"nodes: a gang of {nodes} never has spot on {self.name}: "
                             f"at most {most} instance{'s' * (most != 1)} available in "
                             f"any tick")
        return nodes


def _fail(name: str, where: str | int | None, message: str) -> InputError:
    return InputError(f"{name}:{where}: {message}" if where is not None
                      else f"{name}: {message}")


def _read_cbl_json(path: Path, text: str) -> Availability:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise _fail(path.name, error.lineno, f"not JSON: {error.msg}") from None
    if not isinstance(document, dict) or not isinstance(document.get("metadata"), dict) \
            or "data" not in document:
        raise _fail(path.name, None, 'expected a JSON object {"metadata": {"gap_seconds": '
                                     '...}, "data": [...]} (a Can\'t Be Late trace)')
    gap = document["metadata"].get("gap_seconds")
    if isinstance(gap, bool) or not isinstance(gap, (int, float)) or not 0 < gap < math.inf:
        raise _fail(path.name, None, f"metadata.gap_seconds must be a number of seconds "
                                     f"> 0, got {gap!r}")
    data = document["data"]
    if not isinstance(data, list) or not data:
        raise _fail(path.name, None, "data must be a non-empty list, one value per tick")
    for index, value in enumerate(data):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**62:
            raise _fail(path.name, None, f"data[{index}] must be the number of instances "
                                         f"available in the tick, a whole number >= 0 "
                                         f"(0 = no spot), got {value!r}")
    return Availability(path.name, gap / 3600, np.asarray(data, dtype=np.int64))


def _read_csv(path: Path, text: str) -> Availability:
    lines = text.splitlines()
    if not lines or lines[0].strip().replace(" ", "") != CSV_HEADER:
        raise _fail(path.name, 1, f"expected the header {CSV_HEADER!r}")
    times, counts, numbers = [], [], []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != 2:
            raise _fail(path.name, number, f"expected 2 fields (time_s,available), got "
                                           f"{len(fields)}")
        seconds = parse_number(fields[0])
        if seconds is None or not 0 <= seconds <= 3.6e9:
            raise _fail(path.name, number, f"time_s must be a number of seconds from 0 to "
                                           f"3.6e9, got {fields[0].strip()!r}")
        text = fields[1].strip()
        count = int(text) if re.fullmatch(r"\d{1,18}", text, re.ASCII) else -1
        if count < 0:
            raise _fail(path.name, number, f"available must be a whole number >= 0, got "
                                           f"{fields[1].strip()!r}")
        times.append(seconds)
        counts.append(count)
        numbers.append(number)
    if len(times) < 2:
        raise _fail(path.name, None, "needs at least two rows (the spacing is the tick)")
    tick = times[1] - times[0]
    if tick <= 0:
        raise _fail(path.name, numbers[1], "times must increase")
    for previous, seconds, number in zip(times, times[1:], numbers[1:]):
        if abs(seconds - previous - tick) > 1e-6 * max(1.0, tick):
            raise _fail(path.name, number, f"rows must be evenly spaced, one per tick of "
                                           f"{tick:g} s (set by the first two rows); this "
                                           f"one is {seconds - previous:g} s after the last")
    return Availability(path.name, tick / 3600, np.asarray(counts, dtype=np.int64))


#: The most ticks a trace may be cut into (:func:`availability_from_trace`,
#: :func:`availability_from_sizes`).
MAX_TRACE_TICKS = 10_000_000


def _ticks_in(name: str, hours: float, tick: float) -> int:
    """The whole ticks in ``hours`` of a trace, at most :data:`MAX_TRACE_TICKS`."""
    if hours / tick > MAX_TRACE_TICKS:
        raise InputError(f"tick: {tick * 3600:.3g} s cuts {name} ({hours:.4g} h) into "
                         f"{hours / tick:.3g} ticks; at most {MAX_TRACE_TICKS:,}: a tick of "
                         f"at least {hours / MAX_TRACE_TICKS * 3600:.3g} s")
    return int(math.floor(hours / tick + TOLERANCE))


def availability_from_trace(trace, tick: float | str = DEFAULT_TICK) -> Availability:
    """Instances up for the whole of each tick of an instance trace.

    Parameters
    ----------
    trace : spotmath.traces.Trace
        Instance lifetimes (:func:`~spotmath.traces.read_trace`).
    tick : float or str, optional
        The tick, hours or text such as ``'10min'`` (default 10 minutes).

    Returns
    -------
    Availability
        One count per whole tick from the trace's first time to its last.

    Raises
    ------
    InputError
        A bad tick, or a trace shorter than one tick.
    """
    (tick,) = check_parameters(scalar=True, tick=tick)
    ticks = _ticks_in(trace.name, trace.end - trace.start, tick)
    if ticks < 1:
        raise InputError(f"{trace.name}: spans {trace.end - trace.start:g} h, less than one "
                         f"tick of {tick:g} h")
    # an instance counts in a tick when it is up from the tick's start to its end
    first = np.ceil((trace.up - trace.start) / tick - TOLERANCE).astype(np.int64)
    last = np.floor((trace.down - trace.start) / tick + TOLERANCE).astype(np.int64)
    steps = np.zeros(ticks + 1, dtype=np.int64)
    keep = first < np.minimum(last, ticks)
    np.add.at(steps, first[keep], 1)
    np.add.at(steps, np.minimum(last[keep], ticks), -1)
    return Availability(trace.name, float(tick), np.cumsum(steps)[:ticks])


def availability_from_sizes(sizes, tick: float | str = DEFAULT_TICK) -> Availability:
    """The fewest instances a pool held during each tick of a group-size log.

    Parameters
    ----------
    sizes : spotmath.traces.GroupSizes
        A pool's size over time (:func:`~spotmath.traces.read_group_sizes`).
    tick : float or str, optional
        The tick, hours or text such as ``'10min'`` (default 10 minutes).

    Returns
    -------
    Availability
        One count per whole tick from the log's first time to its end: the size in effect
        at the tick's start and every size observed within it, the least of them.

    Raises
    ------
    InputError
        A bad tick, or a log shorter than one tick.
    """
    (tick,) = check_parameters(scalar=True, tick=tick)
    begin = float(sizes.times[0])
    ticks = _ticks_in(sizes.name, sizes.end - begin, tick)
    if ticks < 1:
        raise InputError(f"{sizes.name}: spans {sizes.end - begin:g} h, less than one "
                         f"tick of {tick:g} h")
    starts = begin + tick * np.arange(ticks)
    first = np.searchsorted(sizes.times, starts + TOLERANCE, side="right") - 1
    last = np.searchsorted(sizes.times, starts + tick - TOLERANCE, side="left") - 1
    counts = np.array([sizes.sizes[a:b + 1].min() for a, b in zip(first, last)],
                      dtype=np.int64)
    return Availability(sizes.name, float(tick), counts)


#: The first line of a group-size log: ``2021-12-11, 11:11:30, 55``.
_SIZES_LINE = re.compile(r"^\d{4}-\d{2}-\d{2}\s*,\s*\d{1,2}:\d{2}:\d{2}\s*,")


def read_availability(path: str | Path, trace_format: str | None = None,
                      tick: float | str = DEFAULT_TICK) -> Availability:
    """Read an availability trace.

    Parameters
    ----------
    path : str or Path
        The file.
    trace_format : {'cbl-json', 'csv', 'group-sizes', 'spotmath', 'bamboo'}, optional
        Detected when not given: a file starting with ``{`` is a Can't Be Late JSON trace,
        one whose first line is ``time_s,available`` the CSV format, one starting with a
        date, a time and a size a group-size log (:func:`~spotmath.traces.read_group_sizes`,
        the fewest instances in each tick), any other an instance trace
        (:func:`~spotmath.traces.read_trace`).
    tick : float or str, optional
        The tick instance traces and group-size logs are cut into (default 10 minutes);
        the other formats carry their own.

    Returns
    -------
    Availability

    Raises
    ------
    InputError
        One line naming the file (and the line or the entry) and what is wrong.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.json").write_text(
    ...     '{"metadata": {"gap_seconds": 600}, "data": [4, 3, 0, 4]}')
    >>> trace = read_availability(folder / "a.json")
    >>> trace.tick, trace.counts.tolist(), trace.spot(nodes=4).tolist()
    (0.16666666666666666, [4, 3, 0, 4], [True, False, False, True])
    """
    path = Path(path)
    if trace_format is not None:
        check_choice("trace_format", trace_format, AVAILABILITY_FORMATS)
    raw = read_file(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _fail(path.name, None, f"not UTF-8 text (byte {error.start})") from None
    start = text.lstrip()
    if trace_format is None:
        first_line = start.splitlines()[0].replace(" ", "") if start else ""
        trace_format = ("cbl-json" if start.startswith("{") else
                        "csv" if first_line == CSV_HEADER else
                        "group-sizes" if _SIZES_LINE.match(start) else None)
    if trace_format == "cbl-json":
        return _read_cbl_json(path, text)
    if trace_format == "csv":
        return _read_csv(path, text)
    if trace_format == "group-sizes":
        return availability_from_sizes(read_group_sizes(path), tick)
    return availability_from_trace(read_trace(path, trace_format), tick)


# --------------------------------------------------------------------------- one run

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
class _Job:
    compute: float
    deadline: float
    changeover: float
    discount: float
    tick: float
    billing: str


#: ``choose(i, t, kind, changeover_left, progress, spot_available, since=0.0,
#: writing=0.0) -> kind``; in checkpoint mode the simulator also passes ``since``, the
#: compute since the last write, and ``writing``, the time a write under way still needs.
Choice = Callable[..., int]


def _safety_net(job: _Job, want: int, t: float, kind: int, left_over: float,
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


def _greedy(job: _Job) -> Choice:
    def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
        return SPOT if available else IDLE
    return choose


def _uniform_progress(job: _Job) -> Choice:
    rate = job.compute / job.deadline

    def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
        if kind == ON_DEMAND:
            ahead = progress > rate * (t + 2 * job.changeover) + TOLERANCE
            return SPOT if available and ahead else ON_DEMAND
        if available:
            return SPOT
        return ON_DEMAND if progress < rate * t - TOLERANCE else IDLE
    return choose


def _on_demand(job: _Job) -> Choice:
    def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
        return ON_DEMAND
    return choose


def _model(job: _Job, history: np.ndarray | None, known=None,
           checkpoints: Checkpoints | None = None) -> Choice:
    """The model policy, fitted to ``history``, or planning with the ``known`` model; in
    checkpoint mode with its writes and rollbacks."""
    fitted = known if known is not None else fit_availability(
        np.zeros(0, dtype=bool) if history is None else history)
    if checkpoints is not None:
        saving = checkpoint_model_policy(
            fitted, job.tick, job.compute, job.deadline, job.changeover, job.discount,
            checkpoints.interval, checkpoints.write, job.billing)

        def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
            left = math.floor((job.deadline - t) / saving.tick + TOLERANCE)
            state = saving.state_of(kind, left_over, since, writing)
            return saving.choose(left, job.compute - progress, state, available)
        return choose
    policy = model_policy(fitted, job.tick, job.compute, job.deadline, job.changeover,
                          job.discount, job.billing)

    def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
        left = math.floor((job.deadline - t) / policy.tick + TOLERANCE)
        state = policy.state_of(kind, job.changeover, left_over, policy.tick)
        return policy.choose(left, job.compute - progress, state, available)
    return choose


def _following(kinds: Sequence[int]) -> Choice:
    def choose(i, t, kind, left_over, progress, available, since=0.0, writing=0.0):
        return int(kinds[i]) if i < len(kinds) else ON_DEMAND
    return choose


def _simulate(job: _Job, spot: np.ndarray, policy: str, choose: Choice,
              safety_net: bool) -> Run:
    """Run ``choose`` tick by tick under the rules, progress kept across preemptions (the
    paper's model; :func:`_simulate_checkpointed` is checkpoint mode's)."""
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


def _on_demand_time(job: _Job, checkpoints: Checkpoints, work: float) -> float:
    """Hours on-demand needs, from a switch now, to do ``work``: the changeover (or the
    save write on the old instance, if longer), the work and its writes."""
    return max(job.changeover, checkpoints.write) + work + checkpoints.write * \
        checkpoints.writes(work)


def _checkpoint_net(job: _Job, checkpoints: Checkpoints, want: int, t: float, kind: int,
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


def _simulate_checkpointed(job: _Job, checkpoints: Checkpoints, spot: np.ndarray,
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


#: The most ticks a job's window may span (its deadline over the tick): every policy is
#: simulated tick by tick.
MAX_WINDOW_TICKS = 200_000


def _job(compute, deadline, changeover, discount, tick, billing) -> _Job:
    compute, deadline, changeover, tick = check_parameters(
        scalar=True, compute=compute, deadline=deadline, changeover=changeover, tick=tick)
    if deadline / tick > MAX_WINDOW_TICKS:
        raise InputError(f"deadline: {deadline:g} h is {deadline / tick:.3g} ticks of "
                         f"{tick * 3600:.3g} s; at most {MAX_WINDOW_TICKS} fit: a tick of "
                         f"at least {deadline / MAX_WINDOW_TICKS * 3600:.3g} s, or a nearer "
                         f"deadline")
    discount = float(check_discount("discount", discount, scalar=True))
    check_choice("billing", billing, ("tick", "second"))
    return _Job(compute, deadline, changeover, discount, tick, billing)


def _feasible(job: _Job, checkpoints: Checkpoints | None = None) -> bool:
    """On-demand from the start finishes at changeover + compute (and, in checkpoint
    mode, its writes): can anything meet D?"""
    writes = 0.0 if checkpoints is None else checkpoints.write * checkpoints.writes(
        job.compute)
    return job.changeover + job.compute + writes <= job.deadline + TOLERANCE


# --------------------------------------------------------------------------- the optimum

@fill_doc
def omniscient_schedule(spot: np.ndarray, tick: float, compute: float, deadline: float,
                        changeover: float, discount: float, billing: str = "tick",
                        checkpoints: Checkpoints | None = None, bound: float = math.inf
                        ) -> tuple[np.ndarray, float, float] | None:
    """The offline optimum: least cost meeting the deadline, then the earliest finish.

    In the paper's model by default; with ``checkpoints``, in checkpoint mode, by the
    search over stints of :func:`spotmath.traces.checkpoint_optimum.checkpoint_schedule`.

    Dynamic programming over ticks, with the state (what the job is on, stints started
    ``j``, instance ticks ``k``) and the value the most spot ticks.  A schedule whose every
    stint is longer than the changeover has done ``k·tick − j·changeover`` of work after
    ``k`` instance ticks in ``j`` stints; a stint no longer than the changeover makes no
    progress and the optimum has none (idling instead costs less and changes nothing
    else), so the formula is exact where it matters and pessimistic elsewhere.  The cost
    of finishing with ``k`` ticks of which ``a`` are spot is ``tick·(k − discount·a)``
    (less the unused part of the last tick with per-second billing).  ``j`` is bounded by
    2·(spells of spot in the window) + 1, as an optimum uses at most one spot stint per
    spell and one on-demand stint before, between and after them.

    Parameters
    ----------
    spot : numpy.ndarray of bool
        Spot available in each tick from the start.
    tick : float
        [[job_tick]]
    compute : float
        [[job_compute]]
    deadline : float
        [[job_deadline]]
    changeover : float
        [[job_changeover]]
    discount : float
        [[job_discount]]
    billing : {'tick', 'second'}, optional
        [[job_billing]]
    checkpoints : Checkpoints, optional
        Checkpoint mode's interval and write (default None: progress kept).
    bound : float, optional
        Checkpoint mode: the cost of a schedule known to meet the deadline, which prunes
        the search (see :func:`~spotmath.traces.checkpoint_optimum.checkpoint_schedule`).

    Returns
    -------
    tuple or None
        ``(kinds, cost, finish)``: what to run in each tick up to the finishing one, the
        cost in on-demand hours and the finish, hours; None when no schedule meets the
        deadline.
    """
    if checkpoints is not None:
        return checkpoint_schedule(spot, tick, compute, deadline, changeover, discount,
                                   checkpoints, billing, bound)
    return _paper_optima(np.asarray(spot, dtype=bool)[None, :], tick, compute, deadline,
                         changeover, discount, billing)[0]


#: About how many values one tick's band of :func:`_paper_optima`'s windows solved side
#: by side holds: more windows at once saves NumPy's overhead on small programmes; beyond
#: this the arrays outgrow the caches and each window costs more than alone.
_BAND_VALUES = 32_768


def _paper_optima(spot: np.ndarray, tick: float, compute: float, deadline: float,
                  changeover: float, discount: float, billing: str
                  ) -> list[tuple[np.ndarray, float, float] | None]:
    """:func:`omniscient_schedule` in the paper's model for each row of ``spot`` (windows
    of one job), in order: windows that allow as many stints solved side by side, a few
    at a time, each row's values those it has alone."""
    ticks = math.ceil(deadline / tick - TOLERANCE)
    rows = spot.shape[0]
    window = np.zeros((rows, ticks), dtype=bool)  # ticks beyond the trace have no spot
    given = spot[:, :ticks]
    window[:, :given.shape[1]] = given
    has_changeover = changeover > TOLERANCE
    if has_changeover:
        most = math.floor((ticks * tick - compute) / changeover + TOLERANCE)
        spells = window[:, 0] + np.count_nonzero(window[:, 1:] & ~window[:, :-1], axis=1)
        stints = np.maximum(1, np.minimum(np.minimum(most, 2 * spells + 1), ticks))
    else:
        stints = np.ones(rows, dtype=np.int64)
    # the widest band of instance ticks a tick can hold: ticks − done_at[0] + 1, with
    # done_at[0] the instance ticks the compute takes (see _solved_side_by_side)
    done_first = math.ceil(compute / tick - TOLERANCE)
    width = max(1, ticks - done_first + 1)
    values = ticks * 3 * (int(stints.max()) + 1) * width
    if values > OPTIMUM_VALUES:
        finer = tick * math.sqrt(values / OPTIMUM_VALUES)
        raise InputError(
            f"omniscient: the exact optimum of a {ticks}-tick window is too large to "
            f"solve here ({values:.2g} values to compute, at most {OPTIMUM_VALUES:.0e}): "
            f"a tick of at least {finer * 3600:.3g} s, a deadline nearer the compute, or "
            f"the other policies alone (--policy) would fit")
    optima: list[tuple[np.ndarray, float, float] | None] = [None] * rows
    order = np.argsort(stints, kind="stable")
    at = 0
    while at < rows:
        many = max(1, _BAND_VALUES // (3 * (int(stints[order[at]]) + 1) * width))
        chosen = order[at:at + many]
        for row, found in zip(chosen.tolist(), _solved_side_by_side(
                window[chosen], stints[chosen], tick, compute, deadline, changeover,
                discount, billing)):
            optima[row] = found
        at += many
    return optima


def _solved_side_by_side(window: np.ndarray, stints: np.ndarray, tick: float,
                         compute: float, deadline: float, changeover: float,
                         discount: float, billing: str
                         ) -> list[tuple[np.ndarray, float, float] | None]:
    """The paper's optimum for each row of ``window`` with at most ``stints`` stints:
    one programme over a leading axis of rows, its stints up to the largest bound (a
    row's states beyond its own bound are kept empty)."""
    rows, ticks = window.shape
    has_changeover = changeover > TOLERANCE
    size_j = int(stints.max()) + 1
    shift = changeover if has_changeover else 0.0
    # the instance ticks after which a job with j stints has done its compute
    done_at = np.ceil((compute + np.arange(size_j) * shift) / tick - TOLERANCE
                      ).astype(np.int64)
    size_k = int(min(ticks, done_at.max())) + 1
    beyond = (np.arange(size_j)[None, :] > stints[:, None])[:, None, :, None]
    uneven = bool(beyond.any())  # rows with fewer stints than others
    value = np.full((rows, 3, size_j, size_k), _MISSING, dtype=np.int32)
    value[:, IDLE, 0, 0] = 0
    best: list[tuple[float, float, int, int, int, int, int] | None] = [None] * rows
    # finishing with j stints: at k = done_at[j] instance ticks, with ``over`` hours of
    # the last tick unused; done_at grows with j, so a band of k holds a range of j
    over_at = done_at * tick - np.arange(size_j) * shift - compute
    ends = done_at.tolist()
    unused = (np.array([1 - discount, 1.0])[:, None] if billing == "second"
              else np.zeros((2, 1)))

    def advance(i: int, previous: int, finishing=None) -> tuple[int, np.ndarray]:
        """Tick ``i``'s band of values from ``value`` (the last tick's, from column
        ``previous``), which then holds it; ``finishing(i, band, ...)`` sees the
        schedules that finish in the tick before they are taken out of the band."""
        # k after tick i: at most i + 1, and enough that the rest of the window can finish
        hi = min(i + 1, size_k - 1)
        lo = max(0, int(done_at[0]) - (ticks - 1 - i))
        band = _step(value, lo, hi, window[:, i], has_changeover)
        if uneven:  # no more stints than each row's spells allow
            np.putmask(band, np.broadcast_to(beyond, band.shape), _MISSING)
        # finishing in this tick: with j stints, exactly at k = done_at[j]
        first, last = bisect.bisect_left(ends, lo), bisect.bisect_right(ends, hi)
        if first < last:
            js = np.arange(first, last)
            ks = done_at[first:last]
            if finishing is not None:
                finishing(i, band, first, last, js, ks, lo)
            band[:, SPOT:ON_DEMAND + 1, js, ks - lo] = _MISSING  # it goes no further
        # the next tick reads this band; the columns left of it held the last one's
        value[..., previous:lo] = _MISSING
        value[..., lo:hi + 1] = band
        return lo, band

    def finishing(i, band, first, last, js, ks, lo):
        spot_ticks = band[:, SPOT:ON_DEMAND + 1, js, ks - lo]  # (row, kind, j)
        live = spot_ticks >= 0
        if not live.any():
            return
        over = over_at[first:last]
        finish = ((i + 1) * tick - over).tolist()
        cost = tick * (ks - discount * spot_ticks) - over * unused
        found = np.nonzero(live)
        for row, kind, j, c in zip(*(index.tolist() for index in found),
                                   cost[live].tolist()):
            f, known = finish[j], best[row]
            if f > deadline + TOLERANCE:
                continue
            if known is None or c < known[0] - TOLERANCE or (
                    c <= known[0] + TOLERANCE and f < known[1] - TOLERANCE):
                best[row] = (c, f, i, (SPOT, ON_DEMAND)[kind], first + j,
                             int(ks[j]), int(spot_ticks[row, kind, j]))

    # Each tick's band is needed again on the way back.  Where all of them fit in
    # _KEPT_BYTES they are kept; otherwise only every ``segment``-th, and the way back
    # computes a segment's bands again from the band that starts it (one more pass over
    # the ticks, in memory of about 2·√ticks bands).
    band_bytes = rows * 3 * size_j * (ticks - int(done_at[0]) + 2) * 4
    segment = ticks if ticks * band_bytes <= _KEPT_BYTES else max(1, math.isqrt(ticks))
    kept: dict[int, tuple[int, np.ndarray]] = {}
    previous = 0  # the band's first column a tick ago
    for i in range(ticks):
        previous, band = advance(i, previous, finishing)
        if segment == ticks or i % segment == 0:
            kept[i] = (previous, band)

    def bands_of(step: int) -> tuple[int, np.ndarray]:
        """Tick ``step``'s band: kept, or computed again with its segment."""
        if step not in kept:
            for old in [key for key in kept if key % segment]:
                del kept[old]  # the segment computed last: the way back has passed it
            start = step - step % segment
            lo, band = kept[start]
            value.fill(_MISSING)
            value[..., lo:lo + band.shape[3]] = band
            for i in range(start + 1, min(start + segment, ticks)):
                kept[i] = advance(i, lo)
                lo = kept[i][0]
        return kept[step]

    optima: list[tuple[np.ndarray, float, float] | None] = [None] * rows
    found = {row: item for row, item in enumerate(best) if item is not None}
    for row, kinds in _ways_back(bands_of, found, has_changeover).items():
        cost, finish = found[row][:2]
        optima[row] = (kinds, cost, finish)
    return optima


#: The most values (ticks × kinds × stints × instance ticks) the paper-mode optimum of one
#: window may compute: about half a minute on two cores.  Past it the optimum is refused
#: in one line saying what would fit.
OPTIMUM_VALUES = 2 * 10**10
#: The most memory :func:`_paper_optima` keeps its ticks' bands in, bytes, before it
#: keeps only some and computes the others again on the way back.
_KEPT_BYTES = 256 << 20


#: The value of a state no schedule reaches.
_MISSING = -(1 << 30)


def _step(value: np.ndarray, lo: int, hi: int, spot: np.ndarray, has_changeover: bool
          ) -> np.ndarray:
    """One tick of the optimum's recursion on the band ``lo <= k <= hi``, for each row.

    ``value[row, kind, j, k]`` is the most spot ticks of a schedule that is on ``kind``
    after ``k`` instance ticks in ``j`` stints (``_MISSING`` where none is); ``spot``,
    whether each row has spot in this tick.
    """
    idle = value[:, IDLE]
    out = np.full(value.shape[:1] + (3,) + value.shape[2:3] + (hi - lo + 1,), _MISSING,
                  dtype=value.dtype)
    np.maximum(np.maximum(idle[..., lo:hi + 1], value[:, SPOT, :, lo:hi + 1]),
               value[:, ON_DEMAND, :, lo:hi + 1], out=out[:, IDLE])
    # k - 1 for every k of the band; k = 0 has no predecessor on an instance
    start = max(lo, 1)
    before = slice(start - 1, hi)
    for kind, other in ((ON_DEMAND, SPOT), (SPOT, ON_DEMAND)):
        if kind == SPOT and not spot.any():
            continue
        stay = value[:, kind, :, before]
        fresh = np.maximum(idle[..., before], value[:, other, :, before])
        target = out[:, kind, :, start - lo:]
        if has_changeover:  # a new stint: (j - 1, k - 1) -> (j, k)
            target[:, 0] = stay[:, 0]
            np.maximum(stay[:, 1:], fresh[:, :-1], out=target[:, 1:])
        else:
            np.maximum(stay, fresh, out=target)
        if kind == SPOT:  # a spot tick more, where there is a schedule and spot
            target += target >= 0
            if not spot.all():
                target[~spot] = _MISSING
    return out


def _ways_back(bands_of: Callable[[int], tuple[int, np.ndarray]],
               found: dict[int, tuple], has_changeover: bool) -> dict[int, np.ndarray]:
    """Each found row's schedule, backwards through the ticks' values (any predecessor
    of equal value), all rows a tick at a time so that each band is read in turn from
    the last tick to the first.  ``found[row]`` ends with (last tick, kind, j, k, spot
    ticks) of the row's best finish."""
    def get(step: int, row: int, what: int, jj: int, kk: int) -> int:
        if step < 0:
            return 0 if (what, jj, kk) == (IDLE, 0, 0) else _MISSING
        lo, band = bands_of(step)
        if jj < 0 or not 0 <= kk - lo < band.shape[3]:
            return _MISSING
        return int(band[row, what, jj, kk - lo])

    where = {row: list(item[3:]) for row, item in found.items()}  # kind, j, k, worth
    kinds = {row: np.zeros(item[2] + 1, dtype=np.int8) for row, item in found.items()}
    for step in range(max((item[2] for item in found.values()), default=-1), -1, -1):
        for row, state in where.items():
            if step > found[row][2]:
                continue
            kind, j, k, worth = state
            kinds[row][step] = kind
            if kind == IDLE:
                state[0] = next(what for what in (IDLE, SPOT, ON_DEMAND)
                                if get(step - 1, row, what, j, k) == worth)
                continue
            worth -= 1 if kind == SPOT else 0
            if get(step - 1, row, kind, j, k - 1) != worth:
                other = ON_DEMAND if kind == SPOT else SPOT
                j = j - 1 if has_changeover else j
                kind = next(what for what in (IDLE, other)
                            if get(step - 1, row, what, j, k - 1) == worth)
            state[:] = [kind, j, k - 1, worth]
    return kinds


# --------------------------------------------------------------------------- policies

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
        to (:func:`~spotmath.traces.deadline_model.fit_availability`; none: its prior).
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
    job = _job(compute, deadline, changeover, discount, tick, billing)
    spot = np.asarray(spot, dtype=bool)
    checkpoints = _checkpoints(interval, checkpoint)
    return _run(job, spot, policy, None if history is None else np.asarray(history, bool),
                checkpoints=checkpoints)


def _checkpoints(interval, checkpoint) -> Checkpoints | None:
    """Checkpoint mode's settings, checked (None without an interval)."""
    if interval is None:
        return None
    interval, checkpoint = check_parameters(scalar=True, interval=interval,
                                            checkpoint_cost=checkpoint)
    return Checkpoints(float(interval), float(checkpoint))


def auto_interval(availability: Availability, checkpoint: float | str, nodes: int = 1
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
    rate = spell_end_rate(availability, nodes)
    if rate == 0:
        raise InputError(f"interval: no spell of spot ends in {availability.name}: no rate "
                         "to choose an interval for (give one)")
    return float(exact_interval(rate, checkpoint))


def resolve_interval(availability: Availability, interval: float | str | None,
                     checkpoint: float | str, nodes: int = 1) -> float | str | None:
    """``interval`` as given, or :func:`auto_interval` where it is ``'auto'``."""
    if isinstance(interval, str) and interval.strip() == "auto":
        return auto_interval(availability, checkpoint, nodes)
    return interval


def spell_end_rate(availability: Availability, nodes: int = 1) -> float:
    """Spells of spot that end (spot followed by none) per hour of spot; 0 if none do."""
    spot = availability.spot(nodes)
    ends = int(np.count_nonzero(spot[:-1] & ~spot[1:]))
    hours = float(np.count_nonzero(spot)) * availability.tick
    return ends / hours if ends else 0.0


def _run(job: _Job, spot: np.ndarray, policy: str, history: np.ndarray | None = None,
         known=None, checkpoints: Checkpoints | None = None,
         others: dict[str, Run | None] | None = None, optimum=None) -> Run | None:
    """One policy's run; ``others``: runs of other policies on the same job and spot,
    whose costs bound the optimum's search in checkpoint mode; ``optimum``: the
    omniscient schedule when it was found already (:func:`_paper_optima`)."""
    if not _feasible(job, checkpoints):
        return None

    def simulate(choose: Choice, safety_net: bool) -> Run:
        if checkpoints is None:
            return _simulate(job, spot, policy, choose, safety_net)
        return _simulate_checkpointed(job, checkpoints, spot, policy, choose, safety_net)

    if policy == "model":
        return simulate(_model(job, history, known, checkpoints), safety_net=True)
    if policy == "omniscient":
        bound = math.inf
        if checkpoints is not None:  # the online policies meet the deadline: the
            # cheapest schedule known to meet it bounds the search
            others = dict(others or {})
            for name, rule in (("greedy", _greedy), ("uniform-progress", _uniform_progress)):
                if others.get(name) is None:
                    others[name] = simulate(rule(job), safety_net=True)
            bound = min((run.cost for run in others.values() if run is not None and run.met),
                        default=math.inf)
        found = optimum or omniscient_schedule(spot, job.tick, job.compute, job.deadline,
                                               job.changeover, job.discount, job.billing,
                                               checkpoints=checkpoints, bound=bound)
        if found is None:  # on-demand from the start meets it: the search must find one
            raise RuntimeError("no optimal schedule found for a feasible deadline")
        return simulate(_following(found[0]), safety_net=False)
    choose = {"on-demand": _on_demand, "greedy": _greedy,
              "uniform-progress": _uniform_progress}[policy](job)
    return simulate(choose, safety_net=policy in ONLINE)


@fill_doc
def run_policies(availability: Availability, compute: float | str, deadline: float | str,
                 changeover: float | str, discount: float | str, *,
                 policies: Sequence[str] = POLICIES, start_tick: int = 0, nodes: int = 1,
                 billing: str = "tick", interval: float | str | None = None,
                 checkpoint: float | str = 0.0) -> dict[str, Run | None]:
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
    nodes : int, optional
        The gang: spot only in ticks with at least this many instances (default 1).
    billing : {'tick', 'second'}, optional
        [[job_billing]]
    interval : float, str or None, optional
        Checkpoint mode (as :func:`run_policy`); ``'auto'``: :func:`auto_interval`.
    checkpoint : float or str, optional
        The write's blocking time in checkpoint mode.

    Returns
    -------
    dict
        ``{policy: Run}`` (a Run is None for every policy when none can meet the
        deadline).

    Raises
    ------
    InputError
        A bad value, an unknown policy, or a start tick outside the trace.
    """
    return _run_policies(availability, compute, deadline, changeover, discount,
                         policies=policies, start_tick=start_tick, nodes=nodes,
                         billing=billing, interval=interval, checkpoint=checkpoint)


def _run_policies(availability, compute, deadline, changeover, discount, *, policies,
                  start_tick, nodes, billing, interval, checkpoint, known=None,
                  optimum=None) -> dict[str, Run | None]:
    """:func:`run_policies`, the model policy planning with ``known`` when given (the
    fit of the history before ``start_tick``, made already), the omniscient one following
    ``optimum`` when given (its schedule, found already)."""
    for policy in policies:
        check_choice("policy", policy, POLICIES)
    job = _job(compute, deadline, changeover, discount, availability.tick, billing)
    if isinstance(start_tick, bool) or not isinstance(start_tick, (int, np.integer)) \
            or not 0 <= start_tick < len(availability):
        raise InputError(f"start_tick: must be a whole number from 0 to "
                         f"{len(availability) - 1} (the trace has {len(availability)} "
                         f"ticks), got {start_tick!r}")
    interval = resolve_interval(availability, interval, checkpoint, nodes)
    checkpoints = _checkpoints(interval, checkpoint)
    spot = availability.spot(nodes)
    runs: dict[str, Run | None] = {}
    for policy in _optimum_last(policies):
        runs[policy] = _run(job, spot[start_tick:], policy, spot[:start_tick], known=known,
                            checkpoints=checkpoints, others=runs, optimum=optimum)
    return {policy: runs[policy] for policy in policies}


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
                   policies: Sequence[str] = POLICIES, nodes: int = 1,
                   billing: str = "tick", interval: float | str | None = None,
                   checkpoint: float | str = 0.0) -> Summary | None:
    """Every policy from ``starts`` start ticks drawn by :func:`start_ticks`.

    ``interval`` and ``checkpoint`` as :func:`run_policies` (``'auto'`` is chosen once,
    for the whole trace).  Returns None when no policy can meet the deadline.
    """
    ticks = start_ticks(availability, deadline, starts, seed)
    interval = resolve_interval(availability, interval, checkpoint, nodes)
    order, fits = range(len(ticks)), [None] * len(ticks)
    spot = availability.spot(nodes)
    if "model" in policies:  # starts whose histories fit alike in turn: one solve each
        fits = [fit_availability(spot[:tick]) for tick in ticks]
        order = sorted(order, key=lambda n: (fits[n].stay_up, fits[n].stay_down))
    optima = [None] * len(ticks)
    if "omniscient" in policies and interval is None:  # the paper's optima side by side
        job = _job(compute, deadline, changeover, discount, availability.tick, billing)
        if _feasible(job):
            length = math.ceil(job.deadline / job.tick - TOLERANCE)  # start_ticks' room
            windows = np.stack([spot[tick:tick + length] for tick in ticks])
            optima = _paper_optima(windows, job.tick, job.compute, job.deadline,
                                   job.changeover, job.discount, job.billing)
    found: dict[int, dict[str, Run | None]] = {}
    for n in order:  # the model policy plans with the fit made for the order
        found[n] = _run_policies(availability, compute, deadline, changeover, discount,
                                 policies=policies, start_tick=int(ticks[n]), nodes=nodes,
                                 billing=billing, interval=interval, checkpoint=checkpoint,
                                 known=fits[n], optimum=optima[n])
        if any(run is None for run in found[n].values()):
            return None
    runs = {policy: [found[n][policy] for n in range(len(ticks))] for policy in policies}
    return Summary(ticks, runs)


# --------------------------------------------------------------------------- the model form

@dataclass(frozen=True)
class Expected:
    """A policy's expected cost under an availability model, by seeded simulation.

    ``cost`` and ``cost_se`` (its standard error) in on-demand hours, ``cost_share`` the
    mean of cost over on-demand's, ``met`` the share of draws that met the deadline,
    ``spot_compute_share`` the share of the compute done on spot, ``changeovers`` and
    ``preemptions`` means per draw.
    """

    cost: float
    cost_se: float
    cost_share: float
    met: float
    spot_compute_share: float
    changeovers: float
    preemptions: float

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


def spell_model(tick: float | str, mtbf: float | str, outage: float | str, nodes: int = 1):
    """The two-state chain of a gang's spot: spells end at rate N/MTBF, outages at 1/outage.

    Parameters
    ----------
    tick : float or str
        The tick, hours or text such as ``'10min'``.
    mtbf : float or str
        One node's mean time between preemptions while spot is there.
    outage : float or str
        Mean time spot stays away once it has gone.
    nodes : int, optional
        The gang: any node's preemption ends its spell (rate N/MTBF).

    Returns
    -------
    spotmath.traces.deadline_model.AvailabilityModel
        ``stay_up = exp(−N·tick/MTBF)`` and ``stay_down = exp(−tick/outage)``: the chance a
        Poisson process of that rate does not fire within a tick.
    """
    (tick, outage) = check_parameters(scalar=True, tick=tick, hours=outage)
    rate = rate_from_mtbf(mtbf, "mtbf") * check_gang_size("nodes", nodes)
    return AvailabilityModel(stay_up=math.exp(-rate * tick),
                             stay_down=math.exp(-tick / outage), transitions=0)


def expected_costs(model, tick: float | str, compute: float | str, deadline: float | str,
                   changeover: float | str, discount: float | str, *, draws: int,
                   seed: int, policies: Sequence[str] = POLICIES,
                   billing: str = "tick") -> dict[str, Expected] | None:
    """Every policy's expected cost under ``model``, over ``draws`` seeded availabilities.

    Each draw is a history of spot drawn from the chain, starting in its long-run state
    (spot in the first tick with the chain's long-run share); the model policy plans with
    ``model`` itself (no fitting), the omniscient schedule sees each draw whole.

    Returns
    -------
    dict or None
        ``{policy: Expected}``; None when no policy can meet the deadline.

    Raises
    ------
    InputError
        A bad value (named).
    """
    for policy in policies:
        check_choice("policy", policy, POLICIES)
    draws = check_gang_size("draws", draws, what="a whole number of draws")
    seed = check_seed("seed", seed)
    job = _job(compute, deadline, changeover, discount, tick, billing)
    if not _feasible(job):
        return None
    ticks = math.ceil(job.deadline / job.tick - TOLERANCE) + 1
    rng = np.random.default_rng(seed)
    spots = []
    for _ in range(draws):
        first = bool(rng.random() < model.available_share)
        spots.append(markov_availability(model, ticks, int(rng.integers(2**32)), first=first))
    optima = [None] * draws
    if "omniscient" in policies:  # solved side by side, a few draws at a time
        optima = _paper_optima(np.array(spots), job.tick, job.compute, job.deadline,
                               job.changeover, job.discount, job.billing)
    runs: dict[str, list[Run]] = {policy: [] for policy in policies}
    for spot, optimum in zip(spots, optima):
        for policy in policies:
            runs[policy].append(_run(job, spot, policy, known=model, optimum=optimum))
    od_cost = _simulate(job, np.zeros(0, dtype=bool), "on-demand", _on_demand(job),
                        safety_net=False).cost
    result = {}
    for policy, done in runs.items():
        cost = np.array([run.cost for run in done])
        result[policy] = Expected(
            cost=float(cost.mean()),
            cost_se=float(cost.std(ddof=1) / math.sqrt(draws)) if draws > 1 else 0.0,
            cost_share=float(cost.mean() / od_cost),
            met=float(np.mean([run.met for run in done])),
            spot_compute_share=float(np.mean([run.spot_compute_h for run in done])
                                     / job.compute),
            changeovers=float(np.mean([run.changeovers for run in done])),
            preemptions=float(np.mean([run.preemptions for run in done])))
    return result


def model_expected_cost(model, tick: float | str, compute: float | str,
                        deadline: float | str, changeover: float | str,
                        discount: float | str, billing: str = "tick") -> float | None:
    """The model policy's own expectation of its cost from an idle start (on its grid).

    The start's availability is drawn from the chain's long-run share.  None when no
    policy can meet the deadline, or when on the model's grid of whole (planning) ticks
    the compute cannot be done by the deadline (a tick nearly as long as the deadline).
    """
    job = _job(compute, deadline, changeover, discount, tick, billing)
    if not _feasible(job):
        return None
    policy = model_policy(model, job.tick, job.compute, job.deadline, job.changeover,
                          job.discount, job.billing)
    left = math.floor(job.deadline / policy.tick + TOLERANCE)
    work = math.ceil(job.compute / policy.grid - TOLERANCE)
    share = model.available_share
    expected = (share * policy.expected(left, work, True)
                + (1 - share) * policy.expected(left, work, False))
    return expected if math.isfinite(expected) else None


def spot_pays_from(model, tick: float | str, compute: float | str,
                   changeover: float | str, discount: float | str,
                   billing: str = "tick", longest: float | None = None) -> float | None:
    """The shortest deadline at which the model policy expects to pay less than on-demand.

    Searched over whole ticks by bisection on :func:`model_expected_cost` (which does not
    grow with the deadline: more time leaves every earlier choice open), from
    changeover + compute up to ``longest`` (default three times that).

    Returns
    -------
    float or None
        Hours from the start; None if spot does not pay even at ``longest``.
    """
    job = _job(compute, compute, 0.0, discount, tick, billing)
    (changeover,) = check_parameters(scalar=True, changeover=changeover)
    on_demand = math.ceil((job.compute + changeover) / job.tick - TOLERANCE) * job.tick
    low = math.ceil((job.compute + changeover) / job.tick - TOLERANCE)
    high = math.ceil((longest or 3 * (job.compute + changeover)) / job.tick)

    def pays(ticks: int) -> bool:
        cost = model_expected_cost(model, job.tick, job.compute, ticks * job.tick,
                                   changeover, job.discount, billing)
        return cost is not None and cost < on_demand - 1e-9

    if not pays(high):
        return None
    if pays(low):
        return low * job.tick
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if pays(middle) else (middle, high)
    return high * job.tick
