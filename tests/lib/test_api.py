"""Every module says what it exports: `__all__` lists exactly its public functions and
classes (plus named constants), never a one-letter SymPy symbol."""

import importlib
import inspect

import pytest

import spotmath


def test_all_lists_exactly_the_public_names(public_module):
    """The package and each public module of the library (the book's are checked in
    tests/book)."""
    name = public_module
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert len(set(exported)) == len(exported), f"{name}: a name listed twice"
    for public in exported:
        assert hasattr(module, public), (name, public)
        assert len(public) > 2 and public not in {"lam", "tau", "sigma", "rho"}, (name, public)
    defined = {n for n, o in vars(module).items()
               if not n.startswith("_") and (inspect.isfunction(o) or inspect.isclass(o))
               and o.__module__ == module.__name__}
    assert defined <= set(exported), (name, sorted(defined - set(exported)))


def test_package_exports_resolve():
    for public in spotmath.__all__:
        assert getattr(spotmath, public) is not None, public


def test_the_package_imports_each_name_on_first_use():
    """`import spotmath` alone loads no SciPy (nor does any spotmath.book module through
    it: the book's Sphinx extensions and chapter workers start without it), and a command
    that solves nothing no SciPy optimiser; a public name or a part of the package, once
    used, is there."""
    import subprocess
    import sys

    code = ("import sys, spotmath; assert 'scipy' not in sys.modules; "
            "from spotmath.cli import main; assert main(['derive', '--list']) == 0; "
            "assert main(['plan', '--discount', '1.5']) == 2; "
            "assert 'scipy.optimize' not in sys.modules; "
            "assert spotmath.make_plan(0.25, 1/6, 1/60, 0.6, 8).gang_size == 8; "
            "assert 'scipy' in sys.modules and 'make_plan' in vars(spotmath); "
            "assert spotmath.model.numerics.exact_interval is spotmath.exact_interval; "
            "assert set(spotmath.__all__) <= set(dir(spotmath)); "
            "from spotmath import InputError, plan_table")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    with pytest.raises(AttributeError, match="no attribute 'nonesuch'"):
        spotmath.nonesuch  # noqa: B018


def test_the_library_stands_without_the_book(public_modules):
    """Every module outside spotmath.book imports, and the commands plan, derive, fit,
    replay and deadline run, with none of the book's tools loaded (Jupyter, papermill, Sphinx,
    matplotlib, YAML): `pip install .` needs only NumPy, SciPy and SymPy."""
    import subprocess
    import sys

    code = "\n".join([
        "import importlib, sys",
        f"for name in {public_modules!r}: importlib.import_module(name)",
        "from spotmath.cli import main",
        "from spotmath.traces.synthetic import synthetic_trace",
        "from spotmath.traces import write_trace",
        "import tempfile, pathlib",
        "path = pathlib.Path(tempfile.mkdtemp()) / 't.csv'",
        "write_trace(synthetic_trace(preemption_rate=0.5, pool_size=5, hours=50, seed=1), path)",
        "for argv in (['plan'], ['derive', 'young'], ['fit', str(path)],",
        "             ['replay', str(path), '--scan'],",
        "             ['deadline', '--trace', str(path), '--compute', '5h', '--deadline',",
        "              '8h', '--starts', '5']):",
        "    assert main(argv) == 0, argv",
        "book = ('nbformat', 'papermill', 'IPython', 'sphinx', 'matplotlib', 'yaml',",
        "        'myst_nb', 'jupyter_client', 'spotmath.book')",
        "loaded = sorted(m for m in sys.modules",
        "                if m.split('.')[0] in book or m.startswith('spotmath.book'))",
        "assert not loaded, loaded",
    ])
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
