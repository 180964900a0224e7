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

from .docs import fill_doc

__all__ = [
    "WORDS",
    "InputError",
    "file_error",
    "duration_text",
    "share_text",
    "count_text",
    "figures_text",
    "NUMBER_TEMPLATES",
    "DURATION_UNITS",
    "parse_number",
    "parse_duration",
    "parse_rate",
    "rate_from_mtbf",
    "check_duration",
    "check_rate",
    "check_discount",
    "check_gang_size",
    "check_positive",
    "check_fraction",
    "check_size",
    "check_number",
    "check_utilization",
    "check_seed",
    "check_choice",
    "check_known_names",
    "closest_name",
    "show",
    "check_parameters",
    "HOURS_PER_UNIT",
    "BYTES_PER_UNIT",
    "MAX_HOURS",
    "HOURS_PER_YEAR",
    "MAX_RATE",
    "MAX_COUNT",
    "BOUNDS",
    "COMPUTABLE",
]


class InputError(ValueError):
    """A user-supplied value is unusable: one line, ``NAME: what is wrong``.

    ``name`` is what the message names (a parameter, an option such as ``--checkpoint``,
    or a file and line such as ``t.csv:3``) and ``detail`` the rest; given a single
    message, the name is what comes before its first ``": "``.  :meth:`renamed` is the same
    error under another name (the command line shows its options' names).

    Examples
    --------
    >>> error = InputError("checkpoint_cost: must be a duration > 0, got 0")
    >>> error.name, str(error.renamed("--checkpoint"))
    ('checkpoint_cost', '--checkpoint: must be a duration > 0, got 0')
    """

    def __init__(self, message: str, *, name: str | None = None) -> None:
        if name is None:
            name, _, detail = message.partition(": ")
        else:
            detail = message
        super().__init__(f"{name}: {detail}" if detail else name)
        self.name = name
        self.detail = detail

    def renamed(self, name: str, mentions: dict[str, str] | None = None) -> InputError:
        """The same error, naming ``name`` instead; ``mentions`` renames other parameters
        the message names (whole words: ``{"level2_every": "--level2-every"}``)."""
        detail = self.detail
        for old, new in (mentions or {}).items():
            detail = re.sub(rf"(?<![\w-]){re.escape(old)}(?![\w-])", new, detail)
        return InputError(detail, name=name)


def file_error(name: str, where: str | int | None, message: str) -> InputError:
    """The error of a data file: ``FILE:WHERE: message``, or ``FILE: message``.

    Parameters
    ----------
    name : str
        The file's name.
    where : str, int or None
        The line (or entry) at fault; None where the whole file is.
    message : str
        What is wrong.

    Returns
    -------
    InputError
        The error to raise.

    Examples
    --------
    >>> str(file_error("t.csv", 3, "time must increase"))
    't.csv:3: time must increase'
    >>> str(file_error("t.csv", None, "empty file"))
    't.csv: empty file'
    """
    return InputError(message, name=f"{name}:{where}" if where is not None else name)


#: The longest duration the command line and trace files accept, hours (about 114 years):
#: no schedule needs more, and far beyond it the arithmetic of the models overflows.
MAX_HOURS = 1e6
#: Hours in a year, a Julian one (365.25 days): how durations of two years and more are
#: written back (:data:`DURATION_UNITS`), and what ``'5years'`` reads as.
HOURS_PER_YEAR = 8766.0
#: The highest preemption rate the command line accepts, per hour (one every 3.6 ms).
MAX_RATE = 1e6
#: The largest count (of nodes, GPUs, jobs, draws) any check accepts: 2**53, the largest
#: whole number below which every whole number is a float.
MAX_COUNT = 2**53

HOURS_PER_UNIT: dict[str, float] = {
    "s": 1 / 3600, "sec": 1 / 3600, "secs": 1 / 3600, "second": 1 / 3600, "seconds": 1 / 3600,
    "min": 1 / 60, "mins": 1 / 60, "minute": 1 / 60, "minutes": 1 / 60,
    "h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0,
    "d": 24.0, "day": 24.0, "days": 24.0,
    "y": HOURS_PER_YEAR, "yr": HOURS_PER_YEAR, "yrs": HOURS_PER_YEAR,
    "year": HOURS_PER_YEAR, "years": HOURS_PER_YEAR,
}

