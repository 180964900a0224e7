"""The one place where spotmath checks and converts its inputs.

Every public function, the command line and the book's parameter cells pass user input
through these checks.  A bad value raises :class:`InputError` (a ``ValueError``) whose
one-line message names the parameter and the offending value, for example::

    restart_time: must be a duration >= 0 (hours, or a string like '10min'), got -1

Units: inside the library every duration is in **hours** and every rate is **per hour**.
Durations may be given as numbers (hours) or strings with a unit (``'90s'``, ``'10min'``,
``'4h'``, ``'1.5d'``); rates as numbers (per hour) or strings (``'0.25/h'``, ``'6/d'``).
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any

import numpy as np

__all__ = [
    "InputError",
    "parse_duration",
    "parse_rate",
    "rate_from_mtbf",
    "check_duration",
    "check_rate",
    "check_discount",
    "check_gang_size",
    "check_number",
    "check_choice",
    "check_known_names",
    "check_parameters",
    "check_book_parameters",
    "BOOK_PARAMETERS",
    "HOURS_PER_UNIT",
]


class InputError(ValueError):
    """A user-supplied value is unusable; the message names the parameter and the value."""


HOURS_PER_UNIT: dict[str, float] = {
    "s": 1 / 3600, "sec": 1 / 3600, "secs": 1 / 3600, "second": 1 / 3600, "seconds": 1 / 3600,
    "min": 1 / 60, "mins": 1 / 60, "minute": 1 / 60, "minutes": 1 / 60,
    "h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0,
    "d": 24.0, "day": 24.0, "days": 24.0,
}

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_DURATION_RE = re.compile(rf"^\s*(?P<value>{_NUMBER})\s*(?P<unit>[A-Za-z]*)\s*$")
_RATE_RE = re.compile(
    rf"^\s*(?P<value>{_NUMBER})\s*/\s*(?P<per>{_NUMBER})?\s*(?P<unit>[A-Za-z]+)\s*$"
)


def _show(value: Any) -> str:
    """The value as the user gave it, short enough for a one-line message."""
    text = repr(value) if isinstance(value, str) else str(value)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _as_float_array(name: str, value: Any, expected: str) -> np.ndarray:
    """Convert a number or array-like of numbers to floats, or fail naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise InputError(f"{name}: must be {expected}, got {_show(value)}")
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: must be {expected}, got {_show(value)}") from None
    if array.dtype.kind != "f" or np.asarray(value).dtype.kind not in "iuf":
        raise InputError(f"{name}: must be {expected}, got {_show(value)}")
    return array


def _check_range(
    name: str, array: np.ndarray, *, minimum: float, allow_minimum: bool,
    maximum: float | None, expected: str, original: Any, scalar: bool,
    allow_maximum: bool = False,
) -> float | np.ndarray:
    if scalar and array.ndim != 0:
        raise InputError(f"{name}: must be a single number here, got an array of shape "
                         f"{array.shape}")
    bad = ~np.isfinite(array)
    bad |= array < minimum if allow_minimum else array <= minimum
    if maximum is not None:
        bad |= array > maximum if allow_maximum else array >= maximum
    if np.any(bad):
        shown = original if array.ndim == 0 else array[bad].flat[0]
        raise InputError(f"{name}: must be {expected}, got {_show(shown)}")
    return float(array) if array.ndim == 0 else array


def parse_duration(name: str, value: Any) -> Any:
    """Turn ``'90s'``, ``'10min'``, ``'4h'``, ``'1.5d'`` (or a bare number string) into hours.

    Non-strings are returned unchanged, to be checked by :func:`check_duration`.
    """
    if not isinstance(value, str):
        return value
    match = _DURATION_RE.match(value)
    if not match:
        raise InputError(
            f"{name}: not a duration: {_show(value)} (use hours, or a number with a unit "
            "such as '90s', '10min', '4h', '1.5d')"
        )
    unit = match["unit"].lower() or "h"
    if unit not in HOURS_PER_UNIT:
        raise InputError(
            f"{name}: unknown time unit {match['unit']!r} in {_show(value)} "
            "(use s, min, h or d)"
        )
    return float(match["value"]) * HOURS_PER_UNIT[unit]


