"""The Hugging Face Trainer saves on time: :class:`SpotmathCallback`.

Add it to the Trainer and let the Trainer save on no schedule of its own::

    from spotmath.training.huggingface import SpotmathCallback

    args = TrainingArguments(output_dir="run", save_strategy="no", ...)
    trainer = Trainer(model, args, train_dataset=data,
                      callbacks=[SpotmathCallback(mtbf="4h", gang_size=8)])
    trainer.train(resume_from_checkpoint=SpotmathCallback.last_checkpoint("run"))

After each step the callback asks :class:`~spotmath.training.CheckpointSchedule` whether
to save and sets ``control.should_save``; the Trainer then writes its checkpoint, and
``on_save`` ends the write's timing (from the end of the step).  ``on_train_begin`` reads
the run log in ``output_dir`` (a life left ``running`` was preempted), ``on_log`` adds the
interval, C, λ and the expected waste to the Trainer's logs, and a SIGTERM (a notice) makes
the next step save and stop when the notice is longer than C.  In a multi-process run rank
0 decides and ``torch.distributed`` carries its answer to every rank.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

try:
    from transformers import TrainerCallback
except ImportError:  # one line, not a traceback into transformers
    raise ImportError("spotmath.training.huggingface needs Hugging Face Transformers: "
                      "pip install 'spotmath[train]'") from None

from .schedule import CheckpointSchedule, last_saved_step

__all__ = ["SpotmathCallback"]


def _rank0_answer(answer: bool) -> bool:
    """Rank 0's answer on every rank (the answer itself where no process group runs)."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        box = [answer]
        dist.broadcast_object_list(box, src=0)
        return bool(box[0])
    return answer


class SpotmathCallback(TrainerCallback):
    """Save at the exact optimum for the gang's rate and the measured write.

    Parameters
    ----------
    **settings
        As for :class:`~spotmath.training.CheckpointSchedule` (``mtbf`` or
        ``preemption_rate``, ``gang_size``, ``checkpoint_cost``, ``notice`` …), except the
        output folder and the rank, which come from the Trainer's arguments.
    clock : callable, optional
        Seconds since the epoch (default :func:`time.time`).

    Attributes
    ----------
    schedule : CheckpointSchedule or None
        The schedule, once training has begun.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time, **settings):
        self.settings, self.clock = settings, clock
        self.schedule: CheckpointSchedule | None = None
        self._step_end: float | None = None
        self._previous = None

    @staticmethod
    def last_checkpoint(output_dir: str | Path) -> str | None:
        """The Trainer's checkpoint folder of the last write the run log records as
        finished (None: none yet), to resume from: a kill during a write leaves a
        ``checkpoint-N`` folder the Trainer would take for the newest and fail to load."""
        step = last_saved_step(output_dir)
        folder = Path(output_dir) / f"checkpoint-{step}"
        return str(folder) if step is not None and folder.is_dir() else None

    def on_train_begin(self, args, state, control, **kwargs):
        self.schedule = CheckpointSchedule(args.output_dir, rank=args.process_index,
                                           broadcast=_rank0_answer, clock=self.clock,
                                           **self.settings)
        self.schedule.start(state.global_step)
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGTERM, self._noticed)

    def _noticed(self, signum, frame):
        self.schedule.notice_received()

    def on_step_end(self, args, state, control, **kwargs):
        noticed = self.schedule.notice_pending
        if self.schedule.should_save(state.global_step):
            control.should_save = True
            if noticed:  # saved on notice: stop before the kill
                control.should_training_stop = True
        self._step_end = self.clock()
        return control

    def on_save(self, args, state, control, **kwargs):
        if self._step_end is not None:
            self.schedule.write_ended(state.global_step, started=self._step_end)
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs is not None and self.schedule is not None:
            logs.update(self.schedule.summary())
        return control

    def on_train_end(self, args, state, control, **kwargs):
        self.schedule.finish(state.global_step)
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)
            self._previous = None
        return control
