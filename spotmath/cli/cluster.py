"""`spotmath cluster`: a gang in a shared pool, and one pool or two."""

from __future__ import annotations

import argparse

from ..inputs import InputError, check_duration
from ..model.plan import finite_or_none
from .options import _as_typed, _dump, _hours

__all__ = ["CLUSTER_KEYS"]


#: The documented keys of `spotmath cluster --json` (docs/commands.md), in order.
CLUSTER_KEYS = ("gang_size", "load", "star", "preemption_rate_per_up_hour", "up_share",
                "readmission_wait_h", "up_time_mean_h", "up_time_cv", "restart_h",
                "recommended_interval_h", "waste_exact", "interval_exact_law_h",
                "waste_exact_law", "two_pools_inference_gpus", "two_pools_training_per_day",
                "one_pool_headroom_gpus", "one_pool_training_per_day",
                "one_pool_p99_start_s", "verdict")


def _cluster(args: argparse.Namespace) -> int:
    """`spotmath cluster`: a gang in a shared pool, from the pool's own load."""
    from ..model.cluster import SharedPool, gang_in_pool
    from ..model.cluster_renewal import MAX_EXACT_LEVELS, best_interval
    from ..model.pool_choice import one_pool_or_two

    try:
        pool = SharedPool.checked(args.gpus, args.hp_rate, args.hp_hold, args.hp_gpus)
        gang = gang_in_pool(pool, args.gang_size)
    except InputError as error:
        raise _as_typed(error) from None
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
        gang.readmission_wait, finite, gang.up_time_cv,
        finite_or_none(gang.restart_time(restart)),
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
