"""Print every chapter's reading measurements against the house style's limits.

    python scripts/house_style.py            # the table, chapters in reading order
    python scripts/house_style.py --check    # exit 1 if any chapter misses a limit

The measurements and the limits are :mod:`spotmath.book.house_style`'s.
"""

import argparse
import sys

from spotmath.book.chapters import chapter_paths
from spotmath.book.house_style import LIMITS, measure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit with status 1 if any chapter misses a limit")
    args = parser.parse_args(argv)
    print(f"limits: median cell <= {LIMITS['median_cell']} lines, none over "
          f"{LIMITS['longest_cell']}, bookkeeping (a figure's set-up counted) <= "
          f"{LIMITS['bookkeeping_share']:.0%}, sentence lines (prose without fences, "
          "options, labels, headings, tables, maths or glue alone) >= code lines, figures "
          "drawn by visible code\n")
    print("| chapter | code cells | hidden | median cell | longest | bookkeeping "
          "| prose : code lines | sentences : code | misses |")
    print("|---|---|---|---|---|---|---|---|---|")
    missed = 0
    for path in chapter_paths():
        style = measure(path)
        breaches = style.breaches()
        missed += bool(breaches)
        print(f"| {style.name} | {style.code_cells} | {style.hidden_share:.0%} "
              f"| {style.median_cell:g} | {style.longest_cell} "
              f"| {style.bookkeeping_share:.0%} "
              f"| {style.prose_lines} : {style.code_lines} "
              f"| {style.sentence_lines} : {style.code_lines} "
              f"| {'; '.join(breaches) or 'none'} |")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
