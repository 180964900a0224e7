"""What the deadline modules share: the kinds of tick, the tolerance on hours, and
checkpoint mode.

The simulators (:mod:`~spotmath.traces.deadlines.rules`), the model policy
(:mod:`~spotmath.traces.deadlines.model_policy`) and the optimum's searches
(:mod:`~spotmath.traces.deadlines.omniscient`,
:mod:`~spotmath.traces.deadlines.checkpoint_optimum`) each read these from here, so none
imports another to learn them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...inputs import InputError

__all__ = ["TOLERANCE", "IDLE", "SPOT", "ON_DEMAND", "KINDS", "Checkpoints",
           "OptimumTooLarge"]

#: Hours: two times or amounts of work closer than this are equal.
TOLERANCE = 1e-9
#: What the job does in a tick.
IDLE, SPOT, ON_DEMAND = 0, 1, 2
KINDS = ("idle", "spot", "on-demand")


@dataclass(frozen=True)
class Checkpoints:
    """Checkpoint mode: a write of ``write`` hours after every ``interval`` of compute
    (hours; a run's ``cost`` is money, in on-demand hours)."""

    interval: float
    write: float

    def writes(self, work: float | np.ndarray) -> int | np.ndarray:
        """Writes between the segments of ``work`` hours of compute (none after the last);
        ``work`` a number or an array.

        Examples
        --------
        >>> Checkpoints(2.0, 0.1).writes(5.0)
        2
        """
        if isinstance(work, float):  # the simulators' Safety Net asks every tick
            # as NumPy's below, in floats (past 2⁵³, ceil(x) − 1 is x), NaN and ∞ raising
            segments = work / self.interval - TOLERANCE
            return 0 if segments <= 0 else int(math.ceil(segments) - 1.0)
        count = np.maximum(np.ceil(np.asarray(work) / self.interval - TOLERANCE) - 1, 0)
        return int(count) if np.ndim(count) == 0 else count


class OptimumTooLarge(InputError):
    """The omniscient optimum refused: more to compute than a command may take.

    One line saying how large (``what``) and what would fit: ticks of at least
    ``finer_tick`` hours, ``nearer`` (a change of the job, in words), or the other
    policies alone.  Where the trace's file sets its tick, the tick is not the reader's
    to choose: :meth:`for_fixed_tick` says so.

    Examples
    --------
    >>> error = OptimumTooLarge("a 6000-tick window is too large", 0.5, "a shorter job")
    >>> print(error)
    omniscient: a 6000-tick window is too large: a tick of at least 1.8e+03 s, a shorter \
job, or the other policies alone (--policy) would fit
    >>> print(error.for_fixed_tick())
    omniscient: a 6000-tick window is too large: a shorter job, the other policies alone \
(--policy), or the trace at ticks of at least 1.8e+03 s would fit
    """

    def __init__(self, what: str, finer_tick: float, nearer: str, *,
                 tick_fixed: bool = False) -> None:
        self.what, self.finer_tick, self.nearer = what, finer_tick, nearer
        tick = f"{finer_tick * 3600:.3g} s"
        ways = (f"{nearer}, the other policies alone (--policy), or the trace at ticks of "
                f"at least {tick}" if tick_fixed else
                f"a tick of at least {tick}, {nearer}, or the other policies alone "
                "(--policy)")
        super().__init__(f"omniscient: {what}: {ways} would fit")

    def for_fixed_tick(self) -> OptimumTooLarge:
        """The same refusal for a trace whose file sets the tick (--tick does not apply)."""
        return OptimumTooLarge(self.what, self.finer_tick, self.nearer, tick_fixed=True)
