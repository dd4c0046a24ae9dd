"""Why the native module ipusim._ipusim did not import, said so that a user can act on it.

A ``python3`` first on PATH (pyenv, conda, a venv) is often not the interpreter the
module was built for: another ABI finds no module file, the same ABI may lack numpy.
Either way CPython's own message ("No module named ...", pybind11's "initialization
failed") names neither interpreter nor what is missing.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys

from . import _build_info


def explain(error: ImportError) -> str:
    """The message of the ImportError that ``import ipusim`` raises instead of ``error``."""
    here = os.path.dirname(os.path.abspath(__file__))
    modules = sorted(f for f in os.listdir(here) if f.startswith("_ipusim.") and not f.endswith((".py", ".pyi")))
    this = f"{sys.executable} (Python {sys.version.split()[0]})"
    built = f"{_build_info.PYTHON} (Python {_build_info.VERSION}, _ipusim{_build_info.SUFFIX})"
    missing = []
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    if not any("_ipusim" + s in modules for s in suffixes):
        missing.append(
            f"a native module for this interpreter's ABI (it loads _ipusim{suffixes[0]}; "
            f"{here} holds {', '.join(modules) or 'none'})"
        )
    try:
        import numpy  # noqa: F401  (the module needs it)
    except ImportError as numpy_error:
        missing.append(f"numpy ({numpy_error})")
    what = "missing: " + "; ".join(missing) if missing else f"{type(error).__name__}: {error}"
    return (
        f"ipusim: the native module ipusim._ipusim does not import under {this}: {what}. "
        f"It was built for {built}: run that interpreter"
        + (", or install numpy for this one" if any(m.startswith("numpy") for m in missing) else "")
        + f", or rebuild the package for this one (cmake -DPython3_EXECUTABLE={sys.executable}; docs/python.md)."
    )
