"""Availability traces: spot instances available in each tick.

:func:`read_availability` reads the six formats of :data:`AVAILABILITY_FORMATS`: the JSON
traces published with Can't Be Late (``{"metadata": {"gap_seconds": g}, "data": [...]}``,
one value per tick: "the number of available instances at a specific tick", as the
spot-traces repository defines it [skytraces]_, so 0 means no spot and a gang of ``N``
has spot in a tick whose value is at least ``N``; the paper's simulator negates its own
copies, a convention of that code, not of the data), a CSV file ``time_s,available``
(instances available in the tick, one row per tick, evenly spaced), the same traces as
the SkyNomad artifact republishes them [skynomad]_ (``date,availability``, one probe a row
about 195 s apart, 1 = available; each row one tick of the median gap, as Can't Be Late's
JSON holds the same values one a tick), the group-size logs
of :func:`~spotmath.traces.read_group_sizes` (the fewest instances in the pool during
each tick) and the instance traces of :func:`~spotmath.traces.read_trace` in either of
its formats, ``spotmath`` and ``bamboo`` (the instances up for the whole of each tick).

References
----------
.. [skytraces] SkyPilot, "Spot Traces" (the data of Wu et al., "Can't Be Late", NSDI
   2024), README, "Data Description": https://github.com/skypilot-org/spot-traces
.. [skynomad] The SkyNomad artifact (NSDI '27), ``data/real/availability/2023-02-15/
   processed/``, Apache-2.0: https://github.com/andylizf/skynomad-artifact
"""

from __future__ import annotations

import datetime
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...inputs import (
    InputError,
    check_choice,
    check_gang_size,
    check_parameters,
    file_error,
    parse_number,
)
from ..reading import read_file, read_group_sizes, read_trace
from .stints import TOLERANCE

__all__ = ["AVAILABILITY_FORMATS", "DEFAULT_TICK", "CSV_HEADER", "PROBES_HEADER",
           "MOST_GAP_TICKS", "MAX_TRACE_TICKS",
           "Availability", "read_availability", "availability_from_trace",
           "availability_from_sizes"]

#: The availability formats :func:`read_availability` reads.
AVAILABILITY_FORMATS = ("cbl-json", "csv", "probes", "group-sizes", "spotmath", "bamboo")
#: The header of a file of probes, as the SkyNomad artifact publishes them.
PROBES_HEADER = "date,availability"
#: A gap between probes longer than this many ticks (median gaps) is refused: the probing
#: stopped, and no value of the file says what spot did meanwhile.
MOST_GAP_TICKS = 2.0
#: The tick instance traces are cut into when none is given, hours (10 minutes).
DEFAULT_TICK = 1 / 6
#: The CSV header of :func:`read_availability`'s own format.
CSV_HEADER = "time_s,available"


@dataclass(frozen=True)
class Availability:
    """Spot instances available in each tick of a trace.

    ``counts[i]`` instances can run for the whole of tick ``i``, which starts ``i * tick``
    hours after the trace's start.  ``own_tick``: the file sets the tick (a Can't Be Late
    JSON trace, the CSV format, probes), rather than a reader cutting instances into
    ticks.  ``gaps``: for probes, the shortest and longest gap between them, seconds (each
    row is taken as one tick of the median gap).  ``clock``: for probes, the UTC time at
    which each tick begins, hours since 1970-01-01 (the probe's own date; the ticks
    read as the median gap drift from it by up to a few hours over two months); None
    where the file gives no dates.
    """

    name: str
    tick: float
    counts: np.ndarray
    own_tick: bool = False
    gaps: tuple[float, float] | None = None
    clock: np.ndarray | None = None

    def hours_of(self, ticks: np.ndarray) -> np.ndarray:
        """The time of each of ``ticks`` (indices) for a policy that plans by the clock:
        UTC hours since 1970-01-01 where the file dates its rows (:attr:`clock`), else
        hours since the trace's start."""
        ticks = np.asarray(ticks)
        if self.clock is None:
            return ticks * self.tick
        last = self.clock.size - 1  # past the end, the tick runs on from the last date
        return self.clock[np.minimum(ticks, last)] + np.maximum(ticks - last, 0) * self.tick

    def __len__(self) -> int:
        return len(self.counts)

    @property
    def hours(self) -> float:
        """The trace's length, hours."""
        return len(self.counts) * self.tick

    def spot(self, gang_size: int = 1) -> np.ndarray:
        """Ticks in which a gang of ``gang_size`` can run on spot (at least that many up)."""
        return self.counts >= check_gang_size("gang_size", gang_size)

    def check_gang(self, gang_size: int) -> int:
        """``gang_size``, where the trace has that many available in some tick.

        Raises
        ------
        InputError
            A gang larger than the trace ever holds: it would never run on spot (every
            policy would run on on-demand throughout, which is no question of policy).
        """
        gang_size = check_gang_size("gang_size", gang_size)
        most = int(self.counts.max()) if self.counts.size else 0
        if gang_size > most:
            raise InputError(f"gang_size: a gang of {gang_size} never has spot on {self.name}: "
                             f"at most {most} instance{'s' * (most != 1)} available in "
                             f"any tick")
        return gang_size


