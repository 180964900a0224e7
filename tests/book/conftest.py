"""Shared by the book's tests: the built book (one build per test session) and a server
for it, headless Chromium and a harness page beside the book, the commands the
documentation shows, and every chapter run at the ends of its parameters' ranges."""

import fcntl
import functools
import http.server
import os
import re
import shlex
import shutil
import subprocess
import threading
import time
import types
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import nbformat
import pytest

from spotmath.book import ROOT
from spotmath.book.parameters import BOOK_TABLE, CHAPTER_PARAMETERS, BookParameter

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: nbval, which checks the chapters against their stored outputs (``--nbval``), named here
#: for the book's tests: pytest loads only the plugins it is told of (pyproject.toml), and
#: the library's tests run without Jupyter.
pytest_plugins = ["nbval.plugin"]


class _BookBuild:
    """The strict build of the HTML book (warnings as errors), once per test run, in the
    background: under pytest-xdist the workers share the run's temporary folder, and the
    first to take the lock starts the build, which writes its exit status when it ends;
    every worker goes on with its other tests meanwhile and waits only where one needs
    the book."""

    def __init__(self, shared: Path):
        self.shared, self.out = shared, shared / "built-book"
        self.log, self.status = shared / "built-book.log", shared / "built-book.status"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.shared / "built-book.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            started = self.shared / "built-book.started"
            if started.exists():
                return
            started.write_text("started\n")
            build = shlex.join([shutil.which("jupyter-book") or "jupyter-book", "build",
                                str(ROOT), "--path-output", str(self.out), "-W", "-n",
                                "--keep-going"])
            status = shlex.quote(str(self.status))
            # the status is written whole (renamed into place) once the build has ended
            self.process = subprocess.Popen(
                ["sh", "-c", f"{build} > {shlex.quote(str(self.log))} 2>&1; "
                             f"echo $? > {status}.part && mv {status}.part {status}"])

    def wait(self) -> Path:
        """The built book's HTML folder; fails with the build's output if it failed."""
        self.start()
        deadline = time.monotonic() + 1800
        while not self.status.exists():
            assert time.monotonic() < deadline, "the book's build took over 30 minutes"
            time.sleep(0.2)
        code = int(self.status.read_text())
        assert code == 0, self.log.read_text()[-8000:]
        return self.out / "_build" / "html"

    def finish(self) -> None:
        """This worker's build, if it started one, ended before the worker ends."""
        if self.process is not None:
            self.process.wait(timeout=1800)


@pytest.fixture(scope="session", autouse=True)
def book_build(request, tmp_path_factory) -> _BookBuild:
    """The book's build, started as this worker's first book test begins where any test
    of the run needs the built book."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the folder all workers of this run have in common
    build = _BookBuild(shared)
    if any("built_book" in getattr(item, "fixturenames", ()) for item in request.session.items):
        build.start()
    yield build
    build.finish()


@pytest.fixture(scope="session")
def built_book(book_build) -> Path:
    """The HTML book, built from a clean output folder with warnings as errors."""
    return book_build.wait()


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the built book quietly, recording every request (path, status)."""

    requests: list = []

    def log_message(self, *args):  # quiet; record instead
        pass

    def send_response(self, code, message=None):
        type(self).requests.append((unquote(urlparse(self.path).path), code))
        super().send_response(code, message)


@pytest.fixture(scope="module")
def server(built_book):
    """The built book on http://127.0.0.1 (a free port), for the browser tests."""
    handler = functools.partial(_Handler, directory=str(built_book))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="session")
def requests_seen():
    """The (path, status) of every request the book's server answered so far (clearable)."""
    return _Handler.requests


def _chromium(url: str, tmp: Path, *extra: str) -> str:
    """``url`` in headless Chromium with the network cut off; what it prints."""
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp}",
         "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
         "--virtual-time-budget=20000", *extra, url],
        capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.fixture(scope="session")
def chromium_binary():
    """The Chromium program; skipped, saying why, where it is not installed."""
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run does)")
    return CHROMIUM


@pytest.fixture(scope="session")
def toc_files() -> list[str]:
    """Every file named in _toc.yml, in reading order."""
    import yaml

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
def chromium(chromium_binary):
    """``chromium(url, profile_folder, *flags)``: skipped, saying why, without Chromium."""
    return _chromium


@pytest.fixture(scope="module")
def run_harness(server, built_book, chromium):
    """``run_harness(tmp_path, name, page, *flags)``: serve ``page`` beside the built book
    (``_browser/NAME.html``), open it in Chromium and return the JSON it writes into
    ``<pre id="result">``."""
    import html
    import json

    def run(tmp_path: Path, name: str, page: str, *extra: str):
        harness = built_book / "_browser" / f"{name}.html"
        harness.parent.mkdir(exist_ok=True)
        harness.write_text(page, encoding="utf-8")
        dom = chromium(urljoin(server, f"_browser/{name}.html"), tmp_path / "profile",
                       "--dump-dom", *extra)
        found = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
        assert found and found.group(1) != "pending", dom[-2000:]
        return json.loads(html.unescape(found.group(1)))

    return run


# -- the commands the README and the book's pages show ---------------------------------------
# A ``console`` block holds commands after ``$ `` (a line ending in ``\\`` goes on), each
# followed by the output it is shown with; a ``bash`` block holds commands one per line
# (``# ...`` comments dropped); a ``yaml`` block is the example parameters file.
_BLOCK = re.compile(r"^(`{3,})([\w-]+)[^\n]*\n(.*?)^\1\s*$", re.M | re.S)


@dataclass(frozen=True)
class Command:
    """A command shown to the reader: where, the command line, the output shown (if any)."""

    source: str
    line: str
    shown: str | None


