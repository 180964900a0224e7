"""How a chapter reads: its code cells' lengths, what it hides, its bookkeeping, its prose.

The house style (``docs/layout.md``) sets reading limits for every chapter, as QuantEcon's
lectures keep them: short code cells, more prose than code, few lines spent storing numbers
for the prose, and hidden cells that only set up or phrase.  :func:`measure` takes one
chapter's measurements and :meth:`ChapterStyle.breaches` says which limits it misses;
``scripts/house_style.py`` prints them for every chapter, and a test holds the chapters
written in the house style to them.

Lines are the ones that are not blank; the ``parameters`` cell is not counted (it is the
chapter's list of inputs, not its code).
"""

from __future__ import annotations

import ast
import statistics
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LIMITS", "BOOKKEEPING_CALLS", "PLOT_SETUP", "HIDDEN_TAGS", "SETUP_CALLS",
           "ChapterStyle", "measure", "sentence_lines", "stale_numbers",
           "hidden_computations"]

#: The reading limits: the median code cell, the longest, and the bookkeeping share.
LIMITS = {"median_cell": 15, "longest_cell": 30, "bookkeeping_share": 0.15}

#: Calls that store or phrase numbers for the prose rather than compute them.
BOOKKEEPING_CALLS = frozenset({"keep", "glue", "Table"})

#: Methods that set a figure up rather than draw what it shows (``fig, ax =
#: plt.subplots()``, ``ax.set_xlabel(...)``, ``ax.legend()``), called as a method:
#: bookkeeping too, as much as a glued number is (#51).
PLOT_SETUP = frozenset({
    "subplots", "figure", "subplots_adjust", "tight_layout", "suptitle", "supxlabel",
    "supylabel", "set", "set_xlabel", "set_ylabel", "set_title", "set_xscale",
    "set_yscale", "set_xlim", "set_ylim", "set_xticks", "set_yticks", "set_xticklabels",
    "set_yticklabels", "set_major_formatter", "set_minor_formatter", "set_aspect",
    "tick_params", "legend", "grid", "axis", "set_axis_off", "label_outer", "setp",
    "twinx"})

#: Cell tags that keep a cell's code off the page (shown only on a click, or never).
HIDDEN_TAGS = frozenset({"remove-cell", "remove-input", "hide-input", "hide-cell"})

#: Function names that build a table's rows or a sentence (bookkeeping, whole).
_PHRASING_SUFFIXES = ("_row", "_rows", "_sentence", "_phrase", "_words")


@dataclass(frozen=True)
class ChapterStyle:
    """One chapter's reading measurements.

    Attributes
    ----------
    name : str
        The chapter's file name, without ``.ipynb``.
    code_cells : int
        Code cells, the ``parameters`` cell not counted.
    hidden_share : float
        Share of those cells whose code the page does not show (:data:`HIDDEN_TAGS`).
    median_cell, longest_cell : float, int
        The median and the longest code cell, in lines (hidden cells that follow one
        another count as one).
    bookkeeping_share : float
        Share of code lines that store or phrase numbers or set a figure up: statements
        calling :data:`BOOKKEEPING_CALLS`, a sentence helper of
        :mod:`spotmath.book.wording` or a :data:`PLOT_SETUP` method, names bound only
        for such a method's arguments (a label, a figure's size), and functions named
        for the rows or sentences they build.
    prose_lines, code_lines : int
        Lines of markdown and of code.
    hidden_figures : int
        Cells whose code is hidden although they draw a figure and do more than call one
        named function.
    sentence_lines : int
        Lines of markdown that hold sentences (:func:`sentence_lines`): the honest count
        of prose, which must be at least the code's lines.
    """

    name: str
    code_cells: int
    hidden_share: float
    median_cell: float
    longest_cell: int
    bookkeeping_share: float
    prose_lines: int
    code_lines: int
    hidden_figures: int
    sentence_lines: int = 0

    def breaches(self) -> list[str]:
        """The limits this chapter misses, in words (empty when it keeps them all)."""
        found = []
        if self.median_cell > LIMITS["median_cell"]:
            found.append(f"median cell {self.median_cell:g} > {LIMITS['median_cell']} lines")
        if self.longest_cell > LIMITS["longest_cell"]:
            found.append(f"longest cell {self.longest_cell} > {LIMITS['longest_cell']} lines")
        if self.bookkeeping_share > LIMITS["bookkeeping_share"]:
            found.append(f"bookkeeping {self.bookkeeping_share:.1%} > "
                         f"{LIMITS['bookkeeping_share']:.0%}")
        if self.sentence_lines < self.code_lines:
            found.append(f"sentences {self.sentence_lines} < code {self.code_lines} lines")
        if self.hidden_figures:
            found.append(f"{self.hidden_figures} figure(s) drawn by hidden code")
        return found


