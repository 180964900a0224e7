"""The chapters as a reader reruns them: papermill with other parameters, bad parameters,
stored outputs that nbval can trust, and glued numbers checked against spotmath computed
here, independently of the notebook."""

import csv
import json
import math
import re
import subprocess
import sys
import types

import nbformat
import numpy as np
import papermill
import pytest
from scipy.optimize import minimize_scalar
from scipy.stats import norm

import spotmath as sm
import spotmath.traces.fitting
from spotmath.book.chapters import (
    ROOT,
    chapter_paths,
    declared_parameters,
    execute,
    glued,
    run_chapter,
)
from spotmath.book.house_style import hidden_computations, measure, stale_numbers
from spotmath.book.parameters import BOOK_PARAMETERS, CHAPTER_PARAMETERS, parameters_cell
from spotmath.inputs import InputError

CHAPTERS = chapter_paths()
NAMES = [path.stem for path in CHAPTERS]

# Two non-default parameter sets, as the issue asks: one extreme, one gentle.
PARAMETER_SETS = {
    "extreme": {"mtbf_hours": 0.5, "restart_minutes": 5, "checkpoint_minutes": 2,
                "spot_discount": 0.7, "cadences_minutes": [5, 20, 90],
                "gang_sizes": [1, 2, 3, 5], "restart_preemptible": False,
                "seed": 7, "jobs": 1500, "weibull_shapes": [0.7, 1.0],
                "bulk_fractions": [0.0, 1.0], "notice_seconds": 30,
                "instance_hours": 2, "model_billions": [1, 400], "lora_millions": 5,
                "write_gbytes_per_second": [0.5], "snapshot_gbytes_per_second": 10,
                "read_gbytes_per_second": 0.5, "capacity_wait_minutes": 30, "boot_minutes": 10,
                "warmup_minutes": 0, "reserved_discount": 0.7, "reserved_utilization": 0.5,
                "rendezvous_minutes": 5, "mtbf_grid_hours": [0.5, 2],
                "restart_grid_minutes": [1], "trace_files": ["g4dn-trace.csv"],
                "window_seconds": 10, "interval_minutes": 5,
                "pool_gang_sizes": [1, 3, 64], "notice_shares": [0.3, 1.0],
                "notice_write_seconds": 20, "availability_file": "a100x1-east1b.txt",
                "deadline_gang_size": 60, "compute_hours": 8, "deadline_hours": 9,
                "changeover_minutes": 3, "start_share": 0.5,
                "slack_ratios": [0.3, 0.85], "deadline_starts": 20,
                "two_level_gang_size": 8, "level1_seconds": 20, "level2_minutes": 10,
                "level1_restart_minutes": 1, "level2_restart_minutes": 15,
                "level1_loss": 0.8, "level1_group": 4, "example_billions": 405,
                "pool_gpus": 64, "request_gpus": 4, "requests_per_hour": 3,
                "request_hours": 1.5, "gang_gpus": [1, 9, 33, 64, 100],
                "startup_minutes": 0, "grace_seconds": 150, "start_target_seconds": 0},
    "gentle": {"mtbf_hours": 24, "restart_minutes": 15, "checkpoint_minutes": 0.5,
               "spot_discount": 0.5, "cadences_minutes": [30, 120, 480, 1440],
               "gang_sizes": [1, 16, 128, 512], "seed": 11, "jobs": 1500,
               "weibull_shapes": [1.0, 3.0], "bulk_fractions": [0.25],
               "notice_seconds": 300, "instance_hours": 720, "model_billions": [3],
               "lora_millions": 100, "write_gbytes_per_second": [5, 50, 200],
               "snapshot_gbytes_per_second": 100, "read_gbytes_per_second": 10,
               "capacity_wait_minutes": 0, "boot_minutes": 1, "warmup_minutes": 5,
               "reserved_discount": 0.3, "reserved_utilization": 1.0, "rendezvous_minutes": 0.2,
               "mtbf_grid_hours": [12, 48, 168], "restart_grid_minutes": [2, 10, 60],
               "trace_files": ["p3-trace.csv"], "window_seconds": 300,
               "interval_minutes": 120, "pool_gang_sizes": [2, 8, 24, 32],
               "notice_shares": [0.0, 0.99], "notice_write_seconds": 400,
               "deadline_gang_size": 8, "compute_hours": 12, "deadline_hours": 30,
               "changeover_minutes": 20, "start_share": 0.0,
               "slack_ratios": [0.2, 0.4, 0.6], "deadline_starts": 30,
               "two_level_gang_size": 64, "level1_seconds": 2, "level2_minutes": 1,
               "level1_restart_minutes": 0.5, "level2_restart_minutes": 3,
               "level1_loss": 0.05, "level1_group": 2, "example_billions": 8,
               "pool_gpus": 512, "request_gpus": 8, "requests_per_hour": 20,
               "request_hours": 1, "gang_gpus": [64, 256], "startup_minutes": 12,
               "grace_seconds": 5, "start_target_seconds": 60},
}


def book_defaults(parameters: dict) -> dict:
    """The book's default parameters, with ``parameters`` in their place."""
    return dict({name: default for name, (default, _) in BOOK_PARAMETERS.items()}, **parameters)


def expected_values(parameters: dict) -> dict:
    """The headline numbers for ``parameters``, computed here with spotmath and typed formulas."""
    p = book_defaults(parameters)
    rate = 1 / p["mtbf_hours"]
    restart, cost = p["restart_minutes"] / 60, p["checkpoint_minutes"] / 60
    discount, variant = p["spot_discount"], p["restart_preemptible"]
    cadences = [m / 60 for m in p["cadences_minutes"]]
    exact = sm.exact_interval(rate, cost)
    waste = sm.waste_fraction(rate, exact, cost, restart, restart_preemptible=variant)
    first_order_cadences = [rate * (t / 2 + restart) for t in cadences]  # λ(T/2 + R), typed
    return {
        "young_interval_min": math.sqrt(2 * cost / rate) * 60,  # √(2C/λ), typed
        "daly_interval_min": sm.daly_interval(rate, cost) * 60,
        "exact_interval_min": exact * 60,
        "waste_at_optimum": waste,
        "waste_first_order": cost / exact + rate * (exact / 2 + restart),
        "young_waste_first_order": math.sqrt(2 * rate * cost) + rate * restart,
        "effective_discount": 1 - (1 - discount) / (1 - waste),
        "break_even_interval_h": sm.break_even_interval(rate, cost, restart, discount,
                                                         restart_preemptible=variant),
        "break_even_interval_other_variant_h": sm.break_even_interval(
            rate, cost, restart, discount, restart_preemptible=not variant),
        "break_even_interval_first_order_h": sm.break_even_interval(
            rate, cost, restart, discount, model="first-order"),
        "break_even_interval_seed_h": max(2 * (discount / rate - restart), 0) or None,
        "max_gang_size": sm.max_gang_size(rate, cost, restart, discount,
                                          restart_preemptible=variant),
        "never_on_spot_gang_size": sm.never_on_spot_gang_size(rate, restart, discount,
                                                              restart_preemptible=variant),
        "max_gang_size_first_order": sm.max_gang_size(rate, cost, restart, discount,
                                                      model="first-order"),
        "never_on_spot_gang_size_first_order": math.ceil(discount / (rate * restart) - 1e-9),
        "lost_work_exact_min": [(1 / rate - t / math.expm1(rate * t)) * 60 for t in cadences],
        "waste_first_order_cadences": first_order_cadences,
        "waste_exact_cadences": [sm.waste_fraction(rate, t, 0, restart, restart_preemptible=True)
                                 for t in cadences],
        "relative_price_cadences": [(1 - discount) / (1 - w) if w < 1 else None
                                    for w in first_order_cadences],
        "verdict": "spot pays" if waste < discount else "use on-demand",
        "break_even": "never" if typed_optimal_waste(rate, cost, restart, variant) >= discount
        else "after",  # no notice: waste → 100% as T grows, so a longest interval exists
    }


# The published figures, read here with the csv module (not spotmath's reader).
with open(ROOT / "book" / "data" / "published_figures.csv", newline="") as _handle:
    FIGURES = {row["name"]: float(row["value"]) for row in csv.DictReader(_handle)}