#: Bytes in each unit of size: decimal (kB, MB, GB, TB, as storage and bandwidth are sold)
#: and binary (KiB, MiB, GiB, TiB).  Read without regard to case: a ``b`` is a byte here.
BYTES_PER_UNIT: dict[str, float] = {
    "b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
    "kib": 2.0**10, "mib": 2.0**20, "gib": 2.0**30, "tib": 2.0**40,
}
#: The largest size or bandwidth taken, bytes (or bytes a second): an exabyte.
MAX_BYTES = 1e18

#: The one grammar of a number written as text, everywhere (options, parameters, data
#: files): ASCII decimal digits with an optional sign, fraction and exponent.  No ``_``
#: separators, hexadecimal, ``inf`` or ``nan``, and no digits of other scripts, all of
#: which Python's ``float`` would take.
_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER_RE = re.compile(_NUMBER, re.ASCII)
_DURATION_RE = re.compile(rf"^\s*(?P<value>{_NUMBER})\s*(?P<unit>[A-Za-z]*)\s*$", re.ASCII)
_SIZE_RE = re.compile(
    rf"^\s*(?P<value>{_NUMBER})\s*(?P<unit>[A-Za-z]+)\s*(?P<per>/\s*s)?\s*$", re.ASCII)
_RATE_RE = re.compile(
    rf"^\s*(?P<value>{_NUMBER})\s*/\s*(?P<per>{_NUMBER})?\s*(?P<unit>[A-Za-z]+)\s*$",
    re.ASCII)


def parse_number(text: str) -> float | None:
    """The number ``text`` holds in the one grammar of numbers, or None.

    Parameters
    ----------
    text : str
        A number as text; spaces around it are allowed.

    Returns
    -------
    float or None
        None where ``text`` is not a plain ASCII decimal (``1_000``, ``0x10``, ``inf``,
        ``nan``, ``٤``).

    Examples
    --------
    >>> parse_number(" 1e-3 "), parse_number("1_000"), parse_number("0x10")
    (0.001, None, None)
    """
    stripped = text.strip()
    return float(stripped) if _NUMBER_RE.fullmatch(stripped) else None


# -- numbers written back: the other way from parse_duration ---------------------------
#: How durations and shares are written back, once (the page fills the same templates):
#: a duration in the unit :data:`DURATION_UNITS` picks, a share as a percentage.
NUMBER_TEMPLATES = {"duration": "{value:.3g} {unit}", "share": "{share:.1%}",
                    "none": "none", "no_share": "n/a",
                    "beyond": "never in practice (over {years:.3g} years)"}
#: The units :func:`duration_text` writes, in order: ``[unit, below, times, per]``: a
#: duration shorter than ``below`` hours (None: any) is written as hours * times / per.
#: Each unit from two of it on (48 h is 2 d, two years 730.5 d), so that a plural never
#: reads "1 years" and three figures never need an exponent below :data:`MAX_HOURS`.
DURATION_UNITS = [["s", 1 / 60, 3600, 1], ["min", 1, 60, 1], ["h", 48, 1, 1],
                  ["d", 2 * HOURS_PER_YEAR, 1, 24], ["years", None, 1, HOURS_PER_YEAR]]

def duration_text(hours: float | None) -> str:
    """Hours as a readable duration: '45 s', '21.2 min', '4.44 h', '3.2 d', '5.77 years'.

    Parameters
    ----------
    hours : float or None
        A duration in hours; None reads "none".

    Returns
    -------
    str
        Three significant figures in the largest unit that keeps the number at least 1
        (:data:`NUMBER_TEMPLATES`, :data:`DURATION_UNITS`).

    Raises
    ------
    InputError
        Not a finite number (text such as ``'4h'``, NaN, infinity).

    Examples
    --------
    >>> duration_text(21.2 / 60), duration_text(6.18), duration_text(0.0125)
    ('21.2 min', '6.18 h', '45 s')
    >>> duration_text(600), duration_text(50_600)  # a GPU's mean time between failures
    ('25 d', '5.77 years')
    >>> duration_text(3.56e31)  # longer than :data:`MAX_HOURS`
    'never in practice (over 114 years)'
    """
    if hours is None:
        return NUMBER_TEMPLATES["none"]
    if isinstance(hours, (bool, np.bool_)) or not isinstance(hours, numbers.Real) \
            or abs(hours) > 1e308 or not math.isfinite(hours):  # 10**400 has no float
        raise _must("hours", "a finite number of hours (or None)", hours)
    if hours > MAX_HOURS:  # no schedule lasts that long: 1e+31 d is no answer
        return NUMBER_TEMPLATES["beyond"].format(years=MAX_HOURS / HOURS_PER_YEAR)
    unit, _, times, per = next(row for row in DURATION_UNITS
                               if row[1] is None or hours < row[1])
    return NUMBER_TEMPLATES["duration"].format(value=hours * times / per, unit=unit)


