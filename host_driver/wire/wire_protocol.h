// The wire protocol between the socket transport of ipudrv and `ipusim serve`: framed
// little-endian messages over a Unix stream socket. One header and one .cpp, shared by the
// client and the server, so both sides encode and validate with the same code.
//
// Frame: a 16-byte header, then `payload_bytes` of payload.
//   u32 magic 'IPUW' | u16 version_major | u16 type | u32 seq | u32 payload_bytes
// Every request carries a sequence number; its reply (OK, READ32_REPLY, HELLO_REPLY or
// ERROR) carries the same one. INTERRUPT and CONSOLE_PENDING are the only unsolicited
// messages (seq 0).
// One socket serves a whole system (every board of it: the boards run as one device), so
// the requests that reach a board's host interface, and INTERRUPT, carry a board index;
// HELLO_REPLY says how many boards there are.
// MAP travels with exactly one file descriptor (SCM_RIGHTS): a memfd of the client's host
// memory, which the server mmaps so that the device's DMA reads and writes it directly.
//
// The messages (their type codes, directions and fields) are declared once in
// hw/host_if/messages.yaml, which generates their structs (wire_messages.h), their codec
// (wire_codec.cpp) and the message table of docs/host_driver.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wire_limits.h"
#include "wire_messages.h"

namespace ipusim::wire {

struct Message {
  uint32_t seq = 0;
  Body body;
};

Type type_of(const Body& body);
const char* type_name(uint16_t type);  // "READ32", ... or "unknown"

// Appends one frame to `out`.
void encode(const Message& msg, std::vector<uint8_t>& out);
std::vector<uint8_t> encode(const Message& msg);

// Result of decoding the front of a byte buffer.
struct Decoded {
  enum class Status { kNeedMore, kMessage, kInvalid } status = Status::kNeedMore;
  Message message;      // kMessage
  size_t consumed = 0;  // kMessage: bytes of the frame
  std::string error;    // kInvalid: which field, and why
  uint32_t seq = 0;     // kInvalid: the frame's seq when the header was readable (for the reply)
  ErrorCode code = ErrorCode::kMalformed;  // kInvalid: kVersion for a peer of another major
};

// Decodes the frame at the front of `bytes`. Never reads past `bytes`, never throws,
// accepts only frames whose every field is valid. After kInvalid the stream cannot be
// resynchronised: the peer is to be answered with ERROR and disconnected.
Decoded decode(std::span<const uint8_t> bytes) noexcept;

}  // namespace ipusim::wire
