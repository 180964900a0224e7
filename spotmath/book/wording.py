"""The book's sentences and table rows: what the chapters glue into their prose, phrased here.

A chapter decides each verdict in code the reader sees or in a documented library
function (a fit's :attr:`~spotmath.traces.fitting.Fit.hazard`, a replay's
:attr:`~spotmath.traces.replay.Replay.model_gap_z`); what is left here is only how the
verdict reads, so that the prose follows the reader's own traces and parameters.  Each
function is tested in ``tests/book/test_wording.py``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from ..model.numerics import effective_discount
from ..model.plan import duration_text
from ..traces.replay import bulk_fraction as _bulk_fraction
from .display import Table

__all__ = ["AGREE_WITHIN", "joined", "hazard_verdict", "interval_or_none", "replay_sentence",
           "gain_sentence", "together_verdict", "gang_sentence", "bulk_share_verdict",
           "gang_line_sentence", "simulation_sentence", "from_share", "points_sentence",
           "pool_verdict_sentence", "pays", "pool_gangs_table", "exact_law_table",
           "victims_table", "plan_numbers", "break_even_sentence", "gang_limit_sentence",
           "cadences_table", "gang_plans_table", "lost_work_table", "waste_table",
           "break_even_table", "break_even_summary", "optima_table",
           "error_sentence", "break_even_comparison", "gangs_table", "with_node_counts",
           "wall_table", "every", "async_numbers", "async_table", "shares_table",
           "clouds_table", "decision_table", "simulated_table", "share_numbers",
           "decision_numbers", "two_level_numbers", "two_level_async_numbers",
           "async_waste_text", "async_range_text", "prices_text", "two_level_example_table",
           "pool_fit_numbers", "pools_table", "poisson_table", "weibull_table",
           "weibull_ranges", "bulk_table", "notice_spread_text", "price_text",
           "useful_price_numbers", "useful_price_table", "capacity_plan_table",
           "capacity_plan_text", "never_on_spot_table", "never_on_spot_numbers",
           "elastic_table", "borrowed_table", "share_text", "deadline_run_table",
           "checkpoint_share_numbers", "deadline_gangs_table", "honest_table", "bamboo_text",
           "zones_table", "zones_behind_text", "buckets_table", "bucket_text",
           "notice_table", "gang_check_table", "checkpoint_costs_table", "restart_table",
           "measured_table", "measured_plans_table", "figures_table", "ci_text", "by_trace",
           "traces_table", "fits_table", "fit_sentences", "replay_table", "replay_numbers",
           "local_table", "gang_rates_table", "together_numbers", "never_table",
           "never_numbers", "groups_table", "group_sentences"]

#: Replays this many standard errors or fewer from the model agree with it.
AGREE_WITHIN = 2


def joined(parts: Iterable[str], empty: str = "") -> str:
    """Clauses joined by semicolons, or ``empty`` where there are none.

    >>> joined(["a", "b"]), joined([], "none")
    ('a; b', 'none')
    """
    return "; ".join(parts) or empty


def hazard_verdict(labels: Sequence[str], hazards: Sequence[str | None]) -> str:
    """Whether the traces' lifetimes look Poisson, from each fit's ``hazard``.

    >>> print(hazard_verdict(["p3", "g4dn"], ["constant", "falling"]))
    the interval excludes 1 on g4dn (a falling hazard), so there the lifetimes are not
    Poisson
    """
    odd = [f"{label} (a {hazard} hazard)" for label, hazard in zip(labels, hazards)
           if hazard in ("falling", "rising")]
    if not odd:
        return ("every interval contains 1, so these lifetimes are consistent with "
                "Poisson preemptions: the data do not show a falling hazard")
    return (f"the interval excludes 1 on {', '.join(odd)}, so there the lifetimes are "
            "not Poisson")


def interval_or_none(interval: float | None) -> str:
    """The best fixed interval as a duration, or why there is none.

    >>> interval_or_none(0.25), interval_or_none(None)
    ('15 min', 'none (no lifetime outlasts a restart and a write)')
    """
    if interval is None:
        return "none (no lifetime outlasts a restart and a write)"
    return duration_text(interval)


def replay_sentence(label: str, runs: Sequence, intervals: Sequence[float]) -> str:
    """How the replays of one trace over ``intervals`` compare with the exact model.

    ``runs`` are :class:`~spotmath.traces.replay.Replay` results, one per interval; a
    replay agrees with the model within :data:`AGREE_WITHIN` standard errors.

    >>> from types import SimpleNamespace as R
    >>> runs = [R(model_gap_z=0.5, waste=0.10, poisson_waste=0.09),
    ...         R(model_gap_z=3.0, waste=0.20, poisson_waste=0.15)]
    >>> print(replay_sentence("p3", runs, [0.5, 1.0]))
    on p3 the replay lies within two standard errors of the model at 1 of 2 intervals;
    where it does not, the model is optimistic, by up to 5.0 points at 1 h
    """
    zs = [run.model_gap_z for run in runs]
    gaps = [100 * (run.waste - run.poisson_waste) for run in runs]
    agree = sum(abs(z) <= AGREE_WITHIN for z in zs)
    text = (f"on {label} the replay lies within two standard errors of the model at "
            f"{agree} of {len(zs)} intervals")
    if any(z > AGREE_WITHIN for z in zs):
        i = max(range(len(gaps)), key=gaps.__getitem__)
        text += (f"; where it does not, the model is optimistic, by up to {gaps[i]:.1f} "
                 f"points at {duration_text(intervals[i])}")
    if any(z < -AGREE_WITHIN for z in zs):
        i = min(range(len(gaps)), key=gaps.__getitem__)
        text += (f"; the model is pessimistic by up to {-gaps[i]:.1f} points at "
                 f"{duration_text(intervals[i])}")
    return text


def gain_sentence(name: str, best_waste: float, waste: float) -> str:
    """A schedule's waste against the best fixed interval's, in points.

    >>> gain_sentence("p3", 0.12, 0.10), gain_sentence("g4dn", 0.12, 0.1202)
    ('on p3 it beats it by 2.0 points', 'on g4dn it matches it')
    """
    gain = best_waste - waste
    if abs(gain) < 0.0005:
        return f"on {name} it matches it"
    word = "beats it by" if gain > 0 else "trails it by"
    return f"on {name} it {word} {100 * abs(gain):.1f} points"


def together_verdict(labels: Sequence[str], together: Sequence[bool]) -> str:
    """Whether preemptions come together more often than independence allows, from
    each trace's test.

    >>> together_verdict(["p3", "g4dn"], [True, False])
    'Preemptions come together about as often as independence allows on g4dn'
    """
    if all(together):
        return "Preemptions come together far more often than independence allows"
    return ("Preemptions come together about as often as independence allows on "
            + ", ".join(label for label, ok in zip(labels, together) if not ok))


_HOW = {"below": "less often than", "above": "more often than",
        "about": "about as often as"}


def gang_sentence(label: str, runs: Sequence) -> str:
    """How the largest gang replayed on a pool fares against Nλ, and a smaller one.

    ``runs`` are gang :class:`~spotmath.traces.replay.Replay` results by size.

    >>> from types import SimpleNamespace as R
    >>> runs = [R(nodes=4, interruptions=3, gang_rate_against_model="about"),
    ...         R(nodes=16, interruptions=9, gang_rate=1.0, model_rate=2.0,
    ...           gang_rate_against_model="below", instances_per_interruption=2.5)]
    >>> print(gang_sentence("p3", runs))
    on p3 a gang of 16 is hit less often than Nλ (0.50 times its rate) and loses 2.50
    instances each time, while a gang of 4 sees about Nλ
    """
    big = runs[-1]
    if not big.interruptions:
        return f"on {label} a gang of {big.nodes} was never interrupted"
    text = (f"on {label} a gang of {big.nodes} is hit {_HOW[big.gang_rate_against_model]} "
            f"Nλ ({big.gang_rate / big.model_rate:.2f} times its rate) and loses "
            f"{big.instances_per_interruption:.2f} instances each time")
    for run in runs:
        if 1 < run.nodes < big.nodes and run.interruptions:
            seen = "about" if run.gang_rate_against_model == "about" else "not"
            text += f", while a gang of {run.nodes} sees {seen} Nλ"
            break
    return text


def bulk_share_verdict(growing: bool) -> str:
    """What one bulk share ρ for every gang size means, given whether the share that
    explains each size's rate grows with the gang on every pool."""
    reclaims = ("real reclaims take a few instances at a time, not the whole pool as the "
                "simulator's bulk events do")
    if growing:
        return ("on every pool the share that explains a gang's rate grows with the "
                f"gang: {reclaims}, so one number is a compromise")
    return ("the per-size column shows how far one number is from describing every gang "
            f"size: {reclaims}")


