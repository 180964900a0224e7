"""The `spotmath` command: a quick answer for one's own numbers, and citable derivations.

    spotmath plan --mtbf 4h --restart 10min --checkpoint 1min --discount 0.6 [--nodes 8]
                  [--model exact|first-order] [--restart-variant preemptible|protected] [--json]
    spotmath derive NAME [--latex | --sympy]
    spotmath derive --list
    spotmath book [--params my.yaml] [-p NAME VALUE ...] --out DIR [--force]

Bad input ends with exit status 2 and one line on stderr naming the option; no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from . import __version__
from .inputs import (
    InputError, check_discount, check_duration, check_gang_size, check_rate, rate_from_mtbf,
)
from .plan import Plan, make_plan

DEFAULTS = {"mtbf": "4h", "restart": "10min", "checkpoint": "1min", "discount": "0.6"}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _json(plan: Plan) -> str:
    """The plan as one JSON object with the documented keys (hours and fractions)."""
    keys = ["young_interval_h", "daly_interval_h", "exact_interval_h", "recommended_interval_h",
            "waste_first_order", "waste_exact", "effective_discount", "break_even_interval_h",
            "max_gang_size", "never_on_spot_gang_size", "verdict", "model",
            "restart_preemptible", "nodes", "gang_rate", "preemption_rate", "restart_time_h",
            "checkpoint_cost_h", "spot_discount"]
    values = plan.as_dict()
    return json.dumps({key: values[key] for key in keys}, indent=2, allow_nan=False)


def _plan(args: argparse.Namespace) -> int:
    if args.rate is not None:
        rate = check_rate("--rate", args.rate, scalar=True)
    else:
        rate = rate_from_mtbf(args.mtbf, "--mtbf")
    plan = make_plan(
        preemption_rate=rate,
        restart_time=check_duration("--restart", args.restart, allow_zero=True, scalar=True),
        checkpoint_cost=check_duration("--checkpoint", args.checkpoint, scalar=True),
        spot_discount=check_discount("--discount", args.discount, scalar=True),
        nodes=check_gang_size("--nodes", args.nodes),
        model=args.model,
        restart_preemptible=args.restart_variant == "preemptible",
    )
    print(_json(plan) if args.json else plan.report())
    return 0


def _derive(args: argparse.Namespace) -> int:
    from .derivations import NAMES, derivation

    if args.list or args.name is None:
        for name in NAMES:
            print(f"{name:<30} {derivation(name).title}")
        return 0
    result = derivation(args.name)
    print(result.latex() if args.form == "latex" else str(result))
    return 0


def _book(args: argparse.Namespace) -> int:
    from .chapters import make_edition, read_parameters

    parameters = read_parameters(args.params, args.parameter or [])
    make_edition(args.out, parameters, force=args.force,
                 progress=lambda line: print(line, flush=True))
    return 0


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
    plan.add_argument("--restart", default=DEFAULTS["restart"],
                      help="time from preemption to computing again (default 10min)")
    plan.add_argument("--checkpoint", default=DEFAULTS["checkpoint"],
                      help="blocking time of one checkpoint write (default 1min)")
    plan.add_argument("--discount", default=DEFAULTS["discount"],
                      help="spot discount against on-demand, 0.6 or 60%% (default 0.6)")
    plan.add_argument("--nodes", default="1",
                      help="nodes in the synchronous gang; the job is preempted at N·λ")
    plan.add_argument("--model", default="exact", choices=["exact", "first-order"],
                      help="exact renewal-reward model (default) or the first-order formula")
    plan.add_argument("--restart-variant", default="preemptible",
                      choices=["preemptible", "protected"],
                      help="exact model: can a restart itself be preempted? (default yes)")
    plan.add_argument("--json", action="store_true", help="print one JSON object instead")
    plan.set_defaults(run=_plan)

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
    book.add_argument("--out", type=Path, required=True, help="folder for your edition")
    book.add_argument("--force", action="store_true", help="replace a non-empty OUT")
    book.set_defaults(run=_book)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except InputError as error:
        print(f"spotmath {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
