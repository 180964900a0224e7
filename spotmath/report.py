"""The plan in words: the table `spotmath plan` prints, and the command's table layout.

The model (:mod:`spotmath.model.plan`) computes a :class:`~spotmath.model.plan.Plan`; this
module writes it (:func:`plan_table`), in the words of :data:`REPORT`, and lays out every
command's label-and-value tables (:func:`two_columns`).  The book's in-page calculator
fills the same words and usage templates (``spotmath/web/data.js`` is printed from here),
so the page and the command say the same.
"""

from __future__ import annotations

import textwrap

from .inputs import count_text, duration_text, share_text
from .model.plan import Plan

__all__ = ["REPORT", "USAGE", "WIDTH", "plan_table", "two_columns"]

#: The words of the plan's table (:func:`plan_table`), written once: ``{...}`` fields
#: filled with :meth:`str.format` here and by the page (``spotmath/web/data.js``).
REPORT = {
    "state_write": "{size:.3g} GB at {write:.3g} GB/s: {time}",
    "state_snapshot": "{size:.3g} GB to host memory at {snapshot:.3g} GB/s: {blocking} "
                      "blocking; to storage at {write:.3g} GB/s: durable {durable} later",
    "preemptions": "every {mtbf} per node (λ = {rate:.3g}/h), {gang}",
    "gang": "a gang of {nodes} (gang rate {rate:.3g}/h)",
    "one_node": "one node",
    "restart_write": "{restart} / {write}",
    "model_exact": "exact renewal-reward model, restart {restart}",
    "restart_preemptible": "can be preempted",
    "restart_protected": "cannot be preempted",
    "model_first_order": "first-order model, waste = C/T + λ(T/2 + R){terms}",
    "first_order_terms": " with notice and persist terms",
    "optimum": "Young {young}, Daly {daly}, exact {exact}",
    "optimum_first_order": ", first order {interval}",
    "notice_only": "only on notice (no periodic checkpoint beats none)",
    "waste": "{exact} exact, {first_order} first order",
    "unbounded": "unbounded",
    "effective": "{effective} below on-demand (nominal {nominal})",
    "effective_none": "n/a: the waste reaches 100% here, so no hour is useful",
    "effective_none_first_order": "n/a: the first-order waste reaches 100% here, so the "
                                  "approximation has broken down (use --model exact)",
    "break_even": "{interval} (checkpoint less often than this and spot costs more than "
                  "on-demand)",
    "break_even_always": "none: spot pays however rarely the job checkpoints",
    "break_even_never": "none: no checkpoint interval makes spot pay",
    "free_notice": "free restarts and on-notice writes",
    "free": "free checkpoints and restarts",
    "no_gang_limit": "no limit ({free})",
    "max_gang": "{nodes} (at each gang's optimal interval)",
    "never_none": "none (restarts are free)",
    "never": "{nodes} and more (even with free, instant checkpoints)",
    "every_durable": "{every}: every write durable, its fast copy kept for fast restarts "
                     "(fast writes between durable ones do not pay here)",
    "every_levels": "{every}: a fast write of {fast}, and every {nth} write durable (every "
                    "{durable} of compute)",
    "alone": "durable writes alone: ",
    "notice_unused": "{notice}, but no notice is counted on (share 0): the plan is as "
                     "without it",
    "notice_fits": "{notice} for {share} of preemptions; the on-notice write ({write}) "
                   "fits, so such a preemption costs the write and the restart",
    "notice_misses": "{notice} for {share} of preemptions, but the on-notice write "
                     "({write}) does not fit in it: the notice saves nothing, and the plan "
                     "is as without it",
    "persist": "blocks {write}, durable {persist} later; {between} must be at least that",
    "between_levels": "the compute between durable writes",
    "between": "the interval",
    "interval_waste": "checkpoint every {interval}, waste {waste}",
    "fast_pays_never": "never (a fast write costs no less than a durable one)",
    "fast_pays": "while fewer than {share} of preemptions take the fast copies",
    "fast_copies": "restart {restart} from one; lost with {loss} of preemptions",
    "first_order_levels": "fast every {fast}, durable every {durable}",
}
#: The command line's (argparse's) words for the usage errors the page checks too; a test
#: holds them equal to what `spotmath plan` prints.
USAGE = {"exclusive": "argument --{option}: not allowed with argument --{other}",
         "choice": "argument --{option}: invalid choice: {value} (choose from {choices})",
         "unknown": "--{option}: not an option of spotmath plan"}


