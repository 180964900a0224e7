"""The two-level chapter's tables: the worked example and the pools' fits."""

from __future__ import annotations

from collections.abc import Sequence

from ...inputs import duration_text
from ..display import Table

__all__ = ["two_level_example_table", "pools_table"]


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


def pools_table(fits: Sequence[tuple]) -> Table:
    """The pools' fast-copy fits, each ``(trace, gang, group, fit, pattern, replayed)``: the
    fit, the optimal pattern at its rate and share (None: none) and the replayed waste
    (None: not replayed), the share with its 95% interval.

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
