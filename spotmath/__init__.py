"""spotmath: when spot GPUs pay, and how often to checkpoint on them.

The SymPy derivations (:mod:`spotmath.derivations`) are the single source of truth; the
numeric functions (:mod:`spotmath.numerics`) are generated from them.  Times are in hours,
rates per hour; :mod:`spotmath.inputs` checks and converts every input ('10min', '0.25/h').
"""

from .calibration import (
    checkpoint_write_time,
    elastic_waste,
    interrupted_fraction,
    observed_rate,
    rate_from_interrupted_fraction,
    useful_hour_price,
)
from .inputs import (
    InputError,
    chapter_parameters,
    check_book_parameters,
    check_parameters,
    parse_duration,
    parse_rate,
    rate_from_mtbf,
)
from .numerics import (
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
    optimal_interval,
    optimal_waste,
    relative_price,
    segment_time,
    waste_fraction,
    young_interval,
)
from .plan import Plan, duration_text, make_plan
from .published import Figure, read_figures

__version__ = "0.1.0"


def derivation(name: str):
    r"""The named derivation (see :data:`DERIVATIONS`); imports SymPy on first use.

    Examples
    --------
    >>> derivation("young").latex()
    'T^{*} = \\frac{\\sqrt{2} \\sqrt{C}}{\\sqrt{\\lambda}}'
    """
    from .derivations import derivation as named

    return named(name)


def __getattr__(name: str):
    """``DERIVATIONS``, the names of the derivations, without importing SymPy up front."""
    if name == "DERIVATIONS":
        from .derivations import NAMES

        return NAMES
    raise AttributeError(f"module 'spotmath' has no attribute {name!r}")

__all__ = [
    "DERIVATIONS", "derivation", "InputError", "chapter_parameters", "check_book_parameters",
    "check_parameters",
    "duration_text", "parse_duration", "parse_rate", "rate_from_mtbf", "MODELS",
    "break_even_discount", "break_even_interval", "break_even_intervals",
    "break_even_preemption_rate", "break_even_restart_time", "daly_interval", "effective_discount",
    "exact_interval", "gang_rate", "gang_survival", "lost_work", "max_gang_size",
    "never_on_spot_gang_size", "optimal_interval", "optimal_waste", "relative_price",
    "segment_time", "waste_fraction", "young_interval", "Plan", "make_plan",
    "checkpoint_write_time", "elastic_waste", "interrupted_fraction", "observed_rate",
    "rate_from_interrupted_fraction", "useful_hour_price", "Figure", "read_figures",
]
