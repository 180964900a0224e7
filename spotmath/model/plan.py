"""The whole answer for one set of numbers, computed: what `spotmath plan` prints (in the
words of :mod:`spotmath.report`) and the book shows."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from ..inputs import (
    MAX_RATE,
    InputError,
    check_choice,
    check_gang_size,
    check_parameters,
    count_text,
    duration_text,
)
from . import numerics, two_level

__all__ = ["Plan", "make_plan", "DEFAULTS", "CHOICES", "PLAN_KEYS", "TWO_LEVEL_KEYS",
           "OPTION_NAMES", "RENAMED_OPTIONS", "REFUSALS", "VERDICTS", "BREAK_EVEN",
           "finite_or_none"]

# -- the schema of `spotmath plan`: its defaults, choices and JSON keys (the page's too) ----
#: The defaults of `spotmath plan`'s options: the book's numbers.
DEFAULTS = {"mtbf": "4h", "restart": "10min", "checkpoint": "1min", "discount": "0.6"}
#: The choices of `spotmath plan`'s --model and --restart-variant, the first the default
#: (also what the book's calculator offers: spotmath/web/data.js).
CHOICES = {"model": list(numerics.MODELS), "restart-variant": ["preemptible", "protected"]}
#: The keys of `spotmath plan --json`, in order: :meth:`Plan.as_dict` has them all.
PLAN_KEYS = ["young_interval_h", "daly_interval_h", "exact_interval_h",
             "recommended_interval_h", "waste_first_order", "waste_exact",
             "effective_discount", "break_even_interval_h", "break_even", "max_gang_size",
             "never_on_spot_gang_size", "verdict", "model", "restart_preemptible", "gang_size",
             "gang_rate", "preemption_rate", "restart_time_h", "checkpoint_cost_h",
             "spot_discount", "notice_h", "notice_share", "notice_write_h",
             "notice_effective", "persist_h", "first_order_interval_h"]
#: Options of `spotmath plan` renamed, old name: new name; the command and the page
#: still take the old name (a link made before), and say the new one.
RENAMED_OPTIONS = {"nodes": "gang-size"}
#: The command line's name for a parameter that make_plan checks across options.
OPTION_NAMES = {"notice_share": "--notice-share", "notice_write": "--notice-write",
                "persist": "--persist", "notice": "--notice",
                "checkpoint_cost": "--checkpoint", "level1_cost": "--level1",
                "level1_restart": "--level1-restart", "level1_loss": "--level1-loss",
                "model": "--model", "gang_size": "--gang-size"}
#: make_plan's refusals of option combinations, written once: ``{name}`` is the
#: parameter (the command line and the page show its option, :data:`OPTION_NAMES`).
REFUSALS = {
    "without_notice": "{name}: given without a notice; give the notice period too",
    "share_needed": "{name}: required with a notice: the measured share of preemptions "
                    "whose notice arrives and is acted on, 0 to 1",
    "persist_too_long": "{name}: {persist} is not shorter than the mean time between "
                        "preemptions ({mtbf}); no checkpoint interval that long is sensible",
    "levels_with_notice": "{name}: two-level checkpoints are not modelled with a notice "
                          "yet; plan them without it",
    "levels_first_order": "{name}: two-level checkpoints are planned with the exact model "
                          "(the first-order optimum is shown beside it)",
    "persist_protected": two_level.REFUSALS["persist_protected"],
    "without_fast_write": "{name}: given without a fast write ({fast}); give it too",
    "loss_needed": "{name}: required with a fast write: the share of preemptions that take "
                   "the fast copies with them, 0 to 1",
    "fast_restart_slower": "{name}: a restart from a fast copy ({fast}) slower than the "
                           "durable restart ({durable}) never pays: give one no slower, or "
                           "plan durable writes alone",
    "gang_rate_high": "{name}: a gang of {gang} is preempted {rate:g} times an hour, more "
                      "than the {most_rate:g} a plan takes (one preemption every 3.6 ms): "
                      "at most {most:,} nodes at {node_rate:g} an hour each",
    "state_partner": "{name}: needs {missing} too (the write takes the state at the "
                     "bandwidth)",
    "state_and_checkpoint": "--checkpoint: give it, or --state with --write-bandwidth, not "
                            "both",
    "state_and_persist": "--persist: give it, or --snapshot-bandwidth with --state, not "
                         "both",
}
#: The keys `spotmath plan --level1 ... --json` adds (:attr:`Plan.two_level`), in order.
TWO_LEVEL_KEYS = ["level1_cost_h", "level1_restart_h", "level1_loss", "level1_interval_h",
                  "level2_every", "level2_interval_h", "waste_level2_only",
                  "level1_loss_break_even", "level1_interval_first_order_h",
                  "level2_interval_first_order_h"]


#: The plan's two verdicts (its JSON's ``verdict``).
VERDICTS = {"spot": "spot pays", "on_demand": "use on-demand"}
#: The three states of the break-even interval (its JSON's ``break_even``): spot stops
#: paying past an interval, pays however rarely the job checkpoints (with a notice that
#: saves the work, from some interval on), or pays at no interval.
BREAK_EVEN = ("after", "always", "never")
@dataclass(frozen=True)
class Plan:
    """A checkpointing plan and the spot verdict.  Times in hours, shares as fractions.

    ``preemption_rate`` is the per-node rate; with ``gang_size`` > 1 every interval, waste
    and break-even figure is for the gang's rate ``gang_size * preemption_rate``.
    ``young_interval_h`` and ``daly_interval_h`` are the classic formulas at the blocking
    write C; ``exact_interval_h`` and ``first_order_interval_h`` are the optima of the full
    model (notice and asynchronous writes included), None where no periodic checkpoint
    beats none at all (the notice saves the work).  ``recommended_interval_h`` is the
    chosen ``model``'s optimum, at least ``persist_h``; both wastes are evaluated there (at
    T → ∞ when it is None; ``waste_first_order`` is None where it is unbounded there).
    ``break_even`` says which of :data:`BREAK_EVEN` holds: ``"after"`` spot stops paying
    past ``break_even_interval_h``; ``"always"`` every interval from some length on pays
    (a notice that saves the work); ``"never"`` no interval pays.  The interval is None in
    the last two.  ``max_gang_size`` and
    ``never_on_spot_gang_size`` are None when no gang is too large; ``effective_discount``
    is None where the first-order waste reaches 100%.

    The notice: ``notice_h`` (0: none), ``notice_share`` q, ``notice_write_h`` C_n (None
    without a notice), ``notice_effective`` (False when C_n does not fit in the notice: the
    notice then changes nothing).  ``persist_h`` P: an asynchronous checkpoint is durable
    P after its blocking part.

    Two-level checkpoints (``two_level``, the keys :data:`TWO_LEVEL_KEYS`): a fast write
    ``level1_cost_h`` every ``level1_interval_h`` of compute, every ``level2_every``-th
    write durable (C, restart R), a restart from a fast copy ``level1_restart_h``, the
    fast copies lost with ``level1_loss`` of the gang's preemptions.  Then
    ``recommended_interval_h`` is the interval between writes of either level, and the
    wastes, the effective discount and the verdict are the pattern's;
    ``waste_level2_only`` is the exact waste of durable writes alone at their optimum
    (``exact_interval_h``), for which the break-even interval and gang limits stand.
    With ``persist_h`` both are asynchronous: the durable write blocks for its snapshot
    and the compute between durable writes is at least P.
    """

    preemption_rate: float
    restart_time_h: float
    checkpoint_cost_h: float
    spot_discount: float
    gang_size: int
    model: str
    restart_preemptible: bool
    gang_rate: float
    young_interval_h: float
    daly_interval_h: float
    exact_interval_h: float | None
    recommended_interval_h: float | None
    waste_first_order: float | None
    waste_exact: float
    effective_discount: float | None
    break_even_interval_h: float | None
    break_even: str
    max_gang_size: int | None
    never_on_spot_gang_size: int | None
    verdict: str
    notice_h: float = 0.0
    notice_share: float = 0.0
    notice_write_h: float | None = None
    notice_effective: bool = False
    persist_h: float = 0.0
    first_order_interval_h: float | None = None
    baseline: dict | None = field(default=None, repr=False, compare=False)
    two_level: dict | None = field(default=None, repr=False, compare=False)
    #: Where the write came from, when it came from the state's size (``--state``):
    #: ``state_bytes``, ``write_bandwidth_bytes_per_s``, ``snapshot_bandwidth_bytes_per_s``.
    state: dict | None = field(default=None, repr=False, compare=False)

    def as_dict(self) -> dict:
        """Plain JSON-ready values (the two-level ones are in ``two_level``)."""
        values = asdict(self)
        del values["baseline"], values["two_level"], values["state"]
        return values

    def full_model(self) -> dict:
        """The notice and persist options of the full model this plan stands for.

        The share is 0 when the notice is not effective (the write does not fit in it).
        """
        return _full_model(self.checkpoint_cost_h, self.notice_share, self.notice_write_h,
                           self.notice_effective, self.persist_h)

def _full_model(cost: float, share: float, write: float | None, effective: bool,
                persist: float) -> dict:
    """The full model's options: no notice share unless the write fits in the notice."""
    return {"notice_share": share if effective else 0.0,
            "notice_write": write if effective else cost + persist, "persist": persist}


