"""Two-level checkpoints with asynchronous durable writes (``persist``): the derivation
against the single-level asynchronous model, the waste against a simulation of the rules
and hand-worked runs, the optimum against brute force, and the inputs' messages."""

import numpy as np
import pytest
import sympy as sp

from spotmath.inputs import InputError
from spotmath.model import derivations as D
from spotmath.model import numerics, two_level
from spotmath.model.simulate_two_level import simulate_two_level

pytestmark = pytest.mark.derives  # SymPy: run first, together (tests/conftest.py)

lam, T, C, R, C1, R1, p, n, P = D.lam, D.T, D.C, D.R, D.C1, D.R1, D.p_loss, D.n2, D.P
VALUES = dict(level1_cost=0.02, checkpoint_cost=0.08, level1_restart=0.05, restart_time=0.2)


def _general(expression: sp.Expr) -> sp.Expr:
    """The branch of the period for p > 0, expm1 and log1p written out."""
    (piecewise,) = expression.atoms(sp.Piecewise)
    return expression.subs(piecewise, piecewise.args[1][0]).rewrite(sp.exp).rewrite(sp.log)


# -- the derivation ---------------------------------------------------------------------
def test_every_event_durable_and_one_segment_is_the_single_level_asynchronous_model():
    # The single-level model was derived from its own renewal integral (section 9).
    two = _general(D.two_level_persist_period()).subs({p: 1, n: 1})
    difference = sp.powsimp(sp.expand(two - D.async_interval_time(True)), force=True)
    assert sp.simplify(difference) == 0


def test_the_waste_with_every_event_durable_is_the_full_models_with_a_persist_time():
    for rate, interval, persist in [(0.5, 1.0, 0.3), (2.0, 0.4, 0.4), (0.1, 3.0, 0.01)]:
        two = two_level.waste(rate, interval, 1, level1_loss=1.0, persist=persist, **VALUES)
        one = numerics.waste_fraction(rate, interval, VALUES["checkpoint_cost"],
                                      VALUES["restart_time"], persist=persist)
        assert two == pytest.approx(one, rel=1e-13)
        first = two_level.waste(rate, interval, 1, level1_loss=1.0, persist=persist,
                                model="first-order", **VALUES)
        assert first == pytest.approx(numerics.waste_fraction(
            rate, interval, VALUES["checkpoint_cost"], VALUES["restart_time"],
            persist=persist, model="first-order"), rel=1e-13)


def test_fast_copies_never_lost_make_the_persist_time_free():
    blocking = two_level.waste(1.0, 0.3, 4, level1_loss=0.0, **VALUES)
    assert two_level.waste(1.0, 0.3, 4, level1_loss=0.0, persist=1.2, **VALUES) == blocking


def test_the_period_grows_by_the_chance_a_snapshot_is_caught_persisting():
    blocking = two_level.waste(1.0, 0.3, 4, level1_loss=0.4, **VALUES)
    persisting = two_level.waste(1.0, 0.3, 4, level1_loss=0.4, persist=0.5, **VALUES)
    assert (1 - blocking) / (1 - persisting) == pytest.approx(np.exp(0.4 * 0.5), rel=1e-14)


# -- the simulation of the rules ---------------------------------------------------------
SIMULATED = [  # (interval, n, p, P)
    (0.3, 4, 0.5, 0.6),
    (0.3, 4, 0.5, 1.2),
    (0.5, 1, 1.0, 0.4),
    (0.2, 8, 0.2, 0.9),
]


def _expected_wall(interval, every, loss, persist, periods):
    """E₁ + (periods − 1)E_P from the model: the first period starts durable."""
    def period(p_time):
        kept = 1 - two_level.waste(1.0, interval, every, level1_loss=loss, persist=p_time,
                                   **VALUES)
        return every * interval / kept

    return period(0.0) + (periods - 1) * period(persist)


