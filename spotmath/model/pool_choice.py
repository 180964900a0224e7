"""One pool or two: inference with a start-delay target beside training that wants every GPU.

Two designs of the same G GPUs:

* **two pools**: inference on the fewest GPUs whose requests find room 99 times in 100
  (Erlang's B at c servers at most 1%, the classic sizing of a loss system), training on
  the rest in gangs of N, never preempted;
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

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.sparse
import scipy.special

from ..inputs import InputError, check_parameters
from .cluster import SharedPool, _weighted
from .cluster_renewal import ranks

__all__ = ["QUANTILE", "PoolDesign", "PoolChoice", "one_pool_or_two", "start_delays"]

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
        Hours within which 99% of requests start (``math.inf``: more than 1% never do).
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
    """

    two: PoolDesign
    one: PoolDesign
    one_kept: PoolDesign
    start_target: float

    @property
    def verdict(self) -> str:
        """``"one pool"`` when it keeps the target and more training, else ``"two pools"``."""
        better = self.one_kept.training_per_day > self.two.training_per_day
        return "one pool" if better else "two pools"

    @property
    def gain(self) -> float:
        """Training a day in one pool (keeping the target) over two pools, minus 1."""
        return self.one_kept.training_per_day / self.two.training_per_day - 1.0 \
            if self.two.training_per_day > 0 else math.inf


def start_delays(pool: SharedPool, gang_size: int, headroom: int, grace: float
                 ) -> tuple[float, float, float]:
    """The shares of requests turned away and made to wait, and the p99 start delay.

    A request starts when g GPUs are free of requests, up gangs and gangs still in their
    grace, which leave in the order of their kills.  It waits longer than x when, counting
    only the gangs preempted in the last s − x hours, fewer than g are free:
    G − gk − N·m(k) − N·c < g at level k with c such gangs, m(k) the gangs up at k.
    Arrivals see time averages (PASTA), so that share is the event's chance at a moment:
    the chain started in its stationary law s − x hours earlier and run on (k, c), each
    arrival that preempts adding its victims to c.  The p99 is the x where the share
    (with those turned away) falls to 1%.

    Parameters
    ----------
    pool : SharedPool
    gang_size : int
        N, GPUs each training gang needs.
    headroom : int
        H, GPUs training leaves free.
    grace : float
        s, hours a preempted gang keeps its GPUs.

    Returns
    -------
    tuple of float
        (share turned away, share that waits, p99 start delay in hours: at most s, and
        ``math.inf`` when more than 1% are turned away).
    """
    stationary = pool.stationary()
    turned_away = float(stationary[-1])
    waiting = _waiting(pool, gang_size, headroom, stationary, grace)
    waits = waiting(grace)
    if turned_away > 1 - QUANTILE:
        return turned_away, waits, math.inf
    if turned_away + waits <= 1 - QUANTILE:
        return turned_away, waits, 0.0

    def excess(delay: float) -> float:
        return turned_away + waiting(grace - delay) - (1 - QUANTILE)

    if excess(grace) > 0:  # more than 1% preempt for their own GPUs: they wait it all
        return turned_away, waits, grace
    return turned_away, waits, float(scipy.optimize.brentq(excess, 0.0, grace, xtol=1e-9))


#: The most work a start-delay chain is run for: steps of the uniformised chain, each
#: counted as 1 + states/10,000 (a step costs about 10 µs and 1 ns a state here), about
#: half a second; a choice of designs runs it some fifteen times.
MAX_DELAY_WORK = 50_000