def typed_optimal_waste(rate: float, cost: float, restart: float, preemptible: bool) -> float:
    """Waste at the optimum, by a numeric minimiser of E/T over typed segment times."""
    def segment(interval: float) -> float:
        if rate * (interval + cost + restart) > 700:
            return math.inf  # e^{…} overflows: far from the optimum
        if preemptible:  # Daly: E = e^{λR}(e^{λ(T+C)} − 1)/λ
            return math.exp(rate * restart) * math.expm1(rate * (interval + cost)) / rate
        return math.expm1(rate * (interval + cost)) * (1 / rate + restart)
    best = minimize_scalar(lambda x: segment(math.exp(x)) / math.exp(x),
                           bounds=(math.log(1e-6), math.log(1e4)), method="bounded",
                           options={"xatol": 1e-10})
    return 1 - 1 / best.fun


def check_calibration(values: dict, parameters: dict, bamboo, _typed=None) -> int:
    """The calibration chapter against typed formulas and the raw CSV."""
    p, f = book_defaults(parameters), FIGURES
    rate = 1 / p["mtbf_hours"]
    assert values["default_interrupted_share"] == pytest.approx(
        -math.expm1(-rate * p["instance_hours"]), rel=1e-12)
    llama_gpu_mtbf = f["llama3_window_days"] * 24 * f["llama3_gpus"] / f["llama3_unexpected"]
    rsc = {name: 1000 * f["meta_gpus_per_node"] * 24 / f[f"meta_{name}_failures_per_1000_node_days"]
           for name in ("rsc1", "rsc2")}
    assert values["per_gpu_mtbf_h"] == pytest.approx(
        {"Llama 3": llama_gpu_mtbf, "RSC-1": rsc["rsc1"], "RSC-2": rsc["rsc2"]}, rel=1e-12)
    assert values["llama3_job_mtbf_h"] == pytest.approx(
        f["llama3_window_days"] * 24 / f["llama3_unexpected"], rel=1e-12)
    assert values["llama3_pred_rsc1_h"] == pytest.approx(rsc["rsc1"] / f["llama3_gpus"], rel=1e-12)
    assert values["llama3_pred_rsc2_h"] == pytest.approx(rsc["rsc2"] / f["llama3_gpus"], rel=1e-12)
    # the prose reads the measured jobs against these predictions
    assert values["llama3_pred_rsc1_h"] < values["llama3_job_mtbf_h"] < values["llama3_pred_rsc2_h"]
    assert values["meta_measured_ratio"] > 1
    assert values["meta_measured_ratio"] == pytest.approx(
        rsc["rsc1"] / f["meta_measured_job_gpus"] / f["meta_measured_mttf_hours"], rel=1e-12)
    per_parameter = f["zero_weight_bytes"] + f["zero_optimizer_bytes"]
    assert values["bytes_per_parameter"] == per_parameter
    counts = [1e9 * b for b in p["model_billions"]] + [1e6 * p["lora_millions"]]
    costs = list(values["checkpoint_costs"].values())
    assert len(costs) == len(counts)
    for count, got in zip(counts, costs):
        state = count * per_parameter
        assert got["state_gb"] == pytest.approx(state / 1e9, rel=1e-12)
        assert got["blocking_h"] == pytest.approx(
            [state / (1e9 * b) / 3600 for b in p["write_gbytes_per_second"]], rel=1e-12)
        assert got["snapshot_h"] == pytest.approx(
            state / (1e9 * p["snapshot_gbytes_per_second"]) / 3600, rel=1e-12)
    fixed = (p["capacity_wait_minutes"] + p["boot_minutes"] + p["warmup_minutes"]) / 60
    restarts = list(values["restarts"].values())
    for count, got in zip(counts[:-1], restarts):
        load = count * per_parameter / (1e9 * p["read_gbytes_per_second"]) / 3600
        assert got["restart_h"] == pytest.approx(fixed + load, rel=1e-12)
        assert got["billed_h"] == pytest.approx(fixed + load - p["capacity_wait_minutes"] / 60,
                                                rel=1e-9, abs=1e-12)
    # the killed run: what it committed by its last kill, read here from the data file,
    # and the replay within one training step of it
    gpu = json.loads((ROOT / "book" / "data" / "gpu" / "checkpoint_costs_h200.json")
                     .read_text())
    run = gpu["killed_run_125M"]
    last_kill = run["lives"][-2]["killed_s"]
    assert values["committed_s"] == max(c["compute_held_s"] for c in run["commits"]
                                        if c["at_s"] <= last_kill)
    assert abs(values["replayed_s"] - values["committed_s"]) <= \
        gpu["hf_trainer_125M"]["step_s_median"]
    restart = sum(run["restart_s"]) / len(run["restart_s"])
    assert values["short_lives"] == sum(life["killed_s"] - life["launched_s"] < restart
                                        for life in run["lives"])
    # the Trainer's default against the callback, replayed on p3 by the typed replay
    big = gpu["hf_trainer_1.1B"]
    write = float(np.median(big["save_return_s"])) / 3600
    restart = big["resume_to_first_step_s"] / 3600
    lifetimes, preempted = bamboo.raw_bamboo("p3-trace.csv")
    complete = lifetimes[preempted]

    def typed_replay(t):  # T·⌊(L − R)/(T + C)⌋ per complete lifetime
        useful = t * np.floor(np.clip(complete - restart, 0, None) / (t + write) + 1e-9)
        return 1 - useful.sum() / complete.sum()

    pool_rate = preempted.sum() / lifetimes.sum()
    found = minimize_scalar(lambda t: math.expm1(pool_rate * (t + write)) / t,
                            bounds=(write, 10 / pool_rate), method="bounded",
                            options={"xatol": 1e-12})
    assert values["callback_interval_min"] / 60 == pytest.approx(found.x, rel=1e-6)
    chosen = values["callback_interval_min"] / 60
    assert values["callback_waste"] == pytest.approx(typed_replay(chosen), rel=1e-9)
    default = 500 * big["step_s_median"] / 3600  # Transformers' save_steps
    assert values["default_waste"] == pytest.approx(typed_replay(default), rel=1e-9)
    assert values["callback_waste"] < values["default_waste"]
    # the real run log, read as JSON here
    log = json.loads((ROOT / "book" / "data" / "training" / "run_log_tiny_gpt2.json")
                     .read_text())
    ends = [life["end"] for life in log["lives"]]
    seconds = sum(life["last_s"] - life["start_s"] for life in log["lives"])
    assert (values["run_lives"], values["run_kills"]) == (len(ends), ends.count("preempted"))
    assert values["run_rate_per_min"] == pytest.approx(60 * ends.count("preempted") / seconds)
    return 20


