"""Runs through the Python API on both transports: enumerate and open, run to halt and
superstep by superstep, stats and per-superstep figures (objects and numpy arrays), the
console as a Python callable, run_async with result / done / abort, timeouts and budgets,
the GIL released while the device runs, the trace, close and the context manager."""

import json
import threading
import time

import numpy as np
import pytest

import ipusim
from conftest import firmware

CONFIG = "configs/test/tiny4.yaml"


def test_enumerate_and_open_by_ref(locator):
    with pytest.raises(ipusim.UsageError, match="1 device"):
        ipusim.open(locator, 1)
    refs = ipusim.enumerate(locator)
    assert len(refs) == 1
    info = refs[0].info
    assert info.locator == locator
    assert (info.ipus, info.tiles_per_ipu, info.workers, info.boards) == (1, 4, 6, 1)
    assert info.sram_bytes == 624 * 1024
    with refs[0].open(use_interrupts=False) as dev:
        assert dev.info.tiles_per_ipu == 4
        assert dev.state() == ipusim.STATE_IDLE
    assert dev.closed
    with pytest.raises(ipusim.UsageError, match="closed"):
        dev.stats()
    del refs  # an in-process ref holds the system: the next test opens it again


def test_run_to_halt_stats_and_supersteps(device):
    dev = device
    dev.set_console(None)
    dev.load(firmware("allreduce.elf"))
    assert dev.state() == ipusim.STATE_READY
    r = dev.run(timeout=60)
    assert r.state == ipusim.RunState.HALTED and r.exit_code == 0
    assert r.stats.cycles > 0 and r.stats.instructions > 0 and r.stats.booted_tiles == 4
    assert dev.state() == ipusim.STATE_HALTED
    s = dev.stats()
    assert (s.cycles, s.instructions, s.supersteps) == (r.stats.cycles, r.stats.instructions, r.stats.supersteps)
    assert len(r.supersteps) == 1 and len(r.supersteps[0]) >= r.stats.supersteps
    assert dev.superstep_stats() == r.supersteps
    assert dev.superstep_stats(0) == r.supersteps[0]
    a = dev.superstep_array(0)
    assert a.dtype == ipusim.SUPERSTEP_DTYPE and len(a) == len(r.supersteps[0])
    for row, step in zip(a, r.supersteps[0]):
        assert row["compute_cycles"] == step.compute_cycles and row["sync_cycles"] == step.sync_cycles
        assert row["exchange_cycles"] == step.exchange_cycles and row["tiles"] == step.tiles
    assert np.array_equal(r.superstep_array(0), a)
    cols = ipusim.superstep_columns(a)
    assert np.array_equal(cols["cycles"], a["end_cycle"] - a["begin_cycle"])
    assert np.array_equal(ipusim.superstep_columns(r.supersteps[0])["compute_cycles"], a["compute_cycles"])
    assert int(a["compute_cycles"].sum()) > 0
    with pytest.raises(ipusim.UsageError):
        r.superstep_array(1)
    magic = dev.read_symbol(0, 0, "kc_result", 1, np.uint32)
    assert magic[0] == 0x4B524553  # KC_RESULT_MAGIC


def test_superstep_by_superstep_equals_one_run(device):
    dev = device
    dev.set_console(None)
    dev.load(firmware("allreduce.elf"))
    whole = dev.run(timeout=60)
    dev.load(firmware("allreduce.elf"))
    steps = 0
    while True:
        r = dev.run(1, timeout=60)
        steps += 1
        if r.state == ipusim.RunState.HALTED:
            break
        assert r.state == ipusim.RunState.PAUSED
        assert dev.state() == ipusim.STATE_PAUSED
    assert steps >= 2
    assert r.stats.cycles == whole.stats.cycles and r.stats.instructions == whole.stats.instructions
    assert r.supersteps == whole.supersteps


def test_console_lines_reach_a_python_callable(device):
    dev = device
    lines, threads = [], set()

    def handler(line):
        lines.append(line)
        threads.add(threading.get_ident())

    dev.set_console(handler)
    dev.load(firmware("hello.elf"))
    dev.run(timeout=60)
    assert [(l.ipu, l.tile, l.thread) for l in lines] == [(0, t, 0) for t in range(4)]
    assert lines[2].text.startswith("hello from tile 2 of 4")
    assert str(lines[2]) == "[ipu 0 tile 2] " + lines[2].text
    assert ipusim.format_console_line(lines[2]) == str(lines[2]) + "\n"
    assert threads == {threading.get_ident()}, "run(): the handler runs on the caller's thread"
    # run_async: on the device's thread, with the GIL taken there (no deadlock).
    lines.clear()
    threads.clear()
    dev.load(firmware("hello.elf"))
    f = dev.run_async()
    r = f.result(timeout=60)
    assert f.done() and r.exit_code == 0
    assert len(lines) == 4 and threading.get_ident() not in threads
    # Off.
    lines.clear()
    dev.set_console(None)
    dev.load(firmware("hello.elf"))
    dev.run(timeout=60)
    assert lines == []