def _waiting(pool: SharedPool, gang_size: int, headroom: int, stationary: np.ndarray,
             grace: float) -> Callable[[float], float]:
    """The chance, for a window of at most ``grace``, that an arrival finds fewer than g
    GPUs free once the gangs preempted more than the window ago have left (see
    :func:`start_delays`).

    The chain on (k, c) is run by uniformisation: with Λ the fastest rate out of a state,
    P = I + Q/Λ is a transition matrix and a distribution v after w hours is
    Σ_n Poisson(Λw; n) vPⁿ, a sum of positive terms.  The blocked mass of vPⁿ is taken
    once for every n the longest window needs, so any shorter window is a reweighting.

    The level k runs on its own, so at every moment it has its stationary law: the chain
    is cut at the lowest level k̂ above which that law holds less than 10⁻¹⁸ and which
    arrivals cross less than 10⁻¹⁸ times in a grace (απ_k̂ s), which changes no share by
    more than that and keeps Λ = α + k̂/h from levels a light load never reaches.
    """
    gpus, g = pool.gpus, pool.hp_gpus
    above = np.cumsum(stationary[::-1])[::-1] - stationary  # Σ_{j>k} π_j
    rare = (above < 1e-18) & (pool.hp_rate * grace * stationary < 1e-18)
    top = int(np.argmax(rare)) if rare.any() else pool.top
    stationary = stationary[:top + 1]
    levels = np.arange(top + 1)
    up = np.clip((gpus - headroom - g * levels) // gang_size, 0,
                 (gpus - headroom) // gang_size)
    # c = 0 … the fewest gangs in their grace that leave fewer than g GPUs free at every
    # level below K: from there every request waits, and more change nothing (a count
    # only grows within a window), so the last count stands for all above it.  The up
    # gangs leave less than N + H GPUs, so this is about H/N + 2 counts.
    below = levels < pool.top  # at K a request is turned away, never waits
    spare = (gpus - g * levels - gang_size * up)[below]  # free at c = 0
    counts = int(np.max(np.where(spare >= g, (spare - g) // gang_size + 1, 0))) + 1
    free = gpus - g * levels[:, None] - gang_size * (up[:, None] + np.arange(counts))
    blocked = (free < g) & below[:, None]
    fastest = pool.hp_rate + top / pool.hp_hold
    mean_steps = fastest * grace
    steps = math.ceil(mean_steps + 10 * math.sqrt(mean_steps) + 40)  # a 10⁻¹⁸ tail
    if steps * (1 + blocked.size / 10_000) > MAX_DELAY_WORK:
        raise InputError(f"grace: the start delays over a grace of {grace * 3600:.3g} s "
                         f"take {steps:,} steps of a chain of {blocked.size:,} states, "
                         f"more than this command runs (a shorter grace, or a pool with "
                         f"fewer requests at once, can be answered)")
    forward = _uniformised(pool, top, up, counts, fastest)
    vector = np.zeros(blocked.size)
    vector[::counts] = stationary  # c = 0 at every level
    mask = blocked.ravel().astype(float)
    masses = np.empty(steps + 1)
    for n in range(steps + 1):
        masses[n] = _weighted(vector, mask)
        vector = forward.dot(vector)
    numbers = np.arange(steps + 1)

    def waiting(window: float) -> float:
        if window <= 0 or fastest == 0:  # no time, or a chain that never moves
            return float(masses[0])
        mean = fastest * window
        weights = np.exp(numbers * math.log(mean) - mean - scipy.special.gammaln(numbers + 1))
        return float(_weighted(masses, weights))

    return waiting


def _uniformised(pool: SharedPool, top: int, up: np.ndarray, counts: int, fastest: float
                 ) -> scipy.sparse.csr_matrix:
    """(I + Q/Λ)ᵀ of the chain on (k, c), k up to ``top``: a distribution's step forward."""
    levels = np.arange(top + 1)
    state = levels[:, None] * counts + np.arange(counts)[None, :]
    gone = np.arange(counts)[None, :] + (up[:-1] - up[1:])[:, None]  # victims of k → k+1
    rows = np.concatenate((state[:-1].ravel(), state[1:].ravel()))
    cols = np.concatenate((
        (state[1:, :1] + np.minimum(gone, counts - 1)).ravel(),  # an arrival
        state[:-1].ravel()))  # a departure
    rates = np.concatenate((np.full(top * counts, pool.hp_rate),
                            np.repeat(levels[1:] / pool.hp_hold, counts)))
    size = (top + 1) * counts
    moves = scipy.sparse.csr_matrix((rates / fastest, (rows, cols)), shape=(size, size))
    stay = 1.0 - np.asarray(moves.sum(axis=1)).ravel()
    return (moves + scipy.sparse.diags(stay)).T.tocsr()


def one_pool_or_two(pool: SharedPool, gang_size, checkpoint_cost, startup, grace=0.0,
                    start_target=0.0) -> PoolChoice:
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

    Returns
    -------
    PoolChoice

    Raises
    ------
    InputError
        A bad value; a gang larger than the pool; a load that turns away more than 1% of
        requests even with the whole pool; a pool of more request slots than
        :data:`~spotmath.model.cluster_renewal.MAX_EXACT_LEVELS`.

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
    b = pool.erlang_b()
    if b[-1] > 1 - QUANTILE:
        raise InputError(f"hp_rate: a load of {pool.load:.3g} requests turns away "
                         f"{b[-1]:.1%} of them even with all {pool.gpus} GPUs (the p99 "
                         "needs at most 1%)")
    servers = int(np.argmax(b <= 1 - QUANTILE))
    own = servers * pool.hp_gpus
    gangs = (pool.gpus - own) // gang_size
    two = PoolDesign(own, pool.gpus - own, 0, gangs, (math.inf,) * gangs,
                     24.0 * gang_size * gangs, float(b[servers]), 0.0, 0.0)
    one = _shared(pool, gang_size, 0, checkpoint_cost, startup, grace)
    headroom = pool.hp_gpus * _least_room(
        lambda requests: start_delays(pool, gang_size, requests * pool.hp_gpus,
                                      grace)[2] <= start_target, pool.top)
    one_kept = one if headroom == 0 else _shared(pool, gang_size, headroom,
                                                 checkpoint_cost, startup, grace)
    return PoolChoice(two, one, one_kept, start_target)


def _least_room(keeps: Callable[[int], bool], top: int) -> int:
    """The fewest requests' room m in 0 … K whose headroom ``keeps`` the target.

    A headroom of K requests leaves every level below K a request's GPUs free, so it
    keeps any target; a larger headroom never leaves a level fewer GPUs free (the gangs
    up fill all but H and less than N), so the p99 falls as it grows, and the search
    doubles, then halves (a test scans every headroom against it).
    """
    if keeps(0):
        return 0
    failing, trying = 0, 1
    while trying < top and not keeps(trying):
        failing, trying = trying, min(2 * trying, top)
    holding = trying  # keeps(holding); keeps(failing) does not
    while holding - failing > 1:
        middle = (failing + holding) // 2
        failing, holding = (failing, middle) if keeps(middle) else (middle, holding)
    return holding


def _shared(pool: SharedPool, gang_size: int, headroom: int, checkpoint_cost: float,
            startup: float, grace: float) -> PoolDesign:
    """The shared pool with ``headroom`` GPUs training leaves free."""
    every = ranks(pool, gang_size, checkpoint_cost, startup, grace, headroom=headroom)
    turned_away, waits, p99 = start_delays(pool, gang_size, headroom, grace)
    return PoolDesign(pool.gpus, pool.gpus - headroom, headroom, len(every),
                      tuple(rank.interval for rank in every),
                      24.0 * gang_size * sum(rank.kept for rank in every), turned_away,
                      waits, p99)
