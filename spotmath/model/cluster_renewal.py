"""A gang's compute kept in a shared pool, from the exact law of its up times.

Every admission finds the chain at k* (a gang is re-admitted when k falls back to k*), so
the gang's up and down spells form a renewal process and the share of hours whose compute
is kept is, by renewal–reward,

    E[compute kept in an up spell] / (E[up time] + W),

with W the mean wait for re-admission [readmission-wait] and the up time U the chain's
first passage from k* to k* + 1: a phase-type law with survival S(t) = e_{k*} exp(Qt) 1,
Q the chain's generator on the levels 0 … k* (:func:`spotmath.model.cluster.up_time_hazard`
draws its hazard).  Each spell starts with ``startup`` hours a, then cycles of T hours of
compute and a write of C (τ = T + C):

* a grace period s shorter than a write is no notice: the compute kept is T for each
  write that ends by the kill, U + s, so E = T Σ_{j≥1} S(a + jτ − s);
* a grace period that fits a write (s ≥ C) is the book's notice: the gang writes what it
  has when told, so E = Σ_{j≥0} ∫ S(t) dt over its compute phases [a + jτ, a + jτ + T].

S is a mixture of exponentials with positive weights (:class:`~spotmath.model.cluster.
UpTimeLaw`), so both sums are geometric in each term and are taken in closed form.
:class:`~spotmath.model.cluster.GangInPool` prices the same gang at its rate λ_c as if U
were exponential; this module does not, and the event simulator
(:mod:`spotmath.model.simulate_cluster`) is the witness of both.
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass

import numpy as np
import scipy.optimize

from ..inputs import InputError, check_parameters, count_text
from . import _generated
from .cluster import (
    NEVER_RATE,
    PRACTICALLY_NEVER_H,
    GangInPool,
    SharedPool,
    UpTimeLaw,
    _up_at_most,
    _weighted,
    gang_in_pool,
    laws_work,
    up_time_law,
    up_time_laws,
)
from .intervals import _exact_interval
from .numerics import waste_fraction

__all__ = ["kept_share", "best_interval", "waste_floor", "gang_limits", "Rank", "ranks",
           "ranks_work", "ALMOST_NEVER_UP", "NEGLIGIBLE_UP", "MAX_RANKS_WORK",
           "LocalRateSchedule", "local_rate_schedule"]

def _priced_at_the_rate(gang: GangInPool) -> bool:
    """Whether a gang is preempted so seldom (:data:`~spotmath.model.cluster.
    PRACTICALLY_NEVER_H`) that its up times are taken as exponential at its rate λ_c: its
    waste is then C/T plus a few parts in a million either way, and its chain may span
    more levels than its law is computed over."""
    return gang.up_time_mean > PRACTICALLY_NEVER_H


def _law(pool: SharedPool, gang: GangInPool) -> UpTimeLaw:
    """The gang's up-time law: exact, or exponential at λ_c (see _priced_at_the_rate)."""
    if _priced_at_the_rate(gang):
        return UpTimeLaw(np.array([gang.preemption_rate]), np.array([1.0]), 0)
    return up_time_law(pool, gang.star)


def kept_share(pool: SharedPool, gang: GangInPool, interval, checkpoint_cost,
               startup=0.0, grace=0.0, failures=0.0) -> float:
    """The share of hours, up or waiting, whose compute a gang keeps.

    Parameters
    ----------
    pool : SharedPool
        The pool and its high-priority load.
    gang : GangInPool
        The gang, from :func:`~spotmath.model.cluster.gang_in_pool`.
    interval : float or str
        T, hours of compute between writes (``math.inf``: write on notice only, which
        needs a grace that fits a write).
    checkpoint_cost : float or str
        C, hours a write takes.
    startup : float or str, optional
        a, hours from an admission (or a failure) to the first step (default 0).
    grace : float or str, optional
        s, the grace period, hours (default 0); s ≥ C makes it a notice.
    failures : float or str, optional
        φ, the gang's hardware failures per hour it is up (all its GPUs: N times one
        GPU's rate; default 0): each loses what was not written and starts the gang
        again in its place (:meth:`~spotmath.model.cluster.UpTimeLaw.kept`).

    Returns
    -------
    float
        Compute kept per hour, in [0, 1).  1 − it is the waste the simulator measures.

    Raises
    ------
    InputError
        A bad value, or an infinite interval without a grace that fits a write.

    References
    ----------
    M. F. Neuts, *Matrix-Geometric Solutions in Stochastic Models*, 1981 (phase-type
    laws).  S. M. Ross, *Stochastic Processes*, 2nd ed., 1996, §3.6 (renewal–reward).

    Examples
    --------
    >>> from spotmath.model.cluster import gang_in_pool
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> round(kept_share(pool, gang_in_pool(pool, 16), "20min", "1min", "6min"), 3)
    0.82
    """
    notice_only = interval is not None and not isinstance(interval, str) and \
        math.isinf(interval) and interval > 0
    checkpoint_cost, startup, grace = check_parameters(
        scalar=True, checkpoint_cost=checkpoint_cost, restart_time=startup, grace=grace)
    (failures,) = check_parameters(scalar=True, failure_rate=failures)
    notice = grace > 0 and grace >= checkpoint_cost
    if notice_only:
        if not notice:
            raise InputError("interval: writing on notice only needs a grace period that "
                             "fits a write (grace >= checkpoint_cost)")
        interval = math.inf
    else:
        (interval,) = check_parameters(scalar=True, interval=interval)
    return _kept(pool, gang, interval, checkpoint_cost, startup, grace, failures)


