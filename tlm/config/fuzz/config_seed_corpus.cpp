// Writes the seed corpus of the config fuzzer into DIR: every reference config (chip,
// board and system files of configs/ and configs/test/, flat, so the references between
// them resolve inside DIR, where the fuzzer's input lies too), and files with the
// `link_faults` forms a reference config does not use (a spec for every link, specs per
// link, burst and down faults), and a system's `ranks` (the boards of each MPI rank).
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CONFIGS_DIR DIR\n", argv[0]);
    return 2;
  }
  const fs::path configs = argv[1], dir = argv[2];
  fs::create_directories(dir);
  int copied = 0;
  for (const fs::path& from : {configs, configs / "test"})
    for (const auto& entry : fs::directory_iterator(from))
      if (entry.path().extension() == ".yaml") {
        fs::copy_file(entry.path(), dir / entry.path().filename(), fs::copy_options::overwrite_existing);
        ++copied;
      }
  if (copied == 0) {
    std::fprintf(stderr, "%s: no .yaml file in %s\n", argv[0], configs.c_str());
    return 1;
  }
  const char* const faults[] = {
      "kind: board\nname: faults_all\nchip: tiny4.yaml\nipus: 4\ntopology: m2000\n"
      "link_faults: \"ber=1e-6,seed=7\"\n",
      "kind: system\nname: faults_links\nboard: tiny4_m2000.yaml\nboards: 2\n"
      "link_faults:\n  all: \"ber=1e-9\"\n  3: \"burst=1000:16,seed=2\"\n  5: \"drop=0.01,dup_every=5,ack_drop=0.001\"\n  6: none\n",
      "kind: board\nname: inline_chip\nipus: 2\ntopology: pair\n"
      "chip: {kind: chip, name: c, tiles: 2, clock_mhz: 1330, tile: {sram_kib: 64, workers: 6}}\n"
      "link_faults: \"periodic=7, burst=5:4:40, seed=3\"\n",
      "kind: system\nname: ranked\nboard: tiny4_m2000.yaml\nboards: 3\nranks: [[2], [0, 1]]\n"};
  int n = 0;
  for (const char* text : faults) std::ofstream(dir / ("extra" + std::to_string(n++) + ".yaml")) << text;
  return 0;
}
