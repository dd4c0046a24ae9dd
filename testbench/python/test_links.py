"""IPU-Link figures and injected faults through the Python API, on both transports: the
all-reduce ring across the four IPUs of tiny4_m2000 carries frames over the links
(LinkStats), faults cost cycles and are seeded (the same run twice gives the same
figures), and "none" gives the clean run back."""

import pytest

import ipusim
from conftest import firmware

CONFIG = "configs/test/tiny4_m2000.yaml"  # four tiny4 IPUs wired as an IPU-M2000


def run_allreduce(dev):
    dev.load(firmware("ipu_allreduce.elf"))
    r = dev.run(timeout=120)
    assert r.exit_code == 0
    return r


def test_link_figures_and_seeded_faults(device):
    dev = device
    dev.set_console(None)
    assert dev.info.ipus == 4
    clean = run_allreduce(dev)
    assert clean.links and clean.link_cycles_lost == 0
    assert dev.link_stats() == clean.links
    for l in clean.links:
        assert l.from_ipu != l.to_ipu and l.frames > 0 and l.bytes > 0 and l.crc_errors == 0
    assert len(clean.supersteps) == 4 and all(len(s) > 0 for s in clean.supersteps)

    dev.set_link_faults("ber=1e-4,seed=3")
    faulty = run_allreduce(dev)
    assert faulty.link_cycles_lost > 0 and faulty.stats.cycles > clean.stats.cycles
    assert sum(l.crc_errors + l.seq_errors for l in faulty.links) > 0
    again = run_allreduce(dev)
    assert again.links == faulty.links and again.stats.cycles == faulty.stats.cycles  # seeded

    dev.set_link_faults("none")
    back = run_allreduce(dev)
    assert back.links == clean.links and back.stats.cycles == clean.stats.cycles
    with pytest.raises(ipusim.UsageError, match="99"):
        dev.set_link_faults("99:ber=1e-6")
