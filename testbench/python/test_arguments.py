"""Bad arguments through the Python API, each named (issue 37; docs/python.md "Errors"):
a config whose IPU-Link latency is no whole cycle refused at open with FILE:LINE: KEY
(set_link_faults then run() used to terminate the interpreter); budgets near 2^64 run as
no limit (they used to wrap); fault specs out of range; an empty symbol name; negative or
oversized tiles in a mapping (pybind11 said only "Unable to cast Python instance")."""

import pytest

import ipusim
from conftest import firmware

CONFIG = "configs/test/tiny4_m2000.yaml"  # four tiny4 IPUs wired as an IPU-M2000


def test_a_link_latency_of_no_whole_cycle_is_refused_at_open(tmp_path):
    chip = tmp_path / "zero_latency.yaml"
    chip.write_text("kind: board\nname: b\nipus: 2\nchip:\n  name: c\n  tiles: 2\n  clock_mhz: 1000\n  tile:\n"
                    "    sram_kib: 64\n    amp_f16_macs_per_cycle: 64\n    amp_f32_macs_per_cycle: 16\n"
                    "  ipu_links:\n    latency_ns: 0\n")
    with pytest.raises(ipusim.UsageError, match=r"zero_latency\.yaml:13: chip\.ipu_links\.latency_ns: 0 ns is 0 cycle"):
        ipusim.open("config:" + str(chip))


def run_ring(dev, **budgets):
    dev.load(firmware("ipu_allreduce.elf"))
    r = dev.run(timeout=120, **budgets)
    assert r.exit_code == 0
    return r


def test_budgets_near_2_to_64_are_no_limit(device):
    dev = device
    dev.set_console(None)
    clean = run_ring(dev)
    for n in (2**60, 2**64 - 5, 2**64 - 1):
        assert run_ring(dev, max_cycles=n).stats.cycles == clean.stats.cycles, n
        assert run_ring(dev, max_instructions=n).stats.cycles == clean.stats.cycles, n
    for bad in (-1, 2**64):
        with pytest.raises(TypeError):
            dev.run(max_cycles=bad)


def test_fault_specs_out_of_range_are_named(device):
    dev = device
    with pytest.raises(ipusim.UsageError, match=r"ber=1e-400: out of range: underflows"):
        dev.set_link_faults("ber=1e-400")
    with pytest.raises(ipusim.UsageError, match=r"seed=18446744073709551616: out of range"):
        dev.set_link_faults("seed=18446744073709551616")
    dev.set_link_faults("none")


def test_an_empty_symbol_name_is_named():
    with pytest.raises(ipusim.UsageError, match=r"Location::symbol: an empty symbol name"):
        ipusim.Location.symbol("")


@pytest.mark.parametrize("tiles, says", [
    ([(0, -1)], r"tiles\[0\] tile -1: negative"),
    ([(0, 0), (-2, 1)], r"tiles\[1\] ipu -2: negative"),
    ([(0, 2**32)], r"tiles\[0\] tile 4294967296: more than 4294967295"),
    ([(0, 1.5)], r"tiles\[0\] tile 1.5: not a whole number"),
    ([(0, 1, 2)], r"tiles\[0\]: expected a TileId or an \(ipu, tile\) pair, got \(0, 1, 2\)"),
])
def test_bad_tiles_in_a_mapping_are_named(tiles, says):
    with pytest.raises(ipusim.UsageError, match=says):
        ipusim.Mapping.blocked_rows(tiles)


def test_bad_pieces_are_named():
    with pytest.raises(ipusim.UsageError, match=r"pieces\[0\] offset -4: negative"):
        ipusim.Mapping.per_tile([(0, 0, -4, 1)])
    with pytest.raises(ipusim.UsageError, match=r"pieces\[0\] count 18446744073709551616: more than 2\^64 - 1"):
        ipusim.Mapping.per_tile([(0, 0, 0, 2**64)])
