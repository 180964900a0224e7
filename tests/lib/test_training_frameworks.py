"""The training loop's adapters in the real frameworks, on the CPU: a 2-layer GPT-2 of width
64 on random tokens in the Hugging Face Trainer, a linear model in Lightning, each with the
schedule's clock injected (saves on time, to the step) or the real one (a write slowed by a
known sleep is measured).  They need `pip install -r requirements-train.txt`, which CI
runs; without the frameworks these tests say so and skip."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import math
import os
import runpy
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spotmath.traces.run_log import read_run_log
from spotmath.training import RUN_LOG_NAME, CheckpointSchedule

torch = pytest.importorskip("torch", reason="the training frameworks are not installed "
                                           "(pip install -r requirements-train.txt)")
transformers = pytest.importorskip("transformers")
lightning = pytest.importorskip("lightning")

from spotmath.training import huggingface  # noqa: E402
from spotmath.training import lightning as spot_lightning  # noqa: E402

STEP_S, WRITE_S = 60.0, 30.0  # the injected clock: a step and a write
FIXED = {"mtbf": "4h", "gang_size": 8, "checkpoint_cost": "30s", "prior_preemptions": 1e12}


def every_steps() -> int:
    """Steps of STEP_S between saves at the exact optimum for 8 nodes at one preemption in
    4 hours and a write of WRITE_S, from the library's schedule."""
    interval = CheckpointSchedule(".", **FIXED).interval_h * 3600
    return math.ceil(interval / STEP_S)


@pytest.mark.parametrize("module", [huggingface, spot_lightning])
def test_each_adapter_lists_its_public_names(module):
    defined = {name for name, value in vars(module).items() if not name.startswith("_")
               and (inspect.isclass(value) or inspect.isfunction(value))
               and value.__module__ == module.__name__}
    assert defined <= set(module.__all__)


@pytest.mark.parametrize("name, framework", [("huggingface", "transformers"),
                                             ("lightning", "lightning")])
