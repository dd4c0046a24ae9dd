"""`cmake --install` puts a working ipusim package under a prefix: imported from there
alone (not build/python), it finds its libipudrv through its RPATH and runs a program."""

import os
import subprocess
import sys

from conftest import BINARY_DIR, SOURCE_DIR, firmware

SCRIPT = """
import sys, ipusim, numpy as np
assert ipusim.__file__.startswith(sys.argv[1]), ipusim.__file__
with ipusim.open("config:" + sys.argv[2]) as dev:
    dev.set_console(None)
    dev.load(sys.argv[3])
    r = dev.run(timeout=60)
    assert r.exit_code == 0 and dev.read_symbol(0, 0, "kc_result", 1, np.uint32)[0] == 0x4B524553
print("installed ipusim ran", r.stats.cycles, "cycles")
"""


def test_installed_package_imports_and_runs(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", str(BINARY_DIR), "--prefix", str(prefix)], check=True,
                   stdout=subprocess.DEVNULL)
    package = prefix / "lib" / "python3" / "dist-packages"
    for f in ("__init__.py", "_ipusim.pyi", "__init__.pyi", "py.typed"):
        assert (package / "ipusim" / f).is_file(), f
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(package)
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(package), str(SOURCE_DIR / "configs/test/tiny4.yaml"),
                          firmware("allreduce.elf")], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "installed ipusim ran" in out.stdout
