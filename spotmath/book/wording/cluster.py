"""The pool chapter: its gangs, the up times' law against the simulator, victim orders, one
pool or two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...inputs import duration_text
from ..display import Table
from .common import _interval_shown

__all__ = ["pool_gangs_table", "exact_law_table", "victims_table",
           "ranks_table", "overflow_table", "designs_table"]


def pool_gangs_table(priced: dict, one_gpu_rate: float) -> Table:
    """The pool chapter's gangs: rate per hour up (and N times a one-GPU gang's), time up,
    wait, up-time CV, best interval and waste.

    ``priced`` maps a gang's GPUs to ``(gang, interval, waste)`` from
    :func:`spotmath.model.cluster.gang_in_pool` and
    :func:`spotmath.model.cluster_renewal.best_interval`, or to None where it does not fit.

    >>> from types import SimpleNamespace as G
    >>> up = G(never_preempted=False, preemption_rate=0.5, up_share=0.9,
    ...        readmission_wait=0.25, up_time_cv=1.2)
    >>> print(pool_gangs_table({16: (up, 1.0, 0.05), 512: None}, 0.01))
    GPUs  rate per up hour  N × rate of one  time up  wait    up-time CV  interval  waste
    ----  ----------------  ---------------  -------  ------  ----------  --------  -----
    16    0.5               0.16             90.0%    15 min  1.20        1 h       5.0%
    512   does not fit
    """
    def row(size: int) -> list[object]:
        if priced[size] is None:
            return [size, "does not fit"] + [""] * 6
        gang, interval, waste = priced[size]
        scaled = f"{size * one_gpu_rate:.3g}"
        if gang.never_preempted:
            return [size, "never", scaled, "100%", "", "", "never", "0%"]
        return [size, f"{gang.preemption_rate:.3g}", scaled, f"{gang.up_share:.1%}",
                duration_text(gang.readmission_wait), f"{gang.up_time_cv:.2f}",
                _interval_shown(interval), f"{waste:.1%}"]

    headers = ["GPUs", "rate per up hour", "N × rate of one", "time up", "wait",
               "up-time CV", "interval", "waste"]
    return Table(headers, [row(size) for size in priced])


def exact_law_table(rows: Sequence[tuple[str, float, float, float, float]]) -> Table:
    """Models of the up times against the simulator: each row ``(up times, interval,
    waste, simulated mean, its standard error)``.

    >>> print(exact_law_table([("the exact law", 0.5, 0.0412, 0.0409, 0.0006)]))
    up times       interval  waste  simulated (± s.e.)
    -------------  --------  -----  ------------------
    the exact law  30 min    4.12%  4.09% ± 0.06%
    """
    return Table(["up times", "interval", "waste", "simulated (± s.e.)"],
                 [[label, _interval_shown(interval), f"{waste:.2%}",
                   f"{mean:.2%} ± {se:.2%}"] for label, interval, waste, mean, se in rows])


def victims_table(measures: dict) -> Table:
    """Victim orders compared: each maps to ``(up-time CV, share preempted younger than a
    request's hold, GPU-hours kept a day)``, or None where no gang was preempted.

    >>> print(victims_table({"recent": (2.1, 0.62, 5100.0), "random": None}))
    victim  up-time CV  preempted younger than h  GPU-hours kept a day
    ------  ----------  ------------------------  --------------------
    recent  2.10        62%                       5,100
    random              no preemption
    """
    rows = [[victim, "", "no preemption", ""] if found is None else
            [victim, f"{found[0]:.2f}", f"{found[1]:.0%}", f"{found[2]:,.0f}"]
            for victim, found in measures.items()]
    return Table(["victim", "up-time CV", "preempted younger than h",
                  "GPU-hours kept a day"], rows)


def ranks_table(every) -> Table:
    """Every rank of a pool of gangs (:func:`spotmath.model.cluster_renewal.ranks`): what
    holds it up, its rate, time up, wait, mean up time and CV, interval and waste.

    >>> from types import SimpleNamespace as R
    >>> gang = R(star=28, preemption_rate=0.0154, up_share=0.998, readmission_wait=0.14,
    ...          up_time_mean=65.0, up_time_cv=2.0)
    >>> never = R(star=30, preemption_rate=0.0, up_share=1.0)
    >>> print(ranks_table([R(rank=1, gang=never, state="never preempted", interval=40.0,
    ...                      kept=0.999),
    ...                    R(rank=2, gang=gang, state="preempted", interval=2.25,
    ...                      kept=0.981)]))
    rank  up while ≤  rate per up hour  time up  wait     mean up  CV    interval  waste
    ----  ----------  ----------------  -------  -------  -------  ----  --------  -----
    1     30          never preempted                                    40 h      0.1%
    2     28          0.0154            99.8%    8.4 min  2.71 d   2.00  2.25 h    1.9%
    """
    def row(rank) -> list[object]:
        gang = rank.gang
        interval = "" if rank.interval is None else _interval_shown(rank.interval)
        waste = "" if rank.interval is None else f"{1 - rank.kept:.1%}"
        if rank.state != "preempted":
            return [rank.rank, gang.star, rank.state, "", "", "", "", interval, waste]
        return [rank.rank, gang.star, f"{gang.preemption_rate:.3g}", f"{gang.up_share:.1%}",
                duration_text(gang.readmission_wait), duration_text(gang.up_time_mean),
                f"{gang.up_time_cv:.2f}", interval, waste]

    return Table(["rank", "up while ≤", "rate per up hour", "time up", "wait", "mean up",
                  "CV", "interval", "waste"], [row(rank) for rank in every])


def overflow_table(rows: Sequence[tuple[str, float, float, float, float]]) -> Table:
    """Requests turned away against kept in line: each row ``(requests, share that
    overflow, the gang's time up, its wait, the waste at its best interval)``.

    >>> print(overflow_table([("turned away", 0.0003, 0.998, 0.134, 0.019)]))
    requests     overflow  gang up  wait      waste
    -----------  --------  -------  --------  -----
    turned away  0.03%     99.8%    8.04 min  1.9%
    """
    return Table(["requests", "overflow", "gang up", "wait", "waste"],
                 [[label, f"{share:.2%}", f"{up:.1%}", duration_text(wait), f"{waste:.1%}"]
                  for label, share, up, wait, waste in rows])


def designs_table(choice) -> Table:
    """Two pools, one pool and one pool with the headroom that keeps the target
    (:func:`spotmath.model.pool_choice.one_pool_or_two`): the GPUs inference may use,
    training's gangs and its GPUs too few for another, the shares of requests turned away
    and made to wait, the p99 start delay and the GPU-hours of training kept a day.

    >>> from types import SimpleNamespace as D
    >>> two = D(inference_gpus=200, headroom=0, gangs=3, idle_gpus=8, turned_away=0.008,
    ...         waits=0.0, p99_start=0.0, training_per_day=1152.0)
    >>> one = D(inference_gpus=256, headroom=16, gangs=15, idle_gpus=0, turned_away=0.0,
    ...         waits=0.02, p99_start=2 / 3600, training_per_day=2292.0)
    >>> print(designs_table(D(two=two, one=one, one_kept=one)))
    design                  inference  gangs  idle  turned away  wait  p99 start  training a day
    ----------------------  ---------  -----  ----  -----------  ----  ---------  --------------
    two pools               200        3      8     0.80%        0.0%  0 s        1,152
    one pool                256        15     0     0.00%        2.0%  2 s        2,292
    one pool, 16 GPUs free  256        15     0     0.00%        2.0%  2 s        2,292
    """
    def row(name: str, design) -> list[object]:
        p99 = "more than 1% never" if math.isinf(design.p99_start) \
            else duration_text(design.p99_start)
        return [name, design.inference_gpus, design.gangs, design.idle_gpus,
                f"{design.turned_away:.2%}", f"{design.waits:.1%}", p99,
                f"{design.training_per_day:,.0f}"]

    kept = f"one pool, {choice.one_kept.headroom} GPUs free"
    designs = {"two pools": choice.two, "one pool": choice.one, kept: choice.one_kept}
    return Table(["design", "inference", "gangs", "idle", "turned away", "wait",
                  "p99 start", "training a day"],
                 [row(name, design) for name, design in designs.items()])
