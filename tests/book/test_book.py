"""The book builds with warnings as errors (the `built_book` fixture, in conftest.py), and
every chapter in the toc has its page; the executor the build uses runs every chapter and
names each failure.  The tests that need no built book come first: the build runs in the
background meanwhile."""

from pathlib import Path

import pytest

from spotmath.book import ROOT


def test_a_failing_notebook_fails_the_build_with_its_error(tmp_path):
    """With spotmath.book.parallel_execution, a notebook that raises is not in the cache;
    MyST-NB runs it again and the strict build stops, showing the notebook's error."""
    import shutil
    import subprocess
    import sys

    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    kernel = {"kernelspec": {"name": "python3", "display_name": "Python 3",
                             "language": "python"}}
    for name, code in (("good", "print('fine')"), ("bad", "raise ValueError('boom')")):
        notebook = new_notebook(cells=[new_markdown_cell(f"# {name}"), new_code_cell(code)],
                                metadata=kernel)
        nbformat.write(notebook, tmp_path / f"{name}.ipynb")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: good\nchapters:\n"
                                       "  - file: bad\n")
    (tmp_path / "_config.yml").write_text(
        "title: t\nexecute:\n  execute_notebooks: cache\n  allow_errors: false\n"
        "sphinx:\n  extra_extensions: [spotmath.book.parallel_execution]\n"
        "  config:\n    nb_execution_raise_on_error: true\n")
    command = shutil.which("jupyter-book", path=str(Path(sys.executable).parent))
    result = subprocess.run([command, "build", str(tmp_path), "-W"], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "bad" in output and "ValueError" in output and "boom" in output, output[-3000:]


def test_the_one_executor_runs_every_chapter_and_names_each_failure(tmp_path, monkeypatch):
    """execute_chapters: with keep_going every chapter runs and each failure is one line
    (a chapter whose kernel dies too: its worker starts a fresh one for the next; and one
    that kills its worker: a new worker takes the rest);
    without it the first failure raises; an executed copy keeps its source's metadata.
    The kernels' sockets go, the killed worker's too."""
    import tempfile

    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from spotmath.book.executing import (
        ChapterFailed,
        execute_chapters,
        with_source_metadata,
    )

    kernel = {"kernelspec": {"name": "python3", "display_name": "Python 3",
                             "language": "python"}}
    sources = {}
    for name, code in (("good", "print(6 * 7)"), ("bad", "raise ValueError('boom')"),
                       ("also_good", "x = 1"), ("dies", "import os\nos._exit(3)"),
                       ("kills", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"),
                       ("after", "print('still here')")):
        sources[name] = tmp_path / f"{name}.ipynb"
        cell = new_code_cell(code, metadata={"tags": ["mine"]})
        nbformat.write(new_notebook(cells=[cell], metadata=kernel), sources[name])
    jobs = {path: (tmp_path / f"out-{path.name}", {}) for path in sources.values()}
    temporary = Path(tempfile.mkdtemp())  # (pytest's own folders are too deep for sockets)
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    failed = execute_chapters(jobs, keep_going=True)
    assert list(temporary.iterdir()) == []
    monkeypatch.undo()
    temporary.rmdir()
    assert failed == {sources["bad"]: "chapter bad failed: ValueError: boom",
                      sources["dies"]: "chapter dies failed: DeadKernelError: Kernel died",
                      sources["kills"]: "chapter kills failed: its worker was killed (SIGKILL)"}
    after = nbformat.read(tmp_path / "out-after.ipynb", as_version=4)
    assert after.cells[0].outputs[0]["text"] == "still here\n"
    good = with_source_metadata(tmp_path / "out-good.ipynb", sources["good"])
    assert good.cells[0].outputs[0]["text"] == "42\n"
    assert good.cells[0].metadata == {"tags": ["mine"]}
    assert good.metadata == nbformat.read(sources["good"], as_version=4).metadata
    with pytest.raises(ChapterFailed, match="chapter bad failed: ValueError: boom"):
        execute_chapters({sources["bad"]: jobs[sources["bad"]]})
    with pytest.raises(ChapterFailed, match="not those of"):
        with_source_metadata(tmp_path / "out-good.ipynb", sources["also_good"])


def test_the_executors_chapters_keep_to_one_linear_algebra_thread(tmp_path, monkeypatch):
    """A worker per core already fills the cores: each chapter's OpenBLAS (and OpenMP, MKL)
    gets one thread, where the reader has set none; a count the reader set is kept."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from spotmath.book.executing import THREAD_VARIABLES, execute_chapters

    code = f"import os\nprint(' '.join(os.environ.get(n, '-') for n in {THREAD_VARIABLES!r}))"
    source = tmp_path / "threads.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell(code)], metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}}), source)
    output = tmp_path / "out.ipynb"
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert execute_chapters({source: (output, {})}) == {}
    printed = nbformat.read(output, as_version=4).cells[0].outputs[0]["text"]
    assert printed == "1 3 1\n"


def test_every_chapter_has_a_page(built_book, toc_files):
    for name in toc_files:
        assert (built_book / f"{name}.html").is_file(), name
    assert (built_book / "index.html").is_file()


def test_equation_anchors_exist(built_book):
    """Each label on the How-to-cite page is an anchor `equation-LABEL` in the HTML."""
    import re

    cite = (ROOT / "book" / "cite.md").read_text()
    html = "".join(path.read_text() for path in (built_book / "book").glob("*.html"))
    for label in set(re.findall(r"`(eq-[\w-]+)`", cite)):
        assert f'id="equation-{label}"' in html, label


def test_bibliography_and_glossary_pages(built_book):
    references = (built_book / "book" / "references.html").read_text()
    for author in ("Young", "Daly", "Bougeret"):
        assert author in references
    glossary = (built_book / "book" / "glossary.html").read_text()
    assert 'id="term-T"' in glossary and 'id="term-R"' in glossary


def test_no_shown_code_or_output_line_is_wider_than_the_column(built_book):
    """Every line in a page's code and text output blocks fits in 80 characters, so the
    book's content column never scrolls sideways."""
    import html
    import re

    wide = []
    for page in sorted((built_book / "book").glob("*.html")):
        text = page.read_text()
        for block in re.findall(r"<pre[^>]*>(.*?)</pre>", text, flags=re.S):
            plain = html.unescape(re.sub(r"<[^>]+>", "", block))
            wide += [(page.name, line) for line in plain.splitlines() if len(line) > 80]
    assert not wide, wide


def test_setup_cells_are_not_shown(built_book):
    """Imports and parameter checks are removed from the pages (the parameters stay)."""
    for page in sorted((built_book / "book").glob("*.html")):
        text = page.read_text()
        assert "check_book_parameters" not in text, page.name
        assert "import spotmath as sm" not in text, page.name


#: Pages that are not chapters: the introduction opens the book, the rest are reference.
_NOT_CHAPTERS = {"book/intro", "book/glossary", "book/cite", "book/references"}


def test_each_chapter_opens_with_an_overview_and_its_prerequisites(built_book, toc_files):
    """Title, a paragraph saying what the chapter answers, then a Prerequisites table of
    earlier chapters, before the first code."""
    import re

    order = toc_files
    for name in order:
        if name in _NOT_CHAPTERS:
            continue
        text = (built_book / f"{name}.html").read_text()
        body = text[text.index("<h1"):]
        prerequisites = body.find('id="prerequisites"')
        assert prerequisites > 0, f"{name}: no Prerequisites section"
        assert body.find("<p>") < prerequisites, f"{name}: no overview before it"
        first_code = body.find('class="cell docutils container"')
        assert first_code == -1 or prerequisites < first_code, name
        section = body[prerequisites:body.find("</table>", prerequisites)]
        rows = re.findall(r'href="(\w+)\.html".*?</td>\s*<td[^>]*>\s*(?:<p>)?(\w+)',
                          section, flags=re.S)
        assert rows, f"{name}: the prerequisites link no chapter"
        for target, importance in rows:  # what is necessary comes earlier in the book
            assert importance in ("Necessary", "Helpful"), (name, importance)
            if importance == "Necessary":
                assert f"book/{target}" in order[:order.index(name)], (name, target)


def test_numbered_references_load_each_page_once():
    """The environment numbered references are resolved with: each page's doctree loaded
    once and kept, everything else the environment's own."""
    from spotmath.book import numbered_references

    loads = []

    class Environment:
        toc_fignumbers = {"book/waste": {}}

        def get_doctree(self, name):
            loads.append(name)
            return object()

    pages = numbered_references._Pages(Environment(), {})
    first = pages.get_doctree("book/waste")
    assert pages.get_doctree("book/waste") is first
    assert pages.get_doctree("book/gangs") is not first
    assert loads == ["book/waste", "book/gangs"]
    assert pages.toc_fignumbers == {"book/waste": {}}


def test_every_numbered_reference_names_the_number_its_target_shows(built_book):
    """Each {numref} link reads "Fig. N" or "Table N" where N is the number in the caption
    of the figure or table it points to (resolved by spotmath.book.numbered_references, each
    page loaded once; the caption's number is Sphinx's own numbering of the target)."""
    import re

    pages = {page.name: page.read_text() for page in (built_book / "book").glob("*.html")}
    links = 0
    for page, text in pages.items():
        for target, label, shown in re.findall(
                r'href="([\w.]*)#([\w-]+)"><span class="std std-numref">([^<]*)</span>', text):
            where = pages[target or page]
            at = where.index(f'id="{label}"')
            caption = re.search(r'<span class="caption-number">([^<]*)</span>', where[at:])
            assert caption and caption.group(1).strip() == shown, (page, label, shown)
            links += 1
    assert links >= 60


def test_every_figure_and_table_is_cited_in_the_prose(built_book):
    """Each numbered figure and table (`:name: fig-...`, `tbl-...`) has a {numref} link."""
    import re

    pages = {page.name: page.read_text() for page in (built_book / "book").glob("*.html")}
    for page, text in pages.items():
        for label in re.findall(r'<(?:figure|table|div)[^>]*\bid="((?:fig|tbl)-[\w-]+)"', text):
            assert re.search(rf'href="[^"]*#{label}"><span class="std std-numref">', text), (
                page, label)
