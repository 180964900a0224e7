"""The book's interval inside a training loop: save on time, at the exact optimum for the
gang's preemption rate and the write the loop measures.

A loop asks :meth:`CheckpointSchedule.should_save` after every step.  The answer comes from
the library's exact optimum (:func:`spotmath.optimal_interval`) for the gang's rate Nλ and
the checkpoint cost C, both kept up to date as the job runs:

* C is measured: every write's blocking part is timed as it happens, and C is the median
  of the last :data:`RECENT_WRITES` (the job's first write, which pays for warming up, is
  left out once there is another);
* λ is learned from the job's own lives (:mod:`spotmath.traces.run_log`): a relaunch that
  finds the previous life still ``running`` counts a preemption of the gang, and λ is the
  mean of a Gamma posterior, the prior's rate weighted as :data:`PRIOR_PREEMPTIONS`
  preemptions' worth of evidence, (λ₀ w + k)/(w + N H) for k preemptions in H hours the
  gang ran, w = PRIOR_PREEMPTIONS/λ₀ node-hours.

A notice (SIGTERM ahead of the kill, :meth:`CheckpointSchedule.notice_received`) makes the
next answer "save now" when the notice is longer than C, and the interval is then the
exact optimum for the notice's share of preemptions.  In a multi-process run every rank
must decide the same (a collective save that one rank skips hangs the others): rank 0
decides, and ``broadcast`` carries its answer to the others.  The clock is injectable,
so the tests need no waiting.  Frameworks stay outside this module:
:mod:`spotmath.training.huggingface` and :mod:`spotmath.training.lightning` adapt it.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from ..inputs import InputError, check_parameters, rate_from_mtbf
from ..model.numerics import optimal_interval, waste_floor, waste_fraction
from ..traces.reading import read_trace
from ..traces.run_log import (
    HEARTBEAT_S,
    Life,
    RunLog,
    Save,
    read_run_log,
    write_run_log,
)

__all__ = ["CheckpointSchedule", "RUN_LOG_NAME", "RECENT_WRITES", "PRIOR_PREEMPTIONS",
           "MIN_WRITE_S", "last_saved_step"]

#: The run log's file name in the output folder.
RUN_LOG_NAME = "spotmath-run-log.json"
#: How many of the latest writes C is the median of.
RECENT_WRITES = 5
#: The prior's weight: as much evidence as this many preemptions.
PRIOR_PREEMPTIONS = 5.0
#: The shortest write C is taken as, seconds: a write the clock saw take no time has no
#: optimum (write continuously), so it counts as a millisecond.
MIN_WRITE_S = 1e-3


def last_saved_step(output_dir: str | Path) -> int | None:
    """The step of the last write the run log records as finished (None: none, or no log).

    A kill during a write leaves a checkpoint the framework may take for the newest; the
    log records a write only once it has returned, so a relaunch resumes from this one.

    Examples
    --------
    >>> import tempfile
    >>> from spotmath.traces.run_log import RunLog, Life, Save, write_run_log
    >>> folder = tempfile.mkdtemp()
    >>> log = RunLog(1, [Life(0.0, 90.0, 40, "preempted", [Save(50.0, 2.0, 30)])])
    >>> _ = write_run_log(log, Path(folder) / RUN_LOG_NAME)
    >>> last_saved_step(folder)
    30
    """
    path = Path(output_dir) / RUN_LOG_NAME
    if not path.exists():
        return None
    saves = [save.step for life in read_run_log(path).lives for save in life.saves]
    return max(saves, default=None)


class CheckpointSchedule:
    """When a training loop should save (see the module's docstring).

    Parameters
    ----------
    output_dir : str or Path
        The run's output folder; the run log is kept there (:data:`RUN_LOG_NAME`).
    preemption_rate : float or str, optional
        λ₀, preemptions per node-hour ('0.25/h'), the prior; or give ``mtbf`` or ``trace``.
    mtbf : float or str, optional
        One node's mean time between preemptions ('4h'), the prior as 1/λ₀.
    trace : str or Path, optional
        A lifetime trace of the pool (any format :func:`~spotmath.traces.read_trace`
        reads, a run log included): λ₀ is its rate per node-hour, weighted by default
        as the preemptions it holds.
    gang_size : int, optional
        N, nodes the job needs all of at once (default 1).
    checkpoint_cost : float or str, optional
        C before the first write is timed, hours or '1min' (default 1 minute).
    restart_time : float or str, optional
        R, hours from a preemption to training again, for the expected waste (default 0).
    notice : float or str, optional
        The warning before a preemption, hours or '2min' (default 0: none).
    notice_share : float, optional
        The share of preemptions the notice comes before (default 1 with a notice).
    persist : float or str, optional
        With asynchronous writes, the hours a write takes to become durable after its
        blocking part (default 0: blocking writes).
    prior_preemptions : float, optional
        The prior's weight in preemptions (default :data:`PRIOR_PREEMPTIONS`, or a
        trace's preemptions).
    rank : int, optional
        This process's rank (default 0): only rank 0 decides and keeps the log.
    broadcast : callable, optional
        ``broadcast(answer) -> answer``: rank 0's answer for every rank.
    clock : callable, optional
        Seconds since the epoch (default :func:`time.time`).

    Raises
    ------
    InputError
        A bad value, a trace that cannot be read, or not exactly one of
        ``preemption_rate``, ``mtbf`` and ``trace``.

    Examples
    --------
    >>> import tempfile
    >>> now = [0.0]
    >>> schedule = CheckpointSchedule(tempfile.mkdtemp(), mtbf="4h", gang_size=8,
    ...                               checkpoint_cost="30s", clock=lambda: now[0])
    >>> schedule.start()
    >>> round(schedule.interval_h * 60, 2)  # the exact optimum for 8/(4 h) and 30 s
    5.15
    >>> now[0] = 300.0; schedule.should_save(10)
    False
    >>> now[0] = 320.0; schedule.should_save(11)
    True
    """

    def __init__(self, output_dir: str | Path, *, preemption_rate=None, mtbf=None,
                 trace: str | Path | None = None, gang_size: int = 1,
                 checkpoint_cost="1min", restart_time=0.0, notice=0.0,
                 notice_share: float | None = None, persist=0.0,
                 prior_preemptions: float | None = None, rank: int = 0,
                 broadcast: Callable[[bool], bool] | None = None,
                 clock: Callable[[], float] = time.time):
        if sum(given is not None for given in (preemption_rate, mtbf, trace)) != 1:
            raise InputError("preemption_rate: give the prior as preemption_rate, as mtbf or "
                             "as a trace, one of them")
        if trace is not None:  # the trace's rate, weighted as the preemptions it saw
            fitted = read_trace(trace)
            prior = fitted.preemption_rate / (fitted.gang_size or 1)
            if prior_preemptions is None:
                prior_preemptions = max(fitted.preemptions, 1)
        else:
            prior = rate_from_mtbf(mtbf) if mtbf is not None else \
                check_parameters(scalar=True, preemption_rate=preemption_rate)[0]
        if prior_preemptions is None:
            prior_preemptions = PRIOR_PREEMPTIONS
        if prior <= 0:
            raise InputError("preemption_rate: the prior must be above 0 (a pool never "
                             "preempted needs no schedule)")
        gang_size, self._guess, self.restart_time, self.notice, self.persist = \
            check_parameters(scalar=True, gang_size=gang_size, checkpoint_cost=checkpoint_cost,
                             restart_time=restart_time, notice=notice, persist=persist)
        share = (1.0 if self.notice > 0 else 0.0) if notice_share is None else notice_share
        (self.notice_share,) = check_parameters(notice_share=share)
        (weight,) = check_parameters(prior_preemptions=prior_preemptions)
        self.gang_size, self.prior_rate, self.prior_preemptions = gang_size, prior, weight
        self.path = Path(output_dir) / RUN_LOG_NAME
        self.rank, self._broadcast, self._clock = rank, broadcast, clock
        self.log = RunLog(gang_size)
        self._since = self._seen = 0.0  # the end of the last write, the last heartbeat
        self._writing: float | None = None
        self._noticed = False
        self._interval_h = self.interval_h  # kept by _write_log as the log changes

    # -- the run log --------------------------------------------------------------------

    @property
    def life(self) -> Life:
        """The life now running."""
        return self.log.lives[-1]

    def start(self, step: int = 0) -> None:
        """Begin a life: read the log (a life still ``running`` there was preempted), add
        this one, and write it (rank 0)."""
        now = self._clock()
        if self.path.exists():
            found = read_run_log(self.path)
            if found.gang_size != self.gang_size:
                raise InputError(f"gang_size: {self.path.name} was kept for a gang of "
                                 f"{found.gang_size}, this run is a gang of {self.gang_size}")
            self.log = found
            for life in self.log.lives:
                if life.end == "running":
                    life.end = "preempted"
        self.log.lives.append(Life(now, now, step))
        self._since = self._seen = now
        self._write_log()

    def finish(self, step: int) -> None:
        """End the life: training ended by itself."""
        self.life.end, self.life.last_s, self.life.last_step = "finished", self._clock(), step
        self._write_log()

    def _write_log(self) -> None:
        """Keep the log (rank 0), and the interval it implies: C and λ change only with
        the log, so :meth:`should_save` need not solve for the optimum at every step."""
        self._interval_h = self.interval_h
        if self.rank == 0:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_run_log(self.log, self.path)

    # -- what it has learned -------------------------------------------------------------

    @property
    def checkpoint_cost_h(self) -> float:
        """C, hours: the median of the last writes timed (the job's first left out once
        there is another; at least :data:`MIN_WRITE_S`), or the guess before any."""
        seconds = [save.seconds for life in self.log.lives for save in life.saves]
        if len(seconds) > 1:
            seconds = seconds[1:]
        if not seconds:
            return self._guess
        return max(statistics.median(seconds[-RECENT_WRITES:]), MIN_WRITE_S) / 3600

    @property
    def preemption_rate(self) -> float:
        """λ per node-hour: the Gamma posterior's mean from the prior and the lives."""
        weight = self.prior_preemptions / self.prior_rate  # node-hours
        exposure = self.gang_size * self.log.gang_hours
        return (self.prior_preemptions + self.log.preemptions) / (weight + exposure)

    @property
    def _notice_share(self) -> float:
        """The share of preemptions whose notice fits a write (0 where C outlasts it)."""
        return self.notice_share if self.notice >= self.checkpoint_cost_h > 0 else 0.0

    @property
    def interval_h(self) -> float:
        """T, hours of training between writes: the exact optimum for Nλ and C (infinite:
        write on notice only)."""
        return float(optimal_interval(self.gang_size * self.preemption_rate,
                                      self.checkpoint_cost_h,
                                      notice_share=self._notice_share,
                                      notice_write=self.checkpoint_cost_h,
                                      persist=self.persist))

    @property
    def expected_waste(self) -> float:
        """The exact model's waste at :attr:`interval_h`, share of wall time (with no
        periodic write, the floor of writing on notice only)."""
        rate, interval = self.gang_size * self.preemption_rate, self.interval_h
        if math.isinf(interval):
            return float(waste_floor(rate, self.restart_time, notice_share=self._notice_share,
                                     notice_write=self.checkpoint_cost_h))
        return float(waste_fraction(rate, interval, self.checkpoint_cost_h, self.restart_time,
                                    notice_share=self._notice_share,
                                    notice_write=self.checkpoint_cost_h,
                                    persist=self.persist))

    def summary(self) -> dict:
        """What a loop's logs show: the interval and C in seconds, λ per node-hour, the
        expected waste, and the preemptions seen."""
        return {"spotmath/interval_s": self.interval_h * 3600,
                "spotmath/checkpoint_cost_s": self.checkpoint_cost_h * 3600,
                "spotmath/preemption_rate_per_h": self.preemption_rate,
                "spotmath/expected_waste": self.expected_waste,
                "spotmath/preemptions": self.log.preemptions}

    # -- the loop's questions ------------------------------------------------------------

    @property
    def notice_pending(self) -> bool:
        """Whether a notice came that no write has answered yet."""
        return self._noticed

    def notice_received(self) -> None:
        """A preemption was announced (SIGTERM): the next answer saves at once if the
        notice is longer than C."""
        self._noticed = True

    def should_save(self, step: int) -> bool:
        """Whether to save after ``step``: the training since the last write (or since
        the life began) has reached the interval, or a notice came that a write fits in.
        Rank 0 decides; with ``broadcast`` every rank gets its answer."""
        answer = False
        if self.rank == 0:
            now = self._clock()
            noticed = self._noticed and self._notice_share > 0
            answer = noticed or (now - self._since) / 3600 >= self._interval_h
            if now - self._seen >= HEARTBEAT_S and not answer:
                self._seen, self.life.last_s, self.life.last_step = now, now, step
                self._write_log()
        if self._broadcast is not None:
            answer = bool(self._broadcast(answer))
        return answer

    def write_started(self) -> None:
        """The loop begins a write: time its blocking part from here."""
        self._writing = self._clock()

    def write_ended(self, step: int, started: float | None = None) -> None:
        """The write's blocking part ended: record it (``started``, seconds since the
        epoch, where the loop timed the start itself)."""
        now = self._clock()
        began = started if started is not None else self._writing
        if began is None:
            raise InputError("write_ended: no write was started (call write_started first)")
        self._writing, self._noticed = None, False
        self.life.saves.append(Save(now, max(now - began, 0.0), step))
        self._since, self._seen, self.life.last_s, self.life.last_step = now, now, now, step
        self._write_log()
