"""Phrases every chapter shares: clauses joined, intervals, shares and prices as the tables
show them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from ...inputs import duration_text
from ...model.numerics import effective_discount
from ..display import Table

__all__ = ["joined", "interval_or_none", "from_share", "percent_text", "price_text",
           "ci_text", "by_trace", "every", "interval_text", "minutes"]


def joined(parts: Iterable[str], empty: str = "") -> str:
    """Clauses joined by semicolons, or ``empty`` where there are none.

    >>> joined(["a", "b"]), joined([], "none")
    ('a; b', 'none')
    """
    return "; ".join(parts) or empty


def interval_or_none(interval: float | None,
                     why: str = "no lifetime outlasts a restart and a write") -> str:
    """An interval as a duration, or 'none' and why there is none (by default, a replay's
    best fixed interval's reason).

    >>> interval_or_none(0.25), interval_or_none(None)
    ('15 min', 'none (no lifetime outlasts a restart and a write)')
    >>> interval_or_none(None, "spot never pays")
    'none (spot never pays)'
    """
    if interval is None:
        return f"none ({why})"
    return duration_text(interval)


def from_share(shares: Sequence[float], none: str = "no share") -> str:
    """Where a set of shares begins: 'a share of 12% and more' from the least of them,
    or ``none`` where there are none.

    >>> from_share([0.4, 0.12, 0.9]), from_share([], "no share of the range drawn")
    ('a share of 12% and more', 'no share of the range drawn')
    """
    if not len(shares):
        return none
    return f"a share of {min(shares):.0%} and more"


def _interval_shown(interval: float) -> str:
    """An interval as the tables show it: a duration, or 'on notice' where the writes wait
    for the warning (an infinite interval)."""
    return "on notice" if math.isinf(interval) else duration_text(interval)


def every(plan) -> str:
    """A plan's interval in words: a duration, or 'on notice only'.

    >>> import spotmath as sm
    >>> every(sm.make_plan(0.25, 10 / 60, 1 / 60, 0.6))
    '21.2 min'
    """
    if plan.recommended_interval_h is None:
        return "on notice only"
    return duration_text(plan.recommended_interval_h)


def _discount_cell(waste: float, discount: float) -> str:
    """A table's effective discount at ``waste`` (a waste of 100% has no useful hour, so
    no discount)."""
    effective = effective_discount(waste, discount)  # None: a waste of 100%
    return "n/a (no useful hour)" if effective is None else f"{effective:.1%}"


def minutes(hours: float | None) -> float | None:
    """Hours as minutes, None kept (an interval that does not exist).

    >>> minutes(0.25), minutes(None)
    (15.0, None)
    """
    return None if hours is None else hours * 60


def price_text(price: float) -> str:
    """A price per useful hour as the tables show it, or why there is none (infinite).

    >>> price_text(0.4567), price_text(float("inf"))
    ('0.457', 'n/a (no useful hour)')
    """
    return "n/a (no useful hour)" if math.isinf(price) else f"{price:.3f}"


def percent_text(share: float | None) -> str:
    """A share as the deadline chapter writes it: a whole percentage, or 'n/a' (None); a
    share that rounds to zero from below is 0%, not -0%.

    >>> percent_text(0.6049), percent_text(None), percent_text(-0.004)
    ('60%', 'n/a', '0%')
    """
    if share is None:
        return "n/a"
    text = f"{share:.0%}"
    return "0%" if text == "-0%" else text


def ci_text(low: float, high: float, digits: int = 2) -> str:
    """A confidence interval as text.

    >>> ci_text(0.5234, 0.7101)
    '0.52 to 0.71'
    """
    return f"{low:.{digits}g} to {high:.{digits}g}"


def by_trace(labels: Sequence[str], rows: Sequence[tuple]) -> Table:
    """A table with one column per trace (``labels``) and one row per quantity: each row
    ``(quantity, one value per trace)``.

    >>> print(by_trace(["p3", "g4dn"], [("preemptions", [12, 40])]))
                 p3  g4dn
    -----------  --  ----
    preemptions  12  40
    """
    return Table(["", *labels], [[name, *values] for name, values in rows])


def interval_text(hours: float) -> str:
    """An interval as the prose says it: 'every 12 min', or 'on notice only' where no
    periodic write does better (an infinite interval).

    >>> interval_text(0.2), interval_text(float("inf"))
    ('every 12 min', 'on notice only')
    """
    return "on notice only" if math.isinf(hours) else f"every {duration_text(hours)}"
