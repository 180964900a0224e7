"""The verdicts a chapter decides in its visible cells, every branch: each cell is run from
the chapter's own source on inputs made to take that branch, and what it glues is read."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace as R

import numpy as np
import pytest

import spotmath
from spotmath.book import wording
from spotmath.inputs import InputError, duration_text

BOOK = Path(__file__).resolve().parents[2] / "book"


def cell_source(chapter: str, marker: str) -> str:
    """The one visible code cell of ``chapter`` that contains ``marker``."""
    cells = json.loads((BOOK / f"{chapter}.ipynb").read_text())["cells"]
    sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"
               and "remove-cell" not in cell["metadata"].get("tags", [])]
    found = [source for source in sources if marker in source]
    assert len(found) == 1, (marker, len(found))
    return found[0]


def cell_names(chapter: str, marker: str, **names) -> dict:
    """Run :func:`cell_source` with ``names`` defined, and return every name it binds
    (its ``keep`` calls store nothing unless ``names`` gives a ``keep``)."""
    namespace = {"np": np, "wording": wording, "duration_text": duration_text,
                 "keep": lambda **values: None, **names}
    exec(compile(cell_source(chapter, marker), f"{chapter}: {marker}", "exec"), namespace)
    return namespace


def run_cell(chapter: str, marker: str, **names) -> dict:
    """Run :func:`cell_source` with ``names`` defined, and return what it glues (its
    ``keep`` calls)."""
    kept: dict = {}
    cell_names(chapter, marker, keep=lambda **values: kept.update(values), **names)
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
                    together=together, growing=growing, p=R(window=1 / 60))
    assert kept == {"co_verdict": co, "rho_growth": growth, "window_seconds": 60.0}


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


@pytest.mark.parametrize("at_rate, exact, expected", [
    (0.5, 0.7, ("pays", "does not pay")), (0.7, 0.5, ("does not pay", "pays"))])
def test_the_cluster_gang_pays_by_each_law_while_its_waste_is_below_the_discount(
        at_rate, exact, expected):
    """The cell that decides it also builds the table: its inputs are stood in for."""
    kept = run_cell("cluster", 'keep(**{f"pays_{name}"', gang=R(waste=lambda *_: at_rate),
                    best_kept=1 - exact, expo_t=0.1, best_t=0.2, C=0.01, startup=0.1,
                    grace=0.0, simulated_waste=lambda t: (0.0, 0.0),
                    p=R(spot_discount=0.6))
    assert (kept["pays_at_rate"], kept["pays_exact"]) == expected


@pytest.mark.parametrize("gain, expected", [(0.0031, "0.31 percentage points more"),
                                            (-0.0005, "0.05 percentage points less")])
def test_the_cluster_schedule_keeps_more_or_less(gain, expected):
    schedule = R(intervals=[0.1, 0.5], kept_share=0.5 + gain)
    kept = run_cell("cluster", "keep(schedule_gain=", grace=0.0, C=0.01, pool=None,
                    gang=None, startup=0.1,
                    local_rate_schedule=lambda *_: schedule,
                    best_interval=lambda *_: (0.3, 0.5))
    assert kept["schedule_gain"] == expected


@pytest.mark.parametrize("verdict, expected", [
    (None, "Neither design is answered here: a reason."),
    ("two pools", "Two pools keep as much training or more: keep them apart."),
    ("not decided", "Two pools keep more than one pool behind 32 GPUs of headroom, but 7 "
     "offsets of headroom were not tried and one pool with none keeps 4% more: not "
     "decided here."),
    ("one pool", "One pool keeps 12% more training a day at the same start-delay target: "
     "share it, with 32 GPUs of headroom.")])
def test_the_cluster_pool_verdict_says_each_case(verdict, expected):
    choice = None if verdict is None else R(
        verdict=verdict, gain=0.12 if verdict == "one pool" else -0.01, most_gain=0.04,
        untried=7, one_kept=R(headroom=32))
    kept = run_cell("cluster", "keep(pool_gang=", choice=choice, reason="a reason", n=16)
    assert kept == {"pool_gang": 16, "pool_verdict": expected}


@pytest.mark.parametrize("largest_z, expected", [
    (None, "here a segment would be preempted more than once on average (λ(R + T + C) > "
     "1), so the chapter does not simulate it"),
    (1.2, "over its 6 points, at an interval of 30 min, the largest difference is 1.20 "
     "standard errors, within the 3.40 that chance allows at so many points: the formulas "
     "say what the rules do"),
    (5.0, "over its 6 points, at an interval of 30 min, the largest difference is 5.00 "
     "standard errors, beyond the 3.40 that chance allows at so many points: here the "
     "formulas and the rules disagree")])
def test_the_notice_simulation_agrees_within_chance_or_not(largest_z, expected):
    kept = run_cell("notice", "keep(simulated_summary=", largest_z=largest_z,
                    checks=[()] * 6, interval=0.5, z_limit=3.4)
    assert kept == {"simulated_summary": expected}


@pytest.mark.parametrize("with_notice, without, expected", [
    ([0.10, 0.104], [0.1, 0.22], "the simulated waste varies by 0.4%, against 12.0% "
     "without it"),
    ([0.1], [0.1], "the waste could not be simulated (too few intervals are short enough "
     "to simulate)")])
def test_the_notice_spread_with_and_without_it(with_notice, without, expected):
    kept = run_cell("simulation", "keep(notice_spread_text=", seeds=[0] * 5,
                    base={}, cost=0.01, p=R(notice=1 / 30),
                    simulated=np.array(without),
                    waste_curve=lambda *_, **__: (np.array(with_notice),),
                    simulated_at=None)
    assert kept["notice_spread_text"] == expected


@pytest.mark.parametrize("extra, ten_percent, expected", [
    (0.0, 0.2, "the first-order waste is 10% too high once λT reaches 0.20, an interval "
     "of 48 min"),
    (0.12, None, "the first-order waste is already 12% too high at the shortest "
     "intervals, from the restarts alone")])
def test_the_first_order_error_reaches_a_tenth_or_the_restarts_pass_it_alone(
        extra, ten_percent, expected):
    """The exact model's cell, on a made-up error of λT/2 + ``extra``: it crosses a tenth
    at a root, or, past a tenth from the restarts alone, nowhere."""
    import scipy.optimize

    def waste_fraction(rate, lam_t, cost, lam_r, model=None, restart_preemptible=True):
        exact = lam_t / 2 + lam_r
        return exact * (1 + lam_t / 2 + extra) if model == "first-order" else exact

    found = cell_names("exact_model", "error_text =", sm=R(waste_fraction=waste_fraction),
                       here_r=0.05, here_t=0.4, rate=0.25, preemptible=True,
                       brentq=scipy.optimize.brentq)
    assert found["ten_percent"] == (None if ten_percent is None
                                    else pytest.approx(ten_percent, rel=1e-6))
    assert found["error_text"] == expected


@pytest.mark.parametrize("intervals, expected", [
    ((5.0, 6.2), "is longer than"), ((5.0, 4.0), "is shorter than"),
    ((None, 6.2), "differs from"), ((5.0, None), "differs from")])
def test_the_exact_break_even_is_longer_shorter_or_differs(intervals, expected):
    answers = {"first-order": intervals[0], True: intervals[1], False: 6.0}

    def break_even_interval(rate, cost, restart, discount, model=None,
                            restart_preemptible=None):
        return answers["first-order" if model else restart_preemptible]

    found = cell_names("exact_model", "comparison = ",
                       sm=R(break_even_interval=break_even_interval), rate=0.25, cost=0.01,
                       restart=0.1, p=R(spot_discount=0.6), preemptible=True)
    assert found["comparison"] == expected


@pytest.mark.parametrize("have_both, undercut, both, range_text, fast_text", [
    (False, [], None, "the figure leaves them out", ""),
    (True, [0.7, 0.5], R(level2_every=3), "another answer wastes less from a share of 50% "
     "and more", "Fast copies between snapshots pay here although they cost as much as a "
     "snapshot"),
    (True, [], R(level2_every=1), "none of the other three answers wastes less at any "
     "share drawn", "Here every snapshot is made durable")])
def test_both_remedies_together_and_why_fast_copies_pay(have_both, undercut, both,
                                                        range_text, fast_text):
    kept = run_cell("two_level", "keep(two_level_async_range_text=", have_both=have_both,
                    undercut=undercut, both=both)
    assert kept["two_level_async_range_text"] == range_text
    assert kept["two_level_async_fast_text"].startswith(fast_text)


@pytest.mark.parametrize("finite, expected", [
    (True, "The plan costs 600 on-demand node-hours against 1,000 for running everything "
     "on-demand: a saving of 40%"),
    (False, "Here no capacity gets the largest gang's work done (its waste is 100% even "
     "on-demand), so the plan has no price")])
def test_the_capacity_plan_has_a_saving_or_no_price(finite, expected):
    kept = run_cell("fleet", "keep(plan_text=", finite=finite, plan_cost=600.0,
                    on_demand_cost=1000.0 if finite else float("inf"),
                    saving=0.4 if finite else None)
    assert kept == {"plan_text": expected}


def test_each_table_says_spot_exactly_where_the_waste_is_below_the_discount():
    """The chapters decide the tables' spot / on-demand column, each on the one test."""
    found = cell_names("gangs", "def gang(", rate=0.25, cost=0.01, restart=0.1, kwargs={},
                       discount=0.5, gangs_table=lambda rows, d: rows,
                       p=R(gang_sizes=[1]),
                       sm=R(gang_rate=lambda rate, n: n * rate,
                            exact_interval=lambda rate, cost: 0.2,
                            waste_fraction=lambda rate, *_, **__: rate / 4,
                            gang_survival=lambda *_: 0.5))
    assert [found["gang"](n)[-1] for n in (1, 7, 8, 9)] == \
        ["spot", "spot", "on-demand", "on-demand"]  # a waste of n/16 against 1/2
    uses = cell_names("your_numbers", "uses = ", p=R(cadences=[1, 2, 3], spot_discount=0.5),
                      exact_waste=lambda t: {1: 0.4, 2: 0.5, 3: None}[t],
                      cadences_table=lambda *args: args)["uses"]
    assert uses == ["spot", "on-demand", None]
    cheap = cell_names("simulation", "cheap = {", bulk={0.5: [0.4, 0.6, None]},
                       p=R(gang_sizes=[1, 8, 64], spot_discount=0.5,
                           bulk_fractions=[0.5]))["cheap"]
    assert cheap == {0.5: [True, False, False]}
    pays = cell_names("break_even", "pays = [",
                      p=R(preemption_rate=0.25, restart_time=0.1, spot_discount=0.5,
                          cadences=[1.0, 2.0, 9.0]),
                      sm=R(waste_fraction=lambda *_, **__: np.array([0.3, 0.5, 1.2]),
                           relative_price=lambda w, d: (1 - d) / (1 - w)))["pays"]
    assert pays == [True, False, False]


