// kref_ipu_allreduce: checks an `ipusim run` of ipu_allreduce.elf against the host
// reference (kref::ipu_allreduce) on systems too large for the test suite (a POD16 or
// POD64 of GC200s takes minutes and gigabytes; docs/kernels.md reports those runs).
//
//   kref_ipu_allreduce [--chunk N] CONFIG [CONSOLE]
//
// --chunk: the chunk the run used (ipu_allreduce_params, or ipu_allreduce_c4.elf's 4);
// default 0, the kernel's own rule. Prints the expected hash; with CONSOLE (the run's stdout), also checks that every IPU
// printed one hash line (lines come in the order the IPUs finish), with that hash and
// chunk. Exit 1 if not.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "config/config_loader.h"
#include "kernels_ref.h"

int main(int argc, char** argv) {
  uint32_t asked = 0;
  if (argc >= 3 && std::string(argv[1]) == "--chunk") {
    char* end = nullptr;
    const unsigned long v = std::strtoul(argv[2], &end, 0);
    if (!*argv[2] || *end || v > 0xffffffffUL) {
      std::cerr << "kref_ipu_allreduce: --chunk " << argv[2] << ": not a number\n";
      return 2;
    }
    asked = uint32_t(v);
    argv += 2;
    argc -= 2;
  }
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: kref_ipu_allreduce [--chunk N] CONFIG [CONSOLE]\n";
    return 2;
  }
  const ipusim::config::SystemConfig sys = ipusim::config::load_system(argv[1]);
  const ipusim::config::ChipConfig& chip = sys.board.chip;
  const kref::IpuAllreduceExpect want =
      kref::ipu_allreduce(chip.tiles, uint32_t(chip.tile.sram_bytes), sys.total_ipus(), asked);
  if (want.chunk == 0) {
    std::cerr << "kref_ipu_allreduce: chunk " << asked << " does not fit " << chip.tiles << " tiles' SRAM\n";
    return 2;
  }
  char hash[16];
  std::snprintf(hash, sizeof hash, "0x%08x", want.hash);
  std::printf("expected: ipus %u tiles %u chunk %u hash %s\n", sys.total_ipus(), chip.tiles, want.chunk, hash);
  if (argc == 2) return 0;

  std::ifstream in(argv[2]);
  std::stringstream text;
  text << in.rdbuf();
  std::set<uint64_t> ipus;
  uint32_t lines = 0, wrong = 0;
  for (const std::string& line : kref::lines_of(text.str(), "ipu_allreduce")) {
    const auto kv = kref::pairs(line);
    if (!kv.count("hash")) continue;
    ++lines;
    const bool again = !ipus.insert(kref::to_u64(kv.at("ipu"))).second;
    if (again || kv.at("hash") != hash || kref::to_u64(kv.at("chunk")) != want.chunk) {
      std::printf("wrong: %s\n", line.c_str());
      ++wrong;
    }
  }
  const bool all = !ipus.empty() && ipus.size() == sys.total_ipus() && *ipus.rbegin() + 1 == sys.total_ipus();
  std::printf("%u hash lines from %zu IPUs, %u wrong\n", lines, ipus.size(), wrong);
  return all && wrong == 0 ? 0 : 1;
}
