"""The plan's chapters (intro, waste, break-even, checkpoint cost, exact model, gangs, your
numbers): their tables and sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...inputs import duration_text
from ..display import Table
from .common import _discount_cell

__all__ = ["cadences_table",
           "gang_plans_table", "lost_work_table", "waste_table", "break_even_table",
           "optima_table", "break_even_models_table",
           "gangs_table", "wall_table"]


def cadences_table(cadences: Sequence[float], wastes: Sequence[float | None],
                   discount: float, uses: Sequence[str | None]) -> Table:
    """Intervals worked in the exact model: each ``waste`` (None where the interval is
    shorter than the asynchronous write's persist time), the effective discount, and
    which to use (as the chapter decides it).

    >>> print(cadences_table([0.25, 4.0, 0.01], [0.1, 0.7, None], 0.6,
    ...                      ["spot", "on-demand", None]))
    checkpoint every  waste (exact)                  effective discount  use
    ----------------  -----------------------------  ------------------  ---------
    15 min            10.0%                          55.6%               spot
    4 h               70.0%                          -33.3%              on-demand
    36 s              shorter than the persist time
    """
    rows = []
    for interval, waste, use in zip(cadences, wastes, uses):
        if waste is None:
            rows.append([duration_text(interval), "shorter than the persist time", "", ""])
            continue
        rows.append([duration_text(interval), f"{waste:.1%}",
                     _discount_cell(waste, discount), use])
    return Table(["checkpoint every", "waste (exact)", "effective discount", "use"], rows)


def gang_plans_table(plans: dict) -> Table:
    """Gang sizes, each at its own optimal interval: the interval, the waste, the
    effective discount, and which to use.  ``plans`` maps a gang's nodes to its
    :class:`spotmath.model.plan.Plan`, or to None where the persist time outlasts the
    gang's mean time between preemptions.

    >>> import spotmath as sm
    >>> plans = {n: sm.make_plan(0.25, 10 / 60, 1 / 60, 0.6, n) for n in (1, 32)}
    >>> print(gang_plans_table({**plans, 512: None}))
    gang size  checkpoint every                     waste  effective discount  use
    ---------  -----------------------------------  -----  ------------------  ---------
    1          21.2 min                             12.6%  54.2%               spot
    32         3.24 min                             85.0%  -167.0%             on-demand
    512        persist longer than the gang's MTBF
    """
    rows = []
    for nodes, plan in plans.items():
        if plan is None:
            rows.append([nodes, "persist longer than the gang's MTBF", "", "", ""])
            continue
        every = plan.recommended_interval_h
        effective = plan.effective_discount
        rows.append([nodes, "only on notice" if every is None else duration_text(every),
                     f"{plan.waste_exact:.1%}",
                     "n/a" if effective is None else f"{effective:.1%}",
                     "spot" if plan.verdict == "spot pays" else "on-demand"])
    return Table(["gang size", "checkpoint every", "waste", "effective discount", "use"],
                 rows)


def lost_work_table(cadences: Sequence[float], rate: float, half: Sequence[float],
                    exact: Sequence[float]) -> Table:
    """Work lost per preemption at each interval: the first-order ``half`` (T/2) against
    the ``exact`` mean loss, at preemption ``rate`` per hour.

    >>> print(lost_work_table([1.0], 0.25, [0.5], [0.479]))
    interval  λT    T/2     exact loss  T/2 overstates by
    --------  ----  ------  ----------  -----------------
    1 h       0.25  30 min  28.7 min    4.4%
    """
    return Table(["interval", "λT", "T/2", "exact loss", "T/2 overstates by"],
                 [[duration_text(t), f"{rate * t:.3g}", duration_text(h), duration_text(e),
                   f"{h / e - 1:.1%}"] for t, h, e in zip(cadences, half, exact)])


def waste_table(cadences: Sequence[float], first_order: Sequence[float],
                exact: Sequence[float]) -> Table:
    """The waste at each interval without checkpoint cost, first order against exact.

    >>> print(waste_table([0.25], [0.0729], [0.0701]))
    interval  λ(T/2 + R)  exact (no checkpoint cost)
    --------  ----------  --------------------------
    15 min    7.29%       7.01%
    """
    return Table(["interval", "λ(T/2 + R)", "exact (no checkpoint cost)"],
                 [[duration_text(t), f"{f:.2%}", f"{e:.2%}"]
                  for t, f, e in zip(cadences, first_order, exact)])


def break_even_table(cadences: Sequence[float], waste: Sequence[float],
                     price: Sequence[float | None], pays: Sequence[bool]) -> Table:
    """The question's own arithmetic at each interval: the first-order waste, spot's price
    per useful hour against on-demand (None where the first-order waste reaches 100%), the
    effective discount, and whether spot pays (as the chapter decides it).

    >>> print(break_even_table([0.25, 4.0], [0.07, 1.2], [0.43, None], [True, False]))
    interval  waste λ(T/2 + R)  price vs on-demand  effective discount              spot pays?
    --------  ----------------  ------------------  ------------------------------  ----------
    15 min    7.00%             0.430               57.0%                           yes
    4 h       120.00%           n/a                 n/a (first-order waste ≥ 100%)  no
    """
    rows = [[duration_text(t), f"{w:.2%}", "n/a" if ratio is None else f"{ratio:.3f}",
             "n/a (first-order waste ≥ 100%)" if ratio is None else f"{1 - ratio:.1%}",
             "yes" if paying else "no"]
            for t, w, ratio, paying in zip(cadences, waste, price, pays)]
    return Table(["interval", "waste λ(T/2 + R)", "price vs on-demand", "effective discount",
                  "spot pays?"], rows)


def optima_table(optima: Sequence[tuple[float, float, float, float, float]]) -> Table:
    """Young's, Daly's and the exact optimal interval: each row ``(MTBF, write, Young,
    Daly, exact)`` in hours, shown in minutes with Young's excess over the exact one.

    >>> print(optima_table([(4.0, 1 / 60, 0.3651, 0.3571, 0.3540)]))
    MTBF  write C  Young (min)  Daly (min)  exact (min)  Young vs exact
    ----  -------  -----------  ----------  -----------  --------------
    4 h   1 min    21.91        21.43       21.24        +3.1%
    """
    return Table(["MTBF", "write C", "Young (min)", "Daly (min)", "exact (min)",
                  "Young vs exact"],
                 [[duration_text(mtbf), duration_text(write), f"{60 * young:.2f}",
                   f"{60 * daly:.2f}", f"{60 * exact:.2f}", f"{young / exact - 1:+.1%}"]
                  for mtbf, write, young, daly, exact in optima])


def break_even_models_table(first_order: float | None, exact: float | None,
                           other: float | None, preemptible: bool) -> Table:
    """The break-even interval in three models (None: spot never pays), the chapter's
    restart variant named first.

    >>> print(break_even_models_table(5.0, 6.2, None, True))
    model                                      break-even interval
    -----------------------------------------  -------------------
    first order, C/T + λ(T/2 + R)              5 h
    exact, restart preemptible (this chapter)  6.2 h
    exact, restart protected                   none
    """
    variants = ("preemptible", "protected") if preemptible else ("protected", "preemptible")
    return Table(["model", "break-even interval"], [
        ["first order, C/T + λ(T/2 + R)", duration_text(first_order)],
        [f"exact, restart {variants[0]} (this chapter)", duration_text(exact)],
        [f"exact, restart {variants[1]}", duration_text(other)]])


def gangs_table(gangs: Sequence[tuple[int, float, float, float, float, str]],
                discount: float) -> Table:
    """Each gang at its own optimal interval: rows ``(nodes, gang rate per hour, chance of
    an hour without a preemption, optimal interval, waste, which to use)``, with the
    effective discount.

    >>> print(gangs_table([(8, 2.0, 0.1353, 0.13, 0.41, "spot")], 0.6))
    nodes  gang MTBF  P(no preemption in 1 h)  optimal interval  waste  effective discount  use
    -----  ---------  -----------------------  ----------------  -----  ------------------  ----
    8      30 min     13.5%                    7.8 min           41.0%  32.2%               spot
    """
    rows = []
    for nodes, rate, survival, interval, waste, use in gangs:
        rows.append([nodes, duration_text(1 / rate), f"{100 * survival:.3g}%",
                     duration_text(interval), f"{waste:.1%}",
                     _discount_cell(waste, discount), use])
    return Table(["nodes", "gang MTBF", "P(no preemption in 1 h)", "optimal interval",
                  "waste", "effective discount", "use"], rows)


def wall_table(gang_sizes: Sequence[int], mtbfs: Sequence[float], pays) -> Table:
    """Spot or on-demand by gang size (rows) and per-node MTBF (columns, hours), from
    ``pays[i][j]``: whether spot pays for gang ``i`` at MTBF ``j``.

    >>> print(wall_table([1, 64], [1.0, 24.0], [[True, True], [False, True]]))
    nodes \\ MTBF  1 h        24 h
    ------------  ---------  ----
    1             spot       spot
    64            ON-DEMAND  spot
    """
    return Table(["nodes \\ MTBF"] + [duration_text(m) for m in mtbfs],
                 [[n] + ["spot" if ok else "ON-DEMAND" for ok in row]
                  for n, row in zip(gang_sizes, pays)])
