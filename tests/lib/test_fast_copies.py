"""Where a gang's fast copies die: the loss chance q(k) against random partitions, the fit
on a pool worked by hand and on synthetic pools with a known p, and the command."""

import itertools
import json

import numpy as np
import pytest

from spotmath.inputs import InputError
from spotmath.traces import Trace
from spotmath.traces.fast_copies import fit_fast_copies, loss_chance, replay_fast_copies
from spotmath.traces.synthetic import synthetic_trace


@pytest.mark.parametrize("nodes, group", [(4, 2), (8, 2), (8, 4), (6, 3), (12, 2), (5, 1)])
def test_loss_chance_counts_every_partition_and_every_taken_set(nodes, group):
    """All ways to take k nodes, against one fixed partition (by symmetry, any)."""
    groups = [set(range(g, g + group)) for g in range(0, nodes, group)]
    for taken in range(nodes + 1):
        sets = list(itertools.combinations(range(nodes), taken))
        hit = sum(any(g <= set(s) for g in groups) for s in sets)
        assert loss_chance(taken, nodes, group) == pytest.approx(hit / len(sets), abs=1e-15)


def test_loss_chance_against_random_partitions():
    rng = np.random.default_rng(3)
    draws = 20_000
    lost = 0
    for _ in range(draws):
        order = rng.permutation(16)
        taken = set(order[:5])  # any fixed set; the groups are drawn at random
        partition = rng.permutation(16).reshape(8, 2)
        lost += any(set(pair) <= taken for pair in partition)
    share = lost / draws
    assert abs(share - loss_chance(5, 16, 2)) < 4 * np.sqrt(share * (1 - share) / draws)


def _pool():
    """a and b preempted together at 1 h; c at 2 h and d 1.2 min later; i, never held,
    at 4 h; the rest up to the end at 5 h."""
    names = ("a", "b", "c", "d", "e", "f", "g", "h", "i")
    up = np.array([0, 0, 0, 0, 1, 1, 2, 2.02, 3.0])
    down = np.array([1, 1, 2, 2.02, 5, 5, 5, 5, 4.0])
    preempted = np.array([True, True, True, True, False, False, False, False, True])
    return Trace("hand", names, up, down, preempted, 0.0, 5.0, 0.0)


@pytest.mark.parametrize("group, loss", [(2, 1 / 3), (1, 1.0), (4, 0.0)])
def test_a_pool_worked_by_hand(group, loss):
    fit = fit_fast_copies(_pool(), 4, group, "2min")
    assert fit.taken == (2, 2)  # d joins c's event; the gang's next interruption too
    assert fit.events == 2 and fit.held_hours == pytest.approx(5.0)
    assert fit.event_rate == pytest.approx(2 / 5)
    assert fit.level1_loss == pytest.approx(loss)


def test_a_shorter_window_splits_the_event():
    fit = fit_fast_copies(_pool(), 4, 2, "30s")
    assert fit.taken == (2, 1, 1) and fit.level1_loss == pytest.approx(1 / 9)


@pytest.mark.parametrize("rho", [0.2, 0.5])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_synthetic_pools_with_a_known_loss(rho, seed, z_limit):
    """A gang holding the whole pool: single preemptions at N(1 − ρ)λ take one node (no
    pair's copy), bulk reclaims at ρλ take all: p = ρ/(N(1 − ρ) + ρ)."""
    nodes, rate = 8, 0.05
    pool = synthetic_trace(preemption_rate=rate, pool_size=nodes, hours=3000,
                           bulk_fraction=rho, seed=seed)
    fit = fit_fast_copies(pool, nodes, 2, 0.0)
    events = (nodes * (1 - rho) + rho) * rate
    loss = rho / (nodes * (1 - rho) + rho)
    z = z_limit(12)
    assert abs(fit.level1_loss - loss) <= z * np.sqrt(loss * (1 - loss) / fit.events)
    assert abs(fit.event_rate - events) <= z * np.sqrt(events / fit.held_hours)
    low, high = fit.level1_loss_ci95
    assert low <= fit.level1_loss <= high


