"""ipusim: the host driver of the ipusim IPU simulator, for Python.

The C++ driver's API (ipudrv, docs/host_driver.md) with Python names and numpy arrays
(docs/python.md)::

    import ipusim, numpy as np
    with ipusim.open("config:configs/test/tiny4.yaml") as dev:
        dev.load("build/firmware/vecadd.elf")
        result = dev.run(timeout=60)
        print(result.stats.cycles, dev.superstep_array(0)["compute_cycles"])

Everything is the native module ``ipusim._ipusim`` re-exported, plus the small
pure-Python helpers defined here.
"""

from __future__ import annotations

import sys as _sys
from typing import Any, Callable, Dict, Optional, TextIO

try:
    from . import _ipusim
except ImportError as _error:
    # Another interpreter than the one the module was built for (another ABI, no numpy):
    # say which, and what is missing.
    from ._import_error import explain as _explain

    raise ImportError(_explain(_error)) from _error
from ._ipusim import *  # noqa: F401,F403  (the API; _ipusim.pyi lists it)
from ._ipusim import SUPERSTEP_DTYPE, ConsoleLine

__all__ = [name for name in dir(_ipusim) if not name.startswith("_")] + [
    "console_printer",
    "superstep_columns",
]


def console_printer(file: Optional[TextIO] = None) -> Callable[[ConsoleLine], None]:
    """A console handler that prints each line as ``ipusim run`` does to a Python file.

    ``dev.set_console(ipusim.console_printer())`` shows the tiles' printf in a notebook,
    whose cells see ``sys.stdout`` but not the process's C stdout (where the driver's
    default handler, ``print_console_line``, writes). ``file`` defaults to ``sys.stdout``
    at each call.
    """

    def handler(line: ConsoleLine) -> None:
        print(str(line), file=file if file is not None else _sys.stdout, flush=True)

    return handler


def superstep_columns(steps) -> Dict[str, Any]:
    """Per-superstep figures as a dict of numpy columns, ready for plotting.

    ``steps`` is a structured array from ``Device.superstep_array(ipu)`` /
    ``RunResult.superstep_array(ipu)``, or a list of ``SuperstepStats``. The keys are the
    fields of ``SuperstepStats`` plus ``superstep`` (0, 1, ...) and ``cycles``
    (end_cycle - begin_cycle).
    """
    import numpy as np

    if not isinstance(steps, np.ndarray):
        steps = np.array(
            [tuple(getattr(s, f) for f in SUPERSTEP_DTYPE.names) for s in steps],
            dtype=SUPERSTEP_DTYPE,
        )
    out = {name: np.ascontiguousarray(steps[name]) for name in steps.dtype.names}
    out["superstep"] = np.arange(len(steps))
    out["cycles"] = out["end_cycle"] - out["begin_cycle"]
    return out
