"""A pod as one device through the Python API, on both transports (tiny4_pod16: four
boards of four IPUs): device IPU numbers across boards for tile memory and the problem
record, raw registers per board, a board past the device's refused."""

import numpy as np
import pytest

import ipusim
from conftest import firmware

CONFIG = "configs/test/tiny4_pod16.yaml"
ERR_CODE, ERR_IPU = 0x100, 0x104  # hw/host_if/registers.yaml


def test_one_device_of_four_boards(device):
    dev = device
    info = dev.info
    assert (info.boards, info.ipus, info.ipus_per_board, info.tiles_per_ipu) == (4, 16, 4, 4)
    ids = {dev.read_register(0, board=b) for b in range(4)}
    assert len(ids) == 1 and ids != {0}  # every board answers with the same ID
    with pytest.raises(ipusim.UsageError):
        dev.read_register(0, board=4)
    rng = np.random.default_rng(13)
    for ipu in (0, 5, 13, 15):  # boards 0, 1, 3, 3
        data = rng.integers(0, 1 << 63, size=257, dtype=np.int64)
        dev.write_tile(ipu, 3, ipusim.SRAM_BASE + 0x8000, data)
        assert np.array_equal(dev.read_tile(ipu, 3, ipusim.SRAM_BASE + 0x8000, data.size, np.int64), data)


def test_a_fault_on_board_3_names_the_device_ipu(device):
    dev = device
    dev.set_console(None)
    dev.load(firmware("device_api/pod_fault.elf"))
    with pytest.raises(ipusim.TileFaultError, match="ipu 13 tile 1") as info:
        dev.run(timeout=60)
    assert (info.value.ipu, info.value.tile) == (13, 1)
    for b in range(4):  # every board records the run's error, in the system's IPU numbers
        assert dev.read_register(ERR_CODE, board=b) == ipusim.ERR_TILE_FAULT
        assert dev.read_register(ERR_IPU, board=b) == 13
    assert dev.error_registers().ipu == 13
    dev.reset()
    assert dev.state() == ipusim.STATE_IDLE
