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

Real spells are not geometric, and spot follows the clock: :class:`SpellLaw` fits the
chance that a spell goes on by its age and by the hour (:func:`fit_spell_law`), and
:func:`spell_law_policy` solves the same programme with the spell's availability and age
as its availability states (:class:`_Chain`), each tick with the chances of its hour.
The deadline policies plan with it where the history holds enough spells
(:mod:`spotmath.traces.deadlines.policies`), or where other traces of the same days
(other zones of the cloud) lend their spells as a prior (:func:`others_prior`).

A long job on a fine trace would need a programme too large to hold (72 h of compute due
in 84 h on 32-second ticks: 65 billion values).  The programme is therefore sized by
:data:`MODEL_CELLS`: where the trace's tick would exceed it, the job is planned on a
*planning tick* of the fewest whole trace ticks that fit (:func:`planning_ticks`), with
the chain's probabilities of staying through one (:func:`coarsened`).  The policy still
chooses at every trace tick, from the row of the planning tick it is in, under the exact
rules: the planning tick shapes its choices, never the costs or the deadline reported.
Reading that row as if the planning tick had ended is cautious by up to one planning
tick, so a planning tick may take at most :data:`SLACK_SHARE` of a job's free slack, the
programme growing to fit (up to :data:`SLACK_CELLS` times its room).

In checkpoint mode (:class:`CheckpointModelPolicy`) the state also holds where a stint is
in its cycle of compute and write, so the programme knows what a preemption would take
back and when a switch must pay for a save; the grid is coarsened where that cycle is
long, so that a cycle takes at most :data:`PHASES` steps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np

from ...docs import fill_doc
from ...inputs import check_gang_size, check_seed
from .stints import IDLE, ON_DEMAND, SPOT

__all__ = ["GRID", "PHASES", "MODEL_CELLS", "SLACK_SHARE", "SLACK_CELLS", "SPELL_AGES",
           "CLOCK_HOURS", "DESIGN_ZONES", "PRIOR_DAYS",
           "AvailabilityModel", "planning_ticks", "coarsened", "fit_availability",
           "completed_spells", "markov_availability", "SpellLaw", "spell_ages",
           "clock_classes", "clock_count", "spell_counts", "others_prior", "fit_spell_law",
           "ModelPolicy", "model_policy",
           "spell_law_policy", "CheckpointModelPolicy", "checkpoint_model_policy",
           "checkpoint_spell_law_policy"]

#: Grid steps per tick for the compute left.
GRID = 6
#: In checkpoint mode, the most grid steps a cycle of compute and write may take (the
#: grid is coarsened below ``GRID`` steps a tick where the cycle is longer).
PHASES = 24
#: The most values (ticks × compute steps × states × spot now) one programme may hold.
#: A job whose programme would hold more on the trace's tick is planned on a coarser
#: *planning tick* of several trace ticks (:func:`planning_ticks`): 20 million values
#: keep a solve within about 0.2 GB and a few seconds on two cores.
MODEL_CELLS = 20_000_000
#: The share of a job's free slack (the time to the deadline less its compute and one
#: changeover) that one planning tick may take.  The policy reads its table at every
#: trace tick as if the rest of the planning tick had gone by, so a planning tick that
#: takes much of the free slack leaves a tight job none: it goes to on-demand at once.
#: Where :data:`MODEL_CELLS` would need a coarser tick than this, the programme may
#: hold up to :data:`SLACK_CELLS` times as many values instead.
SLACK_SHARE = 0.25
#: How many times :data:`MODEL_CELLS` a programme may hold to keep its planning tick
#: within :data:`SLACK_SHARE` of the free slack.
SLACK_CELLS = 4


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


def planning_ticks(cells: Callable[[int], int], finest: int | None = None) -> int:
    """The fewest trace ticks ``m`` in one planning tick whose programme holds at most
    :data:`MODEL_CELLS` values, ``cells(m)`` giving its size (which shrinks as ``m``
    grows); 1 where the trace's own tick fits.  Where that is more than ``finest``
    (the most trace ticks the job's slack allows a planning tick,
    :data:`SLACK_SHARE`), ``finest`` itself or the fewest that hold at most
    :data:`SLACK_CELLS` times as many values."""
    fewest = _fewest(cells, MODEL_CELLS)
    if finest is None or fewest <= finest:
        return fewest
    return max(finest, _fewest(cells, SLACK_CELLS * MODEL_CELLS))


def _slack_ticks(free: float, tick: float) -> int:
    """The most trace ticks of ``tick`` hours one planning tick may take of a job's free
    slack, ``free`` hours (the time to the deadline less the compute, its writes and one
    changeover): :data:`SLACK_SHARE` of it, at least one."""
    return max(1, math.floor(SLACK_SHARE * free / tick + 1e-9))


def _fewest(cells: Callable[[int], int], most: int) -> int:
    """The fewest ``m`` with ``cells(m) <= most`` (``cells`` falling as ``m`` grows)."""
    if cells(1) <= most:
        return 1
    low, high = 1, 2  # too large at low, fits at high
    while cells(high) > most:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if cells(middle) <= most else (middle, high)
    return high


def coarsened(model: AvailabilityModel, m: int) -> AvailabilityModel:
    """The chain on a planning tick of ``m`` trace ticks: spot stays through a planning
    tick when it stays through each of its ``m`` ticks (``stay_up**m``), and likewise
    for an outage (the same spells, counted in planning ticks)."""
    if m == 1:
        return model
    return AvailabilityModel(stay_up=_rounded(model.stay_up ** m),
                             stay_down=_rounded(model.stay_down ** m),
                             transitions=model.transitions)


def _rounded(probability: float) -> float:
    """``probability`` with its distance from 1 rounded to two significant digits."""
    distance = 1 - probability
    digits = 1 - int(math.floor(math.log10(distance)))
    return 1 - round(distance, digits)


