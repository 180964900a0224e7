"""`spotmath plan`: the plan for one's numbers, with a deadline section when one is asked for."""

from __future__ import annotations

import argparse
import dataclasses

from ..inputs import (
    InputError,
    check_discount,
    check_duration,
    check_fraction,
    check_gang_size,
    check_rate,
    duration_text,
    rate_from_mtbf,
)
from ..model.plan import DEFAULTS, REFUSALS, Plan, make_plan
from ..report import plan_table, two_columns
from .options import _as_typed, _dump, _plan_values

__all__ = ["PLAN_DEADLINE"]


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
        gang_size=check_gang_size("--gang-size", args.gang_size),
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
    except InputError as error:  # name the option the reader typed, the rate's among them
        rate_option = "--rate" if args.rate is not None else "--mtbf"
        raise _as_typed(error).renamed(rate_option) if error.name == "preemption_rate" \
            else _as_typed(error) from None


def _checkpoint_options(args: argparse.Namespace
                        ) -> tuple[float | None, float | None, dict | None]:
    """C, P and the state's record (the --json block) from --state and the bandwidths
    (all None without --state), each option checked against the others: the state
    replaces --checkpoint, the snapshot --persist."""
    from ..inputs import check_size
    from ..model.calibration import checkpoint_from_state

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
    try:
        checkpoint, persist = checkpoint_from_state(*record.values())
    except InputError as error:  # a write too long: name the option typed
        raise _as_typed(error) from None
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
    print(plan_table(plan))
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
    from ..traces import deadlines

    tick, draws, seed = PLAN_DEADLINE["tick"], PLAN_DEADLINE["draws"], PLAN_DEADLINE["seed"]
    outage = args.outage or "1h"
    try:
        model = deadlines.spell_model(tick, 1 / plan.preemption_rate, outage, plan.gang_size)
        job = (args.compute, args.deadline, plan.restart_time_h, plan.spot_discount)
        found = deadlines.expected_costs(
            model, tick, *job, draws=draws, seed=seed,
            policies=["on-demand", "uniform-progress", "model"])
        pays_from = deadlines.spot_pays_from(model, tick, args.compute, plan.restart_time_h,
                                             plan.spot_discount)
    except InputError as error:
        raise _as_typed(error) from None
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
