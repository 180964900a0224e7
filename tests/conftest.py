"""Shared by the library's tests (tests/lib) and the book's (tests/book): settings, and the
helpers more than one test module uses, as fixtures (no test module imports another).

Nothing here imports Jupyter: `pytest tests/lib` runs with the library and its test extra.
"""

import collections
import contextlib
import csv
import functools
import gc
import importlib
import io
import json
import math
import os
import pkgutil
import subprocess
from pathlib import Path

# Before NumPy loads: the test workers run side by side, one per core (pytest-xdist), and
# so do the kernels they start (inheriting this), so each keeps to one linear-algebra
# thread, as the book's executor gives its workers (spotmath.book.executing.THREAD_VARIABLES;
# not imported from there, which would load NumPy first).  A variable already set is kept.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
# Before the test modules import NumPy, SciPy, SymPy and Hypothesis: Python's cyclic
# garbage collector collects its first generation every 10,000 allocations rather than
# 700, so it walks what those imports keep less often (pytest_collection_finish), as the
# book's kernels do (spotmath.book.chapters.GC_THRESHOLDS; not imported from there).
gc.set_threshold(10_000, 10, 10)

import numpy as np
import pytest

#: The checkout these tests belong to (its data, README and references), wherever spotmath
#: itself is installed from.
ROOT = Path(__file__).resolve().parent.parent
TRACES = ROOT / "book" / "data" / "traces"


def pytest_configure(config):
    """Hypothesis's settings for the processes that run tests, before they collect any (a
    test's ``@settings`` takes what it leaves unset from the profile loaded then).

    Some examples solve a whole programme or plan (a second or more): no per-example
    deadline.  A pytest-xdist controller runs no test: it starts its workers without
    importing Hypothesis (nor SciPy's statistics, which the fixtures import when used).
    """
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return
    from hypothesis import settings

    settings.register_profile("spotmath", deadline=None, max_examples=100)
    settings.load_profile("spotmath")


def pytest_collection_modifyitems(items):
    """The tests marked ``derives`` first, in their order, then the others in theirs.

    SymPy's derivations are cached in each process and take seconds; pytest-xdist's work
    stealing hands each worker a contiguous share of this order, so one worker's share
    starts with every such test and derives each formula once (a worker that runs out
    takes over tests from the end of another's share, not its beginning).
    """
    items.sort(key=lambda item: item.get_closest_marker("derives") is None)


def pytest_collection_finish(session):
    """Python's cyclic garbage collector spared what every test keeps alive.

    Once collected, a test process holds the libraries it imported (NumPy, SciPy, SymPy,
    Hypothesis: some 170,000 objects) to the end, and each of Python's full collections
    would walk them all again.  Frozen, the collector leaves them out.  Only when
    unreachable cycles are freed changes, never a result.
    """
    gc.collect()
    gc.freeze()


@functools.cache
def _library_modules(public: bool = False) -> tuple[str, ...]:
    """The library's package and modules (``public``: those whose names start with no
    underscore), spotmath.book's left out (tests/book checks them), and the training
    adapters (:data:`ADAPTERS`), and not imported:
    ``pkgutil.walk_packages`` imports each package it looks into, and the book's wording
    loads matplotlib and most of the library, in every test process."""
    import spotmath

    names = ["spotmath"]
    for top in pkgutil.iter_modules(spotmath.__path__, "spotmath."):
        if top.name in ("spotmath.book", "spotmath.__main__"):
            continue
        names.append(top.name)
        if top.ispkg:
            package = importlib.import_module(top.name)
            names += [name for _, name, _ in pkgutil.walk_packages(package.__path__,
                                                                   f"{top.name}.")]
    return tuple(sorted(name for name in names if name not in ADAPTERS
                        and not (public and name.rpartition(".")[2].startswith("_"))))


#: The training loop's adapters, which import their frameworks (PyTorch and what it pulls
#: in): checked apart, in tests/lib/test_training_frameworks.py.
ADAPTERS = ("spotmath.training.huggingface", "spotmath.training.lightning")


def pytest_generate_tests(metafunc):
    """A test that takes ``library_module`` runs for each of the library's modules (its
    private ones too); one that takes ``public_module``, for each public one."""
    if "library_module" in metafunc.fixturenames:
        metafunc.parametrize("library_module", _library_modules())
    if "public_module" in metafunc.fixturenames:
        metafunc.parametrize("public_module", _library_modules(public=True))


