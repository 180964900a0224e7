"""`spotmath book`: a reader's own edition of the whole book, with their parameters, built
without harming anything: no folder it did not make is ever deleted, a failed or stopped
build leaves OUT as it was, and an edition anywhere is left alone by git, ruff and pytest."""

import contextlib
import functools
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spotmath as sm
from spotmath.book import edition
from spotmath.book.chapters import ROOT, chapter_paths
from spotmath.book.edition import MARKER, EditionError, check_out, make_edition
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


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` with its content (to show nothing changed)."""
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.fixture
def nothing_is_deleted(monkeypatch):
    """A refused --out must never reach a deletion or a move: make both fail loudly."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"a refused --out reached a deletion or move: {args}")

    for name in ("rmtree", "move"):
        monkeypatch.setattr(shutil, name, refuse)
    for name in ("rename", "replace", "remove", "unlink", "rmdir"):
        monkeypatch.setattr(os, name, refuse)


# -- the folder: refused before anything runs -----------------------------------------------
@pytest.mark.parametrize("args, message", [
    (["-p", "mtbf", "4"], "mtbf: not a parameter of any chapter (known: "),
    (["-p", "mtbf_hours", "-4"], "mtbf_hours: must be a duration from 0.1 to 100000 hours"),
    (["-p", "spot_discount", "1.5"], "spot_discount: must be a fraction from 0.01 to 0.99"),
    (["-p", "gang_sizes", "8"], "gang_sizes: must be a list like [1, 8, 32], got 8"),
    (["-p", "mtbf_hours", "__import__('os').system('touch HACKED')"],
     "mtbf_hours: not a duration: \"__import__('os').system('touch HACKED')\""),
    (["-p", "persist_minutes", "240"], "persist_minutes: must be shorter than the MTBF"),
    (["-p", "trace_files", "[nonexistent.csv]"],
     "trace_files[0]: no trace file 'nonexistent.csv'"),
    (["-p", "jobs", "100000000000"], "jobs: must be a whole number from 100 to 20000"),
    (["-p", "notice_seconds", "0", "-p", "notice_share", "0.5"],
     "notice_share: must be 0 when notice_seconds is 0"),
    # YAML 1.1 would read these as 240, 16, 1000, 8 and true: plain decimals only
    (["-p", "mtbf_hours", "4:00"], "mtbf_hours: not a duration: '4:00'"),
    (["-p", "mtbf_hours", "0x10"], "mtbf_hours: not a duration: '0x10'"),
    (["-p", "mtbf_hours", "1_000"], "mtbf_hours: not a duration: '1_000'"),
    (["-p", "jobs", "0o10"], "jobs: must be a whole number from 100 to 20000, got '0o10'"),
    (["-p", "mtbf_hours", "yes"], "mtbf_hours: not a duration: 'yes'"),
    (["-p", "gang_sizes", "[1, 0x10]"], "gang_sizes[1]: must be a whole number"),
])
def test_bad_parameters_are_refused_before_anything_runs(tmp_path, args, message):
    out = tmp_path / "edition"
    code, stdout, stderr = run("book", "--out", str(out), *args)
    assert code == 2 and stdout == ""
    assert stderr.count("\n") == 1 and stderr.startswith("spotmath book: error: " + message), \
        stderr
    assert not out.exists() and not (tmp_path / "HACKED").exists()
    assert list(tmp_path.iterdir()) == []  # no building folder left behind either


def test_a_params_file_is_read_with_plain_decimals_only(tmp_path):
    """``restart_minutes: 1:30`` is not 90 minutes (YAML 1.1's sexagesimal) but text,
    refused by the parameter's own check; ``010`` is ten, not octal eight."""
    from spotmath.book.edition import read_parameters

    given = tmp_path / "my.yaml"
    given.write_text("restart_minutes: 1:30\ngang_sizes: [010, 2]\nmtbf_hours: 1e1\n")
    assert read_parameters(given, []) == {"restart_minutes": "1:30",
                                          "gang_sizes": [10, 2], "mtbf_hours": 10.0}
    code, _, stderr = run("book", "--params", str(given), "--out", str(tmp_path / "e"))
    assert (code, stderr.count("\n")) == (2, 1)
    assert stderr.startswith("spotmath book: error: restart_minutes: not a duration: '1:30'")


def test_params_file_errors_are_one_line(tmp_path):
    bad = tmp_path / "my.yaml"
    bad.write_text("- just\n- a list\n")
    code, _, stderr = run("book", "--params", str(bad), "--out", str(tmp_path / "e"))
    assert code == 2 and "--params: " in stderr and "must hold a mapping" in stderr
    code, _, stderr = run("book", "--params", str(tmp_path / "missing.yaml"),
                          "--out", str(tmp_path / "e"))
    assert code == 2 and stderr.startswith("spotmath book: error: --params: cannot read")
    bad.write_bytes("mtbf_hours: 2 # \u00e9".encode("latin-1"))
    code, _, stderr = run("book", "--params", str(bad), "--out", str(tmp_path / "e"))
    assert (code, stderr) == (2, f"spotmath book: error: --params: {bad} is not UTF-8 text\n")


def test_a_name_given_twice_or_with_no_value_is_refused(tmp_path):
    """#53-11: a name given twice in --params was taken as its last value, silently; a
    name given no value ('-p mtbf_hours ""', or 'mtbf_hours:') was 'got None'."""
    from spotmath.book.edition import read_parameters

    given = tmp_path / "my.yaml"
    given.write_text("mtbf_hours: 4\nrestart_minutes: 5\nmtbf_hours: 8\n")
    code, _, stderr = run("book", "--params", str(given), "--out", str(tmp_path / "e"))
    assert (code, stderr) == (2, f"spotmath book: error: --params: {given}: mtbf_hours: "
                                 "given twice, on lines 1 and 3\n")
    empty = "mtbf_hours: got an empty value (give one, or leave the name out for its default)"
    code, _, stderr = run("book", "-p", "mtbf_hours", "", "--out", str(tmp_path / "e"))
    assert (code, stderr) == (2, f"spotmath book: error: {empty}\n")
    given.write_text("mtbf_hours:\n")
    with pytest.raises(sm.InputError, match=f"^{re.escape(empty)}$"):
        read_parameters(given, [])
    assert not (tmp_path / "e").exists()
    # a chapter run by papermill itself (-p mtbf_hours '' gives it None) says the same
    from spotmath.book.parameters import BOOK_TABLE

    mtbf = next(row for row in BOOK_TABLE if row.name == "mtbf_hours")
    for nothing in (None, "", "  "):
        with pytest.raises(sm.InputError, match=f"^{re.escape(empty)}$"):
            mtbf.check(nothing)


@pytest.mark.parametrize("files, shown", [
    ([{"a": 1}], "{'a': 1}"),
    (["notes.txt"], "'notes.txt'"),
    (["_build/../../notes.txt"], "'_build/../../notes.txt'"),
    (["/home/me/notes.txt"], "'/home/me/notes.txt'"),
    (["source", ""], "''"),
])
def test_a_marker_edited_to_list_what_no_edition_holds_is_refused(
        tmp_path, nothing_is_deleted, files, shown):
    """The marker is what --force trusts: one listing a path no build makes (or not a
    path at all, which ended in a TypeError) is refused in one line, nothing touched."""
    out = tmp_path / "edition"
    (out / "source").mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    (out / MARKER).write_text(json.dumps({"made_by": "spotmath book", "parameters": {},
                                          "files": ["source", *files]}))
    before = tree(tmp_path)
    code, stdout, stderr = run("book", "--out", str(out), "--force")
    assert (code, stdout, stderr.count("\n")) == (2, "", 1), stderr
    assert stderr.startswith(f"spotmath book: error: --out: {out / MARKER} lists {shown}, "
                             "which no edition holds"), stderr
    assert tree(tmp_path) == before


def test_folders_that_are_not_an_editions_own_are_refused(tmp_path, monkeypatch,
                                                          nothing_is_deleted):
    """`/`, the home folder, the checkout and everything above it, anything inside book/ or
    a tracked part of the checkout, the current folder and above, a symbolic link, a file,
    a folder whose parent is missing, a non-empty folder without an edition's marker: each
    refused with one line and exit 2, with or without --force, and nothing touched."""
    home, here = tmp_path / "home", tmp_path / "elsewhere" / "work"
    home.mkdir()
    here.mkdir(parents=True)
    (home / "notes.txt").write_text("mine")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(here)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    (tmp_path / "link").symlink_to(tmp_path / "full")
    (tmp_path / "file.txt").write_text("mine")
    cases = {
        "/": "is the root folder",
        str(home): "is the home folder",
        "~": "not empty",  # a folder named "~" inside the current one: not the home folder
        str(ROOT): "is the spotmath checkout",
        str(ROOT.parent): "holds the ",  # the checkout (and, in /tmp, this test's home)
        str(ROOT / "book"): "is inside book, a part of the spotmath checkout",
        str(ROOT / "book" / "ed"): "is inside book, a part of the spotmath checkout",
        str(ROOT / "spotmath" / "ed"): "is inside spotmath, a part of the spotmath checkout",
        ".": "is the current folder",
        "..": "holds the current folder",
        str(tmp_path / "link"): "is a symbolic link",
        str(tmp_path / "file.txt"): "exists and is not a folder",
        str(tmp_path / "missing" / "ed"): "does not exist (create it first)",
        str(tmp_path / "full"): "holds no edition made by spotmath book",
    }
    (here / "~").mkdir()
    (here / "~" / "x").write_text("mine")
    before = tree(tmp_path)
    for out, message in cases.items():
        for force in ([], ["--force"]):
            code, stdout, stderr = run("book", "--out", out, *force)
            assert code == 2 and stdout == "", (out, stderr)
            assert stderr.count("\n") == 1 and message in stderr, (out, stderr)
    assert tree(tmp_path) == before


def test_an_earlier_edition_is_replaced_only_with_force_and_only_if_all_its_own(
        tmp_path, nothing_is_deleted):
    out = tmp_path / "ed"
    (out / "_build" / "html").mkdir(parents=True)
    (out / "_build" / "html" / "index.html").write_text("old")
    made = ["_build", "_build/html", "_build/html/index.html"]
    (out / MARKER).write_text(json.dumps({"made_by": "spotmath book", "parameters": {},
                                          "files": made}))
    code, _, stderr = run("book", "--out", str(out))
    assert code == 2 and "holds an earlier edition (use --force to replace it)" in stderr
    assert check_out(out, force=True) == out  # all its own: --force may replace it
    (out / "_build" / "html" / "my-notes.txt").write_text("mine")
    code, _, stderr = run("book", "--out", str(out), "--force")
    assert code == 2 and "my-notes.txt was not made by spotmath book" in stderr
    other = tmp_path / "other"
    other.mkdir()
    (other / MARKER).write_text("{not json")
    code, _, stderr = run("book", "--out", str(other), "--force")
    assert code == 2 and "is not a marker written by spotmath book" in stderr


def test_an_edition_inside_the_checkout_is_left_alone_by_git_ruff_and_pytest(tmp_path):
    """What every edition holds beside its build: git ignores it, ruff skips it and pytest
    collects nothing from it, wherever it is; checked with a file each would catch."""
    folder = ROOT / f".test-edition-{os.getpid()}"
    try:
        folder.mkdir()
        for name, text in edition._QUIET_FILES.items():  # first, as make_edition does
            (folder / name).write_text(text)
        (folder / "source").mkdir()
        (folder / "source" / "bad.py").write_text("import os\nx=1\n")
        (folder / "source" / "test_broken.py").write_text("def test_fails():\n    assert 0\n")
        ruff = Path(sys.executable).with_name("ruff")
        lint = subprocess.run([str(ruff), "check", "."], cwd=ROOT, capture_output=True,
                              text=True)
        assert folder.name not in lint.stdout + lint.stderr
        status = subprocess.run(["git", "status", "--porcelain", "--ignored=no"], cwd=ROOT,
                                capture_output=True, text=True)
        assert folder.name not in status.stdout
        collected = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
             "-o", "addopts=", str(folder)], cwd=ROOT, capture_output=True, text=True)
        assert "test_fails" not in collected.stdout, collected.stdout
        # and outside any checkout too: ruff and pytest still skip it
        outside = tmp_path / "ed"
        shutil.copytree(folder, outside)
        lint = subprocess.run([str(ruff), "check", "."], cwd=outside, capture_output=True,
                              text=True)
        assert "bad.py" not in lint.stdout
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- a failed build changes nothing ---------------------------------------------------------
def small_book(root: Path, raises: bool, slow: bool = False) -> Path:
    """A checkout of one chapter (with the book's configuration) that may raise, or take
    a minute (``slow``)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    (root / "book").mkdir(parents=True)
    for name in ("_config.yml", "references.bib"):
        shutil.copy(ROOT / name, root / name)
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/only\n")
    cells = [new_markdown_cell("# Only"),
             new_code_cell("mtbf_hours: float = 4.0  # mean time between preemptions"),
             new_code_cell("raise ValueError('boom: this chapter is broken')" if raises
                           else "import time\ntime.sleep(60)" if slow
                           else "print(mtbf_hours)")]
    cells[1].metadata["tags"] = ["parameters"]
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}}),
        root / "book" / "only.ipynb")
    return root


def test_a_second_build_of_the_same_folder_is_refused_while_the_first_runs(tmp_path,
                                                                         monkeypatch):
    """Two runs one second apart both said done and the second replaced the first: now
    the second is refused in one line naming the holder, and the lock goes with the run
    that made it (a lock it did not make, such as a killed run's, is left alone)."""
    out = tmp_path / "editions" / "conc"
    out.parent.mkdir()
    root = small_book(tmp_path / "book", raises=False)
    seen = []

    def second_run_meanwhile(*args, **kwargs):
        lock = edition.lock_path(out)
        assert lock.read_text().startswith(f"pid {os.getpid()}, since ")
        with pytest.raises(sm.InputError) as info:
            make_edition(out, {"mtbf_hours": 3}, root=root,
                         progress=lambda line, final=True: None)
        seen.append(str(info.value))
        raise edition.ChapterFailed("stopped by the test")

    monkeypatch.setattr(edition, "execute_chapters", second_run_meanwhile)
    with pytest.raises(EditionError):
        make_edition(out, {"mtbf_hours": 2}, root=root,
                     progress=lambda line, final=True: None)
    assert seen and seen[0].startswith(f"--out: {out} is being built by another spotmath "
                                       f"book (pid {os.getpid()}, since ")
    assert "\n" not in seen[0] and not edition.lock_path(out).exists()
    assert sorted(p.name for p in out.parent.iterdir()) == []
    # a lock left by a killed run: refused, and the lock is not deleted
    edition.lock_path(out).write_text("pid 99999999, since 2026-12-04 10:00:00")
    code, _, stderr = run("book", "--out", str(out))
    assert code == 2 and "is being built by another spotmath book (pid 99999999" in stderr
    assert edition.lock_path(out).exists()


@pytest.mark.parametrize("out", ["/proc/xyz", "/sys/xyz"])
def test_a_folder_no_edition_can_be_made_in_is_one_line(out):
    """/proc and /sys pass the checks of the folder's name, but the lock cannot be made
    there: one line naming --out and why (the system's reason), exit status 2."""
    code, stdout, stderr = run("book", "--out", out)
    assert code == 2 and stderr.count("\n") == 1, stderr
    assert stderr.startswith(f"spotmath book: error: --out: an edition cannot be made at "
                             f"{out}: ")


def test_a_file_made_at_out_while_the_edition_is_built_is_kept_in_one_line(tmp_path,
                                                                          monkeypatch):
    """A file that appears where the edition goes, while it is built: kept as it is, the
    edition not moved there, one line naming --out; no building folder is left."""
    out = tmp_path / "editions" / "mine"
    out.parent.mkdir()
    root = small_book(tmp_path / "book", raises=False)
    real = edition.execute_chapters

    def a_file_appears(*args, **kwargs):
        real(*args, **kwargs)
        out.write_text("the reader's own file")

    monkeypatch.setattr(edition, "execute_chapters", a_file_appears)
    with pytest.raises(sm.InputError, match=f"^--out: {out} appeared while the edition "
                                            "was built, and is not a folder; it is kept"):
        make_edition(out, {"mtbf_hours": 3}, root=root,
                     progress=lambda line, final=True: None)
    assert out.read_text() == "the reader's own file"
    assert sorted(p.name for p in out.parent.iterdir()) == ["mine"]


def test_a_failing_chapter_leaves_the_earlier_edition_and_no_building_folder(tmp_path,
                                                                            monkeypatch):
    """A chapter that raises ends the run with one line naming it and its error; OUT keeps
    the earlier edition, untouched, and the folder the new one was built in is gone."""
    out = tmp_path / "editions" / "mine"
    out.parent.mkdir()
    make_edition(out, {"mtbf_hours": 3}, root=small_book(tmp_path / "good", raises=False),
                 progress=lambda line, final=True: None)
    marker = json.loads((out / MARKER).read_text())
    assert marker["parameters"] == {"mtbf_hours": 3} and "_build/html/index.html" in \
        marker["files"]
    mask = os.umask(0o022)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~mask  # not mkdtemp's private 0700
    assert {".gitignore", "ruff.toml", "conftest.py"} <= set(marker["files"])
    before = tree(out)
    lines = []
    with pytest.raises(EditionError) as info:
        make_edition(out, {}, force=True, root=small_book(tmp_path / "bad", raises=True),
                     progress=lambda line, final=True: lines.append(line))
    assert str(info.value) == "chapter only failed: ValueError: boom: this chapter is broken"
    assert tree(out) == before
    # on the command line: that one line, exit status 2
    monkeypatch.setattr(edition, "make_edition", functools.partial(
        make_edition, root=tmp_path / "bad"))
    code, _, stderr = run("book", "--out", str(out), "--force")
    assert (code, stderr) == (2, "spotmath book: error: chapter only failed: ValueError: "
                                 "boom: this chapter is broken\n")
    assert tree(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["mine"]
    assert lines and lines[0].startswith("[.] 0/1 chapters")


def test_a_kernel_that_dies_at_start_is_started_again(tmp_path, monkeypatch):
    """A kernel that dies before it answers (under load, side by side with others): nothing
    has run in it, so it is shut down and started again (a bounded number of times), for
    a chapter run alone as for a worker; an error of the chapter itself stops at once."""
    import papermill

    from spotmath.book import chapters

    starts, stops, answers = [], [], []

    class Kernel:  # what _start_kernel and execute use of jupyter_client's KernelManager
        def __init__(self, **options):
            self.options = options

        def start_kernel(self, **options):
            starts.append(options)

        def shutdown_kernel(self, now=False):
            stops.append(now)

        def client(self, **options):  # what papermill asks for; _stop_clients stops it
            return Client()

    class Client:
        def start_channels(self):
            pass

        def stop_channels(self):
            pass

        def wait_for_ready(self, timeout):
            if not answers.pop(0):
                raise RuntimeError("Kernel died before replying to kernel_info")

    import jupyter_client.manager

    monkeypatch.setattr(jupyter_client.manager, "KernelManager", Kernel)
    monkeypatch.setattr(chapters, "_blocking_client", lambda kernel: Client())
    source = chapters.chapter_paths()[0]
    ran = []

    def execute_notebook(source, output, **options):
        ran.append(options["km"])
        shutil.copy(source, output)

    monkeypatch.setattr(papermill, "execute_notebook", execute_notebook)
    answers[:] = [False] * (chapters.KERNEL_STARTS - 1) + [True]
    values = chapters.run_chapter(source, tmp_path / "out.ipynb", {})
    assert values == chapters.glued(source)
    assert len(starts) == chapters.KERNEL_STARTS and len(stops) == chapters.KERNEL_STARTS
    assert all(start["extra_arguments"] == chapters.KERNEL_ARGUMENTS for start in starts)
    assert len(ran) == 1  # in the kernel that answered, shut down after the chapter

    for calls in (starts, stops, ran):
        calls.clear()
    answers[:] = [False] * chapters.KERNEL_STARTS
    with pytest.raises(RuntimeError, match="Kernel died before replying"):
        chapters.run_chapter(source, tmp_path / "out.ipynb", {})
    assert len(starts) == chapters.KERNEL_STARTS == len(stops) and not ran

    def broken(source, output, **options):
        ran.append(options["km"])
        raise RuntimeError("something else")

    for calls in (starts, stops, ran):
        calls.clear()
    answers[:] = [True]
    monkeypatch.setattr(papermill, "execute_notebook", broken)
    with pytest.raises(RuntimeError, match="something else"):
        chapters.run_chapter(source, tmp_path / "out.ipynb", {})
    assert len(starts) == 1 == len(ran) == len(stops)


def test_a_kernel_slow_to_answer_is_alive_while_its_process_runs(monkeypatch):
    """A kernel is dead when its process has ended, not when its heartbeat is late: on a
    loaded machine a starting kernel can miss a beat while its first answer takes more
    than a second.  Here no beat is ever in time and the kernel sleeps before it answers:
    it starts, the first time; one whose process ends before it answers is dead at once."""
    from jupyter_client import channels

    from spotmath.book import chapters

    monkeypatch.setattr(channels.HBChannel, "is_beating", lambda channel: False)
    monkeypatch.setattr(chapters, "KERNEL_STARTS", 1)
    arguments = chapters.KERNEL_ARGUMENTS
    for first, lives in (("import time; time.sleep(2)", True), ("import os; os._exit(3)", False)):
        monkeypatch.setattr(chapters, "KERNEL_ARGUMENTS",
                            [*arguments, f"--IPKernelApp.exec_lines={first}"])
        began = time.monotonic()
        if lives:
            chapters._shut_down(chapters._start_kernel(ROOT))
        else:
            with pytest.raises(RuntimeError, match="Kernel died before replying"):
                chapters._start_kernel(ROOT)
        assert time.monotonic() - began < 30  # not a wait for the heartbeat's 60 s


def test_a_kernel_under_a_deep_folder_still_starts(tmp_path, monkeypatch):
    """A Unix socket's path is short (about a hundred characters): where the folder given
    for the kernels' sockets is too deep, a kernel keeps them in /tmp instead, and its
    folder goes when it stops."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from spotmath.book import chapters

    deep = tmp_path / ("d" * 90)
    deep.mkdir()
    monkeypatch.setenv(chapters.KERNEL_FOLDER, str(deep))
    source, output = tmp_path / "tiny.ipynb", tmp_path / "out.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("print(6 * 7)")], metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}),
        source)
    before = set(Path("/tmp").glob("spotmath-k-*"))
    chapters.execute(source, output, {}, cwd=tmp_path)
    assert nbformat.read(output, as_version=4).cells[0].outputs[0]["text"] == "42\n"
    assert list(deep.iterdir()) == [] and set(Path("/tmp").glob("spotmath-k-*")) == before


def test_a_chapter_leaves_the_readers_ipython_history_alone(tmp_path, monkeypatch):
    """The chapters' kernels keep their history in memory, as nbclient's own do: running
    the book must not add its code to the reader's IPython history (a chapter run alone
    and a worker's kernel start the same way)."""
    from spotmath.book import chapters

    profile = tmp_path / "ipython"
    monkeypatch.setenv("IPYTHONDIR", str(profile))
    source = chapters.chapter_paths()[0]
    chapters.run_chapter(source, tmp_path / "alone.ipynb", {})
    job = {"source": str(source), "output": str(tmp_path / "worker.ipynb"),
           "parameters": {}, "cwd": str(source.parent)}
    replies = []
    chapters._serve([json.dumps(job)], replies.append)
    assert replies == [chapters.RESULT + json.dumps({"code": 0, "message": ""})]
    assert not list(profile.rglob("history.sqlite"))


# -- the whole book, as the README shows it -------------------------------------------------
def processes_inside(folder: Path) -> list[int]:
    """Processes whose working folder is inside ``folder`` (a chapter's kernel runs in its
    chapter's folder): what a stopped build must not leave behind."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if Path(os.readlink(entry / "cwd")).is_relative_to(folder):
                    found.append(int(entry.name))
    return found


def stop_when(process: subprocess.Popen, text: str, sig: int, timeout: float = 600) -> str:
    """Read the build's progress until ``text`` appears, then send ``sig``; its output."""
    seen = ""
    deadline = time.monotonic() + timeout
    while text not in seen:
        line = process.stdout.readline()
        assert line and time.monotonic() < deadline, seen[-2000:]
        seen += line
    process.send_signal(sig)
    return seen


#: ``python -c _FROM_BOOK BOOK ARGUMENTS...``: the command line with its editions built
#: from the book at BOOK.
_FROM_BOOK = ("import functools, pathlib, sys; from spotmath.book import edition; "
              "edition.make_edition = functools.partial(edition.make_edition, "
              "root=pathlib.Path(sys.argv.pop(1))); from spotmath.cli import main; "
              "sys.exit(main())")


def test_your_own_edition_end_to_end(tmp_path, tmp_path_factory, documentation):
    """The README's command and parameters file, as shown (a relative --out, run from
    another folder): every chapter rerun with MTBF 2 h from the YAML file plus -p, built
    into OUT; then rebuilds with --force (of a one-chapter book, so that the HTML step
    comes at once) stopped by SIGTERM in the HTML step and by Ctrl-C among the chapters:
    each says so in one line, exits 143 or 130, leaves the edition as it was, no building
    folder and no kernel."""
    shown = documentation.documented("spotmath book ").line
    assert shown == "spotmath book --params my.yaml -p restart_minutes 5 --out my-edition"
    (tmp_path / "my.yaml").write_text(documentation.example_parameters())
    out = tmp_path / "my-edition"
    before = book_fingerprint()
    command = [sys.executable, "-m", *shlex.split(shown)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800,
                            cwd=tmp_path)
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
    marker = json.loads((out / MARKER).read_text())
    assert marker["parameters"]["restart_minutes"] == 5 and marker["parameters"]["jobs"] == 1000
    # values are checked before the folder: a bad one leaves the edition as it was
    edition_before = tree(out)
    again = run("book", "--out", str(out), "--force", "-p", "jobs", "0")
    assert again[0] == 2 and "jobs: must be a whole number from 100 to 20000" in again[2]
    # stopped: in the HTML step by SIGTERM, among the chapters by Ctrl-C (SIGINT): the same
    # command in a process of its own, its edition built from a book of one chapter (the
    # HTML step comes at once), a slow one for Ctrl-C
    for sig, when, code, slow in ((signal.SIGTERM, "building the HTML book", 143, False),
                                  (signal.SIGINT, "(running: ", 130, True)):
        book = small_book(tmp_path_factory.mktemp("one-chapter"), raises=False, slow=slow)
        process = subprocess.Popen(
            [sys.executable, "-c", _FROM_BOOK, str(book), "book", "-p", "mtbf_hours", "3",
             "--out", "my-edition", "--force"],
            cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        stop_when(process, when, sig)
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == code, stderr
        assert stderr == "spotmath book: stopped; the edition's folder is as it was\n", stderr
        deadline = time.monotonic() + 15  # a kernel without its chapter exits within 1 s
        while processes_inside(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert processes_inside(tmp_path) == []
        assert tree(out) == edition_before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["my-edition", "my.yaml"]


@pytest.fixture(scope="module")
def declared():
    from spotmath.book.chapters import declared_parameters

    return {path: declared_parameters(path) for path in chapter_paths(ROOT)}


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_odd_book_parameters_are_taken_or_refused_in_one_line(declared, odd_values, data):
    """The book's parameter reader, `-p NAME VALUE` as the command gets it, with the odd
    strings the commands are fuzzed with: accepted (checked for every chapter) or one
    InputError line naming the parameter, never another exception."""
    from spotmath.book.edition import check_edition_parameters, read_parameters
    from spotmath.book.parameters import BOOK_PARAMETERS

    name = data.draw(st.sampled_from(sorted(BOOK_PARAMETERS)), label="name")
    value = data.draw(odd_values, label="value")
    try:
        check_edition_parameters(read_parameters(None, [(name, value)]), declared)
    except sm.InputError as error:  # naming it, or the other of a combination
        named = str(error).split(":")[0].split("[")[0]
        assert "\n" not in str(error) and named in BOOK_PARAMETERS, str(error)
