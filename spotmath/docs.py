"""Descriptions the library's docstrings share: written once, filled in where they stand.

A docstring line that holds only ``[[name]]`` is replaced, at import, by the description of
``name`` below, indented as that line is (the idea of SciPy's ``doccer``).  So a parameter
that many functions take (the preemption rate, the restart time, the model) is described
the same way everywhere, and a change to its description is made in one place.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

__all__ = ["DESCRIPTIONS", "fill_doc"]

#: What a shared parameter is (the line under ``name : type``), and the usual Raises entry.
DESCRIPTIONS: dict[str, str] = {
    "preemption_rate": "Preemptions per node-hour, λ > 0 (one over the MTBF).",
    "interval": "Compute between checkpoints, T > 0, hours.",
    "checkpoint_cost": "Time a checkpoint write blocks training, C ≥ 0, hours.",
    "restart_time": "Preemption to computing again, R ≥ 0, hours.",
    "spot_discount": "Spot's discount against on-demand, d, a fraction strictly between 0 "
                     "and 1.",
    "gang_size": "Nodes in the synchronous gang, N ≥ 1 (default 1).",
    "model": "The renewal-reward model of Poisson preemptions (default) or λ(T/2 + R) + C/T.",
    "restart_preemptible": "Whether a restart can itself be preempted (default True: Daly's "
                           "model, a spot gang's\nreplacement nodes are spot too); False "
                           "treats the restart as protected.",
    "notice_share": "Share q of preemptions that come with a notice the job acts on, in "
                    "[0, 1] (default 0).\nWith q > 0 or P > 0 the full model answers "
                    "(derivations, section 9).",
    "notice_write": "On-notice checkpoint write C_n, hours, durable at the reclaim "
                    "(default C + P).",
    "persist": "Asynchronous checkpoints: hours after the blocking write until it is "
               "durable, P ≥ 0\n(default 0); the interval is then at least P.",
    # the simulator's options (simulate, simulate_reference, timeline)
    "weibull_shape": "Shape k of each node's gaps between preemptions (default 1: Poisson).",
    "bulk_fraction": "Share ρ of preemptions that are pool-wide reclaims taking the whole "
                     "gang (default 0).",
    "notice": "Warning before a preemption, hours (default 0: none).",
    "simulated_notice_share": "Share q of preemptions whose notice arrives and is acted on "
                              "(used with ``notice``).",
    "simulated_notice_write": "On-notice checkpoint write, hours (default C + P, the time "
                              "to a durable checkpoint).",
    "simulated_persist": "Asynchronous write: hours after the blocking part until a "
                         "checkpoint is durable, P ≥ 0.",
    "simulated_restart_preemptible": "Whether a restart can itself be preempted (default "
                                     "True).",
    "event_rate": "Preemption events per hour that hit the job, λ > 0 (a gang's rate for "
                  "a gang).",
    "level1_interval": "Compute between two writes of either level, T > 0, hours.",
    "level2_every": "A durable write every n-th write, n ≥ 1 (the others fast).",
    "level1_cost": "Fast (level-1) write C₁ ≥ 0, hours.",
    "level2_cost": "Durable (level-2) write C ≥ 0, hours.",
    "level1_cost_positive": "Fast write C₁ > 0, hours (an optimum needs writes that cost).",
    "level2_cost_positive": "Durable write C > 0, hours.",
    "level1_restart": "Restart from a fast copy R₁ ≥ 0, hours.",
    "level2_restart": "Restart from the durable copy R ≥ 0, hours.",
    "level1_loss": "Chance p that an event destroys the fast copies, in [0, 1].",
    "level2_persist": "Asynchronous durable writes: hours after the durable write's "
                      "snapshot until it is\ndurable, P ≥ 0 (default 0: blocking "
                      "writes); needs nT ≥ P and preemptible restarts.",
    # a job with a deadline (spotmath.traces.deadlines and its solvers)
    "job_tick": "The step of the schedule, hours: a policy decides, and an instance is "
                "billed, a\ntick at a time.",
    "job_compute": "Compute the job needs, hours on one instance (or one gang).",
    "job_deadline": "Hours from the start by which the job must finish.",
    "job_changeover": "Dead time after each switch to a new instance, spot or on-demand, "
                      "before\nit computes, hours.",
    "job_discount": "Spot's discount on the on-demand price, in [0, 1).",
    "job_billing": "Bill the finishing tick whole (default, the paper's accounting) or to "
                   "the\nfinish.",
    "job_interval": "Checkpoint mode: compute between writes, hours.",
    "job_write": "Checkpoint mode: blocking time of one write, hours.",
    "availability_model": "The two-state Markov chain of spot availability\n"
                          "(:func:`~spotmath.traces.deadlines.model_policy.fit_availability`).",
    "seed": "Seed of NumPy's random generator, for reproducible runs (default 0).",
    "name": "The parameter's name, used in the error message.",
    "scalar": "Require a single number (default False).",
    "bad_value": "A value that is not a number, not finite, or out of range (the message "
                 "names it).",
}

_TOKEN = re.compile(r"^(?P<indent>[ \t]*)\[\[(?P<name>\w+)\]\][ \t]*$", re.M)
Function = TypeVar("Function", bound=Callable)


def fill_doc(function: Function) -> Function:
    """Fill the ``[[name]]`` lines of ``function``'s docstring from :data:`DESCRIPTIONS`.

    Parameters
    ----------
    function : callable
        A function whose docstring may hold ``[[name]]`` lines.

    Returns
    -------
    callable
        The same function, its docstring filled.

    Raises
    ------
    KeyError
        A ``[[name]]`` with no description.

    Examples
    --------
    >>> @fill_doc
    ... def rate_only(preemption_rate):
    ...     '''One parameter.
    ...
    ...     Parameters
    ...     ----------
    ...     preemption_rate : float
    ...         [[preemption_rate]]
    ...     '''
    >>> print(rate_only.__doc__.splitlines()[5].strip())
    Preemptions per node-hour, λ > 0 (one over the MTBF).
    """
    def indented(match: re.Match) -> str:
        lines = DESCRIPTIONS[match["name"]].split("\n")
        return "\n".join(match["indent"] + line for line in lines)

    if function.__doc__:
        function.__doc__ = _TOKEN.sub(indented, function.__doc__)
    return function
