"""The calculator's JavaScript, run by Node: generated formulas against the Python ones,
and the hand-written numerics (Lambert W0, SciPy's brentq, the bracket searches) against
SciPy and mpmath.  Skipped, saying why, where Node is not installed."""

import json
import math
import shutil
import subprocess

import mpmath
import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import lambertw

from spotmath import _generated as G
from spotmath import codegen
from spotmath import numerics as n

NODE = shutil.which("node") or shutil.which("nodejs")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(NODE is None and CHROMIUM is None,
                                reason="neither Node.js nor Chromium is installed")
WEB = codegen.JS_PATH.parent
EPS = np.finfo(float).eps
SCRIPTS = [WEB / "numerics.js", WEB / "formulas.js"]
PRELUDE = "const N = globalThis.spotmathNumerics, F = globalThis.spotmathFormulas;\n"


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
          "rho": 0.3, "q_n": 0.7, "C_n": 0.01}


def test_formulas_js_is_what_the_derivations_print_now():
    assert codegen.JS_PATH.read_text() == codegen.generate_js(), "run: python -m spotmath.codegen"


def test_every_formula_agrees_with_python():
    """At the sample point and at 200 random points around it (each argument scaled by
    e^U, U uniform on [-2, 2]): relative difference at most 1e-12."""
    rng = np.random.default_rng(2026)
    points = [SAMPLE] + [{k: v * math.exp(rng.uniform(-2, 2)) for k, v in SAMPLE.items()}
                         for _ in range(200)]
    for point in points:  # keep shares and discounts below 1, the notice write below T
        for key in ("d", "F", "w", "g", "a", "q_n", "rho", "x"):
            point[key] = min(point[key], 0.95)
    calls = {name: arguments for name, (_, arguments) in codegen.FORMULAS.items()}
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
    got = node(f"console.log(JSON.stringify({json.dumps(xs)}.map(N.lambertW0)));")
    mpmath.mp.dps = 40
    for x, w in zip(xs, got):
        exact = float(mpmath.lambertw(mpmath.mpf(x)))
        p = math.sqrt(max(2 * (math.e * x + 1), 0.0))
        tolerance = 4 * EPS * max(1.0, abs(exact)) + (2 * EPS / p if p < 0.5 else 0.0)
        assert abs(w - exact) <= tolerance, (x, w, exact)
        assert abs(w - lambertw(x).real) <= tolerance + 4 * EPS * abs(exact), x
    below = node("console.log(JSON.stringify([N.lambertW0(-0.5), N.lambertW0(NaN)]"
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
    js = ", ".join(f"N.brentq({f}, {a!r}, {b!r}, N.XTOL, N.RTOL)" for f, _, (a, b) in CASES)
    got = node(f"console.log(JSON.stringify([{js}]));")
    for (_, function, (a, b)), root in zip(CASES, got):
        expected = brentq(function, a, b, xtol=xtol, rtol=rtol)
        assert abs(root - expected) <= 2 * (xtol + rtol * abs(expected)), (root, expected)
    failed = node("try { N.brentq(x => x * x + 1, 0, 1, 1e-12, 1e-12); console.log('null'); }"
                  " catch (e) { console.log(JSON.stringify(e.message)); }")
    assert "different signs" in failed


def test_bracket_searches_match_the_python_ones():
    """rootUp doubles the upper end, rootDown halves the lower end, as numerics does."""
    up = node("console.log(JSON.stringify([N.rootUp(x => x - 1000, 1, 2), "
              "N.rootDown(x => 1e-6 - x, 0.5, 1)]));")
    assert up[0] == pytest.approx(n._root(lambda x: x - 1000, 1, 2), rel=8 * EPS)
    assert up[1] == pytest.approx(n._root_down(lambda x: 1e-6 - x, 0.5, 1), rel=8 * EPS)
