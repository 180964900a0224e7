"""The `spotmath` command: a quick answer for one's own numbers, and citable derivations.

    spotmath plan --mtbf 4h --restart 10min --checkpoint 1min --discount 0.6 [--nodes 8]
                  [--model exact|first-order] [--restart-variant preemptible|protected]
                  [--notice 2min --notice-share 0.9 [--notice-write 30s]] [--persist 5min]
                  [--json]
    spotmath fit TRACE [--format spotmath|bamboo] [--window 60s] [plan options] [--json]
    spotmath replay TRACE [--interval T] [--checkpoint C] [--restart R] [--nodes N]
                    [--scan] [--json]
    spotmath plan ... --compute 6h --deadline 10h [--outage 1h]
    spotmath deadline --trace FILE --compute 48h --deadline 60h [--changeover 12min]
                      [--discount 0.6] [--nodes N] [--policy P ...]
                      [--start-tick I | --starts K --seed S] [--billing tick|second] [--json]
    spotmath deadline --mtbf 4h --outage 1h --compute 48h --deadline 60h [--draws 300]
    spotmath derive NAME [--latex | --sympy]
    spotmath derive --list
    spotmath book [--params my.yaml] [-p NAME VALUE ...] --out DIR [--force]

Bad input ends with exit status 2 and one line on stderr naming the option; no traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import os
import shlex
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .inputs import (
    InputError,
    check_choice,
    check_discount,
    check_duration,
    check_fraction,
    check_gang_size,
    check_rate,
    rate_from_mtbf,
)
from .model.plan import (
    CHOICES,
    DEFAULTS,
    OPTION_NAMES,
    PLAN_KEYS,
    REFUSALS,
    Plan,
    duration_text,
    make_plan,
    two_columns,
)

__all__ = ["build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _plan_values(plan: Plan) -> dict:
    """The plan's documented keys (hours and fractions), the two-level ones after them."""
    values = plan.as_dict()
    levels = plan.two_level or {}
    return {key: values[key] for key in PLAN_KEYS} | {key: levels[key] for key in levels}


def _dump(values: dict) -> str:
    return json.dumps(values, indent=2, allow_nan=False)


def _make_plan(args: argparse.Namespace, rate: float) -> Plan:
    """The plan for ``rate`` and the plan options of ``args``, each checked by its name."""
    def duration(option: str, value: str | None) -> float | None:
        return None if value is None else check_duration(option, value, allow_zero=True,
                                                         scalar=True, bounded=True)

    checkpoint, persist, state = _checkpoint_options(args)
    options = dict(
        preemption_rate=rate,
        restart_time=duration("--restart", args.restart),
        checkpoint_cost=checkpoint if checkpoint is not None else check_duration(
            "--checkpoint", DEFAULTS["checkpoint"] if args.checkpoint is None
            else args.checkpoint, scalar=True, bounded=True),
        spot_discount=check_discount("--discount", args.discount, scalar=True),
        nodes=check_gang_size("--nodes", args.nodes),
        model=args.model,
        restart_preemptible=args.restart_variant == "preemptible",
        notice=duration("--notice", args.notice) or 0.0,
        notice_share=None if args.notice_share is None else check_fraction(
            "--notice-share", args.notice_share),
        notice_write=duration("--notice-write", args.notice_write),
        persist=persist if persist is not None else duration("--persist", args.persist)
        or 0.0,
        level1_cost=None if args.level1 is None else check_duration(
            "--level1", args.level1, scalar=True, bounded=True),
        level1_restart=duration("--level1-restart", args.level1_restart),
        level1_loss=None if args.level1_loss is None else check_fraction(
            "--level1-loss", args.level1_loss),
    )
    try:
        return dataclasses.replace(make_plan(**options), state=state)
    except InputError as error:  # name the option the reader typed
        raise error.renamed(OPTION_NAMES.get(error.name, error.name), {
            name: option for name, option in OPTION_NAMES.items() if "_" in name}) from None


def _checkpoint_options(args: argparse.Namespace
                        ) -> tuple[float | None, float | None, dict | None]:
    """C, P and the state's record (the --json block) from --state and the bandwidths
    (all None without --state), each option checked against the others: the state
    replaces --checkpoint, the snapshot --persist."""
    from .inputs import check_size
    from .model.calibration import checkpoint_from_state

    given = {flag: value for flag, value in (
        ("--state", args.state), ("--write-bandwidth", args.write_bandwidth),
        ("--snapshot-bandwidth", args.snapshot_bandwidth)) if value is not None}
    if not given:
        return None, None, None
    if args.state is None or args.write_bandwidth is None:
        missing = "--state" if args.state is None else "--write-bandwidth"
        raise InputError(REFUSALS["state_partner"].format(name=next(iter(given)),
                                                          missing=missing))
    if args.checkpoint is not None:
        raise InputError(REFUSALS["state_and_checkpoint"])
    if args.snapshot_bandwidth is not None and args.persist is not None:
        raise InputError(REFUSALS["state_and_persist"])
    snapshot = args.snapshot_bandwidth
    record = {"state_bytes": check_size("--state", args.state),
              "write_bandwidth_bytes_per_s": check_size(
                  "--write-bandwidth", args.write_bandwidth, per_second=True),
              "snapshot_bandwidth_bytes_per_s": None if snapshot is None else check_size(
                  "--snapshot-bandwidth", snapshot, per_second=True)}
    checkpoint, persist = checkpoint_from_state(*record.values())
    return checkpoint, persist if snapshot is not None else None, record


def _plan(args: argparse.Namespace) -> int:
    if args.rate is not None:
        rate = check_rate("--rate", args.rate, scalar=True, bounded=True)
    else:
        rate = rate_from_mtbf(args.mtbf, "--mtbf")
    plan = _make_plan(args, rate)
    deadline = _plan_deadline(args, plan)
    if args.json:
        values = _plan_values(plan)
        if plan.state is not None:
            values["state"] = plan.state
        if deadline is not None:
            values["deadline"] = deadline
        print(_dump(values))
        return 0
    print(plan.report())
    if deadline is not None:
        print(two_columns(_plan_deadline_rows(args, deadline), wrap=False))
    return 0


#: The tick, draws and seed with which `spotmath plan --compute --deadline` works.
PLAN_DEADLINE = {"tick": "10min", "draws": 200, "seed": 0}


