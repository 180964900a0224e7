"""The built book in a real browser (headless Chromium) with the network cut off.

Checks that the index and every chapter load, that MathJax typeset the equations (MathJax
output elements present, no raw TeX delimiters left), that the browser fetched every image
successfully, and that internal links resolve.  Saves a screenshot of one chapter under
`_build/browser/`.  Skipped, saying why, where Chromium is not installed (`.ci/run`
installs Debian's `chromium`).
"""

import functools
import http.server
import re
import shutil
import subprocess
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import pytest
from test_book import ROOT, toc_files

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed "
                                "(apt-get install chromium; .ci/run does)")


class _Handler(http.server.SimpleHTTPRequestHandler):
    requests: list = []

    def log_message(self, *args):  # quiet; record instead
        pass

    def send_response(self, code, message=None):
        type(self).requests.append((unquote(urlparse(self.path).path), code))
        super().send_response(code, message)


@pytest.fixture(scope="module")
def server(built_book):
    handler = functools.partial(_Handler, directory=str(built_book))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


def chromium(url: str, tmp: Path, *extra: str) -> str:
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp}",
         "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
         "--virtual-time-budget=20000", *extra, url],
        capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


class _Page(HTMLParser):
    """Links, images and visible text (outside code, scripts and styles) of a page."""

    def __init__(self):
        super().__init__()
        self.links, self.images, self.text, self.ids = [], [], [], set()
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag in ("script", "style", "pre", "code", "mjx-container"):
            self._skip += 1
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])

    def handle_endtag(self, tag):
        if tag in ("script", "style", "pre", "code", "mjx-container") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def test_pages_typeset_images_load_links_resolve(server, built_book, tmp_path):
    pages = ["index.html"] + [f"{name}.html" for name in toc_files()]
    with_maths = 0
    for name in pages:
        _Handler.requests.clear()
        url = urljoin(server, name)
        dom = chromium(url, tmp_path / "profile", "--dump-dom")
        page = parse(dom)
        text = "".join(page.text)
        assert "$$" not in text and "\\(" not in text and "\\[" not in text, name
        source = (built_book / name).read_text()
        redirect = re.search(r'http-equiv="Refresh" content="0; url=([^"]+)"', source)
        if redirect:  # index.html forwards to the first chapter: check where it lands
            url = urljoin(url, redirect.group(1))
            source = (built_book / unquote(urlparse(url).path).lstrip("/")).read_text()
            assert "When do spot GPUs pay?" in dom
        if 'class="math' in source:
            assert "<mjx-container" in dom, f"{name}: equations were not typeset"
            with_maths += 1
        fetched = dict(_Handler.requests)
        for src in page.images:
            path = unquote(urlparse(urljoin(url, src)).path)
            assert fetched.get(path) == 200, f"{name}: image {src} not loaded"
        for href in page.links:
            target, anchor = urldefrag(urljoin(url, href))
            if not target.startswith(server):
                continue
            relative = unquote(urlparse(target).path).lstrip("/")
            file = built_book / relative
            assert file.is_file(), f"{name}: broken link {href}"
            if anchor and file.suffix == ".html":
                assert f'id="{anchor}"' in file.read_text(), f"{name}: no anchor {href}"
    assert with_maths >= 5


def test_screenshot_of_a_chapter(server, tmp_path):
    target = ROOT / "_build" / "browser" / "checkpoint_cost.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    chromium(urljoin(server, "book/checkpoint_cost.html"), tmp_path / "profile",
             f"--screenshot={target}", "--window-size=1280,2400", "--hide-scrollbars")
    assert target.is_file() and target.stat().st_size > 20_000
