"""Every chapter with the fastest preemptions and the slowest restarts and writes, and the
reverse (see tests/book/conftest.py): the page is made, and shows no NaN or infinity."""

import pytest

from spotmath.book.parameters import CHAPTER_PARAMETERS


@pytest.mark.parametrize("mixture", ["fast-and-slow", "slow-and-fast"])
@pytest.mark.parametrize("chapter", list(CHAPTER_PARAMETERS))
def test_chapter_runs_at_mixed_ends_of_its_ranges(chapter, mixture, tmp_path, run_at):
    run_at(chapter, mixture, tmp_path)