def _plan_deadline(args: argparse.Namespace, plan: Plan) -> dict | None:
    """With --compute and --deadline: expected costs of a job with a date (the restart
    is its changeover; spells of spot end at the gang's rate, outages last --outage)."""
    if args.compute is None and args.deadline is None:
        if args.outage is not None:
            raise InputError("--outage: needs --compute and --deadline")
        return None
    if args.compute is None or args.deadline is None:
        missing = "--compute" if args.compute is None else "--deadline"
        raise InputError(f"{missing}: --compute and --deadline go together")
    from .traces import deadlines

    tick, draws, seed = PLAN_DEADLINE["tick"], PLAN_DEADLINE["draws"], PLAN_DEADLINE["seed"]
    outage = args.outage or "1h"
    try:
        model = deadlines.spell_model(tick, 1 / plan.preemption_rate, outage, plan.nodes)
        job = (args.compute, args.deadline, plan.restart_time_h, plan.spot_discount)
        found = deadlines.expected_costs(
            model, tick, *job, draws=draws, seed=seed,
            policies=["on-demand", "uniform-progress", "model"])
        pays_from = deadlines.spot_pays_from(model, tick, args.compute, plan.restart_time_h,
                                             plan.spot_discount)
    except InputError as error:
        raise error.renamed({"hours": "--outage"}.get(error.name, f"--{error.name}")) \
            from None
    compute = float(check_duration("--compute", args.compute, scalar=True, bounded=True))
    return {"compute_h": compute,
            "deadline_h": float(check_duration("--deadline", args.deadline, scalar=True,
                                               bounded=True)),
            "outage_h": float(check_duration("--outage", outage, scalar=True, bounded=True)),
            "tick_h": 1 / 6, "draws": draws, "seed": seed,
            "policies": None if found is None else {
                name.replace("-", "_"): row.as_dict() for name, row in found.items()},
            "spot_pays_from_deadline_h": pays_from,
            "spot_pays_from_slack_h": None if pays_from is None else pays_from - compute}


def _plan_deadline_rows(args: argparse.Namespace, deadline: dict) -> list[tuple[str, str]]:
    head = f"{args.compute} of compute by {args.deadline}"
    if deadline["policies"] is None:
        return [("deadline", f"{head}: not met even on on-demand from the start (restart "
                             "as the changeover)")]
    rows = deadline["policies"]
    shares = ", ".join(
        f"{name.replace('_', ' ')} {rows[name]['cost_share']:.0%} "
        f"(± {rows[name]['cost_se'] / rows['on_demand']['cost']:.0%})"
        for name in ("uniform_progress", "model"))
    pays = deadline["spot_pays_from_deadline_h"]
    return [
        ("deadline", f"{head}: expected cost as a share of on-demand's: {shares} "
                     f"({deadline['draws']} draws; outages of "
                     f"{duration_text(deadline['outage_h'])})"),
        ("spot pays from", "no deadline up to three times the compute and restart"
         if pays is None else f"a deadline of {duration_text(pays)} (slack "
         f"{duration_text(deadline['spot_pays_from_slack_h'])}); on-demand below it"),
    ]


def _fit(args: argparse.Namespace) -> int:
    from .model.numerics import optimal_interval
    from .traces.fitting import fit_trace, preemptions_needed
    from .traces.reading import read_trace

    trace = read_trace(args.trace, args.format)
    window = check_duration("--window", args.window, scalar=True, bounded=True)
    fit = fit_trace(trace, window)
    # --level1-restart without --level1 is only the window of --level1-group's events;
    # --level1 with --level1-group and no --level1-loss plans at the measured share, after
    # the single-level plan
    measured = (args.level1 is not None and args.level1_group is not None
                and args.level1_loss is None)
    window_only = args.level1_group is not None and (args.level1 is None or measured)
    plan_args = (argparse.Namespace(**dict(vars(args), level1=None, level1_restart=None))
                 if window_only else args)
    plan = _make_plan(plan_args, fit.preemption_rate)
    low, high = fit.preemption_rate_ci95
    across = [float(optimal_interval(rate * plan.nodes, plan.checkpoint_cost_h, plan.model))
              if rate > 0 else None for rate in (high, low)]
    needed = preemptions_needed(plan.gang_rate, plan.checkpoint_cost_h, model=plan.model)
    copies = _fit_fast_copies(args, trace, plan)
    levels, unplanned = _plan_measured_levels(args, copies) if measured else (None, None)
    if args.json:
        extra = {} if copies is None else {"fast_copies": copies.as_dict()}
        if measured:
            extra["plan_two_level"] = None if levels is None else _plan_values(levels)
        print(_dump(dict(fit.as_dict(), plan=_plan_values(plan),
                         interval_at_rate_ci95_h=across,
                         preemptions_for_10pct_interval=needed, **extra)))
        return 0
    if fit.weibull_shape is None:
        shape_rows = [("Weibull shape k", f"not fitted: {fit.weibull_note}")]
    else:
        k_low, k_high = fit.weibull_shape_ci95
        verdict = ("not rejected" if fit.weibull_shape_p_value >= 0.05 else "rejected")
        shape_rows = [
            ("Weibull shape k", f"{fit.weibull_shape:.3g} (95%: {k_low:.3g} to "
                                f"{k_high:.3g}); k = 1 (Poisson) {verdict}, p = "
                                f"{fit.weibull_shape_p_value:.2g}"),
            ("Weibull scale", duration_text(fit.weibull_scale_h)),
        ]
    rows = [
        ("trace", f"{fit.trace}: {fit.lifetimes} lifetimes of {fit.nodes} instances over "
                  f"{duration_text(fit.duration_h)}"
                  + (f", clock tick {fit.resolution_s:g} s" if fit.resolution_s else "")),
        ("preemptions", f"{fit.preemptions} in {fit.node_hours:.4g} node-hours "
                        f"({fit.censored} lifetimes censored)"),
        ("preemption rate", f"{fit.preemption_rate:.3g}/h per node (95%: {low:.3g} to "
                            f"{high:.3g}), MTBF {duration_text(fit.mtbf_h)}"),
        *shape_rows,
        (f"co-preemption ({fit.window_s:g} s)",
         f"{fit.co_preemption_share:.1%} of preemptions have another within "
         f"{fit.window_s:g} s; {fit.co_preemption_share_independent:.1%} if independent"),
    ]
    interval_range = " to ".join(duration_text(value) for value in across)
    print(two_columns(rows, wrap=False))
    print("\nthe plan at the fitted rate (as spotmath plan):")
    print(plan.report())
    print("\n" + two_columns([
        ("interval across the rate's 95%", f"{interval_range} (at {high:.3g}/h and "
                                           f"{low:.3g}/h)"),
        ("to know it within ±10%", f"about {needed} preemptions (this trace has "
                                   f"{fit.preemptions})"),
    ], wrap=False))
    if copies is not None:
        print("\n" + two_columns(_fast_copy_rows(copies, args), wrap=False))
    if measured:
        if levels is None:
            print("\n" + two_columns([("two-level plan", unplanned)], wrap=False))
        else:
            print("\nthe two-level plan at the gang's event rate and the measured share "
                  "(as spotmath plan):")
            print(levels.report())
    return 0