def _read_cbl_json(path: Path, text: str) -> Availability:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise file_error(path.name, error.lineno, f"not JSON: {error.msg}") from None
    if not isinstance(document, dict) or not isinstance(document.get("metadata"), dict) \
            or "data" not in document:
        raise file_error(path.name, None, 'expected a JSON object {"metadata": {"gap_seconds": '
                                     '...}, "data": [...]} (a Can\'t Be Late trace)')
    gap = document["metadata"].get("gap_seconds")
    if isinstance(gap, bool) or not isinstance(gap, (int, float)) or not 0 < gap < math.inf:
        raise file_error(path.name, None, f"metadata.gap_seconds must be a number of seconds "
                                     f"> 0, got {gap!r}")
    data = document["data"]
    if not isinstance(data, list) or not data:
        raise file_error(path.name, None, "data must be a non-empty list, one value per tick")
    for index, value in enumerate(data):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**62:
            raise file_error(path.name, None, f"data[{index}] must be the number of instances "
                                         f"available in the tick, a whole number >= 0 "
                                         f"(0 = no spot), got {value!r}")
    return Availability(path.name, gap / 3600, np.asarray(data, dtype=np.int64),
                        own_tick=True)


def _two_fields(path: Path, text: str, header: str):
    """(line number, first field, second field) of each row after ``header`` (blank rows
    skipped); a missing header or a row without exactly two fields refused."""
    lines = text.splitlines()
    if not lines or lines[0].strip().replace(" ", "") != header:
        raise file_error(path.name, 1, f"expected the header {header!r}")
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != 2:
            raise file_error(path.name, number, f"expected 2 fields ({header}), got "
                                                f"{len(fields)}")
        yield number, fields[0], fields[1]


def _read_csv(path: Path, text: str) -> Availability:
    times, counts, numbers = [], [], []
    for number, first, second in _two_fields(path, text, CSV_HEADER):
        seconds = parse_number(first)
        if seconds is None or not 0 <= seconds <= 3.6e9:
            raise file_error(path.name, number, f"time_s must be a number of seconds from 0 to "
                                           f"3.6e9, got {first.strip()!r}")
        value = second.strip()
        count = int(value) if re.fullmatch(r"\d{1,18}", value, re.ASCII) else -1
        if count < 0:
            raise file_error(path.name, number, f"available must be a whole number >= 0, got "
                                           f"{value!r}")
        times.append(seconds)
        counts.append(count)
        numbers.append(number)
    if len(times) < 2:
        raise file_error(path.name, None, "needs at least two rows (the spacing is the tick)")
    tick = times[1] - times[0]
    if tick <= 0:
        raise file_error(path.name, numbers[1], "times must increase")
    for previous, seconds, number in zip(times, times[1:], numbers[1:]):
        if abs(seconds - previous - tick) > 1e-6 * max(1.0, tick):
            raise file_error(path.name, number, f"rows must be evenly spaced, one per tick of "
                                           f"{tick:g} s (set by the first two rows); this "
                                           f"one is {seconds - previous:g} s after the last")
    return Availability(path.name, tick / 3600, np.asarray(counts, dtype=np.int64),
                        own_tick=True)