def gang_line_sentence(largest: Sequence[tuple[str, int, int]]) -> str:
    """Whether the replay moves the largest paying gang from where Nλ puts it.

    ``largest`` holds (pool, largest paying by Nλ, largest paying replayed).

    >>> gang_line_sentence([("p3", 8, 16), ("g4dn", 4, 4)])
    'The replay moves the line: on p3 a larger gang pays than Nλ allows'
    """
    moved = [f"on {label} a larger gang pays than Nλ allows"
             for label, by_rate, replayed in largest if replayed > by_rate]
    moved += [f"on {label} a smaller one" for label, by_rate, replayed in largest
              if replayed < by_rate]
    if not moved:
        return "Among the sizes tried, the replay does not move the line"
    return "The replay moves the line: " + "; ".join(moved)


def simulation_sentence(largest_z: float | None, points: int, interval: float,
                        limit: float) -> str:
    """Whether a simulation agrees with the formulas: the largest difference over
    ``points`` checks at one ``interval`` (hours), in standard errors, against the
    ``limit`` chance allows at that many points; None when nothing was simulated.

    >>> print(simulation_sentence(1.2, 6, 0.5, 3.4))
    over its 6 points, at an interval of 30 min, the largest difference is 1.20 standard
    errors, within the 3.40 that chance allows at so many points: the formulas say what
    the rules do
    """
    if largest_z is None:
        return ("here a segment would be preempted more than once on average "
                "(λ(R + T + C) > 1), so the chapter does not simulate it")
    text = (f"over its {points} points, at an interval of {duration_text(interval)}, the "
            f"largest difference is {largest_z:.2f} standard errors")
    if largest_z <= limit:
        return (text + f", within the {limit:.2f} that chance allows at so many points: "
                "the formulas say what the rules do")
    return (text + f", beyond the {limit:.2f} that chance allows at so many points: here "
            "the formulas and the rules disagree")


def from_share(shares: Sequence[float], none: str = "no share") -> str:
    """Where a set of shares begins: 'a share of 12% and more' from the least of them,
    or ``none`` where there are none.

    >>> from_share([0.4, 0.12, 0.9]), from_share([], "no share of the range drawn")
    ('a share of 12% and more', 'no share of the range drawn')
    """
    if not len(shares):
        return none
    return f"a share of {min(shares):.0%} and more"


def points_sentence(difference: float) -> str:
    """A difference of two shares in percentage points, more or less.

    >>> points_sentence(0.0031), points_sentence(-0.0005), points_sentence(0.0)
    ('0.31 percentage points more', '0.05 percentage points less', 'no more')
    """
    if abs(difference) < 5e-7:
        return "no more"
    side = "more" if difference > 0 else "less"
    return f"{100 * abs(difference):.2f} percentage points {side}"


def pool_verdict_sentence(choice, reason: str | None = None) -> str:
    """One pool or two, from :func:`spotmath.model.pool_choice.one_pool_or_two`'s choice.

    >>> from types import SimpleNamespace as R
    >>> one = R(training_per_day=200.0, headroom=8)
    >>> print(pool_verdict_sentence(R(two=R(training_per_day=100.0), one_kept=one,
    ...                               verdict="one pool", gain=1.0)))
    One pool keeps 100% more training a day at the same start-delay target: share it,
    with 8 GPUs of headroom.
    >>> print(pool_verdict_sentence(None, "a load of 30 requests turns away 2% of them"))
    Neither design is answered here: a load of 30 requests turns away 2% of them.
    """
    if choice is None:
        return f"Neither design is answered here: {reason}."
    if choice.verdict == "two pools":
        return ("Two pools keep as much training or more, at no cost to the start delay: "
                "keep them apart.")
    if choice.two.training_per_day == 0:
        return ("Two pools leave no room for a single training gang; one pool keeps "
                f"it, with {choice.one_kept.headroom} GPUs of headroom.")
    return (f"One pool keeps {choice.gain:.0%} more training a day at the same "
            f"start-delay target: share it, with {choice.one_kept.headroom} GPUs of "
            "headroom.")


