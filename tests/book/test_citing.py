"""Citing: the bibliography, CITATION.cff and the equation labels the How-to-cite page lists."""

import re

import nbformat
import yaml

from spotmath.book.chapters import ROOT, chapter_paths


def chapter_text() -> str:
    return "\n".join(cell.source for path in chapter_paths()
                     for cell in nbformat.read(path, as_version=4).cells
                     if cell.cell_type == "markdown")


def bib_keys() -> dict[str, str]:
    text = (ROOT / "references.bib").read_text()
    return {key: body for key, body in re.findall(r"@\w+\{(\w+),(.*?)\n\}", text, flags=re.S)}


def test_every_citation_is_in_the_bibliography_with_a_doi_or_address():
    entries = bib_keys()
    cited = set()
    for group in re.findall(r"\{cite\}`([^`]+)`", chapter_text()):
        cited |= {key.strip() for key in group.split(",")}
    assert cited and cited <= set(entries), cited - set(entries)
    for key, body in entries.items():  # an exact source: a DOI, or the page's address
        assert (re.search(r"doi\s*=\s*\{10\.\d+/", body)
                or re.search(r"(url|howpublished)\s*=\s*\{(\\url\{)?https://", body)), key
        assert re.search(r"year\s*=\s*\{\d{4}\}", body), key


def test_citation_cff_is_valid_enough():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert cff["title"] and cff["authors"] and cff["message"]
    dois = {ref["doi"] for ref in cff["references"]}
    assert dois <= {match.group(1) for body in bib_keys().values()
                    if (match := re.search(r"doi\s*=\s*\{([^}]+)\}", body))}


#: A literal labelled display equation of a chapter's markdown: ``$$ … $$ (eq-name)``.
LITERAL = re.compile(r"\$\$\n((?:(?!\$\$).)+?)\n\$\$ \((eq-[\w-]+)\)", re.S)


def test_cite_page_lists_exactly_the_equation_labels():
    text = chapter_text()
    defined = set(re.findall(r":label: (eq-[\w-]+)", text))
    defined |= {label for _, label in LITERAL.findall(text)}
    listed = set(re.findall(r"`(eq-[\w-]+)`", (ROOT / "book" / "cite.md").read_text()))
    assert defined and defined == listed, defined ^ listed


def test_a_literal_equation_is_its_derivation_as_sympy_prints_it():
    """A chapter's literal labelled equation named after a derivation is that
    derivation's LaTeX, character for character (space aside): the source a code host
    shows is the formula the numbers are printed from."""
    from spotmath.model._generated import LATEX

    literal = LITERAL.findall(chapter_text())
    named = [(tex, label[3:]) for tex, label in literal if label[3:] in LATEX]
    assert named, "no chapter writes a derivation's equation literally"
    for tex, name in named:
        assert " ".join(tex.split()) == " ".join(LATEX[name].split()), name
