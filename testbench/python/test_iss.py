"""The tiles' ISS engine through the driver (docs/iss.md "Translator"): open(iss=) from
Python. The all-reduce on tiny16 ends at the same cycle with the same result on the
translator and on the interpreter, and a bad choice is a UsageError naming the option.
Each system in a process of its own (the first in process, the next in the driver's
`ipusim serve` children)."""

import numpy as np
import pytest

import ipusim
from conftest import config, firmware

TINY16 = "config:" + config("configs/test/tiny16.yaml")


def run_allreduce(dev):
    dev.load(firmware("allreduce.elf"))
    result = dev.run(timeout=120)
    assert result.state == ipusim.RunState.HALTED and result.exit_code == 0
    return result.stats.cycles, result.stats.instructions, dev.read_symbol(0, 0, "kc_result", dtype=np.uint32)


def test_either_engine_same_cycles_and_result():
    with ipusim.open(TINY16, iss="jit") as jit:
        want = run_allreduce(jit)
    with ipusim.open(TINY16, iss="interp") as interp:
        got = run_allreduce(interp)
    assert got[:2] == want[:2]
    assert np.array_equal(got[2], want[2])


def test_a_bad_choice_is_a_usage_error():
    with pytest.raises(ipusim.UsageError, match=r"OpenOptions::iss 'fast' is not jit, interp or lockstep"):
        ipusim.open(TINY16, iss="fast")