@pytest.mark.parametrize("args, message", [
    ((4, 3, 0.0), "level1_group: 3 does not divide the gang of 4 nodes"),
    ((4, 0, 0.0), "level1_group: must be a whole number"),
    ((4, 2, -1.0), "level1_restart: "),
    ((40, 2, 0.0), "gang_size: hand never has 40 instances up at once"),
])
def test_bad_values_are_named(args, message):
    with pytest.raises(InputError, match=f"^{message}"):
        fit_fast_copies(_pool(), *args)


def test_fit_command_reports_the_fast_copies(cli, checkout):
    trace = str(checkout / "book" / "data" / "traces" / "p3-trace.csv")
    result = cli("fit", trace, "--gang-size", "8", "--level1-group", "2", "--level1-restart",
                 "2min", "--json")
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)["fast_copies"]
    from spotmath.traces.reading import read_trace

    want = fit_fast_copies(read_trace(trace), 8, 2, "2min").as_dict()
    assert got == json.loads(json.dumps(want))
    table = cli("fit", trace, "--gang-size", "8", "--level1-group", "2").stdout
    assert "fast copies lost (groups of 2)" in table and "give --level1" in table
    table = cli("fit", trace, "--gang-size", "8", "--level1-group", "2", "--level1", "5s").stdout
    assert "for spotmath plan" in table
    bad = cli("fit", trace, "--gang-size", "8", "--level1-group", "3")
    assert bad.returncode == 2
    assert bad.stderr == ("spotmath fit: error: --level1-group: 3 does not divide the gang "
                          "of 8 nodes\n")


