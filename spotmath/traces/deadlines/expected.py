"""Expected costs under a model of availability, not a trace.

A two-state chain of a gang's spot (:func:`spell_model`, from an MTBF and a mean outage)
gives each policy's expected cost by seeded simulation (:func:`expected_costs`), the model
policy's own expectation by its programme (:func:`model_expected_cost`), and the nearest
deadline at which spot pays (:func:`spot_pays_from`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...inputs import (
    check_choice,
    check_duration,
    check_gang_size,
    check_parameters,
    check_seed,
    rate_from_mtbf,
)
from .model_policy import AvailabilityModel, markov_availability, model_policy
from .omniscient import omniscient_schedules
from .policies import POLICIES, run_job
from .rules import Job, Run, on_demand, simulate_job
from .stints import TOLERANCE

__all__ = ["Expected", "spell_model", "expected_costs", "model_expected_cost",
           "spot_pays_from", "MIN_SAVING"]


@dataclass(frozen=True)
class Expected:
    """A policy's expected cost under an availability model, by seeded simulation.

    ``cost`` and ``cost_se`` (its standard error) in on-demand hours, ``cost_share`` the
    mean of cost over on-demand's, ``met`` the share of draws that met the deadline,
    ``spot_compute_share`` the share of the compute done on spot, ``changeovers`` and
    ``preemptions`` means per draw.
    """

    cost: float
    cost_se: float
    cost_share: float
    met: float
    spot_compute_share: float
    changeovers: float
    preemptions: float

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


def spell_model(tick: float | str, mtbf: float | str, outage: float | str, gang_size: int = 1):
    """The two-state chain of a gang's spot: spells end at rate N/MTBF, outages at 1/outage.

    Parameters
    ----------
    tick : float or str
        The tick, hours or text such as ``'10min'``.
    mtbf : float or str
        One node's mean time between preemptions while spot is there.
    outage : float or str
        Mean time spot stays away once it has gone.
    gang_size : int, optional
        The gang: any node's preemption ends its spell (rate N/MTBF).

    Returns
    -------
    spotmath.traces.deadlines.model_policy.AvailabilityModel
        ``stay_up = exp(−N·tick/MTBF)`` and ``stay_down = exp(−tick/outage)``: the chance a
        Poisson process of that rate does not fire within a tick.
    """
    (tick,) = check_parameters(scalar=True, tick=tick)
    outage = float(check_duration("outage", outage, scalar=True))
    rate = rate_from_mtbf(mtbf, "mtbf") * check_gang_size("gang_size", gang_size)
    return AvailabilityModel(stay_up=math.exp(-rate * tick),
                             stay_down=math.exp(-tick / outage), transitions=0)


def expected_costs(model, tick: float | str, compute: float | str, deadline: float | str,
                   changeover: float | str, discount: float | str, *, draws: int,
                   seed: int, policies: Sequence[str] = POLICIES,
                   billing: str = "tick") -> dict[str, Expected] | None:
    """Every policy's expected cost under ``model``, over ``draws`` seeded availabilities.

    Each draw is a history of spot drawn from the chain, starting in its long-run state
    (spot in the first tick with the chain's long-run share); the model policy plans with
    ``model`` itself (no fitting), the omniscient schedule sees each draw whole.

    Returns
    -------
    dict or None
        ``{policy: Expected}``; None when no policy can meet the deadline.

    Raises
    ------
    InputError
        A bad value (named).
    """
    for policy in policies:
        check_choice("policy", policy, POLICIES)
    draws = check_gang_size("draws", draws, what="a whole number of draws")
    seed = check_seed("seed", seed)
    job = Job.checked(compute, deadline, changeover, discount, tick, billing)
    if not job.feasible():
        return None
    ticks = math.ceil(job.deadline / job.tick - TOLERANCE) + 1
    rng = np.random.default_rng(seed)
    spots = []
    for _ in range(draws):
        first = bool(rng.random() < model.available_share)
        spots.append(markov_availability(model, ticks, int(rng.integers(2**32)), first=first))
    optima = [None] * draws
    if "omniscient" in policies:  # solved side by side, a few draws at a time
        optima = omniscient_schedules(np.array(spots), job.tick, job.compute, job.deadline,
                               job.changeover, job.discount, job.billing)
    runs: dict[str, list[Run]] = {policy: [] for policy in policies}
    for spot, optimum in zip(spots, optima):
        for policy in policies:
            runs[policy].append(run_job(job, spot, policy, known=model, optimum=optimum))
    od_cost = simulate_job(job, np.zeros(0, dtype=bool), "on-demand", on_demand(job),
                            safety_net=False).cost
    result = {}
    for policy, done in runs.items():
        cost = np.array([run.cost for run in done])
        result[policy] = Expected(
            cost=float(cost.mean()),
            cost_se=float(cost.std(ddof=1) / math.sqrt(draws)) if draws > 1 else 0.0,
            cost_share=float(cost.mean() / od_cost),
            met=float(np.mean([run.met for run in done])),
            spot_compute_share=float(np.mean([run.spot_compute_h for run in done])
                                     / job.compute),
            changeovers=float(np.mean([run.changeovers for run in done])),
            preemptions=float(np.mean([run.preemptions for run in done])))
    return result


def model_expected_cost(model, tick: float | str, compute: float | str,
                        deadline: float | str, changeover: float | str,
                        discount: float | str, billing: str = "tick") -> float | None:
    """The model policy's own expectation of its cost from an idle start (on its grid).

    The start's availability is drawn from the chain's long-run share.  None when no
    policy can meet the deadline, or when on the model's grid of whole (planning) ticks
    the compute cannot be done by the deadline (a tick nearly as long as the deadline).
    """
    job = Job.checked(compute, deadline, changeover, discount, tick, billing)
    if not job.feasible():
        return None
    policy = model_policy(model, job.tick, job.compute, job.deadline, job.changeover,
                          job.discount, job.billing)
    left = math.floor(job.deadline / policy.tick + TOLERANCE)
    work = math.ceil(job.compute / policy.grid - TOLERANCE)
    share = model.available_share
    expected = (share * policy.expected(left, work, True)
                + (1 - share) * policy.expected(left, work, False))
    return expected if math.isfinite(expected) else None


#: The least saving, as a share of on-demand's cost, that :func:`spot_pays_from` counts as
#: spot paying: half a percent, below the whole percent the costs are shown to, and far
#: above the programme's rounding.  A smaller saving is no verdict to act on.
MIN_SAVING = 0.005


def spot_pays_from(model, tick: float | str, compute: float | str,
                   changeover: float | str, discount: float | str,
                   billing: str = "tick", longest: float | None = None) -> float | None:
    """The shortest deadline at which the model policy expects to pay less than on-demand,
    by at least :data:`MIN_SAVING` of on-demand's cost.

    Searched over whole ticks by bisection on :func:`model_expected_cost` (which does not
    grow with the deadline: more time leaves every earlier choice open), from
    changeover + compute up to ``longest`` (default three times that).

    Returns
    -------
    float or None
        Hours from the start; None if spot does not pay even at ``longest``.
    """
    job = Job.checked(compute, compute, 0.0, discount, tick, billing)
    (changeover,) = check_parameters(scalar=True, changeover=changeover)
    on_demand = math.ceil((job.compute + changeover) / job.tick - TOLERANCE) * job.tick
    low = math.ceil((job.compute + changeover) / job.tick - TOLERANCE)
    high = math.ceil((longest or 3 * (job.compute + changeover)) / job.tick)

    def pays(ticks: int) -> bool:
        cost = model_expected_cost(model, job.tick, job.compute, ticks * job.tick,
                                   changeover, job.discount, billing)
        return cost is not None and cost < on_demand * (1 - MIN_SAVING)

    if not pays(high):
        return None
    if pays(low):
        return low * job.tick
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if pays(middle) else (middle, high)
    return high * job.tick