def check_fleet(values: dict, parameters: dict, bamboo, _typed=None) -> int:
    """The fleet chapter: prices from a numeric optimum of typed segment times."""
    p, f = book_defaults(parameters), FIGURES
    hardware = f["llama3_unexpected"] * f["llama3_gpus_per_server"] / (
        f["llama3_gpus"] * f["llama3_window_days"] * 24)
    assert values["hardware_mtbf_node_h"] == pytest.approx(1 / hardware, rel=1e-12)
    rate, discount = 1 / p["mtbf_hours"], p["spot_discount"]
    cost, restart = p["checkpoint_minutes"] / 60, p["restart_minutes"] / 60
    variant = p["restart_preemptible"]

    def prices(nodes, cost_=cost, restart_=restart, spot_rate=rate):
        spot = typed_optimal_waste(nodes * (spot_rate + hardware), cost_, restart_, variant)
        own = typed_optimal_waste(nodes * hardware, cost_, restart_, variant)
        return (1 - discount) / (1 - spot), 1 / (1 - own), own

    spot, on_demand, own = prices(1)
    assert values["spot_price_one_node"] == pytest.approx(spot, rel=1e-6)
    assert values["on_demand_price_one_node"] == pytest.approx(on_demand, rel=1e-6)
    assert values["reserved_price_one_node"] == pytest.approx(
        (1 - p["reserved_discount"]) / (p["reserved_utilization"] * (1 - own)), rel=1e-6)
    assert 0 <= values["plan_saving"] < 1
    per_parameter = f["zero_weight_bytes"] + f["zero_optimizer_bytes"]
    checked = 0
    for key, largest in values["decision"].items():
        billions, bandwidth, mtbf, restart_min = (float(re.match(r"[\d.e+-]+", part).group())
                                                  for part in key.split("/"))
        c = billions * 1e9 * per_parameter / (bandwidth * 1e9) / 3600
        grid = dict(cost_=c, restart_=restart_min / 60, spot_rate=1 / mtbf)
        if 0 < largest < 2 ** 16:  # spot pays at `largest` nodes, not one more
            s_price, o_price, _ = prices(largest, **grid)
            assert s_price < o_price * (1 + 1e-9), key
            s_price, o_price, _ = prices(largest + 1, **grid)
            assert s_price > o_price * (1 - 1e-9), key
        elif largest == 0:
            s_price, o_price, _ = prices(1, **grid)
            assert s_price > o_price * (1 - 1e-9), key
        checked += 1
    assert checked == len(p["model_billions"]) * len(p["write_gbytes_per_second"]) * len(
        p["mtbf_grid_hours"]) * len(p["restart_grid_minutes"])
    both, pause = rate + hardware, p["rendezvous_minutes"] / 60
    elastic_ok = [n for n in p["gang_sizes"]
                  if both * (2 * n * pause + restart) < 1
                  and (1 - discount) / (1 - both * (2 * n * pause + restart)) < prices(n)[1]]
    assert values["largest_elastic_on_spot"] == max(elastic_ok, default=0)
    largest = max(p["gang_sizes"])
    waste = typed_optimal_waste(largest * rate, cost, restart, variant)
    assert values["largest_gang_slowdown"] == pytest.approx(1 / (1 - waste), rel=1e-6)
    return 8


def check_real_preemptions(values: dict, parameters: dict, bamboo, _typed=None) -> int:
    """The real preemptions chapter against the raw files, SciPy and typed formulas."""

    p = book_defaults(parameters)
    cost, restart = p["checkpoint_minutes"] / 60, p["restart_minutes"] / 60
    interval = p["interval_minutes"] / 60
    numbers = values["trace_numbers"]
    assert len(numbers) == len(p["trace_files"])
    for name, got in zip(p["trace_files"], numbers):
        lifetimes, preempted = bamboo.raw_bamboo(name)
        rate = preempted.sum() / lifetimes.sum()
        fit, chosen = got["fit"], got["replay"]
        assert fit["preemptions"] == preempted.sum()
        assert fit["preemption_rate"] == pytest.approx(rate, rel=1e-12)
        shape, scale = bamboo.scipy_weibull(lifetimes, preempted)
        assert fit["weibull_shape"] == pytest.approx(shape, rel=1e-4)
        assert fit["weibull_scale_h"] == pytest.approx(scale, rel=1e-4)
        complete = lifetimes[preempted]

        def typed_replay(t):  # T·⌊(L − R)/(T + C)⌋ per lifetime, typed here
            useful = t * np.floor(np.clip(complete - restart, 0, None) / (t + cost) + 1e-9)
            return 1 - useful.sum() / complete.sum()

        def daly_waste(t):  # 1 − λT e^{−λR}/(e^{λ(T+C)} − 1), Daly's segment time, typed
            return 1 - rate * t * math.exp(-rate * restart) / math.expm1(rate * (t + cost))

        assert chosen["interval_h"] == pytest.approx(interval, rel=1e-12)
        assert chosen["waste"] == pytest.approx(typed_replay(interval), rel=1e-12)
        assert chosen["poisson_waste"] == pytest.approx(daly_waste(interval), rel=1e-9)
        optimum = got["optimum"]["interval_h"]  # the exact optimum: a minimiser of E/T
        found = minimize_scalar(lambda t: math.expm1(rate * (t + cost)) / t,
                                bounds=(optimum / 10, optimum * 10), method="bounded",
                                options={"xatol": 1e-12})
        assert optimum == pytest.approx(found.x, rel=1e-6)
        assert got["optimum"]["waste"] == pytest.approx(typed_replay(optimum), rel=1e-12)
        assert got["best_waste"] == pytest.approx(typed_replay(got["best_interval_h"]),
                                                  rel=1e-12)
        assert got["best_waste"] <= min(chosen["waste"], got["optimum"]["waste"])
        shares = fit["co_preemption_share"], fit["co_preemption_share_independent"]
        assert all(0 <= share <= 1 for share in shares)
    by_file = {n["fit"]["trace"]: n for n in numbers}  # a gang's replay names its file
    largest = {label: (by_model, by_replay) for label, by_model, by_replay in
               values["largest_paying"]}
    for gang in (run for pool in values["gang_numbers"] for run in pool["runs"]):
        assert gang["gang_size"] in p["pool_gang_sizes"]
        pool = by_file[gang["trace"]]
        optimum = float(sm.exact_interval(gang["gang_size"] * pool["fit"]["preemption_rate"],
                                          cost))
        assert gang["interval_h"] == pytest.approx(optimum, rel=1e-12)
        if gang["waste"] < p["spot_discount"]:  # pays replayed: the largest is no smaller
            assert largest[pool["trace"]][1] >= gang["gang_size"]
    return 6


def typed_full_waste(rate, interval, cost, restart, share, write, persist, preemptible):
    """The exact waste with a notice and asynchronous writes, typed from the rules.

    Useful share U/(K(e^{λ(T+C)} − 1)): K = 1/λ + R̄, U = aT + qe^{λC}((e^{λ(T−C_n)} − 1)/λ
    − (T − C_n)) for T ≥ C_n, a = q + (1 − q)e^{−λP}.
    """
    rbar = math.expm1(rate * restart) / rate if preemptible else restart
    if rate * (interval + cost) > 600:
        return typed_floor(rate, restart, share, write, preemptible)
    kept = (share + (1 - share) * math.exp(-rate * persist)) * interval
    if interval >= write:
        kept += share * math.exp(rate * cost) * (
            math.expm1(rate * (interval - write)) / rate - (interval - write))
    return 1 - kept / ((1 / rate + rbar) * math.expm1(rate * (interval + cost)))


def typed_floor(rate, restart, share, write, preemptible):
    """1 − qe^{−λC_n}/(1 + λR̄): no periodic checkpoints at all."""
    rbar = math.expm1(rate * restart) / rate if preemptible else restart
    return 1 - share * math.exp(-rate * write) / (1 + rate * rbar)


def typed_full_optimum(rate, cost, share, write, persist):
    """(T*, waste at R = 0) by a log grid and a bounded minimiser; T* = inf if the floor
    is no worse."""
    def waste(x):
        return typed_full_waste(rate, math.exp(x), cost, 0.0, share, write, persist, True)
    grid = np.linspace(math.log(max(persist, 1e-5 / rate)), math.log(250 / rate), 4001)
    values = [waste(x) for x in grid]
    i = int(np.argmin(values))
    found = minimize_scalar(waste, bounds=(grid[max(i - 1, 0)], grid[min(i + 1, 4000)]),
                            method="bounded", options={"xatol": 1e-10})
    if typed_floor(rate, 0.0, share, write, True) <= found.fun + 1e-12:
        return math.inf, typed_floor(rate, 0.0, share, write, True)
    return math.exp(found.x), found.fun


