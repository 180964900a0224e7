"""One pool or two: inference with a start-delay target beside training that wants every GPU.

Two designs of the same G GPUs:

* **two pools**: inference on the fewest GPUs whose requests find room 99 times in 100
  (Erlang's B at c servers at most 1%, the classic sizing of a loss system; Erlang's C
  where requests wait in line), training on the rest in gangs of N, never preempted;
* **one pool**: training takes every GPU inference leaves, in gangs of N, and is preempted;
  optionally it leaves ``headroom`` GPUs free.

In the shared pool the gangs are admitted one after another and preempted most recently
admitted first (Kueue's order), so they form ranks: the j-th is up exactly while
g·k + jN + H ≤ G, the single gang of :func:`~spotmath.model.cluster.gang_in_pool` with a
threshold of jN + H GPUs, and its compute kept is
:func:`~spotmath.model.cluster_renewal.best_interval`'s.  A request waits for the grace
period when fewer than g GPUs are free of requests and training at its arrival; arrivals
see time averages (PASTA), so the share of requests that wait is the stationary chance of
those levels [erlang-stationary].  The event simulator with ``headroom`` is the witness.
"""

from __future__ import annotations

import concurrent.futures
import functools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.sparse
import scipy.special

from ..inputs import InputError, check_parameters, figures_text
from . import _generated
from .cluster import SharedPool, _weighted, gang_in_pool
from .cluster_renewal import best_interval, ranks

__all__ = ["QUANTILE", "PoolDesign", "PoolChoice", "DelayBudget", "one_pool_or_two",
           "start_delays", "first_run"]

#: The share of requests the start-delay target is for: a p99.
QUANTILE = 0.99


@dataclass(frozen=True)
class PoolDesign:
    """One way to run the G GPUs, and what it gives each side.

    Attributes
    ----------
    inference_gpus : int
        GPUs inference may use: its own pool, or the whole shared pool.
    training_gpus : int
        GPUs training may use: its own pool, or the shared pool less the headroom.
    headroom : int
        GPUs of the shared pool training leaves free (0 for two pools), in whole
        requests of g.
    gangs : int
        Training gangs of N GPUs.
    intervals : tuple of float
        Each gang's interval, hours (``math.inf``: never preempted, or on notice only).
    training_per_day : float
        GPU-hours of training compute kept a day, waste included.
    turned_away : float
        Share of requests that find no room.
    waits : float
        Share of requests that wait for a grace period (they had to preempt).
    p99_start : float
        Hours within which 99% of requests start, a replica's load time included
        (``math.inf``: more than 1% never do).
    idle_gpus : int
        GPUs of training's share that no gang of N fits in (they idle in either pool).
    """

    inference_gpus: int
    training_gpus: int
    headroom: int
    gangs: int
    intervals: tuple[float, ...]
    training_per_day: float
    turned_away: float
    waits: float
    p99_start: float
    idle_gpus: int


@dataclass(frozen=True)
class PoolChoice:
    """Two pools against one, with and without the headroom that keeps the target.

    Attributes
    ----------
    two, one, one_kept : PoolDesign
        Two pools; one pool with no headroom; one pool with the least headroom (in whole
        requests of g GPUs) whose p99 start delay meets ``start_target`` (``one`` itself
        when it already does).
    start_target : float
        The p99 start-delay target, hours.
    untried : int
        Offsets of headroom from a multiple of lcm(g, N) GPUs whose headrooms the search
        did not try, as more than its budget (:data:`MAX_REFINE_WORK`,
        :data:`MAX_CHOICE_WORK`); 0: ``one_kept``'s headroom is the least, else the least
        of those tried.  A headroom of an offset not tried may then keep the target with
        less, by any amount: the p99 can rise and fall again as the headroom grows
        (:func:`_least_of_offset`).  No headroom at all bounds what any keeps (see
        :attr:`verdict`).
    """

    two: PoolDesign
    one: PoolDesign
    one_kept: PoolDesign
    start_target: float
    untried: int = 0

    @property
    def verdict(self) -> str:
        """``"one pool"`` when it keeps the target and more training; ``"two pools"`` when
        no headroom of one pool could keep more; else ``"not decided"``.

        Training kept a day falls as the headroom grows: each rank's gang is up while
        fewer requests run, and fewer gangs fit.  So one pool with no headroom (``one``)
        keeps at least what any headroom keeps, and where it keeps no more than two
        pools, two pools win whatever headrooms were not tried.  Where it keeps more and
        some were not tried (:attr:`untried`), one of them might keep the target with
        more than two pools: the verdict is not decided.
        """
        if self.one_kept.training_per_day > self.two.training_per_day:
            return "one pool"
        if self.untried and self.one.training_per_day > self.two.training_per_day:
            return "not decided"
        return "two pools"

    @property
    def gain(self) -> float:
        """Training a day in one pool (keeping the target) over two pools, minus 1."""
        return self.one_kept.training_per_day / self.two.training_per_day - 1.0 \
            if self.two.training_per_day > 0 else math.inf

    @property
    def most_gain(self) -> float:
        """The most :attr:`gain` any headroom could have: one pool's with no headroom,
        whether or not that keeps the target (see :attr:`verdict`)."""
        return self.one.training_per_day / self.two.training_per_day - 1.0 \
            if self.two.training_per_day > 0 else math.inf


