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
from dataclasses import dataclass
from pathlib import Path
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
    "check_positive",
    "check_fraction",
    "check_number",
    "check_utilization",
    "check_seed",
    "check_choice",
    "check_known_names",
    "check_parameters",
    "check_book_parameters",
    "BOOK_PARAMETERS",
    "BOOK_TABLE",
    "BookParameter",
    "BookValues",
    "CHAPTER_PARAMETERS",
    "MAX_ITEMS",
    "TRACES",
    "chapter_parameters",
    "closest_name",
    "parameters_cell",
    "HOURS_PER_UNIT",
    "MAX_HOURS",
    "MAX_RATE",
    "BOUNDS",
]


class InputError(ValueError):
    """A user-supplied value is unusable; the message names the parameter and the value."""


#: The longest duration the command line and trace files accept, hours (about 114 years):
#: no schedule needs more, and far beyond it the arithmetic of the models overflows.
MAX_HOURS = 1e6
#: The highest preemption rate the command line accepts, per hour (one every 3.6 ms).
MAX_RATE = 1e6

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

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        Text with an optional unit (s, min, h, d; none means hours), or anything else, which
        is returned unchanged to be checked by :func:`check_duration`.

    Returns
    -------
    float or object
        Hours for a string; ``value`` itself otherwise.

    Raises
    ------
    InputError
        Text that is not a number with a known unit.

    Examples
    --------
    >>> parse_duration("restart", "10min"), parse_duration("restart", "1.5d")
    (0.16666666666666666, 36.0)
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

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        Text such as ``'0.25/h'`` (a bare number string is per hour), or anything else,
        returned unchanged to be checked by :func:`check_rate`.

    Returns
    -------
    float or object
        Preemptions per hour for a string; ``value`` itself otherwise.

    Raises
    ------
    InputError
        Text that is not a rate, or has an unknown unit or a zero time.

    Examples
    --------
    >>> parse_rate("rate", "6/d"), parse_rate("rate", "1/4h")
    (0.25, 0.25)
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


def _limits(low: float, high: float, unit: str) -> str:
    return (f"at most {high:g}" if low == 0 else f"from {low:g} to {high:g}") + f" {unit}"


#: The magnitudes the command line accepts, by kind: (lowest, highest, the message's words);
#: the lowest applies to values above 0 (a zero is checked by the caller).
BOUNDS: dict[str, tuple[float, float, str]] = {
    "duration": (0.0, MAX_HOURS, _limits(0.0, MAX_HOURS, "hours")),
    "rate": (1 / MAX_HOURS, MAX_RATE, _limits(1 / MAX_HOURS, MAX_RATE, "per hour")),
}


def _bound(name: str, value: float | np.ndarray, kind: str, original: Any
           ) -> float | np.ndarray:
    """Refuse magnitudes beyond what spotmath computes with (see :data:`BOUNDS`)."""
    low, high, words = BOUNDS[kind]
    array = np.asarray(value)
    bad = (array > high) | ((array < low) & (array > 0))
    if np.any(bad):
        shown = original if array.ndim == 0 else array[bad].flat[0]
        raise InputError(f"{name}: must be {words}, got {_show(shown)}")
    return value


def rate_from_mtbf(mtbf: Any, name: str = "mtbf") -> float:
    """The preemption rate of a mean time between preemptions.

    Parameters
    ----------
    mtbf : float or str
        Mean time between preemptions, > 0: hours, or text such as ``'4h'`` or ``'90min'``.
    name : str, optional
        The parameter's name, used in the error message. (default ``"mtbf"``).

    Returns
    -------
    float
        Preemptions per hour, one over the MTBF.

    Raises
    ------
    InputError
        A duration that is not positive and finite.

    Examples
    --------
    >>> rate_from_mtbf("4h"), rate_from_mtbf(0.5)
    (0.25, 2.0)
    """
    return 1 / check_duration(name, mtbf, scalar=True, bounded=True)