def _kept(pool: SharedPool, gang: GangInPool, interval: float, checkpoint_cost: float,
          startup: float, grace: float, failures: float) -> float:
    """:func:`kept_share` of values it has checked (a search calls this thousands of
    times)."""
    notice_only = math.isinf(interval)
    if gang.never_preempted:  # only failures end its segments: the book's exact model
        if failures == 0:
            return 1.0 if notice_only else interval / (interval + checkpoint_cost)
        if notice_only:  # a failure loses all since the start: nothing is kept for long
            return 0.0
        return 1.0 - float(waste_fraction(failures, interval, checkpoint_cost, startup))
    kept = _law(pool, gang).kept(startup, interval, checkpoint_cost, grace, failures)
    return float(kept / (gang.up_time_mean + gang.readmission_wait))


def best_interval(pool: SharedPool, gang: GangInPool, checkpoint_cost, startup=0.0,
                  grace=0.0, failures=0.0) -> tuple[float, float]:
    """The interval that keeps the most compute under the exact up-time law, and that share.

    With a grace that fits a write and no failures, every preemption is written on
    notice and a periodic write only costs: the answer is ``math.inf`` (never write
    periodically); a notice does not cover failures, so with them the best periodic
    interval is compared with writing on notice only.  The search is Brent's method on
    log T, within a factor 30 of the optimum at the rate λ_c + φ as if up times were
    exponential, and again around an end where the best lies there.  A gang never
    preempted is the book's exact model at its failure rate; one preempted so seldom
    that its up times are taken as exponential (:data:`~spotmath.model.cluster.
    PRACTICALLY_NEVER_H`) is the exact model at λ_c + φ, whose optimum a restart does
    not move (without a notice; a search of a share that close to 1 would find only
    rounding).

    Parameters
    ----------
    pool, gang, checkpoint_cost, startup, grace, failures
        As for :func:`kept_share`.

    Returns
    -------
    tuple of float
        The interval, hours (``math.inf``: on notice only, or neither preempted nor
        failing), and :func:`kept_share` at it.

    Raises
    ------
    InputError
        As :func:`kept_share`; a write of 0 hours has no optimum (write all the time).

    Examples
    --------
    >>> from spotmath.model.cluster import gang_in_pool
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> interval, kept = best_interval(pool, gang_in_pool(pool, 16), "1min", "6min")
    >>> round(interval * 60, 1), round(kept, 3)
    (26.1, 0.822)
    """
    checkpoint_cost, startup, grace = check_parameters(
        scalar=True, checkpoint_cost=checkpoint_cost, restart_time=startup, grace=grace)
    (failures,) = check_parameters(scalar=True, failure_rate=failures)
    return _best(pool, gang, checkpoint_cost, startup, grace, failures)


