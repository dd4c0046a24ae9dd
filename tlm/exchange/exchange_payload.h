// What a tile and its IPU's exchange fabric say to each other: one plain struct carried
// in a tlm_generic_payload's data pointer (data_length = sizeof(ExchangeMessage),
// command TLM_WRITE_COMMAND, address 0, streaming width = data length, no byte enables),
// so the TLM fabric can be swapped for a transactor in front of RTL without touching the
// tiles.
//
// Protocol (TLM-2.0 base protocol, non-blocking transport, times as annotated delays):
//
//   Post    tile --nb_transport_fw(BEGIN_REQ, delay = time of `cycle` - now)--> fabric:
//           the tile reached `xwait` (or a sync / halt with postings pending) with the
//           messages `log` (iss::TileCore::exchange_log(), valid until the response; or
//           `posts`, ExchangePosts, read when there is no log).
//           The fabric returns TLM_UPDATED with END_REQ; when every tile of the IPU has
//           posted or closed its phase, it plans the exchange, moves the data through the
//           tiles' memory sockets, and answers each poster:
//           fabric --nb_transport_bw(BEGIN_RESP, delay = time of done_cycle - now)--> tile
//           with TLM_OK_RESPONSE, done_cycle and the bytes moved, or, if the exchange is invalid, with
//           TLM_GENERIC_ERROR_RESPONSE, `problems` (every problem found, the first
//           is what the board reports; nothing was delivered) and done_cycle = the
//           cycle the exchange failed (the last participant's). The tile returns
//           TLM_COMPLETED.
//   Close   tile --nb_transport_fw(BEGIN_REQ)--> fabric, which returns TLM_COMPLETED: the
//           tile's exchange phase ended without postings (it reached its next sync or its
//           halt without an `xwait`). Its receives are empty; sends to it will fail.
//
// A forward call that is malformed or comes from a tile that is not a participant is
// answered at once with TLM_COMMAND_ERROR_RESPONSE / TLM_GENERIC_ERROR_RESPONSE and
// TLM_COMPLETED.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.h"
#include "iss/posting_log.h"

namespace ipusim::exchange {

struct ExchangeMessage {
  enum class Kind : uint32_t {
    Post = 0,   // the tile's postings of this phase; wait for the response
    Close = 1,  // the tile's phase ended with nothing posted
  };
  Kind kind = Kind::Post;
  uint32_t tile = 0;                                  // index in the IPU (= binding index)
  uint64_t cycle = 0;                                 // Post: the `xwait` cycle; Close: the stop's
  uint32_t zone = 1;                                  // of the sync that opened the phase: 2 makes it
                                                      // an exchange across the sync group's IPUs
  const iss::PostingLog* log = nullptr;               // Post: the tile's postings
  const std::vector<iss::ExchangePost>* posts = nullptr;  // Post without a log (tests)
  uint64_t done_cycle = 0;                            // response: the tile's exchange is complete
                                                      // (error response: the exchange failed)
  uint64_t bytes_out = 0;                             // response: bytes it sent (a multicast once)
  uint64_t bytes_in = 0;                              // response: bytes it received
  const std::vector<Problem>* problems = nullptr;     // error response: every problem, the first
                                                      // the one the board reports (fabric-owned)
};

}  // namespace ipusim::exchange
