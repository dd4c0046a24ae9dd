#include "fwtest_env.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace ipusim::fwtest {

const Env& env() {
  static const Env e{IPUSIM_BIN,          QEMU_RISCV32,       IPUSIM_FIRMWARE_DIR,
                     PROGS_SOURCE_DIR,    FAULTS_SOURCE_DIR, TEST_CONFIG,
                     FWTEST_WORK_DIR};
  return e;
}

std::vector<std::string> sources_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".c") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

fs::path scratch_dir(const std::string& suite, const std::string& name) {
  // The *_interp variants (IPUSIM_ISS=interp) run beside the default cases of the same names.
  const char* iss = std::getenv("IPUSIM_ISS");
  const fs::path work = iss != nullptr && *iss != '\0' ? env().work_dir / (std::string("iss_") + iss) : env().work_dir;
  fs::path dir = work / suite / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

uint32_t line_of(const fs::path& file, const std::string& needle) {
  std::ifstream in(file);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(needle) != std::string::npos) return n;
  return 0;
}

ProcessResult run_ipusim(const fs::path& elf, const fs::path& scratch,
                         const std::vector<std::string>& extra) {
  std::vector<std::string> argv{env().ipusim.string(), "run",          "--config",
                                env().config.string(),  "--elf",        elf.string(),
                                "--console",            "raw"};
  // No --iss: `ipusim run` takes IPUSIM_ISS from the environment it inherits (ctest's
  // *_interp variants set IPUSIM_ISS=interp), else its default, the translator.
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_process(argv, scratch / "ipusim.stdout", scratch / "ipusim.stderr");
}

ProcessResult run_qemu(const fs::path& elf, const fs::path& scratch,
                       const std::vector<std::string>& options) {
  if (env().qemu.empty()) throw std::runtime_error("qemu-riscv32 was not found by CMake");
  std::vector<std::string> argv{env().qemu.string()};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(elf.string());
  return run_process(argv, scratch / "qemu.stdout", scratch / "qemu.stderr");
}

}  // namespace ipusim::fwtest
