"""The whole answer for one set of numbers: what `spotmath plan` prints and the book shows."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from . import numerics as n
from .inputs import InputError, check_choice, check_gang_size, check_parameters

__all__ = ["Plan", "make_plan", "duration_text"]


def duration_text(hours: float | None) -> str:
    """Hours as a readable duration: '45 s', '21.2 min', '4.44 h', '3.2 d'."""
    if hours is None:
        return "none"
    if hours < 1 / 60:
        return f"{hours * 3600:.3g} s"
    if hours < 1:
        return f"{hours * 60:.3g} min"
    if hours < 48:
        return f"{hours:.3g} h"
    return f"{hours / 24:.3g} d"


def _percent(share: float | None) -> str:
    return "n/a" if share is None else f"{100 * share:.1f}%"


@dataclass(frozen=True)
class Plan:
    """A checkpointing plan and the spot verdict.  Times in hours, shares as fractions.

    ``preemption_rate`` is the per-node rate; with ``nodes`` > 1 every interval, waste and
    break-even figure is for the gang's rate ``nodes * preemption_rate``.  The wastes are
    both evaluated at ``recommended_interval_h``, the optimum of the chosen ``model``.
    ``break_even_interval_h`` is None when no interval pays; ``max_gang_size`` and
    ``never_on_spot_gang_size`` are None when no gang is too large (free, instant restarts
    and checkpoints); ``effective_discount`` is None where the first-order waste reaches 100%.
    """

    preemption_rate: float
    restart_time_h: float
    checkpoint_cost_h: float
    spot_discount: float
    nodes: int
    model: str
    restart_preemptible: bool
    gang_rate: float
    young_interval_h: float
    daly_interval_h: float
    exact_interval_h: float
    recommended_interval_h: float
    waste_first_order: float
    waste_exact: float
    effective_discount: float | None
    break_even_interval_h: float | None
    max_gang_size: int | None
    never_on_spot_gang_size: int | None
    verdict: str

    def as_dict(self) -> dict:
        """Plain JSON-ready values."""
        return asdict(self)

    def report(self) -> str:
        """The plan as a short, readable table (what `spotmath plan` prints)."""
        gang = (f"a gang of {self.nodes} nodes (gang rate {self.gang_rate:.3g}/h)"
                if self.nodes > 1 else "one node")
        restart = "can be preempted" if self.restart_preemptible else "cannot be preempted"
        model = ("exact renewal-reward model, restart " + restart if self.model == "exact"
                 else "first-order model, waste = C/T + λ(T/2 + R)")
        effective = ("n/a: the first-order waste reaches 100% here, so the approximation has "
                     "broken down (use --model exact)" if self.effective_discount is None
                     else f"{_percent(self.effective_discount)} below on-demand "
                          f"(nominal {_percent(self.spot_discount)})")
        break_even = ("none: no checkpoint interval makes spot pay"
                      if self.break_even_interval_h is None
                      else f"{duration_text(self.break_even_interval_h)} "
                           "(checkpoint less often than this and spot costs more than on-demand)")
        max_gang = ("no limit (free checkpoints and restarts)" if self.max_gang_size is None
                    else f"{self.max_gang_size} nodes (at each gang's optimal interval)")
        never = ("none (restarts are free)" if self.never_on_spot_gang_size is None
                 else f"{self.never_on_spot_gang_size} nodes and more "
                      "(even with free, instant checkpoints)")
        rows = [
            ("preemptions", f"every {duration_text(1 / self.preemption_rate)} per node "
                            f"(λ = {self.preemption_rate:.3g}/h), {gang}"),
            ("restart / checkpoint write", f"{duration_text(self.restart_time_h)} / "
                                           f"{duration_text(self.checkpoint_cost_h)}"),
            ("model", model),
            ("optimal interval", f"Young {duration_text(self.young_interval_h)}, "
                                 f"Daly {duration_text(self.daly_interval_h)}, "
                                 f"exact {duration_text(self.exact_interval_h)}"),
            ("checkpoint every", duration_text(self.recommended_interval_h)),
            ("waste at that interval", f"{_percent(self.waste_exact)} exact, "
                                       f"{_percent(self.waste_first_order)} first order"),
            ("effective spot discount", effective),
            ("break-even interval", break_even),
            ("largest gang that pays", max_gang),
            ("never on spot from", never),
        ]
        width = max(len(label) for label, _ in rows)
        lines = [f"{label:<{width}}  {value}" for label, value in rows]
        lines.append(f"{'verdict':<{width}}  {self.verdict}")
        return "\n".join(lines)


def make_plan(
    preemption_rate: float | str, restart_time: float | str, checkpoint_cost: float | str,
    spot_discount: float | str, nodes: int = 1, *, model: str = "exact",
    restart_preemptible: bool = True,
) -> Plan:
    """Work out the plan for one node's ``preemption_rate`` and a gang of ``nodes``.

    The checkpoint cost must be positive: with free checkpoints the optimum is to checkpoint
    continuously, and there is no interval to recommend.
    """
    rate, restart, cost, discount = check_parameters(
        scalar=True, preemption_rate=preemption_rate, restart_time=restart_time,
        checkpoint_cost=checkpoint_cost, spot_discount=spot_discount)
    if cost == 0:
        raise InputError("checkpoint_cost: must be > 0 to plan an interval, got 0 (with free "
                         "checkpoints the optimum is to checkpoint continuously)")
    nodes = check_gang_size("nodes", nodes)
    model = check_choice("model", model, n.MODELS)
    variant = {"restart_preemptible": bool(restart_preemptible)}
    gang = float(n.gang_rate(rate, nodes))
    recommended = float(n.optimal_interval(gang, cost, model))
    waste = {m: float(n.waste_fraction(gang, recommended, cost, restart, model=m, **variant))
             for m in n.MODELS}
    effective = (None if waste[model] >= 1
                 else 1 - float(n.relative_price(waste[model], discount)))
    return Plan(
        preemption_rate=rate, restart_time_h=restart, checkpoint_cost_h=cost,
        spot_discount=discount, nodes=nodes, model=model, gang_rate=gang, **variant,
        young_interval_h=float(n.young_interval(gang, cost)),
        daly_interval_h=float(n.daly_interval(gang, cost)),
        exact_interval_h=float(n.exact_interval(gang, cost)),
        recommended_interval_h=recommended,
        waste_first_order=waste["first-order"], waste_exact=waste["exact"],
        effective_discount=effective,
        break_even_interval_h=n.break_even_interval(gang, cost, restart, discount,
                                                    model=model, **variant),
        max_gang_size=n.max_gang_size(rate, cost, restart, discount, model=model, **variant),
        never_on_spot_gang_size=n.never_on_spot_gang_size(rate, restart, discount,
                                                          model=model, **variant),
        verdict="spot pays" if effective is not None and effective > 0 else "use on-demand",
    )
