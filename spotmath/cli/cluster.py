"""`spotmath cluster`: every gang in a shared pool, and one pool or two."""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math

from ..inputs import (
    HOURS_PER_YEAR,
    MAX_HOURS,
    InputError,
    check_duration,
    check_parameters,
    count_text,
    duration_text,
    figures_text,
)
from ..model.plan import finite_or_none
from .options import _as_typed, _dump

__all__ = ["CLUSTER_KEYS", "RANK_KEYS"]


#: The documented keys of `spotmath cluster --json` (docs/commands.md), in order: the gang
#: of --gang-size with the pool to itself (rank 1), every rank, then one pool or two.
CLUSTER_KEYS = ("gang_size", "load", "overflow", "turned_away", "hp_waiting",
                "hp_p99_wait_s", "failure_mtbf_h", "gang_failures_per_up_hour", "star",
                "state",
                "preemption_rate_per_up_hour", "up_share", "readmission_wait_h",
                "up_time_mean_h", "up_time_cv", "restart_h", "recommended_interval_h",
                "waste", "exponential_interval_h", "exponential_waste",
                "exponential_predicted_waste", "gangs", "two_pools_inference_gpus",
                "two_pools_training_per_day", "one_pool_headroom_gpus",
                "one_pool_untried_offsets",
                "one_pool_training_per_day", "one_pool_p99_start_s",
                "one_pool_no_headroom_training_per_day", "two_pools_idle_gpus",
                "one_pool_idle_gpus", "verdict", "packed_gang_size", "packed_verdict",
                "packed_gain")
#: The keys of each entry of ``gangs``, rank 1 (the first admitted) first.
RANK_KEYS = ("rank", "star", "state", "preemption_rate_per_up_hour", "up_share",
             "readmission_wait_h", "up_time_mean_h", "up_time_cv",
             "recommended_interval_h", "waste")

#: Said once, for every waste the command prints.
HOURS = "every waste here is a share of a gang's hours in the pool, up or waiting"