def parse_rate(name: str, value: Any) -> Any:
    """Turn ``'0.25/h'``, ``'6/d'`` or ``'1/4h'`` into a rate per hour.

    A bare number string is taken as per hour.  Non-strings are returned unchanged.
    """
    if not isinstance(value, str):
        return value
    match = _RATE_RE.match(value)
    if match:
        unit = match["unit"].lower()
        if unit not in HOURS_PER_UNIT:
            raise InputError(
                f"{name}: unknown time unit {match['unit']!r} in {_show(value)} "
                "(use s, min, h or d)"
            )
        per = float(match["per"]) if match["per"] else 1.0
        hours = per * HOURS_PER_UNIT[unit]
        if hours <= 0:
            raise InputError(f"{name}: the time in {_show(value)} must be positive")
        return float(match["value"]) / hours
    try:
        return float(value)
    except ValueError:
        raise InputError(
            f"{name}: not a rate: {_show(value)} (use a number per hour, or a string "
            "such as '0.25/h' or '6/d')"
        ) from None


def rate_from_mtbf(mtbf: Any, name: str = "mtbf") -> float:
    """The preemption rate (per hour) of a mean time between preemptions ('4h', 4, '90min')."""
    return 1 / check_duration(name, mtbf, scalar=True)


def check_duration(
    name: str, value: Any, *, allow_zero: bool = False, scalar: bool = False
) -> float | np.ndarray:
    """A finite duration in hours, positive (or >= 0 when ``allow_zero``).

    Arrays are checked element-wise unless ``scalar`` asks for a single number.
    """
    sign = ">= 0" if allow_zero else "> 0"
    expected = f"a duration {sign} (hours, or a string like '10min')"
    array = _as_float_array(name, parse_duration(name, value), expected)
    return _check_range(name, array, minimum=0.0, allow_minimum=allow_zero, maximum=None,
                        expected=expected, original=value, scalar=scalar)


def check_rate(name: str, value: Any, *, scalar: bool = False) -> float | np.ndarray:
    """A finite, positive rate per hour; arrays allowed."""
    expected = "a rate > 0 per hour (a number, or a string like '0.25/h')"
    array = _as_float_array(name, parse_rate(name, value), expected)
    return _check_range(name, array, minimum=0.0, allow_minimum=False, maximum=None,
                        expected=expected, original=value, scalar=scalar)


def _text_to_number(name: str, value: Any, expected: str, *, percent: bool = False) -> Any:
    """A string holding a plain number (or ``'60%'`` when ``percent``) becomes that float.

    Other values pass unchanged, to be checked by the caller; a string that is not a number
    is refused, naming ``name``.
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        return float(text[:-1]) / 100 if percent and text.endswith("%") else float(text)
    except ValueError:
        raise InputError(f"{name}: must be {expected}, got {_show(value)}") from None


def check_discount(name: str, value: Any, *, scalar: bool = False) -> float | np.ndarray:
    """A spot discount strictly between 0 and 1 (``'60%'`` is accepted as 0.6); arrays allowed."""
    expected = "a fraction strictly between 0 and 1 (0.6 or '60%')"
    number = _text_to_number(name, value, expected, percent=True)
    array = _as_float_array(name, number, expected)
    return _check_range(name, array, minimum=0.0, allow_minimum=False, maximum=1.0,
                        expected=expected, original=value, scalar=scalar)


def check_gang_size(name: str, value: Any, *, what: str = "a whole number of nodes") -> int:
    """A positive whole number (of nodes, by default): ``8``, ``8.0`` or ``'8'``."""
    expected = f"{what} >= 1"
    value = _text_to_number(name, value, expected)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"{name}: must be {expected}, got {_show(value)}")
    if not math.isfinite(value) or value < 1 or value != int(value):
        raise InputError(f"{name}: must be {expected}, got {_show(value)}")
    return int(value)


def check_positive(name: str, value: Any) -> float:
    """A single finite number > 0 (a shape parameter, say)."""
    return check_number(name, value, minimum=0.0, allow_minimum=False,
                        expected="a number > 0", scalar=True)


def check_fraction(name: str, value: Any) -> float:
    """A single number in [0, 1] (inclusive, unlike the discount); ``'50%'`` is 0.5."""
    expected = "a fraction in [0, 1]"
    array = _as_float_array(name, _text_to_number(name, value, expected, percent=True),
                            expected)
    bad = array.ndim != 0 or not np.isfinite(array) or not 0 <= float(array) <= 1
    if bad:
        raise InputError(f"{name}: must be {expected}, got {_show(value)}")
    return float(array)


def check_number(name: str, value: Any, *, minimum: float, allow_minimum: bool,
                 maximum: float | None = None, allow_maximum: bool = False,
                 expected: str, scalar: bool = False) -> float | np.ndarray:
    """A finite number (or array) between ``minimum`` and ``maximum``, ends as allowed."""
    array = _as_float_array(name, _text_to_number(name, value, expected), expected)
    return _check_range(name, array, minimum=minimum, allow_minimum=allow_minimum,
                        maximum=maximum, allow_maximum=allow_maximum, expected=expected,
                        original=value, scalar=scalar)


def check_utilization(name: str, value: Any, *, scalar: bool = False) -> float | np.ndarray:
    """A share of paid hours that run jobs: a fraction in (0, 1]."""
    return check_number(name, value, minimum=0.0, allow_minimum=False, maximum=1.0,
                        allow_maximum=True, expected="a fraction in (0, 1]", scalar=scalar)


def check_seed(name: str, value: Any) -> int:
    """A seed for NumPy's random generator: a whole number >= 0."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) \
            or value < 0:
        raise InputError(f"{name}: must be a whole number >= 0, got {_show(value)}")
    return int(value)


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """One of a fixed set of strings."""
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{name}: must be one of {', '.join(choices)}; got {_show(value)}")
    return value


