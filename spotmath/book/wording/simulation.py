"""The simulation chapter: the Poisson grid, the Weibull shapes, the bulk reclaims and the
notice, as tables and sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...inputs import duration_text
from ..display import Table

__all__ = ["poisson_table", "weibull_table", "bulk_table"]


def poisson_table(points: Sequence[tuple], results: Sequence[tuple]) -> Table:
    """The simulator against the exact and first-order waste on a grid: each point
    ``((λT, λR, λC), restart preemptible)`` with its result ``(exact, first order,
    simulated)``, the simulated ``(waste, standard error)`` or None (not simulated).

    >>> print(poisson_table([((0.5, 0.04, 0.004), True), ((2.0, 0.25, 0.05), False)],
    ...                     [(0.31, 0.29, (0.3105, 0.002)), (0.9, 1.3, None)]))
    λT   λR    λC     restart preemptible  simulated waste  exact   first order  z
    ---  ----  -----  -------------------  ---------------  ------  -----------  -----
    0.5  0.04  0.004  yes                  0.3105 ± 0.0020  0.3100  0.2900       +0.25
    2    0.25  0.05   no                   not simulated    0.9000  1.3000
    """
    rows = []
    for ((lt, lr, lc), preemptible), (exact, first, found) in zip(points, results):
        row = [f"{lt:g}", f"{lr:.3g}", f"{lc:.3g}", "yes" if preemptible else "no"]
        if found is None:
            rows.append(row + ["not simulated", f"{exact:.4f}", f"{first:.4f}", ""])
            continue
        waste, error = found
        rows.append(row + [f"{waste:.4f} ± {error:.4f}", f"{exact:.4f}", f"{first:.4f}",
                           f"{(waste - exact) / error:+.2f}"])
    return Table(["λT", "λR", "λC", "restart preemptible", "simulated waste", "exact",
                  "first order", "z"], rows)


def weibull_table(summary: Sequence[dict], reached: dict, poisson: tuple) -> Table:
    """Each Weibull shape's simulated best interval, the waste there and its break-even
    (``summary``: ``shape``, ``best_interval_h``, ``best_waste``, ``break_even_h``, None
    where not simulated or not reached; ``reached[shape]``: the longest interval
    simulated, None where none was), and the Poisson exact model's ``(interval, waste,
    break-even)``.

    >>> rows = [{"shape": 0.5, "best_interval_h": 0.3, "best_waste": 0.15,
    ...          "break_even_h": None}]
    >>> print(weibull_table(rows, {0.5: 6.0}, (0.354, 0.126, 6.18)))
    shape k               best interval (fine grid)  waste there  break-even (simulated)
    --------------------  -------------------------  -----------  ----------------------
    0.5                   18 min                     15.0%        beyond 6 h
    Poisson, exact model  21.2 min                   12.6%        6.18 h
    """
    rows = []
    for row in summary:
        if row["break_even_h"] is not None:
            crossing = duration_text(row["break_even_h"])
        elif reached[row["shape"]] is not None:
            crossing = f"beyond {duration_text(reached[row['shape']])}"
        else:
            crossing = "not simulated"
        best = row["best_interval_h"]
        rows.append([f"{row['shape']:g}",
                     "not simulated" if best is None else duration_text(best),
                     "" if row["best_waste"] is None else f"{row['best_waste']:.1%}",
                     crossing])
    interval, waste, break_even = poisson
    rows.append(["Poisson, exact model", duration_text(interval), f"{waste:.1%}",
                 duration_text(break_even) if break_even else "none"])
    return Table(["shape k", "best interval (fine grid)", "waste there",
                  "break-even (simulated)"], rows)


def bulk_table(bulk: dict, gang_sizes: Sequence[int], pays: dict) -> Table:
    """Spot or on-demand by bulk share (rows; ``bulk[share]`` the simulated waste of each
    gang size, None where not simulated; ``pays[share]`` whether spot pays, as the chapter
    decides it) and gang size (columns).

    >>> print(bulk_table({0.5: [0.2, 0.7, None]}, [1, 8, 64], {0.5: [True, False, False]}))
    bulk share ρ \\ nodes  1           8                64
    --------------------  ----------  ---------------  -------------
    0.5                   spot (20%)  ON-DEMAND (70%)  not simulated
    """
    def cell(waste: float | None, paying: bool) -> str:
        if waste is None:
            return "not simulated"
        return f"{'spot' if paying else 'ON-DEMAND'} ({waste:.0%})"

    return Table(["bulk share ρ \\ nodes"] + [str(n) for n in gang_sizes],
                 [[f"{rho:g}"] + [cell(w, ok) for w, ok in zip(wastes, pays[rho])]
                  for rho, wastes in bulk.items()])
