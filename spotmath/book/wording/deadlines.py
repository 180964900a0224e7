"""The deadlines chapter: one window's run, the checkpoint comparison, gangs, the gap each
policy closes, the zones.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...inputs import duration_text
from ..display import Table
from .common import percent_text

__all__ = ["deadline_run_table", "deadline_gangs_table", "honest_table", "zones_table"]


def deadline_run_table(runs: dict, compute: float) -> Table:
    """Every policy's run on one window: cost in on-demand hours and as a share of
    on-demand's, the finish, the share of the ``compute`` hours done on spot, changeovers
    and preemptions (``runs``: :func:`spotmath.traces.deadlines.run_policies`).

    >>> from types import SimpleNamespace as Run
    >>> runs = {"on-demand": Run(cost=6.2, finish_h=6.2, spot_compute_h=0.0, changeovers=1,
    ...                          preemptions=0),
    ...         "greedy": Run(cost=3.1, finish_h=9.0, spot_compute_h=4.5, changeovers=4,
    ...                       preemptions=2)}
    >>> print(deadline_run_table(runs, 6.0))
    policy     cost  of on-demand  finish  compute on spot  changeovers  preemptions
    ---------  ----  ------------  ------  ---------------  -----------  -----------
    on-demand  6.20  100%          6.2 h   0%               1            0
    greedy     3.10  50%           9 h     75%              4            2
    """
    on_demand = runs["on-demand"].cost
    return Table(["policy", "cost", "of on-demand", "finish", "compute on spot",
                  "changeovers", "preemptions"],
                 [[name, f"{run.cost:.2f}", f"{run.cost / on_demand:.0%}",
                   duration_text(run.finish_h), f"{run.spot_compute_h / compute:.0%}",
                   run.changeovers, run.preemptions] for name, run in runs.items()])


def deadline_gangs_table(rows: Sequence[tuple]) -> Table:
    """Gang sizes on one pool and window: each row ``(nodes, share of ticks with spot,
    greedy's cost share, the optimum's cost share)``.

    >>> print(deadline_gangs_table([(72, 0.61, 0.55, 0.47)]))
    gang, nodes  ticks with spot  greedy, of on-demand  omniscient, of on-demand
    -----------  ---------------  --------------------  ------------------------
    72           61%              55%                   47%
    """
    return Table(["gang, nodes", "ticks with spot", "greedy, of on-demand",
                  "omniscient, of on-demand"],
                 [[n, f"{spot:.0%}", f"{greedy:.0%}", f"{best:.0%}"]
                  for n, spot, greedy, best in rows])


def honest_table(honest: dict, labels: dict, missing: dict) -> Table:
    """The share of greedy's excess that uniform progress and the model policy close,
    by availability: ``honest[where]`` maps each to its share (None: n/a), or is None
    where the comparison could not run, which ``missing[where]`` says; ``labels[where]``
    names the row.

    >>> print(honest_table({"drawn": {"uniform-progress": 0.4, "model": 0.7}, "real": None},
    ...                    {"drawn": "drawn", "real": "the trace"},
    ...                    {"real": "trace shorter than the deadline"}))
    availability  uniform progress closes          model closes
    ------------  -------------------------------  -------------------------------
    drawn         40%                              70%
    the trace     trace shorter than the deadline  trace shorter than the deadline
    """
    rows = []
    for where, label in labels.items():
        closed = honest[where]
        rows.append([label] + ([missing[where]] * 2 if closed is None else
                               [percent_text(closed[n]) for n in ("uniform-progress", "model")]))
    return Table(["availability", "uniform progress closes", "model closes"], rows)


def zones_table(zones: dict, spot_shares: dict, policies: Sequence[str]) -> Table:
    """Each zone's share of ticks with spot, the share of greedy's excess that uniform
    progress and the model policy close, and the least share of deadlines met over
    ``policies`` (``zones[zone]``: a :class:`spotmath.traces.deadlines.Summary`, or None
    where no policy meets the deadline).

    >>> from types import SimpleNamespace as S
    >>> summary = S(row=lambda n: {"gap_closed": 0.5, "met": 1.0})
    >>> print(zones_table({"us-east-1a": summary}, {"us-east-1a": 0.17}, ["greedy"]))
    zone        ticks with spot  uniform progress closes  model closes  deadlines met
    ----------  ---------------  -----------------------  ------------  -------------
    us-east-1a  17%              50%                      50%           100%
    """
    rows = []
    for zone, summary in zones.items():
        row = [zone, f"{spot_shares[zone]:.0%}"]
        if summary is None:
            row += ["no policy meets the deadline"] * 3
        else:
            row += [percent_text(summary.row(n)["gap_closed"])
                    for n in ("uniform-progress", "model")]
            row.append(f"{min(summary.row(n)['met'] for n in policies):.0%}")
        rows.append(row)
    return Table(["zone", "ticks with spot", "uniform progress closes", "model closes",
                  "deadlines met"], rows)
