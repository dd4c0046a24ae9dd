"""Host streams with numpy arrays and with Python callbacks, on both transports
(stream_xform: tile 0 reads stream 0 chunk by chunk and writes w + i to stream 1); the
callbacks' rules (a view kept past the call, a count out of range, an exception raised);
objects kept alive while connected."""

import gc
import weakref

import numpy as np
import pytest

import ipusim
from conftest import firmware

CONFIG = "configs/test/tiny4x2_smem.yaml"


def load_job(dev, nbytes, chunk):
    dev.set_console(None)
    dev.load(firmware("device_api/stream_xform.elf"))
    job = np.array([nbytes, chunk, 0, 0], dtype=np.uint32)
    for ipu in range(dev.info.ipus):
        dev.write_tiles((ipu, 0, dev.info.tiles_per_ipu), dev.symbol_address(ipu, 0, "stream_job"), job)


def words(n, seed):
    return np.random.default_rng(seed).integers(0, 1 << 32, size=n, dtype=np.uint32)


def expected(x):
    return (x + np.arange(x.size, dtype=np.uint32)).astype(np.uint32)


def test_arrays_both_ways_larger_than_the_fifo(device):
    dev = device
    fifo = dev.info.stream_fifo_bytes
    chunk = 16384
    n = (fifo * 5 // 2 // chunk) * chunk // 4
    assert n * 4 > fifo
    load_job(dev, n * 4, chunk)
    x = words(n, 1)
    y = np.full(n, 0xDEADBEEF, dtype=np.uint32)
    dev.connect_h2d_stream(0, x)
    dev.connect_d2h_stream(1, y)
    r = dev.run(timeout=60)
    assert r.exit_code == 0 and r.stream_services >= 2
    assert dev.d2h_stream_bytes(1) == n * 4
    assert np.array_equal(y, expected(x))
    job = dev.read_symbol(0, 0, "stream_job", dtype=np.uint32)
    assert job[2] == n * 4 // chunk and job[3] == n


def test_callbacks_both_ways(device):
    dev = device
    n, chunk = 6000, 4000
    load_job(dev, n * 4, chunk)
    x = words(n, 2)
    src = x.tobytes()
    pos = [0]
    fills = []

    def fill(view):  # writes into the driver's view, returns the count
        k = min(len(view), len(src) - pos[0])
        view[:k] = src[pos[0]:pos[0] + k]
        pos[0] += k
        fills.append(len(view))
        return k

    got = bytearray()

    def drain(view):
        assert view.readonly
        got.extend(view)  # a copy: the view is the driver's for this call only

    dev.connect_h2d_stream(0, fill)
    dev.connect_d2h_stream(1, drain)
    r = dev.run(timeout=60)
    assert r.exit_code == 0 and fills
    assert pos[0] == len(src)
    assert np.array_equal(np.frombuffer(bytes(got), dtype=np.uint32), expected(x))


def test_a_fill_callback_may_return_bytes(device):
    dev = device
    n = 2048
    load_job(dev, n * 4, 2048)
    x = words(n, 3)
    pieces = [x[i:i + 300].tobytes() for i in range(0, n, 300)]

    def fill(view):
        if not pieces:
            return None
        p = pieces[0]
        if len(p) > len(view):
            pieces[0] = p[len(view):]
            return p[:len(view)]
        return pieces.pop(0)

    out = np.zeros(n, dtype=np.uint32)
    dev.connect_h2d_stream(0, fill)
    dev.connect_d2h_stream(1, out)
    dev.run(timeout=60)
    assert np.array_equal(out, expected(x))


def test_callback_exceptions_come_out_of_run(device):
    dev = device
    load_job(dev, 4096, 4096)

    class FillFailed(Exception):
        pass

    def fill(view):
        raise FillFailed("no data today")

    dev.connect_h2d_stream(0, fill)
    dev.connect_d2h_stream(1, np.zeros(1024, np.uint32))
    with pytest.raises(FillFailed, match="no data today"):
        dev.run(timeout=60)

    load_job(dev, 4096, 4096)
    dev.connect_h2d_stream(0, np.zeros(1024, np.uint32))

    def drain(view):
        raise KeyError("drained")

    dev.connect_d2h_stream(1, drain)
    with pytest.raises(KeyError, match="drained"):
        dev.run(timeout=60)


def test_callback_rules(device):
    dev = device
    load_job(dev, 4096, 4096)
    dev.connect_h2d_stream(0, lambda view: len(view) + 1)
    dev.connect_d2h_stream(1, np.zeros(1024, np.uint32))
    with pytest.raises(ipusim.StreamError, match="returned"):
        dev.run(timeout=60)

    load_job(dev, 4096, 4096)
    kept = []
    dev.connect_h2d_stream(0, np.zeros(1024, np.uint32))
    dev.connect_d2h_stream(1, kept.append)
    dev.run(timeout=60)
    assert kept
    with pytest.raises(ValueError, match="released"):
        bytes(kept[0])  # the view is the driver's for the call only

    with pytest.raises(TypeError, match="callable"):
        dev.connect_h2d_stream(0, 42)
    with pytest.raises(TypeError, match="writable"):
        dev.connect_d2h_stream(1, b"read only")
    with pytest.raises(ipusim.UsageError, match="999"):
        dev.connect_h2d_stream(999, np.zeros(4, np.uint8))


def test_nothing_connected_and_a_source_that_runs_dry(device):
    dev = device
    load_job(dev, 8192, 4096)
    with pytest.raises(ipusim.StreamError) as e:
        dev.run(timeout=60)
    assert "stream 0" in str(e.value)
    load_job(dev, 8192, 4096)
    dev.connect_h2d_stream(0, np.zeros(1024, np.uint32))  # half of what the tiles read
    dev.connect_d2h_stream(1, np.zeros(2048, np.uint32))
    with pytest.raises(ipusim.StreamError):
        dev.run(timeout=60)


def test_connected_objects_are_kept_alive_until_disconnected(device):
    dev = device
    n = 1024
    load_job(dev, n * 4, 4096)
    x = words(n, 4)
    src = x.copy()
    alive = weakref.ref(src)
    out = np.zeros(n, dtype=np.uint32)
    dev.connect_h2d_stream(0, src)
    dev.connect_d2h_stream(1, out)
    del src
    gc.collect()
    assert alive() is not None, "the device holds the array it reads"
    dev.run(timeout=60)
    assert np.array_equal(out, expected(x))
    dev.disconnect_stream(0)
    gc.collect()
    assert alive() is None, "disconnecting lets go of it"
