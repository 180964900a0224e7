"""Every Example in the library's docstrings runs, and shows what it says."""

import doctest
import importlib

import pytest


def test_docstring_examples_run(library_module):
    """The package and each module of the library (the book's machinery is tested in
    tests/book)."""
    module = importlib.import_module(library_module)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, (
        f"{library_module}: {result.failed} of {result.attempted} failed")


NUMPYDOC = ["model.numerics", "model.calibration", "model.plan", "model.simulate",
            "traces.fast_copies",
            "model.two_level", "model.simulate_two_level", "inputs", "report"]
#: Functions that take any value and cannot fail, so have no Raises section.
NEVER_RAISE = {"duration_text", "closest_name", "show", "parse_number", "two_columns",
               "finite_or_none", "file_error", "share_text", "plan_table"}


def _section(doc: str, title: str) -> str:
    """The text of a numpydoc section (up to the next underlined title), or ''."""
    import re

    found = re.search(rf"^{title}\n-{{{len(title)}}}\n(.*?)(?=^\w[\w ]*\n-{{3,}}\n|\Z)",
                      doc, flags=re.M | re.S)
    return found.group(1) if found else ""


@pytest.mark.parametrize("name", NUMPYDOC)
def test_public_functions_have_numpydoc_docstrings(name, checkout):
    """Parameters (every argument, with units in the text), Returns, Raises InputError,
    References to keys of references.bib, and an Example (run by the test above)."""
    import inspect
    import re

    bib = (checkout / "references.bib").read_text()
    keys = set(re.findall(r"^@\w+\{([^,]+),", bib, flags=re.M))
    module = importlib.import_module(f"spotmath.{name}")
    functions = [n for n in module.__all__ if inspect.isfunction(getattr(module, n))]
    assert functions
    for function_name in functions:
        function = getattr(module, function_name)
        doc = inspect.getdoc(function) or ""
        where = f"{name}.{function_name}"
        signature = inspect.signature(function)
        documented = _section(doc, "Parameters")
        for parameter in signature.parameters.values():
            shown = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
            label = shown.get(parameter.kind, "") + parameter.name
            assert re.search(rf"^{re.escape(label)}\b", documented, flags=re.M), (where, label)
        if signature.return_annotation not in ("None", None):
            assert _section(doc, "Returns").strip(), (where, "Returns")
        if function_name not in NEVER_RAISE:
            assert "InputError" in _section(doc, "Raises"), (where, "Raises")
        for key in re.findall(r"``(\w+)``", _section(doc, "References")):
            assert key in keys, (where, key)
        assert ">>> " in _section(doc, "Examples"), (where, "Examples")