def check_notice(values: dict, parameters: dict, bamboo, _typed=None) -> int:
    """The notice chapter against the rules typed here and a numeric minimiser."""
    p = book_defaults(parameters)
    rate, restart = 1 / p["mtbf_hours"], p["restart_minutes"] / 60
    cost = p["checkpoint_minutes"] / 60
    notice, write = p["notice_seconds"] / 3600, p["notice_write_seconds"] / 3600
    variant = p["restart_preemptible"]
    for row, share in zip(values["share_rows"], p["notice_shares"]):
        best, _ = typed_full_optimum(rate, cost, share, write, 0.0)
        if math.isinf(best):
            assert row["exact"] is None
            want = typed_floor(rate, restart, share, write, variant)
        else:
            assert row["exact"] == pytest.approx(best, rel=1e-5)
            want = typed_full_waste(rate, row["exact"], cost, restart, share, write, 0.0,
                                    variant)
        assert row["waste"] == pytest.approx(want, rel=1e-9)
    assert values["floor_perfect"] == pytest.approx(
        typed_floor(rate, restart, 1.0, write, variant), rel=1e-12)
    assert values["waste_no_notice"] == pytest.approx(
        typed_optimal_waste(rate, cost, restart, variant), rel=1e-7)
    q_star = values["q_star"]  # below it a periodic checkpoint pays, above it none does
    assert math.isfinite(typed_full_optimum(rate, cost, q_star - 0.01, write, 0.0)[0])
    if q_star < 0.99:
        assert math.isinf(typed_full_optimum(rate, cost, q_star + 0.01, write, 0.0)[0])
    per_parameter = FIGURES["zero_weight_bytes"] + FIGURES["zero_optimizer_bytes"]
    slowest = min(p["write_gbytes_per_second"]) * 1e9
    for row, billions in zip(values["async_numbers"], p["model_billions"]):
        state = billions * 1e9 * per_parameter
        blocking = state / slowest / 3600
        snapshot = state / p["snapshot_gbytes_per_second"] / 3.6e12
        assert row["state_gb"] == pytest.approx(state / 1e9, rel=1e-12)
        assert row["blocking"]["checkpoint_cost_h"] == pytest.approx(blocking, rel=1e-12)
        assert row["blocking"]["waste_exact"] == pytest.approx(
            typed_optimal_waste(rate, blocking, restart, variant), rel=1e-6)
        if blocking >= 1 / rate:
            assert row["async"] is None
            continue
        interval = max(typed_full_optimum(rate, snapshot, 0.0, 0.0, 0.0)[0], blocking)
        found = row["async"]["recommended_interval_h"]
        assert found == pytest.approx(interval, rel=1e-5)
        assert row["async"]["waste_exact"] == pytest.approx(typed_full_waste(
            rate, found, snapshot, restart, 0.0, 0.0, blocking, variant), rel=1e-9)
        column = values["decision_numbers"][f"{billions:.3g}B"]
        for cell, share in zip(column, p["notice_shares"]):
            fits = snapshot + blocking <= notice
            assert cell["notice_effective"] == fits
            q = share if fits else 0.0
            best, _ = typed_full_optimum(rate, snapshot, q, snapshot + blocking, blocking)
            every = cell["recommended_interval_h"]
            if math.isinf(best):
                assert every is None
                want = typed_floor(rate, restart, q, snapshot + blocking, variant)
            else:
                assert every == pytest.approx(max(best, blocking), rel=1e-5)
                want = typed_full_waste(rate, every, snapshot, restart, q,
                                        snapshot + blocking, blocking, variant)
            assert cell["waste_exact"] == pytest.approx(want, rel=1e-9)
    checks = values["simulated_checks"]
    for check in checks:
        q = check["share"] if write <= notice else 0.0
        interval = values["simulated_interval_min"] / 60
        assert check["exact"] == pytest.approx(typed_full_waste(
            rate, interval, cost, restart, q, write, check["persist_h"], variant), rel=1e-9)
        assert abs(check["waste"] - check["exact"]) < norm.isf(0.001 / (2 * len(checks))) \
            * check["error"]
    return 5


def check_deadlines(values: dict, parameters: dict, bamboo, typed) -> int:
    """The deadlines chapter: on-demand's cost and uniform progress's retyped, the
    optimum below every policy, the Markov fit counted here."""
    from spotmath.book.parameters import TRACES
    from spotmath.traces.deadlines import read_availability

    p = book_defaults(parameters)
    trace = read_availability(TRACES / p["availability_file"])
    spot = trace.spot(p["deadline_gang_size"])
    tick, compute, deadline = trace.tick, p["compute_hours"], p["deadline_hours"]
    d, discount = p["changeover_minutes"] / 60, p["spot_discount"]
    costs = values["costs"]
    # on-demand from the start: ⌈(J + d)/h⌉ whole ticks at price 1, typed
    assert costs["on-demand"] == pytest.approx(math.ceil((compute + d) / tick - 1e-9) * tick)
    start = int(p["start_share"] * len(trace))
    _, typed_cost = typed.uniform_progress(spot[start:], tick, compute, deadline, d, discount)
    assert costs["uniform-progress"] == pytest.approx(typed_cost, rel=1e-12)
    assert all(costs["omniscient"] <= cost + 1e-9 for cost in costs.values())
    # the chain fitted to the whole trace: transitions counted, half a count each way
    before, after = spot[:-1], spot[1:]

    def rounded(q):  # the distance from 1 to two significant digits
        return 1 - round(1 - q, 1 - math.floor(math.log10(1 - q)))

    stay_up = ((before & after).sum() + 0.5) / (before.sum() + 1)
    stay_down = ((~before & ~after).sum() + 0.5) / ((~before).sum() + 1)
    assert values["stay_up"] == pytest.approx(rounded(stay_up))
    assert values["stay_down"] == pytest.approx(rounded(stay_down))
    shares = values["slack_shares"]
    assert shares["on-demand"] == pytest.approx([1.0] * len(p["slack_ratios"]))
    for i in range(len(p["slack_ratios"])):
        assert all(shares["omniscient"][i] <= row[i] + 1e-9 for row in shares.values())
    # the checkpoint interval: a minimiser of the exact model's E/T at the glued rate
    rate, write = values["spell_end_rate"], p["checkpoint_minutes"] / 60
    optimum = values["auto_interval_min"] / 60
    found = minimize_scalar(lambda t: math.expm1(rate * (t + write)) / t,
                            bounds=(optimum / 10, optimum * 10), method="bounded",
                            options={"xatol": 1e-12})
    assert optimum == pytest.approx(found.x, rel=1e-6)
    rows = values["checkpoint_shares"]
    assert len(rows) == 5
    for row in rows:  # the optimum in checkpoint mode below every online policy
        if row["omniscient"] is not None:
            assert row["omniscient"] <= min(row.values()) + 1e-9
    best = values["checkpoint_at_best"]  # the table's: the optimal interval's
    if rows[2]["omniscient"] is not None:
        assert best["omniscient"]["cost_share"] == rows[2]["omniscient"]
        gap = rows[2]["greedy"] - rows[2]["omniscient"]
        for name in ("uniform-progress", "model"):
            if gap >= 0.01:  # the share of greedy's excess closed, from the cost shares
                closed = (rows[2]["greedy"] - rows[2][name]) / gap
                assert best[name]["gap_closed"] == pytest.approx(closed, rel=1e-9)
    # the paper's nine zones, as published: each zone's share of probes with spot, read
    # here with the csv module, and the paper's factor of two as a share of the gap
    zone_shares = values["zone_spot_shares"]
    files = sorted((TRACES / "skynomad").glob("*.csv"))
    assert len(files) == len(zone_shares) == 9
    for path in files:
        with path.open(newline="") as handle:
            probes = [row["availability"] for row in csv.DictReader(handle)]
        share = probes.count("1") / len(probes)
        assert zone_shares[path.name.split("_")[0]] == pytest.approx(share, rel=1e-12)
    assert values["cbl_gap_share"] == pytest.approx(0.5)
    # the Bamboo pools: no policy closes more than the whole gap (the omniscient schedule
    # is a lower bound on every policy's cost, start by start)
    for pool in ("p3-trace.csv", "g4dn-trace.csv"):
        closed = values["honest"][pool]
        assert closed is None or all(share is None or share <= 1 + 1e-9
                                     for share in closed.values()), pool
    return 8