def start_delays(pool: SharedPool, gang_size: int, headroom: int, grace: float,
                 budget: DelayBudget | None = None,
                 waiting: Callable[[float], float] | None = None
                 ) -> tuple[float, float, float]:
    """The shares of requests turned away and made to wait, and the p99 start delay.

    A request that finds a place starts when g GPUs are free of requests, up gangs and
    gangs still in their grace, which leave in the order of their kills.  It waits longer
    than x when, counting only the gangs preempted in the last s − x hours, fewer than g
    are free: G − gk − N·m(k) − N·c < g at level k with c such gangs, m(k) the gangs up at
    k.  Arrivals see time averages (PASTA), so that share is the event's chance at a
    moment: the chain started in its stationary law s − x hours earlier and run on
    (n, c), n the requests in the pool, each arrival that preempts adding its victims to
    c.  A request that finds every place taken is turned away (an endless delay), or, in
    a pool that keeps them in line, waits longer than x with chance P_W e^{−(K/h − α)x}
    [queue-wait] and then takes the place of a request that ends (no gang holds it).  The
    p99 is the x where the share falls to 1%.

    Parameters
    ----------
    pool : SharedPool
    gang_size : int
        N, GPUs each training gang needs.
    headroom : int
        H, GPUs training leaves free.
    grace : float
        s, hours a preempted gang keeps its GPUs.
    budget : DelayBudget, optional
        The work a choice of designs may still spend on these chains, spent here.
    waiting : callable, optional
        The chance of waiting longer than a window at this headroom, already run (a
        chain of :func:`_waiting` that answers several headrooms); by default this
        headroom's own chain is run.

    Returns
    -------
    tuple of float
        (share turned away, share that waits, for a grace or in line, p99 start delay in
        hours: ``math.inf`` when more than 1% are turned away).

    Raises
    ------
    InputError
        A chain of more than :data:`MAX_DELAY_WORK`, or more than the budget has left.
    """
    overflowing = pool.overflow_share()
    turned_away = overflowing if pool.overflow == "drop" else 0.0
    lined = 0.0 if pool.overflow == "drop" else overflowing
    if waiting is None:
        waiting = _waiting(pool, gang_size, headroom, grace, budget)
    waits = waiting(grace) + lined
    if turned_away > 1 - QUANTILE:
        return turned_away, waits, math.inf
    line_p99 = pool.line_wait(1 - QUANTILE)
    if line_p99 >= grace:  # past the grace only the line is waited for
        return turned_away, waits, line_p99
    if turned_away + waits <= 1 - QUANTILE:
        return turned_away, waits, 0.0

    def excess(delay: float) -> float:
        line = lined * math.exp(-(pool.top / pool.hp_hold - pool.hp_rate) * delay)
        return turned_away + line + waiting(grace - delay) - (1 - QUANTILE)

    if excess(grace) > 0:  # more than 1% preempt for their own GPUs: they wait it all
        return turned_away, waits, grace
    return turned_away, waits, float(scipy.optimize.brentq(excess, 0.0, grace, xtol=1e-9))


#: The most work a start-delay chain is run for: steps of the uniformised chain, each
#: counted as 1 + states/10,000 (measured here: a unit is about 23 µs, a step of a chain
#: of 280,000 states 2.3 ns a state), about a second on one core; a choice of designs
#: runs one or more for each offset of the headroom.
MAX_DELAY_WORK = 50_000
#: The most work a choice of designs spends on its start-delay chains, in all: the search
#: for the least headroom runs a chain for the headrooms of each offset from a multiple of
#: lcm(g, N) GPUs.  Offset 0 may spend all of it (a pool whose offset 0 needs more is not
#: answered); the others only :data:`MAX_REFINE_WORK`.
MAX_CHOICE_WORK = 160_000
#: The most work the offsets other than 0 may spend, in all.  They refine the room found
#: at offset 0, so they get less time than the answer itself: where their first runs
#: (:func:`_refining_work`) need more, none of them is run and the headroom is given in
#: whole multiples of lcm(g, N) GPUs, the other offsets counted in
#: :attr:`PoolChoice.untried` (one of them may hold a headroom far below, and the
#: verdict says when that could turn it).  Pools of 100,000 GPUs in requests of 8
#: need 1,800 to 48,000 for it (gangs of 64 to 2,048); in requests of 1 and gangs of 8,
#: 92,000 (3.3 s more here, nearly all of it chains: run, they find 346 GPUs and one pool
#: ahead by 0.007%), which is not run.  The most is about 1.4 s of chains on one core
#: here, 0.7 s on two.
MAX_REFINE_WORK = 60_000

#: The most states (about 25 MB) and offsets whose first runs are stepped together:
#: the offsets are taken in rounds of so many, the least room found in one bounding the
#: next (a round of more offsets would run some that a smaller bound leaves out).
ROUND_STATES = 1_000_000
ROUND_OFFSETS = 8


