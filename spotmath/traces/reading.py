"""Spot preemption traces: instance lifetimes read from a file, checked line by line.

A trace records when instances of a spot pool came up and when they were reclaimed.
spotmath reads two formats:

``spotmath`` (the documented format), a CSV file with the header ``time_s,node,event``:

* ``time_s``: seconds from the trace's start (a number >= 0);
* ``node``: an instance id (any text without a comma);
* ``event``: ``up`` (the instance starts running), ``preempted`` (it was reclaimed) or
  ``end`` (observation stopped while it was up: a censored lifetime).

  An instance with an ``up`` and no later event is censored at the trace's last time.
  Rows may come in any order: the reader sorts them by time.  At one time, for one node,
  an end comes before an up when the node is up (it was preempted and came up again) and
  after it when it is not (a lifetime shorter than the clock's tick); otherwise rows with
  equal times keep their order in the file.  A node may come up again after it was
  preempted (a new lifetime).  Empty lines are ignored, and so is a UTF-8 byte-order mark
  (Excel's "CSV UTF-8").  Times go up to :data:`MAX_SECONDS` (a million hours).

``bamboo``, as published with the Bamboo system (Thorpe et al., NSDI 2023): no header, rows
``milliseconds,add|remove,nodeId``; ``add`` is ``up`` and ``remove`` is ``preempted``.

Every problem (an unknown event, a ``preempted`` with no ``up`` before it, a second ``up``
while up, a time that is negative, too large or not a number, an empty file, a missing
header) raises :class:`~spotmath.inputs.InputError` with one line naming the file, the
line and what is wrong.  No row is skipped.  A plain file (ASCII, no quoting, no blanks) is
read with NumPy in one pass over whole columns (a million rows in under a second); any
other, and any with a problem, row by row: both readers give the same trace.

:func:`read_group_sizes` reads the other kind of published log, a pool's *size* over time
(the GCP logs published beside the Bamboo traces), which holds no lifetimes.

Times inside :class:`Trace` are hours, like everywhere in spotmath.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from ..inputs import MAX_HOURS, InputError, check_choice, file_error, parse_number
from ..model.calibration import observed_rate

__all__ = ["Trace", "GroupSizes", "FORMATS", "HEADER", "MAX_SECONDS", "read_trace",
           "write_trace", "trace_of_lives", "read_group_sizes", "read_file", "MAX_FILE_BYTES"]

#: The trace formats :func:`read_trace` reads (``run-log``: a training run's own log of
#: its lives, :mod:`spotmath.traces.run_log`).
FORMATS = ("spotmath", "bamboo", "run-log")
#: The header line of the documented format.
HEADER = "time_s,node,event"
EVENTS = ("up", "preempted", "end")
_BAMBOO_EVENTS = {"add": "up", "remove": "preempted"}
_BAMBOO_ROW = re.compile(r"^\s*\d+(\.\d*)?\s*,\s*(add|remove)\s*,")
#: Candidate ticks of a trace's clock, seconds: a trace whose times are all whole minutes
#: is taken to have been recorded once a minute.
_TICKS_S = (60.0, 1.0)


@dataclass(frozen=True)
class Trace:
    """Instance lifetimes of a spot pool.  Times in hours from the trace's time origin.

    One entry per lifetime: ``node`` its instance id, ``up`` when it came up, ``down`` when
    it was preempted (``preempted`` true) or when observation stopped (a censored
    lifetime).  ``start`` and ``end`` are the first and last times in the trace;
    ``resolution`` is the trace's clock tick in hours (0 when times are not on a tick).
    ``gang_size`` is N where each lifetime is a whole gang's (a training run's log of its
    lives, :mod:`spotmath.traces.run_log`), so that the rate is the gang's, Nλ; None for
    a trace of instances.
    """

    name: str
    node: tuple[str, ...]
    up: np.ndarray
    down: np.ndarray
    preempted: np.ndarray
    start: float
    end: float
    resolution: float
    gang_size: int | None = None

    @property
    def lifetimes(self) -> np.ndarray:
        """Length of every lifetime, hours (censored ones up to the censoring time)."""
        return self.down - self.up

    @property
    def preemptions(self) -> int:
        """Lifetimes ended by a preemption."""
        return int(np.count_nonzero(self.preempted))

    @property
    def censored(self) -> int:
        """Lifetimes still up when observation stopped."""
        return len(self.up) - self.preemptions

    @property
    def node_hours(self) -> float:
        """Hours that instances were up, summed over all lifetimes."""
        return float(self.lifetimes.sum())

    @property
    def preemption_rate(self) -> float:
        """Preemptions per node-hour up, m/(nτ) with n = 1 [observed-rate]; 0 if none.

        Raises :class:`InputError` when the lifetimes add up to no time at all (every
        instance preempted on the clock tick it came up): there is no rate then.
        """
        if self.node_hours == 0:
            raise InputError(f"{self.name}: its {len(self.up)} lifetimes add up to 0 hours "
                             "(every instance ended on the clock tick it came up): there is "
                             "no rate to fit")
        return float(observed_rate(self.preemptions, 1, self.node_hours))

    @property
    def nodes(self) -> int:
        """Distinct instance ids."""
        return len(set(self.node))

    @property
    def most_up(self) -> int:
        """The most instances up at one time (ups before downs at equal times)."""
        times = np.concatenate([self.up, self.down])
        steps = np.concatenate([np.ones(self.up.size), -np.ones(self.down.size)])
        order = np.lexsort((-steps, times))
        return int(np.max(np.cumsum(steps[order]), initial=0))


#: The largest time a trace may hold, seconds (:data:`~spotmath.inputs.MAX_HOURS`).
MAX_SECONDS = MAX_HOURS * 3600


def _time(name: str, line: int, text: str, scale: float) -> float:
    """A time field in seconds (``scale`` converts the file's unit to seconds)."""
    number = parse_number(text)
    value = math.nan if number is None else number * scale
    if not 0 <= value <= MAX_SECONDS:  # NaN fails too
        raise file_error(name, line, f"time must be a number from 0 to {MAX_SECONDS:g} s "
                                f"({MAX_HOURS:g} hours), got {text.strip()!r}")
    return value


#: The largest file a trace reader reads, bytes: a million-row trace has 30 MB.
MAX_FILE_BYTES = 256 << 20


def read_file(path: Path, what: str = "trace") -> bytes:
    """A data file's bytes: a regular file of at most :data:`MAX_FILE_BYTES`.

    Raises
    ------
    InputError
        One line naming the file: not a regular file (a device such as ``/dev/zero``
        would be read until memory runs out), too large, or unreadable.
    """
    try:
        if path.exists() and not path.is_file():  # a missing one: read_bytes says so
            raise file_error(path.name, None, f"not a regular file (a {what} is a file of text)")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise file_error(path.name, None, f"{size / 2**20:.0f} MiB, larger than the "
                                         f"{MAX_FILE_BYTES >> 20} MiB a {what} may have")
        return path.read_bytes()
    except OSError as error:
        raise file_error(path.name, None, f"cannot read the {what}: "
                                     f"{' '.join(str(error).split())}") from None


def _format_of(name: str, number: int, first_text: str, first_raw: str,
               trace_format: str | None) -> str:
    """The trace's format: given, or detected from its first line."""
    if trace_format is None:
        if first_text == HEADER:
            return "spotmath"
        if _BAMBOO_ROW.match(first_raw):
            return "bamboo"
        raise file_error(name, number, f"missing header {HEADER} (got {first_text[:40]!r}; a "
                                  "Bamboo trace has rows milliseconds,add|remove,nodeId)")
    return check_choice("trace_format", trace_format, FORMATS)


def _rows(name: str, raw: bytes, trace_format: str | None
          ) -> tuple[str, list[tuple[int, float, str, str]]]:
    """The file's format and its rows as (line number, seconds, node, event), checked one
    by one: the reference reader, and the one whose messages the user sees."""
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (Excel's "CSV UTF-8") is skipped
        lines = list(enumerate(csv.reader(io.StringIO(text, newline="")), start=1))
    except UnicodeDecodeError:
        raise file_error(name, None, "cannot read the trace: it is not UTF-8 text") from None
    except csv.Error as error:
        raise file_error(name, None, f"cannot read the trace: {' '.join(str(error).split())}") \
            from None
    lines = [(number, fields) for number, fields in lines if any(f.strip() for f in fields)]
    if not lines:
        raise file_error(name, None, f"empty file (expected the header {HEADER})")
    first_number, first = lines[0]
    first_text = ",".join(field.strip() for field in first)
    trace_format = _format_of(name, first_number, first_text, ",".join(first), trace_format)
    if trace_format == "spotmath":
        if first_text != HEADER:
            raise file_error(name, first_number, f"missing header {HEADER} "
                                            f"(got {first_text[:40]!r})")
        lines, scale, events, fields_text = lines[1:], 1.0, EVENTS, HEADER
    else:
        scale, events, fields_text = 1e-3, tuple(_BAMBOO_EVENTS), "milliseconds,add|remove,nodeId"
    rows = []
    for number, fields in lines:
        if len(fields) != 3:
            raise file_error(name, number, f"expected 3 fields {fields_text}, got {len(fields)}")
        time_text, node, event = (field.strip() for field in fields)
        if trace_format == "bamboo":  # milliseconds,add|remove,nodeId
            node, event = event, node
        seconds = _time(name, number, time_text, scale)
        if not node:
            raise file_error(name, number, "empty node id")
        if event not in events:
            raise file_error(name, number, f"unknown event {event!r} (use {', '.join(events)})")
        rows.append((number, seconds, node, _BAMBOO_EVENTS.get(event, event)))
    if not rows:
        raise file_error(name, None, "no events after the header")
    return trace_format, rows


def _resolution(seconds: np.ndarray) -> float:
    """The trace's clock tick in seconds: the largest candidate that divides every time."""
    for tick in _TICKS_S:
        ratio = seconds / tick
        if np.all(np.abs(ratio - np.round(ratio)) <= 1e-9 * np.maximum(1.0, ratio)):
            return tick
    return 0.0


def _in_time_order(rows: list[tuple[int, float, str, str]]
                   ) -> list[tuple[int, float, str, str]]:
    """The rows in time order; at one time, for one node, the order the rules give.

    Rows are taken by time (equal times in the file's order).  At one time, a node that
    is up then sees its ends before its ups (it was preempted and came up again); a node
    that is not up sees its ups first (a lifetime that ended as soon as it began).
    """
    ordered: list[tuple[int, float, str, str]] = []
    up: set[str] = set()
    rows = sorted(rows, key=lambda row: row[1])  # stable
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and rows[j][1] == rows[i][1]:
            j += 1
        group = rows[i:j]
        if len(group) > 1:
            def rank(row, up_before=frozenset(up)):
                ending = row[3] != "up"
                return (row[2] in up_before) != ending  # False sorts first
            group = sorted(group, key=rank)
        for row in group:
            if row[3] == "up":
                up.add(row[2])
            else:
                up.discard(row[2])
        ordered += group
        i = j
    return ordered


def _read_slowly(path: Path, raw: bytes, trace_format: str | None) -> Trace:
    """Read a trace row by row, with a message naming the line of the first problem."""
    _, rows = _rows(path.name, raw, trace_format)
    rows = _in_time_order(rows)
    name = path.name
    open_since: dict[str, tuple[float, int]] = {}
    lifetimes: list[tuple[float, float, bool, str, int, int]] = []
    for number, seconds, node, event in rows:
        if event == "up":
            if node in open_since:
                raise file_error(name, number, f"node {node!r} is up again at {seconds:g} s while "
                                          f"already up (since line {open_since[node][1]})")
            open_since[node] = (seconds, number)
            continue
        if node not in open_since:
            what = "is preempted" if event == "preempted" else "ends"
            raise file_error(name, number, f"node {node!r} {what} at {seconds:g} s but was not "
                                      "up (no 'up' for it before this time)")
        began, up_line = open_since.pop(node)
        lifetimes.append((began, seconds, event == "preempted", node, number, up_line))
    last = rows[-1][1]
    lifetimes += [(began, last, False, node, number, number)
                  for node, (began, number) in open_since.items()]
    # In the order the instances came up (ties: the order of their 'up' rows in the file),
    # never by how they ended: a gang choosing among equals must not see the future.
    lifetimes.sort(key=lambda item: (item[0], item[5]))
    seconds = np.array([row[1] for row in rows])
    up, down = (np.array([item[i] for item in lifetimes]) / 3600 for i in (0, 1))
    preempted = np.array([item[2] for item in lifetimes], dtype=bool)
    resolution = _resolution(seconds) / 3600
    zero = preempted & (down == up)
    if resolution == 0 and np.any(zero):
        _, seconds_, _, node, number, _ = lifetimes[int(np.argmax(zero))]
        raise file_error(name, number, f"node {node!r} is preempted at {seconds_:g} s, the time it "
                                  "came up, and the trace's times are not on a clock tick "
                                  "that would bound that lifetime")
    return Trace(name=name, node=tuple(item[3] for item in lifetimes), up=up, down=down,
                 preempted=preempted, start=float(seconds.min()) / 3600,
                 end=float(last) / 3600, resolution=resolution)


#: Bytes that send a file to the row-by-row reader: quotes (CSV quoting), blanks (fields
#: are stripped there) and NUL bytes; so do carriage returns that do not end a line.
_NOT_PLAIN = (b'"', b" ", b"\t", b"\x00")


def _plain_layout(raw: bytes, name: str, trace_format: str | None) -> tuple[str, int] | None:
    """The format and longest line of a plain file (see :func:`_read_quickly`), or None."""
    if not raw.isascii() or any(mark in raw for mark in _NOT_PLAIN) \
            or (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n")):
        return None
    text_end = raw.find(b"\n")
    first = raw[:text_end if text_end >= 0 else len(raw)].decode().strip()
    try:
        trace_format = _format_of(name, 1, first, first, trace_format)
    except InputError:
        return None
    if trace_format == "spotmath" and (first != HEADER or text_end < 0
                                        or raw.find(b",", text_end) < 0):  # no data rows
        return None
    breaks = np.flatnonzero(np.frombuffer(raw, np.uint8) == 10)
    return trace_format, max(int(np.diff(breaks, prepend=-1, append=len(raw)).max()), 1)


def _read_quickly(path: Path, trace_format: str | None) -> Trace | None:
    """Read a plain trace with NumPy, or None: then :func:`_read_slowly` reads it.

    Plain means ASCII, one header line (or a Bamboo first row), no quoting, no blanks.
    Every check of the row-by-row reader is made here on whole arrays; on any problem this
    returns None and the row-by-row reader finds the line and says what is wrong.  The two
    readers give the same trace (the tests compare them).
    """
    layout = _plain_layout(read_file(path), path.name, trace_format)
    if layout is None:
        return None
    trace_format, width = layout
    spotmath = trace_format == "spotmath"
    columns = [("time", "f8"), ("node", f"S{width}"), ("event", "S10")]
    if not spotmath:
        columns[1], columns[2] = columns[2], columns[1]
    try:
        table = np.loadtxt(path, delimiter=",", dtype=columns, comments=None,
                           skiprows=1 if spotmath else 0, ndmin=1, encoding="ascii")
    except (OSError, ValueError):
        return None
    if table.size == 0:
        return None
    seconds = table["time"] * (1.0 if spotmath else 1e-3)
    names = {b"up": 0, b"preempted": 1, b"end": 2} if spotmath else {b"add": 0, b"remove": 1}
    kind = np.full(table.size, -1, np.int8)
    for word, code in names.items():
        kind[table["event"] == word] = code
    nodes = table["node"].copy()
    del table
    if np.any(kind < 0) or np.any(nodes == b"") or not np.all((seconds >= 0)
                                                                & (seconds <= MAX_SECONDS)):
        return None
    # By node, then time, then the file's order; a tie of one node's ending and start at
    # one time is put in the order the rules give (see _in_time_order): each node's rows
    # must then alternate up, end, up, end, ... so that the k-th row of a node is an up
    # exactly when k is even, and a tie at an even k (the node not up) is up-then-end.
    order = np.lexsort((seconds, nodes))
    node_sorted = nodes[order]
    new_node = np.r_[True, node_sorted[1:] != node_sorted[:-1]]
    del node_sorted
    starts = np.flatnonzero(new_node)
    even = (np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))) \
        % 2 == 0
    del starts
    time_sorted = seconds[order]
    tie = np.flatnonzero(~new_node[1:] & (time_sorted[1:] == time_sorted[:-1]))
    del time_sorted
    if tie.size:
        if np.any(np.diff(tie) == 1):  # three rows of one node at one time
            return None
        i = tie[(kind[order[tie]] == 0) != even[tie]]
        order[i], order[i + 1] = order[i + 1], order[i]  # fancy indexing: both copies
    is_up = kind[order] == 0
    if np.any(is_up != even):
        return None
    del even
    ups = np.flatnonzero(is_up)
    following = ups + 1
    has_end = np.zeros(ups.size, bool)
    inside = following < order.size
    has_end[inside] = ~new_node[following[inside]]
    last = float(seconds.max())
    up_rows = order[ups]
    ends = order[following[has_end]]
    down = np.full(ups.size, last)
    down[has_end] = seconds[ends]
    preempted = np.zeros(ups.size, bool)
    preempted[has_end] = kind[ends] == 1
    del order, ups, following, inside, ends
    up = seconds[up_rows]
    resolution = _resolution(seconds) / 3600
    if resolution == 0 and np.any(preempted & (down == up)):
        return None
    arrange = np.lexsort((up_rows, up))  # by start, ties in the file's order of the ups
    node_names = nodes[up_rows[arrange]]
    del nodes
    return Trace(name=path.name, node=tuple(node_names.astype(str).tolist()),
                 up=up[arrange] / 3600, down=down[arrange] / 3600,
                 preempted=preempted[arrange], start=float(seconds.min()) / 3600,
                 end=last / 3600, resolution=resolution)


def read_trace(path: str | Path, trace_format: str | None = None) -> Trace:
    """Read a spot trace: lifetimes, in hours, checked row by row.

    A plain file (ASCII, no quoting, no spaces around fields) is read with NumPy in one
    pass over whole columns; any other file, and any file with a problem, row by row, so
    that a message names the line.  Both give the same trace.

    Parameters
    ----------
    path : str or Path
        The trace file.
    trace_format : {'spotmath', 'bamboo', 'run-log'}, optional
        The file's format; detected from the first line when not given (a file that
        begins with ``{`` is a run log, :func:`spotmath.traces.run_log.lives_trace`).

    Returns
    -------
    Trace
        One entry per lifetime, in the order the lifetimes started.

    Raises
    ------
    InputError
        One line naming the file, the line number and what is wrong.

    References
    ----------
    ``thorpe2023`` (the Bamboo traces).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "t.csv").write_text(
    ...     "time_s,node,event\\n0,a,up\\n0,b,up\\n3600,a,preempted\\n7200,b,end\\n")
    >>> trace = read_trace(folder / "t.csv")
    >>> trace.preemptions, trace.censored, trace.node_hours
    (1, 1, 3.0)
    """
    path = Path(path)
    if trace_format is not None:
        check_choice("trace_format", trace_format, FORMATS)
    if trace_format == "run-log" or (trace_format is None and _starts_an_object(path)):
        from .run_log import lives_trace, read_run_log

        return lives_trace(read_run_log(path), path.name)
    return _read_quickly(path, trace_format) or _read_slowly(path, read_file(path),
                                                             trace_format)


def _starts_an_object(path: Path) -> bool:
    """Whether a file begins with ``{`` (a JSON run log); False where it cannot be read,
    so that the reader says why."""
    try:
        with open(path, "rb") as handle:
            return handle.read(256).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
    except OSError:
        return False


def write_trace(trace: Trace, path: str | Path) -> Path:
    """Write ``trace`` in the documented format (``time_s,node,event``); return the path.

    Censored lifetimes get an ``end`` row; times are written in seconds with every digit,
    so :func:`read_trace` gives the trace back (to the rounding of hours to seconds).
    """
    path = Path(path)
    rows = []
    for node, up, down, preempted in zip(trace.node, trace.up, trace.down, trace.preempted):
        rows.append((up * 3600, node, "up"))
        rows.append((down * 3600, node, "preempted" if preempted else "end"))
    rows.sort(key=lambda row: row[0])
    with open(path, "w", newline="", encoding="utf-8") as handle:
        handle.write(HEADER + "\n")
        for seconds, node, event in rows:
            handle.write(f"{float(seconds)!r},{node},{event}\n")
    return path


def trace_of_lives(launches: Sequence[float], kills: Sequence[float],
                   name: str = "lives.csv") -> Trace:
    """One instance's lives as a trace: up at each launch, preempted at each kill.

    Read by the same rules as a file in the documented format with those rows, so a
    replay of it is the replay of that file.

    Parameters
    ----------
    launches : sequence of float
        When each life began, seconds, in order.
    kills : sequence of float
        When each life was killed, seconds: one per launch, or one fewer, the last life
        still running when observation stopped (a censored lifetime, of no length).
    name : str, optional
        The trace's name (default ``lives.csv``).

    Returns
    -------
    Trace

    Raises
    ------
    InputError
        A kill before its launch, or a count of kills that is not the launches' or one
        fewer.

    Examples
    --------
    >>> trace = trace_of_lives([0.0, 40.0, 100.0], [30.0, 90.0])
    >>> trace.preemptions, trace.censored, round(trace.node_hours * 3600, 6)
    (2, 1, 80.0)
    """
    if len(kills) not in (len(launches), len(launches) - 1):
        raise InputError(f"{name}: {len(kills)} kills for {len(launches)} launches (one "
                         "for each, or one fewer where the last life is still running)")
    rows = [HEADER]
    for number, launched in enumerate(launches):
        rows.append(f"{float(launched)!r},run,up")
        if number < len(kills):
            rows.append(f"{float(kills[number])!r},run,preempted")
    return _read_slowly(Path(name), ("\n".join(rows) + "\n").encode(), "spotmath")


@dataclass(frozen=True)
class GroupSizes:
    """A pool's size over time, one observation per change (times in hours).

    Read from a log of ``date, time, size`` lines in which each observation may be written
    several times; a run of consecutive lines with the same size is one observation, at the
    time of its first line.  Between observations the size is taken to hold.
    """

    name: str
    times: np.ndarray
    sizes: np.ndarray
    end: float
    longest_silence: float  # longest gap between two lines of the log, hours

    @property
    def node_hours(self) -> float:
        """Instance-hours in the pool, the size held from each observation to the next."""
        spans = np.diff(np.append(self.times, self.end))
        return float(np.sum(self.sizes * spans))

    @property
    def drops(self) -> np.ndarray:
        """Every decrease of the pool's size (instances lost between two observations)."""
        steps = np.diff(self.sizes)
        return -steps[steps < 0]

    @property
    def losses(self) -> int:
        """Instances lost in all decreases: a lower bound on the preemptions."""
        return int(self.drops.sum())


def read_group_sizes(path: str | Path) -> GroupSizes:
    """Read a pool's size log (``YYYY-MM-DD, HH:MM:SS, size`` per line).

    Raises
    ------
    InputError
        One line naming the file, the line and what is wrong: a malformed date or time, a
        size that is not a whole number >= 0, an empty file, or an observation that goes
        back in time.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "g.txt").write_text("2021-12-10, 13:00:00, 8\\n"
    ...     "2021-12-10, 13:01:00, 8\\n2021-12-10, 14:00:00, 5\\n2021-12-10, 15:00:00, 5\\n")
    >>> sizes = read_group_sizes(folder / "g.txt")
    >>> sizes.losses, sizes.node_hours
    (3, 13.0)
    """
    path = Path(path)
    name = path.name
    try:
        text = read_file(path, "log").decode("utf-8")
    except UnicodeDecodeError as error:
        raise file_error(name, None, f"cannot read the log: {' '.join(str(error).split())}") \
            from None
    observations: list[tuple[datetime, int, int]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(",")]
        if len(fields) != 3:
            raise file_error(name, number, f"expected 3 fields date, time, size, got {len(fields)}")
        try:
            moment = datetime.strptime(f"{fields[0]} {fields[1]}", "%Y-%m-%d %H:%M:%S")
        except ValueError:
            raise file_error(name, number, f"not a date and time: {fields[0]!r}, {fields[1]!r} "
                                      "(use YYYY-MM-DD, HH:MM:SS)") from None
        if not re.fullmatch(r"\d+", fields[2], re.ASCII):
            raise file_error(name, number, f"size must be a whole number >= 0, got {fields[2]!r}")
        observations.append((moment, int(fields[2]), number))
    if not observations:
        raise file_error(name, None, "empty file (expected lines date, time, size)")
    origin = observations[0][0]

    def hours(moment: datetime) -> float:
        return (moment - origin).total_seconds() / 3600

    runs = [observations[0]]
    for moment, size, number in observations[1:]:
        if size == runs[-1][1]:
            continue
        if moment < runs[-1][0]:
            raise file_error(name, number, f"the size changes to {size} at {moment:%H:%M:%S}, "
                                      f"before the change on line {runs[-1][2]}")
        runs.append((moment, size, number))
    stamps = np.array([hours(moment) for moment, _, _ in observations])
    return GroupSizes(name=name, times=np.array([hours(moment) for moment, _, _ in runs]),
                      sizes=np.array([size for _, size, _ in runs]),
                      end=float(stamps.max()),
                      longest_silence=float(np.max(np.diff(np.sort(stamps)), initial=0.0)))