def _best(pool: SharedPool, gang: GangInPool, checkpoint_cost: float, startup: float,
          grace: float, failures: float, start: float | None = None) -> tuple[float, float]:
    """:func:`best_interval` of values it has checked (:func:`ranks` searches for
    hundreds of gangs, and checking each one's values again cost a fifth of that).
    ``start``: the exact optimum at λ_c + φ where the caller has it (:func:`ranks`
    computes it for every k* at once); None: computed here."""
    notice = grace > 0 and grace >= checkpoint_cost
    if failures == 0 and (gang.never_preempted or notice):
        if gang.never_preempted and not notice:
            return math.inf, gang.up_share
        return math.inf, _kept(pool, gang, math.inf, checkpoint_cost, startup, grace, 0.0)
    if checkpoint_cost == 0:
        raise InputError("checkpoint_cost: a write of 0 hours has no optimal interval "
                         "(write continuously)")
    if start is None:
        start = float(_exact_interval(gang.preemption_rate + failures, checkpoint_cost))
    if gang.never_preempted or (_priced_at_the_rate(gang) and not notice):
        # only failures, or exponential up times: the exact optimum
        return start, _kept(pool, gang, start, checkpoint_cost, startup, grace, failures)
    guess = math.log(start)
    law, spell = _law(pool, gang), gang.up_time_mean + gang.readmission_wait  # as _kept
    width = math.log(30)
    while True:
        found = scipy.optimize.minimize_scalar(
            lambda log_t: -law.kept(startup, math.exp(log_t), checkpoint_cost, grace,
                                    failures) / spell,
            bounds=(guess - width, guess + width), method="bounded",
            options={"xatol": 1e-6})
        if abs(found.x - guess) < width - 1e-3 or width > 20:  # inside, or 10^±9 tried
            break
        guess, width = float(found.x), 2 * width  # at an end: look beyond it
    interval, kept = math.exp(found.x), -float(found.fun)
    if notice:  # writing on notice only may still do better
        alone = _kept(pool, gang, math.inf, checkpoint_cost, startup, grace, failures)
        if alone >= kept:
            return math.inf, alone
    return interval, kept


#: A gang up less than this share of the time is almost never up: a rank to name as such,
#: not one to count on.
ALMOST_NEVER_UP = 1e-3
#: A gang up less than this share of the time keeps at most that share of its hours; its
#: law is not computed and it is counted as keeping nothing.
NEGLIGIBLE_UP = 1e-12
#: The most work :func:`ranks` does for its laws and searches, in units of about
#: 3.5·10⁻⁸ s on the machines the book is built on (so this is about two seconds): the
#: laws' own (:func:`~spotmath.model.cluster.laws_work`), 6,000 for each law's search
#: and 400 for each rank.
MAX_RANKS_WORK = 6e7


@dataclass(frozen=True)
class Rank:
    """The j-th gang admitted to a pool of gangs that are preempted most recently admitted
    first: up exactly while g·k + jN + H ≤ G, so it is the single gang of jN + H GPUs.

    Attributes
    ----------
    rank : int
        j, 1 for the first admitted (the last preempted).
    gang : GangInPool
        Its rate, up share, wait and up-time moments (``gang.gang_size`` is jN + H, the
        GPUs it and the ranks before it hold, with the headroom).
    interval : float or None
        The exact law's best interval, hours (``math.inf``: neither preempted nor
        failing, or written on notice only; None: up less than :data:`NEGLIGIBLE_UP` of
        the time, not computed).
    kept : float
        Compute kept per hour in the pool, up or waiting (0 when ``interval`` is None).
    """

    rank: int
    gang: GangInPool
    interval: float | None
    kept: float

    @property
    def state(self) -> str:
        """``"never preempted"``, ``"never preempted in practice"`` (less than once in
        :data:`~spotmath.model.cluster.PRACTICALLY_NEVER_H`), ``"almost never up"`` (up
        less than :data:`ALMOST_NEVER_UP` of the time) or ``"preempted"``."""
        if self.gang.never_preempted:
            return "never preempted"
        if _priced_at_the_rate(self.gang):
            return "never preempted in practice"
        return "almost never up" if self.gang.up_share < ALMOST_NEVER_UP else "preempted"


