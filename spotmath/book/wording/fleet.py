"""The fleet chapter: prices per useful hour, the capacity plan, the never-on-spot limits,
elastic jobs, borrowed GPUs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...inputs import duration_text
from ..display import Table
from .common import price_text

__all__ = ["useful_price_table", "capacity_plan_table", "never_on_spot_table",
           "elastic_table", "borrowed_table"]


def useful_price_table(quotes: dict) -> Table:
    """Each gang's waste and price per useful node-hour on each capacity, and the cheapest
    (``quotes[nodes]``: the wastes and the prices of ``spot``, ``on-demand`` and ``reserved``).

    >>> print(useful_price_table({4: {"spot_waste": 0.1, "hardware_waste": 0.01,
    ...     "spot": 0.44, "on-demand": 1.01, "reserved": 0.75}}))
    nodes  spot waste  spot   on-demand waste  on-demand  reserved  cheapest
    -----  ----------  -----  ---------------  ---------  --------  --------
    4      10.0%       0.440  1.00%            1.010      0.750     spot
    """
    rows = [[n, f"{q['spot_waste']:.1%}", price_text(q["spot"]), f"{q['hardware_waste']:.2%}",
             price_text(q["on-demand"]), price_text(q["reserved"]),
             min(("spot", "on-demand", "reserved"), key=q.get)] for n, q in quotes.items()]
    return Table(["nodes", "spot waste", "spot", "on-demand waste", "on-demand", "reserved",
                  "cheapest"], rows)


def capacity_plan_table(plan: Sequence[tuple], total: float) -> Table:
    """A month's capacity plan: each job class ``(label, nodes, useful node-hours, steady,
    quote, capacity chosen)``, and the plan's ``total`` cost in on-demand hours.

    >>> quote = {"spot": 0.44, "on-demand": 1.01, "reserved": 0.75}
    >>> table = capacity_plan_table([("sweeps", 8, 1500.0, False, quote, "spot")], 660.0)
    >>> for row in table.rows:
    ...     print(row)
    ['sweeps', '8', '1,500', '0.440', '1.010', '(not steady)', 'spot', '660']
    ['total', '', '1,500', '', '', '', '', '660']
    """
    rows = []
    for label, nodes, hours, steady, quote, choice in plan:
        cost = hours * quote[choice]
        rows.append([label, nodes, f"{hours:,.0f}", price_text(quote["spot"]),
                     price_text(quote["on-demand"]),
                     price_text(quote["reserved"]) if steady else "(not steady)", choice,
                     f"{cost:,.0f}" if math.isfinite(cost) else "n/a"])
    rows.append(["total", "", f"{sum(job[2] for job in plan):,.0f}", "", "", "", "",
                 f"{total:,.0f}" if math.isfinite(total) else "n/a"])
    return Table(["job class", "nodes", "useful node-hours", "spot", "on-demand", "reserved",
                  "capacity", "cost (on-demand hours)"], rows)


def never_on_spot_table(checkpoints: Sequence[tuple], columns: Sequence[tuple],
                        limits: dict, floors: Sequence[int | None], limit: int) -> Table:
    """The largest synchronous gang that pays on spot, by checkpoint (rows: ``(parameters,
    bandwidth in bytes per second, write hours)``, ``limits[parameters, bandwidth]`` one
    per column) and by ``(MTBF, restart)`` in hours (columns); the last row the restart
    floor (``floors``, None: no limit).  0 reads 'never', ``limit`` '≥ limit'.

    >>> print(never_on_spot_table([(7e9, 2e9, 0.0136)], [(4.0, 1 / 6)], {(7e9, 2e9): [13]},
    ...                           [22], 65536))
    checkpoint      C     MTBF 4 h, R 10 min
    --------------  ----  ------------------
    7B at 2 GB/s    49 s  13
    restarts alone  free  never from 22
    """
    def shown(n: int) -> str:
        return "never" if n == 0 else f"≥ {limit}" if n == limit else str(n)

    rows = [[f"{count / 1e9:.3g}B at {bandwidth / 1e9:.3g} GB/s", duration_text(write)]
            + [shown(n) for n in limits[count, bandwidth]]
            for count, bandwidth, write in checkpoints]
    rows.append(["restarts alone", "free"] + ["no limit" if n is None else f"never from {n}"
                                              for n in floors])
    return Table(["checkpoint", "C"] + [f"MTBF {duration_text(m)}, R {duration_text(r)}"
                                       for m, r in columns], rows)


def elastic_table(rows: Sequence[tuple]) -> Table:
    """Synchronous against elastic jobs on spot: each row ``(nodes, synchronous waste, its
    price, elastic waste, its price, on-demand's price)``.

    >>> print(elastic_table([(8, 0.3, 0.571, 0.05, 0.421, 1.01)]))
    nodes  synchronous waste  synchronous on spot  elastic waste  elastic on spot  on-demand
    -----  -----------------  -------------------  -------------  ---------------  ---------
    8      30.0%              0.571                5.0%           0.421            1.010
    """
    return Table(["nodes", "synchronous waste", "synchronous on spot", "elastic waste",
                  "elastic on spot", "on-demand"],
                 [[n, f"{sync:.1%}", price_text(sync_price), f"{min(elastic, 1):.1%}",
                   price_text(elastic_price), price_text(on_demand)]
                  for n, sync, sync_price, elastic, elastic_price, on_demand in rows])


def borrowed_table(rows: Sequence[tuple]) -> Table:
    """A synchronous job on borrowed GPUs: each row ``(nodes, reclaim rate per hour,
    waste)``, with its useful share and how much longer it takes than on owned GPUs.

    >>> print(borrowed_table([(4, 1.0, 0.2), (64, 16.0, 1.0)]))
    nodes  reclaimed every  useful share  time to solution, owned = 1
    -----  ---------------  ------------  ---------------------------
    4      1 h              80.0%         1.25×
    64     3.75 min         0.0%          never done
    """
    return Table(["nodes", "reclaimed every", "useful share", "time to solution, owned = 1"],
                 [[n, duration_text(1 / rate), f"{1 - waste:.1%}",
                   f"{1 / (1 - waste):.2f}×" if waste < 1 else "never done"]
                  for n, rate, waste in rows])
