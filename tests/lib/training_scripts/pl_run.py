"""A linear model trained by Lightning with spotmath's callback, for the tests that kill it
or run it on two processes: `python pl_run.py OUTPUT STEPS DEVICES [STEP_SLEEP_S
[OTHER_RANKS_MTBF]]`.  Each rank writes the steps it saved at to OUTPUT/saved-RANK.json;
ranks other than 0 may be given a prior of their own."""

import json
import sys
import time
from pathlib import Path

import lightning
import torch

from spotmath.training.lightning import SpotmathCallback

output, steps, devices = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
step_sleep = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
other_mtbf = sys.argv[5] if len(sys.argv) > 5 else "0.1s"


class Regression(lightning.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(8, 1)

    def training_step(self, batch, batch_idx):
        time.sleep(step_sleep)
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


class Saved(lightning.Callback):
    """Records the steps saved at."""

    def __init__(self):
        self.steps = []

    def on_save_checkpoint(self, trainer, pl_module, checkpoint):
        self.steps.append(trainer.global_step)
        (output / f"saved-{trainer.global_rank}.json").write_text(json.dumps(self.steps))


class Choose(SpotmathCallback):
    """Rank 0's prior, or the other ranks' own."""

    def on_train_start(self, trainer, pl_module):
        if trainer.global_rank:
            self.settings["mtbf"] = other_mtbf
        super().on_train_start(trainer, pl_module)


torch.manual_seed(0)
x = torch.randn(100_000, 8, generator=torch.Generator().manual_seed(0))
data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)),
                                   batch_size=8)
saves = Choose(output, mtbf="0.1s", checkpoint_cost="0.05s", prior_preemptions=1e12)
trainer = lightning.Trainer(default_root_dir=output, max_steps=steps, accelerator="cpu",
                            devices=devices, strategy="ddp" if devices > 1 else "auto",
                            logger=False, enable_checkpointing=False,
                            enable_progress_bar=False, enable_model_summary=False,
                            callbacks=[Saved(), saves])
trainer.fit(Regression(), data, ckpt_path=SpotmathCallback.last_checkpoint(output))
