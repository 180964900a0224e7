"""The derivations: SymPy is the single source of truth for every formula in spotmath.

Each result is *derived* here (integrated, solved, differentiated, expanded) from the
model's assumptions, never typed in as an answer.  The numeric functions in
:mod:`spotmath.model.numerics` are generated from these expressions with ``lambdify``.

Symbols (all times in hours):

=========  ==========================================================  ==============
symbol     meaning                                                     unit
=========  ==========================================================  ==============
``lam``    preemption rate of one node, λ = 1/M                        1/hour
``M``      mean time between preemptions of one node (MTBF)            hour
``T``      compute interval between checkpoints                        hour
``C``      checkpoint write cost (blocking time per checkpoint)        hour
``R``      restart time after a preemption                             hour
``N``      gang size: nodes of a synchronous job                       nodes
``d``      spot discount against the on-demand price, 0 < d < 1       fraction
``t``      a time: into a segment, or (traces) an instance's age       hour
``k``      Weibull shape of an instance's lifetime (1: Poisson)        1
``sigma``  Weibull scale of an instance's lifetime                     hour
``rho``    share of a pool's reclaims that take the whole gang         fraction
``q_n``    share of preemptions whose notice arrives and is acted on   fraction
``C_n``    on-notice checkpoint write (must fit in the notice)         hour
``P``      persist time of an asynchronous checkpoint (after its C);   hour
           in the fleet chapter, an elastic job's pause instead
``R_bar``  expected time to complete a restart (R, or (e^{λR}−1)/λ)   hour
``C1``     fast (level-1) checkpoint write; C is then the durable one  hour
``R1``     restart from a fast copy; R is then the durable restart     hour
``p_loss`` chance that a preemption event destroys the fast copies     fraction
``n2``     a durable write every n-th checkpoint (two levels)          1
``alpha``  arrival rate of a shared pool's high-priority requests      1/hour
``hold``   their mean holding time                                     hour
``level``  requests in service (a level k of Erlang's chain)           1
=========  ==========================================================  ==============

Every named result is a :class:`Derivation` with a stable name (see :data:`NAMES`), so a
chapter or a paper can cite it, and :func:`derivation` returns it with its LaTeX.
Derivations are computed on first use and cached (SymPy takes a moment).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

# The symbols (lam, T, C, ...) are module attributes, not part of the star-import API.
__all__ = [
    "Derivation", "derivation", "NAMES", "landing_density_uniform", "landing_density_poisson",
    "lost_work_integral", "lost_work_first_order", "lost_work_exact",
    "lost_work_series", "waste_first_order", "waste_first_order_with_checkpoint",
    "young_interval", "young_waste", "exact_optimality_condition", "exact_overhead",
    "exact_interval", "segment_renewal", "node_survival", "async_interval_renewal",
    "poisson_log_likelihood",
    "daly_series_coefficients", "daly_interval", "uninterrupted_run_time",
    "segment_time_protected_restart", "segment_time_preemptible_restart", "segment_time",
    "waste_exact", "break_even_intervals_first_order", "break_even_no_checkpoint",
    "break_even_rate_first_order", "break_even_restart_first_order",
    "break_even_restart_exact", "gang_survival", "gang_rate", "max_gang_first_order",
    "free_checkpoint_limit", "never_on_spot_gang", "interrupted_fraction", "bucket_rate",
    "observed_rate", "checkpoint_write_time", "elastic_waste", "useful_hour_price",
    "weibull_survival", "weibull_hazard", "weibull_mean", "weibull_log_likelihood",
    "weibull_scale_mle", "weibull_profile_log_likelihood", "local_rate_interval",
    "local_rate_first_interval",
    "bulk_gang_survival", "bulk_gang_rate", "bulk_fraction", "restart_completion_time",
    "notice_cycle_time", "notice_cycle_reward", "persist_loss", "waste_notice",
    "async_interval_time", "waste_first_order_notice", "first_order_notice_interval",
    "notice_optimality_condition", "notice_waste_floor",
    "two_level_fast_restart", "two_level_rollback_chance", "two_level_recovery_scale",
    "two_level_segment", "two_level_period_time", "waste_two_level",
    "two_level_optimality_condition", "waste_first_order_two_level",
    "two_level_first_order_optimum", "erlang_balance", "erlang_stationary",
    "erlang_log_weight",
    "erlang_b_step", "pool_preemption_rate", "pool_preemption_rate_from_b", "pool_up_share",
    "readmission_wait", "readmission_wait_sums", "passage_mean_step",
    "passage_second_moment_step", "passage_down_step", "pool_restart_time", "queue_weight",
    "queue_tail", "erlang_c", "queue_wait_survival", "queue_wait_quantile",
]

# -- symbols ---------------------------------------------------------------------------
lam = sp.Symbol("lambda", positive=True)  # preemption rate per node-hour
M = sp.Symbol("M", positive=True)  # MTBF = 1/lambda
T = sp.Symbol("T", positive=True)  # compute interval between checkpoints
C = sp.Symbol("C", nonnegative=True)  # checkpoint write cost
R = sp.Symbol("R", nonnegative=True)  # restart time
N = sp.Symbol("N", positive=True)  # gang size (a real number while solving)
d = sp.Symbol("d", positive=True)  # spot discount
t = sp.Symbol("t", positive=True)  # time of a preemption, measured from a segment's start
E = sp.Symbol("E")  # expected wall time of one segment (unknown of a renewal equation)
L = sp.Symbol("L", positive=True)  # length of a run that must not be interrupted
s = sp.Symbol("s", positive=True)  # sqrt(lambda*C), the small parameter of Daly's series
x = sp.Symbol("x", positive=True)  # lambda*T, the dimensionless interval
c = sp.Symbol("c", positive=True)  # lambda*C, the dimensionless checkpoint cost
u = sp.Symbol("u", positive=True)  # a gang's preemption rate N*lambda while solving
# calibration and fleet
H = sp.Symbol("H", positive=True)  # hours one instance is exposed (runs) in a window
F = sp.Symbol("F", positive=True)  # fraction of instances interrupted in that window
S = sp.Symbol("S", positive=True)  # fraction not interrupted, 1 − F
m = sp.Symbol("m", nonnegative=True)  # number of failures counted
tau = sp.Symbol("tau", positive=True)  # observation window of a failure count, hours
n = sp.Symbol("n", positive=True)  # units observed (GPUs or nodes)
p = sp.Symbol("p", positive=True)  # model parameters
q = sp.Symbol("q", positive=True)  # checkpointed bytes per parameter
B = sp.Symbol("B", positive=True)  # write bandwidth, bytes per hour
P = sp.Symbol("P", nonnegative=True)  # pause of an elastic job per membership change
w = sp.Symbol("w", nonnegative=True)  # waste fraction
g = sp.Symbol("g", nonnegative=True)  # discount of a capacity type (0 for on-demand)
a = sp.Symbol("a", positive=True)  # utilisation: share of paid hours that run jobs
# real preemptions: traces
k = sp.Symbol("k", positive=True)  # Weibull shape of an instance's lifetime
sigma = sp.Symbol("sigma", positive=True)  # Weibull scale of an instance's lifetime
rho = sp.Symbol("rho", nonnegative=True)  # share of reclaims that take the whole gang
r = sp.Symbol("r", positive=True)  # a gang's measured interruption rate
G = sp.Symbol("G", positive=True)  # sum over all lifetimes of (lifetime)^k
Lsum = sp.Symbol("Lambda")  # sum over the complete lifetimes of log(lifetime)
# preemption notice and asynchronous checkpoints (P above is the persist time there)
q_n = sp.Symbol("q", nonnegative=True)  # share of preemptions whose notice is acted on
C_n = sp.Symbol("C_n", nonnegative=True)  # on-notice checkpoint write
R_bar = sp.Symbol(r"\bar{R}", nonnegative=True)  # expected time to complete a restart
# two-level checkpoints (C and R are then the durable level's write and restart)
C1 = sp.Symbol("C_1", nonnegative=True)  # fast (level-1) checkpoint write
R1 = sp.Symbol("R_1", nonnegative=True)  # restart from a fast copy
p_loss = sp.Symbol("p", nonnegative=True)  # chance an event destroys the fast copies
n2 = sp.Symbol("n", positive=True, integer=True)  # a durable write every n-th checkpoint


@dataclass(frozen=True)
class Derivation:
    """A named result: ``lhs = rhs``, with a sentence on how it was obtained."""

    name: str
    title: str
    lhs: sp.Expr
    rhs: sp.Expr
    how: str

    def latex(self) -> str:
        """The result as one LaTeX equation, ready for a paper."""
        return f"{sp.latex(self.lhs)} = {sp.latex(self.rhs)}"

    def __str__(self) -> str:
        return f"{self.name}: {self.lhs} = {self.rhs}"


def _solve(equation: sp.Eq, unknown: sp.Symbol, which: str = "only") -> sp.Expr:
    """Solve ``equation`` for ``unknown``, keeping only roots that really satisfy it.

    ``solve`` may return spurious roots (squaring a square root) or both roots of a
    quadratic.  Roots are checked at a sample point well inside the domain; of the genuine
    positive ones, ``which`` picks the ``"smallest"``, ``"largest"`` or the ``"only"`` one.
    """
    genuine = []
    for root in sp.solve(equation, unknown):
        value = complex(sp.N(root.subs(_SAMPLE)))
        residual = complex(sp.N((equation.lhs - equation.rhs).subs(_SAMPLE | {unknown: value})))
        if abs(value.imag) < 1e-12 and value.real > 0 and abs(residual) < 1e-9:
            genuine.append((value.real, root))
    genuine.sort(key=lambda pair: pair[0])
    if which == "only":
        (pair,) = genuine
        return pair[1]
    return genuine[0 if which == "smallest" else -1][1]


def _stable(root: sp.Expr) -> sp.Expr:
    """Rewrite a root of the form (a − √b)/c as an equivalent one without cancellation.

    Rationalising 1/root moves the square root to a sum (a + √b), which is accurate in
    floating point and stays finite where c → 0.
    """
    return sp.simplify(1 / sp.radsimp(1 / root))


# A sample point well inside the domain, used only to tell genuine roots apart.
_SAMPLE = {lam: sp.Rational(1, 4), C: sp.Rational(1, 60), R: sp.Rational(1, 6),
           d: sp.Rational(3, 5), T: 1, N: 8, H: 24, F: sp.Rational(1, 10),
           S: sp.Rational(9, 10), k: sp.Rational(3, 4), m: 74, G: 130, sigma: 2,
           rho: sp.Rational(1, 3), r: 1}


# -- 1. work lost per preemption ---------------------------------------------------------
@cache
def landing_density_uniform() -> sp.Expr:
    """1/T: where a rare preemption lands in an interval of T, every moment alike."""
    return 1 / T


@cache
def landing_density_poisson() -> sp.Expr:
    """λe^{−λt}/(1 − e^{−λT}): the exponential(λ) preemption time, conditioned to land in
    the interval [0, T] (its density divided by the chance it lands there)."""
    return lam * sp.exp(-lam * t) / (1 - sp.exp(-lam * T))


def lost_work_integral(density: sp.Expr) -> sp.Integral:
    """∫₀ᵀ t f(t) dt, unevaluated: the mean work lost when a preemption lands at t with
    density f, everything since the interval's start being lost."""
    return sp.Integral(t * density, (t, 0, T))


