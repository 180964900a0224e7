"""The book's sentences (spotmath.book.wording): every branch of every verdict."""

import doctest
import importlib
import pkgutil
from types import SimpleNamespace as R

import pytest

from spotmath.book import wording

MODULES = sorted(name for _, name, _ in pkgutil.iter_modules(wording.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_run(name):
    module = importlib.import_module(f"spotmath.book.wording.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted >= 1, name


#: Phrasings made only of other phrasings, each with its example; they are checked through
#: the real-preemptions chapter's glued numbers (tests/book/test_chapters.py).
COMPOSED = {"replay_numbers"}


def test_every_public_function_has_an_example():
    """Each phrase is shown at work in its docstring (the examples above run them)."""
    import inspect

    missing = {name for name in wording.__all__
               if inspect.isfunction(getattr(wording, name))
               and ">>>" not in (getattr(wording, name).__doc__ or "")}
    assert missing == COMPOSED, missing


def test_simulation_sentence_says_when_the_formulas_and_the_rules_disagree():
    text = wording.simulation_sentence(5.0, 6, 0.5, 3.4)
    assert "beyond the 3.40 that chance allows" in text
    assert text.endswith("here the formulas and the rules disagree")
    assert "does not simulate it" in wording.simulation_sentence(None, 0, 0.5, 3.4)


def test_from_share_names_the_least_share():
    assert wording.from_share([0.5, 0.25]) == "a share of 25% and more"
    assert wording.from_share([]) == "no share"


def test_pool_verdict_for_two_pools_and_for_no_room_in_two():
    two = R(verdict="two pools", two=R(training_per_day=100.0),
            one_kept=R(training_per_day=90.0, headroom=0), gain=-0.1)
    assert wording.pool_verdict_sentence(two).startswith("Two pools keep as much")
    none = R(verdict="one pool", two=R(training_per_day=0.0),
             one_kept=R(training_per_day=50.0, headroom=16), gain=float("inf"))
    assert "no room for a single training gang" in wording.pool_verdict_sentence(none)
