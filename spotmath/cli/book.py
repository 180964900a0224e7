"""`spotmath book`: an edition of the book with one's own parameters."""

from __future__ import annotations

import argparse
import sys

__all__ = []


def _book(args: argparse.Namespace) -> int:
    """`spotmath book`: the only command that loads the book's machinery."""
    from ..book.edition import EditionError, Stopped, make_edition, read_parameters

    parameters = read_parameters(args.params, args.parameter or [])
    tty = sys.stdout.isatty()

    def progress(line: str, final: bool = True) -> None:
        """One line, rewritten in place on a terminal; a line per change elsewhere."""
        if tty:
            print(f"\r\033[K{line}", end="\n" if final else "", flush=True)
        else:
            print(line, flush=True)

    try:
        make_edition(args.out, parameters, force=args.force, progress=progress)
    except EditionError as error:  # a chapter or the HTML build failed: one line
        print(f"spotmath book: error: {error}", file=sys.stderr)
        return 2
    except Stopped as stop:  # Ctrl-C or SIGTERM while it built
        if tty:
            print(flush=True)  # end the progress line
        print("spotmath book: stopped; the edition's folder is as it was", file=sys.stderr)
        return stop.code
    return 0
