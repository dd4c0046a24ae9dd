// Encoding and validating decoding of the wire protocol (wire_protocol.h).
// Payload layouts (little-endian; "text" = u16 length, u16 zero, then the bytes, no NUL):
// "board" = u32 board index (< kMaxBoards here; the server checks the system's count).
//   HELLO        u16 major, u16 minor, text name
//   HELLO_REPLY  u16 major, u16 minor, u32 boards (1 .. kMaxBoards), text name
//   READ32       board, u32 offset (< BAR0 bytes)       READ32_REPLY  u32 value
//   WRITE32      board, u32 offset (< BAR0 bytes), u32 value
//   MAP          board, u64 bus address, u64 bytes, u64 fd offset (all page multiples)
//   UNMAP        board, u64 bus address                 INTERRUPT     board, u64 count
//   ERROR        u32 code, text                         OK, BYE       empty
//   SET_TRACE    board, text path ("" = none)           SUPERSTEPS    board, u32 ipu, u32 first
//   SUPERSTEPS_REPLY  u32 total, u32 count (<= kMaxSuperstepsPerReply), count x SuperstepStats
//   SET_LINK_FAULTS  board, text items          LINK_FIGURES  board, u32 first
//   LINK_FIGURES_REPLY  u32 total, u32 count (<= kMaxLinkFiguresPerReply), count x LinkStats
// A record (hw/host_if/records.yaml, docs/host_records.md) is its fields in order, each
// u32 or u64 as declared, no padding: put_record / get_record walk records::Fields.
//   SET_CONSOLE  board, u32 route (0 server, 1 drop, 2 client)       CONSOLE_READ  board
//   CONSOLE_LINES  u64 dropped, u32 more (0 / 1), u32 count, count x (u32 ipu, u32 tile,
//                u32 thread, u32 flags (bit 0: continued by the next record), text), the
//                whole payload at most kMaxPayload
//   CONSOLE_PENDING  board
#include "wire_protocol.h"

#include <ipu/hostif_regs.h>

#include <cstring>
#include <type_traits>
#include <utility>

namespace ipusim::wire {
namespace {

void put16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(uint8_t(v));
  out.push_back(uint8_t(v >> 8));
}
void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put_text(std::vector<uint8_t>& out, const std::string& s) {
  // Encoding truncates rather than fails: the decoder would refuse a longer text.
  const size_t n = std::min(s.size(), kMaxText);
  put16(out, uint16_t(n));
  put16(out, 0);
  out.insert(out.end(), s.begin(), s.begin() + n);
}

template <records::Record R>
void put_record(std::vector<uint8_t>& out, const R& rec) {
  records::Fields<R>::each([&](const char*, auto member) {
    const auto v = rec.*member;
    if constexpr (sizeof(v) == 8) put64(out, v);
    else put32(out, v);
  });
}

// Reads fields from a payload, remembering the first field that did not fit.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> p) : p_(p) {}
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }
  uint64_t get(size_t bytes, const char* field) {
    if (!ok()) return 0;
    if (p_.size() - at_ < bytes) {
      fail(std::string(field) + ": payload ends inside it");
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v |= uint64_t(p_[at_ + i]) << (8 * i);
    at_ += bytes;
    return v;
  }
  uint16_t u16(const char* f) { return uint16_t(get(2, f)); }
  uint32_t u32(const char* f) { return uint32_t(get(4, f)); }
  uint64_t u64(const char* f) { return get(8, f); }
  std::string text(const char* field) {
    const uint16_t n = u16(field);
    if (u16("text reserved") != 0) fail(std::string(field) + ": reserved half-word not zero");
    if (!ok()) return {};
    if (n > kMaxText) {
      fail(std::string(field) + ": " + std::to_string(n) + " bytes, at most " + std::to_string(kMaxText));
      return {};
    }
    if (p_.size() - at_ < n) {
      fail(std::string(field) + ": payload ends inside it");
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p_.data() + at_), n);
    at_ += n;
    if (s.find('\0') != std::string::npos) fail(std::string(field) + ": contains a NUL byte");
    return s;
  }
  void expect_end() {
    if (ok() && at_ != p_.size())
      fail(std::to_string(p_.size() - at_) + " bytes after the last field");
  }

 private:
  std::span<const uint8_t> p_;
  size_t at_ = 0;
  std::string error_;
};

