"""The book's tables and number phrases: what the chapters glue, formatted here.

A chapter decides each verdict, and writes each sentence that says one, in code the reader
sees next to the computation (or a documented library function decides it: a fit's
:attr:`~spotmath.traces.fitting.Fit.hazard`, a replay's
:attr:`~spotmath.traces.replay.Replay.model_gap_z`); what is left here formats a table's
rows or a number (a duration, a share, 'none' and why), each function with an example
run by ``tests/book/test_wording.py``.  One module a chapter (or a few that share a
subject), and ``common`` for what they share; every name is also here.
"""

from . import (
    calibration,
    cluster,
    common,
    deadlines,
    fleet,
    notice,
    plans,
    real_preemptions,
    simulation,
    two_level,
)
from .calibration import *  # noqa: F403
from .cluster import *  # noqa: F403
from .common import *  # noqa: F403
from .deadlines import *  # noqa: F403
from .fleet import *  # noqa: F403
from .notice import *  # noqa: F403
from .plans import *  # noqa: F403
from .real_preemptions import *  # noqa: F403
from .simulation import *  # noqa: F403
from .two_level import *  # noqa: F403

__all__ = [name for module in (common, plans, notice, two_level, simulation, real_preemptions,
                               deadlines, calibration, fleet, cluster)
           for name in module.__all__]
