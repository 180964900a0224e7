"""`spotmath book`: a reader's own edition of the whole book, with their parameters."""

import contextlib
import hashlib
import io
import subprocess
import sys

import pytest

import spotmath as sm
from spotmath.chapters import ROOT, chapter_paths
from spotmath.cli import main


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as stop:
            code = stop.code
    return code, out.getvalue(), err.getvalue()


def book_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "book").rglob("*")):
        if path.is_file():
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.mark.parametrize("args, message", [
    (["-p", "mtbf", "4"], "mtbf: not a parameter of any chapter (known: "),
    (["-p", "mtbf_hours", "-4"], "mtbf_hours: must be a duration > 0"),
    (["-p", "spot_discount", "1.5"], "spot_discount: must be a fraction strictly between"),
    (["-p", "gang_sizes", "8"], "gang_sizes: must be a list"),
    (["-p", "mtbf_hours", "__import__('os').system('touch HACKED')"],
     "mtbf_hours: not a duration: \"__import__('os').system('touch HACKED')\""),
])
def test_bad_parameters_are_refused_before_anything_runs(tmp_path, args, message):
    out = tmp_path / "edition"
    code, stdout, stderr = run("book", "--out", str(out), *args)
    assert code == 2 and stdout == ""
    assert stderr.count("\n") == 1 and stderr.startswith("spotmath book: error: " + message)
    assert not out.exists() and not (tmp_path / "HACKED").exists()


def test_params_file_errors_are_one_line(tmp_path):
    bad = tmp_path / "my.yaml"
    bad.write_text("- just\n- a list\n")
    code, _, stderr = run("book", "--params", str(bad), "--out", str(tmp_path / "e"))
    assert code == 2 and "--params: " in stderr and "must hold a mapping" in stderr
    code, _, stderr = run("book", "--params", str(tmp_path / "missing.yaml"),
                          "--out", str(tmp_path / "e"))
    assert code == 2 and stderr.startswith("spotmath book: error: --params: cannot read")


def test_a_non_empty_out_folder_is_refused_without_force(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    code, _, stderr = run("book", "--out", str(tmp_path), "-p", "mtbf_hours", "2")
    assert code == 2 and "is not empty (use --force" in stderr
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_your_own_edition_end_to_end(tmp_path):
    """Every chapter rerun with MTBF 2 h from a YAML file plus -p, built into OUT."""
    params = tmp_path / "my.yaml"
    params.write_text("mtbf_hours: 2\ngang_sizes: [1, 4, 16]\njobs: 1000\n"
                      "notice_share: 0.5\npersist_minutes: 2\nnotice_shares: [0.0, 0.8]\n")
    out = tmp_path / "edition"
    before = book_fingerprint()
    result = subprocess.run(
        [sys.executable, "-m", "spotmath", "book", "--params", str(params),
         "-p", "restart_minutes", "5", "--out", str(out)],
        capture_output=True, text=True, timeout=1800, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    chapters = chapter_paths()
    for chapter in chapters:
        assert (out / "_build" / "html" / "book" / f"{chapter.stem}.html").is_file()
    # quiet: progress lines only (chapters done, elapsed, what remains), no kernel chatter
    assert f"{len(chapters)}/{len(chapters)} chapters" in result.stdout
    assert "s left" in result.stdout and "running: " in result.stdout
    assert "Kernel" not in result.stdout + result.stderr, result.stderr[-2000:]
    # the prose carries the new numbers: the exact interval for λ = 0.5/h, C = 1 min
    intro = (out / "_build" / "html" / "book" / "intro.html").read_text()
    assert f"{sm.exact_interval(0.5, 1 / 60) * 60:.1f}" in intro
    # the notice parameters reach "your numbers" and the notice chapter
    mine = " ".join((out / "_build" / "html" / "book" / "your_numbers.html").read_text().split())
    assert "2 min for 50.0% of preemptions" in mine and "durable 2 min later" in mine
    notice = (out / "_build" / "html" / "book" / "notice.html").read_text()
    assert "0.8" in notice
    # styled like the book: the same stylesheet (code at the column's width)
    assert (out / "_build" / "html" / "_static" / "spotmath.css").is_file()
    assert "spotmath.css" in intro
    assert book_fingerprint() == before  # book/ is never written
    # values are checked before the folder: a bad one leaves the edition as it was
    again = run("book", "--out", str(out), "-p", "jobs", "0")
    assert again[0] == 2 and "jobs: must be a whole number of jobs >= 1" in again[2]
    assert (out / "_build" / "html" / "index.html").is_file()


def test_a_failing_chapter_stops_the_edition_with_its_error(tmp_path):
    """A chapter that raises ends the run with its own message, not a kernel's noise."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from spotmath.chapters import _execute_all

    cells = [new_code_cell("mtbf_hours: float = 4.0  # mean time between preemptions"),
             new_code_cell("raise ValueError('boom: this chapter is broken')")]
    cells[0].metadata["tags"] = ["parameters"]
    chapter = tmp_path / "broken.ipynb"
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}}), chapter)
    (tmp_path / "out").mkdir()
    lines = []
    with pytest.raises(RuntimeError, match=r"^broken: execution failed") as info:
        _execute_all({chapter: {}}, tmp_path / "out",
                     lambda line, final=True: lines.append(line))
    assert "boom: this chapter is broken" in str(info.value)
    assert "Kernel is running over TCP" not in str(info.value)
    assert lines and lines[0].startswith("[.] 0/1 chapters")


def test_a_kernel_that_dies_at_start_is_started_again(tmp_path, monkeypatch):
    """The port race of parallel kernel starts: the kernel dies before it answers, nothing
    of the chapter has run, so run_chapter starts it again (a bounded number of times);
    any other error is the chapter's own and stops at once."""
    import papermill

    from spotmath import chapters

    source = chapters.chapter_paths()[0]
    calls = []

    def flaky(*args, **kwargs):
        calls.append(args)
        if len(calls) < chapters.KERNEL_STARTS:
            raise RuntimeError(chapters.KERNEL_DIED)
        import shutil
        shutil.copy(source, args[1])

    monkeypatch.setattr(papermill, "execute_notebook", flaky)
    values = chapters.run_chapter(source, tmp_path / "out.ipynb", {})
    assert len(calls) == chapters.KERNEL_STARTS and values == chapters.glued(source)

    def dead(*args, **kwargs):
        calls.append(args)
        raise RuntimeError(chapters.KERNEL_DIED)

    calls.clear()
    monkeypatch.setattr(papermill, "execute_notebook", dead)
    with pytest.raises(RuntimeError, match=chapters.KERNEL_DIED):
        chapters.run_chapter(source, tmp_path / "out.ipynb", {})
    assert len(calls) == chapters.KERNEL_STARTS

    def broken(*args, **kwargs):
        calls.append(args)
        raise RuntimeError("something else")

    calls.clear()
    monkeypatch.setattr(papermill, "execute_notebook", broken)
    with pytest.raises(RuntimeError, match="something else"):
        chapters.run_chapter(source, tmp_path / "out.ipynb", {})
    assert len(calls) == 1
