#include "platform/platform_trace.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace ipusim::platform {
namespace {

// The line is put together by hand: fmt's format strings were ~60 % of a full trace's
// host time (parsing the replacement fields of every line).
void put(fmt::memory_buffer& b, std::string_view s) { b.append(s.data(), s.data() + s.size()); }
void put(fmt::memory_buffer& b, char c) { b.push_back(c); }
void put_dec(fmt::memory_buffer& b, uint64_t v) {
  const fmt::format_int f(v);
  b.append(f.data(), f.data() + f.size());
}
// "0x" and `digits` hex digits (0: as many as the value needs).
void put_hex(fmt::memory_buffer& b, uint32_t v, unsigned digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (digits == 0)
    for (digits = 1; digits < 8 && (v >> (4 * digits)) != 0;) ++digits;
  char text[10] = {'0', 'x'};
  for (unsigned i = 0; i < digits; ++i) text[1 + digits - i] = kHex[(v >> (4 * i)) & 0xf];
  b.append(text, text + 2 + digits);
}

// "0x" and the bytes of a store as one little-endian number (two digits a byte, the
// highest address first).
void put_bytes(fmt::memory_buffer& b, const uint8_t* bytes, unsigned size) {
  static constexpr char kHex[] = "0123456789abcdef";
  put(b, "0x");
  for (unsigned i = size; i-- > 0;) {
    b.push_back(kHex[bytes[i] >> 4]);
    b.push_back(kHex[bytes[i] & 0xf]);
  }
}

void put_reg(fmt::memory_buffer& b, iss::RetiredInsn::Dest kind, uint8_t reg, uint32_t value) {
  put(b, kind == iss::RetiredInsn::Dest::X ? " x" : " f");
  put_dec(b, reg);
  put(b, ' ');
  put_hex(b, value, 8);
}

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
  put_dec(line, tile.ipu);
  put(line, ' ');
  put_dec(line, tile.tile);
  put(line, ' ');
  put_dec(line, r.thread);
  put(line, ' ');
  put_dec(line, r.cycle);
  put(line, ' ');
  put_hex(line, r.pc, 8);
  put(line, " <");
  if (const auto at = program.code_symbols().locate(r.pc); !at) {
    put(line, '?');
  } else {
    put(line, at->name);
    if (at->offset != 0) {
      put(line, '+');
      put_hex(line, at->offset, 0);
    }
  }
  put(line, "> ");
  put_hex(line, r.insn, 8);
  put(line, ' ');
  put(line, disassemble_(r.pc, r.insn));
  if (r.dest != iss::RetiredInsn::Dest::None || r.mem_size != 0 || r.store2_size != 0 || fcsr_changed) {
    put(line, " ;");
    if (r.dest != iss::RetiredInsn::Dest::None) {
      put_reg(line, r.dest, r.dest_reg, r.dest_value);
      for (unsigned i = 0; i < r.more_count; ++i) put_reg(line, r.more[i].kind, r.more[i].reg, r.more[i].value);
    }
    if (r.mem_size != 0) {
      put(line, " mem ");
      put_hex(line, r.mem_addr, 8);
      if (r.mem_store) {
        put(line, ' ');
        if (r.mem_size <= 4)
          put_hex(line, r.mem_value, 2 * r.mem_size);
        else
          put_bytes(line, r.mem_data, r.mem_size);
      }
    }
    if (r.store2_size != 0) {
      put(line, " mem ");
      put_hex(line, r.store2_addr, 8);
      put(line, ' ');
      put_bytes(line, r.store2_data, r.store2_size);
    }
    if (fcsr_changed) {
      put(line, " fcsr ");
      put_hex(line, r.fcsr, 2);
    }
  }
  put(line, '\n');
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
