"""The ``model`` deadline policy: least expected cost under a fitted availability model.

Spot's availability is modelled as a two-state Markov chain on the trace's ticks: spot
stays available from one tick to the next with probability ``stay_up`` and stays away with
probability ``stay_down``.  Both are fitted to the history before the job starts
(:func:`fit_availability`): transitions counted, each probability with a Jeffreys prior
(half a count added to each outcome), so that a short or one-sided history still gives a
probability strictly between 0 and 1.

Given the model, :class:`ModelPolicy` solves the job's decision problem by backward
dynamic programming over (ticks left before the deadline, compute left, what the job is
on and how far into its changeover, spot available now), minimising the expected cost
with a missed deadline of infinite cost.  Compute is counted on a grid of
``tick / GRID`` hours, the changeover rounded to it, and the compute left rounded up; the
policy is then run by the exact rules of :mod:`spotmath.traces.deadlines` (its
simulator, with the Safety Net), so the grid shapes only its choices, never the costs or
the deadline reported.

Fitted probabilities are rounded to two significant digits of their distance from 1 (so
that starts with nearly the same history share one solved policy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

__all__ = ["GRID", "AvailabilityModel", "fit_availability", "markov_availability",
           "ModelPolicy", "model_policy"]

#: Grid steps per tick for the compute left.
GRID = 6
IDLE, SPOT, ON_DEMAND = 0, 1, 2


@dataclass(frozen=True)
class AvailabilityModel:
    """A two-state Markov chain of spot availability per tick."""

    stay_up: float
    stay_down: float
    transitions: int

    @property
    def mean_spell_ticks(self) -> float:
        """Mean length of a spell of spot, ticks: 1/(1 − stay_up)."""
        return 1 / (1 - self.stay_up)

    @property
    def mean_outage_ticks(self) -> float:
        """Mean length of a spell without spot, ticks: 1/(1 − stay_down)."""
        return 1 / (1 - self.stay_down)

    @property
    def available_share(self) -> float:
        """The long-run share of ticks with spot."""
        away, back = 1 - self.stay_up, 1 - self.stay_down
        return back / (away + back)


def _rounded(probability: float) -> float:
    """``probability`` with its distance from 1 rounded to two significant digits."""
    distance = 1 - probability
    digits = 1 - int(math.floor(math.log10(distance)))
    return 1 - round(distance, digits)


def fit_availability(history: np.ndarray) -> AvailabilityModel:
    """Fit the two-state chain to a history of ticks (True: spot available).

    Parameters
    ----------
    history : numpy.ndarray of bool
        Spot available in each tick before the start (may be empty).

    Returns
    -------
    AvailabilityModel
        ``stay_up = (n_up→up + ½)/(n_up→ + 1)`` and likewise ``stay_down``, each with its
        distance from 1 rounded to two significant digits.

    Examples
    --------
    >>> import numpy as np
    >>> model = fit_availability(np.array([1, 1, 1, 0, 0, 1, 1, 1], dtype=bool))
    >>> model.stay_up, model.stay_down, model.transitions
    (0.75, 0.5, 7)
    """
    history = np.asarray(history, dtype=bool)
    before, after = history[:-1], history[1:]
    up_up = int(np.count_nonzero(before & after))
    up = int(np.count_nonzero(before))
    down_down = int(np.count_nonzero(~before & ~after))
    down = before.size - up
    return AvailabilityModel(stay_up=_rounded((up_up + 0.5) / (up + 1)),
                             stay_down=_rounded((down_down + 0.5) / (down + 1)),
                             transitions=int(before.size))


def markov_availability(model: AvailabilityModel, ticks: int, seed: int,
                        first: bool = True) -> np.ndarray:
    """A synthetic history of ``ticks`` ticks drawn from ``model`` (True: spot).

    Parameters
    ----------
    model : AvailabilityModel
    ticks : int
        How many ticks.
    seed : int
        For NumPy's random generator.
    first : bool, optional
        Spot in the first tick (default True).

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> model = AvailabilityModel(stay_up=0.9, stay_down=0.5, transitions=0)
    >>> markov_availability(model, 8, seed=1).tolist()
    [True, False, False, True, True, True, True, True]
    """
    from ..inputs import check_gang_size, check_seed

    ticks = check_gang_size("ticks", ticks, what="a whole number of ticks")
    draws = np.random.default_rng(check_seed("seed", seed)).random(ticks)
    spot = np.empty(ticks, dtype=bool)
    spot[0] = first
    for i in range(1, ticks):
        stay = model.stay_up if spot[i - 1] else model.stay_down
        spot[i] = spot[i - 1] if draws[i] < stay else not spot[i - 1]
    return spot


@dataclass(frozen=True)
class ModelPolicy:
    """The solved decision problem: the action for every state.

    ``action[left, work, state, available]``: 0 idle, 1 spot, 2 on-demand, with ``left``
    ticks before the deadline, ``work`` grid steps of compute left, ``state`` the job's
    state (0 idle, then spot and on-demand each by ticks into the stint, capped where the
    changeover is over) and ``available`` 1 when the coming tick has spot.  Only states a
    job that starts idle with all its compute left can reach are solved (the others say
    on-demand).  ``expected_cost[left, work, available]`` is the least expected cost from
    an idle job, in ticks of on-demand (:meth:`expected` gives hours).
    """

    action: np.ndarray
    expected_cost: np.ndarray
    grid: float
    changeover_steps: int
    ages: int
    tick: float = 1.0

    def expected(self, left: int, work: int, available: bool) -> float:
        """The least expected cost, on-demand hours, from an idle job."""
        return float(self.expected_cost[left, work, int(available)]) * self.tick

    def state_of(self, kind: int, changeover: float, left_over: float, tick: float) -> int:
        """The DP's index for a job on ``kind`` with ``left_over`` hours of changeover."""
        if kind == IDLE:
            return 0
        age = self.ages if left_over <= 1e-9 else min(
            self.ages, int(round((changeover - left_over) / tick)))
        return 1 + (kind - 1) * (self.ages + 1) + age

    def choose(self, left: int, work_left: float, state: int, available: bool) -> int:
        """The action at a tick boundary (on-demand where the table has none)."""
        if left <= 0:
            return ON_DEMAND
        left = min(left, self.action.shape[0] - 1)
        work = min(math.ceil(work_left / self.grid - 1e-9), self.action.shape[1] - 1)
        if work <= 0:
            return ON_DEMAND
        return int(self.action[left, work, state, int(available)])