def completed_spells(history: np.ndarray, available: bool = True) -> np.ndarray:
    """The lengths, in ticks, of the spells of spot (or, with ``available`` False, of the
    outages) that begin and end inside a history: the first and the last spell are cut by
    its ends, so they are left out.

    The two-state chain of :func:`fit_availability` gives its spells a geometric law with
    the same mean; these are the spells it is fitted to, to hold that law against.

    Parameters
    ----------
    history : numpy.ndarray of bool
        Spot available in each tick.
    available : bool, optional
        Spells of spot (default) or outages.

    Returns
    -------
    numpy.ndarray of int
        Each completed spell's length, in order (empty where there is none).

    Examples
    --------
    >>> import numpy as np
    >>> spot = np.array([1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1], dtype=bool)
    >>> completed_spells(spot).tolist(), completed_spells(spot, available=False).tolist()
    ([3, 1], [1, 2, 1])
    """
    history = np.asarray(history, dtype=bool)
    if history.size == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.concatenate(([0], np.flatnonzero(history[1:] != history[:-1]) + 1))
    lengths = np.diff(np.concatenate((starts, [history.size])))
    inside = slice(1, -1)  # the first and the last spell run past the history's ends
    return lengths[inside][history[starts][inside] == available].astype(np.int64)


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
    ticks = check_gang_size("ticks", ticks, what="a whole number of ticks")
    draws = np.random.default_rng(check_seed("seed", seed)).random(ticks)
    spot = np.empty(ticks, dtype=bool)
    spot[0] = first
    for i in range(1, ticks):
        stay = model.stay_up if spot[i - 1] else model.stay_down
        spot[i] = spot[i - 1] if draws[i] < stay else not spot[i - 1]
    return spot


#: The lower edges of the age bins of a spell of spot or of an outage, in planning ticks:
#: a :class:`SpellLaw` fits the chance that a spell goes on for each.
SPELL_AGES = (0, 1, 3, 9, 27)
#: How many ticks of a bin's own history outweigh the pooled chance of its availability
#: (the prior each bin's chance is drawn towards), in planning ticks.
SPELL_PRIOR_TICKS = 2
#: Hours of a class of the clock: a :class:`SpellLaw` fits its chances for each such
#: part of the day (apart for Saturdays and Sundays, UTC, where the trace dates its ticks).
CLOCK_HOURS = 3
#: How many ticks of a class's own history outweigh the chance of its bin over all
#: hours, in planning ticks.
CLOCK_PRIOR_TICKS = 6
#: Days of other traces' spells a fit takes as its prior at most (:func:`others_prior`):
#: their counts, scaled down to this many days of ticks where they hold more, are added
#: to the history's own.  Compared on the design zones at 1, 3 and 10 days.
PRIOR_DAYS = 3
#: The zones of ``book/data/traces/skynomad/`` on which the settings above (the age
#: bins, the hours of a class, the priors' weights and the other traces' days) were
#: compared; the deadlines chapter and ``benchmarks/bench_deadlines.py`` report the
#: other six as held out.
DESIGN_ZONES = ("us-east-1c", "us-east-2b", "us-west-2a")
#: The chances of a spell fitted per class of the clock are kept this far from 0 and 1,
#: so that every class's chain has the same outcomes.
LEAST_CHANCE = 1e-6


def clock_classes(hours: np.ndarray, dated: bool) -> np.ndarray:
    """The class of the clock of each time: its part of the day (:data:`CLOCK_HOURS`
    hours each) and, where the times are dates (UTC hours since 1970-01-01, a
    Thursday), whether the day is a Saturday or a Sunday.

    Examples
    --------
    >>> import numpy as np
    >>> clock_classes(np.array([0.5, 13.0, 24 * 2 + 1.0]), dated=True).tolist()
    [0, 4, 8]
    """
    hours = np.asarray(hours, dtype=float)
    per_day = 24 // CLOCK_HOURS
    part = np.floor(hours % 24 / CLOCK_HOURS).astype(np.int64) % per_day
    if not dated:
        return part
    weekday = (np.floor(hours / 24).astype(np.int64) + 3) % 7  # Monday 0
    return part + per_day * (weekday >= 5)