def _plan_measured_levels(args: argparse.Namespace, copies) -> tuple[Plan | None, str]:
    """fit --level1 --level1-group: the two-level plan at the gang's event rate Λ (as a
    node rate Λ/N) and the measured share p, or None and why not."""
    if copies.level1_loss is None:
        return None, "not planned: no gang event on this trace"
    if copies.level1_loss == 0:
        return None, ("not planned: no event took a fast copy (p = 0), so a durable write "
                      "never pays here; plan with the share's 95% upper bound, "
                      f"--level1-loss {copies.level1_loss_ci95[1]:.3g}")
    with_loss = argparse.Namespace(**dict(vars(args), level1_loss=repr(copies.level1_loss)))
    return _make_plan(with_loss, copies.event_rate / copies.nodes), ""


def _replay_two_level(args: argparse.Namespace, trace, cost: float, restart: float,
                      nodes: int | None) -> int:
    """spotmath replay --level1 ...: the two-level schedule on the pool's real instances."""
    from .traces.fast_copies import replay_fast_copies

    for option, value in (("--level1", args.level1), ("--level1-group", args.level1_group),
                          ("--nodes", nodes)):
        if value is None:
            raise InputError(f"{option}: required to replay two-level checkpoints")
    if args.scan:
        raise InputError("--scan: not for two-level checkpoints (the pattern is the "
                         "model's optimum or --interval with --level2-every)")
    if (args.interval is None) != (args.level2_every is None):
        raise InputError("--level2-every: goes with --interval (or give neither for the "
                         "optimum at the fitted rate and share)")
    names = {"level1_cost": "--level1", "level1_restart": "--level1-restart",
             "level1_group": "--level1-group", "level2_every": "--level2-every",
             "interval": "--interval", "seed": "--seed", "nodes": "--nodes"}
    fast = check_duration("--level1", args.level1, scalar=True, bounded=True)
    fast_restart = (restart if args.level1_restart is None else check_duration(
        "--level1-restart", args.level1_restart, allow_zero=True, scalar=True, bounded=True))
    levels = dict(level1_cost=fast, checkpoint_cost=cost, level1_restart=fast_restart,
                  restart_time=restart)
    try:  # without --interval, the optimum at the fitted rate and share
        result = replay_fast_copies(trace, nodes, args.level1_group, interval=args.interval,
                                    level2_every=args.level2_every, seed=args.seed, **levels)
    except InputError as error:
        raise error.renamed(names.get(error.name, error.name), {
            "interval": "--interval", "level2_every": "--level2-every"}) from None
    if args.json:
        print(_dump(result.as_dict()))
        return 0
    fit = result.fit
    model = "n/a" if result.model_waste is None else f"{result.model_waste:.1%}"
    print(two_columns([
        ("trace", f"{result.trace}, a gang of {result.nodes}, fast copies held by random "
                  f"groups of {result.group}"),
        ("schedule", f"a write every {duration_text(result.interval_h)}, durable every "
                     f"{result.level2_every} writes; fast {duration_text(fast)}, durable "
                     f"{duration_text(cost)}; restarts {duration_text(fast_restart)} / "
                     f"{duration_text(restart)}"),
        ("events", f"{result.events} in {result.held_hours:.4g} h held; "
                   f"{result.copies_lost} took a fast copy"),
        ("replayed waste", f"{result.waste:.1%} (kept {result.kept_hours:.4g} h)"),
        ("exact model", f"{model} at the fitted {fit.event_rate:.3g} events/h and share "
                        + ("n/a" if fit.level1_loss is None else f"{fit.level1_loss:.1%}")),
    ], wrap=False))
    return 0


def _fit_fast_copies(args: argparse.Namespace, trace, plan: Plan):
    """With --level1-group: the gang's events and the chance they take its fast copies."""
    if args.level1_group is None:
        return None
    from .traces.fast_copies import fit_fast_copies

    window = plan.restart_time_h if args.level1_restart is None else args.level1_restart
    try:
        return fit_fast_copies(trace, plan.nodes, args.level1_group, window)
    except InputError as error:
        raise error.renamed({"level1_group": "--level1-group", "nodes": "--nodes",
                             "level1_restart": "--level1-restart"}.get(
                                 error.name, error.name)) from None


def _shared_plan_flags(args: argparse.Namespace, leave: set[str]) -> list[str]:
    """The options of `spotmath plan` given to this command, as typed (those not at their
    defaults), less the destinations in ``leave``."""
    shared = argparse.ArgumentParser(add_help=False)
    _plan_options(shared)
    flags = []
    for action in shared._actions:
        value = getattr(args, action.dest, action.default)
        if action.dest in leave or value == action.default:
            continue
        flags.append(action.option_strings[0])
        if action.nargs != 0:  # not a switch
            flags.append(shlex.quote(str(value)))
    return flags


def _fast_copy_rows(copies, args: argparse.Namespace) -> list[tuple[str, str]]:
    low, high = copies.event_rate_ci95
    rows = [
        ("gang events", f"{copies.events} in {copies.held_hours:.4g} h the gang of "
                        f"{copies.nodes} held (preemptions within "
                        f"{duration_text(copies.window_h)} of each other are one)"),
        ("gang event rate", f"{copies.event_rate:.3g}/h (95%: {low:.3g} to {high:.3g})"),
    ]
    if copies.level1_loss is None:
        return rows + [("fast copies lost", "no events: not measured")]
    p_low, p_high = copies.level1_loss_ci95
    rows.append((f"fast copies lost (groups of {copies.group})",
                 f"with {copies.level1_loss:.1%} of events (95%: {p_low:.1%} to "
                 f"{p_high:.1%})"))
    if args.level1 is None:
        return rows + [("two levels", "give --level1 (the fast write's time) for the "
                                      "command that plans them at this share")]
    # a share of 0 has no optimum (a durable write never pays): plan at its 95% bound
    loss = copies.level1_loss if copies.level1_loss > 0 else p_high
    command = " ".join([f"--rate {copies.event_rate / copies.nodes:.4g}/h", "--nodes",
                        str(copies.nodes), *_shared_plan_flags(
                            args, {"rate", "mtbf", "nodes", "level1_loss", "json"}),
                        f"--level1-loss {loss:.3g}"])
    note = [] if copies.level1_loss > 0 else [
        ("", f"(no copy lost in {copies.events} events: at the share's 95% bound)")]
    return rows + [("for spotmath plan", command), *note]


