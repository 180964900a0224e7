"""The book builds with warnings as errors, and every chapter in the toc has its page."""

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def toc_files() -> list[str]:
    """Every file named in _toc.yml, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries):
        for entry in entries:
            if "file" in entry:
                files.append(entry["file"])
            for key in ("sections", "chapters", "parts"):
                walk(entry.get(key, []))

    walk(toc.get("chapters", []) + toc.get("parts", []))
    return files


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("book")
    result = subprocess.run(
        [shutil.which("jupyter-book") or "jupyter-book", "build", str(ROOT), "--path-output",
         str(out), "-W", "-n", "--keep-going"],
        capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return out / "_build" / "html"


def test_every_chapter_has_a_page(built_book):
    for name in toc_files():
        assert (built_book / f"{name}.html").is_file(), name
    assert (built_book / "index.html").is_file()