def ranks(pool: SharedPool, gang_size, checkpoint_cost, startup=0.0, grace=0.0,
          gangs=None, headroom=0, failures=0.0) -> list[Rank]:
    """Every gang of a pool filled with gangs of N GPUs, rank by rank, each at its best
    interval under its up times' exact law.

    Kueue preempts the most recently admitted workload first among equals, so the gangs
    form ranks: the j-th admitted is preempted exactly when a request arrives with
    k = ⌊(G − H − jN)/g⌋ in service, and comes back when k falls back there.  Each rank is
    the single gang of :func:`~spotmath.model.cluster.gang_in_pool` with a threshold of
    jN + H GPUs, at :func:`best_interval`; ranks that share a threshold share their law.

    Parameters
    ----------
    pool : SharedPool
    gang_size : int
        N, GPUs of each training gang.
    checkpoint_cost, startup, grace : float or str
        As for :func:`best_interval`.
    gangs : int, optional
        How many gangs (default: as many as fit, ⌊(G − H)/N⌋).
    headroom : int, optional
        H, GPUs training leaves free (default 0).
    failures : float or str, optional
        Hardware failures per GPU-hour (default 0): each gang fails at N times it while
        up, so a gang never preempted still writes periodically.

    Returns
    -------
    list of Rank
        Rank 1 first.

    Raises
    ------
    InputError
        A bad value, more gangs than fit, a write of 0 hours, or laws too many and too
        large to compute at once (:data:`MAX_RANKS_WORK`).

    Examples
    --------
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> [(r.rank, r.state, round(r.gang.up_share, 3)) for r in ranks(pool, 32, "1min", "6min")]
    [(1, 'preempted', 0.643), (2, 'preempted', 0.019)]
    """
    gang_size = pool.gang_size(gang_size)
    (headroom,) = check_parameters(headroom=headroom)
    most = (pool.gpus - headroom) // gang_size
    count = most if gangs is None else check_parameters(gangs=gangs)[0]
    if count > most:
        raise InputError(f"gangs: at most {count_text(most, 'gang')} of "
                         f"{count_text(gang_size, 'GPU')} fit {pool.gpus - headroom:,} GPUs, "
                         f"got {count_text(count)}")
    checkpoint_cost, startup, grace = check_parameters(
        scalar=True, checkpoint_cost=checkpoint_cost, restart_time=startup, grace=grace)
    (failures,) = check_parameters(scalar=True, failure_rate=failures)
    return list(_ranks(pool, gang_size, count, headroom, checkpoint_cost, startup, grace,
                       failures))


@functools.lru_cache(maxsize=4)  # a pool of 100,000 GPUs in gangs of 8: 12,500 ranks
def _ranks(pool: SharedPool, gang_size: int, count: int, headroom: int,
           checkpoint_cost: float, startup: float, grace: float, failures: float
           ) -> tuple[Rank, ...]:
    """:func:`ranks` of checked values, kept: the command's table of ranks and its
    one-pool design with no headroom are the same ranks."""
    gangs = _rank_gangs(pool, gang_size, count, headroom)
    lawful = _lawful(gangs)
    work = _work(pool, lawful, count)
    if work > MAX_RANKS_WORK:
        raise InputError(f"gangs: the exact up-time laws of {len(lawful):,} ranks of "
                         f"{count_text(gang_size, 'GPU')} take {work:.1e} steps, more than "
                         f"are computed at once ({MAX_RANKS_WORK:.1e}); fewer gangs or "
                         "larger ones can be answered")
    own = failures * gang_size  # a gang's failures per hour up
    # by k*: ranks that share it agree, and every gang never preempted has one answer
    keys = [_key(gang) for gang in gangs]
    first = {}
    for key, gang in zip(keys, gangs):
        first.setdefault(key, gang)
    searched = [key for key, gang in first.items()
                if gang.never_preempted or gang.up_share >= NEGLIGIBLE_UP]
    # each search's start, the exact optimum at λ_c + φ, for every k* at once (unused
    # where a gang is neither preempted nor failing, or a write takes no time)
    with np.errstate(divide="ignore", invalid="ignore"):
        starts = _exact_interval(np.array([first[key].preemption_rate for key in searched])
                                 + own, checkpoint_cost)
    best = dict.fromkeys(first, (None, 0.0))
    with _LAWS:
        up_time_laws(pool, lawful)  # at once: laws from the same level share their work
        for key, start in zip(searched, starts.tolist()):
            best[key] = _best_interval(pool, key, checkpoint_cost, startup, grace, own, start)
    return tuple(Rank(rank, gang, *best[key])
                 for rank, (gang, key) in enumerate(zip(gangs, keys), start=1))


#: Held while :func:`ranks` computes laws and intervals: one thread at a time.  They hold
#: the interpreter for most of their time, so two threads compute them no faster than
#: one, and two asking for the same ranks at once (the command's table of ranks beside
#: its one-pool design, whose ranks with no headroom are the same and whose ranks behind
#: a headroom of whole gangs are the same gangs) would each compute every law: the second
#: now waits and finds them kept.
_LAWS = threading.Lock()