def _cluster(args: argparse.Namespace) -> int:
    """`spotmath cluster`: every gang in a shared pool, from the pool's own load."""
    from ..model.cluster import GPU_FAILURE_MTBF_H, SharedPool, gang_in_pool
    from ..model.cluster_renewal import best_interval, kept_share, ranks
    from ..model.numerics import waste_fraction
    from ..model.pool_choice import one_pool_or_two

    try:
        pool = SharedPool.checked(args.gpus, args.hp_rate, args.hp_hold, args.hp_gpus,
                                  args.hp_overflow)
        gang = gang_in_pool(pool, args.gang_size)
    except InputError as error:
        raise _as_typed(error) from None
    checkpoint, restart, grace, target, load = (
        check_duration(name, value, allow_zero=True, scalar=True, bounded=True)
        for name, value in (("--checkpoint", args.checkpoint), ("--restart", args.restart),
                            ("--grace", args.grace), ("--start-target", args.start_target),
                            ("--load-time", args.load_time)))
    if checkpoint == 0:
        raise InputError("--checkpoint: a write of 0 hours has no optimal interval; give "
                         "the time one write blocks training, e.g. 1min")
    if args.failure_mtbf is None:
        mtbf = GPU_FAILURE_MTBF_H
    elif str(args.failure_mtbf).strip().lower() == "none":
        mtbf = None
    else:
        mtbf = check_duration("--failure-mtbf", args.failure_mtbf, scalar=True, bounded=True)
    per_gpu = 0.0 if mtbf is None else 1 / mtbf
    failures = per_gpu * gang.gang_size  # the gang alone, while up
    fit = pool.gpus // gang.gang_size
    try:
        count = fit if args.gangs is None else check_parameters(gangs=args.gangs)[0]
        if count > fit:
            raise InputError(f"gangs: at most {count_text(fit, 'gang')} of "
                             f"{count_text(gang.gang_size, 'GPU')} fit {pool.gpus:,} GPUs, "
                             f"got {count_text(count)}")
    except InputError as error:
        raise _as_typed(error) from None
    # one pool or two, on a thread of its own: its start-delay chains leave the interpreter
    # free while the ranks' laws are computed here (and then are its own ranks, kept)
    helper = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    choosing = helper.submit(one_pool_or_two, pool, gang.gang_size, checkpoint, restart,
                             grace, target, per_gpu, load)
    helper.shutdown(wait=False)
    try:
        every, unranked = ranks(pool, gang.gang_size, checkpoint, restart, grace, count,
                                failures=per_gpu), None
    except InputError as error:  # too much to compute: the rest is answered
        every, unranked = None, _as_typed(error).detail
    interval, kept = best_interval(pool, gang, checkpoint, restart, grace, failures)
    approximate = _exponential_interval(gang, checkpoint, grace, failures)
    values = dict.fromkeys(CLUSTER_KEYS)
    values.update(
        gang_size=gang.gang_size, load=pool.load, overflow=pool.overflow,
        turned_away=pool.overflow_share() if pool.overflow == "drop" else 0.0,
        hp_waiting=pool.overflow_share() if pool.overflow == "queue" else 0.0,
        hp_p99_wait_s=pool.line_wait() * 3600, failure_mtbf_h=mtbf,
        gang_failures_per_up_hour=failures,
        **_rank_values(None, gang, interval, kept, failing=failures > 0),
        restart_h=finite_or_none(gang.restart_time(restart)),
        exponential_interval_h=finite_or_none(approximate),
        exponential_waste=None if math.isinf(approximate)
        else 1.0 - kept_share(pool, gang, approximate, checkpoint, restart, grace, failures),
        exponential_predicted_waste=gang.waste(checkpoint, restart, grace) if failures == 0
        else float(waste_fraction(gang.preemption_rate + failures, approximate, checkpoint,
                                  gang.restart_time(restart), restart_preemptible=False)))
    try:
        choice = choosing.result()
        unanswered = None
        values.update(
            two_pools_inference_gpus=choice.two.inference_gpus,
            two_pools_training_per_day=choice.two.training_per_day,
            one_pool_headroom_gpus=choice.one_kept.headroom,
            one_pool_untried_offsets=choice.untried,
            one_pool_training_per_day=choice.one_kept.training_per_day,
            one_pool_p99_start_s=finite_or_none(choice.one_kept.p99_start * 3600),
            one_pool_no_headroom_training_per_day=choice.one.training_per_day,
            two_pools_idle_gpus=choice.two.idle_gpus,
            one_pool_idle_gpus=choice.one_kept.idle_gpus,
            verdict=choice.verdict)
    except InputError as error:
        choice, unanswered = None, str(error).split(": ", 1)[1]
    packed = None if choice is None else _packed(
        choice, pool, gang.gang_size, (checkpoint, restart, grace, target, per_gpu, load))
    if isinstance(packed, tuple) and not isinstance(packed[1], str):
        values.update(packed_gang_size=packed[0], packed_verdict=packed[1].verdict,
                      packed_gain=finite_or_none(packed[1].gain))
    if args.json:  # the ranks' keys only here: the text prints the ranks themselves
        values["gangs"] = None if every is None \
            else [_rank_values(rank, failing=failures > 0) for rank in every]
        print(_json(values))
        return 0
    _print_pool(pool, values)
    _print_gang(pool, gang, values)
    if every is None:
        print(f"every gang         not answered: {unranked}")
    else:
        _print_ranks(every, gang.gang_size)
    if choice is None:
        print(f"one pool or two    not answered: {unanswered}")
    else:
        _print_choice(choice, gang.gang_size, pool.hp_gpus)
        if packed is not None:
            _print_packed(*packed)
    return 0


def _packed(choice, pool, gang_size: int, options: tuple):
    """One pool or two again at the gang size that packs two pools' training GPUs best,
    where gangs of ``gang_size`` leave some over: (size, the choice, or why not); None
    where nothing is left over."""
    from ..model.cluster_renewal import MAX_RANKS_WORK, ranks_work
    from ..model.pool_choice import MAX_DELAY_WORK, first_run, one_pool_or_two

    training = choice.two.training_gpus
    if not choice.two.idle_gpus or training == 0:
        return None
    # the divisor of two pools' training GPUs nearest the gang (the larger on a tie)
    size = min((d for d in range(1, training + 1) if training % d == 0),
               key=lambda d: (abs(d - gang_size), -d))
    if ranks_work(pool, gang_size) + ranks_work(pool, size) > MAX_RANKS_WORK:
        return size, "the ranks of both gang sizes are more than are computed at once"
    # a second comparison runs only where its search's first start-delay run is whole:
    # one cut short would be run, and then the next one refused
    steps, states, work = first_run(pool, size, options[2])
    if work > MAX_DELAY_WORK:
        return size, (f"its start delays over a grace of {options[2] * 3600:.3g} s take "
                      f"{steps:,} steps of a chain of {states:,} states at first, more than "
                      "this command runs beside the design asked for")
    try:
        return size, one_pool_or_two(pool, size, *options)
    except InputError as error:
        return size, str(error).split(": ", 1)[1]