def test_console_printer_writes_python_stdout(device, capsys):
    dev = device
    dev.set_console(ipusim.console_printer())
    dev.load(firmware("hello.elf"))
    dev.run(timeout=60)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[3].startswith("[ipu 0 tile 3] hello from tile 3")


def test_a_console_handler_that_raises_raises_out_of_run(device):
    dev = device

    class Mine(Exception):
        pass

    def handler(line):
        raise Mine(f"refused {line.tile}")

    dev.set_console(handler)
    dev.load(firmware("hello.elf"))
    with pytest.raises(Mine, match="refused 0"):
        dev.run(timeout=60)
    dev.reset()
    dev.load(firmware("hello.elf"))
    f = dev.run_async()
    with pytest.raises(Mine):
        f.result(timeout=60)
    with pytest.raises(Mine):  # every result() call alike
        f.result(timeout=60)


def test_run_async_abort_and_reuse(device):
    dev = device
    dev.set_console(None)
    dev.load(firmware("device_api/endless_sync.elf"))
    f = dev.run_async()
    with pytest.raises(TimeoutError):  # builtins.TimeoutError: the run goes on
        f.result(timeout=0.2)
    assert not f.done()
    assert dev.state() == ipusim.STATE_RUNNING
    before = dev.stats().supersteps
    time.sleep(0.1)
    assert dev.stats().supersteps > before, "stats() follow the run while it is in flight"
    with pytest.raises(ipusim.UsageError, match="busy"):
        dev.load(firmware("allreduce.elf"))
    dev.abort()
    with pytest.raises(ipusim.DeviceStateError) as e:
        f.result(timeout=10)
    assert e.value.code == ipusim.ERR_STATE
    assert f.done()
    dev.load(firmware("allreduce.elf"))
    assert dev.run(timeout=60).exit_code == 0


def test_abort_from_another_python_thread_while_run_blocks(device):
    dev = device
    dev.load(firmware("device_api/endless_sync.elf"))
    timer = threading.Timer(0.3, dev.abort)
    t0 = time.monotonic()
    timer.start()
    with pytest.raises(ipusim.DeviceStateError, match="abort"):
        dev.run(timeout=30)
    timer.join()
    assert 0.25 < time.monotonic() - t0 < 20


def test_the_gil_is_released_while_the_device_runs(device):
    dev = device
    dev.load(firmware("device_api/endless_sync.elf"))
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(dev.stats().supersteps)  # a device call from Python, during the run
            time.sleep(0.01)

    t = threading.Thread(target=count)
    t.start()
    try:
        with pytest.raises(ipusim.TimeoutError):
            dev.run(timeout=0.5)
    finally:
        stop.set()
        t.join()
    assert len(ticks) >= 10, "the other thread ran while run() waited"
    assert ticks[-1] > ticks[0]


def test_timeout_and_budgets(device):
    dev = device
    dev.load(firmware("device_api/endless_sync.elf"))
    t0 = time.monotonic()
    with pytest.raises(ipusim.TimeoutError, match="abort") as e:
        dev.run(timeout=0.2)
    assert isinstance(e.value, TimeoutError) and isinstance(e.value, ipusim.Error)
    assert time.monotonic() - t0 >= 0.2
    assert dev.state() == ipusim.STATE_ERROR
    dev.load(firmware("device_api/endless_sync.elf"))
    with pytest.raises(ipusim.BudgetError) as e:
        dev.run(max_cycles=200000)
    assert e.value.code == ipusim.ERR_BUDGET and e.value.kind == "cycle budget"
    assert e.value.tile is not None and e.value.cycle >= 200000 - 1000
    dev.load(firmware("device_api/endless_sync.elf"))
    with pytest.raises(ipusim.BudgetError) as e:
        dev.run(max_instructions=100000)
    assert e.value.kind == "instruction budget"
    with pytest.raises(ipusim.UsageError, match="timeout"):
        dev.run(timeout=-1)


def test_trace_file(device, tmp_path, locator):
    dev = device
    path = tmp_path / "run.trace.json"
    dev.set_trace(path)
    dev.load(firmware("allreduce.elf"))
    dev.run(timeout=60)
    trace = json.loads(path.read_text())
    assert trace  # Perfetto JSON: events of the run
    dev.set_trace(None)
    with pytest.raises(ipusim.UsageError):
        dev.set_trace(tmp_path / "no" / "such" / "dir" / "t.json")


def test_link_stats_and_faults_on_a_single_ipu(device):
    dev = device
    dev.load(firmware("allreduce.elf"))
    r = dev.run(timeout=60)
    assert r.links == [] and dev.link_stats() == [] and r.link_cycles_lost == 0  # one IPU: no IPU-Links
    with pytest.raises(ipusim.UsageError):
        dev.set_link_faults("this is not a fault spec")
    dev.set_link_faults("none")