def check_known_names(kind: str, given: Any, known: Any) -> None:
    """Refuse names (of parameters, say) that are not in ``known``, listing the known ones."""
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise InputError(
            f"{unknown[0]}: unknown {kind} (known: {', '.join(sorted(known))})"
        )


#: How each domain parameter of the library is checked (all times in hours).
_PARAMETER_CHECKS = {
    "preemption_rate": lambda v, scalar: check_rate("preemption_rate", v, scalar=scalar),
    "interval": lambda v, scalar: check_duration("interval", v, scalar=scalar),
    "checkpoint_cost": lambda v, scalar: check_duration(
        "checkpoint_cost", v, allow_zero=True, scalar=scalar),
    "restart_time": lambda v, scalar: check_duration(
        "restart_time", v, allow_zero=True, scalar=scalar),
    "spot_discount": lambda v, scalar: check_discount("spot_discount", v, scalar=scalar),
    "gang_size": lambda v, scalar: check_gang_size("gang_size", v),
    "work": lambda v, scalar: check_duration("work", v, scalar=scalar),
    "notice": lambda v, scalar: check_duration("notice", v, allow_zero=True, scalar=scalar),
    "notice_share": lambda v, scalar: check_fraction("notice_share", v),
    "notice_write": lambda v, scalar: check_duration("notice_write", v, allow_zero=True,
                                                     scalar=scalar),
    "persist": lambda v, scalar: check_duration("persist", v, allow_zero=True, scalar=scalar),
    "weibull_shape": lambda v, scalar: check_positive("weibull_shape", v),
    "weibull_scale": lambda v, scalar: check_duration("weibull_scale", v, scalar=scalar),
    "bulk_fraction": lambda v, scalar: check_fraction("bulk_fraction", v),
    "jobs": lambda v, scalar: check_gang_size("jobs", v, what="a whole number of jobs"),
    "seed": lambda v, scalar: check_seed("seed", v),
    # traces
    "pool_size": lambda v, scalar: check_gang_size("pool_size", v,
                                                   what="a whole number of instances"),
    "hours": lambda v, scalar: check_duration("hours", v, scalar=scalar),
    "gang_rate": lambda v, scalar: check_rate("gang_rate", v, scalar=scalar),
    # calibration and fleet helpers
    "exposure": lambda v, scalar: check_duration("exposure", v, scalar=scalar),
    "window": lambda v, scalar: check_duration("window", v, scalar=scalar),
    "rendezvous": lambda v, scalar: check_duration("rendezvous", v, allow_zero=True,
                                                   scalar=scalar),
    "interrupted_fraction": lambda v, scalar: check_number(
        "interrupted_fraction", v, minimum=0.0, allow_minimum=False, maximum=1.0,
        expected="a fraction strictly between 0 and 1", scalar=scalar),
    "count": lambda v, scalar: check_number(
        "count", v, minimum=0.0, allow_minimum=True, expected="a count >= 0", scalar=scalar),
    "units": lambda v, scalar: check_number(
        "units", v, minimum=0.0, allow_minimum=False, expected="a number of units > 0",
        scalar=scalar),
    "parameter_count": lambda v, scalar: check_number(
        "parameter_count", v, minimum=0.0, allow_minimum=False,
        expected="a number of model parameters > 0", scalar=scalar),
    "bytes_per_parameter": lambda v, scalar: check_number(
        "bytes_per_parameter", v, minimum=0.0, allow_minimum=False,
        expected="a number of bytes > 0", scalar=scalar),
    "bandwidth": lambda v, scalar: check_number(
        "bandwidth", v, minimum=0.0, allow_minimum=False,
        expected="a bandwidth > 0 (bytes per second)", scalar=scalar),
    "price_discount": lambda v, scalar: check_number(
        "price_discount", v, minimum=0.0, allow_minimum=True, maximum=1.0,
        expected="a discount in [0, 1) (0 for on-demand)", scalar=scalar),
    "utilization": lambda v, scalar: check_utilization("utilization", v, scalar=scalar),
    "waste": lambda v, scalar: check_number(
        "waste", v, minimum=0.0, allow_minimum=True, maximum=1.0,
        expected="a waste fraction in [0, 1)", scalar=scalar),
}