class DelayBudget:
    """The work (in the units of :data:`MAX_DELAY_WORK`) a choice of designs may still
    spend on start-delay chains; spending past it is refused in one line, before the
    chain is run."""

    def __init__(self, work: float | None = None):
        self.left = MAX_CHOICE_WORK if work is None else work

    def spend(self, work: float, grace: float) -> None:
        """Take ``work`` from what is left, or refuse (``grace``, hours, for the line)."""
        if work > self.left:
            raise InputError(f"grace: the start delays over a grace of {grace * 3600:.3g} s "
                             "at each headroom the search tries take more than this "
                             "command runs (a shorter grace, or a pool with fewer requests "
                             "at once, can be answered)")
        self.left -= work


def _with_line(pool: SharedPool) -> np.ndarray:
    """The stationary law of n, the requests in the pool: in service on 0 … K, then, in a
    pool that keeps them in line, the line's places until they hold less than 10⁻²⁰."""
    stationary = pool.stationary()
    if pool.overflow == "queue" and pool.hp_rate > 0:  # π_{K+m} = π_K (αh/K)^m
        ratio = pool.load / pool.top
        places = math.ceil(math.log(1e-20) / math.log(ratio)) if ratio > 0 else 0
        line = stationary[-1] * (1 - ratio) * ratio ** np.arange(places + 1)
        stationary = np.concatenate((stationary[:-1], line))  # π_K itself, then the line
    return stationary


#: The mass a start-delay chain may leave out: the levels where the requests' law holds
#: less (or that a grace's moves reach less often), and the steps of the uniformised
#: chain past its Poisson tail of this much.  A p99 reads shares of about 10⁻², which
#: this moves by less than a part in 10⁹.
CUT = 1e-12


@functools.lru_cache(maxsize=16)
def _levels(pool: SharedPool, grace: float) -> tuple[np.ndarray, int, int]:
    """The stationary law of n, the requests in the pool (the line's places after K), on
    the levels n̲ … n̂ outside which it holds less than :data:`CUT` and which the chain
    crosses less often than that in a grace (arrivals at n̂, απ_n̂ s; departures at n̲,
    (n̲/h)π_n̲ s); and n̲ and n̂ (kept, read-only: a search of headrooms asks for the same
    levels at each)."""
    stationary = _with_line(pool)
    above = np.cumsum(stationary[::-1])[::-1] - stationary  # Σ_{j>n} π_j
    rare = (above < CUT) & (pool.hp_rate * grace * stationary < CUT)
    top = int(np.argmax(rare)) if rare.any() else stationary.size - 1
    below = np.cumsum(stationary) - stationary  # Σ_{j<n} π_j
    serving = np.minimum(np.arange(stationary.size), pool.top)
    rare = (below < CUT) & (serving / pool.hp_hold * grace * stationary < CUT)
    bottom = min(max(int(np.argmin(rare)) - 1, 0), top) if not rare.all() else top
    kept = stationary[bottom:top + 1].copy()
    kept.setflags(write=False)
    return kept, bottom, top


def _period(pool: SharedPool, gang_size: int) -> tuple[int, int]:
    """(L, k): adding L requests' room, lcm(g, N) GPUs, to the headroom takes exactly k
    gangs from every level where some are up, and moves none of the levels where a gang
    is preempted.  Headrooms L requests apart have the same chain on (n, c), and k more
    graces block at each level: one run answers them all (:func:`_waiting`)."""
    common = math.gcd(pool.hp_gpus, gang_size)
    return gang_size // common, pool.hp_gpus // common


