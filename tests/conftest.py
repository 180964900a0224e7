"""Shared test settings and the built book (one build per test session)."""

import fcntl
import functools
import http.server
import os
import shutil
import subprocess
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

# The first call of a formula builds it with SymPy (about a second); no per-example deadline.
settings.register_profile("spotmath", deadline=None, max_examples=100)
settings.load_profile("spotmath")


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    """The HTML book, built from a clean output folder with warnings as errors.

    Built once per test run: under pytest-xdist the workers share the run's temporary
    folder, and the first to take the lock builds while the others wait for it.
    """
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the folder all workers of this run have in common
    out, done = shared / "built-book", shared / "built-book.ok"
    with open(shared / "built-book.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(out, ignore_errors=True)
            result = subprocess.run(
                [shutil.which("jupyter-book") or "jupyter-book", "build", str(ROOT),
                 "--path-output", str(out), "-W", "-n", "--keep-going"],
                capture_output=True, text=True, timeout=1800)
            assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
            done.write_text("built\n")
    return out / "_build" / "html"


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
