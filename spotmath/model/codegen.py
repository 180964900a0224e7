"""The numeric functions, generated ahead of time from the derivations.

``python -m spotmath.model.codegen`` writes ``spotmath/model/_generated.py``: one plain
NumPy/SciPy function for each entry of :data:`FORMULAS`, printed by SymPy's ``lambdify``
from the derivation the entry names, after two of SymPy's C99 rewrites (:data:`REWRITES`:
``exp(x) − 1`` becomes ``expm1``, ``log(1 + x)`` becomes ``log1p``), and :data:`LATEX`:
every named derivation as the LaTeX the book shows.  So ``import spotmath``, ``spotmath
plan`` and the chapters never run SymPy, and nothing is retyped.  The test suite
regenerates the text and compares it with the file (:func:`check`), so the file cannot
drift from the derivations or from SymPy.  The same functions in JavaScript, for the
book's calculator, are printed from the same rewritten expressions by
:mod:`spotmath.web.codegen`.

Each generated function lets an exponential overflow to infinity quietly: that is the
correct limit of these formulas (a waste tends to 1).  A Piecewise one also evaluates the
branches it does not take (NumPy's ``select``), quietly; so the two-level period and
optimality condition, which the optimum's search evaluates thousands of times at p > 0, also
come as that branch alone (``…_lossy_…``).
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
from sympy.codegen.rewriting import expm1_opt, log1p_opt, optimize

from . import derivations

__all__ = ["FORMULAS", "LOSSY", "PATH", "REWRITES", "generate", "rewritten", "summary", "check",
           "main"]

#: The generated module.
PATH = Path(__file__).with_name("_generated.py")
#: The rewrites applied before printing: accurate e^x − 1 and log(1 + x) near x = 0.  The
#: rest of SymPy's C99 set (exp2, log2 and its constant) leaves these formulas' text as it
#: is, and would take most of the rewriting's time.
REWRITES = (expm1_opt, log1p_opt)


def _notice_condition(part: int) -> sp.Expr:
    """g(T)e^{−λ(T+C)} (part 0), and the coefficients α (1) and β (2) of ℓ(T) = αT + β."""
    g, slope = derivations.notice_optimality_condition()
    if part == 0:
        lam, T, C = derivations.lam, derivations.T, derivations.C
        return sp.expand(sp.powsimp(sp.expand(g * sp.exp(-lam * (T + C)))))
    return sp.Poly(slope, derivations.T).all_coeffs()[part - 1]


def _lossy(piecewise: sp.Piecewise) -> sp.Expr:
    """A two-level Piecewise's branch for p > 0 (its other is p = 0, where c = 0)."""
    (zero, at_zero), (general, otherwise) = piecewise.args
    if at_zero != sp.Eq(derivations.p_loss, 0) or otherwise is not sp.true:
        raise ValueError(f"not a two-level Piecewise on p = 0: {piecewise}")
    return general


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
    "lost_work_series": (derivations.lost_work_series, ("lam", "T")),
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
    # the same period and condition where p > 0 alone: NumPy's select computes every
    # branch of a Piecewise, and the optimum searches only at p > 0
    "two_level_period_time_lossy_preemptible": (
        lambda: _lossy(derivations.two_level_period_time(True)), _TWO_LEVEL),
    "two_level_period_time_lossy_protected": (
        lambda: _lossy(derivations.two_level_period_time(False)), _TWO_LEVEL),
    "two_level_condition_lossy_preemptible": (
        lambda: _lossy(derivations.two_level_optimality_condition(True)), _TWO_LEVEL),
    "two_level_condition_lossy_protected": (
        lambda: _lossy(derivations.two_level_optimality_condition(False)), _TWO_LEVEL),
    # a shared pool: Erlang's chain, level by level
    "erlang_b_step": (derivations.erlang_b_step, ("b_below", "alpha", "hold", "level")),
    "erlang_log_weight": (derivations.erlang_log_weight, ("alpha", "hold", "any_level")),
    "pool_preemption_rate": (derivations.pool_preemption_rate_from_b, ("b_star", "alpha")),
    "pool_log_up_share": (
        lambda: _in_logarithms(derivations.pool_up_share(), {
            derivations.b_top: derivations.log_b_top, derivations.b_star: derivations.log_b_star}),
        ("log_b_top", "log_b_star", "top_level", "star_level", "alpha", "hold")),
    "readmission_wait": (derivations.readmission_wait, ("up_share", "pool_rate")),
    "pool_log_readmission_wait": (
        lambda: _in_logarithms(sp.log(derivations.readmission_wait_sums()), {
            derivations.above_sum: derivations.log_above,
            derivations.weight_star: derivations.log_weight_star}),
        ("log_above", "log_weight_star", "alpha")),
    "passage_mean_step": (derivations.passage_mean_step, ("m_below", "alpha", "hold", "level")),
    "passage_second_moment_step": (derivations.passage_second_moment_step,
                                   ("s_below", "m_below", "alpha", "hold", "level")),
    "passage_down_step": (derivations.passage_down_step, ("d_above", "alpha", "hold", "level")),
    "pool_restart_time": (derivations.pool_restart_time, ("lam", "R", "wait_h")),
    # requests that wait in line (the M/M/K chain)
    "pool_log_queue_tail": (
        lambda: _in_logarithms(sp.log(derivations.queue_tail()),
                               {derivations.weight_top: derivations.log_weight_top}),
        ("log_weight_top", "alpha", "hold", "top_level")),
    "erlang_c": (derivations.erlang_c, ("b_top", "alpha", "hold", "top_level")),
    "queue_wait_quantile": (derivations.queue_wait_quantile,
                            ("wait_share", "quantile_share", "alpha", "hold", "top_level")),
    "waste_two_level_persist": (derivations.waste_two_level_persist, (*_TWO_LEVEL, "P")),
    "waste_first_order_two_level_persist": (derivations.waste_first_order_two_level_persist,
                                            (*_TWO_LEVEL, "P")),
    "two_level_first_order_fast": (lambda: derivations.two_level_first_order_optimum()[0],
                                   ("lam", "C1", "p_loss")),
    "two_level_first_order_durable": (lambda: derivations.two_level_first_order_optimum()[1],
                                      ("lam", "C1", "C", "p_loss")),
}