def pays(waste: float, discount: float) -> str:
    """The spot chapters' test in words: a preemptible hour pays while its waste is below
    its discount.

    >>> pays(0.57, 0.6), pays(0.61, 0.6)
    ('pays', 'does not pay')
    """
    return "pays" if waste < discount else "does not pay"


def _interval_shown(interval: float) -> str:
    """An interval as the tables show it: a duration, or 'on notice' where the writes wait
    for the warning (an infinite interval)."""
    return "on notice" if math.isinf(interval) else duration_text(interval)


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


def plan_numbers(plan) -> dict:
    """A plan as the chapters glue it: its inputs (the MTBF in hours, restart and write in
    minutes, the discount), its intervals in minutes, the interval to use in words ('only
    on notice' where no periodic write beats none), the wastes, the effective discount,
    the break-even interval and its sentence, the gang limits and their sentence, the
    verdict.

    ``plan`` is a :class:`spotmath.model.plan.Plan`; ``keep(**plan_numbers(plan))`` stores
    them for the prose.

    >>> import spotmath as sm
    >>> numbers = plan_numbers(sm.make_plan(0.25, 10 / 60, 1 / 60, 0.6))
    >>> f"{numbers['exact_interval_min']:.1f}", numbers["checkpoint_every"], numbers["verdict"]
    ('21.2', '21.2 min', 'spot pays')
    >>> numbers["mtbf_hours"], numbers["restart_minutes"], numbers["checkpoint_minutes"]
    (4.0, 10.0, 1.0)
    """
    def minutes(hours: float | None) -> float | None:
        return None if hours is None else hours * 60

    every = plan.recommended_interval_h
    return {
        "mtbf_hours": 1 / plan.preemption_rate,
        "restart_minutes": minutes(plan.restart_time_h),
        "checkpoint_minutes": minutes(plan.checkpoint_cost_h),
        "spot_discount": plan.spot_discount,
        "young_interval_min": minutes(plan.young_interval_h),
        "daly_interval_min": minutes(plan.daly_interval_h),
        "exact_interval_min": minutes(plan.exact_interval_h),
        "checkpoint_every": "only on notice" if every is None else duration_text(every),
        "waste_at_optimum": plan.waste_exact,
        "waste_first_order": plan.waste_first_order,
        "effective_discount": plan.effective_discount,
        "break_even_interval_h": plan.break_even_interval_h,
        "break_even_text": break_even_sentence(plan.break_even_interval_h),
        "max_gang_size": plan.max_gang_size,
        "never_on_spot_gang_size": plan.never_on_spot_gang_size,
        "gang_text": gang_limit_sentence(plan.max_gang_size, plan.never_on_spot_gang_size),
        "verdict": plan.verdict,
    }


def break_even_sentence(break_even: float | None) -> str:
    """The interval past which spot stops paying, in a sentence (None: none pays).

    >>> break_even_sentence(1.5)
    'Spot stops paying if you checkpoint less often than every 1.5 h.'
    >>> break_even_sentence(None)
    'No checkpoint interval makes spot pay at this preemption rate.'
    """
    if break_even is None:
        return "No checkpoint interval makes spot pay at this preemption rate."
    return ("Spot stops paying if you checkpoint less often than every "
            f"{duration_text(break_even)}.")


def gang_limit_sentence(largest: int | None, never: int | None) -> str:
    """The largest synchronous gang that pays and the smallest that never can.

    >>> print(gang_limit_sentence(12, 24))
    A synchronous job of up to 12 nodes still pays at its own optimal interval; from 24
    nodes on, spot never pays, even with free, instant checkpoints.
    >>> gang_limit_sentence(None, None)
    'With free restarts no gang is too large for spot.'
    """
    if never is None:
        return "With free restarts no gang is too large for spot."
    return (f"A synchronous job of up to {largest} nodes still pays at its own optimal "
            f"interval; from {never} nodes on, spot never pays, even with free, instant "
            "checkpoints.")


def cadences_table(cadences: Sequence[float], wastes: Sequence[float | None],
                   discount: float) -> Table:
    """Intervals worked in the exact model: each ``waste`` (None where the interval is
    shorter than the asynchronous write's persist time), the effective discount, and
    which to use.

    >>> print(cadences_table([0.25, 4.0, 0.01], [0.1, 0.7, None], 0.6))
    checkpoint every  waste (exact)                  effective discount  use
    ----------------  -----------------------------  ------------------  ---------
    15 min            10.0%                          55.6%               spot
    4 h               70.0%                          -33.3%              on-demand
    36 s              shorter than the persist time
    """
    rows = []
    for interval, waste in zip(cadences, wastes):
        if waste is None:
            rows.append([duration_text(interval), "shorter than the persist time", "", ""])
            continue
        effective = effective_discount(waste, discount)  # None: a waste of 100%
        rows.append([duration_text(interval), f"{waste:.1%}",
                     "n/a (no useful hour)" if effective is None else f"{effective:.1%}",
                     "spot" if effective is not None and effective > 0 else "on-demand"])
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
                     price: Sequence[float | None]) -> Table:
    """The question's own arithmetic at each interval: the first-order waste, spot's price
    per useful hour against on-demand (None where the first-order waste reaches 100%), the
    effective discount, and whether spot pays.

    >>> print(break_even_table([0.25, 4.0], [0.07, 1.2], [0.43, None]))
    interval  waste λ(T/2 + R)  price vs on-demand  effective discount              spot pays?
    --------  ----------------  ------------------  ------------------------------  ----------
    15 min    7.00%             0.430               57.0%                           yes
    4 h       120.00%           n/a                 n/a (first-order waste ≥ 100%)  no
    """
    rows = [[duration_text(t), f"{w:.2%}", "n/a" if ratio is None else f"{ratio:.3f}",
             "n/a (first-order waste ≥ 100%)" if ratio is None else f"{1 - ratio:.1%}",
             "yes" if ratio is not None and ratio < 1 else "no"]
            for t, w, ratio in zip(cadences, waste, price)]
    return Table(["interval", "waste λ(T/2 + R)", "price vs on-demand", "effective discount",
                  "spot pays?"], rows)


def break_even_summary(free: float | None, first_order: float | None,
                       exact: float | None) -> str:
    """The break-even intervals of three models in one clause each.

    >>> print(break_even_summary(6.0, 5.2, None))
    first order, free checkpoints: 6 h; first order with checkpoint cost: 5.2 h; exact
    model: none (spot never pays)
    """
    named = [("first order, free checkpoints", free),
             ("first order with checkpoint cost", first_order), ("exact model", exact)]
    return "; ".join(f"{name}: " + ("none (spot never pays)" if value is None
                                    else duration_text(value)) for name, value in named)


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


