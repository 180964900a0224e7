"""How the book shows things: one figure style (PNG, readable at the book's width) and tables."""

from __future__ import annotations

import matplotlib

from ..palette import COLOURS

__all__ = ["COLOURS", "ON_DEMAND_COLOUR", "Table", "book_style", "keep"]

ON_DEMAND_COLOUR = "0.25"


def book_style() -> None:
    """Set matplotlib's defaults for the book (PNG output, sizes, colours, grid)."""
    matplotlib.rcParams.update({
        "figure.figsize": (7.0, 4.0),
        "figure.dpi": 110,
        "savefig.dpi": 110,
        "font.size": 10.5,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": matplotlib.cycler(color=COLOURS),
        "legend.frameon": False,
        "figure.constrained_layout.use": True,
    })
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # outside IPython: nothing to configure
        return
    set_matplotlib_formats("png")


class Table:
    """A small table that shows as HTML in the book and as aligned text elsewhere.

    Both forms are stored in the executed notebook, so nbval compares the numbers.
    """

    def __init__(self, headers: list[str], rows: list[list[object]]) -> None:
        self.headers = [str(h) for h in headers]
        self.rows = [[str(cell) for cell in row] for row in rows]

    def __repr__(self) -> str:
        widths = [max(len(r[i]) for r in [self.headers, *self.rows])
                  for i in range(len(self.headers))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
                 for row in [self.headers, *self.rows]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        """A pipe table, which the book pastes into a numbered, captioned table."""
        def cell(text: str) -> str:
            return text.replace("\\", "\\\\").replace("|", "\\|")

        lines = ["| " + " | ".join(cell(c) for c in row) + " |"
                 for row in [self.headers, *self.rows]]
        lines.insert(1, "|" + "|".join(" --- " for _ in self.headers) + "|")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        head = "".join(f"<th>{escape(h)}</th>" for h in self.headers)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                       for row in self.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def keep(**values: object) -> None:
    """Store values for the prose, showing nothing where the code runs.

    ``keep(waste=w)`` is MyST-NB's ``glue("waste", w, display=False)``: the page then
    writes ``{glue:text}`waste:.1%` `` and papermill reruns can read it back.  What is
    stored is plain JSON: NumPy arrays and scalars as lists and numbers (a rerun reads
    ``[0.07, 0.14]`` rather than ``array([0.07, 0.14])``), a result as its fields (its
    ``as_dict`` where it has one, as the command's ``--json`` gives it, else the
    dataclass's), and an infinite number, which JSON cannot hold, as None: the library's
    word for an interval that does not exist.  A figure is closed once it is stored, so
    that it shows where the prose places it and not again below the cell that drew it.
    """
    import dataclasses
    import math

    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.figure import Figure
    from myst_nb import glue

    def plain(value: object) -> object:
        if isinstance(value, (np.ndarray, np.generic)):
            return plain(value.tolist())
        if hasattr(value, "as_dict"):
            return plain(value.as_dict())
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return plain(dataclasses.asdict(value))
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        if isinstance(value, float) and math.isinf(value):
            return None
        return value

    for name, value in values.items():
        glue(name, plain(value), display=False)
        if isinstance(value, Figure):
            plt.close(value)
