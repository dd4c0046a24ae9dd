// Paths and helpers shared by the firmware tests. The paths come from CMake as compile
// definitions (see CMakeLists.txt), so the tests run from any directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "subprocess.h"

namespace ipusim::fwtest {

namespace fs = std::filesystem;

struct Env {
  fs::path ipusim;           // the ipusim binary
  fs::path qemu;             // qemu-riscv32 ("" if CMake did not find it)
  fs::path firmware_dir;     // ${IPUSIM_FIRMWARE_DIR}
  fs::path progs_source;     // testbench/firmware/progs
  fs::path faults_source;    // testbench/firmware/faults
  fs::path config;           // configs/test/tile1.yaml
  fs::path work_dir;         // scratch space for outputs and traces
};
const Env& env();

// Base names of the *.c files in `dir`, sorted.
std::vector<std::string> sources_in(const fs::path& dir);

// The 1-based line of `file` holding `needle` (0: none), so no test hard-codes a line.
uint32_t line_of(const fs::path& file, const std::string& needle);

// A fresh, empty scratch directory for one test.
fs::path scratch_dir(const std::string& suite, const std::string& name);

// `ipusim run --config <tile1> --elf <elf> --console raw [extra...]`.
ProcessResult run_ipusim(const fs::path& elf, const fs::path& scratch,
                         const std::vector<std::string>& extra = {});

// `qemu-riscv32 [options...] <elf>`; throws if CMake found no qemu-riscv32.
ProcessResult run_qemu(const fs::path& elf, const fs::path& scratch,
                       const std::vector<std::string>& options = {});

}  // namespace ipusim::fwtest