def finite_or_none(value: float) -> float | None:
    """A number as the plan and the JSON outputs give it: None where it is infinite.

    Parameters
    ----------
    value : float
        Any number, hours or a share.

    Returns
    -------
    float or None

    Examples
    --------
    >>> finite_or_none(2.5), finite_or_none(float("inf"))
    (2.5, None)
    """
    return None if math.isinf(value) else float(value)


def make_plan(
    preemption_rate: float | str, restart_time: float | str, checkpoint_cost: float | str,
    spot_discount: float | str, gang_size: int = 1, *, model: str = "exact",
    restart_preemptible: bool = True, notice: float | str = 0.0,
    notice_share: float | str | None = None, notice_write: float | str | None = None,
    persist: float | str = 0.0, level1_cost: float | str | None = None,
    level1_restart: float | str | None = None, level1_loss: float | str | None = None,
) -> Plan:
    """Work out the checkpointing plan and the spot verdict.

    Parameters
    ----------
    preemption_rate : float or str
        One node's preemptions per hour, λ > 0 (a number, or text such as ``"0.25/h"``).
    restart_time : float or str
        Preemption to computing again, R ≥ 0: hours, or text such as ``"10min"``.
    checkpoint_cost : float or str
        Blocking time of a checkpoint write, C > 0 (with free checkpoints the optimum is to
        checkpoint continuously and there is no interval to recommend).
    spot_discount : float or str
        Discount against on-demand, strictly between 0 and 1 (or ``"60%"``).
    gang_size : int, optional
        Nodes in the synchronous gang (default 1): everything is for the rate Nλ.
    model : {"exact", "first-order"}, optional
        Which model's optimum to recommend (default exact; both wastes are reported).
    restart_preemptible : bool, optional
        Whether a restart can itself be preempted (default True).
    notice : float or str, optional
        Warning before a preemption, hours (default 0: none); needs ``notice_share``.
    notice_share : float or str, optional
        The measured share of preemptions whose notice arrives and is acted on.
    notice_write : float or str, optional
        On-notice checkpoint write (default C + P, the time to a durable checkpoint).
    persist : float or str, optional
        Time after its blocking part at which a checkpoint is durable (default 0); with
        ``level1_cost``, the durable write's (restarts preemptible).
    level1_cost : float or str, optional
        Two-level checkpoints: the fast write C₁ > 0 (``checkpoint_cost`` and
        ``restart_time`` are then the durable level's); needs ``level1_loss``.
    level1_restart : float or str, optional
        Restart from a fast copy R₁ (default: ``restart_time``).
    level1_loss : float or str, optional
        Share of the gang's preemptions that take the fast copies with them, 0 < p ≤ 1.

    Returns
    -------
    Plan
        Every interval, waste and limit (:meth:`Plan.as_dict` for JSON;
        :func:`spotmath.report.plan_table` writes the table ``spotmath plan`` prints).
        Without a notice or persist the plan is the classic one, number for number.

    Raises
    ------
    InputError
        A bad value or combination (one line naming the option).

    References
    ----------
    ``young1974``, ``daly2006``, ``benoit2017`` (two levels).

    Examples
    --------
    >>> plan = make_plan("0.25/h", "10min", "1min", 0.6)
    >>> duration_text(plan.recommended_interval_h), f"{plan.waste_exact:.1%}", plan.verdict
    ('21.2 min', '12.6%', 'spot pays')
    >>> make_plan(0.25, "10min", "1min", 0.6, gang_size=8).max_gang_size
    13
    """
    rate, restart, cost, discount, notice, persist = check_parameters(
        scalar=True, preemption_rate=preemption_rate, restart_time=restart_time,
        checkpoint_cost=checkpoint_cost, spot_discount=spot_discount, notice=notice,
        persist=persist)
    if cost == 0:
        raise InputError("checkpoint_cost: must be > 0 to plan an interval, got 0 (with free "
                         "checkpoints the optimum is to checkpoint continuously)")
    gang_size = check_gang_size("gang_size", gang_size)
    model = check_choice("model", model, numerics.MODELS)
    if notice == 0 and notice_share is not None:
        raise InputError(REFUSALS["without_notice"].format(name="notice_share"))
    if notice == 0 and notice_write is not None:
        raise InputError(REFUSALS["without_notice"].format(name="notice_write"))
    if notice > 0 and notice_share is None:
        raise InputError(REFUSALS["share_needed"].format(name="notice_share"))
    share = 0.0 if notice_share is None else check_parameters(
        scalar=True, notice_share=notice_share)[0]
    write = None if notice == 0 else (cost + persist if notice_write is None else
                                      check_parameters(scalar=True,
                                                       notice_write=notice_write)[0])
    effective = notice > 0 and write <= notice
    variant = {"restart_preemptible": bool(restart_preemptible)}
    gang = float(numerics.gang_rate(rate, gang_size))
    if gang > MAX_RATE:  # as a rate that high is refused, so is a gang that makes it
        raise InputError(REFUSALS["gang_rate_high"].format(
            name="gang_size", gang=count_text(gang_size, "node"), rate=gang,
            most_rate=MAX_RATE, most=math.floor(MAX_RATE / rate), node_rate=rate))
    if persist >= 1 / gang:
        raise InputError(REFUSALS["persist_too_long"].format(
            name="persist", persist=duration_text(persist), mtbf=duration_text(1 / gang)))
    full = _full_model(cost, share, write, effective, persist)
    classic = {"young_interval_h": float(numerics.young_interval(gang, cost)),
               "daly_interval_h": float(numerics.daly_interval(gang, cost))}
    notice_values = {"notice_h": notice, "notice_share": share, "notice_write_h": write,
                     "notice_effective": effective, "persist_h": persist}
    levels = _two_level_options(level1_cost, level1_restart, level1_loss, restart)
    if levels is not None:
        if notice > 0:
            raise InputError(REFUSALS["levels_with_notice"].format(name="level1_cost"))
        two_level.check_persist(persist, bool(restart_preemptible), math.inf)
        if model != "exact":
            raise InputError(REFUSALS["levels_first_order"].format(name="model"))
    if full["notice_share"] == 0 and persist == 0:
        plan = _plan_classic(rate, restart, cost, discount, gang_size, model, variant, gang,
                             classic, notice_values)
    else:
        plan = _plan_full(rate, restart, cost, discount, gang_size, model, variant, gang,
                          classic, notice_values, full)
    return plan if levels is None else _plan_two_level(plan, levels)


