#include "run_checkpoint.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <utility>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checkpoint/build_id.h"
#include "checkpoint/content_hash.h"
#include "checkpoint/byte_io.h"
#include "config/config_loader.h"
#include "config/config_writer.h"

namespace ipusim::cli {
namespace {

using checkpoint::CheckpointError;

uint64_t parse_count_after(const std::string& text, size_t at, const std::string& option) {
  const std::string digits = text.substr(at);
  if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos ||
      std::stoull(digits) == 0)
    throw std::invalid_argument(fmt::format("{} '{}': give superstep:N, cycle:C or every:N with N and C whole numbers "
                                            "from 1",
                                            option, text));
  return std::stoull(digits);
}

std::vector<uint8_t> read_bytes(const std::string& path, const char* option) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(fmt::format("{} '{}': cannot be read", option, path));
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The files a board's parts came from, which the effective config names in comments
// (config_writer: "chip:  # from FILE"): loaded from the text, the parts would name the
// checkpoint's config instead, and --json's FILE.config.yaml would not be the run's.
void restore_part_sources(const std::string& text, config::SystemConfig& system) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + at, end - at);
    at = end + 1;
    line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
    for (const auto& [key, source] : {std::pair<std::string_view, std::string*>{"chip:  # from ", &system.board.chip.source},
                                      {"board:  # from ", &system.board.source}})
      if (line.substr(0, key.size()) == key) *source = std::string(line.substr(key.size()));
  }
}

}  // namespace

std::optional<CheckpointPlan> checkpoint_plan(const RunOptions& o) {
  if (o.checkpoint_at.empty() && o.checkpoint_dir.empty()) return std::nullopt;
  if (o.checkpoint_at.empty())
    throw std::invalid_argument("--checkpoint-dir needs --checkpoint-at superstep:N|cycle:C|every:N");
  if (o.checkpoint_dir.empty()) throw std::invalid_argument("--checkpoint-at needs --checkpoint-dir DIR");
  if (o.gdb_port) throw std::invalid_argument("--checkpoint-at cannot be combined with --gdb");
  CheckpointPlan plan;
  plan.dir = o.checkpoint_dir;
  const std::string& at = o.checkpoint_at;
  if (at.rfind("superstep:", 0) == 0)
    plan.superstep = parse_count_after(at, 10, "--checkpoint-at");
  else if (at.rfind("every:", 0) == 0)
    plan.every = parse_count_after(at, 6, "--checkpoint-at");
  else if (at.rfind("cycle:", 0) == 0)
    plan.cycle = parse_count_after(at, 6, "--checkpoint-at");
  else
    throw std::invalid_argument(fmt::format("--checkpoint-at '{}': give superstep:N, cycle:C or every:N", at));
  if (plan.superstep > UINT32_MAX || plan.every > UINT32_MAX)
    throw std::invalid_argument(fmt::format("--checkpoint-at '{}': N is at most {}", at, UINT32_MAX));
  return plan;
}

void set_checkpoint_gate(const CheckpointPlan& plan, uint64_t start, platform::PlatformOptions& options) {
  if (plan.cycle > 0) {  // cycles count from the run's start, a restored run's too
    options.checkpoint_at = 0;
    options.checkpoint_every = 0;
    options.checkpoint_at_cycle = plan.cycle;
    return;
  }
  if (plan.every > 0) {
    options.checkpoint_at = uint32_t(plan.every);
    options.checkpoint_every = uint32_t(plan.every);
    return;
  }
  // The gate holds the n-th release computed from the run's start: the first is that of
  // the sync the tiles wait at when the run starts (superstep `start`).
  if (plan.superstep <= start && start > 1)
    throw std::invalid_argument(fmt::format("--checkpoint-at superstep:{}: the restored checkpoint is at superstep {} "
                                            "already (give a later one)",
                                            plan.superstep, start));
  options.checkpoint_at = uint32_t(plan.superstep - start + 1);
  options.checkpoint_every = 0;
}

