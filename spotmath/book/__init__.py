"""The book's own machinery: its chapter parameters, running chapters and building editions,
how its pages show numbers, its published figures, and its Sphinx extensions.

It uses the library (:mod:`spotmath.model`, :mod:`spotmath.traces`); nothing there imports
from here.  It knows the checkout the book lives in: :data:`ROOT`.
"""

from pathlib import Path

#: The checkout the book lives in, and its chapters' folder and data.
ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
DATA = BOOK / "data"

__all__ = ["ROOT", "BOOK", "DATA"]
