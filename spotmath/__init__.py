"""spotmath: when spot GPUs pay, and how often to checkpoint on them.

The layers, one folder each: :mod:`spotmath.model` (the SymPy derivations, the single
source of truth, and the numeric functions generated from them, the simulator and the
plan), :mod:`spotmath.traces` (reading, fitting and replaying real preemptions) and
:mod:`spotmath.book` (the book's own machinery, which nothing else imports); the plan's
words are :mod:`spotmath.report`'s, the colours the book and the calculator share
:mod:`spotmath.palette`'s, the calculator's scripts :mod:`spotmath.web`'s.  Times
are in hours, rates per hour; :mod:`spotmath.inputs` checks and converts every input
('10min', '0.25/h').  This module offers the model's public functions by their names.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (for readers and tools: at run time each is imported on first use)
    from .inputs import (
        InputError,
        check_parameters,
        duration_text,
        parse_duration,
        parse_rate,
        rate_from_mtbf,
    )
    from .model.calibration import (
        checkpoint_write_time,
        elastic_waste,
        interrupted_fraction,
        observed_rate,
        rate_from_interrupted_fraction,
        useful_hour_price,
    )
    from .model.numerics import (
        MODELS,
        break_even_discount,
        break_even_interval,
        break_even_intervals,
        break_even_preemption_rate,
        break_even_restart_time,
        daly_interval,
        effective_discount,
        exact_interval,
        gang_rate,
        gang_survival,
        lost_work,
        max_gang_size,
        never_on_spot_gang_size,
        no_periodic_share,
        optimal_interval,
        optimal_waste,
        relative_price,
        segment_time,
        waste_floor,
        waste_fraction,
        young_interval,
    )
    from .model.plan import Plan, make_plan
    from .report import plan_table

#: The module each public name comes from.  A name is imported when first used, so that
#: ``import spotmath`` alone, and with it every ``spotmath.book`` module (the Sphinx
#: extensions, the chapters' workers), loads no SciPy: what needs the model loads it.
_HOMES = {
    ".inputs": ("InputError", "check_parameters", "duration_text", "parse_duration",
                "parse_rate", "rate_from_mtbf"),
    ".model.calibration": ("checkpoint_write_time", "elastic_waste", "interrupted_fraction",
                           "observed_rate", "rate_from_interrupted_fraction",
                           "useful_hour_price"),
    ".model.numerics": ("MODELS", "break_even_discount", "break_even_interval",
                        "break_even_intervals", "break_even_preemption_rate",
                        "break_even_restart_time", "daly_interval", "effective_discount",
                        "exact_interval", "gang_rate", "gang_survival", "lost_work",
                        "max_gang_size", "never_on_spot_gang_size", "no_periodic_share",
                        "optimal_interval", "optimal_waste", "relative_price",
                        "segment_time", "waste_floor", "waste_fraction", "young_interval"),
    ".model.plan": ("Plan", "make_plan"),
    ".report": ("plan_table",),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}
#: The package's parts, each also imported on first use as an attribute.
_SUBPACKAGES = ("book", "cli", "docs", "inputs", "model", "report", "traces", "web")

__version__ = "0.1.0"


def derivation(name: str):
    r"""The named derivation (see :data:`DERIVATIONS`); imports SymPy on first use.

    Examples
    --------
    >>> derivation("young").latex()
    'T^{*} = \\frac{\\sqrt{2} \\sqrt{C}}{\\sqrt{\\lambda}}'
    """
    from .model.derivations import derivation as named

    return named(name)


def __getattr__(name: str):
    """A public name, imported from its module on first use (:data:`_HOMES`), a part of
    the package likewise, and ``DERIVATIONS``, the names of the derivations, without
    importing SymPy up front."""
    if name == "DERIVATIONS":
        from .model.derivations import NAMES

        return NAMES
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name], __name__), name)
        globals()[name] = value  # found directly from now on
        return value
    if name in _SUBPACKAGES:  # a part of the package as an attribute: spotmath.model
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'spotmath' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "DERIVATIONS", "derivation", "InputError", "check_parameters",
    "duration_text", "plan_table", "parse_duration", "parse_rate", "rate_from_mtbf", "MODELS",
    "break_even_discount", "break_even_interval", "break_even_intervals",
    "break_even_preemption_rate", "break_even_restart_time", "daly_interval", "effective_discount",
    "exact_interval", "gang_rate", "gang_survival", "lost_work", "max_gang_size",
    "never_on_spot_gang_size", "optimal_interval", "optimal_waste", "relative_price",
    "segment_time", "waste_fraction", "young_interval", "waste_floor", "no_periodic_share",
    "Plan", "make_plan",
    "checkpoint_write_time", "elastic_waste", "interrupted_fraction", "observed_rate",
    "rate_from_interrupted_fraction", "useful_hour_price"
]