@functools.lru_cache(maxsize=65_536)
def _best_interval(pool: SharedPool, key: int | None, checkpoint_cost, startup, grace,
                   failures, start) -> tuple[float, float]:
    """:func:`best_interval` of checked values for any gang of the :func:`_key` ``key``,
    kept: the command's table of ranks and its one-pool design ask for the same k*, the
    design's behind a headroom for gangs of other sizes (a size enters a gang's interval
    only through its k*; its failures, ``failures``, are the rank's own).  ``start``: the
    exact optimum at λ_c + φ, as :func:`_best` takes it."""
    star = pool.top if key is None else key  # None: never preempted, as at K
    gang = GangInPool(pool.gpus - star * pool.hp_gpus, star, *_up_at_most(pool, star))
    return _best(pool, gang, checkpoint_cost, startup, grace, failures, start)


def _key(gang: GangInPool) -> int | None:
    """What a rank's best interval depends on besides the settings: its k*, or nothing
    for a gang never preempted (only its failures end its spells)."""
    return None if gang.never_preempted else gang.star


def ranks_work(pool: SharedPool, gang_size, headroom=0) -> float:
    """The work :func:`ranks` does for the laws of a pool filled with gangs of N GPUs, in
    the units of :data:`MAX_RANKS_WORK`: the distinct laws' own
    (:func:`~spotmath.model.cluster.laws_work`), 6,000 for each one's search and 400 for
    each rank.

    Parameters
    ----------
    pool : SharedPool
    gang_size : int
        N, GPUs of each training gang.
    headroom : int, optional
        H, GPUs training leaves free (default 0).

    Returns
    -------
    float

    Raises
    ------
    InputError
        A gang larger than the pool, or a bad headroom.

    Examples
    --------
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> ranks_work(pool, 32) < MAX_RANKS_WORK
    True
    """
    gang_size = pool.gang_size(gang_size)
    (headroom,) = check_parameters(headroom=headroom)
    count = (pool.gpus - headroom) // gang_size
    return _work(pool, _lawful_stars(pool, gang_size, count, headroom), count)


@functools.lru_cache(maxsize=64)
def _rank_gangs(pool: SharedPool, gang_size: int, count: int, headroom: int
                ) -> tuple[GangInPool, ...]:
    """The gangs of ranks 1 … count: gang_in_pool of each, its checks done once (kept:
    the command's table of ranks and its one-pool design ask for the same)."""
    return tuple(GangInPool(size, pool.star(size), *_up_at_most(pool, pool.star(size)))
                 for size in range(gang_size + headroom, count * gang_size + headroom + 1,
                                   gang_size))


def _lawful(gangs: tuple[GangInPool, ...]) -> set[int]:
    """The distinct k* whose exact law the ranks need."""
    return {gang.star for gang in gangs if not gang.never_preempted
            and not _priced_at_the_rate(gang) and gang.up_share >= NEGLIGIBLE_UP}


def _lawful_stars(pool: SharedPool, gang_size: int, count: int, headroom: int) -> set[int]:
    """:func:`_lawful` of the ranks 1 … count without building every rank: the pool's
    arrays pick, at once, the k* within a factor 2 of each bound (a pool of 100,000 GPUs
    has tens of thousands of ranks of small gangs, and a few hundred such k*), and each
    of those is then judged as its gang would be."""
    if pool.hp_rate == 0 or count < 1:
        return set()
    sizes = gang_size * np.arange(1, count + 1) + headroom
    stars = np.unique(pool.star(sizes))
    stars = stars[stars < pool.top]
    with np.errstate(over="ignore", under="ignore"):
        rate = pool.hp_rate * np.exp(pool._log_erlang_b[stars])
        share = np.exp(pool._log_at_most[stars] - pool._log_total)
    near = (rate >= NEVER_RATE / 2) & (pool._passage_moments[0][stars]
                                       <= 2 * PRACTICALLY_NEVER_H) \
        & (share >= NEGLIGIBLE_UP / 2)
    return _lawful(tuple(GangInPool(pool.gpus - int(star) * pool.hp_gpus, int(star),
                                    *_up_at_most(pool, int(star)))
                         for star in stars[near]))


def _work(pool: SharedPool, stars: set[int], gangs: int) -> float:
    """The laws' work, 6,000 for each law's search and 400 for each rank."""
    return laws_work(pool, stars) + 6_000.0 * len(stars) + 400.0 * gangs


