"""Every command the README and the book's pages show runs as shown.

Each is read from the documentation (the `documentation` fixture in tests/book/conftest.py)
and run in a folder of its own;
where the page shows its output, the output must be that.  A command that cannot run here
is listed below with the reason, and the test that covers it instead; a new command that
is neither run nor listed fails the first test."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

from spotmath.book import ROOT

#: Commands not run here, each with the reason and what covers it.
NOT_RUN_HERE = {
    "python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements.txt "
    "&& jupyter-book build . -W -n --keep-going":
        "installs into .venv; the build itself is tests/book/conftest.py's built_book",
    "python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements.txt "
    "-r requirements-train.txt "
    "&& python -m pytest -n auto --dist worksteal tests/lib "
    "&& python -m pytest -n auto --dist loadfile --nbval --nbval-current-env "
    "--nbval-sanitize-with tests/book/nbval_sanitize.cfg tests/book book":
        "this suite; .ci/run runs it verbatim (test_ci_runs_the_readmes_test_command)",
    "python -m pytest -n auto --dist worksteal tests/lib":
        "the library's tests, which this suite runs first (the same files)",
    "spotmath book --params my.yaml -p restart_minutes 5 --out my-edition":
        "built as shown, with the README's my.yaml, by tests/book/test_edition.py",
    "python scripts/execute_notebooks.py":
        "rewrites book/ in place; nbval checks what it stored (tests/book/test_chapters.py)",
    "ruff format book && ruff check .":
        "formats in place; tests/lib/test_lint.py runs both (format with --check)",
}


def test_every_command_shown_is_run_or_listed_with_its_reason(documentation):
    shown = {command.line for command in documentation.commands()}
    assert set(NOT_RUN_HERE) <= shown, set(NOT_RUN_HERE) - shown  # no stale entries
    run_here = [line for line in shown if line not in NOT_RUN_HERE]
    assert len(run_here) >= 8, run_here
    for line in run_here:
        assert line.split()[0] in {"spotmath", "papermill", "python"}, line


def test_ci_runs_the_readmes_test_command():
    readme_command = next(line for line in NOT_RUN_HERE if line.endswith("tests/book book"))
    assert readme_command in (ROOT / ".ci" / "run").read_text()


def test_the_command_runs_as_shown(documented_command, tmp_path, documentation):
    command = documented_command
    folder = documentation.checkout_folder(tmp_path)
    environment = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
                                        f"{os.environ.get('PATH', '')}", COLUMNS="80")
    result = subprocess.run(shlex.split(command.line), cwd=folder, capture_output=True,
                            text=True, env=environment, timeout=900)
    assert result.returncode == 0, (command, result.stderr[-3000:])
    if command.shown is not None:
        shown = command.shown.splitlines()
        cut = [i for i, line in enumerate(shown) if line.startswith("...")]
        shown = shown[:cut[0]] if cut else shown  # from "..." on, the page leaves it out
        got = result.stdout.splitlines()[:len(shown)]
        assert got == shown, (command.line, "\n".join(got))


def test_the_readmes_library_example_runs_and_prints_what_its_comments_say(tmp_path,
                                                                          documentation):
    """The README's Python block runs; a comment that starts with a number states the
    value of its line, to the digits it shows."""
    ((_, body),) = [(name, text) for name, text in documentation.blocks("python")
                    if name == "README.md"]
    claims = []
    lines = []
    for line in body.splitlines():
        code, _, comment = line.partition("#")
        if code.strip().startswith("sm."):
            lines.append(f"print(repr(float({code.strip()})))")
            claims.append(comment.split()[0] if comment.split() else "")
        else:
            lines.append(code)
    script = tmp_path / "example.py"
    script.write_text("\n".join(lines) + "\n")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    values = [float(text) for text in result.stdout.split()]
    assert len(values) == len(claims) >= 5
    checked = 0
    for value, claim in zip(values, claims):
        try:
            number = float(claim)
        except ValueError:
            continue  # the comment says what the value is, not its digits
        digits = len(claim.partition(".")[2])
        assert round(value, digits) == number, (claim, value)
        checked += 1
    assert checked >= 2


def test_the_readmes_parameters_file_is_valid(documentation):
    import yaml

    from spotmath.book.chapters import chapter_paths, declared_parameters
    from spotmath.book.edition import check_edition_parameters

    parameters = yaml.safe_load(documentation.example_parameters())
    assert isinstance(parameters, dict) and parameters
    check_edition_parameters(parameters, {path: declared_parameters(path)
                                          for path in chapter_paths()})


def test_the_readme_is_a_front_door():
    """At most 150 lines: the question, install, one plan, one rerun, where the rest is."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, len(lines)
    for target in ("docs/commands.md", "docs/layout.md", "benchmarks/README.md"):
        assert f"]({target})" in "\n".join(lines) and (ROOT / target).is_file(), target
