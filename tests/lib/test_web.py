"""The calculator's JavaScript, run by Node (or Chromium): generated formulas against the
Python ones, the hand-written root finders (Lambert W0, SciPy's brentq, the bracket
searches) against SciPy and mpmath, Python's formatting against Python, and the page's
plans against the command's.  Skipped, saying why, where neither is installed."""

import json
import math
import shutil
import subprocess

import mpmath
import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import lambertw

from spotmath import inputs, report, web
from spotmath.model import _generated as G
from spotmath.model import codegen, numerics, plan, solving, two_level
from spotmath.web.codegen import NOT_ON_PAGE

NODE = shutil.which("node") or shutil.which("nodejs")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(NODE is None and CHROMIUM is None,
                                reason="neither Node.js nor Chromium is installed")
EPS = np.finfo(float).eps
# every script but the page's interface, in the page's order
SCRIPTS = [web.WEB / name for name in web.SCRIPTS if name != "calculator.js"]
PRELUDE = ("const S = globalThis.spotmathSolving, F = globalThis.spotmathFormulas, "
           "P = globalThis.spotmathPlan, Y = globalThis.spotmathFormat;\n")


def node(body: str):
    """Run ``body`` after loading the calculator's scripts; return what it prints as JSON.

    In Node where it is installed, else in headless Chromium (what `.ci/run` installs).
    """
    if NODE is not None:
        script = "".join(f"require({json.dumps(str(path))});\n" for path in SCRIPTS)
        result = subprocess.run([NODE], input=script + PRELUDE + body, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, result.stderr[-3000:]
        return json.loads(result.stdout)
    import html
    import re
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "run.html"
        page.write_text(
            "<!DOCTYPE html><html><body><pre id='out'>no output</pre>"
            + "".join(f"<script>{path.read_text()}</script>" for path in SCRIPTS)
            + "<script>console.log = text => { document.getElementById('out')"
            ".textContent = text; };\ntry {\n" + PRELUDE + body + "\n} catch (error) {"
            " document.getElementById('out').textContent = 'ERROR ' + error; }"
            "</script></body></html>", encoding="utf-8")
        result = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             f"--user-data-dir={folder}/profile", "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=120)
    out = html.unescape(re.search(r"<pre id=\"out\">(.*?)</pre>", result.stdout,
                                  flags=re.S).group(1))
    assert not out.startswith(("ERROR", "no output")), out
    return json.loads(out)


SAMPLE = {"lam": 0.3, "T": 0.7, "C": 0.02, "R": 0.15, "d": 0.6, "N": 8.0, "x": 0.2,
          "c": 0.01, "H": 24.0, "F": 0.1, "m": 74.0, "n": 16.0, "tau": 100.0,
          "p": 7e9, "q": 14.0, "B": 7.2e12, "P": 0.05, "w": 0.1, "g": 0.6, "a": 0.8,
          "k": 0.8, "G": 130.0, "Lsum": 20.0, "sigma": 2.0, "t": 1.5, "r": 1.2,
          "rho": 0.3, "q_n": 0.7, "C_n": 0.01, "C1": 0.005, "R1": 0.05, "p_loss": 0.4,
          "n2": 5.0}


def test_every_formula_agrees_with_python():
    """At the sample point and at 200 random points around it (each argument scaled by
    e^U, U uniform on [-2, 2]): relative difference at most 1e-12."""
    rng = np.random.default_rng(2026)
    points = [SAMPLE] + [{k: v * math.exp(rng.uniform(-2, 2)) for k, v in SAMPLE.items()}
                         for _ in range(200)]
    for point in points:  # keep shares and discounts below 1, the notice write below T
        for key in ("d", "F", "w", "g", "a", "q_n", "rho", "x", "p_loss"):
            point[key] = min(point[key], 0.95)
    points.append(SAMPLE | {"p_loss": 0.0})  # the two-level model's other branch
    calls = {name: arguments for name, (_, arguments) in codegen.FORMULAS.items()
             if name not in NOT_ON_PAGE}
    got = node(f"const calls = {json.dumps(calls)}, points = {json.dumps(points)};\n"
               "console.log(JSON.stringify(points.map(p => Object.fromEntries("
               "Object.entries(calls).map(([f, a]) => [f, F[f](...a.map(k => p[k]))])))));")
    compared = 0
    for point, values in zip(points, got):
        for name, arguments in calls.items():
            with np.errstate(invalid="ignore", divide="ignore"):  # NaN: compared below
                expected = complex(np.asarray(getattr(G, name)(*(point[a] for a in arguments))))
            if expected.imag != 0 or not math.isfinite(expected.real):
                assert values[name] is None or not math.isfinite(values[name]), name
                continue
            assert values[name] is not None, (name, point)
            assert abs(values[name] - expected.real) <= 1e-12 * max(1.0, abs(expected.real)), (
                name, values[name], expected.real)
            compared += 1
    assert compared > 40 * len(points)


def test_lambert_w0_against_mpmath_and_scipy():
    """Away from the branch point to 4 ulp; near it (p = sqrt(2(e x + 1)) small) the input
    itself carries an error of about one ulp of 1 in e x + 1, so W is good to about
    EPS/p, as it is in SciPy."""
    xs = ([-1 / math.e + 10.0 ** -k for k in range(1, 16)]
          + [-0.3, -0.2, -0.1, -1e-8, 0.0, 1e-300, 1e-10, 0.5, 1.0, math.e, 10.0, 1e5,
             1e20, 1e100, 1e300, 1.7e308])
    got = node(f"console.log(JSON.stringify({json.dumps(xs)}.map(S.lambertW0)));")
    mpmath.mp.dps = 40
    for x, w in zip(xs, got):
        exact = float(mpmath.lambertw(mpmath.mpf(x)))
        p = math.sqrt(max(2 * (math.e * x + 1), 0.0))
        tolerance = 4 * EPS * max(1.0, abs(exact)) + (2 * EPS / p if p < 0.5 else 0.0)
        assert abs(w - exact) <= tolerance, (x, w, exact)
        assert abs(w - lambertw(x).real) <= tolerance + 4 * EPS * abs(exact), x
    below = node("console.log(JSON.stringify([S.lambertW0(-0.5), S.lambertW0(NaN)]"
                 ".map(v => Number.isNaN(v))));")
    assert below == [True, True]


CASES = [  # (JavaScript function, Python function, bracket)
    ("x => x * x * x - 2", lambda x: x ** 3 - 2, (0.0, 2.0)),
    ("x => Math.exp(x) - 5", lambda x: math.exp(x) - 5, (-10.0, 10.0)),
    ("x => x - 1", lambda x: x - 1, (1.0, 3.0)),           # the root at the left edge
    ("x => x - 3", lambda x: x - 3, (1.0, 3.0)),           # at the right edge
    ("x => Math.cos(x) - x", lambda x: math.cos(x) - x, (0.0, 1.0)),
    ("x => 0.01 + x + Math.log1p(-x)", lambda x: 0.01 + x + math.log1p(-x), (1e-9, 0.5)),
    ("x => Math.atan(x - 1e-7)", lambda x: math.atan(x - 1e-7), (-1.0, 1e6)),
]


def test_brentq_finds_scipys_roots():
    """Same algorithm, same tolerances (xtol 1e-300, rtol 4 eps): the two roots agree to
    within twice that tolerance, and each is within it of the true root's bracket."""
    rtol, xtol = 4 * EPS, 1e-300
    js = ", ".join(f"S.brentq({f}, {a!r}, {b!r}, S.XTOL, S.RTOL)" for f, _, (a, b) in CASES)
    got = node(f"console.log(JSON.stringify([{js}]));")
    for (_, function, (a, b)), root in zip(CASES, got):
        expected = brentq(function, a, b, xtol=xtol, rtol=rtol)
        assert abs(root - expected) <= 2 * (xtol + rtol * abs(expected)), (root, expected)
    failed = node("try { S.brentq(x => x * x + 1, 0, 1, 1e-12, 1e-12); console.log('null'); }"
                  " catch (e) { console.log(JSON.stringify(e.message)); }")
    assert "different signs" in failed


def test_bracket_searches_match_the_python_ones():
    """rootUp doubles the upper end, rootDown halves the lower end, as numerics does."""
    up = node("console.log(JSON.stringify([S.rootUp(x => x - 1000, 1, 2), "
              "S.rootDown(x => 1e-6 - x, 0.5, 1)]));")
    assert up[0] == pytest.approx(solving.root_up(lambda x: x - 1000, 1, 2), rel=8 * EPS)
    assert up[1] == pytest.approx(solving.root_down(lambda x: 1e-6 - x, 0.5, 1), rel=8 * EPS)


# -- the plan: the page's engine against `spotmath plan --json` ---------------------------


def test_the_page_plans_exactly_as_spotmath_plan(plan_oracle):
    """400 seeded random parameter sets over the whole range (MTBF of minutes to weeks,
    free restarts, discounts near 0 and 1, gangs of 1 to 10,000, notices and asynchronous
    writes): every number within 1e-9 relative (root finders: SciPy's brentq to 4 eps, in
    both), integers, nulls, flags and the verdict equal, errors word for word; and the
    same table, character for character."""
    rng = np.random.default_rng(12)
    sets = [plan_oracle.random_options(rng) for _ in range(400)]
    got = node(f"const sets = {json.dumps(sets)};\n"
               "console.log(JSON.stringify(sets.map(o => P.planFromOptions(o))));")
    errors = 0
    for options, result in zip(sets, got):
        expected, table = plan_oracle.python_plan(options)
        if "error" in expected:
            errors += 1
            assert result["json"] == expected, options
            continue
        plan_oracle.assert_same_plan(options, result["json"], expected)
        assert result["report"] == table, (options, result["report"], table)
    assert 0 < errors < len(sets) / 2


def test_the_page_plans_two_levels_exactly_as_spotmath_plan(plan_oracle):
    """30 seeded random parameter sets with a fast level (asynchronous durable writes
    among them, and refusals: a notice, the first-order model, protected restarts with a
    persist time): the same JSON within 1e-9 relative, errors word for word, and the
    same table, character for character."""
    rng = np.random.default_rng(21)
    sets = [plan_oracle.random_two_level_options(rng) for _ in range(30)]
    got = node(f"const sets = {json.dumps(sets)};\n"
               "console.log(JSON.stringify(sets.map(o => P.planFromOptions(o))));")
    planned = persisted = 0
    for options, result in zip(sets, got):
        expected, table = plan_oracle.python_plan(options)
        if "error" in expected:
            assert result["json"] == expected, options
            continue
        planned += 1
        persisted += "persist" in options
        plan_oracle.assert_same_plan(options, result["json"], expected)
        assert result["report"] == table, (options, result["report"], table)
    assert planned >= 15 and persisted >= 4


def test_the_pages_curve_for_two_levels_is_the_patterns_waste():
    """The plot of a two-level plan: the waste at the plan's n over the interval, from the
    generated formula, equal to Python's, and least at the recommended interval."""
    from spotmath.model import two_level

    options = {"gang-size": "16", "restart": "5min", "checkpoint": "5s", "persist": "3min",
               "level1": "5s", "level1-restart": "2min", "level1-loss": "0.3"}
    plan, curve = node(
        f"const plan = P.planFromOptions({json.dumps(options)});\n"
        "console.log(JSON.stringify([plan.json, P.priceCurve(plan.checked, plan.json)]));")
    every = plan["level2_every"]
    values = dict(level1_cost=5 / 3600, checkpoint_cost=5 / 3600, level1_restart=2 / 60,
                  restart_time=5 / 60, level1_loss=0.3, persist=3 / 60)
    intervals = np.array([point["interval"] for point in curve])
    assert intervals.min() * every >= 3 / 60 * (1 - 1e-12)
    wastes = two_level.waste(4.0, intervals, every, **values)
    assert [point["waste"] for point in curve] == pytest.approx(wastes, rel=1e-12)
    assert wastes.min() >= plan["waste_exact"] - 1e-12


BAD = [  # (option, value): empty, negative, nan, 1e400, a discount of 1, typos, fractions
    ("mtbf", ""), ("mtbf", "-4h"), ("mtbf", "nan"), ("mtbf", "1e400"), ("mtbf", "4 hous"),
    ("mtbf", "4hrz"), ("mtbf", "0"), ("rate", "abc"), ("rate", "0.25/x"), ("rate", "1/0h"),
    ("rate", "nan"), ("rate", "1e400"), ("rate", "-1"), ("restart", "-1min"),
    ("restart", "10 minz"), ("checkpoint", "0"), ("checkpoint", ""), ("discount", "1"),
    ("discount", "0"), ("discount", "100%"), ("discount", "1.5"), ("discount", "sixty"),
    ("discount", "nan"), ("discount", "1e400"), ("gang-size", "8.5"), ("gang-size", "0"),
    ("gang-size", "-3"), ("gang-size", "eight"), ("gang-size", "1e400"), ("gang-size", "nan"),
    ("notice-share", "0.5"), ("notice-write", "30s"), ("model", "exactly"),
    ("restart-variant", "maybe"), ("persist", "5h"), ("persist", "-1s"),
    # magnitudes beyond what the command computes with (about 114 years, 1e6 per hour)
    ("checkpoint", "1e250h"), ("mtbf", "2e6h"), ("restart", "1e7d"), ("rate", "1e-9/h"),
    ("rate", "2e6/h"), ("notice", "1e9h"),
    # #53-8: too small to compute with (no reciprocal), too large a gang or count
    ("restart", "1e-200h"), ("checkpoint", "1e-320"), ("mtbf", "1e-320"),
    ("gang-size", "1e308"), ("gang-size", "1e7"),
    # the write from the state's size: a missing partner, no unit, a size as a bandwidth
    ("state", "13GB"), ("write-bandwidth", "1GB/s"), ("snapshot-bandwidth", "9GB/s"),
    ("state", "13"), ("state", "-1GB"), ("state", "1e30GB"), ("write-bandwidth", "1GB"),
]


@pytest.fixture(scope="module")
def pages_answers_to_bad_values() -> dict[tuple[str, str], dict]:
    """What the page answers to each of :data:`BAD`, from one run of its scripts (Node
    takes about 60 ms to start and load them; the refusals themselves take microseconds)."""
    sets = [{option: value} for option, value in BAD]
    got = node(f"const sets = {json.dumps(sets)};\n"
               "console.log(JSON.stringify(sets.map(o => P.planFromOptions(o))));")
    return dict(zip(BAD, got))


@pytest.mark.parametrize("option, value", BAD, ids=[f"{o}={v}" for o, v in BAD])
def test_bad_values_get_the_commands_message(option, value, plan_oracle,
                                             pages_answers_to_bad_values):
    """Given alone (--rate replaces the default MTBF), each is refused by the page in the
    command's words, with no table."""
    expected, _ = plan_oracle.python_plan({option: value})
    assert "error" in expected, option
    got = pages_answers_to_bad_values[option, value]
    assert got["json"] == expected and got["report"] is None


def test_a_notice_without_share_and_rate_with_mtbf_are_refused_the_same_way(plan_oracle):
    for options in ({"notice": "2min"}, {"rate": "0.25/h", "mtbf": "4h"},
                    {"notice": "2min", "notice-share": "1.5"}):
        expected, _ = plan_oracle.python_plan(options)
        got = node(f"console.log(JSON.stringify(P.planFromOptions({json.dumps(options)})));")
        assert got["json"] == expected, options


def test_the_old_name_of_the_gang_size_is_taken_as_the_command_takes_it(plan_oracle):
    """``nodes``, the gang size's name before (a link made then), plans as ``gang-size``
    on the page and on the command line, and the later of the two counts, as argparse
    has it."""
    for options in ({"nodes": "8"}, {"nodes": "0"}, {"gang-size": "4", "nodes": "16"}):
        expected, table = plan_oracle.python_plan(options)
        got = node(f"console.log(JSON.stringify(P.planFromOptions({json.dumps(options)})));")
        if "error" in expected:
            assert got["json"] == expected, options
            continue
        plan_oracle.assert_same_plan(options, got["json"], expected)
        assert got["report"] == table, options
    assert plan_oracle.python_plan({"nodes": "8"}) == plan_oracle.python_plan(
        {"gang-size": "8"})
    assert plan_oracle.python_plan({"gang-size": "4", "nodes": "16"})[0]["gang_size"] == 16


def test_free_on_notice_writes_and_restarts_leave_no_gang_limit(plan_oracle):
    """Restart 0 and an on-notice write of 0 with q = 0.5: the waste of ever larger gangs
    tends to 1 − q = 0.5 < d, so every gang pays; with q = 0.3 (0.7 > d) a limit exists."""
    for share, limit in (("0.5", None), ("0.3", 114)):
        options = {"restart": "0", "notice": "1min", "notice-share": share,
                   "notice-write": "0"}
        expected, table = plan_oracle.python_plan(options)
        assert expected["max_gang_size"] == limit
        got = node(f"console.log(JSON.stringify(P.planFromOptions({json.dumps(options)})));")
        plan_oracle.assert_same_plan(options, got["json"], expected)
        assert got["report"] == table


def test_python_number_formatting():
    """The table's numbers are Python's formats: halves to even, 'g' exponents, str()."""
    numbers = [0.125, 0.375, 2.5, 12.25, 0.05, 1e-5, 123456.0, 0.000123456, 9.995, 99.95,
               1e16, 1.5e300, 5e-324, 21.25, 0.1 + 0.2, 1 / 3, 2 / 3, 1234.5, 0.9995,
               -0.04, 0.0, -0.0, math.inf, -math.inf, math.nan,
               1.32e10, 1e20, 2.5e-10, 3e100]  # exponents that end in a zero
    specs = [".3g", ".1f", ".1%", "g", ".6g", ".0f"]
    # json.dumps writes inf and nan as JavaScript's Infinity and NaN
    got = node(f"const xs = {json.dumps(numbers)}, specs = {json.dumps(specs)};\n"
               "console.log(JSON.stringify(xs.map(x => [...specs.map(s => Y.formatSpec(x, s)),"
               " Y.floatText(x)])));")
    for x, row in zip(numbers, got):
        assert row == [format(x, spec) for spec in specs] + [str(x)], x
    integers = [0, 7, 999, 1000, 123456, 1_000_000, 98_765_432_101]
    assert node(f"console.log(JSON.stringify({integers}.map(n => Y.formatSpec(n, ','))));") \
        == [f"{n:,}" for n in integers]
    unported = node("try { Y.formatSpec(1.5, '.2e'); console.log('null'); }"
                    " catch (e) { console.log(JSON.stringify(e.message)); }")
    assert "not ported" in unported


def _templates() -> dict[str, str]:
    """Every template the page fills, by where it is written in Python."""
    sources = {"inputs.WORDS": inputs.WORDS, "numerics.REFUSALS": numerics.REFUSALS,
               "two_level.REFUSALS": two_level.REFUSALS, "plan.REFUSALS": plan.REFUSALS,
               "report.REPORT": report.REPORT, "report.USAGE": report.USAGE,
               "inputs.NUMBER_TEMPLATES": inputs.NUMBER_TEMPLATES}
    return {f"{where}[{key!r}]": template for where, words in sources.items()
            for key, template in words.items()}


def test_the_page_fills_every_template_as_python_does():
    """Each template of the checks, refusals and the table, filled by the page (format.js)
    and by str.format with the same values: text where a field has no format, and where it
    has one numbers that exercise it (rounding halves, exponents, thousands)."""
    import string

    cases = []
    for where, template in _templates().items():
        fields = [(name, spec, conversion)
                  for _, name, spec, conversion in string.Formatter().parse(template)
                  if name is not None]
        for sample in (0, 1, 2):
            values = {}
            for name, spec, _ in fields:
                if spec == ",":
                    values[name] = [1_000_000, 999, 12_345_678][sample]
                elif spec:
                    values[name] = [0.123456789, 21.25, 1.5e-7][sample]
                else:
                    values[name] = f"<{name}: it's {sample}>"
            cases.append((where, template, values))
    got = node(f"const cases = {json.dumps(cases)};\n"
               "console.log(JSON.stringify(cases.map(([, t, v]) => Y.fill(t, v))));")
    assert len(got) == len(cases)
    for (where, template, values), text in zip(cases, got):
        assert text == template.format(**values), where


def test_a_missing_field_is_an_error_not_undefined():
    said = node("try { Y.fill('{name}: {value}', {name: 'x'}); console.log('null'); }"
                " catch (e) { console.log(JSON.stringify(e.message)); }")
    assert said is not None and "{value}" in said


@pytest.mark.parametrize("options", [
    {"state": "13.2GB", "write-bandwidth": "1e-300B/s"},
    {"state": "13.2GB", "write-bandwidth": "1e-3B/s"},
    {"state": "13.2GB", "write-bandwidth": "1GB/s", "snapshot-bandwidth": "1e-300B/s"}])
def test_a_write_from_the_state_longer_than_any_duration_is_refused_alike(options,
                                                                          plan_oracle):
    """A bandwidth so low that the write would outlast 10⁶ hours (or overflow a double)
    is refused by the command and the page in the same words, naming the option."""
    expected, _ = plan_oracle.python_plan(options)
    assert "error" in expected and "the longest write a plan takes" in expected["error"]
    got = node(f"console.log(JSON.stringify(P.planFromOptions({json.dumps(options)})));")
    assert got["json"] == expected


@pytest.mark.parametrize("options, option", [
    ({"level1": "5s", "level1-loss": "0.3", "gang-size": "100000"}, "--gang-size"),
    ({"level1": "5s", "level1-loss": "0.3", "mtbf": "0.1s"}, "--mtbf"),
    ({"level1": "5s", "level1-loss": "0.3", "rate": "1e5/h"}, "--rate")])
def test_a_rate_no_write_survives_names_the_option_typed_alike(options, option, plan_oracle):
    """#53-9: the gang's or node's rate at which no durable write completes was refused as
    ``preemption_rate:``, a name the reader never typed; the gang's size made the rate in
    the first case, the rate's own option in the others.  Page and command agree."""
    expected, _ = plan_oracle.python_plan(options)
    assert expected["error"].startswith(f"{option}: "), expected
    assert "preemption_rate" not in expected["error"]
    if option == "--gang-size":
        assert "a gang of 100,000 is preempted 25000 times per hour" in expected["error"]
    got = node(f"console.log(JSON.stringify(P.planFromOptions({json.dumps(options)})));")
    assert got["json"] == expected


def test_gang_counts_are_in_the_singular_or_plural(plan_oracle):
    """#53-11: "never on spot from 1 nodes" (every gang, one node included, loses)."""
    options = {"mtbf": "10s"}
    expected, table = plan_oracle.python_plan(options)
    assert expected["never_on_spot_gang_size"] == 1
    assert "1 node and more" in table and "1 nodes" not in table
    got = node(f"console.log(JSON.stringify(P.planFromOptions({json.dumps(options)})));")
    assert got["report"] == table


def test_the_page_says_the_break_even_state_as_the_command_does(plan_oracle):
    """Each of the three states (and a notice too short for its write, and two levels,
    whose break-even is durable writes alone's), in the page's JSON and its table row, as
    `spotmath plan` says them."""
    base = {"mtbf": "4h", "restart": "10min", "checkpoint": "1min", "discount": "0.6"}
    cases = {"after": [{}, {"notice": "2min", "notice-share": "1", "notice-write": "3min"},
                       {"level1": "5s", "level1-loss": "0.5"}],
             "always": [{"notice": "2min", "notice-share": "1"},
                        {"notice": "2min", "notice-share": "0.5"}],
             "never": [{"mtbf": "30min", "discount": "0.1"}]}
    sets = [dict(base, **extra) for extras in cases.values() for extra in extras]
    got = node(f"const sets = {json.dumps(sets)};\n"
               "console.log(JSON.stringify(sets.map(o => P.planFromOptions(o))));")
    states = [state for state, extras in cases.items() for _ in extras]
    for options, result, state in zip(sets, got, states):
        expected, table = plan_oracle.python_plan(options)
        assert expected["break_even"] == result["json"]["break_even"] == state, options
        assert (expected["break_even_interval_h"] is None) == (state != "after")
        row = [line for line in table.splitlines() if line.startswith("break-even")]
        assert row == [line for line in result["report"].splitlines()
                       if line.startswith("break-even")], options
        assert {"after": "(checkpoint less often", "always": "however rarely",
                "never": "no checkpoint interval"}[state] in row[0] + table, options
