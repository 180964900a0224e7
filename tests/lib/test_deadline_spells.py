"""The model policy's spells: their ages, the fit by age and hour, the programme over
them against runs drawn from the model, and the clock of the published probes."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from spotmath.book.parameters import TRACES
from spotmath.traces.deadlines import read_availability
from spotmath.traces.deadlines.model_policy import (
    ModelPolicy,
    SpellLaw,
    _solve,
    clock_classes,
    fit_spell_law,
    spell_ages,
)
from spotmath.traces.deadlines.rules import Job, simulate_job


def test_a_spells_age_is_the_ticks_it_has_lasted_before():
    rng = np.random.default_rng(3)
    history = rng.random(300) < 0.6
    ages = []
    for _, run in itertools.groupby(history):
        ages += list(range(len(list(run))))
    assert spell_ages(history).tolist() == ages
    assert spell_ages(np.zeros(0, dtype=bool)).size == 0


@pytest.mark.parametrize("ticks", [1, 3])
def test_the_fit_counts_each_ticks_spell_by_age_and_hour(ticks):
    """The chances against a count by hand: for every tick after the first spell whose
    next ``ticks`` ticks are in the history, its availability, age bin and class of the
    clock, and whether all of those ticks had the same availability; then the two
    priors, pooled with Jeffreys' half-counts."""
    from spotmath.traces.deadlines.model_policy import (
        CLOCK_PRIOR_TICKS,
        SPELL_PRIOR_TICKS,
        _chance,
    )

    rng = np.random.default_rng(ticks)
    history = np.repeat(rng.random(120) < 0.5, rng.integers(1, 9, 120))
    hours = 1_000_000 + np.arange(history.size) * 0.25
    edges = (0, 1, 3)
    classes = clock_classes(hours, dated=True)
    count = np.zeros((16, 2, 3))
    kept = np.zeros((16, 2, 3))
    first = next(i for i in range(1, history.size) if history[i] != history[i - 1])
    for i in range(first, history.size - ticks):
        age = 0
        while i - age - 1 >= 0 and history[i - age - 1] == history[i]:
            age += 1
        b = max(n for n, edge in enumerate(edges) if age // ticks >= edge)
        count[classes[i], int(history[i]), b] += 1
        kept[classes[i], int(history[i]), b] += all(history[i:i + ticks + 1] == history[i])
    pooled = (kept.sum(axis=(0, 2)) + 0.5) / (count.sum(axis=(0, 2)) + 1)
    by_bin = (kept.sum(axis=0) + SPELL_PRIOR_TICKS * ticks * pooled[:, None]) \
        / (count.sum(axis=0) + SPELL_PRIOR_TICKS * ticks)
    expected = (kept + CLOCK_PRIOR_TICKS * ticks * by_bin) / (count + CLOCK_PRIOR_TICKS * ticks)
    model = fit_spell_law(history, ticks, edges, hours, dated=True)
    assert model.edges == edges
    for c, s, b in itertools.product(range(16), range(2), range(3)):
        assert model.stay[c][s][b] == _chance(float(expected[c, s, b]), True)
    plain = fit_spell_law(history, ticks, edges)
    assert len(plain.stay) == 1
    for s, b in itertools.product(range(2), range(3)):
        assert plain.stay[0][s][b] == _chance(float(by_bin[s, b]), False)


def test_every_state_of_the_spell_chain_leads_somewhere_with_certainty():
    model = fit_spell_law(np.random.default_rng(1).random(500) < 0.3, 2)
    chain = model.chain()
    assert len(chain.spot) == 2 * len(model.edges)
    for move in chain.moves:
        assert sum(p for _, p in move) == pytest.approx(1.0, abs=1e-12)
        assert {chain.spot[k] for k, _ in move} == {True, False}  # it may go on, or end


def _draw(model: SpellLaw, stages: tuple[int, ...], deadline: int, ticks: int,
          rng: np.random.Generator) -> np.ndarray:
    """Availability drawn from the spell model itself: spot at first, age 0, the tick
    ``left`` ticks before the deadline following its class of the clock."""
    spot = np.empty(ticks, dtype=bool)
    available, age = True, 0
    for i in range(ticks):
        spot[i] = available
        left = deadline - i
        clock = stages[left] if 0 <= left < len(stages) else 0
        age_bin = int(np.searchsorted(model.edges, age, side="right")) - 1
        if rng.random() < model.stay[clock][int(available)][age_bin]:
            age += 1
        else:
            available, age = not available, 0
    return spot


def test_the_spell_programmes_expected_cost_is_what_its_runs_cost():
    """Bins one tick wide (so a spell's bin is its age, capped) and two classes of the
    clock taking turns: the programme's expectation over (availability, age) with chances
    that change with the tick is the mean cost of runs on availability drawn from the
    same model, the policy choosing by each tick's age."""
    model = SpellLaw((0, 1, 2), (((0.5, 0.8, 0.9), (0.3, 0.6, 0.95)),
                                   ((0.2, 0.4, 0.7), (0.7, 0.9, 0.97))))
    tick, compute, deadline, changeover, discount = 1.0, 4.0, 7, 1 / 3, 0.6
    stages = tuple(left % 2 for left in range(deadline + 1))
    solved = _solve((model.chain(0), model.chain(1)), stages, deadline, 24, 2, discount,
                    False)
    policy = ModelPolicy(action=solved.action, expected_cost=solved.expected_cost,
                         grid=tick / 6, tick=tick, changeover_steps=2, ages=solved.ages,
                         edges=model.edges)
    job = Job(compute, deadline, changeover, discount, tick, "tick")
    rng = np.random.default_rng(5)
    costs = []
    for _ in range(3000):
        spot = _draw(model, stages, deadline, 12, rng)
        ages = spell_ages(spot)

        def choose(i, t, kind, left_over, progress, available, ages=ages):
            state = policy.state_of(kind, changeover, left_over, tick)
            return policy.choose(int(deadline - t + 1e-9), compute - progress, state,
                                 available, ages[i] if i < ages.size else 0)

        run = simulate_job(job, spot, "model", choose, safety_net=False)
        assert run.met
        costs.append(run.cost)
    expected = policy.expected(deadline, 24, True, 0)
    error = np.std(costs, ddof=1) / np.sqrt(len(costs))
    assert abs(np.mean(costs) - expected) < 4.5 * error, (np.mean(costs), expected, error)


def test_the_published_probes_keep_their_dates_as_the_clock():
    """Each tick's clock is its probe's UTC date, hours since 1970; past the last probe
    the ticks run on at the median gap; a trace without dates counts hours from its
    start."""
    zone = read_availability(TRACES / "skynomad" / "us-east-1c_v100_1.csv")
    first = next(line for line in (TRACES / "skynomad" / "us-east-1c_v100_1.csv")
                 .read_text().splitlines()[1:])
    import datetime

    when = datetime.datetime.strptime(first.split(",")[0], "%Y-%m-%d %H:%M:%S")
    assert zone.clock[0] * 3600 == when.replace(tzinfo=datetime.timezone.utc).timestamp()
    assert zone.clock.size == len(zone) and np.all(np.diff(zone.clock) > 0)
    last = len(zone) - 1
    assert zone.hours_of(np.array([last + 2]))[0] == pytest.approx(
        zone.clock[-1] + 2 * zone.tick)
    plain = read_availability(TRACES / "v100x1-east1c.txt")
    assert plain.clock is None
    assert plain.hours_of(np.array([0, 5])).tolist() == [0.0, 5 * plain.tick]
    # 2023-02-18 was a Saturday: its classes are the weekend's
    saturday = (datetime.datetime(2023, 2, 18, 13, tzinfo=datetime.timezone.utc)
                .timestamp() / 3600)
    assert clock_classes(np.array([saturday]), dated=True)[0] == 8 + math.floor(13 / 3)


@pytest.mark.parametrize("law", [False, True])
def test_one_programme_for_the_most_compute_holds_every_smaller_jobs_table(law):
    """A job with less compute due at the same time is a state the larger job may reach:
    the programme solved for 5 h with starts down to 2 h gives, on every state the 2 h
    and the 3.5 h jobs' own programmes solve, the same action and expected cost."""
    from spotmath.traces.deadlines.model_policy import (
        GRID,
        _band,
        fit_availability,
        model_policy,
        spell_law_policy,
    )

    rng = np.random.default_rng(11)
    history = np.repeat(rng.random(400) < 0.7, rng.integers(1, 6, 400))

    def solved(compute, least=None):
        if law:
            return spell_law_policy(history, 0.25, compute, 8.0, 0.5, 0.6, least=least)
        return model_policy(fit_availability(history), 0.25, compute, 8.0, 0.5, 0.6,
                            least=least)

    shared = solved(5.0, least=2.0)
    assert shared.tick == 0.25  # one planning tick for all: the grids agree
    for compute in (2.0, 3.5):
        own = solved(compute)
        ticks, work = own.action.shape[0] - 1, own.action.shape[1] - 1
        assert own.tick == 0.25 and work == round(compute / 0.25 * GRID)
        for left in range(1, ticks + 1):
            lo, hi = _band(left, ticks, work, GRID)
            if lo > hi:
                continue
            assert np.array_equal(shared.action[left, lo:hi + 1], own.action[left, lo:hi + 1])
            assert np.array_equal(shared.expected_cost[left, lo:hi + 1],
                                  own.expected_cost[left, lo:hi + 1])


def test_a_sweep_of_computes_is_compare_starts_at_each():
    """compare_slack plans each start once for the most compute; where that leaves the
    planning tick as it is, every policy's runs at each compute are compare_starts'."""
    from spotmath.traces.deadlines import compare_slack, compare_starts

    zone = read_availability(TRACES / "skynomad" / "us-east-1c_v100_1.csv")
    swept = compare_slack(zone, ["1h", "2h"], "3h", "0.2h", 0.682, starts=4, seed=5)
    assert list(swept) == [1.0, 2.0]
    for compute, summary in swept.items():
        alone = compare_starts(zone, compute, "3h", "0.2h", 0.682, starts=4, seed=5)
        assert np.array_equal(summary.starts, alone.starts)
        for policy, runs in alone.runs.items():
            assert [run.as_dict() for run in summary.runs[policy]] == \
                [run.as_dict() for run in runs], policy


def test_a_sweep_of_no_computes_or_a_bad_one_is_refused_in_one_line():
    from spotmath.inputs import InputError
    from spotmath.traces.deadlines import compare_slack

    zone = read_availability(TRACES / "skynomad" / "us-east-1c_v100_1.csv")
    with pytest.raises(InputError, match=r"^computes: give at least one compute, hours$"):
        compare_slack(zone, [], "3h", "0.2h", 0.682, starts=2, seed=5)
    with pytest.raises(InputError, match=r"^compute"):
        compare_slack(zone, ["1h", "-2h"], "3h", "0.2h", 0.682, starts=2, seed=5)


def test_a_programme_for_other_computes_is_refused_for_a_job_outside_them():
    from spotmath.inputs import InputError
    from spotmath.traces.deadlines.policies import run_job

    job = Job.checked("3h", "8h", "0.5h", 0.6, 0.25)
    spot = np.ones(40, dtype=bool)
    with pytest.raises(InputError, match=r"^plan: a programme for 4 to 6 h of compute does "
                                         r"not serve a job of 3 h$"):
        run_job(job, spot, "model", np.ones(200, dtype=bool), plan=(4.0, 6.0))



# ------------------------------------------------------------- other traces as a prior

def dated(name: str, spot: np.ndarray, start: float = 465_694.0, tick: float = 0.25):
    """A dated trace of ``spot`` on ticks of ``tick`` hours from ``start`` (UTC hours)."""
    from spotmath.traces.deadlines import Availability

    return Availability(name, tick, spot.astype(np.int64),
                        clock=start + np.arange(spot.size) * tick)


def test_a_fit_to_no_history_with_a_histories_counts_as_prior_is_the_fit_to_it():
    """The prior's counts are the history's own: an empty history with another's counts
    as its prior fits what that history fits, by clock and age."""
    from spotmath.traces.deadlines.model_policy import spell_counts

    rng = np.random.default_rng(8)
    history = np.repeat(rng.random(200) < 0.6, rng.integers(1, 12, 200))
    hours = 465_694.0 + np.arange(history.size) * 0.25
    for ticks in (1, 2):
        prior = spell_counts(history, ticks, (0, 1, 3), hours, dated=True)
        assert fit_spell_law(np.zeros(0, bool), ticks, (0, 1, 3), hours[:0], True, prior) \
            == fit_spell_law(history, ticks, (0, 1, 3), hours, dated=True)
    assert fit_spell_law(history, 1, (0, 1)) == fit_spell_law(history, 1, (0, 1), prior=None)


def test_other_traces_weigh_as_prior_days_of_ticks_at_most():
    """Summed over the other traces, and scaled down to PRIOR_DAYS days of planning ticks
    where they hold more; a short one is taken whole; none gives no prior."""
    from spotmath.traces.deadlines.model_policy import PRIOR_DAYS, others_prior, spell_counts

    rng = np.random.default_rng(9)
    long = [np.repeat(rng.random(900) < 0.5, rng.integers(1, 9, 900)) for _ in range(3)]
    observed, went_on = others_prior([(spot, None) for spot in long], 2, 0.25, (0, 1))
    assert observed.sum() == pytest.approx(PRIOR_DAYS * 24 / (2 * 0.25))
    whole = sum(spell_counts(spot, 2, (0, 1))[0] for spot in long)
    assert np.allclose(observed / observed.sum(), whole / whole.sum())
    assert np.all(went_on <= observed)
    short = long[0][:100]
    assert np.array_equal(others_prior([(short, None)], 1, 0.25, (0, 1))[0],
                          spell_counts(short, 1, (0, 1))[0])
    assert others_prior([], 1, 0.25) is None


def test_the_prior_reads_no_tick_of_another_trace_from_the_start_on(monkeypatch):
    """Two other traces alike before the start and opposite after it lend the same
    prior, the other trace's ticks before the start's time, and the model policy's runs
    are the same; the trace's own short history (too few spells for a fit of its own)
    is fitted with the law and that prior, where alone it keeps the chain."""
    from spotmath.traces.deadlines import policies, run_policies

    lent = []
    real = policies.spell_law_policy

    def spell_law_policy(*args):
        lent.append(args[11])
        return real(*args)

    monkeypatch.setattr(policies, "spell_law_policy", spell_law_policy)
    rng = np.random.default_rng(10)
    spot = np.repeat(rng.random(400) < 0.6, rng.integers(1, 10, 400))
    start = 60  # about ten spells of its own before it: the chain without a prior
    zone = dated("zone", spot)
    past = np.repeat(rng.random(300) < 0.6, rng.integers(1, 10, 300))[:spot.size]
    runs = []
    for future in (True, False):
        other = past.copy()
        other[start:] = future
        runs.append(run_policies(zone, "6h", "9h", "0.25h", 0.6, policies=["model"],
                                 start_tick=start, others=[dated("other", other)])["model"])
    assert runs[0].as_dict() == runs[1].as_dict()
    assert len(lent) == 2
    for (history, hours), in lent:
        assert np.array_equal(history, past[:start])
        assert np.array_equal(hours, zone.clock[:start])
    run_policies(zone, "6h", "9h", "0.25h", 0.6, policies=["model"], start_tick=start)
    assert len(lent) == 2  # alone: the two-state chain


def test_other_traces_undated_or_on_another_tick_are_refused_in_one_line():
    from spotmath.inputs import InputError
    from spotmath.traces.deadlines import compare_starts

    spot = np.repeat(np.random.default_rng(11).random(200) < 0.6, 3)
    zone = dated("zone", spot)
    for other, message in (
            (read_availability(TRACES / "v100x1-east1c.txt"),
             r"^others: v100x1-east1c\.txt has no dates, so its ticks cannot be put on one "
             r"clock with the other traces \(a date column is needed\)$"),
            (dated("coarse", spot, tick=0.5),
             r"^others: coarse has a tick of 1800 s, zone 900 s \(they must be the same\)$"),
            ("us-east-1c", r"^others: give traces \(Availability\), got str$")):
        with pytest.raises(InputError, match=message):
            compare_starts(zone, "6h", "9h", "0.25h", 0.6, starts=2, seed=1, others=[other])


def test_the_command_takes_other_zones_as_the_prior(cli):
    zones = TRACES / "skynomad"
    done = cli("deadline", "--trace", str(zones / "us-east-1a_v100_1.csv"), "--prior-trace",
               str(zones / "us-east-1c_v100_1.csv"), "--compute", "12h", "--deadline", "15h",
               "--starts", "2")
    assert done.returncode == 0, done.stderr
    assert ("prior   the model policy's fit takes the spells of 1 other trace before each "
            "start, as 3 days of its own at most") in done.stdout
    refused = cli("deadline", "--mtbf", "4h", "--prior-trace", str(zones / "x.csv"),
                  "--compute", "12h", "--deadline", "15h")
    assert refused.returncode != 0
    assert refused.stderr.strip().splitlines()[-1].endswith(
        "--prior-trace: other traces lend their spells to a trace's fit; give the trace "
        "(--trace)")
