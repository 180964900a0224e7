"""Deadlines: the rules worked by hand, the optimum against brute force, the Safety Net's
promise, uniform progress against its rules typed again here, and the trace readers."""

from __future__ import annotations

import itertools
import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spotmath.book.parameters import TRACES
from spotmath.inputs import InputError
from spotmath.traces import deadlines
from spotmath.traces.deadlines import (
    POLICIES,
    Availability,
    checkpoint_optimum,
    compare_starts,
    expected,
    omniscient,
    omniscient_schedule,
    policies,
    read_availability,
    run_policies,
    run_policy,
)
from spotmath.traces.deadlines.model_policy import AvailabilityModel, markov_availability
from spotmath.traces.deadlines.policies import run_job
from spotmath.traces.deadlines.rules import (
    Job,
    following,
    greedy,
    simulate_checkpointed,
    simulate_job,
)

IDLE, SPOT, ON_DEMAND = 0, 1, 2


def spot_of(text: str) -> np.ndarray:
    """'11.1' -> spot in ticks 0, 1 and 3."""
    return np.array([c == "1" for c in text])


# ----------------------------------------------------------------------- worked by hand

def test_greedy_worked_by_hand():
    """Six spot ticks of 1 h, then none; 8 h of compute by 12 h, changeover 0.2 h.
    Spot: 0.8 + 5 = 5.8 h by t = 6, preempted.  Idle while need2 = ceil(2.2 + 0.4) = 3 <
    left; at t = 9 left = 3: on-demand, 0.2 h changeover and 2.2 h of work: finish 11.4.
    Cost: 6 spot ticks at 0.4 and 3 on-demand ticks = 5.4."""
    spot = spot_of("111111" + "0" * 10)
    run = run_policy("greedy", spot, "1h", "8h", "12h", "12min", 0.6)
    assert run.kinds.tolist() == [1] * 6 + [0] * 3 + [2] * 3
    assert run.finish_h == pytest.approx(11.4)
    assert run.cost == pytest.approx(6 * 0.4 + 3)
    assert (run.spot_compute_h, run.on_demand_compute_h) == pytest.approx((5.8, 2.2))
    assert (run.spot_billed_h, run.on_demand_billed_h) == (6.0, 3.0)
    assert (run.changeovers, run.preemptions, run.met) == (2, 1, True)
    # billed to the second, the last tick costs only the 0.4 h it was used
    second = run_policy("greedy", spot, "1h", "8h", "12h", "12min", 0.6, billing="second")
    assert second.cost == pytest.approx(6 * 0.4 + 2.4)


def test_a_changeover_longer_than_a_tick_spans_ticks():
    """d = 1.5 ticks: a stint's first tick makes nothing, its second half a tick."""
    run = run_policy("on-demand", spot_of(""), "1h", "2h", "10h", "1.5h", 0.5)
    assert run.progress.tolist() == pytest.approx([0.0, 0.5, 1.5, 2.0])
    assert run.finish_h == pytest.approx(3.5)
    assert run.cost == pytest.approx(4.0)


def test_a_stint_shorter_than_the_changeover_makes_no_progress():
    """Spot for one tick with d = 1.5 ticks: preempted before any work is done, the tick
    is billed; the job then goes on on-demand (Safety Net) with a new changeover."""
    spot = spot_of("1")
    run = run_policy("greedy", spot, "1h", "1h", "6h", "1.5h", 0.5)
    assert run.kinds[0] == SPOT and run.progress[0] == 0.0
    assert run.spot_billed_h == 1.0 and run.spot_compute_h == 0.0
    assert run.changeovers == 2 and run.preemptions == 1


def test_a_preemption_where_the_safety_net_binds_goes_on_demand_at_once():
    """Spot for 3 ticks of 1 h with d = 0.5 h: 2.5 h of 4 h done at t = 3, preempted
    there.  D = 6: left = 3 and need2 = ceil(1.5 + 1.0) = 3 >= left, so the job goes
    on-demand in that very tick (greedy would idle): 0.5 h changeover, 1.5 h of work,
    finish 5.0 h."""
    run = run_policy("greedy", spot_of("111" + "0" * 5), 1.0, 4.0, 6.0, 0.5, 0.5)
    assert run.kinds.tolist() == [1, 1, 1, 2, 2]
    assert run.finish_h == pytest.approx(5.0) and run.met
    assert run.preemptions == 1 and run.changeovers == 2


def test_with_no_changeover_the_safety_net_takes_spot_when_there_is_spot():
    spot = spot_of("0101010101")
    run = run_policy("greedy", spot, "1h", "5h", "5h", 0, 0.7)
    assert run.kinds.tolist() == [2, 1, 2, 1, 2]
    assert run.met and run.changeovers == 5


def test_no_policy_can_meet_a_deadline_shorter_than_changeover_plus_compute():
    trace = Availability("t", 1.0, np.ones(50, dtype=np.int64))
    result = run_policies(trace, "10h", "10h", "6min", 0.6)
    assert set(result) == set(POLICIES) and all(run is None for run in result.values())


# ----------------------------------------------------------------------- the optimum

