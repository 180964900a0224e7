"""The numeric functions, generated ahead of time from the derivations.

``python -m spotmath.model.codegen`` writes ``spotmath/model/_generated.py``: one plain NumPy/SciPy
function for each entry of :data:`FORMULAS`, printed by SymPy's ``lambdify`` from the
derivation the entry names, after SymPy's C99 rewrites (``exp(x) − 1`` becomes ``expm1``,
``log(1 + x)`` becomes ``log1p``), and :data:`LATEX`: every named derivation as the LaTeX
the book shows.  So ``import spotmath``, ``spotmath plan`` and the chapters never run
SymPy, and nothing is retyped.  The test suite regenerates the text and compares it with
the file (:func:`check`), so the file cannot drift from the derivations or from SymPy.

Each generated function lets an exponential overflow to infinity quietly: that is the
correct limit of these formulas (a waste tends to 1).  A Piecewise one also evaluates the
branches it does not take (NumPy's ``select``), quietly.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import keyword
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.special
import sympy as sp
from sympy.codegen.cfunctions import expm1
from sympy.codegen.rewriting import optimize, optims_c99
from sympy.printing.jscode import JavascriptCodePrinter

from ..web import WEB
from . import derivations

__all__ = ["FORMULAS", "NOT_ON_PAGE", "PATH", "JS_PATH", "DATA_JS_PATH", "generate", "generate_js",
           "generate_data_js", "check", "main"]

PATH = Path(__file__).with_name("_generated.py")
#: The same functions in JavaScript, for the book's in-page calculator.
JS_PATH = WEB / "formulas.js"
#: What the calculator shares with spotmath.inputs and spotmath plan: units, patterns,
#: words, formats, defaults and JSON keys.
DATA_JS_PATH = WEB / "data.js"


def _notice_condition(part: int) -> sp.Expr:
    """g(T)e^{−λ(T+C)} (part 0), and the coefficients α (1) and β (2) of ℓ(T) = αT + β."""
    g, slope = derivations.notice_optimality_condition()
    if part == 0:
        lam, T, C = derivations.lam, derivations.T, derivations.C
        return sp.expand(sp.powsimp(sp.expand(g * sp.exp(-lam * (T + C)))))
    return sp.Poly(slope, derivations.T).all_coeffs()[part - 1]


def _optimality(derivative: bool) -> sp.Expr:
    g = derivations.exact_optimality_condition()
    return sp.diff(g, derivations.x) if derivative else g


_FULL = ("lam", "T", "C", "R", "q_n", "C_n", "P")
_TWO_LEVEL = ("lam", "T", "C1", "C", "R1", "R", "p_loss", "n2")

#: name of the generated function: (the derivation it prints, its arguments by the names
#: of the symbols in :mod:`spotmath.model.derivations`).
FORMULAS: dict[str, tuple[Callable[[], sp.Expr], tuple[str, ...]]] = {
    # numerics: the waste, the optimum, break-even and gangs
    "lost_work_exact": (lambda: _as_terms(derivations.lost_work_exact(),
                                          derivations.lam * derivations.T),
                        ("lam", "T")),
    "lost_work_first_order": (derivations.lost_work_first_order, ("lam", "T")),
    "segment_time_preemptible": (lambda: derivations.segment_time(True), ("lam", "T", "C", "R")),
    "segment_time_protected": (lambda: derivations.segment_time(False), ("lam", "T", "C", "R")),
    "waste_exact_preemptible": (lambda: derivations.waste_exact(True), ("lam", "T", "C", "R")),
    "waste_exact_protected": (lambda: derivations.waste_exact(False), ("lam", "T", "C", "R")),
    "waste_first_order": (derivations.waste_first_order_with_checkpoint, ("lam", "T", "C", "R")),
    "free_limit_exact_preemptible": (lambda: derivations.free_checkpoint_limit("exact", True),
                                     ("lam", "R")),
    "free_limit_exact_protected": (lambda: derivations.free_checkpoint_limit("exact", False),
                                   ("lam", "R")),
    "free_limit_first_order": (lambda: derivations.free_checkpoint_limit("first-order"),
                               ("lam", "R")),
    "young_interval": (derivations.young_interval, ("lam", "C")),
    "daly_interval": (derivations.daly_interval, ("lam", "C")),
    "exact_interval_lambert": (derivations.exact_interval, ("lam", "C")),
    "optimality_condition": (lambda: _optimality(False), ("x", "c")),
    "optimality_condition_slope": (lambda: _optimality(True), ("x", "c")),
    "break_even_shortest_first_order": (lambda: derivations.break_even_intervals_first_order()[0],
                                        ("lam", "C", "R", "d")),
    "break_even_longest_first_order": (lambda: derivations.break_even_intervals_first_order()[1],
                                       ("lam", "C", "R", "d")),
    "break_even_rate_first_order": (derivations.break_even_rate_first_order, ("T", "C", "R", "d")),
    "break_even_restart_first_order": (derivations.break_even_restart_first_order,
                                       ("lam", "T", "C", "d")),
    "break_even_restart_exact_preemptible": (lambda: derivations.break_even_restart_exact(True),
                                             ("lam", "T", "C", "d")),
    "break_even_restart_exact_protected": (lambda: derivations.break_even_restart_exact(False),
                                           ("lam", "T", "C", "d")),
    "gang_rate": (derivations.gang_rate, ("lam", "N")),
    "gang_survival": (derivations.gang_survival, ("lam", "N", "T")),
    "max_gang_first_order": (derivations.max_gang_first_order, ("lam", "C", "R", "d")),
    "never_on_spot_exact_preemptible": (lambda: derivations.never_on_spot_gang("exact", True),
                                        ("lam", "R", "d")),
    "never_on_spot_exact_protected": (lambda: derivations.never_on_spot_gang("exact", False),
                                      ("lam", "R", "d")),
    "never_on_spot_first_order": (lambda: derivations.never_on_spot_gang("first-order"),
                                  ("lam", "R", "d")),
    # calibration and fleet
    "interrupted_fraction": (derivations.interrupted_fraction, ("lam", "H")),
    "bucket_rate": (derivations.bucket_rate, ("F", "H")),
    "observed_rate": (derivations.observed_rate, ("m", "n", "tau")),
    "checkpoint_write_time": (derivations.checkpoint_write_time, ("p", "q", "B")),
    "elastic_waste": (derivations.elastic_waste, ("lam", "N", "P", "R")),
    "useful_hour_price": (derivations.useful_hour_price, ("w", "g", "a")),
    # real preemptions
    "weibull_profile_log_likelihood": (derivations.weibull_profile_log_likelihood,
                                       ("k", "m", "G", "Lsum")),
    "weibull_scale_mle": (derivations.weibull_scale_mle, ("k", "m", "G")),
    "local_rate_interval": (derivations.local_rate_interval, ("C", "sigma", "k", "t")),
    "local_rate_first_interval": (derivations.local_rate_first_interval, ("C", "sigma", "k")),
    "bulk_fraction": (derivations.bulk_fraction, ("lam", "N", "r")),
    "bulk_gang_rate": (derivations.bulk_gang_rate, ("lam", "N", "rho")),
    # a preemption notice and asynchronous checkpoints
    "waste_notice_preemptible": (lambda: derivations.waste_notice(True), _FULL),
    "waste_notice_protected": (lambda: derivations.waste_notice(False), _FULL),
    "waste_first_order_notice": (derivations.waste_first_order_notice, _FULL),
    "notice_waste_floor_preemptible": (lambda: derivations.notice_waste_floor(True),
                                       ("lam", "R", "q_n", "C_n")),
    "notice_waste_floor_protected": (lambda: derivations.notice_waste_floor(False),
                                     ("lam", "R", "q_n", "C_n")),
    "notice_condition": (lambda: _notice_condition(0), ("lam", "T", "C", "q_n", "C_n", "P")),
    "notice_slope_alpha": (lambda: _notice_condition(1), ("lam", "C", "q_n", "C_n", "P")),
    "notice_slope_beta": (lambda: _notice_condition(2), ("lam", "C", "q_n", "C_n", "P")),
    "first_order_notice_interval": (derivations.first_order_notice_interval, ("lam", "C", "q_n")),
    # two-level checkpoints (C and R are the durable level's)
    "two_level_period_time_preemptible": (lambda: derivations.two_level_period_time(True),
                                          _TWO_LEVEL),
    "two_level_period_time_protected": (lambda: derivations.two_level_period_time(False),
                                        _TWO_LEVEL),
    "waste_two_level_preemptible": (lambda: derivations.waste_two_level(True), _TWO_LEVEL),
    "waste_two_level_protected": (lambda: derivations.waste_two_level(False), _TWO_LEVEL),
    "two_level_condition_preemptible": (
        lambda: derivations.two_level_optimality_condition(True), _TWO_LEVEL),
    "two_level_condition_protected": (
        lambda: derivations.two_level_optimality_condition(False), _TWO_LEVEL),
    "two_level_rollback_chance_preemptible": (
        lambda: derivations.two_level_rollback_chance(True), ("lam", "R1", "p_loss")),
    "two_level_rollback_chance_protected": (
        lambda: derivations.two_level_rollback_chance(False), ("lam", "R1", "p_loss")),
    "waste_first_order_two_level": (derivations.waste_first_order_two_level, _TWO_LEVEL),
    # a shared pool: Erlang's chain, level by level
    "erlang_b_step": (derivations.erlang_b_step, ("b_below", "alpha", "hold", "level")),
    "pool_preemption_rate": (derivations.pool_preemption_rate_from_b, ("b_star", "alpha")),
    "pool_log_up_share": (derivations.pool_up_share,
                          ("b_top", "b_star", "top_level", "star_level", "alpha", "hold")),
    "readmission_wait": (derivations.readmission_wait, ("up_share", "pool_rate")),
    "passage_mean_step": (derivations.passage_mean_step, ("m_below", "alpha", "hold", "level")),
    "passage_second_moment_step": (derivations.passage_second_moment_step,
                                   ("s_below", "m_below", "alpha", "hold", "level")),
    "passage_down_step": (derivations.passage_down_step, ("d_above", "alpha", "hold", "level")),
    "pool_restart_time": (derivations.pool_restart_time, ("lam", "R", "wait_h")),
    "waste_two_level_persist": (derivations.waste_two_level_persist, (*_TWO_LEVEL, "P")),
    "waste_first_order_two_level_persist": (derivations.waste_first_order_two_level_persist,
                                            (*_TWO_LEVEL, "P")),
    "two_level_first_order_fast": (lambda: derivations.two_level_first_order_optimum()[0],
                                   ("lam", "C1", "p_loss")),
    "two_level_first_order_durable": (lambda: derivations.two_level_first_order_optimum()[1],
                                      ("lam", "C1", "C", "p_loss")),
}


#: Formulas the page's calculator does not use (a shared pool is a command's question:
#: ``spotmath cluster``), so they are not printed in JavaScript.
NOT_ON_PAGE = {"erlang_b_step", "pool_preemption_rate", "pool_log_up_share",
                "readmission_wait", "passage_mean_step", "passage_second_moment_step",
                "passage_down_step", "pool_restart_time"}


def _as_terms(expression: sp.Expr, power: sp.Expr) -> sp.Expr:
    """``expression`` as partial fractions in e^{power}, with e^{power} − 1 as expm1.

    A sum of terms stays finite where one fraction would divide infinity by infinity:
    1/λ − T/expm1(λT) is 1/λ for a huge λT.  :func:`_rewritten` prints it as it is.
    """
    x = sp.Dummy("x", positive=True)
    terms = sp.apart(expression.subs(sp.exp(power), x), x).subs(x, sp.exp(power))
    return terms.replace(sp.exp(power) - 1, expm1(power))


#: Formulas printed as their thunk gives them: rewriting would combine their terms (the
#: two-level ones already hold expm1 and log1p; rewriting expands Θ's sum into terms that
#: overflow to ∞ − ∞; it turns log Γ into the log of a Γ that overflows).
_AS_GIVEN = {"lost_work_exact", *(f"{name}_{variant}" for variant in ("preemptible", "protected")
                                   for name in ("two_level_period_time", "waste_two_level",
                                                "two_level_condition")),
             "waste_two_level_persist", "pool_log_up_share"}


@functools.cache
def _rewritten(name: str) -> tuple[sp.Expr, tuple[sp.Symbol, ...]]:
    """The expression for ``name`` in plain symbols named as its arguments, rewritten.

    Cached: the Python and the JavaScript print the same rewriting (SymPy's expressions are
    immutable), and it is most of the time either takes.
    """
    thunk, arguments = FORMULAS[name]
    symbols = [getattr(derivations, argument) for argument in arguments]
    # Argument names are the attribute names (λ is `lam`), so the text is the same every
    # time: no Dummy symbols with a counter in their names.
    plain = tuple(sp.Symbol(argument, **symbol.assumptions0)
                  for argument, symbol in zip(arguments, symbols))
    expr = sp.sympify(thunk()).xreplace(dict(zip(symbols, plain)))
    leftover = expr.free_symbols - set(plain)
    if leftover:
        raise ValueError(f"{name}: symbols {sorted(map(str, leftover))} are not arguments")
    if name in _AS_GIVEN:
        return expr, plain
    return optimize(sp.powsimp(expr, deep=True), optims_c99), plain


def _body(name: str) -> str:
    """The source of one generated function: lambdify's code with stable argument names."""
    rewritten, plain = _rewritten(name)
    function = sp.lambdify(plain, rewritten, modules=["scipy", "numpy"], dummify=False)
    code = inspect.getsource(function)
    (line,) = [text for text in code.splitlines() if text.strip().startswith("return ")]
    return line.strip()[len("return "):]


