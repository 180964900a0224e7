"""The book's tables and number phrases (spotmath.book.wording): their examples run, and
the package stays small."""

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

from spotmath.book import wording

MODULES = sorted(name for _, name, _ in pkgutil.iter_modules(wording.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_run(name):
    module = importlib.import_module(f"spotmath.book.wording.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted >= 1, name


def test_every_public_function_has_an_example():
    """Each phrase is shown at work in its docstring (the examples above run them)."""
    import inspect

    missing = {name for name in wording.__all__
               if inspect.isfunction(getattr(wording, name))
               and ">>>" not in (getattr(wording, name).__doc__ or "")}
    assert not missing, missing


def _code_lines(path: Path) -> int:
    """A module's lines of code as cloc counts them: not blank, not a comment, not in a
    docstring (nor its examples)."""
    source = path.read_text()
    documented = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) \
                and ast.get_docstring(node, clean=False) is not None:
            documented.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    return sum(1 for number, line in enumerate(source.splitlines(), start=1)
               if line.strip() and not line.lstrip().startswith("#")
               and number not in documented)


def test_the_code_lines_are_counted_as_cloc_counts_them(tmp_path):
    module = tmp_path / "module.py"
    module.write_text('"""Doc."""\n\n# a comment\ndef f():\n    """Doc.\n\n    >>> f()\n    1\n'
                      '    """\n    return 1  # kept\n')
    assert _code_lines(module) == 2


def test_wording_holds_at_most_600_lines_of_code():
    """wording/ formats tables and number phrases, and decides nothing (#51): at most 600
    lines of code, counted as cloc counts them, so that each function's example, which
    prints what it makes, is not what the limit cuts."""
    total = sum(_code_lines(path) for path in Path(wording.__file__).parent.glob("*.py"))
    assert total <= 600, total


def test_from_share_names_the_least_share():
    assert wording.from_share([0.5, 0.25]) == "a share of 25% and more"
    assert wording.from_share([]) == "no share"


def test_keep_stores_plain_json_a_rerun_can_read(monkeypatch):
    """NumPy values as numbers, a result as its fields (as_dict first), an infinite
    interval as None, so that what is stored is strict JSON."""
    import json

    import myst_nb
    import numpy as np

    import spotmath
    from spotmath.book.display import keep
    from spotmath.model.two_level import Pattern

    stored = {}
    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display: stored.update(
        {name: value}))
    plan = spotmath.make_plan(0.25, 10 / 60, 1 / 60, 0.6)
    keep(shares=np.array([0.5, 0.25]), plan=plan, pattern=Pattern(0.1, 3, 0.05),
         none=None, rows=[{"exact": float("inf"), "z": np.float64(1.5)}])
    assert stored["shares"] == [0.5, 0.25] and stored["none"] is None
    assert stored["plan"] == json.loads(json.dumps(plan.as_dict()))
    assert stored["pattern"] == {"interval": 0.1, "level2_every": 3, "waste": 0.05}
    assert stored["rows"] == [{"exact": None, "z": 1.5}]
    json.dumps(stored, allow_nan=False)


def test_keep_closes_a_figure_it_stores(monkeypatch):
    """A glued figure is shown where the prose places it, not again below its cell."""
    import matplotlib.pyplot as plt
    import myst_nb

    from spotmath.book.display import keep

    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display: None)
    fig, _ = plt.subplots()
    keep(fig_example=fig)
    assert not plt.fignum_exists(fig.number)