@cache
def lost_work_first_order() -> sp.Expr:
    """T/2: a preemption lands uniformly within the interval (density 1/T)."""
    return lost_work_integral(landing_density_uniform()).doit()


@cache
def lost_work_exact() -> sp.Expr:
    """1/λ − T/(e^{λT} − 1): mean time into the interval, given a Poisson preemption in it."""
    return sp.simplify(lost_work_integral(landing_density_poisson()).doit(conds="none"))


@cache
def lost_work_series() -> sp.Expr:
    """T/2 − λT²/12 + λ³T⁴/720 + …: the exact loss expanded in λ (T/2 is its first term)."""
    return sp.series(lost_work_exact(), lam, 0, 4).removeO()


# -- 2. first-order waste fraction -------------------------------------------------------
@cache
def waste_first_order() -> sp.Expr:
    """λ(T/2 + R): preemptions per hour times the time each one costs."""
    return lam * (lost_work_first_order() + R)


@cache
def waste_first_order_with_checkpoint() -> sp.Expr:
    """C/T + λ(T/2 + R): add one checkpoint write of C per T of compute."""
    return C / T + waste_first_order()


# -- 3. the optimum ---------------------------------------------------------------------
@cache
def young_interval() -> sp.Expr:
    """√(2C/λ): the root of d/dT [C/T + λ(T/2 + R)] = 0 (Young 1974)."""
    (root,) = sp.solve(sp.diff(waste_first_order_with_checkpoint(), T), T)
    return root


@cache
def young_waste() -> sp.Expr:
    """√(2λC) + λR: the first-order waste at Young's interval."""
    return sp.simplify(waste_first_order_with_checkpoint().subs(T, young_interval()))


@cache
def exact_optimality_condition() -> sp.Expr:
    """g(x, c) = c − c*(x), zero where d/dT (E/T) = 0; x = λT and c = λC are dimensionless.

    E/T = K(e^{λ(T+C)} − 1)/T with K independent of T (in both restart variants), so the
    optimum depends on λ and C only.  SymPy gives c*(x) = −x − log(1 − x).
    """
    overhead = exact_overhead()
    stationary = sp.numer(sp.together(sp.diff(overhead, T)))
    stationary = sp.expand(stationary.subs({T: x / lam, C: c / lam}))
    (c_of_x,) = sp.solve(stationary, c)
    # Expand the logarithm with 1 − x > 0 made explicit (x < 1 at the optimum).
    y = sp.Symbol("y", positive=True)
    c_of_x = sp.expand_log(c_of_x.subs(x, 1 - y), force=True).subs(y, 1 - x)
    return c - sp.expand(c_of_x)


@cache
def exact_overhead() -> sp.Expr:
    """(e^{λ(T+C)} − 1)/T: the wall time per useful hour E/T of the exact model
    (:func:`segment_time`) without its factor K, which does not depend on T (e^{λR}/λ, or
    1/λ + R where a restart cannot be preempted): what the exact optimum minimises."""
    return (sp.exp(lam * (T + C)) - 1) / T


@cache
def exact_interval() -> sp.Expr:
    """(1 + W₀(−e^{−λC−1}))/λ: the exact optimum, solved by SymPy in closed form."""
    roots = sp.solve(sp.diff(exact_overhead(), T), T)
    (root,) = [r for r in roots if r.has(sp.LambertW)]
    return root


@cache
def daly_series_coefficients() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """Coefficients a₁, a₂, a₃ of λT* = a₁s + a₂s² + a₃s³ + O(s⁴), s = √(λC).

    Obtained by inserting the series into the exact optimality condition
    e^{x+s²}(1 − x) = 1 and matching powers of s.
    """
    a1, a2, a3 = sp.symbols("a1:4")
    trial = a1 * s + a2 * s**2 + a3 * s**3
    residual = sp.series(sp.exp(trial + s**2) * (1 - trial) - 1, s, 0, 5).removeO()
    coefficients = sp.Poly(residual, s).all_coeffs()[::-1]  # constant term first
    solution = {}
    for power, unknown in ((2, a1), (3, a2), (4, a3)):
        equation = sp.expand(coefficients[power].subs(solution))
        roots = [r for r in sp.solve(equation, unknown) if r.is_positive or unknown != a1]
        solution[unknown] = roots[0]
    return solution[a1], solution[a2], solution[a3]


@cache
def daly_interval() -> sp.Expr:
    """Daly's (2006) higher-order optimum: the series of the exact optimum to O((λC)^{3/2}).

    Equivalent to Daly's published √(2CM)[1 + ⅓√(C/2M) + (1/9)(C/2M)] − C for C < 2M,
    and T* = M beyond (where the series is no longer meaningful).
    """
    a1, a2, a3 = daly_series_coefficients()
    root_lc = sp.sqrt(lam * C)
    series = sp.expand((a1 * root_lc + a2 * root_lc**2 + a3 * root_lc**3) / lam)
    return sp.Piecewise((series, C < 2 / lam), (1 / lam, True))


# -- 4. the exact (renewal-reward) model -------------------------------------------------
@cache
def uninterrupted_run_time() -> sp.Expr:
    """(e^{λL} − 1)/λ: expected wall time until L hours run without a preemption."""
    renewal = sp.Eq(E, sp.exp(-lam * L) * L
                    + sp.integrate((t + E) * lam * sp.exp(-lam * t), (t, 0, L), conds="none"))
    (solution,) = sp.solve(renewal, E)
    return sp.factor(sp.simplify(solution))


def segment_renewal(restart_preemptible: bool = True) -> sp.Eq:
    """The renewal equation of a segment's expected wall time E, its integral unevaluated.

    The segment of T compute and a C write either runs through (probability
    e^{−λ(T+C)}, taking T + C) or is preempted at t < T + C (density λe^{−λt}), after
    which the job pays t and then, with a protected restart, R and a fresh segment (E
    again); with a preemptible one, the expected time until R + T + C hours run without a
    preemption (:func:`uninterrupted_run_time`), which includes every fresh start.
    """
    length = T + C
    after = (R + E if not restart_preemptible
             else uninterrupted_run_time().subs(L, R + length))
    return sp.Eq(E, sp.exp(-lam * length) * length
                 + sp.Integral((t + after) * lam * sp.exp(-lam * t), (t, 0, length)))


def _solve_renewal(renewal: sp.Eq) -> sp.Expr:
    (solution,) = sp.solve(renewal.doit(conds="none"), E)
    return sp.factor(sp.simplify(solution))


@cache
def segment_time_protected_restart() -> sp.Expr:
    """(e^{λ(T+C)} − 1)(1/λ + R): expected time for T of work plus a C write; R cannot fail.

    Renewal equation (:func:`segment_renewal`): the segment of length T + C either
    completes (probability e^{−λ(T+C)}) or is preempted at t, costing t + R and a fresh
    start.
    """
    return _solve_renewal(segment_renewal(restart_preemptible=False))


@cache
def segment_time_preemptible_restart() -> sp.Expr:
    """e^{λR}(e^{λ(T+C)} − 1)/λ: as above, but the restart can itself be preempted (Daly).

    After a preemption the job needs R + T + C hours without a preemption.
    """
    return _solve_renewal(segment_renewal(restart_preemptible=True))


def segment_time(restart_preemptible: bool = True) -> sp.Expr:
    """The exact expected segment time for the chosen restart variant."""
    if restart_preemptible:
        return segment_time_preemptible_restart()
    return segment_time_protected_restart()


@cache
def waste_exact(restart_preemptible: bool = True) -> sp.Expr:
    """1 − T/E: the share of wall time not spent on useful compute."""
    return 1 - T / segment_time(restart_preemptible)


# -- 5. break-even ------------------------------------------------------------------------
# Spot pays while (1 − d)·E/T < 1, i.e. while the waste fraction 1 − T/E is below d.
@cache
def break_even_intervals_first_order() -> tuple[sp.Expr, sp.Expr]:
    """Both roots of C/T + λ(T/2 + R) = d: the shortest and the longest interval that pay."""
    equation = sp.Eq(waste_first_order_with_checkpoint(), d)
    return _stable(_solve(equation, T, "smallest")), _solve(equation, T, "largest")


@cache
def break_even_no_checkpoint() -> sp.Expr:
    """2(d/λ − R): the longest paying interval when checkpoints are free (first order).

    Spot can pay at all only if d > λR, so d − λR is positive and the root simplifies.
    """
    q = sp.Symbol("q", positive=True)  # d − λR
    longest = break_even_intervals_first_order()[1].subs(C, 0).subs(d, q + lam * R)
    return sp.expand(sp.simplify(longest).subs(q, d - lam * R))


@cache
def break_even_rate_first_order() -> sp.Expr:
    """The preemption rate at which C/T + λ(T/2 + R) = d."""
    return _solve(sp.Eq(waste_first_order_with_checkpoint(), d), lam)


@cache
def break_even_restart_first_order() -> sp.Expr:
    """The restart time at which C/T + λ(T/2 + R) = d."""
    return _solve(sp.Eq(waste_first_order_with_checkpoint(), d), R)


@cache
def break_even_restart_exact(restart_preemptible: bool = True) -> sp.Expr:
    """The restart time at which the exact waste equals d (closed form in both variants)."""
    return _solve(sp.Eq(waste_exact(restart_preemptible), d), R)


# -- 6. gangs -------------------------------------------------------------------------------
@cache
def node_survival() -> sp.Expr:
    """e^{−λT}: one node, preempted as a Poisson process of rate λ, survives T."""
    return sp.exp(-lam * T)


@cache
def gang_survival() -> sp.Expr:
    """e^{−NλT}: all N independent nodes survive an interval T."""
    return sp.powsimp(node_survival() ** N, force=True)


@cache
def gang_rate() -> sp.Expr:
    """Nλ: the hazard rate of the gang, −d/dT log(survival)."""
    return sp.simplify(-sp.diff(sp.log(gang_survival()), T))


@cache
def max_gang_first_order() -> sp.Expr:
    """The (real) gang size at which √(2NλC) + NλR = d: Young's optimum just breaks even."""
    waste_at_optimum = young_waste().subs(lam, u)
    return _stable(_solve(sp.Eq(waste_at_optimum, d), u)) / lam


@cache
def free_checkpoint_limit(model: str, restart_preemptible: bool = True) -> sp.Expr:
    """The waste with free, instant checkpoints: C = 0 and T → 0, for one node at rate λ."""
    if model == "first-order":
        return sp.limit(waste_first_order_with_checkpoint().subs(C, 0), T, 0, "+")
    # Expanded, 1 − e^{−λR} prints as −expm1(−λR): finite for any λR (the factored form
    # e^{−λR}(e^{λR} − 1) overflows to 0·∞).
    return sp.expand(sp.limit(waste_exact(restart_preemptible).subs(C, 0), T, 0, "+"))