def test_the_real_preemptions_verdicts_apply_the_test_to_the_rule_and_to_the_replay():
    """A gang of 8 at 0.05 an hour each: N λ = 0.4 predicts spot at a discount of 0.6,
    the replay's 70% says on-demand (the stand-in optimal waste is the rate itself)."""
    runs = [R(gang_size=8, interruptions=3, gang_rate=0.5, waste=0.7)]
    found = cell_names("real_preemptions", 'v["use"] = [', p=R(spot_discount=0.6),
                       gangs=[{"label": "p3", "lam": 0.05, "runs": runs}], cost=0.01,
                       restart=0.1, sm=R(optimal_waste=lambda rate, cost, restart: rate))
    assert found["verdicts"][0]["use"] == ["spot", "on-demand"]


def test_the_calibration_persist_fits_when_the_interval_outlasts_it():
    found = cell_names("calibration", '"persist_fits":', value={
        "zero_weight_bytes": 2, "zero_gradient_bytes": 2, "zero_optimizer_bytes": 12},
        p=R(parameter_counts=[1e9], lora_parameters=1e6, write_bandwidths=[1e9],
            snapshot_bandwidth=1e10, preemption_rate=0.25), GB=1e9,
        sm=R(checkpoint_write_time=lambda count, per, b: count * per / b / 3600,
             exact_interval=lambda rate, snapshot: 0.001))
    # 14 GB at 1 GB/s persist in 14 s, past an interval of 3.6 s; the adapter's in 14 ms
    assert [c["persist_fits"] for c in found["costs"].values()] == [False, True]


