"""The book's chapter parameters: each described once, with its range, and read in a chapter.

A chapter declares its parameters in a cell tagged ``parameters`` (papermill), written
from :data:`BOOK_TABLE` by :func:`parameters_cell`; its next cell reads and checks them
with :func:`chapter_parameters`, which turns each into library units (hours, per hour,
bytes per second, parameters) under its library name (``restart_minutes`` becomes
``restart_time``).  The table says, for each parameter, the range of values every chapter
that declares it accepts; the tests run every chapter at the ends of every range.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..inputs import (
    HOURS_PER_UNIT,
    InputError,
    check_known_names,
    check_number,
    check_seed,
    closest_name,
    parse_duration,
    parse_number,
    show,
)
from . import DATA

__all__ = ["BOOK_TABLE", "BOOK_PARAMETERS", "CHAPTER_PARAMETERS", "MAX_ITEMS", "TRACES",
           "BookParameter", "BookValues", "chapter_parameters", "check_book_parameters",
           "RENAMED", "refuse_renamed",
           "parameters_cell", "read_yaml"]

#: Where a chapter's trace file names are looked up (a full path reads a trace of one's own).
TRACES = DATA / "traces"
#: The most items a list parameter may hold.
MAX_ITEMS = 20
_UNIT_NAMES = {"h": "hours", "min": "minutes", "s": "seconds"}


#: The plain scalars :func:`read_yaml` reads as numbers or flags, YAML 1.2's core schema
#: without its octal and hexadecimal integers or infinities: a decimal, or true/false.
_PLAIN = {
    "tag:yaml.org,2002:bool": r"^(?:true|True|TRUE|false|False|FALSE)$",
    "tag:yaml.org,2002:int": r"^[-+]?[0-9]+$",
    "tag:yaml.org,2002:float": r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$",
}


#: The refusal of a parameter given no value (``-p NAME ''``, or ``NAME:`` in a file).
EMPTY = "{name}: got an empty value (give one, or leave the name out for its default)"


def read_yaml(text: str) -> Any:
    """YAML data with plain decimals, not YAML 1.1's other numbers.

    PyYAML reads YAML 1.1, where ``4:00`` is the sexagesimal 240, ``0x10`` is 16,
    ``1_000`` is 1000, ``010`` is octal 8 and ``yes`` is true: a parameter would take a
    value its reader never meant.  Here only a plain decimal (``4``, ``-0.5``,
    ``1e-3``) is a number and only true/false a flag; anything else stays text, which
    the parameter's own check then refuses or reads (``'90s'``, ``'60%'``).

    Raises
    ------
    yaml.YAMLError
        Text that is not YAML.
    InputError
        A mapping that gives a key twice (naming it and both lines).

    Examples
    --------
    >>> read_yaml("{a: 4:00, b: 0x10, c: 010, d: 1e-3, e: yes, f: [1, 2.5]}")
    {'a': '4:00', 'b': '0x10', 'c': 10, 'd': 0.001, 'e': 'yes', 'f': [1, 2.5]}
    """
    import yaml

    return yaml.load(text, Loader=_plain_loader())  # noqa: S506 (a SafeLoader)


@functools.cache
def _plain_loader() -> type:
    """PyYAML's SafeLoader with :data:`_PLAIN`'s resolvers for numbers and flags."""
    import yaml

    class PlainLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            """A mapping, refusing a key given twice (PyYAML keeps the last silently)."""
            lines: dict[Any, int] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    first = lines.setdefault(key, key_node.start_mark.line + 1)
                except TypeError:  # an unhashable key: SafeLoader's own error follows
                    continue
                if first != key_node.start_mark.line + 1:
                    raise InputError(f"{key}: given twice, on lines {first} and "
                                     f"{key_node.start_mark.line + 1}")
            return super().construct_mapping(node, deep=deep)

    PlainLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in _PLAIN]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    for tag, pattern in _PLAIN.items():
        PlainLoader.add_implicit_resolver(tag, re.compile(pattern), list("-+0123456789.tTfF"))
    PlainLoader.add_constructor("tag:yaml.org,2002:int",
                                lambda loader, node: int(loader.construct_scalar(node)))
    PlainLoader.add_constructor("tag:yaml.org,2002:float",
                                lambda loader, node: float(loader.construct_scalar(node)))
    return PlainLoader


def _list_value(name: str, value: Any) -> list:
    """A list parameter's items: a list, or text holding one in YAML (``'[1, 8, 32]'``,
    as ``papermill -p`` passes it)."""
    if isinstance(value, str):
        import yaml

        try:
            loaded = read_yaml(value)
        except yaml.YAMLError:
            loaded = None
        if not isinstance(loaded, list):
            raise InputError(f"{name}: must be a list like [1, 8, 32], got {show(value)}")
        value = loaded
    if isinstance(value, (bytes, dict)) or not hasattr(value, "__iter__"):
        raise InputError(f"{name}: must be a list like [1, 8, 32], got {show(value)}")
    items = list(value)
    if not 1 <= len(items) <= MAX_ITEMS:
        raise InputError(f"{name}: must hold 1 to {MAX_ITEMS} items, got {len(items)}")
    return items


@dataclass(frozen=True)
class BookParameter:
    """One chapter parameter, described once.

    ``name`` and ``default`` are what a chapter's ``parameters`` cell declares, ``help`` its
    comment there (and so what ``papermill --help-notebook`` prints), ``library`` the name
    the checked value has in library units (hours, per hour, bytes per second, parameters).
    ``kind`` says how a value is read and checked:

    - ``"duration"``: a number in ``unit`` (``"h"``, ``"min"``, ``"s"``) or text with its
      own unit (``'90s'``), from ``low`` to ``high`` in ``unit``; hours in the library;
    - ``"number"``: a number from ``low`` to ``high``, times ``scale`` in the library;
    - ``"fraction"``: a number (or ``'60%'``) from ``low`` to ``high``;
    - ``"whole"``: a whole number from ``low`` to ``high`` (``8``, ``8.0`` or ``'8'``);
    - ``"seed"``: a whole number from ``low`` to ``high`` (an ``int``: no ``8.0``);
    - ``"flag"``: True or False;
    - ``"trace"``: a trace file in ``book/data/traces/`` (or a full path), read and
      checked line by line; its full path in the library;
    - ``"availability"``: the same for an availability trace (any format of
      :func:`~spotmath.traces.deadlines.read_availability`).

    A list default makes a list parameter: 1 to :data:`MAX_ITEMS` items, each checked as
    above (durations become a NumPy array of hours, other lists a tuple).  ``low`` and
    ``high`` are both accepted, and are what the tests run every chapter with.
    """

    name: str
    default: Any
    help: str
    library: str
    kind: str
    low: float | None = None
    high: float | None = None
    unit: str = ""
    scale: float = 1.0

    @property
    def is_list(self) -> bool:
        """Whether the parameter takes a list of values."""
        return isinstance(self.default, list)

    def line(self) -> str:
        """The parameter's line in a ``parameters`` cell: ``name: type = default  # help``."""
        return (f"{self.name}: {type(self.default).__name__} = {_literal(self.default)}"
                f"  # {self.help}")

    def check(self, value: Any, name: str | None = None) -> Any:
        """The value in library units, or :class:`InputError` naming ``name``."""
        name = name or self.name
        if not self.is_list:
            return self._one(name, value)
        items = [self._one(f"{name}[{i}]", item)
                 for i, item in enumerate(_list_value(name, value))]
        return np.array(items) if self.kind == "duration" else tuple(items)

    def _range(self) -> str:
        unit = f" {_UNIT_NAMES.get(self.unit, self.unit)}" if self.unit else ""
        return f"from {self.low:g} to {self.high:g}{unit}"

    def _one(self, name: str, value: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            raise InputError(EMPTY.format(name=name))  # papermill -p NAME '' gives None
        if self.kind == "flag":
            return _check_flag(name, value)
        if self.kind == "trace":
            return _check_trace(name, value)
        if self.kind == "availability":
            return _check_availability(name, value)
        if self.kind in ("seed", "whole"):
            expected = f"a whole number {self._range()}"
            if self.kind == "seed":
                number = check_seed(name, value)
            else:
                number = check_number(name, value, minimum=-math.inf, allow_minimum=True,
                                      expected=expected, scalar=True)
            if number != int(number) or not self.low <= number <= self.high:
                raise InputError(f"{name}: must be {expected}, got {show(value)}")
            return int(number)
        if self.kind == "duration":
            expected = f"a duration {self._range()} (or a string with a unit like '90s')"
            number = value
            if isinstance(value, str):
                number = parse_number(value)  # a bare number: the parameter's own unit
                if number is None:
                    number = parse_duration(name, value) / HOURS_PER_UNIT[self.unit]
            scale = HOURS_PER_UNIT[self.unit]
        else:  # number, fraction ('60%' is 0.6)
            kind = "fraction" if self.kind == "fraction" else "number"
            expected = f"a {kind} {self._range()}"
            number = value
            if self.kind == "fraction" and isinstance(value, str) \
                    and value.strip().endswith("%"):
                number = check_number(name, value.strip()[:-1], minimum=-math.inf,
                                      allow_minimum=True, expected=expected,
                                      scalar=True) / 100
            scale = self.scale
        try:
            checked = check_number(name, number, minimum=self.low, allow_minimum=True,
                                   maximum=self.high, allow_maximum=True, expected=expected,
                                   scalar=True)
        except InputError:  # name the value as it was given
            raise InputError(f"{name}: must be {expected}, got {show(value)}") from None
        return checked * scale


def _check_flag(name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
        return value.strip().lower() == "true"
    raise InputError(f"{name}: must be True or False, got {show(value)}")


def _check_trace(name: str, value: Any) -> Any:
    """A trace file by name in :data:`TRACES` (or a full path), read, checked and fitted."""
    from ..traces.fitting import fit_trace
    from ..traces.reading import read_trace

    path = _trace_path(name, value)

    # Every line checked, and the fit the chapter rests on made, before it computes anything
    try:
        fit = fit_trace(read_trace(path))
    except InputError as error:
        raise InputError(f"{name}: {error}") from None
    if fit.weibull_shape is None:
        raise InputError(f"{name}: {path.name}: {fit.weibull_note}; the chapter fits a "
                         "Weibull shape to every trace")
    return path


def _trace_path(name: str, value: Any) -> Path:
    """A file named in :data:`TRACES` (or a full path) that exists."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{name}: must be a file name, got {show(value)}")
    path = Path(value.strip()).expanduser()
    path = path if path.is_absolute() else TRACES / path
    if not path.is_file():
        raise InputError(f"{name}: no trace file {value.strip()!r} (names are looked up in "
                         "book/data/traces/; give a full path for a trace of your own)")
    return path


def _check_availability(name: str, value: Any) -> Any:
    """An availability trace (any format of ``read_availability``), read and checked."""
    from ..traces.deadlines import read_availability

    path = _trace_path(name, value)
    try:
        read_availability(path)
    except InputError as error:
        raise InputError(f"{name}: {error}") from None
    return path


def _literal(value: Any) -> str:
    """A default as Python source, strings in double quotes: ["p3-trace.csv"], 0.6, True."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    return repr(value)


_P = BookParameter
#: Every parameter a chapter may take: the one place each is described, with the range of
#: values every chapter accepts (in the parameter's own unit).
BOOK_TABLE: tuple[BookParameter, ...] = (
    _P("mtbf_hours", 4.0, "mean time between preemptions of one node, hours", "mtbf_hours",
       "duration", 0.1, 1e5, "h"),
    _P("spot_discount", 0.6, "discount against on-demand, in (0, 1)", "spot_discount",
       "fraction", 0.01, 0.99),
    _P("restart_minutes", 10.0, "preemption to computing again, minutes", "restart_time",
       "duration", 0, 1440, "min"),
    _P("checkpoint_minutes", 1.0, "blocking time of a checkpoint write, minutes",
       "checkpoint_cost", "duration", 0.01, 1440, "min"),
    _P("cadences_minutes", [15, 60, 240], "intervals to work through, minutes", "cadences",
       "duration", 0.1, 1e5, "min"),
    _P("gang_sizes", [1, 2, 4, 8, 16, 32, 64], "gang sizes to tabulate, nodes", "gang_sizes",
       "whole", 1, 10_000),
    _P("restart_preemptible", True, "can a restart itself be preempted?",
       "restart_preemptible", "flag"),
    _P("seed", 2026, "random seed, for reproducible simulations", "seed", "seed",
       0, 2**64 - 1),
    _P("jobs", 4000, "simulated jobs per point (more: smaller errors, slower)", "jobs",
       "whole", 100, 20_000),
    _P("weibull_shapes", [0.5, 1.0, 2.0], "Weibull shapes k (1: Poisson)", "weibull_shapes",
       "number", 0.25, 10),
    _P("bulk_fractions", [0.0, 0.5, 1.0], "shares of whole-gang reclaims", "bulk_fractions",
       "fraction", 0, 1),
    _P("notice_seconds", 120.0, "warning before a preemption, seconds", "notice",
       "duration", 0, 3600, "s"),
    _P("notice_share", 0.0, "measured share of notices acted on", "notice_share",
       "fraction", 0, 1),
    _P("notice_shares", [0.0, 0.5, 0.9, 1.0], "notice shares q to compare", "notice_shares",
       "fraction", 0, 1),
    _P("notice_write_seconds", 60.0, "on-notice checkpoint write, seconds", "notice_write",
       "duration", 0, 86_400, "s"),
    _P("persist_minutes", 0.0, "asynchronous write: snapshot to durable, minutes", "persist",
       "duration", 0, 1440, "min"),
    _P("instance_hours", 24.0, "hours an instance runs (for the buckets)", "exposure",
       "duration", 0.1, 8760, "h"),
    _P("model_billions", [7, 13, 70], "model sizes, billions of parameters",
       "parameter_counts", "number", 0.001, 10_000, scale=1e9),
    _P("lora_millions", 40.0, "LoRA adapter parameters, millions (assumed)",
       "lora_parameters", "number", 0.001, 1e5, scale=1e6),
    _P("write_gbytes_per_second", [2.0, 20.0], "write bandwidths, GB/s (assumed)",
       "write_bandwidths", "number", 0.001, 1e4, "GB/s", 1e9),
    _P("snapshot_gbytes_per_second", 50.0, "snapshot bandwidth, GB/s (assumed)",
       "snapshot_bandwidth", "number", 0.001, 1e4, "GB/s", 1e9),
    _P("read_gbytes_per_second", 2.0, "read bandwidth on restart, GB/s (assumed)",
       "read_bandwidth", "number", 0.001, 1e4, "GB/s", 1e9),
    _P("capacity_wait_minutes", 5.0, "wait for new capacity, minutes (assumed)",
       "capacity_wait", "duration", 0, 1440, "min"),
    _P("boot_minutes", 3.0, "boot and container image pull, minutes (assumed)", "boot",
       "duration", 0, 1440, "min"),
    _P("warmup_minutes", 2.0, "loaded to full speed, minutes (assumed)", "warmup",
       "duration", 0, 1440, "min"),
    _P("reserved_discount", 0.4, "reserved discount vs on-demand (assumed)",
       "reserved_discount", "fraction", 0.01, 0.99),
    _P("reserved_utilization", 0.8, "share of paid reserved hours that run jobs",
       "reserved_utilization", "fraction", 0.01, 1),
    _P("rendezvous_minutes", 1.0, "elastic pause per replica change, minutes", "rendezvous",
       "duration", 0, 1440, "min"),
    _P("mtbf_grid_hours", [1, 4, 24], "node MTBFs for the decision table, hours",
       "mtbf_grid", "duration", 0.1, 1e5, "h"),
    _P("restart_grid_minutes", [5, 30], "restarts for the decision table, minutes",
       "restart_grid", "duration", 0, 1440, "min"),
    _P("trace_files", ["p3-trace.csv", "g4dn-trace.csv"], "in book/data/traces/",
       "trace_files", "trace"),
    _P("window_seconds", 60.0, "co-preemption window, seconds", "window", "duration",
       1, 86_400, "s"),
    _P("interval_minutes", 30.0, "a fixed interval to replay, minutes", "interval",
       "duration", 0.1, 1e5, "min"),
    _P("pool_gang_sizes", [1, 2, 4, 8, 16], "gangs to replay on each pool, nodes",
       "pool_gang_sizes", "whole", 1, 10_000),
    _P("availability_file", "v100x1-east1c.txt", "in book/data/traces/",
       "availability_file", "availability"),
    _P("deadline_gang_size", 72, "the gang on that pool, nodes", "deadline_gang_size",
       "whole", 1, 10_000),
    _P("compute_hours", 6.0, "compute the job needs, hours", "compute", "duration", 0.5, 36,
       "h"),
    _P("deadline_hours", 10.0, "from the start to the deadline, hours", "deadline",
       "duration", 1, 48, "h"),
    _P("changeover_minutes", 12.0, "a new instance's dead time, minutes", "changeover",
       "duration", 0, 60, "min"),
    _P("start_share", 0.2, "where on the trace the job starts, 0 to 0.95", "start_share",
       "fraction", 0, 0.95),
    _P("slack_ratios", [0.5, 0.6, 0.7, 0.8, 0.9, 0.95], "J/D ratios to compare",
       "slack_ratios", "fraction", 0.05, 0.95),
    _P("deadline_starts", 60, "start ticks per comparison", "starts", "whole", 10, 100),
    _P("two_level_gang_size", 16, "the gang with fast copies, nodes", "two_level_gang_size",
       "whole", 1, 1024),
    _P("level1_seconds", 5.0, "fast write to a peer's memory, seconds (assumed)",
       "level1_cost", "duration", 0.1, 3600, "s"),
    _P("level2_minutes", 3.0, "durable write to storage, minutes (assumed)",
       "level2_cost", "duration", 0.01, 1440, "min"),
    _P("level1_restart_minutes", 2.0, "restart from a fast copy, minutes",
       "level1_restart", "duration", 0, 1440, "min"),
    _P("level2_restart_minutes", 5.0, "restart from the durable copy, minutes",
       "level2_restart", "duration", 0, 1440, "min"),
    _P("level1_loss", 0.3, "share of events that take the fast copies",
       "level1_loss", "fraction", 0.001, 1),
    _P("level1_group", 2, "nodes holding each fast copy (2: a partner)", "level1_group",
       "whole", 1, 64),
    _P("example_billions", 70.0, "the fine-tune's model, billions of parameters",
       "parameter_count", "number", 0.001, 10_000, scale=1e9),
    _P("pool_gpus", 256, "GPUs in the shared pool", "gpus", "whole", 8, 1024),
    _P("request_gpus", 8, "GPUs each high-priority request takes", "hp_gpus", "whole", 1,
       64),
    _P("requests_per_hour", 8.0, "high-priority requests an hour (Poisson)", "hp_rate",
       "number", 0.01, 1000),
    _P("request_hours", 2.0, "mean hours a request holds its GPUs", "hp_hold", "duration",
       0.05, 100, "h"),
    _P("gang_gpus", [16, 32, 64, 128, 192], "training gangs to tabulate, GPUs", "gangs",
       "whole", 1, 1024),
    _P("startup_minutes", 6.0, "re-admission to computing again, minutes", "startup",
       "duration", 0, 1440, "min"),
    _P("grace_seconds", 30.0, "grace before a preempted gang is killed, seconds", "grace",
       "duration", 0, 3600, "s"),
    _P("start_target_seconds", 10.0, "p99 start delay for inference, seconds",
       "start_target", "duration", 0, 3600, "s"),
    _P("failure_mtbf_hours", 50675.0, "hours between failures of one GPU",
       "failure_mtbf", "duration", 100, 1e8, "h"),
)
_BY_NAME = {parameter.name: parameter for parameter in BOOK_TABLE}

#: name: (default, help) of every chapter parameter, as a chapter declares it.
BOOK_PARAMETERS: dict[str, tuple[Any, str]] = {
    p.name: (p.default, p.help) for p in BOOK_TABLE}


def parameters_cell(*names: str) -> str:
    """The source of a chapter's ``parameters`` cell declaring ``names``, from BOOK_TABLE.

    Parameters
    ----------
    *names : str
        Names from :data:`BOOK_TABLE`, in the order the cell declares them.

    Returns
    -------
    str
        One ``name: type = default  # help`` line per parameter.

    Raises
    ------
    InputError
        A name not in the table.

    Examples
    --------
    >>> print(parameters_cell("mtbf_hours", "spot_discount"))
    mtbf_hours: float = 4.0  # mean time between preemptions of one node, hours
    spot_discount: float = 0.6  # discount against on-demand, in (0, 1)
    """
    check_known_names("parameter", names, _BY_NAME)
    return "\n".join(_BY_NAME[name].line() for name in names)


class BookValues(dict):
    """Checked chapter parameters in library units, by their library names.

    A dict that also reads as attributes: ``p.restart_time`` is ``p["restart_time"]``.
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{name}: not among these parameters "
                                 f"({', '.join(sorted(self))})") from None


#: Chapter parameters renamed, by their old names (a gang's size is ``gang_size`` in every
#: parameter, as in ``gang_sizes``): an old name is refused with its new one.
RENAMED = {"deadline_nodes": "deadline_gang_size", "two_level_nodes": "two_level_gang_size"}


def refuse_renamed(names: Any) -> None:
    """Refuse a parameter's old name, saying its new one (:data:`RENAMED`).

    Raises
    ------
    InputError
        The first old name, in sorted order.

    Examples
    --------
    >>> try:
    ...     refuse_renamed(["deadline_nodes"])
    ... except InputError as error:
    ...     print(error)
    deadline_nodes: renamed deadline_gang_size; give the gang's size as deadline_gang_size
    """
    for name in sorted(names):
        if name in RENAMED:
            raise InputError(f"{name}: renamed {RENAMED[name]}; give the gang's size as "
                             f"{RENAMED[name]}")


def check_book_parameters(**values: Any) -> BookValues:
    """Check a chapter's parameters; return them in library units, by library name.

    Each name, its range and its conversion come from :data:`BOOK_TABLE` (for example
    ``restart_minutes`` becomes ``restart_time`` in hours and ``model_billions`` becomes
    ``parameter_counts``); with ``mtbf_hours`` comes ``preemption_rate`` (per hour).
    Values that are each in range but contradict each other are refused too: an
    asynchronous write that takes as long as the MTBF, a notice share without a notice.

    Parameters
    ----------
    **values
        A chapter's parameters by their names in :data:`BOOK_TABLE`, in the chapter's units
        (minutes, seconds, GB/s, as each name says).

    Returns
    -------
    BookValues
        A dict that also reads as attributes (``p.restart_time``), in hours, per hour, bytes
        per second and parameters.

    Raises
    ------
    InputError
        An unknown name, or a bad value (the message names it).

    Examples
    --------
    >>> p = check_book_parameters(mtbf_hours=4, restart_minutes="90s")
    >>> p.preemption_rate, p.restart_time
    (0.25, 0.025)
    >>> try:
    ...     check_book_parameters(mtbf_hours=4, persist_minutes=240)
    ... except InputError as error:
    ...     print(error)
    persist_minutes: must be shorter than the MTBF (mtbf_hours: 4 h), got 240
    """
    refuse_renamed(values)
    check_known_names("parameter", values, _BY_NAME)
    checked = BookValues(
        (_BY_NAME[name].library, _BY_NAME[name].check(value)) for name, value in values.items())
    if "mtbf_hours" in checked:
        checked["preemption_rate"] = 1 / checked["mtbf_hours"]
        if checked.get("persist", 0.0) >= checked["mtbf_hours"]:
            raise InputError("persist_minutes: must be shorter than the MTBF (mtbf_hours: "
                             f"{checked['mtbf_hours']:g} h), got "
                             f"{show(values['persist_minutes'])}")
    if "deadline" in checked:
        _check_deadline_room(checked, values)
    if "gpus" in checked:
        _check_pool(checked, values)
    gang = checked.get("two_level_gang_size", 0)
    if "level1_group" in checked and gang % checked["level1_group"]:
        raise InputError(f"level1_group: must divide the gang of {gang} nodes "
                         f"(two_level_gang_size), got {show(values['level1_group'])}")
    if checked.get("notice_share", 0.0) > 0 and checked.get("notice", 1.0) == 0:
        raise InputError("notice_share: must be 0 when notice_seconds is 0 (there is no "
                         f"notice to act on), got {show(values['notice_share'])}")
    return checked


#: The most requests the cluster chapter's pool holds at once: the chapter simulates the
#: pool event by event and draws every gang size, which larger pools would make slow.
CHAPTER_MAX_REQUESTS = 499


def _check_pool(checked: BookValues, values: dict[str, Any]) -> None:
    """A request fits the pool, and the pool holds few enough requests for the chapter
    (:data:`CHAPTER_MAX_REQUESTS`; `spotmath cluster` answers larger pools)."""
    gpus, request = checked["gpus"], checked.get("hp_gpus", 1)
    if request > gpus:
        raise InputError(f"request_gpus: a request of {request} GPUs never fits a pool of "
                         f"{gpus} (pool_gpus), got {show(values.get('request_gpus'))}")
    if gpus // request > CHAPTER_MAX_REQUESTS:
        raise InputError(f"pool_gpus: at most {CHAPTER_MAX_REQUESTS} requests at once "
                         f"(pool_gpus / request_gpus) in this chapter (spotmath cluster "
                         f"answers larger pools), got {show(values.get('pool_gpus'))} / "
                         f"{request}")


def _check_deadline_room(checked: BookValues, values: dict[str, Any]) -> None:
    """The job and every job of the slack sweep fit before the deadline on on-demand."""
    deadline, changeover = checked["deadline"], checked.get("changeover", 0.0)
    if checked.get("compute", 0.0) + changeover > deadline + 1e-9:
        raise InputError(f"compute_hours: must leave room for one changeover before the "
                         f"deadline ({deadline:g} h), got {show(values['compute_hours'])}")
    for ratio in checked.get("slack_ratios", ()):
        if ratio * deadline + changeover > deadline + 1e-9:
            raise InputError(f"slack_ratios: {ratio:g} of the deadline leaves no room for "
                             f"the changeover ({show(values.get('changeover_minutes'))} min)")


#: The parameters each chapter declares, in the order of its ``parameters`` cell (which
#: :func:`parameters_cell` writes from :data:`BOOK_TABLE`).
CHAPTER_PARAMETERS: dict[str, tuple[str, ...]] = {
    "intro": ("mtbf_hours", "spot_discount", "restart_minutes", "checkpoint_minutes",
              "restart_preemptible"),
    "waste": ("mtbf_hours", "restart_minutes", "cadences_minutes"),
    "break_even": ("mtbf_hours", "spot_discount", "restart_minutes", "checkpoint_minutes",
                   "cadences_minutes", "restart_preemptible"),
    "checkpoint_cost": ("mtbf_hours", "restart_minutes", "checkpoint_minutes",
                        "restart_preemptible"),
    "exact_model": ("mtbf_hours", "spot_discount", "restart_minutes", "checkpoint_minutes",
                    "restart_preemptible"),
    "notice": ("mtbf_hours", "restart_minutes", "checkpoint_minutes", "spot_discount",
               "restart_preemptible", "notice_seconds", "notice_shares",
               "notice_write_seconds", "model_billions", "write_gbytes_per_second",
               "snapshot_gbytes_per_second", "seed", "jobs"),
    "simulation": ("mtbf_hours", "spot_discount", "restart_minutes", "checkpoint_minutes",
                   "gang_sizes", "seed", "jobs", "weibull_shapes", "bulk_fractions",
                   "notice_seconds"),
    "gangs": ("mtbf_hours", "spot_discount", "restart_minutes", "checkpoint_minutes",
              "gang_sizes", "restart_preemptible"),
    "real_preemptions": ("trace_files", "window_seconds", "interval_minutes",
                         "pool_gang_sizes", "checkpoint_minutes", "restart_minutes",
                         "spot_discount", "seed"),
    "deadlines": ("availability_file", "deadline_gang_size", "compute_hours", "deadline_hours",
                  "changeover_minutes", "spot_discount", "start_share", "slack_ratios",
                  "checkpoint_minutes", "deadline_starts", "seed"),
    "two_level": ("mtbf_hours", "two_level_gang_size", "level1_seconds", "level2_minutes",
                  "level1_restart_minutes", "level2_restart_minutes", "level1_loss",
                  "level1_group", "spot_discount", "restart_preemptible",
                  "example_billions", "trace_files", "seed"),
    "calibration": ("mtbf_hours", "instance_hours", "model_billions", "lora_millions",
                    "write_gbytes_per_second", "snapshot_gbytes_per_second",
                    "read_gbytes_per_second", "capacity_wait_minutes", "boot_minutes",
                    "warmup_minutes"),
    "fleet": ("mtbf_hours", "spot_discount", "restart_minutes", "checkpoint_minutes",
              "gang_sizes", "restart_preemptible", "reserved_discount",
              "reserved_utilization", "rendezvous_minutes", "model_billions",
              "write_gbytes_per_second", "mtbf_grid_hours", "restart_grid_minutes"),
    "cluster": ("pool_gpus", "request_gpus", "requests_per_hour", "request_hours",
                "gang_gpus", "checkpoint_minutes", "startup_minutes", "grace_seconds",
                "start_target_seconds", "failure_mtbf_hours", "spot_discount", "seed"),
    "your_numbers": ("mtbf_hours", "spot_discount", "restart_minutes", "checkpoint_minutes",
                     "cadences_minutes", "gang_sizes", "restart_preemptible",
                     "notice_seconds", "notice_share", "notice_write_seconds",
                     "persist_minutes"),
}


def _injected_names(shell: Any) -> list[str]:
    """The names papermill assigned in the cell it injected (none when not run by it).

    papermill inserts, after the ``parameters`` cell, a cell that begins with the comment
    ``# Parameters`` and assigns each value it was given; IPython keeps every executed
    cell's source in its input history.
    """
    import ast

    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", [])
    for source in reversed(history):
        if source.lstrip().startswith("# Parameters"):
            try:
                tree = ast.parse(source)
            except SyntaxError:
                return []
            return [target.id for node in tree.body if isinstance(node, ast.Assign)
                    for target in node.targets if isinstance(target, ast.Name)]
    return []


def _one_line_errors(shell: Any) -> None:
    """Show an :class:`InputError` in the notebook as its one line, not a traceback."""

    def show(shell, etype, value, tb, tb_offset=None):
        lines = [f"{etype.__name__}: {value}"]
        shell._showtraceback(etype, value, lines)
        return lines

    shell.set_custom_exc((InputError,), show)


def chapter_parameters(chapter: str, namespace: dict[str, Any]) -> BookValues:
    """A chapter's parameters, read from its namespace and checked: its setup cell's call.

    Parameters
    ----------
    chapter : str
        The chapter's name (its file name without ``.ipynb``), a key of
        :data:`CHAPTER_PARAMETERS`.
    namespace : dict
        The chapter's ``globals()``, after its ``parameters`` cell (and the cell papermill
        injects after it) ran.

    Returns
    -------
    BookValues
        As :func:`check_book_parameters`.

    Raises
    ------
    InputError
        A name that papermill injected but the chapter does not declare (with the closest
        declared name), or a bad value.  In IPython the error shows as its one line.

    Examples
    --------
    >>> chapter_parameters("waste", {"mtbf_hours": 2.0, "restart_minutes": 5,
    ...                              "cadences_minutes": [60]}).preemption_rate
    0.5
    """
    check_known_names("chapter", [chapter], CHAPTER_PARAMETERS)
    declared = CHAPTER_PARAMETERS[chapter]
    try:
        from IPython import get_ipython
    except ImportError:  # not in Jupyter: nothing was injected, nothing to show
        shell = None
    else:
        shell = get_ipython()
    if shell is not None:
        _one_line_errors(shell)
    injected = _injected_names(shell)
    refuse_renamed(injected)
    for name in injected:
        if name not in declared and not name.startswith("PAPERMILL_"):
            raise InputError(f"{name}: not a parameter of this chapter"
                             f"{closest_name(name, declared)}; it takes: "
                             f"{', '.join(declared)}")
    missing = [name for name in declared if name not in namespace]
    if missing:
        raise InputError(f"{missing[0]}: not set (the chapter's parameters cell declares it)")
    return check_book_parameters(**{name: namespace[name] for name in declared})