def count_text(count: int, unit: str = "") -> str:
    """A count as a message shows it: 4,096, but 1e+308 rather than its 309 digits; with
    a ``unit``, in its singular or plural.

    Parameters
    ----------
    count : int
        A whole number ≥ 0, however large.
    unit : str, optional
        What is counted, in the singular (``"GPU"``); none by default.

    Returns
    -------
    str

    Raises
    ------
    InputError
        A count that is not a whole number ≥ 0.

    Examples
    --------
    >>> count_text(4096), count_text(10**308), count_text(1, "GPU"), count_text(8, "GPU")
    ('4,096', '1e+308', '1 GPU', '8 GPUs')
    """
    whole = isinstance(count, numbers.Integral) and not isinstance(count, (bool, np.bool_))
    if not whole and not (isinstance(count, float) and math.isfinite(count)
                          and count == int(count)) or count < 0:
        raise _must("count", "a whole number >= 0", count)  # any size: 10**400 is shown
    count = int(count)
    text = f"{count:,}" if count < 10**15 else f"{float(count):.3g}" if count <= 1e308 \
        else _magnitude(count)
    return f"{text} {unit}{'' if count == 1 else 's'}" if unit else text


def figures_text(value: float) -> str:
    """A measured number as a message shows it: three significant figures, whole ones
    grouped by thousands (6,670 and 40,000, not 6.67e+03 and 4e+04), with an exponent
    only from 10¹⁵ on, as :func:`count_text`.

    Parameters
    ----------
    value : float
        A finite number (a load of requests, say).

    Returns
    -------
    str

    Raises
    ------
    InputError
        Not a finite number.

    Examples
    --------
    >>> figures_text(0.5), figures_text(16.0), figures_text(6666.7), figures_text(1.2e6)
    ('0.5', '16', '6,670', '1,200,000')
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) \
            or abs(value) > 1e308 or not math.isfinite(value):
        raise _must("value", "a finite number", value)
    rounded = float(f"{value:.3g}")
    return f"{rounded:,.0f}" if 1000 <= abs(rounded) < 1e15 else f"{value:.3g}"


def share_text(share: float | None) -> str:
    """A share as a percentage with one decimal: '5.5%'; None reads "n/a".

    Parameters
    ----------
    share : float or None
        A fraction (0.055 is 5.5%).

    Returns
    -------
    str
        :data:`NUMBER_TEMPLATES`' share, or its ``no_share``.

    Examples
    --------
    >>> share_text(0.0551), share_text(None)
    ('5.5%', 'n/a')
    """
    if share is None:
        return NUMBER_TEMPLATES["no_share"]
    return NUMBER_TEMPLATES["share"].format(share=share)


def _magnitude(whole: int) -> str:
    """A whole number of any size in three figures: 1.00e+400 (no float holds 10**400)."""
    digits = str(abs(whole))
    return f"{'-' * (whole < 0)}{digits[0]}.{digits[1:3].ljust(2, '0')}e+{len(digits) - 1}"


def show(value: Any) -> str:
    """The value as the user gave it, short enough for a one-line message (text quoted).

    Parameters
    ----------
    value : object
        Anything a user gave.

    Returns
    -------
    str
        Its ``repr`` for text, its ``str`` otherwise, on one line, at most 60 characters.

    Examples
    --------
    >>> show("4 hous"), show(-1), show(10**400)
    ("'4 hous'", '-1', '1.00e+400')
    """
    text = repr(value) if isinstance(value, str) else str(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) \
            and abs(value) >= 10**16:  # 10**400 as 1.00e+400, not 401 digits
        text = _magnitude(int(value))
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


#: The words of the checks' messages, written once: ``{...}`` fields filled with
#: :meth:`str.format`.  The page's calculator fills the same templates
#: (``spotmath/web/data.js``, generated from here by ``spotmath.web.codegen``).
WORDS: dict[str, str] = {
    "must": "{name}: must be {expected}, got {value}",
    "duration": "a duration {sign} (hours, or a string like '10min')",
    "rate": "a rate > 0 per hour (a number, or a string like '0.25/h')",
    "discount": "a fraction strictly between 0 and 1 (0.6 or '60%')",
    "fraction": "a fraction in [0, 1]",
    "count": "{what} >= 1",
    "count_most": "{what} of at most 2**53",
    "nodes": "a whole number of nodes",
    "not_duration": "{name}: not a duration: {value} (use hours, or a number with a unit "
                    "such as '90s', '10min', '4h', '1.5d')",
    "not_rate": "{name}: not a rate: {value} (use a number per hour, or a string such as "
                "'0.25/h' or '6/d')",
    "unknown_unit": "{name}: unknown time unit {unit} in {value} (use s, min, h, d or years)",
    "zero_time": "{name}: the time in {value} must be positive",
    "size": "a size > 0 (bytes, or '13.2GB' or '12GiB')",
    "bandwidth": "a bandwidth > 0 (bytes a second, or '1.2GB/s' or '500MiB/s')",
    "not_size": "{name}: not a size: {value} (use a number with a unit such as '13.2GB' or "
                "'12GiB'; units B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)",
    "not_bandwidth": "{name}: not a bandwidth: {value} (use a number with a unit such as "
                     "'1.2GB/s' or '500MiB/s'; units B, kB, MB, GB, TB, KiB, MiB, GiB, "
                     "TiB, a second)",
    "computable": "beyond what spotmath computes with: {low:g} to {high:g}, or 0 where "
                  "allowed",
    "long_write": "{name}: {size:.3g} bytes at {rate:.3g} bytes a second take longer than "
                  "{hours:g} hours, the longest write a plan takes",
}


def _must(name: str, expected: str, value: Any) -> InputError:
    """The error for a value that is not what ``expected`` describes."""
    return InputError(WORDS["must"].format(name=name, expected=expected, value=show(value)))


def _as_float_array(name: str, value: Any, expected: str) -> np.ndarray:
    """Convert a number or array-like of numbers to floats, or fail naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise _must(name, expected, value)
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):  # 10**400 has no float
        raise _must(name, expected, value) from None
    if array.dtype.kind != "f" or np.asarray(value).dtype.kind not in "iuf":
        raise _must(name, expected, value)
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
        raise _must(name, expected, shown)
    array = array + 0.0  # -0 is 0
    return float(array) if array.ndim == 0 else array


