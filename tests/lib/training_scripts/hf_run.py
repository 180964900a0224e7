"""A tiny GPT-2 trained by the Hugging Face Trainer with spotmath's callback, for the tests
that kill it or run it on two processes:
`python hf_run.py OUTPUT STEPS [STEP_SLEEP_S [OTHER_RANKS_MTBF [MTBF [PRIOR_PREEMPTIONS]]]]`.
Each rank writes the steps it saved at to OUTPUT/saved-RANK.json; ranks other than 0 may be
given a prior of their own, which alone would have them save at other steps.  By default
rank 0's prior is one preemption in 0.1 s, held fixed (a weight of 10¹² preemptions)."""

import json
import sys
import time
from pathlib import Path

import transformers
from tiny_gpt2 import Tokens, tiny_gpt2

from spotmath.training.huggingface import SpotmathCallback

output, steps = Path(sys.argv[1]), int(sys.argv[2])
step_sleep = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
other_mtbf = sys.argv[4] if len(sys.argv) > 4 else "0.1s"
own_mtbf = sys.argv[5] if len(sys.argv) > 5 else "0.1s"
weight = float(sys.argv[6]) if len(sys.argv) > 6 else 1e12


class Saved(transformers.TrainerCallback):
    """Records the steps saved at, and slows every step."""

    def __init__(self):
        self.steps = []

    def on_step_begin(self, args, state, control, **kwargs):
        time.sleep(step_sleep)

    def on_save(self, args, state, control, **kwargs):
        self.steps.append(state.global_step)
        (output / f"saved-{args.process_index}.json").write_text(json.dumps(self.steps))


args = transformers.TrainingArguments(
    output_dir=str(output), save_strategy="no", max_steps=steps,
    per_device_train_batch_size=4, report_to=[], use_cpu=True, disable_tqdm=True,
    logging_steps=1000)
mtbf = own_mtbf if args.process_index == 0 else other_mtbf
saves = SpotmathCallback(mtbf=mtbf, checkpoint_cost="0.05s", prior_preemptions=weight)
trainer = transformers.Trainer(model=tiny_gpt2(), args=args, train_dataset=Tokens(4096),
                               callbacks=[Saved(), saves])
trainer.train(resume_from_checkpoint=SpotmathCallback.last_checkpoint(output))
