"""Fixtures of the ipusim Python tests (docs/python.md "Tests").

Every test that takes ``locator`` or ``device`` runs twice: in process (``config:``) and
through an ``ipusim serve`` child on a scratch socket (``unix:``), as the C++ device-API
tests do (testbench/system/device_api/device_fixture.h). Each test file (one ctest, one
process) keeps to one config, named by the module's ``CONFIG``, so its in-process
devices share the process's model instead of each starting an ``ipusim serve`` child.

Paths come from the ctest's environment (IPUSIM_SOURCE_DIR, IPUSIM_BINARY_DIR,
IPUSIM_FIRMWARE_DIR, IPUSIM_BIN), else the source tree and its ``build/``.
"""

from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import time

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("IPUSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BINARY_DIR = pathlib.Path(os.environ.get("IPUSIM_BINARY_DIR", SOURCE_DIR / "build"))
FIRMWARE_DIR = pathlib.Path(os.environ.get("IPUSIM_FIRMWARE_DIR", BINARY_DIR / "firmware"))
IPUSIM_BIN = pathlib.Path(os.environ.get("IPUSIM_BIN", BINARY_DIR / "bin" / "ipusim"))

os.environ.setdefault("IPUSIM_CONSOLE", "none")  # the firmware's own printing, in process and in servers
os.environ.setdefault("IPUSIM_THREADS", "1")


def firmware(name: str) -> str:
    """The path of a firmware ELF of the build (build/firmware/NAME)."""
    return str(FIRMWARE_DIR / name)


def config(name: str) -> str:
    """The path of a config, relative to the source tree (the tests run there)."""
    return str(SOURCE_DIR / name)


class ServeChild:
    """``ipusim serve --config CONFIG --socket SOCKET --quiet``, ready once it accepts a connection."""

    def __init__(self, config_path: str, socket_path: str, extra: tuple[str, ...] = ()):
        self.socket = socket_path
        self.stderr_path = socket_path + ".stderr"
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                [str(IPUSIM_BIN), "serve", "--config", config_path, "--socket", socket_path, "--quiet", *extra],
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        deadline = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ipusim serve exited with {self.proc.returncode}: {self.stderr_text()}")
            if os.path.exists(socket_path):
                probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    probe.connect(socket_path)
                    break
                except OSError:
                    pass
                finally:
                    probe.close()
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"ipusim serve did not listen on {socket_path} within 30 s: {self.stderr_text()}")
            time.sleep(0.02)
        # The probe counted as a client: let the server see it leave before the real one.
        time.sleep(0.05)

    def stderr_text(self) -> str:
        try:
            return pathlib.Path(self.stderr_path).read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> int:
        """SIGTERM, then the exit status (the server's clean stop is 0)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def scratch_socket(tmp_path_factory: pytest.TempPathFactory, tag: str) -> str:
    # Unix socket paths are short (108 bytes): a fresh folder under the system's temp dir.
    import tempfile

    folder = tempfile.mkdtemp(prefix="ipusim-py-")
    return os.path.join(folder, f"{tag}-{os.getpid()}.sock")


@pytest.fixture(params=["config", "unix"])
def locator(request, tmp_path_factory):
    """The locator of the test module's CONFIG through each transport."""
    path = config(getattr(request.module, "CONFIG", "configs/test/tiny4.yaml"))
    if request.param == "config":
        yield "config:" + path
        return
    server = ServeChild(path, scratch_socket(tmp_path_factory, "serve"))
    try:
        yield "unix:" + server.socket
    finally:
        status = server.stop()
        assert status == 0, f"ipusim serve ended with {status}: {server.stderr_text()}"


@pytest.fixture
def device(locator):
    """The opened device of the test module's CONFIG (closed after the test)."""
    import ipusim

    dev = ipusim.open(locator)
    try:
        yield dev
    finally:
        dev.close()


@pytest.fixture
def serve_child(tmp_path_factory):
    """Starts servers for tests that need one of their own: serve_child(config) -> ServeChild."""
    started = []

    def start(config_name: str, *extra: str) -> ServeChild:
        s = ServeChild(config(config_name), scratch_socket(tmp_path_factory, "own"), tuple(extra))
        started.append(s)
        return s

    yield start
    for s in started:
        s.kill()