template <records::Record R>
R get_record(Reader& r) {
  R rec;
  records::Fields<R>::each([&](const char* name, auto member) {
    using T = std::remove_reference_t<decltype(rec.*member)>;
    static_assert(std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>, "a wire record has u32 / u64 fields");
    rec.*member = T(r.get(sizeof(T), name));
  });
  return rec;
}

void check_offset(Reader& r, uint32_t offset) {
  if (offset >= IPU_BAR0_BYTES)
    r.fail("offset " + std::to_string(offset) + " is outside BAR0 (" + std::to_string(IPU_BAR0_BYTES) + " bytes)");
}

void check_page(Reader& r, uint64_t v, const char* field) {
  if (v % kPageBytes != 0) r.fail(std::string(field) + " not a multiple of " + std::to_string(kPageBytes));
}

// Returns false (and fails `r`) for a major this side does not speak.
bool check_major(Reader& r, uint16_t major) {
  if (!r.ok() || major == kVersionMajor) return true;
  r.fail("protocol major " + std::to_string(major) + ", this side speaks " + std::to_string(kVersionMajor));
  return false;
}

uint32_t board(Reader& r) {
  const uint32_t b = r.u32("board");
  if (r.ok() && b >= kMaxBoards)
    r.fail("board " + std::to_string(b) + ", a system has at most " + std::to_string(kMaxBoards));
  return b;
}

// A message whose payload is its board alone.
template <class M>
M board_only(Reader& r) {
  M m;
  m.board = board(r);
  r.expect_end();
  return m;
}

