"""The offline optimum of a deadline job in checkpoint mode.

The rules are those of :mod:`spotmath.traces.deadlines` with checkpoints: on an instance,
after the changeover, a write of ``write`` hours follows every ``interval`` of compute
(none after the last); a preemption takes the job back to its last completed write; a
switch the schedule chooses first saves everything on the old instance (billed there, at
its price, for ``write`` hours) and, into another instance, starts it after
max(changeover, write).

Why a search over stints is exact
---------------------------------
Call a *stint* the ticks a job spends on one instance without a break.  Every stint
starts with nothing unsaved (at the start, after a preemption, after a save, or after an
idle tick), so what a stint does in its first ``m`` ticks depends only on ``m`` and on its
dead time at the start (the changeover, or max(changeover, write) after a saving switch):
``a[m]`` compute done and ``b[m]`` of it written.  It ends in one of three ways: it
finishes the job; spot is taken at the boundary where its spell ends (progress back to
``b[m]``: on spot the stint cannot end by choice there, the preemption comes first); or
the schedule ends it at a boundary of its choice (progress ``a[m]``, a save billed when
``a[m] > b[m]``), then idles for a tick or starts the other instance at once.

So the state at a boundary is the progress and how the next stint may start, and the
search keeps, at each boundary and for each way of starting, only the schedules no other
beats on both progress and cost: with more progress at no more cost, doing the same from
then on finishes no later at no more cost (a stint's behaviour does not depend on the
progress it starts from, except that it finishes sooner).  Among the schedules of least
cost that meet the deadline, the search returns one that finishes first.  It is tested
against every schedule of small traces run by the simulator (``tests/lib``).

Live stints are compared too, now and then, where a write takes no longer than the
changeover (every stint then starts with the same dead time): a stint that another on
the same instance outruns, ahead at every later moment at less cost, and on spot
keeping as much where the spell ends, is dropped (:func:`_outrun_stints`).  On
two-month traces most live stints are outrun; without the comparison the search
carried tens of thousands of them.
"""

from __future__ import annotations

import math

import numpy as np

from ...docs import fill_doc
from .stints import IDLE, ON_DEMAND, SPOT, TOLERANCE, Checkpoints, OptimumTooLarge

__all__ = ["checkpoint_schedule", "stint_progress", "SEARCH_VISITS", "SEARCH_KEPT"]

#: The most live stints the search may carry past boundaries, all boundaries together:
#: about 0.4 µs each, 4 s in all on one core (a 1,800-tick window of four-hour spells
#: carried 34 million in 13 s), so that a refusal too comes within 10 s on a busy
#: machine.  Past it, or past :data:`SEARCH_KEPT`, the search stops and the optimum is
#: refused in one line saying what would fit.
SEARCH_VISITS = 10_000_000
#: The most stints and free points the search may keep for the way back: about 200
#: bytes each with the way back's lists, 1 GB in all.
SEARCH_KEPT = 5_000_000