@pytest.mark.parametrize("case", SIMULATED)
def test_the_mean_wall_time_agrees_with_a_simulation_of_the_rules(case, z_limit):
    interval, every, loss, persist = case
    run = simulate_two_level(preemption_rate=1.0, interval=interval, level2_every=every, periods=4,
                   level1_loss=loss, persist=persist, jobs=3000, seed=21, **VALUES)
    mean, error = run.mean("wall_time")
    assert abs(mean - _expected_wall(interval, every, loss, persist, 4)) <= (
        z_limit(len(SIMULATED)) * error)


def test_the_simulation_can_tell_a_persisting_snapshot_from_a_durable_one(z_limit):
    interval, every, loss, persist = SIMULATED[1]
    run = simulate_two_level(preemption_rate=1.0, interval=interval, level2_every=every, periods=4,
                   level1_loss=loss, persist=persist, jobs=3000, seed=21, **VALUES)
    mean, error = run.mean("wall_time")
    assert abs(mean - _expected_wall(interval, every, loss, 0.0, 4)) > 10 * error


def test_a_logged_run_with_persist_times_tiles_its_wall_time_and_its_totals_match():
    record = []
    run = simulate_two_level(preemption_rate=1.5, interval=0.3, level2_every=4, periods=3, jobs=30,
                   level1_loss=0.6, persist=0.7, seed=5, record=record, **VALUES)
    caught = 0
    for job, timeline in enumerate(record):
        tiles = [s for s in timeline.segments if s.kind != "persist"]
        assert [s.end for s in tiles[:-1]] == pytest.approx([s.start for s in tiles[1:]])
        assert tiles[0].start == 0 and tiles[-1].end == pytest.approx(run.wall_time[job])
        assert timeline.total("compute") == pytest.approx(run.work)
        assert timeline.total("lost") == pytest.approx(run.rework[job])
        writes = timeline.total("checkpoint") + timeline.total("fast-checkpoint")
        assert writes == pytest.approx(run.checkpoints[job])
        persists = [s for s in timeline.segments if s.kind == "persist"]
        assert all(0 < s.end - s.start <= 0.7 + 1e-12 for s in persists)
        assert all(s.end <= run.wall_time[job] + 1e-12 for s in persists)
        caught += sum(s.end - s.start < 0.7 - 1e-12 for s in persists)
    assert caught > 0  # some snapshot was caught persisting


HAND = dict(preemption_rate=1.0, interval=1.0, level2_every=2, level1_cost=0.1,
            checkpoint_cost=0.2, level1_restart=0.3, restart_time=0.5, level1_loss=0.5,
            periods=2, jobs=1, persist=0.5)
FIRST = [(0, 1, "compute"), (1, 1.1, "fast-checkpoint"), (1.1, 2.1, "compute"),
         (2.1, 2.3, "checkpoint"), (2.3, 2.8, "persist")]
LOST = [(a, b, "lost" if kind != "persist" else kind) for a, b, kind in FIRST[:4]]


def _period(start: float, persist: bool = True) -> list:
    """One period from ``start``: compute, fast write, compute, snapshot (, persist)."""
    ends = np.cumsum([start, 1, 0.1, 1, 0.2])
    kinds = ["compute", "fast-checkpoint", "compute", "checkpoint"]
    segments = [(ends[i], ends[i + 1], kinds[i]) for i in range(4)]
    return segments + ([(ends[4], ends[4] + 0.5, "persist")] if persist else [])


