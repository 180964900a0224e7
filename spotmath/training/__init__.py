"""The interval inside the training loop: :class:`CheckpointSchedule` (no framework needed)
and its adapters for the Hugging Face Trainer (:mod:`spotmath.training.huggingface`) and
Lightning (:mod:`spotmath.training.lightning`), which need ``pip install spotmath[train]``.
"""

from .schedule import (
    PRIOR_PREEMPTIONS,
    RECENT_WRITES,
    RUN_LOG_NAME,
    CheckpointSchedule,
    last_saved_step,
)

__all__ = ["CheckpointSchedule", "RUN_LOG_NAME", "RECENT_WRITES", "PRIOR_PREEMPTIONS",
           "last_saved_step"]