def _print_packed(size: int, found) -> None:
    """The verdict at the gang size that packs two pools best."""
    what = f"gangs of {count_text(size, 'GPU')} fill two pools' training GPUs exactly"
    if isinstance(found, str):
        print(f"packed gangs       {what}; not compared: {found}")
        return
    gain = "" if found.two.training_per_day == 0 else f", {_gain(found.gain)} training a day"
    if found.verdict == "not decided":
        gain = f"{gain} behind the headroom tried, at most {_gain(found.most_gain)}"
    untried = ("" if not found.untried else
               f"; {found.untried} offsets of its one-pool headroom were not tried, so the "
               "least may be less")
    print(f"packed gangs       {what}: {found.verdict}{gain} (two pools "
          f"{found.two.training_per_day:,.0f}, one pool {found.one_kept.training_per_day:,.0f} "
          f"GPU-hours a day{untried})")


def _exponential_interval(gang, checkpoint: float, grace: float, failures: float) -> float:
    """The optimum were up times exponential at λ_c, failures added (``math.inf``: on
    notice, or neither preempted nor failing)."""
    from ..model.numerics import optimal_interval

    if failures == 0:
        return gang.interval(checkpoint, grace)
    return float(optimal_interval(gang.preemption_rate + failures, checkpoint))


def _json(values: dict) -> str:
    """The values as the other commands print them, but each rank on one line: a pool of
    100,000 ranks prints in a second, not in the ten that indenting them all takes."""
    ranked = values["gangs"]
    if not ranked:
        return _dump(values)
    marker = "@gangs@"
    text = _dump(values | {"gangs": marker})
    rows = ",\n".join(f"    {json.dumps(rank, allow_nan=False)}" for rank in ranked)
    return text.replace(f'"{marker}"', f"[\n{rows}\n  ]")


def _rank_values(rank, gang=None, interval=None, kept=None, failing: bool = False) -> dict:
    """A rank's keys (:data:`RANK_KEYS`); given a ``gang`` instead, the gang of
    --gang-size's at its own best interval (the same keys but the rank's number);
    ``failing``: with hardware failures."""
    from ..model.cluster_renewal import Rank

    alone = gang is not None
    if alone:
        rank = Rank(1, gang, interval, kept)
    gang = rank.gang
    # an interval that only preemptions set, for a gang never preempted in practice, is
    # centuries long: none is needed (with failures, theirs is)
    needless = rank.state == "never preempted in practice" and not failing
    values = {
        "rank": rank.rank, "star": gang.star, "state": rank.state,
        "preemption_rate_per_up_hour": gang.preemption_rate, "up_share": gang.up_share,
        "readmission_wait_h": finite_or_none(gang.readmission_wait),
        "up_time_mean_h": finite_or_none(gang.up_time_mean), "up_time_cv": gang.up_time_cv,
        "recommended_interval_h": None if needless or rank.interval is None
        else finite_or_none(rank.interval),
        "waste": 1.0 - rank.kept}
    if alone:
        del values["rank"]
    return values


def _print_pool(pool, values: dict) -> None:
    if pool.overflow == "drop":
        fate = f"{values['turned_away']:.2%} of them turned away when every place is taken"
    else:
        fate = (f"{values['hp_waiting']:.2%} of them wait in line for a place, the p99 "
                f"{duration_text(values['hp_p99_wait_s'] / 3600)}")
    print(f"pool               {pool.gpus:,} GPUs; high-priority load {figures_text(pool.load)} "
          f"requests of {count_text(pool.hp_gpus, 'GPU')} (at most {pool.top:,} at once; "
          f"{fate})")