def waste_floor(pool: SharedPool, gang: GangInPool, startup=0.0) -> float:
    """The waste with free, instant checkpoints: the hours waiting and starting up.

    With writes that cost nothing every second of compute is kept, so what is lost is
    the wait for re-admission and each spell's start-up (a preemption during it loses
    it): 1 − ∫_a^∞ S(t) dt / (E[U] + W).  No interval does better; where this reaches
    the discount, the gang never pays on this pool.

    Parameters
    ----------
    pool, gang
        As for :func:`kept_share`.
    startup : float or str, optional
        a, hours from an admission to the first step (default 0).

    Returns
    -------
    float
        The least waste any checkpointing can reach, in [0, 1].

    Raises
    ------
    InputError
        A bad start-up.

    Examples
    --------
    >>> from spotmath.model.cluster import gang_in_pool
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> round(waste_floor(pool, gang_in_pool(pool, 16), "6min"), 3)
    0.111
    """
    (startup,) = check_parameters(scalar=True, restart_time=startup)
    if gang.never_preempted:
        return 0.0
    return 1.0 - kept_share(pool, gang, math.inf, _INSTANT, startup, 2 * _INSTANT)


#: A write this short (hours) stands for a free one: on notice, with no periodic write.
_INSTANT = 1e-12


def gang_limits(pool: SharedPool, checkpoint_cost, startup, grace, discount
                ) -> tuple[int, int | None]:
    """The largest gang that pays on this pool, and the smallest that never can.

    The pool's N·λ: a gang pays while its waste at its best interval
    (:func:`best_interval`) is below the discount, and never pays once even free
    checkpoints (:func:`waste_floor`) leave a waste of the discount.  Both depend on N
    only through k* = ⌊(G − N)/g⌋, and grow as k* falls, so each limit is a bisection
    over k*: the largest gang of the last k* that pays, the smallest of the first that
    never can.

    Parameters
    ----------
    pool : SharedPool
    checkpoint_cost, startup, grace : float or str
        As for :func:`best_interval`.
    discount : float
        The price of a preemptible hour below a guaranteed one, in (0, 1): the spot
        chapters' test.

    Returns
    -------
    tuple
        (largest gang that pays, GPUs, 0 when none does; smallest gang that never pays,
        or None when every gang that fits could).

    Raises
    ------
    InputError
        A bad value, or a write of 0 hours.

    Examples
    --------
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> gang_limits(pool, "1min", "6min", 0.0, 0.6)
    (32, 41)
    """
    from ..inputs import check_discount

    discount = check_discount("discount", discount, scalar=True)
    gpus, g = pool.gpus, pool.hp_gpus
    top = (gpus - 1) // g  # the largest k* a gang of one GPU can have

    def gang(star: int, largest: bool) -> GangInPool:
        return gang_in_pool(pool, gpus - g * star if largest else gpus - g * (star + 1) + 1)

    def pays(star: int) -> bool:
        return 1.0 - best_interval(pool, gang(star, True), checkpoint_cost, startup,
                                   grace)[1] < discount

    def never(star: int) -> bool:
        return waste_floor(pool, gang(star, False), startup) >= discount

    paying = _first(pays, top)  # the least k* that pays
    largest = 0 if paying is None else gpus - g * paying
    hopeless = _last(never, top)  # the largest k* that never pays
    smallest = None if hopeless is None else gpus - g * (hopeless + 1) + 1
    return largest, smallest


def _first(test, top: int) -> int | None:
    """The least k in 0 … top with test(k), for a test true from some k on."""
    if not test(top):
        return None
    low, high = -1, top  # test(high) holds; test(low) does not (or low is below 0)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if test(middle) else (middle, high)
    return high


def _last(test, top: int) -> int | None:
    """The largest k in 0 … top with test(k), for a test true up to some k."""
    if not test(0):
        return None
    low, high = 0, top + 1  # test(low) holds; test(high) does not (or high is above top)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if test(middle) else (low, middle)
    return low


@dataclass(frozen=True)
class LocalRateSchedule:
    """Young's interval at the gang's hazard of each age, and the compute it keeps.

    Attributes
    ----------
    ages : numpy.ndarray
        Hours from the admission at which each interval starts (the first after the
        start-up).
    intervals : numpy.ndarray
        Each interval, hours: √(2C/h(a)) at the up time's exact hazard h [local-rate-interval].
    kept_share : float
        Compute kept per hour, up or waiting (as :func:`kept_share`).
    """

    ages: np.ndarray
    intervals: np.ndarray
    kept_share: float


