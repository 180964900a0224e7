"""The linter (ruff, configured in pyproject.toml) passes everywhere; chapters are formatted.

The chapters' code is shown in the book, so it is also held to ruff's formatter at 80
columns (`book/ruff.toml`): `ruff format book` fixes it.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "book"]],
                         ids=["check", "format-chapters"])
def test_ruff(command, checkout):
    assert RUFF, "ruff is not installed: pip install -r requirements.txt"
    result = subprocess.run([RUFF, *command], cwd=checkout, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