def check_two_level(values: dict, parameters: dict, bamboo, typed) -> int:
    """The two-level chapter: the pattern against a brute-force search over n and T on a
    Markov-chain solve typed here, durable writes alone against a numeric minimiser, the
    state from the published bytes per parameter, a copy on one node lost every time, and
    two levels with asynchronous durable writes against a bounded search."""
    p = book_defaults(parameters)
    nodes, variant = p["two_level_gang_size"], p["restart_preemptible"]
    rate = nodes / p["mtbf_hours"]
    fast, durable = p["level1_seconds"] / 3600, p["level2_minutes"] / 60
    fast_restart, restart = p["level1_restart_minutes"] / 60, p["level2_restart_minutes"] / 60
    loss = p["level1_loss"]
    assert values["level2_only_waste"] == pytest.approx(
        typed_optimal_waste(rate, durable, restart, variant), abs=1e-9)
    pattern = values["two_level_pattern"]
    every, best = pattern["level2_every"], pattern["interval"]
    assert values["two_level_waste"] == pattern["waste"]
    assert values["two_level_waste"] == pytest.approx(1 - every * best / typed.two_level_period(
        rate, best, every, fast, durable, fast_restart, restart, loss, variant), rel=1e-9)
    for n in {1, max(every - 1, 1), every + 1, 2 * every}:  # no other n does better
        found = minimize_scalar(
            lambda x: typed.two_level_period(rate, math.exp(x), n, fast, durable,
                                             fast_restart, restart, loss, variant)
            / (n * math.exp(x)), bounds=(math.log(best / 50), math.log(best * 50)),
            method="bounded", options={"xatol": 1e-10})
        assert 1 - 1 / found.fun >= values["two_level_waste"] - 1e-9, n
    assert values["two_level_waste"] <= values["level2_only_waste"] + 1e-12
    per_parameter = sum(FIGURES[name] for name in (
        "zero_weight_bytes", "zero_gradient_bytes", "zero_optimizer_bytes"))
    assert values["state_tb"] == pytest.approx(p["example_billions"] * per_parameter / 1e3)
    if variant and values["two_level_async_waste"] is not None:
        # the durable write a snapshot as quick as a fast one, uploaded in C: the best
        # n and T ≥ P/n by a bounded search on the typed period, times e^{pλP}
        persist, ratios = durable, []
        for n in range(1, 40):
            found = minimize_scalar(
                lambda x: typed.two_level_period(rate, math.exp(x), n, fast, fast,
                                                 fast_restart, restart, loss, variant)
                / (n * math.exp(x)), bounds=(math.log(persist / n), math.log(50 / rate)),
                method="bounded", options={"xatol": 1e-12})
            ratios.append(min(found.fun, typed.two_level_period(
                rate, persist / n, n, fast, fast, fast_restart, restart, loss, variant)
                / persist))
        assert values["two_level_async_waste"] == pytest.approx(
            1 - 1 / (min(ratios) * math.exp(loss * rate * persist)), abs=1e-7)
    for fit in values["pool_fits"]:
        assert fit["events"] > 0 and fit["rate"] > 0
        if fit["group"] == 1:  # a copy on the node's own disk: every event takes one
            assert fit["loss"] == 1.0
        assert fit["replayed"] is None or 0 <= fit["replayed"] <= 1
    return 6


def typed_kept(G, alpha, h, g, N, interval, cost, startup, grace):
    """Compute kept per hour by a gang in a pool, from the chain built here: the up time's
    survival by matrix exponentials summed cycle by cycle (no closed form), the mean up
    time from the inverse sub-generator, the wait as (1 − U)/(Uλ) from the stationary
    law."""
    from scipy.integrate import quad
    from scipy.linalg import expm, null_space

    top, star = G // g, (G - N) // g
    levels = np.arange(top + 1)
    Q = np.zeros((top + 1, top + 1))
    Q[levels[:-1], levels[:-1] + 1] = alpha
    Q[levels[1:], levels[1:] - 1] = levels[1:] / h
    Q -= np.diag(Q.sum(axis=1))
    pi = null_space(Q.T)[:, 0]
    pi /= pi.sum()
    up = pi[:star + 1].sum()
    sub = Q[:star + 1, :star + 1]
    start = np.zeros(star + 1)
    start[-1] = 1.0
    mean = start @ np.linalg.solve(-sub, np.ones(star + 1))
    wait = (1 - up) / (alpha * pi[star])

    def survival(t):
        return float(start @ expm(sub * max(t, 0.0)) @ np.ones(star + 1))

    cycle, kept, j = interval + cost, 0.0, 0
    while True:
        if grace > 0 and grace >= cost:
            piece = quad(survival, startup + j * cycle, startup + j * cycle + interval)[0]
        else:
            piece = interval * survival(startup + (j + 1) * cycle - grace)
        kept, j = kept + piece, j + 1
        if piece < 1e-12 * max(kept, 1e-300) or j > 200_000:
            return kept / (mean + wait), mean


