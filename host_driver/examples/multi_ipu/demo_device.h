// What the multi-IPU demo's sub-commands share: the options, opening the device and
// loading a kernel on every tile of every IPU, reading a symbol into a struct, and the
// exit statuses (0 checked and equal to the host reference, 1 a mismatch or a device
// error, 2 bad input: config, ELF or arguments).
#pragma once

#include <ipudrv/device.h>

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

namespace demo {

constexpr int kOk = 0, kMismatch = 1, kBadInput = 2;

struct Options {
  std::string locator;       // config:PATH or unix:PATH
  std::string elf;           // empty: the build's firmware for the sub-command
  uint32_t micro_batches = 4;  // pipeline
  uint32_t seed = 2024;        // pipeline: the host's inputs
  uint32_t chunk = 0;          // allreduce: ipu_allreduce_params.chunk (0: the kernel's default)
};

// Bad input found before anything ran (exit kBadInput).
struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Opens the device, checks it has at least `min_ipus` IPUs, loads `elf` on every tile of
// every IPU after checking that it has every symbol in `symbols` (names the first missing:
// the wrong firmware for the sub-command).
std::unique_ptr<ipudrv::Device> open_and_load(const Options& o, const std::string& elf, uint32_t min_ipus,
                                              std::initializer_list<const char*> symbols);

// Runs to halt; a non-zero exit or a paused run is a device error.
ipudrv::RunResult run_to_halt(ipudrv::Device& dev, const char* what);

template <typename T>
T read_struct(ipudrv::Device& dev, uint32_t ipu, uint32_t tile, const char* symbol) {
  T v{};
  dev.read_symbol(ipu, tile, symbol, std::as_writable_bytes(std::span(&v, 1)));
  return v;
}

// The config file behind a "config:PATH" locator (or a plain path), "" for other locators.
std::string config_path_of(const std::string& locator);

std::string hex(uint32_t v);

}  // namespace demo
