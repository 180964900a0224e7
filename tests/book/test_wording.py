"""The book's sentences (spotmath.book.wording): every branch of every verdict."""

import doctest
import importlib
import pkgutil

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


def test_from_share_names_the_least_share():
    assert wording.from_share([0.5, 0.25]) == "a share of 25% and more"
    assert wording.from_share([]) == "no share"
