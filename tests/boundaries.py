"""Parameter sets at the ends of every chapter parameter's range, for the boundary tests.

Every value a parameter's check accepts must run through every chapter that declares it
(no traceback, no NaN or infinity on the page): the smallest and largest accepted values
(zero where zero is accepted), read from the parameter table itself, and two mixtures
that put the fastest preemptions with the slowest restarts and writes, and the reverse.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from spotmath.book.chapters import ROOT, run_chapter
from spotmath.book.parameters import BOOK_TABLE, CHAPTER_PARAMETERS, BookParameter


def end_value(row: BookParameter, end: str):
    """The parameter at one end of its range: ``"low"`` or ``"high"`` (a list holds both
    ends at the high end, the low one at the low end)."""
    if row.kind == "flag":
        return end == "high"
    if row.kind == "trace":
        return ["p3-trace.csv"] if end == "low" else ["p3-trace.csv", "g4dn-trace.csv"]
    whole = row.kind in ("whole", "seed")
    low, high = (int(row.low), int(row.high)) if whole else (row.low, row.high)
    if row.is_list:
        return [low] if end == "low" else [low, high]
    return low if end == "low" else high


LOW = {row.name: end_value(row, "low") for row in BOOK_TABLE}
HIGH = {row.name: end_value(row, "high") for row in BOOK_TABLE}
SETS = {
    "smallest": LOW,
    "largest": HIGH,
    # preemptions every 6 minutes with day-long restarts and writes (spot never pays,
    # nothing can be simulated), and the reverse: rare preemptions, free restarts
    "fast-and-slow": dict(HIGH, mtbf_hours=LOW["mtbf_hours"],
                          mtbf_grid_hours=LOW["mtbf_grid_hours"], persist_minutes=5.0),
    "slow-and-fast": dict(LOW, mtbf_hours=HIGH["mtbf_hours"],
                          mtbf_grid_hours=[HIGH["mtbf_hours"]],
                          gang_sizes=[HIGH["gang_sizes"][-1]],
                          pool_gang_sizes=[HIGH["pool_gang_sizes"][-1]]),
}

#: Words that must never reach a page: a number that is not one.
_NOT_A_NUMBER = re.compile(r"\b(nan|NaN|inf|Infinity)\b|-inf\b")


def run_at(chapter: str, name: str, folder: Path) -> None:
    """Run ``chapter`` with the parameter set ``name``; fail on an error or a NaN shown."""
    parameters = {key: SETS[name][key] for key in CHAPTER_PARAMETERS[chapter]}
    output = folder / f"{chapter}.ipynb"
    run_chapter(ROOT / "book" / f"{chapter}.ipynb", output, parameters)
    notebook = nbformat.read(output, as_version=4)
    for cell in notebook.cells:
        for out in cell.get("outputs", []):
            for mime in ("text/plain", "text/markdown", "text/html"):
                for prefix in ("", "application/papermill.record/"):
                    text = out.get("data", {}).get(prefix + mime, "")
                    if text.startswith("<Figure") or text.startswith("<IPython"):
                        continue
                    found = _NOT_A_NUMBER.search(text)
                    assert not found, (chapter, name, text[max(0, found.start() - 200):
                                                            found.end() + 50])