def _chain(pool: SharedPool, gang_size: int, headroom: int, grace: float, above: int = 0):
    """The shape of :func:`_waiting`'s chain on (n, c): the stationary law of n on its
    levels, the requests in service and the gangs up at each, the counts c it follows,
    the fewest graces that block an arrival at each level (below 0 where none are needed;
    :data:`_NEVER` where none ever do), the fastest rate Λ, the steps a grace needs, and
    its work (in the units of
    :data:`MAX_DELAY_WORK`; it grows with the headroom, and with ``above``, the further
    headrooms of :func:`_period`'s L requests each the chain answers)."""
    gpus, g = pool.gpus, pool.hp_gpus
    stationary, bottom, top = _levels(pool, grace)
    levels = np.arange(bottom, top + 1)
    serving = np.minimum(levels, pool.top)  # requests in service; the rest in line
    up = np.clip((gpus - headroom - g * serving) // gang_size, 0,
                 (gpus - headroom) // gang_size)
    # c = 0 … the fewest gangs in their grace that leave fewer than g GPUs free at every
    # level below K: from there every request waits, and more change nothing (a count
    # only grows within a window), so the last count stands for all above it.  The up
    # gangs leave less than N + H GPUs, so this is about H/N + 2 counts.  From K on a
    # request is turned away or waits in line: no count blocks it.
    spare = gpus - g * levels - gang_size * up  # free at c = 0
    # blocked from c = f(n) on, f = ⌊(spare − g)/N⌋ + 1, which falls below 0 where a
    # request is blocked with no grace at all: each further headroom adds k to it
    below = levels < pool.top
    fewest = np.where(below, (spare - g) // gang_size + 1, _NEVER)
    counts = max(int(np.max(fewest[below], initial=0)), 0) \
        + above * _period(pool, gang_size)[1] + 1
    fastest = pool.hp_rate + serving[-1] / pool.hp_hold
    mean_steps = fastest * grace
    steps = math.ceil(mean_steps + 7.5 * math.sqrt(mean_steps) + 25)  # a CUT tail
    work = steps * (1 + levels.size * counts / 10_000)
    return stationary, serving, up, counts, fewest, fastest, steps, work


#: The fewest graces that block an arrival at a level where none ever does (from K on a
#: request is turned away or waits in line).
_NEVER = 2**40


def _serves(pool: SharedPool, gang_size: int, headroom: int, grace: float) -> int:
    """How many further headrooms L requests apart a chain at ``headroom`` can answer
    (:func:`_period`): as long as a gang can be up at every level the chain follows,
    adding L requests' room takes exactly k gangs from each."""
    period, _ = _period(pool, gang_size)
    top = int(min(_levels(pool, grace)[2], pool.top))
    least_free = pool.gpus - headroom - pool.hp_gpus * top  # for gangs, at the top level
    return max(least_free // (period * pool.hp_gpus), 0)


@dataclass(frozen=True)
class _Waits:
    """What :func:`_waiting` runs: ``masses[m, j]`` is the chance that the chain, m steps
    on, blocks an arrival at the j-th headroom it answers; called with a window (and j),
    the chance of waiting longer than it."""

    masses: np.ndarray
    fastest: float

    def __call__(self, window: float, above: int = 0) -> float:
        masses = self.masses[:, above]
        if window <= 0 or self.fastest == 0:  # no time, or a chain that never moves
            return float(masses[0])
        mean = self.fastest * window
        numbers = np.arange(masses.size)
        weights = np.exp(numbers * math.log(mean) - mean - scipy.special.gammaln(numbers + 1))
        return float(_weighted(masses, weights))


def _waiting(pool: SharedPool, gang_size: int, headroom: int, grace: float,
             budget: DelayBudget | None = None, above: int = 0) -> _Waits:
    """The chance, for a window of at most ``grace``, that an arrival finds a place but
    fewer than g GPUs free once the gangs preempted more than the window ago have left
    (see :func:`start_delays`); with ``above``, also at each of the ``above`` headrooms
    of L more requests each (:func:`_period`).

    The chain on (n, c) is run by uniformisation: with Λ the fastest rate out of a state,
    P = I + Q/Λ is a transition matrix and a distribution v after w hours is
    Σ_n Poisson(Λw; n) vPⁿ, a sum of positive terms.  Each step takes the mass of vPⁿ by
    c less the fewest graces that block at its level, once for every n the longest window
    needs, so any shorter window is a reweighting and each further headroom, blocked
    from k more graces, a tail of the same counts.

    The count n runs on its own, so at every moment it has its stationary law: the chain
    is cut above and below where that law holds less than :data:`CUT` (:func:`_levels`) and
    held at its lowest level, which changes no share by more than that and keeps
    Λ = α + min(n̂, K)/h from levels a light load never reaches.
    """
    return _waiting_together(pool, gang_size, [(headroom, above)], grace, budget)[0]


def _waiting_together(pool: SharedPool, gang_size: int, runs: list[tuple[int, int]],
                      grace: float, budget: DelayBudget | None = None) -> list[_Waits]:
    """:func:`_waiting` for each (headroom, above) of ``runs``, their chains stepped as one
    (:func:`_step_block`: a few whole-array operations a step, which a small chain's step
    costs little more than): in two such blocks on two threads where there are two runs
    or more and this process may use two cores (NumPy's operations on whole arrays
    release the GIL).  Each state's sum is the same whatever runs beside it, so every
    run's numbers are its own to the bit.  Every run is checked against
    :data:`MAX_DELAY_WORK`, and all of them spent from the budget, before any is run."""
    shapes = [_chain(pool, gang_size, headroom, grace, above) for headroom, above in runs]
    for _, serving, _, counts, _, _, steps, work in shapes:
        if work > MAX_DELAY_WORK:
            raise InputError(f"grace: the start delays over a grace of {grace * 3600:.3g} s "
                             f"take {steps:,} steps of a chain of {serving.size * counts:,} "
                             "states, more than this command runs (a shorter grace, or a "
                             "pool with fewer requests at once, can be answered)")
    if budget is not None:
        budget.spend(sum(shape[-1] for shape in shapes), grace)
    groups: list[list[int]] = [[], []]  # the runs of each thread, about equal in work
    loads = [0.0, 0.0]
    for index in sorted(range(len(runs)), key=lambda i: -shapes[i][-1]):
        lighter = loads.index(min(loads))
        groups[lighter].append(index)
        loads[lighter] += shapes[index][-1]
    groups = [group for group in groups if group]
    tallies: dict[int, np.ndarray] = {}
    if len(groups) == 2 and _cores() >= 2:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as helper:
            other = helper.submit(_step_block, pool, [shapes[i] for i in groups[1]])
            tallies.update(zip(groups[0], _step_block(pool, [shapes[i] for i in groups[0]])))
            tallies.update(zip(groups[1], other.result()))
    else:
        every = [i for group in groups for i in group]
        tallies.update(zip(every, _step_block(pool, [shapes[i] for i in every])))
    period = _period(pool, gang_size)[1]
    waits = []
    for index, (_, above) in enumerate(runs):
        beyond_or_more = np.cumsum(tallies[index][:, ::-1], axis=1)[:, ::-1]  # ≥ that many
        waits.append(_Waits(beyond_or_more[:, period * np.arange(above + 1)].copy(),
                            shapes[index][5]))
    return waits


def _step_block(pool: SharedPool, shapes: list[tuple]) -> list[np.ndarray]:
    """Each chain of ``shapes`` (:func:`_chain`'s) run for its steps, as one block: for each,
    the blocked mass at every step by the graces beyond the fewest that block.

    The chains lie one above another in one array of (level n, count c), each in rows of
    its own and in its own first counts (the rest of its rows stays empty), so that a step
    of all of them is a few operations on the whole array, the uniformised step
    v ← v(I + Q/Λ): each state keeps what does not move, takes the departures from the
    level above, and takes the arrivals from the level below with their count moved up by
    the gangs the arrival preempts (the last count holding all above it).  None crosses
    from one chain into the next: no departure leaves a chain's lowest level nor arrival
    its highest.  Every sum a state's next mass or a tally takes has the same terms in the
    same order whatever lies beside it, so each chain's numbers are its own to the bit.
    """
    sizes = [shape[1].size for shape in shapes]
    firsts = np.cumsum([0] + sizes)
    rows, width = firsts[-1], max(shape[3] for shape in shapes)
    stay, from_above, from_below = np.empty(rows), np.zeros(rows), np.zeros(rows)
    moved, kept = np.zeros(rows, dtype=int), np.empty(rows, dtype=int)
    vector = np.zeros((rows + 1, width))  # a last row always empty: the level above the top
    for (stationary, serving, up, counts, _, fastest, _, _), first in zip(shapes, firsts):
        own = slice(first, first + serving.size)
        if fastest > 0:
            arrival, departure = pool.hp_rate / fastest, serving / pool.hp_hold / fastest
        else:  # no load: a chain that never moves
            arrival, departure = 0.0, np.zeros(serving.size)
        leaving = np.full(serving.size, arrival)
        leaving[-1] = 0.0  # none arrives past the highest level kept
        leaving[1:] += departure[1:]  # none leaves the lowest
        stay[own] = 1.0 - leaving
        from_above[first:first + serving.size - 1] = departure[1:]
        from_below[first + 1:first + serving.size] = arrival
        moved[first + 1:first + serving.size] = up[:-1] - up[1:]  # victims of n − 1 → n
        kept[own] = counts
        vector[own, 0] = stationary  # c = 0 at every level
    shifts = [(victims, counts, np.flatnonzero((moved == victims) & (kept == counts)))
              for victims, counts in sorted(set(zip(moved[moved > 0], kept[moved > 0])))]
    groups, targets, bins = _tally_bins(shapes, firsts, width)
    steps = max(shape[6] for shape in shapes)  # the same for every chain of one pool
    masses = np.empty((steps + 1, bins[-1]))
    following = np.zeros_like(vector)  # its last row stays empty too
    moving = np.empty((rows - 1, width))  # the departures, then the arrivals, of a step
    for step in range(steps + 1):
        grouped = groups @ vector[:-1]
        masses[step] = np.bincount(targets, grouped.ravel(), bins[-1] + 1)[:-1]
        if step == steps:
            break
        np.multiply(stay[:, None], vector[:-1], out=following[:-1])
        np.multiply(from_above[:-1, None], vector[1:-1], out=moving)  # from the row above
        following[:-2] += moving
        np.multiply(from_below[1:, None], vector[:-2], out=moving)  # into the rows 1 …
        for victims, counts, into in shifts:
            _preempt(moving, into - 1, victims, counts)
        following[1:-1] += moving
        vector, following = following, vector
    return np.split(masses, bins[1:-1], axis=1)


def _preempt(arrived: np.ndarray, rows: np.ndarray, victims: int, counts: int) -> None:
    """Move the count of the arrivals in ``rows`` up by ``victims``, the last of
    ``counts`` holding all that reach it."""
    moving = arrived[rows, :counts]
    last = max(counts - 1 - victims, 0)
    top = moving[:, last:].sum(axis=1)
    moving[:, victims:counts - 1] = moving[:, :last].copy()
    moving[:, :min(victims, counts - 1)] = 0.0
    moving[:, counts - 1] = top
    arrived[rows, :counts] = moving


def _tally_bins(shapes: list[tuple], firsts: np.ndarray, width: int
                ) -> tuple[scipy.sparse.csr_matrix, np.ndarray, np.ndarray]:
    """How the block's blocked mass is tallied, chain by chain, by the graces beyond the
    fewest that block, c − f(n) = 0, 1, …: a row for each chain and value of f(n) that
    can block there, one at its levels where f(n) has it (sparse: its product adds each
    row's levels in their order, on this thread, never on BLAS's); for each such row and
    count c < ``width``, the bin it adds to, c − f after the bins of the chains before, or
    the last (not kept) where c < f or the chain has no count c; and where each chain's
    bins begin, then their number."""
    rows, targets, bins = [], [], [0]
    for (_, _, _, counts, fewest, *_), first in zip(shapes, firsts):
        values = np.unique(fewest[fewest < counts])
        levels = np.zeros((values.size, firsts[-1]))
        levels[:, first:first + fewest.size] = fewest[None, :] == values[:, None]
        beyond = np.arange(width)[None, :] - values[:, None]
        rows.append(levels)
        targets.append(np.where((beyond >= 0) & (np.arange(width) < counts)[None, :],
                                bins[-1] + beyond, -1))
        bins.append(bins[-1] + int(beyond[:, :counts].max(initial=0)) + 1)
    targets = np.concatenate(targets).ravel()
    return (scipy.sparse.csr_matrix(np.concatenate(rows)),
            np.where(targets < 0, bins[-1], targets), np.array(bins))


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def one_pool_or_two(pool: SharedPool, gang_size, checkpoint_cost, startup, grace=0.0,
                    start_target=0.0, failures=0.0, load_time=0.0) -> PoolChoice:
    """Training kept a day and the inference p99 start delay, one pool against two.

    Parameters
    ----------
    pool : SharedPool
        All G GPUs and the high-priority (inference) load.
    gang_size : int
        N, GPUs each training gang needs.
    checkpoint_cost : float or str
        C, hours a training write takes.
    startup : float or str
        Hours from an admission to the first step.
    grace : float or str, optional
        The scheduler's grace period, hours (default 0).
    start_target : float or str, optional
        The p99 start delay inference may have, hours (default 0: none).
    failures : float or str, optional
        Hardware failures per GPU-hour (default 0): in either design each training gang
        of N fails at N times it while up, and writes at its best interval against them.
    load_time : float or str, optional
        Hours an inference replica takes to load its model once it has its GPUs (default
        0): added to every request's start delay, in either design.

    Returns
    -------
    PoolChoice

    Raises
    ------
    InputError
        A bad value; a gang larger than the pool; a load that turns away (or keeps in
        line) more than 1% of requests even with the whole pool; ranks or a start-delay
        chain too large to compute (:data:`~spotmath.model.cluster_renewal.MAX_RANKS_WORK`,
        :data:`MAX_DELAY_WORK`), or the headrooms of the first offset needing start-delay
        chains of more than :data:`MAX_CHOICE_WORK` in all (the other offsets, which
        refine its headroom, are counted in :attr:`PoolChoice.untried` instead where
        they would need more than :data:`MAX_REFINE_WORK` or than is left).

    Examples
    --------
    >>> pool = SharedPool.checked(256, "8/h", "2h", 8)
    >>> choice = one_pool_or_two(pool, 16, "1min", "6min", "30s", "10s")
    >>> choice.two.inference_gpus, choice.one_kept.headroom, choice.verdict
    (200, 16, 'one pool')
    >>> round(choice.one_kept.training_per_day), round(choice.two.training_per_day)
    (2292, 1152)
    """
    gang_size = pool.gang_size(gang_size)
    checkpoint_cost, startup, grace, start_target = check_parameters(
        scalar=True, checkpoint_cost=checkpoint_cost, restart_time=startup, grace=grace,
        start_target=start_target)
    overflowing = _overflow_shares(pool)  # at 0 … K places of their own
    if overflowing[-1] > 1 - QUANTILE:
        what = "turns away" if pool.overflow == "drop" else "keeps waiting in line"
        raise InputError(f"hp_rate: a load of {figures_text(pool.load)} requests {what} "
                         f"{overflowing[-1]:.1%} of them even with all {pool.gpus:,} GPUs "
                         "(the p99 needs at most 1%)")
    servers = int(np.argmax(overflowing <= 1 - QUANTILE))
    own = servers * pool.hp_gpus
    (failures,) = check_parameters(scalar=True, failure_rate=failures)
    (load_time,) = check_parameters(scalar=True, load_time=load_time)
    if load_time > start_target > 0:
        raise InputError(f"start_target: a replica takes {load_time * 3600:.3g} s to load, "
                         f"longer than the target of {start_target * 3600:.3g} s: no design "
                         "meets it")
    wait_target = start_target - load_time if start_target > 0 else 0.0
    gangs = (pool.gpus - own) // gang_size
    share = float(overflowing[servers])
    alone = SharedPool.checked(gang_size, 0.0, 1.0, 1)  # training's own pool: no requests
    interval, kept = best_interval(alone, gang_in_pool(alone, gang_size), checkpoint_cost,
                                   startup, grace, failures * gang_size)
    two = PoolDesign(own, pool.gpus - own, 0, gangs, (interval,) * gangs,
                     24.0 * gang_size * gangs * kept,
                     share if pool.overflow == "drop" else 0.0,
                     0.0 if pool.overflow == "drop" else share, load_time,
                     pool.gpus - own - gangs * gang_size)
    budget = DelayBudget()
    chains: list[tuple[int, int, _Waits]] = []  # (headroom, further headrooms, the run)
    period = _period(pool, gang_size)[0]
    apart = period * pool.hp_gpus  # GPUs between the headrooms one run answers

    def answered(headroom: int) -> Callable[[float], float] | None:
        """The run that answers ``headroom``, if one does."""
        for base, above, waits in chains:
            step, rest = divmod(headroom - base, apart)
            if rest == 0 and 0 <= step <= above:
                return functools.partial(waits, above=step)
        return None

    @functools.cache
    def delays(headroom: int) -> tuple[float, float, float]:
        return start_delays(pool, gang_size, headroom, grace, budget, answered(headroom))

    def keeps(requests: int, reach: int = 0) -> bool:
        """Whether ``requests``' room keeps the target, a run from it that also answers
        up to ``reach`` further rooms L apart made first where none answers it (as far
        as it can and the budget allows)."""
        headroom = requests * pool.hp_gpus
        if answered(headroom) is None:
            above = max(min(reach, _serves(pool, gang_size, headroom, grace),
                            _affordable(pool, gang_size, headroom, grace, budget.left)), 0)
            chains.append((headroom, above, _waiting(pool, gang_size, headroom, grace,
                                                     budget, above)))
        return delays(headroom)[2] <= wait_target

    # the rooms of each offset from a multiple of L in turn, the fewest keeping the target
    # kept; offset 0's first run answering about twice as many graces as a grace's victims
    best, untried = pool.top, 0  # a room of K requests keeps any target
    reach = _reach(pool, gang_size, grace)
    offsets = min(period, pool.top)
    together = 1  # offset 0 alone: its least room bounds the others' searches
    for offset in range(offsets):
        if offset == 1:  # offset 0 answered: the others refine it, if that costs little
            if _refining_work(pool, gang_size, grace, offsets, best) > MAX_REFINE_WORK:
                untried = min(offsets, best) - 1  # the offsets with a room below the best
                break
            budget.left = min(budget.left, MAX_REFINE_WORK)
        if offset == together:  # the next offsets' first runs at once, up to the least
            first, together = _first_runs(pool, gang_size, grace, offset, offsets, best)
            try:
                chains.extend((headroom, above, waits) for (headroom, above), waits in
                              zip(first, _waiting_together(pool, gang_size, first, grace,
                                                           budget) if first else []))
            except InputError:  # more than is left: offset by offset, as far as it goes
                pass
        try:
            found = _least_of_offset(offset, period, best, keeps, reach)
        except InputError:
            if offset == 0:  # not even the headrooms L requests apart: one line
                raise
            untried += 1
            continue
        best = best if found is None else found
    headroom = best * pool.hp_gpus
    one = _shared(pool, gang_size, 0, checkpoint_cost, startup, grace, failures, load_time,
                  delays)
    one_kept = one if headroom == 0 else _shared(pool, gang_size, headroom, checkpoint_cost,
                                                 startup, grace, failures, load_time,
                                                 delays)
    return PoolChoice(two, one, one_kept, start_target, untried)


def _least_of_offset(offset: int, period: int, below: int,
                     keeps: Callable[[int, int], bool], reach: int) -> int | None:
    """The fewest requests' room ``offset`` + j·L below ``below`` that keeps the target
    (None: none does).

    Within one offset the p99 falls as j grows: each L requests more leave k more graces
    to block at every level and move no level where a gang is preempted (across offsets
    they do move it, and the p99 may rise again).  So the rooms are searched a stretch at
    a time, each from the first room not yet known to fail and ``reach`` rooms long at
    first, twice as long each time its last room fails too: a run from its first room
    answers the stretch (``keeps(room, rooms further)``), and where the last room keeps,
    halving finds the fewest within it.  A run costs more the higher its first room and
    the further it reaches, so no run starts above a room still in doubt.
    """
    last = (below - 1 - offset) // period  # the rooms offset + j·L below ``below``
    failing, ahead = -1, reach
    while failing < last:
        first = failing + 1
        end = min(first + ahead, last)
        if keeps(offset + first * period, end - first):
            return offset + first * period
        if keeps(offset + end * period, min(2 * ahead, last - end)):
            holding, failing = end, first
            while holding - failing > 1:
                middle = (failing + holding) // 2
                if keeps(offset + middle * period, holding - middle - 1):
                    holding = middle
                else:
                    failing = middle
            return offset + holding * period
        failing, ahead = end, 2 * ahead
    return None


def _first_run(pool: SharedPool, gang_size: int, grace: float, offset: int, below: int
               ) -> tuple[int, int] | None:
    """The (headroom, further rooms) of the first run :func:`_least_of_offset` makes for an
    offset other than 0: from the offset's room to its last room below ``below`` requests,
    the least found so far (the least the offset can improve on it), or as far as the run
    can answer; None where the offset has no room below ``below``.  One run then answers
    the whole search of most offsets."""
    last = (below - 1 - offset) // _period(pool, gang_size)[0]
    if last < 0:
        return None
    headroom = offset * pool.hp_gpus
    return headroom, max(min(last, _serves(pool, gang_size, headroom, grace)), 0)


def _first_runs(pool: SharedPool, gang_size: int, grace: float, start: int, offsets: int,
                below: int) -> tuple[list[tuple[int, int]], int]:
    """The first runs (:func:`_first_run`) of the offset ``start`` and the next ones, a
    round (:data:`ROUND_STATES`, :data:`ROUND_OFFSETS`; one at least), and the offset
    after the last of them."""
    first, states = [], 0
    for offset in range(start, offsets):
        run = _first_run(pool, gang_size, grace, offset, below)
        if run is None:
            continue
        _, serving, _, counts, *_ = _chain(pool, gang_size, run[0], grace, run[1])
        states += serving.size * counts
        if first and (states > ROUND_STATES or len(first) == ROUND_OFFSETS):
            return first, offset
        first.append(run)
    return first, offsets


def _refining_work(pool: SharedPool, gang_size: int, grace: float, offsets: int,
                   below: int) -> float:
    """The work of the first runs of offsets 1 … ``offsets`` − 1 below ``below`` requests
    (:func:`_first_run`): what refining offset 0's least room costs.  The first runs made
    cost no more (an offset that improves on the least lowers ``below`` for the next),
    and only an offset whose run cannot reach its last room makes another."""
    runs = (_first_run(pool, gang_size, grace, offset, below) for offset in range(1, offsets))
    return sum(_chain(pool, gang_size, headroom, grace, above)[-1]
               for headroom, above in filter(None, runs))


def first_run(pool: SharedPool, gang_size: int, grace: float) -> tuple[int, int, float]:
    """The steps, states and work (in the units of :data:`MAX_DELAY_WORK`) of the first
    start-delay run :func:`one_pool_or_two` makes for gangs of ``gang_size`` GPUs: no
    headroom, reaching as many further rooms as its search would have it answer (it
    makes it shorter where that is more than a run may take, and then needs more runs).

    Parameters
    ----------
    pool : SharedPool
    gang_size : int
        N, GPUs of each training gang (checked).
    grace : float
        The grace period, hours (checked).

    Returns
    -------
    tuple
        (steps, states, work).

    Examples
    --------
    >>> pool = SharedPool.checked(256, "8/h", "2h", 8)
    >>> first_run(pool, 16, 30 / 3600)[2] < MAX_DELAY_WORK
    True
    """
    above = max(min(_reach(pool, gang_size, grace), _serves(pool, gang_size, 0, grace)), 0)
    _, serving, _, counts, _, _, steps, work = _chain(pool, gang_size, 0, grace, above)
    return steps, serving.size * counts, work


def _reach(pool: SharedPool, gang_size: int, grace: float) -> int:
    """The rooms beyond its own that offset 0's first run answers: enough for about twice
    as many graces as a grace's victims (:func:`_victims`)."""
    return math.ceil((2 * _victims(pool, gang_size, grace) + 8) / _period(pool, gang_size)[1])


def _victims(pool: SharedPool, gang_size: int, grace: float) -> float:
    """The gangs a grace's arrivals preempt, on average, with no headroom: α s Σ π_n
    (m(n) − m(n + 1)), the gangs up falling by m(n) − m(n + 1) at an arrival at n."""
    stationary, _, up, *_ = _chain(pool, gang_size, 0, grace)
    return pool.hp_rate * grace * float(np.dot(stationary[:-1], up[:-1] - up[1:]))


def _affordable(pool: SharedPool, gang_size: int, headroom: int, grace: float,
                left: float) -> int:
    """The most further headrooms (:func:`_period`) a run at ``headroom`` can answer within
    ``left`` work and :data:`MAX_DELAY_WORK` (−1: not even its own)."""
    _, serving, _, counts, _, _, steps, work = _chain(pool, gang_size, headroom, grace)
    per_count = steps * serving.size / 10_000  # the work of one more count
    spare = min(left, MAX_DELAY_WORK) - work
    return -1 if spare < 0 else int(spare // (per_count * _period(pool, gang_size)[1]))




def _overflow_shares(pool: SharedPool) -> np.ndarray:
    """The share of requests that find every place taken with 1 … K places of their own
    (and none: 1): turned away (Erlang's B) or kept in line (Erlang's C, 1 where the
    places cannot carry the load)."""
    b = pool.erlang_b()
    if pool.overflow == "drop":
        return b
    places = np.arange(pool.top + 1, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        waiting = _generated.erlang_c(b, pool.hp_rate, pool.hp_hold, places)
    return np.where(places > pool.load, waiting, 1.0)


def _shared(pool: SharedPool, gang_size: int, headroom: int, checkpoint_cost: float,
            startup: float, grace: float, failures: float, load_time: float,
            delays: Callable[[int], tuple[float, float, float]]) -> PoolDesign:
    """The shared pool with ``headroom`` GPUs training leaves free (``delays``: its
    :func:`start_delays`)."""
    every = ranks(pool, gang_size, checkpoint_cost, startup, grace, headroom=headroom,
                  failures=failures)
    turned_away, waits, p99 = delays(headroom)
    return PoolDesign(pool.gpus, pool.gpus - headroom, headroom, len(every),
                      tuple(rank.interval for rank in every),
                      24.0 * gang_size * sum(rank.kept for rank in every), turned_away,
                      waits, p99 + load_time,
                      pool.gpus - headroom - len(every) * gang_size)