// `version_error`: set when the payload names a major this side does not speak.
Body decode_body(Type type, Reader& r, bool& version_error) {
  switch (type) {
    case Type::kHello: {
      Hello m;
      m.major = r.u16("major");
      m.minor = r.u16("minor");
      m.name = r.text("name");
      r.expect_end();
      version_error = !check_major(r, m.major);
      return m;
    }
    case Type::kHelloReply: {
      HelloReply m;
      m.major = r.u16("major");
      m.minor = r.u16("minor");
      m.boards = r.u32("boards");
      m.name = r.text("name");
      r.expect_end();
      version_error = !check_major(r, m.major);
      if (r.ok() && (m.boards == 0 || m.boards > kMaxBoards))
        r.fail("boards " + std::to_string(m.boards) + ", not 1 .. " + std::to_string(kMaxBoards));
      return m;
    }
    case Type::kRead32: {
      Read32 m;
      m.board = board(r);
      m.offset = r.u32("offset");
      r.expect_end();
      check_offset(r, m.offset);
      return m;
    }
    case Type::kRead32Reply: {
      Read32Reply m{r.u32("value")};
      r.expect_end();
      return m;
    }
    case Type::kWrite32: {
      Write32 m;
      m.board = board(r);
      m.offset = r.u32("offset");
      m.value = r.u32("value");
      r.expect_end();
      check_offset(r, m.offset);
      return m;
    }
    case Type::kMap: {
      Map m;
      m.board = board(r);
      m.bus_addr = r.u64("bus_addr");
      m.bytes = r.u64("bytes");
      m.fd_offset = r.u64("fd_offset");
      r.expect_end();
      if (!r.ok()) return m;
      if (m.bytes == 0) r.fail("bytes is 0");
      if (m.bytes > kMaxMapBytes) r.fail("bytes " + std::to_string(m.bytes) + " above the limit " + std::to_string(kMaxMapBytes));
      check_page(r, m.bus_addr, "bus_addr");
      check_page(r, m.bytes, "bytes");
      check_page(r, m.fd_offset, "fd_offset");
      if (m.bus_addr >= kMaxBusAddr || m.bytes > kMaxBusAddr - m.bus_addr)
        r.fail("range ends above the highest bus address");
      if (m.fd_offset > kMaxMapBytes) r.fail("fd_offset above the limit");
      return m;
    }
    case Type::kUnmap: {
      Unmap m;
      m.board = board(r);
      m.bus_addr = r.u64("bus_addr");
      r.expect_end();
      if (r.ok()) {
        check_page(r, m.bus_addr, "bus_addr");
        if (m.bus_addr >= kMaxBusAddr) r.fail("bus_addr above the highest bus address");
      }
      return m;
    }
    case Type::kInterrupt: {
      Interrupt m;
      m.board = board(r);
      m.count = r.u64("count");
      r.expect_end();
      return m;
    }
    case Type::kOk:
      r.expect_end();
      return Ok{};
    case Type::kError: {
      Error m;
      const uint32_t code = r.u32("code");
      m.text = r.text("text");
      r.expect_end();
      if (r.ok() && (code < uint32_t(ErrorCode::kMalformed) || code > uint32_t(ErrorCode::kIdle)))
        r.fail("unknown code " + std::to_string(code));
      m.code = ErrorCode(code);
      return m;
    }
    case Type::kBye:
      r.expect_end();
      return Bye{};
    case Type::kSetTrace: {
      SetTrace m;
      m.board = board(r);
      m.path = r.text("path");
      r.expect_end();
      return m;
    }
    case Type::kSupersteps: {
      Supersteps m;
      m.board = board(r);
      m.ipu = r.u32("ipu");
      m.first = r.u32("first");
      r.expect_end();
      return m;
    }
    case Type::kSuperstepsReply: {
      SuperstepsReply m;
      m.total = r.u32("total");
      const uint32_t count = r.u32("count");
      if (r.ok() && count > kMaxSuperstepsPerReply)
        r.fail("count " + std::to_string(count) + ", at most " + std::to_string(kMaxSuperstepsPerReply));
      for (uint32_t i = 0; i < count && r.ok(); ++i) m.records.push_back(get_record<records::SuperstepStats>(r));
      r.expect_end();
      return m;
    }
    case Type::kSetLinkFaults: {
      SetLinkFaults m;
      m.board = board(r);
      m.items = r.text("items");
      r.expect_end();
      return m;
    }
    case Type::kLinkFigures: {
      LinkFigures m;
      m.board = board(r);
      m.first = r.u32("first");
      r.expect_end();
      return m;
    }
    case Type::kLinkFiguresReply: {
      LinkFiguresReply m;
      m.total = r.u32("total");
      const uint32_t count = r.u32("count");
      if (r.ok() && count > kMaxLinkFiguresPerReply)
        r.fail("count " + std::to_string(count) + ", at most " + std::to_string(kMaxLinkFiguresPerReply));
      for (uint32_t i = 0; i < count && r.ok(); ++i) m.records.push_back(get_record<records::LinkStats>(r));
      r.expect_end();
      return m;
    }
    case Type::kSetConsole: {
      SetConsole m;
      m.board = board(r);
      const uint32_t route = r.u32("route");
      r.expect_end();
      if (r.ok() && route > uint32_t(ConsoleRoute::kClient)) r.fail("route " + std::to_string(route) + ", not 0 .. 2");
      m.route = ConsoleRoute(route);
      return m;
    }
    case Type::kConsoleRead:
      return board_only<ConsoleRead>(r);
    case Type::kConsoleLines: {
      ConsoleLines m;
      m.dropped = r.u64("dropped");
      const uint32_t more = r.u32("more");
      if (r.ok() && more > 1) r.fail("more " + std::to_string(more) + ", not 0 or 1");
      m.more = more == 1;
      const uint32_t count = r.u32("count");
      // The payload bounds the count (every record has a header); checked before reading.
      if (r.ok() && count > (kMaxPayload - kConsoleLinesHeaderBytes) / kConsoleRecordHeaderBytes)
        r.fail("count " + std::to_string(count) + ", more records than a payload holds");
      for (uint32_t i = 0; i < count && r.ok(); ++i) {
        ConsoleRecord c;
        c.ipu = r.u32("ipu");
        c.tile = r.u32("tile");
        c.thread = r.u32("thread");
        const uint32_t flags = r.u32("flags");
        if (r.ok() && flags > 1) r.fail("flags " + std::to_string(flags) + ": only bit 0 (continued) is defined");
        c.continued = flags & 1;
        c.text = r.text("text");
        m.records.push_back(std::move(c));
      }
      r.expect_end();
      return m;
    }
    case Type::kConsolePending:
      return board_only<ConsolePending>(r);
  }
  r.fail("unknown type");
  return Ok{};
}

}  // namespace

