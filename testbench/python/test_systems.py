"""Any number of systems in one Python process (docs/python.md "Several systems"): tiny16
and a GC200 opened one after the other and side by side, a kernel run on each and its
results checked; the first system the process's model can take runs in process, the
others in the driver's own `ipusim serve` children (DeviceInfo.in_process)."""

import threading

import numpy as np

import ipusim
from conftest import config, firmware

VEC_N = 1536  # firmware/examples/vecadd: c = a + b, a[i] = i / 2, b[i] = 1000 - i / 4
EXPECTED_C = (np.arange(VEC_N, dtype=np.float32) * np.float32(0.5)
              + (np.float32(1000.0) - np.arange(VEC_N, dtype=np.float32) * np.float32(0.25)))

TINY16 = "config:" + config("configs/test/tiny16.yaml")
GC200 = "config:" + config("configs/gc200.yaml")


def run_vecadd(dev, tiles):
    """vecadd on tiles 0 .. tiles-1 of IPU 0, run to halt; c checked on the first and last tile."""
    dev.load({(0, 0, tiles): firmware("vecadd.elf")})
    result = dev.run(timeout=120)
    assert result.state == ipusim.RunState.HALTED and result.exit_code == 0
    assert result.stats.booted_tiles == tiles
    for tile in (0, tiles - 1):
        c = dev.read_symbol(0, tile, "c", count=VEC_N, dtype=np.float32)
        assert c.tobytes() == EXPECTED_C.tobytes(), (dev.info.locator, tile)
    return result


def test_tiny16_then_gc200_then_both_side_by_side():
    with ipusim.open(TINY16) as tiny:  # the process's model takes the first system
        assert tiny.info.in_process and tiny.info.tiles_per_ipu == 16
        run_vecadd(tiny, 16)
    with ipusim.open(GC200) as gc:  # the model holds tiny16: a child of the driver's
        assert not gc.info.in_process and gc.info.tiles_per_ipu == 1472 and gc.info.locator == GC200
        run_vecadd(gc, 64)

    tiny = ipusim.open(TINY16)  # tiny16 is the model's system and not open: in process again
    gc = ipusim.open(GC200)
    try:
        assert tiny.info.in_process and not gc.info.in_process
        assert (tiny.info.tiles_per_ipu, gc.info.tiles_per_ipu) == (16, 1472)
        # Both devices run at once, each on its own Python thread (the GIL is released).
        results, errors = {}, []

        def run(name, dev, tiles):
            try:
                results[name] = run_vecadd(dev, tiles)
            except BaseException as e:  # reported below, on the test's thread
                errors.append(e)

        threads = [threading.Thread(target=run, args=("tiny", tiny, 16)),
                   threading.Thread(target=run, args=("gc", gc, 1472))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert not any(t.is_alive() for t in threads) and errors == []
        assert results["tiny"].stats.booted_tiles == 16 and results["gc"].stats.booted_tiles == 1472
        # The same kernel on one tile of each takes the same cycles: one model.
        assert results["tiny"].supersteps[0][0].compute_cycles // 16 == results["gc"].supersteps[0][0].compute_cycles // 1472
    finally:
        gc.close()
        tiny.close()


def test_the_same_config_twice_side_by_side():
    with ipusim.open(TINY16) as a, ipusim.open(TINY16) as b:
        assert a.info.in_process and not b.info.in_process  # the open model's system again: a child
        pattern_a = np.arange(256, dtype=np.uint32)
        a.write_tile(0, 1, ipusim.SRAM_BASE + 0x40000, pattern_a)
        b.write_tile(0, 1, ipusim.SRAM_BASE + 0x40000, pattern_a[::-1].copy())
        assert (a.read_tile(0, 1, ipusim.SRAM_BASE + 0x40000, 256, np.uint32) == pattern_a).all()
        assert (b.read_tile(0, 1, ipusim.SRAM_BASE + 0x40000, 256, np.uint32) == pattern_a[::-1]).all()


def serve_children_of(pid):
    """The pids of the `ipusim serve --exit-with-parent` children of process `pid`."""
    import os
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        if ppid == pid and b"serve" in cmd and b"--exit-with-parent" in cmd:
            found.append(int(entry))
    return found


def test_a_fork_does_not_keep_the_serve_child_alive(tmp_path):
    """A process that opened a child-served system forks a worker (os.fork, no exec) and
    is then SIGKILLed: the serve child ends although the worker lives on (the worker does
    not hold the life pipe)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "forker.py"
    script.write_text(
        "import os, sys, time, ipusim\n"
        f"a = ipusim.open({TINY16!r})\n"
        f"b = ipusim.open({TINY16!r})  # a child of the driver's\n"
        "assert not b.info.in_process\n"
        "if os.fork() == 0:\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        servers = serve_children_of(proc.pid)
        assert len(servers) == 1, servers
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and os.path.exists(f"/proc/{servers[0]}"):
            with open(f"/proc/{servers[0]}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break  # ended; its parent is gone, so init reaps it
            time.sleep(0.05)
        else:
            if os.path.exists(f"/proc/{servers[0]}"):
                raise AssertionError("the serve child outlived its parent while a fork of it lived")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the forked worker too
        except ProcessLookupError:
            pass