def _checked(
    name: str, value: Any, *, expected: str, minimum: float, allow_minimum: bool,
    maximum: float | None, original: Any, scalar: bool, allow_maximum: bool = False,
) -> float | np.ndarray:
    """``value`` as floats in the range, or the error naming ``name``.

    A plain float, what the library's own solvers pass thousands of times, is checked
    without NumPy: the same tests and the same result as the array path.
    """
    if type(value) in (float, np.float64):
        number = float(value)
        low = number < minimum if allow_minimum else number <= minimum
        high = maximum is not None and (number > maximum if allow_maximum
                                        else number >= maximum)
        if not math.isfinite(number) or low or high:
            raise _must(name, expected, original)
        return number + 0.0  # -0 is 0 ('-0min' a restart of 0, not of -0.0 h)
    return _check_range(name, _as_float_array(name, value, expected), minimum=minimum,
                        allow_minimum=allow_minimum, maximum=maximum,
                        allow_maximum=allow_maximum, expected=expected, original=original,
                        scalar=scalar)


@fill_doc
def parse_duration(name: str, value: Any) -> Any:
    """Turn ``'90s'``, ``'10min'``, ``'4h'``, ``'1.5d'`` (or a bare number string) into hours.

    Parameters
    ----------
    name : str
        [[name]]
    value : object
        Text with an optional unit (s, min, h, d, years; none means hours), or anything
        else, which is returned unchanged to be checked by :func:`check_duration`.

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
        raise InputError(WORDS["not_duration"].format(name=name, value=show(value)))
    unit = match["unit"].lower() or "h"
    if unit not in HOURS_PER_UNIT:
        raise InputError(WORDS["unknown_unit"].format(name=name, unit=repr(match["unit"]),
                                                      value=show(value)))
    return float(match["value"]) * HOURS_PER_UNIT[unit]


@fill_doc
def parse_rate(name: str, value: Any) -> Any:
    """Turn ``'0.25/h'``, ``'6/d'`` or ``'1/4h'`` into a rate per hour.

    Parameters
    ----------
    name : str
        [[name]]
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
            raise InputError(WORDS["unknown_unit"].format(
                name=name, unit=repr(match["unit"]), value=show(value)))
        per = float(match["per"]) if match["per"] else 1.0
        hours = per * HOURS_PER_UNIT[unit]
        if hours <= 0:
            raise InputError(WORDS["zero_time"].format(name=name, value=show(value)))
        return float(match["value"]) / hours
    number = parse_number(value)
    if number is None:
        raise InputError(WORDS["not_rate"].format(name=name, value=show(value)))
    return number


