// Exchange posting (docs/xipu.md, custom-0 funct3 = 2): xdst, send, xsrc, recv, checked
// when they issue and recorded in posting order for the platform, which runs the
// exchange when the tile stops at xwait (scheduler.cpp). Nothing moves here: a posting
// only names a buffer, whose bytes the fabric reads or writes after the workers ended.
//
// Fault kinds: "illegal instruction" (a worker), "send during compute" (send / recv
// outside an exchange phase), "misaligned access" (buffer address), "access fault"
// (buffer outside SRAM, receive buffer in code), "exchange misuse" (length, empty
// destination set, no source, a tile id that is no tile of the system). Every detail
// names the peer tile(s) by global id.
#include <algorithm>

#include <fmt/format.h>

#include "iss/core_state.h"
#include "iss/isa_table.h"

namespace ipusim::iss {

bool loop_exchange(Quantum& q, const DecodedInsn* ip, uint64_t executed) { return q.tile->exchange(q, ip, executed); }

std::string sram_range_text(uint32_t sram_bytes);  // loop_services.cpp

namespace {

// "tile 7", "tiles 4..7", "tiles 1, 4..7, 9" (ids sorted and unique), at most 8 runs shown.
std::string tiles_text(std::span<const uint32_t> ids) {
  if (ids.empty()) return "no tile";
  if (ids.size() == 1) return fmt::format("tile {}", ids[0]);
  std::string out = "tiles ";
  unsigned runs = 0;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (runs == 8) {
      out += ", ...";
      break;
    }
    if (runs++) out += ", ";
    out += i == j ? fmt::format("{}", ids[i]) : fmt::format("{}..{}", ids[i], ids[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace

bool CoreState::exchange(Quantum& q, const DecodedInsn* ip, uint64_t executed) {
  const Thread& t = *q.thread;
  const Op op = code().ops[code().index_of(ip)];
  if (t.id != 0) {
    raise(t, ip, "illegal instruction",
          fmt::format("{} is supervisor-only (the supervisor drives the exchange)",
                      isa::xipu_mnemonic(word_at(ip))));
    return false;
  }
  const uint32_t a = t.hart.regs[ip->rs1], b = t.hart.regs[ip->rs2];
  const uint64_t cycle = t.clock + kIssueSlots * q.slots(executed);
  switch (op) {
    case Op::xdst: return add_destinations(t, ip, a, b);
    case Op::xsrc: return set_source(t, ip, a);
    case Op::xsend: return post(t, ip, ExchangePost::Kind::Send, a, b, cycle);
    case Op::xrecv: return post(t, ip, ExchangePost::Kind::Recv, a, b, cycle);
    case Op::smaddr:
      smaddr_ = uint64_t{b} << 32 | a;
      return true;
    case Op::hsid: return select_stream(t, ip, a);
    case Op::smread: return post_copy(t, ip, ExchangePost::Kind::SmemRead, a, b, cycle);
    case Op::smwrite: return post_copy(t, ip, ExchangePost::Kind::SmemWrite, a, b, cycle);
    case Op::hsread: return post_copy(t, ip, ExchangePost::Kind::StreamRead, a, b, cycle);
    case Op::hswrite: return post_copy(t, ip, ExchangePost::Kind::StreamWrite, a, b, cycle);
    default:
      raise(t, ip, "internal error", "not an exchange posting");
      return false;
  }
}

bool CoreState::add_destinations(const Thread& t, const DecodedInsn* ip, uint32_t first, uint32_t count) {
  if (count == 0) return true;  // adds nothing, names no tile
  if (uint64_t{first} + count > system_tiles()) {
    raise(t, ip, "exchange misuse",
          fmt::format("destination tiles {}..{} are not all tiles of the system (global ids 0..{}: {} IPU(s) x {} "
                      "tiles)",
                      first, uint64_t{first} + count - 1, system_tiles() - 1, params_.id.ipus,
                      params_.id.tiles_per_ipu));
    return false;
  }
  const size_t old = xdst_.size();
  for (uint32_t i = 0; i < count; ++i) xdst_.push_back(first + i);
  std::inplace_merge(xdst_.begin(), xdst_.begin() + static_cast<std::ptrdiff_t>(old), xdst_.end());
  xdst_.erase(std::unique(xdst_.begin(), xdst_.end()), xdst_.end());
  return true;
}

bool CoreState::set_source(const Thread& t, const DecodedInsn* ip, uint32_t tile) {
  if (tile >= system_tiles()) {
    raise(t, ip, "exchange misuse",
          fmt::format("source tile {} is not a tile of the system (global ids 0..{}: {} IPU(s) x {} tiles)", tile,
                      system_tiles() - 1, params_.id.ipus, params_.id.tiles_per_ipu));
    return false;
  }
  xsrc_ = tile;
  return true;
}

std::string CoreState::outside_phase_detail() const {
  return fmt::format(" outside an exchange phase (this is tile {}; a sync of zone 1 or 2 opens the phase, "
                     "xwait closes it)",
                     global_tile());
}

std::optional<std::string> CoreState::code_overlap(uint32_t addr, uint32_t len) const {
  for (const Segment& s : program_->segments())
    if (s.executable && len != 0 && uint64_t{addr} + len > s.vaddr && addr < uint64_t{s.vaddr} + s.mem_size)
      return fmt::format(": the buffer overlaps code [0x{:08x}, 0x{:08x})", s.vaddr, s.vaddr + s.mem_size);
  return std::nullopt;
}

bool CoreState::post(const Thread& t, const DecodedInsn* ip, ExchangePost::Kind kind, uint32_t addr, uint32_t len,
                     uint64_t cycle) {
  const bool send = kind == ExchangePost::Kind::Send;
  const std::span<const uint32_t> peers = send ? std::span<const uint32_t>(xdst_)
                                         : xsrc_ ? std::span<const uint32_t>(&*xsrc_, 1)
                                                 : std::span<const uint32_t>();
  // "send of 64 bytes at 0x00050000 to tile 7", "recv of 64 bytes into 0x00050000 from tile 5".
  // Built only when a check fails: posting is on the exchange's hot path.
  auto what = [&] {
    return fmt::format("{} of {} bytes {} 0x{:08x} {} {}", send ? "send" : "recv", len, send ? "at" : "into", addr,
                       send ? "to" : "from", tiles_text(peers));
  };
  auto fail = [&](const char* kind_text, const std::string& detail) {
    raise(t, ip, kind_text, what() + detail);
    return false;
  };
  if (!exchange_open_)
    return fail("send during compute", outside_phase_detail());
  if (send && peers.empty()) return fail("exchange misuse", ": the destination set is empty (xdst first)");
  if (!send && peers.empty()) return fail("exchange misuse", ": no source tile (xsrc first)");
  if (addr & 3) return fail("misaligned access", ": the buffer is not 4-byte aligned");
  if (len & 3) return fail("exchange misuse", ": the length is not a multiple of 4");
  if (len > params_.sram_bytes)
    return fail("exchange misuse", fmt::format(": the length exceeds the SRAM size ({} bytes)", params_.sram_bytes));
  if (addr < kSramBase || addr - kSramBase + uint64_t{len} > params_.sram_bytes)
    return fail("access fault", ": the buffer lies outside SRAM " + sram_range_text(params_.sram_bytes));
  if (!send)
    if (auto overlap = code_overlap(addr, len)) return fail("access fault", *overlap);
  posts_.add_message(kind, addr, len, peers, pc_of(ip), cycle);
  if (watch()) note_buffer(kind, addr, len);
  if (send) xdst_.clear();
  return true;
}

}  // namespace ipusim::iss