def check_cluster(values: dict, parameters: dict, bamboo, _typed=None) -> int:
    """The shared-pool chapter: Erlang's B from the Poisson law, the exact law's best waste
    by a minimiser of the cycle-by-cycle kept share, the two pools' sizing, the limits of
    the gangs that pay."""
    from scipy.stats import poisson

    p = book_defaults(parameters)
    G, g, alpha, h = p["pool_gpus"], p["request_gpus"], p["requests_per_hour"], \
        p["request_hours"]
    cost, startup = p["checkpoint_minutes"] / 60, p["startup_minutes"] / 60
    grace, load = p["grace_seconds"] / 3600, alpha * h

    def erlang_b(servers):  # B = P(X = c)/P(X ≤ c), X Poisson(ρ)
        return poisson.pmf(servers, load) / poisson.cdf(servers, load)

    assert values["load"] == pytest.approx(load, rel=1e-12)
    assert values["slots"] == G // g
    assert values["turned_away"] == pytest.approx(erlang_b(G // g), rel=1e-9)
    N = values["example_gpus"]
    if grace < cost:  # the exact law's best waste: a minimiser of the typed kept share
        best = minimize_scalar(
            lambda x: -typed_kept(G, alpha, h, g, N, math.exp(x), cost, startup, grace)[0],
            bounds=(math.log(cost / 50), math.log(100.0)), method="bounded",
            options={"xatol": 1e-6})
        assert values["exact_waste"] == pytest.approx(1 + best.fun, abs=1e-6)
    largest = values["largest_paying"]
    if largest != "no gang" and int(largest.split()[0]) < G and grace < cost:
        size = int(largest.split()[0])  # pays at its rate-model interval, and more
        interval = sm.exact_interval(1 / typed_kept(G, alpha, h, g, size, 1.0, cost,
                                                    startup, grace)[1], cost)
        kept = typed_kept(G, alpha, h, g, size, float(interval), cost, startup, grace)[0]
        assert 1 - kept < p["spot_discount"] + 0.02  # at an interval near, not at, its best
    if "pool_choice" in values:  # one pool or two: each design's fields
        two, kept = values["pool_choice"]["two"], values["pool_choice"]["one_kept"]
        servers = two["inference_gpus"] // g
        assert erlang_b(servers) <= 0.01 < erlang_b(servers - 1) if servers > 0 else True
        n = values["pool_gang"]
        # two pools' gangs are never preempted, but fail at n times one GPU's rate:
        # the exact renewal model's best, typed here and minimised numerically
        phi = n / p["failure_mtbf_hours"]

        def failing_waste(t):
            period = math.exp(phi * startup) * math.expm1(phi * (t + cost)) / phi
            return 1 - t / period

        best = minimize_scalar(failing_waste, bounds=(cost / 100, 1e4 * cost),
                               method="bounded", options={"xatol": 1e-9})
        assert two["training_per_day"] == pytest.approx(
            24 * n * ((G - g * servers) // n) * (1 - best.fun), rel=1e-7)
        assert kept["headroom"] % g == 0
        assert 0 < kept["training_per_day"] <= 24 * G
    return 4


CHAPTER_CHECKS = {"calibration": check_calibration, "fleet": check_fleet,
                  "real_preemptions": check_real_preemptions, "notice": check_notice,
                  "deadlines": check_deadlines, "two_level": check_two_level,
                  "cluster": check_cluster}


def check_simulation(values: dict, parameters: dict, bamboo) -> int:
    """The simulation chapter's findings, against the exact model computed here."""
    p = book_defaults(parameters)
    points = values["poisson_points"]
    # Bonferroni: the chance that any of the points strays further is 0.1%.
    assert values["max_abs_z"] < norm.isf(0.001 / (2 * points))
    assert values["poisson_within_3se"] >= points - 3
    rate, cost = 1 / p["mtbf_hours"], p["checkpoint_minutes"] / 60
    restart, discount = p["restart_minutes"] / 60, p["spot_discount"]
    one_node_pays = sm.optimal_waste(rate, cost, restart) < discount
    for rho, largest in zip(p["bulk_fractions"], values["largest_paying_gang_by_bulk_fraction"]):
        if rho == 1 and one_node_pays:  # every reclaim takes the whole gang: rate λ for all
            assert largest == max(p["gang_sizes"])
    assert values["notice_saves"] == (cost <= p["notice_seconds"] / 3600)
    return 3


#: The plan's fields under the headline names the other chapters glue them as.
PLAN_FIELDS = {"waste_at_optimum": "waste_exact", "waste_first_order": "waste_first_order",
               "effective_discount": "effective_discount",
               "break_even_interval_h": "break_even_interval_h", "break_even": "break_even",
               "max_gang_size": "max_gang_size",
               "never_on_spot_gang_size": "never_on_spot_gang_size", "verdict": "verdict"}


def assert_matches(values: dict, expected: dict, chapter: str) -> int:
    """Every glued headline number equals the independent value; returns how many compared.
    A chapter that glues its whole plan (as ``spotmath plan --json`` gives it) is read by
    the headline names, in minutes where they say so."""
    if "plan" in values:
        plan = values["plan"]
        values = {**{name: plan[field] for name, field in PLAN_FIELDS.items()},
                  **{f"{name}_interval_min": plan[f"{name}_interval_h"] * 60
                     for name in ("young", "daly", "exact")}, **values}
    compared = 0
    for name, value in values.items():
        if name not in expected:
            continue
        want = expected[name]
        if isinstance(want, list):
            assert len(value) == len(want), (chapter, name)
            for got, ref in zip(value, want):
                assert got == pytest.approx(ref, rel=1e-9) if ref is not None else got is None
        elif isinstance(want, float):
            assert value == pytest.approx(want, rel=1e-9), (chapter, name, value, want)
        else:
            assert value == want, (chapter, name, value, want)
        compared += 1
    return compared


@pytest.mark.parametrize("chapter", CHAPTERS, ids=NAMES)
def test_stored_outputs_match_the_defaults(chapter, bamboo, uniform_progress_typed,
                                           two_level_typed):
    """The committed notebook's glued numbers are the defaults' (and nbval reruns them)."""
    values = glued(chapter)
    compared = assert_matches(values, expected_values({}), chapter.stem)
    if chapter.stem == "simulation":
        compared += check_simulation(values, {}, bamboo)
    if chapter.stem in CHAPTER_CHECKS:
        typed = types.SimpleNamespace(uniform_progress=uniform_progress_typed,
                                      two_level_period=two_level_typed)
        compared += CHAPTER_CHECKS[chapter.stem](values, {}, bamboo, typed)
    assert compared >= 1


@pytest.mark.parametrize("label", sorted(PARAMETER_SETS))
@pytest.mark.parametrize("chapter", CHAPTERS, ids=NAMES)
def test_papermill_rerun_with_other_parameters(chapter, label, tmp_path, bamboo, chapter_run,
                                                uniform_progress_typed, two_level_typed):
    declared = declared_parameters(chapter)
    parameters = {k: v for k, v in PARAMETER_SETS[label].items() if k in declared}
    values = chapter_run(chapter, tmp_path / chapter.name, parameters)
    compared = assert_matches(values, expected_values(parameters), chapter.stem)
    if chapter.stem == "simulation":
        compared += check_simulation(values, parameters, bamboo)
    if chapter.stem in CHAPTER_CHECKS:
        typed = types.SimpleNamespace(uniform_progress=uniform_progress_typed,
                                      two_level_period=two_level_typed)
        compared += CHAPTER_CHECKS[chapter.stem](values, parameters, bamboo, typed)
    assert compared >= 1
    output = nbformat.read(tmp_path / chapter.name, as_version=4)
    errors = [o for c in output.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


@pytest.mark.parametrize("name, value, fragment", [
    ("mtbf_hours", -4.0, "mtbf_hours: must be a duration from 0.1 to 100000 hours"),
    ("spot_discount", 1.5, "spot_discount: must be a fraction from 0.01 to 0.99"),
    ("restart_minutes", "ten minutes", "restart_minutes: not a duration: 'ten minutes'"),
    ("mtbf_hours", "__import__('os').getcwd()", "mtbf_hours: not a duration"),
    ("mtbf_hour", 1.5, "mtbf_hour: not a parameter of this chapter (did you mean mtbf_hours?)"),
])
def test_bad_parameter_stops_the_notebook_with_a_clear_message(name, value, fragment, tmp_path):
    """Executed as papermill would for a user: the cell after `parameters` raises InputError,
    shown in the notebook as its one line."""
    with pytest.raises(papermill.PapermillExecutionError) as info:
        execute(CHAPTERS[0], tmp_path / "out.ipynb", {name: value}, CHAPTERS[0].parent)
    assert info.value.ename == "InputError"
    assert info.value.evalue.startswith(fragment)
    assert info.value.traceback == [f"InputError: {info.value.evalue}"]


def test_the_papermill_command_line_reads_lists_and_names_a_typo(tmp_path):
    """`papermill -p` hands a list over as text: it is read as YAML, as `-y` would; a name
    the chapter does not declare, or a bad value, ends the run with the chapter's one line
    as the last line papermill prints (above it, papermill's own traceback)."""
    papermill_command = [sys.executable, "-m", "papermill", "--no-progress-bar",
                         "--log-level", "ERROR"]
    chapter = ROOT / "book" / "gangs.ipynb"
    good = subprocess.run(papermill_command + [str(chapter), str(tmp_path / "a.ipynb"),
                                               "-p", "gang_sizes", "[1, 8, 32]"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert good.returncode == 0, good.stderr[-2000:]
    assert glued(tmp_path / "a.ipynb")["max_gang_size"] == expected_values({})["max_gang_size"]
    for option, message in ((["-p", "mtbf_hour", "1.5"],
                             "InputError: mtbf_hour: not a parameter of this chapter (did "
                             "you mean mtbf_hours?); it takes: mtbf_hours, spot_discount"),
                            (["-p", "mtbf_hours", "-1"],
                             "InputError: mtbf_hours: must be a duration from 0.1 to")):
        bad = subprocess.run(papermill_command + [str(chapter), str(tmp_path / "b.ipynb"),
                                                  *option],
                             capture_output=True, text=True, cwd=tmp_path, timeout=600)
        last = [line for line in bad.stderr.splitlines() if line.strip()][-1]
        assert bad.returncode != 0 and last.startswith(message), bad.stderr[-2000:]


def test_run_chapter_refuses_unknown_names_and_bad_values_before_executing(tmp_path):
    out = tmp_path / "out.ipynb"
    with pytest.raises(InputError, match=r"^mtbf: not a parameter of intro.ipynb"):
        run_chapter(CHAPTERS[0], out, {"mtbf": 4})
    with pytest.raises(InputError, match=r"^gang_sizes: not a parameter of intro.ipynb"):
        run_chapter(CHAPTERS[0], out, {"gang_sizes": [1, 2]})  # declared elsewhere only
    with pytest.raises(InputError, match=r"^spot_discount: must be a fraction"):
        run_chapter(CHAPTERS[0], out, {"spot_discount": 1.5})
    assert not out.exists()


@pytest.mark.parametrize("chapter", CHAPTERS, ids=NAMES)
def test_chapter_structure(chapter):
    notebook = nbformat.read(chapter, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    tagged = [i for i, cell in enumerate(code) if "parameters" in cell.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged parameters"
    parameters = code[tagged[0]].source.splitlines()
    for line in parameters:  # `name: type = literal  # help`, as papermill --help-notebook reads
        assert re.match(r"^\w+: \w+ = .+  # \S", line), line
        assert line.split(":")[0] in BOOK_PARAMETERS
    # every line is the table's: the same default and help in every chapter
    names = [line.split(":")[0] for line in parameters]
    assert code[tagged[0]].source == parameters_cell(*names)
    # papermill must parse every line (an '=' in a help comment, say, makes it skip one)
    assert list(declared_parameters(chapter)) == [line.split(":")[0] for line in parameters]
    # the cell after it reads them, by the chapter's own name, from the table's list
    assert f'p = chapter_parameters("{chapter.stem}", globals())' in \
        code[tagged[0] + 1].source
    assert tuple(names) == CHAPTER_PARAMETERS[chapter.stem]
    for cell in code:  # executed, stored, clean
        assert cell.execution_count is not None
        for output in cell.outputs:
            assert output.output_type != "error"
    text = json.dumps(notebook)
    for fragment in ("/work/", "/tmp/", "/root/", "/home/"):
        assert fragment not in text, fragment
    assert notebook.metadata.kernelspec.name == "python3"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=NAMES)
def test_every_glue_reference_in_the_prose_exists(chapter):
    notebook = nbformat.read(chapter, as_version=4)
    prose = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    referenced = set(re.findall(r"\{glue:text\}`([^`:]+)", prose))
    referenced |= set(re.findall(r"```\{glue:(?:math|figure|md)\} (\w+)", prose))
    stored = {o.metadata["scrapbook"]["name"] for c in notebook.cells
              for o in c.get("outputs", []) if "scrapbook" in o.get("metadata", {})}
    assert referenced and referenced <= stored, referenced - stored


@pytest.mark.parametrize("chapter", CHAPTERS, ids=NAMES)
def test_a_number_that_depends_on_a_parameter_is_glued_not_typed(chapter):
    """A number typed in prose that a glued value or a parameter decides (to the digits it
    shows) would go stale on a rerun: it must be glued.  Constants of the text may be typed."""
    assert stale_numbers(chapter) == []


def test_a_typed_number_a_parameter_decides_is_found(tmp_path):
    """The check above at work: the glued Young interval typed into the prose is caught, a
    constant of the text (Kubernetes' grace of thirty seconds) is not."""
    notebook = nbformat.read(ROOT / "book" / "checkpoint_cost.ipynb", as_version=4)
    minutes = glued(notebook)["young_interval_min"]
    notebook.cells.append(nbformat.v4.new_markdown_cell(
        f"Write every {minutes:.1f} minutes; Kubernetes waits 30 s by default."))
    nbformat.write(notebook, tmp_path / "typed.ipynb")
    (found,) = stale_numbers(tmp_path / "typed.ipynb")
    assert f"{minutes:.1f}" in found and "30 s" not in found


def test_glue_name_table_lists_real_names():
    notebook = nbformat.read(ROOT / "book" / "your_numbers.ipynb", as_version=4)
    table = next(cell.source for cell in notebook.cells
                 if cell.cell_type == "markdown" and "| chapter | glued names |" in cell.source)
    rows = re.findall(r"^\| \{doc\}`(\w+)` \| (.+) \|$", table, flags=re.M)
    assert [name for name, _ in rows] == NAMES
    for name, names in rows:
        values = glued(ROOT / "book" / f"{name}.ipynb")
        for glue_name in re.findall(r"`(\w+)`", names):
            assert glue_name in values, (name, glue_name)


def test_nbval_compares_stored_numbers_to_nine_decimals(tmp_path):
    """nbval, with the suite's sanitize file, compares glued values: a stored number
    altered at its first or its fifth decimal fails, showing both numbers; one that
    differs from the one computed past its ninth decimal (another CPU's rounding) passes."""
    notebook = nbformat.read(ROOT / "book" / "checkpoint_cost.ipynb", as_version=4)
    (tmp_path / "book").mkdir()
    for name, value in (("altered", "22.5"), ("fifth", "21.90891230020664"),
                        ("last_digits", "21.908902300999")):
        for cell in notebook.cells:
            for output in cell.get("outputs", []):
                if output.get("metadata", {}).get("scrapbook", {}).get("name") == (
                        "young_interval_min"):
                    output.data["application/papermill.record/text/plain"] = value
        nbformat.write(notebook, tmp_path / "book" / f"{name}.ipynb")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-current-env", "-o", "addopts=", "--nbval-sanitize-with",
         str(ROOT / "tests" / "book" / "nbval_sanitize.cfg"), str(tmp_path / "book")],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    failed = sorted(line.split("/")[-1].split(".ipynb")[0]
                    for line in result.stdout.splitlines() if line.startswith("FAILED"))
    assert failed == ["altered", "fifth"], result.stdout[-3000:]
    assert "22.5" in result.stdout and "21.90891230" in result.stdout
    assert "21.90890230" in result.stdout, result.stdout[-3000:]


def test_real_preemptions_reads_your_own_trace(tmp_path, chapter_run):
    """A reader's trace in the documented format, by full path: a synthetic Poisson pool."""
    from spotmath.traces import write_trace
    from spotmath.traces.synthetic import synthetic_trace

    trace = synthetic_trace(preemption_rate=0.5, pool_size=16, hours=150, seed=17)
    path = write_trace(trace, tmp_path / "mine.csv")
    chapter = ROOT / "book" / "real_preemptions.ipynb"
    values = chapter_run(chapter, tmp_path / "out.ipynb",
                         {"trace_files": [str(path)], "pool_gang_sizes": [2, 4]})
    (numbers,) = values["trace_numbers"]
    fit, chosen = numbers["fit"], numbers["replay"]
    assert numbers["trace"] == "mine" and fit["preemptions"] == trace.preemptions
    low, high = spotmath.traces.fitting.rate_interval(trace.preemptions, trace.node_hours)
    assert low < 0.5 < high and fit["preemption_rate"] == pytest.approx(
        trace.preemptions / trace.node_hours, rel=1e-12)
    assert abs(chosen["waste"] - chosen["poisson_waste"]) < 0.03
    assert "consistent with Poisson" in values["shape_verdict"]
    (pool,) = values["gang_numbers"]
    assert pool["label"] == "mine" and [g["gang_size"] for g in pool["runs"]] == [2, 4]


#: Every chapter is written in the house style of "A book that reads like one"
#: (``python scripts/house_style.py`` prints the measurements).
HOUSE_STYLE = NAMES


@pytest.mark.parametrize("name", HOUSE_STYLE)
def test_a_chapter_in_the_house_style_keeps_the_reading_limits(name):
    """Median code cell at most 15 lines, none over 30, bookkeeping at most 15% of the code,
    no more code lines than lines of sentences (prose counted honestly: no fences, options,
    labels, headings, table rows, maths or glue alone), figures drawn by code the page
    shows (the reading limits of :mod:`spotmath.book.house_style`)."""
    assert measure(ROOT / "book" / f"{name}.ipynb").breaches() == []


def test_the_reading_measures_count_what_they_say(tmp_path):
    """The measures on a small notebook counted by hand: cells, hidden share, median,
    bookkeeping lines (a keep call, a row function, a wording helper; not the maths)."""
    cells = [
        nbformat.v4.new_code_cell("a: int = 1  # help", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("from spotmath.book.wording import pays\nx = 2",
                                  metadata={"tags": ["remove-cell"]}),
        nbformat.v4.new_code_cell("y = x * 3\n\nkeep(\n    y=y,\n)\nz = pays(0.1, 0.2)"),
        nbformat.v4.new_code_cell("def gang_row(n):\n    return [n]\n\nw = 4"),
        nbformat.v4.new_markdown_cell("one\n\ntwo\nthree\nfour\nfive\nsix\nseven\neight"),
        # scaffolding: a heading, a labelled equation, a glued figure, a table, a glued value
        nbformat.v4.new_markdown_cell("## Heading\n\n```{math}\n:label: eq-x\nT = 1\n```\n"
                                      "```{glue:figure} fig\n:name: fig-x\n```\n"
                                      "| a | b |\n|---|---|\n{glue:text}`rate:.2f`"),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    nbformat.write(notebook, tmp_path / "small.ipynb")
    style = measure(tmp_path / "small.ipynb")
    assert (style.code_cells, style.code_lines, style.prose_lines) == (3, 10, 19)
    assert style.sentence_lines == 8  # the scaffolding's eleven lines hold no sentence
    assert style.hidden_share == pytest.approx(1 / 3) and style.median_cell == 3
    assert style.bookkeeping_share == pytest.approx(6 / 10)  # keep (3), pays (1), row (2)
    assert style.breaches() == ["bookkeeping 60.0% > 15%", "sentences 8 < code 10 lines"]


def test_setting_a_figure_up_is_bookkeeping(tmp_path):
    """Setting a figure up (subplots, labels, scales, the legend) is counted as
    bookkeeping, and so is a name bound only to be passed to it (a label, a figure's
    size, perhaps in another cell); drawing the data is not, nor a builtin set(), nor a
    name the drawing reads too (#51)."""
    source = ("size = dict(figsize=(7, 3))\nfig, ax = plt.subplots(**size)\n"
              "ax.plot(x, y, label=name)\nax.set(xscale='log')\n"
              "ax.set_xlabel('T')\nax.legend()\nnames = set(x)\nkeep(fig=fig)")
    later = "axis = 'share up'\nname = 'the chain'\nax.set(ylabel=axis, title=name)"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source),
                                               nbformat.v4.new_code_cell(later)])
    nbformat.write(notebook, tmp_path / "plot.ipynb")
    style = measure(tmp_path / "plot.ipynb")
    # size, subplots, set, the label, the legend, keep; axis and its set: 8 of 11
    assert style.bookkeeping_share == pytest.approx(8 / 11)
    assert style.breaches()[0] == "bookkeeping 72.7% > 15%"


def test_hidden_cells_that_follow_one_another_are_measured_as_one(tmp_path):
    """Three hidden set-up cells of 3, 12 and 18 lines are one block of 33 lines, over the
    longest allowed; a markdown cell or a visible one between them parts them."""
    def hidden(lines: int):
        return nbformat.v4.new_code_cell("\n".join(f"x{i} = {i}" for i in range(lines)),
                                         metadata={"tags": ["remove-cell"]})

    cells = [hidden(3), hidden(12), hidden(18), nbformat.v4.new_markdown_cell("Words here."),
             hidden(4), nbformat.v4.new_code_cell("y = 1"), hidden(5)]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), tmp_path / "setup.ipynb")
    style = measure(tmp_path / "setup.ipynb")
    assert (style.longest_cell, style.median_cell, style.code_cells) == (33, 4.5, 6)
    assert "longest cell 33 > 30 lines" in style.breaches()


#: (parameters of your_numbers, the break-even state they give): no notice, a notice half
#: or all of whose preemptions count, a notice too short for its write, and a rate no
#: interval pays at.
BREAK_EVEN_CASES = [
    ({"notice_share": 0.0}, "after"),
    ({"notice_share": 0.5}, "always"),
    ({"notice_share": 1.0}, "always"),
    ({"notice_share": 1.0, "notice_write_seconds": 180.0}, "after"),
    ({"mtbf_hours": 0.5, "spot_discount": 0.1}, "never"),
]
#: The words each state is said in: the plan's table row, the chapter's sentence.
BREAK_EVEN_WORDS = {"after": ("(checkpoint less often than this", "less often than every"),
                    "always": ("however rarely the job checkpoints", "however rarely you"),
                    "never": ("no checkpoint interval makes spot pay",
                              "No checkpoint interval makes spot pay")}


def typed_break_even(p: dict) -> str:
    """The state from the typed exact waste: "always" where writing on notice alone pays
    (the floor, T → ∞), "after" where some interval on a fine grid pays, else "never"."""
    rate, restart = 1 / p["mtbf_hours"], p["restart_minutes"] / 60
    cost, discount = p["checkpoint_minutes"] / 60, p["spot_discount"]
    write = p["notice_write_seconds"] / 3600
    share = p["notice_share"] if write <= p["notice_seconds"] / 3600 else 0.0  # it fits
    if share > 0 and typed_floor(rate, restart, share, write, True) < discount:
        return "always"
    grid = np.geomspace(cost / 10, 100 / rate, 4001)
    wastes = [typed_full_waste(rate, t, cost, restart, share, write, 0.0, True) for t in grid]
    return "after" if min(wastes) < discount else "never"


@pytest.mark.parametrize("changed, state", BREAK_EVEN_CASES)
def test_the_break_even_state_is_one_in_the_table_the_json_and_the_prose(changed, state,
                                                                         tmp_path,
                                                                         chapter_run):
    """your_numbers with a notice that saves every preemption's work once said both
    "spot pays however rarely the job checkpoints" (the table) and "No checkpoint interval
    makes spot pay" (the sentence): the plan now says which state holds, and the table,
    `spotmath plan --json`, and the chapter's sentence all say it."""
    p = book_defaults(changed)
    assert typed_break_even(p) == state
    source = ROOT / "book" / "your_numbers.ipynb"
    values = chapter_run(source, tmp_path / "your_numbers.ipynb", changed)
    table_words, sentence_words = BREAK_EVEN_WORDS[state]
    assert values["plan"]["break_even"] == state
    assert sentence_words in values["break_even_text"]
    notebook = nbformat.read(tmp_path / "your_numbers.ipynb", as_version=4)
    printed = "".join(out.get("text", "") for cell in notebook.cells
                      for out in cell.get("outputs", []) if out.output_type == "stream")
    row = next(line for line in printed.splitlines() if line.startswith("break-even"))
    assert table_words in row
    options = ["--mtbf", f"{p['mtbf_hours']}h", "--discount", str(p["spot_discount"]),
               "--notice", f"{p['notice_seconds']}s", "--notice-share", str(p["notice_share"]),
               "--notice-write", f"{p['notice_write_seconds']}s"]
    done = subprocess.run([sys.executable, "-m", "spotmath", "plan", *options, "--json"],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["break_even"] == state
    assert (values["plan"]["break_even_interval_h"] is None) == (state != "after")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=NAMES)
def test_hidden_cells_only_set_up_and_glue(chapter):
    """A hidden cell imports, sets the style, reads the parameters and the published
    figures, and glues what visible cells computed, phrased but not decided: the
    argument's values and its verdicts are computed where the reader sees them (#51)."""
    assert hidden_computations(chapter) == []


def test_a_computation_or_verdict_in_a_hidden_cell_is_found(tmp_path):
    """The check above at work, on the issue's own examples: the gang's rate N·λ and a
    verdict computed out of sight are found, in a loop too; imports, parameters, units,
    glued tables and a loop that glues several numbers phrased alike are not."""
    notebook = nbformat.v4.new_notebook()
    setup = ("import spotmath as sm\nfrom spotmath.book import wording\n"
             "p = chapter_parameters('two_level', globals())\nGB = 1e9\n"
             "durable = dict(checkpoint_cost=p.level2_cost)\n"
             "keep(cost_min=p.level2_cost * 60, tbl=wording.pools_table(fits))\n"
             "for name, t in dict(seed=seed, exact=exact).items():\n"
             "    keep(**{f'{name}_text': wording.interval_or_none(t, 'never')})")
    computing = ("rate = p.two_level_gang_size * p.preemption_rate\n"
                 "looks = 'look Poisson' if poisson else 'are not all Poisson'\n"
                 "keep(notice_saves=cost <= p.notice)\n"
                 "for name, w in wastes.items():\n"
                 "    keep(**{name: 'pays' if w < p.spot_discount else 'not'})")
    shown = "rate = p.two_level_gang_size * p.preemption_rate"
    for source, tags in ((setup, ["remove-cell"]), (computing, ["hide-input"]), (shown, [])):
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["tags"] = tags
        notebook.cells.append(cell)
    nbformat.write(notebook, tmp_path / "hidden.ipynb")
    assert hidden_computations(tmp_path / "hidden.ipynb") == [
        "cell 1: rate = p.two_level_gang_size * p.preemption_rate",
        "cell 1: looks = 'look Poisson' if poisson else 'are not all Poisson'",
        "cell 1: keep(notice_saves=cost <= p.notice)",
        "cell 1: for name, w in wastes.items():"]  # a loop that decides, not one that glues


def test_a_kept_kernel_leaks_no_sockets_or_threads(tmp_path):
    """nbclient leaves open the channels of a client of a kernel it did not start: a
    heartbeat thread and sixteen sockets a chapter, until a test worker passed ZeroMQ's
    thousand sockets ("Too many open files").  The executor stops them: after the first
    chapter, neither grows."""
    import os
    import threading

    from spotmath.book.chapters import KeptKernel

    kept = KeptKernel()
    source = ROOT / "book" / "intro.ipynb"
    try:
        counts = []
        for run in range(4):
            kept.run(source, tmp_path / f"intro-{run}.ipynb", {})
            counts.append((len(os.listdir("/proc/self/fd")), threading.active_count()))
    finally:
        kept.close()
    assert counts[1:] == counts[:1] * 3, counts
