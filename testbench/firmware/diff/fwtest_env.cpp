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
  fs::path dir = env().work_dir / suite / name;
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
  // IPUSIM_TEST_ISS=jit (ctest's *_jit variants): every run on the translator.
  if (const char* iss = std::getenv("IPUSIM_TEST_ISS"); iss != nullptr && *iss != '\0') {
    argv.push_back("--iss");
    argv.push_back(iss);
  }
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
