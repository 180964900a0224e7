"""Lightning saves on time: :class:`SpotmathCallback`.

::

    from spotmath.training.lightning import SpotmathCallback

    saves = SpotmathCallback(mtbf="4h", gang_size=8)
    trainer = L.Trainer(default_root_dir="run", callbacks=[saves], ...)
    trainer.fit(model, data, ckpt_path=saves.last_checkpoint("run"))

After each training batch the callback asks :class:`~spotmath.training.CheckpointSchedule`
whether to save; if so it calls ``trainer.save_checkpoint`` on every rank (rank 0's answer,
broadcast by the strategy, so that no rank skips the collective save) and times the write.
Checkpoints go to ``dirpath`` (default: the trainer's ``default_root_dir``) as
``spotmath-step=N.ckpt``; the callback keeps the newest :data:`KEEP` of its own and
removes only those it wrote.  The run log lies beside them.  A SIGTERM (a notice) makes
the next batch save and stop when the notice is longer than C.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

try:
    from lightning.pytorch.callbacks import Callback
except ImportError:  # one line, not a traceback into lightning
    raise ImportError("spotmath.training.lightning needs Lightning: "
                      "pip install 'spotmath[train]'") from None

from .schedule import CheckpointSchedule, last_saved_step

__all__ = ["SpotmathCallback", "KEEP"]

#: How many of its own checkpoints the callback keeps.
KEEP = 2


class SpotmathCallback(Callback):
    """Save at the exact optimum for the gang's rate and the measured write.

    Parameters
    ----------
    dirpath : str or Path, optional
        Where the checkpoints and the run log go (default: ``default_root_dir``).
    clock : callable, optional
        Seconds since the epoch (default :func:`time.time`).
    **settings
        As for :class:`~spotmath.training.CheckpointSchedule` (``mtbf`` or
        ``preemption_rate``, ``gang_size``, ``checkpoint_cost``, ``notice`` …).

    Attributes
    ----------
    schedule : CheckpointSchedule or None
        The schedule, once training has begun.
    """

    def __init__(self, dirpath: str | Path | None = None, *,
                 clock: Callable[[], float] = time.time, **settings):
        self.dirpath = None if dirpath is None else Path(dirpath)
        self.settings, self.clock = settings, clock
        self.schedule: CheckpointSchedule | None = None
        self._previous = None
        self._written: list[Path] = []

    @staticmethod
    def last_checkpoint(dirpath: str | Path) -> str | None:
        """The ``spotmath-step=N.ckpt`` of the last write the run log records as finished
        (None: none yet), to resume from (``trainer.fit(..., ckpt_path=...)``): a kill
        during a write leaves a newer file that would not load."""
        step = last_saved_step(dirpath)
        path = Path(dirpath) / f"spotmath-step={step}.ckpt"
        return str(path) if step is not None and path.is_file() else None

    def on_train_start(self, trainer, pl_module):
        folder = self.dirpath or Path(trainer.default_root_dir)
        self.dirpath = folder
        self.schedule = CheckpointSchedule(
            folder, rank=trainer.global_rank, clock=self.clock,
            broadcast=lambda answer: bool(trainer.strategy.broadcast(answer, src=0)),
            **self.settings)
        self.schedule.start(trainer.global_step)
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGTERM, self._noticed)

    def _noticed(self, signum, frame):
        self.schedule.notice_received()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        step = trainer.global_step
        noticed = self.schedule.notice_pending
        if not self.schedule.should_save(step):
            return
        self.schedule.write_started()
        path = self.dirpath / f"spotmath-step={step}.ckpt"
        trainer.save_checkpoint(path)
        self.schedule.write_ended(step)
        if trainer.global_rank == 0:
            self._written.append(path)
            while len(self._written) > KEEP:
                self._written.pop(0).unlink(missing_ok=True)  # safe: this callback saved it
        if noticed:  # saved on notice: stop before the kill
            trainer.should_stop = True

    def on_train_end(self, trainer, pl_module):
        self.schedule.finish(trainer.global_step)
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)
            self._previous = None