def brute_force(spot, tick, compute, deadline, changeover, discount, billing,
                checkpoints=None):
    """Every schedule of the window, each run by the simulator (the checkpoint mode's
    with ``checkpoints``); the cheapest that meets the deadline, then the earliest
    finish.

    The schedules are taken in lexicographic order, so those that share a first m ticks
    come together: where a run finishes in its first m ticks (the simulator reads no
    later tick), or its tick m − 1 takes spot where there is none, the others with those
    first m ticks are the same run, or as impossible, and are passed over.
    """
    ticks = math.ceil(deadline / tick - 1e-9)
    job = Job(compute, deadline, changeover, discount, tick, billing)
    best, code = None, 0
    while code < 3**ticks:
        digits = [(code // 3**(ticks - 1 - i)) % 3 for i in range(ticks)]
        kinds = [(IDLE, SPOT, ON_DEMAND)[digit] for digit in digits]
        used = next((i + 1 for i, kind in enumerate(kinds)
                     if kind == SPOT and not (i < len(spot) and spot[i])), None)
        if used is None:
            try:
                if checkpoints is None:
                    run = simulate_job(job, spot, "any", following(kinds), safety_net=False)
                else:
                    run = simulate_checkpointed(job, checkpoints, spot, "any",
                                                following(kinds), safety_net=False)
            except RuntimeError:
                run = None
            used = min(len(run.kinds), ticks) if run is not None else ticks
            if run is not None and run.met and len(run.kinds) <= ticks:
                key = (round(run.cost, 9), round(run.finish_h, 9))
                if best is None or key < best:
                    best = key
        block = 3**(ticks - used)  # the schedules with these first `used` ticks
        code = (code // block + 1) * block
    return best


@settings(max_examples=150, deadline=None)
@given(pattern=st.lists(st.booleans(), min_size=1, max_size=7),
       compute=st.sampled_from([0.5, 1.0, 1.7, 2.5, 3.0, 4.2]),
       changeover=st.sampled_from([0.0, 0.3, 0.5, 1.0, 1.2]),
       slack=st.sampled_from([0.0, 0.4, 1.0, 2.0, 3.3]),
       discount=st.sampled_from([0.1, 0.5, 0.7, 0.9]),
       billing=st.sampled_from(["tick", "second"]))
def test_the_optimum_is_the_brute_force_optimum(pattern, compute, changeover, slack,
                                                discount, billing):
    spot = np.array(pattern)
    deadline = min(compute + changeover + slack, 7.0)
    if compute + changeover > deadline + 1e-9:
        return
    expected = brute_force(spot, 1.0, compute, deadline, changeover, discount, billing)
    found = omniscient_schedule(spot, 1.0, compute, deadline, changeover, discount,
                                billing)
    assert found is not None and expected is not None
    kinds, cost, finish = found
    assert (cost, finish) == pytest.approx(expected, abs=1e-9)
    # its schedule, run by the simulator, costs what the search said
    run = run_policy("omniscient", spot, 1.0, compute, deadline, changeover, discount,
                     billing=billing)
    assert (run.cost, run.finish_h) == pytest.approx((cost, finish), abs=1e-9)


# ----------------------------------------------------------------------- the promise

def adversarial(ticks: int, rng: np.random.Generator) -> np.ndarray:
    """Spot that ends just when it hurts: long spells cut short, flicker, none late."""
    kind = rng.integers(4)
    if kind == 0:
        return rng.random(ticks) < rng.random()
    if kind == 1:  # flicker: on and off every tick or two
        return (np.arange(ticks) // rng.integers(1, 3)) % 2 == 0
    if kind == 2:  # spot until late, then none at all
        cut = rng.integers(ticks)
        return np.arange(ticks) < cut
    spells = rng.geometric(0.2, size=ticks)
    return np.repeat(np.arange(ticks) % 2 == 0, spells)[:ticks]


@pytest.mark.parametrize("seed", range(12))
def test_online_policies_meet_every_deadline_on_demand_would_meet(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        tick = float(rng.choice([1 / 6, 0.25, 1.0]))
        compute = float(rng.uniform(0.5, 12))
        changeover = float(rng.choice([0.0, 0.05, 0.2, 0.4, 1.3]))
        deadline = compute + changeover + float(rng.uniform(0, 10))
        spot = adversarial(int(deadline / tick) + 5, rng)
        costs = {}
        for policy in POLICIES:
            run = run_policy(policy, spot, tick, compute, deadline, changeover, 0.65)
            assert run.met, (policy, seed, tick, compute, changeover, deadline)
            costs[policy] = run.cost
        # the optimum is a lower bound on every policy
        assert all(costs["omniscient"] <= cost + 1e-9 for cost in costs.values()), costs


# ----------------------------------------------------------------------- typed again

@pytest.mark.parametrize("seed", range(8))
def test_uniform_progress_follows_its_rules(seed, uniform_progress_typed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(30):
        tick = float(rng.choice([1 / 6, 0.5, 1.0]))
        compute = float(rng.uniform(1, 10))
        d = float(rng.choice([0.0, 0.2, 0.7]))
        deadline = compute + d + float(rng.uniform(0, 8))
        spot = adversarial(int(deadline / tick) + 5, rng)
        run = run_policy("uniform-progress", spot, tick, compute, deadline, d, 0.6)
        kinds, cost = uniform_progress_typed(spot, tick, compute, deadline, d, 0.6)
        assert run.kinds.tolist() == kinds
        assert run.cost == pytest.approx(cost, abs=1e-9)


# ----------------------------------------------------------------------- many starts

def test_many_starts_summarise_every_policy():
    rng = np.random.default_rng(7)
    counts = np.repeat(rng.integers(0, 2, size=200), rng.integers(1, 30, size=200))
    trace = Availability("t", 0.25, counts)
    summary = compare_starts(trace, "10h", "14h", "12min", 0.7, starts=20, seed=3)
    assert len(summary.starts) == 20
    rows = {policy: summary.row(policy) for policy in POLICIES}
    assert all(row["met"] == 1.0 for row in rows.values())
    assert rows["on-demand"]["cost_share"] == pytest.approx(1.0)
    assert rows["greedy"]["gap_closed"] == pytest.approx(0.0)
    assert rows["omniscient"]["gap_closed"] == pytest.approx(1.0)
    assert rows["omniscient"]["cost"] <= rows["uniform-progress"]["cost"] + 1e-9
    # the same seed gives the same starts, another seed others
    again = compare_starts(trace, "10h", "14h", "12min", 0.7, starts=20, seed=3)
    assert again.starts.tolist() == summary.starts.tolist()


@pytest.mark.parametrize("changeover, billing", [("12min", "tick"), ("0", "second"),
                                                 ("45min", "second")])
def test_optima_solved_side_by_side_are_each_starts_own(changeover, billing):
    """Many starts' optima are solved side by side (windows allowing as many stints
    together, in batches); each run is the one that start gets alone, field for field,
    on a trace whose spells (so the stints each window allows) vary widely."""
    rng = np.random.default_rng(11)
    counts = np.repeat(rng.integers(0, 2, size=400), rng.integers(1, 12, size=400))
    trace = Availability("t", 0.25, counts)
    summary = compare_starts(trace, "10h", "18h", changeover, 0.7, starts=100, seed=5,
                             policies=["omniscient"], billing=billing)
    alone = [run_policies(trace, "10h", "18h", changeover, 0.7, start_tick=int(start),
                          policies=["omniscient"], billing=billing)["omniscient"]
             for start in summary.starts]
    assert [repr(run) for run in summary.runs["omniscient"]] == [repr(run) for run in alone]


@pytest.mark.parametrize("changeover, billing", [("12min", "tick"), ("0", "second")])
def test_the_optimum_computes_its_bands_again_where_they_would_not_fit(
        monkeypatch, changeover, billing):
    """Past _KEPT_BYTES the optimum keeps only every √ticks-th tick's band and the way
    back computes the others again: the same schedules, many windows side by side."""
    rng = np.random.default_rng(12)
    counts = np.repeat(rng.integers(0, 2, size=400), rng.integers(1, 12, size=400))
    trace = Availability("t", 0.25, counts)
    job = ("10h", "18h", changeover, 0.7)
    kept = compare_starts(trace, *job, starts=40, seed=6, policies=["omniscient"],
                          billing=billing)
    monkeypatch.setattr(omniscient, "_KEPT_BYTES", 1)
    again = compare_starts(trace, *job, starts=40, seed=6, policies=["omniscient"],
                           billing=billing)
    assert [repr(run) for run in again.runs["omniscient"]] == [
        repr(run) for run in kept.runs["omniscient"]]


def test_a_gang_has_spot_only_where_the_trace_has_enough_instances():
    trace = Availability("t", 1.0, np.array([3, 2, 1, 0] * 10))
    assert trace.spot(2).tolist()[:4] == [True, True, False, False]
    result = run_policies(trace, "2h", "20h", 0, 0.5, gang_size=3, policies=["greedy"])
    assert result["greedy"].kinds.tolist()[0] == SPOT


# ----------------------------------------------------------------------- readers

def test_a_cant_be_late_value_is_the_number_of_instances_available(tmp_path):
    # The spot-traces README: "each data point is the number of available instances at
    # a specific tick"; 0 is no spot.  Its 4-node files hold counts 0-4.
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"metadata": {"gap_seconds": 195}, "data": [0, 1, 1, 0]}))
    trace = read_availability(path)
    assert trace.tick == pytest.approx(195 / 3600)
    assert trace.counts.tolist() == [0, 1, 1, 0]
    assert trace.spot().tolist() == [False, True, True, False]


def test_a_gang_of_three_on_a_count_trace_has_spot_in_the_spells_built_into_it(tmp_path):
    # known spells: 4 up for 5 ticks, 2 up for 3 (too few), 3 up for 4, none for 2, 4 for 6
    spells = [(4, 5), (2, 3), (3, 4), (0, 2), (4, 6)]
    data = [count for count, ticks in spells for _ in range(ticks)]
    path = tmp_path / "four-node.json"
    path.write_text(json.dumps({"metadata": {"gap_seconds": 1800}, "data": data}))
    trace = read_availability(path)
    spot = trace.spot(3)
    runs = [(bool(key), len(list(group))) for key, group in itertools.groupby(spot)]
    assert runs == [(True, 5), (False, 3), (True, 4), (False, 2), (True, 6)]
    # greedy on spot in exactly those ticks, idle in the others
    greedy = run_policy("greedy", spot, 0.5, "4.5h", "10h", 0, 0.5)
    assert greedy.kinds.tolist()[:12] == [SPOT] * 5 + [IDLE] * 3 + [SPOT] * 4
    assert trace.spot(4).sum() == 11
    # a gang larger than the file ever has is refused, not run as on-demand throughout
    with pytest.raises(InputError, match="^gang_size: a gang of 5 never has spot on "
                                         "four-node.json: at most 4 instances"):
        trace.check_gang(5)


def test_spot_late_in_the_window_is_waited_for_not_found_early(cli, tmp_path):
    # No spot for the first 8 ticks, then spot: read upside down, greedy would start at
    # once on spot and finish 4 ticks in.
    path = tmp_path / "late.json"
    path.write_text(json.dumps({"metadata": {"gap_seconds": 3600},
                                "data": [0] * 8 + [1] * 16}))
    done = cli("deadline", "--trace", str(path), "--compute", "4h", "--deadline", "20h",
               "--changeover", "0", "--policy", "greedy", "--json")
    assert done.returncode == 0, done.stderr
    greedy = json.loads(done.stdout)["policies"]["greedy"]
    assert greedy["finish_h"] == pytest.approx(12) and greedy["on_demand_compute_h"] == 0
    # with too little time to wait, the Safety Net sends it to on-demand at once
    done = cli("deadline", "--trace", str(path), "--compute", "4h", "--deadline", "6h",
               "--changeover", "0", "--policy", "greedy", "--json")
    greedy = json.loads(done.stdout)["policies"]["greedy"]
    assert greedy["spot_compute_h"] == 0 and greedy["on_demand_compute_h"] == pytest.approx(4)


def test_a_four_node_count_file_runs_a_gang_of_four(cli, tmp_path):
    path = tmp_path / "four.json"
    data = ([4] * 6 + [3] * 2 + [0] * 2) * 6
    path.write_text(json.dumps({"metadata": {"gap_seconds": 1800}, "data": data}))
    done = cli("deadline", "--trace", str(path), "--gang-size", "4", "--compute", "6h",
               "--deadline", "20h", "--json")
    assert done.returncode == 0, done.stderr
    policies = json.loads(done.stdout)["policies"]
    spot = read_availability(path).spot(4)
    for name, values in policies.items():
        run = run_policy(name.replace("_", "-"), spot, 0.5, 6, 20, 0.2, 0.6)
        assert values == json.loads(json.dumps(run.as_dict()))
    assert policies["greedy"]["spot_compute_h"] > 0


def test_the_csv_format_reads_counts_on_an_even_clock(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("time_s,available\n0,4\n600,3\n1200,0\n")
    trace = read_availability(path)
    assert trace.tick == pytest.approx(1 / 6) and trace.counts.tolist() == [4, 3, 0]


def test_instance_traces_count_the_instances_up_for_a_whole_tick(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("time_s,node,event\n0,a,up\n0,b,up\n900,a,preempted\n"
                    "1200,a,up\n3600,b,preempted\n3600,a,end\n")
    trace = read_availability(path, tick="10min")
    # ticks [0,600): a, b; [600,1200): b (a preempted at 900); [1200,...): a, b
    assert trace.counts.tolist() == [2, 1, 2, 2, 2, 2]


def test_a_group_size_log_gives_the_fewest_instances_in_each_tick(tmp_path):
    path = tmp_path / "g.txt"
    # sizes 5 from 0 s, 3 from 700 s, 6 from 1300 s; the log ends at 1900 s
    path.write_text("2021-12-11, 10:00:00, 5\n2021-12-11, 10:11:40, 3\n"
                    "2021-12-11, 10:21:40, 6\n2021-12-11, 10:31:40, 6\n")
    trace = read_availability(path, tick="10min")
    # [0,600): 5; [600,1200): 5 then 3 -> 3; [1200,1800): 3 then 6 -> 3
    assert trace.counts.tolist() == [5, 3, 3]
    # [600,900): 5 then 3 -> 3; [1200,1500): 3 then 6 -> 3; [1500,1800): 6
    assert read_availability(path, "group-sizes", tick="5min").counts.tolist() == [
        5, 5, 3, 3, 3, 6]


def test_the_published_pool_logs_read_as_availability(traces_folder):
    sizes = read_availability(traces_folder / "v100x1-east1c.txt")
    assert len(sizes) == 145 and sizes.counts.max() == 80 and sizes.counts.min() >= 0
    instances = read_availability(traces_folder / "p3-trace.csv", tick="10min")
    assert len(instances) == 68 and instances.counts.max() <= 64


@pytest.mark.parametrize("name, text, message", [
    ("a.json", '{"metadata": {}, "data": [0]}', "a.json: metadata.gap_seconds must be"),
    ("a.json", '{"metadata": {"gap_seconds": 60}, "data": [0, -2]}',
     "a.json: data[1] must be the number of instances available in the tick"),
    ("a.json", '{"metadata": {"gap_seconds": 60}, "data": [4, 0.5]}',
     "a.json: data[1] must be the number of instances"),
    ("a.json", '{"metadata": {"gap_seconds": 60}, "data": [99999999999999999999999]}',
     "a.json: data[0] must be the number of instances"),
    ("a.csv", "time_s,available\n0,1\n60,99999999999999999999999\n",
     "a.csv:3: available must be a whole number >= 0"),
    ("a.json", '{"metadata": {"gap_seconds": 60}, "data": []}', "a.json: data must be"),
    ("a.json", '{"metadata": {"gap_seconds": 60}, "data": [0,\n', "a.json:2: not JSON"),
    ("a.csv", "time_s,available\n0,1\n60,x\n", "a.csv:3: available must be a whole"),
    ("a.csv", "time_s,available\n0,1\n60,1\n150,1\n", "a.csv:4: rows must be evenly"),
    ("a.csv", "time_s,available\n0,1\n", "a.csv: needs at least two rows"),
    ("a.csv", "time_s,available\n0,1\n-5,1\n", "a.csv:3: time_s must be a number"),
])
def test_a_malformed_availability_trace_is_one_line(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_availability(path)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


@pytest.mark.parametrize("arguments, message", [
    (dict(compute="-1h"), "compute: must be a duration > 0"),
    (dict(deadline=0), "deadline: must be a duration > 0"),
    (dict(changeover="x"), "changeover:"),
    (dict(discount=1.0), "discount:"),
    (dict(billing="minute"), "billing: must be one of tick, second"),
    (dict(policy="lazy"), "policy: must be one of on-demand, greedy"),
])
def test_bad_values_are_named(arguments, message):
    values = dict(policy="greedy", spot=spot_of("1"), tick="1h", compute="2h",
                  deadline="4h", changeover="6min", discount=0.6)
    values.update(arguments)
    with pytest.raises(InputError, match=f"^{message}"):
        run_policy(**values)


# ----------------------------------------------------------------------- the command

def test_the_command_runs_every_policy_on_a_cant_be_late_trace(cli, tmp_path):
    path = tmp_path / "a.json"
    data = ([1] * 30 + [0] * 12) * 4
    path.write_text(json.dumps({"metadata": {"gap_seconds": 600}, "data": data}))
    done = cli("deadline", "--trace", str(path), "--compute", "10h", "--deadline", "16h",
               "--discount", "0.68", "--json")
    assert done.returncode == 0, done.stderr
    policies = json.loads(done.stdout)["policies"]
    assert list(policies) == ["on_demand", "greedy", "uniform_progress", "omniscient",
                              "model"]
    spot = read_availability(path).spot()
    for policy, values in policies.items():
        run = run_policy(policy.replace("_", "-"), spot, 1 / 6, 10, 16, 0.2, 0.68)
        assert values == json.loads(json.dumps(run.as_dict()))
    text = cli("deadline", "--trace", str(path), "--compute", "10h", "--deadline", "16h")
    assert text.returncode == 0 and "uniform-progress" in text.stdout


def test_the_command_summarises_many_starts(cli, tmp_path):
    path = tmp_path / "a.csv"
    counts = ([2] * 20 + [0] * 7 + [1] * 5) * 20
    path.write_text("time_s,available\n" + "".join(f"{600 * i},{c}\n"
                                                   for i, c in enumerate(counts)))
    done = cli("deadline", "--trace", str(path), "--compute", "6h", "--deadline", "9h",
               "--starts", "15", "--seed", "4", "--gang-size", "2", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    trace = read_availability(path)
    summary = compare_starts(trace, 6, 9, 0.2, 0.6, starts=15, seed=4, gang_size=2)
    for policy in POLICIES:
        assert result["policies"][policy.replace("-", "_")] == pytest.approx(
            summary.row(policy))


@pytest.mark.parametrize("arguments, message", [
    (["--compute=-4h"], "--compute: must be a duration > 0"),
    (["--deadline", "1e9h"], "--deadline: must be"),
    (["--changeover", "soon"], "--changeover:"),
    (["--discount", "1.2"], "--discount:"),
    (["--gang-size", "0"], "--gang-size:"),
    (["--start-tick", "5000"], "--start-tick: must be a whole number from 0 to 83"),
    (["--starts", "0"], "--starts:"),
    (["--deadline", "100h", "--starts", "3"], "--deadline: 100 h is longer than the trace"),
    (["--format", "csv"], "a.json:1: expected the header 'time_s,available'"),
])
def test_the_command_names_a_bad_option_in_one_line(cli, tmp_path, arguments, message):
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"metadata": {"gap_seconds": 600}, "data": [0, 1] * 42}))
    base = {"--compute": "2h", "--deadline": "4h"}
    options = [item for key, value in base.items()
               if not any(a.startswith(key) for a in arguments) for item in (key, value)]
    done = cli("deadline", "--trace", str(path), *options, *arguments)
    assert done.returncode == 2
    assert done.stderr.startswith(f"spotmath deadline: error: {message}"), done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("arguments, message", [
    (["--tick", "1e-320"], "--tick: must be a duration > 0 (hours, or a string like '10min'), "
                           "got '1e-320' (beyond what spotmath computes with"),
    (["--tick", "1e-120"], "--deadline: 4 h is 4e+120 ticks of 3.6e-117 s; at most 200000"),
    (["--trace", "{ms}"], "--deadline: 4 h is 1.44e+07 ticks of 0.001 s; at most 200000"),
    (["--trace", "/dev/zero"], "zero: not a regular file"),
    (["--start-tick", "5"], "--start-tick: start ticks need a trace"),
    (["--trace", "{pool}", "--interval", "auto", "--checkpoint", "0"],
     "--checkpoint: 'auto' balances the write"),
    (["--trace", "{pool}", "--gang-size", "81"],
     "--gang-size: a gang of 81 never has spot on v100x1-east1c.txt: at most 80 instances"),
    (["--trace", "{pool}", "--tick", "1s", "--gang-size", "76", "--policy", "omniscient"],
     "omniscient: the exact optimum of a window of 14400 ticks is too large to solve here"),
])
def test_what_is_too_large_or_never_runs_is_refused_in_one_line(
        cli, tmp_path, traces_folder, monkeypatch, arguments, message):
    monkeypatch.setattr(omniscient, "OPTIMUM_VALUES", 10**9)
    ms = tmp_path / "ms.csv"
    ms.write_text("time_s,available\n0,1\n0.001,1\n0.002,1\n")
    names = {"{ms}": str(ms), "{pool}": str(traces_folder / "v100x1-east1c.txt")}
    arguments = [names.get(item, item) for item in arguments]
    done = cli("deadline", "--compute", "2h", "--deadline", "4h", *arguments)
    assert done.returncode == 2, done.stdout
    assert done.stderr.startswith(f"spotmath deadline: error: {message}"), done.stderr
    assert done.stderr.count("\n") == 1


def test_a_tick_longer_than_the_deadline_allows_gives_no_infinite_expectation(cli):
    done = cli("deadline", "--tick", "11h", "--compute", "3h", "--deadline", "5h",
               "--draws", "3")
    assert done.returncode == 0, done.stderr
    assert "inf" not in done.stdout and "own expectation" not in done.stdout


def test_no_policy_meeting_it_reads_the_same_from_one_start_or_many(cli, tmp_path):
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"metadata": {"gap_seconds": 600}, "data": [1, 0] * 60}))
    job = ["--trace", str(path), "--compute", "6h", "--deadline", "6.3h", "--interval",
           "10min", "--checkpoint", "1min"]
    one, many = (cli("deadline", *job, *extra) for extra in ([], ["--starts", "3"]))
    reason = ("no policy can meet the deadline: on-demand from the start finishes after "
              "12min + 6h + 35 writes of 1min, later than 6.3h")
    for done in (one, many):
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[0].startswith("trace")
        assert done.stdout.rstrip().endswith(reason)
    one, many = (json.loads(cli("deadline", *job, *extra, "--json").stdout)
                 for extra in ([], ["--starts", "3"]))
    assert one == many == {"policies": dict.fromkeys(
        ("on_demand", "greedy", "uniform_progress", "omniscient", "model")),
        "unmeetable": reason}


# ----------------------------------------------------------------------- the model policy

@pytest.mark.parametrize("billing", ["tick", "second"])
def test_the_model_policys_expected_cost_is_what_its_runs_cost(billing):
    """On the grid (changeover 2 of 6 steps a tick, whole steps of compute) the solved
    expectation is exact for the simulator: runs on traces drawn from the model, with the
    policy's own choices, average to it."""
    from spotmath.traces.deadlines.model_policy import model_policy

    model = AvailabilityModel(stay_up=0.8, stay_down=0.7, transitions=0)
    tick, compute, deadline, changeover, discount = 1.0, 4.0, 7.0, 1 / 3, 0.6
    policy = model_policy(model, tick, compute, deadline, changeover, discount, billing)
    job = Job(compute, deadline, changeover, discount, tick, billing)

    def choose(i, t, kind, left_over, progress, available):
        state = policy.state_of(kind, changeover, left_over, tick)
        return policy.choose(int(deadline - t + 1e-9), compute - progress, state, available)

    rng = np.random.default_rng(11)
    costs = []
    for _ in range(3000):
        spot = markov_availability(model, 12, int(rng.integers(2**32)), first=True)
        run = simulate_job(job, spot, "model", choose, safety_net=False)
        assert run.met
        costs.append(run.cost)
    expected = policy.expected(7, 24, True)
    error = np.std(costs, ddof=1) / np.sqrt(len(costs))
    assert abs(np.mean(costs) - expected) < 4.5 * error, (np.mean(costs), expected, error)


def test_a_chain_that_never_changes_plans_spot_now_or_never():
    """Spot that stays, and stays away, with chance 1: the outcomes of chance 0 add
    nothing (0 · ∞ would be NaN), and a 3 h job with a 30-minute changeover (and in
    checkpoint mode two 10-minute writes) takes 4 whole ticks: at spot's price where
    spot is there now, at on-demand's where it is not, in both modes."""
    from spotmath.traces.deadlines.model_policy import checkpoint_model_policy, model_policy

    still = AvailabilityModel(stay_up=1.0, stay_down=1.0, transitions=0)
    tick, compute, deadline, changeover, discount = 1.0, 3.0, 8.0, 0.5, 0.6
    assert deadlines.Checkpoints(1.0, 1 / 6).writes(compute) == 2
    for policy in (model_policy(still, tick, compute, deadline, changeover, discount),
                   checkpoint_model_policy(still, tick, compute, deadline, changeover,
                                           discount, 1.0, 1 / 6)):
        assert not np.isnan(policy.expected_cost).any()
        work = round(compute / policy.grid)
        assert policy.expected(8, work, True) == pytest.approx(4 * (1 - discount))
        assert policy.expected(8, work, False) == pytest.approx(4.0)


def test_the_model_policy_is_fitted_to_the_history_before_the_start():
    from spotmath.traces.deadlines.model_policy import fit_availability

    model = fit_availability(np.array([1] * 40 + [0] * 10 + [1] * 50, dtype=bool))
    # 88 up->up of 89 from up, 9 down->down of 10 from down, half a count each way
    assert model.stay_up == pytest.approx(1 - round(1 - 88.5 / 90, 3))
    assert model.stay_down == pytest.approx(1 - round(1 - 9.5 / 11, 2))
    empty = fit_availability(np.zeros(0, dtype=bool))
    assert (empty.stay_up, empty.stay_down, empty.transitions) == (0.5, 0.5, 0)


def _costs_on_draws(chain: AvailabilityModel, policies: list[str]) -> dict[str, float]:
    """Each policy's total cost from tick 300 of 30 traces drawn from ``chain`` (a
    10 h job due in 16 h on 15-minute ticks), every deadline met."""
    rng = np.random.default_rng(5)
    totals = dict.fromkeys(policies, 0.0)
    for _ in range(30):
        spot = markov_availability(chain, 400, int(rng.integers(2**32)))
        trace = Availability("m", 0.25, spot.astype(np.int64))
        result = run_policies(trace, "10h", "16h", "12min", 0.7, start_tick=300,
                              policies=policies)
        for policy, run in result.items():
            assert run.met
            totals[policy] += run.cost
    return totals


def test_the_model_policy_saves_on_traces_drawn_from_its_model():
    """Spells of 20 ticks of spot and 10 without: the model policy (fitted on the
    history) costs no more than uniform progress on average over fresh draws."""
    chain = AvailabilityModel(stay_up=0.95, stay_down=0.9, transitions=0)
    totals = _costs_on_draws(chain, ["uniform-progress", "model", "omniscient", "greedy"])
    assert totals["omniscient"] <= totals["model"] <= totals["uniform-progress"]


def test_the_planning_tick_is_the_fewest_trace_ticks_that_fit(monkeypatch):
    from spotmath.traces.deadlines import model_policy as model_module

    monkeypatch.setattr(model_module, "MODEL_CELLS", 1000)
    for size in (10, 999, 1000, 1001, 10**6, 10**9):
        def cells(m, size=size):
            return size // m ** 2 + size // (7 * m)
        found = model_module.planning_ticks(cells)
        assert found == next(m for m in itertools.count(1) if cells(m) <= 1000)


def test_a_planning_tick_never_takes_more_than_its_share_of_the_slack_within_the_room(
        monkeypatch):
    """Where the fewest trace ticks that fit the room would take more of the job's free
    slack than SLACK_SHARE allows, the programme plans on the slack's tick instead, or
    on the fewest that fit SLACK_CELLS times the room."""
    from spotmath.traces.deadlines import model_policy as model_module

    monkeypatch.setattr(model_module, "MODEL_CELLS", 1000)

    def cells(m):
        return 20_000 // m ** 2

    assert model_module.planning_ticks(cells) == 5
    assert model_module.planning_ticks(cells, finest=8) == 5  # the slack allows more
    assert model_module.planning_ticks(cells, finest=3) == 3  # 2,222 ≤ 4,000 values
    assert model_module.planning_ticks(cells, finest=1) == 3  # 4 × the room at most


@pytest.mark.parametrize("checkpointed", [False, True])
def test_both_programmes_ask_for_a_planning_tick_within_a_quarter_of_the_free_slack(
        monkeypatch, checkpointed):
    """The free slack is the time to the deadline less the compute (and its writes) and
    one changeover; a planning tick may take a quarter of it, in trace ticks."""
    from spotmath.traces.deadlines import model_policy as model_module

    asked = []
    real = model_module.planning_ticks

    def planning_ticks(cells, finest=None):
        asked.append(finest)
        return real(cells, finest)

    monkeypatch.setattr(model_module, "planning_ticks", planning_ticks)
    chain = AvailabilityModel(stay_up=0.95, stay_down=0.9, transitions=0)
    if checkpointed:  # 2 h of compute and 0.2 h of writes, 0.1 h of changeover
        model_module.checkpoint_model_policy(chain, 0.05, 2.0, 3.0, 0.1, 0.6, 0.5, 0.05)
        free = 3.0 - 2.2 - 0.1
    else:
        model_module.model_policy(chain, 0.05, 2.0, 3.0, 0.1, 0.6)
        free = 3.0 - 2.0 - 0.1
    assert asked == [math.floor(0.25 * free / 0.05 + 1e-9)]


def test_a_job_with_little_slack_is_not_sent_to_on_demand_by_its_planning_tick():
    """9.5 h of compute due in 10 h with 12-minute changeovers on us-west-2b, where spot
    is plentiful: a planning tick of two trace ticks (6.5 min) read as already gone at
    every trace tick left this job no slack, and the model policy paid 93% of
    on-demand where greedy pays 57%.  Planned on the trace's tick, it pays what
    greedy pays."""
    zone = read_availability(TRACES / "skynomad" / "us-west-2b_v100_1.csv")
    summary = compare_starts(zone, 9.5, 10, "12min", 0.6, starts=10, seed=2026)
    shares = {policy: summary.row(policy)["cost_share"] for policy in summary.runs}
    assert shares["model"] <= shares["greedy"] + 0.01 and shares["greedy"] < 0.6


def test_a_programme_too_large_for_the_trace_tick_plans_on_a_coarser_one(monkeypatch):
    """With room for a tenth of the programme, the model policy plans on planning ticks
    of several trace ticks (the chain staying through each of them: stay**m), its table
    within the room; on traces drawn from the chain it still meets every deadline and
    costs no more than uniform progress."""
    from spotmath.traces.deadlines import model_policy as model_module

    chain = AvailabilityModel(stay_up=0.95, stay_down=0.9, transitions=0)
    fine = model_module.model_policy(chain, 0.25, 10, 16, 0.2, 0.7)
    assert fine.tick == 0.25
    monkeypatch.setattr(model_module, "MODEL_CELLS", fine.action.size // 10)
    coarse = model_module.model_policy(chain, 0.25, 10, 16, 0.2, 0.7)
    m = round(coarse.tick / 0.25)
    assert m > 1 and coarse.tick == pytest.approx(m * 0.25)
    assert coarse.action.size <= model_module.MODEL_CELLS
    assert model_module.coarsened(chain, m).stay_up == pytest.approx(0.95 ** m, rel=0.01)
    totals = _costs_on_draws(chain, ["uniform-progress", "model"])
    assert totals["model"] <= totals["uniform-progress"]


def test_the_models_programme_is_solved_only_when_the_model_is_asked_for(cli, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the model's programme was solved")

    for module in (policies, expected):  # the two that solve the model's programme
        monkeypatch.setattr(module, "model_policy", refuse)
    done = cli("deadline", "--compute", "3h", "--deadline", "5h", "--policy", "greedy",
               "--draws", "5")
    assert done.returncode == 0, done.stderr
    assert "greedy" in done.stdout and "own expectation" not in done.stdout


# ----------------------------------------------------------------------- without a trace

def test_spells_become_a_chain_on_ticks():
    from spotmath.traces.deadlines import spell_model

    model = spell_model("10min", "4h", "1h", gang_size=8)
    assert model.stay_up == pytest.approx(math.exp(-8 / 4 / 6))  # e^{−Nλh}, typed
    assert model.stay_down == pytest.approx(math.exp(-1 / 6))


def test_expected_costs_agree_with_the_model_policys_own_expectation():
    """A loose deadline (the Safety Net never binds) and a changeover on the grid: the
    simulated mean of the model policy is its own expectation; the optimum is below all."""
    from spotmath.traces.deadlines import expected_costs, model_expected_cost, spell_model

    model = spell_model("10min", "2h", "30min")
    job = ("10min", "2h", "10h", "10min", 0.7)
    found = expected_costs(model, *job, draws=1500, seed=4)
    own = model_expected_cost(model, *job)
    row = found["model"]
    assert abs(row.cost - own) < 4.5 * row.cost_se, (row.cost, own, row.cost_se)
    assert found["on-demand"].cost == pytest.approx(13 / 6)  # ⌈(2 h + 10 min)/10 min⌉ ticks
    assert all(r.met == 1.0 for r in found.values())
    assert all(found["omniscient"].cost <= r.cost + 1e-9 for r in found.values())


def test_spot_pays_from_the_shortest_deadline_where_the_model_expects_to_save():
    from spotmath.traces.deadlines import (
        MIN_SAVING,
        model_expected_cost,
        spell_model,
        spot_pays_from,
    )

    model = spell_model("10min", "1h", "2h", gang_size=2)
    found = spot_pays_from(model, "10min", "3h", "12min", 0.6)
    on_demand = math.ceil((3 + 0.2) * 6 - 1e-9) / 6
    assert model_expected_cost(model, "10min", "3h", found, "12min", 0.6) \
        < on_demand * (1 - MIN_SAVING)
    shorter = found - 1 / 6
    if shorter >= 3.2 - 1e-9:
        assert model_expected_cost(model, "10min", "3h", shorter, "12min", 0.6) \
            >= on_demand * (1 - MIN_SAVING) - 1e-12


def test_a_saving_too_small_to_act_on_is_no_deadline(cli):
    """#53-5: with outages of 1e5 h spot is a gamble the model declines almost always;
    an expected saving of a few parts per million once said "spot pays from 10 h"."""
    from spotmath.traces.deadlines import MIN_SAVING

    done = cli("plan", "--compute", "6h", "--deadline", "10h", "--outage", "1e5h", "--json")
    assert done.returncode == 0, done.stderr
    deadline = json.loads(done.stdout)["deadline"]
    assert deadline["spot_pays_from_deadline_h"] is None
    model = deadline["policies"]["model"]["cost"]
    on_demand = deadline["policies"]["on_demand"]["cost"]
    assert model > on_demand * (1 - MIN_SAVING)
    text = cli("plan", "--compute", "6h", "--deadline", "10h", "--outage", "1e5h")
    line = next(row for row in text.stdout.splitlines() if row.startswith("spot pays from"))
    assert "no deadline up to three times the compute and restart" in line


def test_the_command_without_a_trace_draws_availability(cli):
    done = cli("deadline", "--mtbf", "4h", "--outage", "1h", "--gang-size", "4", "--compute",
               "3h", "--deadline", "5h", "--draws", "40", "--seed", "2", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["stay_up"] == pytest.approx(math.exp(-4 / 4 / 6))
    assert set(result["policies"]) == {"on_demand", "greedy", "uniform_progress",
                                       "omniscient", "model"}
    refused = cli("deadline", "--compute", "3h", "--deadline", "5h", "--starts", "3")
    assert refused.returncode == 2 and refused.stderr.startswith(
        "spotmath deadline: error: --starts: start ticks need a trace")


def test_plan_answers_a_deadline(cli):
    done = cli("plan", "--compute", "6h", "--deadline", "10h", "--json")
    assert done.returncode == 0, done.stderr
    deadline = json.loads(done.stdout)["deadline"]
    assert deadline["policies"]["on_demand"]["cost"] == pytest.approx(37 / 6)
    assert deadline["spot_pays_from_deadline_h"] >= 6 + 10 / 60
    text = cli("plan", "--compute", "6h", "--deadline", "10h")
    assert "spot pays from" in text.stdout
    alone = cli("plan", "--compute", "6h")
    assert alone.returncode == 2 and "--deadline: --compute and --deadline go together" \
        in alone.stderr


# ----------------------------------------------------------------------- checkpoint mode

def test_checkpoint_mode_worked_by_hand():
    """Ticks of 1 h, d = 0.2 h, T = 2 h, C = 0.1 h, 8 h by 12 h; spot for six ticks.
    Spot: 0.8 | 1.8 | 2.0, write, 2.7 | 3.7 | 4.0, write, 4.6 | 5.6; preempted at t = 6:
    back to 4.0 (1.6 h lost).  On-demand needs max(d, C) + 4 + one write = 4.3 h: five
    ticks, so idle at t = 6 (left 6) and on-demand at t = 7 (left 5): 4.8 | 5.8 | 6.0,
    write, 6.7 | 7.7 | 8.0 at 11.3 h.  Cost: 6 × 0.4 + 5 = 7.4."""
    spot = spot_of("111111" + "0" * 10)
    run = run_policy("greedy", spot, "1h", "8h", "12h", "12min", 0.6, interval="2h",
                     checkpoint="6min")
    assert run.kinds.tolist() == [1] * 6 + [0] + [2] * 5
    assert run.progress.tolist() == pytest.approx(
        [0.8, 1.8, 2.7, 3.7, 4.6, 5.6, 4.0, 4.8, 5.8, 6.7, 7.7, 8.0])
    assert run.finish_h == pytest.approx(11.3) and run.cost == pytest.approx(7.4)
    assert run.lost_compute_h == pytest.approx(1.6) and run.checkpoint_writes == 3
    assert run.spot_compute_h + run.on_demand_compute_h == pytest.approx(8.0)
    od = run_policy("on-demand", spot, "1h", "8h", "12h", "12min", 0.6, interval="2h",
                    checkpoint="6min")
    assert od.finish_h == pytest.approx(0.2 + 8 + 3 * 0.1)  # d + J + ⌈J/T − 1⌉ writes
    # its log: the compute since the write that ended at 4.4 h was lost at 6 h
    log = run.segments(1.0)
    assert [s.kind for s in log] == [
        "changeover", "spot", "checkpoint", "spot", "checkpoint", "lost", "idle",
        "changeover", "on-demand", "checkpoint", "on-demand"]
    assert [s.end for s in log] == pytest.approx(
        [0.2, 2.2, 2.3, 4.3, 4.4, 6.0, 7.0, 7.2, 9.2, 9.3, 11.3])
    assert run.preempted_ticks == (6,)


def test_every_checkpoint_runs_log_tiles_it_and_sums_to_what_it_reports():
    """Random traces, every policy in checkpoint mode: the segments tile [0, finish];
    compute on spot and on-demand sum to the run's, lost work to its lost compute, and
    each write's time is at most the write (one cut short by a preemption or by a
    saving switch is shorter)."""
    rng = np.random.default_rng(8)
    for _ in range(40):
        tick = float(rng.choice([1 / 6, 0.5, 1.0]))
        interval, write = float(rng.choice([0.3, 1.0, 2.5])), float(rng.choice([0.0, 0.1]))
        spot = rng.random(200) < 0.7
        for policy in deadlines.POLICIES:
            run = run_policy(policy, spot, tick, 6.0, 14.0, 0.2, 0.6, interval=interval,
                             checkpoint=write)
            log = run.segments(tick)
            assert log[0].start == 0 and log[-1].end == pytest.approx(run.finish_h)
            assert all(a.end == pytest.approx(b.start) for a, b in zip(log, log[1:]))
            total = {}
            for piece in log:
                total[piece.kind] = total.get(piece.kind, 0.0) + piece.end - piece.start
            assert total.get("spot", 0) == pytest.approx(run.spot_compute_h, abs=1e-9)
            assert total.get("on-demand", 0) == pytest.approx(run.on_demand_compute_h,
                                                              abs=1e-9)
            assert total.get("lost", 0) == pytest.approx(run.lost_compute_h, abs=1e-9)
            assert all(p.end - p.start <= write + 1e-9 for p in log if p.kind == "checkpoint")
            assert [i for i in run.preempted_ticks] == sorted(run.preempted_ticks)
            assert len(run.preempted_ticks) == run.preemptions


def test_the_writes_of_one_amount_of_work_are_those_of_an_array_of_it():
    """A float takes a path of its own (the Safety Net asks every tick): the same count as
    the array's, at segment boundaries, past 2⁵³ segments and for no work at all, and the
    same error for NaN and ∞."""
    rng = np.random.default_rng(11)
    for interval in (0.1, 1 / 3, 0.5, 2.0, 20.0, 1e-9, 1e300):
        checkpoints = deadlines.Checkpoints(interval, 0.1)
        work = np.concatenate((rng.uniform(0, 50, 300), np.exp(rng.uniform(-50, 600, 300)),
                               np.arange(40) * interval,
                               np.arange(40) * interval + rng.choice([-1e-9, 5e-10], 40),
                               [0.0, -0.0, -1.0, 2.0**53, 1e200]))
        counts = checkpoints.writes(work)
        for one, count in zip(work.tolist(), counts.tolist()):
            assert checkpoints.writes(one) == count and type(checkpoints.writes(one)) is int
    for bad, error in ((math.nan, ValueError), (math.inf, OverflowError)):
        with pytest.raises(error):
            deadlines.Checkpoints(1.0, 0.1).writes(bad)
        with pytest.raises(error):
            deadlines.Checkpoints(1.0, 0.1).writes(np.array(bad))


def test_writes_at_every_tick_boundary_lose_nothing_and_match_the_papers_model():
    """With C = 0 and T dividing the tick and the changeover, every boundary is a
    checkpoint: a preemption loses nothing, so a schedule costs what it costs without
    checkpoints (both run without their Safety Nets)."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        spot = rng.random(40) < 0.6
        job = Job(6.0, 30.0, 0.5, 0.6, 1.0, "tick")
        plain = simulate_job(job, spot, "greedy", greedy(job), False)
        saved = simulate_checkpointed(
            job, deadlines.Checkpoints(0.25, 0.0), spot, "greedy", greedy(job),
            False)
        assert saved.kinds.tolist() == plain.kinds.tolist()
        assert saved.cost == pytest.approx(plain.cost) and saved.lost_compute_h == 0


@pytest.mark.parametrize("seed", range(10))
def test_checkpoint_mode_meets_every_deadline_on_demand_would_meet(seed):
    """The worst case: a preemption can take everything since the last write; the
    Safety Net in checkpoint mode must keep every online policy on time anyway."""
    rng = np.random.default_rng(500 + seed)
    for _ in range(30):
        tick = float(rng.choice([1 / 6, 0.25, 1.0]))
        compute = float(rng.uniform(0.5, 10))
        changeover = float(rng.choice([0.0, 0.05, 0.2, 1.3]))
        interval = float(rng.choice([0.1, 0.5, 1.0, 3.0, 20.0]))
        write = float(rng.choice([0.0, 0.02, 0.1, 0.5]))
        checkpoints = deadlines.Checkpoints(interval, write)
        least = changeover + compute + write * checkpoints.writes(compute)
        deadline = least + float(rng.choice([0.0, rng.uniform(0, 0.5), rng.uniform(0, 8)]))
        spot = adversarial(int(deadline / tick) + 5, rng)
        costs = {}
        for policy in deadlines.POLICIES:
            run = run_policy(policy, spot, tick, compute, deadline, changeover, 0.6,
                             interval=interval, checkpoint=write)
            assert run.met, (policy, seed, tick, compute, changeover, interval, write,
                             deadline)
            assert run.spot_compute_h + run.on_demand_compute_h == pytest.approx(compute)
            costs[policy] = run.cost
        assert costs["omniscient"] <= min(costs.values()) + 1e-9


@pytest.mark.parametrize("mtbf, outage, changeover, interval, write, billing, discount", [
    ("3h", "2h", 1 / 3, 2 / 3, 1 / 6, "second", 0.7),
    ("2h", "1h", 1 / 6, 1 / 2, 1 / 3, "tick", 0.6),   # a save's dead time beyond d
    ("90min", "3h", 0.0, 1 / 3, 0.0, "tick", 0.8),    # free writes, no changeover
    ("6h", "2h", 0.5, 5.0, 1.0, "tick", 0.7),         # a long cycle: a coarser grid
])
def test_the_model_policys_expectation_in_checkpoint_mode_is_its_simulated_mean(
        mtbf, outage, changeover, interval, write, billing, discount):
    """Every duration on the policy's grid and a deadline that never binds: the mean
    cost of 1,500 runs on availability drawn from the model, each by the checkpoint
    simulator, is the dynamic programme's own expectation (within 4.5 standard errors,
    four settings at a false-alarm chance of about 3e-5)."""
    from spotmath.traces.deadlines import spell_model
    from spotmath.traces.deadlines.model_policy import PHASES, checkpoint_model_policy

    model = spell_model("1h", mtbf, outage)
    tick, compute, deadline = 1.0, 5.0, 40.0
    policy = checkpoint_model_policy(model, tick, compute, deadline, changeover, discount,
                                     interval, write, billing)
    # six steps a tick, or fewer where a cycle of compute and write would take more
    assert policy.grid == tick / min(6, math.floor(PHASES * tick / (interval + write)))
    share = model.available_share
    work = math.ceil(compute / policy.grid - 1e-9)
    own = share * policy.expected(40, work, True) + (1 - share) * policy.expected(
        40, work, False)
    job = Job(compute, deadline, changeover, discount, tick, billing)
    rng = np.random.default_rng(5)
    costs = []
    for _ in range(1500):
        spot = markov_availability(model, 50, int(rng.integers(2**32)),
                                   first=bool(rng.random() < share))
        run = run_job(job, spot, "model", known=model,
                             checkpoints=deadlines.Checkpoints(interval, write))
        assert run.met
        costs.append(run.cost)
    error = np.std(costs, ddof=1) / math.sqrt(len(costs))
    assert abs(np.mean(costs) - own) <= 4.5 * error + 1e-12, (np.mean(costs), own, error)


@settings(max_examples=200, deadline=None)
@given(pattern=st.lists(st.booleans(), min_size=1, max_size=8),
       tick=st.sampled_from([1.0, 0.5, 0.4]),
       compute=st.sampled_from([0.5, 1.0, 1.7, 2.5, 3.0]),
       changeover=st.sampled_from([0.0, 0.3, 0.5, 1.2]),
       interval=st.sampled_from([0.25, 0.5, 0.7, 1.0, 1.5, 10.0]),
       write=st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.3]),
       slack=st.sampled_from([0.0, 0.4, 1.0, 2.0, 3.3]),
       discount=st.sampled_from([0.1, 0.5, 0.9]),
       billing=st.sampled_from(["tick", "second"]))
def test_the_checkpoint_optimum_is_the_brute_force_optimum(
        pattern, tick, compute, changeover, interval, write, slack, discount, billing):
    """Every schedule of up to eight ticks, run by the checkpoint simulator, against the
    search over stints; its schedule, run by the simulator, costs what it said, and it
    is what ``run_policy`` runs (the search pruned by the online policies' cost)."""
    checkpoints = deadlines.Checkpoints(interval, write)
    least = changeover + compute + write * checkpoints.writes(compute)
    deadline = least + slack
    if math.ceil(deadline / tick - 1e-9) > 8:
        return
    spot = np.array(pattern)
    expected = brute_force(spot, tick, compute, deadline, changeover, discount, billing,
                           checkpoints)
    found = omniscient_schedule(spot, tick, compute, deadline, changeover, discount,
                                billing, checkpoints=checkpoints)
    assert found is not None and expected is not None
    kinds, cost, finish = found
    assert (cost, finish) == pytest.approx(expected, abs=1e-9)
    with pytest.MonkeyPatch.context() as patch:  # outrun stints dropped at every boundary
        patch.setattr(checkpoint_optimum, "_PRUNE_LEAST", 0)
        patch.setattr(checkpoint_optimum, "_PRUNE_GROWTH", 0.0)
        pruned = checkpoint_optimum.checkpoint_schedule(
            spot, tick, compute, deadline, changeover, discount, checkpoints, billing)
    assert pruned[1:] == pytest.approx(expected, abs=1e-9)
    run = run_policy("omniscient", spot, tick, compute, deadline, changeover, discount,
                     billing=billing, interval=interval, checkpoint=write)
    assert (run.cost, run.finish_h) == pytest.approx((cost, finish), abs=1e-9)


def test_a_stints_progress_is_what_the_simulator_makes():
    """The search's table of compute done and written after m ticks of a stint: done
    against on-demand from the start, tick by tick; written against what greedy keeps
    when spot is taken after m ticks (a deadline far enough away that the Safety Net
    never acts)."""
    from spotmath.traces.deadlines.checkpoint_optimum import stint_progress

    for tick, changeover, interval, write in [(1.0, 0.2, 2.0, 0.1), (1 / 6, 0.2, 0.42, 1 / 60),
                                              (0.5, 1.3, 0.25, 0.0), (1.0, 0.0, 0.3, 0.7)]:
        checkpoints = deadlines.Checkpoints(interval, write)
        run = run_policy("on-demand", spot_of("0"), tick, 20, 100, changeover, 0.6,
                         interval=interval, checkpoint=write)
        done, written = stint_progress(checkpoints, changeover, tick, len(run.kinds) - 1)
        assert done[1:] == pytest.approx(run.progress[:-1], abs=1e-9)
        for m in range(1, 12):
            taken = run_policy("greedy", spot_of("1" * m + "0" * 5), tick, 20, 400,
                               changeover, 0.6, interval=interval, checkpoint=write)
            assert taken.progress[m] == pytest.approx(written[m], abs=1e-9)


def test_auto_interval_is_the_exact_optimum_at_the_rate_spells_end():
    import spotmath as sm
    from spotmath.traces.deadlines import auto_interval

    trace = Availability("t", 0.5, np.array([1, 1, 1, 0, 1, 1, 0, 0, 1, 1]))
    rate = 2 / (7 * 0.5)  # two spells end in 3.5 hours of spot
    assert auto_interval(trace, "1min") == pytest.approx(sm.exact_interval(rate, 1 / 60))


def test_the_command_runs_checkpoint_mode(cli, tmp_path):
    path = tmp_path / "a.json"
    data = ([1] * 20 + [0] * 6) * 6
    path.write_text(json.dumps({"metadata": {"gap_seconds": 600}, "data": data}))
    done = cli("deadline", "--trace", str(path), "--compute", "8h", "--deadline", "14h",
               "--interval", "auto", "--checkpoint", "2min", "--json")
    assert done.returncode == 0, done.stderr
    policies = json.loads(done.stdout)["policies"]
    assert list(policies) == ["on_demand", "greedy", "uniform_progress", "omniscient",
                              "model"]
    trace = read_availability(path)
    interval = deadlines.auto_interval(trace, "2min")
    for name, values in policies.items():
        run = run_policy(name.replace("_", "-"), trace.spot(), 1 / 6, 8, 14, 0.2, 0.6,
                         interval=interval, checkpoint=2 / 60)
        assert values == json.loads(json.dumps(run.as_dict()))
    assert policies["greedy"]["lost_compute_h"] > 0
    for arguments, message in [
        (["--checkpoint", "1min"], "--checkpoint: needs --interval"),
        (["--interval", "0"], "--interval: must be a duration > 0"),
    ]:
        refused = cli("deadline", "--trace", str(path), "--compute", "8h", "--deadline",
                      "14h", *arguments)
        assert refused.returncode == 2
        assert refused.stderr.startswith(f"spotmath deadline: error: {message}"), \
            refused.stderr


# -- the run's log: segments for the timeline --------------------------------------------
def test_a_hand_worked_run_gives_its_segments_exactly():
    """Greedy, d = 0.5 h, ticks of 1 h, spot taken at the start of tick 2: a changeover
    and 1.5 h on spot, idle through tick 2, a changeover again, then on spot to the
    finish at 5 h."""
    from spotmath.traces.deadlines import run_policy

    spot = np.array([True, True, False] + [True] * 7)
    run = run_policy("greedy", spot, 1.0, 3.0, 9.0, 0.5, 0.6)
    assert [(s.start, s.end, s.kind) for s in run.segments(1.0)] == [
        (0.0, 0.5, "changeover"), (0.5, 2.0, "spot"), (2.0, 3.0, "idle"),
        (3.0, 3.5, "changeover"), (3.5, 5.0, "spot")]
    assert run.preempted_ticks == (2,)


def test_every_runs_log_tiles_it_and_sums_to_what_it_reports(checkout):
    """On the v100 pool from ten starts, every policy: the segments tile [0, finish], the
    compute on spot and on on-demand sum to the run's, changeovers take at most d each
    (less only where spot is taken first), the billed ticks are the ticks on each
    instance, and the preemptions are where spot was taken."""
    from spotmath.traces.deadlines import read_availability, run_policies

    trace = read_availability(checkout / "book" / "data" / "traces" / "v100x1-east1c.txt")
    tick, changeover = trace.tick, 0.2
    for start in range(0, len(trace) - 100, (len(trace) - 100) // 10):
        runs = run_policies(trace, 6.0, 10.0, changeover, 0.6, start_tick=start, gang_size=72)
        for name, run in runs.items():
            segments = run.segments(tick)
            assert segments[0].start == 0 and segments[-1].end == run.finish_h, name
            assert all(a.end == b.start for a, b in zip(segments, segments[1:])), name

            def total(kind, segments=segments):
                return sum(s.end - s.start for s in segments if s.kind == kind)

            assert total("spot") == pytest.approx(run.spot_compute_h, abs=1e-9), name
            assert total("on-demand") == pytest.approx(run.on_demand_compute_h, abs=1e-9)
            assert total("changeover") <= run.changeovers * changeover + 1e-9
            if run.preemptions == 0:
                assert total("changeover") == pytest.approx(run.changeovers * changeover)
            for kind, billed in ((1, run.spot_billed_h), (2, run.on_demand_billed_h)):
                assert np.count_nonzero(run.kinds == kind) * tick == pytest.approx(billed)
            assert len(run.preempted_ticks) == run.preemptions
            spot = trace.spot(72)[start:]
            for i in run.preempted_ticks:
                assert run.kinds[i - 1] == 1 and not spot[i]


def test_compare_starts_runs_each_start_as_run_policies_does(checkout):
    """The model policy in compare_starts plans with the fit made to order the starts: the
    same runs as run_policies from each start, which fits the history itself."""
    from spotmath.traces.deadlines import compare_starts, read_availability, run_policies

    trace = read_availability(checkout / "book" / "data" / "traces" / "v100x1-east1c.txt")
    job = (6.0, 10.0, 0.2, 0.6)
    summary = compare_starts(trace, *job, starts=4, seed=3, gang_size=72,
                             policies=("greedy", "model"))
    for n, tick in enumerate(summary.starts):
        alone = run_policies(trace, *job, start_tick=int(tick), gang_size=72,
                             policies=("greedy", "model"))
        for policy in ("greedy", "model"):
            assert summary.runs[policy][n].as_dict() == alone[policy].as_dict()


def test_checkpoint_mode_tends_to_progress_kept_as_writes_shrink():
    """A 1 s interval with 1 ms writes: every policy costs what it costs with progress
    kept (the paper's model), within 0.1% of on-demand's cost."""
    chain = AvailabilityModel(stay_up=0.9, stay_down=0.8, transitions=0)
    trace = Availability("m", 1 / 6, markov_availability(chain, 400, seed=8).astype(int))
    job = ("6h", "10h", "12min", 0.6)
    kept = run_policies(trace, *job, start_tick=200)
    written = run_policies(trace, *job, start_tick=200, interval="1s", checkpoint="0.001s")
    scale = kept["on-demand"].cost
    for policy in POLICIES:
        assert written[policy].met
        assert abs(written[policy].cost - kept[policy].cost) <= 1e-3 * scale, policy


def test_checkpoint_modes_programme_too_large_for_the_trace_tick_plans_coarser(monkeypatch):
    """Checkpoint mode's model programme is sized the same way: with room for a tenth of
    it, a planning tick of several trace ticks, its table within the room, and its runs
    (under checkpoint mode's Safety Net) meet every deadline."""
    from spotmath.traces.deadlines import model_policy as model_module

    chain = AvailabilityModel(stay_up=0.95, stay_down=0.9, transitions=0)
    job = (0.25, 6, 10, 0.2, 0.7, 0.5, 1 / 60)
    fine = model_module.checkpoint_model_policy(chain, *job)
    monkeypatch.setattr(model_module, "MODEL_CELLS", fine.action.size // 10)
    coarse = model_module.checkpoint_model_policy(chain, *job)
    assert coarse.tick > fine.tick == 0.25 and coarse.action.size <= fine.action.size // 10
    rng = np.random.default_rng(9)
    for _ in range(10):
        spot = markov_availability(chain, 300, int(rng.integers(2**32)))
        trace = Availability("m", 0.25, spot.astype(np.int64))
        run = run_policies(trace, "6h", "10h", "12min", 0.7, start_tick=200,
                           policies=["model"], interval="30min", checkpoint="1min")["model"]
        assert run.met


def test_summaries_pooled_average_over_every_start():
    chain = AvailabilityModel(stay_up=0.9, stay_down=0.8, transitions=0)
    summaries = [compare_starts(Availability("m", 0.25, markov_availability(
        chain, 300, seed=seed).astype(int)), "4h", "8h", "12min", 0.6, starts=5, seed=1)
        for seed in (1, 2)]
    pooled = deadlines.Summary.pooled(summaries)
    assert len(pooled.starts) == 10
    for policy in POLICIES:
        assert pooled.row(policy)["cost"] == pytest.approx(
            np.mean([summary.row(policy)["cost"] for summary in summaries]))


@pytest.mark.parametrize("seed", range(12))
def test_dropping_outrun_stints_keeps_the_checkpoint_optimum(seed, monkeypatch):
    """The search drops, now and then, the live stints another outruns: dropping them at
    every boundary finds the same least cost and earliest finish as never dropping any,
    on Markov traces of a few hundred ticks (spells of many lengths; writes at most the
    changeover, where the search drops any).  The brute-force test above drops them at
    every boundary too."""
    rng = np.random.default_rng(seed)
    chain = AvailabilityModel(stay_up=rng.uniform(0.8, 0.98), stay_down=rng.uniform(0.5, 0.95),
                              transitions=0)
    spot = markov_availability(chain, 400, seed=seed)
    tick = float(rng.choice([0.1, 0.25, 0.5]))
    compute = float(rng.uniform(5, 25)) * tick * 4
    changeover = float(rng.choice([0.0, 0.1, 0.3])) if seed % 3 else 0.2
    write = float(rng.choice([0.0, 0.5, 1.0])) * changeover
    checkpoints = deadlines.Checkpoints(float(rng.choice([0.3, 0.7, 1.5, 4.0])), write)
    deadline = (changeover + compute + write * checkpoints.writes(compute)) * float(
        rng.uniform(1.05, 1.6))
    discount = float(rng.choice([0.3, 0.6, 0.9]))
    billing = ("tick", "second")[seed % 2]
    arguments = (spot, tick, compute, deadline, changeover, discount, checkpoints, billing)
    found = {}
    for name, least in (("never", math.inf), ("always", 0)):
        monkeypatch.setattr(checkpoint_optimum, "_PRUNE_LEAST", least)
        monkeypatch.setattr(checkpoint_optimum, "_PRUNE_GROWTH", 0.0)
        found[name] = checkpoint_optimum.checkpoint_schedule(*arguments)
    assert found["never"] is not None
    assert found["always"][1:] == pytest.approx(found["never"][1:], abs=1e-9)


@pytest.mark.parametrize("interval, write, changeover, tick", [
    (0.5, 1 / 60, 0.2, 195 / 3600), (1.5, 0.3, 0.3, 0.25), (0.7, 0.0, 0.1, 0.5),
    (0.3, 0.1, 0.4, 0.1), (0.25, 0.2, 0.2, 0.3)])
def test_an_outrun_stint_is_behind_its_outrunner_from_then_on(interval, write, changeover,
                                                               tick):
    """What the search's pruning claims, checked against the stint table the simulator
    checks (``stint_progress``): for every stint dropped, another on the same instance
    has at least its compute done at every later boundary, costs less by more than a
    save, and, on spot, keeps at least as much where the spell ends."""
    from spotmath.traces.deadlines.checkpoint_optimum import _outrun_stints, stint_progress

    rng = np.random.default_rng(7)
    checkpoints = deadlines.Checkpoints(interval, write)
    horizon, spot_price, dropped = 80, 0.4, 0
    done, written = stint_progress(checkpoints, changeover, tick, 2 * horizon)
    for _ in range(20):
        n = 200
        length = rng.integers(0, horizon, n)
        start = rng.uniform(0, 3, n).round(1)  # many near ties
        cost = start * 0.9 + rng.uniform(0, 0.6, n) + length * tick
        on_spot = rng.random(n) < 0.5
        left = int(rng.integers(1, horizon))  # ticks to the spell's end
        kept = start + written[length + left]
        beaten = _outrun_stints(start, cost, length, on_spot, kept, changeover, tick,
                                checkpoints, spot_price)
        dropped += beaten.sum()
        ahead = np.arange(horizon)
        later = start[:, None] + done[length[:, None] + ahead]  # done at each later boundary
        for b in np.flatnonzero(beaten):
            same = on_spot == on_spot[b]
            margin = (spot_price if on_spot[b] else 1.0) * write
            steps = left + 1 if on_spot[b] else horizon
            behind = ((later[:, :steps] >= later[b, :steps] - 1e-12).all(axis=1)
                      & (cost + margin < cost[b]) & same)
            if on_spot[b]:
                behind &= kept >= kept[b] - 1e-12
            assert behind.any(), (b, start[b], length[b], cost[b])
    assert dropped > 100  # the check saw the pruning at work


# ------------------------------------------------------- the optimum's size, #53-4 and -9

def _spells(hours: float, seed: int) -> list[int]:
    """Ten-minute ticks of four instances in spells of about four hours, outages of
    about one."""
    rng = np.random.default_rng(seed)
    data, up = [], True
    for _ in range(int(hours * 6)):
        up = (rng.random() >= 1 / 24) if up else (rng.random() < 1 / 6)
        data.append(4 if up else 0)
    return data


def test_the_issues_checkpoint_job_is_refused_within_the_limits(tmp_path):
    """#53-4: 500 h of compute by 1,000 h, a write of 1 min every 30 min, on 10-minute
    ticks: the checkpoint-mode optimum ran 333 s to a 9.6 GB MemoryError.  Now the search
    stops at its budget, in under 10 s of CPU time and 2 GB (a process of its own,
    measured: its CPU time, not the wall clock, which a busy test machine stretches),
    with one line saying what would fit; the paper-mode optimum of the same job is
    refused up front."""
    import resource
    import subprocess
    import sys

    path = tmp_path / "long.json"
    path.write_text(json.dumps({"metadata": {"gap_seconds": 600}, "data": _spells(1500, 1)}))
    job = ["--trace", str(path), "--compute", "500h", "--deadline", "1000h"]
    for mode, message in (
            (["--interval", "30min", "--checkpoint", "1min"],
             "omniscient: the exact optimum in checkpoint mode of a window of 6000 ticks "
             "outgrew the search's budget by tick"),
            ([], "omniscient: the exact optimum of a window of 6000 ticks is too large to "
                 "solve here")):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-m", "spotmath", "deadline", *job, *mode],
                              capture_output=True, text=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        took = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        peak_gb = after.ru_maxrss / 2**20  # the largest child's, in KiB
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr.startswith(f"spotmath deadline: error: {message}"), done.stderr
        assert done.stderr.count("\n") == 1
        # the file sets the tick: what would fit is said of the trace, not of --tick
        assert "the trace at ticks of at least" in done.stderr
        assert "a tick of at least" not in done.stderr
        assert took < 10 and peak_gb < 2, (mode, took, peak_gb)


def test_a_tick_the_refusal_suggests_fits(cli, traces_folder, monkeypatch):
    """The checkpoint-mode refusal's tick (on an instance trace, cut by --tick) is one at
    which the same search, on the same budget, answers."""
    monkeypatch.setattr(checkpoint_optimum, "SEARCH_VISITS", 3000)
    job = ["--trace", str(traces_folder / "v100x1-east1c.txt"), "--compute", "8h",
           "--deadline", "16h", "--interval", "1h", "--checkpoint", "1min", "--policy",
           "omniscient"]
    refused = cli("deadline", *job, "--tick", "2min")
    assert refused.returncode == 2
    found = re.search(r"a tick of at least ([\d.e+]+) s, a shorter job and deadline, or the "
                      r"other policies alone \(--policy\) would fit\n$", refused.stderr)
    assert found, refused.stderr
    fits = cli("deadline", *job, "--tick", f"{math.ceil(float(found[1]))}s")
    assert fits.returncode == 0, fits.stderr


def test_many_starts_share_the_budget(cli, tmp_path, monkeypatch):
    """With --starts each start's search gets its share of the budget, so that the
    command as a whole stays within it; the refusal says so and suggests fewer."""
    monkeypatch.setattr(checkpoint_optimum, "SEARCH_VISITS", 20_000)
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"metadata": {"gap_seconds": 600}, "data": _spells(60, 2)}))
    job = ["--trace", str(path), "--compute", "6h", "--deadline", "12h", "--interval",
           "30min", "--checkpoint", "1min"]
    assert cli("deadline", *job).returncode == 0
    many = cli("deadline", *job, "--starts", "40")
    assert many.returncode == 2
    assert "0.025 of it for each start" in many.stderr and "fewer starts" in many.stderr


def test_tick_is_refused_where_the_file_sets_it(cli, tmp_path):
    """--tick on a JSON or CSV availability trace was silently ignored."""
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"metadata": {"gap_seconds": 600}, "data": [1, 0] * 42}))
    done = cli("deadline", "--trace", str(path), "--compute", "2h", "--deadline", "4h",
               "--tick", "1min")
    assert done.returncode == 2 and done.stderr == (
        "spotmath deadline: error: --tick: a.json sets its own tick (600 s); --tick cuts "
        "instance traces and group-size logs into ticks\n")