def _lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def _called(node: ast.AST) -> set[str]:
    """The names of the functions a statement calls (``f(...)`` and ``x.f(...)``)."""
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            if isinstance(func, ast.Name):
                names.add(func.id)
            elif isinstance(func, ast.Attribute):
                names.add(func.attr)
    return names


def _sets_up_a_plot(node: ast.AST) -> bool:
    """Whether a statement calls a :data:`PLOT_SETUP` method (``ax.set_xlabel(...)``)."""
    return any(_is_setup_call(call) for call in ast.walk(node))


def _is_setup_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in PLOT_SETUP


def _setup_names(sources: list[str]) -> set[str]:
    """The names a chapter reads only in the arguments of a figure's set-up (a label, a
    figure size, an axis limit bound to a name first): binding them is set-up too."""
    reads: dict[str, int] = {}
    in_setup: dict[str, int] = {}
    for source in sources:
        tree = ast.parse(source)
        inside = {id(part) for call in ast.walk(tree) if _is_setup_call(call)
                  for argument in [*call.args, *(k.value for k in call.keywords)]
                  for part in ast.walk(argument)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                reads[node.id] = reads.get(node.id, 0) + 1
                in_setup[node.id] = in_setup.get(node.id, 0) + (id(node) in inside)
    return {name for name, count in reads.items() if in_setup[name] == count}


def _wording_names(cells: list[str]) -> set[str]:
    """The names a chapter imports from :mod:`spotmath.book.wording` (all of its public
    names where it imports the module itself)."""
    from . import wording

    names = set()
    for source in cells:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("wording"):
                names |= {alias.asname or alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and any(
                    alias.name == "wording" for alias in node.names):
                names |= set(wording.__all__)
    return names


def _bookkeeping_lines(source: str, phrasing: set[str], setup: set[str] = frozenset()
                       ) -> int:
    """Lines of one cell that store or phrase numbers or set a figure up, a name in
    ``setup`` (:func:`_setup_names`) bound included (see :class:`ChapterStyle`)."""
    lines = source.splitlines()
    counted: set[int] = set()

    def count(node: ast.AST) -> None:
        counted.update(i for i in range(node.lineno, node.end_lineno + 1)
                       if lines[i - 1].strip())

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                if node.name.endswith(_PHRASING_SUFFIXES):
                    count(node)
                else:
                    visit(node.body)
            elif isinstance(node, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field, []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
            elif _called(node) & (BOOKKEEPING_CALLS | phrasing) or _sets_up_a_plot(node) \
                    or isinstance(node, ast.Assign) and all(
                        isinstance(target, ast.Name) and target.id in setup
                        for target in node.targets):
                count(node)

    visit(ast.parse(source).body)
    return len(counted)


def _draws_a_figure(cell) -> bool:
    """Whether a cell's outputs hold an image, shown or glued."""
    return any(mime.endswith(("image/png", "image/svg+xml"))
               for output in cell.get("outputs", []) for mime in output.get("data", {}))


def measure(path: Path | str) -> ChapterStyle:
    """One chapter's reading measurements (:class:`ChapterStyle`).

    Parameters
    ----------
    path : Path or str
        An executed chapter notebook.

    Returns
    -------
    ChapterStyle
        Its cells, hidden share, median and longest cell, bookkeeping share and lines.

    Examples
    --------
    >>> from spotmath.book import BOOK
    >>> style = measure(BOOK / "cluster.ipynb")
    >>> style.name, style.longest_cell <= LIMITS["longest_cell"]
    ('cluster', True)
    """
    import nbformat

    path = Path(path)
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"
            and "parameters" not in cell.metadata.get("tags", [])]
    sizes = _cell_sizes(notebook.cells)
    hidden = [cell for cell in code if HIDDEN_TAGS & set(cell.metadata.get("tags", []))]
    phrasing = _wording_names([cell.source for cell in code])
    setup = _setup_names([cell.source for cell in code])
    bookkeeping = sum(_bookkeeping_lines(cell.source, phrasing, setup) for cell in code)
    hidden_figures = sum(1 for cell in hidden
                         if _draws_a_figure(cell) and _lines(cell.source) > 1)
    return ChapterStyle(
        name=path.stem,
        code_cells=len(code),
        hidden_share=len(hidden) / len(code) if code else 0.0,
        median_cell=float(statistics.median(sizes)) if sizes else 0.0,
        longest_cell=max(sizes, default=0),
        bookkeeping_share=bookkeeping / sum(sizes) if sizes else 0.0,
        prose_lines=sum(_lines(cell.source) for cell in notebook.cells
                        if cell.cell_type == "markdown"),
        code_lines=sum(sizes),
        hidden_figures=hidden_figures,
        sentence_lines=sum(sentence_lines(cell.source) for cell in notebook.cells
                           if cell.cell_type == "markdown"),
    )


#: Blocks whose lines are sentences (a figure's caption); every other fenced block (code,
#: maths, a glued table or text, a toctree) holds none.
_CAPTIONED = ("{glue:figure}", "{figure}", "{admonition}", "{note}", "{tip}", "{warning}")


def sentence_lines(markdown: str) -> int:
    r"""The lines of a markdown cell that hold sentences: not blank, not a fence, a
    directive's option, a heading, a table row or a line of maths, not inside a block that
    holds no sentences, and with a word of three letters or more once the glued numbers,
    roles and maths are taken out.

    Examples
    --------
    >>> sentence_lines("## Heading\n\nThe waste is $\\lambda T/2$: half.\n"
    ...                "{glue:text}`rate:.2f`\n\n```{math}\n:label: eq-x\nT = 1\n```\n"
    ...                "| a | b |\n|---|---|")
    1
    >>> sentence_lines("```{glue:figure} fig\n:name: fig-x\n\nThe share still up.\n```")
    1
    """
    import re

    count, blocks, in_maths = 0, [], False  # blocks: the open fences, outermost first
    for line in markdown.splitlines():
        stripped = line.strip()
        fence = re.match(r"^(`{3,}|~{3,})(.*)$", stripped)
        if fence:
            marks, info = fence.groups()
            if blocks and marks == blocks[-1][0] and not info.strip():
                blocks.pop()
            else:
                blocks.append((marks, info.strip()))
            continue
        if stripped.startswith("$$"):
            in_maths = not (in_maths or stripped.endswith("$$") and len(stripped) > 2)
            continue
        if in_maths or not stripped or stripped.startswith((":", "#", "|", "\\")):
            continue
        if blocks and not blocks[-1][1].startswith(_CAPTIONED):
            continue
        words = re.sub(r"\{[a-z:]+\}`[^`]*`|`[^`]*`|\$[^$]*\$", "", stripped)
        if re.search(r"[A-Za-z]{3,}", words):
            count += 1
    return count


def _cell_sizes(cells) -> list[int]:
    """The lines of each code cell as a reader meets it, the ``parameters`` cell left out:
    hidden code cells that follow one another with no markdown between are one cell (a
    setup split in three is still one block of code the page keeps out of sight)."""
    sizes: list[int] = []
    joining = False  # the last size is a hidden cell's, open to the next hidden one
    for cell in cells:
        tags = set(cell.metadata.get("tags", []))
        if cell.cell_type != "code" or "parameters" in tags:
            joining = joining and cell.cell_type != "markdown"
            continue
        hidden = bool(HIDDEN_TAGS & tags)
        if hidden and joining:
            sizes[-1] += _lines(cell.source)
        else:
            sizes.append(_lines(cell.source))
        joining = hidden
    return sizes


def _prose_without_code(markdown: str) -> str:
    """A markdown cell's words: no code or glue blocks, maths, roles, literals, link
    targets, table rows, list numbers, model names, publication years."""
    import re

    text = re.sub(r"```.*?```", "", markdown, flags=re.S)  # code, glue and table blocks
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)  # display maths
    text = re.sub(r"\$[^$]*\$", "", text)  # inline maths
    text = re.sub(r"\{[a-z:]+\}`[^`]*`|`[^`]*`", "", text)  # roles and literals
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    text = re.sub(r"^\|.*\|$", "", text, flags=re.M)  # tables of names
    text = re.sub(r"^\s*\d+\. ", "", text, flags=re.M)  # numbered lists
    text = re.sub(r"\bLlama \d\b", "", text)  # a model's name, not a number
    return re.sub(r"\b(19|20)\d\d\b", "", text)  # publication years


def _numbers(value: object) -> list[float]:
    """The numbers in a glued value or a parameter (lists and dicts opened)."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _numbers(item)]
    if isinstance(value, dict):
        return [x for item in value.values() for x in _numbers(item)]
    return []


def stale_numbers(path: Path | str) -> list[str]:
    """Numbers typed in a chapter's prose that a parameter or the data decide.

    A number typed in prose cannot follow a rerun with other parameters: it must be glued.
    A typed number is taken to depend on a parameter when it equals, to the digits it
    shows, a number the chapter glues or one of its parameters' defaults (or either times
    100, for a percentage).  Constants of the text (a paper's table number, a default of
    Kubernetes) may be typed.

    Parameters
    ----------
    path : Path or str
        An executed chapter notebook.

    Returns
    -------
    list of str
        Each suspect number with the words around it (empty when there is none).

    Examples
    --------
    >>> from spotmath.book import BOOK
    >>> stale_numbers(BOOK / "checkpoint_cost.ipynb")
    []
    """
    import re

    import nbformat

    from .chapters import glued

    notebook = nbformat.read(Path(path), as_version=4)
    known = [x for value in glued(notebook).values() for x in _numbers(value)]
    for cell in notebook.cells:
        if "parameters" in cell.metadata.get("tags", []):
            known += [x for node in ast.parse(cell.source).body
                      if isinstance(node, ast.AnnAssign) and node.value is not None
                      for x in _numbers(ast.literal_eval(node.value))]
    known += [100 * x for x in known]
    found = []
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        text = _prose_without_code(cell.source)
        for match in re.finditer(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)(?![\w])", text):
            typed = match.group(1).rstrip(",")
            number = float(typed.replace(",", ""))
            digits = len(typed.partition(".")[2])
            if any(round(x, digits) == number for x in known):
                found.append(text[max(0, match.start() - 30):match.end() + 30].strip())
    return found


#: What a hidden cell may call: the set-up (the style, the parameters, the published
#: figures) and the containers a parameter is read into.
SETUP_CALLS = frozenset({"book_style", "chapter_parameters", "globals", "read_figures", "dict",
                         "Path"})

#: Expressions that decide (a comparison, a condition, a choice made by a function):
#: what a verdict is made of, which a hidden cell must not hold.
_DECIDING = (ast.Compare, ast.BoolOp, ast.IfExp, ast.Lambda)
#: What arithmetic typing a unit is made of: literals and their operators.
_UNIT_PARTS = (ast.Constant, ast.operator, ast.unaryop, ast.BinOp, ast.UnaryOp)


def _reads_only(node: ast.AST) -> bool:
    """Whether an expression only reads: names, attributes, literals, containers and
    comprehensions of those, set-up calls, and arithmetic on literals alone (a unit)."""
    for part in ast.walk(node):
        if isinstance(part, ast.Call):
            name = part.func.id if isinstance(part.func, ast.Name) else None
            if name not in SETUP_CALLS and not (isinstance(part.func, ast.Attribute)
                                                and part.func.attr in ("items", "values")):
                return False
        elif isinstance(part, (ast.BinOp, ast.UnaryOp)):
            if not all(isinstance(leaf, _UNIT_PARTS) for leaf in ast.walk(part)):
                return False
        elif isinstance(part, _DECIDING):
            return False
    return True



def _phrases_only(node: ast.AST) -> bool:
    """Whether a glued value is only phrased: computed with no comparison or condition
    (units, a table or a sentence of numbers computed before)."""
    return not any(isinstance(part, _DECIDING) for part in ast.walk(node))


def _setup_statement(node: ast.stmt) -> bool:
    """An import, a set-up or glue call, a name bound to what :func:`_reads_only`
    allows, or a loop over what was computed before that only does these (several
    numbers glued, each phrased the same way)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(node, ast.For):
        return not node.orelse and _phrases_only(node.iter) and all(
            _setup_statement(statement) for statement in node.body)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        name = node.value.func.id if isinstance(node.value.func, ast.Name) else None
        if name in SETUP_CALLS:
            return True
        if name in BOOKKEEPING_CALLS:  # glue: what it stores is phrased, not decided
            return all(_phrases_only(argument) for argument in
                       [*node.value.args, *(keyword.value for keyword in node.value.keywords)])
    if isinstance(node, ast.Assign):
        return _reads_only(node.value) or (_phrases_only(node.value)
                                           and _only_wording_calls(node.value))
    return False


