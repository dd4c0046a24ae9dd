"""Every error class of the driver as a Python exception, each provoked for real on the
device model (both transports where a device is involved), with the fields of the
device's problem record as attributes; the hierarchy of the C++ classes."""

import os
import socket
import struct
import threading

import numpy as np
import pytest

import ipusim
from conftest import firmware

CONFIG = "configs/test/tiny4.yaml"

CLASSES = {
    "TileFaultError": ipusim.Error, "ExchangeError": ipusim.Error, "DeadlockError": ipusim.Error,
    "StreamingMemoryError": ipusim.Error, "StreamError": ipusim.Error, "DmaError": ipusim.Error,
    "BootError": ipusim.Error, "DeviceStateError": ipusim.Error, "BudgetError": ipusim.Error,
    "RegisterError": ipusim.Error, "ModelError": ipusim.Error, "OutputError": ipusim.Error, "TimeoutError": ipusim.Error,
    "TransportError": ipusim.Error,
    "ProtocolError": ipusim.TransportError, "UsageError": ipusim.Error, "ProgramError": ipusim.Error,
}
FIELDS = ["code", "code_name", "kind", "ipu", "tile", "thread", "pc", "function", "source", "addr", "cycle",
          "count", "superstep", "peer_ipu", "peer_tile", "peer_pc", "peer_function", "peer_source", "waiting",
          "absent_count", "absent", "text", "device_error"]


def test_the_hierarchy_mirrors_the_cpp_classes():
    assert issubclass(ipusim.Error, Exception)
    for name, base in CLASSES.items():
        cls = getattr(ipusim, name)
        assert cls.__module__ == "ipusim" and cls.__bases__[0] is base, name
    assert issubclass(ipusim.TimeoutError, TimeoutError)  # builtins' too
    for f in FIELDS:  # host-side errors and user-raised ones read None
        assert getattr(ipusim.Error("x"), f) is None


def expect_host_side(e):
    """A host-side error: every field of the record is None."""
    for f in FIELDS:
        assert getattr(e, f) is None, f


def test_tile_fault(device):
    dev = device
    elf = ipusim.Elf.from_file(firmware("faults/fault_illegal.elf"))
    dev.load({(0, 2, 1): elf})
    with pytest.raises(ipusim.TileFaultError, match="TILE_FAULT") as info:
        dev.run(timeout=30)
    e = info.value
    assert (e.code, e.code_name, e.kind) == (ipusim.ERR_TILE_FAULT, "TILE_FAULT", "illegal instruction")
    assert (e.ipu, e.tile, e.thread) == (0, 2, 0)
    assert e.pc == elf.symbol("fault_site")
    assert e.function and e.function != "fault_site"
    assert e.source.startswith("faults/fault_illegal.c:")
    assert (e.function, e.source) == elf.locate(e.pc)
    assert e.cycle > 0 and e.superstep == 0
    assert e.peer_ipu is None and e.peer_tile is None and e.peer_pc is None and e.peer_function is None
    assert "tile 2" in e.text and e.absent == [] and e.absent_count == 0
    assert isinstance(e.device_error, ipusim.DeviceErrorInfo) and e.device_error.tile == 2
    assert ipusim.describe(e.device_error) in str(e)
    assert dev.state() == ipusim.STATE_ERROR
    assert dev.error_registers().code == ipusim.ERR_TILE_FAULT
    # The record also arrives with a worker's fault.
    dev.load({(0, 2, 1): firmware("faults/fault_worker_halt.elf")})
    with pytest.raises(ipusim.TileFaultError) as info:
        dev.run(timeout=30)
    assert 1 <= info.value.thread <= 6


def test_exchange_error_names_both_tiles(device):
    dev = device
    dev.load(firmware("system/xerr_no_recv.elf"))
    with pytest.raises(ipusim.ExchangeError, match="EXCHANGE") as info:
        dev.run(timeout=30)
    e = info.value
    assert (e.code, e.kind) == (ipusim.ERR_EXCHANGE, "send without receive")
    assert (e.ipu, e.tile, e.peer_ipu, e.peer_tile) == (0, 0, 0, 1)
    assert e.pc is not None and e.superstep == 1 and e.cycle > 0
    assert e.text.endswith(", in superstep 1")