@pytest.mark.parametrize("events, want", [
    # Caught persisting: the first period is lost too and redone.
    ([(2.5, True)], LOST + [(2.3, 2.5, "persist"), (2.3, 2.5, "lost"), (2.5, 3.0, "restart"),
                            *_period(3.0), *_period(5.3, persist=False)]),
    # After the snapshot is durable: only the second period's start is lost.
    ([(2.9, True)], FIRST + [(2.3, 2.9, "lost"), (2.9, 3.4, "restart"),
                             *_period(3.4, persist=False)]),
    # A fast restart hit within the window by an event that takes the copies.
    ([(2.5, False), (2.6, True)], LOST + [(2.3, 2.6, "persist"), (2.3, 2.5, "lost"),
                                          (2.5, 2.6, "fast-restart"), (2.6, 3.1, "restart"),
                                          *_period(3.1), *_period(5.4, persist=False)]),
    # An event that spares the copies leaves the upload running.
    ([(2.5, False)], FIRST + [(2.3, 2.5, "lost"), (2.5, 2.8, "fast-restart"),
                              *_period(2.8, persist=False)]),
])
def test_hand_worked_runs_with_a_persist_time(events, want):
    record = []
    run = simulate_two_level(events=events, record=record, **HAND)
    got = [(s.start, s.end, s.kind) for s in record[0].segments]
    assert [kind for *_, kind in got] == [kind for *_, kind in want]
    assert np.allclose([g[:2] for g in got], [w[:2] for w in want])
    assert run.wall_time[0] == pytest.approx(want[-1][1])
    assert record[0].total("compute") == pytest.approx(run.work)


# -- the optimum ------------------------------------------------------------------------
SETTINGS = [  # rate, C₁, C, R₁, R, p, P
    (1.0, 5 / 3600, 1 / 60, 2 / 60, 5 / 60, 0.3, 0.05),
    (1.0, 5 / 3600, 1 / 60, 2 / 60, 5 / 60, 0.3, 1.5),  # P binds: nT = P
    (0.25, 0.01, 0.05, 0.02, 0.2, 0.5, 0.5),
    (2.0, 0.02, 0.03, 0.05, 0.05, 0.9, 0.3),
]


def _values(setting):
    rate, fast, durable, fast_restart, restart, loss, persist = setting
    return rate, dict(level1_cost=fast, checkpoint_cost=durable, level1_restart=fast_restart,
                      restart_time=restart, level1_loss=loss, persist=persist)


@pytest.mark.parametrize("setting", SETTINGS)
def test_the_optimum_beats_brute_force_over_patterns_long_enough_to_persist(setting):
    rate, values = _values(setting)
    best = two_level.optimum(rate, **values)
    assert best.interval * best.level2_every >= values["persist"] * (1 - 1e-15)
    brute = []
    for every in range(1, 3 * best.level2_every + 20):
        grid = np.geomspace(values["persist"] / every, 20 / rate, 20_000)
        brute.append((float(two_level.waste(rate, grid, every, **values).min()), every))
    assert best.waste <= min(brute)[0] + 1e-12
    assert best.waste == pytest.approx(min(brute)[0], abs=1e-7)
    assert best.level2_every == min(brute)[1]


def test_where_the_persist_time_binds_the_best_interval_is_p_over_n():
    rate, values = _values(SETTINGS[1])
    for every in (1, 2, 5):
        unbound = two_level.best_interval(rate, every, **dict(values, persist=0.0))
        bound = two_level.best_interval(rate, every, **values)
        assert bound == max(unbound, values["persist"] / every)


@pytest.mark.parametrize("snapshot, persist", [(1 / 60, 3 / 60), (5 / 3600, 0.1)])
def test_the_break_even_loss_with_a_persist_time_separates_fast_writes_from_none(
        snapshot, persist, separates_at_break_even):
    # A snapshot as quick as the fast write: fast writes pay only by coming more often
    # than every P, which is longer than the best single-level interval here.
    rate, values = _values(SETTINGS[0][:-1] + (persist,))
    values.pop("level1_loss")
    values["checkpoint_cost"] = snapshot
    separates_at_break_even(rate, values, np.linspace(0.02, 0.98, 25))


def test_a_fast_write_as_dear_as_the_snapshot_never_pays_when_p_does_not_bind():
    values = dict(level1_cost=5 / 3600, checkpoint_cost=5 / 3600, level1_restart=2 / 60,
                  restart_time=5 / 60)
    single = numerics.exact_interval(1.0, 5 / 3600)  # 3.2 min
    assert two_level.loss_break_even(1.0, persist=single * 0.95, **values) == 0.0
    for loss in (1e-4, 0.01, 0.5):
        assert two_level.optimum(1.0, level1_loss=loss, persist=single * 0.95,
                                 **values).level2_every == 1