def _limits(low: float, high: float, unit: str) -> str:
    return (f"at most {high:g}" if low == 0 else f"from {low:g} to {high:g}") + f" {unit}"


#: The magnitudes the command line accepts, by kind: (lowest, highest, the message's words);
#: the lowest applies to values above 0 (a zero is checked by the caller).
BOUNDS: dict[str, tuple[float, float, str]] = {
    "duration": (0.0, MAX_HOURS, _limits(0.0, MAX_HOURS, "hours")),
    "rate": (1 / MAX_HOURS, MAX_RATE, _limits(1 / MAX_HOURS, MAX_RATE, "per hour")),
}


#: The magnitudes of a rate or duration above 0 the library computes with: 1e-150 to
#: 1e100 (hours, or per hour).  The models multiply, divide and exponentiate rates and
#: durations together; within these no product or quotient of two, nor the square of a
#: reciprocal, leaves the normal doubles, where 1e-320 (a subnormal number) has no
#: reciprocal, 1e-300 squared is 0 and 1e154 squared overflows.  The command line bounds
#: them far tighter (:data:`BOUNDS`).
COMPUTABLE = (1e-150, 1e100)


def _computable(name: str, value: float | np.ndarray, expected: str, original: Any) -> None:
    """Refuse a positive rate or duration beyond :data:`COMPUTABLE`; checked rates and
    durations are ≥ 0 already."""
    low, high = COMPUTABLE
    if type(value) is float:  # the solvers' thousands of calls: no NumPy
        if not (0.0 < value < low or value > high):
            return
        shown = original
    else:
        bad = ((value > 0) & (value < low)) | (value > high)
        if not np.any(bad):
            return
        shown = original if np.ndim(value) == 0 else np.asarray(value)[bad].flat[0]
    raise InputError(WORDS["must"].format(name=name, expected=expected, value=show(shown))
                     + " (" + WORDS["computable"].format(low=low, high=high) + ")")


def _bound(name: str, value: float | np.ndarray, kind: str, original: Any
           ) -> float | np.ndarray:
    """Refuse magnitudes beyond what spotmath computes with (see :data:`BOUNDS`)."""
    low, high, words = BOUNDS[kind]
    array = np.asarray(value)
    bad = (array > high) | ((array < low) & (array > 0))
    if np.any(bad):
        shown = original if array.ndim == 0 else array[bad].flat[0]
        raise _must(name, words, shown)
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
    rate = 1 / check_duration(name, mtbf, scalar=True, bounded=True)
    if not math.isfinite(rate):  # so short (1e-320 h) that one over it overflows
        raise _must(name, WORDS["duration"].format(sign="> 0"), mtbf)
    return rate


