"""Every public function of spotmath answers or refuses (#53-8): given anything at all for
its parameters (numbers at and beyond every extreme, NaN, infinities, whole numbers too
large for a float, text, lists, None), it returns finite values or raises InputError
naming a parameter; never another exception, a NaN or an infinity (but where its
docstring promises ``math.inf`` as an answer)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spotmath
from spotmath import InputError

#: Numbers at and beyond the edges: signed zeros, subnormals, the largest doubles.
EXTREMES = [0.0, -0.0, -1.0, 1e-320, 5e-324, 1e-300, 1e-12, 0.5, 0.6, 1.0, 0.999999,
            1.5, 8.0, 1e6, 1e12, 1e154, 1e300, 1e308, math.inf, -math.inf, math.nan]
ANYTHING = st.one_of(
    st.sampled_from(EXTREMES),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-10, max_value=10**20),
    st.just(10**400),
    st.sampled_from(["4h", "10min", "0.25/h", "", "abc", "nan", "-1", "1e400", "0.6",
                     "60%"]),
    st.lists(st.floats(min_value=0.01, max_value=10), max_size=3),
    st.just(None),
    st.just(True))
#: Parameters that take a choice or a flag: their own values, and wrong ones.
CHOICES = {"model": ["exact", "first-order", "bogus", 3],
           "restart_preemptible": [True, False, "yes"]}
#: Not drawn here: check_parameters takes names (tested in test_inputs), the parsers
#: return anything not text unchanged for the checks, plan_table takes a Plan.
NOT_DRAWN = {"check_parameters", "parse_duration", "parse_rate", "plan_table"}
FUNCTIONS = sorted(name for name in spotmath.__all__
                   if inspect.isfunction(getattr(spotmath, name)) and name not in NOT_DRAWN)


def _finite(value, infinite_allowed: bool) -> bool:
    if value is None or isinstance(value, (str, bool, np.bool_)):
        return True
    if isinstance(value, spotmath.Plan):
        return all(_finite(v, False) for v in value.as_dict().values())
    if isinstance(value, (tuple, list)):
        return all(_finite(v, infinite_allowed) for v in value)
    numbers = np.asarray(value, dtype=float)
    return bool(np.all(np.isfinite(numbers) | (infinite_allowed & (numbers == math.inf))))


def test_every_public_function_is_drawn():
    """The functions of spotmath.__all__ are all here, but those named and why."""
    assert len(FUNCTIONS) >= 30 and {"make_plan", "duration_text", "segment_time"} <= set(
        FUNCTIONS)


@pytest.mark.parametrize("name", FUNCTIONS)
@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_public_function_answers_or_refuses(name, data):
    function = getattr(spotmath, name)
    infinite_allowed = "math.inf" in (inspect.getdoc(function) or "")
    arguments = {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.default is not parameter.empty and data.draw(st.booleans()):
            continue  # its default
        drawn = (st.sampled_from(CHOICES[parameter.name]) if parameter.name in CHOICES
                 else ANYTHING)
        arguments[parameter.name] = data.draw(drawn, label=parameter.name)
    try:
        result = function(**arguments)
    except InputError as error:
        assert "\n" not in str(error) and ": " in str(error), str(error)
        return
    assert _finite(result, infinite_allowed), (name, arguments, result)


@pytest.mark.parametrize("call, message", [
    (lambda: spotmath.make_plan(1e-320, "10min", "1min", .6), "preemption_rate: "),
    (lambda: spotmath.daly_interval(1e-320, 1 / 60), "preemption_rate: "),
    (lambda: spotmath.make_plan(.25, "10min", 1e308, .6), "checkpoint_cost: "),
    (lambda: spotmath.make_plan(.25, "10min", "1min", .6, gang_size=10**400),
     "gang_size: must be a whole number of nodes of at most 2**53, got 1.00e+400"),
    (lambda: spotmath.elastic_waste(.25, 1e308, .05, 1 / 6), "gang_size: "),
    (lambda: spotmath.break_even_interval(1e-320, 1 / 60, 1 / 6, .6), "preemption_rate: "),
    (lambda: spotmath.relative_price("4h", .6), "waste: "),
    (lambda: spotmath.break_even_discount([1, 2], .5, 1 / 60, 1 / 6),
     "preemption_rate: must be a single number"),
    (lambda: spotmath.effective_discount(.1, []), "spot_discount: must be a single number"),
    (lambda: spotmath.duration_text("4h"), "hours: must be a finite number of hours"),
    (lambda: spotmath.lost_work(1e-320, .5), "preemption_rate: "),
    (lambda: spotmath.duration_text(math.nan), "hours: must be a finite number of hours"),
    (lambda: spotmath.make_plan(.25, "10min", "1min", .6, gang_size=10**7),
     "gang_size: a gang of 10,000,000 nodes is preempted 2.5e+06 times an hour"),
    (lambda: spotmath.lost_work([0.25, 1], [1, 2, 3]),
     "preemption_rate, interval: arrays of shapes (2,) and (3,) do not go together"),
])
def test_the_issues_calls_raise_input_error_naming_the_parameter(call, message):
    """#53-8's table: each escaped InputError (OverflowError, ArithmeticError, ValueError,
    TypeError) or returned NaN silently."""
    with pytest.raises(InputError) as raised:
        call()
    assert str(raised.value).startswith(message), str(raised.value)