# -------------------------------------------- the Can't Be Late traces as published, #54-1

def _skynomad(traces_folder):
    return traces_folder / "skynomad"


def test_the_probes_are_copied_unchanged_with_their_licence_and_notice(traces_folder):
    import hashlib

    folder = _skynomad(traces_folder)
    readme = (folder / "README.md").read_text()
    recorded = dict((name, digest) for digest, name in
                    re.findall(r"^([0-9a-f]{64})  (\S+)$", readme, flags=re.M))
    assert set(recorded) == {p.name for p in folder.iterdir()} - {"README.md"}
    assert len([name for name in recorded if name.endswith(".csv")]) == 9
    for name, digest in recorded.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
    assert "Apache License" in (folder / "LICENSE").read_text()
    assert "SkyNomad" in (folder / "NOTICE").read_text()


def test_each_zone_reads_as_published(traces_folder):
    """#54-1: the nine zones, read by spotmath and by Python's csv module on its own, agree
    row for row; their spot shares are the README's (to its 0.1%); each row is a tick of
    the median gap, 195 s, and the gaps, 194 to 280 s, are reported."""
    import csv
    import datetime

    folder = _skynomad(traces_folder)
    shares = {zone: float(share) / 100 for zone, share in re.findall(
        r"^\| `\S+` \| (\S+) \| ([\d.]+)% \|$", (folder / "README.md").read_text(), re.M)}
    assert len(shares) == 9
    for zone, share in shares.items():
        path = folder / f"{zone}_v100_1.csv"
        with path.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        values = np.array([int(row["availability"]) for row in rows])
        dates = [datetime.datetime.fromisoformat(row["date"]) for row in rows]
        gaps = np.diff([date.timestamp() for date in dates])
        trace = deadlines.read_availability(path)
        assert trace.own_tick and len(trace) == len(rows) == 20_158
        np.testing.assert_array_equal(trace.counts, values)
        assert trace.tick * 3600 == pytest.approx(float(np.median(gaps))) == 195.0
        assert trace.gaps == (gaps.min(), gaps.max()) == (194.0, 280.0)
        assert abs(trace.spot().mean() - share) <= 0.0005, zone
        assert dates[0] == datetime.datetime(2023, 2, 15, 22, 8, 16)


