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
// docs/host_driver.md has the message table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <ipu/host_records.h>  // SuperstepStats, LinkStats: the records the replies carry

namespace ipusim::wire {

inline constexpr uint32_t kMagic = 0x57555049u;  // "IPUW" read as little-endian bytes
inline constexpr uint16_t kVersionMajor = 2;     // a peer refuses any other major; 2: board indices
// Compatible additions (carried in HELLO): 1 SET_LINK_FAULTS, LINK_FIGURES; 2 the console
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

enum class Type : uint16_t {
  kHello = 1,         // c->s: version, name
  kHelloReply = 2,    // s->c: version, board count, name
  kRead32 = 3,        // c->s: board, offset
  kRead32Reply = 4,   // s->c: value
  kWrite32 = 5,       // c->s: board, offset, value
  kMap = 6,           // c->s (+1 fd): board, bus address, bytes, offset in the fd
  kUnmap = 7,         // c->s: board, bus address
  kInterrupt = 8,     // s->c, unsolicited: a board raised its interrupt
  kOk = 9,            // s->c: the request with this seq was done
  kError = 10,        // s->c: the request with this seq failed: code, text
  kBye = 11,          // c->s: end of session (the server resets the device)
  kSetTrace = 12,     // c->s: board, the superstep trace file of the next runs (OK or ERROR DEVICE)
  kSupersteps = 13,   // c->s: board, IPU of the board, first superstep: per-superstep totals
  kSuperstepsReply = 14,  // s->c: total supersteps, then up to kMaxSuperstepsPerReply of them
  kSetLinkFaults = 15,    // c->s: board, fault items for the system's IPU-Links (OK or ERROR DEVICE)
  kLinkFigures = 16,      // c->s: board, first: the system's IPU-Link figures per direction
  kLinkFiguresReply = 17, // s->c: total directions, then up to kMaxLinkFiguresPerReply of them
  kSetConsole = 18,       // c->s: board, where the tiles' console goes (OK)
  kConsoleRead = 19,      // c->s: board: the console lines waiting at the server
  kConsoleLines = 20,     // s->c: dropped so far, more waiting, then line records
  kConsolePending = 21,   // s->c, unsolicited: console lines wait for CONSOLE_READ
};
inline constexpr Type kLastType = Type::kConsolePending;

// Codes of an ERROR reply.
enum class ErrorCode : uint32_t {
  kMalformed = 1,       // the frame failed validation (the text says which field)
  kVersion = 2,         // unsupported protocol major
  kNotHello = 3,        // a request before HELLO
  kMapFailed = 4,       // MAP: no fd, fd not mappable, or the range overlaps / is out of bounds
  kUnmapFailed = 5,     // UNMAP of an address no MAP made
  kDevice = 6,          // the device refused the request
  kBusy = 7,            // another client is being served
  kNoBoard = 8,         // a board index past the served system's boards (the session goes on)
  kIdle = 9,            // the client held the device idle too long (ServerOptions::idle_timeout)
};

struct Hello {
  static constexpr Type kType = Type::kHello;
  static constexpr Direction kDirection = Direction::kToServer;
  uint16_t major = kVersionMajor, minor = kVersionMinor;
  std::string name;
};
// `board` is last in the structs (so that a one-board caller may leave it 0) and first on
// the wire (the layouts in wire_protocol.cpp).
struct HelloReply {
  static constexpr Type kType = Type::kHelloReply;
  static constexpr Direction kDirection = Direction::kToClient;
  uint16_t major = kVersionMajor, minor = kVersionMinor;
  uint32_t boards = 1;
  std::string name;
};
struct Read32 {
  static constexpr Type kType = Type::kRead32;
  static constexpr Direction kDirection = Direction::kToServer;
  uint32_t offset = 0;
  uint32_t board = 0;
};
struct Read32Reply {
  static constexpr Type kType = Type::kRead32Reply;
  static constexpr Direction kDirection = Direction::kToClient;
  uint32_t value = 0;
};
struct Write32 {
  static constexpr Type kType = Type::kWrite32;
  static constexpr Direction kDirection = Direction::kToServer;
  uint32_t offset = 0, value = 0;
  uint32_t board = 0;
};
// Host memory of one board: the board's DMA reaches it at bus_addr (as the in-process
// transport maps a range into one board's DeviceLink).
struct Map {
  static constexpr Type kType = Type::kMap;
  static constexpr Direction kDirection = Direction::kToServer;
  uint64_t bus_addr = 0, bytes = 0, fd_offset = 0;
  uint32_t board = 0;
};
struct Unmap {
  static constexpr Type kType = Type::kUnmap;
  static constexpr Direction kDirection = Direction::kToServer;
  uint64_t bus_addr = 0;
  uint32_t board = 0;
};
// Interrupt: `board`'s interrupts since the session began
struct Interrupt {
  static constexpr Type kType = Type::kInterrupt;
  static constexpr Direction kDirection = Direction::kToClient;
  uint64_t count = 0;
  uint32_t board = 0;
};
struct Ok {
  static constexpr Type kType = Type::kOk;
  static constexpr Direction kDirection = Direction::kToClient;
};
struct Error {
  static constexpr Type kType = Type::kError;
  static constexpr Direction kDirection = Direction::kToClient;
  ErrorCode code = ErrorCode::kMalformed;
  std::string text;
};
struct Bye {
  static constexpr Type kType = Type::kBye;
  static constexpr Direction kDirection = Direction::kToServer;
};
// SetTrace: "" stops tracing
struct SetTrace {
  static constexpr Type kType = Type::kSetTrace;
  static constexpr Direction kDirection = Direction::kToServer;
  std::string path;
  uint32_t board = 0;
};
// Supersteps: ipu: of the board
struct Supersteps {
  static constexpr Type kType = Type::kSupersteps;
  static constexpr Direction kDirection = Direction::kToServer;
  uint32_t ipu = 0, first = 0;
  uint32_t board = 0;
};
// One superstep of one IPU: the DeviceLink's record itself (hw/host_if/records.yaml), since
// the wire carries the DeviceLink's calls to a device in another process; its wire size
// is the generator's.
inline constexpr size_t kMaxSuperstepsPerReply = (kMaxPayload - 8) / records::SuperstepStats::kWireBytes;
// Supersteps [first, first + records.size()) of `total`.
struct SuperstepsReply {
  static constexpr Type kType = Type::kSuperstepsReply;
  static constexpr Direction kDirection = Direction::kToClient;
  uint32_t total = 0;
  std::vector<records::SuperstepStats> records;
};
// The system's IPU-Links are shared by its boards: any board's DeviceLink sets and reads
// them; the board field says whose (as for every request that reaches a board).
// SetLinkFaults: as `ipusim run --link-faults`
struct SetLinkFaults {
  static constexpr Type kType = Type::kSetLinkFaults;
  static constexpr Direction kDirection = Direction::kToServer;
  std::string items;
  uint32_t board = 0;
};
struct LinkFigures {
  static constexpr Type kType = Type::kLinkFigures;
  static constexpr Direction kDirection = Direction::kToServer;
  uint32_t first = 0;
  uint32_t board = 0;
};
// One direction of one link: the DeviceLink's record itself, as SuperstepStats.
inline constexpr size_t kMaxLinkFiguresPerReply = (kMaxPayload - 8) / records::LinkStats::kWireBytes;
// Link directions [first, first + records.size()) of `total`.
struct LinkFiguresReply {
  static constexpr Type kType = Type::kLinkFiguresReply;
  static constexpr Direction kDirection = Direction::kToClient;
  uint32_t total = 0;
  std::vector<records::LinkStats> records;
};

// The tiles' console is the system's (any board's request sets and reads it). Routes:
enum class ConsoleRoute : uint32_t {
  kServer = 0,  // the server's own output (what a client that never sends SET_CONSOLE gets)
  kDrop = 1,    // nowhere: lines are dropped and counted
  kClient = 2,  // queued for CONSOLE_READ; a full queue makes the simulation wait
};
struct SetConsole {
  static constexpr Type kType = Type::kSetConsole;
  static constexpr Direction kDirection = Direction::kToServer;
  ConsoleRoute route = ConsoleRoute::kServer;
  uint32_t board = 0;
};
struct ConsoleRead {
  static constexpr Type kType = Type::kConsoleRead;
  static constexpr Direction kDirection = Direction::kToServer;
  uint32_t board = 0;
};
// A line, or a piece of one: a line longer than kMaxText travels in pieces, each but the
// last with `continued` set.
struct ConsoleRecord {
  uint32_t ipu = 0, tile = 0, thread = 0;
  bool continued = false;
  std::string text;
  bool operator==(const ConsoleRecord&) const = default;
};
inline constexpr size_t kConsoleLinesHeaderBytes = 8 + 4 + 4;  // dropped, more, count
inline constexpr size_t kConsoleRecordHeaderBytes = 4 * 4 + 4;  // ipu, tile, thread, flags, text length
// `dropped`: lines the session's console dropped so far (route DROP); `more`: lines still
// wait after these.
struct ConsoleLines {
  static constexpr Type kType = Type::kConsoleLines;
  static constexpr Direction kDirection = Direction::kToClient;
  uint64_t dropped = 0;
  bool more = false;
  std::vector<ConsoleRecord> records;
};
struct ConsolePending {
  static constexpr Type kType = Type::kConsolePending;
  static constexpr Direction kDirection = Direction::kToClient;
  uint32_t board = 0;
};

using Body = std::variant<Hello, HelloReply, Read32, Read32Reply, Write32, Map, Unmap, Interrupt, Ok, Error, Bye,
                          SetTrace, Supersteps, SuperstepsReply, SetLinkFaults, LinkFigures, LinkFiguresReply,
                          SetConsole, ConsoleRead, ConsoleLines, ConsolePending>;

// A client's request (the server has one handler for each and refuses the others).
template <class M>
inline constexpr bool is_request = M::kDirection == Direction::kToServer;

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
