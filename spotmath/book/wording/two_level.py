"""The two-level chapter: the best pattern in words, the remedies compared, the worked example
and the pools' fits.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...inputs import duration_text
from ..display import Table
from .common import _minutes

__all__ = ["two_level_numbers", "two_level_async_numbers", "async_waste_text",
           "prices_text", "two_level_example_table", "pool_fit_numbers",
           "pools_table"]


def two_level_numbers(best, first_order: tuple) -> dict:
    """The best two-level pattern for the prose: its interval and durable interval in
    minutes, every how many writes one is durable, its waste (1 where no pattern exists,
    ``best`` None), the first-order intervals of each level in minutes (``first_order``,
    hours, (None, None) where not defined), and both in words.

    >>> from types import SimpleNamespace as Pattern
    >>> found = two_level_numbers(Pattern(interval=0.1, level2_every=5, level2_interval=0.5,
    ...                                   waste=0.08), (0.09, 0.6))
    >>> found["pattern_text"]
    'a write every 6 min, durable once every 5 writes'
    >>> print(two_level_numbers(None, (None, None))["first_order_text"])
    not defined here (it needs a fast write cheaper than a durable one and a share strictly
    between none and all)
    """
    fast, durable = first_order
    if best is None:
        pattern = "no pattern: every one wastes all the time"
    else:
        pattern = (f"a write every {duration_text(best.interval)}, durable once every "
                   f"{best.level2_every} writes")
    if fast is None:
        first = ("not defined here (it needs a fast write cheaper than a durable one and a "
                 "share strictly between none and all)")
    else:
        first = f"fast every {duration_text(fast)} and durable every {duration_text(durable)}"
    return {"two_level_interval_min": _minutes(best and best.interval),
            "level2_every": best and best.level2_every,
            "level2_interval_min": _minutes(best and best.level2_interval),
            "two_level_waste": best.waste if best else 1.0,
            "first_order_fast_min": _minutes(fast), "first_order_durable_min": _minutes(durable),
            "pattern_text": pattern, "first_order_text": first}


def two_level_async_numbers(both) -> dict:
    """Two levels with asynchronous durable writes, for the prose: the waste (None where
    not derived, ``both`` None) and the pattern in words.

    >>> from types import SimpleNamespace as Pattern
    >>> found = two_level_async_numbers(Pattern(waste=0.05, interval=0.1, level2_every=3))
    >>> found["two_level_async_text"]
    '5.0% (a write every 6 min, one in 3 made durable)'
    >>> two_level_async_numbers(None)["two_level_async_text"]
    'n/a (derived for preemptible restarts)'
    """
    if both is None:
        return {"two_level_async_waste": None,
                "two_level_async_text": "n/a (derived for preemptible restarts)"}
    return {"two_level_async_waste": both.waste,
            "two_level_async_text": (f"{both.waste:.1%} (a write every "
                                     f"{duration_text(both.interval)}, one in "
                                     f"{both.level2_every} made durable)")}


def async_waste_text(waste: float | None) -> str:
    """One asynchronous level's waste, or why there is none.

    >>> async_waste_text(0.061), async_waste_text(None)
    ('6.1%', 'n/a (a durable write outlasts the gap between events)')
    """
    if waste is None:
        return "n/a (a durable write outlasts the gap between events)"
    return f"{waste:.1%}"


def prices_text(prices: dict) -> str:
    """Prices per useful hour as shares of on-demand's, each named ('n/a': none).

    >>> prices_text({"one level": 0.46, "two levels": None})
    'one level 46%, two levels n/a'
    """
    return ", ".join(f"{name} {'n/a' if value is None else f'{value:.0%}'}"
                     for name, value in prices.items())


def two_level_example_table(state: float, gang_size: int, fast: float, fast_restart: float,
                            durable: float, durable_restart: float) -> Table:
    """The worked example's writes and restarts (hours), and the bandwidth each write
    implies for a state of ``state`` bytes: per node for the fast copy, in all for the
    durable one.

    >>> print(two_level_example_table(16e12, 16, 5 / 3600, 2 / 60, 3 / 60, 5 / 60))
    copy                     write (assumed)  bandwidth it implies  restart (assumed)
    -----------------------  ---------------  --------------------  -----------------
    fast copy to a partner   5 s              200 GB/s a node       2 min
    durable copy to storage  3 min            88.9 GB/s in all      5 min
    """
    seconds = 3600
    return Table(["copy", "write (assumed)", "bandwidth it implies", "restart (assumed)"], [
        ["fast copy to a partner", duration_text(fast),
         f"{state / gang_size / (fast * seconds) / 1e9:.3g} GB/s a node",
         duration_text(fast_restart)],
        ["durable copy to storage", duration_text(durable),
         f"{state / (durable * seconds) / 1e9:.3g} GB/s in all",
         duration_text(durable_restart)]])


def pool_fit_numbers(fits: Sequence[tuple]) -> list[dict]:
    """Fast-copy fits on pool traces as plain numbers: each fit ``(trace, gang, group, fit,
    pattern, replayed)``, with :func:`spotmath.traces.fast_copies.fit_fast_copies`'s fit,
    the model's optimal pattern at its rate and share (None: none) and the replayed waste
    (None: not replayed).

    >>> from types import SimpleNamespace as R
    >>> fit = R(events=40, event_rate=0.5, level1_loss=0.25, level1_loss_ci95=(0.1, 0.4))
    >>> pool_fit_numbers([("p3", 16, 2, fit, R(waste=0.1), 0.12)])[0]["waste"]
    0.1
    """
    return [dict(trace=trace, gang=gang, group=group, events=fit.events,
                 rate=fit.event_rate, loss=fit.level1_loss,
                 waste=found.waste if found else None, replayed=replayed)
            for trace, gang, group, fit, found, replayed in fits]


def pools_table(fits: Sequence[tuple]) -> Table:
    """:func:`pool_fit_numbers`'s fits as a table, the share with its 95% interval.

    >>> from types import SimpleNamespace as R
    >>> fit = R(events=40, event_rate=0.5, level1_loss=0.25, level1_loss_ci95=(0.1, 0.4))
    >>> print(pools_table([("p3", 16, 2, fit, R(waste=0.1), None)]))
    trace  gang  group m  events  event rate  p (95%)           model waste  replayed
    -----  ----  -------  ------  ----------  ----------------  -----------  --------
    p3     16    2        40      0.5/h       25% (10% to 40%)  10.0%        n/a
    """
    rows = []
    for trace, gang, group, fit, found, replayed in fits:
        loss = fit.level1_loss
        low, high = fit.level1_loss_ci95 or (None, None)
        rows.append([trace, gang, group, fit.events, f"{fit.event_rate:.3g}/h",
                     "n/a" if loss is None else f"{loss:.0%} ({low:.0%} to {high:.0%})",
                     "n/a" if found is None else f"{found.waste:.1%}",
                     "n/a" if replayed is None else f"{replayed:.1%}"])
    return Table(["trace", "gang", "group m", "events", "event rate", "p (95%)",
                  "model waste", "replayed"], rows)
