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

__all__ = ["TOLERANCE", "IDLE", "SPOT", "ON_DEMAND", "KINDS", "Checkpoints"]

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
