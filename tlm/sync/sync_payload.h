// What a tile and its IPU's sync controller say to each other: one plain struct carried
// in a tlm_generic_payload's data pointer (data_length = sizeof(SyncMessage), command
// TLM_WRITE_COMMAND, address 0, streaming width = data length, no byte enables). The
// struct is the whole contract, so the TLM controller can be swapped for a transactor
// in front of Verilated RTL without touching the tiles.
//
// Protocol (TLM-2.0 base protocol, non-blocking transport, times as annotated delays):
//
//   Arrive  tile --nb_transport_fw(BEGIN_REQ, delay = time of `cycle` - now)--> controller
//           controller returns TLM_UPDATED with END_REQ (accepted) ... later, when the
//           zone releases:
//           controller --nb_transport_bw(BEGIN_RESP, delay = time of release_cycle - now)-->
//           tile, response TLM_OK_RESPONSE and release_cycle set; the tile returns
//           TLM_COMPLETED. The payload (and the message) stay the tile's and must live
//           until that response.
//   Leave   tile --nb_transport_fw(BEGIN_REQ)--> controller, which returns TLM_COMPLETED:
//           the tile halted and will never sync again (the controller reports a sync
//           that can then never complete).
//
// Errors are TLM responses on the forward call (returned with TLM_COMPLETED):
// TLM_GENERIC_ERROR_RESPONSE for a zone the controller does not serve or a tile that is
// not a participant, TLM_COMMAND_ERROR_RESPONSE for a malformed payload.
#pragma once

#include <cstdint>

namespace ipusim::sync {

struct SyncMessage {
  enum class Kind : uint32_t {
    Arrive = 0,  // the supervisor executed `sync` over `zone`
    Leave = 1,   // the tile halted
  };
  Kind kind = Kind::Arrive;
  uint32_t tile = 0;           // the tile's index in its IPU (= its binding index)
  uint32_t zone = 0;           // Arrive: 1 = IPU, 2 = sync group
  uint32_t reserved = 0;
  uint64_t cycle = 0;          // Arrive: the tile cycle of the `sync`; Leave: of the `halt`
  uint64_t release_cycle = 0;  // response: the cycle the supervisor issues its next instruction
};

}  // namespace ipusim::sync
