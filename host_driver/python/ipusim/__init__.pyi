# Type stubs of the ipusim package: the native module's API (_ipusim.pyi) and the
# pure-Python helpers of __init__.py.
from typing import Callable, Dict, Iterable, Optional, TextIO, Union

import numpy

from ._ipusim import *  # noqa: F401,F403
from ._ipusim import ConsoleLine, SuperstepStats

def console_printer(file: Optional[TextIO] = None) -> Callable[[ConsoleLine], None]: ...
def superstep_columns(steps: Union[numpy.ndarray, Iterable[SuperstepStats]]) -> Dict[str, numpy.ndarray]: ...