@cache
def never_on_spot_gang(model: str, restart_preemptible: bool = True) -> sp.Expr:
    """The (real) gang size N at which even free, instant checkpoints leave waste = d."""
    limit = free_checkpoint_limit(model, restart_preemptible).subs(lam, N * lam)
    return _solve(sp.Eq(limit, d), N)


# -- 7. calibration: rates, checkpoint costs and prices from published figures ----------------
@cache
def interrupted_fraction() -> sp.Expr:
    """1 − e^{−λH}: chance that one instance running H hours is interrupted at least once."""
    return sp.simplify(1 - gang_survival().subs({N: 1, T: H}))


@cache
def bucket_rate() -> sp.Expr:
    """The rate λ at which a fraction F of instances running H hours is interrupted.

    Solved for the surviving share 1 − F (positive), so the logarithm comes out as
    −log(1 − F) rather than log(−1/(F − 1)).
    """
    root = _solve(sp.Eq(1 - interrupted_fraction(), S), lam)
    return sp.expand_log(root, force=True).subs(S, 1 - F)


@cache
def poisson_log_likelihood() -> sp.Expr:
    """m log(λnτ) − λnτ: the log-likelihood of m failures among n units over τ hours at a
    rate λ per unit-hour (a Poisson count of mean λnτ, less the terms free of λ)."""
    return m * sp.log(lam * n * tau) - lam * n * tau


@cache
def observed_rate() -> sp.Expr:
    """m/(nτ): the maximum-likelihood rate of a Poisson count m over n units and τ hours."""
    (root,) = sp.solve(sp.diff(poisson_log_likelihood(), lam), lam)
    return root


@cache
def checkpoint_write_time() -> sp.Expr:
    """qp/B: the time to move p parameters of q bytes each at B bytes per hour."""
    state = q * p
    return state / B


@cache
def elastic_waste() -> sp.Expr:
    """λ(2NP + R): first-order waste of an elastic job of N replicas.

    Each of the gang's Nλ preemptions per hour pauses all N replicas twice (one replica
    leaves, its replacement joins) for P, and the replacement spends R starting; nothing is
    rolled back.  Divided by the N node-hours paid per hour.
    """
    lost_per_preemption = 2 * P * N + R
    return sp.expand(gang_rate() * lost_per_preemption / N)


@cache
def useful_hour_price() -> sp.Expr:
    """(1 − g)/(a(1 − w)): price per useful hour against on-demand's list price.

    A paid hour costs 1 − g, runs jobs a share a of the time, and a share w of that is waste.
    """
    useful_per_paid_hour = a * (1 - w)
    return (1 - g) / useful_per_paid_hour


# -- 8. real preemptions: lifetimes, local checkpoint rates, correlated reclaims ---------------
@cache
def weibull_survival() -> sp.Expr:
    """e^{−(t/σ)^k}: the chance an instance is still up at age t (the Weibull assumption)."""
    return sp.exp(-(t / sigma) ** k)


@cache
def weibull_hazard() -> sp.Expr:
    """(k/σ)(t/σ)^{k−1}: the preemption rate at age t, −d/dt log of the survival.

    Decreasing in t when k < 1 (young instances are the likeliest to go), constant λ = 1/σ
    when k = 1 (Poisson), increasing when k > 1.
    """
    return sp.simplify(-sp.diff(sp.log(weibull_survival()), t))


@cache
def weibull_mean() -> sp.Expr:
    """σΓ(1 + 1/k): the mean lifetime, the integral of the survival over all ages."""
    mean = sp.integrate(weibull_survival(), (t, 0, sp.oo), conds="none")
    return sp.simplify(sp.powsimp(sp.expand_power_exp(sp.expand(mean)), force=True))


@cache
def weibull_log_likelihood() -> sp.Expr:
    """m log k − mk log σ + (k − 1)Λ − G/σ^k: log-likelihood of right-censored lifetimes.

    Each of the m complete lifetimes contributes the log density log h(t) + log S(t), each
    censored one log S(t) alone.  Summed, only Λ = Σ log t over the complete lifetimes and
    G = Σ t^k over all of them remain.  Written here term by term: SymPy cannot sum over a
    data set, so the sums are its two symbols.
    """
    log_density = sp.expand_log(sp.log(weibull_hazard()), force=True)
    per_complete = sp.expand(log_density.subs(sp.log(t), sp.Symbol("logt")))
    # m complete lifetimes: m copies of the constant part, (k − 1) times Σ log t.
    constant = per_complete.subs(sp.Symbol("logt"), 0)
    slope = sp.diff(per_complete, sp.Symbol("logt"))
    return sp.expand(m * constant + slope * Lsum - G / sigma**k)


@cache
def weibull_scale_mle() -> sp.Expr:
    """(G/m)^{1/k}: the scale that maximises the censored likelihood for a given shape."""
    return _solve(sp.Eq(sp.diff(weibull_log_likelihood(), sigma), 0), sigma)


@cache
def weibull_profile_log_likelihood() -> sp.Expr:
    """The censored log-likelihood at the best scale for each shape k (a function of k)."""
    return sp.expand(sp.expand_log(
        weibull_log_likelihood().subs(sigma, weibull_scale_mle()), force=True))


@cache
def local_rate_interval() -> sp.Expr:
    """√(2C/h(t)): Young's interval at the hazard of the instance's age (Ling, Mi, Lin 2001).

    With a Weibull hazard, intervals grow with age when k < 1 and shrink when k > 1; with
    k = 1 this is Young's √(2C/λ) at λ = 1/σ.
    """
    return sp.simplify(young_interval().subs(lam, weibull_hazard()))


@cache
def local_rate_first_interval() -> sp.Expr:
    """(2Cσ^k/k)^{1/(k+1)}: the first local-rate interval from age 0 when k > 1.

    The hazard of a new instance is 0 when k > 1, so √(2C/h(0)) is infinite; with no
    restart before it, the first interval is taken as the length τ whose local-rate
    interval at its end, √(2C/h(τ)), is τ itself.  With k = 1 it is Young's √(2Cσ).
    """
    tau = sp.Symbol("tau", positive=True)
    (solution,) = sp.solve(sp.Eq(tau**2, (local_rate_interval() ** 2).subs(t, tau)), tau)
    return solution


@cache
def bulk_gang_survival() -> sp.Expr:
    """e^{−N(1−ρ)λT} e^{−ρλT}: a gang of N survives T when every node's own clock at
    (1 − ρ)λ and the pool's bulk clock at ρλ all stay quiet."""
    own = gang_survival().subs(lam, (1 - rho) * lam)
    return sp.powsimp(own * sp.exp(-rho * lam * T), force=True)


@cache
def bulk_gang_rate() -> sp.Expr:
    """(N(1 − ρ) + ρ)λ: the gang's hazard under bulk reclaims, between λ and Nλ."""
    hazard = -sp.diff(sp.log(bulk_gang_survival()), T)
    return lam * sp.collect(sp.expand(hazard / lam), N, sp.factor)


@cache
def bulk_fraction() -> sp.Expr:
    """(Nλ − r)/((N − 1)λ): the bulk share ρ at which a gang of N is hit at rate r."""
    (root,) = sp.solve(sp.Eq(bulk_gang_rate(), r), rho)
    return sp.together(root)


# -- 9. preemption notice and asynchronous checkpoints -------------------------------------------
# The rules; they are what the numbers mean.  Preemptions are Poisson at λ.  Each comes with a
# notice with probability q, independently; the others come unannounced.
#   * Periodic checkpoints: after T of compute the job blocks for C (a snapshot); the
#     checkpoint becomes durable P later (0 ≤ P ≤ T) while the next interval computes.
#   * An unannounced preemption, and any preemption during a snapshot or a restart, rolls
#     back to the last durable checkpoint; within P of a snapshot that is the one before it,
#     so the interval just completed is lost too.  Then the job restarts (R).
#   * An announced preemption while the job computes: the job computes until C_n before the
#     reclaim and writes an on-notice checkpoint of its whole state, durable at the reclaim
#     (this needs C_n ≤ the notice).  It loses C_n of compute, nothing more: if the compute
#     phase began less than C_n before the reclaim it loses that compute but keeps the last
#     snapshot (a persisting one included).  Then the job restarts.
#   * After any checkpoint the next periodic one comes T of compute later.
# Renewal-reward: a cycle runs from the start of an interval (just after a snapshot or a
# restart) to the next snapshot, or to the end of the restart after the first preemption.
@cache
def restart_completion_time(restart_preemptible: bool = True) -> sp.Expr:
    """R̄: expected wall time from a preemption until the restart is done.

    (e^{λR} − 1)/λ when a restart can itself be preempted (it needs R hours without a
    preemption), R when it cannot.
    """
    if restart_preemptible:
        return uninterrupted_run_time().subs(L, R)
    return R


@cache
def notice_cycle_time() -> sp.Expr:
    """(1 − e^{−λ(T+C)})(1/λ + R̄): expected wall time of one cycle.

    The cycle ends at the snapshot if no preemption comes within T + C, else at the end of
    the restart after the first preemption, announced or not.
    """
    length = T + C
    expected = sp.exp(-lam * length) * length + sp.integrate(
        (t + R_bar) * lam * sp.exp(-lam * t), (t, 0, length), conds="none")
    return sp.factor(sp.simplify(expected))


def _notice_saves(saves: bool) -> sp.Expr:
    """q·E[t − C_n; C_n ≤ t ≤ T]: compute an on-notice checkpoint keeps (for T ≥ C_n)."""
    if not saves:
        return sp.Integer(0)
    return q_n * sp.integrate((t - C_n) * lam * sp.exp(-lam * t), (t, C_n, T), conds="none")


@cache
def notice_cycle_reward() -> sp.Expr:
    """Te^{−λ(T+C)} + qE[t − C_n; C_n ≤ t ≤ T]: compute kept in a cycle from a fresh start.

    The interval completes, or an announced preemption at t while computing keeps t − C_n.
    Valid for T ≥ C_n; below it the second term is 0.
    """
    return sp.simplify(T * sp.exp(-lam * (T + C)) + _notice_saves(True))


@cache
def persist_loss() -> sp.Expr:
    """(1 − q)T(1 − e^{−λP}): compute rolled back in a cycle that starts with a snapshot
    still persisting (an unannounced preemption in its first P loses the interval before)."""
    return sp.simplify((1 - q_n) * T * sp.integrate(lam * sp.exp(-lam * t), (t, 0, P),
                                                     conds="none"))


def _scaled_reward(saves: bool) -> sp.Expr:
    """U = (r₀ − e^{−λ(T+C)}ℓ_P)e^{λ(T+C)}: expected compute kept per cycle, scaled.

    A cycle starts with a snapshot still persisting exactly when the cycle before ended
    with its snapshot, which in the long run is the share e^{−λ(T+C)} of cycles.
    """
    length = T + C
    reward = T * sp.exp(-lam * length) + _notice_saves(saves)
    kept = (reward - sp.exp(-lam * length) * persist_loss()) * sp.exp(lam * length)
    return sp.collect(sp.expand(sp.powsimp(sp.expand(kept))), q_n)