def _changes(plan: Plan) -> list[tuple[str, str]]:
    """Rows saying in words what the notice and the asynchronous write did."""
    rows = []
    notice, write = duration_text(plan.notice_h), duration_text(plan.notice_write_h)
    if plan.notice_h > 0 and plan.notice_share == 0:
        rows.append(("preemption notice", REPORT["notice_unused"].format(notice=notice)))
    elif plan.notice_h > 0:
        said = REPORT["notice_fits" if plan.notice_effective else "notice_misses"]
        rows.append(("preemption notice", said.format(
            notice=notice, share=share_text(plan.notice_share), write=write)))
    if plan.persist_h > 0:
        between = REPORT["between_levels" if plan.two_level else "between"]
        rows.append(("asynchronous write", REPORT["persist"].format(
            write=duration_text(plan.checkpoint_cost_h),
            persist=duration_text(plan.persist_h), between=between)))
    for label, key in (("without the notice", "no_notice"),
                       ("with blocking writes", "blocking")):
        if plan.baseline and key in plan.baseline:
            interval, waste = plan.baseline[key]
            rows.append((label, REPORT["interval_waste"].format(
                interval=duration_text(interval), waste=share_text(waste))))
    return rows


def plan_table(plan: Plan) -> str:
    """The plan as a short, readable table: what `spotmath plan` prints.

    Parameters
    ----------
    plan : Plan
        A plan (:func:`~spotmath.model.plan.make_plan`).

    Returns
    -------
    str
        Labels and values in two columns, within :data:`WIDTH`, in :data:`REPORT`'s
        words.

    Examples
    --------
    >>> from spotmath import make_plan
    >>> print(plan_table(make_plan("0.25/h", "10min", "1min", 0.6)).splitlines()[-1])
    verdict                     spot pays
    """
    words = REPORT
    gang = (words["gang"].format(nodes=count_text(plan.gang_size, "node"), rate=plan.gang_rate)
            if plan.gang_size > 1 else words["one_node"])
    if plan.model == "exact":
        restart = words["restart_preemptible" if plan.restart_preemptible
                        else "restart_protected"]
        model = words["model_exact"].format(restart=restart)
    else:
        model = words["model_first_order"].format(
            terms=words["first_order_terms"] if plan.baseline else "")
    if plan.effective_discount is not None:
        effective = words["effective"].format(effective=share_text(plan.effective_discount),
                                              nominal=share_text(plan.spot_discount))
    else:
        effective = words["effective_none" if plan.model == "exact"
                          else "effective_none_first_order"]
    if plan.break_even == "after":  # with two levels: durable writes alone's
        break_even = words["break_even"].format(
            interval=duration_text(plan.break_even_interval_h))
    else:
        break_even = words[f"break_even_{plan.break_even}"]
    free = words["free_notice" if plan.notice_effective else "free"]
    max_gang = (words["no_gang_limit"].format(free=free) if plan.max_gang_size is None
                else words["max_gang"].format(nodes=count_text(plan.max_gang_size, "node")))
    never = (words["never_none"] if plan.never_on_spot_gang_size is None
             else words["never"].format(nodes=count_text(plan.never_on_spot_gang_size,
                                                         "node")))
    optimum = words["optimum"].format(
        young=duration_text(plan.young_interval_h),
        daly=duration_text(plan.daly_interval_h),
        exact=duration_text(plan.exact_interval_h))
    if plan.baseline and plan.first_order_interval_h is not None:
        optimum += words["optimum_first_order"].format(
            interval=duration_text(plan.first_order_interval_h))
    every = (duration_text(plan.recommended_interval_h)
             if plan.recommended_interval_h is not None else words["notice_only"])
    first_order = (words["unbounded"] if plan.waste_first_order is None
                   else share_text(plan.waste_first_order))
    alone = ""
    if plan.two_level:
        levels = plan.two_level
        every = (words["every_durable"].format(every=every)
                 if levels["level2_every"] == 1 else words["every_levels"].format(
                     every=every, fast=duration_text(levels["level1_cost_h"]),
                     nth=_ordinal(levels["level2_every"]),
                     durable=duration_text(levels["level2_interval_h"])))
        alone = words["alone"]
    rows = [
        ("preemptions", words["preemptions"].format(
            mtbf=duration_text(1 / plan.preemption_rate),
            rate=plan.preemption_rate, gang=gang)),
        ("restart / checkpoint write", words["restart_write"].format(
            restart=duration_text(plan.restart_time_h),
            write=duration_text(plan.checkpoint_cost_h))),
        *_state_rows(plan),
        *_changes(plan),
        ("model", model),
        ("optimal interval", optimum),
        ("checkpoint every", every),
        ("waste at that interval", words["waste"].format(
            exact=share_text(plan.waste_exact), first_order=first_order)),
        *_two_level_rows(plan),
        ("effective spot discount", effective),
        ("break-even interval", alone + break_even),
        ("largest gang that pays", alone + max_gang),
        ("never on spot from", never),
        ("verdict", plan.verdict),
    ]
    return two_columns(rows)

