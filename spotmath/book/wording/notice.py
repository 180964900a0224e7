"""The notice chapter: blocking against asynchronous writes, the notice share, the clouds, the
decision table, the simulated checks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...inputs import duration_text
from ..display import Table
from .common import every

__all__ = ["async_table", "shares_table", "clouds_table", "decision_table", "simulated_table"]


def async_table(switches: Sequence[dict]) -> Table:
    """Blocking against asynchronous writes for each model (each ``{"billions", "state_gb",
    "blocking": Plan, "async": Plan or None}``, None: the persist outlasts the MTBF):
    the write, interval and waste of each, and the waste saved in percentage points.

    >>> import spotmath as sm
    >>> blocking = sm.make_plan(0.25, 10 / 60, 0.1, 0.6)
    >>> snapshot = sm.make_plan(0.25, 10 / 60, 0.01, 0.6, persist=0.1)
    >>> print(async_table([{"billions": 7.0, "state_gb": 98.0, "blocking": blocking,
    ...                     "async": snapshot}]))
    model  state  blocking C  every     waste  snapshot C  every     waste  saved, points
    -----  -----  ----------  --------  -----  ----------  --------  -----  -------------
    7B     98 GB  6 min       49.7 min  24.0%  36 s        16.6 min  12.9%  11.1
    """
    rows = []
    for s in switches:
        before, after = s["blocking"], s["async"]
        row = [f"{s['billions']:.3g}B", f"{s['state_gb']:,.0f} GB",
               duration_text(before.checkpoint_cost_h), every(before),
               f"{before.waste_exact:.1%}"]
        if after is None:
            row += ["persist longer than the MTBF"] * 4
        else:
            saved = 100 * (before.waste_exact - after.waste_exact)
            row += [duration_text(after.checkpoint_cost_h), every(after),
                    f"{after.waste_exact:.1%}", f"{saved:.1f}"]
        rows.append(row)
    return Table(["model", "state", "blocking C", "every", "waste", "snapshot C", "every",
                  "waste", "saved, points"], rows)


def shares_table(shares: Sequence[dict]) -> Table:
    """The optimum at each notice share: each ``{"share", "exact", "first", "waste"}``
    (intervals in hours, infinite where no periodic checkpoint pays: 'none').

    >>> print(shares_table([{"share": 0.5, "exact": 0.5, "first": 0.52, "waste": 0.1},
    ...                     {"share": 1.0, "exact": float("inf"), "first": float("inf"),
    ...                      "waste": 0.05}]))
    notice share q  exact optimum  first order  waste at the optimum
    --------------  -------------  -----------  --------------------
    0.5             30 min         31.2 min     10.0%
    1               none           none         5.0%
    """
    def shown(interval: float) -> str:
        return "none" if math.isinf(interval) else duration_text(interval)

    return Table(["notice share q", "exact optimum", "first order", "waste at the optimum"],
                 [[f"{s['share']:.3g}", shown(s["exact"]), shown(s["first"]),
                   f"{s['waste']:.1%}"] for s in shares])


def clouds_table(clouds: dict, bandwidths: Sequence[float], shares: Sequence[float],
                 wastes: dict) -> Table:
    """Each cloud's notice (hours), the state a write of the whole notice saves at each
    bandwidth (bytes per second), and the waste at each notice share (``wastes[cloud]``).

    >>> print(clouds_table({"A": 2 / 60}, [2e9], [0.5], {"A": [0.1]}))
    cloud  notice  state at 2 GB/s  waste, q = 0.5
    -----  ------  ---------------  --------------
    A      2 min   240 GB           10.0%
    """
    headers = (["cloud", "notice"] + [f"state at {b / 1e9:.3g} GB/s" for b in bandwidths]
               + ["waste, q = " + ", ".join(f"{q:.3g}" for q in shares)])
    rows = [[name, duration_text(period)]
            + [f"{period * 3600 * b / 1e9:,.0f} GB" for b in bandwidths]
            + [", ".join(f"{w:.1%}" for w in wastes[name])]
            for name, period in clouds.items()]
    return Table(headers, rows)


def decision_table(decision: dict, shares: Sequence[float]) -> Table:
    """Checkpoint every how long, and the waste, for each model (columns: ``decision``
    maps a model's label to its plans, one per notice share) and each share (rows).

    >>> import spotmath as sm
    >>> plan = sm.make_plan(0.25, 10 / 60, 1 / 60, 0.6)
    >>> print(decision_table({"7B": [plan]}, [0.0]))
    notice share q  7B
    --------------  ---------------
    0               21.2 min, 12.6%
    """
    def decide(plan) -> str:
        text = f"{every(plan)}, {plan.waste_exact:.1%}"
        if plan.notice_h > 0 and not plan.notice_effective:
            text += " (notice too short)"
        return text

    return Table(["notice share q", *decision],
                 [[f"{q:.3g}"] + [decide(column[i]) for column in decision.values()]
                  for i, q in enumerate(shares)])


def simulated_table(checks: Sequence[tuple]) -> Table:
    """The exact waste against the simulator's: each check ``(share, persist, exact,
    simulated, standard error)``, with the difference in standard errors.

    >>> print(simulated_table([(0.5, 0.25, 0.1, 0.101, 0.002)]))
    q    persist P  exact  simulated      z
    ---  ---------  -----  -------------  ----
    0.5  15 min     10.0%  10.10% ± 0.20  +0.5
    >>> print(simulated_table([]))
    q  persist P  exact  simulated      z
    -  ---------  -----  -------------  -
                         not simulated
    """
    rows = [[f"{q:.3g}", duration_text(persist) if persist else "0", f"{exact:.1%}",
             f"{100 * w:.2f}% ± {100 * e:.2f}", f"{(w - exact) / e:+.1f}"]
            for q, persist, exact, w, e in checks]
    return Table(["q", "persist P", "exact", "simulated", "z"],
                 rows or [["", "", "", "not simulated", ""]])