// The variant holds the messages in type order, so a decoded type indexes it directly.
template <size_t... I>
constexpr bool body_in_type_order(std::index_sequence<I...>) {
  return ((uint16_t(std::variant_alternative_t<I, Body>::kType) == I + 1) && ...);
}
static_assert(body_in_type_order(std::make_index_sequence<std::variant_size_v<Body>>{}));
static_assert(uint16_t(kLastType) == std::variant_size_v<Body>);

Type type_of(const Body& body) {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::kType; }, body);
}

const char* type_name(uint16_t type) {
  switch (Type(type)) {
    case Type::kHello: return "HELLO";
    case Type::kHelloReply: return "HELLO_REPLY";
    case Type::kRead32: return "READ32";
    case Type::kRead32Reply: return "READ32_REPLY";
    case Type::kWrite32: return "WRITE32";
    case Type::kMap: return "MAP";
    case Type::kUnmap: return "UNMAP";
    case Type::kInterrupt: return "INTERRUPT";
    case Type::kOk: return "OK";
    case Type::kError: return "ERROR";
    case Type::kBye: return "BYE";
    case Type::kSetTrace: return "SET_TRACE";
    case Type::kSupersteps: return "SUPERSTEPS";
    case Type::kSuperstepsReply: return "SUPERSTEPS_REPLY";
    case Type::kSetLinkFaults: return "SET_LINK_FAULTS";
    case Type::kLinkFigures: return "LINK_FIGURES";
    case Type::kLinkFiguresReply: return "LINK_FIGURES_REPLY";
    case Type::kSetConsole: return "SET_CONSOLE";
    case Type::kConsoleRead: return "CONSOLE_READ";
    case Type::kConsoleLines: return "CONSOLE_LINES";
    case Type::kConsolePending: return "CONSOLE_PENDING";
  }
  return "unknown";
}

void encode(const Message& msg, std::vector<uint8_t>& out) {
  std::vector<uint8_t> p;
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, Hello>) {
          put16(p, m.major), put16(p, m.minor), put_text(p, m.name);
        } else if constexpr (std::is_same_v<T, HelloReply>) {
          put16(p, m.major), put16(p, m.minor), put32(p, m.boards), put_text(p, m.name);
        } else if constexpr (std::is_same_v<T, Read32>) {
          put32(p, m.board), put32(p, m.offset);
        } else if constexpr (std::is_same_v<T, Read32Reply>) {
          put32(p, m.value);
        } else if constexpr (std::is_same_v<T, Write32>) {
          put32(p, m.board), put32(p, m.offset), put32(p, m.value);
        } else if constexpr (std::is_same_v<T, Map>) {
          put32(p, m.board), put64(p, m.bus_addr), put64(p, m.bytes), put64(p, m.fd_offset);
        } else if constexpr (std::is_same_v<T, Unmap>) {
          put32(p, m.board), put64(p, m.bus_addr);
        } else if constexpr (std::is_same_v<T, Interrupt>) {
          put32(p, m.board), put64(p, m.count);
        } else if constexpr (std::is_same_v<T, Error>) {
          put32(p, uint32_t(m.code)), put_text(p, m.text);
        } else if constexpr (std::is_same_v<T, SetTrace>) {
          put32(p, m.board), put_text(p, m.path);
        } else if constexpr (std::is_same_v<T, Supersteps>) {
          put32(p, m.board), put32(p, m.ipu), put32(p, m.first);
        } else if constexpr (std::is_same_v<T, SuperstepsReply>) {
          // Encoding truncates rather than fails, as put_text: the decoder refuses more.
          const size_t n = std::min(m.records.size(), kMaxSuperstepsPerReply);
          put32(p, m.total), put32(p, uint32_t(n));
          for (size_t i = 0; i < n; ++i) put_record(p, m.records[i]);
        } else if constexpr (std::is_same_v<T, SetLinkFaults>) {
          put32(p, m.board), put_text(p, m.items);
        } else if constexpr (std::is_same_v<T, LinkFigures>) {
          put32(p, m.board), put32(p, m.first);
        } else if constexpr (std::is_same_v<T, LinkFiguresReply>) {
          const size_t n = std::min(m.records.size(), kMaxLinkFiguresPerReply);  // truncates, as put_text
          put32(p, m.total), put32(p, uint32_t(n));
          for (size_t i = 0; i < n; ++i) put_record(p, m.records[i]);
        } else if constexpr (std::is_same_v<T, SetConsole>) {
          put32(p, m.board), put32(p, uint32_t(m.route));
        } else if constexpr (std::is_same_v<T, ConsoleRead> || std::is_same_v<T, ConsolePending>) {
          put32(p, m.board);
        } else if constexpr (std::is_same_v<T, ConsoleLines>) {
          // As many records as the payload holds (truncating, as put_text): the server
          // sizes its replies so that none is cut.
          std::vector<uint8_t> records;
          uint32_t n = 0;
          for (const ConsoleRecord& c : m.records) {
            const size_t bytes = kConsoleRecordHeaderBytes + std::min(c.text.size(), kMaxText);
            if (kConsoleLinesHeaderBytes + records.size() + bytes > kMaxPayload) break;
            put32(records, c.ipu), put32(records, c.tile), put32(records, c.thread), put32(records, c.continued ? 1 : 0);
            put_text(records, c.text);
            ++n;
          }
          put64(p, m.dropped), put32(p, m.more ? 1 : 0), put32(p, n);
          p.insert(p.end(), records.begin(), records.end());
        }
      },
      msg.body);
  put32(out, kMagic);
  put16(out, kVersionMajor);
  put16(out, uint16_t(type_of(msg.body)));
  put32(out, msg.seq);
  put32(out, uint32_t(p.size()));
  out.insert(out.end(), p.begin(), p.end());
}