def check_duration(
    name: str, value: Any, *, allow_zero: bool = False, scalar: bool = False,
    bounded: bool = False,
) -> float | np.ndarray:
    """A finite duration in hours, positive (or ≥ 0 when ``allow_zero``).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        A number, an array of numbers, or text with a unit (``'10min'``).
    allow_zero : bool, optional
        Accept 0 (default False).
    scalar : bool, optional
        Require a single number (default False: arrays are checked element-wise).
    bounded : bool, optional
        Also refuse more than :data:`MAX_HOURS` (default False; the command line and
        trace files are bounded, the library's own arithmetic is not).

    Returns
    -------
    float or numpy.ndarray
        Hours.

    Raises
    ------
    InputError
        Not a number, not finite, negative (or zero without ``allow_zero``), beyond
        :data:`MAX_HOURS` when ``bounded``, or an array where ``scalar`` is asked for.

    Examples
    --------
    >>> check_duration("restart_time", "90s")
    0.025
    >>> try:
    ...     check_duration("interval", 0)
    ... except InputError as error:
    ...     print(error)
    interval: must be a duration > 0 (hours, or a string like '10min'), got 0
    """
    sign = ">= 0" if allow_zero else "> 0"
    expected = f"a duration {sign} (hours, or a string like '10min')"
    array = _as_float_array(name, parse_duration(name, value), expected)
    hours = _check_range(name, array, minimum=0.0, allow_minimum=allow_zero, maximum=None,
                         expected=expected, original=value, scalar=scalar)
    return _bound(name, hours, "duration", value) if bounded else hours


def check_rate(name: str, value: Any, *, scalar: bool = False,
               bounded: bool = False) -> float | np.ndarray:
    """A finite, positive rate per hour; arrays allowed.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        A number, an array of numbers, or text such as ``'0.25/h'``.
    scalar : bool, optional
        Require a single number (default False).
    bounded : bool, optional
        Also refuse rates below 1/:data:`MAX_HOURS` or above :data:`MAX_RATE` per hour
        (default False).

    Returns
    -------
    float or numpy.ndarray
        Per hour.

    Raises
    ------
    InputError
        Not a positive finite rate, or out of bounds when ``bounded``.

    Examples
    --------
    >>> check_rate("preemption_rate", "6/d")
    0.25
    """
    expected = "a rate > 0 per hour (a number, or a string like '0.25/h')"
    array = _as_float_array(name, parse_rate(name, value), expected)
    rate = _check_range(name, array, minimum=0.0, allow_minimum=False, maximum=None,
                        expected=expected, original=value, scalar=scalar)
    return _bound(name, rate, "rate", value) if bounded else rate


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
    """A spot discount strictly between 0 and 1; ``'60%'`` is accepted as 0.6.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        A fraction, an array of fractions, or a percentage string.
    scalar : bool, optional
        Require a single number (default False).

    Returns
    -------
    float or numpy.ndarray
        The discount as a fraction.

    Raises
    ------
    InputError
        Not strictly between 0 and 1 (a discount of 100% would make spot free).

    Examples
    --------
    >>> check_discount("spot_discount", "60%")
    0.6
    """
    expected = "a fraction strictly between 0 and 1 (0.6 or '60%')"
    number = _text_to_number(name, value, expected, percent=True)
    array = _as_float_array(name, number, expected)
    return _check_range(name, array, minimum=0.0, allow_minimum=False, maximum=1.0,
                        expected=expected, original=value, scalar=scalar)


def check_gang_size(name: str, value: Any, *, what: str = "a whole number of nodes") -> int:
    """A positive whole number (of nodes, by default): ``8``, ``8.0`` or ``'8'``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The number to check.
    what : str, optional
        What is counted, for the message (default ``"a whole number of nodes"``).

    Returns
    -------
    int

    Raises
    ------
    InputError
        Not a whole number ≥ 1 (``8.5``, ``0``, ``True``).

    Examples
    --------
    >>> check_gang_size("nodes", "8")
    8
    """
    expected = f"{what} >= 1"
    value = _text_to_number(name, value, expected)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"{name}: must be {expected}, got {_show(value)}")
    if not math.isfinite(value) or value < 1 or value != int(value):
        raise InputError(f"{name}: must be {expected}, got {_show(value)}")
    return int(value)