def _names(expression: str, arguments: tuple[str, ...]) -> set[str]:
    """The NumPy and SciPy names an expression calls (everything but its arguments)."""
    words = set(re.findall(r"(?<![\w.])([A-Za-z_]\w*)\b(?!\s*=[^=])", expression))
    return {w for w in words - set(arguments)
            if not keyword.iskeyword(w) and not hasattr(builtins, w)}


def generate() -> str:
    """The text of ``spotmath/model/_generated.py`` for the derivations and SymPy installed."""
    functions, numpy_names, scipy_names = [], set(), set()
    for name, (thunk, arguments) in FORMULAS.items():
        expression = _body(name)
        for word in _names(expression, arguments):
            if hasattr(scipy.special, word) and not hasattr(np, word):
                scipy_names.add(word)
            elif hasattr(np, word):
                numpy_names.add(word)
            else:
                raise ValueError(f"{name}: {word!r} is neither in NumPy nor in scipy.special")
        doc = (thunk.__doc__ or "").strip().splitlines()
        summary = doc[0] if doc and not thunk.__name__ == "<lambda>" else name
        # NumPy's select evaluates every branch of a Piecewise: one not taken may divide
        # by zero (the two-level period at p = 0), and its value is discarded.
        quiet = ('over="ignore", invalid="ignore", divide="ignore"'
                 if _rewritten(name)[0].has(sp.Piecewise) else 'over="ignore"')
        functions.append(
            f"def {name}({', '.join(arguments)}):\n"
            f"    \"\"\"{summary.replace(chr(92), chr(92) * 2)}\"\"\"\n"
            f"    with errstate({quiet}):\n"
            f"        return {expression}\n")
    header = [
        '"""Generated by `python -m spotmath.model.codegen` from the derivations: do not edit.',
        "",
        f"SymPy {sp.__version__}.  Every function is printed by lambdify from the derivation",
        "named in spotmath.model.codegen.FORMULAS; the test suite checks that regenerating gives",
        'this text exactly."""',
        "",
        "# ruff: noqa",
        f"from numpy import {', '.join(sorted(numpy_names | {'errstate'}))}",
    ]
    if scipy_names:
        header.append(f"from scipy.special import {', '.join(sorted(scipy_names))}")
    named = [derivations.derivation(name) for name in derivations.NAMES]
    latex = "\n".join(f"    {one.name!r}: {one.latex()!r}," for one in named)
    titles = "\n".join(f"    {one.name!r}: {one.title!r}," for one in named)
    table = ("#: Every named derivation as LaTeX (``Derivation.latex()``), by name.\n"
             f"LATEX = {{\n{latex}\n}}\n\n"
             "#: Every named derivation's title (``Derivation.title``), by name.\n"
             f"TITLES = {{\n{titles}\n}}\n")
    return ("\n".join(header) + "\n\n\n" + "\n\n".join(functions) + "\n\n"
            + table)