def test_the_largest_gang_paying_and_the_never_on_spot_size_on_each_pool():
    """By Nλ and replayed, 'no' where none pays; a pool with no limit left out."""
    verdicts = [{"trace": "p3", "gang_size": 2, "independent": 0.3, "replayed": 0.7},
                {"trace": "p3", "gang_size": 4, "independent": 0.5, "replayed": 0.8}]
    gangs = [{"label": "p3", "lam": 0.05}, {"label": "g4dn", "lam": 1e-9}]
    kept = run_cell("real_preemptions", "def largest_paying(trace", verdicts=verdicts,
                    gangs=gangs, p=R(spot_discount=0.6), restart=0.1, sm=spotmath)
    floor = spotmath.never_on_spot_gang_size(0.05, 0.1, 0.6)
    assert kept["never_list"] == f"{floor} nodes on p3; 9162907319 nodes on g4dn"
    found = cell_names("real_preemptions", "def largest_paying(trace", verdicts=verdicts,
                       gangs=gangs, p=R(spot_discount=0.6), restart=0.1, sm=spotmath)
    assert found["largest"] == [("p3", 4, 0), ("g4dn", 0, 0)]  # by Nλ, replayed
    free = run_cell("real_preemptions", "def largest_paying(trace", verdicts=verdicts,
                    gangs=gangs, p=R(spot_discount=0.6), restart=0.0, sm=spotmath)
    assert free["never_list"] == "no size"  # no restart: no gang is too large


