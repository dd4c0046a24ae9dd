// `ipusim run` as a subprocess for the kernel tests (ipusim_runner.h). The binary and the
// firmware folder come from compile definitions (IPUSIM_BIN, IPUSIM_FIRMWARE_DIR).
#include <unistd.h>
#include "ipusim_runner.h"

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace kref {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string firmware_path(const std::string& elf) { return std::string(IPUSIM_FIRMWARE_DIR) + "/" + elf; }

uint64_t last_superstep_begin(const nlohmann::json& summary, uint32_t ipu) {
  const nlohmann::json& last = summary.at("supersteps").back();
  for (const nlohmann::json& i : last.at("ipus"))
    if (i.at("ipu").get<uint32_t>() == ipu) return i.at("begin_cycle").get<uint64_t>();
  throw std::out_of_range("no IPU " + std::to_string(ipu) + " in the last superstep");
}

IpusimRun run_ipusim(const std::string& config, const std::string& elf, const std::string& tag,
                     const std::string& extra) {
  // The pid keeps concurrent runs of the suite (other build trees, ctest -j) apart.
  const std::string base =
      ::testing::TempDir() + "kernels_" + tag + "." + std::to_string(::getpid());
  const std::string out = base + ".stdout", err = base + ".stderr", json = base + ".json";
  std::remove(json.c_str());
  const std::string cmd = std::string(IPUSIM_BIN) + " run --config " + config + " --elf " +
                          firmware_path(elf) + " --json " + json + " " + extra + " >" + out +
                          " 2>" + err;
  const auto start = std::chrono::steady_clock::now();
  const int raw = std::system(cmd.c_str());
  IpusimRun r;
  r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.console = slurp(out);
  r.err = slurp(err);
  const std::string j = slurp(json);
  if (!j.empty()) r.json = nlohmann::json::parse(j, nullptr, false);
  return r;
}

}  // namespace kref
