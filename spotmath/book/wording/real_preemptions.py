"""The real-preemptions chapter: the traces and fits, the replays, the local-rate schedule,
gangs on a pool, the group logs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...inputs import duration_text
from ...traces.replay import bulk_fraction as _bulk_fraction
from ..display import Table
from .common import by_trace, ci_text, interval_or_none

__all__ = ["traces_table", "fits_table", "replay_table", "local_table", "gang_rates_table",
           "never_table", "groups_table"]


def traces_table(labels: Sequence[str], traces: Sequence) -> Table:
    """What each trace holds (:class:`spotmath.traces.reading.Trace`): instances, the most
    up at once, preemptions, censored lifetimes, node-hours, how long and its clock tick.

    >>> from spotmath.traces.reading import trace_of_lives
    >>> table = traces_table(["one"], [trace_of_lives([0.0, 60.0], [30.0])])
    >>> [row[1] for row in table.rows]
    ['1', '1', '1', '1', '0', '1 min', '1 s']
    """
    return by_trace(labels, [
        ("instances", [t.nodes for t in traces]),
        ("most up at once", [t.most_up for t in traces]),
        ("preemptions", [t.preemptions for t in traces]),
        ("censored lifetimes", [t.censored for t in traces]),
        ("node-hours up", [f"{t.node_hours:.0f}" for t in traces]),
        ("observed for", [duration_text(t.end - t.start) for t in traces]),
        ("clock tick", [f"{t.resolution * 3600:g} s" if t.resolution else "none"
                        for t in traces])])


def fits_table(labels: Sequence[str], fits: Sequence) -> Table:
    """Each trace's fit (:func:`spotmath.traces.fitting.fit_trace`): the rate with its
    interval and MTBF, the Weibull shape with its interval, the scale, the p-value of k = 1,
    and the share of preemptions with another within the window, seen and if independent.

    >>> from types import SimpleNamespace as Fit
    >>> fit = Fit(preemption_rate=0.1, preemption_rate_ci95=(0.08, 0.12), mtbf_h=10.0,
    ...           weibull_shape=0.9, weibull_shape_ci95=(0.8, 1.02), weibull_scale_h=9.5,
    ...           weibull_shape_p_value=0.07, co_preemption_share=0.4,
    ...           co_preemption_share_independent=0.1)
    >>> [row[1] for row in fits_table(["p3"], [fit]).rows]
    ['0.1', '0.08 to 0.12', '10 h', '0.90', '0.8 to 1', '9.5 h', '0.07', '40%', '10%']
    """
    return by_trace(labels, [
        ("λ per node-hour", [f"{f.preemption_rate:.3g}" for f in fits]),
        ("λ, 95% interval", [ci_text(*f.preemption_rate_ci95) for f in fits]),
        ("MTBF", [duration_text(f.mtbf_h) for f in fits]),
        ("Weibull shape k", [f"{f.weibull_shape:.2f}" for f in fits]),
        ("k, 95% interval", [ci_text(*f.weibull_shape_ci95) for f in fits]),
        ("Weibull scale", [duration_text(f.weibull_scale_h) for f in fits]),
        ("p-value of k = 1", [f"{f.weibull_shape_p_value:.2g}" for f in fits]),
        ("with another within the window", [f"{f.co_preemption_share:.0%}" for f in fits]),
        ("same, if independent", [f"{f.co_preemption_share_independent:.0%}" for f in fits])])


def replay_table(labels: Sequence[str], curves: Sequence[dict]) -> Table:
    """Each trace replayed at the chapter's interval (``replay``), at the exact optimum
    for its rate (``optimum``), both :class:`spotmath.traces.replay.Replay`, and at the
    best fixed interval (``best_interval_h``, hours or None, and ``best_waste``), against
    the model.

    >>> from types import SimpleNamespace as R
    >>> run = R(interval_h=0.5, waste=0.12, waste_standard_error=0.01, poisson_waste=0.11,
    ...         model_gap_z=1.0)
    >>> table = replay_table(["p3"], [{"replay": run, "optimum": run,
    ...                                "best_interval_h": 0.4, "best_waste": 0.1}])
    >>> table.rows[0]
    ['p3', 'chosen, 30 min', '12.0% ± 1.0%', '11.0%', '+1.0']
    >>> table.rows[2]
    ['p3', 'best, 24 min', '10.0%', '', '']
    """
    def row(label: str, name: str, result) -> list[str]:
        z = result.model_gap_z
        return [label, f"{name}, {duration_text(result.interval_h)}",
                f"{result.waste:.1%} ± {result.waste_standard_error:.1%}",
                f"{result.poisson_waste:.1%}",
                f"{z:+.1f}" if math.isfinite(z) else "n/a (no spread)"]

    rows = []
    for label, c in zip(labels, curves):
        rows += [row(label, "chosen", c["replay"]), row(label, "exact optimum", c["optimum"]),
                 [label, f"best, {interval_or_none(c['best_interval_h'])}",
                  f"{c['best_waste']:.1%}", "", ""]]
    return Table(["trace", "interval", "replayed", "model", "z"], rows)


def local_table(names: Sequence[str], schedules: Sequence[dict]) -> Table:
    """The local-rate schedule against the best fixed interval and the exact optimum:
    each schedule ``{"k", "local", "best": (interval or None, waste), "optimum"}``.

    >>> from types import SimpleNamespace as R
    >>> print(local_table(["p3"], [{"k": 0.9, "local": R(waste=0.12),
    ...                            "best": (0.4, 0.11), "optimum": R(waste=0.115)}]))
    trace  k     local-rate  best fixed       exact optimum
    -----  ----  ----------  ---------------  -------------
    p3     0.90  12.0%       11.0% at 24 min  11.5%
    """
    return Table(["trace", "k", "local-rate", "best fixed", "exact optimum"],
                 [[name, f"{s['k']:.2f}", f"{s['local'].waste:.1%}",
                   f"{s['best'][1]:.1%} at {interval_or_none(s['best'][0])}",
                   f"{s['optimum'].waste:.1%}"] for name, s in zip(names, schedules)])


def gang_rates_table(gangs: Sequence[dict]) -> Table:
    """Each gang replayed on each pool: hits, its rate with interval against Nλ, instances
    lost each time, the wait, and the bulk share that explains it (``gangs``: each
    ``{"label", "lam", "runs"}``, the runs :class:`spotmath.traces.replay.Replay`).

    >>> from types import SimpleNamespace as R
    >>> run = R(gang_size=4, interruptions=0, gang_rate=0.0, gang_rate_ci95=(0.0, 0.3),
    ...         instances_per_interruption=0.0, waiting_hours=0.0)
    >>> gang_rates_table([{"label": "p3", "lam": 0.1, "runs": [run]}]).rows[0]
    ['p3', '4', '0', '0.00 (0 to 0.3)', '0.40', '', 'none', '']
    """
    def row(g: dict, r) -> list:
        n, hit = r.gang_size, r.interruptions > 0
        rho = _bulk_fraction(g["lam"], n, r.gang_rate) if n > 1 and hit else None
        return [g["label"], n, r.interruptions, f"{r.gang_rate:.2f} ({ci_text(*r.gang_rate_ci95)})",
                f"{n * g['lam']:.2f}", f"{r.instances_per_interruption:.2f}" if hit else "",
                duration_text(r.waiting_hours) if r.waiting_hours else "none",
                "" if rho is None else f"{rho:.2f}"]

    return Table(["trace", "N", "hits", "per hour (95%)", "Nλ", "lost each", "waiting", "ρ"],
                 [row(g, r) for g in gangs for r in g["runs"]])


def never_table(verdicts: Sequence[dict]) -> Table:
    """Each gang's waste at its optimum by Nλ, at its measured rate and replayed, with the
    capacity to use by Nλ and by the replay (``use``, as the chapter decides it).

    >>> print(never_table([{"trace": "p3", "gang_size": 8, "independent": 0.5,
    ...                     "measured": 0.45, "replayed": 0.65,
    ...                     "use": ["spot", "on-demand"]}]))
    trace  N  waste at Nλ  at its rate  replayed  verdict
    -----  -  -----------  -----------  --------  ----------------
    p3     8  50%          45%          65%       spot / on-demand
    """
    return Table(["trace", "N", "waste at Nλ", "at its rate", "replayed", "verdict"],
                 [[v["trace"], v["gang_size"], f"{v['independent']:.0%}", f"{v['measured']:.0%}",
                   f"{v['replayed']:.0%}", " / ".join(v["use"])] for v in verdicts])


def groups_table(groups: dict) -> Table:
    """The group-size logs (:class:`spotmath.traces.reading.GroupSizes` by name): how long,
    the sizes seen, instance-hours, instances lost, the least rate that implies, the
    largest drop and the longest silence.

    >>> import numpy as np
    >>> from types import SimpleNamespace as G
    >>> log = G(end=24.0, sizes=np.array([4, 8]), node_hours=150.0, losses=6,
    ...         drops=np.array([1, 4]), longest_silence=0.5)
    >>> [row[1] for row in groups_table({"v100": log}).rows]
    ['24 h', '4 to 8', '150', '6', '0.04 per hour', '4', '30 min']
    """
    gs = list(groups.values())
    return Table(["", *groups], [[name, *values] for name, values in [
        ("observed for", [duration_text(g.end) for g in gs]),
        ("sizes seen", [f"{g.sizes.min()} to {g.sizes.max()}" for g in gs]),
        ("instance-hours", [f"{g.node_hours:.0f}" for g in gs]),
        ("instances lost", [g.losses for g in gs]),
        ("rate, at least", [f"{g.losses / g.node_hours:.2g} per hour" for g in gs]),
        ("largest drop", [int(g.drops.max(initial=0)) for g in gs]),
        ("longest silence", [duration_text(g.longest_silence) for g in gs])]])

