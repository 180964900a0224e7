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
COMPOSED = {"replay_numbers", "together_numbers"}


def test_every_public_function_has_an_example():
    """Each phrase is shown at work in its docstring (the examples above run them)."""
    import inspect

    missing = {name for name in wording.__all__
               if inspect.isfunction(getattr(wording, name))
               and ">>>" not in (getattr(wording, name).__doc__ or "")}
    assert missing == COMPOSED, missing


def test_hazard_verdict_when_every_interval_holds_one():
    text = wording.hazard_verdict(["p3", "g4dn"], ["constant", "constant"])
    assert text.startswith("every interval contains 1")
    assert "(a rising hazard)" in wording.hazard_verdict(["p3"], ["rising"])


def test_replay_sentence_names_the_pessimistic_side_too():
    runs = [R(model_gap_z=-3.0, waste=0.10, poisson_waste=0.13),
            R(model_gap_z=0.0, waste=0.1, poisson_waste=0.1)]
    text = wording.replay_sentence("g4dn", runs, [0.25, 0.5])
    assert "at 1 of 2 intervals; the model is pessimistic by up to 3.0 points at 15 min" \
        in text and "optimistic" not in text


def test_gain_sentence_when_the_schedule_trails():
    assert wording.gain_sentence("p3", 0.10, 0.12) == "on p3 it trails it by 2.0 points"


def test_together_verdict_when_every_trace_passes():
    assert wording.together_verdict(["p3", "g4dn"], [True, True]) == \
        "Preemptions come together far more often than independence allows"


def test_gang_sentence_for_a_gang_never_interrupted_and_one_hit_more_often():
    assert wording.gang_sentence("p3", [R(gang_size=8, interruptions=0)]) == \
        "on p3 a gang of 8 was never interrupted"
    runs = [R(gang_size=2, interruptions=1, gang_rate_against_model="above"),
            R(gang_size=4, interruptions=5, gang_rate=3.0, model_rate=2.0,
              gang_rate_against_model="above", instances_per_interruption=1.0)]
    text = wording.gang_sentence("g4dn", runs)
    assert "is hit more often than Nλ (1.50 times its rate)" in text
    assert text.endswith("while a gang of 2 sees not Nλ")


def test_bulk_share_and_gang_line_verdicts():
    assert wording.bulk_share_verdict(True).endswith("so one number is a compromise")
    assert wording.bulk_share_verdict(False).startswith("the per-size column")
    assert wording.gang_line_sentence([("p3", 8, 8)]) == \
        "Among the sizes tried, the replay does not move the line"
    assert wording.gang_line_sentence([("p3", 8, 4)]) == \
        "The replay moves the line: on p3 a smaller one"


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