def _read_probes(path: Path, text: str) -> Availability:
    """``date,availability`` rows: a probe's UTC time and the instances it found running
    (1 = available); each row one tick of the median gap, a gap over
    :data:`MOST_GAP_TICKS` ticks refused."""
    times, counts, numbers = [], [], []
    for number, first, second in _two_fields(path, text, PROBES_HEADER):
        try:
            when = datetime.datetime.strptime(first.strip(), "%Y-%m-%d %H:%M:%S")
        except ValueError:
            raise file_error(path.name, number, f"date must be 'YYYY-MM-DD HH:MM:SS' (UTC), "
                                                f"got {first.strip()!r}") from None
        value = second.strip()
        if not re.fullmatch(r"\d{1,18}", value, re.ASCII):
            raise file_error(path.name, number, f"availability must be a whole number >= 0 "
                                                f"(1 = available, 0 = none), got {value!r}")
        times.append(when.replace(tzinfo=datetime.timezone.utc).timestamp())
        counts.append(int(value))
        numbers.append(number)
    if len(times) < 2:
        raise file_error(path.name, None, "needs at least two rows (the gaps set the tick)")
    gaps = np.diff(np.array(times))
    if np.any(gaps <= 0):
        at = int(np.flatnonzero(gaps <= 0)[0]) + 1
        raise file_error(path.name, numbers[at], "dates must increase")
    tick = float(np.median(gaps))
    if np.any(gaps > MOST_GAP_TICKS * tick):
        at = int(np.flatnonzero(gaps > MOST_GAP_TICKS * tick)[0]) + 1
        raise file_error(path.name, numbers[at], f"{gaps[at - 1]:g} s after the row before, "
                                                 f"more than {MOST_GAP_TICKS:g} ticks of "
                                                 f"{tick:g} s (the median gap): the probes "
                                                 "stopped; cut the file there")
    return Availability(path.name, tick / 3600, np.asarray(counts, dtype=np.int64),
                        own_tick=True, gaps=(float(gaps.min()), float(gaps.max())),
                        clock=np.array(times) / 3600)


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
    trace_format : {'cbl-json', 'csv', 'probes', 'group-sizes', 'spotmath', 'bamboo'}, optional
        Detected when not given: a file starting with ``{`` is a Can't Be Late JSON trace,
        one whose first line is ``time_s,available`` the CSV format, one whose first line
        is ``date,availability`` probes (as the SkyNomad artifact publishes the Can't Be
        Late traces), one starting with a
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
    >>> trace.tick, trace.counts.tolist(), trace.spot(gang_size=4).tolist()
    (0.16666666666666666, [4, 3, 0, 4], [True, False, False, True])
    """
    path = Path(path)
    if trace_format is not None:
        check_choice("trace_format", trace_format, AVAILABILITY_FORMATS)
    raw = read_file(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise file_error(path.name, None, f"not UTF-8 text (byte {error.start})") from None
    start = text.lstrip()
    if trace_format is None:
        first_line = start.splitlines()[0].replace(" ", "") if start else ""
        trace_format = ("cbl-json" if start.startswith("{") else
                        "csv" if first_line == CSV_HEADER else
                        "probes" if first_line == PROBES_HEADER else
                        "group-sizes" if _SIZES_LINE.match(start) else None)
    if trace_format == "cbl-json":
        return _read_cbl_json(path, text)
    if trace_format == "csv":
        return _read_csv(path, text)
    if trace_format == "probes":
        return _read_probes(path, text)
    if trace_format == "group-sizes":
        return availability_from_sizes(read_group_sizes(path), tick)
    return availability_from_trace(read_trace(path, trace_format), tick)