def _print_gang(pool, gang, values: dict) -> None:
    """The lines of the gang of --gang-size with the pool to itself."""
    print(f"a gang of {gang.gang_size:<8,} up while at most {gang.star:,} requests run "
          "(alone in the pool: rank 1 below)")
    failures = values["gang_failures_per_up_hour"]
    if failures:
        print(f"hardware failures  one GPU in {duration_text(values['failure_mtbf_h'])}: the "
              f"gang fails every {duration_text(1 / failures)} it is up, loses what it has "
              "not written and starts again in its place")
    if values["state"] == "never preempted":
        why = ("it fits beside every request the pool holds at once" if gang.star >= pool.top
               else "there are no high-priority requests" if pool.hp_rate == 0
               else "a request finds it in the way less than once in 10¹⁰⁰ hours")
        print(f"never preempted    {why}")
        _print_checkpoint(values, "against hardware failures alone")
        return
    print(f"preemption rate    {gang.preemption_rate:.4g}/h per up hour (mean up time "
          f"{duration_text(gang.up_time_mean)}, CV {gang.up_time_cv:.2f}; Poisson's "
          "would be 1)")
    print(f"time up            {_share(gang.up_share)}")
    back = ("training never runs again: preemptions come faster than the start-up ends"
            if values["restart_h"] is None else f"with the start-up, "
            f"{duration_text(values['restart_h'])} from a preemption to training again")
    print(f"re-admission wait  {_wait(gang.readmission_wait)} on average; {back}")
    if values["state"] == "never preempted in practice":
        print(f"never in practice  preempted {_once_in(gang.up_time_mean)}")
        _print_checkpoint(values, "against hardware failures")
        return
    _print_checkpoint(values, "the best interval under the up times' exact law")
    if values["exponential_interval_h"] is not None:
        print(f"exponential law    {duration_text(values['exponential_interval_h'])} would "
              f"be best were up times exponential at this rate; there it wastes "
              f"{values['exponential_waste']:.1%} (the exponential law predicts "
              f"{values['exponential_predicted_waste']:.1%})")


def _print_checkpoint(values: dict, why: str) -> None:
    """The recommended interval and the waste at it (or why there is none)."""
    if values["recommended_interval_h"] is not None:
        print(f"checkpoint every   {duration_text(values['recommended_interval_h'])} ({why})")
    elif values["state"] in ("never preempted", "never preempted in practice"):
        print("checkpoint         no periodic write is needed: neither preempted nor failing")
    else:
        print("checkpoint         on notice only: the grace period fits a write, and no "
              "periodic write does better")
    print(f"waste              {values['waste']:.1%} ({HOURS})")


def _share(share: float) -> str:
    """A share of time, with digits enough to tell it from 0 and from 1."""
    if share >= 0.999:
        return f"{share:.4%}" if share < 1 else "100%"
    return f"{share:.1%}" if share >= 0.001 else f"{share * 100:.2g}%"


def _wait(hours: float) -> str:
    return "never, in practice" if math.isinf(hours) else duration_text(hours)


def _print_ranks(every, gang_size: int) -> None:
    """One row a rank (ranks up at the same levels, gangs smaller than a request, on one
    row), runs of ranks never preempted or almost never up on one line."""
    if len(every) < 2:
        return
    print(f"every gang         {len(every):,} gangs of {count_text(gang_size, 'GPU')}, "
          "admitted in turn; "
          "the most recently admitted is preempted first (Kueue's order)")
    print(f"  {'rank':>13}  {'up while':>9}  {'preempted':>11}  {'up':>9}  {'wait':>9}  "
          f"{'mean up':>9}  {'CV':>5}  {'every':>9}  {'waste':>6}")
    start = 0
    while start < len(every):
        rank, end = every[start], start
        alike = (lambda other: other.state == rank.state) if rank.state != "preempted" \
            else (lambda other: other.gang.star == rank.gang.star)
        while end + 1 < len(every) and alike(every[end + 1]):
            end += 1
        run = every[start:end + 1]
        (_print_rank if rank.state == "preempted" else _print_run)(run)
        start = end + 1


def _ranks_text(run) -> str:
    first, last = run[0].rank, run[-1].rank
    return f"{first:,}" if first == last else f"{first:,}–{last:,}"


def _print_rank(run) -> None:
    """Ranks up at the same levels, so with the same numbers, on one row."""
    rank = run[0]
    gang = rank.gang
    every = "notice" if rank.interval is None or math.isinf(rank.interval) \
        else duration_text(rank.interval)
    print(f"  {_ranks_text(run):>13}  {'≤ ' + format(gang.star, ','):>9}  "
          f"{gang.preemption_rate:>9.3g}/h  {_share(gang.up_share):>9}  "
          f"{_wait(gang.readmission_wait):>9}  {duration_text(gang.up_time_mean):>9}  "
          f"{gang.up_time_cv:>5.2f}  {every:>9}  {1 - rank.kept:>6.1%}")


