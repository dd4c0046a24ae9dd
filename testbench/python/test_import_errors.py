"""`import ipusim` under an interpreter the native module cannot serve (docs/python.md
"Building, importing, installing"): the ImportError names the interpreter the module
was built for, the one importing it, and what is missing, instead of pybind11's
"initialization failed" or "No module named 'ipusim._ipusim'".

Each case imports in a child interpreter (this one has imported nothing of ipusim).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

# Imports of numpy fail in the child as they do where it is not installed.
NUMPY_BLOCKER = """
import sys
class NoNumpy:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None
sys.meta_path.insert(0, NoNumpy())
"""


def package_dir() -> pathlib.Path:
    for entry in os.environ["PYTHONPATH"].split(os.pathsep):
        if (pathlib.Path(entry) / "ipusim" / "__init__.py").exists():
            return pathlib.Path(entry) / "ipusim"
    raise AssertionError("no ipusim package on PYTHONPATH")


def built_for() -> str:
    text = (package_dir() / "_build_info.py").read_text()
    return text.split('PYTHON = "')[1].split('"')[0]


def import_error(code: str, pythonpath: str) -> str:
    env = dict(os.environ, PYTHONPATH=pythonpath)
    done = subprocess.run([sys.executable, "-c", code + "\nimport ipusim\n"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0, "ipusim imported"
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ipusim: "), done.stderr
    return last


def test_the_package_imports_here():
    done = subprocess.run([sys.executable, "-c", "import ipusim; print(ipusim.Device.__name__)"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Device"


def test_without_numpy_the_error_names_both_interpreters_and_numpy():
    message = import_error(NUMPY_BLOCKER, os.environ["PYTHONPATH"])
    assert "initialization failed" not in message
    assert f"under {sys.executable} (Python {sys.version.split()[0]})" in message
    assert f"built for {built_for()} (Python " in message
    assert "missing: numpy (No module named 'numpy')" in message
    assert "install numpy for this one" in message


def test_a_module_of_another_abi_is_named_with_the_one_this_interpreter_loads(tmp_path):
    copy = tmp_path / "ipusim"
    shutil.copytree(package_dir(), copy)
    (module,) = [f for f in copy.iterdir() if f.name.startswith("_ipusim.") and f.suffix == ".so"]
    module.rename(copy / "_ipusim.cpython-399-x86_64-linux-gnu.so")
    message = import_error("", str(tmp_path))
    assert f"under {sys.executable}" in message
    assert f"built for {built_for()}" in message
    assert "missing: a native module for this interpreter's ABI" in message
    assert "holds _ipusim.cpython-399-x86_64-linux-gnu.so" in message
    assert "numpy" not in message  # numpy is there: only the module is missing
