// Writes the checkpoint fuzzer's seed corpus into DIR (made if missing): small
// checkpoints of this build (its build id, so the fuzzer gets past the build check), each
// a flat file: an `inputs` section as a restore reads it, compressed and stored sections,
// an empty one, several ELF hashes, the `rows` and `streaming` sections' names.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/build_id.h"
#include "checkpoint/byte_io.h"
#include "checkpoint/checkpoint_file.h"

namespace ckpt = ipusim::checkpoint;
namespace fs = std::filesystem;

namespace {

ckpt::Section inputs(const std::vector<std::string>& link_faults) {
  ckpt::ByteWriter w;
  w.str("configs/test/tiny4_m2000.yaml");
  w.str("ipu_allreduce.elf");
  w.str("0-3");
  w.u64(link_faults.size());
  for (const std::string& f : link_faults) w.str(f);
  return {"inputs", std::move(w.data()), false};
}

ckpt::Section words(const std::string& name, uint64_t n, bool compress) {
  ckpt::ByteWriter w;
  w.u64(n);
  for (uint64_t i = 0; i < n; ++i) w.u64(i * 0x9e3779b97f4a7c15ull);
  w.str("text after the words");
  return {name, std::move(w.data()), compress};
}

void write(const fs::path& dir, const std::string& name, const ckpt::Checkpoint& c) {
  const fs::path tmp = dir / (name + ".d");
  ckpt::write_checkpoint(tmp.string(), c);
  fs::rename(tmp / ckpt::kStateFile, dir / name);
  fs::remove_all(tmp);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: checkpoint_seed_corpus DIR\n");
    return 2;
  }
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  ckpt::Checkpoint c;
  c.header.build_id = ckpt::build_id();
  c.header.config_hash = 0x1234;
  c.header.elf_hashes = {0x5678};
  c.header.superstep = 5;
  c.sections = {inputs({})};
  write(dir, "inputs_only", c);
  c.sections = {inputs({"ber=2e-4,drop=0.02,seed=11", "3:burst=1000:16"}), words("config", 20, true),
                words("links", 64, true), words("tiles", 3, false), {"empty", {}, true}};
  c.header.elf_hashes = {1, 2, 3};
  write(dir, "sections", c);
  // The sections of version 2: the superstep rows past the window, the gateways' state.
  c.sections = {inputs({}), words("rows", 40, true), words("streaming", 130, true), words("tiles", 8, true)};
  c.header.elf_hashes = {0x5678};
  write(dir, "rows_streaming", c);
  c.header.build_id = "another build";
  write(dir, "other_build", c);
  return 0;
}