def test_deadlock_names_the_absent_tile(device):
    dev = device
    dev.load(firmware("system/halt_early.elf"))
    with pytest.raises(ipusim.DeadlockError, match="DEADLOCK") as info:
        dev.run(timeout=30)
    e = info.value
    assert (e.code, e.kind, e.ipu, e.tile) == (ipusim.ERR_DEADLOCK, "sync", 0, 1)
    assert (e.waiting, e.absent_count, e.absent) == (3, 1, [(0, 1)])
    assert "1 tile(s) never arrive: ipu 0 tile 1" in e.text


def test_streaming_memory_errors(device):
    dev = device
    assert dev.info.smem_bytes == 0
    with pytest.raises(ipusim.StreamingMemoryError):
        dev.alloc_smem(64)
    dev.load(firmware("streaming/smem_error5.elf"))
    with pytest.raises(ipusim.StreamingMemoryError) as info:
        dev.run(timeout=30)
    e = info.value
    assert e.code in (ipusim.ERR_SMEM_RANGE, ipusim.ERR_SMEM_ALIGN) and e.tile == 1 and e.text


def test_stream_error_of_a_stream_nothing_is_connected_to(device):
    dev = device
    dev.load(firmware("device_api/stream_xform.elf"))
    with pytest.raises(ipusim.StreamError, match="stream 0") as info:
        dev.run(timeout=30)
    e = info.value
    if e.device_error is not None:  # the device's record, when it reported it
        assert e.code in (ipusim.ERR_STREAM, ipusim.ERR_STREAM_OVERFLOW)
    else:
        expect_host_side(e)


def test_dma_error_and_the_channel_recovers(device):
    dev = device
    elf = ipusim.Elf.from_file(firmware("allreduce.elf"))
    dev.load(elf)
    with pytest.raises(ipusim.DmaError, match="DMA_TILE") as info:
        dev.write_tile(0, 1, elf.code_base, np.zeros(8, np.uint8))
    e = info.value
    assert (e.code, e.code_name, e.ipu, e.tile) == (ipusim.ERR_DMA_TILE, "DMA_TILE", 0, 1)
    assert "read-only" in e.text
    code = dev.read_tile(0, 1, elf.code_base, 8)
    assert code.tobytes() == elf.segments[0].data[:8]


def test_boot_error_is_the_devices_record(device):
    # The device's record holds the first error since reset: a boot the device refused
    # (raw BOOT_* registers: IPU 1 of a one-IPU board) is what the next run's error names.
    dev = device
    dev.load({(0, 2, 1): firmware("faults/fault_illegal.elf")})
    regs = {"BOOT_IPU": 0x080, "BOOT_TILE_FIRST": 0x084, "BOOT_TILE_COUNT": 0x088, "BOOT_ENTRY": 0x08C,
            "BOOT_CODE_BASE": 0x090, "BOOT_CODE_SIZE": 0x094, "BOOT_CMD": 0x098}
    for name, value in [("BOOT_IPU", 1), ("BOOT_TILE_FIRST", 0), ("BOOT_TILE_COUNT", 1), ("BOOT_ENTRY", 0x40000),
                        ("BOOT_CODE_BASE", 0x40000), ("BOOT_CODE_SIZE", 64), ("BOOT_CMD", 1)]:
        dev.write_register(regs[name], value)
    for _ in range(1000):
        if dev.error_registers().code:
            break
    assert dev.error_registers().code == ipusim.ERR_BOOT
    with pytest.raises(ipusim.BootError, match="BOOT") as info:
        dev.run(timeout=30)
    e = info.value
    assert e.code == ipusim.ERR_BOOT and "BOOT_IPU" in e.text and e.count >= 2


