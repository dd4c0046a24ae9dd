#include "platform/platform_trace.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

namespace ipusim::platform {
namespace {

bool parse_cycle(std::string_view text, uint64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

void TraceFilter::parse_cycles(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("--itrace-cycles: '" + text + "' " + why);
  };
  const size_t colon = text.find(':');
  if (colon == std::string::npos) throw bad("is not FROM:TO (tile cycles; FROM: or :TO leave one end open)");
  const std::string_view from(text.data(), colon), to(text.data() + colon + 1, text.size() - colon - 1);
  uint64_t f = 0, t = kForever;
  if (!from.empty() && !parse_cycle(from, f)) throw bad("has a FROM that is not a cycle number");
  if (!to.empty() && !parse_cycle(to, t)) throw bad("has a TO that is not a cycle number");
  if (t <= f) throw bad("is empty: TO must be greater than FROM (the window is FROM <= cycle < TO)");
  cycle_from = f;
  cycle_to = t;
}

InstructionTrace::InstructionTrace(const std::string& path, Disassembler disassemble, TraceFilter filter)
    : path_(path), disassemble_(std::move(disassemble)), filter_(std::move(filter)) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_)
    throw std::runtime_error(fmt::format("--itrace: cannot open '{}': {}", path, std::strerror(errno)));
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
}

InstructionTrace::~InstructionTrace() {
  if (file_) std::fclose(file_);
}

void InstructionTrace::retire(const iss::TileIdentity& tile, const iss::Program& program,
                              const iss::RetiredInsn& r) {
  const uint64_t who = (uint64_t(tile.ipu) * tile.tiles_per_ipu + tile.tile) << 3 | r.thread;
  uint32_t& fcsr = fcsr_[who];
  const bool fcsr_changed = fcsr != r.fcsr;
  fcsr = r.fcsr;
  if (!filter_.keeps(r.thread, r.cycle)) return;

  fmt::memory_buffer line;
  auto out = std::back_inserter(line);
  fmt::format_to(out, "{} {} {} {} 0x{:08x} ", tile.ipu, tile.tile, r.thread, r.cycle, r.pc);
  if (const auto at = program.code_symbols().locate(r.pc); !at)
    fmt::format_to(out, "<?>");
  else if (at->offset == 0)
    fmt::format_to(out, "<{}>", at->name);
  else
    fmt::format_to(out, "<{}+0x{:x}>", at->name, at->offset);
  fmt::format_to(out, " 0x{:08x} {}", r.insn, disassemble_(r.pc, r.insn));
  if (r.dest != iss::RetiredInsn::Dest::None || r.mem_size != 0 || fcsr_changed) {
    fmt::format_to(out, " ;");
    if (r.dest != iss::RetiredInsn::Dest::None)
      fmt::format_to(out, " {}{} 0x{:08x}", r.dest == iss::RetiredInsn::Dest::X ? 'x' : 'f', r.dest_reg,
                     r.dest_value);
    if (r.mem_size != 0) {
      fmt::format_to(out, " mem 0x{:08x}", r.mem_addr);
      if (r.mem_store) fmt::format_to(out, " 0x{:0{}x}", r.mem_value, 2 * r.mem_size);
    }
    if (fcsr_changed) fmt::format_to(out, " fcsr 0x{:02x}", r.fcsr);
  }
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), file_);
  ++lines_;
}

void InstructionTrace::close() {
  if (!file_) return;
  const bool failed = std::ferror(file_) != 0;
  const bool close_failed = std::fclose(file_) != 0;
  file_ = nullptr;
  if (failed || close_failed)
    throw std::runtime_error(fmt::format("--itrace: writing '{}' failed", path_));
}

}  // namespace ipusim::platform