def _replay(args: argparse.Namespace) -> int:
    from .model import numerics
    from .traces.reading import read_trace
    from .traces.replay import best_fixed_interval, replay

    trace = read_trace(args.trace, args.format)
    cost = check_duration("--checkpoint", args.checkpoint, scalar=True, bounded=True)
    restart = check_duration("--restart", args.restart, allow_zero=True, scalar=True,
                             bounded=True)
    nodes = None if args.nodes is None else check_gang_size("--nodes", args.nodes)
    two_level = (args.level1, args.level1_group, args.level2_every, args.level1_restart)
    if any(value is not None for value in two_level):
        return _replay_two_level(args, trace, cost, restart, nodes)
    if args.interval is not None:
        interval = check_duration("--interval", args.interval, scalar=True, bounded=True)
    elif trace.preemptions == 0:
        raise InputError(f"{trace.name}: no preemptions: nothing to replay")
    else:  # the exact optimum at the trace's rate (the gang's Nλ)
        interval = float(numerics.exact_interval(trace.preemption_rate * (nodes or 1), cost))
    result = replay(trace, interval, cost, restart, nodes)
    values = result.as_dict()
    if args.scan:
        best, best_waste = best_fixed_interval(trace, cost, restart, nodes)
        optimum = float(numerics.exact_interval(result.model_rate, cost))
        values.update(best_interval_h=best, best_waste=best_waste, model_interval_h=optimum,
                      model_interval_waste=replay(trace, optimum, cost, restart, nodes).waste)
    if args.json:
        print(_dump(values))
        return 0
    unit = "node-hours" if nodes else "hours"
    rows = [
        ("trace", f"{result.trace}, " + (f"a synchronous gang of {nodes} on the pool"
                                         if nodes else "one node per lifetime")
                  + f" ({result.lifetimes_used} used, {result.censored} censored left out)"),
        ("schedule", f"checkpoint every {duration_text(interval)}, write "
                     f"{duration_text(cost)}, restart {duration_text(restart)}"),
        ("replayed waste", f"{result.waste:.1%} ± {result.waste_standard_error:.1%} (paid "
                           f"{result.paid_hours:.4g} {unit}, useful {result.useful_hours:.4g})"),
        ("exact Poisson model", f"{result.poisson_waste:.1%} at "
                                f"{'Nλ = ' if nodes else 'the trace rate '}"
                                f"{result.model_rate:.3g}/h"),
    ]
    if nodes:
        low, high = result.gang_rate_ci95
        rows += [
            ("gang interruptions", f"{result.interruptions} in {result.held_hours:.4g} h held: "
                                   f"{result.gang_rate:.3g}/h (95%: {low:.3g} to {high:.3g}) "
                                   f"against Nλ = {result.model_rate:.3g}/h"),
            ("instances lost each", "n/a" if result.instances_per_interruption is None
             else f"{result.instances_per_interruption:.3g} on average"),
            ("waiting for capacity", duration_text(result.waiting_hours)
             if result.waiting_hours else "none"),
        ]
        if result.poisson_waste_gang_rate is not None:
            rows.append(("exact model at that rate", f"{result.poisson_waste_gang_rate:.1%}"))
    if args.scan:
        rows += [
            ("best interval on the trace",
             "none: no lifetime outlasts the restart and one write"
             if values["best_interval_h"] is None else
             f"{duration_text(values['best_interval_h'])}: {values['best_waste']:.1%} "
             "replayed"),
            ("the model's optimum", f"{duration_text(values['model_interval_h'])}: "
                                    f"{values['model_interval_waste']:.1%} replayed"),
        ]
    print(two_columns(rows, wrap=False))
    return 0


#: The command line's name for each parameter `spotmath deadline` checks in the library.
_DEADLINE_OPTIONS = {name: f"--{name.replace('_', '-')}" for name in (
    "compute", "deadline", "changeover", "discount", "tick", "nodes", "start_tick",
    "starts", "seed", "billing", "policy", "mtbf", "draws", "interval")} | {
    "hours": "--outage", "checkpoint_cost": "--checkpoint"}


def _deadline(args: argparse.Namespace) -> int:
    from .traces import deadlines

    try:
        return _deadline_report(args, deadlines)
    except InputError as error:  # name the option the reader typed
        raise error.renamed(_DEADLINE_OPTIONS.get(error.name, error.name)) from None


def _deadline_report(args: argparse.Namespace, deadlines) -> int:
    policies = list(dict.fromkeys(args.policy or deadlines.POLICIES))
    if "on-demand" not in policies:  # every cost is read against it
        policies.insert(0, "on-demand")
    nodes = check_gang_size("nodes", args.nodes)
    job = (args.compute, args.deadline, args.changeover, args.discount)
    if args.interval is not None and args.checkpoint is None:
        args.checkpoint = DEFAULTS["checkpoint"]
    if args.trace is None:
        if args.interval is not None:
            raise InputError("--interval: checkpoint mode needs a trace (--trace)")
        return _deadline_modelled(args, deadlines, policies, nodes, job)
    for option in ("mtbf", "outage", "draws"):
        if getattr(args, option) is not None:
            raise InputError(f"--{option}: describes availability without a trace; "
                             "with --trace the trace says when spot is there")
    trace = deadlines.read_availability(args.trace, args.format, args.tick)
    trace.check_gang(nodes)
    common = dict(policies=policies, nodes=nodes, billing=args.billing)
    header = _deadline_header(args, trace)
    writes = ""  # checkpoint mode's writes, for the line where no policy can meet it
    if args.interval is not None:
        interval = deadlines.resolve_interval(trace, args.interval, args.checkpoint, nodes)
        common.update(interval=interval, checkpoint=args.checkpoint)
        note = (f"every {duration_text(_duration('interval', interval))} of compute, a "
                f"write of {args.checkpoint}"
                + (" (auto: the exact optimum at the rate the trace's spells end)"
                   if args.interval.strip() == "auto" else ""))
        header = header + [("checkpoints", note)]
        count = deadlines.Checkpoints(_duration("interval", interval), _duration(
            "checkpoint", args.checkpoint)).writes(_duration("compute", args.compute))
        writes = f" + {count} write{'s' * (count != 1)} of {args.checkpoint}"
    elif args.checkpoint is not None and args.checkpoint != "0":
        raise InputError("--checkpoint: needs --interval (checkpoint mode)")
    if args.starts is None:
        runs = deadlines.run_policies(trace, *job, start_tick=args.start_tick, **common)
        if runs["on-demand"] is None:
            return _print_unmeetable(args, policies, header + [
                ("start", f"tick {args.start_tick}")], writes)
        return _deadline_single(args, trace, runs, header)
    summary = deadlines.compare_starts(trace, *job, starts=args.starts, seed=args.seed,
                                       **common)
    if summary is None:
        return _print_unmeetable(args, policies, header, writes)
    return _deadline_many(args, policies, summary, header)