def test_register_error_is_the_devices_record(device):
    dev = device
    dev.load({(0, 2, 1): firmware("faults/fault_illegal.elf")})
    assert dev.read_register(ipusim.BAR0_BYTES - 4) == 0xFFFFFFFF  # no register there
    assert dev.error_registers().code == ipusim.ERR_REG
    with pytest.raises(ipusim.RegisterError) as info:
        dev.run(timeout=30)
    e = info.value
    assert (e.code, e.code_name) == (ipusim.ERR_REG, "REG") and e.count >= 2 and e.text


def test_device_state_error_of_an_abort(device):
    dev = device
    dev.load(firmware("system/endless.elf"))
    f = dev.run_async()
    with pytest.raises(TimeoutError):
        f.result(timeout=0.1)  # under way (an abort before the run starts would find nothing to end)
    dev.abort()
    with pytest.raises(ipusim.DeviceStateError, match="abort") as info:
        f.result(timeout=30)
    assert info.value.code == ipusim.ERR_STATE and "abort" in info.value.text


def test_budget_error_names_the_looping_tile(device):
    dev = device
    dev.load(firmware("system/endless.elf"))
    with pytest.raises(ipusim.BudgetError, match="budget of 200000 cycles") as info:
        dev.run(max_cycles=200000)
    e = info.value
    assert (e.code, e.kind, e.ipu, e.tile, e.thread, e.cycle) == (ipusim.ERR_BUDGET, "cycle budget", 0, 3, 0, 200000)
    assert e.pc is not None
    assert dev.stats().cycles == 200000


def test_timeout_error(device):
    dev = device
    dev.load(firmware("system/endless.elf"))
    with pytest.raises(ipusim.TimeoutError, match="abort") as info:
        dev.run(timeout=0.3)
    assert isinstance(info.value, TimeoutError)
    expect_host_side(info.value)


def test_usage_and_program_errors(device, locator):
    with pytest.raises(ipusim.UsageError, match="bogus:thing") as info:
        ipusim.open("bogus:thing")
    expect_host_side(info.value)
    with pytest.raises(ipusim.UsageError, match="no program loaded"):
        device.run()
    with pytest.raises(ipusim.ProgramError, match="tiny4.yaml"):
        ipusim.Elf.from_file("configs/test/tiny4.yaml")
    with pytest.raises(ipusim.ProgramError, match="no/such/file.elf"):
        ipusim.Elf.from_file("no/such/file.elf")
    with pytest.raises(ipusim.ProgramError, match="short.elf") as info:
        ipusim.Elf.from_bytes(b"\x7fELF\x01\x01", "short.elf")
    expect_host_side(info.value)
    with pytest.raises(ipusim.UsageError, match="overlap"):
        device.load({(0, 0, 2): firmware("allreduce.elf"), (0, 1, 2): firmware("allreduce.elf")})


def test_transport_error_without_a_server(tmp_path):
    with pytest.raises(ipusim.TransportError, match="cannot connect") as info:
        ipusim.open(f"unix:{tmp_path}/nobody.sock")
    assert type(info.value) is ipusim.TransportError
    expect_host_side(info.value)


def test_protocol_error_from_a_server_that_answers_nonsense(tmp_path):
    # A socket that answers the driver's HELLO with OK (type 9) instead of HELLO_REPLY.
    path = f"/tmp/ipusim-py-proto-{os.getpid()}.sock"
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)

    def answer():
        conn, _ = server.accept()
        with conn:
            header = conn.recv(16, socket.MSG_WAITALL)
            magic, major, _type, seq, size = struct.unpack("<IHHII", header)
            conn.recv(size, socket.MSG_WAITALL)
            conn.sendall(struct.pack("<IHHII", magic, major, 9, seq, 0))
            conn.recv(1024)  # until the driver hangs up

    t = threading.Thread(target=answer)
    t.start()
    try:
        with pytest.raises(ipusim.ProtocolError, match="HELLO answered with") as info:
            ipusim.open("unix:" + path)
        assert isinstance(info.value, ipusim.TransportError)
        expect_host_side(info.value)
    finally:
        t.join(timeout=10)
        server.close()
        os.unlink(path)
