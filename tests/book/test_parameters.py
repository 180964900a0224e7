"""The chapter parameters: each described once, with a range, and the setup cell's check;
the book's modules document what they export and their examples run."""

import doctest
import importlib
import pkgutil

import pytest

import spotmath.book
from spotmath.inputs import InputError

BOOK_MODULES = sorted(name for _, name, _ in
                      pkgutil.walk_packages(spotmath.book.__path__, "spotmath.book."))


@pytest.mark.parametrize("name", ["spotmath.book", *BOOK_MODULES])
def test_all_lists_exactly_the_public_names(name):
    import inspect

    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert len(set(exported)) == len(exported) and all(hasattr(module, n) for n in exported)
    defined = {n for n, o in vars(module).items()
               if not n.startswith("_") and (inspect.isfunction(o) or inspect.isclass(o))
               and o.__module__ == module.__name__}
    assert defined <= set(exported), (name, sorted(defined - set(exported)))


@pytest.mark.parametrize("name", ["spotmath.book", *BOOK_MODULES])
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} failed"


def test_book_table_describes_each_parameter_once_and_its_defaults_pass():
    from spotmath.book.parameters import BOOK_TABLE, check_book_parameters, parameters_cell

    names = [row.name for row in BOOK_TABLE]
    libraries = [row.library for row in BOOK_TABLE]
    assert len(set(names)) == len(names) and len(set(libraries)) == len(libraries)
    checked = check_book_parameters(**{row.name: row.default for row in BOOK_TABLE})
    assert set(checked) == set(libraries) | {"preemption_rate"}
    assert checked.restart_time == checked["restart_time"] == 10 / 60  # attribute access
    assert checked.parameter_counts == (7e9, 13e9, 70e9)
    assert checked.preemption_rate == 0.25
    with pytest.raises(AttributeError, match="^mtbf: not among these parameters"):
        _ = checked.mtbf
    for row in BOOK_TABLE:  # a parameters-cell line fits the book's width
        assert len(row.line()) <= 80, row.line()
    assert parameters_cell("seed", "trace_files") == (
        'seed: int = 2026  # random seed, for reproducible simulations\n'
        'trace_files: list = ["p3-trace.csv", "g4dn-trace.csv"]  # in book/data/traces/')
    with pytest.raises(InputError, match="^mtbf: unknown parameter"):
        parameters_cell("mtbf")


@pytest.mark.parametrize("old, new", [("deadline_nodes", "deadline_gang_size"),
                                      ("two_level_nodes", "two_level_gang_size")])
def test_a_renamed_parameter_is_refused_with_its_new_name(cli, old, new):
    """The gang's size is ``..._gang_size`` in every chapter's parameters: the old name,
    in a chapter's check or given to `spotmath book`, says the new one in one line, and
    the new one is taken where the old one was."""
    from spotmath.book.parameters import CHAPTER_PARAMETERS, check_book_parameters

    with pytest.raises(InputError, match=f"^{old}: renamed {new};"):
        check_book_parameters(**{old: 8})
    done = cli("book", "-p", old, "8", "--out", "never-made")
    assert done.returncode == 2
    assert done.stderr == f"spotmath book: error: {old}: renamed {new}; give the gang's " \
                          f"size as {new}\n"
    assert check_book_parameters(**{new: 8})[new] == 8
    assert sum(new in names for names in CHAPTER_PARAMETERS.values()) == 1