class _JavaScript(JavascriptCodePrinter):
    """SymPy's JavaScript printer, plus the C99 functions and Lambert W it lacks.

    ``expm1`` and ``log1p`` are JavaScript's ``Math.expm1`` and ``Math.log1p``; W₀ is
    ``lambertW0`` from the hand-written ``web/solving.js``; a Piecewise is one nested
    conditional expression, so every function is a single ``return``.
    """

    def _print_expm1(self, expr: sp.Expr) -> str:
        return f"Math.expm1({self._print(expr.args[0])})"

    def _print_log1p(self, expr: sp.Expr) -> str:
        return f"Math.log1p({self._print(expr.args[0])})"

    def _print_LambertW(self, expr: sp.Expr) -> str:
        if len(expr.args) != 1:
            raise ValueError("only the principal branch W0 is printed")
        return f"lambertW0({self._print(expr.args[0])})"

    def _print_Piecewise(self, expr: sp.Piecewise) -> str:
        *pieces, (last, condition) = expr.args
        if condition != sp.true:
            raise ValueError("a Piecewise must end with an otherwise branch")
        text = self._print(last)
        for value, cond in reversed(pieces):
            text = f"(({self._print(cond)}) ? ({self._print(value)}) : ({text}))"
        return text


def generate_js() -> str:
    """The text of ``spotmath/web/formulas.js``: :data:`FORMULAS` in JavaScript."""
    printer = _JavaScript({"strict": True})
    functions = []
    for name, (thunk, arguments) in FORMULAS.items():
        if name in NOT_ON_PAGE:
            continue
        rewritten, _ = _rewritten(name)
        doc = (thunk.__doc__ or "").strip().splitlines()
        summary = doc[0] if doc and not thunk.__name__ == "<lambda>" else name
        functions.append(f"    // {summary}\n"
                         f"    {name}: function ({', '.join(arguments)}) {{\n"
                         f"      return {printer.doprint(rewritten)};\n"
                         f"    }},")
    return "\n".join([
        "// Generated by `python -m spotmath.model.codegen` from the derivations: do not edit.",
        f"// SymPy {sp.__version__}.  The functions of spotmath/model/_generated.py, printed by",
        "// SymPy's JavaScript printer from the same rewritten expressions; the test suite",
        "// checks that regenerating gives this text exactly.  Needs web/solving.js.",
        '"use strict";',
        "",
        "(function (root) {",
        "  const lambertW0 = root.spotmathSolving.lambertW0;",
        "  root.spotmathFormulas = {",
        *functions,
        "  };",
        '})(typeof globalThis !== "undefined" ? globalThis : this);',
        "",
    ])


