"""The one validation layer: units, parsing and one-line errors naming the parameter."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import spotmath as sm
from spotmath.inputs import (
    InputError,
    check_discount,
    check_duration,
    check_gang_size,
    check_parameters,
    check_rate,
    parse_duration,
    parse_number,
    parse_rate,
)


@pytest.mark.parametrize("text, hours", [
    ("90s", 90 / 3600), ("10min", 10 / 60), ("4h", 4.0), ("1.5d", 36.0), ("2", 2.0),
    (" 30 sec ", 30 / 3600), ("1e-1h", 0.1), ("15 minutes", 0.25), (".5h", 0.5),
    ("5.77 years", 5.77 * 365.25 * 24), ("2y", 2 * 365.25 * 24),
])
def test_durations_with_units(text, hours):
    assert parse_duration("x", text) == pytest.approx(hours, rel=1e-15)


def test_durations_are_written_back_in_three_figures_that_read_back():
    """Every duration up to MAX_HOURS is written in three significant figures of the
    largest unit of which it is at least two, never with an exponent (50,600 h, one GPU's
    mean time between failures, read '2.11e+03 d'), and reads back to within the
    rounding of three figures."""
    from spotmath.inputs import MAX_HOURS, duration_text

    assert duration_text(50_600) == "5.77 years"
    assert [duration_text(h) for h in (47.9, 48, 17_531, 17_532, MAX_HOURS)] == \
        ["47.9 h", "2 d", "730 d", "2 years", "114 years"]
    for hours in np.geomspace(1e-4, MAX_HOURS, 2_000):
        text = duration_text(hours)
        value, unit = text.split()
        assert "e" not in value and unit in {"s", "min", "h", "d", "years"}, text
        assert float(value) >= 1 or unit == "s", text
        assert parse_duration("x", text.replace(" ", "")) == pytest.approx(hours, rel=5e-3)


@pytest.mark.parametrize("text, rate", [
    ("0.25/h", 0.25), ("6/d", 0.25), ("1/4h", 0.25), ("1/15min", 4.0), ("0.5", 0.5),
    ("2/year", 2 / 8766),
])
def test_rates_with_units(text, rate):
    assert parse_rate("x", text) == pytest.approx(rate, rel=1e-15)


@pytest.mark.parametrize("check, value, fragment", [
    (lambda v: check_duration("restart_time", v, allow_zero=True), -1, "got -1"),
    (lambda v: check_duration("interval", v), 0, ">"),
    (lambda v: check_duration("interval", v), "10m", "unknown time unit 'm'"),
    (lambda v: check_duration("interval", v), "ten minutes", "not a duration"),
    (lambda v: check_duration("interval", v), float("nan"), "nan"),
    (lambda v: check_duration("interval", v), float("inf"), "inf"),
    (lambda v: check_duration("interval", v), True, "True"),
    (lambda v: check_duration("interval", v), None, "None"),
    (lambda v: check_duration("interval", v), [1, -2], "-2"),
    (lambda v: check_duration("interval", v), ["1", "2"], "must be"),
    (lambda v: check_duration("interval", v, scalar=True), [1, 2], "single number"),
    (lambda v: check_rate("preemption_rate", v), "-0.25/h", "-0.25"),
    (lambda v: check_rate("preemption_rate", v), "0.25/0h", "must be positive"),
    (lambda v: check_rate("preemption_rate", v), "fast", "not a rate"),
    (lambda v: check_discount("spot_discount", v), 1.0, "strictly between 0 and 1"),
    (lambda v: check_discount("spot_discount", v), "150%", "150%"),
    (lambda v: check_discount("spot_discount", v), 0, "got 0"),
    (lambda v: check_discount("spot_discount", v), "lots", "lots"),
    (lambda v: check_gang_size("gang_size", v), 0, "got 0"),
    (lambda v: check_gang_size("gang_size", v), 2.5, "2.5"),
    (lambda v: check_gang_size("gang_size", v), "eight", "eight"),
])
def test_bad_values_name_parameter_and_value(check, value, fragment):
    with pytest.raises(InputError) as info:
        check(value)
    message = str(info.value)
    assert "\n" not in message
    assert message.split(":")[0] in {"restart_time", "interval", "preemption_rate",
                                     "spot_discount", "gang_size"}
    assert fragment in message


def test_input_error_is_a_value_error():
    assert issubclass(InputError, ValueError)


def test_unknown_parameter_name_is_refused():
    with pytest.raises(InputError, match=r"^preemption_rat: unknown parameter \(known: "):
        check_parameters(preemption_rat=0.25)


def test_parameters_convert_units_in_order():
    assert check_parameters(preemption_rate="6/d", restart_time="10min", gang_size="8") == [
        pytest.approx(0.25), pytest.approx(1 / 6), 8]


def test_arrays_pass_through():
    out = check_duration("interval", np.array([0.25, 1.0, 4.0]))
    assert isinstance(out, np.ndarray) and out.tolist() == [0.25, 1.0, 4.0]
    assert check_duration("restart_time", 0, allow_zero=True) == 0.0


_DEFAULTS = {"preemption_rate": 0.25, "interval": 1.0, "checkpoint_cost": 1 / 60,
             "restart_time": 1 / 6, "spot_discount": 0.6}
_CALLS = {
    "preemption_rate": lambda a: sm.waste_fraction(
        a["preemption_rate"], a["interval"], a["checkpoint_cost"], a["restart_time"]),
    "interval": lambda a: sm.waste_fraction(
        a["preemption_rate"], a["interval"], a["checkpoint_cost"], a["restart_time"]),
    "checkpoint_cost": lambda a: sm.young_interval(a["preemption_rate"], a["checkpoint_cost"]),
    "restart_time": lambda a: sm.never_on_spot_gang_size(
        a["preemption_rate"], a["restart_time"], a["spot_discount"]),
    "spot_discount": lambda a: sm.break_even_interval(
        a["preemption_rate"], a["checkpoint_cost"], a["restart_time"], a["spot_discount"]),
}
_bad_numbers = st.one_of(
    st.floats(max_value=0.0, exclude_max=True), st.just(math.nan), st.just(math.inf),
    st.just(-math.inf), st.text(max_size=5).filter(lambda s: not s.strip().isdigit()))


@given(name=st.sampled_from(sorted(_CALLS)), value=_bad_numbers)
def test_every_parameter_names_itself_when_bad(name, value):
    """Negative or non-finite numbers and junk strings of any parameter give an InputError."""
    arguments = dict(_DEFAULTS, **{name: value})
    try:
        _CALLS[name](arguments)
    except InputError as error:
        assert str(error).startswith(f"{name}:") and "\n" not in str(error)
    else:  # only a junk string that happens to parse may pass (e.g. '1' or '.5')
        assert isinstance(value, str)


@given(value=st.one_of(st.floats(min_value=1.0), st.just(math.nan)))
def test_discount_of_one_or_more_is_refused(value):
    with pytest.raises(InputError, match=r"^spot_discount: must be a fraction strictly"):
        sm.relative_price(0.1, value)


@given(value=st.text(min_size=1, max_size=20).filter(lambda s: s.strip() != ""))
def test_arbitrary_strings_never_crash(value):
    """A string is either a valid duration or gives an InputError, never another error."""
    try:
        hours = check_duration("interval", value)
    except InputError as error:
        assert str(error).startswith("interval:")
    else:
        assert math.isfinite(hours) and hours > 0


def test_rates_from_an_mtbf():
    assert sm.rate_from_mtbf("4h") == 0.25
    assert sm.rate_from_mtbf(0.5) == 2.0
    assert sm.waste_fraction(sm.rate_from_mtbf("90min"), 1, 0, 0) == \
        sm.waste_fraction("16/d", 1, 0, 0)
    with pytest.raises(InputError, match=r"^mtbf: must be a duration > 0"):
        sm.rate_from_mtbf("-4h")


def _outcome(check, value):
    try:
        return "ok", check(value)
    except InputError as error:
        return "error", str(error)


_EDGES = st.sampled_from([0.0, -0.0, 1.0, 1 - 2**-53, 1e-320, -1e-300, math.inf, -math.inf,
                          math.nan, 1e308])


@given(value=st.one_of(st.floats(allow_nan=True, allow_infinity=True), _EDGES),
       wide=st.booleans())
def test_a_plain_float_is_checked_as_an_array_is(value, wide):
    """Plain floats take a path without NumPy (the solvers pass thousands): the same value
    or the same message as the array path, which a 0-d array takes, for every check."""
    checks = [
        lambda v: check_duration("restart_time", v, allow_zero=wide),
        lambda v: check_rate("preemption_rate", v),
        lambda v: check_discount("spot_discount", v),
        lambda v: sm.inputs.check_number("level1_loss", v, minimum=0.0, allow_minimum=wide,
                                         maximum=1.0, allow_maximum=wide,
                                         expected="a share"),
    ]
    for check in checks:
        plain = _outcome(check, value)
        assert plain == _outcome(check, np.array(value)) == _outcome(check, np.float64(value))
        assert plain[0] == "error" or type(plain[1]) is float


@pytest.mark.parametrize("option, text", [
    ("--gang-size", "1_000"), ("--gang-size", "\u0664"), ("--rate", "1_000"), ("--rate", "nan"),
    ("--rate", "inf"), ("--discount", "0x1"), ("--discount", "6_0%"), ("--mtbf", "1_000"),
])
def test_one_number_grammar_for_every_option(cli, option, text):
    """Python's float takes ``1_000``, ``inf``, ``nan`` and other scripts' digits; the
    commands take plain ASCII decimals only, every option alike."""
    done = cli("plan", option, text)
    assert done.returncode == 2, done.stdout
    assert done.stderr.count("\n") == 1 and option in done.stderr, done.stderr


@pytest.mark.parametrize("row", ["1_0,3", "60,1_0", "\u0661,3", "nan,3", "60,\u0663"])
def test_one_number_grammar_for_data_files(cli, tmp_path, row):
    path = tmp_path / "a.csv"
    path.write_text(f"time_s,available\n0,3\n{row}\n")
    done = cli("deadline", "--trace", str(path), "--compute", "1min", "--deadline", "2min")
    assert done.returncode == 2 and done.stderr.startswith(
        "spotmath deadline: error: a.csv:3: "), done.stderr
    trace = tmp_path / "t.csv"
    trace.write_text(f"time_s,node,event\n0,a,up\n{row.split(',')[0]},a,preempted\n")
    done = cli("fit", str(trace))
    if row.split(",")[0] != "60":
        assert done.returncode == 2 and "t.csv:3: time must be a number" in done.stderr


def test_parse_number_is_the_grammar_of_the_page_too():
    assert [parse_number(t) for t in ("4", " -0.5 ", "1e-3", ".5", "5.")] == [
        4.0, -0.5, 0.001, 0.5, 5.0]
    assert [parse_number(t) for t in ("1_000", "inf", "nan", "0x10", "\u0664", "")] == [
        None] * 6