#: The schedule is followed write by write until the hazard changes by less than this
#: share from one write to the next; from there it is periodic and summed in closed form.
_SETTLED = 1e-7
#: The most writes followed one by one.
_MAX_STEPS = 20_000


def local_rate_schedule(pool: SharedPool, gang: GangInPool, checkpoint_cost, startup=0.0,
                        grace=0.0) -> LocalRateSchedule:
    """The age-dependent schedule of the exact-model chapter, at the pool's exact hazard.

    A new gang is admitted at k*, where the next arrival preempts it: its hazard starts
    at α and falls as the chain drifts down (:func:`~spotmath.model.cluster.up_time_hazard`).
    Each interval is Young's at the hazard of its starting age (Ling, Mi and Lin's local
    rate), so a young gang writes often and an old one seldom.  The kept compute is
    T_j for each write that ends by the kill, Σ_j T_j S(e_j − s) with e_j the end of the
    j-th write, followed write by write until the hazard settles, then summed as a
    periodic schedule.

    Parameters
    ----------
    pool, gang, checkpoint_cost, startup, grace
        As for :func:`kept_share`; the grace must be shorter than a write (with a notice
        every preemption is written and no schedule is needed).

    Returns
    -------
    LocalRateSchedule

    Raises
    ------
    InputError
        A bad value, a gang never preempted (nothing to schedule), a grace that fits a
        write, or a write of 0 hours.

    References
    ----------
    ``ling2001``.

    Examples
    --------
    >>> from spotmath.model.cluster import gang_in_pool
    >>> pool = SharedPool.checked(64, "2/h", "2h", 8)
    >>> schedule = local_rate_schedule(pool, gang_in_pool(pool, 16), "1min", "6min")
    >>> round(float(schedule.intervals[0]) * 60, 1), round(schedule.kept_share, 3)
    (9.0, 0.825)
    """
    checkpoint_cost, startup, grace = check_parameters(
        scalar=True, checkpoint_cost=checkpoint_cost, restart_time=startup, grace=grace)
    if gang.never_preempted:
        raise InputError("gang_size: a gang never preempted has no hazard to schedule by")
    if grace > 0 and grace >= checkpoint_cost:
        raise InputError("grace: a grace period that fits a write is a notice; write on "
                         "notice, with no schedule")
    if checkpoint_cost == 0:
        raise InputError("checkpoint_cost: a write of 0 hours has no schedule (write "
                         "continuously)")
    if _priced_at_the_rate(gang):  # its hazard is λ_c for all but its first hours
        interval = gang.interval(checkpoint_cost, grace)
        return LocalRateSchedule(np.array([startup]), np.array([interval]),
                                 kept_share(pool, gang, interval, checkpoint_cost, startup,
                                            grace))
    law = up_time_law(pool, gang.star)
    # each term of S at the current age, unnormalised: they sum to S(age)
    terms = law.weights * np.exp(-law.rates * startup)
    ages, intervals, kept, age, hazard = [], [], 0.0, startup, math.inf
    for _ in range(_MAX_STEPS):
        survival = terms.sum()
        if survival < 1e-15:
            break
        before, hazard = hazard, float(_weighted(terms, law.rates) / survival)
        interval = float(_generated.young_interval(hazard, checkpoint_cost))
        cycle = interval + checkpoint_cost
        ages.append(age)
        intervals.append(interval)
        if abs(hazard - before) <= _SETTLED * hazard:  # periodic from here on
            kept += interval * float(np.sum(terms * np.exp(-law.rates * (cycle - grace))
                                            / -np.expm1(-law.rates * cycle)))
            break
        kept += interval * float(_weighted(terms, np.exp(-law.rates * (cycle - grace))))
        terms = terms * np.exp(-law.rates * cycle)
        age += cycle
    if not ages:  # no spell outlives its start-up: nothing to schedule, nothing kept
        return LocalRateSchedule(np.array([startup]),
                                 np.array([gang.interval(checkpoint_cost, grace)]), 0.0)
    return LocalRateSchedule(np.array(ages), np.array(intervals),
                             float(kept / (gang.up_time_mean + gang.readmission_wait)))
