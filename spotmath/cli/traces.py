"""`spotmath fit` and `spotmath replay`: a trace's fit and plan, and checkpoint schedules
replayed on it.
"""

from __future__ import annotations

import argparse

from ..inputs import InputError, check_duration, check_gang_size, duration_text
from ..model.plan import Plan
from ..report import plan_table, two_columns
from .options import _as_typed, _dump, _plan_values, _shared_plan_flags
from .plan import _make_plan

__all__ = []


def _gang_rows(trace, rate: float) -> list[tuple[str, str]]:
    """A row saying that a run log's lifetimes are a gang's (none for other traces)."""
    if trace.gang_size is None:
        return []
    return [("a run log", f"each lifetime is the whole gang's (N = {trace.gang_size}): the "
                          f"rate is the gang's, Nλ, one node's λ {rate / trace.gang_size:.3g}"
                          "/h; the plan below is for the gang as one node")]


def _fit(args: argparse.Namespace) -> int:
    from ..model.numerics import optimal_interval
    from ..traces.fitting import fit_trace, preemptions_needed
    from ..traces.reading import read_trace

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
    across = [float(optimal_interval(rate * plan.gang_size, plan.checkpoint_cost_h, plan.model))
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
        *_gang_rows(trace, fit.preemption_rate),
        *shape_rows,
        (f"co-preemption ({fit.window_s:g} s)",
         f"{fit.co_preemption_share:.1%} of preemptions have another within "
         f"{fit.window_s:g} s; {fit.co_preemption_share_independent:.1%} if independent"),
    ]
    interval_range = " to ".join(duration_text(value) for value in across)
    print(two_columns(rows, wrap=False))
    print("\nthe plan at the fitted rate (as spotmath plan):")
    print(plan_table(plan))
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
            print(plan_table(levels))
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
    return _make_plan(with_loss, copies.event_rate / copies.gang_size), ""


def _replay_two_level(args: argparse.Namespace, trace, cost: float, restart: float,
                      gang_size: int | None) -> int:
    """spotmath replay --level1 ...: the two-level schedule on the pool's real instances."""
    from ..traces.fast_copies import replay_fast_copies

    for option, value in (("--level1", args.level1), ("--level1-group", args.level1_group),
                          ("--gang-size", gang_size)):
        if value is None:
            raise InputError(f"{option}: required to replay two-level checkpoints")
    if args.scan:
        raise InputError("--scan: not for two-level checkpoints (the pattern is the "
                         "model's optimum or --interval with --level2-every)")
    if (args.interval is None) != (args.level2_every is None):
        raise InputError("--level2-every: goes with --interval (or give neither for the "
                         "optimum at the fitted rate and share)")
    fast = check_duration("--level1", args.level1, scalar=True, bounded=True)
    fast_restart = (restart if args.level1_restart is None else check_duration(
        "--level1-restart", args.level1_restart, allow_zero=True, scalar=True, bounded=True))
    levels = dict(level1_cost=fast, checkpoint_cost=cost, level1_restart=fast_restart,
                  restart_time=restart)
    try:  # without --interval, the optimum at the fitted rate and share
        result = replay_fast_copies(trace, gang_size, args.level1_group, interval=args.interval,
                                    level2_every=args.level2_every, seed=args.seed, **levels)
    except InputError as error:
        raise _as_typed(error, mentions=("interval",)) from None
    if args.json:
        print(_dump(result.as_dict()))
        return 0
    fit = result.fit
    model = "n/a" if result.model_waste is None else f"{result.model_waste:.1%}"
    print(two_columns([
        ("trace", f"{result.trace}, a gang of {result.gang_size}, fast copies held by random "
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
    from ..traces.fast_copies import fit_fast_copies

    window = plan.restart_time_h if args.level1_restart is None else args.level1_restart
    try:
        return fit_fast_copies(trace, plan.gang_size, args.level1_group, window)
    except InputError as error:
        raise _as_typed(error) from None


def _fast_copy_rows(copies, args: argparse.Namespace) -> list[tuple[str, str]]:
    low, high = copies.event_rate_ci95
    rows = [
        ("gang events", f"{copies.events} in {copies.held_hours:.4g} h the gang of "
                        f"{copies.gang_size} held (preemptions within "
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
    command = " ".join([f"--rate {copies.event_rate / copies.gang_size:.4g}/h", "--gang-size",
                        str(copies.gang_size), *_shared_plan_flags(
                            args, {"rate", "mtbf", "gang_size", "level1_loss", "json"}),
                        f"--level1-loss {loss:.3g}"])
    note = [] if copies.level1_loss > 0 else [
        ("", f"(no copy lost in {copies.events} events: at the share's 95% bound)")]
    return rows + [("for spotmath plan", command), *note]


def _replay(args: argparse.Namespace) -> int:
    from ..model import numerics
    from ..traces.reading import read_trace
    from ..traces.replay import best_fixed_interval, replay

    trace = read_trace(args.trace, args.format)
    cost = check_duration("--checkpoint", args.checkpoint, scalar=True, bounded=True)
    restart = check_duration("--restart", args.restart, allow_zero=True, scalar=True,
                             bounded=True)
    gang_size = None if args.gang_size is None else check_gang_size("--gang-size", args.gang_size)
    two_level = (args.level1, args.level1_group, args.level2_every, args.level1_restart)
    if any(value is not None for value in two_level):
        return _replay_two_level(args, trace, cost, restart, gang_size)
    if args.interval is not None:
        interval = check_duration("--interval", args.interval, scalar=True, bounded=True)
    elif trace.preemptions == 0:
        raise InputError(f"{trace.name}: no preemptions: nothing to replay")
    else:  # the exact optimum at the trace's rate (the gang's Nλ)
        interval = float(numerics.exact_interval(trace.preemption_rate * (gang_size or 1), cost))
    try:  # the library names its parameters: name the options the reader typed
        result = replay(trace, interval, cost, restart, gang_size)
        values = result.as_dict()
        if args.scan:
            best, best_waste = best_fixed_interval(trace, cost, restart, gang_size)
            optimum = float(numerics.exact_interval(result.model_rate, cost))
            values.update(best_interval_h=best, best_waste=best_waste,
                          model_interval_h=optimum, model_interval_waste=replay(
                              trace, optimum, cost, restart, gang_size).waste)
    except InputError as error:
        raise _as_typed(error, mentions=("interval",)) from None
    if args.json:
        print(_dump(values))
        return 0
    unit = "node-hours" if gang_size else "hours"
    rows = [
        ("trace", f"{result.trace}, " + (f"a synchronous gang of {gang_size} on the pool"
                                         if gang_size else "one node per lifetime")
                  + f" ({result.lifetimes_used} used, {result.censored} censored left out)"),
        ("schedule", f"checkpoint every {duration_text(interval)}, write "
                     f"{duration_text(cost)}, restart {duration_text(restart)}"),
        ("replayed waste", f"{result.waste:.1%} ± {result.waste_standard_error:.1%} (paid "
                           f"{result.paid_hours:.4g} {unit}, useful {result.useful_hours:.4g})"),
        ("exact Poisson model", f"{result.poisson_waste:.1%} at "
                                f"{'Nλ = ' if gang_size else 'the trace rate '}"
                                f"{result.model_rate:.3g}/h"),
    ]
    if gang_size:
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
