"""The verdicts a chapter decides in its visible cells, every branch: each cell is run from
the chapter's own source on inputs made to take that branch, and what it glues is read."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace as R

import numpy as np
import pytest

from spotmath.book import wording
from spotmath.inputs import duration_text

BOOK = Path(__file__).resolve().parents[2] / "book"


def run_cell(chapter: str, marker: str, **names) -> dict:
    """Run the one visible code cell of ``chapter`` that contains ``marker`` with
    ``names`` defined, and return what it glues (its ``keep`` calls)."""
    cells = json.loads((BOOK / f"{chapter}.ipynb").read_text())["cells"]
    sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"
               and "remove-cell" not in cell["metadata"].get("tags", [])]
    found = [source for source in sources if marker in source]
    assert len(found) == 1, (marker, len(found))
    kept: dict = {}
    namespace = {"np": np, "wording": wording, "duration_text": duration_text,
                 "keep": lambda **values: kept.update(values), **names}
    exec(compile(found[0], f"{chapter}: {marker}", "exec"), namespace)
    return kept


def fit(hazard: str) -> R:
    return R(hazard=hazard)


@pytest.mark.parametrize("hazards, expected", [
    (["constant", "constant"], "every interval contains 1, so these lifetimes are "
     "consistent with Poisson preemptions: the data do not show a falling hazard"),
    (["constant", "falling"], "the interval excludes 1 on g4dn (a falling hazard), so there "
     "the lifetimes are not Poisson"),
    (["rising", "falling"], "the interval excludes 1 on p3 (a rising hazard), g4dn (a "
     "falling hazard), so there the lifetimes are not Poisson")])
def test_the_shape_verdict_names_every_trace_whose_hazard_changes_with_age(hazards,
                                                                          expected):
    kept = run_cell("real_preemptions", "keep(shape_verdict=", labels=["p3", "g4dn"],
                    fits=[fit(h) for h in hazards])
    assert kept == {"shape_verdict": expected}


def replays(*gaps):
    """Replays whose waste lies ``gap`` points from the model, z = gap (one point a
    standard error)."""
    return [R(model_gap_z=gap, waste=0.1 + gap / 100, poisson_waste=0.1) for gap in gaps]


@pytest.mark.parametrize("gaps, expected", [
    ((0.5, -1.0), "on p3 the replay lies within two standard errors of the model at 2 of 2 "
     "intervals"),
    ((3.0, 5.0, 0.0), "on p3 the replay lies within two standard errors of the model at 1 "
     "of 3 intervals; where it does not, the model is optimistic, by up to 5.0 points at "
     "30 min"),
    ((-3.0, 0.0, 2.5), "on p3 the replay lies within two standard errors of the model at 1 "
     "of 3 intervals; where it does not, the model is optimistic, by up to 2.5 points at "
     "1 h; the model is pessimistic by up to 3.0 points at 15 min"),
    ((float("nan"),), "on p3 the replay lies within two standard errors of the model at 0 "
     "of 1 intervals")])
def test_the_replay_verdict_counts_agreement_and_names_each_sides_largest_gap(gaps,
                                                                              expected):
    grid = np.array([0.25, 0.5, 1.0])[:len(gaps)]
    curves = [{"runs": replays(*gaps), "grid": grid}]
    kept = run_cell("real_preemptions", "def replay_verdict", labels=["p3"], curves=curves)
    assert kept == {"replay_verdict": expected}


@pytest.mark.parametrize("best, local, expected", [
    (0.12, 0.10, "on p3 it beats it by 2.0 points"),
    (0.10, 0.12, "on p3 it trails it by 2.0 points"),
    (0.12, 0.1204, "on p3 it matches it")])
def test_the_local_rate_schedule_beats_trails_or_matches_the_best_fixed_interval(
        best, local, expected):
    schedule = {"best": (0.5, best), "local": R(waste=local)}
    kept = run_cell("real_preemptions", "def against_best", labels=["p3"],
                    schedules=[schedule, schedule])
    assert kept["local_gain_traces"] == expected
    assert kept["local_gain_bursty"] == expected.replace("p3", "the synthetic pool")


@pytest.mark.parametrize("together, growing, co, growth", [
    ([True, True], True, "Preemptions come together far more often than independence "
     "allows", "grows"),
    ([True, False], False, "Preemptions come together about as often as independence "
     "allows on g4dn", "does not grow"),
    ([False, False], True, "Preemptions come together about as often as independence "
     "allows on p3, g4dn", "grows")])
def test_preemptions_together_and_whether_one_bulk_share_grows(together, growing, co,
                                                               growth):
    kept = run_cell("real_preemptions", "co_verdict =", labels=["p3", "g4dn"],
                    together=together, growing=growing)
    assert kept == {"co_verdict": co, "rho_growth": growth}


def test_the_gang_verdict_for_a_gang_never_hit_one_hit_more_often_and_no_gang():
    never = {"label": "p3", "runs": [R(gang_size=8, interruptions=0)]}
    often = {"label": "g4dn", "runs": [
        R(gang_size=1, interruptions=9, gang_rate_against_model="about"),
        R(gang_size=2, interruptions=1, gang_rate_against_model="above"),
        R(gang_size=4, interruptions=5, gang_rate=3.0, model_rate=2.0,
          gang_rate_against_model="above", instances_per_interruption=1.0)]}
    kept = run_cell("real_preemptions", "def gang_verdict", gangs=[never, often])
    assert kept["gang_verdict"] == (
        "on p3 a gang of 8 was never interrupted; on g4dn a gang of 4 is hit more often "
        "than Nλ (1.50 times its rate) and loses 1.00 instances each time, while a gang "
        "of 2 sees not Nλ")
    empty = run_cell("real_preemptions", "def gang_verdict",
                     gangs=[{"label": "p3", "runs": []}])
    assert empty["gang_verdict"] == "no gang size fits these pools"


@pytest.mark.parametrize("largest, expected", [
    ([("p3", 8, 8)], "Among the sizes tried, the replay does not move the line"),
    ([("p3", 8, 4), ("g4dn", 4, 16)], "The replay moves the line: on g4dn a larger gang "
     "pays than Nλ allows; on p3 a smaller one")])
def test_the_replay_moves_the_largest_paying_gang_or_not(largest, expected):
    kept = run_cell("real_preemptions", "keep(verdict_change=", largest=largest)
    assert kept == {"verdict_change": expected}