def error_sentence(shortest: float, ten_percent: float | None, rate: float) -> str:
    """Where the first-order waste is 10% too high: at ``ten_percent`` (λT, None where the
    restarts alone, an error of ``shortest``, already pass it), at preemption ``rate``.

    >>> error_sentence(0.02, 0.9, 0.25)
    'the first-order waste is 10% too high once λT reaches 0.90, an interval of 3.6 h'
    >>> print(error_sentence(0.12, None, 0.25))
    the first-order waste is already 12% too high at the shortest intervals, from the
    restarts alone
    """
    if ten_percent is None:
        return (f"the first-order waste is already {shortest:.0%} too high at the shortest "
                "intervals, from the restarts alone")
    return ("the first-order waste is 10% too high once λT reaches "
            f"{ten_percent:.2f}, an interval of {duration_text(ten_percent / rate)}")


def break_even_comparison(first_order: float | None, exact: float | None,
                          other: float | None, preemptible: bool) -> dict:
    """The break-even interval in three models, for the prose: how the exact one compares
    with the first-order one (``exact_vs_first_order``), how far apart the two restart
    variants are (``variant_difference``), and the table (``tbl_break_even_models``).
    None is an interval that does not exist (spot never pays).

    >>> found = break_even_comparison(5.0, 6.2, 6.1, True)
    >>> found["exact_vs_first_order"], found["variant_difference"]
    ('is longer than', '1.61%')
    >>> print(found["tbl_break_even_models"])
    model                                      break-even interval
    -----------------------------------------  -------------------
    first order, C/T + λ(T/2 + R)              5 h
    exact, restart preemptible (this chapter)  6.2 h
    exact, restart protected                   6.1 h
    """
    def variant(preemptible: bool) -> str:
        return "preemptible" if preemptible else "protected"

    if first_order is None or exact is None:
        comparison = "differs from"
    else:
        comparison = "is longer than" if exact > first_order else "is shorter than"
    table = Table(["model", "break-even interval"], [
        ["first order, C/T + λ(T/2 + R)", duration_text(first_order)],
        [f"exact, restart {variant(preemptible)} (this chapter)", duration_text(exact)],
        [f"exact, restart {variant(not preemptible)}", duration_text(other)]])
    return {"exact_vs_first_order": comparison,
            "variant_difference": "n/a" if other is None or exact is None
            else f"{abs(other / exact - 1):.2%}",
            "tbl_break_even_models": table}


def gangs_table(gangs: Sequence[tuple[int, float, float, float, float]],
                discount: float) -> Table:
    """Each gang at its own optimal interval: rows ``(nodes, gang rate per hour, chance of
    an hour without a preemption, optimal interval, waste)``, with the effective discount
    and which to use.

    >>> print(gangs_table([(8, 2.0, 0.1353, 0.13, 0.41)], 0.6))
    nodes  gang MTBF  P(no preemption in 1 h)  optimal interval  waste  effective discount  use
    -----  ---------  -----------------------  ----------------  -----  ------------------  ----
    8      30 min     13.5%                    7.8 min           41.0%  32.2%               spot
    """
    rows = []
    for nodes, rate, survival, interval, waste in gangs:
        effective = effective_discount(waste, discount)  # None: a waste of 100%
        rows.append([nodes, duration_text(1 / rate), f"{100 * survival:.3g}%",
                     duration_text(interval), f"{waste:.1%}",
                     "n/a (no useful hour)" if effective is None else f"{effective:.1%}",
                     "spot" if effective is not None and effective > 0 else "on-demand"])
    return Table(["nodes", "gang MTBF", "P(no preemption in 1 h)", "optimal interval",
                  "waste", "effective discount", "use"], rows)


def with_node_counts(limits: dict) -> dict:
    """Gang limits as numbers and as the prose shows them: each ``name`` also as
    ``name_text``, 'N nodes' or 'no limit' (None).

    >>> found = with_node_counts({"max_gang_size": 13, "never_on_spot_gang_size": None})
    >>> found["max_gang_size"], found["max_gang_size_text"], found["never_on_spot_gang_size_text"]
    (13, '13 nodes', 'no limit')
    """
    return {**limits, **{f"{name}_text": "no limit" if value is None else f"{value} nodes"
                         for name, value in limits.items()}}


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


def every(plan) -> str:
    """A plan's interval in words: a duration, or 'on notice only'.

    >>> import spotmath as sm
    >>> every(sm.make_plan(0.25, 10 / 60, 1 / 60, 0.6))
    '21.2 min'
    """
    if plan.recommended_interval_h is None:
        return "on notice only"
    return duration_text(plan.recommended_interval_h)


def async_numbers(switches: Sequence[dict]) -> list[dict]:
    """Blocking against asynchronous writes, as plain numbers: each switch is ``{"billions",
    "state_gb", "blocking": Plan, "async": Plan or None}`` (None: the persist outlasts the
    MTBF); the write times, intervals and wastes of both plans, None where there is none.

    >>> import spotmath as sm
    >>> plan = sm.make_plan(0.25, 10 / 60, 1 / 60, 0.6)
    >>> (found,) = async_numbers([{"billions": 7.0, "state_gb": 98.0, "blocking": plan,
    ...                             "async": None}])
    >>> found["blocking_h"] == 1 / 60, found["async_waste"]
    (True, None)
    """
    def field(plan, name):
        return None if plan is None else getattr(plan, name)

    return [{"billions": s["billions"], "state_gb": s["state_gb"],
             "blocking_h": s["blocking"].checkpoint_cost_h,
             "blocking_interval_h": s["blocking"].recommended_interval_h,
             "blocking_waste": s["blocking"].waste_exact,
             "snapshot_h": field(s["async"], "checkpoint_cost_h"),
             "async_interval_h": field(s["async"], "recommended_interval_h"),
             "async_waste": field(s["async"], "waste_exact")} for s in switches]


