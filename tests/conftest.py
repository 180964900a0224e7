"""Shared test settings."""

from hypothesis import settings

# The first call of a formula builds it with SymPy (about a second); no per-example deadline.
settings.register_profile("spotmath", deadline=None, max_examples=100)
settings.load_profile("spotmath")
