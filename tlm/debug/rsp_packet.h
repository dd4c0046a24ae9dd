// The gdb Remote Serial Protocol's byte level: packet framing ($data#cs), checksums,
// acknowledgements, binary escaping, run-length decoding and hex helpers. Plain C++,
// no sockets: gdb_server.cpp moves the bytes, this file only gives them meaning, so
// every rule here is unit-tested on strings (docs/debugging.md, "gdb remote protocol").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ipusim::debug::rsp {

// Modulo-256 sum of the bytes between '$' and '#', as sent (after escaping).
uint8_t checksum(std::string_view data);

// Escapes the bytes the framing reserves ('$', '#', '}' and '*', the last because gdb
// reads "x*n" as a run) as '}' followed by the byte XOR 0x20.
std::string escape(std::string_view data);

// "$" + escape(payload) + "#" + two hex digits. Escaping every payload is safe: gdb
// unescapes every packet it reads, and plain replies contain none of the four bytes.
std::string frame(std::string_view payload);

// One thing read from the connection.
struct Event {
  enum class Kind {
    Packet,     // a well-formed packet: `payload`, unescaped and run-length expanded
    BadPacket,  // a packet whose checksum did not match (or that was malformed): NAK it
    Ack,        // '+'
    Nack,       // '-': resend the last packet
    Interrupt,  // 0x03 outside a packet: gdb's Ctrl-C
  };
  Kind kind;
  std::string payload;
};

// Incremental parser: bytes in any split (as TCP delivers them), events out in order.
// Bytes outside packets other than '+', '-' and 0x03 are ignored, as gdbserver does.
class Parser {
 public:
  // Appends the events the bytes complete to `out`.
  void feed(std::string_view bytes, std::vector<Event>& out);
  // A packet longer than this is dropped as BadPacket (a peer that never sends '#'
  // must not grow the buffer without bound).
  static constexpr size_t kMaxPacket = 1 << 20;

 private:
  enum class State { Idle, Data, Check1, Check2 };
  State state_ = State::Idle;
  std::string data_;
  char check_hi_ = 0;
  bool overflow_ = false;
};

// Packet data as received -> its bytes: undoes escapes and expands gdb's run-length
// encoding ("x*" + char(n + 29): x repeated n more times) in one pass, as gdb's own
// reader does (a run repeats the decoded byte before it). nullopt if the data ends
// inside an escape or a run has no byte before it or a count below 3.
std::optional<std::string> decode(std::string_view raw);

// Hex helpers. Lower-case output, as gdb sends.
std::string to_hex(std::span<const uint8_t> bytes);
std::string to_hex(std::string_view text);
std::optional<std::vector<uint8_t>> from_hex(std::string_view hex);
// A 32-bit register value in target (little-endian) byte order: 0x12345678 -> "78563412".
std::string le32_hex(uint32_t value);
std::optional<uint32_t> parse_le32_hex(std::string_view hex);
// A big-endian hex number as in addresses and lengths ("4001c"); nullopt if empty, not
// hex, or wider than 64 bits.
std::optional<uint64_t> parse_hex(std::string_view hex);
std::string hex(uint64_t value);

}  // namespace ipusim::debug::rsp