class Optimum:
    """The two-level library's optimum stood in for: one pattern, or none at all."""

    def __init__(self, found):
        self.found = found

    def optimum(self, *args, **kwargs):
        if self.found is None:
            raise InputError("preemption_rate: every pattern wastes all the time")
        return self.found


def test_the_two_level_pattern_in_words_or_said_to_be_none():
    from spotmath.model.two_level import Pattern

    found = cell_names("two_level", "def pattern_or_none", levels={}, rate=2.0, share=0.3,
                       InputError=InputError, two_level=Optimum(Pattern(0.1, 4, 0.08)))
    assert (found["pattern_text"], found["two_level_waste"]) == (
        "a write every 6 min, durable once every 4 writes", 0.08)
    none = cell_names("two_level", "def pattern_or_none", levels={}, rate=2.0, share=0.3,
                      InputError=InputError, two_level=Optimum(None))
    assert (none["pattern_text"], none["two_level_waste"]) == (
        "no pattern: every one wastes all the time", 1.0)


@pytest.mark.parametrize("share, fast, said", [
    (0.3, 5 / 3600, "fast every 6 min and durable every 1 h"),
    (0.0, 5 / 3600, "not defined here"), (1.0, 5 / 3600, "not defined here"),
    (0.3, 0.1, "not defined here")])