@pytest.mark.parametrize("text, message", [
    ("date,avail\n", "p.csv:1: expected the header 'date,availability'"),
    ("date,availability\n2023-02-15 22:08:16,1\n", "p.csv: needs at least two rows"),
    ("date,availability\n2023-02-15 22:08:16,1\n15/02/2023 22:11,1\n",
     "p.csv:3: date must be 'YYYY-MM-DD HH:MM:SS' (UTC), got '15/02/2023 22:11'"),
    ("date,availability\n2023-02-15 22:08:16,1\n2023-02-15 22:08:16,0\n",
     "p.csv:3: dates must increase"),
    ("date,availability\n2023-02-15 22:08:16,yes\n2023-02-15 22:11:31,0\n",
     "p.csv:2: availability must be a whole number >= 0 (1 = available, 0 = none), got "
     "'yes'"),
    ("date,availability\n2023-02-15 22:00:00,1\n2023-02-15 22:03:15,1\n"
     "2023-02-15 22:06:30,1\n2023-02-15 23:06:30,1\n",
     "p.csv:5: 3600 s after the row before, more than 2 ticks of 195 s (the median gap)"),
    ("date,availability\n2023-02-15 22:08:16,1,2\n", "p.csv:2: expected 2 fields"),
])
def test_a_malformed_probe_file_is_one_line_naming_its_line(tmp_path, text, message):
    path = tmp_path / "p.csv"
    path.write_text(text)
    with pytest.raises(InputError) as raised:
        deadlines.read_availability(path, "probes")
    assert str(raised.value).startswith(message), str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_command_runs_on_a_zone_and_says_its_gaps(cli, traces_folder):
    path = str(_skynomad(traces_folder) / "us-east-1f_v100_1.csv")
    job = ["--trace", path, "--compute", "48h", "--deadline", "60h", "--changeover", "0.2h",
           "--discount", "0.682"]
    done = cli("deadline", *job)
    assert done.returncode == 0, done.stderr
    assert ("us-east-1f_v100_1.csv: 20158 ticks of 195 s (45.5 d); probes 194 to 280 s "
            "apart, each a tick") in done.stdout
    same = cli("deadline", *job, "--format", "probes")
    assert same.stdout == done.stdout
    refused = cli("deadline", *job, "--tick", "10min")
    assert refused.returncode == 2 and "--tick: us-east-1f_v100_1.csv sets its own tick " \
        "(195 s)" in refused.stderr


def test_completed_spells_are_the_runs_inside_the_history(traces_folder):
    """Against itertools.groupby on random histories and on a published zone: every run
    but the first and the last, of the kind asked for; nothing for a history of one run."""
    import itertools

    from spotmath.traces.deadlines import completed_spells

    rng = np.random.default_rng(5)
    histories = [rng.random(n) < share for n, share in ((50, 0.5), (400, 0.9), (7, 0.2))]
    histories.append(read_availability(_skynomad(traces_folder) / "us-east-1f_v100_1.csv").spot())
    for history in histories:
        runs = [(value, len(list(group))) for value, group in itertools.groupby(history)]
        for kind in (True, False):
            expected = [length for value, length in runs[1:-1] if value == kind]
            assert completed_spells(history, available=kind).tolist() == expected
    assert completed_spells(np.ones(9, dtype=bool)).tolist() == []
    assert completed_spells(np.zeros(0, dtype=bool)).tolist() == []