@fill_doc
def check_duration(
    name: str, value: Any, *, allow_zero: bool = False, scalar: bool = False,
    bounded: bool = False,
) -> float | np.ndarray:
    """A finite duration in hours, positive (or ≥ 0 when ``allow_zero``).

    Parameters
    ----------
    name : str
        [[name]]
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
        :data:`MAX_HOURS` when ``bounded``, beyond :data:`COMPUTABLE` always, or an
        array where ``scalar`` is asked for.

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
    expected = WORDS["duration"].format(sign=sign)
    hours = _checked(name, parse_duration(name, value), minimum=0.0,
                     allow_minimum=allow_zero, maximum=None, expected=expected,
                     original=value, scalar=scalar)
    if bounded:  # the command line's bounds first: their message says what fits
        _bound(name, hours, "duration", value)
    _computable(name, hours, expected, value)
    return hours


@fill_doc
def check_rate(name: str, value: Any, *, scalar: bool = False, bounded: bool = False,
               allow_zero: bool = False) -> float | np.ndarray:
    """A finite, positive rate per hour (or ≥ 0 when ``allow_zero``); arrays allowed.

    Parameters
    ----------
    name : str
        [[name]]
    value : object
        A number, an array of numbers, or text such as ``'0.25/h'``.
    scalar : bool, optional
        [[scalar]]
    bounded : bool, optional
        Also refuse rates below 1/:data:`MAX_HOURS` (but 0) or above :data:`MAX_RATE` per
        hour (default False).
    allow_zero : bool, optional
        Accept 0 (default False): a stream of requests that never come.

    Returns
    -------
    float or numpy.ndarray
        Per hour.

    Raises
    ------
    InputError
        Not a positive finite rate, out of bounds when ``bounded``, or beyond
        :data:`COMPUTABLE`.

    Examples
    --------
    >>> check_rate("preemption_rate", "6/d")
    0.25
    """
    expected = WORDS["rate"].replace("> 0", ">= 0") if allow_zero else WORDS["rate"]
    rate = _checked(name, parse_rate(name, value), minimum=0.0, allow_minimum=allow_zero,
                    maximum=None, expected=expected, original=value, scalar=scalar)
    if bounded:
        _bound(name, rate, "rate", value)
    _computable(name, rate, expected, value)
    return rate


def check_size(name: str, value: Any, *, per_second: bool = False) -> float:
    """A size in bytes (``'13.2GB'``, ``'12GiB'``), or a bandwidth in bytes a second
    (``'1.2GB/s'``) when ``per_second``; a number is taken as bytes (a second).

    Parameters
    ----------
    name : str
        [[name]]
    value : object
        Text with a unit of :data:`BYTES_PER_UNIT` (and ``/s`` for a bandwidth), or a
        number of bytes.
    per_second : bool, optional
        Read a bandwidth (default False: a size).

    Returns
    -------
    float
        Bytes, or bytes a second.

    Raises
    ------
    InputError
        Text without a known unit (or with ``/s`` missing or extra), or a value not above
        0 or above :data:`MAX_BYTES`.

    Examples
    --------
    >>> check_size("--state", "13.2GB"), check_size("--write-bandwidth", "1GiB/s",
    ...                                             per_second=True)
    (13200000000.0, 1073741824.0)
    """
    kind = "bandwidth" if per_second else "size"
    number = value
    if isinstance(value, str):
        match = _SIZE_RE.match(value)
        unit = match["unit"].lower() if match else None
        if match is None or unit not in BYTES_PER_UNIT or bool(match["per"]) != per_second:
            raise InputError(WORDS[f"not_{kind}"].format(name=name, value=show(value)))
        number = float(match["value"]) * BYTES_PER_UNIT[unit]
    expected = WORDS[kind]
    size = _checked(name, number, minimum=0.0, allow_minimum=False, maximum=MAX_BYTES,
                    expected=expected, original=value, scalar=True)
    return float(size)


def _text_to_number(name: str, value: Any, expected: str, *, percent: bool = False) -> Any:
    """A string holding a plain number (or ``'60%'`` when ``percent``) becomes that float.

    Other values pass unchanged, to be checked by the caller; a string that is not a number
    is refused, naming ``name``.
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    hundredths = percent and text.endswith("%")
    number = parse_number(text[:-1] if hundredths else text)
    if number is None:
        raise _must(name, expected, value)
    return number / 100 if hundredths else number