def test_an_adapter_without_its_framework_says_so_in_one_line(name, framework):
    code = (f"import sys; sys.modules[{framework!r}] = None\n"
            "try:\n"
            f"    import spotmath.training.{name}\n"
            "except ImportError as error:\n"
            "    print(error)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.count("\n") == 1, done.stderr
    assert "pip install 'spotmath[train]'" in done.stdout


# -- the Hugging Face Trainer ---------------------------------------------------------------

def _tiny():
    """tests/lib/training_scripts/tiny_gpt2.py, which the scripts there import too."""
    spec = importlib.util.spec_from_file_location(
        "tiny_gpt2", Path(__file__).resolve().parent / "training_scripts" / "tiny_gpt2.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tiny = _tiny()


def trainer(output_dir, steps: int, callbacks: list):
    args = transformers.TrainingArguments(
        output_dir=str(output_dir), save_strategy="no", max_steps=steps,
        per_device_train_batch_size=4, report_to=[], use_cpu=True, logging_steps=5,
        disable_tqdm=True)
    return transformers.Trainer(model=tiny.tiny_gpt2(), args=args,
                                train_dataset=tiny.Tokens(), callbacks=callbacks)


class HuggingFaceClock(transformers.TrainerCallback):
    """The injected clock: a step takes STEP_S, a save WRITE_S (listed before the spotmath
    callback, so its on_save runs first)."""

    def __init__(self):
        self.now = 1_000.0

    def __call__(self):
        return self.now

    def on_step_begin(self, args, state, control, **kwargs):
        self.now += STEP_S

    def on_save(self, args, state, control, **kwargs):
        self.now += WRITE_S


class Logs(transformers.TrainerCallback):
    """What the Trainer's loggers receive, after the spotmath callback added its own."""

    def __init__(self):
        self.seen = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        self.seen.append(dict(logs))


def test_the_trainer_saves_at_the_exact_optimum_to_the_step(tmp_path):
    clock, logs = HuggingFaceClock(), Logs()
    saves = huggingface.SpotmathCallback(clock=clock, **FIXED)
    trained = trainer(tmp_path, 40, [clock, saves, logs])
    trained.train()
    every = every_steps()
    expected = list(range(every, 41, every))
    assert sorted(int(p.name.split("-")[1]) for p in tmp_path.glob("checkpoint-*")) == \
        expected
    life = read_run_log(tmp_path / RUN_LOG_NAME).lives[0]
    assert [save.step for save in life.saves] == expected
    assert all(save.seconds == WRITE_S for save in life.saves)
    assert life.end == "finished" and life.last_step == 40
    logged = [entry for entry in logs.seen if "spotmath/interval_s" in entry]
    assert logged and logged[-1]["spotmath/checkpoint_cost_s"] == pytest.approx(WRITE_S)
    assert logged[-1]["spotmath/interval_s"] == pytest.approx(saves.schedule.interval_h * 3600)


def test_the_trainer_measures_a_write_slowed_by_a_known_sleep(tmp_path, monkeypatch):
    """Each checkpoint write sleeps 0.4 s on top of writing the tiny model: C is measured
    within 10% of 0.4 s."""
    original = transformers.Trainer._save_checkpoint

    def slowed(self, *args, **kwargs):
        time.sleep(0.4)
        return original(self, *args, **kwargs)

    class Steady(transformers.TrainerCallback):  # steps of 10 ms at least
        def on_step_begin(self, args, state, control, **kwargs):
            time.sleep(0.01)

    monkeypatch.setattr(transformers.Trainer, "_save_checkpoint", slowed)
    saves = huggingface.SpotmathCallback(mtbf="0.05s", checkpoint_cost="0.4s",
                                         prior_preemptions=1e12)  # every 50 ms of steps
    trainer(tmp_path, 20, [Steady(), saves]).train()
    measured = saves.schedule.checkpoint_cost_h * 3600
    assert len(saves.schedule.life.saves) >= 3
    assert measured == pytest.approx(0.4, rel=0.1)


def test_a_relaunch_counts_the_life_that_did_not_finish(tmp_path):
    """A first life left running in the log (a kill) is counted as preempted by the
    next, which then learns a higher λ than the prior."""
    clock = HuggingFaceClock()
    first = huggingface.SpotmathCallback(clock=clock, mtbf="4h", gang_size=8,
                                         checkpoint_cost="30s")
    run = trainer(tmp_path, 12, [clock, first])
    run.train()
    log = read_run_log(tmp_path / RUN_LOG_NAME)
    log.lives[-1].end = "running"  # as a kill leaves it
    from spotmath.traces.run_log import write_run_log

    write_run_log(log, tmp_path / RUN_LOG_NAME)
    second = huggingface.SpotmathCallback(clock=clock, mtbf="4h", gang_size=8,
                                          checkpoint_cost="30s")
    trainer(tmp_path, 24, [clock, second]).train(resume_from_checkpoint=True)
    again = read_run_log(tmp_path / RUN_LOG_NAME)
    assert [life.end for life in again.lives] == ["preempted", "finished"]
    assert again.lives[1].saves[0].step > again.lives[0].saves[-1].step
    assert second.schedule.preemption_rate > first.schedule.preemption_rate


# -- Lightning ------------------------------------------------------------------------------

class Regression(lightning.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(8, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


def batches():
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(256, 8, generator=generator)
    data = torch.utils.data.TensorDataset(x, x.sum(dim=1, keepdim=True))
    return torch.utils.data.DataLoader(data, batch_size=8)


class LightningClock(lightning.Callback):
    """The injected clock: a batch takes STEP_S, a checkpoint WRITE_S."""

    def __init__(self):
        self.now = 1_000.0

    def __call__(self):
        return self.now

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self.now += STEP_S

    def on_save_checkpoint(self, trainer, pl_module, checkpoint):
        self.now += WRITE_S


def fit(tmp_path, steps, callbacks):
    torch.manual_seed(0)
    run = lightning.Trainer(default_root_dir=tmp_path, max_steps=steps, accelerator="cpu",
                            devices=1, logger=False, enable_checkpointing=False,
                            enable_progress_bar=False, enable_model_summary=False,
                            callbacks=callbacks)
    run.fit(Regression(), batches())
    return run


def test_lightning_saves_at_the_exact_optimum_to_the_step(tmp_path):
    clock = LightningClock()
    saves = spot_lightning.SpotmathCallback(clock=clock, **FIXED)
    fit(tmp_path, 30, [clock, saves])
    every = every_steps()
    expected = list(range(every, 31, every))
    life = read_run_log(tmp_path / RUN_LOG_NAME).lives[0]
    assert [save.step for save in life.saves] == expected
    assert all(save.seconds == WRITE_S for save in life.saves)
    kept = sorted(tmp_path.glob("spotmath-step=*.ckpt"))
    assert len(kept) == spot_lightning.KEEP  # its own older files removed
    assert spot_lightning.SpotmathCallback.last_checkpoint(tmp_path).endswith(
        f"spotmath-step={expected[-1]}.ckpt")


def test_lightning_measures_a_write_slowed_by_a_known_sleep(tmp_path):
    class Slow(lightning.Callback):  # steps of 10 ms at least, writes of 0.4 s more
        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            time.sleep(0.01)

        def on_save_checkpoint(self, trainer, pl_module, checkpoint):
            time.sleep(0.4)

    saves = spot_lightning.SpotmathCallback(mtbf="0.05s", checkpoint_cost="0.4s",
                                            prior_preemptions=1e12)  # every 50 ms of steps
    fit(tmp_path, 20, [Slow(), saves])
    assert len(saves.schedule.life.saves) >= 3
    assert saves.schedule.checkpoint_cost_h * 3600 == pytest.approx(0.4, rel=0.1)


def test_the_adapters_import_nothing_of_each_other():
    importlib.reload(huggingface)
    assert "lightning" not in vars(huggingface) and "transformers" not in vars(spot_lightning)


# -- a real kill, and two processes ---------------------------------------------------------

SCRIPTS = Path(__file__).resolve().parent / "training_scripts"


def assert_ranks_saved_alike(folder: Path) -> None:
    """Ranks 0 and 1 saved at the same steps (their ``saved-RANK.json``), three or more,
    and rank 0's log records those steps."""
    zero, one = (json.loads((folder / f"saved-{rank}.json").read_text()) for rank in (0, 1))
    assert len(zero) >= 3 and zero == one
    assert [save.step for save in read_run_log(folder / RUN_LOG_NAME).lives[0].saves] == zero


def kill_after_saves(command: list[str], folder: Path, saves: int) -> None:
    """Run a training script, and SIGKILL it once its rank 0 has saved ``saves`` times
    (its ``saved-0.json``), or after a minute."""
    running = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    saved = folder / "saved-0.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and running.poll() is None:
        if saved.exists() and len(json.loads(saved.read_text() or "[]")) >= saves:
            break
        time.sleep(0.05)
    running.send_signal(signal.SIGKILL)
    running.wait()


def test_a_run_killed_mid_training_resumes_from_its_last_checkpoint(tmp_path, monkeypatch):
    """The tiny GPT-2 trained in a process of its own, killed with SIGKILL once it has
    saved twice, then relaunched (here): the log holds the killed life, preempted, with
    its saves; the relaunch resumes from the last checkpoint the log records as written,
    not from a newer one a kill mid-write would leave, and finishes."""
    script = SCRIPTS / "hf_run.py"
    kill_after_saves([sys.executable, str(script), str(tmp_path), "300", "0.02"], tmp_path, 2)
    killed = read_run_log(tmp_path / RUN_LOG_NAME).lives
    assert len(killed) == 1 and killed[0].end == "running" and len(killed[0].saves) >= 2
    last = killed[0].saves[-1].step
    assert last < 300 and (tmp_path / f"checkpoint-{last}").is_dir()
    (tmp_path / f"checkpoint-{last + 1}").mkdir(exist_ok=True)  # as a kill mid-write leaves
    assert huggingface.SpotmathCallback.last_checkpoint(tmp_path) == \
        str(tmp_path / f"checkpoint-{last}")
    monkeypatch.setattr(sys, "argv", [str(script), str(tmp_path), "300"])
    monkeypatch.syspath_prepend(str(SCRIPTS))  # as `python hf_run.py` puts its folder first
    runpy.run_path(str(script), run_name="__main__")
    lives = read_run_log(tmp_path / RUN_LOG_NAME).lives
    assert [life.end for life in lives] == ["preempted", "finished"]
    assert lives[0].saves == killed[0].saves and lives[0].last_s >= killed[0].saves[-1].at_s
    assert lives[1].saves[0].step > last and lives[1].last_step == 300


def test_two_processes_save_at_the_same_steps(tmp_path):
    """Two ranks on gloo (the Trainer's DDP on the CPU): rank 1's own prior (one preemption
    in 10 hours) would never save in a run this short, yet both save at rank 0's steps,
    the steps rank 0's log records."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    runs = []
    for rank in (0, 1):
        environment = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2",
                           LOCAL_WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                           MASTER_PORT=str(port), OMP_NUM_THREADS="1")
        runs.append(subprocess.Popen(
            [sys.executable, str(SCRIPTS / "hf_run.py"), str(tmp_path), "30", "0.005",
             "10h"], env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True))
    for run in runs:
        output, _ = run.communicate(timeout=120)
        assert run.returncode == 0, output[-3000:]
    assert_ranks_saved_alike(tmp_path)


def test_a_sigterm_notice_saves_at_once_and_stops(tmp_path):
    """A notice of 2 minutes and writes of 30 s: every preemption announced, so no
    periodic write; a SIGTERM at step 7 makes the Trainer save after that step and stop,
    and Lightning the same."""
    clock = HuggingFaceClock()

    class Term(transformers.TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            if state.global_step == 6:
                os.kill(os.getpid(), signal.SIGTERM)

    saves = huggingface.SpotmathCallback(clock=clock, notice="2min", **FIXED)
    trainer(tmp_path / "hf", 40, [clock, Term(), saves]).train()
    life = read_run_log(tmp_path / "hf" / RUN_LOG_NAME).lives[0]
    assert [save.step for save in life.saves] == [7] and life.last_step == 7
    assert signal.getsignal(signal.SIGTERM) is not saves._noticed  # handed back

    class LightningTerm(lightning.Callback):
        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            if trainer.global_step == 6:
                os.kill(os.getpid(), signal.SIGTERM)

    clock = LightningClock()
    saves = spot_lightning.SpotmathCallback(clock=clock, notice="2min", **FIXED)
    run = fit(tmp_path / "pl", 40, [clock, LightningTerm(), saves])
    life = read_run_log(tmp_path / "pl" / RUN_LOG_NAME).lives[0]
    assert [save.step for save in life.saves] == [7] and run.global_step == 7


def test_lightning_on_two_processes_saves_at_the_same_steps(tmp_path):
    """Lightning's DDP on the CPU, two ranks: rank 1's own prior would never save, yet
    both save at rank 0's steps, which rank 0's log records."""
    done = subprocess.run([sys.executable, str(SCRIPTS / "pl_run.py"), str(tmp_path), "40",
                           "2", "0.005", "10h"], capture_output=True, text=True, timeout=180,
                          env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert_ranks_saved_alike(tmp_path)


def test_lightning_killed_mid_training_resumes_from_its_last_checkpoint(tmp_path):
    """Killed with SIGKILL after three saves, then relaunched for twenty steps more than
    its last checkpoint: the relaunch starts from that checkpoint and finishes there."""
    script = [sys.executable, str(SCRIPTS / "pl_run.py"), str(tmp_path)]
    kill_after_saves([*script, "3000", "1", "0.005"], tmp_path, 3)
    killed = read_run_log(tmp_path / RUN_LOG_NAME).lives
    last = spot_lightning.SpotmathCallback.last_checkpoint(tmp_path)
    assert killed[0].end == "running" and last.endswith(f"={killed[0].saves[-1].step}.ckpt")
    # Slowed as the killed run was (more): unslowed, twenty steps of a linear model can
    # end before the 0.07 s interval comes round, and the relaunch would not save at all.
    done = subprocess.run([*script, str(killed[0].saves[-1].step + 20), "1", "0.01"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    lives = read_run_log(tmp_path / RUN_LOG_NAME).lives
    assert [life.end for life in lives] == ["preempted", "finished"]
    assert lives[1].saves[0].step > killed[0].saves[-1].step
    assert lives[1].last_step == killed[0].saves[-1].step + 20
