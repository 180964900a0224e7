"""Every module says what it exports: `__all__` lists exactly its public functions and
classes (plus named constants), never a one-letter SymPy symbol."""

import importlib
import inspect
import pkgutil

import pytest

import spotmath

MODULES = sorted(name for _, name, _ in pkgutil.walk_packages(spotmath.__path__, "spotmath.")
                 if not name.rpartition(".")[2].startswith("_"))


@pytest.mark.parametrize("name", MODULES)
def test_all_lists_exactly_the_public_names(name):
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