def _useful_share(saves: bool) -> sp.Expr:
    """Long-run share of wall time that computes (renewal-reward), in terms of R̄.

    Expected compute kept per cycle over expected cycle time: every cycle takes
    :func:`notice_cycle_time`, and τe^{λ(T+C)} = (e^{λ(T+C)} − 1)(1/λ + R̄).
    """
    scaled_time = sp.factor(sp.powsimp(sp.expand(notice_cycle_time() * sp.exp(lam * (T + C)))))
    return _scaled_reward(saves) / scaled_time


@cache
def waste_notice(restart_preemptible: bool = True) -> sp.Expr:
    """The exact waste with a notice share q, an on-notice write C_n and a persist time P.

    1 minus the useful share, for T ≥ C_n (first branch) and T < C_n (the compute phase is
    too short for an on-notice write to keep anything).  q = 0 and P = 0 give
    :func:`waste_exact`.
    """
    restart = restart_completion_time(restart_preemptible)
    branches = [1 - _useful_share(saves).subs(R_bar, restart) for saves in (True, False)]
    return sp.Piecewise((branches[0], T >= C_n), (branches[1], True))


def async_interval_renewal(restart_preemptible: bool = True) -> sp.Eq:
    """The renewal equation of E_P, the expected wall time per interval with asynchronous
    checkpoints (no notice), its integrals unevaluated.

    From a snapshot still persisting, the next interval completes (T + C) or is preempted at
    t: the job pays t and a restart, and before P it rolls back one more interval, which
    takes E (:func:`segment_time`) to redo and then E_P again; after P only E.
    """
    length = T + C
    redo = segment_time(restart_preemptible)
    after = uninterrupted_run_time().subs(L, R) if restart_preemptible else R
    E_P = sp.Symbol("E_P")
    density = lam * sp.exp(-lam * t)
    return sp.Eq(E_P, sp.exp(-lam * length) * length
                 + sp.Integral((t + after + redo + E_P) * density, (t, 0, P))
                 + sp.Integral((t + after + redo) * density, (t, P, length)))


@cache
def async_interval_time(restart_preemptible: bool = True) -> sp.Expr:
    """e^{λP}·E: expected wall time per interval with asynchronous checkpoints (no notice),
    the root of :func:`async_interval_renewal`."""
    renewal = async_interval_renewal(restart_preemptible)
    (solution,) = sp.solve(renewal.doit(conds="none"), renewal.lhs)
    return sp.factor(sp.simplify(solution))


@cache
def waste_first_order_notice() -> sp.Expr:
    """C/T + (1 − q)λ(T/2 + R + P) + qλ(C_n + R): the first-order waste with notice and P.

    λ preemptions per hour.  An unannounced one lands uniformly in the interval, losing
    t + R, and within P of the last snapshot (chance P/T) one more interval T.  An announced
    one loses the on-notice write and the restart.  Plus one write of C per T.
    """
    unannounced = (sp.integrate((t + R) / T, (t, 0, T))
                   + sp.integrate(T / T, (t, 0, P)))
    announced = C_n + R
    return C / T + lam * ((1 - q_n) * unannounced + q_n * announced)


@cache
def first_order_notice_interval() -> sp.Expr:
    """√(2C/((1 − q)λ)): the root in T of the first-order waste's derivative (q < 1).

    Young's interval at the rate (1 − q)λ of unannounced preemptions; P does not enter.
    """
    v = sp.Symbol("v", positive=True)  # 1 − q, positive for a finite optimum
    stationary = sp.diff(waste_first_order_notice(), T).subs(q_n, 1 - v)
    (root,) = sp.solve(stationary, T)  # T is positive: SymPy keeps the positive root only
    return root.subs(v, 1 - q_n)


@cache
def notice_optimality_condition() -> tuple[sp.Expr, sp.Expr]:
    """The exact optimum's condition g(T) = 0 for T ≥ C_n, and the slope factor ℓ(T).

    The useful share is U(T)/(K(e^{λ(T+C)} − 1)) with K = 1/λ + R̄ free of T, so the
    optimum maximises U/D, D = e^{λ(T+C)} − 1, where g = U'D − UD' = 0.  SymPy finds
    g'(T) = e^{λ(T+C)}ℓ(T) with ℓ linear in T: g changes direction at most once, so each
    side of ℓ's root holds at most one root of g, bracketed by monotonicity.
    """
    length = T + C
    numerator = sp.expand(_scaled_reward(True))
    denominator = sp.cancel(sp.expand(notice_cycle_time() * sp.exp(lam * length))
                            / (1 / lam + R_bar))
    denominator = sp.expand(sp.powsimp(denominator))
    g = sp.expand(sp.diff(numerator, T) * denominator - numerator * sp.diff(denominator, T))
    slope = sp.expand(sp.powsimp(sp.expand(sp.diff(g, T) * sp.exp(-lam * length))))
    if sp.Poly(slope, T).degree() != 1:
        raise ArithmeticError("the slope factor of the notice optimum is not linear in T")
    return g, slope


@cache
def notice_waste_floor(restart_preemptible: bool = True) -> sp.Expr:
    """1 − qe^{−λC_n}/(1 + λR̄): the exact waste as T → ∞ (no periodic checkpoints).

    Only announced preemptions save work; every unannounced one loses everything since the
    last on-notice checkpoint.  With q = 1 this is the floor the waste falls to.
    """
    share = sp.limit(_useful_share(True).subs(P, 0), T, sp.oo)
    return sp.simplify(1 - share.subs(R_bar, restart_completion_time(restart_preemptible)))


# -- 10. two-level checkpoints ----------------------------------------------------------
# The rules (λ is here the rate of preemption events that hit the job, a gang's included):
#   * Events arrive as a Poisson process of rate λ in every phase.  Each one, independently
#     with chance p, destroys the fast copies (a D event); otherwise (an S event) they
#     survive.
#   * The pattern: n segments of T compute; segments 1..n−1 end with a fast write C₁, the
#     n-th with a durable write C, which is also a valid fast copy.
#   * An S event rolls back to the last completed write of either level and restarts in
#     R₁; a D event rolls back to the last durable write and restarts in R.  A write that
#     is hit is lost.
#   * Preemptible restarts: an S event during R₁ starts R₁ again, a D event during R₁
#     moves to R; any event during R starts R again.  Protected restarts: no event lands
#     in a restart.
# Renewal: E_i, the expected time from the start of segment i to the end of the period
# (the durable write), obeys one linear equation per segment.
_A1, _PI = sp.symbols("A_1 pi", positive=True)  # fast restart: expected time, success


@cache
def two_level_fast_restart(restart_preemptible: bool = True) -> tuple[sp.Expr, sp.Expr]:
    """(A₁, π): expected time from an S event until a restart is done, and the chance
    that it ends as the fast restart (not moved to the durable one by a D event).

    A₁ includes the durable restart a D event during R₁ forces.  Protected restarts
    cannot be hit: (R₁, 1).
    """
    if not restart_preemptible:
        return R1, sp.Integer(1)
    durable = uninterrupted_run_time().subs(L, R)
    density = lam * sp.exp(-lam * t)
    time_eq = sp.Eq(_A1, sp.exp(-lam * R1) * R1 + sp.integrate(
        (t + (1 - p_loss) * _A1 + p_loss * durable) * density, (t, 0, R1), conds="none"))
    chance_eq = sp.Eq(_PI, sp.exp(-lam * R1) + (1 - sp.exp(-lam * R1)) * (1 - p_loss) * _PI)
    (time,) = sp.solve(time_eq, _A1)
    (chance,) = sp.solve(chance_eq, _PI)
    return sp.simplify(time), sp.simplify(chance)