@pytest.fixture(scope="session")
def public_modules() -> tuple[str, ...]:
    """The library's public modules, each a ``public_module``."""
    return _library_modules(public=True)


def _run(*args):
    """Run the command in this process (fast); the same parser and handlers as the script."""
    from spotmath.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as stop:  # argparse's --help, --version and usage errors
            code = stop.code
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def _plan_json(*args) -> dict:
    result = _run("plan", "--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="session")
def checkout() -> Path:
    """The checkout these tests belong to."""
    return ROOT


@pytest.fixture(scope="session")
def traces_folder() -> Path:
    """The book's published traces, ``book/data/traces/`` in this checkout."""
    return TRACES


@pytest.fixture
def cli():
    """``cli("plan", "--json")``: the command run in this process, as a CompletedProcess."""
    return _run


#: What a user might type: other scripts' digits, underflow and overflow, hexadecimal,
#: a clock time, separators, whitespace, nothing, signs, words.
ODD_VALUES = [
    "\u0664", "\u0661\u0660", "1e-320", "1e309", "-1e309", "0x10", "4:00", "1_000", " ", "",
    "-0", "+0", "nan", "inf", "-inf", "0", "1e-3", "2.5", "1e6", "90s", "10min", "4h",
    "1.5d", "60%", "1/h", "0.3/h", "-4h", "4 hours", "4 parsecs", "1e-9s",
    "999999999999999999999", "\u00bd", "\t4\n"]


@pytest.fixture(scope="session")
def odd_values():
    """A Hypothesis strategy of odd strings (:data:`ODD_VALUES`, or any short text)."""
    from hypothesis import strategies as st

    return st.one_of(st.sampled_from(ODD_VALUES), st.text(max_size=6))


@pytest.fixture
def plan_json():
    """``plan_json("--gang-size", "8")``: what ``spotmath plan --json`` prints, parsed."""
    return _plan_json


@pytest.fixture
def separates_at_break_even():
    """``separates_at_break_even(rate, values, losses)``: the two-level break-even share
    (strictly between 0 and 1) splits ``losses`` into those where the optimum writes fast
    copies between durable ones (below it) and those where it does not."""
    from spotmath.model import two_level

    def check(rate: float, values: dict, losses) -> None:
        even = two_level.loss_break_even(rate, **values)
        assert 0 < even < 1
        for loss in losses:
            every = two_level.optimum(rate, level1_loss=loss, **values).level2_every
            if abs(loss - even) > 2e-6:
                assert (every > 1) == (loss < even), loss

    return check


@pytest.fixture
def z_limit():
    """``z_limit(comparisons)``: standard errors allowed when that many comparisons are
    checked at once at a 0.1% chance of a false alarm in all (Bonferroni)."""
    from scipy.stats import norm

    def limit(comparisons: int = 1, false_alarm: float = 0.001) -> float:
        return float(norm.isf(false_alarm / (2 * comparisons)))

    return limit


class PlanOracle:
    """What `spotmath plan` answers, for checking the page's calculator against it."""

    @staticmethod
    def python_plan(options: dict) -> tuple[dict, str | None]:
        """What `spotmath plan --json` prints for these options (or its one-line error), and
        the table it prints without --json.

        Both runs read and check every option and print as the command does; the table's
        run takes the plan the JSON's computed from the same checked values (``make_plan``
        is a function of its arguments), rather than solving it a second time.
        """
        from unittest import mock

        from spotmath.cli import plan as command

        solve, solved = command.make_plan, {}

        def make_plan_once(**values):
            key = tuple(sorted(values.items()))
            if key not in solved:
                solved[key] = solve(**values)
            return solved[key]

        argv = ["plan"] + [f"--{name}={value}" for name, value in options.items()]
        with mock.patch.object(command, "make_plan", make_plan_once):
            result = _run(*argv, "--json")
            if result.returncode != 0:
                message = result.stderr.strip().split(": error: ", 1)[1]
                return {"error": message.removesuffix(" (see --help)")}, None
            table = _run(*argv).stdout.removesuffix("\n")
        assert len(solved) == 1, solved  # the table's run asked for the JSON's plan
        return json.loads(result.stdout), table

    @staticmethod
    def random_options(rng: np.random.Generator) -> dict:
        """One parameter set from the whole valid range (and sometimes beyond it)."""
        def log_uniform(low, high):
            return math.exp(rng.uniform(math.log(low), math.log(high)))

        options = {}
        if rng.random() < 0.2:
            options["rate"] = f"{1 / log_uniform(5 / 60, 24 * 21):.6g}/h"
        else:
            options["mtbf"] = f"{log_uniform(5, 60 * 24 * 21):.6g}min"
        options["restart"] = "0" if rng.random() < 0.15 else f"{log_uniform(5, 7200):.6g}s"
        options["checkpoint"] = f"{log_uniform(1, 3600):.6g}s"
        discount = rng.choice([rng.uniform(0.01, 0.99), 0.001, 0.999, 0.5])
        options["discount"] = (f"{discount:.6g}" if rng.random() < 0.7
                               else f"{100 * discount:.4g}%")
        options["gang-size"] = (str(int(round(log_uniform(1, 10000)))) if rng.random() < 0.7
                            else "1")
        options["model"] = str(rng.choice(["exact", "first-order"]))
        options["restart-variant"] = str(rng.choice(["preemptible", "protected"]))
        if rng.random() < 0.4:
            options["notice"] = f"{log_uniform(10, 900):.6g}s"
            options["notice-share"] = str(rng.choice(["0", "1", f"{rng.uniform(0, 1):.4g}",
                                                      "90%"]))
            if rng.random() < 0.4:
                options["notice-write"] = f"{log_uniform(5, 600):.6g}s"
        if rng.random() < 0.3:
            options["persist"] = f"{log_uniform(1, 3600):.6g}s"
        if rng.random() < 0.12:  # the write from the state's size instead
            del options["checkpoint"]
            options["state"] = f"{log_uniform(0.05, 2000):.4g}{rng.choice(['GB', 'GiB'])}"
            options["write-bandwidth"] = f"{log_uniform(0.1, 50):.4g}GB/s"
            if rng.random() < 0.5:
                options.pop("persist", None)
                options["snapshot-bandwidth"] = f"{log_uniform(5, 100):.4g}GB/s"
        return options

    @staticmethod
    def random_two_level_options(rng: np.random.Generator) -> dict:
        """A parameter set with a fast level: mostly plannable (exact model, no notice,
        sometimes asynchronous durable writes), sometimes refused."""
        def log_uniform(low, high):
            return math.exp(rng.uniform(math.log(low), math.log(high)))

        options = PlanOracle.random_options(rng)
        if rng.random() < 0.8:
            options.pop("notice", None), options.pop("notice-share", None)
            options.pop("notice-write", None)
        if rng.random() < 0.85:
            options["model"] = "exact"
        if rng.random() < 0.6:
            options["restart-variant"] = "preemptible"
        options["gang-size"] = str(int(round(log_uniform(1, 64))))
        if rng.random() < 0.4:
            options["persist"] = f"{log_uniform(1, 600):.6g}s"
        options["level1"] = f"{log_uniform(0.5, 120):.6g}s"
        if rng.random() < 0.7:  # mostly no slower than the durable restart (else refused)
            durable = float(options["restart"].removesuffix("s"))
            top = 0.999 * durable if durable >= 5 and rng.random() < 0.85 else 1800
            options["level1-restart"] = f"{log_uniform(min(5, top), top):.6g}s"
        options["level1-loss"] = str(rng.choice(
            [f"{rng.uniform(0, 1):.4g}", "1", f"{log_uniform(1e-4, 0.05):.3g}", "30%"]))
        return options

    @staticmethod
    def assert_same_plan(options: dict, got: dict, expected: dict) -> None:
        assert got.keys() == expected.keys(), (options, got, expected)
        for key, want in expected.items():
            have = got[key]
            if isinstance(want, float) and isinstance(have, (int, float)):
                assert abs(have - want) <= 1e-9 * abs(want), (options, key, have, want)
            else:
                assert have == want and type(have) is type(want), (options, key, have, want)


@pytest.fixture
def plan_oracle():
    """``plan_oracle.python_plan(options)``, ``.random_options(rng)``,
    ``.assert_same_plan(options, got, expected)``."""
    return PlanOracle


class Bamboo:
    """The published EC2 traces, parsed here independently of spotmath's reader."""

    @staticmethod
    def raw_bamboo(name):
        """The EC2 trace parsed here, independently: lifetimes in hours and preempted flags."""
        events = collections.defaultdict(dict)
        last = 0
        with open(TRACES / name, newline="") as handle:
            for milliseconds, event, node in csv.reader(handle):
                events[node][event] = int(milliseconds)
                last = max(last, int(milliseconds))
        lifetimes = [(e.get("remove", last) - e["add"]) / 3.6e6 for e in events.values()]
        preempted = ["remove" in e for e in events.values()]
        return np.array(lifetimes), np.array(preempted)

    @staticmethod
    def scipy_weibull(lifetimes, preempted):
        from scipy import stats

        data = stats.CensoredData(uncensored=lifetimes[preempted], right=lifetimes[~preempted])
        shape, _, scale = stats.weibull_min.fit(data, floc=0)
        return shape, scale


@pytest.fixture
def bamboo():
    """``bamboo.raw_bamboo(name)`` (lifetimes, preempted) and ``bamboo.scipy_weibull``."""
    return Bamboo


# -- deadlines: uniform progress typed again, independently of spotmath.traces.deadlines ----
def _uniform_progress_typed(spot, tick, compute, deadline, d, discount):
    """The issue's rules for uniform progress under the Safety Net, written out once more:
    what the job is on in each tick, and the cost (whole ticks billed, on-demand 1,
    spot 1 − discount)."""
    kinds, progress, kind, changing = [], 0.0, "idle", 0.0
    cost, i = 0.0, 0
    while progress < compute - 1e-9:
        t = i * tick
        has = i < len(spot) and bool(spot[i])
        if kind == "spot" and not has:
            kind = "idle"

        def line(when):
            return when * compute / deadline

        if kind == "od":
            want = "spot" if has and progress > line(t + 2 * d) + 1e-9 else "od"
        elif has:
            want = "spot"
        else:
            want = "od" if progress < line(t) - 1e-9 else "idle"
        left = math.floor((deadline - t) / tick + 1e-9)
        rest = compute - progress
        if math.ceil((rest + 2 * d) / tick - 1e-9) >= left and kind in ("idle", "od"):
            want = "od"
        if math.ceil((rest + d) / tick - 1e-9) >= left:
            if d <= 1e-9:
                want = "spot" if has else "od"
            else:
                want = "spot" if kind == "spot" and changing <= 1e-9 and has else "od"
        if want != kind and want != "idle":
            changing = d
        kind = want
        if kind != "idle":
            made = max(0.0, tick - changing)
            changing = max(0.0, changing - tick)
            progress = min(compute, progress + made)
            cost += tick * (1.0 if kind == "od" else 1 - discount)
        kinds.append({"idle": 0, "spot": 1, "od": 2}[kind])
        i += 1
    return kinds, cost


@pytest.fixture
def uniform_progress_typed():
    """``uniform_progress_typed(spot, tick, compute, deadline, d, discount)``: (kinds,
    cost) of uniform progress by its rules, typed independently of the library."""
    return _uniform_progress_typed


# -- two-level checkpoints: the period time typed again, as a Markov chain over phases ------
def _two_level_period_typed(rate, interval, every, fast, durable, fast_restart, restart,
                            loss, preemptible):
    """E₁ from a linear system over the phases (segment i, the fast restart back to it,
    the durable restart back to segment 1), each phase's outcome from the exponential law
    alone: independent of the renewal equations SymPy solves."""
    size, back = 2 * every + 1, 2 * every
    matrix, times = np.eye(size), np.zeros(size)

    def phase(length, can_fail):
        survive = math.exp(-rate * length) if can_fail else 1.0
        partial = (1 - survive * (1 + rate * length)) / rate if can_fail else 0.0
        return survive, survive * length + partial  # P(no event), E[time in the phase]

    for i in range(every):
        survive, times[i] = phase(interval + (fast if i < every - 1 else durable), True)
        if i < every - 1:
            matrix[i, i + 1] -= survive
        matrix[i, every + i] -= (1 - survive) * (1 - loss)
        matrix[i, back] -= (1 - survive) * loss
        survive, times[every + i] = phase(fast_restart, preemptible)
        matrix[every + i, i] -= survive
        matrix[every + i, every + i] -= (1 - survive) * (1 - loss)
        matrix[every + i, back] -= (1 - survive) * loss
    survive, times[back] = phase(restart, preemptible)
    matrix[back, 0] -= survive
    matrix[back, back] -= 1 - survive
    return float(np.linalg.solve(matrix, times)[0])


@pytest.fixture
def two_level_typed():
    """``two_level_typed(rate, T, n, C1, C, R1, R, p, preemptible)``: the expected time
    between durable writes, from a Markov chain typed in tests/conftest.py."""
    return _two_level_period_typed
