// What an IPU's exchange fabric and its board's gateway say to each other: one plain
// struct (GatewayRequest) carried in a tlm_generic_payload's data pointer (command
// TLM_WRITE_COMMAND, address 0, data length = sizeof(GatewayRequest), no byte enables:
// the convention of exchange_payload.h), sent with b_transport to Gateway::copy_socket.
//
// Protocol (blocking transport; the caller is an SC_THREAD, the delay is ignored and left
// unchanged: every time is absolute in the copies themselves):
//
//   Check  the fabric asks whether every copy of an exchange phase can be done, before it
//          moves anything: range, alignment, stream id, and (no host connected) whether
//          the host streams can be served. Nothing moves, no time passes. Problems are
//          appended to *errors (one per bad copy) and the response is
//          TLM_GENERIC_ERROR_RESPONSE; otherwise TLM_OK_RESPONSE.
//   Run    the gateway performs the copies in vector order (the fabric gives them in tile,
//          then posting order): SmemWrite / StreamWrite take their bytes from `data`,
//          SmemRead / StreamRead leave theirs there, and each copy gets its `done` time.
//          A stream read whose host-to-device FIFO is short, or a stream write whose
//          device-to-host FIFO is full, blocks the caller (SystemC wait) until the host
//          serves the stream; the call returns when every copy is done.
//
// A malformed request gets TLM_COMMAND_ERROR_RESPONSE.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "common/problem.h"

namespace ipusim::streaming {

struct GatewayCopy {
  enum class Op : uint32_t {
    SmemRead,     // streaming memory [smem_addr, +len) -> data (-> the tile's buffer)
    SmemWrite,    // data (<- the tile's buffer) -> streaming memory [smem_addr, +len)
    StreamRead,   // host-to-device FIFO of `stream` -> data
    StreamWrite,  // data -> device-to-host FIFO of `stream`
  };
  Op op = Op::SmemRead;
  // The requester, for error messages and ERR_* registers.
  uint32_t ipu = 0;        // system-wide IPU index
  uint32_t tile = 0;       // index in its IPU
  uint32_t pc = 0;         // of the posting instruction
  uint32_t tile_addr = 0;  // the tile-side buffer (the fabric reads / writes it)
  uint32_t len = 0;        // bytes
  uint32_t stream = 0;     // Stream*: stream id
  uint64_t smem_addr = 0;  // Smem*: byte offset in streaming memory
  uint8_t* data = nullptr;           // Run: len bytes, owned by the caller
  sc_core::sc_time ready;            // Run: the earliest the copy may start (the tile's xwait)
  sc_core::sc_time done;             // Run response: the bytes are at their destination
};


inline bool is_smem(GatewayCopy::Op op) { return op == GatewayCopy::Op::SmemRead || op == GatewayCopy::Op::SmemWrite; }
// The copy's bytes land in the tile (smread, hsread), else leave it.
inline bool into_tile(GatewayCopy::Op op) { return op == GatewayCopy::Op::SmemRead || op == GatewayCopy::Op::StreamRead; }

// "smread of 64 bytes into 0x00050000 from streaming memory 0x0000000400000000",
// "hswrite of 16 bytes at 0x00050000 to host stream 3" (gateway.cpp).
std::string describe(const GatewayCopy& copy);

// The problem record of a bad copy (gateway.cpp): `code`, `kind`, the posting (ipu, tile,
// thread 0, pc), the address (streaming-memory offset, or the stream id), detail
// "describe(copy): why". Text: "tile 3 (ipu 0) thread 0 pc 0x00040120: smread of ...: why".
Problem copy_problem(const GatewayCopy& copy, ProblemCode code, std::string kind, const std::string& why);

struct GatewayRequest {
  enum class Kind : uint32_t { Check = 0, Run = 1 };
  Kind kind = Kind::Check;
  std::vector<GatewayCopy>* copies = nullptr;   // caller-owned
  // Caller-owned; the gateway appends one problem record per bad copy: code SMEM_RANGE /
  // SMEM_ALIGN / STREAM / STREAM_OVERFLOW, the posting (ipu, tile, thread 0, pc), the
  // address (streaming-memory offset, or the stream id), detail "smread of ...: why".
  std::vector<Problem>* errors = nullptr;
};

}  // namespace ipusim::streaming