# -- inputs -----------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: two_level.waste(1.0, 0.3, 2, level1_loss=0.5, persist=0.7, **VALUES),
    lambda: simulate_two_level(preemption_rate=1.0, interval=0.3, level2_every=2, level1_loss=0.5,
                     persist=0.7, **VALUES),
])
def test_a_persist_time_longer_than_the_compute_between_durable_writes_is_refused(call):
    with pytest.raises(InputError, match=r"^persist: 0\.7 h is longer than the compute"):
        call()


@pytest.mark.parametrize("call", [
    lambda: two_level.waste(1.0, 0.3, 4, level1_loss=0.5, persist=0.2,
                            restart_preemptible=False, **VALUES),
    lambda: two_level.optimum(1.0, level1_loss=0.5, persist=0.2, restart_preemptible=False,
                              **VALUES),
    lambda: simulate_two_level(preemption_rate=1.0, interval=0.3, level2_every=4, level1_loss=0.5,
                     persist=0.2, restart_preemptible=False, **VALUES),
])
def test_a_persist_time_with_protected_restarts_is_refused(call):
    with pytest.raises(InputError, match=r"^persist: asynchronous durable writes with two "
                                         r"levels are (derived|simulated)"):
        call()


@pytest.mark.parametrize("persist", [-0.1, "soon", float("nan")])
def test_a_bad_persist_time_gets_one_line_naming_it(persist):
    with pytest.raises(InputError, match="^persist: "):
        two_level.optimum(1.0, level1_loss=0.5, persist=persist, **VALUES)


# -- spotmath plan --level1 --persist ------------------------------------------------------
LEVELS = ("--gang-size", "16", "--restart", "5min", "--checkpoint", "1min", "--level1", "5s",
          "--level1-restart", "2min", "--level1-loss", "20%")


def test_plan_with_a_persist_time_answers_with_asynchronous_durable_writes(plan_json):
    out = plan_json(*LEVELS, "--persist", "2min")
    single = plan_json(*LEVELS[:6], "--persist", "2min")  # durable writes alone
    gang, persist = 16 * 0.25, 2 / 60
    values = dict(level1_cost=5 / 3600, checkpoint_cost=1 / 60, level1_restart=2 / 60,
                  restart_time=5 / 60, level1_loss=0.2, persist=persist)
    best = two_level.optimum(gang, **values)
    assert (out["level1_interval_h"], out["level2_every"]) == (best.interval,
                                                             best.level2_every)
    assert out["level2_interval_h"] >= persist * (1 - 1e-12)
    assert out["waste_exact"] == best.waste
    assert out["waste_level2_only"] == single["waste_exact"]
    assert out["waste_level2_only"] == pytest.approx(numerics.optimal_waste(
        gang, 1 / 60, 5 / 60, persist=persist), rel=1e-12)
    values.pop("level1_loss")
    assert out["level1_loss_break_even"] == two_level.loss_break_even(gang, **values)
    # the upload hidden behind compute: less waste than the same writes blocking
    blocking = plan_json("--gang-size", "16", "--restart", "5min", "--checkpoint", "3min",
                         *LEVELS[6:])
    assert out["waste_exact"] < blocking["waste_exact"]


def test_plan_table_says_the_compute_between_durable_writes_must_cover_the_upload(cli):
    result = cli("plan", *LEVELS, "--persist", "2min")
    assert result.returncode == 0, result.stderr
    words = " ".join(result.stdout.split())
    assert ("durable 2 min later; the compute between durable writes must be at least "
            "that") in words


def test_plan_table_says_when_every_write_is_durable(cli):
    result = cli("plan", "--checkpoint", "5s", "--persist", "3min", "--level1", "5s",
                 "--level1-loss", "0.3")
    assert result.returncode == 0, result.stderr
    words = " ".join(result.stdout.split())
    assert "every write durable, its fast copy kept for fast restarts" in words
