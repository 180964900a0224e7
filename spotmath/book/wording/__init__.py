"""The book's sentences and table rows: what the chapters glue into their prose, phrased here.

A chapter decides each verdict in code the reader sees or in a documented library
function (a fit's :attr:`~spotmath.traces.fitting.Fit.hazard`, a replay's
:attr:`~spotmath.traces.replay.Replay.model_gap_z`); what is left here is only how the
verdict reads, so that the prose follows the reader's own traces and parameters.  Each
function is tested in ``tests/book/test_wording.py``. One module a chapter (or a few that
share a subject), and ``common`` for what they share; every name is also here.
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
