"""Read the book's literal display equations back into SymPy, to test them against the
derivations they state.

A chapter writes each labelled equation as LaTeX in its markdown::

    ```{math}
    :label: eq-lost-work
    \\ell_1 = \\frac{T}{2}
    ```

:func:`labelled_equations` finds them; :func:`parse_equation` reads one into its
left-hand side (the LaTeX of a symbol, normalised) and a SymPy expression for its right,
with the symbols it is given (a symbol the equation names that is not among them is an
error, so a misspelt symbol fails).  The LaTeX read is the small part the book writes:
sums, products written side by side or with ``\\cdot``, ``\\frac``, ``\\sqrt`` (with an
index), powers, ``e^{…}`` and ``\\exp``, ``\\log`` and ``\\ln``, Lambert's ``W`` (``W_0``),
factorials, ``\\sum_{j=a}^{b}``, ``cases``, parentheses (``\\left(`` … ``\\right)``),
numbers, Latin and Greek letters with subscripts, and spacing commands, which are
skipped.  Both forms of a labelled display are found: a ``{math}`` block with ``:label:``,
and ``$$ … $$ (label)``.  SymPy's own LaTeX parsers read
less of it (``e^{x}``, subscripts in ``\\mathrm``, ``W``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import nbformat
import sympy as sp

__all__ = ["labelled_equations", "parse_equation", "normalise", "LiteralMathError"]


class LiteralMathError(ValueError):
    """An equation this reader cannot read, or one naming a symbol it was not given."""


_MATH = re.compile(r"```\{math\}\n:label: (?P<label>[\w-]+)\n(?P<body>.*?)\n```"
                   r"|\$\$\n(?P<dollar_body>.*?)\n\$\$ \((?P<dollar_label>[\w-]+)\)", re.S)


def labelled_equations(notebook_path) -> dict[str, str]:
    """label: LaTeX of every labelled display equation in a notebook's markdown, a
    ``{math}`` block with ``:label:`` or ``$$ … $$ (label)``."""
    notebook = nbformat.read(notebook_path, as_version=4)
    found: dict[str, str] = {}
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        for match in _MATH.finditer(cell.source):
            label = match["label"] or match["dollar_label"]
            if label in found:
                raise LiteralMathError(f"{label}: labelled twice")
            found[label] = (match["body"] or match["dollar_body"]).strip()
    return found


def normalise(latex: str) -> str:
    """A symbol's LaTeX without spaces, braces around one character, or ``\\mathrm``:
    ``T_{\\mathrm{be}}`` and ``T_{be}`` read the same, as do ``C_{n}`` and ``C_n``."""
    text = re.sub(r"\\(mathrm|operatorname|text)\{([^{}]*)\}", r"\2", latex.replace(" ", ""))
    return re.sub(r"\{(\\?[A-Za-z0-9*]+)\}", r"\1", text)


_TOKEN = re.compile(r"\\\\|\\[A-Za-z]+|\\[,;:! ]|\d+(?:\.\d+)?|[A-Za-z]|[{}()\[\]^_+\-=*/'&<>]|\S")
_SKIPPED = {r"\,", r"\;", r"\:", r"\!", "\\ ", r"\displaystyle", r"\left", r"\right",
            r"\quad", r"\qquad"}
_FUNCTIONS = {r"\log": sp.log, r"\ln": sp.log, r"\exp": sp.exp}
_RELATIONS = {"<": sp.Lt, ">": sp.Gt, r"\le": sp.Le, r"\leq": sp.Le, r"\ge": sp.Ge,
              r"\geq": sp.Ge}
#: Tokens that end a product: a sum's sign, a closing bracket, a case's parts.
_ENDS = {None, "+", "-", ")", "}", "]", "=", "&", "\\\\", r"\end", *_RELATIONS}
#: The left side of an equation may be a probability, ``P(\text{wait} > t)``: a name.


class _Reader:
    """A recursive-descent reader of one side of an equation."""

    def __init__(self, latex: str, symbols: Mapping[str, sp.Symbol]):
        self.tokens = [tok for tok in _TOKEN.findall(latex) if tok not in _SKIPPED]
        self.at = 0
        self.symbols = symbols

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise LiteralMathError(f"expected {expected or 'more'} at token {self.at} "
                                   f"of {' '.join(self.tokens)!r}, got {token!r}")
        self.at += 1
        return token

    def done(self) -> None:
        if self.peek() is not None:
            raise LiteralMathError(f"unread from token {self.at}: "
                                   f"{' '.join(self.tokens[self.at:])!r}")

    # expression := ['-'] term (('+' | '-') term)*
    def expression(self) -> sp.Expr:
        sign = -1 if self.peek() == "-" and self.take() else 1
        if self.peek() == "+":
            self.take()
        total = sign * self.term()
        while self.peek() in ("+", "-"):
            sign = 1 if self.take() == "+" else -1
            total += sign * self.term()
        return total

    # term := factor (['\cdot' | '\times' | '/'] factor)*, side by side is a product
    def term(self) -> sp.Expr:
        product = self.factor()
        while self.peek() not in _ENDS:
            if self.peek() in (r"\cdot", r"\times"):
                self.take()
            if self.peek() == "/":
                self.take()
                product /= self.factor()
            else:
                product *= self.factor()
        return product

    # factor := base ['!'] ('^' group)?
    def factor(self) -> sp.Expr:
        base = self.base()
        if self.peek() == "!":
            self.take()
            base = sp.factorial(base)
        if self.peek() == "^":
            self.take()
            base = base ** self.group()
        return base

    def enclosed(self, opening: str, closing: str) -> sp.Expr:
        """``opening expression closing``: a group, parentheses, a root's index."""
        self.take(opening)
        inner = self.expression()
        self.take(closing)
        return inner

    def group(self) -> sp.Expr:
        """``{expression}``, or one token (``x^2``, ``e^x``)."""
        if self.peek() == "{":
            return self.enclosed("{", "}")
        return self.base()

    def base(self) -> sp.Expr:
        token = self.peek()
        if token is None:
            raise LiteralMathError("the expression ends early")
        if re.fullmatch(r"\d+(?:\.\d+)?", token):
            self.take()
            return sp.Rational(token)
        if token in ("(", "["):
            return self.enclosed(token, ")" if token == "(" else "]")
        if token == "{":
            return self.group()
        if token == r"\begin":
            return self.cases()
        if token == r"\sum":
            return self.sum()
        if token == r"\frac":
            self.take()
            return self.group() / self.group()
        if token == r"\sqrt":
            self.take()
            index = self.enclosed("[", "]") if self.peek() == "[" else 2
            return sp.root(self.group(), index)
        if token == "e" and self.tokens[self.at + 1:self.at + 2] == ["^"]:
            self.take()
            self.take("^")
            return sp.exp(self.group())
        if token in _FUNCTIONS:
            self.take()
            return _FUNCTIONS[token](self.argument())
        if token == "W":  # Lambert's W: W(x) or W_0(x), the principal branch
            self.take()
            if self.peek() == "_":
                self.take()
                if self.group() != 0:
                    raise LiteralMathError("only the principal branch W_0 is read")
            return sp.LambertW(self.argument())
        return self.symbol()

    def sum(self) -> sp.Sum:
        """``\\sum_{j=a}^{b} term``: the index is a new symbol, an integer, inside it."""
        self.take(r"\sum")
        self.take("_")
        self.take("{")
        index = sp.Symbol(self.take(), integer=True, nonnegative=True)
        self.take("=")
        outer = self.symbols
        self.symbols = {**outer, index.name: index}
        low = self.expression()
        self.take("}")
        self.take("^")
        high = self.group()
        body = self.factor()
        self.symbols = outer
        return sp.Sum(body, (index, low, high))

    def cases(self) -> sp.Piecewise:
        """``\\begin{cases} value & \\text{if } a < b \\\\ … & \\text{otherwise} \\end{cases}``."""
        self.take(r"\begin")
        if self.raw_group() != "{cases}":
            raise LiteralMathError("only the cases environment is read")
        pieces = []
        while True:
            value = self.expression()
            self.take("&")
            pieces.append((value, self.condition()))
            if self.peek() != "\\\\":
                break
            self.take()
        self.take(r"\end")
        self.raw_group()
        return sp.Piecewise(*pieces)

    def condition(self) -> sp.Basic:
        """A case's condition: ``a < b`` (``\\text{if}`` and the like skipped), or
        ``\\text{otherwise}``."""
        words = []
        while self.peek() == r"\text":
            self.take()
            words.append(self.raw_group())
        if self.peek() in ("\\\\", r"\end"):
            if words != ["{otherwise}"]:
                raise LiteralMathError(f"a case without a condition: {words}")
            return sp.true
        left = self.expression()
        relation = self.take()
        if relation not in _RELATIONS:
            raise LiteralMathError(f"not a relation: {relation!r}")
        return _RELATIONS[relation](left, self.expression())

    def argument(self) -> sp.Expr:
        if self.peek() == "(":
            return self.enclosed("(", ")")
        return self.factor()

    def symbol(self) -> sp.Symbol:
        token = self.take()
        if not re.fullmatch(r"\\[A-Za-z]+|[A-Za-z]", token):
            raise LiteralMathError(f"not a symbol: {token!r}")
        name = token
        if token in (r"\bar", r"\hat", r"\tilde"):
            name = token + self.raw_group()
        if self.peek() == "_":
            self.take()
            name += "_" + self.raw_group()
        if self.peek() == "^" and self.tokens[self.at + 1:self.at + 4] == ["{", "*", "}"]:
            self.at += 4
            name += "^*"
        key = normalise(name)
        if key not in self.symbols:
            raise LiteralMathError(f"{name}: not a symbol of the derivation "
                                   f"(it has {', '.join(sorted(self.symbols))})")
        return self.symbols[key]

    def raw_group(self) -> str:
        """The LaTeX of ``{…}`` (or one token) as written: a subscript's text."""
        if self.peek() != "{":
            return self.take()
        self.take("{")
        depth, parts = 1, []
        while True:
            token = self.take()
            depth += {"{": 1, "}": -1}.get(token, 0)
            if depth == 0:
                return "{" + "".join(parts) + "}"
            parts.append(token)


def parse_equation(latex: str, symbols: Mapping[str, sp.Symbol]) -> tuple[str, sp.Expr]:
    """``lhs = rhs`` read back: the left side's LaTeX (normalised) and the right side's
    SymPy expression over ``symbols`` (normalised LaTeX: symbol).

    >>> lam, T = sp.Symbol("lambda", positive=True), sp.Symbol("T", positive=True)
    >>> parse_equation(r"\\ell = \\frac{1}{\\lambda} - \\frac{T}{e^{\\lambda T} - 1}",
    ...                {r"\\lambda": lam, "T": T})
    ('\\\\ell', -T/(exp(T*lambda) - 1) + 1/lambda)
    """
    depth, at = 0, None  # the first '=' outside braces (a sum's index has its own)
    for position, character in enumerate(latex):
        depth += {"{": 1, "}": -1}.get(character, 0)
        if character == "=" and depth == 0:
            at = position
            break
    if at is None:
        raise LiteralMathError(f"expected 'left = right' in {latex!r}")
    left, right = latex[:at], latex[at + 1:]
    reader = _Reader(right, symbols)
    rhs = reader.expression()
    reader.done()
    return normalise(left.strip().replace(r"\displaystyle", "")), rhs