def _deadline_modelled(args: argparse.Namespace, deadlines, policies: list[str],
                       nodes: int, job: tuple) -> int:
    """Without a trace: expected costs under spells of spot and outages (a Markov chain)."""
    if args.starts is not None or args.start_tick != 0:
        option = "--starts" if args.starts is not None else "--start-tick"
        raise InputError(f"{option}: start ticks need a trace (--trace); without one, "
                         "--draws sets how many availabilities are drawn")
    mtbf = args.mtbf or DEFAULTS["mtbf"]
    outage = args.outage or "1h"
    draws = 300 if args.draws is None else args.draws
    model = deadlines.spell_model(args.tick, mtbf, outage, nodes)
    found = deadlines.expected_costs(model, args.tick, *job, draws=draws, seed=args.seed,
                                     policies=policies, billing=args.billing)
    own = (deadlines.model_expected_cost(model, args.tick, *job, billing=args.billing)
           if "model" in policies else None)  # solved only when asked for
    if args.json:
        print(_dump({"draws": draws, "seed": args.seed,
                     "stay_up": model.stay_up, "stay_down": model.stay_down,
                     "model_expected_cost": own,
                     "policies": {_key(policy): None if found is None
                                  else found[policy].as_dict() for policy in policies}}))
        return 0
    gang = "" if nodes == 1 else f" (a gang of {nodes}: any node's preemption ends it)"
    print(two_columns([
        ("spot", f"spells end at N/MTBF (MTBF {mtbf}){gang}, outages last {outage} on "
                 f"average; a Markov chain on ticks of {args.tick}"),
        ("job", f"{args.compute} of compute by {args.deadline}, changeover "
                f"{args.changeover}, spot discount {args.discount}, billed per {args.billing}"),
        ("draws", f"{draws} availabilities drawn with seed {args.seed}"),
    ], wrap=False))
    if found is None:
        print(_unmeetable(args))
        return 0
    print(f"\n{'policy':<17} {'mean cost':>9} {'± se':>6} {'of OD':>6} {'met':>5} "
          f"{'spot share':>10} {'changes':>7}")
    for policy, row in found.items():
        print(f"{policy:<17} {row.cost:9.2f} {row.cost_se:6.2f} {row.cost_share:6.0%} "
              f"{row.met:5.0%} {row.spot_compute_share:10.0%} {row.changeovers:7.1f}")
    if own is not None:
        print(f"\nthe model policy's own expectation (on its grid, before the Safety "
              f"Net): {own:.2f}")
    return 0


def _duration(name: str, value) -> float:
    return float(check_duration(name, value, scalar=True, bounded=True))


def _key(policy: str) -> str:
    return policy.replace("-", "_")


def _deadline_header(args: argparse.Namespace, trace) -> list[tuple[str, str]]:
    gang = "" if args.nodes == "1" else f", a gang of {args.nodes}"
    return [("trace", f"{trace.name}: {len(trace)} ticks of {trace.tick * 3600:g} s "
                      f"({duration_text(trace.hours)}){gang}"),
            ("job", f"{args.compute} of compute by {args.deadline}, changeover "
                    f"{args.changeover}, spot discount {args.discount}, billed per "
                    f"{args.billing}")]


def _unmeetable(args: argparse.Namespace, writes: str = "") -> str:
    """Why no policy can meet the deadline; ``writes``: checkpoint mode's, as text."""
    return (f"no policy can meet the deadline: on-demand from the start finishes after "
            f"{args.changeover} + {args.compute}{writes}, later than {args.deadline}")


def _print_unmeetable(args: argparse.Namespace, policies, rows: list[tuple[str, str]],
                      writes: str) -> int:
    """The answer where no policy can meet the deadline, one or many starts alike."""
    reason = _unmeetable(args, writes)
    if args.json:
        print(_dump({"policies": {_key(policy): None for policy in policies},
                     "unmeetable": reason}))
    else:
        print(two_columns(rows, wrap=False))
        print(reason)
    return 0


def _deadline_single(args: argparse.Namespace, trace, runs: dict,
                     header: list[tuple[str, str]]) -> int:
    if args.json:
        print(_dump({"policies": {_key(policy): run.as_dict()
                                  for policy, run in runs.items()}}))
        return 0
    rows = header + [("start", f"tick {args.start_tick}")]
    window = args.start_tick * trace.tick + check_duration("deadline", args.deadline,
                                                          scalar=True, bounded=True)
    if window > trace.hours + 1e-9:
        rows.append(("note", f"the trace ends {duration_text(window - trace.hours)} before "
                             "the deadline: no spot after its end"))
    print(two_columns(rows, wrap=False))
    base = runs["on-demand"].cost
    print(f"\n{'policy':<17} {'cost':>7} {'of OD':>6} {'finish':>8} {'met':>4} "
          f"{'spot h':>7} {'OD h':>7} {'changes':>7} {'preempt':>7}")
    for policy, run in runs.items():
        print(f"{policy:<17} {run.cost:7.2f} {run.cost / base:6.0%} {run.finish_h:7.2f}h "
              f"{'yes' if run.met else 'NO':>4} {run.spot_compute_h:7.2f} "
              f"{run.on_demand_compute_h:7.2f} {run.changeovers:7d} {run.preemptions:7d}")
    print("\ncosts in on-demand hours; spot h and OD h: compute done on each")
    return 0


def _deadline_many(args: argparse.Namespace, policies: list[str], summary,
                   header: list[tuple[str, str]]) -> int:
    rows = {policy: summary.row(policy) for policy in policies}
    if args.json:
        print(_dump({"starts": len(summary.starts), "seed": args.seed,
                     "policies": {_key(policy): row for policy, row in rows.items()}}))
        return 0
    print(two_columns(header + [
        ("starts", f"{len(summary.starts)} start ticks drawn with seed {args.seed}")], wrap=False))
    print(f"\n{'policy':<17} {'mean cost':>9} {'± sd':>6} {'of OD':>6} {'met':>5} "
          f"{'spot share':>10} {'changes':>7} {'gap closed':>10}")
    small = {"greedy", "omniscient"} <= set(rows) and rows["greedy"]["gap_closed"] is None
    for policy, row in rows.items():
        compute = row["spot_compute_h"] + row["on_demand_compute_h"]
        gap = ("" if policy == "on-demand" else "n/a" if row["gap_closed"] is None
               else f"{row['gap_closed']:.0%}")
        print(f"{policy:<17} {row['cost']:9.2f} {row['cost_std']:6.2f} "
              f"{row['cost_share']:6.0%} {row['met']:5.0%} "
              f"{row['spot_compute_h'] / compute:10.0%} {row['changeovers']:7.1f} "
              f"{gap:>10}")
    print("\nmeans over the starts; costs in on-demand hours; gap closed: the share of "
          "greedy's excess over the omniscient optimum that a policy saves"
          + ("; n/a: greedy is within 1% of on-demand's cost of the optimum, no gap to "
             "speak of" if small else ""))
    return 0


#: The documented keys of `spotmath cluster --json` (docs/commands.md), in order.
CLUSTER_KEYS = ("gang_size", "load", "star", "preemption_rate_per_up_hour", "up_share",
                "readmission_wait_h", "up_time_mean_h", "up_time_cv", "restart_h",
                "recommended_interval_h", "waste_exact", "interval_exact_law_h",
                "waste_exact_law", "two_pools_inference_gpus", "two_pools_training_per_day",
                "one_pool_headroom_gpus", "one_pool_training_per_day",
                "one_pool_p99_start_s", "verdict")


