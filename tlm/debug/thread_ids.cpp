#include "debug/thread_ids.h"

#include "debug/rsp_packet.h"

namespace ipusim::debug {
namespace {

constexpr uint32_t kSlotsPerId = 8;  // tid = tile * 8 + slot + 1: room for 7 slots and spare

uint32_t tid_of(const ThreadRef& t) { return t.tile * kSlotsPerId + t.slot + 1; }

// "-1" / "0" -> nullopt part (all / any); otherwise the hex value, which must not be 0.
std::optional<std::optional<uint64_t>> part(std::string_view text) {
  if (text == "-1" || text == "0") return std::optional<uint64_t>{};
  auto v = rsp::parse_hex(text);
  if (!v || *v == 0) return std::nullopt;
  return std::optional<uint64_t>{*v};
}

}  // namespace

std::string format_thread_id(const ThreadRef& thread, bool multiprocess) {
  if (multiprocess) return "p" + rsp::hex(thread.ipu + 1) + "." + rsp::hex(tid_of(thread));
  return rsp::hex(static_cast<uint64_t>(thread.ipu) << 16 | tid_of(thread));
}

std::optional<ThreadPattern> parse_thread_id(std::string_view text) {
  ThreadPattern out;
  std::optional<uint64_t> tid;
  if (!text.empty() && text.front() == 'p') {
    text.remove_prefix(1);
    size_t dot = text.find('.');
    auto pid = part(text.substr(0, dot));
    if (!pid) return std::nullopt;
    if (*pid) {
      if (**pid - 1 > UINT32_MAX) return std::nullopt;
      out.ipu = static_cast<uint32_t>(**pid - 1);
    }
    if (dot == std::string_view::npos) return out;  // "p1": every thread of IPU 0
    auto t = part(text.substr(dot + 1));
    if (!t) return std::nullopt;
    if (*t && !out.ipu) return std::nullopt;  // a thread of any process: meaningless
    tid = *t;
  } else {
    auto t = part(text);
    if (!t) return std::nullopt;
    if (*t) {
      out.ipu = static_cast<uint32_t>(**t >> 16);
      tid = **t & 0xffff;
      if (*tid == 0) return std::nullopt;
    }
  }
  if (tid) {
    uint64_t index = *tid - 1;
    if (index / kSlotsPerId > UINT32_MAX) return std::nullopt;
    out.tile = static_cast<uint32_t>(index / kSlotsPerId);
    out.slot = static_cast<uint32_t>(index % kSlotsPerId);
  }
  return out;
}

}  // namespace ipusim::debug