def clock_count(dated: bool) -> int:
    """How many classes :func:`clock_classes` has."""
    return (24 // CLOCK_HOURS) * (2 if dated else 1)


@dataclass(frozen=True)
class SpellLaw:
    """Spells of spot and outages whose chance of going on depends on their age, and on
    the time of day.

    The two-state chain gives every spell the same chance of ending at each tick,
    however long it has lasted: a geometric law.  Real spells are not so: most are
    short, and one that has lasted is likelier to go on (the zones of
    ``book/data/traces/skynomad/``); and spot follows demand, scarcer in working hours.
    Here the chance that a spell of spot (or an outage) goes on through the next
    planning tick is fitted for each bin of its age (:data:`SPELL_AGES`) and each class
    of the clock (:func:`clock_classes`): availability as a semi-Markov process with the
    spell's age as its state, whose chances change with the hour.

    Attributes
    ----------
    edges : tuple of int
        Lower edges of the age bins, planning ticks.
    stay : tuple
        ``stay[clock][available][bin]``: the chance that a spell (outage for 0, spot for
        1) of that age, in that class of the clock, goes on through one planning tick
        (one class where the model has no clock).
    """

    edges: tuple[int, ...]
    stay: tuple[tuple[tuple[float, ...], tuple[float, ...]], ...]

    def chain(self, clock: int = 0) -> _Chain:
        """The programme's availability states in a class of the clock: (available, age
        bin), with the bin's chance of going on; a spell that goes on moves to the next
        bin with chance one over the bin's width (its ages spent in the bin on average),
        one that ends starts the other kind at age 0."""
        bins = len(self.edges)
        widths = [b - a for a, b in zip(self.edges, self.edges[1:])] + [math.inf]
        moves = []
        for available in (0, 1):
            for b in range(bins):
                go_on = self.stay[clock][available][b]
                onward = 1 / widths[b] if b + 1 < bins else 0.0
                kept = [(available * bins + b + 1, go_on * onward),
                        (available * bins + b, go_on * (1 - onward))]
                ended = [((1 - available) * bins, 1 - go_on)]
                outcomes = kept + ended if available else ended + kept  # spot first
                moves.append(tuple((k, p) for k, p in outcomes if p > 0))
        return _Chain(tuple([False] * bins + [True] * bins), tuple(moves))


def spell_ages(history: np.ndarray) -> np.ndarray:
    """For each tick, how many ticks its spell (of spot or without) had lasted before it.

    Examples
    --------
    >>> import numpy as np
    >>> spell_ages(np.array([1, 1, 0, 0, 0, 1], dtype=bool)).tolist()
    [0, 1, 0, 1, 2, 0]
    """
    history = np.asarray(history, dtype=bool)
    index = np.arange(history.size)
    changes = np.concatenate(([True], history[1:] != history[:-1])) if history.size \
        else np.zeros(0, dtype=bool)
    return index - np.maximum.accumulate(np.where(changes, index, 0))


def spell_counts(history: np.ndarray, ticks: int = 1, edges: tuple[int, ...] = SPELL_AGES,
                 hours: np.ndarray | None = None, dated: bool = False
                 ) -> tuple[np.ndarray, np.ndarray]:
    """What :func:`fit_spell_law` counts in a history: for each class of the clock,
    availability and bin of the spell's age, the observations and how many of them went
    on through the next ``ticks`` ticks (arguments as :func:`fit_spell_law`'s).

    Examples
    --------
    >>> import numpy as np
    >>> observed, went_on = spell_counts(np.array([1, 1, 0, 0, 0, 1, 1], bool), 1, (0,))
    >>> observed[0, :, 0].tolist(), went_on[0, :, 0].tolist()  # [outage, spot]
    ([3.0, 1.0], [2.0, 1.0])
    """
    history = np.asarray(history, dtype=bool)
    bins = len(edges)
    classes = 1 if hours is None else clock_count(dated)
    observed = np.zeros((classes, 2, bins))
    went_on = np.zeros((classes, 2, bins))
    if history.size > ticks:
        ages = spell_ages(history)
        first = np.argmax(ages[1:] == 0) + 1 if (ages[1:] == 0).any() else history.size
        last_change = np.concatenate((np.flatnonzero(history[1:] != history[:-1]),
                                      [history.size - 1]))
        end = last_change[np.searchsorted(last_change, np.arange(history.size))]
        seen = np.arange(first, history.size - ticks)  # the next ticks are in the history
        now = history[seen].astype(int)
        age_bin = np.searchsorted(edges, ages[seen] // ticks, side="right") - 1
        clock = 0 if hours is None else clock_classes(np.asarray(hours)[seen], dated)
        np.add.at(observed, (clock, now, age_bin), 1.0)
        np.add.at(went_on, (clock, now, age_bin), (end[seen] - seen >= ticks).astype(float))
    return observed, went_on


def others_prior(others: Sequence[tuple[np.ndarray, np.ndarray | None]], ticks: int,
                 tick: float, edges: tuple[int, ...] = SPELL_AGES, clocked: bool = False,
                 dated: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
    """A prior for :func:`fit_spell_law` from other traces' histories: their
    :func:`spell_counts` summed, and scaled down to :data:`PRIOR_DAYS` days of planning
    ticks where they hold more.

    A zone whose own history is short (a start days into its trace) has few spells to
    fit; the other zones of the same cloud, over the same days, tell how spells of spot
    and outages there go on by age and hour.  Scaled so, they weigh at most as much as
    :data:`PRIOR_DAYS` days of the zone's own ticks: they settle a fit with little
    history and leave one of weeks to its own.

    Parameters
    ----------
    others : sequence of (history, hours)
        Each other trace's spot before the start, and the time of each of its ticks
        (used where ``clocked``).
    ticks : int
        Trace ticks in a planning tick.
    tick : float
        Hours of a trace tick.
    edges : tuple of int, optional
        The age bins (default :data:`SPELL_AGES`).
    clocked : bool, optional
        Whether the fit has classes of the clock (default False: one class).
    dated : bool, optional
        Whether the times are dates.

    Returns
    -------
    tuple of numpy.ndarray or None
        (observed, went on), as :func:`spell_counts`'s; None without other traces.

    Examples
    --------
    >>> import numpy as np
    >>> spot = np.array([1, 1, 0, 0, 0, 1] * 500, dtype=bool)
    >>> observed, went_on = others_prior([(spot, None), (spot, None)], 1, 1.0, (0,))
    >>> round(float(observed.sum()), 6) == PRIOR_DAYS * 24
    True
    """
    if not others:
        return None
    counts = [spell_counts(history, ticks, edges, hours if clocked else None, dated)
              for history, hours in others]
    observed = sum(count[0] for count in counts)
    went_on = sum(count[1] for count in counts)
    scale = min(1.0, PRIOR_DAYS * 24 / (ticks * tick) / max(float(observed.sum()), 1.0))
    return observed * scale, went_on * scale


def fit_spell_law(history: np.ndarray, ticks: int = 1, edges: tuple[int, ...] = SPELL_AGES,
                  hours: np.ndarray | None = None, dated: bool = False,
                  prior: tuple[np.ndarray, np.ndarray] | None = None) -> SpellLaw:
    """Fit a :class:`SpellLaw` on planning ticks of ``ticks`` trace ticks to a history.

    Every tick of the history whose next ``ticks`` ticks are in it is one observation:
    its spell's availability and age (in planning ticks, binned by ``edges``), its class
    of the clock, and whether the spell went on through those ticks
    (:func:`spell_counts`).  The first spell is left out (its age is not known).  A
    ``prior``'s counts are added to them.  Each bin's chance over all hours is drawn
    towards its availability's pooled chance (with a Jeffreys prior, as
    :func:`fit_availability`) by :data:`SPELL_PRIOR_TICKS` planning ticks of weight, and
    each class's towards its bin's by :data:`CLOCK_PRIOR_TICKS`, so that a bin or a class
    with little history keeps the chance above it; all are rounded as the chain's are.

    Parameters
    ----------
    history : numpy.ndarray of bool
        Spot available in each tick before the start (may be empty).
    ticks : int, optional
        Trace ticks in a planning tick (default 1).
    edges : tuple of int, optional
        Lower edges of the age bins, planning ticks (default :data:`SPELL_AGES`).
    hours : numpy.ndarray, optional
        The time of each tick of the history (:meth:`Availability.hours_of
        <spotmath.traces.deadlines.availability.Availability.hours_of>`); None: one class
        for all hours.
    dated : bool, optional
        Whether ``hours`` are dates (UTC hours since 1970-01-01), which tell weekends.
    prior : tuple of numpy.ndarray, optional
        Counts to add to the history's, shaped as :func:`spell_counts`'s (e.g.
        :func:`others_prior`); default none.

    Returns
    -------
    SpellLaw

    Examples
    --------
    >>> import numpy as np
    >>> spot = np.array([1, 0] * 20 + [1] * 10 + [0] * 10, dtype=bool)
    >>> model = fit_spell_law(spot, edges=(0, 1))
    >>> model.stay[0][1][0] < 0.2 < 0.7 < model.stay[0][1][1]
    True
    """
    observed, went_on = spell_counts(history, ticks, edges, hours, dated)
    if prior is not None:
        observed, went_on = observed + prior[0], went_on + prior[1]
    pooled = (went_on.sum(axis=(0, 2)) + 0.5) / (observed.sum(axis=(0, 2)) + 1)
    weight = SPELL_PRIOR_TICKS * ticks
    by_bin = (went_on.sum(axis=0) + weight * pooled[:, None]) / (observed.sum(axis=0) + weight)
    if hours is None:
        stay = by_bin[None]
    else:
        weight = CLOCK_PRIOR_TICKS * ticks
        stay = (went_on + weight * by_bin[None]) / (observed + weight)
    return SpellLaw(tuple(edges), tuple(
        tuple(tuple(_chance(float(p), hours is not None) for p in row) for row in clock)
        for clock in stay))


def _chance(probability: float, inside: bool) -> float:
    """A fitted chance, rounded as the chain's are (:func:`_rounded`), and kept
    :data:`LEAST_CHANCE` from 0 and 1 where ``inside``."""
    rounded = _rounded(probability)
    return min(max(rounded, LEAST_CHANCE), 1 - LEAST_CHANCE) if inside else rounded


class _Solved:
    """Reading a solved policy's tables (``action``, ``expected_cost``, ``grid``,
    ``tick`` and ``edges`` are the dataclass's fields; ``edges`` are the lower edges of
    the spell's age bins the programme follows, in planning ticks: (0,) for the
    two-state chain, whose spells have no age that matters)."""

    def availability(self, available: bool, age: float = 0.0) -> int:
        """The programme's availability state: spot or not, and the bin of the spell's
        age (planning ticks it has lasted before this one)."""
        bins = len(self.edges)
        return int(available) * bins + int(np.searchsorted(self.edges, age,
                                                            side="right")) - 1

    def expected(self, left: int, work: int, available: bool, age: float = 0.0) -> float:
        """The least expected cost, on-demand hours, from an idle job."""
        return float(self.expected_cost[left, work, self.availability(available, age)]) \
            * self.tick

    def choose(self, left: int, work_left: float, state: int, available: bool,
               age: float = 0.0) -> int:
        """The action at a tick boundary (on-demand where the table has none)."""
        if left <= 0:
            return ON_DEMAND
        left = min(left, self.action.shape[0] - 1)
        work = min(math.ceil(work_left / self.grid - 1e-9), self.action.shape[1] - 1)
        if work <= 0:
            return ON_DEMAND
        return int(self.action[left, work, self.availability(available, age), state])


@dataclass(frozen=True)
class ModelPolicy(_Solved):
    """The solved decision problem: the action for every state.

    ``action[left, work, available, state]``: 0 idle, 1 spot, 2 on-demand, with ``left``
    ticks before the deadline, ``work`` grid steps of compute left, ``available`` 1 when
    the coming tick has spot and ``state`` the job's state (0 idle, then spot and
    on-demand each by ticks into the stint, capped where the changeover is over).  Only
    states a job that starts idle with all its compute left can reach are solved (the
    others say on-demand).  ``expected_cost[left, work, available]`` is the least
    expected cost from an idle job, in ticks of on-demand (:meth:`expected` gives hours).
    """

    action: np.ndarray
    expected_cost: np.ndarray
    grid: float
    changeover_steps: int
    ages: int
    tick: float = 1.0
    edges: tuple[int, ...] = (0,)

    def state_of(self, kind: int, changeover: float, left_over: float, tick: float) -> int:
        """The DP's index for a job on ``kind`` with ``left_over`` hours of changeover."""
        if kind == IDLE:
            return 0
        age = self.ages if left_over <= 1e-9 else min(
            self.ages, int(round((changeover - left_over) / tick)))
        return 1 + (kind - 1) * (self.ages + 1) + age



@dataclass(frozen=True)
class _Chain:
    """The availability states a programme follows, and how one tick moves between them.

    ``spot[j]`` says whether state j has spot; ``moves[j]`` lists the states a tick can
    lead to from j with their chances, those with spot first.  The two-state chain has
    state 0 (no spot) and 1 (spot); the chain of spells (:class:`SpellLaw`) has one
    state for each availability and age of the spell (:meth:`SpellLaw.chain`).
    """

    spot: tuple[bool, ...]
    moves: tuple[tuple[tuple[int, float], ...], ...]

    @classmethod
    def two_state(cls, stay_up: float, stay_down: float) -> _Chain:
        """The two-state chain: spot stays with ``stay_up``, an outage with ``stay_down``."""
        up = (1 - stay_down, stay_up)  # spot next, from no spot and from spot now
        return cls((False, True), tuple(((1, p), (0, 1 - p)) for p in up))

    def outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """(next state, chance) as (states, outcomes) arrays, padded with chance 0."""
        width = max(len(move) for move in self.moves)
        following = np.zeros((len(self.moves), width), dtype=np.int64)
        chance = np.zeros((len(self.moves), width))
        for j, move in enumerate(self.moves):
            for o, (k, p) in enumerate(move):
                following[j, o], chance[j, o] = k, p
        return following, chance


class _ActionTick:
    """One action's tick, for every compute left and each distinct stint the action
    leads to (a *column*; ``of`` gives each state's): where each outcome of the next
    tick leads in the value array one tick later (flat indices into it: to the
    ``spotted`` work and state where the next availability state has spot, to the
    ``gone`` ones where it has none), their chances from each availability state now,
    and what the tick costs.

    Laid out as (compute left, availability now, column), so that the expected cost of a
    band of compute left is a few operations along whole arrays, spread to every state at
    the end.  An outcome of chance 0 adds nothing (0 · inf would be NaN): it reads
    ``value[0]``, which is 0, with no compute left.
    """

    def __init__(self, act: int, chain: _Chain, spotted: tuple[np.ndarray, np.ndarray],
                 gone: tuple[np.ndarray, np.ndarray], states: int, of: np.ndarray,
                 price: float, finished: np.ndarray | None = None,
                 end: np.ndarray | None = None, extra: np.ndarray | None = None) -> None:
        following, chance = chain.outcomes()
        count = len(chain.spot)
        rows, columns = np.broadcast_shapes(*(part.shape for part in spotted + gone))
        shape = (rows, count, columns)
        has_spot = np.array(chain.spot)
        leads = []
        for o in range(following.shape[1]):
            nxt = following[:, o][None, :, None]  # (1, availability now, 1)
            work = np.where(has_spot[nxt], spotted[0][:, None, :], gone[0][:, None, :])
            state = np.where(has_spot[nxt], spotted[1][:, None, :], gone[1][:, None, :])
            at = (work * count + nxt) * states + state
            possible = chance[:, o][None, :, None] > 0
            leads.append(np.broadcast_to(np.where(possible, at, 0), shape).copy())
        self.leads = tuple(leads)
        self.no_spot = np.flatnonzero(~has_spot)
        self.act, self.of, self.price = act, of, price
        # where the compute is done within the tick, what the tick costs instead
        self.finished = self.end = self.extra = None
        if finished is not None:
            self.finished = np.broadcast_to(finished[:, None, :], shape).copy()
            self.end = np.broadcast_to(end[:, None, :], shape).copy()
        if extra is not None:
            self.extra = np.broadcast_to(extra, (rows, count, extra.size)).copy()

    def totals(self, flat: np.ndarray, band: slice, chances: tuple[np.ndarray, ...]
               ) -> np.ndarray:
        """The expected cost from now of every (compute left in ``band``, availability
        now, state), given ``flat``, the value array one tick later, flattened, and the
        outcomes' ``chances`` this tick (:func:`_chances`); then ``extra``, what leaving
        each state costs, where there is one."""
        total = flat.take(self.leads[0][band])
        total *= chances[0]
        for lead, chance in zip(self.leads[1:], chances[1:]):
            other = flat.take(lead[band])
            other *= chance
            total += other
        total += self.price
        if self.finished is not None:
            np.copyto(total, self.end[band], where=self.finished[band])
        if self.act == SPOT:
            total[:, self.no_spot, :] = math.inf  # no spot this tick
        total = total.take(self.of, axis=2)  # every state
        if self.extra is not None:
            total += self.extra[band]
        return total


def _chances(chain: _Chain) -> tuple[np.ndarray, ...]:
    """Each outcome's chance from each availability state, as (1, states, 1) arrays to
    multiply a tick's (compute left, availability now, column) values by."""
    return tuple(column[None, :, None] for column in chain.outcomes()[1].T)


def _totals(actions: list[_ActionTick], chains: tuple[_Chain, ...],
            stages: tuple[int, ...] | None
            ) -> Callable[[int, int, int, np.ndarray], Iterator[tuple[int, np.ndarray]]]:
    """``totals(left, lo, hi, value)`` for :func:`_induction`: each action's
    :meth:`_ActionTick.totals`, in order, with the chances of the chain the tick
    ``left`` ticks before the deadline follows (``chains[stages[left]]``; the first,
    where ``stages`` is None).  Every chain has the outcomes of the first, with chances
    strictly between 0 and 1 where there is more than one."""
    chances = [_chances(chain) for chain in chains]

    def totals(left, lo, hi, value):
        # with no compute left the next tick reads value[0], which is 0: nothing to pay
        flat, band = value.ravel(), slice(lo, hi + 1)
        now = chances[0 if stages is None else stages[left]]
        for action in actions:
            yield action.act, action.totals(flat, band, now)
    return totals


def _band(left: int, ticks: int, work_steps: int, per_tick: int,
          least: int | None = None) -> tuple[int, int]:
    """The compute left, in grid steps, that a start with all of it (or with any of
    ``least`` … ``work_steps``) can have with ``left`` ticks to go (a rollback only adds
    to it) and that can still be done in them; the rest is unreachable or lost.  Empty
    for every ``left`` or for none."""
    least = work_steps if least is None else least
    return max(1, least - (ticks - left) * per_tick), min(work_steps, left * per_tick)


def _induction(ticks: int, work_steps: int, states: int, per_tick: int,
               totals: Callable[[int, int, int, np.ndarray],
                                Iterator[tuple[int, np.ndarray]]],
               availabilities: int = 2, least: int | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """Backward induction over the ticks left, the one loop of both programmes.

    ``totals(left, lo, hi, value)`` yields each action with its expected cost from now
    (``left`` ticks before the deadline), an array
    (compute left, availability now, state) over the compute left ``lo … hi`` (grid
    steps, the band :func:`_band`), given ``value``, the least expected cost of every
    (compute left, availability now, state) one tick later (C-ordered; the states last,
    so that each array operation runs along them); ``availabilities`` is the chain's
    number of availability states; ``least``, the least compute a start may have (grid
    steps; default ``work_steps``).  The least is kept, a tie going to the action yielded
    first.  Returns the action and the expected cost from an idle job for every (ticks
    left, compute left, ...): on-demand and infinity outside the band.
    """
    shape = (work_steps + 1, availabilities, states)
    value, earlier = np.full(shape, math.inf), np.full(shape, math.inf)
    value[0] = earlier[0] = 0.0  # none left: nothing more to pay
    shifted, better = np.empty(shape), np.empty(shape, dtype=bool)
    action = np.full((ticks + 1, work_steps + 1, availabilities, states), ON_DEMAND,
                     dtype=np.int8)
    expected = np.full((ticks + 1, work_steps + 1, availabilities), math.inf,
                       dtype=np.float32)
    expected[:, 0] = 0.0
    # the band each of the two arrays holds finite values in (outside it: infinity)
    value_band = earlier_band = (1, 0)
    for left in range(1, ticks + 1):
        lo, hi = _band(left, ticks, work_steps, per_tick, least)
        if lo > hi:
            continue
        # one tick earlier: the band's least costs, infinity elsewhere
        best, choice = earlier[lo:hi + 1], action[left, lo:hi + 1]
        tolerance, improves = shifted[:hi - lo + 1], better[:hi - lo + 1]
        for n, (act, total) in enumerate(totals(left, lo, hi, value)):
            if n == 0:  # against infinity: every finite total improves
                np.copyto(best, total)
                np.less(total, math.inf, out=improves)
            else:
                np.subtract(best, 1e-12, out=tolerance)
                np.less(total, tolerance, out=improves)
                np.putmask(best, improves, total)  # (copyto's where= is slower)
            np.putmask(choice, improves, act)
        # infinity where the band two ticks ago held values and this one holds none
        stale_lo, stale_hi = earlier_band
        earlier[stale_lo:min(stale_hi + 1, lo)] = math.inf
        earlier[max(stale_lo, hi + 1):stale_hi + 1] = math.inf
        expected[left, lo:hi + 1] = best[:, :, 0]
        value, earlier = earlier, value
        value_band, earlier_band = (lo, hi), value_band
    return action, expected


@lru_cache(maxsize=4)
def _solve(chains: tuple[_Chain, ...], stages: tuple[int, ...] | None, ticks: int,
           work_steps: int, changeover_steps: int, discount: float, second_billing: bool,
           least: int | None = None) -> ModelPolicy:
    """Backward induction in tick units (costs per tick of on-demand), the tick ``left``
    ticks before the deadline following ``chains[stages[left]]`` (:func:`_totals`), for
    starts with ``least`` … ``work_steps`` grid steps of compute (default: all of it)."""
    chain = chains[0]
    per_tick = GRID
    ages = math.ceil(changeover_steps / per_tick)  # ticks until the changeover is over
    states = 1 + 2 * (ages + 1)
    kind = np.array([IDLE] + [SPOT] * (ages + 1) + [ON_DEMAND] * (ages + 1))
    age = np.array([0] + list(range(ages + 1)) * 2)
    price = np.array([0.0, 1 - discount, 1.0])
    moves = []  # per action: compute made, the state after, and the tick's price
    for act in (IDLE, SPOT, ON_DEMAND):
        if act == IDLE:
            moves.append((np.zeros(states, int), np.zeros(states, int), 0.0))
            continue
        tick_age = np.where(kind == act, age, 0)
        made = np.clip((tick_age + 1) * per_tick - changeover_steps, 0, per_tick)
        after = 1 + (act - 1) * (ages + 1) + np.minimum(tick_age + 1, ages)
        moves.append((made, after, float(price[act])))

    # what does not change from tick to tick, for every compute left (work, state):
    # where in the value array (flat) each outcome of the next tick leads, whether the
    # compute is done, and the cost of finishing within the tick.  An action treats
    # many states alike (idling from any state; a stint of the other kind restarts):
    # each is worked out for its distinct states only and spread to the rest.
    work = np.arange(work_steps + 1)[:, None]
    actions = []
    for act, (made, after, cost) in enumerate(moves):
        _, first, spread = np.unique(np.stack([made, after], axis=1), axis=0,
                                     return_index=True, return_inverse=True)
        made, after = made[first], after[first]
        rest = np.maximum(work - made[None, :], 0)
        lost = np.zeros_like(after) if act == SPOT else after   # preempted: idle
        finished = end = None
        if second_billing and act != IDLE:  # the last tick, billed in part
            finished = work <= made[None, :]
            end = cost * (per_tick - made[None, :] + work) / per_tick
        actions.append(_ActionTick(act, chain, (rest, after[None, :]), (rest, lost[None, :]),
                                   states, spread.ravel(), cost, finished, end))

    action, expected = _induction(ticks, work_steps, states, per_tick,
                                  _totals(actions, chains, stages), len(chain.spot), least)
    return ModelPolicy(action=action, expected_cost=expected, grid=1.0,
                       changeover_steps=changeover_steps, ages=ages, tick=1.0)


def _on_grid(tick: float, grid: float, compute: float, deadline: float, changeover: float
             ) -> tuple[int, int, int]:
    """The job in a programme's units: whole ticks to the deadline, and the compute (rounded
    up) and the changeover in grid steps."""
    return (math.floor(deadline / tick + 1e-9), math.ceil(compute / grid - 1e-9),
            int(round(changeover / grid)))


def _plain_policy(tick: float, compute: float, deadline: float, changeover: float,
                  discount: float, billing: str, chains: Callable[[int, int], tuple],
                  availabilities: int, edges: tuple[int, ...],
                  least: float | None = None) -> ModelPolicy:
    """:func:`model_policy` and :func:`spell_law_policy`: the planning tick of ``m``
    trace ticks for a programme of ``availabilities`` states (:func:`planning_ticks`),
    and ``chains(m, ticks)``, the chains its ticks follow and their classes (as
    :func:`_checkpoint_policy` in checkpoint mode); ``least``, the least compute, hours,
    a start it serves may have (default ``compute``)."""
    def size(m: int) -> tuple[int, int, int]:
        return _on_grid(m * tick, m * tick / GRID, compute, deadline, changeover)

    def cells(m: int) -> int:
        ticks, work_steps, changeover_steps = size(m)
        return (ticks + 1) * (work_steps + 1) * (3 + 2 * math.ceil(
            changeover_steps / GRID)) * availabilities

    m = planning_ticks(cells, _slack_ticks(deadline - compute - changeover, tick))
    ticks, work_steps, changeover_steps = size(m)
    followed, stages = chains(m, ticks)
    fewest = None if least is None else _on_grid(m * tick, m * tick / GRID, least,
                                                 deadline, changeover)[1]
    solved = _solve(followed, stages, ticks, work_steps, changeover_steps,
                    round(discount, 12), billing == "second", fewest)
    return ModelPolicy(action=solved.action, expected_cost=solved.expected_cost,
                       grid=m * tick / GRID, tick=m * tick,
                       changeover_steps=changeover_steps, ages=solved.ages, edges=edges)


@fill_doc
def model_policy(model: AvailabilityModel, tick: float, compute: float, deadline: float,
                 changeover: float, discount: float, billing: str = "tick",
                 least: float | None = None) -> ModelPolicy:
    """The solved policy for a job under ``model`` (cached for equal inputs).

    Parameters
    ----------
    model : AvailabilityModel
        [[availability_model]]
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
    least : float, optional
        The least compute, hours, of the jobs the table serves (default ``compute``):
        one programme answers every job from ``least`` to ``compute`` due at the same
        time (a job with less compute is a state the larger one may reach).

    Returns
    -------
    ModelPolicy
        With ``tick`` the planning tick, hours: the trace's tick, or a whole number of
        them where the programme on the trace's tick would hold more than
        :data:`MODEL_CELLS` values (:func:`planning_ticks`; the chain is then
        :func:`coarsened`); ``grid`` in hours (``tick / GRID``).  The policy chooses at
        every trace tick all the same, from the table of the planning tick it is in.
    """
    return _plain_policy(tick, compute, deadline, changeover, discount, billing,
                         partial(_two_state_chains, model), 2, (0,), least)


def _two_state_chains(model: AvailabilityModel, m: int, ticks: int
                      ) -> tuple[tuple[_Chain, ...], None]:
    """The one chain every tick of a programme on planning ticks of ``m`` trace ticks
    follows under ``model`` (:func:`coarsened` to them)."""
    coarse = coarsened(model, m)
    return (_Chain.two_state(coarse.stay_up, coarse.stay_down),), None


def _spell_chains(history: np.ndarray, m: int, plan_tick: float, ticks: int,
                  deadline: float, hours: np.ndarray | None, start: float | None,
                  dated: bool, others: Sequence[tuple[np.ndarray, np.ndarray | None]] = ()
                  ) -> tuple[tuple[_Chain, ...], tuple[int, ...] | None]:
    """The chains of a :class:`SpellLaw` fitted to ``history`` on planning ticks of ``m``
    trace ticks (with the prior of ``others``, :func:`others_prior`), one a class of the
    clock, and the class each tick ``left`` ticks before the deadline follows: that of its
    time, ``start + deadline − left · plan_tick`` (None without a clock)."""
    prior = others_prior(others, m, plan_tick / m, SPELL_AGES, hours is not None, dated)
    spells = fit_spell_law(history, m, SPELL_AGES, hours, dated, prior)
    if hours is None:
        return (spells.chain(),), None
    times = start + deadline - np.arange(ticks + 1) * plan_tick
    return (tuple(spells.chain(c) for c in range(len(spells.stay))),
            tuple(int(c) for c in clock_classes(times, dated)))


@fill_doc
def spell_law_policy(history: np.ndarray, tick: float, compute: float, deadline: float,
                     changeover: float, discount: float, billing: str = "tick",
                     hours: np.ndarray | None = None, start: float | None = None,
                     dated: bool = False, least: float | None = None,
                     others: Sequence[tuple[np.ndarray, np.ndarray | None]] = ()
                     ) -> ModelPolicy:
    """The solved policy for a job under a :class:`SpellLaw` fitted to ``history``.

    As :func:`model_policy`, with the spell's age among the programme's states and, with
    a clock, chances that change with the hour: the planning tick is chosen for a
    programme with ``2 len(SPELL_AGES)`` availability states, the model is fitted on it
    (:func:`fit_spell_law`), each tick of the programme follows its class of the clock, and
    :meth:`ModelPolicy.choose` takes the age of the spell in planning ticks.

    Parameters
    ----------
    history : numpy.ndarray of bool
        Spot available in each tick before the start.
    tick, compute, deadline, changeover, discount, billing
        The job, as for :func:`model_policy`.
    hours : numpy.ndarray, optional
        The time of each tick of the history (None: no clock).
    start : float, optional
        The start's time, on the same clock (needed with ``hours``).
    dated : bool, optional
        Whether the times are dates, UTC hours since 1970-01-01.
    least : float, optional
        As for :func:`model_policy`.
    others : sequence of (history, hours), optional
        Other traces' spot before the start and the time of each tick, whose spells are
        the fit's prior (:func:`others_prior`; default none).

    Returns
    -------
    ModelPolicy
        With ``edges`` the age bins.
    """
    def chains(m: int, ticks: int) -> tuple:
        return _spell_chains(history, m, m * tick, ticks, deadline, hours, start, dated,
                             others)

    return _plain_policy(tick, compute, deadline, changeover, discount, billing, chains,
                         2 * len(SPELL_AGES), SPELL_AGES, least)


# --------------------------------------------------------------------- checkpoint mode

@dataclass(frozen=True)
class CheckpointModelPolicy(_Solved):
    """The solved decision problem in checkpoint mode: the action for every state.

    On a grid of ``grid`` hours (``tick / GRID`` or coarser, see
    :func:`checkpoint_model_policy`), with ``changeover``, ``interval`` and ``write``
    rounded to it (``saved_dead`` is max(changeover, write), the dead time after a switch
    that saved), a stint's state is its dead time left or, once that is over, its
    *phase*: the compute since its last completed write (0 … interval − 1 steps), then
    the write under way (interval … interval + write − 1).  ``action[left, work, available,
    state]`` as :class:`ModelPolicy`'s, with ``state`` 0 idle, then for spot and for
    on-demand each dead time left (1 … ``saved_dead``) and each phase.
    ``expected_cost[left, work, available]`` is the least expected cost from an idle job
    with everything written, in ticks of on-demand.
    """

    action: np.ndarray
    expected_cost: np.ndarray
    grid: float
    interval_steps: int
    write_steps: int
    saved_dead: int
    tick: float = 1.0
    edges: tuple[int, ...] = (0,)

    def state_of(self, kind: int, left_over: float, since: float, writing: float) -> int:
        """The DP's index for a job on ``kind`` with ``left_over`` hours of dead time,
        ``since`` hours of compute since its last write and ``writing`` hours of a write
        still to go (the simulator's own state, rounded to the grid)."""
        if kind == IDLE:
            return 0
        base = 1 + (kind - 1) * (self.saved_dead + self.interval_steps + self.write_steps)
        dead = int(round(left_over / self.grid))
        if dead > 0:
            return base + min(dead, self.saved_dead) - 1
        if writing > 1e-9 and self.write_steps:
            done = self.write_steps - int(round(writing / self.grid))
            phase = self.interval_steps + min(max(done, 0), self.write_steps - 1)
        else:
            phase = min(int(round(since / self.grid)), self.interval_steps - 1)
        return base + self.saved_dead + phase



def _stint_states(dead: int, saved_dead: int, interval: int, write: int
                  ) -> tuple[list[tuple[int, int, int]], np.ndarray]:
    """Every state as (kind, dead left, phase), and each one's compute not yet written."""
    states = [(IDLE, 0, 0)]
    for kind in (SPOT, ON_DEMAND):
        states += [(kind, left, 0) for left in range(1, saved_dead + 1)]
        states += [(kind, 0, phase) for phase in range(interval + write)]
    unsaved = np.array([min(phase, interval) for _, _, phase in states])
    return states, unsaved


def _tick_of_work(states, interval: int, write: int, per_tick: int
                  ) -> tuple[np.ndarray, ...]:
    """What a whole tick on an instance does from each state: the compute made, the state
    after it, and the step of the tick at which each compute step ends (for finishing)."""
    index = {state: i for i, state in enumerate(states)}
    made = np.zeros(len(states), dtype=int)
    after = np.zeros(len(states), dtype=int)
    ends = np.full((len(states), per_tick), per_tick, dtype=int)
    for i, (kind, dead, phase) in enumerate(states):
        if kind == IDLE:
            continue
        for step in range(per_tick):
            if dead:
                dead -= 1
            elif phase < interval:
                ends[i, made[i]] = step + 1
                made[i] += 1
                phase += 1
                if phase == interval and not write:
                    phase = 0
            else:
                phase = 0 if phase + 1 == interval + write else phase + 1
        after[i] = index[(kind, dead, phase)]
    return made, after, ends


@lru_cache(maxsize=4)
def _solve_checkpointed(chains: tuple[_Chain, ...], stages: tuple[int, ...] | None,
                        ticks: int, per_tick: int,
                        work_steps: int, dead: int, interval: int, write: int,
                        discount: float, second_billing: bool) -> CheckpointModelPolicy:
    """Backward induction in tick units (costs per tick of on-demand), checkpoint mode."""
    chain = chains[0]
    saved_dead = max(dead, write)
    states, unsaved = _stint_states(dead, saved_dead, interval, write)
    count = len(states)
    kind = np.array([state[0] for state in states])
    made, after, ends = _tick_of_work(states, interval, write, per_tick)
    index = {state: i for i, state in enumerate(states)}
    price = np.array([0.0, 1 - discount, 1.0])
    save = price[kind] * write / per_tick * (unsaved > 0)   # leaving a stint: its save
    moves = []  # per action: the stint's start state, and the cost of getting there
    for act in (IDLE, SPOT, ON_DEMAND):
        start = np.zeros(count, dtype=int)
        extra = np.zeros(count)
        for i, (now, _, _) in enumerate(states):
            if act == IDLE:
                extra[i] = save[i]
            elif now == act:
                start[i] = i
            elif now == IDLE:
                start[i] = index[(act, dead, 0)]
            else:
                saved = unsaved[i] > 0
                start[i] = index[(act, saved_dead if saved else dead, 0)]
                extra[i] = save[i]
        moves.append((start, extra))

    # what does not change from tick to tick, for every compute left (work, start):
    # where in the value array (flat) each outcome of the next tick leads, whether the
    # compute is done, and the cost of finishing within the tick
    work = np.arange(work_steps + 1)[:, None]
    actions = []
    for act, (start, extra) in enumerate(moves):
        # the same stint start serves many states: solve each start once
        starts, of = np.unique(start, return_inverse=True)
        finished = end = None
        if act == IDLE:  # everything saved, the same work left, idle next tick
            idle = np.zeros((1, 1), dtype=np.int64)
            spotted, gone, price_now = (work, idle), (work, idle), 0.0
        else:
            done = made[starts][None, :]
            rest = np.maximum(work - done, 0)
            stays = after[starts][None, :]
            spotted = (rest, stays)
            if act == SPOT:  # taken at the boundary: back to the last write, idle
                gone = (np.minimum(rest + unsaved[stays], work_steps), np.zeros_like(stays))
            else:
                gone = (rest, stays)
            price_now = price[act]
            finished = work <= done
            if second_billing:  # billed to the step at which the last compute ends
                step = ends[starts][np.arange(starts.size)[None, :],
                                    np.clip(work - 1, 0, per_tick - 1)]
                end = price_now * step / per_tick
            else:
                end = np.full(finished.shape, price_now)
        actions.append(_ActionTick(act, chain, spotted, gone, count, of.ravel(), price_now,
                                   finished, end, extra))

    action, expected = _induction(ticks, work_steps, count, per_tick,
                                  _totals(actions, chains, stages), len(chain.spot))
    return CheckpointModelPolicy(action=action, expected_cost=expected, grid=1.0,
                                 interval_steps=interval, write_steps=write,
                                 saved_dead=saved_dead, tick=1.0)


@fill_doc
def checkpoint_model_policy(model: AvailabilityModel, tick: float, compute: float,
                            deadline: float, changeover: float, discount: float,
                            interval: float, write: float, billing: str = "tick"
                            ) -> CheckpointModelPolicy:
    """The solved policy in checkpoint mode for a job under ``model`` (cached).

    Parameters
    ----------
    model : AvailabilityModel
        [[availability_model]]
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
    interval : float
        [[job_interval]]
    write : float
        [[job_write]]
    billing : {'tick', 'second'}, optional
        [[job_billing]]

    Returns
    -------
    CheckpointModelPolicy
        With ``tick`` the planning tick (as :func:`model_policy`'s) and ``grid`` in
        hours: ``tick / GRID``, or coarser where the cycle of compute and write is long
        (at most :data:`PHASES` steps to a cycle, at least one step a tick), which
        bounds the states the programme has to solve.
    """
    return _checkpoint_policy(tick, compute, deadline, changeover, discount, interval,
                              write, billing, partial(_two_state_chains, model),
                              2, (0,))


def _checkpoint_policy(tick: float, compute: float, deadline: float, changeover: float,
                       discount: float, interval: float, write: float, billing: str,
                       chains: Callable[[int, int], tuple], availabilities: int,
                       edges: tuple[int, ...]) -> CheckpointModelPolicy:
    """:func:`checkpoint_model_policy` and :func:`checkpoint_spell_law_policy`: the planning
    tick of ``m`` trace ticks for a programme of ``availabilities`` states, and
    ``chains(m, ticks)``, the chains its ticks follow and their classes."""
    def size(m: int) -> tuple[int, ...]:
        per_tick = max(1, min(GRID, math.floor(PHASES * m * tick / (interval + write))))
        grid = m * tick / per_tick
        ticks, work_steps, dead = _on_grid(m * tick, grid, compute, deadline, changeover)
        return (per_tick, ticks, work_steps, dead, max(1, int(round(interval / grid))),
                int(round(write / grid)))

    def cells(m: int) -> int:
        _, ticks, work_steps, dead, interval_steps, write_steps = size(m)
        states = 1 + 2 * (max(dead, write_steps) + interval_steps + write_steps)
        return (ticks + 1) * (work_steps + 1) * states * availabilities

    m = planning_ticks(cells, _slack_ticks(
        deadline - compute * (1 + write / interval) - changeover, tick))  # writes counted
    per_tick, ticks, work_steps, dead, interval_steps, write_steps = size(m)
    followed, stages = chains(m, ticks)
    solved = _solve_checkpointed(
        followed, stages, ticks, per_tick, work_steps, dead, interval_steps, write_steps,
        round(discount, 12), billing == "second")
    return CheckpointModelPolicy(
        action=solved.action, expected_cost=solved.expected_cost,
        grid=m * tick / per_tick, tick=m * tick, interval_steps=solved.interval_steps,
        write_steps=solved.write_steps, saved_dead=solved.saved_dead, edges=edges)


@fill_doc
def checkpoint_spell_law_policy(history: np.ndarray, tick: float, compute: float,
                                deadline: float, changeover: float, discount: float,
                                interval: float, write: float, billing: str = "tick",
                                hours: np.ndarray | None = None,
                                start: float | None = None, dated: bool = False,
                                others: Sequence[tuple[np.ndarray, np.ndarray | None]] = ()
                                ) -> CheckpointModelPolicy:
    """:func:`checkpoint_model_policy` under a :class:`SpellLaw` fitted to ``history``
    (as :func:`spell_law_policy`).

    Parameters
    ----------
    history : numpy.ndarray of bool
        Spot available in each tick before the start.
    tick, compute, deadline, changeover, discount, interval, write, billing
        The job and its writes, as for :func:`checkpoint_model_policy`.
    hours, start, dated, others
        The clock and other traces' prior, as for :func:`spell_law_policy`.

    Returns
    -------
    CheckpointModelPolicy
        With ``edges`` the age bins.
    """
    def chains(m: int, ticks: int) -> tuple:
        return _spell_chains(history, m, m * tick, ticks, deadline, hours, start, dated,
                             others)

    return _checkpoint_policy(tick, compute, deadline, changeover, discount, interval,
                              write, billing, chains, 2 * len(SPELL_AGES), SPELL_AGES)