def _cluster(args: argparse.Namespace) -> int:
    """`spotmath cluster`: a gang in a shared pool, from the pool's own load."""
    from .model.cluster import SharedPool, gang_in_pool
    from .model.cluster_renewal import MAX_EXACT_LEVELS, best_interval
    from .model.pool_choice import one_pool_or_two

    options = {"gpus": "--gpus", "hp_rate": "--hp-rate", "hp_hold": "--hp-hold",
               "hp_gpus": "--hp-gpus", "gang_size": "--nodes"}
    try:
        pool = SharedPool.checked(args.gpus, args.hp_rate, args.hp_hold, args.hp_gpus)
        gang = gang_in_pool(pool, args.nodes)
    except InputError as error:
        raise error.renamed(options.get(error.name, error.name), options) from None
    checkpoint, restart, grace, target = (
        check_duration(name, value, allow_zero=True, scalar=True, bounded=True)
        for name, value in (("--checkpoint", args.checkpoint), ("--restart", args.restart),
                            ("--grace", args.grace), ("--start-target", args.start_target)))
    interval = gang.interval(checkpoint, grace)
    exact, choice, unanswered = (None, None), None, None
    if pool.top >= MAX_EXACT_LEVELS:
        unanswered = (f"the exact up-time law is computed for pools of fewer than "
                      f"{MAX_EXACT_LEVELS} requests at once; this one holds {pool.top}")
    elif checkpoint == 0:
        unanswered = "a write of 0 hours has no optimal interval"
    else:
        exact = best_interval(pool, gang, checkpoint, restart, grace)
        try:
            choice = one_pool_or_two(pool, gang.gang_size, checkpoint, restart, grace, target)
        except InputError as error:
            unanswered = str(error).split(": ", 1)[1]
    finite = None if gang.never_preempted else gang.up_time_mean
    values = dict(zip(CLUSTER_KEYS, (
        gang.gang_size, pool.load, gang.star, gang.preemption_rate, gang.up_share,
        gang.readmission_wait, finite, gang.up_time_cv, _finite(gang.restart_time(restart)),
        None if interval == float("inf") else interval,
        gang.waste(checkpoint, restart, grace),
        None if exact[0] in (None, float("inf")) else exact[0],
        None if exact[1] is None else 1.0 - exact[1],
        *((None,) * 6 if choice is None else (
            choice.two.inference_gpus, choice.two.training_per_day,
            choice.one_kept.headroom, choice.one_kept.training_per_day,
            choice.one_kept.p99_start * 3600, choice.verdict))
    )))
    if args.json:
        print(_dump(values))
        return 0
    print(f"pool: {pool.gpus} GPUs; high-priority load {pool.load:.3g} requests of "
          f"{pool.hp_gpus} GPUs (at most {pool.top} at once)")
    if gang.never_preempted:
        print(f"a gang of {gang.gang_size} fits beside every request the pool can hold: "
              "never preempted, nothing to checkpoint against")
    else:
        _print_gang(gang, values, interval)
    if choice is None:
        print(f"one pool or two: not answered: {unanswered}")
    else:
        _print_choice(choice, gang.gang_size)
    return 0


def _print_gang(gang, values: dict, interval: float) -> None:
    """The gang's lines of `spotmath cluster`."""
    print(f"a gang of {gang.gang_size} is up while at most {gang.star} requests run")
    print(f"preemption rate    {gang.preemption_rate:.4g}/h per up hour "
          f"(mean up time {_hours(gang.up_time_mean)}, CV {gang.up_time_cv:.2f}; "
          "Poisson's would be 1)")
    print(f"time up            {gang.up_share:.1%}")
    back = ("training never runs again: preemptions come faster than the start-up ends"
            if values["restart_h"] is None else f"with the start-up, "
            f"{_hours(values['restart_h'])} from a preemption to training again")
    print(f"re-admission wait  {_hours(gang.readmission_wait)} on average; {back}")
    if interval == float("inf"):
        print("checkpoint         on notice only: the grace period fits a write, and no "
              "periodic write does better")
    else:
        print(f"checkpoint every   {_hours(interval)} (exact optimum at the pool's rate)")
    print(f"waste              {values['waste_exact']:.1%} of the hours, up or waiting")
    if values["waste_exact_law"] is not None:
        every = ("on notice only" if values["interval_exact_law_h"] is None
                 else f"every {_hours(values['interval_exact_law_h'])}")
        print(f"exact up-time law  {every}, waste {values['waste_exact_law']:.1%} (up "
              "times are not exponential)")


def _print_choice(choice, gang_size: int) -> None:
    """The one-pool-or-two lines of `spotmath cluster`."""
    two, one = choice.two, choice.one_kept

    def start(design) -> str:
        return "∞ (more than 1% turned away)" if design.p99_start == float("inf") \
            else f"{design.p99_start * 3600:.0f} s"

    print(f"one pool or two    (inference sized so that 99% of requests find room; "
          f"training in gangs of {gang_size})")
    def gangs(design) -> str:
        return f"{design.gangs} gang{'' if design.gangs == 1 else 's'}"

    print(f"  two pools        inference {two.inference_gpus} GPUs, training "
          f"{two.training_gpus} ({gangs(two)}): {two.training_per_day:,.0f} "
          f"GPU-hours of training kept a day; p99 start {start(two)}")
    print(f"  one pool         training behind {one.headroom} GPUs of headroom "
          f"({gangs(one)}): {one.training_per_day:,.0f} GPU-hours a day; p99 start "
          f"{start(one)}")
    gain = ("" if choice.two.training_per_day == 0
            else f": {choice.gain:+.0%} training a day")
    print(f"verdict            {choice.verdict}{gain}, the p99 start within "
          f"{choice.start_target * 3600:.0f} s")


def _finite(value: float) -> float | None:
    """A number for JSON: None where it is infinite."""
    return None if math.isinf(value) else value


def _hours(hours: float) -> str:
    """Hours as the plan prints them: minutes below two hours."""
    return f"{hours * 60:.1f} min" if hours < 2 else f"{hours:.2f} h"


def _derive(args: argparse.Namespace) -> int:
    """`spotmath derive`: the titles and LaTeX as codegen printed them from the derivations
    (so without SymPy: the test suite holds them equal); ``--sympy`` derives anew."""
    from .model._generated import LATEX, TITLES

    if args.list or args.name is None:
        for name, title in TITLES.items():
            print(f"{name:<30} {title}")
        return 0
    name = check_choice("derivation", args.name, tuple(TITLES))
    if args.form == "latex":
        print(LATEX[name])
        return 0
    from .model.derivations import derivation

    print(derivation(name))
    return 0