def stint_progress(checkpoints: Checkpoints, dead: float, tick: float, ticks: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Compute done and compute written after each whole number of ticks of a stint.

    Parameters
    ----------
    checkpoints : Checkpoints
        The interval between writes and the write's time, hours.
    dead : float
        The stint's dead time at its start (its changeover), hours.
    tick : float
        Hours.
    ticks : int
        The longest stint to tabulate.

    Returns
    -------
    done, written : numpy.ndarray
        Indexed by the stint's ticks ``m = 0 … ticks``, hours.

    Examples
    --------
    >>> done, written = stint_progress(Checkpoints(2.0, 0.1), 0.2, 1.0, 5)
    >>> done.round(3).tolist(), written.round(3).tolist()
    ([0.0, 0.8, 1.8, 2.7, 3.7, 4.6], [0.0, 0.0, 0.0, 2.0, 2.0, 4.0])
    """
    interval, write = checkpoints.interval, checkpoints.write
    working = np.maximum(np.arange(ticks + 1) * tick - dead, 0.0)
    cycles = np.floor(working / (interval + write) + TOLERANCE)
    into = np.maximum(working - cycles * (interval + write), 0.0)
    done = cycles * interval + np.minimum(into, interval)
    return done, cycles * interval


#: Points :func:`_frontier` samples to set aside, before it sorts, those a sampled point
#: beats; most candidates at a boundary are beaten (99% in a two-month search).
_SAMPLE = 64


def _sorted_frontier(progress: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """:func:`_frontier` by sorting: by progress, most first, then by cost, least first;
    a point is kept when it costs less than every point before it."""
    order = np.lexsort((cost, -progress))
    sorted_cost = cost[order]
    before = np.minimum.accumulate(np.concatenate(([np.inf], sorted_cost[:-1])))
    return order[sorted_cost < before - TOLERANCE]


def _frontier(progress: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Indices of the points no other beats on both progress (more) and cost (less),
    in order of progress, most first.

    A point is beaten by one with at least its progress that costs no more (within
    :data:`TOLERANCE`).  Large sets are first thinned by a sample's frontier: a point
    with less progress than a sampled frontier point and at least its cost plus the
    tolerance cannot be kept (its beater, or the beater's, is kept), so the points left
    have the same frontier.
    """
    if progress.size <= 4 * _SAMPLE:
        return _sorted_frontier(progress, cost)
    sample = np.arange(0, progress.size, progress.size // _SAMPLE)
    front = sample[_sorted_frontier(progress[sample], cost[sample])][::-1]
    # along a frontier, cost grows with progress: the cheapest sampled point with more
    # progress than a point is the first such one
    above = np.searchsorted(progress[front], progress, side="right")
    beaten = np.zeros(progress.size, dtype=bool)
    some = above < front.size
    beaten[some] = cost[front[above[some]]] <= cost[some] - TOLERANCE
    left = np.flatnonzero(~beaten)
    if left.size > progress.size // 2:  # the sample thinned little: sort what is left
        return left[_sorted_frontier(progress[left], cost[left])]
    return left[_frontier(progress[left], cost[left])]  # thin again, by a new sample


#: How the search paces :func:`_outrun_stints`: when the live stints have grown past this
#: share of what the last call left, plus :data:`_PRUNE_LEAST`.
_PRUNE_GROWTH = 1.3
_PRUNE_LEAST = 64
#: The shifts :func:`_outrun_stints` tries between a spot stint's trend and what it keeps
#: when its spell ends: the stints' own at these shares of the way through them, in order
#: (any shift is sound; these spread the passes over the stints).
_SHIFTS = np.array([0.1, 0.3, 0.5, 0.7, 0.9])


def _outrun(low: np.ndarray, high: np.ndarray, cost: np.ndarray, margin: float
            ) -> np.ndarray:
    """Which points another outruns: one whose ``low`` is at least this one's ``high``
    and whose cost plus ``margin`` is below this one's (by more than the tolerance)."""
    order = np.argsort(low)
    least = np.append(np.minimum.accumulate(cost[order][::-1])[::-1], np.inf)
    above = np.searchsorted(low[order], high, side="left")
    return least[above] + margin < cost - TOLERANCE


def _outrun_stints(progress: np.ndarray, cost: np.ndarray, length: np.ndarray,
                   on_spot: np.ndarray, kept: np.ndarray | None, dead: float, tick: float,
                   checkpoints: Checkpoints, spot_price: float) -> np.ndarray:
    """Which live stints another live stint on the same instance outruns, at a boundary.

    Stint A outruns stint B when whatever B does from here A does as well at no more
    cost.  The stints share one dead time (writes no longer than the changeover), so a
    stint's compute done is ``f(u)`` at ``u`` hours after its dead time, ``f`` the same
    for all: ``f(u) = r·u + g(u)`` with ``r = interval / (interval + write)`` and
    ``0 ≤ g(u) ≤ interval·write / (interval + write)`` (``g(u) = r·|u|`` in the dead
    time).  From ``low = progress + r·u`` now, a stint's progress at any later time is at
    least ``low`` plus ``r`` times the time since, and at most ``high`` plus that, with
    ``high = low + max(interval·write / (interval + write), r·|u| in the dead time)``.  So
    A, with ``low`` at least B's ``high`` and cost now lower by more than a save (same
    instance, same price from here on), has at least B's progress at every later
    moment at less cost: it finishes no later, and ending by choice (idle, or a switch,
    into the same dead time) it is no worse.  On spot, both lose their unsaved work
    where the spell ends (the same boundary for all live spot stints): A must also keep
    as much then (``kept``, progress plus written).  The two conditions on spot are
    tested as one, on ``min(low, kept + s)`` against ``max(high, kept + s)``, for a few
    shifts ``s``: each pass drops only outrun stints.  A chain of stints each outrunning
    the next ends in one that is kept, so the optimum's cost and finish stay.

    Parameters
    ----------
    progress, cost : numpy.ndarray
        Each live stint's progress at its start and its cost so far, hours.
    length : numpy.ndarray of int
        Each stint's ticks so far.
    on_spot : numpy.ndarray of bool
        Which stints run on spot.
    kept : numpy.ndarray or None
        Progress each stint keeps if spot is taken where the current spell ends (read
        for spot stints; None when there is no spot at this boundary).
    dead : float
        The stints' dead time at their start, hours.
    tick : float
        Hours.
    checkpoints : Checkpoints
        The interval and the write, hours.
    spot_price : float
        Spot's price, a share of on-demand's.

    Returns
    -------
    numpy.ndarray of bool
        True for each stint another outruns.
    """
    interval, write = checkpoints.interval, checkpoints.write
    rate = interval / (interval + write)
    u = length * tick - dead
    low = progress + rate * u
    high = low + np.maximum(interval * write / (interval + write),
                            rate * np.maximum(-u, 0.0)) + TOLERANCE
    beaten = np.zeros(progress.size, dtype=bool)
    od = np.flatnonzero(~on_spot)
    beaten[od] = _outrun(low[od], high[od], cost[od], write)
    sp = np.flatnonzero(on_spot)
    if sp.size and kept is not None:
        kept = kept[sp]
        shifts = np.sort(low[sp] - kept)
        for shift in shifts[(_SHIFTS * (shifts.size - 1)).astype(np.int64)]:
            beaten[sp] |= _outrun(np.minimum(low[sp], kept + shift),
                                  np.maximum(high[sp], kept + shift), cost[sp],
                                  spot_price * write)
    return beaten


class _Points:
    """Candidates arriving at boundaries: progress, cost and where each came from."""

    def __init__(self, size: int):
        self.parts: list[list[tuple[np.ndarray, ...]]] = [[] for _ in range(size)]

    def add(self, at: int, progress: np.ndarray, cost: np.ndarray, parent: np.ndarray,
            length: np.ndarray) -> None:
        if at < len(self.parts) and progress.size:
            self.parts[at].append((progress, cost, parent, length))

    def take(self, at: int) -> tuple[np.ndarray, ...]:
        parts = self.parts[at]
        self.parts[at] = []
        if not parts:
            return tuple(np.zeros(0) for _ in range(4))
        if len(parts) == 1:
            return parts[0]
        return tuple(np.concatenate(column) for column in zip(*parts))


@fill_doc
def checkpoint_schedule(spot: np.ndarray, tick: float, compute: float, deadline: float,
                        changeover: float, discount: float, checkpoints: Checkpoints,
                        billing: str = "tick", bound: float = math.inf,
                        budget_share: float = 1.0
                        ) -> tuple[np.ndarray, float, float] | None:
    """The least cost that meets the deadline in checkpoint mode, then the earliest finish.

    Parameters
    ----------
    spot : numpy.ndarray of bool
        Spot available in each tick from the start; none beyond its end.
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
    checkpoints : Checkpoints
        The interval between writes and the write's time, hours.
    billing : {'tick', 'second'}, optional
        [[job_billing]]
    bound : float, optional
        The cost of a schedule known to meet the deadline, on-demand hours (default: none
        known).  The search drops every state that cannot end below it: one whose cost so
        far, plus its compute left at spot's price as far as the spot left in the window
        allows and at on-demand's beyond, exceeds it.  It also drops every state that
        could not finish in time even on an instance from now without writes.
    budget_share : float, optional
        The share of :data:`SEARCH_VISITS` and :data:`SEARCH_KEPT` this search may use
        (default 1; a command that searches many windows divides them).

    Returns
    -------
    tuple or None
        ``(kinds, cost, finish)``: what to run in each tick up to the finishing one, the
        cost in on-demand hours and the finish, hours; None when no schedule meets the
        deadline (or none at ``bound`` or less).

    Raises
    ------
    OptimumTooLarge
        The search outgrew its share of the budget (the message says what would fit).
    """
    ticks = math.ceil(deadline / tick - TOLERANCE)
    window = np.zeros(ticks + 1, dtype=bool)
    given = np.asarray(spot, dtype=bool)[:ticks]
    window[:given.size] = given
    # the first tick without spot at or after each tick (where a spot stint is taken),
    # the first tick of the spell that holds each tick (the tick after it if no spot),
    # and the hours of spot from each tick to the window's end
    ends = np.full(ticks + 1, ticks, dtype=np.int64)
    for i in range(ticks - 1, -1, -1):
        ends[i] = ends[i + 1] if window[i] else i
    starts = np.arange(1, ticks + 2, dtype=np.int64)
    for i in range(ticks):
        if window[i]:
            starts[i] = starts[i - 1] if i and window[i - 1] else i
    spot_left = np.cumsum(window[::-1])[::-1] * tick
    write = checkpoints.write
    dead = np.array([changeover, max(changeover, write)])
    # compute done and written after m ticks of a stint, by its dead time (rows)
    done_after, written_after = (np.array(rows) for rows in zip(
        *(stint_progress(checkpoints, time, tick, ticks) for time in dead)))
    price = np.where(_GROUP_KINDS == SPOT, 1 - discount, 1.0)
    spot_price = 1 - discount
    search = _Search(ticks)
    limit = bound

    def hopeful(j: int, progress: np.ndarray, cost: np.ndarray) -> np.ndarray:
        rest = compute - progress
        cheap = np.minimum(rest, spot_left[j])
        least = cost + spot_price * cheap + (rest - cheap)
        return (j * tick + changeover + rest <= deadline + TOLERANCE) & (
            least <= limit + TOLERANCE)

    # with writes no longer than the changeover, a saving switch starts the next stint
    # as any other: one dead time, so the groups by dead time are one, and live stints
    # can be compared (_outrun_stints).  With longer writes a stint ahead of another
    # could still start its next stint later (its switch saves, the other's need not),
    # so none is dropped.
    same_dead = dead[0] == dead[1]
    pruned_to = 0
    search.free.add(0, np.zeros(1), np.zeros(1), np.full(1, -1), np.zeros(1, np.int64))
    best: tuple[float, float, int, int] | None = None
    visits, most_visits = 0, SEARCH_VISITS * budget_share
    most_kept = SEARCH_KEPT * budget_share
    for j in range(ticks):
        # stints that end at boundary j, by preemption or by choice
        progress, cost, parent, length = search.end_stints(j)
        visits += progress.size
        if visits > most_visits or search.stint_count + search.free_count > most_kept:
            raise _too_large(ticks, j, tick, budget_share)
        if progress.size:
            # every live stint started before j; one that has finished, whose spell is
            # over, or that could not finish in time from here on is of no more use
            # (both tests only get harder as the stint goes on: it makes at most a tick
            # of progress a tick, at no less than spot's price)
            group = search.group  # see _GROUPS: 2·(on on-demand) + (dead time)
            dead_of = group & 1
            on_spot = group < 2
            done = done_after[dead_of, length]
            cost = cost + price[group] * length * tick
            useful = (length < search.finish_m) & hopeful(j, progress + done, cost) & ~(
                on_spot & (search.start < (starts[j - 1] if j else 1)))
            if same_dead and useful.sum() > _PRUNE_GROWTH * pruned_to + _PRUNE_LEAST:
                # now and then, drop the stints another of the same instance outruns
                live = np.flatnonzero(useful)
                kept = (progress[live] + written_after[0, length[live] + ends[j] - j]
                        if window[j] else None)
                useful[live] = ~_outrun_stints(progress[live], cost[live], length[live],
                                               on_spot[live], kept, dead[0], tick,
                                               checkpoints, spot_price)
                pruned_to = int(useful.sum())
            if not useful.all():
                search.keep(useful)
                progress, cost, parent, length = (
                    column[useful] for column in (progress, cost, parent, length))
                group, dead_of, on_spot, done = (
                    column[useful] for column in (group, dead_of, on_spot, done))
            written = written_after[dead_of, length]
            if not window[j]:  # spot is taken at j: back to the last write
                taken = progress + written
                pick = on_spot & hopeful(j, taken, cost)
                search.free.add(j, taken[pick], cost[pick], parent[pick] * 4 + 2,
                                length[pick])
                chosen = ~on_spot  # on-demand's may end by choice, not switch to spot
            else:
                chosen = np.ones(group.size, dtype=bool)
            # ended by choice: saved if anything is unsaved, then idle through tick j
            saved = done > written + TOLERANCE
            cost = cost + np.where(saved, price[group] * write, 0.0)
            progress = progress + done
            if not window[j]:  # (with spot at j, what no switch beats: below)
                pick = chosen & hopeful(j + 1, progress, cost)
                search.free.add(j + 1, progress[pick], cost[pick], parent[pick] * 4 + 3,
                                length[pick])
            # or switched to the other instance at j, its dead time by the save
            switching = window[j] & hopeful(j, progress, cost)
            into = np.where(on_spot, 2, 0) + (0 if same_dead else saved)
        # the free points at j, each also idle through tick j
        p, c, src, ln = search.free.take(j)
        pick = hopeful(j, p, c)
        keep = np.flatnonzero(pick)[_frontier(p[pick], c[pick])]
        p, c = p[keep], c[keep]
        free_ids = search.add_free(j, src[keep], ln[keep])
        search.free.add(j + 1, p, c, free_ids * 4 + 1, np.zeros(keep.size, np.int64))
        # stints that start at j: those no other beats, in each group
        new = []
        for g, (kind, saved_first) in enumerate(_GROUPS):
            if (kind == SPOT and not window[j]) or (saved_first and same_dead):
                continue
            parts = []
            if progress.size:
                mine = switching & (into == g)
                parts.append((progress[mine], cost[mine], parent[mine], length[mine]))
            if saved_first == 0:
                parts.append((p, c, -1 - free_ids, np.zeros(keep.size, np.int64)))
            if not parts:
                continue
            pp, cc, ss, ll = (np.concatenate(column) for column in zip(*parts))
            pick = _frontier(pp, cc)
            if progress.size:
                idled = pick[ss[pick] >= 0]
                idled = idled[hopeful(j + 1, pp[idled], cc[idled])]
                search.free.add(j + 1, pp[idled], cc[idled], ss[idled] * 4 + 3, ll[idled])
            if pick.size:
                new.append((pp[pick], cc[pick], ss[pick], ll[pick],
                            np.full(pick.size, g)))
        if not new:
            continue
        pp, cc, ss, ll, gg = (np.concatenate(column) for column in zip(*new))
        # finishing: the stint's time to the job's end
        rest = compute - pp
        took = dead[gg & 1] + rest + write * checkpoints.writes(rest)
        finish_m = np.maximum(np.ceil(took / tick - TOLERANCE), 1).astype(np.int64)
        ids = search.add_stints(gg, j, pp, cc, finish_m, ss, ll)
        reach = j + finish_m <= np.where(gg < 2, ends[j], ticks)
        finish = j * tick + took
        paid = cc + price[gg] * (finish_m * tick if billing == "tick" else took)
        # the best's cost only falls: a finish dearer than it by more than the tolerance
        # can never take its place
        affordable = paid <= (math.inf if best is None else best[0]) + TOLERANCE
        for k in np.flatnonzero(reach & (finish <= deadline + TOLERANCE) & affordable):
            key = (float(paid[k]), float(finish[k]))
            if best is None or key[0] < best[0] - TOLERANCE or (
                    key[0] <= best[0] + TOLERANCE and key[1] < best[1] - TOLERANCE):
                best = (key[0], key[1], int(ids[k]), int(finish_m[k]))
                limit = min(limit, key[0])
    if best is None:
        return None
    cost, finish, stint, length = best
    return search.way_back(stint, length), cost, finish


def _too_large(ticks: int, reached: int, tick: float, budget_share: float
               ) -> OptimumTooLarge:
    """The refusal of a search that outgrew its budget at boundary ``reached``.  Its work
    grows faster than the square of the window's ticks, so a tick ``ticks / reached``
    times as long would about fit."""
    share = "" if budget_share == 1 else f"; {budget_share:.2g} of it for each start"
    return OptimumTooLarge(
        f"the exact optimum in checkpoint mode of a window of {ticks} ticks outgrew the "
        f"search's budget by tick {reached} ({SEARCH_VISITS:.0e} stints carried or "
        f"{SEARCH_KEPT:.0e} states kept{share})", tick * ticks / max(reached, 1),
        "a shorter job and deadline" + (", fewer starts" if budget_share < 1 else ""))


#: The stints' groups, by the instance and the dead time at the start (0: the
#: changeover, 1: max(changeover, write) after a saving switch): group g is on spot
#: for g < 2, and its dead time is g & 1.  Where the two dead times are one (a write no
#: longer than the changeover), the search starts every stint in group 0 or 2.
_GROUPS = ((SPOT, 0), (SPOT, 1), (ON_DEMAND, 0), (ON_DEMAND, 1))
#: Each group's instance, by group.
_GROUP_KINDS = np.array([kind for kind, _ in _GROUPS])


class _Search:
    """The search's bookkeeping: candidates by boundary, the live stints (in the order
    they started), and every kept state's parent for the way back."""

    def __init__(self, ticks: int):
        self.free = _Points(ticks + 1)
        # the live stints: group, start, progress and cost at the start, ticks to
        # finish, id
        self.group = np.zeros(0, np.int64)
        self.start = np.zeros(0, np.int64)
        self.progress = np.zeros(0)
        self.cost = np.zeros(0)
        self.finish_m = np.zeros(0, np.int64)
        self.id = np.zeros(0, np.int64)
        # every stint: group, start and parent (a free point as -1 - id, or the stint it
        # switched from and that stint's length), a chunk a boundary (joined on the way
        # back)
        self.stints: list[tuple[np.ndarray, ...]] = []
        self.stint_count = 0
        # free points: boundary and parent, coded as 4 id + how (how: 1 idle after a
        # free point, 2 taken from a stint, 3 idle after a stint ended by choice; -1 the
        # start), and the parent stint's length, a chunk a boundary
        self.frees: list[tuple[np.ndarray, ...]] = []
        self.free_count = 0

    _COLUMNS = ("group", "start", "progress", "cost", "finish_m", "id")

    def end_stints(self, at: int) -> tuple[np.ndarray, ...]:
        """The live stints as ending at ``at``: progress and cost at their start, id and
        length."""
        return self.progress, self.cost, self.id, at - self.start

    def keep(self, mask: np.ndarray) -> None:
        for name in self._COLUMNS:
            setattr(self, name, getattr(self, name)[mask])

    def add_free(self, at: int, parent: np.ndarray, length: np.ndarray) -> np.ndarray:
        """Free points at ``at``; their ids."""
        first = self.free_count
        self.free_count += parent.size
        self.frees.append((np.full(parent.size, at), parent, length))
        return np.arange(first, self.free_count)

    def add_stints(self, group, at, progress, cost, finish_m, source, length
                   ) -> np.ndarray:
        """Stints starting at ``at``; their ids."""
        first = self.stint_count
        self.stint_count += progress.size
        ids = np.arange(first, self.stint_count)
        starts = np.full(progress.size, at)
        self.stints.append((group, starts, source, length))
        added = (group, starts, progress, cost, finish_m, ids)
        for name, values in zip(self._COLUMNS, added):
            setattr(self, name, np.concatenate((getattr(self, name), values)))
        return ids

    def way_back(self, stint: int, length: int) -> np.ndarray:
        """The schedule that ends with ``stint`` run for ``length`` ticks."""
        group, stint_start, stint_from, from_length = (
            np.concatenate(column).astype(np.int64).tolist() for column in zip(*self.stints))
        free_at, free_parent, free_length = (
            np.concatenate(column).astype(np.int64).tolist() for column in zip(*self.frees))
        kinds = np.full(stint_start[stint] + length, IDLE, dtype=np.int8)
        while True:
            start = stint_start[stint]
            kinds[start:start + length] = _GROUP_KINDS[group[stint]]
            if stint_from[stint] >= 0:  # switched straight from another stint
                stint, length = stint_from[stint], from_length[stint]
                continue
            point = -1 - stint_from[stint]
            while True:
                code = free_parent[point]
                if code < 0:  # the start
                    return kinds
                how, parent, parent_length = code % 4, code // 4, free_length[point]
                if how in (1, 3):  # idle through the tick before
                    kinds[free_at[point] - 1] = IDLE
                if how == 1:
                    point = parent
                    continue
                stint, length = parent, parent_length
                break