def test_registers_and_error_registers(device):
    dev = device
    assert dev.read_register(0) == dev.read_register(0, board=0) != 0  # ID magic
    info = dev.error_registers()
    assert info.code == ipusim.ERR_NONE and info.code_name == "NONE" and info.tile is None
    with pytest.raises(ipusim.UsageError):
        dev.read_register(ipusim.BAR0_BYTES)


def test_open_options_core_dir_and_trace_path(locator, tmp_path):
    trace = tmp_path / "open.trace.json"
    if locator.startswith("unix:"):  # the server's own options (`ipusim serve --core DIR`)
        with pytest.raises(ipusim.UsageError):
            ipusim.open(locator, core_dir=str(tmp_path))
        return
    with ipusim.open(locator, core_dir=str(tmp_path), trace_path=str(trace), use_interrupts=False) as dev:
        dev.set_console(None)
        dev.load({(0, 2, 1): firmware("faults/fault_illegal.elf")})
        with pytest.raises(ipusim.TileFaultError):
            dev.run(timeout=30)
    assert (tmp_path / "ipu0.core").stat().st_size > 0
    assert json.loads(trace.read_text())


def test_close_while_another_thread_runs(locator):
    dev = ipusim.open(locator)
    dev.set_console(lambda line: None)  # a Python callback the closing must not deadlock with
    dev.load(firmware("system/chatter_forever.elf"))
    raised = []

    def run():
        try:
            dev.run(timeout=60)
        except ipusim.Error as e:
            raised.append(e)

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    dev.close()  # aborts the run, waits for it, then lets the device go
    t.join(timeout=30)
    assert not t.is_alive() and time.monotonic() - t0 < 20
    assert len(raised) == 1 and isinstance(raised[0], ipusim.DeviceStateError)
    assert dev.closed


def test_a_callback_may_read_stats_but_not_close_the_device(device):
    dev = device
    seen = []

    def handler(line):
        seen.append(dev.stats().cycles)  # allowed while the run goes on
        with pytest.raises(ipusim.UsageError, match="busy"):
            dev.read_tile(0, 0, ipusim.SRAM_BASE, 4)
        with pytest.raises(ipusim.UsageError, match="callback"):
            dev.close()  # would wait for the run that waits for this callback
        seen.append(line.tile)

    dev.set_console(handler)
    dev.load(firmware("hello.elf"))
    dev.run(timeout=30)
    assert seen[1::2] == [0, 1, 2, 3]
    assert not dev.closed


def test_close_while_run_async_calls_a_python_handler(locator):
    dev = ipusim.open(locator)
    lines = []
    dev.set_console(lines.append)  # called on the device's thread, with the GIL
    dev.load(firmware("system/chatter_forever.elf"))
    f = dev.run_async()
    deadline = time.monotonic() + 20
    while not lines and time.monotonic() < deadline:
        time.sleep(0.01)
    assert lines, "the handler runs while the main thread waits"
    dev.close()  # aborts the run and joins its thread, which may be waiting for the GIL
    with pytest.raises(ipusim.DeviceStateError):
        f.result(timeout=30)
    assert f.done()


CTRL_C_CHILD = r"""
import os, signal, sys, threading, time
import ipusim
locator, endless, hello = sys.argv[1:4]
dev = ipusim.open(locator)
dev.load(endless)
sent = []
def interrupt():
    sent.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(0.5, interrupt).start()
try:
    dev.run()
    print("run returned")
    sys.exit(3)
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - sent[0]:.3f} s")
print("state", dev.state())
dev.load(hello)
print("again", dev.run(timeout=60).exit_code)
dev.close()
"""


def test_ctrl_c_stops_run(locator, tmp_path):
    """SIGINT while run() waits on a run that never ends: KeyboardInterrupt within a second,
    the device aborted (ERROR), then usable for the next program. In a child interpreter, so
    that the signal is its own."""
    import subprocess
    import sys

    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C_CHILD)
    done = subprocess.run([sys.executable, str(script), locator, firmware("device_api/endless_sync.elf"),
                           firmware("hello.elf")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("interrupted after "), done.stdout
    assert float(lines[0].split()[2]) < 1.0, "KeyboardInterrupt came later than a second after SIGINT"
    assert lines[1] == f"state {ipusim.STATE_ERROR}", "the run was aborted"
    assert lines[2] == "again 0", "the device ran the next program"


def test_run_and_result_return_when_the_run_ends_not_at_the_timeout(device):
    dev = device
    dev.load(firmware("hello.elf"))
    t0 = time.monotonic()
    assert dev.run(timeout=15).exit_code == 0
    assert time.monotonic() - t0 < 5, "run(timeout=15) waited for its timeout"
    dev.load(firmware("hello.elf"))
    t0 = time.monotonic()
    assert dev.run_async(timeout=15).result(15).exit_code == 0
    assert time.monotonic() - t0 < 5, "RunFuture.result(15) waited for its timeout"