def sources() -> dict[str, str]:
    """The README, the documentation beside it (``docs/``, ``benchmarks/README.md``) and
    every page's Markdown, by a name to report."""
    texts = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for path in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]:
        texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
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


def _documented(prefix: str) -> Command:
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


@pytest.fixture
def documentation():
    """The documentation's commands: ``.commands()``, ``.blocks(kind)``,
    ``.documented(prefix)`` (the one command starting so), ``.example_parameters()``,
    ``.checkout_folder(tmp_path)``."""
    return types.SimpleNamespace(commands=commands, blocks=blocks, documented=_documented,
                                 example_parameters=example_parameters,
                                 checkout_folder=checkout_folder)


def pytest_generate_tests(metafunc):
    """``documented_command``: every command shown but those the module's NOT_RUN_HERE
    lists (with its reason)."""
    if "documented_command" in metafunc.fixturenames:
        skipped = getattr(metafunc.module, "NOT_RUN_HERE", {})
        shown = [command for command in commands() if command.line not in skipped]
        metafunc.parametrize("documented_command", shown, ids=[
            f"{command.source}:{command.line[:60]}" for command in shown])


# -- every chapter at the ends of its parameters' ranges -------------------------------------
# Every value a parameter's check accepts must run through every chapter that declares it
# (no traceback, no NaN or infinity on the page): the smallest and largest accepted values
# (zero where zero is accepted), read from the parameter table itself, and two mixtures
# that put the fastest preemptions with the slowest restarts and writes, and the reverse.
def end_value(row: BookParameter, end: str):
    """The parameter at one end of its range: ``"low"`` or ``"high"`` (a list holds both
    ends at the high end, the low one at the low end)."""
    if row.kind == "flag":
        return end == "high"
    if row.kind == "trace":
        return ["p3-trace.csv"] if end == "low" else ["p3-trace.csv", "g4dn-trace.csv"]
    if row.kind == "availability":
        return "v100x1-east1c.txt" if end == "low" else "a100x1-east1b.txt"
    whole = row.kind in ("whole", "seed")
    low, high = (int(row.low), int(row.high)) if whole else (row.low, row.high)
    if row.is_list:
        return [low] if end == "low" else [low, high]
    return low if end == "low" else high


LOW = {row.name: end_value(row, "low") for row in BOOK_TABLE}
HIGH = {row.name: end_value(row, "high") for row in BOOK_TABLE}
SETS = {
    "smallest": LOW,
    "largest": HIGH,
    # preemptions every 6 minutes with day-long restarts and writes (spot never pays,
    # nothing can be simulated), and the reverse: rare preemptions, free restarts
    "fast-and-slow": dict(HIGH, mtbf_hours=LOW["mtbf_hours"],
                          mtbf_grid_hours=LOW["mtbf_grid_hours"], persist_minutes=5.0),
    "slow-and-fast": dict(LOW, mtbf_hours=HIGH["mtbf_hours"],
                          mtbf_grid_hours=[HIGH["mtbf_hours"]],
                          gang_sizes=[HIGH["gang_sizes"][-1]],
                          pool_gang_sizes=[HIGH["pool_gang_sizes"][-1]]),
    # a shared pool with room for 256 one-GPU requests and a load of 2: Erlang's B far
    # below a double's range at the top (the chapter failed there with a NaN)
    "light-load": dict(LOW, pool_gpus=256, request_gpus=1, requests_per_hour=2.0,
                       request_hours=1.0),
}



def _values(chapter: str, name: str) -> dict:
    """The chapter's parameters in the set ``name``."""
    return {key: SETS[name][key] for key in CHAPTER_PARAMETERS[chapter]}


#: (chapter, mixture) for each mixture that gives the chapter values no set before it
#: gave: a chapter that reads neither the MTBF nor the writes runs at the ends alone (its
#: mixtures would run the very same notebook again).
MIXTURES = [(chapter, mixture) for chapter in CHAPTER_PARAMETERS
            for at, mixture in enumerate(SETS) if at >= 2
            and all(_values(chapter, mixture) != _values(chapter, before)
                    for before in list(SETS)[:at])]

#: Words that must never reach a page: a number that is not one.
_NOT_A_NUMBER = re.compile(r"\b(nan|NaN|inf|Infinity)\b|-inf\b")


@pytest.fixture(scope="session")
def chapter_run():
    """``chapter_run(source, output, parameters)``: :func:`run_chapter` in one kernel this
    test worker keeps between chapters and resets before each, as the book's executor
    does (the outputs a fresh kernel makes; nbval runs each chapter in a fresh kernel
    against them).  A kernel's start and imports cost more than most chapters compute."""
    from spotmath.book.chapters import KeptKernel

    kept = KeptKernel()
    yield kept.run
    kept.close()


def _run_at(chapter: str, name: str, folder: Path, run) -> None:
    """Run ``chapter`` with the parameter set ``name``; fail on an error or a NaN shown."""
    parameters = _values(chapter, name)
    output = folder / f"{chapter}.ipynb"
    run(ROOT / "book" / f"{chapter}.ipynb", output, parameters)
    notebook = nbformat.read(output, as_version=4)
    for cell in notebook.cells:
        for out in cell.get("outputs", []):
            for mime in ("text/plain", "text/markdown", "text/html"):
                for prefix in ("", "application/papermill.record/"):
                    text = out.get("data", {}).get(prefix + mime, "")
                    if text.startswith("<Figure") or text.startswith("<IPython"):
                        continue
                    found = _NOT_A_NUMBER.search(text)
                    assert not found, (chapter, name, text[max(0, found.start() - 200):
                                                            found.end() + 50])


@pytest.fixture
def run_at(chapter_run):
    """``run_at(chapter, set_name, folder)``: the chapter run with one of :data:`SETS`."""
    return functools.partial(_run_at, run=chapter_run)
