// The wire protocol's constants: the frame's magic, the protocol version and the limits
// every message's fields are checked against. The messages themselves are declared in
// hw/host_if/messages.yaml (wire_messages.h, generated); wire_protocol.h is the API.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ipusim::wire {

inline constexpr uint32_t kMagic = 0x57555049u;  // "IPUW" read as little-endian bytes
inline constexpr uint16_t kVersionMajor = 2;     // a peer refuses any other major; 2: board indices
// Compatible additions (carried in HELLO): 1 SET_LINK_FAULTS, LINK_STATS; 2 the console
// (SET_CONSOLE, CONSOLE_READ, CONSOLE_LINES, CONSOLE_PENDING). A peer sends a message of
// a minor only when the other side's HELLO (REPLY) announced at least that minor.
inline constexpr uint16_t kVersionMinor = 2;
inline constexpr uint16_t kConsoleMinor = 2;      // the first minor with the console messages
inline constexpr size_t kHeaderBytes = 16;
inline constexpr size_t kMaxPayload = 1024;      // no message needs more
inline constexpr size_t kMaxText = 512;          // longest text (error message, peer name)
// Host memory one MAP may share, and the highest bus address: generous, but bounded so
// that a hostile size cannot make the server reserve the address space.
inline constexpr uint64_t kMaxMapBytes = uint64_t{1} << 36;
inline constexpr uint64_t kMaxBusAddr = uint64_t{1} << 48;
inline constexpr uint64_t kPageBytes = 4096;
// Boards a system may have (the config loader's limit): a board index or count above it
// is malformed; one past the served system's count is ERROR NO_BOARD.
inline constexpr uint32_t kMaxBoards = 16384;

// Which way a message goes: every message struct says its Type and Direction (kType,
// kDirection), so that the type list, type_of() and the server's dispatch cannot disagree.
enum class Direction { kToServer, kToClient };

}  // namespace ipusim::wire
