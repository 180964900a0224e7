"""The built book in a real browser (headless Chromium) with the network cut off.

Checks that the index and every chapter load, that MathJax typeset the equations (MathJax
output elements present, no raw TeX delimiters left), that the browser fetched every image
successfully, and that internal links resolve.  Saves a screenshot of one chapter under
`_build/browser/`.  Skipped, saying why, where Chromium is not installed (`.ci/run`
installs Debian's `chromium`).
"""

import re
from html.parser import HTMLParser
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import pytest

from spotmath.book import ROOT


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


def test_pages_typeset_images_load_links_resolve(server, built_book, pages_seen):
    pages = pages_seen["pages"]
    assert sorted(pages) == sorted(["index.html"] + pages_seen["chapters"])
    with_maths = images = 0
    for name, seen in pages.items():
        dom, url = seen["dom"], seen["location"]
        page = parse(dom)
        text = "".join(page.text)
        assert "$$" not in text and "\\(" not in text and "\\[" not in text, name
        source = (built_book / name).read_text()
        redirect = re.search(r'http-equiv="Refresh" content="0; url=([^"]+)"', source)
        if redirect:  # index.html forwards to the first chapter: check where it lands
            assert url == urljoin(urljoin(server, name), redirect.group(1)), url
            source = (built_book / unquote(urlparse(url).path).lstrip("/")).read_text()
            assert "When do spot GPUs pay?" in dom
        if 'class="math' in source:
            assert "<mjx-container" in dom, f"{name}: equations were not typeset"
            with_maths += 1
        assert page.images == [src for src, _ in seen["images"]], name
        for src, loaded in seen["images"]:
            assert loaded, f"{name}: image {src} not loaded"
            images += 1
        for href in page.links:
            target, anchor = urldefrag(urljoin(url, href))
            if not target.startswith(server):
                continue
            relative = unquote(urlparse(target).path).lstrip("/")
            file = built_book / relative
            assert file.is_file(), f"{name}: broken link {href}"
            if anchor and file.suffix == ".html":
                assert f'id="{anchor}"' in file.read_text(), f"{name}: no anchor {href}"
    assert with_maths >= 5 and images >= 5
    # every file a page asked for was there (304: the browser's cached copy is current)
    # (Chromium asks for /favicon.ico by itself, for the harness page)
    requests = [r for r in pages_seen["requests"] if r[0] != "/favicon.ico"]
    assert all(code in (200, 304) for _, code in requests), [
        r for r in requests if r[1] not in (200, 304)]


def test_screenshot_of_a_chapter(server, tmp_path, chromium):
    target = ROOT / "_build" / "browser" / "checkpoint_cost.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    chromium(urljoin(server, "book/checkpoint_cost.html"), tmp_path / "profile",
             f"--screenshot={target}", "--window-size=1280,2400", "--hide-scrollbars")
    assert target.is_file() and target.stat().st_size > 20_000


_HARNESS = """<!DOCTYPE html><html><head><meta charset="utf-8"></head>
<body style="margin:0"><iframe id="page" style="width:1280px;height:900px;border:0"></iframe>
<pre id="result">pending</pre><script>
// Loads each page in a 1280 x 900 frame, waits for MathJax, then keeps what a reader sees:
// the page as the browser holds it, where it landed, whether each image was drawn, and
// what is too wide for its column.
const pages = PAGES, results = {}, frame = document.getElementById("page");
function clip(el) {
  return `${el.tagName} ${el.scrollWidth}px in ${el.clientWidth}px at `
         + `${getComputedStyle(el).fontSize}: ${el.textContent.trim().slice(0, 60)}`;
}
function measure() {
  const doc = frame.contentDocument, root = doc.scrollingElement;
  const shown = doc.querySelectorAll("pre, .cell_output, .output");
  const wide = [...shown].filter(el => el.clientWidth > 0
                                       && el.scrollWidth > el.clientWidth + 1).map(clip);
  const verdict = [...doc.querySelectorAll("li")]
    .find(li => li.textContent.includes("Verdict for one node"));
  return {dom: doc.documentElement.outerHTML, location: frame.contentWindow.location.href,
          images: [...doc.querySelectorAll("img[src]")]
            .map(img => [img.getAttribute("src"), img.complete && img.naturalWidth > 0]),
          page_scrolls_sideways: root.scrollWidth > root.clientWidth + 1,
          wide: wide, viewport: [frame.contentWindow.innerWidth,
                                 frame.contentWindow.innerHeight],
          verdict_bottom: verdict ? verdict.getBoundingClientRect().bottom : null};
}
let next = 0;
function load() {
  if (next === pages.length) {
    document.getElementById("result").textContent = JSON.stringify(results);
    return;
  }
  const name = pages[next++];
  let loaded = false;  // a page that forwards (index.html) loads twice: measure once
  frame.onload = () => {
    if (loaded) return;
    loaded = true;
    setTimeout(() => { results[name] = measure(); load(); }, 4000);
  };
  frame.src = "../" + name;
}
load();
</script></body></html>
"""


@pytest.fixture(scope="module")
def pages_seen(tmp_path_factory, toc_files, run_harness, requests_seen):
    """Every page of the book loaded once in one browser, 1280 x 900, MathJax given its
    time: {"pages": {name: what the page showed}, "chapters": the toc's pages, "requests":
    every (path, status) the server answered meanwhile}."""
    import json

    chapters = [f"{name}.html" for name in toc_files]
    pages = ["index.html"] + chapters
    requests_seen.clear()
    results = run_harness(tmp_path_factory.mktemp("browser"), "reading",
                          _HARNESS.replace("PAGES", json.dumps(pages)),
                          "--window-size=1400,1000", f"--virtual-time-budget={8000 * len(pages)}")
    return {"pages": results, "chapters": chapters, "requests": list(requests_seen)}


def test_reading_at_1280_by_900(pages_seen):
    """What a reader sees in a 1280 x 900 window: the introduction's answer without
    scrolling, and no page, code block or output that scrolls sideways."""
    for name in pages_seen["chapters"]:
        seen = pages_seen["pages"][name]
        assert seen["viewport"][0] <= 1280 and seen["viewport"][1] == 900, (name, seen)
        assert not seen["page_scrolls_sideways"], name
        assert not seen["wide"], (name, seen["wide"])
    bottom = pages_seen["pages"]["book/intro.html"]["verdict_bottom"]
    assert bottom is not None and bottom <= 900, f"the verdict ends at {bottom} px, below the fold"
