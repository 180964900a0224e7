"""Every labelled equation a chapter writes literally in its markdown states the derivation
of its name (``eq-lost-work`` states ``derivation("lost-work")``): read back from the
LaTeX (tests/book/literal_math.py) and compared with the SymPy expression, exactly where
SymPy can tell and at random points always, so a typo in an equation fails."""

import random

import pytest
import sympy as sp
from literal_math import LiteralMathError, labelled_equations, normalise, parse_equation

from spotmath.book.chapters import chapter_paths
from spotmath.model.derivations import derivation

CHAPTERS = chapter_paths()
#: Symbols that are shares, in (0, 1): a notice share, a discount, a loss chance, ….
SHARES = {"q", "d", "p", "rho", "F", "S", "g", "w", "a"}



def symbols_of(expression: sp.Expr) -> dict[str, sp.Symbol]:
    return {normalise(sp.latex(symbol)): symbol for symbol in expression.free_symbols}


def differs(latex: str, name: str) -> str | None:
    """Why ``latex`` does not state derivation ``name``, or None where it does."""
    stated = derivation(name)
    try:
        lhs, rhs = parse_equation(latex, symbols_of(stated.rhs))
    except LiteralMathError as error:
        return str(error)
    if lhs != normalise(sp.latex(stated.lhs)):
        return f"left side {lhs!r}, the derivation's is {sp.latex(stated.lhs)!r}"
    if rhs.free_symbols != stated.rhs.free_symbols:
        return f"symbols {rhs.free_symbols} against {stated.rhs.free_symbols}"
    draw = random.Random(name)
    for _ in range(6):  # positive values, as the symbols are; shares below 1
        point = {symbol: sp.Rational(draw.randint(1, 96 if symbol.name in SHARES else 400), 97)
                 for symbol in rhs.free_symbols}
        mine, theirs = (sp.N(side.subs(point), 40) for side in (rhs, stated.rhs))
        if abs(mine - theirs) > sp.Float("1e-30", 40) * (1 + abs(theirs)):
            return f"at {point}: {mine} against {theirs}"
    return None


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[path.stem for path in CHAPTERS])
def test_every_literal_equation_states_its_derivation(chapter):
    for label, latex in labelled_equations(chapter).items():
        assert label.startswith("eq-"), label
        assert differs(latex, label.removeprefix("eq-")) is None, (label, latex)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[path.stem for path in CHAPTERS])
def test_no_chapter_glues_an_equation(chapter):
    """Every equation is literal, so it reads in the notebook's source (#51): none is a
    {glue:math} block, which the source shows empty."""
    assert "{glue:math}" not in chapter.read_text()


@pytest.mark.parametrize("typo", [
    r"\ell = \frac{1}{\lambda} - \frac{T}{e^{\lambda T} + 1}",  # a sign
    r"\ell = \frac{1}{\lambda} - \frac{T}{e^{\lambda} - 1}",  # a factor left out
    r"\ell = \frac{1}{\mu} - \frac{T}{e^{\mu T} - 1}",  # a symbol the derivation lacks
    r"\ell_1 = \frac{1}{\lambda} - \frac{T}{e^{\lambda T} - 1}",  # the wrong left side
    r"\ell = \frac{1}{\lambda} - \frac{T}{e^{\lambda T} - 1",  # a brace left open
])
def test_a_typo_in_an_equation_is_caught(typo):
    right = r"\ell = \frac{1}{\lambda} - \frac{T}{e^{\lambda T} - 1}"
    assert differs(right, "lost-work-exact") is None
    assert differs(typo, "lost-work-exact") is not None


def test_the_reader_reads_what_the_book_writes():
    """Roots, powers, Lambert's W, logarithms, products with a dot, spacing."""
    lam, C, T = (sp.Symbol(name, positive=True) for name in ("lambda", "C", "T"))
    symbols = {r"\lambda": lam, "C": C, "T": T}
    cases = {
        r"x = \sqrt{\frac{2C}{\lambda}}": sp.sqrt(2 * C / lam),
        r"x = \sqrt[3]{C}\, T^{2}": sp.root(C, 3) * T**2,
        r"x = \frac{1 + W_0\left(-e^{-1 - \lambda C}\right)}{\lambda}":
            (1 + sp.LambertW(-sp.exp(-1 - lam * C))) / lam,
        r"x = \log\left(1 + \lambda T\right) - \ln C": sp.log(1 + lam * T) - sp.log(C),
        r"x = 2 \cdot \lambda \cdot T - e^{\lambda}": 2 * lam * T - sp.exp(lam),
    }
    for latex, expected in cases.items():
        assert parse_equation(latex, symbols) == ("x", expected), latex


def test_a_typo_in_a_sum_or_a_factorial_is_caught():
    """The cluster chapter's rate, written with a sum and factorials, read back; with the
    sum from 1, or (αh)^{j+1}, it states something else."""
    right = (r"\lambda_{c} = \frac{\alpha \left(\alpha h\right)^{k^{*}}}{k^{*}! "
             r"\sum_{j=0}^{k^{*}} \frac{\left(\alpha h\right)^{j}}{j!}}")
    assert differs(right, "pool-preemption-rate") is None
    assert differs(right.replace("j=0", "j=1"), "pool-preemption-rate") is not None
    assert differs(right.replace("^{j}", "^{j + 1}"), "pool-preemption-rate") is not None
