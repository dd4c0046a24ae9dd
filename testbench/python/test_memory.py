"""Round trips of random numpy arrays of every dtype through tile memory (by address, by
symbol, broadcast to a range) and streaming memory, on both transports; the zero-copy
buffer rules (out= filled in place, any C-contiguous buffer written, non-contiguous
refused)."""

import numpy as np
import pytest

import ipusim
from conftest import firmware

CONFIG = "configs/test/tiny4x2_smem.yaml"  # 2 IPUs of 4 tiles, streaming memory

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float16, np.float32, np.float64, np.bool_, np.complex64, np.complex128]


def random_array(dtype, count, seed):
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, size=count * np.dtype(dtype).itemsize, dtype=np.uint8)
    if dtype is np.bool_:
        return (raw[:count] & 1).astype(np.bool_)
    return raw.view(dtype)  # every bit pattern, NaNs included: compared as bytes


def same_bytes(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.fixture
def loaded(device):
    device.load(firmware("vecadd.elf"))  # symbols a, b, c: 6 KiB each
    return device


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_tile_round_trip_every_dtype(loaded, dtype):
    dev = loaded
    free = (ipusim.Elf.from_file(firmware("vecadd.elf")).image_end + 63) // 64 * 64
    for ipu in range(dev.info.ipus):
        for tile in (0, dev.info.tiles_per_ipu - 1):
            data = random_array(dtype, 1000 + 37 * tile, seed=ipu * 100 + tile)
            dev.write_tile(ipu, tile, free, data)
            back = dev.read_tile(ipu, tile, free, data.size, dtype)
            assert same_bytes(back, data)
            out = np.zeros_like(data)
            assert dev.read_tile(ipu, tile, free, out=out) is out  # filled in place
            assert same_bytes(out, data)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_symbol_round_trip_every_dtype(loaded, dtype):
    dev = loaded
    size = ipusim.Elf.from_file(firmware("vecadd.elf")).symbol_size("a")
    assert size == 6144
    data = random_array(dtype, size // np.dtype(dtype).itemsize, seed=7)
    dev.write_symbol(1, 2, "a", data)
    whole = dev.read_symbol(1, 2, "a", dtype=dtype)  # no count: the whole symbol
    assert same_bytes(whole, data)
    # The same bytes at the symbol's address.
    addr = dev.symbol_address(1, 2, "a")
    assert same_bytes(dev.read_tile(1, 2, addr, data.size, dtype), data)
    part = dev.read_symbol(1, 2, "a", (4, 8), dtype)  # a shape
    assert part.shape == (4, 8)
    assert same_bytes(part.ravel(), data[:32])
    with pytest.raises(ipusim.UsageError, match="'a'"):
        dev.write_symbol(1, 2, "a", np.zeros(size + 8, np.uint8))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_smem_round_trip_every_dtype(device, dtype):
    dev = device
    assert dev.info.smem_bytes > 0
    data = random_array(dtype, 5000, seed=3)
    buf = dev.alloc_smem(data.nbytes)
    try:
        assert buf.bytes == data.nbytes and buf.board == 0
        dev.write_smem(buf, data)
        assert same_bytes(dev.read_smem(buf, dtype=dtype), data)  # the whole buffer
        assert same_bytes(dev.read_smem(buf.offset, data.size, dtype), data)
        out = np.empty_like(data)
        dev.read_smem(buf.offset, out=out)
        assert same_bytes(out, data)
    finally:
        dev.free_smem(buf)


def test_broadcast_write_tiles(loaded):
    dev = loaded
    data = np.arange(512, dtype=np.uint32) * 2654435761 % (1 << 32)
    data = data.astype(np.uint32)
    addr = dev.symbol_address(0, 0, "b")
    dev.write_tiles((0, 1, 3), addr, data)
    for tile in (1, 2, 3):
        assert np.array_equal(dev.read_tile(0, tile, addr, data.size, np.uint32), data)
    dev.write_tiles(ipusim.TileRange(1, 0, 4), addr, data[::-1].copy())
    assert np.array_equal(dev.read_tile(1, 3, addr, data.size, "uint32"), data[::-1])


def test_buffers_of_every_kind_and_the_rules(loaded):
    dev = loaded
    addr = dev.symbol_address(0, 0, "c")
    dev.write_tile(0, 0, addr, b"\x01\x02\x03\x04")
    dev.write_tile(0, 0, addr + 4, bytearray(b"\x05\x06"))
    dev.write_tile(0, 0, addr + 6, memoryview(b"\x07\x08"))
    assert bytes(dev.read_tile(0, 0, addr, 8)) == bytes(range(1, 9))
    out = bytearray(8)
    dev.read_tile(0, 0, addr, out=out)
    assert out == bytearray(range(1, 9))
    two_d = np.arange(12, dtype=np.int16).reshape(3, 4)
    dev.write_tile(0, 0, addr, two_d)
    assert np.array_equal(dev.read_tile(0, 0, addr, (3, 4), np.int16), two_d)
    with pytest.raises(TypeError, match="C-contiguous"):
        dev.write_tile(0, 0, addr, two_d[:, ::2])  # a strided view is refused, not copied
    with pytest.raises(TypeError, match="writable"):
        dev.read_tile(0, 0, addr, out=b"12345678")
    with pytest.raises(TypeError, match="bytes-like"):
        dev.write_tile(0, 0, addr, [1, 2, 3])
    with pytest.raises(ipusim.UsageError, match="count or out"):
        dev.read_tile(0, 0, addr)
    with pytest.raises(ipusim.UsageError, match="tiles 4"):
        dev.read_tile(0, 4, addr, 4)


def test_smem_boards_allocations_and_errors(device):
    dev = device
    a = dev.alloc_smem(1000, 4096)
    b = dev.alloc_smem(1000, board=0)
    assert a.offset % 4096 == 0 and b.offset >= a.offset + 1000
    data = np.frombuffer(b"board zero bytes", dtype=np.uint8)
    dev.write_smem(b.offset, data, board=0)
    assert bytes(dev.read_smem(b.offset, data.size)) == data.tobytes()
    dev.free_smem(a)
    dev.free_smem(b)
    with pytest.raises(ipusim.UsageError):
        dev.free_smem(b)  # freed twice
    with pytest.raises(ipusim.StreamingMemoryError) as e:
        dev.write_smem(dev.info.smem_bytes - 1, b"xy")
    assert e.value.code == ipusim.ERR_SMEM_RANGE and e.value.code_name == "SMEM_RANGE"
    dev.reset()
