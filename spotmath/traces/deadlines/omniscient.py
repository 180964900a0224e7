"""The omniscient policy: the exact offline optimum of a deadline run on a known trace.

In the paper's model (progress kept across preemptions) by dynamic programming over
ticks, instance ticks and stints (:func:`omniscient_schedule`, many windows side by side
in :func:`omniscient_schedules`); in checkpoint mode by the search over stints of
:func:`spotmath.traces.deadlines.checkpoint_optimum.checkpoint_schedule`.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable

import numpy as np

from ...docs import fill_doc
from .checkpoint_optimum import checkpoint_schedule
from .stints import IDLE, ON_DEMAND, SPOT, TOLERANCE, Checkpoints, OptimumTooLarge

__all__ = ["OPTIMUM_VALUES", "omniscient_schedule", "omniscient_schedules"]

#: The most values (ticks × kinds × stints × instance ticks) the paper-mode optimum may
#: compute, its windows together: about 4 ns a value, 8 s on one core of this project's
#: CI machine (a 4,800-tick window of 1.1e10 values took 40 s).  Past it the optimum is
#: refused in one line saying what would fit.
OPTIMUM_VALUES = 2 * 10**9
#: The most memory :func:`omniscient_schedules` keeps its ticks' bands in, bytes, before
#: it keeps only some and computes the others again on the way back.
_KEPT_BYTES = 256 << 20
#: About how many values one tick's band of :func:`omniscient_schedules`' windows solved
#: side by side holds: more windows at once saves NumPy's overhead on small programmes;
#: beyond this the arrays outgrow the caches and each window costs more than alone.
_BAND_VALUES = 32_768
#: The value of a state no schedule reaches.
_MISSING = -(1 << 30)


@fill_doc
def omniscient_schedule(spot: np.ndarray, tick: float, compute: float, deadline: float,
                        changeover: float, discount: float, billing: str = "tick",
                        checkpoints: Checkpoints | None = None, bound: float = math.inf,
                        budget_share: float = 1.0
                        ) -> tuple[np.ndarray, float, float] | None:
    """The offline optimum: least cost meeting the deadline, then the earliest finish.

    In the paper's model by default; with ``checkpoints``, in checkpoint mode, by the
    search over stints of :func:`spotmath.traces.deadlines.checkpoint_optimum.checkpoint_schedule`.

    Dynamic programming over ticks, with the state (what the job is on, stints started
    ``j``, instance ticks ``k``) and the value the most spot ticks.  A schedule whose every
    stint is longer than the changeover has done ``k·tick − j·changeover`` of work after
    ``k`` instance ticks in ``j`` stints; a stint no longer than the changeover makes no
    progress and the optimum has none (idling instead costs less and changes nothing
    else), so the formula is exact where it matters and pessimistic elsewhere.  The cost
    of finishing with ``k`` ticks of which ``a`` are spot is ``tick·(k − discount·a)``
    (less the unused part of the last tick with per-second billing).  ``j`` is bounded by
    2·(spells of spot in the window) + 1, as an optimum uses at most one spot stint per
    spell and one on-demand stint before, between and after them.

    Parameters
    ----------
    spot : numpy.ndarray of bool
        Spot available in each tick from the start.
    tick : float
        [[job_tick]]
    compute : float
        [[job_compute]]
    deadline : float
        [[job_deadline]]
    changeover : float
        [[job_changeover]]
    discount : float
        [[job_discount]]
    billing : {'tick', 'second'}, optional
        [[job_billing]]
    checkpoints : Checkpoints, optional
        Checkpoint mode's interval and write (default None: progress kept).
    bound : float, optional
        Checkpoint mode: the cost of a schedule known to meet the deadline, which prunes
        the search (see :func:`~spotmath.traces.deadlines.checkpoint_optimum.checkpoint_schedule`).
    budget_share : float, optional
        Checkpoint mode: the share of the search's budget this window may use (default 1).

    Returns
    -------
    tuple or None
        ``(kinds, cost, finish)``: what to run in each tick up to the finishing one, the
        cost in on-demand hours and the finish, hours; None when no schedule meets the
        deadline.
    """
    if checkpoints is not None:
        return checkpoint_schedule(spot, tick, compute, deadline, changeover, discount,
                                   checkpoints, billing, bound, budget_share)
    return omniscient_schedules(np.asarray(spot, dtype=bool)[None, :], tick, compute, deadline,
                         changeover, discount, billing)[0]



def omniscient_schedules(spot: np.ndarray, tick: float, compute: float, deadline: float,
                         changeover: float, discount: float, billing: str = "tick"
                         ) -> list[tuple[np.ndarray, float, float] | None]:
    """:func:`omniscient_schedule` in the paper's model for each row of ``spot``.

    The rows are windows of one job (many starts, or many draws): windows that allow as
    many stints are solved side by side, a few at a time, each row's values those it has
    alone.

    Parameters
    ----------
    spot : numpy.ndarray of bool, shape (windows, ticks)
        Spot available in each tick of each window; ticks past a row's end have none.
    tick, compute, deadline, changeover, discount, billing
        As :func:`omniscient_schedule`.

    Returns
    -------
    list
        One ``(kinds, cost, finish)`` or None a row, in order.

    Raises
    ------
    OptimumTooLarge
        Windows whose programmes together exceed :data:`OPTIMUM_VALUES` (the message says what
        would fit).

    Examples
    --------
    >>> import numpy as np
    >>> spot = np.array([[True] * 12, [False] * 12])
    >>> [round(found[1], 3) for found in omniscient_schedules(spot, 1.0, 8.0, 12.0, 0.2, 0.6)]
    [3.6, 9.0]
    """
    ticks = math.ceil(deadline / tick - TOLERANCE)
    rows = spot.shape[0]
    window = np.zeros((rows, ticks), dtype=bool)  # ticks beyond the trace have no spot
    given = spot[:, :ticks]
    window[:, :given.shape[1]] = given
    has_changeover = changeover > TOLERANCE
    if has_changeover:
        most = math.floor((ticks * tick - compute) / changeover + TOLERANCE)
        spells = window[:, 0] + np.count_nonzero(window[:, 1:] & ~window[:, :-1], axis=1)
        stints = np.maximum(1, np.minimum(np.minimum(most, 2 * spells + 1), ticks))
    else:
        stints = np.ones(rows, dtype=np.int64)
    # the widest band of instance ticks a tick can hold: ticks − done_at[0] + 1, with
    # done_at[0] the instance ticks the compute takes (see _solved_side_by_side)
    done_first = math.ceil(compute / tick - TOLERANCE)
    width = max(1, ticks - done_first + 1)
    # every window's own values, all of them together (many starts or draws add up)
    values = ticks * 3 * int((stints + 1).sum()) * width
    if values > OPTIMUM_VALUES:
        finer = tick * math.sqrt(values / OPTIMUM_VALUES)
        windows = f"{rows} windows" if rows > 1 else "a window"
        raise OptimumTooLarge(
            f"the exact optimum of {windows} of {ticks} ticks is too large to solve here "
            f"({values:.2g} values to compute, at most {OPTIMUM_VALUES:.0e})", finer,
            "a deadline nearer the compute" + (", fewer starts" if rows > 1 else ""))
    optima: list[tuple[np.ndarray, float, float] | None] = [None] * rows
    order = np.argsort(stints, kind="stable")
    at = 0
    while at < rows:
        many = max(1, _BAND_VALUES // (3 * (int(stints[order[at]]) + 1) * width))
        chosen = order[at:at + many]
        for row, found in zip(chosen.tolist(), _solved_side_by_side(
                window[chosen], stints[chosen], tick, compute, deadline, changeover,
                discount, billing)):
            optima[row] = found
        at += many
    return optima


def _solved_side_by_side(window: np.ndarray, stints: np.ndarray, tick: float,
                         compute: float, deadline: float, changeover: float,
                         discount: float, billing: str
                         ) -> list[tuple[np.ndarray, float, float] | None]:
    """The paper's optimum for each row of ``window`` with at most ``stints`` stints:
    one programme over a leading axis of rows, its stints up to the largest bound (a
    row's states beyond its own bound are kept empty)."""
    rows, ticks = window.shape
    has_changeover = changeover > TOLERANCE
    size_j = int(stints.max()) + 1
    shift = changeover if has_changeover else 0.0
    # the instance ticks after which a job with j stints has done its compute
    done_at = np.ceil((compute + np.arange(size_j) * shift) / tick - TOLERANCE
                      ).astype(np.int64)
    size_k = int(min(ticks, done_at.max())) + 1
    beyond = (np.arange(size_j)[None, :] > stints[:, None])[:, None, :, None]
    uneven = bool(beyond.any())  # rows with fewer stints than others
    value = np.full((rows, 3, size_j, size_k), _MISSING, dtype=np.int32)
    value[:, IDLE, 0, 0] = 0
    best: list[tuple[float, float, int, int, int, int, int] | None] = [None] * rows
    # finishing with j stints: at k = done_at[j] instance ticks, with ``over`` hours of
    # the last tick unused; done_at grows with j, so a band of k holds a range of j
    over_at = done_at * tick - np.arange(size_j) * shift - compute
    ends = done_at.tolist()
    unused = (np.array([1 - discount, 1.0])[:, None] if billing == "second"
              else np.zeros((2, 1)))

    def advance(i: int, previous: int, finishing=None) -> tuple[int, np.ndarray]:
        """Tick ``i``'s band of values from ``value`` (the last tick's, from column
        ``previous``), which then holds it; ``finishing(i, band, ...)`` sees the
        schedules that finish in the tick before they are taken out of the band."""
        # k after tick i: at most i + 1, and enough that the rest of the window can finish
        hi = min(i + 1, size_k - 1)
        lo = max(0, int(done_at[0]) - (ticks - 1 - i))
        band = _step(value, lo, hi, window[:, i], has_changeover)
        if uneven:  # no more stints than each row's spells allow
            np.putmask(band, np.broadcast_to(beyond, band.shape), _MISSING)
        # finishing in this tick: with j stints, exactly at k = done_at[j]
        first, last = bisect.bisect_left(ends, lo), bisect.bisect_right(ends, hi)
        if first < last:
            js = np.arange(first, last)
            ks = done_at[first:last]
            if finishing is not None:
                finishing(i, band, first, last, js, ks, lo)
            band[:, SPOT:ON_DEMAND + 1, js, ks - lo] = _MISSING  # it goes no further
        # the next tick reads this band; the columns left of it held the last one's
        value[..., previous:lo] = _MISSING
        value[..., lo:hi + 1] = band
        return lo, band

    def finishing(i, band, first, last, js, ks, lo):
        spot_ticks = band[:, SPOT:ON_DEMAND + 1, js, ks - lo]  # (row, kind, j)
        live = spot_ticks >= 0
        if not live.any():
            return
        over = over_at[first:last]
        finish = ((i + 1) * tick - over).tolist()
        cost = tick * (ks - discount * spot_ticks) - over * unused
        found = np.nonzero(live)
        for row, kind, j, c in zip(*(index.tolist() for index in found),
                                   cost[live].tolist()):
            f, known = finish[j], best[row]
            if f > deadline + TOLERANCE:
                continue
            if known is None or c < known[0] - TOLERANCE or (
                    c <= known[0] + TOLERANCE and f < known[1] - TOLERANCE):
                best[row] = (c, f, i, (SPOT, ON_DEMAND)[kind], first + j,
                             int(ks[j]), int(spot_ticks[row, kind, j]))

    # Each tick's band is needed again on the way back.  Where all of them fit in
    # _KEPT_BYTES they are kept; otherwise only every ``segment``-th, and the way back
    # computes a segment's bands again from the band that starts it (one more pass over
    # the ticks, in memory of about 2·√ticks bands).
    band_bytes = rows * 3 * size_j * (ticks - int(done_at[0]) + 2) * 4
    segment = ticks if ticks * band_bytes <= _KEPT_BYTES else max(1, math.isqrt(ticks))
    kept: dict[int, tuple[int, np.ndarray]] = {}
    previous = 0  # the band's first column a tick ago
    for i in range(ticks):
        previous, band = advance(i, previous, finishing)
        if segment == ticks or i % segment == 0:
            kept[i] = (previous, band)

    def bands_of(step: int) -> tuple[int, np.ndarray]:
        """Tick ``step``'s band: kept, or computed again with its segment."""
        if step not in kept:
            for old in [key for key in kept if key % segment]:
                del kept[old]  # the segment computed last: the way back has passed it
            start = step - step % segment
            lo, band = kept[start]
            value.fill(_MISSING)
            value[..., lo:lo + band.shape[3]] = band
            for i in range(start + 1, min(start + segment, ticks)):
                kept[i] = advance(i, lo)
                lo = kept[i][0]
        return kept[step]

    optima: list[tuple[np.ndarray, float, float] | None] = [None] * rows
    found = {row: item for row, item in enumerate(best) if item is not None}
    for row, kinds in _ways_back(bands_of, found, has_changeover).items():
        cost, finish = found[row][:2]
        optima[row] = (kinds, cost, finish)
    return optima




def _step(value: np.ndarray, lo: int, hi: int, spot: np.ndarray, has_changeover: bool
          ) -> np.ndarray:
    """One tick of the optimum's recursion on the band ``lo <= k <= hi``, for each row.

    ``value[row, kind, j, k]`` is the most spot ticks of a schedule that is on ``kind``
    after ``k`` instance ticks in ``j`` stints (``_MISSING`` where none is); ``spot``,
    whether each row has spot in this tick.
    """
    idle = value[:, IDLE]
    out = np.full(value.shape[:1] + (3,) + value.shape[2:3] + (hi - lo + 1,), _MISSING,
                  dtype=value.dtype)
    np.maximum(np.maximum(idle[..., lo:hi + 1], value[:, SPOT, :, lo:hi + 1]),
               value[:, ON_DEMAND, :, lo:hi + 1], out=out[:, IDLE])
    # k - 1 for every k of the band; k = 0 has no predecessor on an instance
    start = max(lo, 1)
    before = slice(start - 1, hi)
    for kind, other in ((ON_DEMAND, SPOT), (SPOT, ON_DEMAND)):
        if kind == SPOT and not spot.any():
            continue
        stay = value[:, kind, :, before]
        fresh = np.maximum(idle[..., before], value[:, other, :, before])
        target = out[:, kind, :, start - lo:]
        if has_changeover:  # a new stint: (j - 1, k - 1) -> (j, k)
            target[:, 0] = stay[:, 0]
            np.maximum(stay[:, 1:], fresh[:, :-1], out=target[:, 1:])
        else:
            np.maximum(stay, fresh, out=target)
        if kind == SPOT:  # a spot tick more, where there is a schedule and spot
            target += target >= 0
            if not spot.all():
                target[~spot] = _MISSING
    return out


def _ways_back(bands_of: Callable[[int], tuple[int, np.ndarray]],
               found: dict[int, tuple], has_changeover: bool) -> dict[int, np.ndarray]:
    """Each found row's schedule, backwards through the ticks' values (any predecessor
    of equal value), all rows a tick at a time so that each band is read in turn from
    the last tick to the first.  ``found[row]`` ends with (last tick, kind, j, k, spot
    ticks) of the row's best finish."""
    def get(step: int, row: int, what: int, jj: int, kk: int) -> int:
        if step < 0:
            return 0 if (what, jj, kk) == (IDLE, 0, 0) else _MISSING
        lo, band = bands_of(step)
        if jj < 0 or not 0 <= kk - lo < band.shape[3]:
            return _MISSING
        return int(band[row, what, jj, kk - lo])

    where = {row: list(item[3:]) for row, item in found.items()}  # kind, j, k, worth
    kinds = {row: np.zeros(item[2] + 1, dtype=np.int8) for row, item in found.items()}
    for step in range(max((item[2] for item in found.values()), default=-1), -1, -1):
        for row, state in where.items():
            if step > found[row][2]:
                continue
            kind, j, k, worth = state
            kinds[row][step] = kind
            if kind == IDLE:
                state[0] = next(what for what in (IDLE, SPOT, ON_DEMAND)
                                if get(step - 1, row, what, j, k) == worth)
                continue
            worth -= 1 if kind == SPOT else 0
            if get(step - 1, row, kind, j, k - 1) != worth:
                other = ON_DEMAND if kind == SPOT else SPOT
                j = j - 1 if has_changeover else j
                kind = next(what for what in (IDLE, other)
                            if get(step - 1, row, what, j, k - 1) == worth)
            state[:] = [kind, j, k - 1, worth]
    return kinds

