// Streaming-memory and host-stream posting (docs/xipu.md, custom-0 funct3 = 3 and 4):
// smaddr / hsid set state, smread / smwrite / hsread / hswrite post a copy that the
// gateway (tlm/streaming) performs when the tile stops at xwait. Like send / recv, a
// posting is checked when it issues; what the ISS cannot know (the streaming memory's
// size, the FIFO levels) is the gateway's to check.
//
// Fault kinds: "send during compute" (a copy outside an exchange phase), "exchange
// misuse" (no smaddr / hsid yet, a stream id that does not exist, a length that is not a
// multiple of IPU_SMEM_ALIGN or above IPU_XFER_MAX), "misaligned access" (tile buffer or
// streaming address not aligned), "access fault" (buffer outside SRAM, a read into code).
#include <fmt/format.h>

#include <ipu/xipu_isa.h>  // IPU_STREAMS, IPU_SMEM_ALIGN, IPU_XFER_MAX

#include "iss/core_state.h"

namespace ipusim::iss {

std::string sram_range_text(uint32_t sram_bytes);  // loop_services.cpp

bool CoreState::select_stream(const Thread& t, const DecodedInsn* ip, uint32_t stream) {
  if (stream >= IPU_STREAMS) {
    raise(t, ip, "exchange misuse", fmt::format("hsid {}: host stream ids are 0..{}", stream, IPU_STREAMS - 1),
          stream);
    return false;
  }
  stream_ = stream;
  return true;
}

bool CoreState::post_copy(const Thread& t, const DecodedInsn* ip, ExchangePost::Kind kind, uint32_t addr,
                          uint32_t len, uint64_t cycle) {
  const bool smem = kind == ExchangePost::Kind::SmemRead || kind == ExchangePost::Kind::SmemWrite;
  const bool into_tile = kind == ExchangePost::Kind::SmemRead || kind == ExchangePost::Kind::StreamRead;
  // "smread of 64 bytes into 0x00050000 from streaming memory 0x0000000400000000",
  // "hswrite of 64 bytes at 0x00050000 to host stream 3". Built only when a check fails.
  auto what = [&] {
    const char* name = smem ? (into_tile ? "smread" : "smwrite") : (into_tile ? "hsread" : "hswrite");
    std::string far;
    if (smem)
      far = smaddr_ ? fmt::format("streaming memory 0x{:016x}", *smaddr_) : std::string("streaming memory");
    else
      far = stream_ ? fmt::format("host stream {}", *stream_) : std::string("a host stream");
    return fmt::format("{} of {} bytes {} 0x{:08x} {} {}", name, len, into_tile ? "into" : "at", addr,
                       into_tile ? "from" : "to", far);
  };
  // `address`: the misaligned one (tile buffer or streaming-memory offset), for the record.
  auto fail = [&](const char* kind_text, const std::string& detail, std::optional<uint64_t> address = std::nullopt) {
    raise(t, ip, kind_text, what() + detail, address);
    return false;
  };
  if (!exchange_open_)
    return fail("send during compute", outside_phase_detail());
  if (smem && !smaddr_) return fail("exchange misuse", ": no streaming-memory address (smaddr first)");
  if (!smem && !stream_) return fail("exchange misuse", ": no stream selected (hsid first)");
  if (addr & 3) return fail("misaligned access", ": the buffer is not 4-byte aligned", addr);
  if (smem && *smaddr_ % IPU_SMEM_ALIGN != 0)
    return fail("misaligned access",
                fmt::format(": the streaming-memory address is not {}-byte aligned", IPU_SMEM_ALIGN), *smaddr_);
  if (len % IPU_SMEM_ALIGN != 0)
    return fail("exchange misuse", fmt::format(": the length is not a multiple of {}", IPU_SMEM_ALIGN));
  if (len > IPU_XFER_MAX)
    return fail("exchange misuse", fmt::format(": the length exceeds IPU_XFER_MAX ({} bytes)", IPU_XFER_MAX));
  if (addr < kSramBase || addr - kSramBase + uint64_t{len} > params_.sram_bytes)
    return fail("access fault", ": the buffer lies outside SRAM " + sram_range_text(params_.sram_bytes));
  if (into_tile)
    if (auto overlap = code_overlap(addr, len)) return fail("access fault", *overlap);
  posts_.add_copy(kind, addr, len, pc_of(ip), cycle, smem ? 0 : *stream_, smem ? *smaddr_ : 0);
  if (watch()) note_buffer(kind, addr, len);
  return true;
}

}  // namespace ipusim::iss
