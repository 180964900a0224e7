"""Shared test settings and the built book (one build per test session)."""

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

# The first call of a formula builds it with SymPy (about a second); no per-example deadline.
settings.register_profile("spotmath", deadline=None, max_examples=100)
settings.load_profile("spotmath")


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    """The HTML book, built from a clean output folder with warnings as errors."""
    out = tmp_path_factory.mktemp("book")
    result = subprocess.run(
        [shutil.which("jupyter-book") or "jupyter-book", "build", str(ROOT), "--path-output",
         str(out), "-W", "-n", "--keep-going"],
        capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return out / "_build" / "html"
