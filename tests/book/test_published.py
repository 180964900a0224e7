"""The published-figures file: its schema, its sources, and the reader's refusals."""

import csv

import pytest

from spotmath.book.chapters import ROOT
from spotmath.book.published import FIELDS, bibliography_keys, read_figures
from spotmath.inputs import InputError

DATA = ROOT / "book" / "data" / "published_figures.csv"


def test_every_row_has_value_unit_source_and_date():
    with DATA.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows
    for row in rows:
        for field in FIELDS:
            assert (row[field] or "").strip(), (row["name"], field)
        float(row["value"])  # a number
    figures = read_figures(DATA)
    assert len(figures) == len(rows)  # names are unique


def test_every_source_is_in_the_bibliography():
    sources = {figure.source for figure in read_figures(DATA).values()}
    assert sources <= bibliography_keys(ROOT / "references.bib")


def test_the_chapters_read_the_file_not_typed_numbers():
    """Each figure is used through the file: its name appears in a chapter (code or glue)."""
    import nbformat

    from spotmath.book.chapters import chapter_paths

    code = "\n".join(cell.source for path in chapter_paths()
                     for cell in nbformat.read(path, as_version=4).cells
                     )
    assert "read_figures()" in code  # the book's file, wherever the chapter runs
    unused = [name for name in read_figures(DATA) if name not in code
              and not name.startswith("aws_bucket_edge_")]  # read in a loop by number
    assert not unused, unused


def write(tmp_path, text):
    path = tmp_path / "figures.csv"
    path.write_text(",".join(FIELDS) + "\n" + text, encoding="utf-8")
    return path


GOOD = "x,1.5,hours,a thing,key,Table 1,2024-07-31,published\n"


@pytest.mark.parametrize("row, message", [
    ("x,,hours,a thing,key,Table 1,2024-07-31,published\n", "row 2: the field 'value' is empty"),
    ("x,1,,a thing,key,Table 1,2024-07-31,published\n", "row 2: the field 'unit' is empty"),
    ("x,1,hours,a thing,,Table 1,2024-07-31,published\n", "row 2: the field 'source' is empty"),
    ("x,1,hours,a thing,key,Table 1,,published\n", "row 2: the field 'date' is empty"),
    ("x,many,hours,a thing,key,Table 1,2024-07-31,published\n", "value must be a number"),
    ("x,nan,hours,a thing,key,Table 1,2024-07-31,published\n", "value must be finite"),
    ("x,1,hours,a thing,key,Table 1,July 2024,published\n", "date must be YYYY-MM-DD"),
    ("x,1,hours,a thing,key,Table 1,2024-07-31,guessed\n", "date_meaning must be one of"),
    (GOOD + GOOD, "row 3: the name 'x' is given twice"),
    ("x,1,hours,a thing,key,Table 1,2024-07-31,published,extra\n", "more fields than the header"),
])
def test_bad_rows_are_refused_with_one_line(tmp_path, row, message):
    with pytest.raises(InputError) as info:
        read_figures(write(tmp_path, row))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_a_wrong_header_is_refused(tmp_path):
    path = tmp_path / "figures.csv"
    path.write_text("name,value\nx,1\n", encoding="utf-8")
    with pytest.raises(InputError, match="the header must be"):
        read_figures(path)


def test_a_good_row_reads_back(tmp_path):
    (figure,) = read_figures(write(tmp_path, GOOD)).values()
    assert (figure.name, figure.value, figure.unit, figure.date.isoformat()) == (
        "x", 1.5, "hours", "2024-07-31")
    assert figure.cite() == "{cite}`key`"
