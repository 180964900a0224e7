"""Deadlines: when a job that must finish by a date should fall back to on-demand.

A job needs ``compute`` hours of work and must finish by ``deadline`` hours after it
starts.  Spot runs only when an availability trace says so; on-demand is always there.
The policies are those of Wu et al., "Can't Be Late" (NSDI 2024) [wu2024]_, run by the
rules of :mod:`~spotmath.traces.deadlines.rules`, which every function here follows.

Policies
--------
At a tick boundary ``t`` (hours from the start): ``left`` = ⌊(deadline − t)/tick⌋ ticks,
``need1`` = ⌈(C + δ)/tick⌉ and ``need2`` = ⌈(C + 2δ)/tick⌉ ticks, with ``C`` the compute
still to do and ``δ`` the changeover (the paper simulator's rounding).

``on-demand``
    On-demand from the start: the cost every other policy is measured against.
``greedy``
    Spot whenever available (staying on it until preempted), idle otherwise.
``uniform-progress``
    With the line ep(t) = t·compute/deadline: spot whenever available, even when behind;
    idle and behind (progress < ep(t)) → on-demand; on on-demand, stay there unless spot
    is available and progress > ep(t + 2δ) (there is no move from on-demand to idle).
``omniscient``
    The exact offline optimum on the trace: the least cost that meets the deadline and,
    among schedules of that cost, the earliest finish
    (:func:`~spotmath.traces.deadlines.omniscient.omniscient_schedule`; in checkpoint mode
    by the search of :mod:`~spotmath.traces.deadlines.checkpoint_optimum`).
``model``
    This book's: the least expected cost under a law of the pool's spells fitted to the
    trace before the start, the chance that a spell of spot or an outage goes on by its
    age and by the hour (:class:`~spotmath.traces.deadlines.model_policy.SpellLaw`), or
    under a two-state Markov chain where the history holds fewer than twenty spells of
    each kind (:mod:`spotmath.traces.deadlines.model_policy`; in checkpoint mode it plans
    with the writes and what a preemption takes back).

The online policies (greedy, uniform-progress, model) apply, after their own choice, the
*Safety Net* of the paper's simulator: if ``need2 ≥ left`` and the job is idle or on
on-demand, on-demand; then, if ``need1 ≥ left``, stay on spot if the job is on a spot
stint whose changeover is over, otherwise on-demand (with no changeover: spot if
available, otherwise on-demand).

The modules
-----------
:mod:`~spotmath.traces.deadlines.availability`
    Reading availability traces (six formats).
:mod:`~spotmath.traces.deadlines.rules`
    The job, the rules' simulators and the paper's policies as choices.
:mod:`~spotmath.traces.deadlines.omniscient`
    The exact offline optimum in the paper's model; in checkpoint mode
    :mod:`~spotmath.traces.deadlines.checkpoint_optimum`.
:mod:`~spotmath.traces.deadlines.model_policy`
    The model policy: a fitted Markov chain and the least expected cost under it.
:mod:`~spotmath.traces.deadlines.policies`
    Running the policies from one start or many.
:mod:`~spotmath.traces.deadlines.expected`
    Expected costs under a model of availability rather than a trace.
:mod:`~spotmath.traces.deadlines.stints`
    What they share: the kinds of tick, the tolerance, checkpoint mode.

References
----------
.. [wu2024] Z. Wu, W.-L. Chiang, Z. Mao, Z. Yang, E. Friedman, S. Shenker, I. Stoica,
   "Can't Be Late: Optimizing Spot Instance Savings under Deadlines", USENIX NSDI 2024.
"""

from .availability import (
    AVAILABILITY_FORMATS,
    CSV_HEADER,
    DEFAULT_TICK,
    Availability,
    availability_from_sizes,
    availability_from_trace,
    read_availability,
)
from .expected import (
    MIN_SAVING,
    Expected,
    expected_costs,
    model_expected_cost,
    spell_model,
    spot_pays_from,
)
from .model_policy import (
    DESIGN_ZONES,
    PRIOR_DAYS,
    AvailabilityModel,
    SpellLaw,
    clock_classes,
    completed_spells,
    fit_availability,
    fit_spell_law,
    markov_availability,
    others_prior,
    spell_ages,
    spell_counts,
)
from .omniscient import omniscient_schedule
from .policies import (
    ONLINE,
    POLICIES,
    SMALL_GAP,
    Summary,
    auto_interval,
    compare_slack,
    compare_starts,
    resolve_interval,
    run_policies,
    run_policy,
    spell_end_rate,
    start_ticks,
)
from .rules import Run
from .stints import TOLERANCE, Checkpoints, OptimumTooLarge

__all__ = ["POLICIES", "ONLINE", "AVAILABILITY_FORMATS", "CSV_HEADER", "DEFAULT_TICK",
           "TOLERANCE", "SMALL_GAP", "Availability", "Run", "Summary", "read_availability",
           "availability_from_trace", "availability_from_sizes", "run_policy",
           "omniscient_schedule", "run_policies", "compare_starts", "compare_slack",
           "start_ticks",
           "AvailabilityModel", "fit_availability", "completed_spells", "markov_availability",
           "SpellLaw", "fit_spell_law", "spell_ages", "clock_classes", "DESIGN_ZONES",
           "spell_counts", "others_prior", "PRIOR_DAYS",
           "Expected", "spell_model", "expected_costs", "model_expected_cost",
           "spot_pays_from", "MIN_SAVING", "Checkpoints", "OptimumTooLarge", "auto_interval",
           "resolve_interval",
           "spell_end_rate"]