def check_parameters(*, scalar: bool = False, **values: Any) -> list[Any]:
    """Check domain parameters by name; return their values (hours, per hour) in order.

    >>> check_parameters(preemption_rate="0.25/h", restart_time="10min")
    [0.25, 0.16666666666666666]
    """
    check_known_names("parameter", values, _PARAMETER_CHECKS)
    return [_PARAMETER_CHECKS[name](value, scalar) for name, value in values.items()]


# -- the book's chapter parameters (papermill) ------------------------------------------------------
#: Every parameter a chapter may take, with the book's default and its meaning.  A chapter's
#: ``parameters`` cell uses these names; :func:`check_book_parameters` checks them.
BOOK_PARAMETERS: dict[str, tuple[Any, str]] = {
    "mtbf_hours": (4.0, "mean time between preemptions of one node, hours"),
    "spot_discount": (0.6, "discount against on-demand, in (0, 1)"),
    "restart_minutes": (10.0, "preemption to computing again, minutes"),
    "checkpoint_minutes": (1.0, "blocking time of a checkpoint write, minutes"),
    "cadences_minutes": ([15, 60, 240], "intervals to work through, minutes"),
    "gang_sizes": ([1, 2, 4, 8, 16, 32, 64], "gang sizes to tabulate, nodes"),
    "restart_preemptible": (True, "can a restart itself be preempted?"),
    "seed": (2026, "random seed, for reproducible simulations"),
    "jobs": (4000, "simulated jobs per point (more: smaller errors, slower)"),
    "weibull_shapes": ([0.5, 1.0, 2.0], "Weibull shapes k (1: Poisson)"),
    "bulk_fractions": ([0.0, 0.5, 1.0], "shares of whole-gang reclaims"),
    "notice_seconds": (120.0, "warning before a preemption, seconds"),
    "notice_share": (0.0, "measured share of notices acted on"),
    "notice_shares": ([0.0, 0.5, 0.9, 1.0], "notice shares q to compare"),
    "notice_write_seconds": (60.0, "on-notice checkpoint write, seconds"),
    "persist_minutes": (0.0, "asynchronous write: snapshot to durable, minutes"),
    "instance_hours": (24.0, "hours an instance runs (for the buckets)"),
    "model_billions": ([7, 13, 70], "model sizes, billions of parameters"),
    "lora_millions": (40.0, "LoRA adapter parameters, millions (assumed)"),
    "write_gbytes_per_second": ([2.0, 20.0], "write bandwidths, GB/s (assumed)"),
    "snapshot_gbytes_per_second": (50.0, "snapshot bandwidth, GB/s (assumed)"),
    "read_gbytes_per_second": (2.0, "read bandwidth on restart, GB/s (assumed)"),
    "capacity_wait_minutes": (5.0, "wait for new capacity, minutes (assumed)"),
    "boot_minutes": (3.0, "boot and container image pull, minutes (assumed)"),
    "warmup_minutes": (2.0, "loaded to full speed, minutes (assumed)"),
    "reserved_discount": (0.4, "reserved discount vs on-demand (assumed)"),
    "reserved_utilization": (0.8, "share of paid reserved hours that run jobs"),
    "rendezvous_minutes": (1.0, "elastic pause per replica change, minutes"),
    "mtbf_grid_hours": ([1, 4, 24], "node MTBFs for the decision table, hours"),
    "restart_grid_minutes": ([5, 30], "restarts for the decision table, minutes"),
    "trace_files": (["p3-trace.csv", "g4dn-trace.csv"], "in book/data/traces/"),
    "window_seconds": (60.0, "co-preemption window, seconds"),
    "interval_minutes": (30.0, "a fixed interval to replay, minutes"),
    "pool_gang_sizes": ([1, 2, 4, 8, 16], "gangs to replay on each pool, nodes"),
}


