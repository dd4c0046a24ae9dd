"""RTL blocks through the driver (docs/cosim.md): OpenOptions' rtl and waves from Python.
The all-reduce on tiny16 with the RTL sync controller ends at the same cycle as with the
TLM one, its waveform files are complete once the run ends (the device lives on), and a
bad choice is a UsageError naming the option. Each system in a process of its own (the
first in process, the next in the driver's `ipusim serve` children)."""

import subprocess

import pytest

import ipusim
from conftest import config, firmware

TINY16 = "config:" + config("configs/test/tiny16.yaml")


def run_allreduce(dev):
    dev.load(firmware("allreduce.elf"))
    result = dev.run(timeout=120)
    assert result.state == ipusim.RunState.HALTED and result.exit_code == 0
    return result.stats.cycles


def test_rtl_sync_same_cycles_and_complete_waves(tmp_path):
    with ipusim.open(TINY16) as tlm:
        cycles = run_allreduce(tlm)
    waves = tmp_path / "w.fst"
    with ipusim.open(TINY16, rtl="sync", waves=str(waves)) as rtl:
        assert run_allreduce(rtl) == cycles
        # Complete at the end of the run, while the device is still open.
        for name in ("w.ipu0.sync.fst", "w.ipu0.sync.odd.fst"):
            text = subprocess.run(["fst2vcd", str(tmp_path / name)], capture_output=True, text=True, check=True).stdout
            assert " release_o " in text and "$enddefinitions" in text, name


def test_bad_choices_are_usage_errors():
    with pytest.raises(ipusim.UsageError, match=r"OpenOptions::rtl 'sync,exchange': 'exchange' is not a block with RTL"):
        ipusim.open(TINY16, rtl="sync,exchange")
    with pytest.raises(ipusim.UsageError, match=r"OpenOptions::waves 'w.fst': no block runs as RTL"):
        ipusim.open(TINY16, waves="w.fst")


def test_a_waveform_on_a_full_disk_is_an_output_error(tmp_path):
    # Both sync controller instances' files are /dev/full: the run ends in OutputError
    # naming the file, and the device goes on (a waveform covers the first run only).
    for name in ("w.ipu0.sync.vcd", "w.ipu0.sync.odd.vcd"):
        (tmp_path / name).symlink_to("/dev/full")
    with ipusim.open(TINY16, rtl="sync", waves=str(tmp_path / "w.vcd")) as dev:
        dev.load(firmware("allreduce.elf"))
        with pytest.raises(ipusim.OutputError,
                           match=r"writing the waveform '.*/w\.ipu0\.sync\.vcd' failed: No space left on device") as e:
            dev.run(timeout=120)
        assert e.value.code == ipusim.ERR_OUTPUT and e.value.kind == "waveform"
        assert run_allreduce(dev) > 0
