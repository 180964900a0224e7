"""`spotmath deadline`: the policies on an availability trace or a model of one, from one
start or many.
"""

from __future__ import annotations

import argparse

from ..inputs import InputError, check_duration, check_gang_size, duration_text
from ..model.plan import DEFAULTS
from ..report import two_columns
from .options import _as_typed, _dump, _duration

__all__ = []


def _deadline(args: argparse.Namespace) -> int:
    from ..traces import deadlines

    try:
        return _deadline_report(args, deadlines)
    except InputError as error:  # name the option the reader typed
        raise _as_typed(error) from None


#: The tick without --tick (the library's default, as the option takes it).
TICK = "10min"


def _deadline_report(args: argparse.Namespace, deadlines) -> int:
    policies = list(dict.fromkeys(args.policy or deadlines.POLICIES))
    if "on-demand" not in policies:  # every cost is read against it
        policies.insert(0, "on-demand")
    gang_size = check_gang_size("gang_size", args.gang_size)
    job = (args.compute, args.deadline, args.changeover, args.discount)
    if args.interval is not None and args.checkpoint is None:
        args.checkpoint = DEFAULTS["checkpoint"]
    if args.trace is None:
        if args.interval is not None:
            raise InputError("--interval: checkpoint mode needs a trace (--trace)")
        if args.prior_trace:
            raise InputError("--prior-trace: other traces lend their spells to a trace's "
                             "fit; give the trace (--trace)")
        return _deadline_modelled(args, deadlines, policies, gang_size, job)
    for option in ("mtbf", "outage", "draws"):
        if getattr(args, option) is not None:
            raise InputError(f"--{option}: describes availability without a trace; "
                             "with --trace the trace says when spot is there")
    trace = deadlines.read_availability(args.trace, args.format, args.tick or TICK)
    if trace.own_tick and args.tick is not None:
        raise InputError(f"--tick: {trace.name} sets its own tick ({trace.tick * 3600:g} s); "
                         "--tick cuts instance traces and group-size logs into ticks")
    trace.check_gang(gang_size)
    common = dict(policies=policies, gang_size=gang_size, billing=args.billing)
    header = _deadline_header(args, trace)
    if args.prior_trace:
        common.update(others=[deadlines.read_availability(path, args.format,
                                                          args.tick or TICK)
                              for path in args.prior_trace])
        header.append(("prior", f"the model policy's fit takes the spells of "
                                f"{len(args.prior_trace)} other trace"
                                f"{'s' * (len(args.prior_trace) != 1)} before each start, "
                                f"as {deadlines.PRIOR_DAYS} days of its own at most"))
    writes = ""  # checkpoint mode's writes, for the line where no policy can meet it
    if args.interval is not None:
        interval = deadlines.resolve_interval(trace, args.interval, args.checkpoint, gang_size)
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
    try:
        if args.starts is None:
            runs = deadlines.run_policies(trace, *job, start_tick=args.start_tick, **common)
        else:
            summary = deadlines.compare_starts(trace, *job, starts=args.starts,
                                               seed=args.seed, **common)
    except deadlines.OptimumTooLarge as error:  # the file's tick is not the reader's
        raise error.for_fixed_tick() if trace.own_tick else error from None
    if args.starts is None:
        if runs["on-demand"] is None:
            return _print_unmeetable(args, policies, header + [
                ("start", f"tick {args.start_tick}")], writes)
        return _deadline_single(args, trace, runs, header)
    if summary is None:
        return _print_unmeetable(args, policies, header, writes)
    return _deadline_many(args, policies, summary, header)


def _deadline_modelled(args: argparse.Namespace, deadlines, policies: list[str],
                       gang_size: int, job: tuple) -> int:
    """Without a trace: expected costs under spells of spot and outages (a Markov chain)."""
    if args.starts is not None or args.start_tick != 0:
        option = "--starts" if args.starts is not None else "--start-tick"
        raise InputError(f"{option}: start ticks need a trace (--trace); without one, "
                         "--draws sets how many availabilities are drawn")
    mtbf = args.mtbf or DEFAULTS["mtbf"]
    outage = args.outage or "1h"
    draws = 300 if args.draws is None else args.draws
    tick = args.tick or TICK
    model = deadlines.spell_model(tick, mtbf, outage, gang_size)
    found = deadlines.expected_costs(model, tick, *job, draws=draws, seed=args.seed,
                                     policies=policies, billing=args.billing)
    own = (deadlines.model_expected_cost(model, tick, *job, billing=args.billing)
           if "model" in policies else None)  # solved only when asked for
    if args.json:
        print(_dump({"draws": draws, "seed": args.seed,
                     "stay_up": model.stay_up, "stay_down": model.stay_down,
                     "model_expected_cost": own,
                     "policies": {_key(policy): None if found is None
                                  else found[policy].as_dict() for policy in policies}}))
        return 0
    gang = "" if gang_size == 1 else f" (a gang of {gang_size}: any node's preemption ends it)"
    print(two_columns([
        ("spot", f"spells end at N/MTBF (MTBF {mtbf}){gang}, outages last {outage} on "
                 f"average; a Markov chain on ticks of {tick}"),
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


def _key(policy: str) -> str:
    return policy.replace("-", "_")


def _deadline_header(args: argparse.Namespace, trace) -> list[tuple[str, str]]:
    gang = "" if args.gang_size == "1" else f", a gang of {args.gang_size}"
    probes = ("" if trace.gaps is None else
              f"; probes {trace.gaps[0]:g} to {trace.gaps[1]:g} s apart, each a tick")
    return [("trace", f"{trace.name}: {len(trace)} ticks of {trace.tick * 3600:g} s "
                      f"({duration_text(trace.hours)}){gang}{probes}"),
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