std::vector<uint8_t> encode(const Message& msg) {
  std::vector<uint8_t> out;
  encode(msg, out);
  return out;
}

Decoded decode(std::span<const uint8_t> bytes) noexcept {
  Decoded d;
  try {
    // Validate what is there as soon as it is there: a bad magic is reported without
    // waiting for a header's worth of bytes that may never come.
    const size_t have = std::min(bytes.size(), kHeaderBytes);
    uint8_t header[kHeaderBytes] = {};
    std::memcpy(header, bytes.data(), have);
    const auto le = [&](size_t at, size_t n) {
      uint64_t v = 0;
      for (size_t i = 0; i < n; ++i) v |= uint64_t(header[at + i]) << (8 * i);
      return v;
    };
    auto invalid = [&](std::string why) {
      d.status = Decoded::Status::kInvalid;
      d.error = std::move(why);
      return d;
    };
    uint8_t magic[4];
    std::memcpy(magic, &kMagic, 4);
    if (std::memcmp(header, magic, std::min<size_t>(have, 4)) != 0) return invalid("bad magic (not an ipusim wire frame)");
    if (have >= 12) d.seq = uint32_t(le(8, 4));  // the reply to a refused frame carries it
    if (have >= 6 && le(4, 2) != kVersionMajor) {
      d.code = ErrorCode::kVersion;  // a peer of another major: answered as such, not as garbage
      return invalid("frame version " + std::to_string(le(4, 2)) + ", this side speaks " + std::to_string(kVersionMajor));
    }
    const uint16_t type = uint16_t(le(6, 2));
    if (have >= 8 && (type < uint16_t(Type::kHello) || type > uint16_t(kLastType)))
      return invalid("unknown message type " + std::to_string(type));
    if (have < kHeaderBytes) return d;  // kNeedMore
    const uint32_t payload = uint32_t(le(12, 4));
    if (payload > kMaxPayload)
      return invalid(std::string(type_name(type)) + ": payload of " + std::to_string(payload) +
                     " bytes, at most " + std::to_string(kMaxPayload));
    if (bytes.size() - kHeaderBytes < payload) return d;  // kNeedMore
    Reader r(bytes.subspan(kHeaderBytes, payload));
    bool version_error = false;
    Body body = decode_body(Type(type), r, version_error);
    if (!r.ok()) {
      if (version_error) d.code = ErrorCode::kVersion;
      return invalid(std::string(type_name(type)) + ": " + r.error());
    }
    d.status = Decoded::Status::kMessage;
    d.message = Message{d.seq, std::move(body)};
    d.consumed = kHeaderBytes + payload;
    return d;
  } catch (...) {
    // Only allocation can throw here; report it as a refusal rather than unwinding
    // into a server loop.
    d.status = Decoded::Status::kInvalid;
    d.error = "out of memory while decoding";
    return d;
  }
}

}  // namespace ipusim::wire