def check_positive(name: str, value: Any) -> float:
    """A single finite number > 0 (a Weibull shape, say).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object

    Returns
    -------
    float

    Raises
    ------
    InputError
        Not a positive finite number.

    Examples
    --------
    >>> check_positive("weibull_shape", 0.5)
    0.5
    """
    return check_number(name, value, minimum=0.0, allow_minimum=False,
                        expected="a number > 0", scalar=True)


def check_fraction(name: str, value: Any) -> float:
    """A single number in [0, 1] (inclusive, unlike the discount); ``'50%'`` is 0.5.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object

    Returns
    -------
    float

    Raises
    ------
    InputError
        Not a number in [0, 1].

    Examples
    --------
    >>> check_fraction("notice_share", "90%")
    0.9
    """
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
    """A finite number (or array) between ``minimum`` and ``maximum``, ends as allowed.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        A number, an array, or a number as text.
    minimum : float
        The lower end.
    allow_minimum : bool
        Whether the lower end itself is allowed.
    maximum : float, optional
        The upper end (default None: none).
    allow_maximum : bool, optional
        Whether the upper end itself is allowed (default False).
    expected : str
        What a good value is, for the message (``"a number > 0"``).
    scalar : bool, optional
        Require a single number (default False).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    InputError
        Out of range, not finite, or not a number.

    Examples
    --------
    >>> check_number("jobs", "40", minimum=1, allow_minimum=True, expected="a count >= 1")
    40.0
    """
    array = _as_float_array(name, _text_to_number(name, value, expected), expected)
    return _check_range(name, array, minimum=minimum, allow_minimum=allow_minimum,
                        maximum=maximum, allow_maximum=allow_maximum, expected=expected,
                        original=value, scalar=scalar)


def check_utilization(name: str, value: Any, *, scalar: bool = False) -> float | np.ndarray:
    """A share of paid hours that run jobs: a fraction in (0, 1].

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
    scalar : bool, optional
        Require a single number (default False).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    InputError
        Not in (0, 1].

    Examples
    --------
    >>> check_utilization("reserved_utilization", 0.8)
    0.8
    """
    return check_number(name, value, minimum=0.0, allow_minimum=False, maximum=1.0,
                        allow_maximum=True, expected="a fraction in (0, 1]", scalar=scalar)