def test_fit_with_a_fast_write_plans_two_levels_at_the_measured_share(cli, checkout,
                                                                     plan_json):
    """fit --level1 --level1-group, without --level1-loss: the two-level plan at the gang's
    event rate and the measured share, the same as spotmath plan given those by hand; the
    single-level plan at the fitted node rate is kept."""
    trace = str(checkout / "book" / "data" / "traces" / "p3-trace.csv")
    options = ["--gang-size", "16", "--checkpoint", "3min", "--restart", "5min", "--level1",
               "5s", "--level1-restart", "2min"]
    result = cli("fit", trace, *options, "--level1-group", "2", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    copies = out["fast_copies"]
    by_hand = plan_json(*options, "--rate", repr(copies["event_rate"] / 16),
                        "--level1-loss", repr(copies["level1_loss"]))
    assert out["plan_two_level"] == by_hand
    assert "level2_every" not in out["plan"]  # durable writes alone, at the node rate
    table = cli("fit", trace, *options, "--level1-group", "2").stdout
    assert "the two-level plan at the gang's event rate and the measured share" in table


def test_fit_with_a_fast_write_says_why_no_event_taking_a_copy_plans_nothing(cli, checkout):
    trace = str(checkout / "book" / "data" / "traces" / "g4dn-trace.csv")
    options = ["--gang-size", "16", "--level1", "5s", "--level1-group", "8"]
    out = json.loads(cli("fit", trace, *options, "--json").stdout)
    assert out["fast_copies"]["level1_loss"] == 0 and out["plan_two_level"] is None
    words = " ".join(cli("fit", trace, *options).stdout.split())
    bound = out["fast_copies"]["level1_loss_ci95"][1]
    assert (f"not planned: no event took a fast copy (p = 0), so a durable write never "
            f"pays here; plan with the share's 95% upper bound, --level1-loss {bound:.3g}"
            ) in words


# -- replay on the pool's real instances ---------------------------------------------------
SCHEDULE = dict(interval=0.2, level2_every=2, level1_cost=0.05, checkpoint_cost=0.1,
                level1_restart="2min", restart_time=0.1)


@pytest.mark.parametrize("group, kept", [
    # every event takes a copy: back to the durable write each time (0.4, 0.8, then
    # ten more segments from 2.1 h to 4.85 h)
    (1, 2.8),
    # one group of four, never taken whole: the fast copies serve (1.2 h kept by 2 h,
    # then ten segments from 2.033 h)
    (4, 3.2),
])
def test_a_replay_worked_by_hand(group, kept):
    run = replay_fast_copies(_pool(), 4, group, **SCHEDULE)
    assert run.events == 2 and run.held_hours == pytest.approx(5.0)
    assert run.copies_lost == (2 if group == 1 else 0)
    assert run.kept_hours == pytest.approx(kept)
    assert run.waste == pytest.approx(1 - kept / 5.0)


@pytest.mark.parametrize("rho", [0.0, 0.3])
def test_a_long_synthetic_pool_replays_as_the_model_predicts(rho):
    """Poisson events with a known share taking a pair whole: one long replay lands on
    the exact model at the fitted rate and share (about 12,000 to 16,000 events)."""
    pool = synthetic_trace(preemption_rate=0.1, pool_size=8, hours=20_000,
                           bulk_fraction=rho, seed=5)
    run = replay_fast_copies(pool, 8, 2, interval=0.3, level2_every=5, level1_cost=0.01,
                             checkpoint_cost=0.05, level1_restart=0.0, restart_time=0.1)
    assert run.events > 10_000
    assert run.waste == pytest.approx(run.model_waste, abs=0.005)


def test_replay_command_reports_the_two_level_schedule(cli, checkout):
    from spotmath.traces.reading import read_trace

    trace = str(checkout / "book" / "data" / "traces" / "g4dn-trace.csv")
    args = ("--gang-size", "8", "--level1", "5s", "--level1-group", "2", "--interval", "2min",
            "--level2-every", "5", "--restart", "5min", "--checkpoint", "3min")
    result = cli("replay", trace, *args, "--json")
    assert result.returncode == 0, result.stderr
    want = replay_fast_copies(read_trace(trace), 8, 2, interval=2 / 60, level2_every=5,
                              level1_cost=5 / 3600, checkpoint_cost=3 / 60,
                              level1_restart=5 / 60, restart_time=5 / 60).as_dict()
    assert json.loads(result.stdout) == json.loads(json.dumps(want))
    table = cli("replay", trace, *args).stdout
    assert "replayed waste" in table and "exact model" in table
    for bad, message in ((["--level1-group", "3"], "--level1-group: 3 does not divide"),
                         (["--level2-every", "0"], "--level2-every: must be a whole")):
        swapped = list(args)
        swapped[swapped.index(bad[0]) + 1] = bad[1]
        out = cli("replay", trace, *swapped)
        assert out.returncode == 2 and out.stderr.startswith(
            f"spotmath replay: error: {message}"), out.stderr


def test_a_replay_without_a_pattern_replays_the_optimum_at_the_fitted_numbers(checkout):
    from spotmath.model import two_level
    from spotmath.traces.reading import read_trace

    trace = read_trace(checkout / "book" / "data" / "traces" / "p3-trace.csv")
    levels = dict(level1_cost=5 / 3600, checkpoint_cost=3 / 60, level1_restart=2 / 60,
                  restart_time=5 / 60)
    chosen = replay_fast_copies(trace, 16, 2, **levels)
    fit = fit_fast_copies(trace, 16, 2, 2 / 60)
    best = two_level.optimum(fit.event_rate, level1_loss=fit.level1_loss, **levels)
    given = replay_fast_copies(trace, 16, 2, interval=best.interval,
                               level2_every=best.level2_every, **levels)
    assert chosen == given
    with pytest.raises(InputError, match="^level2_every: goes with interval"):
        replay_fast_copies(trace, 16, 2, interval=0.1, **levels)


@pytest.mark.parametrize("extra", [
    ["--level1-group", "2", "--level1-restart", "2min", "--level1", "5s"],
    ["--level1-group", "16", "--level1-restart", "2min", "--level1", "5s"],
    ["--level1-group", "2", "--level1", "5s", "--restart", "5min", "--checkpoint", "3min",
     "--restart-variant", "protected", "--discount", "70%"],
])
def test_the_plan_command_fit_prints_runs_as_printed(cli, traces_folder, extra):
    """fit suggested `plan ... --level1-loss 0.194` without the fast write (refused), and
    `--level1-loss 0` where no copy was lost (refused): every printed command must run."""
    import shlex

    done = cli("fit", str(traces_folder / "p3-trace.csv"), "--gang-size", "16", *extra)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("for spotmath plan")]
    assert len(lines) == 1
    arguments = shlex.split(lines[0].removeprefix("for spotmath plan"))
    planned = cli("plan", *arguments)
    assert planned.returncode == 0, (arguments, planned.stderr)
    for given in extra[extra.index("--level1"):]:
        assert given in arguments  # the fast write and what followed it, as typed
