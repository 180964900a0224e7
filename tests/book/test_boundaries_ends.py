"""Every chapter at the smallest and largest value of each of its parameters (see
tests/book/conftest.py): the page is made, and shows no NaN or infinity."""

import pytest

from spotmath.book.parameters import CHAPTER_PARAMETERS


@pytest.mark.parametrize("end", ["smallest", "largest"])
@pytest.mark.parametrize("chapter", list(CHAPTER_PARAMETERS))
def test_chapter_runs_at_the_ends_of_its_ranges(chapter, end, tmp_path, run_at):
    run_at(chapter, end, tmp_path)
