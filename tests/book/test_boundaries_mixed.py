"""Every chapter with the fastest preemptions and the slowest restarts and writes, and the
reverse (see tests/book/conftest.py): the page is made, and shows no NaN or infinity.
A chapter for which a mixture changes nothing (it reads neither the MTBF nor the writes)
was run with those very values at the ends of its ranges already."""

import pytest
from conftest import MIXTURES


@pytest.mark.parametrize("chapter, mixture", MIXTURES)
def test_chapter_runs_at_mixed_ends_of_its_ranges(chapter, mixture, tmp_path, run_at):
    run_at(chapter, mixture, tmp_path)