def _in_logarithms(expression: sp.Expr, logarithms: dict) -> sp.Expr:
    """``expression`` with each positive quantity given by its logarithm, logs expanded:
    log(b) of b = e^ℓ is ℓ, so the numerics never form a quantity that under- or
    overflows a double (an Erlang B of 10⁻⁴⁰⁰ is a logarithm of −921)."""
    given = expression.xreplace({symbol: sp.exp(log) for symbol, log in logarithms.items()})
    return sp.expand_log(given, force=True)


def _as_terms(expression: sp.Expr, power: sp.Expr) -> sp.Expr:
    """``expression`` as partial fractions in e^{power}, with e^{power} − 1 as expm1.

    A sum of terms stays finite where one fraction would divide infinity by infinity:
    1/λ − T/expm1(λT) is 1/λ for a huge λT.  :func:`rewritten` prints it as it is.
    """
    x = sp.Dummy("x", positive=True)
    terms = sp.apart(expression.subs(sp.exp(power), x), x).subs(x, sp.exp(power))
    return terms.replace(sp.exp(power) - 1, expm1(power))


#: The two-level branches for p > 0 alone: as given, and as quiet as their Piecewise (far
#: past the optimum's root the period overflows, and h is ∞ − ∞: NaN, counted as above).
LOSSY = {f"{name}_lossy_{variant}" for variant in ("preemptible", "protected")
         for name in ("two_level_period_time", "two_level_condition")}

#: Formulas printed as their thunk gives them: rewriting would combine their terms (the
#: two-level ones already hold expm1 and log1p; rewriting expands Θ's sum into terms that
#: overflow to ∞ − ∞; it turns log Γ into the log of a Γ that overflows).
_AS_GIVEN = {"lost_work_exact", *LOSSY,
             *(f"{name}_{variant}" for variant in ("preemptible", "protected")
               for name in ("two_level_period_time", "waste_two_level",
                            "two_level_condition")),
             "waste_two_level_persist", "pool_log_up_share", "erlang_log_weight",
             "pool_log_readmission_wait", "pool_log_queue_tail", "queue_wait_quantile"}


@functools.cache
def rewritten(name: str) -> tuple[sp.Expr, tuple[sp.Symbol, ...]]:
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
    return optimize(sp.powsimp(expr, deep=True), REWRITES), plain


def summary(name: str) -> str:
    """The first line of the docstring of ``name``'s derivation (the name for a lambda)."""
    thunk, _ = FORMULAS[name]
    doc = (thunk.__doc__ or "").strip().splitlines()
    return doc[0] if doc and not thunk.__name__ == "<lambda>" else name


def _body(name: str) -> str:
    """The source of one generated function: lambdify's code with stable argument names."""
    expression, plain = rewritten(name)
    function = sp.lambdify(plain, expression, modules=["scipy", "numpy"], dummify=False)
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
    for name, (_, arguments) in FORMULAS.items():
        expression = _body(name)
        for word in _names(expression, arguments):
            if hasattr(scipy.special, word) and not hasattr(np, word):
                scipy_names.add(word)
            elif hasattr(np, word):
                numpy_names.add(word)
            else:
                raise ValueError(f"{name}: {word!r} is neither in NumPy nor in scipy.special")
        # NumPy's select evaluates every branch of a Piecewise: one not taken may divide
        # by zero (the two-level period at p = 0), and its value is discarded.
        quiet = ('over="ignore", invalid="ignore", divide="ignore"'
                 if rewritten(name)[0].has(sp.Piecewise) or name in LOSSY
                 else 'over="ignore"')
        functions.append(
            f"def {name}({', '.join(arguments)}):\n"
            f"    \"\"\"{summary(name).replace(chr(92), chr(92) * 2)}\"\"\"\n"
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


def check() -> bool:
    """Whether ``spotmath/model/_generated.py`` is exactly what is printed now."""
    return PATH.read_text() == generate()


def main() -> int:
    """Write ``spotmath/model/_generated.py``."""
    PATH.write_text(generate())
    print(f"wrote {PATH.name}: {len(FORMULAS)} functions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
