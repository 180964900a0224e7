"""The commands the README and the book's pages show a reader, read from their sources.

A ``console`` block holds commands after ``$ `` (a line ending in ``\\`` goes on), each
followed by the output it is shown with; a ``bash`` block holds commands one per line
(``# ...`` comments dropped); a ``yaml`` block is the example parameters file.  The
tests run what these say, so a change to the documentation cannot break it silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from spotmath.book.chapters import ROOT

_BLOCK = re.compile(r"^(`{3,})([\w-]+)[^\n]*\n(.*?)^\1\s*$", re.M | re.S)


@dataclass(frozen=True)
class Command:
    """A command shown to the reader: where, the command line, the output shown (if any)."""

    source: str
    line: str
    shown: str | None


def sources() -> dict[str, str]:
    """The README and every page's Markdown, by a name to report."""
    texts = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for path in sorted((ROOT / "book").glob("*.md")):
        texts[f"book/{path.name}"] = path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        texts[f"book/{path.name}"] = "\n".join(
            cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    return texts


def blocks(kind: str) -> list[tuple[str, str]]:
    """Every fenced block of ``kind`` (console, bash, yaml, python): (source, body)."""
    return [(name, match.group(3)) for name, text in sources().items()
            for match in _BLOCK.finditer(text) if match.group(2) == kind]


def commands() -> list[Command]:
    """Every command shown, in the order of the sources."""
    found = []
    for name, body in blocks("console"):
        lines = body.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                i += 1
                continue
            line = lines[i][2:]
            while line.endswith("\\"):
                i += 1
                line = line[:-1].rstrip() + " " + lines[i].strip()
            i += 1
            output = []
            while i < len(lines) and not lines[i].startswith("$ "):
                output.append(lines[i])
                i += 1
            found.append(Command(name, _uncommented(line), "\n".join(output) or None))
    for name, body in blocks("bash"):
        for line in body.splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                found.append(Command(name, _uncommented(line), None))
    return found


def _uncommented(line: str) -> str:
    """The command without a trailing ``# comment`` (none of ours quotes a ``#``)."""
    return line.split(" #", 1)[0].strip()


def documented(prefix: str) -> Command:
    """The one command shown that starts with ``prefix``."""
    (found,) = [command for command in commands() if command.line.startswith(prefix)]
    return found


def example_parameters() -> str:
    """The example parameters file the README shows (``my.yaml``)."""
    ((_, body),) = [(name, body) for name, body in blocks("yaml") if name == "README.md"]
    return body


def checkout_folder(tmp_path: Path) -> Path:
    """A folder that reads like the checkout (its book/ and data) but writes elsewhere:
    a command that names ``book/...`` runs there, and its outputs land in ``tmp_path``."""
    (tmp_path / "book").symlink_to(ROOT / "book", target_is_directory=True)
    return tmp_path
