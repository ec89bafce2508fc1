"""The data generator's Python modules (data/samples_format.py, data/keyed.py), loaded from their
files: data/ is outside grader/, the grader's import root (CONTRIBUTING.md, "Python imports").

    fmt = data_modules.load("samples_format")     data/samples_format.py, once per process

Only a module that imports no other module of data/ loads this way.
"""
import functools
import importlib.util
import os

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


@functools.lru_cache(maxsize=None)
def load(name):
    """data/NAME.py as a module (the same one at each call)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(DATA, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
