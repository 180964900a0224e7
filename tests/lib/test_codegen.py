"""The generated numeric functions: exactly what the derivations print, and SymPy-free."""

import subprocess
import sys

import numpy as np
import pytest

from spotmath.model import _generated as G
from spotmath.model import codegen
from spotmath.model import derivations as D

pytestmark = pytest.mark.derives  # SymPy: run first, together (tests/conftest.py)


def test_generated_module_is_what_the_derivations_print_now():
    """Regenerating from SymPy gives the committed file, character for character."""
    assert codegen.check(), "run: python -m spotmath.model.codegen"


def test_the_pages_scripts_are_what_python_prints_now():
    """formulas.js and data.js regenerated give the committed files exactly."""
    from spotmath.web import codegen as web_codegen

    assert web_codegen.check(), "run: python -m spotmath.web.codegen"


def test_every_formula_is_generated_and_used_names_exist():
    for name, (_, arguments) in codegen.FORMULAS.items():
        function = getattr(G, name)
        assert function.__code__.co_varnames[:len(arguments)] == arguments


def test_generated_functions_agree_with_sympy_at_sample_points():
    """Evaluated by SymPy itself (subs, 30 digits) at a point inside the domain."""
    values = {"lam": 0.3, "T": 0.7, "C": 0.02, "R": 0.15, "d": 0.6, "N": 8.0, "x": 0.2,
              "c": 0.01, "H": 24.0, "F": 0.1, "m": 74.0, "n": 16.0, "tau": 100.0,
              "p": 7e9, "q": 14.0, "B": 7.2e12, "P": 0.05, "w": 0.1, "g": 0.6, "a": 0.8,
              "k": 0.8, "G": 130.0, "Lsum": 20.0, "sigma": 2.0, "t": 1.5, "r": 1.2,
              "rho": 0.3, "q_n": 0.7, "C_n": 0.01, "C1": 0.005, "R1": 0.05, "p_loss": 0.4,
              "n2": 5.0, "b_below": 0.3, "alpha": 2.0, "hold": 1.5, "level": 4.0,
              "b_star": 0.2, "b_top": 0.05, "top_level": 8.0, "star_level": 5.0,
              "m_below": 0.7, "s_below": 1.9, "d_above": 0.6, "up_share": 0.8,
              "pool_rate": 0.4, "wait_h": 0.3, "any_level": 4.0, "log_b_top": -3.0,
              "log_b_star": -1.6, "log_above": -0.5, "log_weight_star": -1.2,
              "log_weight_top": -2.5, "wait_share": 0.3, "quantile_share": 0.01}
    for name, (thunk, arguments) in codegen.FORMULAS.items():
        expr = thunk()
        point = {getattr(D, a): values[a] for a in arguments}
        exact = complex(expr.subs(point).evalf(30))
        got = complex(np.asarray(getattr(G, name)(*(values[a] for a in arguments))))
        assert abs(got - exact) <= 1e-9 * max(1.0, abs(exact)), (name, got, exact)


def test_import_and_plan_do_not_import_sympy():
    code = ("import sys, spotmath; spotmath.make_plan(0.25, 1/6, 1/60, 0.6, 8, "
            "notice=1/30, notice_share=0.9, persist=0.05); "
            "from spotmath.cli import main; main(['plan', '--json']); "
            "sys.exit('sympy' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_stored_latex_and_titles_are_each_derivations():
    """Independent of the text check: each entry against its derivation, by name (what
    `spotmath derive` prints and the chapters show)."""
    assert tuple(G.LATEX) == tuple(G.TITLES) == D.NAMES
    for name in D.NAMES:
        one = D.derivation(name)
        assert one.name == name and "\n" not in one.latex()
        assert (G.LATEX[name], G.TITLES[name]) == (one.latex(), one.title), name
