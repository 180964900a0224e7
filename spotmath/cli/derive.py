"""`spotmath derive`: a derivation printed, for a paper."""

from __future__ import annotations

import argparse

from ..inputs import check_choice

__all__ = []


def _derive(args: argparse.Namespace) -> int:
    """`spotmath derive`: the titles and LaTeX as codegen printed them from the derivations
    (so without SymPy: the test suite holds them equal); ``--sympy`` derives anew."""
    from ..model._generated import LATEX, TITLES

    if args.list or args.name is None:
        for name, title in TITLES.items():
            print(f"{name:<30} {title}")
        return 0
    name = check_choice("derivation", args.name, tuple(TITLES))
    if args.form == "latex":
        print(LATEX[name])
        return 0
    from ..model.derivations import derivation

    print(derivation(name))
    return 0