def _verdict(effective: float | None) -> str:
    return VERDICTS["spot" if effective is not None and effective > 0 else "on_demand"]


def _break_even(paying: tuple[float, float] | None) -> dict:
    """The break-even state and interval from the range of intervals that pay."""
    if paying is None:
        return {"break_even": "never", "break_even_interval_h": None}
    longest = finite_or_none(paying[1])
    return {"break_even": "always" if longest is None else "after",
            "break_even_interval_h": longest}


def _plan_classic(rate, restart, cost, discount, gang_size, model, variant, gang, classic,
                  notice_values) -> Plan:
    """Today's model: no effective notice, blocking writes."""
    recommended = float(numerics.optimal_interval(gang, cost, model))
    waste = {m: float(numerics.waste_fraction(gang, recommended, cost, restart, model=m, **variant))
             for m in numerics.MODELS}
    effective = numerics.effective_discount(waste[model], discount)
    exact = float(numerics.exact_interval(gang, cost))
    return Plan(
        preemption_rate=rate, restart_time_h=restart, checkpoint_cost_h=cost,
        spot_discount=discount, gang_size=gang_size, model=model, gang_rate=gang, **variant,
        **classic, exact_interval_h=exact, recommended_interval_h=recommended,
        waste_first_order=waste["first-order"], waste_exact=waste["exact"],
        effective_discount=effective,
        **_break_even(numerics.break_even_intervals(gang, cost, restart, discount,
                                                    model=model, **variant)),
        max_gang_size=numerics.max_gang_size(rate, cost, restart, discount, model=model, **variant),
        never_on_spot_gang_size=numerics.never_on_spot_gang_size(rate, restart, discount,
                                                          model=model, **variant),
        verdict=_verdict(effective), **notice_values,
        first_order_interval_h=float(numerics.young_interval(gang, cost)),
    )