def check_seed(name: str, value: Any) -> int:
    """A seed for NumPy's random generator: a whole number ≥ 0.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object

    Returns
    -------
    int

    Raises
    ------
    InputError
        Not a whole number ≥ 0 (floats and booleans are refused).

    Examples
    --------
    >>> check_seed("seed", 2026)
    2026
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) \
            or value < 0:
        raise InputError(f"{name}: must be a whole number >= 0, got {_show(value)}")
    return int(value)


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """One of a fixed set of strings.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
    choices : tuple of str
        The allowed values.

    Returns
    -------
    str

    Raises
    ------
    InputError
        Anything else (the message lists the choices).

    Examples
    --------
    >>> check_choice("model", "exact", ("exact", "first-order"))
    'exact'
    """
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{name}: must be one of {', '.join(choices)}; got {_show(value)}")
    return value


def check_known_names(kind: str, given: Any, known: Any) -> None:
    """Refuse names (of parameters, say) that are not in ``known``, listing the known ones.

    Parameters
    ----------
    kind : str
        What the names are, for the message (``"parameter"``).
    given : iterable of str
        The names supplied.
    known : iterable of str
        The names accepted.

    Raises
    ------
    InputError
        For the first unknown name, in sorted order.

    Examples
    --------
    >>> check_known_names("parameter", ["mtbf"], ["mtbf", "restart"])
    """
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
    """Check domain parameters by name; return their values in library units, in order.

    The one place the library checks its inputs: every public function passes its
    arguments through here, by their domain names.

    Parameters
    ----------
    scalar : bool, optional
        Require single numbers (default False: arrays are checked element-wise).
    **values
        ``preemption_rate`` (per hour or text such as ``'0.25/h'``), ``interval``,
        ``checkpoint_cost``, ``restart_time`` (hours or text such as ``'10min'``),
        ``spot_discount``, ``gang_size`` and the other names the library uses.

    Returns
    -------
    list
        The checked values, hours and per hour, in the order given.

    Raises
    ------
    InputError
        An unknown name or a bad value (the message names it).

    Examples
    --------
    >>> check_parameters(preemption_rate="0.25/h", restart_time="10min")
    [0.25, 0.16666666666666666]
    """
    check_known_names("parameter", values, _PARAMETER_CHECKS)
    return [_PARAMETER_CHECKS[name](value, scalar) for name, value in values.items()]


# -- the book's chapter parameters (papermill) ------------------------------------------------
#: Where a chapter's trace file names are looked up (a full path reads a trace of one's own).
TRACES = Path(__file__).resolve().parent.parent / "book" / "data" / "traces"
#: The most items a list parameter may hold.
MAX_ITEMS = 20
_UNIT_NAMES = {"h": "hours", "min": "minutes", "s": "seconds"}


def _list_value(name: str, value: Any) -> list:
    """A list parameter's items: a list, or text holding one in YAML (``'[1, 8, 32]'``,
    as ``papermill -p`` passes it)."""
    if isinstance(value, str):
        import yaml

        try:
            loaded = yaml.safe_load(value)
        except yaml.YAMLError:
            loaded = None
        if not isinstance(loaded, list):
            raise InputError(f"{name}: must be a list like [1, 8, 32], got {_show(value)}")
        value = loaded
    if isinstance(value, (bytes, dict)) or not hasattr(value, "__iter__"):
        raise InputError(f"{name}: must be a list like [1, 8, 32], got {_show(value)}")
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
      checked line by line; its full path in the library.

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
        if self.kind == "flag":
            return _check_flag(name, value)
        if self.kind == "trace":
            return _check_trace(name, value)
        if self.kind == "seed":
            number = check_seed(name, value)
            if number > self.high:
                raise InputError(f"{name}: must be a whole number {self._range()}, "
                                 f"got {_show(value)}")
            return number
        if self.kind == "whole":
            expected = f"a whole number {self._range()}"
            number = _text_to_number(name, value, expected)
            if isinstance(number, (bool, np.bool_)) or not isinstance(number, numbers.Real) \
                    or not math.isfinite(number) or number != int(number) \
                    or not self.low <= number <= self.high:
                raise InputError(f"{name}: must be {expected}, got {_show(value)}")
            return int(number)
        if self.kind == "duration":
            expected = (f"a duration {self._range()} (or a string with a unit like "
                        "'90s')")
            number = value
            if isinstance(value, str):
                try:
                    number = float(value)  # a bare number is in the parameter's own unit
                except ValueError:
                    number = parse_duration(name, value) / HOURS_PER_UNIT[self.unit]
            hours = HOURS_PER_UNIT[self.unit]
        else:  # number, fraction
            expected = f"a {'fraction' if self.kind == 'fraction' else 'number'} " \
                       f"{self._range()}"
            number = _text_to_number(name, value, expected, percent=self.kind == "fraction")
            hours = 1.0
        array = _as_float_array(name, number, expected)
        checked = _check_range(name, array, minimum=self.low, allow_minimum=True,
                               maximum=self.high, allow_maximum=True, expected=expected,
                               original=value, scalar=True)
        return checked * (hours if self.kind == "duration" else self.scale)


def _check_flag(name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
        return value.strip().lower() == "true"
    raise InputError(f"{name}: must be True or False, got {_show(value)}")


def _check_trace(name: str, value: Any) -> Any:
    """A trace file by name in :data:`TRACES` (or a full path), read, checked and fitted."""
    from .traces import read_trace

    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{name}: must be a file name, got {_show(value)}")
    path = Path(value.strip()).expanduser()
    path = path if path.is_absolute() else TRACES / path
    if not path.is_file():
        raise InputError(f"{name}: no trace file {value.strip()!r} (names are looked up in "
                         "book/data/traces/; give a full path for a trace of your own)")
    from .fitting import fit_trace

    # Every line checked, and the fit the chapter rests on made, before it computes anything
    try:
        fit = fit_trace(read_trace(path))
    except InputError as error:
        raise InputError(f"{name}: {error}") from None
    if fit.weibull_shape is None:
        raise InputError(f"{name}: {path.name}: {fit.weibull_note}; the chapter fits a "
                         "Weibull shape to every trace")
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
    check_known_names("parameter", values, _BY_NAME)
    checked = BookValues(
        (_BY_NAME[name].library, _BY_NAME[name].check(value)) for name, value in values.items())
    if "mtbf_hours" in checked:
        checked["preemption_rate"] = 1 / checked["mtbf_hours"]
        if checked.get("persist", 0.0) >= checked["mtbf_hours"]:
            raise InputError("persist_minutes: must be shorter than the MTBF (mtbf_hours: "
                             f"{checked['mtbf_hours']:g} h), got "
                             f"{_show(values['persist_minutes'])}")
    if checked.get("notice_share", 0.0) > 0 and checked.get("notice", 1.0) == 0:
        raise InputError("notice_share: must be 0 when notice_seconds is 0 (there is no "
                         f"notice to act on), got {_show(values['notice_share'])}")
    return checked


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
    "calibration": ("mtbf_hours", "instance_hours", "model_billions", "lora_millions",
                    "write_gbytes_per_second", "snapshot_gbytes_per_second",
                    "read_gbytes_per_second", "capacity_wait_minutes", "boot_minutes",
                    "warmup_minutes"),
    "fleet": ("mtbf_hours", "spot_discount", "restart_minutes", "checkpoint_minutes",
              "gang_sizes", "restart_preemptible", "reserved_discount",
              "reserved_utilization", "rendezvous_minutes", "model_billions",
              "write_gbytes_per_second", "mtbf_grid_hours", "restart_grid_minutes"),
    "your_numbers": ("mtbf_hours", "spot_discount", "restart_minutes", "checkpoint_minutes",
                     "cadences_minutes", "gang_sizes", "restart_preemptible",
                     "notice_seconds", "notice_share", "notice_write_seconds",
                     "persist_minutes"),
}


def closest_name(name: str, names: Any) -> str:
    """`` (did you mean X?)`` for the closest of ``names``, or nothing.

    Parameters
    ----------
    name : str
        A name that was not found.
    names : iterable of str
        The names there are.

    Returns
    -------
    str
        The phrase to append to a message, or ``""`` when no name is close.

    Examples
    --------
    >>> closest_name("mtbf_hour", ["mtbf_hours", "seed"]), closest_name("zzz", ["seed"])
    (' (did you mean mtbf_hours?)', '')
    """
    import difflib

    match = difflib.get_close_matches(name, list(names), n=1, cutoff=0.6)
    return f" (did you mean {match[0]}?)" if match else ""


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
    for name in _injected_names(shell):
        if name not in declared and not name.startswith("PAPERMILL_"):
            raise InputError(f"{name}: not a parameter of this chapter"
                             f"{closest_name(name, declared)}; it takes: "
                             f"{', '.join(declared)}")
    missing = [name for name in declared if name not in namespace]
    if missing:
        raise InputError(f"{missing[0]}: not set (the chapter's parameters cell declares it)")
    return check_book_parameters(**{name: namespace[name] for name in declared})
