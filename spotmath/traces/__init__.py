"""Spot traces: reading them (``reading``), fitting them (``fitting``), replaying schedules
on them (``replay``), drawing them from known processes (``synthetic``), and running a
job with a deadline on them (``deadlines``).

Built on :mod:`spotmath.model`; nothing here knows the book.
"""

from .reading import (
    FORMATS,
    HEADER,
    MAX_SECONDS,
    GroupSizes,
    Trace,
    read_group_sizes,
    read_trace,
    write_trace,
)

__all__ = ["FORMATS", "HEADER", "MAX_SECONDS", "GroupSizes", "Trace", "read_group_sizes",
           "read_trace", "write_trace"]
