"""The colours the book's figures and the page's calculator share, written once.

The book's matplotlib style cycles through :data:`COLOURS` (:mod:`spotmath.book.display`)
and draws a run's segments in :data:`KIND_COLOURS` (:mod:`spotmath.book.timelines`); the
calculator's plots take the same from ``spotmath/web/data.js``, which is printed from here
(:mod:`spotmath.web.codegen`).
"""

from __future__ import annotations

__all__ = ["COLOURS", "KIND_COLOURS", "LOST_EDGE"]

#: Lines and series, in the order a figure takes them (the first two: price and waste).
COLOURS = ["#1b6ca8", "#d1495b", "#66a182", "#edae49", "#7b506f", "#00798c"]
#: A colour per segment kind of a run's timeline (Okabe and Ito's palette, readable with
#: any colour vision).
KIND_COLOURS = {"compute": "#0072B2", "checkpoint": "#E69F00", "lost": "#F4C7AE",
                "restart": "#999999", "notice-write": "#009E73", "persist": "#CC79A7",
                "fast-checkpoint": "#56B4E9", "fast-restart": "#F0E442",
                "spot": "#0072B2", "on-demand": "#009E73", "changeover": "#999999",
                "idle": "#EEEEEE"}
#: The hatching that marks lost work.
LOST_EDGE = "#D55E00"
