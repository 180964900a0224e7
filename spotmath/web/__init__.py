"""The book's in-page calculator: `spotmath plan` in JavaScript, with no kernel or server.

Each hand-written script is a port of the Python module it is named after and holds no
formula, words or format of its own: ``format.js`` (how Python fills a template and
writes a number), ``inputs.js`` (:mod:`spotmath.inputs`), ``solving.js``
(:mod:`spotmath.model.solving`, with Lambert W and SciPy's ``brentq``), ``numerics.js``
(:mod:`spotmath.model.numerics` with the full model's options), ``two_level.js``
(:mod:`spotmath.model.two_level`), ``plan.js`` (:mod:`spotmath.model.plan` and
:mod:`spotmath.report`) and ``calculator.js``, the page's form and plot.
:mod:`spotmath.web.codegen` prints the other two from Python: ``formulas.js`` from the
SymPy derivations and ``data.js`` (the units, patterns, words, formats, defaults and JSON
keys, and the book's colours).
"""

from pathlib import Path

__all__ = ["WEB", "SCRIPTS"]

#: The folder of the scripts.
WEB = Path(__file__).resolve().parent
#: The scripts in the order a page loads them (each reads those before it).
SCRIPTS = ("format.js", "data.js", "inputs.js", "solving.js", "formulas.js", "numerics.js",
           "two_level.js", "plan.js", "calculator.js")