def _print_run(run) -> None:
    """A run of ranks of one state other than preempted, on one line."""
    from ..model.cluster import PRACTICALLY_NEVER_H

    state, first = run[0].state, run[0]
    writes = ("" if first.interval is None or math.isinf(first.interval) else
              f"; against failures, every {duration_text(first.interval)}, a waste of "
              f"{1 - first.kept:.1%}")
    if state == "never preempted":
        what = f"never preempted{writes}"
    elif state == "never preempted in practice":
        what = (f"never preempted in practice "
                f"({_once_in(min(r.gang.up_time_mean for r in run), 'or more')})"
                f"{writes if writes and first.interval < PRACTICALLY_NEVER_H else ''}")
    else:
        what = (f"almost never up ({_share(max(r.gang.up_share for r in run))} or less; "
                f"a wait of {_wait(min(r.gang.readmission_wait for r in run))} or more "
                "for re-admission)")
    print(f"  {_ranks_text(run):>13}  {what}")


def _once_in(hours: float, more: str = "") -> str:
    """How rarely a gang is preempted, in words where its mean up time is beyond any
    duration shown (:data:`~spotmath.inputs.MAX_HOURS`)."""
    if hours > MAX_HOURS:
        return f"less than once in {MAX_HOURS / HOURS_PER_YEAR:.3g} years"
    return f"once in {duration_text(hours)}" + (f" {more}" if more else "")


def _print_choice(choice, gang_size: int, request: int) -> None:
    """The one-pool-or-two lines of `spotmath cluster` (``request``: GPUs a request)."""
    two, one = choice.two, choice.one_kept

    def start(design) -> str:
        away = (f"; {design.turned_away:.2%} turned away" if design.turned_away > 0
                else "")
        if design.p99_start == float("inf"):
            return f"p99 start never (more than 1% turned away){away}"
        return (f"p99 start {duration_text(design.p99_start)}, {design.waits:.2%} wait"
                f"{away}")

    def gangs(design) -> str:
        return count_text(design.gangs, "gang")

    def idle(design) -> str:  # GPUs no gang of N fits in, which tilt the comparison
        return (f", {count_text(design.idle_gpus, 'GPU')} left over" if design.idle_gpus
                else "")

    apart = math.lcm(request, gang_size)  # the headrooms one run of the chain answers
    least = ("" if not choice.untried else
             f"; a less headroom may keep the target too: {choice.untried} of the "
             f"{apart // request} offsets of headroom from a multiple of "
             f"{count_text(apart, 'GPU')} were not tried (more than this command runs)")
    print(f"one pool or two    (inference sized so that 99% of requests find a place; "
          f"training in gangs of {count_text(gang_size, 'GPU')})")
    print(f"  two pools        inference {two.inference_gpus:,} GPUs, training "
          f"{two.training_gpus:,} ({gangs(two)}{idle(two)}): {two.training_per_day:,.0f} "
          f"GPU-hours of training kept a day; {start(two)}")
    print(f"  one pool         training behind {one.headroom:,} GPUs of headroom "
          f"({gangs(one)}{idle(one)}): {one.training_per_day:,.0f} GPU-hours a day; "
          f"{start(one)}{least}")
    gain = "" if choice.two.training_per_day == 0 else f": {_gain(choice.gain)} training a day"
    if choice.verdict == "not decided":  # a headroom not tried may keep more than two pools
        gain = (f"{gain} behind the headroom tried; one not tried could give up to "
                f"{_gain(choice.most_gain)} (what one pool keeps with no headroom)")
    print(f"verdict            {choice.verdict}{gain}, the p99 start within "
          f"{duration_text(choice.start_target) if choice.start_target else '0 s'}")


def _gain(gain: float) -> str:
    """A gain in training a day: in whole percent, or in hundredths below one (0.56% is
    not +1%).

    >>> _gain(0.21), _gain(-0.0003), _gain(0.0056)
    ('+21%', '-0.03%', '+0.56%')
    """
    return f"{gain:+.0%}" if abs(gain) >= 0.01 else f"{gain:+.2%}"
