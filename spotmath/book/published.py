"""The book's published figures: one CSV file, one row per figure, each with its source.

Every external number the book uses (a cloud's notice period, a failure count from a paper)
lives in ``book/data/published_figures.csv`` with its value, unit, what it measures, the
BibTeX key of its source in ``references.bib``, where in the source it is, and a date
(``published`` for papers, ``checked`` for living documentation).  Chapters read it with
:func:`read_figures`; nothing external is typed into code.
"""

from __future__ import annotations

import csv
import datetime
import math
import re
from dataclasses import dataclass
from pathlib import Path

from ..inputs import InputError
from . import DATA

__all__ = ["FIELDS", "FIGURES", "Figure", "read_figures", "bibliography_keys"]

#: The book's figures file (chapters read it wherever they run).
FIGURES = DATA / "published_figures.csv"

FIELDS = ("name", "value", "unit", "quantity", "source", "locator", "date", "date_meaning")
DATE_MEANINGS = ("published", "checked")


@dataclass(frozen=True)
class Figure:
    """One published figure and where it comes from."""

    name: str
    value: float
    unit: str
    quantity: str
    source: str
    locator: str
    date: datetime.date
    date_meaning: str

    def cite(self) -> str:
        """A MyST citation of the figure's source, for prose: ``{cite}`key```."""
        return f"{{cite}}`{self.source}`"


def _row(path: Path, number: int, row: dict[str, str]) -> Figure:
    where = f"{path.name}, row {number}"
    for field in FIELDS:
        if not (row.get(field) or "").strip():
            raise InputError(f"{where}: the field {field!r} is empty")
    where += f" ({row['name']})"
    try:
        value = float(row["value"])
    except ValueError:
        raise InputError(f"{where}: value must be a number, got {row['value']!r}") from None
    if not math.isfinite(value):
        raise InputError(f"{where}: value must be finite, got {row['value']!r}")
    try:
        date = datetime.date.fromisoformat(row["date"].strip())
    except ValueError:
        raise InputError(f"{where}: date must be YYYY-MM-DD, got {row['date']!r}") from None
    if row["date_meaning"] not in DATE_MEANINGS:
        raise InputError(f"{where}: date_meaning must be one of {', '.join(DATE_MEANINGS)}, "
                         f"got {row['date_meaning']!r}")
    return Figure(row["name"].strip(), value, row["unit"].strip(), row["quantity"].strip(),
                  row["source"].strip(), row["locator"].strip(), date, row["date_meaning"])


def read_figures(path: str | Path = FIGURES) -> dict[str, Figure]:
    """Read and check the figures file (the book's, :data:`FIGURES`, by default); return
    the figures by name.

    Refuses (with a one-line :class:`~spotmath.inputs.InputError`) a file whose header is
    not :data:`FIELDS`, an empty field, a value that is not a finite number, a date not in
    ISO form, or a name given twice.
    """
    path = Path(path)
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != FIELDS:
            raise InputError(f"{path.name}: the header must be {','.join(FIELDS)}")
        figures: dict[str, Figure] = {}
        for number, row in enumerate(reader, start=2):
            if None in row:
                raise InputError(f"{path.name}, row {number}: more fields than the header")
            figure = _row(path, number, row)
            if figure.name in figures:
                raise InputError(f"{path.name}, row {number}: the name {figure.name!r} "
                                 "is given twice")
            figures[figure.name] = figure
    return figures


def bibliography_keys(path: str | Path) -> set[str]:
    """The entry keys of a BibTeX file (``@kind{key,``)."""
    text = Path(path).read_text(encoding="utf-8")
    return set(re.findall(r"^@\w+\s*\{\s*([^,\s]+)\s*,", text, flags=re.MULTILINE))