@lru_cache(maxsize=4)
def _solve(stay_up: float, stay_down: float, ticks: int, work_steps: int,
           changeover_steps: int, discount: float, second_billing: bool) -> ModelPolicy:
    """Backward induction in tick units (costs per tick of on-demand)."""
    per_tick = GRID
    ages = math.ceil(changeover_steps / per_tick)  # ticks until the changeover is over
    states = 1 + 2 * (ages + 1)
    kind = np.array([IDLE] + [SPOT] * (ages + 1) + [ON_DEMAND] * (ages + 1))
    age = np.array([0] + list(range(ages + 1)) * 2)
    price = np.array([0.0, 1 - discount, 1.0])
    # P(next tick has spot | this one has), for this tick without and with spot
    up = np.array([1 - stay_down, stay_up])
    work = np.arange(work_steps + 1)[:, None]
    moves = []  # per action: compute made, the state after, and the tick's price
    for act in (IDLE, SPOT, ON_DEMAND):
        if act == IDLE:
            moves.append((np.zeros(states, int), np.zeros(states, int), 0.0))
            continue
        tick_age = np.where(kind == act, age, 0)
        made = np.clip((tick_age + 1) * per_tick - changeover_steps, 0, per_tick)
        after = 1 + (act - 1) * (ages + 1) + np.minimum(tick_age + 1, ages)
        moves.append((made, after, float(price[act])))
    value = np.full((work_steps + 1, states, 2), math.inf)
    value[0] = 0.0
    action = np.full((ticks + 1, work_steps + 1, states, 2), ON_DEMAND, dtype=np.int8)
    expected = np.full((ticks + 1, work_steps + 1, 2), math.inf, dtype=np.float32)
    expected[:, 0] = 0.0
    for left in range(1, ticks + 1):
        # the compute left that a start with all of it can have with `left` ticks to go,
        # and that can still be done in them: the rest is unreachable or lost
        lo = max(1, work_steps - (ticks - left) * per_tick)
        hi = min(work_steps, left * per_tick)
        if lo > hi:
            continue
        work = np.arange(lo, hi + 1)[:, None]
        best = np.full((hi - lo + 1, states, 2), math.inf)
        choice = np.full(best.shape, ON_DEMAND, dtype=np.int8)
        for act, (made, after, cost) in enumerate(moves):
            rest = np.maximum(work - made[None, :], 0)               # (work, state)
            with_spot = value[rest, after[None, :], 1]
            lost = np.zeros_like(after) if act == SPOT else after   # preempted: idle
            without_spot = value[rest, lost[None, :], 0]
            going = np.empty(best.shape)
            for now in (0, 1):
                # an outcome of probability 0 adds nothing (0 · inf would be NaN)
                mixed = ((up[now] * with_spot if up[now] > 0 else 0.0)
                         + ((1 - up[now]) * without_spot if up[now] < 1 else 0.0))
                going[:, :, now] = np.where(rest == 0, 0.0, mixed)
            total = cost + going
            if act != IDLE:
                finished = work <= made[None, :]
                end = (cost * (per_tick - made[None, :] + work) / per_tick
                       if second_billing else np.full(finished.shape, cost))
                total = np.where(finished[:, :, None], end[:, :, None], total)
            if act == SPOT:
                total[:, :, 0] = math.inf                            # no spot this tick
            better = total < best - 1e-12
            best = np.where(better, total, best)
            choice = np.where(better, act, choice)
        value = np.full_like(value, math.inf)
        value[0] = 0.0
        value[lo:hi + 1] = best
        action[left, lo:hi + 1] = choice
        expected[left, lo:hi + 1] = best[:, 0, :]
    return ModelPolicy(action=action, expected_cost=expected, grid=1.0,
                       changeover_steps=changeover_steps, ages=ages, tick=1.0)


def model_policy(model: AvailabilityModel, tick: float, compute: float, deadline: float,
                 changeover: float, discount: float, billing: str = "tick") -> ModelPolicy:
    """The solved policy for a job under ``model`` (cached for equal inputs).

    Parameters
    ----------
    model : AvailabilityModel
    tick, compute, deadline, changeover : float
        Hours.
    discount : float
    billing : {'tick', 'second'}, optional

    Returns
    -------
    ModelPolicy
        With ``grid`` in hours (``tick / GRID``).
    """
    grid = tick / GRID
    ticks = math.floor(deadline / tick + 1e-9)
    work_steps = math.ceil(compute / grid - 1e-9)
    changeover_steps = int(round(changeover / grid))
    solved = _solve(model.stay_up, model.stay_down, ticks, work_steps, changeover_steps,
                    round(discount, 12), billing == "second")
    return ModelPolicy(action=solved.action, expected_cost=solved.expected_cost,
                       grid=grid, tick=tick, changeover_steps=changeover_steps,
                       ages=solved.ages)