def async_table(switches: Sequence[dict]) -> Table:
    """Blocking against asynchronous writes for each model (see :func:`async_numbers`):
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


def share_numbers(shares: Sequence[dict]) -> list[dict]:
    """The optimum at each notice share as plain numbers: ``share``, ``exact_h`` (None
    where no periodic checkpoint pays) and ``waste``.

    >>> share_numbers([{"share": 1.0, "exact": float("inf"), "first": 1.0, "waste": 0.05}])
    [{'share': 1.0, 'exact_h': None, 'waste': 0.05}]
    """
    return [{"share": s["share"], "exact_h": None if math.isinf(s["exact"]) else s["exact"],
             "waste": s["waste"]} for s in shares]


def decision_numbers(decision: dict) -> dict:
    """:func:`decision_table`'s plans as plain numbers: for each model, one
    ``{"interval_h", "waste", "effective"}`` per notice share.

    >>> import spotmath as sm
    >>> plan = sm.make_plan(0.25, 10 / 60, 1 / 60, 0.6)
    >>> decision_numbers({"7B": [plan]})["7B"][0]["effective"]
    False
    """
    return {label: [{"interval_h": plan.recommended_interval_h, "waste": plan.waste_exact,
                     "effective": plan.notice_effective} for plan in column]
            for label, column in decision.items()}


def _minutes(hours: float | None) -> float | None:
    return None if hours is None else hours * 60


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
    not derived, ``both`` None), the pattern in words, and why fast copies pay or not.

    >>> from types import SimpleNamespace as Pattern
    >>> found = two_level_async_numbers(Pattern(waste=0.05, interval=0.1, level2_every=3))
    >>> found["two_level_async_text"]
    '5.0% (a write every 6 min, one in 3 made durable)'
    >>> two_level_async_numbers(None)["two_level_async_text"]
    'n/a (derived for preemptible restarts)'
    """
    if both is None:
        return {"two_level_async_waste": None,
                "two_level_async_text": "n/a (derived for preemptible restarts)",
                "two_level_async_fast_text": ""}
    if both.level2_every > 1:
        why = ("Fast copies between snapshots pay here although they cost as much as a "
               "snapshot: a snapshot cannot be made durable more often than its upload "
               "allows, and fast copies can.")
    else:
        why = ("Here every snapshot is made durable: the fast copies a snapshot leaves "
               "serve the fast restarts.")
    return {"two_level_async_waste": both.waste,
            "two_level_async_text": (f"{both.waste:.1%} (a write every "
                                     f"{duration_text(both.interval)}, one in "
                                     f"{both.level2_every} made durable)"),
            "two_level_async_fast_text": why}


def async_waste_text(waste: float | None) -> str:
    """One asynchronous level's waste, or why there is none.

    >>> async_waste_text(0.061), async_waste_text(None)
    ('6.1%', 'n/a (a durable write outlasts the gap between events)')
    """
    if waste is None:
        return "n/a (a durable write outlasts the gap between events)"
    return f"{waste:.1%}"


def async_range_text(derived: bool, undercut: Sequence[float]) -> str:
    """Where both remedies together are beaten by another answer (``undercut``: the
    shares where one is), or that they are nowhere; ``derived`` False: not drawn.

    >>> async_range_text(True, [])
    'none of the other three answers wastes less at any share drawn'
    >>> async_range_text(True, [0.5, 0.7])
    'another answer wastes less from a share of 50% and more'
    """
    if not derived:
        return "the figure leaves them out"
    if len(undercut):
        return "another answer wastes less from " + from_share(undercut)
    return "none of the other three answers wastes less at any share drawn"


def prices_text(prices: dict) -> str:
    """Prices per useful hour as shares of on-demand's, each named ('n/a': none).

    >>> prices_text({"one level": 0.46, "two levels": None})
    'one level 46%, two levels n/a'
    """
    return ", ".join(f"{name} {'n/a' if value is None else f'{value:.0%}'}"
                     for name, value in prices.items())


