"""A training run's own log of its lives: the trace a job writes about itself.

:class:`spotmath.training.CheckpointSchedule` keeps this log in the run's output folder,
one JSON file, so that a relaunched job learns from the lives before it.  Each *life* is
one process run of the job, from its start to its end:

* ``start_s``: when it started, seconds since the epoch (``time.time()``);
* ``last_s`` and ``last_step``: the latest time the life was seen alive and the training
  step it had reached then (updated at each save and, between saves, every
  :data:`HEARTBEAT_S` seconds at most);
* ``saves``: each checkpoint written, ``{"at_s", "seconds", "step"}``: when the write
  ended, how long it blocked training and at which step;
* ``end``: ``"running"`` while it runs, ``"finished"`` when training ended by itself, and
  ``"preempted"`` once a later life finds it still ``"running"``: a life that did not say
  goodbye was killed, at about ``last_s`` (at most a heartbeat later).

The log is a trace of the *gang*: every life is the whole job, so its lives' rate is the
gang's, N times one node's (:func:`lives_trace`; ``spotmath fit`` and ``spotmath replay``
read a run log as they read any lifetime trace).  A file that is not such a log is
refused in one line naming it and what is wrong.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..inputs import InputError
from .reading import Trace, read_file

__all__ = ["RunLog", "Life", "Save", "FORMAT", "HEARTBEAT_S", "ENDS", "read_run_log",
           "write_run_log", "lives_trace"]

#: The ``format`` field of a run log.
FORMAT = "spotmath-run-log"
#: The longest a life goes unrecorded between saves, seconds.
HEARTBEAT_S = 10.0
#: How a life ends.
ENDS = ("running", "finished", "preempted")


@dataclass
class Save:
    """One checkpoint write: when it ended (seconds since the epoch), how long it blocked
    training (seconds) and the step it saved."""

    at_s: float
    seconds: float
    step: int


@dataclass
class Life:
    """One process run of the job (see the module's docstring)."""

    start_s: float
    last_s: float
    last_step: int = 0
    end: str = "running"
    saves: list[Save] = field(default_factory=list)

    @property
    def hours(self) -> float:
        """How long the life is known to have lasted, hours."""
        return (self.last_s - self.start_s) / 3600


@dataclass
class RunLog:
    """A job's lives, oldest first, and the gang size N they ran on."""

    gang_size: int
    lives: list[Life] = field(default_factory=list)

    @property
    def preemptions(self) -> int:
        """Lives that ended preempted."""
        return sum(life.end == "preempted" for life in self.lives)

    @property
    def gang_hours(self) -> float:
        """Hours the gang ran, over every life."""
        return sum(life.hours for life in self.lives)

    def to_json(self) -> dict:
        """The log as the file holds it."""
        return {"format": FORMAT, "version": 1, "gang_size": self.gang_size,
                "lives": [{"start_s": life.start_s, "last_s": life.last_s,
                           "last_step": life.last_step, "end": life.end,
                           "saves": [vars(save) for save in life.saves]}
                          for life in self.lives]}


def write_run_log(log: RunLog, path: str | Path) -> Path:
    """Write ``log`` to ``path`` whole or not at all (a temporary file beside it, then
    renamed over it), so that a kill mid-write leaves the previous log; return the path."""
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(log.to_json(), indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return path


def _number(where: str, value, name: str, minimum: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value) or value < minimum:
        raise InputError(f"{where}: {name} must be a number >= {minimum:g}, got {value!r}")
    return float(value)


def _count(where: str, value, name: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"{where}: {name} must be a whole number >= {minimum}, "
                         f"got {value!r}")
    return value


def _life(where: str, entry) -> Life:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: a life must be an object, got {entry!r}")
    missing = {"start_s", "last_s", "end", "saves"} - set(entry)
    if missing:
        raise InputError(f"{where}: missing {', '.join(sorted(missing))}")
    start = _number(where, entry["start_s"], "start_s")
    last = _number(where, entry["last_s"], "last_s")
    if last < start:
        raise InputError(f"{where}: last_s {last:g} is before start_s {start:g}")
    if entry["end"] not in ENDS:
        raise InputError(f"{where}: end must be one of {', '.join(ENDS)}, "
                         f"got {entry['end']!r}")
    if not isinstance(entry["saves"], list):
        raise InputError(f"{where}: saves must be a list")
    saves = []
    for number, save in enumerate(entry["saves"], start=1):
        here = f"{where}, save {number}"
        if not isinstance(save, dict) or set(save) != {"at_s", "seconds", "step"}:
            raise InputError(f"{here}: a save holds at_s, seconds and step, got {save!r}")
        saves.append(Save(_number(here, save["at_s"], "at_s"),
                          _number(here, save["seconds"], "seconds"),
                          _count(here, save["step"], "step")))
    return Life(start, last, _count(where, entry.get("last_step", 0), "last_step"),
                entry["end"], saves)


def read_run_log(path: str | Path) -> RunLog:
    """Read a run log, each field checked.

    Parameters
    ----------
    path : str or Path
        The log, as :func:`write_run_log` writes it.

    Returns
    -------
    RunLog

    Raises
    ------
    InputError
        One line naming the file (and the life) and what is wrong: not JSON, not a run
        log, a field missing or out of range, lives out of order.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "log.json"
    >>> log = RunLog(8, [Life(0.0, 3600.0, 120, "preempted"), Life(3700.0, 5500.0)])
    >>> read_run_log(write_run_log(log, path)) == log
    True
    """
    path = Path(path)
    name = path.name
    try:
        entry = json.loads(read_file(path, "run log").decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{name}: not a run log (not JSON: {error})") from None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT:
        raise InputError(f"{name}: not a run log (no \"format\": \"{FORMAT}\")")
    if entry.get("version") != 1:
        raise InputError(f"{name}: run log version {entry.get('version')!r} is not known "
                         "(known: 1)")
    gang_size = _count(name, entry.get("gang_size"), "gang_size", minimum=1)
    lives = entry.get("lives")
    if not isinstance(lives, list):
        raise InputError(f"{name}: lives must be a list")
    read = [_life(f"{name}, life {number}", life)
            for number, life in enumerate(lives, start=1)]
    for number, (before, after) in enumerate(zip(read, read[1:]), start=2):
        if after.start_s < before.last_s:
            raise InputError(f"{name}, life {number}: starts at {after.start_s:g}, before "
                             f"the life before it was last seen ({before.last_s:g})")
    return RunLog(gang_size, read)


def lives_trace(log: RunLog, name: str = "run log") -> Trace:
    """The log's lives as a lifetime trace of the gang: each life up at its start and
    preempted at its last sign of life, or censored there (still running, or finished).

    Times are from the first life's start.  Each life is its own instance (``life-1``,
    ``life-2`` …), so the trace's rate is the gang's per hour it ran, N times one node's
    :math:`\\lambda`.  The trace's clock tick is the heartbeat (:data:`HEARTBEAT_S`): a
    life's end is known to within it, and a life killed before its first step lasted no
    time the log could see.

    Parameters
    ----------
    log : RunLog
    name : str, optional
        The trace's name.

    Returns
    -------
    Trace

    Raises
    ------
    InputError
        A log with no lives.

    Examples
    --------
    >>> log = RunLog(4, [Life(0.0, 7200.0, 10, "preempted"), Life(7300.0, 9100.0)])
    >>> trace = lives_trace(log)
    >>> trace.preemptions, trace.censored, trace.node_hours, trace.gang_size
    (1, 1, 2.5, 4)
    """
    if not log.lives:
        raise InputError(f"{name}: a run log with no lives holds no lifetimes")
    origin = log.lives[0].start_s
    up = np.array([life.start_s - origin for life in log.lives]) / 3600
    down = np.array([life.last_s - origin for life in log.lives]) / 3600
    return Trace(name, tuple(f"life-{number}" for number in range(1, len(up) + 1)), up,
                 down, np.array([life.end == "preempted" for life in log.lives]), 0.0,
                 float(down.max()), HEARTBEAT_S / 3600, log.gang_size)
