"""The model: the derivations (SymPy, the single source of truth), the numeric functions
printed from them (``_generated``), and what is built on them: the waste, optimum and limits
(``numerics``, ``notice``), the simulator, calibration helpers and the plan.

Nothing here reads a trace file or knows the book.
"""

__all__: list[str] = []  # the modules are the API: spotmath.model.numerics, ...
