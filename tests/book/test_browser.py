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


def test_pages_typeset_images_load_links_resolve(server, built_book, tmp_path, chromium,
                                                toc_files, requests_seen):
    pages = ["index.html"] + [f"{name}.html" for name in toc_files]
    with_maths = 0
    for name in pages:
        requests_seen.clear()
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
        fetched = dict(requests_seen)
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


def test_screenshot_of_a_chapter(server, tmp_path, chromium):
    target = ROOT / "_build" / "browser" / "checkpoint_cost.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    chromium(urljoin(server, "book/checkpoint_cost.html"), tmp_path / "profile",
             f"--screenshot={target}", "--window-size=1280,2400", "--hide-scrollbars")
    assert target.is_file() and target.stat().st_size > 20_000


_HARNESS = """<!DOCTYPE html><html><head><meta charset="utf-8"></head>
<body style="margin:0"><iframe id="page" style="width:1280px;height:900px;border:0"></iframe>
<pre id="result">pending</pre><script>
// Loads each page in a 1280 x 900 frame, waits for MathJax, then measures what a reader sees.
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
  return {page_scrolls_sideways: root.scrollWidth > root.clientWidth + 1,
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
  frame.onload = () => setTimeout(() => { results[name] = measure(); load(); }, 4000);
  frame.src = "../" + name;
}
load();
</script></body></html>
"""


def test_reading_at_1280_by_900(server, built_book, tmp_path, toc_files, run_harness):
    """What a reader sees in a 1280 x 900 window: the introduction's answer without
    scrolling, and no page, code block or output that scrolls sideways."""
    import json

    pages = [f"{name}.html" for name in toc_files]
    results = run_harness(tmp_path, "reading",
                          _HARNESS.replace("PAGES", json.dumps(pages)),
                          "--window-size=1400,1000", f"--virtual-time-budget={8000 * len(pages)}")
    assert sorted(results) == sorted(pages)
    for name, seen in results.items():
        assert seen["viewport"][0] <= 1280 and seen["viewport"][1] == 900, (name, seen)
        assert not seen["page_scrolls_sideways"], name
        assert not seen["wide"], (name, seen["wide"])
    bottom = results["book/intro.html"]["verdict_bottom"]
    assert bottom is not None and bottom <= 900, f"the verdict ends at {bottom} px, below the fold"