def _plan_full(rate, restart, cost, discount, gang_size, model, variant, gang, classic,
               notice_values, full) -> Plan:
    """The full model: an effective notice, asynchronous writes, or both."""
    persist = full["persist"]
    optimum = {m: numerics.optimal_interval(gang, cost, model=m, **full) for m in numerics.MODELS}
    # the best interval of at least P: the same one optimal_waste and the limits use
    recommended = numerics.optimal_interval(gang, cost, model=model, shortest=persist, **full)
    waste = {}
    for m in numerics.MODELS:
        if math.isinf(recommended):
            waste[m] = numerics.waste_floor(gang, restart, notice_share=full["notice_share"],
                                      notice_write=full["notice_write"], model=m, **variant)
        else:
            waste[m] = numerics.waste_fraction(gang, recommended, cost, restart, model=m, **full,
                                         **variant)
    effective = numerics.effective_discount(waste[model], discount)
    paying = numerics.break_even_intervals(gang, cost, restart, discount, model=model, **full,
                                     **variant)
    baseline = {}
    if full["notice_share"] > 0:
        interval = float(numerics.optimal_interval(gang, cost, model))
        no_notice = dict(full, notice_share=0.0)
        baseline["no_notice"] = (max(interval, persist), numerics.optimal_waste(
            gang, cost, restart, model=model, **no_notice, **variant))
    if persist > 0:
        blocking = cost + persist
        best = numerics.optimal_interval(gang, blocking, model=model, **dict(full, persist=0.0))
        baseline["blocking"] = (best, numerics.optimal_waste(
            gang, blocking, restart, model=model, **dict(full, persist=0.0), **variant))
        if math.isinf(best):
            del baseline["blocking"]
    return Plan(
        preemption_rate=rate, restart_time_h=restart, checkpoint_cost_h=cost,
        spot_discount=discount, gang_size=gang_size, model=model, gang_rate=gang, **variant,
        **classic, exact_interval_h=finite_or_none(optimum["exact"]),
        recommended_interval_h=finite_or_none(recommended),
        waste_first_order=finite_or_none(waste["first-order"]), waste_exact=waste["exact"],
        effective_discount=effective,
        **_break_even(paying),
        max_gang_size=numerics.max_gang_size(rate, cost, restart, discount, model=model, **full,
                                       **variant),
        never_on_spot_gang_size=numerics.never_on_spot_gang_size(rate, restart, discount,
                                                          model=model, **variant),
        verdict=_verdict(effective), **notice_values,
        first_order_interval_h=finite_or_none(optimum["first-order"]), baseline=baseline,
    )