def two_level_example_table(state: float, nodes: int, fast: float, fast_restart: float,
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
         f"{state / nodes / (fast * seconds) / 1e9:.3g} GB/s a node",
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


def weibull_ranges(summary: Sequence[dict]) -> dict:
    """The range of the shapes' best intervals and of their wastes, in words.

    >>> weibull_ranges([{"best_interval_h": 0.3, "best_waste": 0.15},
    ...                 {"best_interval_h": 0.4, "best_waste": 0.12}])["weibull_best_range"]
    'from 18 min to 24 min'
    """
    found = [row for row in summary if row["best_interval_h"] is not None]
    if not found:
        return {"weibull_best_range": ("not simulated (every segment would need e^4 "
                                       "attempts or more)"),
                "weibull_waste_range": "not simulated"}
    best = [row["best_interval_h"] for row in found]
    wastes = [row["best_waste"] for row in found]
    return {"weibull_best_range": (f"from {duration_text(min(best))} to "
                                   f"{duration_text(max(best))}"),
            "weibull_waste_range": f"{min(wastes):.1%} to {max(wastes):.1%}"}


def bulk_table(bulk: dict, gang_sizes: Sequence[int], discount: float) -> Table:
    """Spot or on-demand by bulk share (rows; ``bulk[share]`` the simulated waste of each
    gang size, None where not simulated) and gang size (columns).

    >>> print(bulk_table({0.5: [0.2, None]}, [1, 64], 0.6))
    bulk share ρ \\ nodes  1           64
    --------------------  ----------  -------------
    0.5                   spot (20%)  not simulated
    """
    def cell(waste: float | None) -> str:
        if waste is None:
            return "not simulated"
        return f"{'spot' if waste < discount else 'ON-DEMAND'} ({waste:.0%})"

    return Table(["bulk share ρ \\ nodes"] + [str(n) for n in gang_sizes],
                 [[f"{rho:g}"] + [cell(w) for w in wastes] for rho, wastes in bulk.items()])


def notice_spread_text(with_notice: float | None, without: float | None) -> str:
    """How far the simulated waste moves across the intervals with a notice and without.

    >>> notice_spread_text(0.004, 0.12)
    'the simulated waste varies by 0.4%, against 12.0% without it'
    """
    if without is None:
        return ("the waste could not be simulated (too few intervals are short enough to "
                "simulate)")
    return (f"the simulated waste varies by {with_notice:.1%}, against {without:.1%} "
            "without it")


def price_text(price: float) -> str:
    """A price per useful hour as the tables show it, or why there is none (infinite).

    >>> price_text(0.4567), price_text(float("inf"))
    ('0.457', 'n/a (no useful hour)')
    """
    return "n/a (no useful hour)" if math.isinf(price) else f"{price:.3f}"


def _finite(value: float) -> float | None:
    return None if math.isinf(value) else value


def useful_price_numbers(one: dict, quotes: dict) -> dict:
    """Useful-hour prices for the prose: one node's on each capacity (``one``; a number,
    None where there is no useful hour, and as text) and every gang's quote
    (``quotes[nodes]``: the wastes and the prices of ``spot``, ``on-demand`` and
    ``reserved``).

    >>> quote = {"spot_waste": 0.1, "hardware_waste": 0.01, "spot": 0.44,
    ...          "on-demand": 1.01, "reserved": float("inf")}
    >>> found = useful_price_numbers(quote, {1: quote})
    >>> found["spot_price_one_node"], found["reserved_price_one_node_text"]
    (0.44, 'n/a (no useful hour)')
    """
    numbers = {}
    for kind, name in (("spot", "spot"), ("on-demand", "on_demand"), ("reserved", "reserved")):
        numbers[f"{name}_price_one_node"] = _finite(one[kind])
        numbers[f"{name}_price_one_node_text"] = price_text(one[kind])
    numbers["useful_prices"] = {n: {k: _finite(v) for k, v in quote.items()}
                                for n, quote in quotes.items()}
    return numbers


def useful_price_table(quotes: dict) -> Table:
    """Each gang's waste and price per useful node-hour on each capacity, and the cheapest
    (``quotes`` as :func:`useful_price_numbers`).

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


def capacity_plan_text(total: float, on_demand: float) -> str:
    """The plan's cost against everything on-demand, in a sentence.

    >>> print(capacity_plan_text(600.0, 1000.0))
    The plan costs 600 on-demand node-hours against 1,000 for running everything
    on-demand: a saving of 40%
    """
    if not math.isfinite(on_demand):  # a gang so large that nothing gets its work done
        return ("Here no capacity gets the largest gang's work done (its waste is 100% even "
                "on-demand), so the plan has no price")
    return (f"The plan costs {total:,.0f} on-demand node-hours against {on_demand:,.0f} "
            f"for running everything on-demand: a saving of {1 - total / on_demand:.0%}")


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


def never_on_spot_numbers(columns: Sequence[tuple], limits: dict) -> dict:
    """:func:`never_on_spot_table`'s limits by name: 'parametersB/bandwidthGBps/MTBFh/Rmin'.

    >>> never_on_spot_numbers([(4.0, 1 / 6)], {(7e9, 2e9): [13]})
    {'7B/2GBps/4h/10min': 13}
    """
    return {f"{count / 1e9:g}B/{bandwidth / 1e9:g}GBps/{mtbf:g}h/{restart * 60:g}min": n
            for (count, bandwidth), row in limits.items()
            for (mtbf, restart), n in zip(columns, row)}


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


def share_text(share: float | None) -> str:
    """A share as the deadline chapter writes it: a whole percentage, or 'n/a' (None).

    >>> share_text(0.6049), share_text(None)
    ('60%', 'n/a')
    """
    return "n/a" if share is None else f"{share:.0%}"


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


def checkpoint_share_numbers(plain: dict, written: dict) -> dict:
    """What checkpoints change, for the prose: each policy's mean cost share with progress
    kept (``plain``) and with writes at the best interval (``written``), and the share of
    greedy's excess that uniform progress and the model policy close in each (rows of
    :meth:`spotmath.traces.deadlines.Summary.row` by policy; None: n/a).

    >>> row = {"cost_share": 0.5, "gap_closed": 0.6}
    >>> found = checkpoint_share_numbers(dict.fromkeys(
    ...     ("greedy", "uniform-progress", "model", "omniscient"), row),
    ...     dict.fromkeys(("greedy", "uniform-progress", "model", "omniscient"),
    ...                   {"cost_share": None, "gap_closed": None}))
    >>> found["greedy_plain"], found["model_written"], found["uniform_gap_plain"]
    ('50%', 'n/a', '60%')
    """
    short = {"greedy": "greedy", "uniform-progress": "uniform", "model": "model",
             "omniscient": "omniscient"}
    numbers = {}
    for kept, rows in (("plain", plain), ("written", written)):
        for name, word in short.items():
            numbers[f"{word}_{kept}"] = share_text(rows[name]["cost_share"])
        for name in ("uniform-progress", "model"):
            numbers[f"{short[name]}_gap_{kept}"] = share_text(rows[name]["gap_closed"])
    return numbers


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
                               [share_text(closed[n]) for n in ("uniform-progress", "model")]))
    return Table(["availability", "uniform progress closes", "model closes"], rows)


def bamboo_text(honest: dict, names: Sequence[str]) -> str:
    """What the two policies close on each pool, in one sentence (``honest`` as
    :func:`honest_table`).

    >>> print(bamboo_text({"p3": {"uniform-progress": 0.2, "model": 0.5}, "g4dn": None},
    ...                   ["p3", "g4dn"]))
    on p3, uniform progress closes 20% and the model policy 50%; on g4dn, uniform progress
    closes n/a and the model policy n/a
    """
    def clause(name: str) -> str:
        closed = honest[name] or {}
        return (f"on {name}, uniform progress closes "
                f"{share_text(closed.get('uniform-progress'))} and the model policy "
                f"{share_text(closed.get('model'))}")

    return "; ".join(clause(name) for name in names)


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
            row += [share_text(summary.row(n)["gap_closed"])
                    for n in ("uniform-progress", "model")]
            row.append(f"{min(summary.row(n)['met'] for n in policies):.0%}")
        rows.append(row)
    return Table(["zone", "ticks with spot", "uniform progress closes", "model closes",
                  "deadlines met"], rows)


def zones_behind_text(behind: Sequence[str]) -> str:
    """Where uniform progress closes more of the gap than the model policy.

    >>> zones_behind_text(["us-east-1a"])
    'uniform progress closes more on us-east-1a'
    """
    if not behind:
        return ("on every zone the model policy closes at least as much as uniform "
                "progress")
    return "uniform progress closes more on " + ", ".join(behind)


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


def bucket_text(share: float, edges: Sequence[float]) -> str:
    """The interruption bucket a share of interrupted instances falls in.

    >>> bucket_text(0.06, [0.05, 0.1, 0.15, 0.2]), bucket_text(0.3, [0.05, 0.1, 0.15, 0.2])
    ('from 5% to 10%', 'above 20%, the open top bucket')
    """
    names = ([f"below {edges[0]:.0%}"]
             + [f"from {low:.0%} to {high:.0%}" for low, high in zip(edges, edges[1:])]
             + [f"above {edges[-1]:.0%}, the open top bucket"])
    return names[sum(share > edge for edge in edges)]


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
    ``persist_h``, ``interval_h``).

    >>> cost = {"state_gb": 98.0, "blocking_h": [0.0136, 0.00136], "snapshot_h": 0.000544,
    ...         "persist_h": 0.0136, "interval_h": 0.066}
    >>> table = checkpoint_costs_table({"7B": cost}, [2e9, 20e9], 50e9)
    >>> table.rows[0]
    ['7B', '98 GB', '49 s', '4.9 s', '1.96 s', '3.96 min', 'yes']
    """
    rows = [[label, f"{c['state_gb']:,.3g} GB"]
            + [duration_text(b) for b in c["blocking_h"]]
            + [duration_text(c["snapshot_h"]), duration_text(c["interval_h"]),
               "yes" if c["interval_h"] > c["persist_h"] else "no: persist too slow"]
            for label, c in costs.items()]
    return Table(["model", "checkpoint state"]
                 + [f"blocking C at {b / 1e9:.3g} GB/s" for b in bandwidths]
                 + [f"asynchronous C (snapshot at {snapshot / 1e9:.3g} GB/s)",
                    "optimal interval with it", f"persist at {bandwidths[0] / 1e9:.3g} GB/s fits?"],
                 rows)