def _book(args: argparse.Namespace) -> int:
    """`spotmath book`: the only command that loads the book's machinery."""
    from .book.edition import EditionError, Stopped, make_edition, read_parameters

    parameters = read_parameters(args.params, args.parameter or [])
    tty = sys.stdout.isatty()

    def progress(line: str, final: bool = True) -> None:
        """One line, rewritten in place on a terminal; a line per change elsewhere."""
        if tty:
            print(f"\r\033[K{line}", end="\n" if final else "", flush=True)
        else:
            print(line, flush=True)

    try:
        make_edition(args.out, parameters, force=args.force, progress=progress)
    except EditionError as error:  # a chapter or the HTML build failed: one line
        print(f"spotmath book: error: {error}", file=sys.stderr)
        return 2
    except Stopped as stop:  # Ctrl-C or SIGTERM while it built
        if tty:
            print(flush=True)  # end the progress line
        print("spotmath book: stopped; the edition's folder is as it was", file=sys.stderr)
        return stop.code
    return 0


def _job_options(parser: argparse.ArgumentParser,
                 checkpoint: str | None = DEFAULTS["checkpoint"]) -> None:
    """The restart and checkpoint-write options, the same in plan, fit and replay (plan
    and fit leave --checkpoint unset, to tell it from --state)."""
    parser.add_argument("--restart", default=DEFAULTS["restart"],
                        help="time from preemption to computing again (default 10min)")
    parser.add_argument("--checkpoint", default=checkpoint,
                        help="blocking time of one checkpoint write (default 1min)")


def _plan_options(parser: argparse.ArgumentParser) -> None:
    """The options of `spotmath plan` that `spotmath fit` shares."""
    _job_options(parser, checkpoint=None)
    parser.add_argument("--state", help="the checkpoint's size, e.g. 13.2GB: with "
                                        "--write-bandwidth, instead of --checkpoint")
    parser.add_argument("--write-bandwidth", help="bytes a second to durable storage, e.g. "
                                                  "1.2GB/s (with --state)")
    parser.add_argument("--snapshot-bandwidth",
                        help="asynchronous writes: bytes a second to host memory, e.g. "
                             "55GB/s; the write to storage then runs behind the training "
                             "(it sets --persist)")
    parser.add_argument("--discount", default=DEFAULTS["discount"],
                        help="spot discount against on-demand, 0.6 or 60%% (default 0.6)")
    parser.add_argument("--nodes", default="1",
                        help="nodes in the synchronous gang; the job is preempted at N·λ")
    parser.add_argument("--model", default=CHOICES["model"][0], choices=CHOICES["model"],
                        help="exact renewal-reward model (default) or the first-order "
                             "formula")
    parser.add_argument("--restart-variant", default=CHOICES["restart-variant"][0],
                        choices=CHOICES["restart-variant"],
                        help="exact model: can a restart itself be preempted? (default yes)")
    parser.add_argument("--notice", help="warning before a preemption, e.g. 2min (needs "
                                         "--notice-share)")
    parser.add_argument("--notice-share",
                        help="measured share of preemptions whose notice arrives and is "
                             "acted on, 0 to 1 or 90%%")
    parser.add_argument("--notice-write",
                        help="on-notice checkpoint write, durable before the reclaim "
                             "(default: checkpoint + persist)")
    parser.add_argument("--persist", help="asynchronous checkpoints: time after the "
                                          "blocking write until durable (default 0; with "
                                          "--level1, the durable write's)")
    parser.add_argument("--level1", help="two-level checkpoints: a fast write (peer memory, "
                                         "local disk), e.g. 5s; --checkpoint and --restart "
                                         "are then the durable level's")
    parser.add_argument("--level1-restart", help="restart from a fast copy (default: "
                                                 "--restart)")
    parser.add_argument("--level1-loss", help="share of preemptions that take the fast "
                                              "copies with them, 0 to 1 or 30%%")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")


