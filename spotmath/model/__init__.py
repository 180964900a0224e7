"""The model: the derivations (SymPy, the single source of truth), the numeric functions
printed from them (``_generated``), and what is built on them: the intervals, the waste and
the limits (``intervals``, ``numerics``, with what they share in ``solving``), two-level
checkpoints (``two_level``), a shared pool's own preemptions (``cluster``,
``cluster_renewal``, ``pool_choice``), the simulators, calibration helpers and the plan.

Nothing here reads a trace file or knows the book.

One concept keeps one name through its three forms: ``derivations.young_interval()`` is
the SymPy expression, ``_generated.young_interval`` the function printed from it, and
``numerics.young_interval`` (also ``spotmath.young_interval``) the checked, vectorised
function to call.  Where the full model (a notice, asynchronous writes) generalises a
function, the same function takes its options (``notice_share``, ``notice_write``,
``persist``); its arithmetic lives in the private ``_full_model``.
"""

__all__: list[str] = []  # the modules are the API: spotmath.model.numerics, ...
