"""Every Example in the library's docstrings runs, and shows what it says."""

import doctest
import importlib
import pkgutil

import pytest

import spotmath

MODULES = sorted(name for _, name, _ in pkgutil.iter_modules(spotmath.__path__)
                 if name not in {"__main__"})


@pytest.mark.parametrize("name", ["__init__", *MODULES])
def test_docstring_examples_run(name):
    module = spotmath if name == "__init__" else importlib.import_module(f"spotmath.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} failed"