@fill_doc
def check_discount(name: str, value: Any, *, scalar: bool = False) -> float | np.ndarray:
    """A spot discount strictly between 0 and 1; ``'60%'`` is accepted as 0.6.

    Parameters
    ----------
    name : str
        [[name]]
    value : object
        A fraction, an array of fractions, or a percentage string.
    scalar : bool, optional
        [[scalar]]

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
    expected = WORDS["discount"]
    number = _text_to_number(name, value, expected, percent=True)
    return _checked(name, number, minimum=0.0, allow_minimum=False, maximum=1.0,
                    expected=expected, original=value, scalar=scalar)


@fill_doc
def check_gang_size(name: str, value: Any, *, what: str = WORDS["nodes"],
                    allow_zero: bool = False) -> int:
    """A positive whole number (of nodes, by default): ``8``, ``8.0`` or ``'8'``.

    Parameters
    ----------
    name : str
        [[name]]
    value : object
        The number to check.
    what : str, optional
        What is counted, for the message (default ``"a whole number of nodes"``).
    allow_zero : bool, optional
        Accept 0 too (a count that may be none, such as GPUs held back).

    Returns
    -------
    int

    Raises
    ------
    InputError
        Not a whole number ≥ 1 (≥ 0 with ``allow_zero``): ``8.5``, ``0``, ``True``.

    Examples
    --------
    >>> check_gang_size("nodes", "8")
    8
    """
    expected = WORDS["count"].format(what=what)
    if allow_zero:
        expected = expected.replace(">= 1", ">= 0")
    given = value  # the message shows it as given: '0', not 0.0
    value = _text_to_number(name, value, expected)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise _must(name, expected, given)
    whole = isinstance(value, numbers.Integral)  # 10**400: whole, but no float holds it
    if not whole and (not math.isfinite(value) or value != int(value)) \
            or value < (0 if allow_zero else 1):
        raise _must(name, expected, given)
    if value > MAX_COUNT:
        raise _must(name, WORDS["count_most"].format(what=what), given)
    return int(value)


@fill_doc
def check_positive(name: str, value: Any) -> float:
    """A single finite number > 0 (a Weibull shape, say).

    Parameters
    ----------
    name : str
        [[name]]
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


@fill_doc
def check_fraction(name: str, value: Any) -> float:
    """A single number in [0, 1] (inclusive, unlike the discount); ``'50%'`` is 0.5.

    Parameters
    ----------
    name : str
        [[name]]
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
    expected = WORDS["fraction"]
    array = _as_float_array(name, _text_to_number(name, value, expected, percent=True),
                            expected)
    bad = array.ndim != 0 or not np.isfinite(array) or not 0 <= float(array) <= 1
    if bad:
        raise _must(name, expected, value)
    return float(array)


@fill_doc
def check_number(name: str, value: Any, *, minimum: float, allow_minimum: bool,
                 maximum: float | None = None, allow_maximum: bool = False,
                 expected: str, scalar: bool = False) -> float | np.ndarray:
    """A finite number (or array) between ``minimum`` and ``maximum``, ends as allowed.

    Parameters
    ----------
    name : str
        [[name]]
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
        [[scalar]]

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
    number = _checked(name, _text_to_number(name, value, expected), minimum=minimum,
                      allow_minimum=allow_minimum, maximum=maximum,
                      allow_maximum=allow_maximum, expected=expected, original=value,
                      scalar=scalar)
    if maximum is None and minimum >= 0:  # a magnitude, not a fraction: as a duration
        _computable(name, number, expected, value)
    return number


@fill_doc
def check_utilization(name: str, value: Any, *, scalar: bool = False) -> float | np.ndarray:
    """A share of paid hours that run jobs: a fraction in (0, 1].

    Parameters
    ----------
    name : str
        [[name]]
    value : object
    scalar : bool, optional
        [[scalar]]

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    InputError
        Not in (0, 1], or below :data:`COMPUTABLE` (a price is divided by it).

    Examples
    --------
    >>> check_utilization("reserved_utilization", 0.8)
    0.8
    """
    expected = "a fraction in (0, 1]"
    share = check_number(name, value, minimum=0.0, allow_minimum=False, maximum=1.0,
                         allow_maximum=True, expected=expected, scalar=scalar)
    _computable(name, share, expected, value)
    return share