@cache
def two_level_segment() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(α, β, κ) of E_i = αE_{i+1} + βE_1 + κ for a segment of L wall hours (compute and
    its write), in terms of A₁, π and the durable restart's expected time A₂.

    The segment completes (e^{−λL}) or an event at t < L costs t and then: S, a restart
    (A₁) back to segment i with chance π, else to segment 1; D, the durable restart (A₂)
    back to segment 1.
    """
    E_i, E_next, E_1, A2 = sp.symbols("E_i E_next E_1 A_2")
    density = lam * sp.exp(-lam * t)
    after = ((1 - p_loss) * (_A1 + _PI * E_i + (1 - _PI) * E_1) + p_loss * (A2 + E_1))
    renewal = sp.Eq(E_i, sp.exp(-lam * L) * (L + E_next)
                    + sp.integrate((t + after) * density, (t, 0, L), conds="none"))
    (solution,) = sp.solve(renewal, E_i)
    solution = sp.expand(solution)
    alpha, beta = (sp.simplify(solution.coeff(e)) for e in (E_next, E_1))
    kappa = sp.simplify(solution.subs({E_next: 0, E_1: 0}))
    return alpha, beta, kappa.subs(A2, sp.Symbol("A_2"))


@cache
def _two_level_parts() -> tuple[sp.Expr, sp.Expr]:
    """(c, Θ) in A₁, π, A₂: 1/α = 1 + c(e^{λL} − 1) and κ = Θβ/c, both free of L."""
    alpha, beta, kappa = two_level_segment()
    if sp.simplify(alpha + beta - 1) != 0:
        raise ArithmeticError("a two-level segment's coefficients do not sum to 1")
    chance = sp.simplify((1 / alpha - 1) / (sp.exp(lam * L) - 1))
    scale = sp.simplify(kappa * chance / beta)
    if sp.diff(chance, L) != 0 or sp.simplify(sp.diff(scale, L)) != 0:
        raise ArithmeticError("the two-level segment does not factor as expected")
    return chance, scale


def _fill_restarts(expression: sp.Expr, restart_preemptible: bool) -> sp.Expr:
    time, chance = two_level_fast_restart(restart_preemptible)
    durable = restart_completion_time(restart_preemptible)
    return sp.simplify(expression.subs({_A1: time, _PI: chance, sp.Symbol("A_2"): durable}))


@cache
def two_level_rollback_chance(restart_preemptible: bool = True) -> sp.Expr:
    """c = 1 − (1 − p)π: the chance that an event ends in a rollback to the durable copy
    (a D event, or an S event whose fast restart a D event interrupts)."""
    return _fill_restarts(_two_level_parts()[0], restart_preemptible)


@cache
def two_level_recovery_scale(restart_preemptible: bool = True) -> sp.Expr:
    """Θ = 1/λ + (1 − p)A₁ + pA₂: the mean gap between events plus the expected restart
    after one."""
    return _fill_restarts(_two_level_parts()[1], restart_preemptible)


@cache
def _two_level_period_general() -> sp.Expr:
    """E₁ in c, Θ and u_ℓ = e^{λL_ℓ} − 1, for c > 0, by unrolling the n − 1 fast segments.

    With α + β = 1 the recurrence E_i = αE_{i+1} + (1 − α)E₁ + κ sums as a geometric
    series; the n-th segment ends the period (E_{n+1} = 0).
    """
    chance, scale, u_fast, u_durable = sp.symbols("c Theta u_1 u_2", positive=True)
    a, a_n, E_1 = sp.Symbol("alpha", positive=True), sp.Symbol("alpha_n", positive=True), E
    j = sp.Symbol("j", integer=True, nonnegative=True)
    kappa = scale * (1 - a) / chance
    kappa_n = scale * (1 - a_n) / chance
    series = sp.summation(a**j, (j, 0, n2 - 2)).args[-1][0]  # the branch for α ≠ 1
    unrolled = sp.Eq(E_1, a**(n2 - 1) * ((1 - a_n) * E_1 + kappa_n)
                     + ((1 - a) * E_1 + kappa) * series)
    (solution,) = sp.solve(unrolled, E_1)
    solution = solution.subs({a: 1 / (1 + chance * u_fast), a_n: 1 / (1 + chance * u_durable)})
    # Written twice, each form checked against the solution by SymPy: compact for the page,
    # and as expm1(x)/c, x = (n − 1)log1p(cu₁) + log1p(cu₂), accurate for a small c.
    compact = scale * ((1 + chance * u_fast)**(n2 - 1) * (1 + chance * u_durable) - 1) / chance
    exponent = (n2 - 1) * log1p(chance * u_fast) + log1p(chance * u_durable)
    stable = scale * expm1(exponent) / chance
    for form in (compact, stable.rewrite(sp.exp).rewrite(sp.log)):
        difference = sp.powsimp(sp.expand(solution - form), force=True)
        if sp.simplify(sp.expand_log(difference, force=True)) != 0:
            raise ArithmeticError("the two-level period time does not take its forms")
    return compact, stable, chance, scale, u_fast, u_durable


@cache
def two_level_period_time(restart_preemptible: bool = True) -> sp.Expr:
    """Θ((1 + cu₁)^{n−1}(1 + cu₂) − 1)/c: expected wall time from a durable write to the
    next, u₁ = e^{λ(T+C₁)} − 1 and u₂ = e^{λ(T+C)} − 1; at p = 0 (c = 0) its limit
    Θ((n − 1)u₁ + u₂)."""
    _, general, chance, scale, u_fast, u_durable = _two_level_period_general()
    fill = {u_fast: expm1(lam * (T + C1)), u_durable: expm1(lam * (T + C)),
            scale: two_level_recovery_scale(restart_preemptible)}
    # Θ((n − 1)u₁ + u₂): collected, it has no difference of terms that may overflow.
    limit = sp.limit(general.rewrite(sp.exp).rewrite(sp.log), chance, 0, "+")
    limit = sp.collect(sp.expand(limit), u_fast, sp.factor)
    rollback = two_level_rollback_chance(restart_preemptible)
    return sp.Piecewise((limit.subs(fill).subs(p_loss, 0), sp.Eq(p_loss, 0)),
                        (general.subs(fill | {chance: rollback}), True))


@cache
def waste_two_level(restart_preemptible: bool = True) -> sp.Expr:
    """1 − nT/E₁: the share of wall time not spent on kept compute, two levels."""
    return 1 - n2 * T / two_level_period_time(restart_preemptible)


@cache
def two_level_optimality_condition(restart_preemptible: bool = True) -> sp.Expr:
    """h(T) = T ∂E₁/∂T − E₁: the waste's derivative in T has the sign of h.

    E₁ is convex in T for every n (a product and sum of nonnegative, increasing, convex
    functions of T), so h' = T ∂²E₁/∂T² ≥ 0: h has one root, the optimal T for that n.
    """
    period = two_level_period_time(restart_preemptible)
    return sp.Piecewise(*[(T * sp.diff(value, T) - value, condition)
                          for value, condition in period.args])


@cache
def waste_first_order_two_level() -> sp.Expr:
    """((n − 1)C₁ + C)/(nT) + (1 − p)λ(T/2 + R₁) + pλ(nT/2 + R): first-order two levels.

    Per period of nT compute, n − 1 fast writes and one durable one.  S events (rate
    (1 − p)λ) land uniformly in a segment and lose T/2 + R₁; D events (rate pλ) land
    uniformly in the period and lose nT/2 + R.
    """
    fast = sp.integrate((t + R1) / T, (t, 0, T))
    durable = sp.integrate((t + R) / (n2 * T), (t, 0, n2 * T))
    return ((n2 - 1) * C1 + C) / (n2 * T) + lam * ((1 - p_loss) * fast + p_loss * durable)


# Asynchronous durable writes (P, the persist time): the durable write blocks only for its
# snapshot C, which is a fast copy at once, and becomes durable P later (P ≤ nT) while the
# next period runs; an S event in those P hours leaves the upload running.  A rollback to
# the durable level within them (a D event) finds the snapshot not yet durable and goes
# back to the durable write before it: the period just completed is redone as well.
# Derived for preemptible restarts: with protected ones no event lands in a restart, so how
# much of the P hours is exposed depends on the restarts in it.
@cache
def two_level_persist_period() -> sp.Expr:
    """E_P = e^{pλP}E₁: expected wall time from a snapshot still persisting to the next.

    D events (rate pλ) are independent of S events, and a rollback to the durable level
    comes exactly at a D event.  Let X be the first D event after the snapshot.  A period
    takes at least nT ≥ P, so it cannot end before P; from a durable start the time to the
    next snapshot is E₁ whatever came first.  A snapshot still persisting changes only the
    case X < P (chance 1 − e^{−pλP}): after the durable restart the previous period is
    redone (E₁, from a durable start) and its snapshot persists in turn (E_P).  So
    E_P = E₁ + (1 − e^{−pλP})E_P.  Restarts preemptible.
    """
    E_P, E_1 = sp.symbols("E_P E_1", positive=True)
    caught = 1 - sp.exp(-p_loss * lam * P)
    (solution,) = sp.solve(sp.Eq(E_P, E_1 + caught * E_P), E_P)
    return sp.simplify(solution).subs(E_1, two_level_period_time(True))


@cache
def waste_two_level_persist() -> sp.Expr:
    """1 − nTe^{−pλP}/E₁: the two-level waste with asynchronous durable writes (P ≤ nT).

    The factor is free of T and n, so the best pattern is the blocking one's, kept to
    nT ≥ P.  Restarts preemptible.
    """
    return 1 - n2 * T / two_level_persist_period()


@cache
def waste_first_order_two_level_persist() -> sp.Expr:
    """... + pλ(nT/2 + R + P): first-order two levels with asynchronous durable writes.

    A D event lands within P of the last snapshot with chance P/(nT) and then loses one
    more period, nT: pλP on top of :func:`waste_first_order_two_level`.
    """
    extra = sp.integrate(n2 * T / (n2 * T), (t, 0, P))
    return waste_first_order_two_level() + lam * p_loss * extra


@cache
def two_level_first_order_optimum() -> tuple[sp.Expr, sp.Expr]:
    """(T*, nT*) = (√(2C₁/((1 − p)λ)), √(2(C − C₁)/(pλ))) with n continuous.

    With T₂ = nT the first-order waste is C₁/T + (C − C₁)/T₂ + (1 − p)λT/2 + pλT₂/2 plus
    a constant: one Young's interval per level, each at the rate of the events it must
    survive and the extra cost of its write (needs C > C₁ and 0 < p < 1).
    """
    period = sp.Symbol("T_2", positive=True)
    extra, survive = sp.symbols("Delta v", positive=True)  # C − C₁ and 1 − p
    loss = sp.Symbol("p", positive=True)
    waste = sp.expand(waste_first_order_two_level().subs(n2, period / T).subs(C, C1 + extra))
    (fast,) = sp.solve(sp.diff(waste.subs(p_loss, 1 - survive), T), T)
    (durable,) = sp.solve(sp.diff(waste.subs(p_loss, loss), period), period)
    back = {extra: C - C1, survive: 1 - p_loss, loss: p_loss}
    return sp.simplify(fast.subs(back)), sp.simplify(durable.subs(back))


# -- 11. preempted by your own cluster: Erlang's chain inside a shared pool ---------------
# High-priority requests arrive at rate α, each holds g GPUs for a mean h hours; they
# preempt training, so their count k in service is Erlang's birth–death chain on 0 … K
# (K = ⌊G/g⌋): births at α below K, deaths at k/h.  A gang of N GPUs is up while
# k ≤ k* = ⌊(G − N)/g⌋.
alpha = sp.Symbol("alpha", positive=True)  # arrival rate of high-priority requests, 1/hour
hold = sp.Symbol("h", positive=True)  # their mean holding time, hours
level = sp.Symbol("k", positive=True, integer=True)  # a level of the chain (requests in service)
_pi = sp.Function("pi")
b_below = sp.Symbol("B_{k-1}", positive=True)  # Erlang's B one level below
m_below = sp.Symbol("m_{k-1}", positive=True)  # mean passage one level up, from k − 1
s_below = sp.Symbol("s_{k-1}", positive=True)  # its second moment
d_above = sp.Symbol("d_{k+1}", positive=True)  # mean passage one level down, from k + 1
up_share = sp.Symbol("U", positive=True)  # share of time the gang is up
pool_rate = sp.Symbol(r"\lambda_c", positive=True)  # the gang's preemptions per up hour
wait_h = sp.Symbol("W", nonnegative=True)  # mean wait for re-admission, hours
# the most requests in service, and the most with the gang up (whole numbers, not declared
# integer: SymPy would turn log Γ of an integer back into the log of a Γ that overflows)
top_level = sp.Symbol("K", positive=True)
star_level = sp.Symbol("k^{*}", nonnegative=True)
any_level = sp.Symbol("k", nonnegative=True)  # a level, as a number (log Γ stays log Γ)
b_top, b_star = sp.symbols("B_K B_{k^{*}}", positive=True)  # Erlang's B at K and at k*
above_sum = sp.Symbol(r"\bar{A}", positive=True)  # Σ_{j>k*} π_j, the down set's weight
weight_star = sp.Symbol(r"\pi_{k^{*}}", positive=True)  # π_{k*}
# their logarithms and Erlang's B's: what the numerics hold (the sums overflow a double)
log_b_top, log_b_star = sp.symbols(r"\log{B_K} \log{B_{k^{*}}}", real=True)
log_above = sp.Symbol(r"\log\bar{A}", real=True)
log_weight_star = sp.Symbol(r"\log\pi_{k^{*}}", real=True)


def erlang_balance() -> sp.Eq:
    """απ_{k−1} = (k/h)π_k: detailed balance across the cut between k − 1 and k.

    A birth–death chain is reversible: in its stationary law the flow up across each cut
    (arrivals at k − 1) equals the flow down (one of the k requests in service ending).
    """
    return sp.Eq(alpha * _pi(level - 1), level / hold * _pi(level))


@cache
def erlang_stationary() -> sp.Expr:
    """π_k = π_0 (αh)^k / k!: the stationary chance of k requests in service.

    :func:`erlang_balance`, a first-order recurrence, solved by SymPy's ``rsolve``.  The
    normalising sum over 0 … K is Erlang's loss distribution (Erlang 1917).
    """
    balance = erlang_balance()
    solved = sp.rsolve(balance.lhs - balance.rhs, _pi(level),
                       {_pi(0): sp.Symbol("pi_0", positive=True)})
    return sp.simplify(sp.combsimp(solved))


@cache
def erlang_b_step() -> sp.Expr:
    """B_k = αh B_{k−1} / (k + αh B_{k−1}): Erlang's B, π_k over the sum to k, level by level.

    1/B_k = Σ_{j≤k} π_j/π_k = 1 + (π_{k−1}/π_k)/B_{k−1}, the ratio from
    :func:`erlang_stationary`; B_0 = 1.
    """
    pi_k = erlang_stationary()
    ratio = sp.simplify(sp.combsimp(pi_k.subs(level, level - 1) / pi_k))
    return sp.simplify(1 / (1 + ratio / b_below))


@cache
def erlang_log_weight() -> sp.Expr:
    """log(π_k/π_0) = k log αh − log Γ(k + 1): the stationary law's weights in logarithms.

    :func:`erlang_stationary` taken to logarithms.  A pool of 100,000 GPUs has weights
    from 1 to (αh)^K/K!, far outside a double, and their logarithms are not: Erlang's B is
    then π_k over the sum to k, and a gang's up share the sum to k* over the sum to K,
    each sum taken in logarithms (log-sum-exp), with no level underflowing to 0.
    """
    weight = erlang_stationary().subs(sp.Symbol("pi_0", positive=True), 1)
    logarithm = sp.expand_log(sp.log(weight), force=True).xreplace({level: any_level})
    return _log_gamma_form(logarithm)


def _log_gamma_form(expression: sp.Expr) -> sp.Expr:
    """``expression`` with every log k! (or log Γ(x)) written log Γ, which a double holds
    where Γ itself overflows."""
    return expression.rewrite(sp.gamma).replace(
        lambda e: isinstance(e, sp.log) and isinstance(e.args[0], sp.gamma),
        lambda e: sp.loggamma(e.args[0].args[0], evaluate=False))


@cache
def pool_preemption_rate() -> sp.Expr:
    """λ_c = α B_{k*}: a gang's preemptions per hour it is up.

    The gang is taken by a request that arrives at k = k*, so in stationarity it leaves
    its up set {0, …, k*} at απ_{k*} per hour (the flow across the cut), and it is up a
    share Σ_{j≤k*} π_j of the time: per up hour, απ_{k*}/Σ_{j≤k*} π_j, α times Erlang's
    B with k* servers and load αh.  Arrivals see time averages (Wolff's PASTA), and the
    chain's stationary law is the same for any holding time of mean h (Sevastyanov's
    insensitivity of M/G/c/c), so λ_c holds for any holding-time distribution.
    """
    j = sp.Symbol("j", nonnegative=True, integer=True)
    pi_j = erlang_stationary().subs(level, j)
    flow = alpha * pi_j.subs(j, star_level)
    return (flow / sp.Sum(pi_j, (j, 0, star_level))).subs(sp.Symbol("pi_0", positive=True), 1)


@cache
def pool_preemption_rate_from_b() -> sp.Expr:
    """λ_c = α B_{k*}: :func:`pool_preemption_rate` with its sum written as π_{k*}/B_{k*}
    (Erlang's B is π at the top over the sum), for the numerics."""
    rate = pool_preemption_rate()
    (total,) = rate.atoms(sp.Sum)
    top = erlang_stationary().subs({level: star_level, sp.Symbol("pi_0", positive=True): 1})
    return sp.simplify(rate.subs(total, top / b_star))


@cache
def pool_up_share() -> sp.Expr:
    """log U = log B_K − log B_{k*} + log K! − log k*! − (K − k*) log αh.

    U = Σ_{j≤k*} π_j / Σ_{j≤K} π_j, the share of time at most k* requests are in service.
    Each sum is π at its top level over Erlang's B there, so U = (B_K/B_{k*})(π_{k*}/π_K),
    written in logarithms: π_{k*}/π_K = K!/(k*!(αh)^{K−k*}) overflows long before U does.
    """
    pi_k = erlang_stationary()
    ratio = sp.combsimp(pi_k.subs(level, star_level) / pi_k.subs(level, top_level))
    share = sp.expand_log(sp.log(b_top / b_star * ratio), force=True)
    return _log_gamma_form(share)


@cache
def readmission_wait() -> sp.Expr:
    """W = (1 − U)/(U λ_c): the mean wait of a preempted gang for re-admission.

    Renewal–reward over cycles of an up time and a down time: cycles start at
    U λ_c per hour (the flow out of the up set), so the mean up time is U/(U λ_c) and the
    mean down time (1 − U)/(U λ_c).  Like λ_c, insensitive to the holding-time law.
    """
    cycles = sp.Symbol("nu", positive=True)
    up_mean, down_mean = sp.symbols("u_m d_m", positive=True)
    solved = sp.solve([sp.Eq(cycles * up_mean, up_share), sp.Eq(cycles * down_mean, 1 - up_share),
                       sp.Eq(cycles, up_share * pool_rate)], [cycles, up_mean, down_mean],
                      dict=True)[0]
    return sp.simplify(solved[down_mean])


@cache
def readmission_wait_sums() -> sp.Expr:
    """W = Σ_{j>k*} π_j/(α π_{k*}): :func:`readmission_wait` from the stationary sums.

    With A = Σ_{j≤k*} π_j and Ā = Σ_{j>k*} π_j, the up share is U = A/(A + Ā) and the
    rate λ_c = απ_{k*}/A (:func:`pool_preemption_rate`); substituted into
    W = (1 − U)/(Uλ_c), the sum A cancels.  A ratio of positive sums, taken in
    logarithms: it stays exact where 1 − U rounds to 0 (a gang up nearly always) and where
    π_{k*} underflows (one almost never up).
    """
    below = sp.Symbol("A", positive=True)
    wait = readmission_wait().subs({up_share: below / (below + above_sum),
                                    pool_rate: alpha * weight_star / below})
    return sp.simplify(wait)


@cache
def pool_restart_time() -> sp.Expr:
    """X = W e^{λR} + (e^{λR} − 1)/λ: from a preemption until training runs again.

    The gang waits W for re-admission, then starts up for R hours, which a preemption
    (at λ = λ_c per up hour, taken as exponential) may interrupt; each interruption costs
    the start-up so far and a new wait: X = W + ∫₀^R e^{−λt} dt + (1 − e^{−λR}) X.
    """
    wait, total = wait_h, sp.Symbol("X")
    survive = sp.exp(-lam * R)
    equation = sp.Eq(total, wait + sp.integrate(sp.exp(-lam * t), (t, 0, R))
                     + (1 - survive) * total)
    return sp.simplify(_solve_linear(equation, total))


def _passage_rates() -> tuple[sp.Expr, sp.Expr]:
    """The chain's rates at level k: up (α) and down (k/h)."""
    return alpha, level / hold


@cache
def passage_mean_step() -> sp.Expr:
    """m_k = (1 + k m_{k−1}/h)/α: the mean time from k to k + 1 requests in service.

    First step: the chain leaves k after an exponential time of rate α + k/h, up with
    chance α/(α + k/h), else down to k − 1, from where it must climb back (m_{k−1}) and
    start again (m_k).  A gang re-admitted at k* is preempted when the chain first
    reaches k* + 1, so its mean up time is m_{k*} (= 1/λ_c, a check in the tests).
    """
    up, down = _passage_rates()
    mean = sp.Symbol("m_k", positive=True)
    leave = up + down
    equation = sp.Eq(mean, 1 / leave + down / leave * (m_below + mean))
    return sp.simplify(_solve_linear(equation, mean))


@cache
def passage_second_moment_step() -> sp.Expr:
    """s_k: the second moment of the time from k to k + 1, from the level below.

    The passage is τ_k = X + D(τ_{k−1} + τ'_k), X exponential of rate α + k/h, D the
    chance-(k/h)/(α + k/h) step down, the three parts independent; squaring and taking
    expectations gives a linear equation in s_k.  The coefficient of variation of a gang's
    up time is √(s_{k*}/m_{k*}² − 1).
    """
    up, down = _passage_rates()
    leave = up + down
    second, mean_k = sp.Symbol("s_k", positive=True), passage_mean_step()
    mean_x, second_x = 1 / leave, 2 / leave**2
    stay = down / leave
    expected = second_x + 2 * mean_x * stay * (m_below + mean_k) + stay * (
        s_below + 2 * m_below * mean_k + second)
    return sp.simplify(_solve_linear(sp.Eq(second, expected), second))


@cache
def passage_down_step() -> sp.Expr:
    """d_k = h(1 + α d_{k+1})/k: the mean time from k to k − 1 requests in service.

    First step: the chain leaves k after an exponential time of rate α + k/h, down with
    chance (k/h)/(α + k/h), else up to k + 1, from where it must come back (d_{k+1}) and
    start again (d_k).  At the top, K, arrivals are turned away: d_K = h/K (the step with
    no level above).  A preempted gang waits for the chain to fall from k* + 1 to k*, so
    its mean wait is d_{k*+1}: a sum of positive terms that stays exact where
    :func:`readmission_wait`'s 1 − U is lost to rounding (a gang up nearly always); the
    tests hold the two equal.
    """
    up, down = _passage_rates()
    mean = sp.Symbol("d_k", positive=True)
    leave = up + down
    equation = sp.Eq(mean, 1 / leave + up / leave * (d_above + mean))
    return sp.simplify(_solve_linear(equation, mean))


# -- 11b. queued requests: a waiting line, as Kueue and Slurm keep -----------------------------
# A request that finds all K places taken waits in line (first come, first served) instead
# of being turned away: the count n of requests in the pool, in service or waiting, is the
# M/M/K chain, up at α at every level and down at min(n, K)/h.  Below K it is Erlang's
# chain; a gang is up only there (k* < K), so its rate and up-time law do not change, and
# only the weight of the levels above K, the line's, enters its up share and its wait.
queue_place = sp.Symbol("m", integer=True, nonnegative=True)  # requests waiting in line
weight_top = sp.Symbol(r"\pi_K", positive=True)  # π_K, all places taken and no line
log_weight_top = sp.Symbol(r"\log\pi_K", real=True)
wait_share = sp.Symbol("P_W", positive=True)  # the share of requests that wait (Erlang C)
quantile_share = sp.Symbol("q", positive=True)  # the share allowed to wait longer


@cache
def queue_weight() -> sp.Expr:
    """π_{K+m} = π_K (αh/K)^m: the stationary law along the line.

    Above K every place is taken, so the chain leaves down at K/h: detailed balance
    απ_{K+m−1} = (K/h)π_{K+m}, a first-order recurrence (SymPy's ``rsolve``) from π_K.
    """
    line = sp.Function("pi_line")
    balance = alpha * line(queue_place - 1) - top_level / hold * line(queue_place)
    return sp.rsolve(balance, line(queue_place), {line(0): weight_top})


@cache
def queue_tail() -> sp.Expr:
    """Σ_{m≥1} π_{K+m} = π_K αh/(K − αh): the line's weight, a geometric sum.

    It converges only for a load below the places, αh < K; above it the line grows
    without end (the command refuses such a load with a line).
    """
    return sp.simplify(_converging(sp.summation(queue_weight(), (queue_place, 1, sp.oo))))


def _converging(total: sp.Expr) -> sp.Expr:
    """A sum SymPy gives as a Piecewise, by whether it converges: its first branch, the
    one for a load below the places (αh < K), which the numerics require."""
    folded = sp.piecewise_fold(total)
    return folded.args[0][0] if isinstance(folded, sp.Piecewise) else folded


@cache
def erlang_c() -> sp.Expr:
    """P_W = K B_K/(K − αh + αh B_K): the share of requests that wait (Erlang's C).

    Arrivals see time averages, so it is the chance of n ≥ K: π_K plus the line's weight
    (:func:`queue_tail`) over the total, Σ_{j≤K} π_j = π_K/B_K plus the line's; π_K
    cancels, leaving Erlang's B at K places.
    """
    line = queue_tail()
    share = (weight_top + line) / (weight_top / b_top + line)
    return sp.factor(sp.simplify(share))


@cache
def queue_wait_survival() -> sp.Expr:
    """P(wait > t) = P_W e^{−(K/h − α)t}: how long a request waits in line.

    One that waits finds m ≥ 0 others in line with chance (1 − αh/K)(αh/K)^m and waits for
    m + 1 departures, each exponential of rate K/h: its Laplace transform, a geometric sum
    (SymPy), is that of an exponential of rate K/h − α, and SymPy inverts it.
    """
    s, places = sp.Symbol("s", positive=True), sp.Symbol("j", integer=True, positive=True)
    leave, stay = top_level / hold, 1 - alpha * hold / top_level
    transform = _converging(sp.summation(
        stay * (1 - stay) ** (places - 1) * (leave / (leave + s)) ** places, (places, 1, sp.oo)))
    density = sp.inverse_laplace_transform(sp.simplify(transform), s, t)
    tail = sp.integrate(density.subs(sp.Heaviside(t), 1), (t, t, sp.oo), conds="none")
    return sp.simplify(wait_share * tail)


@cache
def queue_wait_quantile() -> sp.Expr:
    """t_q = log(P_W/q)/(K/h − α): the wait all but a share q of requests stay within,
    :func:`queue_wait_survival` set to q and solved (0 where P_W ≤ q)."""
    (root,) = sp.solve(sp.Eq(queue_wait_survival(), quantile_share), t)
    return sp.expand_log(root, force=True)  # h log P_W − h log q: no power of P_W to underflow


def _solve_linear(equation: sp.Eq, unknown: sp.Symbol) -> sp.Expr:
    """The one root of an equation linear in ``unknown``."""
    (root,) = sp.solve(equation, unknown)
    return root


# -- the named, citable results -----------------------------------------------------------
_STAR = sp.Symbol("T^{*}")
_DERIVATIONS = {
    "lost-work": lambda: Derivation(
        "lost-work", "Work lost per preemption, first order", sp.Symbol(r"\ell_1"),
        lost_work_first_order(), "Mean of a preemption time uniform on [0, T]."),
    "lost-work-exact": lambda: Derivation(
        "lost-work-exact", "Work lost per preemption, Poisson preemptions",
        sp.Symbol(r"\ell"), lost_work_exact(),
        "Mean of an exponential(λ) preemption time conditioned to fall in [0, T]; "
        "its limit λ → 0 is T/2."),
    "lost-work-series": lambda: Derivation(
        "lost-work-series", "Work lost per preemption, expanded in the preemption rate",
        sp.Symbol(r"\ell"), lost_work_series(),
        "Series of the exact loss in λ: T/2 is its first term, and the next is negative."),
    "waste-preemptions": lambda: Derivation(
        "waste-preemptions", "First-order waste fraction from preemptions alone",
        sp.Symbol("w_1"), waste_first_order(),
        "λ preemptions per hour of wall time, each losing T/2 of work and R of restart."),
    "waste": lambda: Derivation(
        "waste", "First-order waste fraction", sp.Symbol("w_1"),
        waste_first_order_with_checkpoint(),
        "λ preemptions per hour, each losing T/2 + R, plus one write of C per T."),
    "young": lambda: Derivation(
        "young", "Young's optimal checkpoint interval", _STAR, young_interval(),
        "Root of the derivative of the first-order waste in T (Young 1974)."),
    "young-waste": lambda: Derivation(
        "young-waste", "First-order waste at Young's interval", sp.Symbol("w_1^{*}"),
        young_waste(), "The first-order waste evaluated at Young's interval."),
    "daly": lambda: Derivation(
        "daly", "Daly's higher-order optimal interval", _STAR, daly_interval(),
        "Series of the exact optimum in √(λC) to third order (Daly 2006)."),
    "exact-optimum": lambda: Derivation(
        "exact-optimum", "Exact optimal interval, Poisson preemptions", _STAR,
        exact_interval(), "Root of d/dT (E/T) = 0 in closed form (Lambert W, principal branch)."),
    "exact-segment-time": lambda: Derivation(
        "exact-segment-time", "Expected wall time of one segment (restart preemptible)",
        sp.Symbol("E"), segment_time_preemptible_restart(),
        "Renewal equation; after a preemption R + T + C must run uninterrupted (Daly 2006)."),
    "exact-segment-time-protected": lambda: Derivation(
        "exact-segment-time-protected",
        "Expected wall time of one segment (restart not preemptible)", sp.Symbol("E"),
        segment_time_protected_restart(),
        "Renewal equation; each preemption costs the time run so far plus R."),
    "exact-waste": lambda: Derivation(
        "exact-waste", "Exact waste fraction (restart preemptible)", sp.Symbol("w"),
        waste_exact(True), "1 − T/E: the share of wall time not spent computing."),
    "break-even": lambda: Derivation(
        "break-even", "Longest checkpoint interval at which spot still pays (first order)",
        sp.Symbol(r"T_{\mathrm{be}}"), break_even_intervals_first_order()[1],
        "Larger root of C/T + λ(T/2 + R) = d: spot pays while its waste is below d."),
    "break-even-no-checkpoint": lambda: Derivation(
        "break-even-no-checkpoint",
        "Longest checkpoint interval at which spot pays, free checkpoints (first order)",
        sp.Symbol(r"T_{\mathrm{be}}"),
        break_even_no_checkpoint(),
        "The break-even interval with C = 0: λ(T/2 + R) = d solved for T."),
    "gang-rate": lambda: Derivation(
        "gang-rate", "Preemption rate of a synchronous gang of N nodes",
        sp.Symbol(r"\lambda_N"), gang_rate(),
        "Hazard of the first of N independent exponential(λ) preemptions."),
    "gang-survival": lambda: Derivation(
        "gang-survival", "Probability a gang of N nodes survives an interval T",
        sp.Symbol("P"), gang_survival(), "Product of N independent survival probabilities."),
    "max-gang": lambda: Derivation(
        "max-gang", "Gang size at which spot breaks even at Young's interval",
        sp.Symbol(r"N_{\max}"), max_gang_first_order(),
        "Root of √(2NλC) + NλR = d in N (first order); spot pays below it."),
    "never-on-spot": lambda: Derivation(
        "never-on-spot", "Gang size at which spot never pays, even with free checkpoints",
        sp.Symbol(r"N_{\mathrm{never}}"), never_on_spot_gang("first-order"),
        "With C = 0 and T → 0 the first-order waste is NλR; it reaches d here."),
    "never-on-spot-exact": lambda: Derivation(
        "never-on-spot-exact",
        "Gang size at which spot never pays, exact model (restart preemptible)",
        sp.Symbol(r"N_{\mathrm{never}}"), never_on_spot_gang("exact", True),
        "With C = 0 and T → 0 the exact waste is 1 − e^{−NλR}; it reaches d here."),
    "interrupted-fraction": lambda: Derivation(
        "interrupted-fraction", "Chance an instance running H hours is interrupted",
        sp.Symbol("F"), interrupted_fraction(),
        "One minus the survival e^{−λH} of one node over its H hours of running."),
    "bucket-rate": lambda: Derivation(
        "bucket-rate", "Preemption rate implied by an interrupted fraction",
        sp.Symbol(r"\lambda"), bucket_rate(),
        "The interrupted fraction 1 − e^{−λH} = F solved for λ."),
    "observed-rate": lambda: Derivation(
        "observed-rate", "Failure rate per unit from a published failure count",
        sp.Symbol(r"\hat{\lambda}"), observed_rate(),
        "Maximum of the Poisson log-likelihood m log(λnτ) − λnτ in λ."),
    "checkpoint-write": lambda: Derivation(
        "checkpoint-write", "Blocking time of one checkpoint from state size and bandwidth",
        sp.Symbol("C"), checkpoint_write_time(),
        "q bytes for each of p parameters, written at B bytes per hour."),
    "elastic-waste": lambda: Derivation(
        "elastic-waste", "First-order waste of an elastic job of N replicas",
        sp.Symbol(r"w_{\mathrm{el}}"), elastic_waste(),
        "Nλ preemptions per hour, each pausing N replicas twice for P plus one restart R, "
        "per N node-hours."),
    "useful-hour-price": lambda: Derivation(
        "useful-hour-price", "Price of a useful hour against the on-demand price",
        sp.Symbol(r"\pi"), useful_hour_price(),
        "A paid hour costs 1 − g and yields a(1 − w) useful hours."),
    "weibull-hazard": lambda: Derivation(
        "weibull-hazard", "Preemption rate at an instance's age, Weibull lifetimes",
        sp.Symbol("h"), weibull_hazard(),
        "−d/dt log of the survival e^{−(t/σ)^k}; constant 1/σ when k = 1."),
    "weibull-mean": lambda: Derivation(
        "weibull-mean", "Mean lifetime of a Weibull instance", sp.Symbol(r"\bar{L}"),
        weibull_mean(), "Integral of the survival e^{−(t/σ)^k} over all ages."),
    "weibull-likelihood": lambda: Derivation(
        "weibull-likelihood", "Log-likelihood of right-censored Weibull lifetimes",
        sp.Symbol(r"\ell"), weibull_log_likelihood(),
        "m complete lifetimes add log h + log S, censored ones log S; "
        "Λ = Σ log t (complete), G = Σ t^k (all)."),
    "weibull-scale-mle": lambda: Derivation(
        "weibull-scale-mle", "Maximum-likelihood Weibull scale for a given shape",
        sp.Symbol(r"\hat{\sigma}"), weibull_scale_mle(),
        "Root of the derivative of the censored log-likelihood in σ."),
    "weibull-profile-likelihood": lambda: Derivation(
        "weibull-profile-likelihood", "Profile log-likelihood of the Weibull shape",
        sp.Symbol(r"\ell_p"), weibull_profile_log_likelihood(),
        "The censored log-likelihood at the best scale for each shape k."),
    "local-rate-interval": lambda: Derivation(
        "local-rate-interval", "Checkpoint interval at an instance's age (local rate)",
        sp.Symbol(r"\tau"), local_rate_interval(),
        "Young's interval with λ replaced by the Weibull hazard at age t "
        "(Ling, Mi and Lin 2001)."),
    "local-rate-first-interval": lambda: Derivation(
        "local-rate-first-interval",
        "First local-rate interval of a new instance when k > 1 and R = 0",
        sp.Symbol(r"\tau_0"), local_rate_first_interval(),
        "The interval τ with √(2C/h(τ)) = τ: the hazard at age 0 is 0 when k > 1."),
    "bulk-gang-rate": lambda: Derivation(
        "bulk-gang-rate", "Preemption rate of a gang of N under bulk reclaims",
        sp.Symbol(r"\lambda_N"), bulk_gang_rate(),
        "Hazard of the first of N node clocks at (1 − ρ)λ and one bulk clock at ρλ."),
    "bulk-fraction": lambda: Derivation(
        "bulk-fraction", "Bulk-reclaim share that explains a gang's measured rate",
        sp.Symbol(r"\rho"), bulk_fraction(),
        "The bulk gang rate (N(1 − ρ) + ρ)λ = r solved for ρ."),
    "async-interval-time": lambda: Derivation(
        "async-interval-time",
        "Expected wall time per interval, asynchronous checkpoints (restart preemptible)",
        sp.Symbol("E_P"), async_interval_time(True),
        "Renewal equation: a preemption within P of a snapshot also loses the interval "
        "before it; E_P = e^{λP}E, so the optimum does not move with P."),
    "notice-waste": lambda: Derivation(
        "notice-waste",
        "Exact waste with a preemption notice and asynchronous checkpoints "
        "(restart preemptible)", sp.Symbol("w"), waste_notice(True),
        "Markov renewal-reward over cycles from the start of an interval; announced "
        "preemptions while computing lose C_n, others roll back to the last durable "
        "checkpoint."),
    "notice-waste-floor": lambda: Derivation(
        "notice-waste-floor", "Exact waste without periodic checkpoints, with a notice",
        sp.Symbol(r"w_{\infty}"), notice_waste_floor(True),
        "Limit T → ∞ of the exact waste: only on-notice checkpoints save work."),
    "notice-first-order": lambda: Derivation(
        "notice-first-order", "First-order waste with a notice and asynchronous checkpoints",
        sp.Symbol("w_1"), waste_first_order_notice(),
        "Unannounced preemptions lose T/2 + R, and T more within P of a snapshot; "
        "announced ones C_n + R; plus C per T."),
    "notice-first-order-optimum": lambda: Derivation(
        "notice-first-order-optimum", "First-order optimal interval with a notice",
        _STAR, first_order_notice_interval(),
        "Root of the derivative of the first-order waste: Young's interval at (1 − q)λ."),
    "notice-optimality": lambda: Derivation(
        "notice-optimality", "Slope factor of the exact optimality condition with a notice",
        sp.Symbol(r"\ell"), notice_optimality_condition()[1],
        "g'(T) = e^{λ(T+C)}ℓ(T) with ℓ linear in T: g has at most one root on each side of "
        "ℓ's root."),
    "two-level-rollback-chance": lambda: Derivation(
        "two-level-rollback-chance",
        "Chance an event rolls back to the durable copy (restart preemptible)",
        sp.Symbol("c"), two_level_rollback_chance(True),
        "The event destroys the fast copies (p), or the fast restart after it is hit by "
        "one that does before it completes."),
    "two-level-recovery-scale": lambda: Derivation(
        "two-level-recovery-scale",
        "Mean gap between events plus the expected restart (restart preemptible)",
        sp.Symbol(r"\Theta"), two_level_recovery_scale(True),
        "1/λ plus the expected time from an event until a restart of either level is done."),
    "two-level-period": lambda: Derivation(
        "two-level-period", "Expected wall time between durable writes, two levels",
        sp.Symbol("E_1"), _two_level_period_general()[0],
        "Renewal equations of the n segments, E_i = αE_{i+1} + (1 − α)E_1 + κ, unrolled as "
        "a geometric series; u_1 = e^{λ(T+C_1)} − 1, u_2 = e^{λ(T+C)} − 1."),
    "two-level-waste": lambda: Derivation(
        "two-level-waste", "Exact waste fraction, two checkpoint levels",
        sp.Symbol("w"), 1 - n2 * T / sp.Symbol("E_1"),
        "n segments of T compute kept per period of expected length E_1."),
    "two-level-optimality": lambda: Derivation(
        "two-level-optimality", "Condition for the best interval T at a given n",
        sp.Symbol("h"), T * sp.Derivative(sp.Symbol("E_1"), T) - sp.Symbol("E_1"),
        "d/dT (E_1/T) has the sign of h; E_1 is convex in T, so h increases and has one "
        "root."),
    "two-level-first-order": lambda: Derivation(
        "two-level-first-order", "First-order waste, two checkpoint levels",
        sp.Symbol("w_1"), waste_first_order_two_level(),
        "n − 1 fast writes and a durable one per nT; events that spare the fast copies "
        "lose T/2 + R_1, the others nT/2 + R."),
    "two-level-first-order-optimum": lambda: Derivation(
        "two-level-first-order-optimum",
        "First-order optimal interval between durable writes (n continuous)",
        sp.Symbol("nT^{*}"), two_level_first_order_optimum()[1],
        "Root of the first-order waste's derivative in T_2 = nT; the fast interval is "
        "Young's at (1 − p)λ and C_1."),
    "two-level-persist-period": lambda: Derivation(
        "two-level-persist-period",
        "Expected wall time between snapshots, asynchronous durable writes",
        sp.Symbol("E_P"), two_level_persist_period().subs(
            two_level_period_time(True), sp.Symbol("E_1")),
        "Only a rollback to the durable level within P of a snapshot (chance 1 − e^{−pλP}, "
        "as a period lasts at least nT ≥ P) redoes the period before: "
        "E_P = E_1 + (1 − e^{−pλP})E_P."),
    "two-level-persist-first-order": lambda: Derivation(
        "two-level-persist-first-order",
        "First-order waste, two levels with asynchronous durable writes",
        sp.Symbol("w_1"), waste_first_order_two_level_persist(),
        "As two-level-first-order, and a D event within P of a snapshot loses one more "
        "period."),
    "erlang-stationary": lambda: Derivation(
        "erlang-stationary", "Requests in service in a shared pool: the stationary law",
        sp.Symbol(r"\pi_k"), erlang_stationary(),
        "Detailed balance απ_{k−1} = (k/h)π_k of Erlang's birth–death chain, solved as a "
        "recurrence (Erlang 1917)."),
    "erlang-b-step": lambda: Derivation(
        "erlang-b-step", "Erlang's B, one level at a time", sp.Symbol("B_k"),
        erlang_b_step(), "1/B_k = 1 + (π_{k−1}/π_k)/B_{k−1}, with B_0 = 1."),
    "erlang-log-weight": lambda: Derivation(
        "erlang-log-weight", "The stationary law's weights in logarithms",
        sp.log(sp.Symbol(r"\pi_k") / sp.Symbol(r"\pi_0")), erlang_log_weight(),
        "The logarithm of the stationary law, log k! written log Γ(k + 1): Erlang's B and "
        "the up share are then ratios of sums taken in logarithms, for any pool size."),
    "pool-preemption-rate": lambda: Derivation(
        "pool-preemption-rate", "A gang's preemptions per up hour in a shared pool",
        pool_rate, pool_preemption_rate(),
        "The flow απ_{k*} out of the gang's up set {0, …, k*} over its share of time: "
        "α times Erlang's B with k* servers; any holding time of mean h."),
    "pool-up-share": lambda: Derivation(
        "pool-up-share", "Share of time a gang is up in a shared pool (logarithm)",
        sp.log(up_share), pool_up_share(),
        "Σ_{j≤k*}π_j over Σ_{j≤K}π_j, each sum its top π over Erlang's B."),
    "readmission-wait": lambda: Derivation(
        "readmission-wait", "Mean wait of a preempted gang for re-admission",
        sp.Symbol("W"), readmission_wait(),
        "Renewal–reward: cycles of an up and a down time start Uλ_c times an hour."),
    "readmission-wait-sums": lambda: Derivation(
        "readmission-wait-sums", "Mean wait for re-admission, from the stationary sums",
        sp.Symbol("W"), readmission_wait_sums(),
        "U = A/(A + Ā) and λ_c = απ_{k*}/A substituted into W = (1 − U)/(Uλ_c): the weight "
        "of the levels above k* over α times the weight at k*."),
    "passage-mean-step": lambda: Derivation(
        "passage-mean-step", "Mean time from k to k + 1 requests in service",
        sp.Symbol("m_k"), passage_mean_step(),
        "First step of the chain from k; a gang's mean up time is m_{k*}."),
    "passage-second-moment-step": lambda: Derivation(
        "passage-second-moment-step", "Second moment of the time from k to k + 1",
        sp.Symbol("s_k"), passage_second_moment_step(),
        "Square the first-step decomposition τ_k = X + D(τ_{k−1} + τ′_k) and take "
        "expectations; the up time's CV is √(s_{k*}/m_{k*}² − 1)."),
    "passage-down-step": lambda: Derivation(
        "passage-down-step", "Mean time from k to k − 1 requests in service",
        sp.Symbol("d_k"), passage_down_step(),
        "First step of the chain from k; a preempted gang's mean wait is d_{k*+1}."),
    "queue-weight": lambda: Derivation(
        "queue-weight", "Requests waiting in line: the stationary law above the places",
        sp.Symbol(r"\pi_{K+m}"), queue_weight(),
        "Detailed balance απ_{K+m−1} = (K/h)π_{K+m}: every place is taken, so the chain "
        "leaves at K/h."),
    "queue-tail": lambda: Derivation(
        "queue-tail", "The weight of the waiting line", sp.Symbol(r"\bar{A}_{\mathrm{line}}"),
        queue_tail(), "A geometric sum of the line's stationary law, for a load below K."),
    "erlang-c": lambda: Derivation(
        "erlang-c", "Erlang's C: the share of requests that wait", wait_share, erlang_c(),
        "Arrivals see time averages: the chance of K or more in the pool, from Erlang's B "
        "and the line's weight."),
    "queue-wait": lambda: Derivation(
        "queue-wait", "How long a request waits in line", sp.Symbol(r"P(\text{wait} > t)"),
        queue_wait_survival(),
        "A geometric number of departures at K/h: an exponential wait of rate K/h − α, by "
        "its Laplace transform."),
    "queue-wait-quantile": lambda: Derivation(
        "queue-wait-quantile", "The wait all but a share q of requests stay within",
        sp.Symbol("t_q"), queue_wait_quantile(), "queue-wait set to q and solved for t."),
    "pool-restart-time": lambda: Derivation(
        "pool-restart-time", "From a preemption in a shared pool until training runs again",
        sp.Symbol("X"), pool_restart_time(),
        "Renewal equation: the wait W, then a start-up R that a preemption at λ_c sends "
        "back to a new wait."),
}

#: The stable names of all derivations, in the order the book introduces them.
NAMES: tuple[str, ...] = tuple(_DERIVATIONS)


def derivation(name: str) -> Derivation:
    """The derivation called ``name`` (one of :data:`NAMES`)."""
    from ..inputs import check_choice

    return _DERIVATIONS[check_choice("derivation", name, NAMES)]()