Restored open_restore(const RunOptions& o) {
  // Options that would make the restored run another run than the one checkpointed.
  std::vector<std::string> refused;
  if (o.tiles) refused.push_back("--tiles (the checkpoint's tiles run)");
  if (!o.link_faults.empty()) refused.push_back("--link-faults (faults change the run)");
  if (!refused.empty())
    throw CheckpointError(CheckpointError::Kind::Option,
                          fmt::format("--restore '{}': {} would change the results of the restored run", o.restore,
                                      fmt::join(refused, ", ")));
  Restored r;
  r.ckpt = checkpoint::read_checkpoint(o.restore);
  checkpoint::ByteReader inputs(r.ckpt.section("inputs"), "inputs");
  r.inputs.config_path = inputs.str("config path");
  r.inputs.elf_path = inputs.str("ELF path");
  r.inputs.tiles = inputs.str("tiles");
  r.inputs.link_faults.resize(size_t(inputs.count("link fault items", 8)));
  for (std::string& item : r.inputs.link_faults) item = inputs.str("link fault item");
  inputs.expect_end();
  r.inputs.config_text = std::string(r.ckpt.section("config").begin(), r.ckpt.section("config").end());
  r.inputs.elf = r.ckpt.section("elf");
  if (checkpoint::content_hash(r.inputs.config_text) != r.ckpt.header.config_hash)
    throw CheckpointError(CheckpointError::Kind::Corrupt, "the checkpoint's config does not match its header's hash");
  if (r.ckpt.header.elf_hashes.size() != 1 || checkpoint::content_hash(r.inputs.elf) != r.ckpt.header.elf_hashes[0])
    throw CheckpointError(CheckpointError::Kind::Corrupt, "the checkpoint's ELF does not match its header's hash");
  if (!o.config.empty()) {
    // But for the blocks' RTL selection, which a restore may change (--rtl).
    config::SystemConfig given_system = config::load_system(o.config);
    given_system.cosim = config::load_system_text(r.inputs.config_path, r.inputs.config_text).cosim;
    const std::string given = config::to_yaml(given_system);
    if (checkpoint::content_hash(given) != r.ckpt.header.config_hash)
      throw CheckpointError(CheckpointError::Kind::Config,
                            fmt::format("--config '{}' differs from the config of the checkpoint '{}' (taken with '{}')",
                                        o.config, o.restore, r.inputs.config_path));
  }
  if (!o.elf.empty() && checkpoint::content_hash(read_bytes(o.elf, "--elf")) != r.ckpt.header.elf_hashes[0])
    throw CheckpointError(CheckpointError::Kind::Elf,
                          fmt::format("--elf '{}' differs from the ELF of the checkpoint '{}' (taken with '{}')", o.elf,
                                      o.restore, r.inputs.elf_path));
  // Under the path the run was given: the effective config names it (`--json`'s
  // FILE.config.yaml is the uninterrupted run's); the text is resolved, it refers to no file.
  r.system = config::load_system_text(r.inputs.config_path, r.inputs.config_text);
  restore_part_sources(r.inputs.config_text, r.system);
  r.program = iss::Program::from_bytes(r.inputs.elf, r.inputs.elf_path);
  return r;
}

void write_run_checkpoint(const CheckpointPlan& plan, platform::Platform& platform, uint64_t superstep,
                          const RunInputs& inputs) {
  checkpoint::Checkpoint ckpt;
  ckpt.header.build_id = checkpoint::build_id();
  ckpt.header.config_hash = checkpoint::content_hash(inputs.config_text);
  ckpt.header.elf_hashes = {checkpoint::content_hash(inputs.elf)};
  ckpt.header.superstep = superstep;
  checkpoint::ByteWriter in;
  in.str(inputs.config_path);
  in.str(inputs.elf_path);
  in.str(inputs.tiles);
  in.u64(inputs.link_faults.size());
  for (const std::string& item : inputs.link_faults) in.str(item);
  ckpt.sections.push_back({"inputs", std::move(in.data()), false});
  ckpt.sections.push_back(
      {"config", std::vector<uint8_t>(inputs.config_text.begin(), inputs.config_text.end()), true});
  ckpt.sections.push_back({"elf", inputs.elf, true});
  for (checkpoint::Section& s : platform.checkpoint_sections(superstep)) ckpt.sections.push_back(std::move(s));
  const std::string dir =
      plan.every > 0 ? (std::filesystem::path(plan.dir) / fmt::format("superstep-{}", superstep)).string() : plan.dir;
  checkpoint::write_checkpoint(dir, ckpt);
}

}  // namespace ipusim::cli