def restart_table(parts: dict, read_bandwidth: float) -> Table:
    """The parts of a restart for each job (``parts[label]``: ``wait``, ``boot``,
    ``load``, ``warmup``, hours), their sum R and what of it is billed for the replaced
    node (all but the wait).

    >>> table = restart_table({"7B": dict(wait=1 / 12, boot=0.05, load=0.0136,
    ...                                   warmup=1 / 30)}, 2e9)
    >>> table.rows[0]
    ['7B', '5 min', '3 min', '49 s', '2 min', '10.8 min', '5.82 min']
    """
    rows = []
    for label, part in parts.items():
        total = part["wait"] + part["boot"] + part["load"] + part["warmup"]
        rows.append([label] + [duration_text(part[k]) for k in ("wait", "boot", "load",
                                                                 "warmup")]
                    + [duration_text(total), duration_text(total - part["wait"])])
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


def ci_text(low: float, high: float, digits: int = 2) -> str:
    """A confidence interval as text.

    >>> ci_text(0.5234, 0.7101)
    '0.52 to 0.71'
    """
    return f"{low:.{digits}g} to {high:.{digits}g}"


def by_trace(labels: Sequence[str], rows: Sequence[tuple]) -> Table:
    """A table with one column per trace (``labels``) and one row per quantity: each row
    ``(quantity, one value per trace)``.

    >>> print(by_trace(["p3", "g4dn"], [("preemptions", [12, 40])]))
                 p3  g4dn
    -----------  --  ----
    preemptions  12  40
    """
    return Table(["", *labels], [[name, *values] for name, values in rows])


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
    interval and MTBF, the Weibull shape with its interval, the scale, the p-value of k = 1.

    >>> from types import SimpleNamespace as Fit
    >>> fit = Fit(preemption_rate=0.1, preemption_rate_ci95=(0.08, 0.12), mtbf_h=10.0,
    ...           weibull_shape=0.9, weibull_shape_ci95=(0.8, 1.02), weibull_scale_h=9.5,
    ...           weibull_shape_p_value=0.07)
    >>> [row[1] for row in fits_table(["p3"], [fit]).rows]
    ['0.1', '0.08 to 0.12', '10 h', '0.90', '0.8 to 1', '9.5 h', '0.07']
    """
    return by_trace(labels, [
        ("λ per node-hour", [f"{f.preemption_rate:.3g}" for f in fits]),
        ("λ, 95% interval", [ci_text(*f.preemption_rate_ci95) for f in fits]),
        ("MTBF", [duration_text(f.mtbf_h) for f in fits]),
        ("Weibull shape k", [f"{f.weibull_shape:.2f}" for f in fits]),
        ("k, 95% interval", [ci_text(*f.weibull_shape_ci95) for f in fits]),
        ("Weibull scale", [duration_text(f.weibull_scale_h) for f in fits]),
        ("p-value of k = 1", [f"{f.weibull_shape_p_value:.2g}" for f in fits])])


def fit_sentences(labels: Sequence[str], fits: Sequence) -> dict:
    """The fits in words: each trace's shape with its interval (``shape_list``), whether
    the lifetimes look Poisson (``shape_verdict``), and each MTBF (``rate_list``).

    >>> from types import SimpleNamespace as Fit
    >>> fit = Fit(weibull_shape=0.95, weibull_shape_ci95=(0.8, 1.1), hazard="constant",
    ...           mtbf_h=10.0)
    >>> fit_sentences(["p3"], [fit])["shape_list"]
    '0.95 on p3 (0.80 to 1.10)'
    """
    return {
        "shape_list": joined(f"{f.weibull_shape:.2f} on {label} ({f.weibull_shape_ci95[0]:.2f}"
                             f" to {f.weibull_shape_ci95[1]:.2f})"
                             for label, f in zip(labels, fits)),
        "shape_verdict": hazard_verdict(labels, [f.hazard for f in fits]),
        "rate_list": joined(f"{duration_text(f.mtbf_h)} on {label}"
                            for label, f in zip(labels, fits))}


def replay_table(labels: Sequence[str], curves: Sequence[dict]) -> Table:
    """Each trace replayed at the chapter's interval (``chosen``), at the exact optimum
    for its rate (``optimum``), both :class:`spotmath.traces.replay.Replay`, and at the
    best fixed interval (``best``, hours or None, and ``best_waste``), against the model.

    >>> from types import SimpleNamespace as R
    >>> run = R(interval_h=0.5, waste=0.12, waste_standard_error=0.01, poisson_waste=0.11,
    ...         model_gap_z=1.0)
    >>> table = replay_table(["p3"], [{"chosen": run, "optimum": run, "best": 0.4,
    ...                                "best_waste": 0.1}])
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
        rows += [row(label, "chosen", c["chosen"]), row(label, "exact optimum", c["optimum"]),
                 [label, f"best, {interval_or_none(c['best'])}", f"{c['best_waste']:.1%}",
                  "", ""]]
    return Table(["trace", "interval", "replayed", "model", "z"], rows)