def generate_data_js() -> str:
    """The text of ``spotmath/web/data.js``: what the page shares with the command.

    The time units, the duration and rate patterns of :mod:`spotmath.inputs` (Python's
    named groups written the JavaScript way) and the words of its checks' messages; the
    words of the model's and the plan's refusals, of the plan's table and how it writes
    durations and shares; ``spotmath plan``'s defaults, choices, usage errors and the keys
    of its JSON: so the page accepts and refuses exactly what the command does, and says
    it in the same words.
    """
    import json

    from .. import inputs
    from . import numerics, plan, two_level

    def pattern(regex: re.Pattern) -> str:
        return regex.pattern.replace("(?P<", "(?<")

    values = {
        "HOURS_PER_UNIT": inputs.HOURS_PER_UNIT,
        "NUMBER": pattern(inputs._NUMBER_RE),
        "DURATION": pattern(inputs._DURATION_RE),
        "RATE": pattern(inputs._RATE_RE),
        "SIZE": pattern(inputs._SIZE_RE),
        "BYTES_PER_UNIT": inputs.BYTES_PER_UNIT,
        "MAX_BYTES": inputs.MAX_BYTES,
        "BOUNDS": inputs.BOUNDS,
        "WORDS": inputs.WORDS,
        "PLAN_DEFAULTS": dict(plan.DEFAULTS, nodes="1",
                              **{name: choices[0] for name, choices in plan.CHOICES.items()}),
        "PLAN_CHOICES": plan.CHOICES,
        "PLAN_KEYS": plan.PLAN_KEYS,
        "TWO_LEVEL_KEYS": plan.TWO_LEVEL_KEYS,
        "MOST_SEGMENTS": two_level.MOST_SEGMENTS,
        "MODEL_REFUSALS": numerics.REFUSALS,
        "TWO_LEVEL_REFUSALS": two_level.REFUSALS,
        "OPTION_NAMES": plan.OPTION_NAMES,
        "PLAN_REFUSALS": plan.REFUSALS,
        "PLAN_REPORT": plan.REPORT,
        "NUMBER_TEMPLATES": plan.NUMBER_TEMPLATES,
        "DURATION_UNITS": plan.DURATION_UNITS,
        "TABLE_WIDTH": plan.WIDTH,
        "PLAN_USAGE": plan.USAGE,
        "PLAN_VERDICTS": plan.VERDICTS,
    }
    body = "\n".join(f"    {key}: {json.dumps(value)}," for key, value in values.items())
    return "\n".join([
        "// Generated by `python -m spotmath.model.codegen` from spotmath.inputs and",
        "// spotmath.model (numerics, two_level, plan): do not edit.  What the page shares",
        "// with the command: units, patterns, words, formats, defaults and JSON keys.",
        '"use strict";',
        "",
        "(function (root) {",
        "  root.spotmathData = {",
        body,
        "  };",
        '})(typeof globalThis !== "undefined" ? globalThis : this);',
        "",
    ])


def check() -> bool:
    """Whether the generated Python and JavaScript files are exactly what is printed now."""
    return (PATH.read_text() == generate() and JS_PATH.read_text() == generate_js()
            and DATA_JS_PATH.read_text() == generate_data_js())


def main() -> int:
    """Write ``spotmath/model/_generated.py``, ``spotmath/web/formulas.js`` and ``data.js``."""
    PATH.write_text(generate())
    JS_PATH.write_text(generate_js())
    DATA_JS_PATH.write_text(generate_data_js())
    print(f"wrote {PATH.name} and web/{JS_PATH.name}: {len(FORMULAS)} functions each; "
          f"web/{DATA_JS_PATH.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