def _state_rows(plan: Plan) -> list[tuple[str, str]]:
    """How the write came from the state's size and the bandwidths."""
    if plan.state is None:
        return []
    size = plan.state["state_bytes"] / 1e9
    write = plan.state["write_bandwidth_bytes_per_s"] / 1e9
    snapshot = plan.state["snapshot_bandwidth_bytes_per_s"]
    if snapshot is None:
        return [("write from the state", REPORT["state_write"].format(
            size=size, write=write, time=duration_text(plan.checkpoint_cost_h)))]
    return [("write from the state", REPORT["state_snapshot"].format(
        size=size, snapshot=snapshot / 1e9, write=write,
        blocking=duration_text(plan.checkpoint_cost_h),
        durable=duration_text(plan.persist_h)))]

def _two_level_rows(plan: Plan) -> list[tuple[str, str]]:
    """What the fast copies do: the waste without them, their restart and loss."""
    if not plan.two_level:
        return []
    levels = plan.two_level
    even = levels["level1_loss_break_even"]
    pays = (REPORT["fast_pays_never"] if even == 0
            else REPORT["fast_pays"].format(share=share_text(even)))
    rows = [
        ("durable writes alone", REPORT["interval_waste"].format(
            # the best one of at least P
            interval=duration_text(max(plan.exact_interval_h, plan.persist_h)),
            waste=share_text(levels["waste_level2_only"]))),
        ("fast copies", REPORT["fast_copies"].format(
            restart=duration_text(levels["level1_restart_h"]),
            loss=share_text(levels["level1_loss"]))),
        ("fast writes pay", pays),
    ]
    if levels["level1_interval_first_order_h"] is not None:
        rows.append(("first-order optimum", REPORT["first_order_levels"].format(
            fast=duration_text(levels["level1_interval_first_order_h"]),
            durable=duration_text(levels["level2_interval_first_order_h"]))))
    return rows


def _ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ..."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        number % 10, "th")
    return f"{number}{suffix}"


#: The widest line the plan prints: it fits the book's column and a terminal.
WIDTH = 80


def two_columns(rows: list[tuple[str, str]], wrap: bool = True) -> str:
    """Label and value in two columns; a long value wraps under itself, within WIDTH.

    The one way the commands print a table of labels and values.

    Parameters
    ----------
    rows : list of (str, str)
        Each row's label and value.
    wrap : bool, optional
        Wrap long values (default); False keeps each value on its line, for tables that
        print commands to copy.

    Returns
    -------
    str
        The lines, the values aligned after the longest label.

    Examples
    --------
    >>> print(two_columns([("interval", "21.2 min"), ("verdict", "spot pays")]))
    interval  21.2 min
    verdict   spot pays
    """
    width = max(len(label) for label, _ in rows)
    if not wrap:
        return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)
    indent = " " * (width + 2)
    lines = []
    for label, value in rows:
        wrapped = textwrap.wrap(value, WIDTH - len(indent), break_on_hyphens=False) or [""]
        lines.append(f"{label:<{width}}  " + ("\n" + indent).join(wrapped))
    return "\n".join(lines)