def replay_numbers(labels: Sequence[str], fits: Sequence, curves: Sequence[dict]) -> dict:
    """The replays for the prose and for a rerun: how far they are from the model
    (``replay_verdict``), the best intervals against the optimum's (``best_list``), the
    formula's cost in points (``formula_cost``), and every trace's numbers
    (``trace_numbers``); ``curves`` as :func:`replay_table`, with ``runs`` over ``grid``.
    """
    cost = max(c["optimum"].waste - c["best_waste"] for c in curves)
    return {
        "replay_verdict": joined(replay_sentence(label, c["runs"], c["grid"])
                                 for label, c in zip(labels, curves)),
        "best_list": joined(f"on {label} {interval_or_none(c['best'])} against the exact "
                            f"optimum's {duration_text(c['optimum'].interval_h)}, which "
                            f"replays to {c['optimum'].waste:.1%} instead of "
                            f"{c['best_waste']:.1%}" for label, c in zip(labels, curves)),
        "formula_cost": 100 * cost,
        "trace_numbers": [
            {"trace": label, "preemptions": f.preemptions, "node_hours": float(f.node_hours),
             "rate": float(f.preemption_rate), "shape": float(f.weibull_shape),
             "scale_h": float(f.weibull_scale_h), "co_share": float(f.co_preemption_share),
             "co_independent": float(f.co_preemption_share_independent),
             "interval_h": float(c["chosen"].interval_h), "waste": float(c["chosen"].waste),
             "poisson_waste": float(c["chosen"].poisson_waste),
             "model_interval_h": float(c["optimum"].interval_h),
             "model_interval_waste": float(c["optimum"].waste),
             "best_interval_h": c["best"], "best_waste": float(c["best_waste"])}
            for label, f, c in zip(labels, fits, curves)]}


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
    >>> run = R(nodes=4, interruptions=0, gang_rate=0.0, gang_rate_ci95=(0.0, 0.3),
    ...         instances_per_interruption=0.0, waiting_hours=0.0)
    >>> gang_rates_table([{"label": "p3", "lam": 0.1, "runs": [run]}]).rows[0]
    ['p3', '4', '0', '0.00 (0 to 0.3)', '0.40', '', 'none', '']
    """
    def row(g: dict, r) -> list:
        n, hit = r.nodes, r.interruptions > 0
        rho = _bulk_fraction(g["lam"], n, r.gang_rate) if n > 1 and hit else None
        return [g["label"], n, r.interruptions, f"{r.gang_rate:.2f} ({ci_text(*r.gang_rate_ci95)})",
                f"{n * g['lam']:.2f}", f"{r.instances_per_interruption:.2f}" if hit else "",
                duration_text(r.waiting_hours) if r.waiting_hours else "none",
                "" if rho is None else f"{rho:.2f}"]

    return Table(["trace", "N", "hits", "per hour (95%)", "Nλ", "lost each", "waiting", "ρ"],
                 [row(g, r) for g in gangs for r in g["runs"]])


def together_numbers(labels: Sequence[str], fits: Sequence, together: Sequence[bool],
                     gangs: Sequence[dict], growing: bool) -> dict:
    """How preemptions come together, for the prose: the verdict, each trace's shares with
    and without independence, what that does to the gangs, the bulk shares fitted and
    whether one share fits every size.
    """
    return {
        "co_verdict": together_verdict(labels, together),
        "co_list": joined(f"{f.co_preemption_share:.0%} on {label} against "
                          f"{f.co_preemption_share_independent:.0%} if independent"
                          for label, f in zip(labels, fits)),
        "gang_verdict": joined((gang_sentence(g["label"], g["runs"]) for g in gangs
                                if g["runs"]), "no gang size fits these pools"),
        "rho_list": joined((f"{g['rho']:.2f} on {g['label']}" for g in gangs
                            if g["rho"] is not None), "not defined here"),
        "rho_verdict": bulk_share_verdict(growing)}


def never_table(verdicts: Sequence[dict], discount: float) -> Table:
    """Each gang's waste at its optimum by Nλ, at its measured rate and replayed, with the
    verdict by Nλ and by the replay.

    >>> print(never_table([{"trace": "p3", "nodes": 8, "independent": 0.5,
    ...                     "measured": 0.45, "replayed": 0.65}], 0.6))
    trace  N  waste at Nλ  at its rate  replayed  verdict
    -----  -  -----------  -----------  --------  ----------------
    p3     8  50%          45%          65%       spot / on-demand
    """
    def use(waste: float) -> str:
        return "spot" if waste < discount else "on-demand"

    return Table(["trace", "N", "waste at Nλ", "at its rate", "replayed", "verdict"],
                 [[v["trace"], v["nodes"], f"{v['independent']:.0%}", f"{v['measured']:.0%}",
                   f"{v['replayed']:.0%}", f"{use(v['independent'])} / {use(v['replayed'])}"]
                  for v in verdicts])


def never_numbers(largest: Sequence[tuple], never: Sequence[tuple], gangs: Sequence[dict]
                  ) -> dict:
    """The gang limits on the pools for the prose and for a rerun: the largest paying by
    Nλ and replayed (``largest``: ``(trace, by Nλ, replayed)``), the restart floor
    (``never``: ``(trace, nodes or None)``), the change of verdict, every gang's numbers.

    >>> found = never_numbers([("p3", 8, 4)], [("p3", 30)], [])
    >>> found["largest_list"], found["never_list"]
    ('on p3, 8 nodes by Nλ and 4 replayed', '30 nodes on p3')
    """
    return {
        "largest_list": joined(f"on {label}, {a or 'no'} nodes by Nλ and {b or 'no'} replayed"
                               for label, a, b in largest),
        "never_list": joined((f"{n} nodes on {label}" for label, n in never if n is not None),
                             "no size"),
        "verdict_change": gang_line_sentence(largest),
        "gang_numbers": [{"trace": g["label"], "nodes": r.nodes,
                          "interruptions": r.interruptions, "held_hours": float(r.held_hours),
                          "waste": float(r.waste), "interval_h": float(r.interval_h)}
                         for g in gangs for r in g["runs"]],
        "largest_paying": [list(row) for row in largest]}


def groups_table(groups: dict) -> Table:
    """The group-size logs (:class:`spotmath.traces.reading.GroupSizes` by name): how long,
    the sizes seen, instance-hours, instances lost, the least rate that implies, the
    largest drop and the longest silence.
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


def group_sentences(groups: dict) -> dict:
    """The logs' largest drops and least rates, one clause each."""
    return {"group_drop_list": "; ".join(f"{int(g.drops.max(initial=0))} of {g.sizes.max()} "
                                         f"on {name}" for name, g in groups.items()),
            "group_rate_list": "; ".join(f"{g.losses / g.node_hours:.2g} on {name}"
                                         for name, g in groups.items())}
