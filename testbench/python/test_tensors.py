"""The tensor layer from Python (ipusim.TensorLayout, Device.write_tensor / read_tensor /
write_per_tile, docs/python.md "Tensors"), on both transports: every mapping against
numpy's own split of the same array, read tile by tile; every dtype; an F16 tensor's raw
bytes on each tile and the bytes past them; the descriptors a tensor takes; the errors."""

import numpy as np
import pytest

import ipusim
from conftest import firmware

CONFIG = "configs/test/tiny4x2_smem.yaml"  # 2 IPUs of 4 tiles

TENSOR_DTYPES = [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
                 np.float16, np.float32, np.float64]


def random_array(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    count = int(np.prod(shape))
    return rng.integers(0, 256, size=count * np.dtype(dtype).itemsize, dtype=np.uint8).view(dtype).reshape(shape)


@pytest.fixture
def loaded(device):
    device.load(firmware("vecadd.elf"))  # symbols a, b, c: 6 KiB each
    return device


def tiles_of(dev):
    return ipusim.all_tiles(dev.info)


def read_block(dev, tile, symbol, like):
    """A tile's block, read with the plain per-tile call (not the tensor layer)."""
    return dev.read_symbol(tile.ipu, tile.tile, symbol, count=like.shape, dtype=like.dtype)


@pytest.mark.parametrize("dtype", TENSOR_DTYPES, ids=lambda d: np.dtype(d).name)
def test_blocked_rows_every_dtype_against_numpy(loaded, dtype):
    dev = loaded
    tiles = tiles_of(dev)
    x = random_array(dtype, (11, 3), seed=np.dtype(dtype).num)  # 11 rows over 8 tiles: 3 tiles get 2
    layout = ipusim.TensorLayout(x.shape, dtype, ipusim.Mapping.blocked_rows(tiles), ipusim.Location.symbol("a"))
    assert layout.dtype == ipusim.tensor_dtype(dtype) and layout.elements == x.size and layout.bytes == x.nbytes
    dev.write_tensor(layout, x)
    for tile, block in zip(tiles, np.array_split(x, len(tiles), axis=0)):
        if block.size:
            assert read_block(dev, tile, "a", block).tobytes() == block.tobytes(), tile
    back = dev.read_tensor(layout)
    assert back.dtype == x.dtype and back.shape == x.shape and back.tobytes() == x.tobytes()


def test_f16_round_trip_read_back_with_plain_per_tile_reads(loaded):
    """DType.F16 end to end: each tile's bytes, read raw with read_symbol, are numpy's
    block of the float16 array, and the bytes past each block are left as they were (an
    item size other than 2 would move or overrun them); read_tensor gives the array back."""
    dev = loaded
    tiles = tiles_of(dev)
    x = (np.arange(13 * 6, dtype=np.float32) * 0.37 - 9.5).astype(np.float16).reshape(13, 6)
    layout = ipusim.TensorLayout(x.shape, ipusim.DType.F16, ipusim.Mapping.blocked_rows(tiles),
                                 ipusim.Location.symbol("a"))
    assert layout.bytes == x.nbytes == x.size * 2
    sentinel = np.full(256, 0xEE, np.uint8)
    for t in tiles:
        dev.write_symbol(t.ipu, t.tile, "a", sentinel)
    dev.write_tensor(layout, x)
    for tile, block in zip(tiles, np.array_split(x, len(tiles), axis=0)):
        raw = dev.read_symbol(tile.ipu, tile.tile, "a", count=256, dtype=np.uint8)
        assert raw[:block.nbytes].tobytes() == block.tobytes(), tile
        assert (raw[block.nbytes:] == 0xEE).all(), f"{tile}: bytes past the block were written"
    back = dev.read_tensor(layout)
    assert back.dtype == np.float16 and back.tobytes() == x.tobytes()


def test_blocked_2d_against_numpy(loaded):
    dev = loaded
    tiles = tiles_of(dev)
    x = random_array(np.float32, (9, 10), seed=2)
    layout = ipusim.TensorLayout(x.shape, "float32", ipusim.Mapping.blocked_2d(tiles, 2, 4), ipusim.Location.symbol("b"))
    dev.write_tensor(layout, x)
    for r, band in enumerate(np.array_split(x, 2, axis=0)):
        for c, block in enumerate(np.array_split(band, 4, axis=1)):
            tile = tiles[r * 4 + c]
            assert read_block(dev, tile, "b", np.ascontiguousarray(block)).tobytes() == block.tobytes(), (r, c)
    assert dev.read_tensor(layout).tobytes() == x.tobytes()


def test_replicated_is_a_broadcast(loaded):
    dev = loaded
    tiles = tiles_of(dev)
    x = random_array(np.int32, (64,), seed=3)
    layout = ipusim.TensorLayout(x.shape, ipusim.DType.I32, ipusim.Mapping.replicated(tiles), ipusim.Location.symbol("c"))
    before = dev.dma_stats().to_device.descriptors
    dev.write_tensor(layout, x)
    posted = dev.dma_stats().to_device.descriptors - before
    assert 1 <= posted <= dev.info.ipus, posted  # one broadcast per IPU's run of tiles
    for tile in tiles:
        assert read_block(dev, tile, "c", x).tobytes() == x.tobytes(), tile
    out = np.zeros_like(x)
    assert dev.read_tensor(layout, out=out) is out and out.tobytes() == x.tobytes()


def test_per_tile_pieces_against_numpy(loaded):
    dev = loaded
    x = random_array(np.uint16, (40,), seed=4)
    pieces = [ipusim.TilePiece(1, 3, 0, 10), (0, 0, 10, 5), (1, 0, 15, 25)]
    layout = ipusim.TensorLayout(x.shape, np.uint16, ipusim.Mapping.per_tile(pieces), ipusim.Location.symbol("a"))
    assert layout.mapping.kind == "per_tile" and len(layout.mapping.pieces) == 3
    dev.write_tensor(layout, x)
    for ipu, tile, off, n in [(1, 3, 0, 10), (0, 0, 10, 5), (1, 0, 15, 25)]:
        assert dev.read_symbol(ipu, tile, "a", count=n, dtype=np.uint16).tobytes() == x[off:off + n].tobytes()
    assert dev.read_tensor(layout).tobytes() == x.tobytes()


def test_a_tensor_at_an_address(loaded):
    dev = loaded
    tiles = tiles_of(dev)
    addr = (ipusim.Elf.from_file(firmware("vecadd.elf")).image_end + 63) // 64 * 64
    x = random_array(np.float64, (16, 2), seed=5)
    layout = ipusim.TensorLayout(x.shape, np.float64, ipusim.Mapping.blocked_rows(tiles), ipusim.Location.at(addr))
    dev.write_tensor(layout, x)
    for tile, block in zip(tiles, np.array_split(x, len(tiles), axis=0)):
        assert dev.read_tile(tile.ipu, tile.tile, addr, count=block.shape, dtype=np.float64).tobytes() == block.tobytes()


def test_blocked_rows_take_one_descriptor_per_ipu(loaded):
    dev = loaded
    x = random_array(np.float32, (8, 256), seed=6)  # one row per tile, equal slices
    layout = ipusim.TensorLayout(x.shape, np.float32, ipusim.Mapping.blocked_rows(tiles_of(dev)),
                                 ipusim.Location.symbol("a"))
    before = dev.dma_stats()
    dev.write_tensor(layout, x)
    dev.read_tensor(layout)
    after = dev.dma_stats()
    assert after.to_device.descriptors - before.to_device.descriptors == dev.info.ipus
    assert after.from_device.descriptors - before.from_device.descriptors == dev.info.ipus
    assert after.to_device.bytes - before.to_device.bytes == x.nbytes


def test_per_tile_launch_arguments(loaded):
    dev = loaded
    tiles = tiles_of(dev)
    args = np.zeros(len(tiles), dtype=[("index", "<u4"), ("scale", "<f4"), ("ipu", "<u4"), ("tile", "<u4")])
    args["index"] = np.arange(len(tiles))
    args["scale"] = np.linspace(0.5, 4.0, len(tiles))
    args["ipu"] = [t.ipu for t in tiles]
    args["tile"] = [t.tile for t in tiles]
    dev.write_per_tile(tiles, "b", args)
    for i, t in enumerate(tiles):
        assert dev.read_symbol(t.ipu, t.tile, "b", count=1, dtype=args.dtype)[0] == args[i]


def test_tile_helpers():
    assert ipusim.tile_range(1, 2, 3) == [ipusim.TileId(1, 2), ipusim.TileId(1, 3), ipusim.TileId(1, 4)]
    assert hash(ipusim.TileId(0, 5)) == hash(ipusim.TileId(0, 5))
    assert ipusim.dtype_size(ipusim.DType.BF16) == 2 and ipusim.dtype_size("float64") == 8
    assert ipusim.numpy_dtype(ipusim.DType.BF16) == np.uint16
    assert ipusim.tensor_dtype(np.bool_) == ipusim.DType.U8
    with pytest.raises(ipusim.UsageError, match="complex128 has no tensor dtype"):
        ipusim.tensor_dtype(np.complex128)


def test_errors_name_what_is_wrong(loaded):
    dev = loaded
    tiles = tiles_of(dev)
    rows = ipusim.Mapping.blocked_rows(tiles)
    layout = ipusim.TensorLayout((8, 4), np.float32, rows, ipusim.Location.symbol("a"))
    with pytest.raises(ipusim.UsageError, match="float64.*f32"):
        dev.write_tensor(layout, np.zeros((8, 4), np.float64))
    with pytest.raises(ipusim.UsageError):
        dev.write_tensor(layout, np.zeros((8, 3), np.float32))  # 96 bytes for a 128-byte tensor
    with pytest.raises(ipusim.UsageError, match="'a'"):
        big = ipusim.TensorLayout((8, 4096), np.float32, rows, ipusim.Location.symbol("a"))  # 16 KiB a tile, 'a' is 6 KiB
        dev.write_tensor(big, np.zeros((8, 4096), np.float32))
    with pytest.raises(ipusim.UsageError):
        ipusim.TensorLayout((4,), np.float32, ipusim.Mapping.blocked_rows([(9, 0)]), ipusim.Location.symbol("a"))
        dev.write_tensor(ipusim.TensorLayout((4,), np.float32, ipusim.Mapping.blocked_rows([(9, 0)]),
                                             ipusim.Location.symbol("a")), np.zeros(4, np.float32))
    with pytest.raises(ipusim.UsageError, match="equal per-tile shares"):
        dev.write_per_tile(tiles, "a", np.zeros(len(tiles) * 4 + 1, np.uint8))
    records = np.zeros(5, dtype=[("index", "<u4"), ("scale", "<f4")])  # 40 bytes: 5 bytes a tile over 8
    assert len(tiles) == 8
    with pytest.raises(ipusim.UsageError, match="5 records of 8 bytes do not split into 8 per-tile shares"):
        dev.write_per_tile(tiles, "a", records)
    with pytest.raises(ipusim.UsageError, match="records of 4 bytes"):
        dev.write_per_tile(tiles, "a", np.zeros(10, np.float32))  # 40 bytes: 5 a tile
    with pytest.raises(TypeError, match="C-contiguous"):
        dev.write_tensor(layout, np.zeros((4, 16), np.float32)[:, ::2])


def test_read_tensor_leaves_zeros_where_no_piece_lies(loaded):
    dev = loaded
    dev.write_symbol(0, 1, "a", np.full(8, 0xABCD, np.uint16))
    layout = ipusim.TensorLayout((8,), np.uint16, ipusim.Mapping.per_tile([(0, 1, 2, 3)]), ipusim.Location.symbol("a"))
    back = dev.read_tensor(layout)
    assert back.tolist() == [0, 0, 0xABCD, 0xABCD, 0xABCD, 0, 0, 0]
