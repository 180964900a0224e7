"""The `spotmath` command: a quick answer for one's own numbers, and citable derivations.

    spotmath plan --mtbf 4h --restart 10min --checkpoint 1min --discount 0.6 [--gang-size 8]
                  [--model exact|first-order] [--restart-variant preemptible|protected]
                  [--notice 2min --notice-share 0.9 [--notice-write 30s]] [--persist 5min]
                  [--json]
    spotmath fit TRACE [--format spotmath|bamboo] [--window 60s] [plan options] [--json]
    spotmath replay TRACE [--interval T] [--checkpoint C] [--restart R] [--gang-size N]
                    [--scan] [--json]
    spotmath plan ... --compute 6h --deadline 10h [--outage 1h]
    spotmath deadline --trace FILE --compute 48h --deadline 60h [--changeover 12min]
                      [--discount 0.6] [--gang-size N] [--policy P ...]
                      [--start-tick I | --starts K --seed S] [--billing tick|second] [--json]
    spotmath deadline --mtbf 4h --outage 1h --compute 48h --deadline 60h [--draws 300]
    spotmath derive NAME [--latex | --sympy]
    spotmath derive --list
    spotmath book [--params my.yaml] [-p NAME VALUE ...] --out DIR [--force]

Bad input ends with exit status 2 and one line on stderr naming the option; no traceback.
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..inputs import InputError
from ..model.plan import DEFAULTS
from .book import _book
from .cluster import _cluster
from .deadline import _deadline
from .derive import _derive
from .options import _gang_size_option, _job_options, _Parser, _plan_options, _trace_options
from .plan import _plan
from .traces import _fit, _replay

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="spotmath", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"spotmath {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    plan = commands.add_parser(
        "plan", help="optimal checkpoint interval and whether spot pays, for your numbers",
        description="Optimal checkpoint interval, waste, break-even and gang limits. "
                    "Durations take units (90s, 10min, 4h, 1.5d; a bare number is hours). "
                    "Defaults are the book's: MTBF 4h, restart 10min, checkpoint 1min, "
                    "discount 0.6.")
    source = plan.add_mutually_exclusive_group()
    source.add_argument("--mtbf", default=DEFAULTS["mtbf"],
                        help="mean time between preemptions of one node (default 4h)")
    source.add_argument("--rate", help="preemption rate of one node instead, e.g. 0.25/h")
    _plan_options(plan)
    plan.add_argument("--compute", help="a job with a deadline: its compute, e.g. 6h "
                                        "(with --deadline)")
    plan.add_argument("--deadline", help="time from the start by which it must finish")
    plan.add_argument("--outage", help="mean time spot stays away once gone (default 1h)")
    plan.set_defaults(run=_plan)

    fit = commands.add_parser(
        "fit", help="fit a spot trace: rate, Weibull shape, co-preemption, and the plan",
        description="Fit the preemptions of a trace (CSV time_s,node,event, or a Bamboo "
                    "trace): the rate per node-hour with its exact 95% interval, the "
                    "censored Weibull shape, the share of preemptions that come together, "
                    "and the plan at the fitted rate.")
    _trace_options(fit)
    fit.add_argument("--window", default="60s",
                     help="preemptions at most this far apart count as together "
                          "(default 60s)")
    _plan_options(fit)
    fit.add_argument("--level1-group",
                     help="fast copies held by groups of this many nodes of the gang "
                          "(2: a pairwise backup): measure how often a preemption event "
                          "takes them (events: preemptions within --level1-restart); with "
                          "--level1, plan two levels at that share")
    fit.set_defaults(run=_fit)

    replay_ = commands.add_parser(
        "replay", help="replay a checkpoint interval on a spot trace: the waste it cost",
        description="Replay checkpointing on a trace: every complete lifetime is a paid "
                    "up-period that restarts (R), then computes T and writes C in turn; "
                    "the compute of completed segments is useful. --gang-size N replays a "
                    "synchronous gang on the pool instead.")
    _trace_options(replay_)
    replay_.add_argument("--interval", help="compute between checkpoints (default: the "
                                            "exact optimum at the trace's rate)")
    _job_options(replay_)
    _gang_size_option(replay_, "replay a synchronous gang of N on the pool", default=None)
    replay_.add_argument("--scan", action="store_true",
                         help="also find the best fixed interval on the trace")
    replay_.add_argument("--level1", help="two-level checkpoints: the fast write (needs "
                                          "--gang-size and --level1-group)")
    replay_.add_argument("--level1-restart", help="restart from a fast copy (default: "
                                                  "--restart), also an event's window")
    replay_.add_argument("--level1-group", help="fast copies held by groups of this many "
                                                "nodes, placed at random")
    replay_.add_argument("--level2-every", help="a durable write every n-th write (with "
                                                "--interval; default: the optimum)")
    replay_.add_argument("--seed", type=int, default=0,
                         help="seed of the random groups (default 0)")
    replay_.add_argument("--json", action="store_true", help="print one JSON object instead")
    replay_.set_defaults(run=_replay)

    deadline = commands.add_parser(
        "deadline", help="a job with a deadline: when to fall back to on-demand, and the cost",
        description="Run the deadline policies of Can't Be Late (on-demand, greedy, "
                    "uniform progress, and the omniscient optimum) on an availability "
                    "trace: a Can't Be Late JSON trace, a CSV time_s,available (in "
                    "both, a tick's value is the number of instances available: 0 = no "
                    "spot), a group-size log, or an instance trace. Costs are in "
                    "on-demand hours.")
    deadline.add_argument("--trace", type=Path,
                          help="the availability trace (without one: --mtbf and --outage)")
    deadline.add_argument("--prior-trace", type=Path, action="append",
                          help="another trace of the same days (another zone), dated and on "
                               "the trace's tick, whose spells before each start the model "
                               "policy takes as its prior (repeat for each)")
    deadline.add_argument("--mtbf", help="without a trace: one node's mean time between "
                                         "preemptions while spot is there (default 4h)")
    deadline.add_argument("--outage", help="without a trace: mean time spot stays away "
                                           "(default 1h)")
    deadline.add_argument("--draws", type=int, help="without a trace: availabilities drawn "
                                                    "(default 300)")
    deadline.add_argument("--format", choices=["cbl-json", "csv", "probes", "group-sizes",
                                               "spotmath", "bamboo"],
                          help="the trace's format (default: detected)")
    deadline.add_argument("--tick",
                          help="ticks an instance trace or group-size log is cut into, "
                               "or the model's without a trace (default 10min; a JSON "
                               "or CSV availability trace sets its own)")
    _gang_size_option(deadline, "a gang: spot only in ticks with at least N instances "
                                "available (default 1)", default="1")
    deadline.add_argument("--compute", required=True, help="compute the job needs, e.g. 48h")
    deadline.add_argument("--deadline", required=True,
                          help="time from the start by which it must finish, e.g. 60h")
    deadline.add_argument("--changeover", default="12min",
                          help="time a new instance makes no progress (default 12min, the "
                               "paper's 0.2 h)")
    deadline.add_argument("--discount", default=DEFAULTS["discount"],
                          help="spot discount against on-demand (default 0.6)")
    deadline.add_argument("--policy", action="append", choices=[
        "on-demand", "greedy", "uniform-progress", "omniscient", "model"],
        help="a policy to run (repeatable; default all)")
    starts = deadline.add_mutually_exclusive_group()
    starts.add_argument("--start-tick", type=int, default=0,
                        help="one run from this tick (default 0)")
    starts.add_argument("--starts", type=int, help="runs from K start ticks drawn at random")
    deadline.add_argument("--seed", type=int, default=0,
                          help="seed for drawing the start ticks (default 0)")
    deadline.add_argument("--interval", help="checkpoint mode: compute between writes, or "
                                             "'auto' (the exact optimum at the trace's rate)")
    deadline.add_argument("--checkpoint", help="checkpoint mode: blocking time of one write "
                                               "(default 1min)")
    deadline.add_argument("--billing", choices=["tick", "second"], default="tick",
                          help="bill the finishing tick whole (default) or to the second")
    deadline.add_argument("--json", action="store_true", help="print one JSON object instead")
    deadline.set_defaults(run=_deadline)

    cluster = commands.add_parser(
        "cluster", help="gangs in your own shared GPU pool: preemption derived from its load",
        description="Training gangs of --gang-size GPUs in a pool of --gpus, preempted by "
                    "high-priority requests (Poisson, --hp-rate; each --hp-gpus GPUs for a "
                    "mean --hp-hold), the most recently admitted first: each gang's "
                    "preemption rate per up hour (Erlang's B), time up, wait for "
                    "re-admission, up-time CV, and the best interval under its up times' "
                    "exact law and its waste. Durations and rates take units (20min, 6/h).")
    cluster.add_argument("--gpus", required=True, help="GPUs in the pool")
    cluster.add_argument("--hp-rate", required=True,
                         help="high-priority requests per hour, e.g. 6/h")
    cluster.add_argument("--hp-hold", required=True,
                         help="mean time a high-priority request holds its GPUs, e.g. 2h")
    cluster.add_argument("--hp-gpus", default="1", help="GPUs each request takes (default 1)")
    cluster.add_argument("--hp-overflow", default="queue", choices=["queue", "drop"],
                         help="a request that finds every place taken waits in line, as "
                              "Kueue and Slurm keep it (default), or is turned away")
    _gang_size_option(cluster, "GPUs each training gang needs", default="1")
    cluster.add_argument("--gangs",
                         help="training gangs in the pool (default: as many as fit)")
    cluster.add_argument("--grace", default="30s",
                         help="grace period before a preempted gang is killed (default "
                              "30s, Kubernetes' terminationGracePeriodSeconds); a write "
                              "that fits in it is made on notice")
    cluster.add_argument("--failure-mtbf",
                         help="time between hardware failures of one GPU, e.g. 50000h, "
                              "or none (default: one GPU's share of Llama 3's 419 "
                              "unexpected interruptions in 54 days on 16,384 GPUs); a "
                              "notice covers preemptions, not failures")
    cluster.add_argument("--load-time", default="0s",
                         help="time an inference replica takes to load its model once it "
                              "has its GPUs, added to its start delay (default 0s)")
    cluster.add_argument("--start-target", default="0s",
                         help="p99 start delay inference may have, e.g. 10s (default 0s); "
                              "for one pool or two")
    _job_options(cluster)
    cluster.add_argument("--json", action="store_true", help="print one JSON object instead")
    cluster.set_defaults(run=_cluster)

    derive = commands.add_parser("derive", help="print a derivation, e.g. for a paper")
    derive.add_argument("name", nargs="?", help="a derivation name (see --list)")
    derive.add_argument("--list", action="store_true", help="list the derivations")
    form = derive.add_mutually_exclusive_group()
    form.add_argument("--latex", dest="form", action="store_const", const="latex",
                      help="LaTeX (default)")
    form.add_argument("--sympy", dest="form", action="store_const", const="sympy",
                      help="SymPy's plain text")
    derive.set_defaults(run=_derive, form="latex")
    book = commands.add_parser(
        "book", help="rerun every chapter with your parameters and build your own edition",
        description="Execute every chapter with papermill using your parameters and build "
                    "the HTML book into OUT. Names and values are checked before anything "
                    "runs; book/ is never written.")
    book.add_argument("--params", type=Path, help="YAML file of name: value parameters")
    book.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                      help="one parameter (repeatable); VALUE is read as YAML: 4, 0.6, [1, 8]")
    book.add_argument("--out", type=Path, required=True,
                      help="folder for your edition: new, empty, or an earlier edition")
    book.add_argument("--force", action="store_true",
                      help="replace an earlier edition in OUT (never anything else)")
    book.set_defaults(run=_book)
    return parser


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The parser, built once per process: parsing leaves it as it was, and building it
    takes a few milliseconds that in-process callers (the tests, the book) would repeat."""
    return build_parser()


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        code = args.run(args)
        sys.stdout.flush()  # inside the try: a reader that stopped reading is seen here
        return code
    except BrokenPipeError:
        # The reader stopped reading (`spotmath fit t.csv | head -1`): stop quietly, with
        # the status of a process ended by SIGPIPE, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except InputError as error:
        print(f"spotmath {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"spotmath {args.command}: stopped", file=sys.stderr)
        return 130