def test_the_first_order_rule_of_two_levels_only_where_it_is_defined(share, fast, said):
    class FirstOrder:
        def first_order_optimum(self, *args, **kwargs):
            return 0.1, 1.0

    p = R(level1_cost=fast, level2_cost=0.05)
    sm = R(optimal_waste=lambda *args, **kwargs: 0.2)
    found = cell_names("two_level", "first_order_text =", sm=sm, rate=2.0, share=share, p=p,
                       durable={}, variant={}, two_level=FirstOrder())
    assert found["first_order_text"].startswith(said)


@pytest.mark.parametrize("preemptible, said", [
    (True, "8.0% (a write every 6 min, one in 4 made durable)"),
    (False, "n/a (derived for preemptible restarts)")])
def test_both_remedies_together_are_said_only_where_derived(preemptible, said):
    from spotmath.model.two_level import Pattern

    p = R(restart_preemptible=preemptible, level1_cost=0.001, level2_restart=0.1,
          level2_cost=0.05)
    found = cell_names("two_level", "def async_pattern_or_none", p=p, rate=2.0, share=0.3,
                       fast={}, InputError=InputError,
                       two_level=Optimum(Pattern(0.1, 4, 0.08)))
    assert found["both_text"] == said


@pytest.mark.parametrize("fails, said", [
    (False, "12.5%"), (True, "n/a (a durable write outlasts the gap between events)")])
def test_one_asynchronous_level_is_said_or_why_it_has_no_optimum(fails, said):
    def optimal_waste(*args, **kwargs):
        if fails:
            raise InputError("persist: the write outlasts the gap between events")
        return 0.125

    class Levels:
        def loss_break_even(self, *args, **kwargs):
            return 0.4

    found = cell_names("two_level", "async_text =", sm=R(optimal_waste=optimal_waste),
                       rate=2.0, p=R(level1_cost=0.001, level2_restart=0.1, level2_cost=0.05),
                       variant={}, levels={}, InputError=InputError, two_level=Levels(),
                       pattern_or_none=lambda *args: None,
                       async_pattern_or_none=lambda *args: None)
    assert found["async_text"] == said


@pytest.mark.parametrize("share, bucket", [
    (0.01, "below 5%"), (0.06, "from 5% to 10%"), (0.2, "from 15% to 20%"),
    (0.3, "above 20%, the open top bucket")])
def test_the_bucket_a_share_of_interrupted_instances_falls_in(share, bucket):
    sm = R(interrupted_fraction=lambda rate, hours: share)
    found = cell_names("calibration", "buckets = [", sm=sm, p=R(preemption_rate=0.1,
                       exposure=24.0), edges=[0.05, 0.1, 0.15, 0.2],
                       mtbfs=[(10.0, 2.0, 1.0)])
    assert found["bucket"] == bucket


def test_a_gang_limit_that_does_not_exist_reads_no_limit():
    sm = R(max_gang_size=lambda *args, **kwargs: 13,
           never_on_spot_gang_size=lambda *args, **kwargs: None)
    found = cell_names("gangs", "limits = {", sm=sm, rate=0.25, cost=0.02, restart=0.0,
                       discount=0.6, kwargs={})
    assert found["said"] == {"max_gang_size_text": "13 nodes",
                             "never_on_spot_gang_size_text": "no limit",
                             "max_gang_size_first_order_text": "13 nodes",
                             "never_on_spot_gang_size_first_order_text": "no limit"}


@pytest.mark.parametrize("rows, best, wastes", [
    ([{"best_interval_h": 0.3, "best_waste": 0.15}, {"best_interval_h": 0.4,
                                                     "best_waste": 0.12}],
     "from 18 min to 24 min", "from 12.0% to 15.0%"),
    ([{"best_interval_h": None, "best_waste": None}],
     "not simulated (every segment would need e^4 attempts or more)", "not simulated")])
def test_the_spread_of_the_weibull_shapes_best_intervals_or_none(rows, best, wastes):
    import spotmath

    found = cell_names("simulation", "found = [s for s in summary", summary=rows,
                       sm=spotmath)
    assert (found["best_range"], found["waste_range"]) == (best, wastes)
