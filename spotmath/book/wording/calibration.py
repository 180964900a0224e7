"""The calibration chapter: bucket edges, notices, N-lambda against reported jobs, checkpoint
and restart costs, the measurements.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...inputs import duration_text
from ..display import Table

__all__ = ["buckets_table", "notice_table", "gang_check_table",
           "checkpoint_costs_table", "restart_table", "measured_table",
           "measured_plans_table", "figures_table"]


def buckets_table(edges: Sequence[float], mtbfs: Sequence[tuple], exposure: float,
                  gang: int) -> Table:
    """Each bucket edge as a per-node MTBF: ``mtbfs`` one ``(instances run a whole month,
    instances run ``exposure`` hours, a gang of ``gang`` such nodes)`` per edge, hours.

    >>> buckets_table([0.05], [(14000.0, 468.0, 58.5)], 24.0, 8).rows[0]
    ['5%', '583 d', '19.5 d', '2.44 d']
    """
    return Table(["bucket edge F", "MTBF, instances run a whole month",
                  f"MTBF, instances run {duration_text(exposure)}",
                  f"same, gang of {gang} nodes"],
                 [[f"{edge:.0%}", *(duration_text(m) for m in row)]
                  for edge, row in zip(edges, mtbfs)])


def notice_table(notices: dict, sources: Sequence[str], bandwidths: Sequence[float]) -> Table:
    """The published notice periods (hours), their sources, and the largest state a write
    at each bandwidth (bytes per second) saves within each.

    >>> print(notice_table({"A": 2 / 60}, ["awsSpotNotice"], [2e9]))
    provider  notice  source         largest state saved at 2 GB/s
    --------  ------  -------------  -----------------------------
    A         2 min   awsSpotNotice  240 GB
    """
    return Table(["provider", "notice", "source"]
                 + [f"largest state saved at {b / 1e9:.3g} GB/s" for b in bandwidths],
                 [[label, duration_text(notice), source]
                  + [f"{notice * 3600 * b / 1e9:,.0f} GB" for b in bandwidths]
                  for (label, notice), source in zip(notices.items(), sources)])


def gang_check_table(jobs: Sequence[tuple], predicted: dict) -> Table:
    """Whole-job MTBFs as reported and as Nλ predicts: each job ``(name, GPUs, reported
    MTBF in hours, 'measured' or 'projected')``, ``predicted[name, rate]`` in hours for the
    rates ``RSC-1``, ``RSC-2`` and ``Llama 3``.

    >>> table = gang_check_table([("job", 4096, 7.9, "measured")],
    ...     {("job", "RSC-1"): 5.0, ("job", "RSC-2"): 10.0, ("job", "Llama 3"): 3.0})
    >>> table.rows[0]
    ['job', '4,096', '7.9 h', 'measured', '5 h', '10 h', '3 h', '0.63']
    """
    names = ("RSC-1", "RSC-2", "Llama 3")
    return Table(["job", "GPUs", "reported MTBF", "kind", "Nλ with RSC-1's rate",
                  "Nλ with RSC-2's rate", "Nλ with Llama 3's rate",
                  "prediction ÷ reported (RSC-1)"],
                 [[job, f"{gpus:,.0f}", duration_text(reported), kind]
                  + [duration_text(predicted[job, name]) for name in names]
                  + [f"{predicted[job, 'RSC-1'] / reported:.2g}"]
                  for job, gpus, reported, kind in jobs])


def checkpoint_costs_table(costs: dict, bandwidths: Sequence[float], snapshot: float
                           ) -> Table:
    """Each model's checkpoint state and the cost of one write: blocking at each
    bandwidth, asynchronous (a snapshot at ``snapshot`` bytes per second, persisted at the
    first bandwidth), the optimal interval with it and whether the persist fits in it
    (``costs[label]``: ``state_gb``, ``blocking_h`` per bandwidth, ``snapshot_h``,
    ``interval_h``, ``persist_fits`` as the chapter decides it).

    >>> cost = {"state_gb": 98.0, "blocking_h": [0.0136, 0.00136], "snapshot_h": 0.000544,
    ...         "interval_h": 0.066, "persist_fits": True}
    >>> table = checkpoint_costs_table({"7B": cost}, [2e9, 20e9], 50e9)
    >>> table.rows[0]
    ['7B', '98 GB', '49 s', '4.9 s', '1.96 s', '3.96 min', 'yes']
    """
    rows = [[label, f"{c['state_gb']:,.3g} GB"]
            + [duration_text(b) for b in c["blocking_h"]]
            + [duration_text(c["snapshot_h"]), duration_text(c["interval_h"]),
               "yes" if c["persist_fits"] else "no: persist too slow"]
            for label, c in costs.items()]
    return Table(["model", "checkpoint state"]
                 + [f"blocking C at {b / 1e9:.3g} GB/s" for b in bandwidths]
                 + [f"asynchronous C (snapshot at {snapshot / 1e9:.3g} GB/s)",
                    "optimal interval with it", f"persist at {bandwidths[0] / 1e9:.3g} GB/s fits?"],
                 rows)


def restart_table(parts: dict, restarts: dict, read_bandwidth: float) -> Table:
    """The parts of a restart for each job (``parts[label]``: ``wait``, ``boot``,
    ``load``, ``warmup``, hours), their sum R and what of it is billed for the replaced
    node (``restarts[label]``: ``restart_h`` and ``billed_h``, all but the wait).

    >>> parts = {"7B": dict(wait=1 / 12, boot=0.05, load=0.0136, warmup=1 / 30)}
    >>> restarts = {"7B": dict(restart_h=0.1803, billed_h=0.0970)}
    >>> restart_table(parts, restarts, 2e9).rows[0]
    ['7B', '5 min', '3 min', '49 s', '2 min', '10.8 min', '5.82 min']
    """
    rows = [[label] + [duration_text(part[k]) for k in ("wait", "boot", "load", "warmup")]
            + [duration_text(restarts[label]["restart_h"]),
               duration_text(restarts[label]["billed_h"])]
            for label, part in parts.items()]
    return Table(["job", "capacity wait", "boot and image",
                  f"load at {read_bandwidth / 1e9:.3g} GB/s", "warm-up", "R",
                  "billed for the replaced node"], rows)


def measured_table(measured: dict) -> Table:
    """The H200 medians by model (``measured[size]``: the state in bytes, then the
    Trainer's blocking and durable save, the asynchronous save's blocking and durable
    times, the resume and its imports, seconds).

    >>> measured_table({"125M": [1.5e9, 2.0, 3.1, 0.4, 2.9, 21.0, 13.4]}).rows[0]
    ['125M', '1.5', '2', '3.1', '0.4', '2.9', '21', '13.4']
    """
    return Table(["model", "state, GB", "Trainer blocks, s", "durable, s", "async blocks, s",
                  "durable, s", "resume, s", "imports, s"],
                 [[size, f"{state / 1e9:.3g}"] + [f"{s:.3g}" for s in seconds]
                  for size, (state, *seconds) in measured.items()])


def measured_plans_table(plans: dict) -> Table:
    """Each model and write planned: ``plans[size, write]`` = (C, P, interval, waste),
    hours and a fraction.

    >>> print(measured_plans_table({("1.1B", "blocking"): (0.01, 0.0, 0.3, 0.055)}))
    model  write     blocks  durable after  interval  waste
    -----  --------  ------  -------------  --------  -----
    1.1B   blocking  36 s    0 s            18 min    5.50%
    """
    return Table(["model", "write", "blocks", "durable after", "interval", "waste"],
                 [[size, way] + [duration_text(t) for t in (c, persist, interval)]
                  + [f"{waste:.2%}"]
                  for (size, way), (c, persist, interval, waste) in plans.items()])


def figures_table(figures: dict) -> Table:
    """The published figures (:func:`spotmath.book.published.read_figures`): value, unit,
    what, source, where, and the date with what it means.

    >>> from datetime import date
    >>> from types import SimpleNamespace as F
    >>> table = figures_table({"aws_notice": F(name="aws_notice", value=2.0, unit="min",
    ...     quantity="notice", source="awsSpotNotice", locator="page",
    ...     date=date(2026, 1, 5), date_meaning="checked")})
    >>> table.rows[0][-1]
    '2026-01-05 (checked)'
    """
    return Table(["name", "value", "unit", "what", "source", "where", "date"],
                 [[f.name, f"{f.value:g}", f.unit, f.quantity, f.source, f.locator,
                   f"{f.date.isoformat()} ({f.date_meaning})"] for f in figures.values()])