def _only_wording_calls(node: ast.AST) -> bool:
    """Whether every call in an expression is to :mod:`spotmath.book.wording` (a table or
    a sentence of numbers computed before), and there is one."""
    calls = [part for part in ast.walk(node) if isinstance(part, ast.Call)
             and not (isinstance(part.func, ast.Name) and part.func.id == "len")]
    return bool(calls) and all(
        isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "wording" or isinstance(call.func, ast.Name)
        and call.func.id.endswith(("_table", "_text", "_sentence", "_numbers"))
        for call in calls)


def hidden_computations(path: Path | str) -> list[str]:
    """The statements of a chapter's hidden cells that compute rather than set up.

    A hidden cell may import, set the style, read the parameters and the published
    figures (into names, containers, or units typed as arithmetic on literals) and glue
    what earlier cells computed, phrased (in units, tables, sentences) but not decided
    (no comparison or condition); anything else the argument uses, a verdict above all,
    belongs in a visible cell, with the prose that says why (#51).

    Parameters
    ----------
    path : Path or str
        A chapter notebook.

    Returns
    -------
    list of str
        ``cell N: first line of the statement`` for each such statement (empty when there
        is none).

    Examples
    --------
    >>> from spotmath.book import BOOK
    >>> hidden_computations(BOOK / "waste.ipynb")
    []
    """
    import nbformat

    notebook = nbformat.read(Path(path), as_version=4)
    found = []
    for number, cell in enumerate(notebook.cells):
        tags = set(cell.metadata.get("tags", []))
        if cell.cell_type != "code" or not tags & HIDDEN_TAGS or "parameters" in tags:
            continue
        for node in ast.parse(cell.source).body:
            if not _setup_statement(node):
                found.append(f"cell {number}: {ast.unparse(node).splitlines()[0]}")
    return found