def _in_unit(name: str, value: Any, unit: str, *, allow_zero: bool = False) -> float:
    """A duration given in ``unit`` (a bare number) or with its own unit ('90s'), in hours."""
    sign = ">= 0" if allow_zero else "> 0"
    unit_name = {"h": "hours", "min": "minutes", "s": "seconds"}[unit]
    expected = f"a duration {sign} ({unit_name}, or a string with a unit like '90s')"
    number = value
    if isinstance(value, str):
        try:
            number = float(value)  # a bare number is in the parameter's own unit
        except ValueError:
            number = parse_duration(name, value) / HOURS_PER_UNIT[unit]
    array = _as_float_array(name, number, expected) * HOURS_PER_UNIT[unit]
    return _check_range(name, array, minimum=0.0, allow_minimum=allow_zero, maximum=None,
                        expected=expected, original=value, scalar=True)


def _check_list(name: str, value: Any, check_one: Any) -> tuple:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise InputError(f"{name}: must be a list, got {_show(value)}")
    items = tuple(check_one(f"{name}[{i}]", item) for i, item in enumerate(value))
    if not items:
        raise InputError(f"{name}: must not be empty")
    return items


def _check_flag(name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
        return value.strip().lower() == "true"
    raise InputError(f"{name}: must be True or False, got {_show(value)}")


def _check_file_name(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{name}: must be a file name, got {_show(value)}")
    return value.strip()


def check_book_parameters(**values: Any) -> dict[str, Any]:
    """Check a chapter's parameters; return them in library units (hours, per hour).

    Unknown names are refused.  Returns ``preemption_rate`` (per hour), ``restart_time``,
    ``checkpoint_cost``, ``cadences``, ``notice``, ``notice_write`` and ``persist``
    (hours), ``notice_share`` and ``notice_shares`` (fractions), ``spot_discount``,
    ``gang_sizes``, ``restart_preemptible``, ``mtbf_hours``, ``seed``, ``jobs``,
    ``weibull_shapes`` and ``bulk_fractions``; for the calibration and fleet chapters
    ``exposure``, ``capacity_wait``, ``boot``, ``warmup``, ``rendezvous`` (hours),
    ``parameter_counts`` and ``lora_parameters`` (parameters), ``write_bandwidths``,
    ``snapshot_bandwidth`` and ``read_bandwidth`` (bytes per second), ``reserved_discount``,
    ``reserved_utilization``, ``mtbf_grid`` and ``restart_grid`` (hours); for the real
    preemptions chapter ``trace_files`` (names), ``window`` and ``interval`` (hours) and
    ``pool_gang_sizes``; for the names given.
    """
    check_known_names("parameter", values, BOOK_PARAMETERS)
    converters = {
        "mtbf_hours": lambda v: ("mtbf_hours", _in_unit("mtbf_hours", v, "h")),
        "spot_discount": lambda v: ("spot_discount", check_discount("spot_discount", v,
                                                                   scalar=True)),
        "restart_minutes": lambda v: ("restart_time", _in_unit("restart_minutes", v, "min",
                                                               allow_zero=True)),
        "checkpoint_minutes": lambda v: ("checkpoint_cost", _in_unit("checkpoint_minutes", v,
                                                                     "min")),
        "cadences_minutes": lambda v: ("cadences", _check_list(
            "cadences_minutes", v, lambda n, item: _in_unit(n, item, "min"))),
        "gang_sizes": lambda v: ("gang_sizes", _check_list("gang_sizes", v, check_gang_size)),
        "restart_preemptible": lambda v: ("restart_preemptible",
                                          _check_flag("restart_preemptible", v)),
        "seed": lambda v: ("seed", check_seed("seed", v)),
        "jobs": lambda v: ("jobs", check_gang_size("jobs", v, what="a whole number of jobs")),
        "weibull_shapes": lambda v: ("weibull_shapes",
                                     _check_list("weibull_shapes", v, check_positive)),
        "bulk_fractions": lambda v: ("bulk_fractions",
                                     _check_list("bulk_fractions", v, check_fraction)),
        "notice_seconds": lambda v: ("notice", _in_unit("notice_seconds", v, "s",
                                                        allow_zero=True)),
        "notice_share": lambda v: ("notice_share", check_fraction("notice_share", v)),
        "notice_shares": lambda v: ("notice_shares", _check_list("notice_shares", v,
                                                                 check_fraction)),
        "notice_write_seconds": lambda v: ("notice_write", _in_unit(
            "notice_write_seconds", v, "s", allow_zero=True)),
        "persist_minutes": lambda v: ("persist", _in_unit("persist_minutes", v, "min",
                                                          allow_zero=True)),
        "instance_hours": lambda v: ("exposure", _in_unit("instance_hours", v, "h")),
        "model_billions": lambda v: ("parameter_counts", tuple(1e9 * x for x in _check_list(
            "model_billions", v, check_positive))),
        "lora_millions": lambda v: ("lora_parameters", 1e6 * check_positive("lora_millions", v)),
        "write_gbytes_per_second": lambda v: ("write_bandwidths", tuple(1e9 * x for x in _check_list(
            "write_gbytes_per_second", v, check_positive))),
        "snapshot_gbytes_per_second": lambda v: (
            "snapshot_bandwidth", 1e9 * check_positive("snapshot_gbytes_per_second", v)),
        "read_gbytes_per_second": lambda v: (
            "read_bandwidth", 1e9 * check_positive("read_gbytes_per_second", v)),
        "capacity_wait_minutes": lambda v: ("capacity_wait", _in_unit(
            "capacity_wait_minutes", v, "min", allow_zero=True)),
        "boot_minutes": lambda v: ("boot", _in_unit("boot_minutes", v, "min", allow_zero=True)),
        "warmup_minutes": lambda v: ("warmup", _in_unit("warmup_minutes", v, "min",
                                                        allow_zero=True)),
        "reserved_discount": lambda v: ("reserved_discount", check_discount(
            "reserved_discount", v, scalar=True)),
        "reserved_utilization": lambda v: ("reserved_utilization", check_utilization(
            "reserved_utilization", v, scalar=True)),
        "rendezvous_minutes": lambda v: ("rendezvous", _in_unit("rendezvous_minutes", v, "min",
                                                                allow_zero=True)),
        "mtbf_grid_hours": lambda v: ("mtbf_grid", _check_list(
            "mtbf_grid_hours", v, lambda n, item: _in_unit(n, item, "h"))),
        "restart_grid_minutes": lambda v: ("restart_grid", _check_list(
            "restart_grid_minutes", v, lambda n, item: _in_unit(n, item, "min",
                                                                allow_zero=True))),
        "trace_files": lambda v: ("trace_files", _check_list("trace_files", v,
                                                             _check_file_name)),
        "window_seconds": lambda v: ("window", _in_unit("window_seconds", v, "s")),
        "interval_minutes": lambda v: ("interval", _in_unit("interval_minutes", v, "min")),
        "pool_gang_sizes": lambda v: ("pool_gang_sizes", _check_list(
            "pool_gang_sizes", v, check_gang_size)),
    }
    checked = dict(converters[name](value) for name, value in values.items())
    if "mtbf_hours" in checked:
        checked["preemption_rate"] = 1 / checked["mtbf_hours"]
    return checked
