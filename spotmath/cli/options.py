"""What the commands share: the one-line parser, the options several take, and how a plan prints."""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path

from ..inputs import InputError, check_duration
from ..model.plan import CHOICES, DEFAULTS, OPTION_NAMES, PLAN_KEYS, RENAMED_OPTIONS, Plan

__all__ = []


#: The one map from the library's parameter names to the options a reader types, for
#: every command: an error the library raises names the option (``checkpoint_cost`` is
#: ``--checkpoint``).  The plan's part is :data:`spotmath.model.plan.OPTION_NAMES`, which
#: the page shares.
OPTIONS = OPTION_NAMES | {name: f"--{name.replace('_', '-')}" for name in (
    "compute", "deadline", "changeover", "discount", "tick", "start_tick", "starts", "seed",
    "billing", "policy", "mtbf", "draws", "interval", "outage", "gang_size", "level1_group",
    "level2_every", "gpus", "hp_rate", "hp_hold", "hp_gpus", "gangs", "grace",
    "start_target", "write_bandwidth", "snapshot_bandwidth")}


def _as_typed(error: InputError, mentions: tuple[str, ...] = ()) -> InputError:
    """``error`` naming the option the reader typed, as are the parameters it mentions:
    those whose names cannot be words of a sentence (with an underscore), and the
    ``mentions`` a caller knows its messages name (``interval``, say).  A name that is no
    parameter (a file's) is left as it is."""
    return error.renamed(OPTIONS.get(error.name, error.name),
                         {name: option for name, option in OPTIONS.items()
                          if "_" in name or name in mentions})


def _gang_size_option(parser: argparse.ArgumentParser, help: str, default: str | None
                      ) -> None:
    """``--gang-size``, the gang's size in every command, and its name before
    (:data:`~spotmath.model.plan.RENAMED_OPTIONS`: taken, and not shown in --help)."""
    parser.add_argument("--gang-size", default=default, help=help)
    for old, new in RENAMED_OPTIONS.items():
        if new == "gang-size":
            parser.add_argument(f"--{old}", dest="gang_size", default=argparse.SUPPRESS,
                                help=argparse.SUPPRESS)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2, and a value
    that starts with a minus and a digit (``--hp-rate -5/h``) is a value, as ``-5`` is,
    so that its option's own check names it: no option of spotmath looks like that."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _plan_values(plan: Plan) -> dict:
    """The plan's documented keys (hours and fractions), the two-level ones after them."""
    values = plan.as_dict()
    levels = plan.two_level or {}
    return {key: values[key] for key in PLAN_KEYS} | {key: levels[key] for key in levels}


def _dump(values: dict) -> str:
    return json.dumps(values, indent=2, allow_nan=False)


def _shared_plan_flags(args: argparse.Namespace, leave: set[str]) -> list[str]:
    """The options of `spotmath plan` given to this command, as typed (those not at their
    defaults), less the destinations in ``leave``."""
    shared = argparse.ArgumentParser(add_help=False)
    _plan_options(shared)
    flags = []
    for action in shared._actions:
        value = getattr(args, action.dest, action.default)
        if action.dest in leave or value == action.default \
                or action.help == argparse.SUPPRESS:  # an old name: printed as the new
            continue
        flags.append(action.option_strings[0])
        if action.nargs != 0:  # not a switch
            flags.append(shlex.quote(str(value)))
    return flags


def _duration(name: str, value) -> float:
    return float(check_duration(name, value, scalar=True, bounded=True))


def _job_options(parser: argparse.ArgumentParser,
                 checkpoint: str | None = DEFAULTS["checkpoint"]) -> None:
    """The restart and checkpoint-write options, the same in plan, fit and replay (plan
    and fit leave --checkpoint unset, to tell it from --state)."""
    parser.add_argument("--restart", default=DEFAULTS["restart"],
                        help="time from preemption to computing again (default 10min)")
    parser.add_argument("--checkpoint", default=checkpoint,
                        help="blocking time of one checkpoint write (default 1min)")


def _plan_options(parser: argparse.ArgumentParser) -> None:
    """The options of `spotmath plan` that `spotmath fit` shares."""
    _job_options(parser, checkpoint=None)
    parser.add_argument("--state", help="the checkpoint's size, e.g. 13.2GB: with "
                                        "--write-bandwidth, instead of --checkpoint")
    parser.add_argument("--write-bandwidth", help="bytes a second to durable storage, e.g. "
                                                  "1.2GB/s (with --state)")
    parser.add_argument("--snapshot-bandwidth",
                        help="asynchronous writes: bytes a second to host memory, e.g. "
                             "55GB/s; the write to storage then runs behind the training "
                             "(it sets --persist)")
    parser.add_argument("--discount", default=DEFAULTS["discount"],
                        help="spot discount against on-demand, 0.6 or 60%% (default 0.6)")
    _gang_size_option(parser, "nodes in the synchronous gang; the job is preempted at N·λ",
                      default="1")
    parser.add_argument("--model", default=CHOICES["model"][0], choices=CHOICES["model"],
                        help="exact renewal-reward model (default) or the first-order "
                             "formula")
    parser.add_argument("--restart-variant", default=CHOICES["restart-variant"][0],
                        choices=CHOICES["restart-variant"],
                        help="exact model: can a restart itself be preempted? (default yes)")
    parser.add_argument("--notice", help="warning before a preemption, e.g. 2min (needs "
                                         "--notice-share)")
    parser.add_argument("--notice-share",
                        help="measured share of preemptions whose notice arrives and is "
                             "acted on, 0 to 1 or 90%%")
    parser.add_argument("--notice-write",
                        help="on-notice checkpoint write, durable before the reclaim "
                             "(default: checkpoint + persist)")
    parser.add_argument("--persist", help="asynchronous checkpoints: time after the "
                                          "blocking write until durable (default 0; with "
                                          "--level1, the durable write's)")
    parser.add_argument("--level1", help="two-level checkpoints: a fast write (peer memory, "
                                         "local disk), e.g. 5s; --checkpoint and --restart "
                                         "are then the durable level's")
    parser.add_argument("--level1-restart", help="restart from a fast copy (default: "
                                                 "--restart)")
    parser.add_argument("--level1-loss", help="share of preemptions that take the fast "
                                              "copies with them, 0 to 1 or 30%%")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")


def _trace_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trace", type=Path, help="the trace file, or a training run's log "
                                                 "of its lives (spotmath-run-log.json)")
    parser.add_argument("--format", choices=["spotmath", "bamboo", "run-log"],
                        help="the trace's format (default: detected from its first line)")