def _two_level_options(level1_cost, level1_restart, level1_loss, restart) -> dict | None:
    """The checked fast-level options, or None without them."""
    if level1_cost is None:
        for name, value in (("level1_restart", level1_restart), ("level1_loss", level1_loss)):
            if value is not None:
                raise InputError(REFUSALS["without_fast_write"].format(
                    name=name, fast="level1_cost"))
        return None
    if level1_loss is None:
        raise InputError(REFUSALS["loss_needed"].format(name="level1_loss"))
    cost, fast_restart = check_parameters(
        scalar=True, level1_cost=level1_cost,
        level1_restart=restart if level1_restart is None else level1_restart)
    (loss,) = check_parameters(scalar=True, level1_loss=level1_loss)
    if fast_restart > restart:  # the two-level optimum could then lose to one level
        raise InputError(REFUSALS["fast_restart_slower"].format(
            name="level1_restart", fast=duration_text(fast_restart),
            durable=duration_text(restart)))
    return {"level1_cost": cost, "level1_restart": fast_restart, "level1_loss": loss}


def _plan_two_level(plan: Plan, levels: dict) -> Plan:
    """The plan with fast copies: the exact optimal pattern and what it changes."""
    gang, variant = plan.gang_rate, {"restart_preemptible": plan.restart_preemptible,
                                     "persist": plan.persist_h}
    durable = dict(checkpoint_cost=plan.checkpoint_cost_h, restart_time=plan.restart_time_h)
    fast = dict(level1_cost=levels["level1_cost"], level1_restart=levels["level1_restart"])
    try:
        best = two_level.optimum(gang, level1_loss=levels["level1_loss"], **fast, **durable,
                                 **variant)
    except InputError as error:  # a gang's rate: the gang's size is what made it
        if error.name != "preemption_rate" or plan.gang_size == 1:
            raise
        raise InputError(two_level.REFUSALS["gang_never_completes"].format(
            name="gang_size", gang=plan.gang_size, rate=gang,
            durable=plan.checkpoint_cost_h)) from None
    first_order = float(two_level.waste(
        gang, best.interval, best.level2_every, level1_loss=levels["level1_loss"],
        model="first-order", persist=plan.persist_h, **fast, **durable))
    loss = levels["level1_loss"]
    continuous = (None, None)
    if 0 < loss < 1 and levels["level1_cost"] < plan.checkpoint_cost_h:
        continuous = two_level.first_order_optimum(
            gang, level1_cost=levels["level1_cost"], checkpoint_cost=plan.checkpoint_cost_h,
            level1_loss=loss)
    values = {
        "level1_cost_h": levels["level1_cost"], "level1_restart_h": levels["level1_restart"],
        "level1_loss": loss, "level1_interval_h": best.interval,
        "level2_every": best.level2_every, "level2_interval_h": best.level2_interval,
        "waste_level2_only": plan.waste_exact,
        "level1_loss_break_even": two_level.loss_break_even(gang, **fast, **durable,
                                                            **variant),
        "level1_interval_first_order_h": continuous[0],
        "level2_interval_first_order_h": continuous[1],
    }
    effective = numerics.effective_discount(best.waste, plan.spot_discount)
    changed = dict(plan.as_dict(), recommended_interval_h=best.interval,
                   waste_exact=best.waste, waste_first_order=first_order,
                   effective_discount=effective, verdict=_verdict(effective))
    return Plan(**changed, baseline=plan.baseline, two_level=values)