def _trace_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trace", type=Path, help="the trace file")
    parser.add_argument("--format", choices=["spotmath", "bamboo"],
                        help="the trace's format (default: detected from its first line)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="spotmath", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"spotmath {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    plan = commands.add_parser(
        "plan", help="optimal checkpoint interval and whether spot pays, for your numbers",
        description="Optimal checkpoint interval, waste, break-even and gang limits. "
                    "Durations take units (90s, 10min, 4h, 1.5d; a bare number is hours). "
                    "Defaults are the book's: MTBF 4h, restart 10min, checkpoint 1min, "
                    "discount 0.6.")
    source = plan.add_mutually_exclusive_group()
    source.add_argument("--mtbf", default=DEFAULTS["mtbf"],
                        help="mean time between preemptions of one node (default 4h)")
    source.add_argument("--rate", help="preemption rate of one node instead, e.g. 0.25/h")
    _plan_options(plan)
    plan.add_argument("--compute", help="a job with a deadline: its compute, e.g. 6h "
                                        "(with --deadline)")
    plan.add_argument("--deadline", help="time from the start by which it must finish")
    plan.add_argument("--outage", help="mean time spot stays away once gone (default 1h)")
    plan.set_defaults(run=_plan)

    fit = commands.add_parser(
        "fit", help="fit a spot trace: rate, Weibull shape, co-preemption, and the plan",
        description="Fit the preemptions of a trace (CSV time_s,node,event, or a Bamboo "
                    "trace): the rate per node-hour with its exact 95%% interval, the "
                    "censored Weibull shape, the share of preemptions that come together, "
                    "and the plan at the fitted rate.")
    _trace_options(fit)
    fit.add_argument("--window", default="60s",
                     help="preemptions at most this far apart count as together "
                          "(default 60s)")
    _plan_options(fit)
    fit.add_argument("--level1-group",
                     help="fast copies held by groups of this many nodes of the gang "
                          "(2: a pairwise backup): measure how often a preemption event "
                          "takes them (events: preemptions within --level1-restart); with "
                          "--level1, plan two levels at that share")
    fit.set_defaults(run=_fit)

    replay_ = commands.add_parser(
        "replay", help="replay a checkpoint interval on a spot trace: the waste it cost",
        description="Replay checkpointing on a trace: every complete lifetime is a paid "
                    "up-period that restarts (R), then computes T and writes C in turn; "
                    "the compute of completed segments is useful. --nodes N replays a "
                    "synchronous gang on the pool instead.")
    _trace_options(replay_)
    replay_.add_argument("--interval", help="compute between checkpoints (default: the "
                                            "exact optimum at the trace's rate)")
    _job_options(replay_)
    replay_.add_argument("--nodes", help="replay a synchronous gang of N on the pool")
    replay_.add_argument("--scan", action="store_true",
                         help="also find the best fixed interval on the trace")
    replay_.add_argument("--level1", help="two-level checkpoints: the fast write (needs "
                                          "--nodes and --level1-group)")
    replay_.add_argument("--level1-restart", help="restart from a fast copy (default: "
                                                  "--restart), also an event's window")
    replay_.add_argument("--level1-group", help="fast copies held by groups of this many "
                                                "nodes, placed at random")
    replay_.add_argument("--level2-every", help="a durable write every n-th write (with "
                                                "--interval; default: the optimum)")
    replay_.add_argument("--seed", type=int, default=0,
                         help="seed of the random groups (default 0)")
    replay_.add_argument("--json", action="store_true", help="print one JSON object instead")
    replay_.set_defaults(run=_replay)

    deadline = commands.add_parser(
        "deadline", help="a job with a deadline: when to fall back to on-demand, and the cost",
        description="Run the deadline policies of Can't Be Late (on-demand, greedy, "
                    "uniform progress, and the omniscient optimum) on an availability "
                    "trace: a Can't Be Late JSON trace, a CSV time_s,available (in "
                    "both, a tick's value is the number of instances available: 0 = no "
                    "spot), a group-size log, or an instance trace. Costs are in "
                    "on-demand hours.")
    deadline.add_argument("--trace", type=Path,
                          help="the availability trace (without one: --mtbf and --outage)")
    deadline.add_argument("--mtbf", help="without a trace: one node's mean time between "
                                         "preemptions while spot is there (default 4h)")
    deadline.add_argument("--outage", help="without a trace: mean time spot stays away "
                                           "(default 1h)")
    deadline.add_argument("--draws", type=int, help="without a trace: availabilities drawn "
                                                    "(default 300)")
    deadline.add_argument("--format", choices=["cbl-json", "csv", "group-sizes", "spotmath",
                                               "bamboo"],
                          help="the trace's format (default: detected)")
    deadline.add_argument("--tick", default="10min",
                          help="ticks an instance trace or group-size log is cut into "
                               "(default 10min)")
    deadline.add_argument("--nodes", default="1",
                          help="a gang: spot only in ticks with at least N instances "
                               "available (default 1)")
    deadline.add_argument("--compute", required=True, help="compute the job needs, e.g. 48h")
    deadline.add_argument("--deadline", required=True,
                          help="time from the start by which it must finish, e.g. 60h")
    deadline.add_argument("--changeover", default="12min",
                          help="time a new instance makes no progress (default 12min, the "
                               "paper's 0.2 h)")
    deadline.add_argument("--discount", default=DEFAULTS["discount"],
                          help="spot discount against on-demand (default 0.6)")
    deadline.add_argument("--policy", action="append", choices=[
        "on-demand", "greedy", "uniform-progress", "omniscient", "model"],
        help="a policy to run (repeatable; default all)")
    starts = deadline.add_mutually_exclusive_group()
    starts.add_argument("--start-tick", type=int, default=0,
                        help="one run from this tick (default 0)")
    starts.add_argument("--starts", type=int, help="runs from K start ticks drawn at random")
    deadline.add_argument("--seed", type=int, default=0,
                          help="seed for drawing the start ticks (default 0)")
    deadline.add_argument("--interval", help="checkpoint mode: compute between writes, or "
                                             "'auto' (the exact optimum at the trace's rate)")
    deadline.add_argument("--checkpoint", help="checkpoint mode: blocking time of one write "
                                               "(default 1min)")
    deadline.add_argument("--billing", choices=["tick", "second"], default="tick",
                          help="bill the finishing tick whole (default) or to the second")
    deadline.add_argument("--json", action="store_true", help="print one JSON object instead")
    deadline.set_defaults(run=_deadline)

    cluster = commands.add_parser(
        "cluster", help="a gang in your own shared GPU pool: preemption derived from its load",
        description="A training gang of --nodes GPUs in a pool of --gpus, preempted by "
                    "high-priority requests (Poisson, --hp-rate; each --hp-gpus GPUs for a "
                    "mean --hp-hold): its preemption rate per up hour (Erlang's B), time "
                    "up, wait for re-admission, up-time CV, and the interval and waste. "
                    "Durations and rates take units (20min, 6/h).")
    cluster.add_argument("--gpus", required=True, help="GPUs in the pool")
    cluster.add_argument("--hp-rate", required=True,
                         help="high-priority requests per hour, e.g. 6/h")
    cluster.add_argument("--hp-hold", required=True,
                         help="mean time a high-priority request holds its GPUs, e.g. 2h")
    cluster.add_argument("--hp-gpus", default="1", help="GPUs each request takes (default 1)")
    cluster.add_argument("--nodes", default="1", help="GPUs the training gang needs")
    cluster.add_argument("--grace", default="0",
                         help="grace period before a preempted gang is killed, e.g. 30s "
                              "(a write that fits in it is made on notice)")
    cluster.add_argument("--start-target", default="0s",
                         help="p99 start delay inference may have, e.g. 10s (default 0s); "
                              "for one pool or two")
    _job_options(cluster)
    cluster.add_argument("--json", action="store_true", help="print one JSON object instead")
    cluster.set_defaults(run=_cluster)

    derive = commands.add_parser("derive", help="print a derivation, e.g. for a paper")
    derive.add_argument("name", nargs="?", help="a derivation name (see --list)")
    derive.add_argument("--list", action="store_true", help="list the derivations")
    form = derive.add_mutually_exclusive_group()
    form.add_argument("--latex", dest="form", action="store_const", const="latex",
                      help="LaTeX (default)")
    form.add_argument("--sympy", dest="form", action="store_const", const="sympy",
                      help="SymPy's plain text")
    derive.set_defaults(run=_derive, form="latex")
    book = commands.add_parser(
        "book", help="rerun every chapter with your parameters and build your own edition",
        description="Execute every chapter with papermill using your parameters and build "
                    "the HTML book into OUT. Names and values are checked before anything "
                    "runs; book/ is never written.")
    book.add_argument("--params", type=Path, help="YAML file of name: value parameters")
    book.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                      help="one parameter (repeatable); VALUE is read as YAML: 4, 0.6, [1, 8]")
    book.add_argument("--out", type=Path, required=True,
                      help="folder for your edition: new, empty, or an earlier edition")
    book.add_argument("--force", action="store_true",
                      help="replace an earlier edition in OUT (never anything else)")
    book.set_defaults(run=_book)
    return parser


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The parser, built once per process: parsing leaves it as it was, and building it
    takes a few milliseconds that in-process callers (the tests, the book) would repeat."""
    return build_parser()


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        code = args.run(args)
        sys.stdout.flush()  # inside the try: a reader that stopped reading is seen here
        return code
    except BrokenPipeError:
        # The reader stopped reading (`spotmath fit t.csv | head -1`): stop quietly, with
        # the status of a process ended by SIGPIPE, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except InputError as error:
        print(f"spotmath {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"spotmath {args.command}: stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