@fill_doc
def check_seed(name: str, value: Any) -> int:
    """A seed for NumPy's random generator: a whole number ≥ 0.

    Parameters
    ----------
    name : str
        [[name]]
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
        raise _must(name, "a whole number >= 0", value)
    return int(value)


@fill_doc
def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """One of a fixed set of strings.

    Parameters
    ----------
    name : str
        [[name]]
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
        raise InputError(f"{name}: must be one of {', '.join(choices)}; got {show(value)}")
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
    "prior_preemptions": lambda v, scalar: check_positive("prior_preemptions", v),
    "weibull_scale": lambda v, scalar: check_duration("weibull_scale", v, scalar=scalar),
    "bulk_fraction": lambda v, scalar: check_fraction("bulk_fraction", v),
    "jobs": lambda v, scalar: check_gang_size("jobs", v, what="a whole number of jobs"),
    "seed": lambda v, scalar: check_seed("seed", v),
    # two-level checkpoints
    "level1_cost": lambda v, scalar: check_duration("level1_cost", v, allow_zero=True,
                                                    scalar=scalar),
    "level1_restart": lambda v, scalar: check_duration("level1_restart", v, allow_zero=True,
                                                       scalar=scalar),
    "level1_loss": lambda v, scalar: check_fraction("level1_loss", v),
    "level2_every": lambda v, scalar: check_gang_size(
        "level2_every", v, what="a whole number of writes (1: every write durable)"),
    "periods": lambda v, scalar: check_gang_size("periods", v,
                                                 what="a whole number of periods"),
    # deadlines
    "compute": lambda v, scalar: check_duration("compute", v, scalar=scalar, bounded=True),
    "deadline": lambda v, scalar: check_duration("deadline", v, scalar=scalar, bounded=True),
    "changeover": lambda v, scalar: check_duration("changeover", v, allow_zero=True,
                                                   scalar=scalar, bounded=True),
    "tick": lambda v, scalar: check_duration("tick", v, scalar=scalar, bounded=True),
    # a shared pool (spotmath.model.cluster)
    "gpus": lambda v, scalar: check_gang_size("gpus", v, what="a whole number of GPUs"),
    "hp_rate": lambda v, scalar: check_rate("hp_rate", v, scalar=True, bounded=True,
                                            allow_zero=True),
    "hp_hold": lambda v, scalar: check_duration("hp_hold", v, scalar=True, bounded=True),
    "hp_gpus": lambda v, scalar: check_gang_size("hp_gpus", v, what="a whole number of GPUs"),
    "warmup": lambda v, scalar: check_duration("warmup", v, allow_zero=True, scalar=scalar),
    "age": lambda v, scalar: check_duration("age", v, allow_zero=True, scalar=scalar),
    "grace": lambda v, scalar: check_duration("grace", v, allow_zero=True, scalar=True,
                                              bounded=True),
    "headroom": lambda v, scalar: check_gang_size("headroom", v, allow_zero=True,
                                                  what="a whole number of GPUs"),
    "gangs": lambda v, scalar: check_gang_size("gangs", v, what="a whole number of gangs"),
    "failure_rate": lambda v, scalar: check_rate("failure_rate", v, scalar=True,
                                                 allow_zero=True),
    "load_time": lambda v, scalar: check_duration("load_time", v, allow_zero=True,
                                                  scalar=True, bounded=True),
    "start_target": lambda v, scalar: check_duration("start_target", v, allow_zero=True,
                                                     scalar=True, bounded=True),
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
    checked = [_PARAMETER_CHECKS[name](value, scalar) for name, value in values.items()]
    arrays = {name: np.shape(value) for name, value in zip(values, checked)
              if np.ndim(value) > 0}
    try:  # arrays are computed element by element: their shapes must broadcast
        np.broadcast_shapes(*arrays.values())
    except ValueError:
        names = ", ".join(arrays)
        shapes = " and ".join(str(shape) for shape in arrays.values())
        raise InputError(f"{names}: arrays of shapes {shapes} do not go together (give "
                         "arrays of one shape, or numbers)") from None
    return checked


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
